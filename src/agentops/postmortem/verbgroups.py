"""Verb groups for the post-mortem lint's blame reading (P-5, #24): a main verb with the
auxiliaries, negation and adverbs before it, read into lemma, tense, aspect, voice,
polarity and mood.

Blame is a person-like agent with a fault predicate, and a fault predicate is a verb
(a lemma), not a spelling: "we forgot", "we had forgotten", "we have forgotten" and "it
has been forgotten by us" are one fault said four ways, while "we did not forget" denies
it, "we might have forgotten" supposes it and "to forget" names it. So the fault
classes of ``lint_rules.yaml`` list lemmas (with the conditions on polarity, tense and
what follows the verb); this module reads each verb group of a clause, decides which
class it is, and finds its agent: the subject of an active group (read by
``clauses.subject``), the ``by`` phrase of a passive one. The same verb with a system or
process as its agent is the mechanism, never blame.

Pure: text and compiled data in, spans out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentops.postmortem import clauses as clause_mod
from agentops.postmortem.clauses import Grammar

_TOKEN = re.compile(r"[\w][\w'’-]*[\w]|[\w]|[^\w\s]")

_BE = {"am": "present", "is": "present", "are": "present", "'s": "present",
       "'re": "present", "'m": "present", "was": "past", "were": "past", "be": None,
       "been": None, "being": None, "isn't": "present", "aren't": "present",
       "wasn't": "past", "weren't": "past", "got": "past", "get": "present",
       "gets": "present", "gotten": None}
_HAVE = {"have": "present", "has": "present", "'ve": "present", "had": "past",
         "having": None, "haven't": "present", "hasn't": "present", "hadn't": "past"}
_DO = {"do": "present", "does": "present", "did": "past", "don't": "present",
       "doesn't": "present", "didn't": "past"}
_MODAL = frozenset({"can", "could", "may", "might", "must", "shall", "should", "will",
                    "would", "'ll", "'d", "can't", "cannot", "couldn't", "mightn't",
                    "mustn't", "shouldn't", "won't", "wouldn't", "ought"})
# Verbs that lend their subject and tense to the verb after them, as the auxiliary
# "do" or "be" they stand in for.
_KEEP = frozenset({"keep", "keeps", "kept"})
_CARRIERS = {"seem": "do", "seems": "does", "seemed": "did", "appear": "do",
             "appears": "does", "appeared": "did", "happened": "did", "managed": "did",
             "tend": "do", "tends": "does", "tended": "did", "keep": "do",
             "keeps": "does", "kept": "did"}
_GROUP_WORDS = 8
_NEGATION = frozenset({"not", "never", "n't"})
# Adverbs that sit inside a verb group ("had already forgotten", "never properly ran").
_INNER = frozenset({"just", "already", "also", "even", "still", "ever", "yet", "all",
                    "then", "simply", "really", "both", "somehow", "once", "first",
                    # Frequency adverbs: a habit, read by a class's ``not_adverbs``.
                    "sometimes", "often", "always", "seldom"})
# A past act after a slip adverb: a regular past or a common irregular one.
_ACT = re.compile(r"[a-z][a-z-]*ed|ran|set|put|wrote|rewrote|overwrote|sent|made|broke|"
                  r"took|gave|left|cut|hit|shut|threw|drove|went|built|chose|dropped|"
                  r"reset|upgraded|deleted")
# A base form after a denied "do" ("did not properly test"): any word but a function word.
_VERB = re.compile(r"(?!(?:the|a|an|this|that|these|those|it|its|their|our|my|your|his|her|"
                   r"them|us|me|and|or|but|with|in|on|to|of|for|by|at|from|as|so|not)\b)"
                   r"[a-z][a-z-]+")
# A question opening after an introductory phrase ("In retrospect, how could we ...?").
_ASKS_LATER = re.compile(r",\s*(?:how|why|what|when|where|who|which|did|do|does|could|would|"
                         r"can|should|shall|will|is|are|was|were|have|has|had)\b", re.IGNORECASE)
_CONTRACTED = re.compile(r"^(\w+)(['’](?:ve|s|re|m|ll|d))$", re.IGNORECASE)


@dataclass(frozen=True)
class VerbGroup:
    """One verb group: offsets into the text, the main verb's lemma and its reading."""

    start: int  # the group's first word (auxiliary, negation or adverb)
    verb_start: int
    verb_end: int
    lemma: str
    tense: str  # "past" | "present" | "none" (an infinitive or a bare participle)
    perfect: bool
    progressive: bool
    passive: bool
    negated: bool
    modal: bool
    infinitive: bool  # "to forget": the act named, not done
    adverbs: tuple[str, ...]


