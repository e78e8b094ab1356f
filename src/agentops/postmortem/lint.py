"""Lint a post-mortem draft (P-5): required sections, hedging, blame, advocacy outside
action items, code identifiers lost, verification claiming more than the facts.

Pure: text (+ facts) and the rules data in, findings out. The rules and their
examples live in ``lint_rules.yaml``, the headings each section goes by in
``sections.yaml``; this module only knows how to read Markdown into sentences and
apply them. Lexicon rules decide per sentence, never per physical line: wrapped lines
are joined (a finding names the line where its phrase starts), and headings, code
blocks, inline code, block quotes (also behind a thread's role label or a speaker's
"wrote:"), link targets and HTML are never prose; emphasis markers are taken off, so an
emphasised word reads as the word.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from agentops.postmortem import blamecues, verbgroups
from agentops.postmortem import clauses as clause_mod
from agentops.postmortem import mood as mood_mod
from agentops.postmortem import speechacts as speech_mod
from agentops.postmortem.clauses import Condition, Grammar
from agentops.postmortem.model import REQUIRED, TITLES
from agentops.postmortem.mood import MoodGrammar

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)\s*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_QUOTE = re.compile(r"^ {0,3}>")
# A quote behind a thread's role label or a speaker's attribution is a block quote too:
# "Reply: > ...", "**Author:** > ...", "**bob** wrote: > ...", "Reply: @bob commented:
# > ...". Role labels are the transcription's comment openers (and the usual thread
# roles); an attribution is up to 120 characters ending in a saying verb and a colon, so
# "Result: > 100 jobs" or "x > y" stay prose.
_THREAD_ROLES = (r"Reply|Author|Maintainer|Reporter|Reviewer|Commenter|Contributor|"
                 r"Collaborator|Member|Owner")
_PREFIXED_QUOTE = re.compile(
    rf"^\s*(?:(?:\*\*|__)?(?:{_THREAD_ROLES}|OP)(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*"
    r"(?:[^>\n]{1,120}?\b(?:wrote|writes|said|says|commented|replied)\s*:\s*)?"
    r"|[^>\n]{0,120}?\b(?:wrote|writes|said|says|commented|replied)\s*:\s*)>")
# A thread comment's role label opening a sentence: the thread's comments have begun.
_ROLE_LABEL = re.compile(rf"^\s*(?:\*\*|__)?(?:{_THREAD_ROLES})(?:\*\*|__)?\s*:")
_LIST = re.compile(r"^(\s*)(?:[-*+]|\d{1,9}[.)])(?:\s+|$)")
_RULE_LINE = re.compile(r"^ {0,3}([-*_])(?:\s*\1){2,}\s*$")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
# A line that is only bold (or only italic) text is a heading in many write-ups; a
# single marker inside is nested emphasis ("**_Alice_ broke it**"), a pair closes it.
_BOLD_LINE = re.compile(r"^\s*(\*\*|__)((?:(?!\*\*|__)[^\n]){1,80}?)\1\s*:?\s*$")
# A run-in heading: "**Root cause.** The fast path ..." / "**Impact:** ...".
_RUN_IN = re.compile(r"^(\s*(\*\*|__)([^*_\n]{1,60}?)([.:])?\2([.:])?)(?=\s|$)")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_LINK_TARGET = re.compile(r"(?<=\])\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"]*\")?\)")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_AUTOLINK = re.compile(r"<(?:https?|mailto):[^>\s]*>|\bhttps?://\S+")
_HTML = re.compile(r"<!--.*?-->|</?[A-Za-z][^<>]*>", re.DOTALL)
# Sentence ends: . ! ? (plus closing quotes/brackets) before whitespace and a capital,
# digit, quote or Markdown mark; "e.g." and "i.e." are not ends.
_SENTENCE_END = re.compile(
    r"(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)(?<!\betc)[.!?][\"')\]*_]*\s+(?=[A-Z0-9\"'(\[`*_@])")
# A paragraph that opens with a date or a clock time is a timeline entry wherever it
# stands ("2023-12-07 10:40 - the team believes ..."): it records what was believed then.
_TIMESTAMP = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*)?(?:\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}(?:/\d{2,4})?|"
    r"(?:[01]?\d|2[0-3]):[0-5]\d|\?\?:\?\?)\b")
# A label that introduces a block rather than saying something: a list item or a
# plain line of a few words, no sentence in it, optionally closed by a colon
# ("7. Preventative Measures", "- Follow-ups:", "Next steps:").
_LABEL = re.compile(r"^\s*(?:\*\*|__)?([A-Za-z][\w /&'’()-]{1,60}?)(?:\*\*|__)?\s*(:)?\s*"
                    r"(?:\*\*|__)?\s*$")
# A label closing a line of prose and opening the list under it ("We would like to
# prevent that. Proposal:").
_TRAILING_LABEL = re.compile(
    r"(?:^|[.!?]\s+)(?:\*\*|__)?([A-Za-z][\w /&'’()-]{1,40}?)(?:\*\*|__)?:\s*(?:\*\*|__)?\s*$")
_QUOTED = re.compile(r'["“]([^"”\n]{1,200})["”]')
# Emphasis (Markdown): a run of one to three "_" or "*" that opens after no word character
# and closes, on the same line and within 300 characters, before none. "_" is a word
# character to every rule's \b, so "_I think_" would hide "I" and "think"; an identifier's
# inner underscore (snake_case) neither opens nor closes. Bounded, so a long line of
# unmatched openers stays linear.
_EMPHASIS_SPANS = (
    re.compile(r"(?<![\w\\])(_{1,3})(?=[^\s_])(.{0,300}?[^\s_\\])\1(?!\w)"),
    re.compile(r"(?<![\w\\*])(\*{1,3})(?=[^\s*])(.{0,300}?[^\s*\\])\1(?![\w*])"),
)
_HEADING_STRIP = re.compile(r"^(?:[\dIVX]+[.)]|\d+(?:\.\d+)*)\s+|[*_`]+|[:.]\s*$")


@dataclass(frozen=True)
class Rule:
    id: str
    kind: str
    message: str
    scope: str = "all"
    check: str = ""
    patterns: tuple[re.Pattern[str], ...] = ()
    unless: tuple[re.Pattern[str], ...] = ()
    match: tuple[Any, ...] = ()
    no_match: tuple[Any, ...] = ()
    # Clause conditions (an agent class with a predicate), read with ``grammar``.
    conditions: tuple[Condition, ...] = ()
    # Fault predicates as lemma classes, read as verb groups with ``grammar``.
    faults: verbgroups.Lexicon | None = None
    # Fault cues tied to a person-like agent (blamecues.py), read with ``grammar``.
    cues: blamecues.Cues | None = None
    # Co-occurrence conditions: lexical classes of the grammar wanted in one clause.
    cooccur: tuple[tuple[str, ...], ...] = ()
    # Co-occurrence conditions that hold only in one section: in a proposal list, an
    # item about process is a push whatever its form ("Strict cutoff for the release").
    # A rule's ``in_reflective`` readings land here too, once per section of the
    # reflective kind (section_kinds.yaml: lessons, takeaways), where the writer turns
    # from the incident to the reader or the trade, so a norm pushes whatever it is about.
    cooccur_in: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = ()
    grammar: Grammar | None = None
    # A hit in a clause where one of these rules also hits is theirs, not this rule's
    # ("I think we should rewrite it" is advocacy, not a hedge).
    yield_to: tuple[str, ...] = ()
    # Patterns that make a clause an opinion or a norm whatever its topic: a hit in a
    # clause holding a match is not this rule's ("maybe it's worth a note", "it would
    # probably make sense to ..."). Per clause, unlike ``unless``, which needs an overlap.
    yield_within: tuple[re.Pattern[str], ...] = ()
    # Patterns of the writer's uncertainty that concede before an opinion ("not sure
    # what the policy is, but I would suggest ..."): such a hit in a clause whose next
    # clause opens with "but" and is claimed by a ``yield_to`` rule is that opinion's.
    concede: tuple[re.Pattern[str], ...] = ()
    # A hit in the clause right after one a ``yield_to`` rule flags is an afterthought on
    # that opinion ("the process needs a second reviewer; probably two"), unless one of
    # these links opens it: a reason or a contrast ("because", "but", "so") makes the hit
    # a claim of its own, and a claim can be hedged.
    beside_links: tuple[re.Pattern[str], ...] = ()
    # A hit in a question is not a claim ("could this be the driver?").
    skip_questions: bool = False
    # ... except a statement said with a question mark ("You merged it without a
    # review?"): it accuses rather than asks, so its hits stay.
    accusing_questions: bool = False
    # ... and a guess said with a question mark ("Possibly related to GC pauses?", "I'm
    # guessing a disk is full?", "looks possibly related to this PR, can you check it
    # out?"): a hit that a match of one of these, searched in its clause, covers stays.
    guess_questions: tuple[re.Pattern[str], ...] = ()
    # Patterns that still apply inside a section the scope leaves out (the writer's
    # present doubt inside a timeline: "I suspect node age is related").
    keep_in: tuple[tuple[str, tuple[re.Pattern[str], ...]], ...] = ()
    # A hit wholly inside quotation marks is a mention, not the writer's claim.
    skip_quoted: bool = False
    # Patterns whose hits no ``unless`` exempts: a form that reads word for word like an
    # exempt one and differs only in its subject ("some builds could have picked up the
    # bad image" is the incident's effect, "a nightly could have caught it" hindsight).
    always: tuple[re.Pattern[str], ...] = ()
    # Clause moods the rule reads (mood.py): mood -> the topics (noun classes) it wants
    # ("normative" about a process or a policy is advocacy; "epistemic" about anything is
    # a hedge unless its clause is an opinion).
    moods: tuple[tuple[str, tuple[str, ...]], ...] = ()
    mood_grammar: MoodGrammar | None = None
    # What a sentence of a thread does (speechacts.py): a request for a change of
    # practice, or an agreement with a push made earlier in the thread.
    speech_acts: tuple[speech_mod.Act, ...] = ()

    @property
    def reads_belief(self) -> bool:
        """The rule reads the epistemic mood (a hedge): what doubts no fact (an opinion
        under a belief frame, a modal that proposes) is exempt from it."""
        return self.mood_grammar is not None and any(
            mood == mood_mod.EPISTEMIC for mood, _ in self.moods)

    def applies_to(self, section: str | None) -> bool:
        if self.scope == "all":
            return True
        where, _, names = self.scope.partition(":")
        inside = section in names.split(",")
        return not inside if where == "outside" else inside


@dataclass(frozen=True)
class Finding:
    file: str
    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.rule}: {self.message}"


@dataclass(frozen=True)
class SectionKind:
    """One section meaning from ``sections.yaml``: the heading patterns that name it."""

    key: str
    patterns: tuple[re.Pattern[str], ...]
    required: bool = False


@dataclass(frozen=True)
class Heading:
    line: int
    level: int  # 1-6 for ATX/setext, 7 for a bold line or run-in label
    text: str
    keys: tuple[str, ...]  # every section meaning the heading carries, first = its part


@dataclass(frozen=True)
class Line:
    number: int
    text: str  # prose with code, link targets and HTML blanked; "" when not prose
    raw: str
    section: str | None  # section key, None outside any known section


@dataclass(frozen=True)
class Sentence:
    text: str  # prose, wrapped lines joined by one space
    section: str | None
    offsets: tuple[int, ...]  # where each joined physical line starts in ``text``
    lines: tuple[int, ...]  # their line numbers

    @property
    def line(self) -> int:
        return self.lines[0]

    def line_at(self, offset: int) -> int:
        """The physical line holding ``text[offset]``."""
        return self.lines[max(0, bisect.bisect_right(self.offsets, offset) - 1)]


@dataclass(frozen=True)
class Document:
    lines: tuple[Line, ...]
    headings: tuple[Heading, ...]
    sentences: tuple[Sentence, ...]

    def present(self) -> set[str]:
        """Every section meaning some heading carries."""
        return {k for h in self.headings for k in h.keys}


def compile_rules(content: Mapping[str, Any], moods: MoodGrammar | None = None,
                  kinds: Mapping[str, str] | None = None) -> tuple[Rule, ...]:
    """Rules from the validated ``lint_rules.yaml`` content (and ``moods.yaml``'s, for
    the rules that read clause moods; ``kinds``: section key -> kind, from
    ``section_kinds.yaml``, for the readings of the reflective part)."""
    reflective_keys = sorted(k for k, v in (kinds or {"lessons": "reflective"}).items()
                             if v == "reflective")
    grammar = clause_mod.compile_grammar(content["grammar"]) if "grammar" in content \
        else None
    rules = []
    for r in content["rules"]:
        conditions = tuple(
            Condition(frozenset(c["agents"]),
                      tuple(re.compile(p, re.IGNORECASE) for p in c["predicates"]),
                      head=bool(c.get("head", False)))
            for c in r.get("clauses", []))
        rules.append(Rule(
            id=r["id"], kind=r["kind"], message=r["message"], scope=r.get("scope", "all"),
            check=r.get("check", ""),
            patterns=tuple(re.compile(p, re.IGNORECASE) for p in r.get("patterns", [])),
            unless=tuple(re.compile(p, re.IGNORECASE) for p in r.get("unless", [])),
            match=tuple(r.get("match", [])), no_match=tuple(r.get("no_match", [])),
            conditions=conditions, grammar=grammar,
            faults=verbgroups.compile_lexicon(r["faults"]) if "faults" in r else None,
            cues=blamecues.compile_cues(r["cues"]) if "cues" in r else None,
            cooccur=tuple(tuple(c) for c in r.get("cooccur", [])),
            cooccur_in=tuple((section, tuple(tuple(c) for c in needs))
                             for section, needs in (r.get("cooccur_in") or {}).items())
            + tuple((key, tuple(tuple(c) for c in r["in_reflective"]["cooccur"]))
                    for key in reflective_keys if r.get("in_reflective")),
            yield_to=tuple(r.get("yield_to", [])),
            yield_within=tuple(re.compile(p, re.IGNORECASE)
                               for p in r.get("yield_within", [])),
            concede=tuple(re.compile(p, re.IGNORECASE) for p in r.get("concede", [])),
            beside_links=tuple(re.compile(p, re.IGNORECASE)
                               for p in r.get("beside_links", [])),
            skip_questions=bool(r.get("skip_questions", False)),
            accusing_questions=bool(r.get("accusing_questions", False)),
            guess_questions=tuple(re.compile(p, re.IGNORECASE)
                                  for p in r.get("guess_questions", [])),
            skip_quoted=bool(r.get("skip_quoted", False)),
            always=tuple(re.compile(p, re.IGNORECASE) for p in r.get("always", [])),
            moods=tuple((m, tuple(t)) for m, t in (r.get("moods") or {}).items()),
            mood_grammar=moods if r.get("moods") else None,
            speech_acts=speech_mod.compile_acts(r.get("speech_acts") or ()),
            keep_in=tuple((section, tuple(re.compile(p, re.IGNORECASE) for p in pats))
                          for section, pats in (r.get("keep_in") or {}).items())))
    return tuple(rules)


def compile_sections(content: Mapping[str, Any]) -> tuple[SectionKind, ...]:
    """Section meanings from the validated ``sections.yaml`` content, in file order."""
    return tuple(SectionKind(key=s["key"], required=bool(s.get("required", False)),
                             patterns=tuple(re.compile(p, re.IGNORECASE)
                                            for p in s["patterns"]))
                 for s in content["sections"])


# Sections whose sub-headings only sort their content (kinds of action items).
_NESTING = frozenset({"action_items"})

# Without a sections file the draft's own nine titles are the only headings known.
_DEFAULT_SECTIONS = tuple(
    SectionKind(key, (re.compile(rf"^{re.escape(title)}$", re.IGNORECASE),), key in REQUIRED)
    for key, title in TITLES.items())


def heading_keys(text: str, sections: Sequence[SectionKind]) -> tuple[str, ...]:
    """The section meanings of a heading's text (numbering, emphasis, colon stripped)."""
    plain = text.strip()
    for _ in range(3):
        plain = _HEADING_STRIP.sub("", plain).strip()
    plain = re.sub(r"\s+", " ", plain)
    if not plain:
        return ()

    def meanings(text: str) -> list[str]:
        return [s.key for s in sections if any(p.search(text) for p in s.patterns)]

    keys = meanings(plain)
    # A heading listing sections ("Response, Cause, Prevention") carries each part's
    # meaning, in the order written: the first part that names a section is its part.
    parts = [p for p in re.split(r"\s*(?:,|&|;|\band\b)\s*", plain, flags=re.IGNORECASE)
             if p.strip()]
    if len(parts) > 1:
        ordered = [k for part in parts for k in meanings(part.strip())]
        keys = ordered + keys
    return tuple(dict.fromkeys(keys))


