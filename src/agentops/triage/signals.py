"""Reading an issue: split its text into places (title, body prose, code blocks,
tracebacks, comments), find the root-cause frame of its tracebacks, and match the
queue's rubric signals in the places each signal may fire.

Pure: text in, hits out; no I/O, no clock, no randomness. Regexes are compiled once per
queue (``compile_rubric``) so planning one issue costs only the searches.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

# The regex parser gives each pattern's literal needles (an optimisation only: if a
# Python release changes it, pattern_needles returns None and the regex just runs).
from re import _compiler, _parser
from re import _constants as _C
from typing import Any, NamedTuple

from agentops.triage.matcher import (
    Search,
    SignalIndex,
    StringTest,
    fast_search,
    line_search,
    literal_starts,
    required_strings,
    whole_words,
)

# ``frame``: the root-cause distributed frame of the tracebacks (T-13); ``top_frame``:
# the innermost library frame of the last traceback, whatever its area (what the trace
# is about: a distributed, compiler or data-loading frame at the top, issue #23);
# ``negated``: what the report rules out ("no DDP/FSDP", "not using torchrun"), which
# step 1 reads as evidence against distributed and no other step reads at all.
PLACES = ("title", "body", "code", "traceback", "frame", "top_frame", "negated", "comment")
_TOKEN_RE = re.compile(r"[a-z0-9_]+")
# ``_TOKEN_RE.findall`` as one byte-level pass: every byte but a word character becomes
# a space and ``split`` cuts there, the same tokens in the same order at a fraction of
# the cost (issue #23, planner speed).
_TOKEN_BYTES = bytes(c if chr(c) in "abcdefghijklmnopqrstuvwxyz0123456789_" else 0x20
                     for c in range(256))


def word_tokens(lower: str) -> list[str]:
    """The words of lowercased text: ``_TOKEN_RE.findall(lower)``. Other characters
    only separate words, so each non-ASCII one (an issue template's emoji makes most
    bodies non-ASCII) is encoded as a ``?``, which becomes a space with the rest."""
    return lower.encode("ascii", "replace").translate(_TOKEN_BYTES).decode("ascii").split()

@lru_cache(maxsize=4096)
def whole_run(words: str) -> re.Pattern[str]:
    """A keyword's words ("torch compile") as whole words in lowercased text, any run of
    other characters between them ("torch.compile", "torch compile")."""
    body = "[^a-z0-9_]+".join(re.escape(w) for w in words.split())
    return re.compile(f"(?<![a-z0-9_]){body}(?![a-z0-9_])")

# CamelCase identifiers (two humps or more): a keyword names a part of one too, as
# SymmMem in NCCLSymmMemAllocator or TensorPipe in TensorPipeDistAutogradTest.
# Where a hump starts inside a word: the capital first (rare in text, the regex engine
# skips to it), then the letter or digit before it.
_CAMEL_RE = re.compile(r"[A-Z](?<=[a-z0-9][A-Z])")
_MAX_IDENT = 80  # Sanity: longer "identifiers" are noise, not API names
_HUMP_PLACES = frozenset({"title", "body", "comment", "negated"})
_HUMP_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
# A code fence: a line of blanks and a run of three or more backticks or tildes (what
# follows the run is its info string), to the next line of blanks and the same run and
# blanks, or to the end of the text. Possessive runs: a line of thousands of backticks
# is not retried at every length. ``_FENCE_OPEN`` is tried at a line's start,
# ``_FENCE_CLOSE`` finds a candidate closing line from the newline before it.
_FENCE_OPEN = re.compile(r"[ \t]*+(`{3,}+|~{3,}+)[^\n]*\n")
_FENCE_CLOSE = re.compile(r"\n[ \t]*+(`{3,}+|~{3,}+)[ \t]*+$", re.M)
_EXCERPT = 80
# Roles only the last step reads (T-16: is there a reproduction?): most plans end before
# it, and the reproduction patterns run on every code block and paragraph, so they are
# matched on demand (issue #23, planner speed). Their hits are the same either way.
DEFERRED_ROLES = frozenset({"reproduction"})
_MIN_NEEDLE = 3
# Sanity: how much of an issue the planner reads. GitHub caps a body or comment at 65,536
# characters; the evidence of a report is in its title, body and first comments, and an
# issue padded with fifty such comments must still plan in a few milliseconds (#12).
MAX_TITLE_CHARS = 1_000
MAX_BODY_CHARS = 65_536
MAX_COMMENT_CHARS = 16_384
MAX_COMMENTS_CHARS = 131_072  # every comment together


@dataclass(frozen=True)
class Signal:
    """One compiled rubric signal.

    Keywords are matched on words, not by regex: the text's lowercased words are
    indexed once per place, so a keyword costs a set lookup (a multi-word keyword a
    substring test on the normalised words). Each pattern carries needles, literal
    strings one of which any match must contain, checked before the regex runs."""

    id: str
    label: str | None
    role: str | None
    where: tuple[str, ...]
    weight: float
    single: frozenset[str]  # one-word keywords (lowercase)
    multi: tuple[tuple[str, str], ...]  # (first word, " w1 w2 … ") of multi-word keywords
    patterns: tuple[tuple[frozenset[str] | None, re.Pattern[str]], ...]
    # Each pattern's twin for a place's lowercase when the place is ASCII (None: the
    # pattern runs on the text), see ``lowered_regex``.
    lowered: tuple[re.Pattern[str] | None, ...] = ()
    requires: tuple[re.Pattern[str], ...] = ()
    unless: tuple[re.Pattern[str], ...] = ()
    # The needles of each requires/unless regex (None: it has none), as for patterns.
    requires_needles: tuple[frozenset[str] | None, ...] = ()
    unless_needles: tuple[frozenset[str] | None, ...] = ()
    # Their lowered twins (None: none), as for patterns: a case-insensitive gate reads
    # the whole issue, and its twin runs on the lowercase two to three times faster.
    requires_lowered: tuple[re.Pattern[str] | None, ...] = field(
        default=(), repr=False, compare=False)
    unless_lowered: tuple[re.Pattern[str] | None, ...] = field(
        default=(), repr=False, compare=False)
    suppresses: tuple[str, ...] = ()
    evidence: bool = True
    # Step 1 (issue #23): a hit of this signal outside code is the subject of the report
    # (an error a distributed component raised, a collective as the topic), never
    # incidental, and a non-distributed verdict yields to it.
    subject: bool = False
    # Step 1 (issue #23): a not_distributed signal that names no other owner (what the
    # report rules out, "single process") argues against distributed but cannot by
    # itself send the issue elsewhere: a not-distributed verdict needs one that does.
    names_owner: bool = True
    # The `triaged` gate (issue #23, calibration round): a not_distributed signal whose
    # owner's code runs in the same failure as the distributed code (the compiler
    # tracing a DTensor or DDP program). Named outside code anywhere in the report, not
    # only in its title, it contends with a component the report names once.
    contends: bool = False
    # The `triaged` gate (issue #23, off-queue round): a not_distributed signal whose hit
    # in a pasted log (the repro's code block, a trace) shows a build, link or import
    # step failing. Which team owns that failure is a human's call, whatever component
    # the report names: humans send some to the build team, keep others.
    fails_build: bool = False
    # Step 1 (issue #23, stop 36): a not_distributed title signal that names another
    # owner only where it leads the title, before every distributed word there ("Cannot
    # export a DataParallel model" is about exporting; "FSDP model fails to export" is
    # FSDP's, the export being what the component was used for).
    leads_title: bool = False
    # Step 5 (issue #23): a high_priority criterion that holds only for distributed code
    # (a crash): it does not count when another owner's error or frame is a subject.
    in_distributed_code: bool = False
    keywords: tuple[str, ...] = ()
    multi_first: frozenset[str] = frozenset()  # the first words of ``multi``
    # The cheap test ``match_signals`` makes before calling ``fire``: words that start a
    # keyword, and every pattern's needles (None: a pattern has none, so it must run).
    starts: frozenset[str] = frozenset()
    needles: tuple[str, ...] | None = ()
    # Per pattern: its needles, as a test the place's scan can answer; the finer
    # strings one of which a match on ASCII text holds (matcher.required_strings, None:
    # none); its search, and its lowered twin's (None: no twin), by matcher.fast_search,
    # straight to where a match can start; the whole words one of which a match holds
    # (matcher.whole_words, None: none), and whether that is sure on any text (a
    # case-sensitive pattern) rather than only on text that folds like ASCII.
    searches: tuple[tuple[StringTest | None, frozenset[str] | None, Search,
                          Search | None, frozenset[str] | None, bool], ...] = field(
        init=False, repr=False, compare=False)
    # Every pattern's needles, for the index to find (``SignalIndex.scan``): ``needles``
    # is None when one pattern has none, and the others' then still count.
    strings: tuple[str, ...] = field(init=False, repr=False, compare=False)
    # What makes the signal a candidate in a place besides its keywords (``SignalIndex``):
    # ``strings``, and the whole words of each case-sensitive pattern without needles
    # (``\b(?:TP|PP|EP)\b`` is too short for a needle, issue #23); ``unindexed``: a
    # pattern has neither, so the signal is a candidate everywhere it reads.
    pattern_words: frozenset[str] = field(init=False, repr=False, compare=False)
    unindexed: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        twins = self.lowered or (None,) * len(self.patterns)
        words = [whole_words(rx.pattern, rx.flags) for _, rx in self.patterns]
        object.__setattr__(self, "searches", tuple(
            (StringTest.of(needles), required_strings(rx.pattern, rx.flags),
             fast_search(rx, literal_starts(rx.pattern, rx.flags, lower=False)),
             None if tw is None
             else fast_search(tw, literal_starts(rx.pattern, rx.flags, lower=True)),
             ws, not rx.flags & re.IGNORECASE)
            for (needles, rx), tw, ws in zip(self.patterns, twins, words, strict=True)))
        object.__setattr__(self, "strings", tuple(sorted(
            {n for needles, _ in self.patterns for n in needles or ()})))
        by_words = [ws for (needles, rx), ws in zip(self.patterns, words, strict=True)
                    if needles is None and ws is not None and not rx.flags & re.IGNORECASE]
        object.__setattr__(self, "pattern_words", frozenset().union(*by_words))
        object.__setattr__(self, "unindexed", len(by_words) < sum(
            needles is None for needles, _ in self.patterns))

    def fire(self, place: Place, found: frozenset[str] | None = None) -> str | None:
        """The matched text if the signal fires in this place, else ``None``; ``found``:
        what the place's scan found (``SignalIndex.scan``) by an index of this signal
        (None: the needles are searched for)."""
        words = place.words
        if self.single and not self.single.isdisjoint(words):
            return min(self.single & words)
        if self.multi and not self.multi_first.isdisjoint(words):
            for first, seq in self.multi:
                if first in words and seq in place.norm:
                    return seq.strip()
        lower = place.lower
        ascii_place = place.ascii
        for needles, required, search, twin, whole, sure in self.searches:
            if needles is not None:
                # ``needles.any_in`` inline for the common case (none of them trimmed).
                if found is not None and not needles.trimmed:
                    if needles.whole.isdisjoint(found):
                        continue
                elif not needles.any_in(lower, found):
                    continue
            if whole is not None and (sure or ascii_place) and whole.isdisjoint(place.words):
                continue
            if ascii_place and required is not None:
                # On ASCII text the finer strings are as exact (matcher.required_strings).
                for n in required:
                    if n in lower:
                        break
                else:
                    continue
            if ascii_place and twin is not None:
                m = twin(lower)
                if m is not None:
                    return place.text[m.start():m.end()]
                continue
            m = search(place.text)
            if m is not None:
                return m.group(0)
        return None

    def first_at(self, place: Place) -> int | None:
        """Where in ``place.lower`` the signal's earliest match starts (None: it does not
        fire there). ``fire`` answers with the first of its keywords and patterns that
        matches, wherever it stands; what a title names first is read here instead
        (issue #23: "Inductor recompiles … under torch.compile" names the compiler by
        its first word, not by the keyword the signal happens to try first)."""
        lower = place.lower
        best: int | None = None
        for kw in self.single & place.words:
            m = whole_run(kw).search(lower)
            at = m.start() if m is not None else lower.find(kw)  # a hump of a CamelCase word
            if at >= 0 and (best is None or at < best):
                best = at
        for first, seq in self.multi:
            if first in place.words and seq in place.norm:
                m = whole_run(seq.strip()).search(lower)
                if m is not None and (best is None or m.start() < best):
                    best = m.start()
        shifted = len(lower) != len(place.text)
        for _, rx in self.patterns:
            m = rx.search(place.text)
            if m is None:
                continue
            # Patterns run on the text, keywords on its lowercase; a character whose
            # lowercase is longer ("İ") moves every later position, so the pattern's
            # start is carried over into ``lower`` before the two are compared.
            at = len(place.text[:m.start()].lower()) if shifted else m.start()
            if best is None or at < best:
                best = at
        return best

    def matches(self, text: str) -> str | None:
        """Whether the signal fires on ``text`` honouring requires/unless (examples)."""
        if not self.gate(text):
            return None
        return self.fire(Place.of(text))

    def gate(self, full_text: str, lower: str | None = None) -> bool:
        """``requires`` all match and no ``unless`` matches the whole issue text
        (``lower``: ``full_text.lower()``, when the caller has it)."""
        if not (self.requires or self.unless):
            return True
        if lower is None:
            lower = full_text.lower()
        ascii_text = full_text.isascii()
        folds: list[bool] = []  # folds_like_ascii(full_text), found when a twin needs it
        requires_twins = self.requires_lowered or (None,) * len(self.requires)
        unless_twins = self.unless_lowered or (None,) * len(self.unless)
        return (all(_gate_search(p, n, full_text, lower, ascii_text, twin=tw, folds=folds)
                    for p, n, tw in zip(self.requires, self.requires_needles, requires_twins,
                                        strict=True))
                and not any(_gate_search(p, n, full_text, lower, ascii_text, twin=tw, folds=folds)
                            for p, n, tw in zip(self.unless, self.unless_needles,
                                                unless_twins, strict=True)))


def _gate_search(regex: re.Pattern[str], needles: frozenset[str] | None, text: str,
                 lower: str, ascii_text: bool, *, twin: re.Pattern[str] | None = None,
                 folds: list[bool] | None = None) -> bool:
    """``regex.search(text)``, answered False without the regex when no needle of it is
    in ``lower``: exact for a case-sensitive regex (a literal in the text is in its
    lowercase too), and for a case-insensitive one on ASCII text (elsewhere IGNORECASE
    also matches the Kelvin sign or a long s, so the regex runs). These regexes read the
    whole issue, and the slowest are case-insensitive alternations (issue #23): where
    the text folds like ASCII (``folds_like_ascii``; ``folds`` caches it per issue), the
    regex's lowered ``twin`` searches ``lower`` instead, with the same answer."""
    if needles is not None and (ascii_text or not regex.flags & re.IGNORECASE) \
            and not any(n in lower for n in needles):
        return False
    if twin is not None:
        if folds is None:
            folds = []
        if not folds:
            folds.append(ascii_text or folds_like_ascii(text))
        if folds[0]:
            return twin.search(lower) is not None
    return regex.search(text) is not None


@dataclass(frozen=True)
class Place:
    """One place's text, lowercased and indexed by word."""

    text: str
    lower: str
    words: frozenset[str]
    norm: str  # " w1 w2 … " (the words in order)
    # Lowercasing kept every position and IGNORECASE folds nothing else onto the text
    # (``folds_like_ascii``): the lowered twins and required strings may run.
    ascii: bool = False
    # The words of ``lower`` alone (``word_tokens``), without the parts of CamelCase
    # identifiers: every one is a run of ``lower``, so a string of word characters is in
    # ``lower`` exactly when it is in one of them (the index's scan). None: ``words``.
    tokens: frozenset[str] | None = None
    # The index scans' memo of what the place's words hold (``SignalIndex.scan``): the
    # eager and the deferred scan of a place share one word memo, so the second reuses
    # the first's lookups (issue #23, planner speed). Not a field of the text's value.
    held: dict[int, tuple[object, set[str]]] = field(
        default_factory=dict, repr=False, compare=False, hash=False)

    @classmethod
    def of(cls, text: str, *, humps: bool = True, test_names: bool = False) -> Place:
        """Index ``text``; with ``humps``, parts of CamelCase identifiers count as words
        too (the prose places: code and tracebacks name their APIs whole); with
        ``test_names``, the parts of a test's name (``test_name_parts``) too."""
        lower = text.lower()
        toks = word_tokens(lower)
        if not humps:
            return cls(text=text, lower=lower, words=frozenset(toks),
                       norm=f" {' '.join(toks)} ", ascii=folds_like_ascii(text))
        tokens = frozenset(toks)
        runs: list[str] = test_name_parts(lower) if test_names else []
        for ident in _camel_identifiers(text):
            # Runs of one to four parts. The parts are ASCII (``_HUMP_RE``), so each one
            # lowercases alone as it would joined: lowered once, and each run is the one
            # before it plus a part, not a join of a slice (issue #23, planner speed).
            parts = [p.lower() for p in _HUMP_RE.findall(ident)]
            for i in range(len(parts)):
                run = ""
                for part in parts[i:i + 4]:
                    run += part
                    runs.append(run)
        return cls(text=text, lower=lower, words=tokens.union(runs) if runs else tokens,
                   norm=f" {' '.join(toks)} ", ascii=folds_like_ascii(text), tokens=tokens)


# A code span of a title ("… in `test_fsdp_state_dict`"): what the writer quotes as code.
_CODE_SPAN_RE = re.compile(r"`([^`\n]+)`")


def test_name_parts(lower: str) -> list[str]:
    """The parts of each test's name that ``lower`` (a lowercased title) quotes as code
    (``test_fsdp_state_dict`` -> fsdp, state, dict, and their runs of up to four parts
    joined by an underscore: fsdp_state, state_dict …), the ``test`` prefix left out.

    A person's title that quotes a test by its name ("add a case to
    `test_fsdp_state_dict`") names the component the test checks by the test's name, as
    a CI report's test id does (``components_in_test_id``); read whole, the identifier
    names nothing (issue #23, stop 48: such a title was left without its module). Only
    a name quoted as code, the object the report is about: a title whose subject is a
    test's failure in plain words ("test_x is flaky", "failure in test_y.py") is a CI
    report in the writer's words, and its identifiers are read whole, as before."""
    out: list[str] = []
    if "`" not in lower:
        return out
    for span in _CODE_SPAN_RE.findall(lower):
        for tok in word_tokens(span):
            if not tok.startswith("test_") or len(tok) > _MAX_IDENT:
                continue
            out.extend("_".join(run) for run in _part_runs([x for x in tok[5:].split("_")
                                                            if x]))
    return out


_NON_ASCII_RE = re.compile(r"[^\x00-\x7f]")


def folds_like_ascii(text: str) -> bool:
    """Whether a case-insensitive regex finds on ``text`` what its lowered twin finds on
    ``text.lower()``, at the same positions: ASCII text, or text whose other characters
    all have no case (emoji, CJK, arrows: an issue template's "🐛 Describe the bug").
    Such a character is its own lowercase and uppercase, so lowering keeps every
    position, and IGNORECASE folds nothing onto it (the characters it folds onto ASCII
    letters, a long s or the Kelvin sign, all have a case, and keep the regex on the
    text). Most issue bodies are one or the other (issue #23, planner speed)."""
    if text.isascii():
        return True
    return all(c.lower() == c == c.upper() for c in set(_NON_ASCII_RE.findall(text)))


def _camel_identifiers(text: str) -> set[str]:
    """Every identifier of ``text`` with a lower-to-upper hump (``ProcessGroupNCCL``),
    found from the humps outwards: most words have none, so this is the cheap way."""
    out: set[str] = set()
    end = len(text)
    done = 0  # each identifier is walked once, whatever its number of humps
    for m in _CAMEL_RE.finditer(text):
        a, b = m.start() - 1, m.end()
        if a < done:
            continue
        while a > done and text[a - 1].isalnum():
            a -= 1
        while b < end and text[b].isalnum():
            b += 1
        done = b
        if b - a <= _MAX_IDENT:
            out.add(text[a:b])
    return out


_IDENT_RE = re.compile(r"[A-Za-z0-9_]+")
_MAX_RUN = 4  # parts of a test id read together, as the CamelCase runs of ``Place.of``


def keyword_words(keyword: str) -> str:
    """A keyword as ``component_keywords`` holds it: its words, lowercased, joined by a
    space ("DeviceMesh" -> "devicemesh", "tensor parallel", "all_reduce")."""
    return " ".join(_TOKEN_RE.findall(keyword.lower()))


def components_in_test_id(title: str, keywords: frozenset[str]) -> tuple[str, ...]:
    """The component keywords (``keyword_words``) a CI report's test id names by its
    parts: each identifier of ``title`` cut at underscores and CamelCase humps
    ("test_fully_shard_grad_acc", "TestFullyShardGradAcc" -> fully, shard, grad, acc),
    and each run of one to four parts compared, joined by an underscore, by nothing or by
    a space ("fully_shard", "processgroup", "tensor parallel"). The prose reads
    identifiers whole; only a test id's parts are the words of its name (issue #23,
    outsider case oc13)."""
    found: set[str] = set()
    for ident in _IDENT_RE.findall(title):
        if len(ident) > _MAX_IDENT:
            continue
        parts = [h.lower() for piece in ident.split("_") for h in _HUMP_RE.findall(piece)]
        for run in _part_runs(parts):
            for joined in ("_".join(run), "".join(run), " ".join(run)):
                if joined in keywords:
                    found.add(joined)
    return tuple(sorted(found))


def _part_runs(parts: list[str]) -> Iterator[list[str]]:
    """Every run of one to ``_MAX_RUN`` consecutive parts of an identifier, in order: how
    a test's name is read, in a CI test id and in a title quoting it."""
    for i in range(len(parts)):
        for j in range(i + 1, min(i + _MAX_RUN, len(parts)) + 1):
            yield parts[i:j]


def _needles(items: Any) -> set[str] | None:
    """Literal strings one of which every match of a parsed regex contains (or None)."""
    cands: list[set[str]] = []
    run = ""
    for op, av in items:
        if op is _C.LITERAL:
            run += chr(av)
            continue
        if run:
            cands.append({run})
            # The parser factors a common prefix out of a branch ("torch" + vision|audio):
            # the prefix joined to each alternative's own literal start is a longer needle.
            starts = _branch_starts(op, av)
            if starts:
                cands.append({run + s for s in starts})
            run = ""
        if op is _C.SUBPATTERN:
            sub = _needles(av[-1])
            if sub:
                cands.append(sub)
        elif op is _C.BRANCH:
            subs = [_needles(b) for b in av[1]]
            if all(subs):
                cands.append(set().union(*subs))  # type: ignore[arg-type]
        elif op in (_C.MAX_REPEAT, _C.MIN_REPEAT) and av[0] >= 1:
            sub = _needles(av[2])
            if sub:
                cands.append(sub)
    if run:
        cands.append({run})
    cands = [c for c in cands if all(map(_usable, c))]
    if not cands:
        return None
    return max(cands, key=lambda c: (min(len(x) for x in c), -len(c)))


def _usable(needle: str) -> bool:
    """A needle worth testing for: _MIN_NEEDLE characters or more, or shorter but all
    non-ASCII characters without case (an issue template's 🐛 or 🚀: rare in other
    text, and IGNORECASE matches them only as they are, so the test stays exact). A
    pattern with no needle ran in every place of every issue (issue #23)."""
    return len(needle) >= _MIN_NEEDLE or (bool(needle) and all(
        not c.isascii() and c.lower() == c == c.upper() for c in needle))


def _branch_starts(op: Any, av: Any) -> list[str] | None:
    """The literal start of every alternative of a branch (or of a group holding only
    a branch), or None when one alternative has none."""
    if op is _C.SUBPATTERN and len(av[-1]) == 1:
        op, av = av[-1][0]
    if op is not _C.BRANCH:
        return None
    starts = []
    for alt in av[1]:
        lead = ""
        for aop, aav in alt:
            if aop is not _C.LITERAL:
                break
            lead += chr(aav)
        if not lead:
            return None
        starts.append(lead)
    return starts


class _NotLowerable(Exception):
    pass


def _lower_tree(items: Any) -> None:
    """Rewrite a parsed case-insensitive regex, in place, into one that matches the
    lowercase of ASCII text exactly where the original matches the text (the same
    spans: ASCII lowercasing keeps every position). Raises _NotLowerable on anything it
    cannot vouch for (a non-ASCII literal: IGNORECASE matches the Kelvin sign for "k";
    scoped flags; conditional groups; an unknown opcode)."""
    for k, (op, av) in enumerate(items):
        if op in (_C.LITERAL, _C.NOT_LITERAL):
            if av > 127:
                raise _NotLowerable
            items[k] = (op, ord(chr(av).lower()))
        elif op is _C.IN:
            members: list[Any] = []
            for iop, iav in av:
                if iop is _C.LITERAL:
                    if iav > 127:
                        raise _NotLowerable
                    members.append((iop, ord(chr(iav).lower())))
                elif iop is _C.RANGE:
                    lo, hi = iav
                    if hi > 127:
                        raise _NotLowerable
                    members += sorted({(_C.LITERAL, ord(chr(c).lower()))
                                       for c in range(lo, hi + 1)})
                elif iop in (_C.NEGATE, _C.CATEGORY):
                    members.append((iop, iav))
                else:
                    raise _NotLowerable
            items[k] = (op, members)
        elif op in (_C.ANY, _C.AT, _C.CATEGORY, _C.GROUPREF):
            continue
        elif op is _C.BRANCH:
            for alt in av[1]:
                _lower_tree(alt)
        elif op is _C.SUBPATTERN:
            if av[1] or av[2]:
                raise _NotLowerable
            _lower_tree(av[3])
        elif op in (_C.MAX_REPEAT, _C.MIN_REPEAT, _C.POSSESSIVE_REPEAT):
            _lower_tree(av[2])
        elif op is _C.ATOMIC_GROUP:
            _lower_tree(av)
        elif op in (_C.ASSERT, _C.ASSERT_NOT):
            _lower_tree(av[1])
        else:
            raise _NotLowerable


def lowered_regex(pattern: str, flags: int) -> re.Pattern[str] | None:
    """``pattern`` (case-insensitive) as a case-sensitive regex over lowercased ASCII
    text, or ``None`` when it is not case-insensitive or cannot be rewritten. Without
    IGNORECASE the regex engine skips ahead to a pattern's literal prefix and compares
    characters without folding them: the planner's signal patterns run two to four times
    faster on the place's lowercase it already has (issue #23)."""
    try:
        tree = _parser.parse(pattern, flags)
        if not tree.state.flags & re.IGNORECASE or tree.state.flags & (re.LOCALE | re.ASCII):
            return None
        _lower_tree(tree.data)
        tree.state.flags &= ~re.IGNORECASE
        return _compiler.compile(tree, flags & ~re.IGNORECASE)
    except Exception:
        return None


def pattern_needles(pattern: str, *, lower: bool = True) -> frozenset[str] | None:
    """Needles of one pattern, lowercased unless ``lower`` is false (as written: for a
    case-sensitive regex); ``None`` when it has no usable literal."""
    try:
        found = _needles(_parser.parse(pattern, 0))
    except Exception:
        return None
    if not found:
        return None
    return frozenset(n.lower() for n in found) if lower else frozenset(found)


@dataclass(frozen=True)
class Layer:
    """A module kept under a higher-level module only with evidence of its own."""

    label: str
    under: frozenset[str]
    keep_if: frozenset[str]
    # When set, a module of ``under`` counts as above only when one of these signals
    # names it (how it is named, not that it is: "… with the NCCL backend" makes NCCL
    # the condition of the failure, and the collective named before it context).
    over_signals: frozenset[str] = frozenset()
    # Signals of the layered module's own that keep it wherever they fire: an error the
    # module itself raised is its root cause, quoted in a sentence as in a trace.
    keep_signals: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Rubric:
    """A queue's compiled rubric."""

    signals: tuple[Signal, ...]
    drop_sections: tuple[re.Pattern[str], ...]
    section_end: re.Pattern[str]
    drop_lines: re.Pattern[str] | None
    tb_start: tuple[re.Pattern[str], ...]
    innermost_first: re.Pattern[str]
    error_line: re.Pattern[str]
    frame: re.Pattern[str]
    distributed_frame: re.Pattern[str]
    substrate_frame: re.Pattern[str]
    ignore_frame: re.Pattern[str]
    where_factor: Mapping[str, float]
    thresholds: Mapping[str, float]
    precedence: tuple[str, ...]
    default_route: str
    layering: tuple[Layer, ...]
    top_frame: re.Pattern[str] | None = None  # frames that can be the top of a trace
    generic_frame: re.Pattern[str] | None = None  # plumbing frames never the top
    test_report: re.Pattern[str] | None = None  # a title that is a test id (CI reports)
    # What follows a component's name when it only says where the handled object came
    # from ("an FSDP model", "a DDP-wrapped module's checkpoint"), matched at the name's end.
    context_mention: re.Pattern[str] | None = None
    comment_templates: Mapping[str, str] = field(default_factory=dict)  # kind -> template
    examples: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    # Derived from ``signals`` (``dataclasses.replace`` with other signals rebuilds them):
    # the signals of DEFERRED_ROLES that no suppression involves are matched only when a
    # step asks for their role (``deferred``); the rest at once (``eager``).
    eager: tuple[Signal, ...] = field(init=False, repr=False, compare=False)
    deferred: tuple[Signal, ...] = field(init=False, repr=False, compare=False)
    # The matching engine's index of each of those three signal sets (``index_for``),
    # and the signals that suppress others (id -> every id it suppresses: looked up by
    # the few signals that fired, not walked whole on every plan).
    indexes: Mapping[int, SignalIndex] = field(init=False, repr=False, compare=False)
    suppressing: Mapping[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)
    # Literals one of which every ``error_line`` match holds, as written (None: none,
    # or the regex ignores case): a text without any has no error line to look for.
    error_needles: frozenset[str] | None = field(init=False, repr=False, compare=False)
    # ``drop_sections``' searches by line (matcher.line_search): most bodies have none.
    section_found: tuple[Callable[[str], bool], ...] = field(init=False, repr=False,
                                                             compare=False)
    # Whether ``drop_lines`` matches a text at all, searched by line the same way: its
    # ``sub`` tries the line filter at every position of a body (it leads with ``^``),
    # and most bodies hold no line to drop (issue #23, planner speed).
    drop_lines_found: Callable[[str], bool] | None = field(init=False, repr=False,
                                                           compare=False)
    # The not_distributed signals that name no other owner (``names_owner: false``).
    ownerless: frozenset[str] = field(init=False, repr=False, compare=False)
    # The high_priority signals with ``in_distributed_code: true``.
    in_distributed_code: frozenset[str] = field(init=False, repr=False, compare=False)
    # The not_distributed signals with ``contends: true``.
    contenders: frozenset[str] = field(init=False, repr=False, compare=False)
    # The not_distributed signals with ``fails_build: true``.
    build_failures: frozenset[str] = field(init=False, repr=False, compare=False)
    # The not_distributed signals with ``leads_title: true``.
    title_leaders: frozenset[str] = field(init=False, repr=False, compare=False)
    # Another owner's frames: the patterns of the not_distributed signals that read the
    # top of a trace (step 1 looks for a distributed frame called from inside them).
    owner_frames: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)
    # The keywords of the signals that name a component (a module or sub-oncall label),
    # each as its words joined by a space: what the parts of a CI report's test id are
    # compared with (``components_in_test_id``).
    component_keywords: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        named = {x for sig in self.signals for x in sig.suppresses}
        later = tuple(sig for sig in self.signals if sig.role in DEFERRED_ROLES and not sig.label
                      and not sig.suppresses and sig.id not in named)
        object.__setattr__(self, "deferred", later)
        object.__setattr__(self, "eager", tuple(s for s in self.signals if s not in later))
        # One memo of what each word holds for the three (``SignalIndex``): the whole
        # rubric's index looks for every string the other two do.
        whole = SignalIndex(self.signals)
        object.__setattr__(self, "indexes", {
            id(self.signals): whole,
            **{id(group): SignalIndex(group, memo=whole.in_word)
               for group in (self.eager, self.deferred)}})
        suppressing: dict[str, tuple[str, ...]] = {}
        for sig in self.signals:
            if sig.suppresses:
                suppressing[sig.id] = suppressing.get(sig.id, ()) + sig.suppresses
        object.__setattr__(self, "suppressing", suppressing)
        object.__setattr__(self, "section_found", tuple(line_search(p)
                                                        for p in self.drop_sections))
        object.__setattr__(self, "drop_lines_found", None if self.drop_lines is None
                           else line_search(self.drop_lines))
        object.__setattr__(self, "error_needles", None if self.error_line.flags & re.I
                           else pattern_needles(self.error_line.pattern, lower=False))
        object.__setattr__(self, "owner_frames", tuple(
            regex for sig in self.signals
            if sig.role == "not_distributed" and "top_frame" in sig.where
            for _, regex in sig.patterns))
        object.__setattr__(self, "ownerless", frozenset(
            sig.id for sig in self.signals
            if sig.role == "not_distributed" and not sig.names_owner))
        object.__setattr__(self, "in_distributed_code", frozenset(
            sig.id for sig in self.signals if sig.in_distributed_code))
        object.__setattr__(self, "contenders", frozenset(
            sig.id for sig in self.signals if sig.role == "not_distributed" and sig.contends))
        object.__setattr__(self, "build_failures", frozenset(
            sig.id for sig in self.signals
            if sig.role == "not_distributed" and sig.fails_build))
        object.__setattr__(self, "title_leaders", frozenset(
            sig.id for sig in self.signals
            if sig.role == "not_distributed" and sig.leads_title))
        object.__setattr__(self, "component_keywords", frozenset(
            kw for sig in self.signals if sig.label and sig.evidence
            for kw in (*sig.single, *(seq.strip() for _, seq in sig.multi))))

    def index_for(self, signals: Sequence[Signal] | None = None) -> SignalIndex:
        """The engine's index of ``signals`` (all of them when None): built with the
        rubric for its own sets, on the spot for any other."""
        group = self.signals if signals is None else signals
        index = self.indexes.get(id(group))
        if index is not None and index.signals is group:
            return index
        return SignalIndex(group)

    def signal(self, signal_id: str) -> Signal:
        for s in self.signals:
            if s.id == signal_id:
                return s
        raise KeyError(signal_id)


