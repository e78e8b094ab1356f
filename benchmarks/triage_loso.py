#!/usr/bin/env python3
"""Leave one released set out (issue #23): how `triaged` holds on a set met as a whole.

k-fold by issue (benchmarks/triage_kfold.py) spreads every set over the folds, so each
fold's thresholds were fitted with most of the left-out issue's own set: same gathering,
same years, same labelling habits. A blind set is met differently: none of its issues
was seen. Here each released set S (blind2 onwards) is taken out in turn; thresholds
are fitted on the rest of the fit part (dev fit issues plus every other released set),
the operating scale is chosen on that rest out of fold exactly as triage_kfold.py does
(the lowest of its OPERATING scales whose out-of-fold `triaged` precision reaches the
target), and S is planned with them. Per set: `triaged` plans, judged, right,
precision, coverage, off-queue; then the total over the sets.

A second table gives every measure a blind set is read on, per left-out set and pooled
over them (counts added up): module F1 (tp/fp/fn), sub-oncall accuracy (right/judged),
not-distributed precision/recall (tp/fp/fn) and `triaged` on judgeable issues
(Scores.judgeable); the k-fold rows below get the same line. JSON: ``measures`` in
every row.

Every wrong `triaged` plan of a left-out set gets one class (counts only):

  off_queue      the humans routed the issue away from the queue
  no_module      humans set no queue module (only a sub-oncall); the plan adds one
  extra_module   humans set modules; the plan adds one they did not set
  wrong_sub      modules agree (or none added); the sub-oncall differs

``--errors`` also lists each wrong `triaged` plan of a left-out set (number, class,
plan's labels against the humans'): these sets are fit material. The held-out part and
the blind sets still blind are never planned here (their flags are not read).

  python benchmarks/triage_loso.py
  python benchmarks/triage_loso.py --errors

Pure CPU: no network, no token, no writes.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import triage_kfold as tk

from agentops.triage.calibrate import fit_thresholds, kfold
from agentops.triage.evaluate import Record, Scores, score, snapshot_of, suboncall_label
from agentops.triage.model import Plan, Queue
from agentops.triage.plan import plan_issue

# The released sets, in order of release (blind2 first): those with a --fit flag.
RELEASED = ("blind2", *(n for n, runs in tk.SEPARATE_SETS.items() if runs is not None))
CLASSES = ("off_queue", "no_module", "extra_module", "wrong_sub")


def mistake(rec: Record, plan: Plan, queue: Queue) -> str | None:
    """The class of a `triaged` plan the labels judge wrong, None when it is right or not
    judged (not triaged, or a distributed issue with neither module nor sub-oncall)."""
    added = set(plan.add_labels)
    if queue.triaged_label not in added:
        return None
    if not rec.is_distributed:
        return "off_queue"
    want_sub = suboncall_label(rec.suboncall, queue)
    if not rec.modules and want_sub is None:
        return None
    mods = added & set(queue.modules)
    if not mods <= rec.modules:
        return "no_module" if not rec.modules else "extra_module"
    sub = next((x for x in queue.suboncalls if x in added), None)
    if want_sub is not None and sub != want_sub:
        return "wrong_sub"
    return None


def operating_scale(fit: list[Record], queue: Queue, *, k: int, target: float) -> float:
    """triage_kfold.py's choice on ``fit``, each scale's precision computed out of fold."""
    return tk.operating_scale(
        lambda scale: kfold(fit, queue, k=k, scale=scale).scores.figures()["triaged_precision"],
        target)


@dataclass
class Row:
    """One left-out set's `triaged` figures and its wrong plans by class."""

    name: str
    n: int
    scale: float
    triaged: int = 0
    judged: int = 0
    right: int = 0
    distributed: int = 0
    off_queue: int = 0
    classes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CLASSES, 0))
    wrong: list[str] = field(default_factory=list)
    # Every figure of the left-out set (module F1, sub-oncall, not-distributed, judgeable
    # `triaged`): how the whole planner, not only `triaged`, meets a set it never saw.
    scores: Scores = field(default_factory=Scores)

    def to_json(self) -> dict[str, object]:
        return {"set": self.name, "n": self.n, "scale": self.scale, "triaged": self.triaged,
                "judged": self.judged, "right": self.right,
                "precision": _ratio(self.right, self.judged),
                "coverage": _ratio(self.triaged, self.distributed),
                "off_queue": self.off_queue, "unjudged": self.unjudged,
                "classes": dict(self.classes), "measures": measures(self.scores)}

    @property
    def unjudged(self) -> int:
        """`triaged` plans on queue issues the humans gave neither a module nor a
        sub-oncall: nothing to judge them by (label incompleteness, not a mistake)."""
        return self.triaged - (self.judged - self.off_queue)