def _blank(m: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", m.group(0))


def prose(raw: str) -> str:
    """A line's prose: inline code, link targets, URLs and HTML blanked to spaces of the
    same length, so offsets still point into the raw line."""
    text = _INLINE_CODE.sub(_blank, raw)
    text = _IMAGE.sub(_blank, text)
    text = _LINK_TARGET.sub(_blank, text)
    text = _AUTOLINK.sub(_blank, text)
    return _HTML.sub(_blank, text)


def _unemphasise(m: re.Match[str]) -> str:
    before = m.string[m.start() - 1] if m.start() else " "
    # The opener goes; a space keeps two words apart ("done.**We**" -> "done. We").
    return ("" if before.isspace() or before in "([{\"'“‘*_" else " ") + m.group(2)


def words(body: str) -> str:
    """A line's prose with emphasis markers taken away, so an emphasised word reads as
    the word ("_I think_" -> "I think", "__must__" -> "must"); code spans were blanked
    before and stay blank. Only characters of markers go, so the line stays the line."""
    for pattern in (*_EMPHASIS_SPANS, _EMPHASIS_SPANS[0]):  # "**_must_**" nests
        body = pattern.sub(_unemphasise, body)
    return body


# A run of blanks inside a line reads as one space, as Markdown renders it. Security: the
# clause patterns step over blanks (``\s+``) from every word they try, so a draft line
# holding thousands of blanks between two words (anyone can paste one into an issue the
# draft quotes) made the lint quadratic in the run: 5,000 blanks took over 15 s.
# Indentation is kept up to a depth no Markdown structure reads beyond (lists and code
# blocks read it); deeper indentation is cut to that depth for the same reason.
_BLANK_RUN = re.compile(r"(?<=\S)[^\S\n]{2,}")
_MAX_INDENT = 40


def _squeeze(line: str) -> str:
    body = line.lstrip()
    lead = line[:len(line) - len(body)]
    return lead[:_MAX_INDENT] + _BLANK_RUN.sub(" ", body)


def parse(text: str, sections: Sequence[SectionKind] = _DEFAULT_SECTIONS) -> Document:
    """Read Markdown into lines with their section, headings, and prose sentences."""
    raw_lines = [_squeeze(line) for line in text.splitlines()]
    lines: list[Line] = []
    headings: list[Heading] = []
    blocks: list[list[tuple[int, str]]] = []  # paragraphs: (line number, prose)
    block_sections: list[str | None] = []
    current: tuple[str | None, int] = (None, 0)  # section key and its heading level
    fence: str | None = None
    para: list[tuple[int, str]] = []
    in_list = False
    prev_blank = True

    def close() -> None:
        nonlocal para
        if para:
            blocks.append(para)
            where = current[0]
            if where not in _NESTING and _TIMESTAMP.match(para[0][1]):
                where = "timeline"
            block_sections.append(where)
        para = []

    def enter(number: int, level: int, title: str) -> None:
        nonlocal current
        keys = heading_keys(title, sections)
        headings.append(Heading(number, level, title.strip(), keys))
        if current[0] in _NESTING and level > current[1]:
            # Sanity: "Prevention", "Detection", "Fixes" under "Action items" are kinds
            # of action items (the Flutter template), whatever else they could mean.
            return
        if keys:
            current = (keys[0], level)
        elif current[0] is not None and level <= current[1]:
            # Sanity: an unknown heading at the same or a higher level ends the section
            # (advocacy after "Action items" under "Appendix" is advocacy again).
            current = (None, level)

    # A list block a label opened: (its indentation, whether a list item holds the label,
    # the section it interrupted). The block is the label's section until a sibling item
    # or a paragraph at its own depth begins.
    label_block: tuple[int, bool, tuple[str | None, int]] | None = None
    # A label that closes a line of prose: its block starts with the next list item.
    pending: tuple[str, int] | None = None

    def indent(line: str) -> int:
        return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())

    def next_text(k: int) -> str:
        for later in raw_lines[k + 1:k + 4]:
            if later.strip():
                return later
        return ""

    def label_of(raw: str, body: str, lm: re.Match[str] | None, k: int) -> str | None:
        """The label text of a line that introduces a list block, else None."""
        m = _LABEL.match(body[lm.end():] if lm else body)
        if not m or len(m.group(1).split()) > 6:
            return None
        follower = next_text(k)
        if lm:
            # An item that is only a label owns the items nested under it.
            if not follower or (indent(follower) <= indent(raw) \
                    and not (m.group(2) and _LIST.match(follower))):
                return None
        elif not (m.group(2) and _LIST.match(follower)):
            return None  # a plain line must end in ":" and open a list
        return m.group(1).strip()

    front = _front_matter(raw_lines)
    for i, raw in enumerate(raw_lines):
        number = i + 1
        if i < front:  # YAML front matter of a blog post: metadata, not prose
            lines.append(Line(number, "", raw, None))
            continue
        m = _FENCE.match(raw)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            lines.append(Line(number, "", raw, current[0]))
            continue
        if m:
            close()
            fence = m.group(1)
            lines.append(Line(number, "", raw, current[0]))
            prev_blank = False
            continue
        if not raw.strip():
            close()
            lines.append(Line(number, "", raw, current[0]))
            prev_blank = True
            continue
        nxt = raw_lines[i + 1] if i + 1 < len(raw_lines) else ""
        h = _ATX.match(raw)
        setext = (not para and _SETEXT.match(nxt) and not _LIST.match(raw)
                  and not _QUOTE.match(raw) and not _PREFIXED_QUOTE.match(raw)
                  and not _RULE_LINE.match(raw))
        bold = _BOLD_LINE.match(raw)
        if h or setext or (bold and prev_blank):
            close()
            if label_block is not None and (h or setext or not raw.startswith((" ", "\t"))):
                current, label_block = label_block[2], None
            pending = None
            if h:
                enter(number, len(h.group(1)), h.group(2) or "")
            elif setext:
                enter(number, 1 if nxt.strip().startswith("=") else 2, raw)
            elif raw.startswith((" ", "\t")) and in_list:
                # A bold line inside a list item is a label there, not a section.
                headings.append(Heading(number, 7, raw.strip(), ()))
            else:
                enter(number, 7, bold.group(2) if bold else raw)
            lines.append(Line(number, "", raw, current[0]))
            in_list = in_list and not (h or setext)
            prev_blank = False
            continue
        if _SETEXT.match(raw) and lines and not lines[-1].text and headings \
                and headings[-1].line == number - 1:
            lines.append(Line(number, "", raw, current[0]))  # a setext underline
            continue
        indented_code = (prev_blank and not in_list and not para
                         and len(raw.expandtabs(4)) - len(raw.expandtabs(4).lstrip()) >= 4)
        if _QUOTE.match(raw) or _PREFIXED_QUOTE.match(raw) or indented_code \
                or _RULE_LINE.match(raw) \
                or _TABLE_SEP.match(raw):
            close()
            lines.append(Line(number, "", raw, current[0]))
            prev_blank = False
            continue
        body = prose(raw)
        lm = _LIST.match(body)
        if pending is not None:
            if lm:
                close()
                label_block = (pending[1], False, current)
                current = (pending[0], 7)
            pending = None
        if label_block is not None and indent(raw) <= label_block[0] \
                and ((lm and label_block[1]) or (not lm and prev_blank)):
            close()
            current = label_block[2]
            label_block = None
        label = label_of(raw, body, lm, i) if lm or not para else None
        keys = heading_keys(label, sections) if label else ()
        if label and keys and current[0] not in _NESTING:
            # Sanity: a label introducing a list ("7. Preventative Measures", "**Next
            # steps:**", "Follow-ups:") is that section for its block, not prose.
            close()
            headings.append(Heading(number, 7, label, keys))
            label_block = (indent(raw), bool(lm), current)
            current = (keys[0], 7)
            lines.append(Line(number, "", raw, current[0]))
            in_list = True
            prev_blank = False
            continue
        if not lm and label is None and label_block is None:
            trailing = _TRAILING_LABEL.search(body)
            # Up to six words: "Next steps:" and "To prevent a repeat:" alike.
            if trailing and len(trailing.group(1).split()) <= 6 \
                    and _LIST.match(next_text(i)):
                found = heading_keys(trailing.group(1), sections)
                if found and current[0] not in _NESTING:
                    pending = (found[0], indent(raw))
        if lm:
            close()
            in_list = True
            body = " " * lm.end() + body[lm.end():]
        elif prev_blank and not raw.startswith((" ", "\t")):
            in_list = False
        run_in = _RUN_IN.match(body[lm.end():] if lm else body)
        if run_in and not para:
            label, punct = run_in.group(3), run_in.group(4) or run_in.group(5)
            keys = heading_keys(label, sections)
            if keys and not lm:
                close()
                enter(number, 7, label)
            if keys or punct:
                # Sanity: a bold lead-in label ("**Impact:**") is a heading, not prose.
                cut = (lm.end() if lm else 0) + len(run_in.group(1))
                body = " " * cut + body[cut:]
        body = words(body)
        if body.lstrip().startswith("|"):
            # Sanity: a table row is its own unit; cells never join into one sentence.
            close()
            para.append((number, body.replace("|", " ")))
            close()
        else:
            para.append((number, body))
        lines.append(Line(number, body, raw, current[0]))
        prev_blank = False
    close()
    sentences = [s for block, section in zip(blocks, block_sections, strict=True)
                 for s in _sentences(block, section)]
    return Document(tuple(lines), tuple(headings), tuple(sentences))