def _line_filter(patterns: Sequence[str]) -> re.Pattern[str] | None:
    """One regex removing every whole line that matches any of ``patterns``."""
    if not patterns:
        return None
    body = "|".join(f"(?:{p})" for p in patterns)
    return re.compile(f"^(?:{body})[^\n]*+\n?", re.M)


def keyword_regex(keyword: str) -> str:
    """A keyword as a whole-word regex (word edges only where the keyword has them)."""
    body = re.escape(keyword).replace(r"\ ", r"[\s_-]+")
    head = r"(?<![A-Za-z0-9_])" if keyword[:1].isalnum() or keyword[:1] == "_" else ""
    tail = r"(?![A-Za-z0-9_])" if keyword[-1:].isalnum() or keyword[-1:] == "_" else ""
    return head + body + tail


def _gate_twins(patterns: Sequence[str]) -> tuple[re.Pattern[str] | None, ...]:
    """The lowered twin of each requires/unless pattern (compiled with ``re.M``), or ()
    when none has one."""
    twins = tuple(lowered_regex(p, re.M) for p in patterns)
    return twins if any(t is not None for t in twins) else ()


def compile_signal(raw: Mapping[str, Any]) -> Signal:
    """Compile one validated rubric signal (raises ``re.error`` on a bad pattern)."""
    keywords = list(raw.get("keywords") or ())
    flags = re.M if raw.get("case_sensitive") else re.M | re.I
    single: set[str] = set()
    multi: list[tuple[str, str]] = []
    patterns: list[tuple[frozenset[str] | None, re.Pattern[str]]] = []
    for kw in keywords:
        toks = _TOKEN_RE.findall(kw.lower())
        if raw.get("case_sensitive") or not toks:
            # Words alone cannot say it (case matters, or no word characters at all).
            patterns.append((pattern_needles(re.escape(kw)), re.compile(keyword_regex(kw), flags)))
        elif len(toks) == 1:
            single.add(toks[0])
        else:
            multi.append((toks[0], f" {' '.join(toks)} "))
    for p in raw.get("patterns") or ():
        patterns.append((pattern_needles(p), re.compile(p, flags)))
    lowered = [lowered_regex(rx.pattern, rx.flags & ~re.UNICODE) for _, rx in patterns]
    return Signal(
        id=str(raw["id"]), label=raw.get("label"), role=raw.get("role"),
        where=tuple(raw["where"]), weight=float(raw["weight"]), single=frozenset(single),
        multi=tuple(multi), patterns=tuple(patterns),
        lowered=tuple(lowered) if any(x is not None for x in lowered) else (),
        requires=tuple(re.compile(p, re.M) for p in raw.get("requires") or ()),
        unless=tuple(re.compile(p, re.M) for p in raw.get("unless") or ()),
        requires_needles=tuple(pattern_needles(p) for p in raw.get("requires") or ()),
        unless_needles=tuple(pattern_needles(p) for p in raw.get("unless") or ()),
        requires_lowered=_gate_twins(raw.get("requires") or ()),
        unless_lowered=_gate_twins(raw.get("unless") or ()),
        suppresses=tuple(raw.get("suppresses") or ()),
        evidence=bool(raw.get("evidence", True)), subject=bool(raw.get("subject", False)),
        names_owner=bool(raw.get("names_owner", True)),
        contends=bool(raw.get("contends", False)),
        fails_build=bool(raw.get("fails_build", False)),
        leads_title=bool(raw.get("leads_title", False)),
        in_distributed_code=bool(raw.get("in_distributed_code", False)),
        keywords=tuple(keywords),
        multi_first=frozenset(first for first, _ in multi),
        starts=frozenset(single) | frozenset(first for first, _ in multi),
        needles=(None if any(n is None for n, _ in patterns)
                 else tuple(sorted({x for n, _ in patterns for x in n or ()}))),
    )


