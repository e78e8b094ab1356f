#!/usr/bin/env python3
"""Module F1 split by set (issue #23, round tr-fit14): fit on some sets, check on others.

k-fold by issue (benchmarks/triage_kfold.py) and leave-one-set-out (triage_loso.py) only
refit thresholds; the module rules were written from every fit set, so their module F1
is a fit figure. This benchmark plans named GROUPS of sets and prints, per group, the
figures a rule change is kept on: module F1 with its tp/fp/fn and per-module tp/fp/fn,
sub-oncall accuracy (right/judged) and not-distributed precision/recall (tp/fp/fn).

Those figures do not read the selective thresholds (plan.confidence_score: module choice
and routing keep the plain sum; only `triaged` moves), so every group is planned with
the shipped queue, and the whole fit part's k-fold module F1 equals its figure here.

Sets, by name: ``dev-fit`` and ``dev-held`` (the dev sets split by
triage_kfold.held_out), ``extra`` (triage_extra.yaml) and ``blind2`` ... ``blind16``
(the released blind sets). A set still blind (triage_kfold.SEPARATE_SETS without a
release) is refused by name and never loaded.

Default groups (stop 43, after blind16's release): ``write`` (dev-fit,
blind2..blind8: the sets this round's rules may be written from), ``check``
(blind9..blind16: aggregates only), ``held64`` (dev-held + extra, the held-out 64 of
triage_kfold.py: aggregates only) and ``fit-all`` (dev-fit, blind2..blind16: the k-fold
part). triage_extra.yaml is fit material in the stop's
brief, but triage_kfold.py counts it in the held-out 64, so it is kept out of ``write``
and read only as an aggregate. ``--group NAME=SET,SET`` replaces the defaults (repeat
it). ``--errors GROUP`` lists the group's per-issue sub-oncall errors (the sub-oncall
the figure judges wrong: another one, or none where the humans gave one) and module
errors (planner's modules against the humans'); it refuses a group holding dev-held,
extra or any set named by ``--no-errors-from`` (default: the check sets,
blind9..blind16).

  python benchmarks/triage_setsplit.py
  python benchmarks/triage_setsplit.py --errors write
  python benchmarks/triage_setsplit.py --group a=dev-fit --group b=blind9,blind10 --json

Pure CPU: no network, no token, no writes.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import triage_kfold as tk

from agentops.triage.evaluate import Record, Scores, score, snapshot_of, suboncall_label
from agentops.triage.model import Queue
from agentops.triage.plan import plan_issue

RELEASED = ("blind2", *(n for n, runs in tk.SEPARATE_SETS.items() if runs is not None))
STILL_BLIND = tuple(n for n, runs in tk.SEPARATE_SETS.items() if runs is None)
VALIDATION = ("dev-held", "extra")
CHECK = tuple(f"blind{i}" for i in range(9, 17))
DEFAULT_GROUPS: dict[str, tuple[str, ...]] = {
    "write": ("dev-fit", *(f"blind{i}" for i in range(2, 9))),
    "check": CHECK,
    "held64": VALIDATION,
    "fit-all": ("dev-fit", *RELEASED),
}


def parse_group(spec: str) -> tuple[str, tuple[str, ...]]:
    """``NAME=SET,SET`` -> (NAME, sets); a still-blind or unknown set is an error."""
    name, sep, rest = spec.partition("=")
    sets = tuple(s.strip() for s in rest.split(",") if s.strip())
    if not sep or not name.strip() or not sets:
        raise ValueError(f"--group {spec!r}: expected NAME=SET[,SET...]")
    known = ("dev-fit", *VALIDATION, *RELEASED)
    for s in sets:
        if s in STILL_BLIND:
            raise ValueError(f"--group {spec!r}: {s} is still blind and never planned here")
        if s not in known:
            raise ValueError(f"--group {spec!r}: unknown set {s!r} (known: "
                             + ", ".join(known) + ")")
    return name.strip(), sets


def group_scores(recs: Sequence[Record], queue: Queue
                 ) -> tuple[Scores, list[str], list[str]]:
    """The group's scores, one line per issue whose modules differ from the humans'
    (only issues the module figure judges: distributed, with a human module), and one
    per issue whose sub-oncall does (only issues the sub-oncall figure judges:
    distributed, with a human sub-oncall)."""
    plans = [plan_issue(snapshot_of(r, queue), queue) for r in recs]
    s = score(recs, plans, queue)
    mods = set(queue.modules)
    errs: list[str] = []
    sub_errs: list[str] = []
    for rec, plan in zip(recs, plans, strict=True):
        want = suboncall_label(rec.suboncall, queue) if rec.is_distributed else None
        if want is not None:
            have = next((x for x in queue.suboncalls if x in plan.add_labels), None)
            if have != want:
                sub_errs.append(f"#{rec.number}: {have or 'none'} for {want} "
                                f"(plan {plan.decision})")
        if not (rec.is_distributed and rec.modules):
            continue
        got = set(plan.add_labels) & mods
        if got != rec.modules:
            errs.append(f"#{rec.number}: false {sorted(got - rec.modules)} "
                        f"missed {sorted(rec.modules - got)} (plan {plan.decision})")
    return s, errs, sub_errs


def measures(s: Scores) -> dict[str, object]:
    """Module F1 (counts, per module), sub-oncall accuracy and not-distributed P/R."""
    f = s.figures()
    return {"module_f1": f["module_f1"], "module_counts": [s.tp, s.fp, s.fn],
            "per_module": {m: list(c) for m, c in sorted(s.per_module.items())},
            "suboncall_accuracy": f["suboncall_accuracy"],
            "suboncall_counts": [s.sub_right, s.sub_total],
            "not_distributed_precision": f["not_distributed_precision"],
            "not_distributed_recall": f["not_distributed_recall"],
            "not_distributed_counts": [s.nd_tp, s.nd_fp, s.nd_fn]}


def render(name: str, sets: Sequence[str], n: int, m: dict[str, object]) -> list[str]:
    """The group's block for people."""
    tp, fp, fn = m["module_counts"]  # type: ignore[misc]
    sr, st = m["suboncall_counts"]  # type: ignore[misc]
    ntp, nfp, nfn = m["not_distributed_counts"]  # type: ignore[misc]
    out = [f"== {name}: {n} issues ({' + '.join(sets)}) ==",
           f"  module F1 {tk._fmt(m['module_f1'])} (tp {tp} fp {fp} fn {fn})   "
           f"sub-oncall {tk._fmt(m['suboncall_accuracy'])} ({sr}/{st})   "
           f"not-distributed P {tk._fmt(m['not_distributed_precision'])} "
           f"R {tk._fmt(m['not_distributed_recall'])} (tp {ntp} fp {nfp} fn {nfn})"]
    for mod, (a, b, c) in m["per_module"].items():  # type: ignore[attr-defined]
        out.append(f"    {mod:<34} tp {a:>3} fp {b:>3} fn {c:>3}")
    return out


