"""The mood of a clause for the post-mortem lint (P-5, #24): whether it prescribes
(normative), judges (evaluative) or doubts (epistemic), and what it is about.

Advocacy and hedging are not words but readings of a clause. "Releases should be gated"
and "the patch should fix it" share the modal; the first prescribes a process, the
second expects software to behave. "The rollout scheme is fragile" judges a design;
"the disk was fragile" is a fact of the incident. So a clause's reading has two parts:

- its mood, from the verb group: a normative modal or necessity predicate, an
  evaluative adjective or noun, an epistemic marker; minus the readings that take the
  marker out of that mood (hindsight "should have", an expected outcome "should fix",
  the writer's own commitment "I will", a procedure's description "is supposed to");
- its topic, from the noun class of the clause's subject (else its object): process,
  design, policy, organisation, or the incident's concrete objects (the fix, a PR, a
  host). A norm about a concrete object is the fix's own to-do, not advocacy.

The markers, the readings that cancel them and the noun classes are data
(``moods.yaml``); this module is pure and knows only how to read a clause with them.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentops.postmortem import clauses as clause_mod
from agentops.postmortem import verbgroups
from agentops.postmortem.clauses import Grammar

NORMATIVE = "normative"
EVALUATIVE = "evaluative"
EPISTEMIC = "epistemic"
MOODS = (NORMATIVE, EVALUATIVE, EPISTEMIC)
# The topic of a clause whose subject and object name no class of ``moods.yaml``.
UNCLASSED = "unclassed"
# The topic of a judgement of an unclassed thing in the past tense ("the lock was too
# fragile under load"): how the incident's own object was, a fact of its narrative, where
# the present tense ("the lock is fragile") is a standing verdict.
PAST_STATE = "past_state"


@dataclass(frozen=True)
class MoodGrammar:
    """The mood data from ``moods.yaml``."""

    markers: Mapping[str, re.Pattern[str]]  # mood -> its verb groups and words
    cancels: Mapping[str, tuple[re.Pattern[str], ...]]  # mood -> readings that undo it
    nouns: Mapping[str, re.Pattern[str]]  # noun class -> its nouns, in priority order
    # A past-tense verb group in a judgement's clause ("was", "were run"), or None.
    past: re.Pattern[str] | None = None
    # Markers that make a clause an opinion: a hedge word there softens the opinion.
    opinion: tuple[str, ...] = (NORMATIVE, EVALUATIVE)
    # Deontic and dynamic readings of a possibility modal (``proposals``), or None.
    proposals: Proposals | None = None


# The readings of ``Proposals``: an opinion as the complement, an act done to a thing.
VERDICT = "verdict"
PASSIVE_ACT = "passive_act"
PROPOSAL_READINGS = (VERDICT, PASSIVE_ACT)


@dataclass(frozen=True)
class Proposals:
    """When a modal proposes or permits rather than doubting a fact (``moods.yaml``
    ``proposals``): its complement is an opinion (``verdict``: "a patch release might be
    better"), or an act is done to its subject (a participle of ``acts``: "the flag could
    be dropped")."""

    readings: Mapping[str, re.Pattern[str]]  # reading -> the modals it reads
    verdict: re.Pattern[str] | None = None
    participles: frozenset[str] = frozenset()  # of the act lemmas


@dataclass(frozen=True)
class Reading:
    """One clause's reading: its mood, the marker's span (offsets into the sentence),
    and the noun class of what the clause is about."""

    mood: str
    start: int
    end: int
    topic: str


def compile_moods(content: Mapping[str, Any]) -> MoodGrammar:
    """The mood grammar from the validated content of ``moods.yaml``."""
    def rx(pattern: str) -> re.Pattern[str]:
        return re.compile(pattern, re.IGNORECASE)

    return MoodGrammar(
        markers={m: rx(v["pattern"]) for m, v in content["markers"].items()},
        cancels={m: tuple(rx(c["pattern"]) for c in v)
                 for m, v in (content.get("cancels") or {}).items()},
        nouns={k: rx(v["pattern"]) for k, v in content["nouns"].items()},
        past=rx(content["past"]["pattern"]) if "past" in content else None,
        proposals=compile_proposals(content["proposals"]) if "proposals" in content
        else None)


def compile_proposals(content: Mapping[str, Any]) -> Proposals:
    """The ``proposals`` section of ``moods.yaml``: the modals each reading reads, the
    verdict pattern, the act lemmas (with their irregular past and participle)."""
    irregular = {k: list(v) for k, v in (content.get("irregular") or {}).items()}
    participles = {form for lemma in content.get("acts") or ()
                   for form in verbgroups.inflect(lemma, irregular.get(lemma, ()))["participle"]}
    return Proposals(
        readings={r: re.compile(rf"\b(?:{m})\b", re.IGNORECASE)
                  for r, m in content["readings"].items()},
        verdict=re.compile(content["verdict"]["pattern"], re.IGNORECASE)
        if "verdict" in content else None,
        participles=frozenset(participles))


def topic(words: str, moods: MoodGrammar) -> str | None:
    """The first noun class (in file order) one of ``words`` belongs to, else None: a
    subject's concrete word makes the subject concrete wherever it stands."""
    for name, pattern in moods.nouns.items():
        if pattern.search(words):
            return name
    return None


def object_topic(words: str, moods: MoodGrammar) -> str | None:
    """The noun class of the nearest classed noun after a marker (its object, or the
    noun an evaluative adjective modifies: "poor governance ... the latest changes" is
    about governance); on a tie, the first class in file order."""
    best: tuple[int, int, str] | None = None
    for rank, (name, pattern) in enumerate(moods.nouns.items()):
        m = pattern.search(words)
        if m is not None and (best is None or (m.start(), rank) < best[:2]):
            best = (m.start(), rank, name)
    return best[2] if best else None


def _cancelled(part: str, at: int, end: int, mood: str, moods: MoodGrammar) -> bool:
    """Whether a reading that undoes ``mood`` overlaps the marker at ``part[at:end]``."""
    return any(m.start() < end and at < m.end()
               for c in moods.cancels.get(mood, ()) for m in c.finditer(part))


_NOUN_PHRASE = re.compile(r"\s+((?:[\w-]+\s+){0,1}[\w-]+)")


def _attributed(part: str, end: int) -> str:
    """The one or two words right after an adjective ending at ``part[end]`` (the noun
    it modifies, with one modifier), or "" when a verb or punctuation follows."""
    m = _NOUN_PHRASE.match(part, end)
    if m is None or re.match(r"\s+(is|are|was|were|be|been|to|than|and|or|of|for|in|"
                              r"that|which|when|if|as|at|on|by|with)\b", part[end:],
                              re.IGNORECASE):
        return ""
    return m.group(1)


# Emphasis markup around a word ("_should not_", "*always*"): blanked, same length, so a
# stressed modal still reads as one; an identifier's inner underscore stays.
_EMPHASIS = re.compile(r"(?<![\w*_])[*_]{1,3}(?=\w)|(?<=\w)[*_]{1,3}(?![\w*_])")


def unemphasised(text: str) -> str:
    """``text`` with the emphasis markers around words blanked (same length)."""
    return _EMPHASIS.sub(lambda m: " " * len(m.group(0)), text)


def readings(text: str, grammar: Grammar, moods: MoodGrammar) -> Iterator[Reading]:
    """Every clause of ``text`` with a mood marker no cancelling reading undoes: one
    reading per clause and mood (its first marker), topic from the subject (the words
    before the marker) and else the object (the words after it). A question asks
    rather than claims or pushes, so it has no reading."""
    text = unemphasised(clause_mod.flatten_asides(text))
    for clause in clause_mod.clauses(text, grammar):
        part = text[clause.start:clause.end]
        if part.rstrip(" )*_\"'").endswith("?"):
            continue
        for mood, pattern in moods.markers.items():
            for m in pattern.finditer(part):
                if m.end() == m.start() or _cancelled(part, m.start(), m.end(), mood, moods):
                    continue
                # An attributive evaluation ("poor governance", "risky rollouts") is about
                # the noun it modifies, wherever the clause's subject points.
                modified = object_topic(_attributed(part, m.end()), moods) \
                    if mood == EVALUATIVE else None
                about = modified or topic(part[:m.start()], moods) \
                    or object_topic(part[m.end():], moods) or topic(m.group(0), moods) \
                    or UNCLASSED
                if about == UNCLASSED and mood == EVALUATIVE and moods.past is not None \
                        and moods.past.search(part):
                    about = PAST_STATE
                yield Reading(mood, clause.start + m.start(), clause.start + m.end(), about)
                break


def spans(text: str, grammar: Grammar, moods: MoodGrammar,
          wanted: Mapping[str, Sequence[str]]) -> Iterator[tuple[int, int]]:
    """The marker spans of the readings ``wanted`` names (mood -> topics; ``any`` takes
    every topic). An epistemic marker in a clause that also prescribes or judges
    softens that opinion: it doubts no fact, so it yields no epistemic span."""
    found = list(readings(text, grammar, moods))
    # Sanity: one lookup per reading (bisect), so a sentence of thousands of clauses,
    # each with a marker, stays linear.
    opinions = sorted(r.start for r in found if r.mood in moods.opinion)
    parts = clause_mod.clauses(clause_mod.flatten_asides(text), grammar)
    starts = [c.start for c in parts]
    for r in found:
        topics = wanted.get(r.mood)
        if topics is None or not ("any" in topics or r.topic in topics):
            continue
        if r.mood == EPISTEMIC:
            k = bisect.bisect_right(starts, r.start) - 1
            if k >= 0 and r.start < parts[k].end:
                o = bisect.bisect_left(opinions, parts[k].start)
                if o < len(opinions) and opinions[o] < parts[k].end:
                    continue
        yield r.start, r.end


# A possibility or permission modal with its negation and the adverbs inside its group:
# "could also", "might not", "may then".
_MODAL_GROUP = re.compile(
    r"\b(?P<modal>may|might|could|can|should|would)(?:n['’]t|\s+not)?"
    r"(?:\s+(?:\w+ly|also|just|still|then|even|instead|further|always|never|perhaps|maybe|"
    r"first|rather|now|easily|well))*\s+", re.IGNORECASE)
_BE = re.compile(r"be\s+", re.IGNORECASE)
_ADVERBS = re.compile(r"(?:(?:\w+ly|also|just|then|further|easily|more|even|"
                      r"instead|first)\s+)*", re.IGNORECASE)
# A time adverb in the group ("may already be fixed", "could still be reverted", "might
# now be removed") asks about a state at a time: the epistemic reading.
_NOW = re.compile(r"\b(?:already|still|now|currently|somehow|yet)\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][\w-]*")
# An agent after a passive ("could be removed by the sync job"): the mechanism, not an
# act offered.
_BY = re.compile(r"\s+by\b", re.IGNORECASE)


def proposal_spans(text: str, grammar: Grammar, moods: MoodGrammar) -> list[tuple[int, int]]:
    """The spans (the modal to the end of its complement) of the modal verb groups of
    ``text`` that propose or permit rather than doubt a fact (#24, pm-fit22c): the
    deontic readings of ``moods.proposals``.

    - ``verdict``: "be" and an opinion as the complement ("a patch release might be
      better", "one fix could be to pin it").
    - ``passive_act``: an act done to the subject, in the plain passive ("the flag could
      be dropped", "that could be reviewed later"): permitted or proposed. Not with a
      ``by`` agent after it (a mechanism: "could be dropped by the sync job"), not with
      a participle that names a state ("may be cached", "might be required").

    The perfect ("might have been better", "could have been dropped") tells a supposed
    past and a time adverb ("may already be fixed") a state at a time: neither reads so.
    A modal stating a cause, a state or an event ("the cache may be stale", "this could
    explain the spike") has none of these readings."""
    p = moods.proposals
    if p is None:
        return []
    out: list[tuple[int, int]] = []
    for clause in clause_mod.clauses(text, grammar):
        for m in _MODAL_GROUP.finditer(text, clause.start, clause.end):
            if _NOW.search(m.group(0)):
                continue
            span = _reading(text, m, clause.end, p)
            if span is not None:
                out.append(span)
    return out


def _reading(text: str, group: re.Match[str], end: int,
             p: Proposals) -> tuple[int, int] | None:
    """The span of a deontic reading of the modal ``group`` (its clause ends at
    ``end``), or None."""
    start, modal, at = group.start(), group.group("modal"), group.end()

    def reads(name: str) -> bool:
        pattern = p.readings.get(name)
        return pattern is not None and bool(pattern.fullmatch(modal))

    be = _BE.match(text, at, end)
    if be is None:
        return None
    if reads(VERDICT) and p.verdict is not None:
        v = p.verdict.match(text, be.end(), end)
        if v is not None and v.end() > v.start():
            return start, v.end()
    if reads(PASSIVE_ACT):
        adverbs = _ADVERBS.match(text, be.end(), end)
        verb = _WORD.match(text, adverbs.end(), end)
        if verb is not None and verb.group(0).lower() in p.participles \
                and not _NOW.search(adverbs.group(0)) \
                and not _BY.match(text, verb.end(), end):
            return start, verb.end()
    return None
