"""Where the judges' advocacy spans sit, and what that does to the advocacy figure (#24, P-5).

A measurement of the truth, not a rule: the standard (P-5; the criteria of
``benchmarks/data/postmortem_lint_judged.yaml``) counts as advocacy a push for a change of
design, process or policy, or an opinion, *outside the action items*, and not advice to
users. Readers differ on the items of a text's own follow-up list (prevention, lessons,
next steps): one marks a bare "add a test for X" there, another does not. This script reads
each judged line's place from the text's structure alone (headings, lead-in lines, list
items, thread replies), reads its form roughly from its first words, and prints per set
and judge the counts and the lint's advocacy P/R both as judged and with the in-list spans
and the flags on in-list lines left out.

    python benchmarks/postmortem_advocacy_places.py [--cache DIR] [--shared DIR]

Only the fit material of the #24 roles is read: gathered sets 34-37 (texts in the local
cache, judged tables in ``benchmarks/data/postmortem_lint_gathered``) and the fit halves of
the shared sets. No text is printed: only identifiers, line numbers, counts and figures.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from judged_tables import read_judged  # noqa: E402
from postmortem_lint_eval import flags as lint_flags  # noqa: E402
from postmortem_lint_eval import load_split  # noqa: E402

from agentops.postmortem import datafiles  # noqa: E402
from agentops.postmortem import lint as lint_mod  # noqa: E402

GATHERED = ROOT / "benchmarks" / "data" / "postmortem_lint_gathered"
SPLIT_FILE = ROOT / "benchmarks" / "data" / "postmortem_lint_eval_split.yaml"
# The fit sets of this stop's roles; the blind ones are never named here, and a set not in
# this tuple is refused, so no flag of the command line can point the script at one.
FIT_GATHERED = ("set34", "set35", "set36", "set37", "set38")
SHARED_SETS = ("set1", "set2")

# Words of a heading or lead-in that opens the writers' own list of what they will do or
# take away: the places P-5's "action items" covers in the shapes real write-ups give it
# (action items, follow-ups, next steps, prevention, remediation, lessons learned, "what we
# will do"). Kept apart from the lint's sections.yaml on purpose: this is the measuring
# stick for the lint's own section reading, so it must not be that reading. The examples
# below are checked by tests/postmortem/test_advocacy_places.py.
FOLLOWUP_WORDS = re.compile(
    r"\b(action (items?|plan|points?)|actions|follow[- ]?ups?|next steps?|"
    r"prevent(ion|ive|ative|ing)?|remediation|corrective|"
    r"lessons?( learned| learnt)?|learnings?|takeaways?|what (we|i) (have )?(learned|learnt)|"
    r"what we(('ll| will| are going to| plan to)( do| change)|( are|'re) (doing|changing))|"
    r"going forward|future (work|measures|plans?|steps|improvements?)|"
    r"improvements?|to-?dos?|recommendations?)\b", re.I)
FOLLOWUP_EXAMPLES = ("Action items", "Follow-ups", "Next steps", "Prevention",
                     "How we prevent this", "Remediation", "Lessons learned",
                     "What we will do", "What we are changing", "Going forward", "TODO",
                     "What I learned")
FOLLOWUP_NOT_EXAMPLES = ("Timeline", "Root cause", "Summary", "Impact", "Actions taken")

_ROLE = re.compile(r"^\s*(?:\*\*|__)?(Reply|Author|Maintainer|Reporter|Reviewer|Commenter|"
                   r"Contributor)(?:\*\*|__)?\s*:")
_ATX = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_BOLD_LINE = re.compile(r"^\s*(?:\*\*|__)([^*_]+?)(?:\*\*|__)\s*:?\s*$")
_RUN_IN = re.compile(r"^\s*(?:\*\*|__)([^*_]{1,60}?)[:.]?(?:\*\*|__)[:.]?\s+\S")
# A plain run-in label naming a follow-up ("Lesson learned: ...") marks its own line only.
_PLAIN_RUN_IN = re.compile(r"^\s*([A-Z][\w' -]{1,40}?)\s*:\s+\S")
_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)]|\[[ xX]\])\s+")
_TAKEN = re.compile(r"\b(taken|done|so far|already)\b", re.I)
# The gathered transcriptions put one paragraph on a line and often drop list markers, so
# an item of a follow-up list is also a short one-sentence line without a marker.
_SENTENCE_END = re.compile(r"[.!?](\s+|$)")

# Places of a line. In-list: the heading or lead-in itself and the items under it.
HEAD, ITEM, SECTION_PROSE = "followup-head", "followup-item", "followup-prose"
PROSE, OTHER_ITEM, REPLY = "prose", "other-item", "reply"
IN_LIST = frozenset({HEAD, ITEM})
IN_SECTION = IN_LIST | {SECTION_PROSE}  # the whole follow-up part, its paragraphs too
PLACES = (HEAD, ITEM, SECTION_PROSE, OTHER_ITEM, PROSE, REPLY)


def opens_followup(label: str) -> bool:
    """Whether a heading's or lead-in's words name the writers' own follow-up list."""
    label = re.sub(r"^[\d.)\s]+", "", label.strip().strip("*_:").strip())
    return bool(FOLLOWUP_WORDS.search(label)) and not _TAKEN.search(label)