def load_sets(args: argparse.Namespace, needed: set[str],
              blind: Callable[[str, Queue], tuple[list[Record], str]] = tk.blind_records,
              ) -> tuple[Queue, dict[str, list[Record]]] | None:
    """The named sets' records (only those a group needs), or None without dev sets."""
    dev = tk.read_dev_sets(args)
    if dev is None:
        return None
    out: dict[str, list[Record]] = {"dev-fit": dev.fit, "dev-held": dev.held,
                                    "extra": dev.extra}
    for name in (n for n in RELEASED if n in needed):
        recs, note = blind(name, dev.queue)
        print(note)
        out[name] = recs
    return dev.queue, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    tk.add_dev_arguments(ap)
    ap.add_argument("--group", action="append", default=[], metavar="NAME=SET,SET",
                    help="a group of sets to measure together (repeatable; replaces the "
                         "default groups)")
    ap.add_argument("--errors", metavar="GROUP",
                    help="list GROUP's per-issue sub-oncall and module errors (never of "
                         "dev-held, extra or a --no-errors-from set)")
    ap.add_argument("--no-errors-from", default=",".join(CHECK),
                    help="sets whose per-issue results are never listed (default: "
                         "the check sets)")
    ap.add_argument("--json", action="store_true", help="end with one JSON line")
    args = ap.parse_args(argv)
    try:
        groups = dict(parse_group(g) for g in args.group) if args.group \
            else dict(DEFAULT_GROUPS)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.errors is not None:
        if args.errors not in groups:
            print(f"--errors {args.errors}: no such group", file=sys.stderr)
            return 2
        # Stripped as --group's sets are: "blind9, blind10" bars blind10 too.
        barred = {*VALIDATION, *(s.strip() for s in args.no_errors_from.split(",")
                                 if s.strip())}
        if barred & set(groups[args.errors]):
            print(f"--errors {args.errors}: the group holds "
                  f"{', '.join(sorted(barred & set(groups[args.errors])))}, whose per-issue "
                  "results are not listed", file=sys.stderr)
            return 2
    got = load_sets(args, {s for sets in groups.values() for s in sets})
    if got is None:
        return 2
    queue, recs = got
    out: dict[str, object] = {}
    for name, sets in groups.items():
        group = [r for s in sets for r in recs[s]]
        s, errs, sub_errs = group_scores(group, queue)
        m = measures(s)
        out[name] = {"sets": list(sets), "n": len(group), **m}
        print("\n".join(render(name, sets, len(group), m)))
        if args.errors == name:
            print(f"  sub-oncall errors ({len(sub_errs)}):")
            print("\n".join(f"    {e}" for e in sub_errs))
            print(f"  module errors ({len(errs)}):")
            print("\n".join(f"    {e}" for e in errs))
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