def compile_rubric(raw: Mapping[str, Any]) -> Rubric:
    """Compile a validated rubric document."""
    tb = raw["traceback"]
    sc = raw["scoring"]
    return Rubric(
        signals=tuple(compile_signal(s) for s in raw["signals"]),
        drop_sections=tuple(re.compile(p, re.I | re.M) for p in raw["text"]["drop_sections"]),
        section_end=re.compile(raw["text"]["section_end"], re.M),
        drop_lines=_line_filter(raw["text"].get("drop_lines") or ()),
        tb_start=tuple(re.compile(p) for p in tb["start"]),
        innermost_first=re.compile(tb["innermost_first"]),
        error_line=re.compile(tb["error_line"]),
        frame=re.compile(tb["frame"]),
        distributed_frame=re.compile(tb["distributed_frame"]),
        substrate_frame=re.compile(tb["substrate_frame"]),
        ignore_frame=re.compile(tb["ignore_frame"]),
        top_frame=re.compile(tb["top_frame"]) if tb.get("top_frame") else None,
        generic_frame=re.compile(tb["generic_frame"]) if tb.get("generic_frame") else None,
        test_report=(re.compile(raw["text"]["test_report"]) if raw["text"].get("test_report")
                     else None),
        context_mention=(re.compile(raw["text"]["context_mention"])
                         if raw["text"].get("context_mention") else None),
        where_factor={**{p: 1.0 for p in (*PLACES, "labels")}, **sc["where_factor"]},
        thresholds={k: float(v) for k, v in sc.items() if k != "where_factor"},
        precedence=tuple(raw["routing"]["precedence"]),
        default_route=str(raw["routing"]["default"]),
        layering=tuple(Layer(label=x["label"], under=frozenset(x["under"]),
                             keep_if=frozenset(x["keep_if"]),
                             over_signals=frozenset(x.get("over_signals") or ()),
                             keep_signals=frozenset(x.get("keep_signals") or ()))
                       for x in raw.get("layering") or ()),
        comment_templates=dict(raw["comments"]),
        examples={s["id"]: {k: tuple(v) for k, v in s["examples"].items()}
                  for s in raw["signals"]},
    )