def _front_matter(raw_lines: Sequence[str]) -> int:
    """How many lines of YAML front matter (``---`` ... ``---``) open the text."""
    if not raw_lines or raw_lines[0].strip() != "---":
        return 0
    for i in range(1, min(len(raw_lines), 60)):
        if raw_lines[i].strip() in ("---", "..."):
            return i + 1
    return 0


def _sentences(block: Sequence[tuple[int, str]], section: str | None) -> Iterator[Sentence]:
    """A paragraph's sentences; each keeps the line numbers of its joined lines."""
    text = ""
    offsets: list[int] = []
    numbers: list[int] = []
    for number, body in block:
        part = body.strip()
        if not part:
            continue
        if text:
            text += " "
        offsets.append(len(text))
        numbers.append(number)
        text += part
    start = 0
    ends = [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]
    for end in ends:
        chunk = text[start:end]
        lead = len(chunk) - len(chunk.lstrip())
        s, e = start + lead, start + len(chunk.rstrip())
        start = end
        if s >= e:
            continue
        first = max(0, bisect.bisect_right(offsets, s) - 1)
        last = max(0, bisect.bisect_right(offsets, e - 1) - 1)
        yield Sentence(text[s:e], section,
                       tuple([0] + [o - s for o in offsets[first + 1:last + 1]]),
                       tuple(numbers[first:last + 1]))


