#!/usr/bin/env python3
"""Calibration of `triaged` (issue #23): precision per confidence band and the
coverage/precision curve, out of fold on the fit part as a whole and on each fit set, and
on the held-out part (the dev sets' held-out quarter plus the extra set).

The material is triage_kfold.py's: the same split, the same fit flags (only sets released
as fit material can be named; a set still blind is never loaded here), the same k folds
and the same choice of operating scale (the lowest of OPERATING whose out-of-fold `triaged`
precision reaches the target). Thresholds are fitted on the fit part only; the held-out
part is planned with them and never fitted on, and only its aggregates are printed.

Two calibration tables per part:

- "planner": selective triage off, every plan the planner would call done, grouped by its
  confidence (the weakest confidence score among the labels it decides): whether the score
  separates right from wrong plans at all (what thresholds can act on);
- "shipped": the plans marked `triaged` at the operating scale (out of fold on the fit
  part), grouped the same way: the precision the bot would have had.

With ``--shapes``, for the fit part as a whole it also prints the `triaged` plans out of
fold by shape (calibrate.plan_shape: which step decided, how many modules, where and how
often the report names them, evidence against), with the fit sets that hold a wrong or
off-queue one of each shape: on new issues the wrong plans were confident (issue #23,
calibration round), so a gate is read off shapes with a record of being right, not off
scores. A cell is often one issue, so the table is read as ``--errors`` is (not for a set
still under validation); the held-out part never gets one.

A right plan's modules are within the humans' and its sub-oncall is theirs (evaluate's
`triaged` precision); a plan marked `triaged` on an issue the humans sent away from the
queue is judged wrong, as evaluate's figure judges it, and also counted in its own column
("off-queue").

  python benchmarks/triage_calibration.py --fit-blind2 --fit-blind3 --fit-blind4 \\
      --fit-blind5 --fit-blind6 --fit-blind7

Pure CPU: no network, no token; writes nothing.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from triage_kfold import (  # noqa: E402
    CURVE,
    OPERATING,
    SEPARATE_SETS,
    add_dev_arguments,
    blind_records,
    operating_scale,
    read_dev_sets,
    scaled_selective,
)

from agentops.triage.calibrate import (  # noqa: E402
    BANDS,
    fit_thresholds,
    kfold,
    plan_confidence,
    shape_record,
    unthresholded,
)
from agentops.triage.evaluate import Record, score, snapshot_of  # noqa: E402
from agentops.triage.model import Plan, Queue  # noqa: E402
from agentops.triage.plan import plan_issue  # noqa: E402


def _fmt(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.3f}"


def bands(records: Sequence[Record], plans: Sequence[Plan], queue: Queue) -> list[list[int]]:
    """Per band of BANDS: [judged, right, off-queue] among the plans marked `triaged`; an
    off-queue plan is judged (wrong) as evaluate judges it, and counted in its column."""
    out = [[0, 0, 0] for _ in BANDS]
    for rec, plan in zip(records, plans, strict=True):
        if queue.triaged_label not in plan.add_labels:
            continue
        conf = plan_confidence(plan, queue)
        i = max((k for k, lo in enumerate(BANDS) if conf is not None and conf >= lo),
                default=0)
        s = score([rec], [plan], queue)
        out[i][0] += s.triaged_total
        out[i][1] += s.triaged_right
        out[i][2] += s.triaged_off_queue
    return out


def print_bands(title: str, rows: list[list[int]]) -> None:
    print(f"  {title}")
    for k, (judged, right, off) in enumerate(rows):
        hi = f"{BANDS[k + 1]:g}" if k + 1 < len(BANDS) else "+"
        prec = right / judged if judged else None
        print(f"    {f'[{BANDS[k]:g}, {hi})':<10} judged {judged:>3}  right {right:>3}  "
              f"precision {_fmt(prec):>5}  off-queue {off:>2}")


def curve_row(records: Sequence[Record], plans: Sequence[Plan], queue: Queue,
              ) -> tuple[float | None, float | None, int]:
    s = score(records, plans, queue)
    fig = s.figures()
    return fig["triaged_coverage"], fig["triaged_precision"], s.triaged_off_queue


# The scales the shape table reads (issue #23, calibration round): the operating points
# a refit has chosen so far lie among them.
SHAPE_SCALES = (0.5, 0.75, 1.0)


def print_shapes(records: Sequence[Record], by_scale: Sequence[Sequence[Plan]],
                 where: Sequence[str], queue: Queue) -> None:
    """The plans marked `triaged` out of fold, each issue once (at the lowest of
    SHAPE_SCALES that marks it), by shape, with the fit sets holding a wrong or
    off-queue one of each shape."""
    picked: list[tuple[Record, Plan, str]] = []
    for i, rec in enumerate(records):
        plan = next((plans[i] for plans in by_scale
                     if queue.triaged_label in plans[i].add_labels), None)
        if plan is not None:
            picked.append((rec, plan, where[i]))
    rows: dict[object, list[int]] = {}
    bad_sets: dict[object, set[str]] = {}
    for rec, plan, name in picked:
        for shape, row in shape_record([rec], [plan], queue).items():
            total = rows.setdefault(shape, [0, 0, 0, 0])
            for k in range(4):
                total[k] += row[k]
            if row[1] or row[2]:
                bad_sets.setdefault(shape, set()).add(name)
    scales = ", ".join(f"x{s:g}" for s in SHAPE_SCALES)
    print(f"  by shape (out of fold, each issue at the lowest of {scales} that marks it "
          "`triaged`):")
    for shape in sorted(rows, key=str):
        right, wrong, off, unj = rows[shape]
        sets = ", ".join(sorted(bad_sets.get(shape, ()))) or "-"
        print(f"    {shape!s:<52} right {right:>3}  wrong {wrong:>2}  off-queue {off:>2}  "
              f"unjudged {unj:>3}  wrong/off-queue in: {sets}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_dev_arguments(ap)
    ap.add_argument("--shapes", action="store_true",
                    help="also print the fit part's `triaged` plans by shape, naming the fit "
                         "sets that hold a wrong or off-queue one (one issue per cell is "
                         "common: read it as --errors is read)")
    fit_sets = ["blind2", *(n for n, runs in SEPARATE_SETS.items() if runs is not None)]
    for name in fit_sets:
        ap.add_argument(f"--fit-{name}", action="store_true",
                        help=f"add {name} (released as fit material) to the fit part")
    args = ap.parse_args(argv)
    sets = read_dev_sets(args)
    if sets is None:
        return 2
    queue = sets.queue
    parts: dict[str, list[Record]] = {"dev": sets.fit}
    for name in fit_sets:
        if getattr(args, f"fit_{name}"):
            recs, note = blind_records(name, queue)
            print(note)
            if recs:
                parts[name] = recs
    fit = [r for recs in parts.values() for r in recs]
    print(sets.extra_note)
    held = sets.held + sets.extra
    target = queue.confidence.target_precision

    oof = {s: kfold(fit, queue, k=args.k, scale=s)
           for s in (*CURVE, *(SHAPE_SCALES if args.shapes else ()))}
    chosen = operating_scale(lambda s: oof[s].scores.figures()["triaged_precision"], target)
    raw = fit_thresholds(fit, queue)
    base = unthresholded(queue)
    off_plans = [plan_issue(snapshot_of(r, base), base) for r in fit]
    where = {id(r): name for name, recs in parts.items() for r in recs}

    def subset(name: str | None, plans: Sequence[Plan]) -> tuple[list[Record], list[Plan]]:
        pairs = [(r, p) for r, p in zip(fit, plans, strict=True)
                 if name is None or where[id(r)] == name]
        return [r for r, _ in pairs], [p for _, p in pairs]

    print(f"\nfit part: {len(fit)} issues ({', '.join(f'{n} {len(v)}' for n, v in parts.items())});"
          f" k={args.k}; operating scale x{chosen:g} (lowest of {list(OPERATING)} at "
          f"out-of-fold precision >= {target:g})")
    for name in (None, *parts):
        label = "k-fold, fit part whole" if name is None else f"k-fold, {name} (fit set)"
        recs, plans = subset(name, off_plans)
        print(f"\n== {label}: {len(recs)} issues ==")
        print_bands("calibration, planner (selective triage off):", bands(recs, plans, base))
        recs, plans = subset(name, oof[chosen].plans)
        print_bands(f"calibration, shipped (out of fold, x{chosen:g}):",
                    bands(recs, plans, queue))
        print(f"  curve (out of fold): {'scale':>6}{'coverage':>10}{'precision':>11}"
              f"{'off-queue':>11}")
        for s in CURVE:
            cov, prec, off = curve_row(*subset(name, oof[s].plans), queue)
            mark = "  <- chosen" if s == chosen else ""
            print(f"  {'':<21}x{s:<5g}{_fmt(cov):>10}{_fmt(prec):>11}{off:>11}{mark}")
        if name is None and args.shapes:
            print_shapes(fit, [oof[s].plans for s in SHAPE_SCALES],
                         [where[id(r)] for r in fit], queue)

    print(f"\n== held out: {len(held)} issues (thresholds fitted on the fit part, never on "
          "these; aggregates only) ==")
    held_off = [plan_issue(snapshot_of(r, base), base) for r in held]
    print_bands("calibration, planner (selective triage off):", bands(held, held_off, base))
    shipped = replace(queue, confidence=scaled_selective(raw, chosen))
    held_on = [plan_issue(snapshot_of(r, shipped), shipped) for r in held]
    print_bands(f"calibration, shipped (x{chosen:g}):", bands(held, held_on, shipped))
    print(f"  curve (fitted thresholds scaled): {'scale':>6}{'coverage':>10}{'precision':>11}"
          f"{'off-queue':>11}")
    for s in CURVE:
        q = replace(queue, confidence=scaled_selective(raw, s))
        plans = [plan_issue(snapshot_of(r, q), q) for r in held]
        cov, prec, off = curve_row(held, plans, q)
        mark = "  <- chosen" if s == chosen else ""
        print(f"  {'':<34}x{s:<5g}{_fmt(cov):>10}{_fmt(prec):>11}{off:>11}{mark}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