# ------------------------------------------------------------------ splitting the text

@dataclass(frozen=True)
class IssueText:
    """An issue's text by place, plus its root-cause frame (T-13)."""

    places: Mapping[str, str]
    full: str  # everything a person wrote, for requires/unless
    frame: str = ""  # path of the root-cause distributed frame ("" if none)
    tracebacks: tuple[str, ...] = ()
    top_frame: str = ""  # innermost library frame of the last traceback ("" if none)
    # The title is a test id (a CI report: "DISABLED test_x (__main__.TestY)"): the
    # component words in it name the test, not what a person reports (issue #23).
    test_report: bool = False
    # The frame paths of each of ``tracebacks``, outermost first (``_region_paths``):
    # step 1 walks them again, and parsing the frames once is the cheap way (issue #23,
    # planner speed). Empty when the text was built without them: they are then parsed.
    region_paths: tuple[tuple[str, ...], ...] = ()


@dataclass
class _Parts:
    prose: list[str] = field(default_factory=list)
    code: list[str] = field(default_factory=list)
    tracebacks: list[str] = field(default_factory=list)  # one entry per region


def _drop_sections(text: str, rubric: Rubric) -> str:
    """Cut environment dumps: from a matching line to the next heading, and single
    lines of one (a pasted ``collect_env`` report without its heading)."""
    if rubric.drop_lines_found is not None and rubric.drop_lines_found(text):
        text = rubric.drop_lines.sub("", text)  # type: ignore[union-attr]
    if not any(found(text) for found in rubric.section_found):
        return text
    out: list[str] = []
    dropping = False
    for line in text.split("\n"):
        if any(p.match(line) for p in rubric.drop_sections):
            dropping = True
            continue
        if dropping and rubric.section_end.match(line):
            dropping = False
        if not dropping:
            out.append(line)
    return "\n".join(out)