def lint(text: str, rules: Sequence[Rule], *, facts: Mapping[str, Any] | None = None,
         file: str = "draft.md",
         sections: Sequence[SectionKind] = _DEFAULT_SECTIONS) -> list[Finding]:
    """Every finding of every rule, by line."""
    doc = parse(text, sections)
    findings: list[Finding] = []
    for rule in rules:
        findings += apply_rule(rule, doc, facts=facts, file=file, others=rules)
    return sorted(findings, key=lambda f: (f.line, f.rule))


def skipped(rules: Sequence[Rule], *, facts: Mapping[str, Any] | None) -> list[str]:
    """What lint cannot check without the facts file, one line per check."""
    if facts is not None:
        return []
    out = []
    for rule in rules:
        if rule.check == "identifiers":
            out.append(f"{rule.id}: the facts' code identifiers (root_cause.identifiers) "
                       "were not compared with the draft")
        elif rule.check == "verification_scope":
            out.append(f"{rule.id}: claims were checked against no stated verification, "
                       "and the facts' not_retested scope was not looked for")
    return out


def apply_rule(rule: Rule, doc: Document, *, facts: Mapping[str, Any] | None,
               file: str, others: Sequence[Rule] = ()) -> list[Finding]:
    """One rule over the parsed draft (``others``: the rules it may yield to)."""
    if rule.kind == "lexicon":
        return [Finding(file, line, rule.id, f"{rule.message} ({phrase!r})")
                for line, phrase in _lexicon(rule, doc.sentences, others)]
    check = _CHECKS.get(rule.check)
    if check is None:
        raise ValueError(f"Sanity: unknown lint check {rule.check!r}")
    return check(rule, doc, facts or {}, file)