@dataclass(frozen=True)
class FaultClass:
    """One fault predicate class of ``lint_rules.yaml``: a verb group of one of
    ``lemmas`` (or any verb after one of ``adverbs``) with the polarity asked for, whose
    agent is one of ``agents``."""

    name: str
    agents: frozenset[str]
    lemmas: frozenset[str] = frozenset()
    adverbs: frozenset[str] = frozenset()
    negated: bool = False  # True: only a denied act is the fault ("did not manage to")
    # "past", "present", and "perfect" (any perfect: "we have broken it" is an act done,
    # where the plain present "PRs which break master" is a habit or a generic).
    tenses: frozenset[str] = frozenset({"past", "present"})
    not_adverbs: frozenset[str] = frozenset()  # "not yet managed": work under way
    after: re.Pattern[str] | None = None  # must follow the verb (its complement)
    not_after: re.Pattern[str] | None = None
    agent_from_by: bool = False  # the agent is the "by" phrase ("went unnoticed by us")
    # Only the simple tense: the team's "we did not test it" owns a lapse, while its
    # "we hadn't tested it" tells what was true when the incident began.
    no_perfect: bool = False
    # The progressive read as the fault too: a duty left undone over time ("no one is
    # watching the nightly"), where for other classes it announces an act or a state.
    progressive: bool = False


@dataclass(frozen=True)
class Consequence:
    """The writer's own act told in one sentence and its breakage in the next ("I merged
    it into master. It broke everything."): an act of ``acts`` done (past, not denied or
    supposed) by one of ``agents``, then a sentence whose subject is only ``subject``
    ("it", "this", "that": the act) with a predicate of one of the ``results`` classes."""

    agents: frozenset[str]
    acts: frozenset[str]
    results: frozenset[str]
    subject: re.Pattern[str]


@dataclass(frozen=True)
class Lexicon:
    """Every inflected form of the lemmas the fault classes name: form -> (lemma, kinds),
    kinds among base, s, past, participle, ing."""

    forms: Mapping[str, tuple[str, frozenset[str]]]
    classes: tuple[FaultClass, ...]
    consequence: Consequence | None = None


def inflect(lemma: str, irregular: Sequence[str] = ()) -> dict[str, set[str]]:
    """The forms of ``lemma``: kind -> spellings. ``irregular`` gives the past and the
    participle when they are not the regular ``-ed`` (and doubled consonants)."""
    if lemma.endswith("e") and not lemma.endswith(("ee", "ye")):
        ed, ing = lemma + "d", lemma[:-1] + "ing"
    elif re.search(r"[^aeiou]y$", lemma):
        ed, ing = lemma[:-1] + "ied", lemma + "ing"
    else:
        ed, ing = lemma + "ed", lemma + "ing"
    s = lemma + "es" if re.search(r"(s|sh|ch|x|z|o)$", lemma) else (
        lemma[:-1] + "ies" if re.search(r"[^aeiou]y$", lemma) else lemma + "s")
    past = {irregular[0]} if irregular else {ed}
    participle = {irregular[1] if len(irregular) > 1 else irregular[0]} if irregular else {ed}
    if len(irregular) > 2:
        ing = irregular[2]
    if lemma == "be":
        return {"base": {"be"}, "s": {"is"}, "past": {"was", "were"},
                "participle": {"been"}, "ing": {"being"}}
    return {"base": {lemma}, "s": {s}, "past": past, "participle": participle,
            "ing": {ing}}


