"""Which rubric signals can fire in each place of an issue, found in one pass over the
place instead of a test per signal (issue #23: the planner's speed).

A signal can fire in a place only when one of its one-word keywords is among the
place's words, or one of its longer keywords is in their sequence, or one of its patterns'
needles is in the place's lowercase, or one of the whole words of a case-sensitive
pattern without needles is among the place's words (``whole_words``), or one of its
patterns has neither (``Signal.unindexed``): ``Signal.fire`` tests nothing else first.
``SignalIndex`` answers that question for every signal reading a place at once: one
set intersection for the words (a longer keyword by one of its words, then whole);
for the needles, a look at the place's words (a needle
of word characters is in the lowercase exactly when it is in one of its words, and
what each word holds is searched once and remembered, ``_WordNeedles``), then a
substring test for each other needle whose longest run of word characters is there.
The candidates then run ``Signal.fire``, which alone decides; a candidate that does
not fire costs time, never a verdict, and a signal that can fire is always a candidate
(tests/triage/test_matcher.py holds the engine to a plain loop).

Pure: built once per rubric (``signals.Rubric``), no I/O; the only state is the memo of
what each word holds, which gives the same answer as the search it saves. Every search
is over a place the planner already bounded (``signals.bounded``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

# The regex parser tells where a pattern's matches can start (an optimisation only: if
# a Python release changes it, literal_starts returns None and the regex just runs).
from re import _constants as _C
from re import _parser
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentops.triage.signals import Place, Signal

# Branches of the needle trie in the order English text meets their first letters: the
# regex engine tries a node's branches in turn, so the common letters go first (the
# order changes no match: a node's branches start with different characters).
_FREQ = "etaoinsrhldcumfpgwybvkxjqz_0123456789"
_RANK = {c: k for k, c in enumerate(_FREQ)}
# Characters a needle may lead with that add nothing to it as a test (" rank", "[rank"):
# dropping them keeps every needle's occurrence an occurrence of the rest, and lets the
# regex engine skip spaces and punctuation without trying the trie there.
_LEAD = " \t\n[(/.'\"`-"


# Sanity: needle occurrences a word's search steps through one by one before each
# needle is looked for in it instead (a few in a real word; thousands in a hostile one).
MAX_NEEDLE_STEPS = 256
# Sanity: the words whose needles are remembered (``_WordNeedles``), and the longest
# one remembered: a hostile text of new or huge words costs its searches, not memory.
MAX_REMEMBERED_WORDS = 65_536
MAX_REMEMBERED_WORD = 64
_WORD_RUN = re.compile(r"[a-z0-9_]+")


def needle_regex(needles: Iterable[str]) -> re.Pattern[str] | None:
    """A case-sensitive regex matching, at a position, the longest of ``needles`` that
    starts there (a trie: each node's branches start with distinct characters, and a
    needle that ends at a node is an optional tail's end). ``None`` without needles."""
    root: dict[str, dict] = {}
    for n in needles:
        node = root
        for c in n:
            node = node.setdefault(c, {})
        node[""] = {}

    def emit(node: dict[str, dict]) -> str:
        kids = sorted((c for c in node if c), key=lambda c: (_RANK.get(c, len(_RANK)), c))
        alts = [re.escape(c) + emit(node[c]) for c in kids]
        if not alts:
            return ""
        ends = "" in node
        if len(alts) == 1 and not ends:
            return alts[0]
        body = "(?:" + "|".join(alts) + ")"
        return body + "?" if ends else body

    return re.compile(emit(root)) if root else None


@dataclass(frozen=True)
class _PlaceTable:
    """How to find the candidates among the signals that read one place."""

    always: frozenset[int]  # signals with a pattern that has no needle: always candidates
    # A one-word keyword, or a whole word of a pattern -> the signals that have it.
    words: Mapping[str, tuple[int, ...]]
    keys: frozenset[str]  # ``words``' keys
    # A longer keyword's key word -> (" w1 w2 … ", the signal) of each keyword it is in:
    # the signal is a candidate only where the place's words hold the whole keyword,
    # as ``fire`` tests (a key word alone, "distributed" of "distributed autograd",
    # made a third of the candidates that did not fire, issue #23).
    multis: Mapping[str, tuple[tuple[str, int], ...]]
    multi_keys: frozenset[str]  # ``multis``' keys
    # The (trimmed) needles of the signals reading the place -> the signals they make
    # candidates (none for a needle of a signal that is always one): those of word
    # characters only (``spelled``), found among the place's words; the others by a
    # run of word characters they hold (``by_run``: found in the words first, then the
    # needle in the lowercase), or by the lowercase alone (``runless``: an emoji).
    of_needle: Mapping[str, frozenset[int]]
    spelled: frozenset[str]
    by_run: Mapping[str, tuple[str, ...]]
    runs: frozenset[str]  # ``by_run``'s keys
    runless: tuple[str, ...]


# Words too common to tell a multi-word keyword apart ("on all ranks", "the other
# rank"): the word it is indexed by is another one of its words when it has one.
_COMMON = frozenset("a all an and across any at between by different each every for from "
                    "in is it multi no not of on or other per some the to with".split())


def _key_word(seq: str) -> str:
    """The word a multi-word keyword (" w1 w2 … ") is indexed by: every one of its words
    is among a place's words wherever it occurs (they are the place's tokens), so any
    one will do, and the longest uncommon one rules out the most places."""
    words = seq.split()
    return max(words, key=lambda w: (w not in _COMMON, len(w)))


def _trim(needle: str) -> str:
    return needle.lstrip(_LEAD) or needle


def _table(signals: Sequence[Signal], place: str) -> _PlaceTable | None:
    reading = [k for k, s in enumerate(signals) if place in s.where]
    if not reading:
        return None
    always = frozenset(k for k in reading if signals[k].unindexed)
    words: dict[str, list[int]] = {}
    multis: dict[str, list[tuple[str, int]]] = {}
    of_needle: dict[str, set[int]] = {}
    for k in reading:
        sig = signals[k]
        for w in (*sig.single, *sig.pattern_words):
            words.setdefault(w, []).append(k)
        for _, seq in sig.multi:
            multis.setdefault(_key_word(seq), []).append((seq, k))
        for n in () if sig.unindexed else sig.strings:
            of_needle.setdefault(_trim(n), set()).add(k)
    # The scan also finds every pattern's needles, so that ``fire`` need not look for
    # them again (``StringTest``); they make no signal a candidate (one with a pattern
    # without needles is one anyway).
    for k in reading:
        for n in signals[k].strings:
            of_needle.setdefault(_trim(n), set())
    by_run: dict[str, list[str]] = {}
    runless = []
    for n in of_needle:
        if _WORD_RUN.fullmatch(n):
            continue
        runs = _WORD_RUN.findall(n)
        if runs:
            by_run.setdefault(max(runs, key=len), []).append(n)
        else:
            runless.append(n)
    return _PlaceTable(always=always, words={w: tuple(ks) for w, ks in words.items()},
                       keys=frozenset(words),
                       multis={w: tuple(seqs) for w, seqs in multis.items()},
                       multi_keys=frozenset(multis),
                       of_needle={n: frozenset(ks) for n, ks in of_needle.items()},
                       spelled=frozenset(n for n in of_needle if _WORD_RUN.fullmatch(n)),
                       by_run={r: tuple(ns) for r, ns in by_run.items()},
                       runs=frozenset(by_run), runless=tuple(runless))


class _WordNeedles(dict[str, frozenset[str]]):
    """A word of a place -> the strings of ``strings`` it holds (as substrings). A
    needle of word characters only is in a place's lowercase exactly when it is in one
    of the place's words (``Place.tokens``: the runs of word characters of the
    lowercase), and most words recur from issue to issue ("the", "torch", "rank"), so
    each is searched once (issue #23, planner speed: the scan had searched every
    position of every place for the needles). Only a memo: a word's strings are the
    same whenever it is looked up, and the memo is bounded (MAX_REMEMBERED_*)."""

    def __init__(self, strings: Iterable[str]) -> None:
        super().__init__()
        self.strings = frozenset(strings)
        self.regex = needle_regex(self.strings)
        # The longest string the trie matches at a position -> every string starting there.
        self.starting = {n: frozenset(p for p in self.strings if n.startswith(p))
                         for n in self.strings}
        # The remembered words that hold none of the strings (not kept in the dict).
        self.empty: set[str] = set()

    def __missing__(self, word: str) -> frozenset[str]:
        got = self.search(word)
        if len(word) <= MAX_REMEMBERED_WORD:
            if len(self) + len(self.empty) >= MAX_REMEMBERED_WORDS:
                self.clear()
                self.empty.clear()
            if got:
                self[word] = got
            else:
                self.empty.add(word)
        return got

    def search(self, word: str) -> frozenset[str]:
        """The strings in ``word``: the trie tried at each position where one starts
        (one search per occurrence), or past MAX_NEEDLE_STEPS each string looked for."""
        if self.regex is None:
            return _NONE
        found: set[str] = set()
        search = self.regex.search
        m = search(word)
        steps = 0
        while m is not None:
            found |= self.starting[m.group()]
            steps += 1
            if steps >= MAX_NEEDLE_STEPS:
                return frozenset(n for n in self.strings if n in word)
            m = search(word, m.start() + 1)
        return frozenset(found) if found else _NONE


_NONE: frozenset[str] = frozenset()


class SignalIndex:
    """The signals of a rubric (or a subset), indexed per place for ``candidates``."""

    def __init__(self, signals: Sequence[Signal], *, memo: _WordNeedles | None = None) -> None:
        """``memo``: another index's memo of what each word holds, shared when it looks
        for every string this one needs (each table takes its own strings from what a
        word holds): a word is then searched once for all of a rubric's indexes, which
        is what a plan of an issue with new words pays for."""
        self.signals = tuple(signals)
        names = dict.fromkeys(p for s in self.signals for p in s.where)
        tables = {p: _table(self.signals, p) for p in names}
        self.tables = {p: t for p, t in tables.items() if t is not None}
        needed = {*(n for t in self.tables.values() for n in t.spelled),
                  *(r for t in self.tables.values() for r in t.runs)}
        self.in_word = memo if memo is not None and needed <= memo.strings \
            else _WordNeedles(needed)

    def candidates(self, name: str, place: Place) -> set[int]:
        """Positions (in ``signals``) of the signals that may fire in ``place``."""
        return self.scan(name, place)[0]

    def scan(self, name: str, place: Place) -> tuple[set[int], frozenset[str] | None]:
        """``candidates``, and the strings of the place's table (the trimmed needles of
        every pattern of its signals) in ``place.lower``: all of those it holds, and no
        other (None: the place's signals have no needles)."""
        table = self.tables.get(name)
        if table is None:
            return set(), None
        out = set(table.always)
        words = table.words
        for w in table.keys & place.words:
            out.update(words[w])
        norm = place.norm
        for w in table.multi_keys & place.words:
            for seq, k in table.multis[w]:
                if seq in norm:
                    out.add(k)
        if not table.of_needle:
            return out, None
        held = self._held(place)
        found = held & table.spelled
        lower = place.lower
        for run in table.runs & held:
            for n in table.by_run[run]:
                if n in lower:
                    found.add(n)
        for n in table.runless:
            if n in lower:
                found.add(n)
        if found:
            out.update(*map(table.of_needle.__getitem__, found))
        return out, frozenset(found)

    def _held(self, place: Place) -> set[str]:
        """Every string of the word memo that one of the place's words holds. The same
        for every index sharing the memo (what a word holds never changes), so it is
        kept on the place for the next scan with that memo (the deferred signals')."""
        memo = self.in_word
        kept = place.held.get(id(memo))
        if kept is not None and kept[0] is memo:
            return kept[1]
        tokens = place.words if place.tokens is None else place.tokens
        # Most words hold no needle ("the", "model"): the memo's set of those takes them
        # out in one set difference, and only the rest are looked up one by one.
        held = set().union(*map(memo.__getitem__, tokens - memo.empty))
        place.held[id(memo)] = (memo, held)
        return held


@dataclass(frozen=True)
class StringTest:
    """Whether one of ``strings`` is in a place's lowercase (a pattern's needles: none
    there, and the pattern cannot match), answered from what the place's scan found
    (``SignalIndex.scan``) instead of a search of the place per string (issue #23,
    planner speed)."""

    strings: frozenset[str]
    # Those the scan finds as they are, and (trimmed, string) of the others: the scan
    # finds their trimmed form, and only then is the string itself looked for.
    whole: frozenset[str]
    trimmed: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, strings: frozenset[str] | None) -> StringTest | None:
        if strings is None:
            return None
        return cls(strings=strings, whole=frozenset(n for n in strings if _trim(n) == n),
                   trimmed=tuple(sorted((_trim(n), n) for n in strings if _trim(n) != n)))

    def any_in(self, lower: str, found: frozenset[str] | None) -> bool:
        """``any(n in lower for n in strings)``; ``found``: the scan's strings of the
        place, exact (every string is in the scan's trie), or None to search."""
        if found is None:
            return any(n in lower for n in self.strings)
        if not self.whole.isdisjoint(found):
            return True
        return any(short in found and n in lower for short, n in self.trimmed)