def hits(rule: Rule, sentence: Sentence, others: Sequence[Rule] = ()) -> list[
        tuple[int, int]]:
    """Spans of ``sentence.text`` the rule flags: every pattern match and every clause
    whose agent and predicate meet a condition, minus those an ``unless`` match overlaps
    (an ``always`` match is never exempt)
    (hindsight, a reader checklist, advice to users), those in a question when the rule
    skips questions, and those in a clause where a rule of ``yield_to`` (among
    ``others``) hits; overlapping matches are counted once."""
    text = sentence.text
    exempt = [m.span() for u in rule.unless for m in u.finditer(text)]
    if rule.reads_belief and rule.grammar is not None:
        # A modal that proposes, permits, obliges or states an ability doubts no fact
        # (moods.yaml ``proposals``; #24, pm-fit22c).
        exempt += mood_mod.proposal_spans(text, rule.grammar, rule.mood_grammar)
    found: list[tuple[int, int]] = []
    for pattern in rule.patterns:
        found += [m.span() for m in pattern.finditer(text)]
    if rule.conditions and rule.grammar is not None:
        found += [(s, e) for s, e, _ in clause_mod.matches(text, rule.grammar,
                                                           rule.conditions)]
    if rule.faults is not None and rule.grammar is not None:
        found += [(s, e) for s, e, _, _ in verbgroups.faults(text, rule.grammar,
                                                              rule.faults)]
    if rule.cues is not None and rule.grammar is not None:
        found += [(s, e) for s, e, _, _ in blamecues.spans(text, rule.grammar, rule.cues)]
    if rule.cooccur and rule.grammar is not None:
        found += list(clause_mod.cooccurrences(text, rule.grammar, rule.cooccur))
    if rule.moods and rule.grammar is not None and rule.mood_grammar is not None:
        found += list(mood_mod.spans(text, rule.grammar, rule.mood_grammar,
                                     dict(rule.moods)))
    for section, needs in rule.cooccur_in:
        if sentence.section == section and rule.grammar is not None:
            found += list(clause_mod.cooccurrences(text, rule.grammar, needs))
    overlaps = _Overlaps(exempt)
    spans = [(s, e) for s, e in found if e > s and not overlaps.any(s, e)]
    spans += [m.span() for p in rule.always for m in p.finditer(text) if m.end() > m.start()]
    if spans and rule.skip_quoted:
        quoted = [m.span(1) for m in _QUOTED.finditer(text)]  # disjoint, in order
        starts = [qs for qs, _ in quoted]

        def inside(s: int, e: int) -> bool:
            k = bisect.bisect_right(starts, s) - 1
            return k >= 0 and e <= quoted[k][1]

        tails = _quote_tails(text)
        spans = [(s, e) for s, e in spans if not inside(s, e)
                 and not any(ts <= s and e <= te for ts, te in tails)]
    if spans and rule.grammar is not None and (rule.skip_questions or rule.yield_to
                                               or rule.yield_within):
        spans = _own(rule, sentence, spans, others)
    kept: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if kept and s < kept[-1][1]:
            continue
        kept.append((s, e))
    return kept