def compile_lexicon(content: Mapping[str, Any]) -> Lexicon:
    """The lexicon from the validated ``faults`` mapping of a rule."""
    irregular = {k: list(v) for k, v in (content.get("irregular") or {}).items()}
    classes = []
    for c in content["classes"]:
        def rx(key: str, c: Mapping[str, Any] = c) -> re.Pattern[str] | None:
            return re.compile(c[key], re.IGNORECASE) if key in c else None
        classes.append(FaultClass(
            name=c["class"], agents=frozenset(c["agents"]),
            lemmas=frozenset(x.lower() for x in c.get("lemmas", [])),
            adverbs=frozenset(x.lower() for x in c.get("adverbs", [])),
            negated=bool(c.get("negated", False)),
            tenses=frozenset(c.get("tenses", ["past", "present"])),
            after=rx("after"), not_after=rx("not_after"),
            not_adverbs=frozenset(x.lower() for x in c.get("not_adverbs", [])),
            agent_from_by=bool(c.get("agent_from_by", False)),
            no_perfect=bool(c.get("no_perfect", False)),
            progressive=bool(c.get("progressive", False))))
    follow = content.get("consequence")
    consequence = None if follow is None else Consequence(
        agents=frozenset(follow["agents"]), acts=frozenset(follow["acts"]),
        results=frozenset(follow["results"]),
        subject=re.compile(follow["subject"], re.IGNORECASE))
    lemmas = {lemma for cls in classes for lemma in cls.lemmas}
    lemmas |= consequence.acts if consequence else set()
    forms: dict[str, tuple[str, set[str]]] = {}
    for lemma in sorted(lemmas):
        for kind, spellings in inflect(lemma, irregular.get(lemma, ())).items():
            for sp in spellings:
                forms.setdefault(sp, (lemma, set()))[1].add(kind)
    return Lexicon({k: (lemma, frozenset(kinds)) for k, (lemma, kinds) in forms.items()},
                   tuple(classes), consequence)