def _split_lines(text: str, rubric: Rubric, parts: _Parts, *, in_code: bool) -> None:
    """Route each line to prose/code or to a traceback region."""
    # One scan of the whole text saves a per-line test in the common no-trace case.
    has_start = any(p.search(text) for p in rubric.tb_start)
    has_error = rubric.error_needles is None or any(n in text for n in rubric.error_needles)
    if not (has_start or has_error):
        # No line starts a traceback or is an error line: every line is kept, and the
        # lines joined again are the text (most pieces of most issues, issue #23).
        (parts.code if in_code else parts.prose).append(text)
        return
    lines = text.split("\n")
    keep: list[str] = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if has_start and any(p.search(line) for p in rubric.tb_start):
            j = i + 1
            # A region runs to the first blank line (tracebacks are pasted unbroken).
            while j < n and lines[j].strip():
                j += 1
            parts.tracebacks.append("\n".join(lines[i:j]))
            i = j
            continue
        if has_error and rubric.error_line.match(line):
            parts.tracebacks.append(line)
        else:
            keep.append(line)
        i += 1
    (parts.code if in_code else parts.prose).append("\n".join(keep))


class Fence(NamedTuple):
    """One code fence: where it starts and ends in the text, and what it holds."""

    start: int
    end: int  # the end of its closing line (before the newline), or of the text
    content: str  # the lines between the fence lines, each with its newline