def _is_lead_in(text: str) -> bool:
    """A short line closing with a colon and naming a follow-up list ("Next steps:",
    "To prevent this, we will:")."""
    body = _ITEM.sub("", text).strip().strip("*_").strip()
    return body.endswith(":") and len(body.split()) <= 20 and opens_followup(body[:-1])


def _item_like(raw: str) -> bool:
    """A list item, or a line shaped like one whose marker the transcription dropped."""
    if _ITEM.match(raw):
        return True
    body = raw.strip()
    return len(body.split()) <= 30 and len(_SENTENCE_END.findall(body.rstrip(".!? "))) == 0


def places(text: str) -> dict[int, str]:
    """The place of every non-blank line after the title (1-based line numbers)."""
    lines = text.splitlines()
    out: dict[int, str] = {}
    in_reply = False
    section: int | None = None  # level of the open follow-up heading (7 = bold or run-in)
    lead_in = False  # a lead-in's list is open
    lead_in_marked = False  # ... and has shown list markers
    for i, raw in enumerate(lines, start=1):
        if i == 1 or not raw.strip():
            continue
        if _ROLE.match(raw):  # a new comment of a thread: no list of the last one runs on
            in_reply, section, lead_in = True, None, False
        atx = _ATX.match(raw)
        bold = _BOLD_LINE.match(raw) if not atx else None
        if atx or bold:
            level = len(atx.group(1)) if atx else 7
            label = atx.group(2) if atx else bold.group(1)
            lead_in = False
            if opens_followup(label):
                section = level if section is None or level <= section else section
                out[i] = HEAD
                continue
            # A heading at the open section's level or above ends it; a deeper one (a
            # sub-heading sorting its items) does not.
            if section is not None and level <= section:
                section = None
            out[i] = SECTION_PROSE if section is not None else (REPLY if in_reply else PROSE)
            continue
        marked = bool(_ITEM.match(raw))
        # A section's item may have lost its marker; once a lead-in's list has shown
        # markers, a line without one ends it.
        item = marked or (not lead_in_marked and _item_like(raw))
        if lead_in and not item and not raw.startswith((" ", "\t")):
            lead_in = False
        lead_in_marked = lead_in and (lead_in_marked or marked)
        if _is_lead_in(raw):
            out[i] = HEAD
            lead_in = True
            continue
        run_in = _RUN_IN.match(raw)
        if run_in and not item:
            if opens_followup(run_in.group(1)):
                section = 7
                out[i] = SECTION_PROSE
                continue
            if section == 7:
                section = None
        plain = _PLAIN_RUN_IN.match(raw)
        if plain and not _ROLE.match(raw) and opens_followup(plain.group(1)) \
                and section is None and not lead_in:
            out[i] = SECTION_PROSE
            continue
        if lead_in or (section is not None and item):
            out[i] = ITEM
        elif section is not None:
            out[i] = SECTION_PROSE
        elif in_reply:
            out[i] = REPLY
        else:
            out[i] = OTHER_ITEM if _ITEM.match(raw) else PROSE
    return out


# A follow-up part is either what the writers will do (action items, next steps,
# prevention) or what they took away (lessons, takeaways): P-5 exempts the first by name,
# and readers may treat the second differently, so the two are counted apart.
_LESSONS = re.compile(r"\b(lessons?|learn(ed|t|ings?)|takeaways?)\b", re.I)


