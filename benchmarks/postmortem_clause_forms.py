#!/usr/bin/env python3
"""Which clause forms the judged advocacy spans and the hedging false flags take, per set
(#24, P-5): a measure to run BEFORE writing candidate rules, so that readings are built for
the forms that recur across most sets rather than for words one set holds.

Each set under ROOT (``setN/texts/*.md`` and ``judged.tsv``, as for
``postmortem_lint_eval.py``) is linted once. Then:

- every judged advocacy span is put in the first clause form of ``ADVOCACY_FORMS`` its
  lines show (a rhetorical question, a verdict on a proposal, a wish, a conditional norm,
  a passive norm, a modal norm with people or with a process/design as subject, a bare
  imperative, a maxim or generic present, an evaluation, a proposal list item; else
  other) and in the place it sits (``WHERE``: a section the rule leaves out, a proposal
  section, quoted text, a reply of a thread, the body), and counted as found or missed;
- every advocacy flag outside the judged advocacy spans is put in the first general
  suppression class its sentence shows (``FALSE_FORMS``: the writer's own commitment, a
  TODO, reader guidance, a debugging step, the fix's own to-do, a question), else in the
  clause form it reads as, and in its place;
- every hedging flag outside the judged hedging spans is put in the first false-flag form
  of ``hedge_form`` its sentence shows (a question, a hedge inside an opinion or a norm,
  a symptom as it looked, a belief at the time in a timeline, reader guidance, the
  writer's own next step, an expected effect; else other).

The forms are surface cues of the clause, not a second lint: the table says where the
errors concentrate, and a hand reading of the errors decides what a rule should read.
Only counts are printed, never a line of text, so it may be read on any set whose
figures may be read.

    python benchmarks/postmortem_clause_forms.py ROOT [ROOT ...] [--split fit]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from postmortem_lint_eval import MAX_TEXT, read_sets, split_of  # noqa: E402

from agentops.postmortem import datafiles  # noqa: E402
from agentops.postmortem import lint as lint_mod  # noqa: E402
from agentops.postmortem import mood as mood_mod  # noqa: E402
from agentops.postmortem import speechacts as speech_mod  # noqa: E402

_I = re.IGNORECASE
_LABEL = r"(?:(?:Reply|Author|Maintainer|Reviewer|Reporter):\s*)"


@dataclass(frozen=True)
class _AskedBefore:
    """A question's opening words followed, anywhere later, by a question mark. Read as
    the opening searched up to the last '?' (the same finds as ``opening[^?]*\\?``, which
    rescans to the end from every opening: a span of thousands of "why not" with no '?'
    is quadratic; span texts come from write-ups anyone can write)."""

    opening: re.Pattern[str]

    def search(self, text: str) -> re.Match[str] | None:
        last = text.rfind("?")
        return self.opening.search(text, 0, last) if last >= 0 else None


# Ordered: the first form whose cue the span shows is its form (#24 round 17: the
# issue's ten forms; a modal norm is split by its subject, people or a process/design).
ADVOCACY_FORMS: tuple[tuple[str, re.Pattern[str] | _AskedBefore], ...] = (
    ("rhetorical question", _AskedBefore(re.compile(
        r"\b(why (not|don'?t|do not|can'?t|isn'?t|aren'?t|wouldn'?t)|how about|what about|"
        r"(could|can|should|shall|shouldn'?t|couldn'?t|can'?t|wouldn'?t) (we|they|you|it|"
        r"this|there)|isn'?t it (time|better)|wouldn'?t it|is there (no|any) (way|reason))"
        r"\b", _I))),
    ("verdict on a proposal", re.compile(
        r"\b(agree|\+1|(good|great|bad|nice) (idea|call|proposal|point)|sounds (good|great|"
        r"reasonable)|makes? sense|worth (doing|it|\w+ing)|in favou?r|I second|love (this|"
        r"that|the))\b", _I)),
    ("wish", re.compile(r"\b(would like|'d like|wish|hope|(we|you|they|I) (\w+ly )?need "
                        r"(?!to)|want to see|would love|'d love)\b", _I)),
    ("conditional norm", re.compile(r"\b((would|could|might|'d) (also )?(be|make|have)|"
                                    r"it'd|would (prevent|help)|there could)\b", _I)),
    ("passive norm", re.compile(r"\b(should|must|ought to|needs? to|has to|have to|shall)"
                                r"( \w+)? (be|get) \w+(ed|en|wn)\b", _I)),
    ("modal norm, people subject", re.compile(
        r"\b(we|you|they|I|one|everyone|everybody|people|folks|maintainers|reviewers|"
        r"contributors|developers|devs|authors|committers|users|teams?|nobody|no one|\w+ers)"
        r"( \w+ly| really| also| still| just| all)? (should|must|ought to|needs? to|has to|"
        r"have to|shall|mustn'?t|shouldn'?t)\b", _I)),
    ("modal norm, process/design subject", re.compile(
        r"\b(should|must|ought to|needs? to|has to|have to|shall|mustn'?t|shouldn'?t)\b",
        _I)),
    ("bare imperative", re.compile(
        # One blank run each side of the list marker: "[.!;]\s+\s*(marker)?\s*" read the
        # same blanks three ways (". " and 500 blanks: 40 s).
        rf"(?:^|[.!;]\s)\s*(?:(?:[-*]|\d+\.)\s*)?{_LABEL}?(?:(?:please|also|just|so)\s+)*"
        r"(don'?t|do not|never|always|make sure|ensure|avoid|use|test|check|merge|wait|"
        r"keep|prepare|have|define|grant|know|prefer|reduce|stop|protect|revert|publish|"
        r"run|require|consider|let's)\b", _I)),
    ("maxim or generic present", re.compile(
        r"\b(always|never|every|any|whenever|generally|in general|as a rule|no (change|"
        r"release|one|PR)|nobody|the key|the lesson)\b", _I)),
    ("evaluation", re.compile(
        r"\b(bad|fragile|brittle|wrong|annoying|painful|unacceptable|difficult|hard|"
        r"lack(ing)? of|missing|only (way|safe)|best|better|worse|worst|important|good|"
        r"great|problem(atic)?|unclear|risk\w*|dangerous|single point|insufficient|poor|"
        r"relying|overdue|fine|mess|terrible|inadequate|resilient|robust|limitation|"
        r"irrelevant|relevant)\b", _I)),
    ("proposal list item", re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")),
)
OTHER = "other"
HEDGE_OTHER = "other"

_QUESTION = re.compile(r"\?")
# Opinion cues the mood grammar may not mark: a bet or a guess framing a verdict, a
# comparison or superlative, an alternative put forward, a verdict of need or merit.
_OPINION = re.compile(r"\b(I bet|I'd say|odds are|worse|worst|better|best|(a )?(good|bad|"
                      r"great) idea|(could|might) (also )?be (a|an|some|branches)|there "
                      r"could be|nice to have|(is|are|'s) (necessary|needed|urgent)|"
                      r"does not have a process|doesn't have a process|the problem that)\b",
                      _I)
# Talk between the people of a thread rather than a claim about the incident.
_CONVERSATION = re.compile(r"\b(not sure (why|if|whether|yet)|I think (this|that|it) "
                           r"(is|used)|sorry|thanks?|good to go|;\)|:\))", _I)
_APPEARANCE = re.compile(r"\b(seem(s|ed)?|appear(s|ed)?|look(s|ed)?|apparently)\b", _I)
_AT_THE_TIME = re.compile(r"\b(thought|believed|suspected|assumed|expected|at the time)\b",
                          _I)
_GUIDANCE = re.compile(r"\b(you|users?) (should|may|might|can|could)\b|\bif you\b", _I)
_OWN_STEP = re.compile(r"\b(I|we)('m| am| are|'re)? (not sure|unsure)\b|\b(I|we)('ll| will|"
                       r" might| may| could) (\w+ )?(release|tag|revert|merge|try|look|"
                       r"reset|fix)\b", _I)
_EXPECTED = re.compile(r"\b(should|will|would) (now |no longer |hopefully )?(work|fix|help|"
                       r"be (fixed|fine|good|resolved)|fail|recur|happen)\b|\bexpect\b", _I)
HEDGE_FORMS = ("question", "hedge inside an opinion or norm", "symptom as it looked",
               "belief at the time (timeline)", "reader guidance", "own next step",
               "expected effect", "conversation", HEDGE_OTHER)


# Where a span or a flag sits: the sections the advocacy rule leaves out (the action
# items and their synonyms), a proposal section, quoted text, a reply of a thread, or
# the body of the write-up.
_OUT_OF_SCOPE = ("action_items", "reader_guidance", "solution")
_LABEL_LINE = re.compile(rf"^\s*{_LABEL}")
_QUOTED_LINE = re.compile(rf"^\s*{_LABEL}?>")
WHERE = ("action items", "proposal section", "quoted", "reply", "body")
# What a clean line the advocacy rule flags is, first cue wins: the general suppressions
# the issue names (the writer's own commitment, a to-do, reader guidance, a debugging
# step, the fix's own to-do, a question), else the clause form the flag read.
_COMMITMENT = re.compile(r"\b(I|we)('ll| will| shall|'m going to| am going to|'re going to|"
                         r" are going to| plan to| intend to)\b", _I)
_TODO = re.compile(r"\bTODO\b|^\s*[-*]\s*\[[ xX]?\]")
_READER = re.compile(r"\b(you|users?|readers?) (should|may|might|can|could|need to|must|"
                     r"have to)\b|\bif you\b|\bmake sure (you|your)\b", _I)
_DEBUG = re.compile(r"\b(try|trying|check (if|whether)|test (if|whether)|see (if|whether)|"
                    r"should see|let'?s see|bisect\w*|reproduc\w+|debug\w*|investigat\w+)\b",
                    _I)
_FIX_TODO = re.compile(r"\b(this|the|my|our) (fix|PR|pull request|patch|change|commit|"
                       r"branch|workaround)\b", _I)
FALSE_FORMS = ("own commitment", "TODO", "reader guidance", "debugging step",
               "the fix's own to-do", "question")


def where_of(doc: lint_mod.Document, line: int) -> str:
    """Where a line sits: a section the rule leaves out, a proposal, a quote, a reply."""
    by_number = {ln.number: ln for ln in doc.lines}
    here = by_number.get(line)
    if here is not None and here.section in _OUT_OF_SCOPE:
        return "action items"
    if here is not None and here.section == "proposal":
        return "proposal section"
    if here is not None and _QUOTED_LINE.match(here.raw):
        return "quoted"
    if any(_LABEL_LINE.match(ln.raw) for ln in doc.lines if ln.number <= line):
        return "reply"
    return "body"


def false_form(sentence: str) -> str:
    """The class of a clean sentence the advocacy rule flags."""
    for name, pattern in (("own commitment", _COMMITMENT), ("TODO", _TODO),
                          ("reader guidance", _READER), ("debugging step", _DEBUG),
                          ("the fix's own to-do", _FIX_TODO)):
        if pattern.search(sentence):
            return name
    if _QUESTION.search(sentence):
        return "question"
    return "form: " + advocacy_form(sentence)


NO_ACT = "no act cue"


def speech_act(text: str, acts: tuple[speech_mod.Act, ...]) -> str:
    """The first speech act (the advocacy rule's own ``speech_acts``) whose cue ``text``
    holds, whatever its context, else ``NO_ACT``: how many spans a reading of what a
    sentence does could reach at most."""
    return next((a.name for a in acts if a.cue.search(text)), NO_ACT)


def advocacy_form(text: str) -> str:
    """The clause form of a judged advocacy span's text."""
    for name, pattern in ADVOCACY_FORMS:
        if pattern.search(text):
            return name
    return OTHER


def hedge_form(sentence: str, section: str | None, opinion: bool) -> str:
    """The false-flag form of a hedging flag's sentence; ``opinion``: the lint's own mood
    reading finds a norm or an evaluation in it."""
    if _QUESTION.search(sentence):
        return "question"
    if opinion or _OPINION.search(sentence):
        return "hedge inside an opinion or norm"
    if section == "timeline" and _AT_THE_TIME.search(sentence):
        return "belief at the time (timeline)"
    if _APPEARANCE.search(sentence) and not re.search(r"\b(I|we)\b", sentence, _I):
        return "symptom as it looked"
    if _GUIDANCE.search(sentence):
        return "reader guidance"
    if _OWN_STEP.search(sentence):
        return "own next step"
    if _EXPECTED.search(sentence):
        return "expected effect"
    if _CONVERSATION.search(sentence):
        return "conversation"
    return HEDGE_OTHER


@dataclass
class Tally:
    """Counts per row (a form or a place) and per set; no text."""

    spans: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    missed: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    where: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    where_missed: dict[str, Counter[str]] = field(
        default_factory=lambda: defaultdict(Counter))
    false_a: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    false_where: dict[str, Counter[str]] = field(
        default_factory=lambda: defaultdict(Counter))
    false_h: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    # Speech act by place ("request, reply"), spans and misses.
    acts: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    acts_missed: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))


