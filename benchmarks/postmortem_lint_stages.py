#!/usr/bin/env python3
"""Where the lint loses a judged blame or advocacy span, by stage of its reading (#24,
P-5): a measure to run BEFORE writing a rule, so that the stage losing most is fixed
rather than the words of one case.

Each missed span (no flag of its category on its lines) is put in the first stage that
explains the loss, in the order the lint reads a draft:

- ``not-prose``: no sentence covers its lines (a heading, code, a quote, a link target);
- ``section``: every sentence covering it sits in a section the rule leaves out (the
  action items, reader guidance, the fix), named in the detail;
- ``speaker-label``: a thread's role label ("Reply:") opens the sentence and the rule
  hits once the label is taken off;
- ``split``: the rule hits the span's sentences read as one text, or hits a sentence
  covering the span but reports the hit at a line outside it (sentence and line split);
- ``suppression``: a hit the rule's exemptions took away (``unless``, quotation,
  questions, yielding to another rule);
- ``agent``: the predicate is there but its agent is not one the rule blames (blame: a
  fault verb group or cue whose agent is a system, a contribution or unstated) or the
  clause's topic is not one it pushes on (advocacy: a norm or an evaluation about the
  incident's own objects or an unclassed thing);
- ``predicate``: a person-like agent is a clause's subject (blame), but no fault
  predicate was read; for advocacy: no norm or evaluation was read at all;
- ``agent+predicate``: blame only: neither a person-like subject nor a fault predicate.

Only counts are printed by default, so it may be run on any split whose figures may be
read; ``--verbose`` adds document and line per missed span (never the text) and is
refused on the held-out split.

    python benchmarks/postmortem_lint_stages.py /work/shared/eval/postmortem --split fit
    python benchmarks/postmortem_lint_stages.py /work/shared/eval/postmortem --split heldout
    python benchmarks/postmortem_lint_stages.py --corpus /tmp/pm-corpus   # project corpus
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from postmortem_lint_corpus import key, load_data  # noqa: E402
from postmortem_lint_eval import (  # noqa: E402
    MAX_TEXT,
    SPLIT_FILE,
    load_split,
    read_sets,
    split_of,
)

from agentops.errors import DataError  # noqa: E402
from agentops.postmortem import blamecues, datafiles, verbgroups  # noqa: E402
from agentops.postmortem import clauses as clause_mod  # noqa: E402
from agentops.postmortem import lint as lint_mod  # noqa: E402
from agentops.postmortem import mood as mood_mod  # noqa: E402

CATEGORIES = ("blame", "advocacy")
STAGES = ("not-prose", "section", "speaker-label", "split", "suppression", "agent",
          "predicate", "agent+predicate")
# Agent classes that are a person or a group of people (the grammar's other classes are
# a contribution, a system, an act, or no subject at all).
PERSONS = frozenset({"first_person", "we", "second_person", "named", "role", "provider",
                     "name", "nobody"})


def _lines(sentence: lint_mod.Sentence) -> set[int]:
    return set(range(sentence.lines[0], sentence.lines[-1] + 1))


def _hit_lines(rule: lint_mod.Rule, sentence: lint_mod.Sentence,
               rules: Sequence[lint_mod.Rule]) -> set[int]:
    return {sentence.line_at(s) for s, _ in lint_mod.hits(rule, sentence, rules)}


def _unexempt(rule: lint_mod.Rule) -> lint_mod.Rule:
    """The rule without what takes a hit away once found."""
    return replace(rule, unless=(), skip_quoted=False, skip_questions=False, yield_to=(),
                   yield_within=(), beside_links=(), concede=())


# Each exemption alone, as the fields of the rule it empties: which one took the hit.
_EXEMPTIONS = {"unless": {"unless": ()}, "quoted": {"skip_quoted": False},
               "question": {"skip_questions": False},
               "yield": {"yield_to": (), "yield_within": (), "beside_links": (),
                         "concede": ()}}


def _exemption(rule: lint_mod.Rule, sentences: Sequence[lint_mod.Sentence],
               rules: Sequence[lint_mod.Rule]) -> str:
    """The exemptions whose removal alone brings the hit back, or "several"."""
    alone = [name for name, fields in _EXEMPTIONS.items()
             if any(lint_mod.hits(replace(rule, **fields), s, rules) for s in sentences)]
    return ",".join(alone) or "several"


def _any_agent(rule: lint_mod.Rule) -> lint_mod.Rule:
    """The blame rule's fault verbs and cues taking any agent at all."""
    grammar = rule.grammar
    assert grammar is not None
    every = frozenset(grammar.agents) | {clause_mod.SYSTEM, clause_mod.UNSTATED}
    faults = rule.faults
    if faults is not None:
        # A class whose only agent is "nobody" has its fault in that subject ("nobody
        # reviewed it"); with any agent it would read every "reviewed" or a "Reply:"
        # label as a fault, and stage plain predicate losses at the agent.
        faults = replace(faults, classes=tuple(
            c if c.agents == frozenset({"nobody"}) else replace(c, agents=every)
            for c in faults.classes))
    cues = rule.cues
    if cues is not None:
        cues = replace(cues, agents=every,
                       classes=tuple(replace(c, agents=frozenset()) for c in cues.classes))
    return replace(rule, faults=faults, cues=cues)