def part_kinds(text: str, where: dict[int, str] | None = None) -> dict[int, str]:
    """For each line of a follow-up part: "lessons" or "actions", from the words of the
    heading, lead-in or run-in label that opened it."""
    where = places(text) if where is None else where
    lines = text.splitlines()
    out: dict[int, str] = {}
    kind = "actions"
    for i in sorted(where):
        place = where[i]
        if place not in IN_SECTION:
            continue
        label = _PLAIN_RUN_IN.match(lines[i - 1]) or _RUN_IN.match(lines[i - 1])
        if place == HEAD or (label and opens_followup(label.group(1))):
            opener = lines[i - 1] if place == HEAD else label.group(1)
            kind = "lessons" if _LESSONS.search(opener) else "actions"
        out[i] = kind
    return out


# Forms, read roughly from a line's first words (a reading for counting, not a rule).
_STRIP = re.compile(r"^\s*(?:(?:\*\*|__)?(?:Reply|Author|Maintainer|Reporter|Reviewer|"
                    r"Commenter|Contributor)(?:\*\*|__)?\s*:\s*)?(?:[-*+•]|\d{1,3}[.)]|"
                    r"\[[ xX]\])?\s*(?:\*\*|__)?")
_WE = re.compile(r"^(we|i|let'?s|let us|the team|our team)\b[^.;:]{0,40}?\b(will|'ll|should|"
                 r"need|must|are going to|am going to|plan|want|would like|intend)\b", re.I)
_READER = re.compile(r"^(you|if you|users?|make sure you|please (upgrade|update|set|use|"
                     r"install|run|check)|to (work around|fix this),? )\b|\byou (should|must|"
                     r"need|can|may want)\b", re.I)
_REQUEST = re.compile(r"^(please|could (you|someone|we)|can (you|someone|we)|would (you|"
                      r"someone)|@\w)|\b(could|can|would) (you|someone) (please )?\w+", re.I)
_NOT_VERB = frozenset(
    "the a an this that these those it its there here our my your their his her we i you "
    "they he she in on at for of to from with by as if when while after before since "
    "because so but and or not no all some any each every one two also only just then "
    "now still yes thanks thank ok okay hmm hmmm hey dude whoops sorry is are was were "
    "does do did should could would can will may might must what why how who which once "
    "given new good great looks seems options well unless again perhaps maybe".split())
_NEGATIVE_ORDER = re.compile(r"^(don'?t|do not|never|always|just|stop)\b", re.I)


def form_of(line: str, thread: bool = False) -> str:
    """bare imperative | we-will/should | request | reader advice | opinion/verdict.

    A "you" line is addressed to the other party in a thread (the maintainers asked to bump
    a version: a request) and to the reader in a write-up (advice); so ``thread`` (the text
    has comment labels) decides between the two."""
    body = _STRIP.sub("", line).strip()
    if _REQUEST.search(body):
        return "request"
    if _READER.search(body):
        return "request" if thread else "reader-advice"
    if _WE.search(body):
        return "we-will/should"
    first = re.match(r"[A-Za-z']+", body)
    word = first.group(0).lower() if first else ""
    if _NEGATIVE_ORDER.match(body) or (
            word and word not in _NOT_VERB and not word.endswith(("ed", "ing", "ly", "'s"))
            and len(re.split(r"[.!?:](?:\s|$)", body, maxsplit=1)[0].split()) <= 10):
        return "bare-imperative"
    return "opinion/verdict"


def is_thread(lines: list[str]) -> bool:
    """Whether a text is a thread (some line opens with a comment's role label)."""
    return any(_ROLE.match(raw) for raw in lines)


@dataclass(frozen=True)
class Judge:
    set_name: str
    name: str  # "first" or "second"
    texts: dict[str, Path]
    spans: tuple[tuple[str, int, int], ...]  # advocacy spans (doc, start, end)


def read_spans(path: Path, docs: set[str] | None = None) -> tuple[tuple[str, int, int], ...]:
    """The advocacy spans of one judged table (of ``docs`` only, when given)."""
    return tuple((row.doc, row.start, row.end) for row in read_judged(path)
                 if row.cat == "A" and (docs is None or row.doc in docs))