def fences(text: str) -> Iterator[Fence]:
    """The code fences of ``text``, in order (see ``_FENCE_OPEN``). An opening is tried
    only at the start of a line whose first other character than a blank is a backtick
    or a tilde, and its closing line found by a search from newline to newline: a regex
    spanning the whole fence tries every position of the text and of the fence's content
    (issue #23, planner speed). Each line is looked at once or twice at most, so a line
    of thousands of backticks costs one try."""
    pos = 0
    end = len(text)
    # The next run of each kind at or after ``pos`` (-1: none left), found again only
    # once passed: a text with runs of one kind only is scanned once for the other.
    tick = tilde = -2
    while pos < end:
        if -1 < tick < pos or tick == -2:
            tick = text.find("```", pos)
        if -1 < tilde < pos or tilde == -2:
            tilde = text.find("~~~", pos)
        at = tick if tilde < 0 or 0 <= tick < tilde else tilde
        if at < 0:
            return
        # The line's start is at or after ``pos``: ``pos`` is a line's start, or the end
        # of a closing fence, just before its newline. The regex vouches for the rest (a
        # fence line is blanks and then the first run on it).
        line_start = text.rfind("\n", 0, at) + 1
        m = _FENCE_OPEN.match(text, line_start)
        if m is not None:
            fence = _closed(text, line_start, m.end(), m.group(1))
            yield fence
            pos = fence.end
            continue
        line_end = text.find("\n", at)
        if line_end < 0:
            return
        pos = line_end + 1


def _closed(text: str, start: int, content: int, run: str) -> Fence:
    """The fence opened at ``start`` by ``run``, its content starting at ``content``
    (just past the opening line's newline): to the first later line of blanks and the
    same run and blanks (a longer run or the other kind does not close it), or to the
    end of the text."""
    close = _FENCE_CLOSE.search(text, content - 1)
    while close is not None and close.group(1) != run:
        close = _FENCE_CLOSE.search(text, close.end())
    if close is None:
        return Fence(start, len(text), text[content:])
    return Fence(start, close.end(), text[content:close.start() + 1])


def _split_markdown(text: str, rubric: Rubric) -> _Parts:
    parts = _Parts()
    text = _drop_sections(text.replace("\r\n", "\n"), rubric)
    last = 0
    for fence in fences(text):
        _split_lines(text[last:fence.start], rubric, parts, in_code=False)
        _split_lines(fence.content, rubric, parts, in_code=True)
        last = fence.end
    _split_lines(text[last:], rubric, parts, in_code=False)
    return parts


def region_paths(text: IssueText, rubric: Rubric) -> Sequence[Sequence[str]]:
    """The frame paths of each traceback region of ``text``, outermost first: those
    ``split_issue`` found, or parsed now for a text built without them."""
    if len(text.region_paths) == len(text.tracebacks):
        return text.region_paths
    return _region_paths(text.tracebacks, rubric)


def _region_paths(regions: Sequence[str], rubric: Rubric) -> list[list[str]]:
    """The frame paths of each traceback region, outermost first."""
    out = []
    for region in regions:
        paths = [m.group("path") or m.group("cpath") for m in rubric.frame.finditer(region)]
        if rubric.innermost_first.search(region):
            paths.reverse()
        out.append(paths)
    return out


def root_cause_frame(regions: Sequence[str], rubric: Rubric,
                     region_paths: Sequence[list[str]] | None = None) -> str:
    """The innermost distributed frame that is not mere substrate (T-13).

    Launcher wrappers are ignored. Per traceback region the innermost non-substrate
    distributed frame wins, else the innermost substrate one; across regions, the last
    region with a non-substrate frame wins."""
    best_sub = ""
    best = ""
    for paths in region_paths or _region_paths(regions, rubric):
        dist = [p for p in paths if rubric.distributed_frame.search(p)
                and not rubric.ignore_frame.search(p)]
        if not dist:
            continue
        upper = [p for p in dist if not rubric.substrate_frame.search(p)]
        if upper:
            best = upper[-1]
        else:
            best_sub = dist[-1]
    return best or best_sub


def top_frame(regions: Sequence[str], rubric: Rubric,
              region_paths: Sequence[list[str]] | None = None) -> str:
    """The innermost library frame of the last traceback that has one: what the failure
    is about (a distributed, compiler or data-loading frame at the top, issue #23).
    Plumbing (``generic_frame``: nn.Module dispatch, autograd's engine entry, context
    managers) and launcher wrappers are never the top."""
    if rubric.top_frame is None:
        return ""
    for paths in reversed(region_paths or _region_paths(regions, rubric)):
        for path in reversed(paths):
            if not rubric.top_frame.search(path) or rubric.ignore_frame.search(path):
                continue
            if rubric.generic_frame is not None and rubric.generic_frame.search(path):
                continue
            return path
    return ""


