#!/usr/bin/env python3
"""Who owns a platform's disabled test of a distributed suite? A count (issue #23, T-11,
round tr-fit16b).

Round 4 keeps a disable bot's record of a distributed test with a platform's header and
nothing more contested (`triage review`); round tr-fit15 counted 7 of 7 such records
routed away by humans, among those its one-line rule would change. This benchmark counts
every CI test report of the fit sets (a test-id title and/or a platform's header) and
splits it by

- *kind*: the platform's header alone (``Platforms: rocm``), the header with the
  platform named again as the cause (or a platform's own test or CI signal), a platform
  signal without the header, or a test id with no platform at all;
- *beyond*: distributed evidence beyond the test id: ``trace`` (a distributed hit in a
  traceback or frame), ``prose`` (a distributed hit in the body, a comment or code whose
  matched text is not the test id restated), or ``none``;
- *names*: whether the test id's parts name a component of the queue
  (signals.components_in_test_id);
- what humans did: ``kept`` (the queue's trigger label stayed) or ``away``;

each row also by issue-number band (roughly the year it was filed), and prints the
verdict the shipped planner gives (not distributed / contested / distributed).

Sets: ``dev-fit`` and the released blind sets (blind2 ... as triage_kfold.SEPARATE_SETS
releases them), whose per-issue numbers ``--numbers`` may list; ``--extra`` adds
triage_extra.yaml as a separate block of counts only (it is part of the held-out 64 of
triage_kfold.py: aggregates, never numbers). Still-blind sets are never loaded.

  python benchmarks/triage_platform_tests.py
  python benchmarks/triage_platform_tests.py --numbers --extra --json

Pure CPU: no network, no token, no writes.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import triage_kfold as tk

from agentops.triage.evaluate import Record, snapshot_of
from agentops.triage.model import Queue
from agentops.triage.plan import _component_keywords, plan_issue, read
from agentops.triage.signals import components_in_test_id

RELEASED = ("blind2", *(n for n, runs in tk.SEPARATE_SETS.items() if runs is not None))
HEADER = "platform_test_header"
# Signals that name the platform as the report's owner beside (or without) the header.
PLATFORM_OWNER = frozenset({"platform_owned_test", "platform_named_as_cause", "platform_ci"})
TRACE = frozenset({"traceback", "frame", "top_frame"})
KINDS = ("header only", "header + platform named", "platform, no header",
         "test id, no platform")
# Issue-number bands of pytorch/pytorch, roughly the year an issue was filed.
BANDS = ((91_500, "<=2022"), (116_500, "2023"), (144_500, "2024"), (None, "2025+"))


@dataclass(frozen=True)
class Row:
    """One CI test report, classified."""

    number: int
    kind: str
    beyond: str  # "trace", "prose" or "none"
    names: bool  # the test id's parts name a component of the queue
    kept: bool  # humans kept it in the queue
    verdict: str  # the shipped planner's: "not distributed", "contested", "distributed"
    band: str


def band_of(number: int) -> str:
    return next(name for top, name in BANDS if top is None or number < top)


def classify(rec: Record, queue: Queue, keywords: frozenset[str] | None = None) -> Row | None:
    """The record's row, or None when it is not a CI test report."""
    snap = snapshot_of(rec, queue)
    reading = read(snap, queue)
    hits = list(reading.hits) + (list(reading.later()) if reading.later else [])
    signals = {h.signal for h in hits}
    test_id = reading.text.test_report
    if not (test_id or HEADER in signals):
        return None
    owner = bool(signals & PLATFORM_OWNER)
    kind = (KINDS[1] if owner else KINDS[0]) if HEADER in signals \
        else (KINDS[2] if owner else KINDS[3])
    title = snap.title.lower()
    beyond = [h for h in hits if h.evidence and (h.label or h.role == "distributed")
              and h.places - {"title"} and not (h.found and h.found.lower() in title)]
    where = "trace" if any(h.places & TRACE for h in beyond) else ("prose" if beyond else "none")
    kws = _component_keywords(queue) if keywords is None else keywords
    names = bool(test_id and components_in_test_id(snap.title, kws))
    plan = plan_issue(snap, queue)
    verdict = "not distributed" if plan.decision == "not_distributed" else (
        "contested" if "contested" in plan.reasoning else "distributed")
    return Row(rec.number, kind, where, names, rec.is_distributed, verdict, band_of(rec.number))