def _line(row: Row, scale: str = "") -> str:
    """One row of the table."""
    j = row.to_json()
    return (f"  {row.name:<9}{row.n:>4}{scale:>7}{row.triaged:>9}{row.judged:>8}"
            f"{row.right:>7}{tk._fmt(j['precision']):>11}{tk._fmt(j['coverage']):>10}"
            f"{row.off_queue:>7}{row.unjudged:>9}  "
            + " ".join(f"{row.classes[c]:>12}" for c in CLASSES))


def pooled(parts: list[Scores]) -> Scores:
    """The counts of several sets' Scores added up (micro figures over their union),
    per module too."""
    out = Scores()
    for f in fields(Scores):
        if f.type in ("int", int):
            setattr(out, f.name, sum(getattr(p, f.name) for p in parts))
    for p in parts:
        out.errors += p.errors
        for module, cell in p.per_module.items():
            mine = out.per_module.setdefault(module, [0, 0, 0])
            out.per_module[module] = [a + b for a, b in zip(mine, cell, strict=True)]
    return out


def measures(s: Scores) -> dict[str, object]:
    """The figures a blind set is read on, with their counts."""
    f = s.figures()
    return {"module_f1": f["module_f1"], "module_precision": f["module_precision"],
            "module_recall": f["module_recall"], "module_counts": [s.tp, s.fp, s.fn],
            "suboncall_accuracy": f["suboncall_accuracy"],
            "suboncall_counts": [s.sub_right, s.sub_total],
            "not_distributed_precision": f["not_distributed_precision"],
            "not_distributed_recall": f["not_distributed_recall"],
            "not_distributed_counts": [s.nd_tp, s.nd_fp, s.nd_fn],
            "judgeable_triaged": s.judgeable()}


def _measure_line(name: str, s: Scores) -> str:
    """One row of the measures table: figure (counts)."""
    f, j = s.figures(), s.judgeable()
    return (f"  {name:<9}{tk._fmt(f['module_f1']):>7} ({s.tp}/{s.fp}/{s.fn}){'':<2}"
            f"{tk._fmt(f['suboncall_accuracy']):>7} ({s.sub_right}/{s.sub_total}){'':<2}"
            f"{tk._fmt(f['not_distributed_precision']):>7}/{tk._fmt(f['not_distributed_recall'])}"
            f" ({s.nd_tp}/{s.nd_fp}/{s.nd_fn}){'':<2}"
            f"{j['right']}/{j['judged']} at {j['triaged']} of {j['distributed']}")


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 3) if b else None