def bounded(title: str, body: str, comments: Iterable[str]) -> tuple[str, str, list[str]]:
    """The part of an issue the planner reads (MAX_*_CHARS)."""
    kept: list[str] = []
    budget = MAX_COMMENTS_CHARS
    for text in comments:
        if budget <= 0:
            break
        piece = (text or "")[:min(MAX_COMMENT_CHARS, budget)]
        budget -= len(piece)
        kept.append(piece)
    return (title or "")[:MAX_TITLE_CHARS], (body or "")[:MAX_BODY_CHARS], kept


# What a report rules out is not evidence of it, and is evidence against it (issue #23):
# "no DDP/FSDP", "without any process group", "not using torchrun", "we don't use
# FSDP", "non-distributed", "`--distributed` (not used here)", "DDP is not involved".
# Only in prose, and only the words the negation governs (a short list joined by "/",
# ",", "or", "nor"); a plain "not" keeps its meaning ("gradients are not synchronized" is
# the bug itself). Scope is the clause: a negation in a clause that says something
# works ("works fine without FSDP") contrasts with the failing case, so the words stay
# as evidence for the component and are not counted against it.
_W = r"[`'\"]?+-{0,2}[A-Za-z][\w.]*+(?:-[\w.]++)*+[`'\"]?+"
_ART = r"(?:(?:a|an|any|the|my|our)[ \t]++)?"
# An item of the list may be a two-word term ("process group", "tensor parallel",
# "multiple GPUs"; issue #23: "no process group or collectives are used" ruled out
# "process" alone and left "collectives" as evidence for) when the list, the clause or
# a postfix negation's verb follows it: a word after the term is never eaten ("without
# FSDP training hangs" rules out FSDP only), nor is a clause after a comma ("without
# FSDP, training hangs").
_ITEM = (rf"{_W}(?:[ \t]++{_W}(?=[ \t]*+(?:[/,.;:!?)\n]|(?:or|nor|is|are|was|were|isn't"
         r"|aren't|wasn't|weren't)\b|$)))?+")
_LIST = (rf"{_ITEM}(?:[ \t]*+/[ \t]*+{_ITEM}|(?:[ \t]*+,)?[ \t]++(?:or|nor)[ \t]++{_ART}"
         rf"(?!(?:no|not|nor|without|non)\b){_ITEM}|[ \t]*+,[ \t]*+(?!(?:no|not|but)\b)"
         rf"{_W}){{0,4}}")
_USE = (r"(?:using|use|uses|used|running|run|involving|involve|involves|need|needs|needed"
        r"|requiring|launching|launch)")
_NEGATED_SRC = (
    r"(?:(?<![a-z0-9_])(?:(?:no|without|non|w/o)(?:[ \t-]+(?:a|an|any|the))?"
    rf"|(?:not|never)[ \t]+{_USE}(?:[ \t]+(?:a|an|any|the))?"
    r"|nothing[ \t]+to[ \t]+do[ \t]+with|unrelated[ \t]+to)"
    rf"|n't[ \t]+{_USE}(?:[ \t]+(?:a|an|any|the))?)"
    rf"[ \t-]+({_LIST})")
# Where the prefix form can start: every match begins with one of these (found with
# str.find, then the regex is tried there only: the planner's hottest text pass).
_NEGATION_CUES = ("no", "without", "w/o", "never", "n't", "unrelated")
# The postfix form: "DDP is not used", "FSDP isn't involved", "--distributed (not used)".
# A list starts only where a word does, never after a dot inside one: a start at each
# part of "a.b.c…" re-read the rest of the word, quadratic on a dotted run (32 KB: 20 s);
# the word's own start reads the whole dotted name anyway.
_NEGATED_AFTER_SRC = (
    rf"(?<![\w.-])((?:--?)?{_LIST})[ \t]*+(?:(?:is|are|was|were)(?:n't|[ \t]+not)[ \t]+"
    r"(?:used|involved|enabled|needed|required|in[ \t]+use)\b"
    r"|\((?:not[ \t]+used|unused|not[ \t]+enabled)[^)\n]{0,30}\))")
# Sanity: matched on the lowercased text without IGNORECASE, which lets the regex engine
# skip to the possible first letters (three times faster on the planner's hottest
# text pass); the IGNORECASE twins serve a text whose lowercase changes its length.
_NEGATED_RE = re.compile(_NEGATED_SRC)
_NEGATED_AFTER_RE = re.compile(_NEGATED_AFTER_SRC)
_NEGATED_RE_I = re.compile(_NEGATED_SRC, re.IGNORECASE)
_NEGATED_AFTER_RE_I = re.compile(_NEGATED_AFTER_SRC, re.IGNORECASE)
# The postfix form starts with a word list, so its regex would be tried at every word of
# every issue; it runs only where one of its cues is present (most issues have none).
_AFTER_CUE_RE = re.compile(r"(?:n't|\bnot)[ \t]+(?:used|involved|enabled|needed|required|in[ \t]"
                           r"+use)\b|\((?:not[ \t]+used|unused|not[ \t]+enabled)")
_CLAUSE_END = re.compile(r"[.;!?\n]|\bbut\b", re.IGNORECASE)
_WORKS_RE = re.compile(r"\b(?:works?|worked|working|runs? fine|fine|succeeds?|succeeded|passes|"
                       r"passed|no (?:error|issue|problem)s?)\b", re.IGNORECASE)


def _cue_matches(regex: re.Pattern[str], lower: str) -> list[re.Match[str]]:
    """``regex.finditer(lower)`` for the prefix form, tried only where a cue starts."""
    starts: set[int] = set()
    for cue in _NEGATION_CUES:
        i = lower.find(cue)
        while i >= 0:
            # Every cue but "n't" starts a word ("know", "node" and "another" hold "no").
            if cue == "n't" or i == 0 or not (lower[i - 1].isalnum() or lower[i - 1] == "_"):
                starts.add(i)
            i = lower.find(cue, i + 1)
    out: list[re.Match[str]] = []
    end = 0
    for i in sorted(starts):
        if i < end:
            continue
        m = regex.match(lower, i)
        if m is not None:
            out.append(m)
            end = m.end()
    return out


_AFTER_NEGS = ("not ", "n't ")
_AFTER_WORDS = ("used", "involved", "enabled", "needed", "required", "in")
_AFTER_CUES = tuple(f"{neg}{word}" for neg in _AFTER_NEGS for word in _AFTER_WORDS)
_AFTER_CUES += ("(unused", "(not")
# Sanity: occurrences of "not "/"n't " looked at one by one before ``_any_after_cue``
# hands over to one substring test per cue (a text of "not not not ..." stays linear).
MAX_NEG_TRIED = 16


def _any_after_cue(lower: str) -> bool:
    """``any(cue in lower for cue in _AFTER_CUES)``, from the few places where "not " or
    "n't " occurs instead of fourteen passes over the whole text: the prose places of
    every plan go through here, and a long body made it most of ``split_negated``'s
    time (issue #23, planner speed)."""
    tried = 0
    for neg in _AFTER_NEGS:
        i = lower.find(neg)
        while i >= 0:
            if lower.startswith(_AFTER_WORDS, i + len(neg)):
                return True
            tried += 1
            if tried >= MAX_NEG_TRIED:
                return any(cue in lower for cue in _AFTER_CUES)
            i = lower.find(neg, i + 1)
    return "(unused" in lower or "(not" in lower


def _has_after_cue(lower: str) -> bool:
    """Whether the postfix negation can match at all (substring tests first: cheap)."""
    if "not" not in lower and "n't" not in lower and "unused" not in lower:
        return False
    return _any_after_cue(lower) and _AFTER_CUE_RE.search(lower) is not None


def _clause(text: str, start: int, end: int) -> str:
    """The clause around ``text[start:end]`` (sentence punctuation, a line or "but")."""
    left = max((m.end() for m in _CLAUSE_END.finditer(text, max(0, start - 200), start)),
               default=max(0, start - 200))
    right = _CLAUSE_END.search(text, end, end + 200)
    return text[left:right.start() if right else min(len(text), end + 200)]


