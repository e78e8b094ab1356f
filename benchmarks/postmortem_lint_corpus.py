#!/usr/bin/env python3
"""Post-mortem lint against real write-ups judged by hand (#11, P-5): precision and
recall of the hedging, blame and advocacy rules, per split, and flags on headings.

The corpus is public post-mortems and point-release posts that other people wrote; their
text never enters this repository. ``benchmarks/data/postmortem_lint_judged.yaml`` holds
only where each document comes from (repository, commit, path), which split it is in,
and a judgement per sentence, keyed by the sha256 of the sentence's normalised text.

Build the corpus from git snapshots of the two source repositories, then measure:

    python benchmarks/postmortem_lint_corpus.py --build /tmp/pm-corpus \\
        --git dfds/postmortems=DIR --git rust-lang/blog.rust-lang.org=DIR
    python benchmarks/postmortem_lint_corpus.py /tmp/pm-corpus            # all splits
    python benchmarks/postmortem_lint_corpus.py /tmp/pm-corpus --split heldout --json

Which sentences were judged: every sentence the linter flags, and every sentence a
deliberately wide net flags (any modal, belief verb, person-plus-failure verb, "should",
praise word; ``NET`` below) — so recall is measured over the positives among those, and
a positive no cue word points at is out of reach of both. ``--candidates`` prints the
sentences still to judge, with their keys; an unjudged flag is counted and reported, so
precision never silently improves when a judgement is missing.

How the splits were used (2026-12-04): rules fitted on ``fit``; ``heldout`` measured
once (hedging P 0.58 R 0.69, blame 1.00/0.25, advocacy 1.00/0.30), then its errors
fitted too; ``fresh`` (six post-mortems of another project, judged afterwards) measured
once before any change it prompted: hedging P 0.80 R 0.57, one false blame flag, one
false advocacy flag, no blame or advocacy to find. Figures after a split was used for
fitting say how well the rules fit, not how they generalise.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import yaml  # noqa: E402

from agentops.postmortem import datafiles  # noqa: E402
from agentops.postmortem import lint as lint_mod  # noqa: E402

DATA = ROOT / "benchmarks" / "data" / "postmortem_lint_judged.yaml"
CATEGORIES = ("hedging", "blame", "advocacy")
TARGETS = {"hedging": (0.80, 0.70), "blame": (0.80, 0.60), "advocacy": (0.60, 0.60)}
# The judging net: wider than any rule, so that judging its catch measures recall.
NET = {
    "hedging": re.compile(
        r"\b(may|might|could|would|seem\w*|appear\w*|likely|unlikely|probabl\w*|possib\w*|"
        r"perhaps|maybe|presumabl\w*|apparent\w*|think|thought|believe\w*|suspect\w*|"
        r"guess\w*|assum\w*|unclear|unknown|not sure|uncertain\w*|hypothes\w*|theor\w*|"
        r"looks?|expect\w*|suggest\w*|indicat\w*|potential\w*|some ?how|somewhat|"
        r"don't know|do not know|not clear|hopefully|afaik|iirc|as far as)\b", re.I),
    "blame": re.compile(
        r"\b(forg[eo]t\w*|neglect\w*|overlook\w*|miss\w*|mistake\w*|fault|blame\w*|"
        r"careless\w*|sloppy|human error|oversight|glossed|should have|shouldn't have|"
        r"failed to|didn't|did not|broke|introduced|my|I|he|she|reviewers?|author|"
        r"engineers?|developers?|operator|on-?call)\b", re.I),
    "advocacy": re.compile(
        r"\b(should|must|need to|needs to|ought|recommend\w*|propos\w*|suggest\w*|urge|"
        r"advocat\w*|important\w*|crucial|essential|best|great|excellent|amazing|"
        r"awesome|proud|opinion|time to|deserv\w*|we'd like|we would like|going forward|"
        r"in the future|from now on|encourag\w*|strongly)\b", re.I),
}


def key(text: str) -> str:
    """The judgement key of a sentence: sha256 of its lowercased, space-folded text."""
    norm = " ".join(text.split()).lower()
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()[:16]


@dataclass
class Tally:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    unjudged_flags: int = 0
    wrong: list[str] = field(default_factory=list)  # doc:line key rule kind

    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None


def load_data(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("version") != 1:
        raise SystemExit(f"error: {path}: version: expected 1")
    for doc, spec in (data.get("documents") or {}).items():
        if not isinstance(spec, dict) or spec.get("split") not in ("fit", "heldout", "fresh"):
            raise SystemExit(f"error: {path}: documents.{doc}.split: fit, heldout or fresh")
    for k, spec in (data.get("judgements") or {}).items():
        labels = spec.get("labels") if isinstance(spec, dict) else None
        if not isinstance(labels, list) or not set(labels) <= set(CATEGORIES):
            raise SystemExit(f"error: {path}: judgements.{k}.labels: a list of "
                             f"{', '.join(CATEGORIES)} (empty: judged clean)")
    return data


def build(out: Path, data: dict[str, Any], gits: dict[str, Path], skip_missing: bool) -> int:
    out.mkdir(parents=True, exist_ok=True)
    skipped = []
    for doc, spec in data["documents"].items():
        repo, commit, path = spec["repo"], spec["commit"], spec["path"]
        if repo not in gits and skip_missing:
            skipped.append(doc)
            continue
        if repo not in gits:
            raise SystemExit(f"error: --git {repo}=DIR is needed for {doc}")
        blob = subprocess.run(["git", "-C", str(gits[repo]), "show", f"{commit}:{path}"],
                              capture_output=True, check=True).stdout
        (out / f"{doc}.md").write_bytes(blob)
    print(f"wrote {len(data['documents']) - len(skipped)} documents to {out}"
          + (f"; not built (no --git for their repository): {', '.join(skipped)}"
             if skipped else ""))
    return 0


def measure(corpus: Path, data: dict[str, Any], split: str,
            candidates: bool, skip_missing: bool = False) -> dict[str, Any]:
    rules = {r.id: r for r in datafiles.lint_rules()}
    sections = datafiles.sections()
    judged: dict[str, Any] = data.get("judgements") or {}
    tallies = {c: Tally() for c in CATEGORIES}
    heading_flags: list[str] = []
    docs = sentences_seen = 0
    todo: list[str] = []
    crashes: list[str] = []
    missing: list[str] = []
    for doc, spec in sorted(data["documents"].items()):
        if split != "all" and spec["split"] != split:
            continue
        path = corpus / f"{doc}.md"
        if not path.is_file() and skip_missing:
            missing.append(doc)
            continue
        if not path.is_file():
            raise SystemExit(f"error: {path} is missing: build the corpus first (--build)")
        text = path.read_text(encoding="utf-8", errors="replace")
        docs += 1
        try:
            parsed = lint_mod.parse(text, sections)
            findings = lint_mod.lint(text, list(rules.values()), file=doc, sections=sections)
        except Exception as exc:  # a crash is a result here, not an abort
            crashes.append(f"{doc}: {type(exc).__name__}: {exc}")
            continue
        heading_lines = {h.line for h in parsed.headings}
        heading_flags += [str(f) for f in findings
                          if f.line in heading_lines and f.rule in CATEGORIES]
        for sentence in parsed.sentences:
            sentences_seen += 1
            k = key(sentence.text)
            verdict = judged.get(k)
            flagged = {c for c in CATEGORIES if rules[c].applies_to(sentence.section)
                       and lint_mod.hits(rules[c], sentence, list(rules.values()))}
            netted = {c for c in CATEGORIES if NET[c].search(sentence.text)}
            if verdict is None:
                if flagged or netted:
                    under = next((h.text for h in reversed(parsed.headings)
                                  if h.line < sentence.line), "")
                    todo.append(f"{k} {doc}:{sentence.line} [{','.join(sorted(flagged)) or '-'}"
                                f"] <{' '.join(under.split())[:40]}> "
                                f"{' '.join(sentence.text.split())}")
                for c in flagged:
                    tallies[c].unjudged_flags += 1
                continue
            truth = set(verdict["labels"])
            for c in CATEGORIES:
                t = tallies[c]
                if c in flagged and c in truth:
                    t.tp += 1
                elif c in flagged:
                    t.fp += 1
                    t.wrong.append(f"FP {doc}:{sentence.line} {k}")
                elif c in truth:
                    t.fn += 1
                    t.wrong.append(f"FN {doc}:{sentence.line} {k}")
    if candidates:
        print("\n".join(todo))
    return {"split": split, "documents": docs, "sentences": sentences_seen,
            "crashes": crashes, "heading_flags": heading_flags, "to_judge": len(todo),
            "not_built": missing,
            "categories": {c: {"tp": t.tp, "fp": t.fp, "fn": t.fn,
                               "precision": t.precision(), "recall": t.recall(),
                               "unjudged_flags": t.unjudged_flags,
                               "target": {"precision": TARGETS[c][0],
                                          "recall": TARGETS[c][1]},
                               "errors": t.wrong}
                           for c, t in tallies.items()}}


def _fmt(x: float | None) -> str:
    return "  n/a" if x is None else f"{x:5.2f}"


def report(result: dict[str, Any], verbose: bool) -> None:
    print(f"split {result['split']}: {result['documents']} documents, "
          f"{result['sentences']} sentences; still to judge: {result['to_judge']}"
          + (f"; NOT BUILT, left out: {len(result['not_built'])}"
             if result["not_built"] else ""))
    print(f"{'category':10} {'P':>5} {'R':>5}  {'TP':>4} {'FP':>4} {'FN':>4}  "
          f"{'target P/R':>11}  unjudged flags")
    for c, r in result["categories"].items():
        tp, tr = r["target"]["precision"], r["target"]["recall"]
        ok = ((r["precision"] or 0) >= tp and (r["recall"] or 0) >= tr)
        print(f"{c:10} {_fmt(r['precision'])} {_fmt(r['recall'])}  {r['tp']:4} {r['fp']:4} "
              f"{r['fn']:4}  {tp:.2f}/{tr:.2f} {'ok' if ok else 'BELOW'}  "
              f"{r['unjudged_flags']}")
        if verbose:
            for line in r["errors"]:
                print(f"    {line}")
    print(f"flags on headings: {len(result['heading_flags'])}; crashes: "
          f"{len(result['crashes'])}")
    for line in result["heading_flags"] + result["crashes"]:
        print(f"    {line}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("corpus", nargs="?", help="folder of <document>.md files (see --build)")
    p.add_argument("--data", default=str(DATA), help="judgements (default: %(default)s)")
    p.add_argument("--split", choices=("fit", "heldout", "fresh", "all"), default=None,
                   help="one split (default: each split, then all)")
    p.add_argument("--json", action="store_true", help="one JSON object per split")
    p.add_argument("--verbose", action="store_true", help="list every FP and FN")
    p.add_argument("--candidates", action="store_true",
                   help="print the sentences still to judge (key doc:line [flags] text)")
    p.add_argument("--build", metavar="OUT", help="write the corpus from git snapshots")
    p.add_argument("--git", action="append", default=[], metavar="REPO=DIR",
                   help="a git directory holding REPO's history (for --build)")
    p.add_argument("--skip-missing", action="store_true",
                   help="build and measure without the documents of repositories not "
                        "given (reported as not built)")
    args = p.parse_args(argv)
    data = load_data(Path(args.data))
    if args.build:
        gits = dict(g.split("=", 1) for g in args.git)
        return build(Path(args.build), data, {k: Path(v) for k, v in gits.items()},
                     args.skip_missing)
    if not args.corpus:
        p.error("give the corpus folder (or --build OUT)")
    splits = [args.split] if args.split else ["fit", "heldout", "fresh", "all"]
    for split in splits:
        result = measure(Path(args.corpus), data, split, args.candidates,
                         args.skip_missing)
        if args.json:
            print(json.dumps(result))
        else:
            report(result, args.verbose)
            print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