def leave_out(name: str, sets: dict[str, list[Record]], base: list[Record], queue: Queue,
              *, k: int, target: float) -> Row:
    """Fit on ``base`` plus every set but ``name``; plan ``name``'s issues."""
    rest = base + [r for n, recs in sets.items() if n != name for r in recs]
    scale = operating_scale(rest, queue, k=k, target=target)
    sel = tk.scaled_selective(fit_thresholds(rest, queue), scale)
    fitted = replace(queue, confidence=sel)
    recs = sets[name]
    plans = [plan_issue(snapshot_of(r, fitted), fitted) for r in recs]
    s = score(recs, plans, fitted)
    row = Row(name=name, n=len(recs), scale=scale, triaged=s.triaged_any,
              judged=s.triaged_total, right=s.triaged_right, distributed=s.distributed,
              off_queue=s.triaged_off_queue, scores=s)
    for rec, plan in zip(recs, plans, strict=True):
        cls = mistake(rec, plan, fitted)
        if cls is None:
            continue
        row.classes[cls] += 1
        got = sorted(set(plan.add_labels) & {*queue.modules, *queue.suboncalls})
        want = sorted(rec.modules) + ([rec.suboncall] if rec.suboncall else [])
        row.wrong.append(f"#{rec.number} {cls}: plan {got} vs humans {want}")
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    tk.add_dev_arguments(ap)
    ap.add_argument("--errors", action="store_true",
                    help="list each wrong `triaged` plan of a left-out set (fit material)")
    ap.add_argument("--json", action="store_true", help="end with one JSON line")
    args = ap.parse_args(argv)
    dev = tk.read_dev_sets(args)
    if dev is None:
        return 2
    queue = dev.queue
    sets: dict[str, list[Record]] = {}
    for name in RELEASED:
        recs, note = tk.blind_records(name, queue)
        print(note)
        if recs:
            sets[name] = recs
    target = queue.confidence.target_precision
    print(f"\n== leave one released set out: fit on {len(dev.fit)} dev fit issues plus "
          f"the other released sets; target {target:g} ==")
    print(f"  {'set':<9}{'n':>4}{'scale':>7}{'triaged':>9}{'judged':>8}{'right':>7}"
          f"{'precision':>11}{'coverage':>10}{'off-q':>7}{'unjudged':>9}  "
          + " ".join(f"{c:>12}" for c in CLASSES))
    rows = []
    for name in sets:
        row = leave_out(name, sets, list(dev.fit), queue, k=args.k, target=target)
        rows.append(row)
        print(_line(row, "x" + format(row.scale, "g")))
    tot = Row(name="all", n=sum(r.n for r in rows), scale=0.0,
              triaged=sum(r.triaged for r in rows), judged=sum(r.judged for r in rows),
              right=sum(r.right for r in rows), distributed=sum(r.distributed for r in rows),
              off_queue=sum(r.off_queue for r in rows),
              classes={c: sum(r.classes[c] for r in rows) for c in CLASSES})
    tot.scores = pooled([r.scores for r in rows])
    j = tot.to_json()
    print(_line(tot))
    print("\n== the same left-out plans, every measure: module F1 (tp/fp/fn), sub-oncall "
          "(right/judged), not-distributed P/R (tp/fp/fn), judgeable `triaged` "
          "(right/judged at triaged of judgeable queue issues) ==")
    for row in [*rows, tot]:
        print(_measure_line(row.name, row.scores))
    # The same classes for k-fold by issue on the whole fit part (every set spread over
    # the folds), split into the dev part and the released sets: the figure the
    # leave-one-set-out table is compared with.
    whole = list(dev.fit) + [r for recs in sets.values() for r in recs]
    scale = operating_scale(whole, queue, k=args.k, target=target)
    folded = kfold(whole, queue, k=args.k, scale=scale)
    dev_numbers = {r.number for r in dev.fit}
    print(f"\n== k-fold by issue on the whole fit part ({len(whole)} issues, x{scale:g}) ==")
    kf_rows = {}
    for part in ("dev", "sets"):
        row = Row(name=part, n=0, scale=scale)
        each = []
        for rec, plan in zip(whole, folded.plans, strict=True):
            if (rec.number in dev_numbers) != (part == "dev"):
                continue
            s = score([rec], [plan], queue)
            each.append(s)
            row.n += 1
            row.triaged += s.triaged_any
            row.judged += s.triaged_total
            row.right += s.triaged_right
            row.distributed += s.distributed
            row.off_queue += s.triaged_off_queue
            cls = mistake(rec, plan, queue)
            if cls is not None:
                row.classes[cls] += 1
                row.wrong.append(f"#{rec.number} {cls}")
        row.scores = pooled(each)
        kf_rows[part] = row.to_json()
        print(_line(row))
        print("  " + _measure_line(part, row.scores).strip())
        if args.errors:
            for line in row.wrong:
                print(f"    {line}")
    if args.errors:
        print("\n== wrong `triaged` plans of the left-out sets ==")
        for row in rows:
            for line in row.wrong:
                print(f"  {row.name:<9}{line}")
    if args.json:
        print(json.dumps({"sets": [r.to_json() for r in rows], "all": j, "kfold": kf_rows}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