def _quote_tails(text: str) -> list[tuple[int, int]]:
    """The parts of a sentence inside a quotation that opens or closes in another
    sentence: before a closing curly quote with no opening one before it, and after an
    opening curly quote with no closing one after it ('she said “just restart it. Maybe
    add a probe too”' is split in two sentences, each holding half the quotation).
    Straight quotes are left out: they do not tell opening from closing."""
    out: list[tuple[int, int]] = []
    close, opening = text.find("\u201d"), text.rfind("\u201c")
    if close >= 0 and "\u201c" not in text[:close]:
        out.append((0, close))
    if opening >= 0 and "\u201d" not in text[opening:]:
        out.append((opening + 1, len(text)))
    return out


class _Overlaps:
    """Whether a span overlaps any of many spans, in log time: a sentence of thousands
    of clauses has thousands of hits and exemptions, and pairwise tests are quadratic."""

    def __init__(self, spans: Sequence[tuple[int, int]]) -> None:
        self.spans = sorted(spans)
        self.starts = [s for s, _ in self.spans]
        # The furthest end among the spans up to each index.
        self.reach: list[int] = []
        for _, e in self.spans:
            self.reach.append(max(e, self.reach[-1]) if self.reach else e)

    def any(self, s: int, e: int) -> bool:
        k = bisect.bisect_left(self.starts, e) - 1  # spans starting before e
        return k >= 0 and self.reach[k] > s