def judges(cache: Path, shared: Path) -> list[Judge]:
    """Every judge of the fit material that is on this machine."""
    out: list[Judge] = []
    for name in FIT_GATHERED:
        folder = cache / name / "texts"
        if not folder.is_dir():
            continue
        texts = {p.stem: p for p in sorted(folder.glob("*.md"))}
        for judge, table in (("first", "judged.tsv"), ("second", "judged_second_reader.tsv")):
            path = GATHERED / name / table
            if path.is_file():
                out.append(Judge(name, judge, texts, read_spans(path, set(texts))))
    split = load_split(SPLIT_FILE) if SPLIT_FILE.is_file() else {}
    for name in SHARED_SETS:
        folder = shared / name
        if not (folder / "judged.tsv").is_file():
            continue
        texts = {p.stem: p for p in sorted((folder / "texts").glob("*.md"))
                 if split.get(f"{name}/{p.stem}") == "fit"}
        out.append(Judge(f"shared-{name}-fit", "first", texts,
                         read_spans(folder / "judged.tsv", set(texts))))
    return out


@dataclass
class Reading:
    places: dict[str, dict[int, str]]  # doc -> line -> place
    lines: dict[str, list[str]]
    flags: dict[str, set[int]]  # lint advocacy flags per doc
    lint_section: dict[str, dict[int, str | None]]  # the lint's own section per line
    kinds: dict[str, dict[int, str]] = field(default_factory=dict)  # follow-up part kinds


def read_texts(texts: dict[str, Path], memo: dict[Path, tuple]) -> Reading:
    sections = datafiles.sections()
    reading = Reading({}, {}, {}, {})
    for doc, path in texts.items():
        if path not in memo:
            text = path.read_text(encoding="utf-8", errors="replace")
            flagged, _ = lint_flags(text)
            parsed = lint_mod.parse(text, sections)
            where = places(text)
            memo[path] = (where, text.splitlines(), flagged["advocacy"],
                          {ln.number: ln.section for ln in parsed.lines},
                          part_kinds(text, where))
        p, lines, f, s, k = memo[path]
        reading.places[doc], reading.lines[doc], reading.kinds[doc] = p, lines, k
        reading.flags[doc], reading.lint_section[doc] = f, s
    return reading


def place_of(reading: Reading, doc: str, start: int, end: int) -> str:
    """A span's place: in-list when any of its lines is, else its first line's."""
    got = [reading.places.get(doc, {}).get(n, PROSE) for n in range(start, end + 1)]
    for p in (ITEM, HEAD):
        if p in got:
            return p
    return got[0] if got else PROSE


def score(reading: Reading, spans, drop: frozenset[str] = frozenset()
          ) -> tuple[int, int, int, int]:
    """(tp, fp, found, spans) of the lint's advocacy flags; the spans placed in ``drop``
    and the flags on lines placed there are out of the count."""
    tp = fp = found = total = 0
    keep = [s for s in spans if place_of(reading, *s) not in drop]
    for doc, flagged in reading.flags.items():
        own = [s for s in keep if s[0] == doc]
        for line in flagged:
            if reading.places[doc].get(line, PROSE) in drop:
                continue
            if any(a <= line <= b for _, a, b in own):
                tp += 1
            else:
                fp += 1
        for _, a, b in own:
            total += 1
            found += any(a <= line <= b for line in flagged)
    return tp, fp, found, total


def _pr(tp: int, fp: int, found: int, total: int) -> str:
    p = f"{tp / (tp + fp):.2f}" if tp + fp else "  - "
    r = f"{found / total:.2f}" if total else "  - "
    return f"P {p} ({tp}/{tp + fp}) R {r} ({found}/{total})"


