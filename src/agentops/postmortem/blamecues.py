"""Blame as a combination of cues (P-5, #24): a person-like agent tied to a fault cue.

People rarely own a fault with the verbs a fault lexicon knows. They tell their own act
and let its circumstance carry the fault ("we ran the migration *without enough
resources*", "I pushed *while the draft was still open*"), name what the act moved as
wrong ("Robin triggered *the wrong process*", "we pushed *a broken wheel*"), apologise
for causing it, call the act a human failing ("this was *a botch* of the tag"), or say
they were not ready. Each of those is a cue class in ``lint_rules.yaml`` with its own
examples; this module only knows how a cue is tied to an agent:

- ``act``: the cue follows, within ``reach`` characters, a verb group of one of the act
  lemmas done (past or perfect; not supposed, denied, announced or passive) whose
  subject is a person-like agent. With ``attach`` the act may sit in the clause right
  before the cue's, when the cue opens its clause ("..., without a review").
- ``subject``: the cue is itself the predicate; its subject is the agent.
- ``self``: the cue names the person in itself (an apology for causing it, a human
  failing as what the incident was).

The agent reading is the one of clauses.py; a system or process agent is never blame.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from agentops.postmortem import clauses as clause_mod
from agentops.postmortem import verbgroups
from agentops.postmortem.clauses import Grammar

TIES = ("act", "subject", "self")
# How far before its main verb a verb group may start ("had not even been ... pushed").
_GROUP_CHARS = 80
# How far before a cue its ``not_before`` words are looked for: a clause of thousands of
# cues stays linear, each cue reading only its own neighbourhood.
_NOT_BEFORE_CHARS = 40


@dataclass(frozen=True)
class CueClass:
    name: str
    tie: str
    pattern: re.Pattern[str]
    reach: int = 80  # characters from the act's verb to the cue (tie ``act``)
    attach: bool = False  # the cue may open the clause after the act's
    # Words right before the cue that make it no fault done ("there was a slip", "would
    # have been ready"): read on the stretch of its clause before it.
    not_before: re.Pattern[str] | None = None
    # The act lemmas this cue qualifies, when fewer than all: a wrong object is a fault
    # of the acts that put it out ("pushed a broken wheel"), while running, installing
    # or building a broken thing is how a reporter reproduces it.
    acts: frozenset[str] = frozenset()
    # The agent classes this cue blames, when fewer than the reading's: a belief owned
    # ("I assumed the flag was off") is the writer's fault, while the team's ("we
    # assumed the network was at fault") tells what was believed at the time.
    agents: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Cues:
    agents: frozenset[str]
    acts: verbgroups.Lexicon
    classes: tuple[CueClass, ...]


def compile_cues(content: Mapping[str, Any]) -> Cues:
    """The cue reading from the validated ``cues`` mapping of a rule."""
    acts = verbgroups.compile_lexicon({
        "irregular": content.get("irregular") or {},
        "classes": [{"class": "act", "agents": list(content["agents"]),
                     "lemmas": list(content["acts"])}]})
    classes = tuple(
        CueClass(name=c["class"], tie=c["tie"],
                 pattern=re.compile(c["pattern"], re.IGNORECASE),
                 reach=int(c.get("reach", 80)), attach=bool(c.get("attach", False)),
                 not_before=re.compile(c["not_before"], re.IGNORECASE)
                 if "not_before" in c else None,
                 acts=frozenset(c.get("acts") or ()),
                 agents=frozenset(c.get("agents") or ()))
        for c in content["classes"])
    return Cues(frozenset(content["agents"]), acts, classes)


def _agent(text: str, clause: clause_mod.Clause, at: int, grammar: Grammar) -> str:
    words = clause_mod.subject(text, clause, at, grammar)
    if words:
        return clause_mod.classify(words, grammar)
    return clause_mod.UNSTATED if clause_mod.opens(text, at, grammar) else clause_mod.SYSTEM


def _done(g: verbgroups.VerbGroup) -> bool:
    """An act done: past or perfect, not supposed, denied, announced or passive."""
    return (g.tense == "past" or g.perfect) and not (
        g.modal or g.negated or g.progressive or g.passive or g.infinitive)


def spans(text: str, grammar: Grammar, cues: Cues) -> Iterator[tuple[int, int, str, str]]:
    """Every cue tied to a person-like agent: (start, end, cue class, agent class),
    offsets into ``text``."""
    text = clause_mod.flatten_asides(text)
    parts = clause_mod.clauses(text, grammar)
    for k, clause in enumerate(parts):
        if text[clause.start:clause.end].rstrip(" )*_\"'.").endswith("?"):
            continue  # a question asks; the rule reads the accusing ones itself
        for cls in cues.classes:
            for m in cls.pattern.finditer(text, clause.start, clause.end):
                if cls.not_before is not None and cls.not_before.search(
                        text, max(clause.start, m.start() - _NOT_BEFORE_CHARS), m.start()):
                    continue
                hit = _tie(text, parts, k, m, cls, grammar=grammar, cues=cues)
                if hit is not None and (not cls.agents or hit[1] in cls.agents
                                        or cls.tie == "self"):
                    yield hit[0], m.end(), cls.name, hit[1]


def _tie(text: str, parts: list[clause_mod.Clause], k: int, m: re.Match[str],
         cls: CueClass, *, grammar: Grammar, cues: Cues) -> tuple[int, str] | None:
    clause = parts[k]
    if cls.tie == "self":
        return m.start(), "self"
    if cls.tie == "subject":
        agent = _agent(text, clause, m.start(), grammar)
        return (m.start(), agent) if agent in cues.agents else None
    where = [(clause, m.start())]
    if cls.attach and k > 0 and not text[clause.start:m.start()].strip(" ,"):
        where.append((parts[k - 1], parts[k - 1].end))
    for part, until in where:
        # Sanity: only the stretch where a verb group ending within reach can start is
        # read, so a clause of thousands of cues stays linear, not quadratic.
        lo = max(part.start, m.start() - cls.reach - _GROUP_CHARS)
        if lo > part.start:
            space = text.find(" ", lo, until)
            lo = until if space < 0 else space
        for g in verbgroups.read(text, lo, until, cues.acts):
            if not _done(g) or m.start() - g.verb_end > cls.reach or (
                    cls.acts and g.lemma not in cls.acts):
                continue
            agent = _agent(text, part, g.start, grammar)
            if agent in cues.agents:
                return g.start, agent
    return None