def tally(roots: list[Path], split: str) -> Tally:
    """Per form and set: advocacy spans (and where they sit), spans missed, advocacy
    false flags (by class and place) and hedging false flags."""
    rules = [r for r in datafiles.lint_rules() if r.kind == "lexicon"]
    sections = datafiles.sections()
    advocacy = next(r for r in rules if r.id == "advocacy")
    t = Tally()
    for root in roots:
        docs, spans = read_sets(root)
        for (set_name, doc), path in sorted(docs.items()):
            if split != "all" and split_of(set_name, doc) != split:
                continue
            text = path.read_bytes()[:MAX_TEXT].decode("utf-8", errors="replace")
            lines = text.splitlines()
            flagged: dict[str, set[int]] = {"advocacy": set(), "hedging": set()}
            for f in lint_mod.lint(text, rules, file=doc, sections=sections):
                if f.rule in flagged:
                    flagged[f.rule].add(f.line)
            parsed = lint_mod.parse(text, sections)
            mine = [s for s in spans if s.set_name == set_name and s.doc == doc]
            for s in (s for s in mine if s.category == "advocacy"):
                form = advocacy_form(" ".join(lines[s.start - 1:s.end]))
                place = where_of(parsed, s.start)
                act = speech_act(" ".join(lines[s.start - 1:s.end]), advocacy.speech_acts) \
                    + (", reply" if place == "reply" else ", elsewhere")
                t.spans[form][set_name] += 1
                t.where[place][set_name] += 1
                t.acts[act][set_name] += 1
                if not any(s.start <= n <= s.end for n in flagged["advocacy"]):
                    t.missed[form][set_name] += 1
                    t.where_missed[place][set_name] += 1
                    t.acts_missed[act][set_name] += 1
            judged_a = [s for s in mine if s.category == "advocacy"]
            for n in sorted(flagged["advocacy"]):
                if any(s.start <= n <= s.end for s in judged_a):
                    continue
                sentence = " ".join(x.text for x in parsed.sentences if n in x.lines)
                t.false_a[false_form(sentence or lines[n - 1])][set_name] += 1
                t.false_where[where_of(parsed, n)][set_name] += 1
            hedges = [s for s in mine if s.category == "hedging"]
            for sentence in parsed.sentences:
                for n in set(sentence.lines) & flagged["hedging"]:
                    if any(s.start <= n <= s.end for s in hedges):
                        continue
                    opinion = any(r.mood in (mood_mod.NORMATIVE, mood_mod.EVALUATIVE)
                                  for r in mood_mod.readings(sentence.text, advocacy.grammar,
                                                             advocacy.mood_grammar))
                    t.false_h[hedge_form(sentence.text, sentence.section, opinion)][
                        set_name] += 1
                    flagged["hedging"].discard(n)  # one count per flagged line
    return t


