"""Clause analysis for the post-mortem lint (P-5, #24): who acts in a clause and what
the predicate says of them.

Blame is not a word but a pairing: a person-like agent (the writer, "you", a handle, a
role or group) with a fault predicate ("broke", "forgot", "merged ... without"). The
same predicate with a system or process as its agent ("the May change broke the
launcher") is the mechanism a post-mortem should state. So a rule's clause condition
names the agent classes it wants and the predicates; this module finds, in each clause
of a sentence, where a predicate starts and which agent its subject is.

A subject is its head phrase: read backwards from the predicate, past a post-modifier
("my fix *for the cache* broke"), keeping the last of two phrases run together, a
partitive's object ("one of *your changes*"), a cleft's subject ("*my patch* is what
broke it"). A fault of a mind that opens the sentence with no subject at all has the
``unstated`` agent: in notes and threads, the writer.

The grammar (clause boundaries, the words that classify a subject, the words skipped or
stopped at while reading the subject backwards from the predicate, the prepositions and
determiners that delimit its head) is data in ``lint_rules.yaml``; this module is pure
and knows only how to apply it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

SYSTEM = "system"  # the agent class of any subject no other class claims
CONTRIBUTION = "contribution"  # a change or PR: yields to a person named with it
# The agent of a predicate that opens its clause with no subject at all ("Forgot to bump
# the version.", "Sorry, merged it without the soak."): in notes and threads, the writer.
UNSTATED = "unstated"
# Discourse openers before a clause's subject ("So we pushed ...", "Sorry, I ...").
_OPENER = re.compile(r"(so|well|ok|okay|yes|no|sorry|oops|whoops|now|again|anyway|"
                     r"unfortunately|ugh|argh|welp|oh|ah|hm+|damn|dang|honestly|apologies)",
                     re.IGNORECASE)
# Speaker labels of a transcribed thread ("Reviewer:", "Author:") open a comment.
_LABEL = re.compile(r"(reply|author|maintainer|reporter|reviewer)", re.IGNORECASE)
_WINDOW = 160  # characters read before a predicate (or after a clause start) for a subject

# A parenthetical of one or two words ("I (incorrectly) thought", "(maybe 'dev')") is an
# aside inside its clause, not a clause of its own: its brackets read as spaces.
_ASIDE = re.compile(r"\((\s*[\w'’-]+(?:\s+[\w'’-]+)?\s*)\)")

# Capitals joined by a slash ("I/O", "A/B", "I/Os") are one acronym; split, the first read
# as the pronoun "I" and made a device or a test scheme the writer (#24, round 47). Only
# capitals after the slash: "I/We" is two pronouns, and stays two words.
_WORD = re.compile(r"[A-Z]/[A-Z][A-Z0-9]*s?(?!\w)"
                   r"|@[\w-]+(?:'s)?|[\w][\w'’.-]*[\w]|[\w]|[,;:()\[\]—–!?\"]")

# Subject reading (``subject``, ``classify``): a free relative is a subject of its own
# ("whoever merged it didn't ..."); a cleft names the subject before "is what"; "of mine"
# names an owner; a partitive's head is its object ("one of your changes"); a possessive
# before a role names the role's person ("our reviewer"), before a thing its owner.
_FREE_RELATIVE = re.compile(r"(whoever|whomever)", re.IGNORECASE)
_CLEFT = re.compile(r"(is|was|'s|’s)", re.IGNORECASE)
_OWNER = re.compile(r"(mine|yours|ours|theirs|his|hers)", re.IGNORECASE)
_PARTITIVE = re.compile(r"(one|some|all|none|most|many|several|each|any|both|either|"
                        r"neither|two|three|few|part|half)", re.IGNORECASE)
_OWNERS = frozenset({"first_person", "we", "second_person"})
_POSSESSIVE = re.compile(r"(my|our|your)", re.IGNORECASE)
# Agent classes a possessive hands the agency to ("our reviewer", "our registrar").
_OWNED_AGENTS = ("role", "provider")
_NEVER = re.compile(r"(?!)")
# Stems of contractions that name no agent ("what's", "let's"), though capitalised.
_NO_AGENT_STEMS = frozenset({"it", "that", "this", "what", "there", "here", "let", "who",
                             "where", "how", "when", "why"})
# A clitic after a subject word: a contraction ("you'll", "they'll") or a possessive.
_CLITIC = re.compile(r"(\w[\w.-]*?)('s|'ll|'re|'ve|'d|'m)", re.IGNORECASE)
# Verbs that end a relative clause's antecedent, read backwards ("had some latencies").
_AUXILIARY = re.compile(r"(had|has|have|was|were|is|are|did|does|do|got|saw|found|"
                        r"hit|noticed)", re.IGNORECASE)


@dataclass(frozen=True)
class Grammar:
    """The clause grammar from ``lint_rules.yaml``."""

    boundaries: tuple[re.Pattern[str], ...]
    agents: Mapping[str, re.Pattern[str]]  # class -> a word of that class (fullmatch)
    filler: re.Pattern[str]  # words between a subject and its predicate ("also", "had")
    stop: re.Pattern[str]  # words a subject never reaches back past ("that", "think")
    coordinators: re.Pattern[str]  # "and" / "then": the verb shares the clause's subject
    relative: re.Pattern[str]  # "which" / "that": the verb's subject is the antecedent
    subject_words: int = 6
    # Prepositions that open a post-modifier of the subject's head noun ("my fix *for*
    # the cache"): read past them, and the head before them decides the agent.
    postmodifiers: re.Pattern[str] | None = None
    # Words that open a noun phrase ("the", "my", "@x's", "I"): two phrases run together
    # without punctuation ("on my machine the loader broke") keep only the last one.
    determiners: re.Pattern[str] | None = None
    # Lexical classes (a process or design noun, a norm word, an evaluation): a rule's
    # co-occurrence condition wants one word of each of its classes in the same clause.
    classes: Mapping[str, re.Pattern[str]] = field(default_factory=dict)
    # Agent classes that name the subject only when it is that one word ("Robin merged
    # it by mistake"): a capitalised word inside a longer phrase is a product or a
    # place ("the Windows runner") as often as a person.
    solo: frozenset[str] = frozenset()
    # Head nouns of a tool or a process a person owns ("my upload script", "our release
    # process"): behind a possessive they are still a system, not their owner.
    owned_things: re.Pattern[str] | None = None
    # Questions that accuse though they open with a question word ("how did you review
    # this diff in 5 seconds?", "can we stop blindly approving bumps?"): they presuppose the act.
    accusing: re.Pattern[str] | None = None


@dataclass(frozen=True)
class Clause:
    start: int
    end: int


@dataclass(frozen=True)
class Condition:
    """One clause condition of a rule: a predicate whose subject is one of ``agents``."""

    agents: frozenset[str]
    predicates: tuple[re.Pattern[str], ...]
    # An adverbial predicate ("by mistake", "instead of a PR") modifies the clause's
    # verb, so its agent is the clause's subject, read from the clause start.
    head: bool = False


def compile_grammar(content: Mapping[str, Any]) -> Grammar:
    """The grammar from the validated ``grammar`` mapping of ``lint_rules.yaml``."""
    def rx(pattern: str) -> re.Pattern[str]:
        return re.compile(pattern, re.IGNORECASE)

    return Grammar(
        boundaries=tuple(rx(p) for p in content["boundaries"]),
        agents={k: rx(v) for k, v in content["agents"].items()},
        filler=rx(content["filler"]), stop=rx(content["stop"]),
        coordinators=rx(content["coordinators"]), relative=rx(content["relative"]),
        subject_words=int(content.get("subject_words", 6)),
        postmodifiers=rx(content["postmodifiers"]) if "postmodifiers" in content else None,
        determiners=rx(content["determiners"]) if "determiners" in content else None,
        classes={k: rx(v["pattern"]) for k, v in (content.get("classes") or {}).items()},
        solo=frozenset(content.get("solo_agents") or ()),
        owned_things=rx(content["owned_things"]) if "owned_things" in content else None,
        accusing=rx(content["accusing"]) if "accusing" in content else None)


def flatten_asides(text: str) -> str:
    """``text`` with the brackets of one- or two-word asides blanked (same length)."""
    return _ASIDE.sub(lambda m: " " + m.group(1) + " ", text)


def clauses(text: str, grammar: Grammar) -> list[Clause]:
    """The clauses of a sentence, as spans of ``text``; together they cover it."""
    text = flatten_asides(text)
    cuts = {0, len(text)}
    for pattern in grammar.boundaries:
        for m in pattern.finditer(text):
            cuts.add(m.start() if m.end() == m.start() else m.end())
    points = sorted(cuts)
    out = []
    for s, e in itertools.pairwise(points):
        if text[s:e].strip():
            out.append(Clause(s, e))
    return out


def _words(text: str) -> list[tuple[int, str]]:
    return [(m.start(), m.group(0)) for m in _WORD.finditer(text)]


def classify(words: Sequence[str], grammar: Grammar) -> str:
    """The agent class of a subject's words: the first class one of them belongs to. A
    role or contribution noun that modifies the next noun ("the admin setting", "the
    maintainer guide", "the PR author") names something else, so it is read past."""
    found = SYSTEM
    # A lower-case adverb is no second word ("Robin probably"); a capital is ("Nightly").
    alone = len([w for w in words if not (w.islower() and grammar.filler.fullmatch(w))]) == 1
    for i, word in enumerate(words):
        # "you'll", "the developer's": read by the stem (``_bare``).
        w, possessive = _bare(word, grammar)
        if possessive and len(words) > i + 1:
            # "the operator's runbook", "the vendor's API": the owned noun after it is
            # the head ("the vendor's staff" a person again).
            continue
        for name, pattern in grammar.agents.items():
            if name in grammar.solo and not alone:
                continue
            if name in grammar.solo and grammar.owned_things is not None \
                    and grammar.owned_things.fullmatch(w):
                # "Cronjob is wrongly started": a capitalised tool or process noun
                # standing alone is a system, not a first name (#24, pm-bprec6).
                continue
            if pattern.fullmatch(w):
                if name in ("role", "contribution") and _modifier(w, words[i + 1:]):
                    break
                if name in _OWNERS and _POSSESSIVE.fullmatch(w) \
                        and grammar.owned_things is not None \
                        and grammar.owned_things.fullmatch(words[-1].replace("’", "'")):
                    # "my upload script failed to attach it": the owner's tool acted.
                    return SYSTEM
                if name in _OWNERS and _POSSESSIVE.fullmatch(w) and any(
                        grammar.agents.get(kind, _NEVER).fullmatch(_bare(x, grammar)[0])
                        for kind in _OWNED_AGENTS for x in words[i + 1:]):
                    # "our reviewer", "my lead", "our registrar": the person or the
                    # company is the agent, not the owner.
                    break
                if name != CONTRIBUTION:
                    return name
                # A contribution's owner named after it ("two PRs of mine") is the agent.
                found = name
                break
    return found


def _bare(word: str, grammar: Grammar) -> tuple[str, bool]:
    """A subject word read without its clitic ("you'll", "they'll", "the developer's",
    "the vendor's") when the whole word is in no agent class: the class lists give the
    bare forms, and a pronoun, role or company takes any contraction or possessive.
    Also whether the clitic read off is a possessive "'s"."""
    w = word.replace("’", "'")
    clitic = _CLITIC.fullmatch(w)
    if clitic is None or clitic.group(1).lower() in _NO_AGENT_STEMS \
            or any(p.fullmatch(w) for p in grammar.agents.values()):
        return w, False
    return clitic.group(1), clitic.group(2).lower() == "'s"


# Words after which a role noun is still the head of its phrase ("reviewers of the PR").
_HEAD_FOLLOWERS = re.compile(
    r"(of|in|on|for|at|from|with|who|that|which|and|or|also|just|all|both|each|here|there|"
    r"then|still|never|always|again|too|themselves|himself|herself|\w+ly|\W+)", re.IGNORECASE)


def _modifier(word: str, rest: Sequence[str]) -> bool:
    """Whether ``word`` (a role noun) modifies the noun after it."""
    if not rest or "'" in word or word.lower() in {"he", "she", "him", "her", "his",
                                                   "someone", "somebody", "whoever"}:
        return False
    nxt = rest[0]
    return bool(re.fullmatch(r"[a-z][a-z-]*", nxt)) and not _HEAD_FOLLOWERS.fullmatch(nxt)


def subject(text: str, clause: Clause, at: int, grammar: Grammar) -> list[str]:
    """The words of the subject of a predicate starting at ``text[at]``: read backwards
    from it, skipping auxiliaries and adverbs, up to a stop word or punctuation. A verb
    coordinated with an earlier one ("I rebased and missed it") shares the clause's
    first subject."""
    # Sanity: a subject is a few words, so only a bounded stretch before the predicate
    # is read; a clause of thousands of words with a predicate in every line stays
    # linear instead of quadratic.
    # (asides are flattened in that stretch only, never in the whole text per predicate)
    lo = max(clause.start, at - _WINDOW)
    words = _words(flatten_asides(text[lo:at + 40])[:at - lo])
    i = len(words) - 1
    linked = False  # a skipped filler that also coordinates ("..., then messed up")
    while i >= 0 and grammar.filler.fullmatch(words[i][1]):
        linked = linked or bool(grammar.coordinators.fullmatch(words[i][1]))
        i -= 1
    if i >= 0 and (grammar.coordinators.fullmatch(words[i][1])
                   or (linked and words[i][1] == ",")):
        head = [w for _, w in _words(flatten_asides(
            text[clause.start:min(at, clause.start + _WINDOW)]))]
        head = _coordinated_from([w for _, w in words[:i]], grammar) or head
        out = []
        for w in head:
            if w == ":" and len(out) == 1 and _LABEL.fullmatch(out[0]):
                # A speaker label opening a comment ("Author: the nightlies are broken
                # and fail to build") is not the subject the verb shares.
                out = []
                continue
            if grammar.stop.fullmatch(w) or not re.match(r"[@\w]", w):
                if out:
                    break
                continue
            out.append(w)
            if len(out) >= grammar.subject_words:
                break
        if not out and clause.start > 0:
            # The clause is only the coordinator and its verb ("I rebased main, but forgot
            # the tag"): the verb shares the subject of the clause before it.
            lo = max(0, clause.start - _WINDOW)
            before = clauses(text[lo:clause.start], grammar)
            if before:
                prev = text[lo:clause.start]
                shared = head_subject(prev, before[-1], grammar)
                # Not past a belief or a report ("I think #847 passed, but broke CI": the
                # PR broke it): the subject must be the one of the verb right after it.
                after = re.match(r"\W*(?:\w+ly\s+)?([\w'’]+)",
                                 prev[prev.find(shared[-1], before[-1].start) + len(shared[-1]):]
                                 ) if shared else None
                if shared and not (after and grammar.stop.fullmatch(after.group(1))):
                    return shared
        return out
    relative = i >= 0 and bool(grammar.relative.fullmatch(words[i][1]))
    if relative:
        # A relative clause's verb acts for its antecedent: "my refactor, which broke";
        # the antecedent is the phrase right before it ("came from my refactor, which").
        i -= 1
        if i >= 0 and words[i][1] == ",":
            i -= 1
    if i >= 1 and words[i][1].lower() == "what" and _CLEFT.fullmatch(words[i - 1][1]):
        # A cleft names its subject before "is what": "my patch is what broke it".
        i -= 2
        while i >= 0 and grammar.filler.fullmatch(words[i][1]):
            i -= 1
    out: list[str] = []
    while i >= 0 and len(out) < grammar.subject_words:
        w = words[i][1]
        if w == ":":
            # A speaker label opening a comment ("Reviewer: the issue broke ...") is not
            # the subject; a colon further in ("your changes below L180: ...") is read past.
            if i <= 1 or _labels([x for _, x in words], i - 1):
                break
            i -= 1
            continue
        before = words[i - 1][1] if i > 0 else ""
        if not relative and out and grammar.postmodifiers is not None \
                and grammar.postmodifiers.fullmatch(w) and re.match(r"[@\w]", before) \
                and not grammar.stop.fullmatch(before):
            out.append(w)
            i -= 1
            continue
        if grammar.stop.fullmatch(w) or w in ",;()[]—–!?\"":
            break
        if relative and out and _AUXILIARY.fullmatch(w):
            # An antecedent is a noun phrase: a verb before it belongs to the main clause
            # ("we had some latencies that caused ...": the latencies caused it).
            break
        out.append(w)
        i -= 1
    out.reverse()
    # A free relative opening the subject is the subject of the clause's second verb
    # ("whoever merged the bump didn't run the tests", "whoever merged this didn't").
    if out and _FREE_RELATIVE.fullmatch(out[0]):
        return out[:1]
    if not out:
        head = head_subject(text, clause, grammar)
        if head and _FREE_RELATIVE.fullmatch(head[0]):
            return head[:1]
    return _head(out, grammar)


# Subordinators whose clause may hold the verb a coordinator continues ("before we
# move too fast and break things": "break" is the subordinate clause's verb, not the
# main clause's).
_SUBORDINATOR = re.compile(r"(that|because|since|when|whenever|while|if|unless|after|"
                           r"before|until|once|as)", re.IGNORECASE)
_PRONOUN = re.compile(r"(I|we|you|he|she|they|it)", re.IGNORECASE)


def _coordinated_from(words: Sequence[str], grammar: Grammar) -> list[str]:
    """The words from the subject of the last subordinate clause before a coordinator,
    when that subject is a pronoun ("... before we move too fast and break"): the
    coordinated verb continues that clause. A noun subject there ("I merged it after
    the tests passed and broke the build") is left to the main clause, as is a clause
    with no subordinator (empty result)."""
    for k in range(len(words) - 2, -1, -1):
        if _SUBORDINATOR.fullmatch(words[k]) and _PRONOUN.fullmatch(words[k + 1]):
            return list(words[k + 1:])
    return []


def _head(words: list[str], grammar: Grammar) -> list[str]:
    """The subject's head phrase: the last noun phrase of ``words`` (a determiner right
    after a preposition opens that preposition's object, not a phrase of its own), up
    to its first post-modifying preposition ("of mine" stays: it names the owner)."""
    pre, det = grammar.postmodifiers, grammar.determiners
    if pre is None or det is None:
        return words
    start = 0
    for k in range(1, len(words)):
        if det.fullmatch(words[k].replace("’", "'")) and not pre.fullmatch(words[k - 1]):
            start = k
    out = words[start:]
    # A partitive's head is its object: "one of your changes" is your change.
    while len(out) > 2 and _PARTITIVE.fullmatch(out[0]) and out[1].lower() == "of":
        out = out[2:]
    for k, w in enumerate(out):
        # "two PRs of mine" are the writer's PRs: a possessive object stays with the head.
        if k and pre.fullmatch(w) and not (
                k + 1 < len(out) and _OWNER.fullmatch(out[k + 1])):
            return out[:k]
    return out


def head_subject(text: str, clause: Clause, grammar: Grammar) -> list[str]:
    """The first words of a clause, past leading conjunctions and adverbs: its subject."""
    out: list[str] = []
    words = [w for _, w in _words(text[clause.start:clause.start + _WINDOW])]
    for k, w in enumerate(words):
        if not out and (grammar.coordinators.fullmatch(w) or grammar.filler.fullmatch(w)
                        or _OPENER.fullmatch(w) or _LABEL.fullmatch(w)
                        or _labels(words, k) or _vocative(words, k)
                        or not re.match(r"[@\w]", w)):
            continue
        if grammar.stop.fullmatch(w) or not re.match(r"[@\w]", w):
            break
        out.append(w)
        if len(out) >= 2:
            break
    return out


def opens(text: str, at: int, grammar: Grammar) -> bool:
    """Whether the predicate at ``text[at]`` opens its sentence: nothing before it but
    discourse openers, a speaker label, adverbs and punctuation. A later clause with no
    subject ("the job ran; did not check the lock") shares an earlier clause's subject,
    so only the first clause can leave it unstated."""
    if at > _WINDOW:
        return False
    words = [w for _, w in _words(text[:at])]
    for k, w in enumerate(words):
        if not (grammar.coordinators.fullmatch(w) or grammar.filler.fullmatch(w)
                or _OPENER.fullmatch(w) or _LABEL.fullmatch(w) or _labels(words, k)
                or not re.match(r"[@\w]", w)):
            return False
    return True


def _labels(words: Sequence[str], k: int) -> bool:
    """Whether ``words[k]`` is a one-word label opening the sentence ("Problem:",
    "Edit:", "**Identified**:"): a word right before a colon with only labels before it.
    A label names what follows; it is no subject."""
    return k + 1 < len(words) and words[k + 1] == ":" and re.match(r"\w", words[k]) \
        is not None and all(w == ":" or _LABEL.fullmatch(w) or (j + 1 < len(words)
                                                             and words[j + 1] == ":")
                            for j, w in enumerate(words[:k]))


def _vocative(words: Sequence[str], k: int) -> bool:
    """Whether ``words[k]`` is a handle addressed before the clause's own subject
    ("@x Filing an issue like this is not productive", "@x, the job ..."): a handle
    followed by a comma or a capitalised word."""
    if not words[k].startswith("@") or words[k].endswith("'s") or k + 1 >= len(words):
        return False
    nxt = words[k + 1]
    return nxt in {",", ":"} or (nxt[:1].isupper() and nxt not in {"I"})


# A longer parenthetical inside a sentence ("a change I merged (not my own) has broken
# the build"): an aside between a subject and its predicate, not a clause boundary.
_PARENTHETICAL = re.compile(r"(?<=\S)\s*\([^()\n]{1,120}\)(?=\s*[\w@])")


def blank_parentheticals(text: str) -> str:
    """``text`` with its inner parentheticals blanked to spaces (same length)."""
    return _PARENTHETICAL.sub(lambda m: " " * len(m.group(0)), text)


def matches(text: str, grammar: Grammar, conditions: Sequence[Condition]
            ) -> Iterator[tuple[int, int, str]]:
    """Every predicate of ``conditions`` whose subject's agent the condition wants:
    (start, end, agent class), offsets into ``text``. The sentence is read twice: as
    written, and with its inner parentheticals left out, so that a subject separated
    from its predicate by an aside is still found; a hit is reported once."""
    text = flatten_asides(text)
    seen: set[tuple[int, int]] = set()
    plain = blank_parentheticals(text)
    for reading in (text, plain) if plain != text else (text,):
        for at, end, agent in _matches(reading, grammar, conditions):
            if (at, end) not in seen:
                seen.add((at, end))
                yield at, end, agent


def _matches(text: str, grammar: Grammar, conditions: Sequence[Condition]
             ) -> Iterator[tuple[int, int, str]]:
    for clause in clauses(text, grammar):
        part = text[clause.start:clause.end]
        agents: dict[int, str] = {}  # one subject reading per predicate position
        head: str | None = None
        for cond in conditions:
            for pattern in cond.predicates:
                for m in pattern.finditer(part):
                    if m.end() == m.start():
                        continue
                    at = clause.start + m.start()
                    if cond.head:
                        if head is None:
                            head = classify(head_subject(text, clause, grammar), grammar)
                        if head in cond.agents:
                            yield at, clause.start + m.end(), head
                        continue
                    if at not in agents:
                        words = subject(text, clause, at, grammar)
                        agents[at] = classify(words, grammar) if words else (
                            UNSTATED if opens(text, at, grammar) else SYSTEM)
                    if agents[at] in cond.agents:
                        yield at, clause.start + m.end(), agents[at]


# What opens a question that asks ("did you ...?", "how did ...?"), as opposed to a
# statement said with a question mark ("You merged it without a review?"). "Why" is not
# among them: "why did you merge it without a review?" presupposes the act it asks about
# ("who merged it?" may just ask for a name).
_ASKING = re.compile(
    r"(who|whom|whose|what|which|when|where|how|whether|is|are|was|were|am|do|does|"
    r"did|can|could|would|will|should|shall|may|might|must|have|has|had|isn't|aren't|"
    r"wasn't|weren't|don't|doesn't|didn't|can't|couldn't|wouldn't|won't|shouldn't|"
    r"haven't|hasn't|hadn't|any|anyone|anybody|maybe|perhaps|possibly|probably|"
    r"wonder|curious)", re.IGNORECASE)


_PLEASE = re.compile(r"\b(please|kindly)\b", re.IGNORECASE)


def asks(text: str, clause: Clause, grammar: Grammar) -> bool:
    """Whether a clause ending in "?" asks (opens with a question word or an auxiliary)
    rather than states with a question mark: "Did you merge it?" asks; "You merged it
    without a review?", "Merged a big PR without review?" and "Why did you merge it
    without review?" accuse, and "Could you please ...?" requests."""
    if _PLEASE.search(text, clause.start, clause.end):
        return False  # "could you please be more careful?" requests, it does not ask
    if grammar.accusing is not None and grammar.accusing.search(text, clause.start,
                                                                clause.end):
        return False
    for _, w in _words(text[clause.start:clause.start + _WINDOW]):
        if _OPENER.fullmatch(w) or _LABEL.fullmatch(w) or not re.match(r"[@\w]", w) \
                or grammar.coordinators.fullmatch(w):
            continue
        return bool(_ASKING.fullmatch(w.replace("’", "'")))
    return True


def clause_of(text: str, offset: int, grammar: Grammar) -> Clause:
    """The clause holding ``text[offset]``."""
    for clause in clauses(text, grammar):
        if clause.start <= offset < clause.end:
            return clause
    return Clause(0, len(text))


def cooccurrences(text: str, grammar: Grammar, needs: Sequence[Sequence[str]]
                  ) -> Iterator[tuple[int, int]]:
    """Every clause holding a word of each class of one of ``needs`` (a norm word and a
    process noun, say): the span of the word of its first class (the norm word), offsets
    into ``text``. The classes decide together, so no word of them is a finding alone;
    a question asks rather than pushes."""
    text = flatten_asides(text)
    for clause in clauses(text, grammar):
        part = text[clause.start:clause.end]
        if part.rstrip(" )*_\"'").endswith("?"):
            continue
        for need in needs:
            found = [grammar.classes[name].search(part) for name in need]
            if all(m is not None and m.end() > m.start() for m in found):
                first = found[0]
                assert first is not None
                yield clause.start + first.start(), clause.start + first.end()
                break