def _tokens(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """Words of ``text[start:end]`` with offsets; "we've" splits into "we" and "'ve"."""
    out = []
    for m in _TOKEN.finditer(text, start, end):
        word = m.group(0).replace("’", "'")
        c = _CONTRACTED.match(word)
        if c and c.group(1).lower() not in {"it", "that", "what", "there", "let"} \
                and c.group(2) != "'s":
            cut = m.start() + len(c.group(1))
            out.append((m.start(), cut, c.group(1)))
            out.append((cut, m.end(), c.group(2).lower()))
        else:
            out.append((m.start(), m.end(), word))
    return out


def _aux(word: str) -> bool:
    w = word.lower()
    return w in _BE or w in _HAVE or w in _DO or w in _MODAL or w in _NEGATION \
        or w in _INNER or (w.endswith("ly") and len(w) > 3) or w == "to"


def read(text: str, start: int, end: int, lexicon: Lexicon) -> Iterator[VerbGroup]:
    """Every verb group in ``text[start:end]`` whose main verb is a lexicon lemma, or
    which holds an adverb one of the classes names before its verb."""
    tokens = _tokens(text, start, end)
    adverbs = {a for c in lexicon.classes for a in c.adverbs}
    for i, (vs, ve, word) in enumerate(tokens):
        w = word.lower()
        entry = lexicon.forms.get(w)
        if entry is None:
            # A slip adverb before any verb ("an engineer unintentionally deleted it").
            if i > 0 and tokens[i - 1][2].lower() in adverbs and (
                    _ACT.fullmatch(word) or (_VERB.fullmatch(word) and any(
                        t[2].lower() in _DO for t in tokens[max(0, i - 4):i]))):
                entry = (w, frozenset({"past", "participle"} if w.endswith("ed")
                                      else {"base", "s", "past"}))
            else:
                continue
        lemma, kinds = entry
        j = i - 1
        # Sanity: a verb group is a few words; a run of thousands of adverbs before each
        # of thousands of verbs stays linear.
        while j >= 0 and i - j <= _GROUP_WORDS and _aux(tokens[j][2]):
            j -= 1
        group = [t[2].lower() for t in tokens[j + 1:i]]
        # A group opens at its last "to" ("need to have forgotten"): an infinitive.
        if "to" in group:
            k = len(group) - 1 - group[::-1].index("to")
            group = group[k:]
            j = i - 1 - len(group)
        # A raising or aspect verb before the group carries its subject and tense: "I seem
        # to have forgotten", "I managed to forget", "I keep forgetting".
        lead = tokens[j][2].lower() if j >= 0 else ""
        carried = _CARRIERS.get(lead)
        if carried and ((group[:1] == ["to"] and lead not in _KEEP)
                        or (not group and lead in _KEEP and kinds == {"ing"})):
            group = [g for g in group if g != "to"]
            j -= 1
            group = [carried, *group]
        infinitive = group[:1] == ["to"]
        first = tokens[j + 1][0] if j + 1 < i else vs
        if "'d" in group and "participle" in kinds and "base" not in kinds:
            # "we'd forgotten", "we'd failed to": before a participle (a regular past is
            # one too), "'d" is "had", not "would", which takes a base form.
            group = ["had" if g == "'d" else g for g in group]
        auxes = [g for g in group if g in _BE or g in _HAVE or g in _DO or g in _MODAL]
        negated = any(g in _NEGATION or g.endswith("n't") or g == "cannot" for g in group)
        # "I must have missed it" infers what the writer did; the other modals suppose.
        modal = any(g in _MODAL for g in auxes) and not (
            auxes[:2] == ["must", "have"] and "participle" in kinds)
        last = auxes[-1] if auxes else None
        perfect = any(g in _HAVE for g in auxes)
        passive = last in _BE and "participle" in kinds and "ing" not in kinds \
            and lemma != "be"
        progressive = last in _BE and "ing" in kinds
        if auxes:
            tensed = next((g for g in auxes if g in _MODAL or (
                {**_BE, **_HAVE, **_DO}.get(g) is not None)), None)
            tense = "none" if tensed is None else (
                "past" if tensed in _MODAL or {**_BE, **_HAVE, **_DO}.get(tensed) == "past"
                else "present")
        elif infinitive or (kinds <= {"ing"}) or (kinds <= {"participle"}):
            tense = "none"
        else:
            tense = "past" if "past" in kinds else "present"
        if infinitive:
            tense = "none"  # "to have forgotten" names the act, whatever its aspect
        yield VerbGroup(first, vs, ve, lemma, tense, perfect, progressive, passive,
                        negated, modal, infinitive,
                        tuple(g for g in group if g not in _NEGATION and not _aux_word(g)))


def _aux_word(w: str) -> bool:
    return w in _BE or w in _HAVE or w in _DO or w in _MODAL or w == "to"


def _by_agent(text: str, at: int, end: int, grammar: Grammar) -> str:
    """The agent class of a "by" phrase right after ``at`` ("by us", "by the reviewers")."""
    m = re.match(r"\s+(?:\w+\s+){0,1}?by\s+((?:[@\w'’-]+\s*){1,4})", text[at:end])
    if not m:
        return clause_mod.SYSTEM
    words = m.group(1).split()
    stop = next((k for k, w in enumerate(words) if k and (
        grammar.stop.fullmatch(w) or _ADJUNCT.fullmatch(w))), len(words))
    return clause_mod.classify(clause_mod._head(words[:stop], grammar), grammar)


# Words that end a "by" phrase and open an adjunct of the verb ("merged by an engineer
# without running the tests").
_ADJUNCT = re.compile(r"(without|despite|during|instead|because|and|or|but|yesterday|"
                      r"today|twice|again|directly|straight)", re.IGNORECASE)


def _no_one(words: list[str]) -> list[str]:
    """``words`` with "no one" as the one word "no-one", as the agent classes spell it."""
    if len(words) >= 2 and words[-2].lower() == "no" and words[-1].lower() == "one":
        return [*words[:-2], "no-one"]
    return words


def _fits(cls: FaultClass, g: VerbGroup, text: str, clause_end: int) -> bool:
    if cls.lemmas and g.lemma not in cls.lemmas:
        return False
    if cls.adverbs and not cls.adverbs & set(g.adverbs):
        return False
    if g.modal or g.negated != cls.negated or cls.not_adverbs & set(
            g.adverbs):
        return False
    if g.tense not in cls.tenses and not (g.perfect and "perfect" in cls.tenses):
        return False
    if cls.no_perfect and g.perfect:
        return False
    if g.progressive and not cls.progressive:
        # "I'm merging this without review as it's urgent", "the PRs were missing the
        # tests": an act announced or a state, not a fault done.
        return False
    rest = text[g.verb_end:clause_end]
    if cls.after is not None and not cls.after.match(rest):
        return False
    return not (cls.not_after is not None and cls.not_after.match(rest))


def faults(text: str, grammar: Grammar, lexicon: Lexicon
           ) -> Iterator[tuple[int, int, str, str]]:
    """Every verb group of a fault class whose agent the class wants: (start, end,
    class, agent class), offsets into ``text``."""
    text = clause_mod.flatten_asides(text)
    plain = clause_mod.blank_parentheticals(text)
    seen: set[tuple[int, int]] = set()
    # Read twice, as written and with inner parentheticals left out, so a subject an
    # aside separates from its verb ("I (the release manager) forgot") is still found.
    for reading in (text, plain) if plain != text else (text,):
        for hit in _faults(reading, grammar, lexicon):
            if hit[:2] not in seen:
                seen.add(hit[:2])
                yield hit


def _faults(text: str, grammar: Grammar, lexicon: Lexicon
            ) -> Iterator[tuple[int, int, str, str]]:
    for clause in clause_mod.clauses(text, grammar):
        if text[clause.start:clause.end].rstrip(" )*_\"'.").endswith("?") \
                and (clause_mod.asks(text, clause, grammar)
                     or _ASKS_LATER.search(text, clause.start, clause.end)):
            # A fault in a question asks or supposes ("how could we forget to ...?"); a
            # statement said with a question mark accuses ("it seems you forget to
            # compile the files for the release?").
            continue
        for g in read(text, clause.start, clause.end, lexicon):
            for cls in lexicon.classes:
                if not _fits(cls, g, text, clause.end):
                    continue
                if g.passive or cls.agent_from_by:
                    agent = _by_agent(text, g.verb_end, clause.end, grammar)
                else:
                    words = _no_one(clause_mod.subject(text, clause, g.start, grammar))
                    agent = clause_mod.classify(words, grammar) if words else (
                        clause_mod.UNSTATED if clause_mod.opens(text, g.start, grammar)
                        else clause_mod.SYSTEM)
                if agent in cls.agents:
                    yield g.start, g.verb_end, cls.name, agent
                    break


def consequence(before: str, text: str, grammar: Grammar, lexicon: Lexicon
                ) -> tuple[int, int] | None:
    """The span of ``text``'s breakage predicate when ``text`` tells the breakage of the
    act the sentence ``before`` it tells as the writer's own, else None."""
    follow = lexicon.consequence
    if follow is None:
        return None
    text, before = clause_mod.flatten_asides(text), clause_mod.flatten_asides(before)
    parts = clause_mod.clauses(text, grammar)
    if not parts or text.rstrip(" )*_\"'").endswith("?"):
        return None
    first = parts[0]
    results = [c for c in lexicon.classes if c.name in follow.results]
    hit = None
    for g in read(text, first.start, first.end, lexicon):
        if any(_fits(c, g, text, first.end) for c in results) and not g.passive \
                and follow.subject.fullmatch(text[first.start:g.start]):
            hit = (g.start, g.verb_end)
            break
    if hit is None:
        return None
    for clause in clause_mod.clauses(before, grammar):
        for g in read(before, clause.start, clause.end, lexicon):
            if g.lemma not in follow.acts or g.tense != "past" or g.negated or g.modal \
                    or g.passive or g.infinitive or g.progressive:
                continue
            words = clause_mod.subject(before, clause, g.start, grammar) or \
                clause_mod.head_subject(before, clause_mod.Clause(0, len(before)), grammar)
            if words and clause_mod.classify(words, grammar) in follow.agents:
                return hit
    return None