def _table(title: str, forms: tuple[str, ...], counts: dict[str, Counter[str]],
           missed: dict[str, Counter[str]] | None, sets: list[str]) -> None:
    print(title)
    width = max(38, *(len(f) + 1 for f in forms))
    cell = "n/miss" if missed is not None else "n"
    print(f"{'form':{width}} " + " ".join(f"{s:>8}" for s in sets) + f"  {'total':>6} {'sets':>4}"
          f"  ({cell})")
    for form in forms:
        row = counts.get(form, Counter())
        cells = [f"{row[s]}/{missed[form][s]}" if missed is not None else str(row[s])
                 for s in sets]
        lost = f" missed {sum(missed[form].values())}" if missed is not None else ""
        print(f"{form:{width}} " + " ".join(f"{c:>8}" for c in cells)
              + f"  {sum(row.values()):6} {sum(1 for s in sets if row[s]):4}{lost}")
    print()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("roots", nargs="+", help="folders holding setN/ (judged.tsv, texts/)")
    p.add_argument("--split", choices=("fit", "heldout", "all"), default="all",
                   help="documents of one split of the hash rule (default: all)")
    args = p.parse_args(argv)
    roots = [Path(r) for r in args.roots]
    for root in roots:
        if not root.is_dir():
            p.error(f"{root} is not a folder")
    t = tally(roots, args.split)
    sets = sorted({s for c in (*t.spans.values(), *t.false_h.values(), *t.false_a.values())
                   for s in c}, key=lambda s: (len(s), s))
    _table("advocacy spans by clause form", (*(n for n, _ in ADVOCACY_FORMS), OTHER),
           t.spans, t.missed, sets)
    _table("advocacy spans by place", WHERE, t.where, t.where_missed, sets)
    acts = (*(a.name for a in next(r for r in datafiles.lint_rules()
                                   if r.id == "advocacy").speech_acts), NO_ACT)
    _table("advocacy spans by speech act cue and place",
           tuple(f"{a}, {w}" for a in acts for w in ("reply", "elsewhere")),
           t.acts, t.acts_missed, sets)
    forms_seen = tuple(sorted(k for k in t.false_a if k not in FALSE_FORMS))
    _table("advocacy false flags by class", (*FALSE_FORMS, *forms_seen), t.false_a, None,
           sets)
    _table("advocacy false flags by place", WHERE, t.false_where, None, sets)
    _table("hedging false flags by form", HEDGE_FORMS, t.false_h, None, sets)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