def split_negated(text: str) -> tuple[str, list[str]]:
    """``text`` with what it rules out blanked (same length), and the ruled-out words.
    A negation in a clause that says something works keeps its words (see above)."""
    ruled_out: list[str] = []
    if not text:
        return text, ruled_out
    lower = text.lower()
    same = len(lower) == len(text)
    passes = ((_NEGATED_RE, _NEGATED_AFTER_RE) if same
              else (_NEGATED_RE_I, _NEGATED_AFTER_RE_I))
    subject = lower if same else text
    for k, regex in enumerate(passes):
        if k == 1 and not _has_after_cue(lower if same else text.lower()):
            break
        pieces: list[str] = []
        last = 0
        found = _cue_matches(regex, subject) if k == 0 and same else regex.finditer(subject)
        for m in found:
            a, b = m.span(1)
            if _WORKS_RE.search(_clause(text, m.start(), m.end())):
                continue
            ruled_out.append(text[a:b])
            pieces += [text[last:a], " " * (b - a)]
            last = b
        if pieces:
            # The postfix pass sees the prefix pass's blanks (no word counted twice).
            text = "".join(pieces) + text[last:]
            lower = text.lower() if same else text
            subject = lower if same else text
    return text, ruled_out


def split_issue(title: str, body: str, comments: Iterable[str], rubric: Rubric) -> IssueText:
    """Split an issue (comments already filtered to people's) into places; reads only
    the bounded part of each text (``bounded``)."""
    title, body, comment_texts = bounded(title, body, comments)
    main = _split_markdown(body, rubric)
    com = _Parts()
    for text in comment_texts:
        p = _split_markdown(text, rubric)
        com.prose += p.prose
        com.code += p.code
        com.tracebacks += p.tracebacks
    regions = (*main.tracebacks, *com.tracebacks)
    paths = _region_paths(regions, rubric)
    frame = root_cause_frame(regions, rubric, paths)
    top = top_frame(regions, rubric, paths)
    ruled_out: list[str] = []
    prose = {}
    for place, raw in (("title", title or ""),
                       ("body", "\n".join(x.strip("\n") for x in main.prose if x.strip())),
                       ("comment", "\n".join(x.strip("\n") for x in com.prose if x.strip()))):
        prose[place], gone = split_negated(raw)
        ruled_out += gone
    places = {
        "title": prose["title"],
        "body": prose["body"],
        "code": "\n".join(x.strip("\n") for x in (*main.code, *com.code) if x.strip()),
        "traceback": "\n".join(regions),
        "frame": frame,
        "top_frame": top,
        "negated": "\n".join(ruled_out),
        "comment": prose["comment"],
    }
    # requires/unless read the cleaned text: an environment dump is not evidence, and
    # neither is what the report rules out.
    full = "\n".join(v for k, v in places.items()
                     if k not in ("frame", "top_frame", "negated"))
    test_report = bool(rubric.test_report is not None and title
                       and rubric.test_report.search(title))
    return IssueText(places=places, full=full, frame=frame, tracebacks=regions,
                     top_frame=top, test_report=test_report,
                     region_paths=tuple(tuple(p) for p in paths))




# ------------------------------------------------------------------ matching

@dataclass(frozen=True)
class Hit:
    """A signal that fired: its best place, score, and every place it fired in."""

    signal: str
    label: str | None
    role: str | None
    where: str
    weight: float
    score: float
    places: frozenset[str]
    evidence: bool = True
    subject: bool = False
    # The text the excerpt is cut from and what matched in it: the excerpt is made only
    # when a plan cites the hit (most hits are never cited; the planner's speed).
    source: str = field(default="", repr=False, compare=False)
    found: str = field(default="", repr=False, compare=False)
    # ``source.lower()``, which the place already has (None: lowered when cited).
    source_lower: str | None = field(default=None, repr=False, compare=False)
    # Where in the lowercased title the signal's earliest match starts (``first_at``),
    # when it fired in the title (None: it did not, or the hit was made by hand).
    title_at: int | None = field(default=None, repr=False, compare=False)

    @cached_property
    def excerpt(self) -> str:
        """Up to 80 characters of the place around what matched. Kept once made: a plan
        cites a hit twice on average (its label, then step 1's evidence), and each cut
        searches the whole place (issue #23, planner speed). The hit is immutable, and
        the cache is outside its fields (not compared, hashed or shown)."""
        return _excerpt(self.source, self.found, self.source_lower)

    @classmethod
    def made(cls, *, signal: str, label: str | None, role: str | None, where: str,
             weight: float, score: float, places: frozenset[str], evidence: bool,
             subject: bool, source: str, found: str, source_lower: str | None,
             title_at: int | None = None) -> Hit:
        """``Hit(...)`` with every field given, without the frozen dataclass's
        ``__init__`` and its ``object.__setattr__`` per field (three times the cost):
        ``match_signals`` makes one per signal that fires, on every plan (issue #23,
        planner speed). The same object: equal, hashed and shown alike."""
        hit = object.__new__(cls)
        hit.__dict__.update(signal=signal, label=label, role=role, where=where,
                            weight=weight, score=score, places=places, evidence=evidence,
                            subject=subject, source=source, found=found,
                            source_lower=source_lower, title_at=title_at)
        return hit


def _excerpt(text: str, found: str, lower: str | None = None) -> str:
    if lower is None:
        lower = text.lower()
    at = lower.find(found.lower())
    if at < 0:
        at = lower.find(found.lower().split(" ")[0])
    at = max(at, 0)
    start = max(0, at - 20)
    snippet = text[start:at + len(found) + 20].replace("\n", " ").strip()
    return snippet[:_EXCERPT]


def index_places(text: IssueText) -> dict[str, Place]:
    """Each non-empty place of an issue, indexed for matching."""
    # A person's title reads a test's name by its parts; a CI report's title that is a
    # test id keeps its own reading (step 1, ``components_in_test_id``).
    return {k: Place.of(v, humps=k in _HUMP_PLACES,
                        test_names=k == "title" and not text.test_report)
            for k, v in text.places.items() if v}


def match_signals(text: IssueText, rubric: Rubric, *,
                  signals: Sequence[Signal] | None = None,
                  places: Mapping[str, Place] | None = None) -> list[Hit]:
    """Every rubric signal that fires on the issue, after suppression; with ``signals``,
    those only (a subset no suppression crosses, e.g. ``rubric.eager``), and with
    ``places``, the issue's places already indexed (``index_places``)."""
    if places is None:
        places = index_places(text)
    index = rubric.index_for(signals)
    hits: list[Hit] = []
    factor = rubric.where_factor
    full_lower: str | None = None
    # One pass per place finds the signals that may fire there (matcher.py); each then
    # runs in its rubric order and its places in its ``where`` order, as a loop over
    # every signal would, so the best place and the hits' order are the same.
    cands: dict[str, set[int]] = {}
    strings: dict[str, frozenset[str] | None] = {}
    for name, place in places.items():
        found_here, strings[name] = index.scan(name, place)
        if found_here:
            cands[name] = found_here
    for k in sorted(set().union(*cands.values())):
        sig = index.signals[k]
        best: tuple[float, str, str] | None = None
        fired_in: set[str] = set()
        for name in sig.where:
            here = cands.get(name)
            if here is None or k not in here:
                continue
            found = sig.fire(places[name], strings[name])
            if found is None:
                continue
            fired_in.add(name)
            score = sig.weight * factor[name]
            if best is None or score > best[0]:
                best = (score, name, found)
        if best is None:
            continue
        if sig.requires or sig.unless:
            if full_lower is None:
                full_lower = text.full.lower()
            if not sig.gate(text.full, full_lower):
                continue
        score, name, found = best
        title_at = sig.first_at(places["title"]) if "title" in fired_in else None
        hits.append(Hit.made(signal=sig.id, label=sig.label, role=sig.role, where=name,
                             weight=sig.weight, score=score, places=frozenset(fired_in),
                             evidence=sig.evidence, subject=sig.subject,
                             source=places[name].text, found=found,
                             source_lower=places[name].lower, title_at=title_at))
    fired = {h.signal for h in hits}
    suppressing = rubric.suppressing
    suppressed = {s for sid in fired if sid in suppressing for s in suppressing[sid]}
    return [h for h in hits if h.signal not in suppressed] if suppressed else hits
