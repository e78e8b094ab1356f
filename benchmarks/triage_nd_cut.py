#!/usr/bin/env python3
"""Step 1 on short reports (issue #23): "not distributed" needs positive evidence of
another owner. The fit part of benchmarks/triage_kfold.py (dev sets' fit issues plus
triage_blind2.yaml when its text cache is there) is planned whole, cut to its title,
and cut to its first 320 characters of text, each with the rule on (the shipped rubric)
and off (every not_distributed signal counted as naming an owner, as before the rule).
Prints not-distributed precision and recall, and how many issues each way ends as
not distributed, routed for review, or marked triaged.

  python benchmarks/triage_nd_cut.py                 # the dev sets next to the repo
  python benchmarks/triage_nd_cut.py A.jsonl B.jsonl

Held-out issues are never planned here. Pure CPU: no network, no token, no writes.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import triage_kfold as tk

from agentops.triage.evaluate import Record, score, snapshot_of
from agentops.triage.model import Queue
from agentops.triage.plan import plan_issue

# The previous round's short-report check: the first 320 characters of a report.
HEAD_CHARS = 320
CUTS = ("full", "title", f"first {HEAD_CHARS}")


def cut(rec: Record, how: str) -> Record:
    if how == "title":
        return replace(rec, text="")
    if how.startswith("first"):
        return replace(rec, text=rec.text[:HEAD_CHARS])
    return rec


def rule_off(queue: Queue) -> Queue:
    """The queue as before the rule: every signal against names an owner."""
    sigs = tuple(replace(s, names_owner=True) for s in queue.rubric.signals)
    return replace(queue, rubric=replace(queue.rubric, signals=sigs))


def row(recs: list[Record], queue: Queue) -> dict[str, object]:
    plans = [plan_issue(snapshot_of(r, queue), queue) for r in recs]
    fig = score(recs, plans, queue).figures()
    nd = sum(p.decision == "not_distributed" for p in plans)
    review = sum(queue.review_label in p.add_labels and p.decision != "not_distributed"
                 for p in plans)
    triaged = sum(queue.triaged_label in p.add_labels for p in plans)
    return {"nd_p": fig["not_distributed_precision"], "nd_r": fig["not_distributed_recall"],
            "nd": nd, "review": review, "triaged": triaged,
            "tri_p": fig["triaged_precision"], "violations": fig["violations"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("datasets", nargs="*", type=Path)
    args = ap.parse_args(argv)
    paths = args.datasets or [p for p in tk.DEFAULT_SETS if p.is_file()]
    if not paths:
        print("no labelled sets given or found next to the repository", file=sys.stderr)
        return 2
    queue = tk.load_queue("distributed")
    fit = [r for p in paths for r in tk.read_records(str(p)) if not tk.held_out(r.number)]
    blind2, note = tk.blind_records("blind2", queue)
    print(note)
    fit += blind2
    n_nd = sum(not r.is_distributed for r in fit)
    print(f"fit part: {len(fit)} issues ({n_nd} not distributed by the humans)")
    print(f"{'cut':<12}{'rule':<5}{'ND prec':>9}{'ND rec':>8}{'ND':>5}{'review':>8}"
          f"{'triaged':>9}{'tri prec':>10}{'viol':>6}")
    for how in CUTS:
        recs = [cut(r, how) for r in fit]
        for name, q in (("off", rule_off(queue)), ("on", queue)):
            x = row(recs, q)
            print(f"{how:<12}{name:<5}{tk._fmt(x['nd_p']):>9}{tk._fmt(x['nd_r']):>8}"
                  f"{x['nd']:>5}{x['review']:>8}{x['triaged']:>9}{tk._fmt(x['tri_p']):>10}"
                  f"{x['violations']:>6}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
