#!/usr/bin/env python3
"""How the triage planner holds up on issues it has not seen (issue #10): k-fold by
issue over labelled sets, next to the full-set figures, plus precision at coverage.

For each fold the selective thresholds (labels.json config.confidence) are fitted on
the other folds and the fold is planned with them; every issue is scored from the run
that never saw it. The full-set column fits and checks on the same issues (optimistic
by construction). ``--write`` stores the thresholds fitted on all given issues in the
queue's labels.json (review the diff).

  python benchmarks/triage_kfold.py ../shared/eval/triage-dev.jsonl ../shared/eval/triage-dev2.jsonl
  python benchmarks/triage_kfold.py A.jsonl B.jsonl --k 5 --target 0.95 --write

Pure CPU: no network, no token; writes only with --write.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from agentops.triage.calibrate import (  # noqa: E402
    ablation,
    fit_thresholds,
    kfold,
    thresholds_json,
)
from agentops.triage.evaluate import FIGURES, evaluate  # noqa: E402
from agentops.triage.offline import read_records  # noqa: E402
from agentops.triage.queue import load_queue, queue_dir  # noqa: E402

# The labelled sets live next to the repository (main checkout or a worktree below it).
DEFAULT_SETS = [base / "shared" / "eval" / f"triage-dev{s}.jsonl"
                for base in (ROOT.parent, ROOT.parent.parent) for s in ("", "2")]


def _fmt(v: object) -> str:
    if v is None:
        return "n/a"
    return str(v) if isinstance(v, int) else f"{v:.3f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("datasets", nargs="*", type=Path)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--target", type=float, default=None,
                    help="precision each label's threshold aims at (default: the queue's)")
    ap.add_argument("--queue", default="distributed")
    ap.add_argument("--write", action="store_true",
                    help="store the thresholds fitted on all issues in the queue's labels.json")
    ap.add_argument("--ablate", action="store_true",
                    help="also remove each rubric signal in turn and list the issues it fixes "
                         "and breaks, and in how many folds it fixes any")
    ap.add_argument("--json", action="store_true", help="end with one JSON line")
    args = ap.parse_args(argv)
    paths = args.datasets or [p for p in DEFAULT_SETS if p.is_file()]
    if not paths:
        print("no labelled sets given or found next to the repository", file=sys.stderr)
        return 2
    queue = load_queue(args.queue)
    out: dict[str, object] = {}
    sets = {p.name: read_records(str(p)) for p in paths}
    if len(sets) > 1:
        sets["all"] = [r for recs in list(sets.values()) for r in recs]
    for name, records in sets.items():
        kf = kfold(records, queue, k=args.k, target=args.target)
        full_sel = fit_thresholds(records, queue, target=args.target)
        full_q = replace(queue, confidence=full_sel)
        full = evaluate(records, full_q)
        shipped = evaluate(records, queue)
        kfig, ffig, sfig = kf.scores.figures(), full.planner.figures(), shipped.planner.figures()
        base = full.baseline.figures()
        print(f"\n== {name}: {len(records)} issues, k={args.k} folds by issue ==")
        print(f"{'figure':<28}{'k-fold':>9}{'full':>9}{'shipped':>9}{'baseline':>10}")
        for key in FIGURES:
            print(f"{key:<28}{_fmt(kfig[key]):>9}{_fmt(ffig[key]):>9}{_fmt(sfig[key]):>9}"
                  f"{_fmt(base[key]):>10}")
        ratio = (kfig["module_f1"] / base["module_f1"]
                 if kfig["module_f1"] and base["module_f1"] else None)
        print(f"{'module F1 / baseline':<28}{_fmt(ratio):>9}")
        print("precision at coverage (shipped thresholds scaled):")
        for op in shipped.points:
            print(f"  x{op.scale:<4g} coverage {_fmt(op.coverage)}  triaged precision "
                  f"{_fmt(op.precision)}  ({op.triaged} triaged)")
        out[name] = {"k": args.k, "kfold": kfig, "full": ffig, "shipped": sfig,
                     "baseline": base}
    if args.ablate:
        records = sets.get("all") or next(iter(sets.values()))
        print(f"\n== ablation on {len(records)} issues (thresholds off): signal, folds it "
              "helps in, issues fixed / broken by it ==")
        for eff in sorted(ablation(records, queue, k=args.k),
                          key=lambda e: (e.folds, len(e.fixes) - len(e.breaks))):
            flag = "  <- one fold only" if eff.folds == 1 else (
                "  <- breaks more than it fixes" if len(eff.breaks) > len(eff.fixes) else "")
            print(f"  {eff.signal:<30} folds {eff.folds}  fixes {len(eff.fixes):>2} "
                  f"{list(eff.fixes)[:6]}  breaks {len(eff.breaks):>2} "
                  f"{list(eff.breaks)[:6]}{flag}")
    if args.write:
        records = sets.get("all") or next(iter(sets.values()))
        sel = fit_thresholds(records, queue, target=args.target)
        folder, _ = queue_dir(args.queue)
        path = folder / "labels.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        fitted = thresholds_json(sel)
        fitted["fitted_on"] = (f"{len(records)} labelled issues ("
                               + ", ".join(p.name for p in paths) + ")")
        doc["config"]["confidence"] = fitted
        path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"\nwrote config.confidence to {path}")
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