def _person_subjects(text: str, grammar: clause_mod.Grammar) -> set[str]:
    """The person-like agent classes heading the clauses of ``text``."""
    flat = clause_mod.flatten_asides(text)
    found: set[str] = set()
    for clause in clause_mod.clauses(flat, grammar):
        words = clause_mod.head_subject(flat, clause, grammar)
        agent = clause_mod.classify(words, grammar) if words else ""
        if agent in PERSONS:
            found.add(agent)
    return found


def stage(category: str, covering: Sequence[lint_mod.Sentence], span: set[int],
          rules: Sequence[lint_mod.Rule]) -> tuple[str, str]:
    """The first stage that explains why no flag of ``category`` lies on ``span`` (the
    judged lines), given the parsed sentences ``covering`` those lines: (stage,
    detail)."""
    rule = next(r for r in rules if r.id == category)
    if not covering:
        return "not-prose", ""
    applicable = [s for s in covering if rule.applies_to(s.section)]
    if not applicable:
        return "section", ",".join(sorted({str(s.section) for s in covering}))
    for s in applicable:
        label = lint_mod._ROLE_LABEL.match(s.text)
        if label:
            bare = replace(s, text=" " * label.end() + s.text[label.end():])
            if lint_mod.hits(rule, bare, rules):
                return "speaker-label", ""
    if len(applicable) > 1:
        joined = lint_mod.Sentence(" ".join(s.text for s in applicable),
                                   applicable[0].section, (0,), (applicable[0].line,))
        if lint_mod.hits(rule, joined, rules):
            return "split", "joined"
    lines = [_hit_lines(rule, s, rules) for s in applicable]
    if any(found & span for found in lines):
        return "none", "the rule hits the span"  # a caller staged a span it finds
    if any(found - span for found in lines):
        return "split", "line"
    loose = _unexempt(rule)
    if any(lint_mod.hits(loose, s, rules) for s in applicable):
        return "suppression", _exemption(rule, applicable, rules)
    grammar = rule.grammar
    if grammar is None:
        return "predicate", "no grammar"
    if category == "blame":
        wide = _any_agent(rule)
        # Which fault class met which agent class ("slip:we"): the detail of an agent
        # loss, tallied by class in the aggregate report, so a held-out split says which
        # agent a rule leaves out without a span of it being shown.
        read: set[str] = set()
        for s in applicable:
            text = s.text
            if wide.faults is not None:
                read |= {f"{c}:{a}" for _, _, c, a in
                         verbgroups.faults(text, grammar, wide.faults)}
            if wide.cues is not None:
                read |= {f"{c}:{a}" for _, _, c, a in
                         blamecues.spans(text, grammar, wide.cues)}
        persons = set().union(*(_person_subjects(s.text, grammar) for s in applicable))
        if read:
            return "agent", ",".join(sorted(read))
        # A predicate loss's detail is the person-like subject it has ("we", "role").
        return ("predicate", ",".join(sorted(persons))) if persons else (
            "agent+predicate", "")
    assert rule.mood_grammar is not None
    opinions = [r for s in applicable for r in mood_mod.readings(
        s.text, grammar, rule.mood_grammar) if r.mood in rule.mood_grammar.opinion]
    if opinions:
        return "agent", ",".join(sorted({f"{r.mood}:{r.topic}" for r in opinions}))
    return "predicate", ""


def _rules() -> list[lint_mod.Rule]:
    return [r for r in datafiles.lint_rules() if r.kind == "lexicon"]


def _flagged(text: str, rules: Sequence[lint_mod.Rule]) -> tuple[
        lint_mod.Document, dict[str, set[int]]]:
    sections = datafiles.sections()
    doc = lint_mod.parse(text, sections)
    out: dict[str, set[int]] = {c: set() for c in CATEGORIES}
    for f in lint_mod.lint(text, rules, file="doc", sections=sections):
        if f.rule in out:
            out[f.rule].add(f.line)
    return doc, out


def measure_sets(root: Path, split: str, recorded: dict[str, str]) -> dict[str, Any]:
    """Missed spans of the judged sets under ``root`` by stage."""
    rules = _rules()
    docs, spans = read_sets(root)
    counts: dict[str, Counter[str]] = {c: Counter() for c in CATEGORIES}
    details: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    listed: list[str] = []
    for (set_name, doc), path in sorted(docs.items()):
        where = recorded.get(f"{set_name}/{doc}") or split_of(set_name, doc)
        if split not in ("all", where):
            continue
        own = [s for s in spans if s.set_name == set_name and s.doc == doc
               and s.category in CATEGORIES]
        if not own:
            continue
        raw = path.read_bytes()[:MAX_TEXT].decode("utf-8", errors="replace")
        parsed, flagged = _flagged(raw, rules)
        for s in own:
            totals[s.category] += 1
            lines = set(range(s.start, s.end + 1))
            if flagged[s.category] & lines:
                continue
            covering = [x for x in parsed.sentences if _lines(x) & lines]
            where_lost, detail = stage(s.category, covering, lines, rules)
            counts[s.category][where_lost] += 1
            if s.category == "blame" and where_lost in ("agent", "predicate"):
                details.update(f"{where_lost} {d}" for d in detail.split(","))
            listed.append(f"{s.category} {where_lost} {set_name}/{doc}:{s.start}-{s.end}"
                          + (f" [{detail}]" if detail else ""))
    return _result(split, counts, totals, listed, details)


