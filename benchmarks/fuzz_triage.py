#!/usr/bin/env python3
"""Fuzz triage with hostile issues: N seeded cases through plan_issue → apply_plan
(recording fake) → second apply → render, checking T-20…T-28 and inertness.

The generators and the checker are those of tests/property/hostile.py (the CI property
test runs 300 of these under hypothesis); here a seeded random.Random drives them, no
shrinking. Prints the case count, the violation count (target 0) with the first
example of each kind, and the median / p99 / max time per case (with the slowest
seed, so a pathological input can be replayed with --seed S --cases 1).

    python benchmarks/fuzz_triage.py                 # 10,000 cases
    python benchmarks/fuzz_triage.py --cases 500 --seed 7
"""

from __future__ import annotations

import argparse
import collections
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from tests.contract import openapi  # noqa: E402
from tests.property import hostile  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=0, help="first seed; case k uses seed+k")
    p.add_argument("--no-openapi", action="store_true",
                   help="skip checking each write against GitHub's OpenAPI description")
    args = p.parse_args(argv)
    if not args.no_openapi and not openapi.OPENAPI_JSON.exists():
        # The contract check must not vanish silently: install it, or opt out by name.
        print(f"{openapi.OPENAPI_JSON} is missing: {openapi.MISSING_HINT}, or pass "
              "--no-openapi", file=sys.stderr)
        return 2
    try:
        triage = hostile.load_triage(with_openapi=not args.no_openapi)
    except ImportError as exc:
        print(f"triage planner/applier not available ({exc}); nothing to fuzz", file=sys.stderr)
        return 2
    kinds: collections.Counter[str] = collections.Counter()
    first: dict[str, tuple[int, str]] = {}
    times: list[tuple[float, int]] = []
    bad_cases = 0
    for k in range(args.cases):
        seed = args.seed + k
        start = time.perf_counter()
        violations = hostile.run_case(random.Random(seed), triage)
        times.append((time.perf_counter() - start, seed))
        if violations:
            bad_cases += 1
        for v in violations:
            kind = v.split(":", 1)[0]
            kinds[kind] += 1
            first.setdefault(kind, (seed, v))
        if (k + 1) % 1000 == 0:
            print(f"  {k + 1}/{args.cases} cases, {bad_cases} with violations", file=sys.stderr)
    secs = sorted(t for t, _ in times)
    slowest = max(times)
    print(f"cases: {args.cases} (seeds {args.seed}..{args.seed + args.cases - 1})")
    print(f"violations: {sum(kinds.values())} in {bad_cases} cases (target 0)")
    for kind, n in kinds.most_common():
        seed, text = first[kind]
        print(f"  {kind}: {n}  e.g. seed {seed}: {text[:300]}")
    print(f"time per case: median {statistics.median(secs) * 1000:.2f} ms, "
          f"p99 {secs[int(len(secs) * 0.99) - 1] * 1000:.2f} ms, "
          f"max {slowest[0] * 1000:.0f} ms (seed {slowest[1]})")
    return 1 if kinds else 0


if __name__ == "__main__":
    raise SystemExit(main())