def report(all_judges: list[Judge]) -> None:
    memo: dict[Path, tuple] = {}
    readings: dict[str, Reading] = {}
    print("advocacy spans by place (in-list = follow-up heading/lead-in or an item under it)")
    print(f"{'set':18} {'judge':6} {'A':>4} {'in-list':>8} " + " ".join(f"{p:>14}" for p in PLACES))
    forms_in: dict[tuple[str, str], Counter] = {}
    for j in all_judges:
        reading = readings.setdefault(j.set_name, read_texts(j.texts, memo))
        counts = Counter(place_of(reading, *s) for s in j.spans)
        n_in = sum(counts[p] for p in IN_LIST)
        share = f"{n_in}={n_in / len(j.spans):.0%}" if j.spans else "0"
        print(f"{j.set_name:18} {j.name:6} {len(j.spans):4} {share:>8} "
              + " ".join(f"{counts[p]:14}" for p in PLACES))
        forms_in[(j.set_name, j.name)] = Counter(
            (place_of(reading, *s) in IN_LIST, form_of(reading.lines[s[0]][s[1] - 1],
                                                  is_thread(reading.lines[s[0]])))
            for s in j.spans if 0 < s[1] <= len(reading.lines.get(s[0], [])))
    print("\nforms (rough reading of the first words), in-list | elsewhere")
    for (set_name, judge), c in forms_in.items():
        ins = ", ".join(f"{f} {n}" for (i, f), n in sorted(c.items()) if i) or "-"
        outs = ", ".join(f"{f} {n}" for (i, f), n in sorted(c.items()) if not i) or "-"
        print(f"{set_name:18} {judge:6} in: {ins} | out: {outs}")
    print("\nspans in a follow-up part (items and paragraphs): the lint's own section of "
          "their first line (action_items is where it allows advocacy), how many it flags, "
          "and its flags on the part's lines")
    for j in all_judges:
        reading = readings[j.set_name]
        mine = [s for s in j.spans if place_of(reading, *s) in IN_SECTION]
        c = Counter(str(reading.lint_section[s[0]].get(s[1])) for s in mine)
        hit = sum(1 for d, a, b in mine if any(a <= n <= b for n in reading.flags[d]))
        flags_in = sum(1 for d, f in reading.flags.items() for n in f
                       if reading.places[d].get(n) in IN_SECTION)
        print(f"{j.set_name:18} {j.name:6} spans {len(mine)}, flagged {hit}; sections: "
              + (", ".join(f"{k} {n}" for k, n in c.most_common()) or "-")
              + f"; lint flags on follow-up lines: {flags_in}")
    print("\nfollow-up parts: lines in them and lines each judge marks advocacy there")
    for j in all_judges:
        reading = readings[j.set_name]
        marked = {(d, n) for d, a, b in j.spans for n in range(a, b + 1)}
        row = []
        for kind in ("actions", "lessons"):
            part = {(d, n) for d, k in reading.kinds.items() for n, v in k.items() if v == kind}
            docs = len({d for d, _ in part})
            row.append(f"{kind} {len(part & marked)}/{len(part)} lines ({docs} texts)")
        print(f"{j.set_name:18} {j.name:6} " + "; ".join(row))
    print("\nthe lint's advocacy figures: as judged | in-list spans and flags left out | "
          "the whole follow-up part left out")
    for j in all_judges:
        reading = readings[j.set_name]
        print(f"{j.set_name:18} {j.name:6} {_pr(*score(reading, j.spans))} | "
              f"{_pr(*score(reading, j.spans, IN_LIST))} | "
              f"{_pr(*score(reading, j.spans, IN_SECTION))}")
    compare(all_judges, readings)


def compare(all_judges: list[Judge], readings: dict[str, Reading]) -> None:
    """Lines one reader marks advocacy and the other does not, by place and form."""
    by_set: dict[str, dict[str, Judge]] = {}
    for j in all_judges:
        by_set.setdefault(j.set_name, {})[j.name] = j
    print("\nadvocacy lines one reader marks and the other does not (place / form)")
    for set_name, pair in by_set.items():
        if len(pair) < 2:
            continue
        reading = readings[set_name]
        lines = {k: {(d, n) for d, a, b in j.spans for n in range(a, b + 1)}
                 for k, j in pair.items()}
        for only, other in (("first", "second"), ("second", "first")):
            diff = lines[only] - lines[other]
            where = Counter(reading.places[d].get(n, PROSE) for d, n in diff)
            forms = Counter(form_of(reading.lines[d][n - 1], is_thread(reading.lines[d]))
                            for d, n in diff
                            if 0 < n <= len(reading.lines[d]))
            n_in = sum(where[p] for p in IN_LIST)
            print(f"{set_name:18} only {only:6} {len(diff):3} lines, in-list {n_in}, "
                  f"reader-advice {forms['reader-advice']}; places "
                  + ", ".join(f"{p} {n}" for p, n in where.most_common())
                  + "; forms " + ", ".join(f"{f} {n}" for f, n in forms.most_common()))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cache", type=Path,
                   default=Path.home() / ".cache" / "agentops" / "postmortem",
                   help="folder holding set34..set37/texts")
    p.add_argument("--shared", type=Path, default=Path("/work/shared/eval/postmortem"),
                   help="folder holding the shared sets (their fit halves are read)")
    args = p.parse_args(argv)
    found = judges(args.cache, args.shared)
    if not found:
        print("error: no fit set with texts found", file=sys.stderr)
        return 2
    report(found)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