# ------------------------------------------------------------------ one pattern's search

# Sanity: how many possible starts a fast search tries one by one before it hands the
# rest of the text to the regex's own search: a text with the start literal at every
# word (a hostile issue) costs a few calls more than the plain search, never a call
# per occurrence.
MAX_STARTS_TRIED = 8


def _starts(items: Any, lower: bool) -> set[str] | None:
    """Non-empty literal strings one of which every match of a parsed regex starts
    with (lowercased with ``lower``), or None when the parse does not say."""
    run = ""
    for op, av in items:
        if op is _C.LITERAL:
            run += chr(av).lower() if lower else chr(av)
            continue
        if run:
            return {run}
        if op in (_C.AT, _C.ASSERT, _C.ASSERT_NOT):
            continue  # zero-width: the match's first character comes after it
        if op is _C.SUBPATTERN:
            return None if av[1] or av[2] else _starts(av[3], lower)
        if op is _C.BRANCH:
            subs = [_starts(alt, lower) for alt in av[1]]
            if any(s is None for s in subs):
                return None
            return set().union(*subs)  # type: ignore[arg-type]
        if op in (_C.MAX_REPEAT, _C.MIN_REPEAT, _C.POSSESSIVE_REPEAT) and av[0] >= 1:
            return _starts(av[2], lower)
        if op is _C.ATOMIC_GROUP:
            return _starts(av, lower)
        return None
    return {run} if run else None


