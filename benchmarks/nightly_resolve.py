#!/usr/bin/env python3
"""Bytes fetched and wall time of `resolve` (torch/version.py through range requests)
against a loopback server, median of 5, for a small wheel and a several-hundred-MB
wheel with ~20k members in three member orders. Target: <= 256 KiB per wheel.

  python benchmarks/nightly_resolve.py [--big-mb 400] [--members 20000] [--runs 5]

The big wheel holds one stored member of zeros (served byte by byte) plus ~20k small
members with torch-like names, so its central directory is about as large as a real
CUDA wheel's (~2 MB). Orders: walk (setuptools' writer), lex, zip (`zip -r` in readdir
order, as PyTorch's repacked Linux wheels; 5 different shuffles), random.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from agentops.bisect import index as idx  # noqa: E402
from agentops.bisect import wheels  # noqa: E402
from tests.bisect.server import State, build_wheel, serve  # noqa: E402

KIB = 1024


def _measure(root: Path, *, runs: int, range_enabled: bool = True) -> tuple[int, float, int,
                                                                            str, bool]:
    state = State(root=root, range_enabled=range_enabled)
    wheel = next(root.glob("*.whl"))
    state.add("torch", wheel)
    sizes, times, reqs = [], [], []
    strategy, full = "", False
    with serve(state) as url:
        http = wheels.Http()
        page = wheels.fetch_page(http, url, "torch")
        nightly = idx.select(page.links, package="torch", python="3.12",
                             platform="manylinux_2_28_x86_64")[0]
        for _ in range(runs):
            served_before = state.bytes_for(wheel.name)
            t0 = time.perf_counter()
            got = wheels.resolve(http, nightly)
            times.append(time.perf_counter() - t0)
            assert got.bytes_fetched == state.bytes_for(wheel.name) - served_before
            sizes.append(got.bytes_fetched)
            reqs.append(got.requests)
            strategy, full = got.strategy, got.full_download
        http.session.close()
    return (int(statistics.median(sizes)), statistics.median(times),
            int(statistics.median(reqs)), strategy, full)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--big-mb", type=int, default=400)
    p.add_argument("--members", type=int, default=20000)
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args()
    print(f"resolve: median of {args.runs} runs on loopback; target <= 256 KiB per wheel")
    print(f"{'wheel':<34} {'size':>10} {'fetched':>11} {'reqs':>5} {'time':>8}  strategy")
    with tempfile.TemporaryDirectory(prefix="agentops-bench-") as tmp:
        cases = [("small (40 members)", dict(members=40, order="walk"), True)]
        for order in ("walk", "lex", "zip", "random"):
            cases.append((f"big, {order} order", dict(members=args.members, order=order,
                                                      big_member_bytes=args.big_mb << 20,
                                                      big_member_random=False), True))
        cases.append(("big, walk order, Range ignored", dict(
            members=args.members, order="walk", big_member_bytes=args.big_mb << 20,
            big_member_random=False), False))
        for i, (label, kwargs, ranged) in enumerate(cases):
            d = Path(tmp) / str(i)
            d.mkdir()
            runs = args.runs if ranged else 1
            if kwargs.get("order") == "zip":
                # each shuffle puts torch/version.py elsewhere: median over 5 wheels
                per = []
                for seed in range(runs):
                    wheel = build_wheel(d, "2.10.0.dev20260601+cu128", cuda="12.8",
                                        seed=seed, **kwargs)
                    per.append(_measure(d, runs=1))
                    size = wheel.stat().st_size
                    wheel.unlink()
                fetched = int(statistics.median(p[0] for p in per))
                secs = statistics.median(p[1] for p in per)
                reqs = int(statistics.median(p[2] for p in per))
                strategy, full = per[0][3], per[0][4]
                print(f"{label:<34} {size / (1 << 20):>8.1f}MB {fetched / KIB:>8.1f}KiB "
                      f"{reqs:>5} {secs * 1000:>6.0f}ms  {strategy} (max "
                      f"{max(p[0] for p in per) / KIB:.1f}KiB)")
                continue
            wheel = build_wheel(d, "2.10.0.dev20260601+cu128", cuda="12.8", **kwargs)
            size = wheel.stat().st_size
            fetched, secs, reqs, strategy, full = _measure(d, runs=runs, range_enabled=ranged)
            mark = "" if full or fetched <= 256 * KIB else "  (over target)"
            print(f"{label:<34} {size / (1 << 20):>8.1f}MB {fetched / KIB:>8.1f}KiB "
                  f"{reqs:>5} {secs * 1000:>6.0f}ms  {strategy}{mark}")
            wheel.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