def measure_corpus(corpus: Path, data_path: Path, split: str) -> dict[str, Any]:
    """Missed judged sentences of the project corpus by stage."""
    rules = _rules()
    data = load_data(data_path)
    judged: dict[str, Any] = data.get("judgements") or {}
    counts: dict[str, Counter[str]] = {c: Counter() for c in CATEGORIES}
    totals: Counter[str] = Counter()
    listed: list[str] = []
    for doc, spec in sorted(data["documents"].items()):
        if split != "all" and spec["split"] != split:
            continue
        path = corpus / f"{doc}.md"
        if not path.is_file():
            continue
        parsed = lint_mod.parse(path.read_text(encoding="utf-8", errors="replace"),
                                datafiles.sections())
        for sentence in parsed.sentences:
            verdict = judged.get(key(sentence.text))
            if verdict is None:
                continue
            for category in CATEGORIES:
                if category not in verdict["labels"]:
                    continue
                totals[category] += 1
                lines = _lines(sentence)
                rule = next(r for r in rules if r.id == category)
                # Judged per sentence, found per sentence, as postmortem_lint_corpus.py
                # counts it: two sentences may share a line.
                if rule.applies_to(sentence.section) and lint_mod.hits(rule, sentence,
                                                                       rules):
                    continue
                where_lost, detail = stage(category, [sentence], lines, rules)
                counts[category][where_lost] += 1
                listed.append(f"{category} {where_lost} {doc}:{sentence.line}"
                              + (f" [{detail}]" if detail else ""))
    return _result(split, counts, totals, listed)


def _result(split: str, counts: dict[str, Counter[str]], totals: Counter[str],
            listed: list[str], details: Counter[str] | None = None) -> dict[str, Any]:
    return {"split": split,
            "categories": {c: {"spans": totals[c], "missed": sum(counts[c].values()),
                               "stages": {st: counts[c][st] for st in STAGES
                                          if counts[c][st]}}
                           for c in CATEGORIES},
            # Blame's agent losses by the fault class and agent class read, its predicate
            # losses by the person-like subject: counts only.
            "blame_agent_readings": dict(sorted((details or Counter()).items())),
            "missed": listed}


def report(result: dict[str, Any], verbose: bool) -> None:
    print(f"split {result['split']}: missed spans by stage")
    for c, r in result["categories"].items():
        stages = ", ".join(f"{st} {n}" for st, n in r["stages"].items()) or "-"
        print(f"{c:9} {r['missed']:3} of {r['spans']:3} missed: {stages}")
    readings = result.get("blame_agent_readings") or {}
    if readings:
        print("blame losses by reading (agent: fault class:agent read; predicate: the "
              "person-like subject; a span may count twice): "
              + ", ".join(f"{k} {n}" for k, n in readings.items()))
    if verbose:
        for line in result["missed"]:
            print(f"    {line}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("eval_dir", nargs="?", type=Path,
                    help="folder holding set1/, set2/, ... (judged.tsv, texts/)")
    ap.add_argument("--corpus", type=Path,
                    help="the built project corpus (postmortem_lint_corpus.py --build)")
    ap.add_argument("--data", type=Path,
                    default=ROOT / "benchmarks" / "data" / "postmortem_lint_judged.yaml")
    ap.add_argument("--split", choices=("fit", "heldout", "fresh", "all"), default="fit")
    ap.add_argument("--split-file", type=Path, default=SPLIT_FILE)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--verbose", action="store_true",
                    help="document and line per missed span (not on heldout)")
    args = ap.parse_args(argv)
    if (args.eval_dir is None) == (args.corpus is None):
        ap.error("give either EVAL_DIR or --corpus")
    if args.verbose and args.split == "heldout" and args.eval_dir is not None:
        print("error: --verbose is refused on the held-out split (aggregates only)",
              file=sys.stderr)
        return 2
    try:
        if args.eval_dir is not None:
            # "all" needs no record of which document is in which split.
            recorded = {} if args.split == "all" else load_split(args.split_file)
            result = measure_sets(args.eval_dir, args.split, recorded)
        else:
            result = measure_corpus(args.corpus, args.data, args.split)
    except DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        out = dict(result)
        if not args.verbose:
            out.pop("missed")
        print(json.dumps(out, indent=1))
    else:
        report(result, args.verbose)
    return 0


if __name__ == "__main__":
    sys.exit(main())