def _leads_blind(items: Any) -> bool:
    """Whether a parsed regex leads with a zero-width test (``\\b``, ``^``, a look-around):
    the regex engine then finds no literal prefix or first-character set to skip to,
    and tries the pattern at every position of the text."""
    while items:
        op, av = items[0]
        if op is _C.SUBPATTERN and not (av[1] or av[2]):
            items = av[3]
            continue
        return op in (_C.AT, _C.ASSERT, _C.ASSERT_NOT)
    return False


def literal_starts(pattern: str, flags: int, *, lower: bool) -> tuple[str, ...] | None:
    """The literal starts of ``pattern`` (see ``_starts``): of its lowered twin with
    ``lower``, else of the pattern itself, which must then be case-sensitive (None for
    a case-insensitive one: its literals stand for more than one string)."""
    try:
        tree = _parser.parse(pattern, flags)
    except Exception:
        return None
    if not lower and tree.state.flags & re.IGNORECASE:
        return None
    if not _leads_blind(tree.data):
        return None  # the regex engine skips to the pattern's literal prefix itself
    found = _starts(tree.data, lower)
    return tuple(sorted(found, key=lambda s: (-len(s), s))) if found else None


Search = Callable[[str], "re.Match[str] | None"]


def fast_search(regex: re.Pattern[str], starts: Sequence[str] | None) -> Search:
    """``regex.search`` that goes straight to where a match can start.

    Every match starts with one of ``starts`` (``literal_starts``), so the leftmost
    match is the first success of ``regex.match`` tried at their occurrences in order:
    the same attempt ``search`` makes there (both see the text before the position, for
    look-behinds and ``\\b``). A pattern that leads with a look-behind or ``\\b`` gives
    the regex engine no literal to skip to, and it then tries every position of the
    text; this tries a handful. Past MAX_STARTS_TRIED failed attempts the regex's own
    search takes over from the last one (no match starts before it)."""
    if not starts:
        return regex.search
    match, search = regex.match, regex.search
    if len(starts) == 1:
        lit = starts[0]

        def by_find(text: str) -> re.Match[str] | None:
            i = text.find(lit)
            tried = 0
            while i >= 0:
                m = match(text, i)
                if m is not None:
                    return m
                tried += 1
                if tried >= MAX_STARTS_TRIED:
                    return search(text, i + 1)
                i = text.find(lit, i + 1)
            return None

        return by_find
    lead = re.compile("|".join(re.escape(s) for s in starts)).search

    def by_lead(text: str) -> re.Match[str] | None:
        at = lead(text)
        tried = 0
        while at is not None:
            i = at.start()
            m = match(text, i)
            if m is not None:
                return m
            tried += 1
            if tried >= MAX_STARTS_TRIED:
                return search(text, i + 1)
            at = lead(text, i + 1)
        return None

    return by_lead