def _own(rule: Rule, sentence: Sentence, spans: list[tuple[int, int]],
         others: Sequence[Rule]) -> list[tuple[int, int]]:
    """The spans left to ``rule`` once questions and clauses another rule claims go."""
    assert rule.grammar is not None
    text = sentence.text
    parts = clause_mod.clauses(text, rule.grammar)
    claimed: list[tuple[int, int]] = []
    for other in others:
        if other.id in rule.yield_to:
            # Whatever the other rule's scope or exemptions: a norm reported in the
            # narrative is still a norm, and a hedge inside it is not a claim.
            claimed += [m.span() for p in other.patterns for m in p.finditer(text)]
            if other.grammar is not None:
                claimed += list(clause_mod.cooccurrences(text, other.grammar, other.cooccur))
                claimed += [(s, e) for s, e, _ in clause_mod.matches(text, other.grammar,
                                                                     other.conditions)]
                if other.mood_grammar is not None and other.moods:
                    claimed += list(mood_mod.spans(text, other.grammar, other.mood_grammar,
                                                   dict(other.moods)))
    claimed += [m.span() for p in rule.yield_within for m in p.finditer(text)
                if m.end() > m.start()]
    # The writer's belief whose complement prescribes or judges ("I do think some changes
    # need to happen", "I think this is fragile") frames an opinion, whatever it is
    # about: the belief verb doubts no fact. Only the belief frame yields so; a hedge
    # adverb inside a judgement ("the lock was probably too fragile") still hedges.
    opinions_here: list[int] = []
    if rule.reads_belief:
        opinions_here = sorted(r.start for r in mood_mod.readings(
            text, rule.grammar, rule.mood_grammar)
            if r.mood in rule.mood_grammar.opinion and r.topic != mood_mod.PAST_STATE)
    starts = [c.start for c in parts]
    claimed_at = sorted(cs for cs, _ in claimed)

    def taken(clause: clause_mod.Clause) -> bool:
        k = bisect.bisect_left(claimed_at, clause.start)
        return k < len(claimed_at) and claimed_at[k] < clause.end

    def believed(at: int, end: int) -> bool:
        # A belief frame at ``at`` whose clause (up to ``end``) prescribes or judges.
        k = bisect.bisect_left(opinions_here, at)
        return bool(_BELIEF.match(text, at)) and k < len(opinions_here) \
            and opinions_here[k] < end

    def opens_belief(clause: clause_mod.Clause) -> bool:
        # The clause opens with an opinion under the writer's belief ("but I do think").
        lead = _LEAD.match(text, clause.start)
        return believed(lead.end() if lead else clause.start, clause.end)

    opinions: list[int] | None = None
    out = []
    for s, e in spans:
        at = bisect.bisect_right(starts, s) - 1
        if at < 0 or s >= parts[at].end:
            out.append((s, e))
            continue
        clause = parts[at]
        if rule.skip_questions and text[clause.start:clause.end].rstrip(_CLOSERS).endswith("?") \
                and not (rule.accusing_questions
                         and not clause_mod.asks(text, clause, rule.grammar)) \
                and not _guessed(rule, text, clause, s, e):
            continue
        if taken(clause):
            continue
        if believed(s, clause.end):
            continue
        if rule.beside_links and at > 0 and not any(
                m.start() < e and s < m.end() for p in rule.always for m in p.finditer(text)):
            if opinions is None:  # what the other rules flag here, with their exemptions
                opinions = sorted(os for other in others if other.id in rule.yield_to
                                  and other.applies_to(sentence.section)
                                  for os, _ in hits(other, sentence, others))
            if _beside(rule, text, parts, at, opinions):
                continue
        # A concession before an opinion ("not sure what the policy is, but I would
        # suggest ...") belongs to that opinion: the clause after it opens with "but"
        # and another rule claims it.
        if at + 1 < len(parts) and _CONCESSION.match(text, parts[at + 1].start) \
                and (taken(parts[at + 1]) or opens_belief(parts[at + 1])) and any(
                    m.start() < e and s < m.end() for p in rule.concede
                    for m in p.finditer(text, clause.start, clause.end)):
            continue
        out.append((s, e))
    return out


def _guessed(rule: Rule, text: str, clause: clause_mod.Clause, s: int, e: int) -> bool:
    """Whether the hit ``text[s:e]`` of a clause ending in "?" lies in a guess said
    with a question mark (a match of ``rule.guess_questions`` in the clause covers it)
    rather than in what the clause asks."""
    part = text[clause.start:clause.end]
    return any(m.start() <= s - clause.start and e - clause.start <= m.end()
               for p in rule.guess_questions for m in p.finditer(part))


def _beside(rule: Rule, text: str, parts: Sequence[clause_mod.Clause], at: int,
            opinions: Sequence[int]) -> bool:
    """Whether clause ``at`` follows a clause holding one of ``opinions`` (hit starts of
    the rules it yields to) with no link of ``rule.beside_links`` opening it."""
    if at == 0:
        return False
    before = parts[at - 1]
    k = bisect.bisect_left(opinions, before.start)
    return k < len(opinions) and opinions[k] < before.end \
        and not any(p.match(text, parts[at].start) for p in rule.beside_links)


# What may close a question after its mark: a bracket, emphasis, a quotation mark
# ("[Should this go to a branch?]", "*why did it pass?*", "“is it the cache?”").
_CLOSERS = " )]}*_\"'”’"
# The writer's present belief as a frame ("I think", "I do think", "we believe").
_BELIEF = re.compile(r"(?:I|we)\s+(?:\w+\s+)?(?:think|believe|feel|guess|reckon)\b",
                     re.IGNORECASE)
# Space and a contrast word opening a clause, before what it says.
_LEAD = re.compile(r"[\s,]*(?:(?:but|though|although|however|yet)\b[\s,]*)?", re.IGNORECASE)
_CONCESSION = re.compile(r"\s*(?:but|though|although|however|yet)\b", re.IGNORECASE)


def _lexicon(rule: Rule, sentences: Sequence[Sentence],
             others: Sequence[Rule] = ()) -> list[tuple[int, str]]:
    out = []
    kept = dict(rule.keep_in)
    # Whether a thread's comments have begun, and whether anything before was a push
    # (what an agreement endorses).
    in_thread = pushed = False
    for k, sentence in enumerate(sentences):
        in_thread = in_thread or bool(_ROLE_LABEL.match(sentence.text))
        if not rule.applies_to(sentence.section):
            if sentence.section not in kept:
                continue
            narrow = replace(rule, patterns=kept[sentence.section], conditions=(),
                             faults=None, cues=None,
                             cooccur=(), cooccur_in=(), always=(), moods=())
            found = hits(narrow, sentence, others)
        else:
            found = hits(rule, sentence, others)
            if k and rule.faults is not None and rule.grammar is not None:
                found += _consequence(rule, sentences[k - 1], sentence, found)
            if rule.speech_acts:
                found += _acts(rule, sentence, found, in_thread=in_thread, pushed=pushed)
            pushed = pushed or bool(found)
        for s, e in found:
            out.append((sentence.line_at(s), " ".join(sentence.text[s:e].split())))
    return out