def rows_of(recs: Iterable[Record], queue: Queue) -> list[Row]:
    kws = _component_keywords(queue)
    return [row for rec in recs if (row := classify(rec, queue, kws)) is not None]


def table(rows: Sequence[Row]) -> list[dict[str, object]]:
    """Counts per (kind, beyond, names): kept / away, the planner's verdicts, and the
    kept / away split per issue-number band."""
    cells: dict[tuple[str, str, bool], list[Row]] = {}
    for r in rows:
        cells.setdefault((r.kind, r.beyond, r.names), []).append(r)
    order = {k: i for i, k in enumerate(KINDS)}
    out = []
    for (kind, beyond, names), rs in sorted(
            cells.items(), key=lambda kv: (order[kv[0][0]], kv[0][1], not kv[0][2])):
        bands = {b: [sum(r.kept for r in rs if r.band == b),
                     sum(not r.kept for r in rs if r.band == b)]
                 for _, b in BANDS if any(r.band == b for r in rs)}
        out.append({"kind": kind, "beyond": beyond, "names": names,
                    "kept": sum(r.kept for r in rs), "away": sum(not r.kept for r in rs),
                    "verdicts": dict(Counter(r.verdict for r in rs)), "bands": bands})
    return out


def render(name: str, cells: Sequence[dict[str, object]]) -> list[str]:
    out = [f"== {name} ==",
           f"  {'kind':<26}{'beyond':<8}{'names':<7}{'kept':>5}{'away':>6}  "
           "planner / kept-away per band"]
    for c in cells:
        verdicts = ", ".join(f"{v} {n}" for v, n in sorted(c["verdicts"].items()))  # type: ignore[attr-defined]
        bands = " ".join(f"{b} {k}/{a}" for b, (k, a) in c["bands"].items())  # type: ignore[attr-defined]
        out.append(f"  {c['kind']:<26}{c['beyond']:<8}{'yes' if c['names'] else 'no':<7}"
                   f"{c['kept']:>5}{c['away']:>6}  {verdicts}; {bands}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    tk.add_dev_arguments(ap)
    ap.add_argument("--extra", action="store_true",
                    help="add triage_extra.yaml as its own block (counts only)")
    ap.add_argument("--numbers", action="store_true",
                    help="list the fit sets' issue numbers per cell (never the extra set's)")
    ap.add_argument("--json", action="store_true", help="end with one JSON line")
    args = ap.parse_args(argv)
    args.no_extra = not args.extra
    dev = tk.read_dev_sets(args)
    if dev is None:
        return 2
    fit = list(dev.fit)
    for name in RELEASED:
        recs, note = tk.blind_records(name, dev.queue)
        print(note)
        fit += recs
    rows = rows_of(fit, dev.queue)
    out: dict[str, object] = {"fit": table(rows)}
    print("\n".join(render(f"fit: {len(rows)} CI test reports of {len(fit)} issues "
                           f"(dev-fit + {RELEASED[0]}..{RELEASED[-1]})", out["fit"])))  # type: ignore[arg-type]
    if args.numbers:
        by: dict[tuple[str, str, bool, bool], list[int]] = {}
        for r in rows:
            by.setdefault((r.kind, r.beyond, r.names, r.kept), []).append(r.number)
        for (kind, beyond, names, kept), nums in sorted(by.items()):
            print(f"  {kind} / {beyond} / names {'yes' if names else 'no'} / "
                  f"{'kept' if kept else 'away'}: {sorted(nums)}")
    if args.extra and dev.extra:
        extra = rows_of(dev.extra, dev.queue)
        out["extra"] = table(extra)
        print("\n".join(render(f"extra (held-out part, counts only): {len(extra)} CI test "
                               f"reports of {len(dev.extra)} issues", out["extra"])))  # type: ignore[arg-type]
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