def line_search(regex: re.Pattern[str]) -> Callable[[str], bool]:
    """Whether ``regex`` matches anywhere in a text: ``regex.search(text) is not None``.

    A regex that leads with ``^`` under ``re.M`` (a line filter of the rubric) gives the
    regex engine nothing to skip to, and it tries every position of the text; every
    match starts a line, so it is tried at the text's start and then searched with a
    newline in front, which the engine goes straight to. Both read the same text, so
    what the regex sees around a position is the same. Any other regex: its search."""
    twin = None
    try:
        tree = _parser.parse(regex.pattern, regex.flags)
        if tree.state.flags & re.M and tree.data and tree.data[0] == (_C.AT, _C.AT_BEGINNING):
            twin = re.compile("\n(?:" + regex.pattern + ")", regex.flags)
    except Exception:
        twin = None
    if twin is None:
        return lambda text: regex.search(text) is not None
    match, search = regex.match, twin.search
    return lambda text: match(text) is not None or search(text) is not None


# ------------------------------------------------------------------ strings a match holds

# Sanity: how many strings one pattern's ``required_strings`` may list (a product of
# alternatives grows fast; past this the shorter run is kept).
MAX_REQUIRED = 64


def _fixed(op: Any, av: Any) -> tuple[list[str], bool] | None:
    """What one parsed element matches: its strings (lowercased), and whether they are
    all of it (else they are only how it starts); None when it is not that simple."""
    if op is _C.LITERAL:
        return [chr(av).lower()], True
    if op is _C.IN:
        if not 1 <= len(av) <= 4 or any(iop is not _C.LITERAL for iop, _ in av):
            return None
        return sorted({chr(iav).lower() for _, iav in av}), True
    if op is _C.SUBPATTERN:
        return None if av[1] or av[2] else _run(av[3], 0)
    if op is _C.BRANCH:
        out: list[str] = []
        complete = True
        for alt in av[1]:
            got = _run(alt, 0)
            if got is None:
                return None
            out += got[0]
            complete = complete and got[1]
        return out, complete
    return None