def _acts(rule: Rule, sentence: Sentence, found: Sequence[tuple[int, int]], *,
          in_thread: bool, pushed: bool) -> list[tuple[int, int]]:
    """The cues of the speech acts ``sentence`` performs that no other hit of the rule
    overlaps and no quotation holds (a cited request is a mention)."""
    quoted = [m.span(1) for m in _QUOTED.finditer(sentence.text)]
    out: list[tuple[int, int]] = []
    for s, e, _ in speech_mod.spans(sentence.text, rule.speech_acts, in_thread=in_thread,
                                    pushed=pushed):
        if any(a < e and s < b for a, b in [*found, *out]) or \
                any(a <= s and e <= b for a, b in quoted):
            continue
        out.append((s, e))
    return out


def _consequence(rule: Rule, before: Sentence, sentence: Sentence,
                 found: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The breakage predicate of ``sentence`` when it tells the breakage of the writer's
    own act told in ``before``, the sentence right before it in the same paragraph."""
    assert rule.faults is not None and rule.grammar is not None
    if before.section != sentence.section or sentence.line > before.lines[-1] + 1:
        return []
    hit = verbgroups.consequence(before.text, sentence.text, rule.grammar, rule.faults)
    if hit is None or any(s < hit[1] and hit[0] < e for s, e in found):
        return []
    return [hit]


def lint_prose(text: str, rules: Sequence[Rule], *, section: str | None) -> list[
        tuple[Rule, str]]:
    """The lexicon findings of a piece of prose taken as one paragraph of ``section``
    (the facts checked before drafting): (rule, phrase) pairs."""
    body = [(n, words(prose(raw))) for n, raw in enumerate(text.splitlines(), start=1)]
    sentences = list(_sentences(body, section))
    return [(rule, phrase) for rule in rules if rule.kind == "lexicon"
            for _, phrase in _lexicon(rule, sentences, rules)]


def _required_sections(rule: Rule, doc: Document, _facts: Mapping[str, Any],
                       file: str) -> list[Finding]:
    present = doc.present()
    first: dict[str, int] = {}
    for h in doc.headings:
        for k in h.keys:
            first.setdefault(k, h.line)
    out = []
    last = len(doc.lines) or 1
    for key in REQUIRED:
        if key not in present:
            # Point at the heading that should have come after it, else the end.
            later = [n for k, n in first.items() if k in TITLES and _order(k) > _order(key)]
            out.append(Finding(file, min(later) if later else last, rule.id,
                               f"{rule.message}: {TITLES[key]} (no heading of that meaning)"))
    return out


def _order(key: str) -> int:
    return list(TITLES).index(key)


def _identifiers(rule: Rule, doc: Document, facts: Mapping[str, Any],
                 file: str) -> list[Finding]:
    body = "\n".join(ln.raw for ln in doc.lines)
    body_plain = body.replace("\\", "")  # Markdown escapes do not hide an identifier
    wanted = list((facts.get("root_cause") or {}).get("identifiers") or [])
    out = []
    for ident in wanted:
        if ident not in body and ident not in body_plain:
            out.append(Finding(file, _section_line(doc, "root_cause"), rule.id,
                               f"{rule.message}: {ident}"))
    return out


def _section_line(doc: Document, key: str) -> int:
    for h in doc.headings:
        if key in h.keys:
            return h.line
    return 1


def _verification_scope(rule: Rule, doc: Document, facts: Mapping[str, Any],
                        file: str) -> list[Finding]:
    checks = facts.get("verification") or []
    stated = " ".join(" ".join(str(v) for v in c.values()) for c in checks).lower()
    out = []
    for sentence in doc.sentences:
        if sentence.section != "verification":
            continue
        for pattern in rule.patterns:
            m = pattern.search(sentence.text)
            # Sanity: a claim is fine only when the facts make the same claim.
            if m and m.group(0).lower() not in stated:
                out.append(Finding(file, sentence.line_at(m.start()), rule.id,
                                   f"{rule.message}: {m.group(0)!r} is not in the facts' "
                                   "verification"))
                break
    # The untested scope must be said as such, on a "Not re-tested" line.
    body = [ln for ln in doc.lines if ln.section == "verification"]
    said = " ".join(ln.raw for ln in body
                    if re.search(r"not re-?tested", ln.raw, re.IGNORECASE)).lower()
    for item in facts.get("not_retested") or []:
        if str(item).rstrip(".").lower() not in said:
            where = _section_line(doc, "verification") if body else 1
            out.append(Finding(file, where, rule.id,
                               f"{rule.message}: the draft drops what was NOT re-tested: "
                               f"{item!r}"))
    return out


_CHECKS: dict[str, Callable[[Rule, Document, Mapping[str, Any], str], list[Finding]]] = {
    "required_sections": _required_sections,
    "identifiers": _identifiers,
    "verification_scope": _verification_scope,
}


def example_findings(rule: Rule, example: Mapping[str, Any], *,
                     sections: Sequence[SectionKind] = _DEFAULT_SECTIONS,
                     others: Sequence[Rule] = ()) -> list[Finding]:
    """The findings of one rule example from ``lint_rules.yaml``; a text example is put
    under the heading of its section (or ``heading``), and its findings' lines count
    from the text's first line."""
    if "draft" in example:
        doc = parse(example["draft"], sections)
        return apply_rule(rule, doc, facts=example.get("facts"), file="example.md",
                          others=others)
    key = example.get("section", "root_cause")
    heading = example.get("heading") or TITLES.get(key) or key.replace("_", " ").capitalize()
    doc = parse(f"### {heading}\n\n{example['text']}\n", sections)
    return [Finding(f.file, f.line - 2, f.rule, f.message)
            for f in apply_rule(rule, doc, facts=None, file="example.md", others=others)]
