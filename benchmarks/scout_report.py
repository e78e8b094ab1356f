#!/usr/bin/env python3
"""Wall time of ``scout.py report --offline`` on a real checkout (target: <= 10 s on a
2-core machine for torchtitan), median of N runs, each in a fresh process.

  python benchmarks/scout_report.py /path/to/torchtitan [--runs 5] [--since YYYY-MM-DD]
  SCOUT_CHECKOUT=/path/to/torchtitan python benchmarks/scout_report.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkout", nargs="?", default=os.environ.get("SCOUT_CHECKOUT"))
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--config", default="torchtitan-graph-trainer")
    p.add_argument("--since", default=None,
                   help="baseline date (default: the report's own rule, date - 1 day)")
    p.add_argument("--date", default=None)
    args = p.parse_args()
    if not args.checkout:
        p.error("give the checkout path (argument or SCOUT_CHECKOUT)")
    cmd = [sys.executable, str(ROOT / "scripts" / "scout.py"), "--config", args.config,
           "report", "--checkout", args.checkout, "--offline", "--json"]
    cmd += ["--since", args.since] if args.since else []
    cmd += ["--date", args.date] if args.date else []
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    print(f"scout report --offline on {args.checkout}: median {statistics.median(times):.2f} s "
          f"over {args.runs} runs (min {min(times):.2f}, max {max(times):.2f}); target <= 10 s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