def _run(items: Any, start: int) -> tuple[list[str], bool] | None:
    """The strings a match of ``items[start:]`` starts with, built element by element
    (every combination of consecutive simple elements; zero-width tests add nothing),
    and whether they are the whole of it; None when its first element is not simple."""
    strs = [""]
    for op, av in items[start:]:
        if op in (_C.AT, _C.ASSERT, _C.ASSERT_NOT):
            continue
        got = _fixed(op, av)
        if got is None:
            return (strs, False) if strs != [""] else None
        more = sorted({a + b for a in strs for b in got[0]})
        if len(more) > MAX_REQUIRED:
            return (strs, False) if strs != [""] else None
        strs = more
        if not got[1]:
            return strs, False
    return strs, True


def _required(items: Any) -> set[str] | None:
    """Strings one of which every match of a parsed regex contains (see
    ``required_strings``): the best run of simple elements anywhere in the sequence, or
    what every alternative of a branch (or the body of a group or repeat) requires."""
    cands: list[set[str]] = []
    for k, (op, av) in enumerate(items):
        got = _run(items, k)
        if got is not None:
            cands.append(set(got[0]))
        if op is _C.SUBPATTERN and not (av[1] or av[2]):
            sub = _required(av[3])
            if sub:
                cands.append(sub)
        elif op is _C.BRANCH:
            subs = [_required(alt) for alt in av[1]]
            if all(subs):
                cands.append(set().union(*subs))  # type: ignore[arg-type]
        elif op in (_C.MAX_REPEAT, _C.MIN_REPEAT, _C.POSSESSIVE_REPEAT) and av[0] >= 1:
            sub = _required(av[2])
            if sub:
                cands.append(sub)
    cands = [c for c in cands if c and min(map(len, c)) >= 3]
    if not cands:
        return None
    return max(cands, key=lambda c: (min(map(len, c)), -len(c)))


def required_strings(pattern: str, flags: int) -> frozenset[str] | None:
    """Lowercase ASCII strings one of which the lowercase of every match of ``pattern``
    on ASCII text contains (None when the parse does not give any of 3 characters or
    more). Finer than a pattern's needles (``signals.pattern_needles``): it joins the
    alternatives and small classes around a literal ("distributed tensor",
    "distributed-tensor" where the needle is "distributed"), so a pattern whose needle
    is everywhere in an issue need not run. Only for ASCII text: there a literal
    matches, with or without IGNORECASE, exactly the characters whose lowercase it is
    (elsewhere IGNORECASE also matches a long s for "s")."""
    try:
        found = _required(_parser.parse(pattern, flags).data)
    except Exception:
        return None
    if not found or not all(s.isascii() for s in found):
        return None
    return frozenset(found)


# ------------------------------------------------------------------ whole words a match holds

# What stands for a word edge in ``_spelled``'s strings: a ``\b``, or a look-around that
# the next or previous character is not an ASCII word character (``keyword_regex``).
# Either way that character, if any, separates words for ``signals.word_tokens``.
_EDGE = "\x00"
_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_ASCII_WORD_CLASS = sorted([(_C.RANGE, (97, 122)), (_C.RANGE, (65, 90)),
                            (_C.RANGE, (48, 57)), (_C.LITERAL, 95)])


def _is_edge(op: Any, av: Any) -> bool:
    """``\\b``, or ``(?<![A-Za-z0-9_])`` / ``(?![A-Za-z0-9_])`` (any order of the class)."""
    if op is _C.AT:
        return av is _C.AT_BOUNDARY
    if op is not _C.ASSERT_NOT or len(av[1]) != 1:
        return False
    iop, iav = av[1][0]
    return iop is _C.IN and sorted(iav) == _ASCII_WORD_CLASS


def _spelled(items: Any, heads: list[str]) -> tuple[list[str], bool]:
    """``heads`` each extended by what ``items`` spell (ASCII literals, word edges as
    ``_EDGE``, every alternative of a branch), and whether that is all of ``items``:
    else the strings are how the matches start, as far as they are that simple."""
    for op, av in items:
        if op is _C.LITERAL and av < 128:
            heads = [h + chr(av) for h in heads]
        elif _is_edge(op, av):
            heads = [h + _EDGE for h in heads]
        elif op is _C.BRANCH or (op is _C.SUBPATTERN and not (av[1] or av[2])):
            out: list[str] = []
            whole = True
            for alt in (av[1] if op is _C.BRANCH else [av[3]]):
                got, done = _spelled(alt, heads)
                out += got
                whole = whole and done
            if len(out) > MAX_REQUIRED:
                return heads, False
            heads = out
            if not whole:
                return heads, False
        else:
            return heads, False
    return heads, True


def _edged_words(spelled: str) -> list[str]:
    """The runs of ASCII word characters in ``spelled`` with a word edge or a literal
    other character on both sides: whole words of the text wherever it matches."""
    out = []
    for m in re.finditer(r"[A-Za-z0-9_]+", spelled):
        a, b = m.span()
        if a > 0 and b < len(spelled):
            out.append(m.group())
    return out


def whole_words(pattern: str, flags: int) -> frozenset[str] | None:
    """Lowercase words one of which every match of ``pattern`` holds as a whole word of
    the text (one of its ``signals.word_tokens``), or None when the parse does not say:
    ``\\b(?:TP|PP|EP)\\b`` -> {"tp", "pp", "ep"}. Sure for a case-sensitive pattern on
    any text; for a case-insensitive one only on text that folds like ASCII
    (``signals.folds_like_ascii``: elsewhere IGNORECASE also matches a long s for "s").
    A word too short to be a needle still tells a place's words apart (issue #23: a
    pattern without needles ran in every place of every issue)."""
    try:
        tree = _parser.parse(pattern, flags)
    except Exception:
        return None
    out: set[str] = set()
    for spelled in _spelled(tree.data, [""])[0]:
        words = _edged_words(spelled)
        if not words:
            return None
        out.add(max(words, key=len).lower())
    return frozenset(out) or None
