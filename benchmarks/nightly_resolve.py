#!/usr/bin/env python3
"""Bytes, round trips (requests) and wall time of `resolve` (torch/version.py through
range requests) against a loopback server, median of 5: a small wheel and a
several-hundred-MB wheel with ~20k members in four member orders (target <= 256 KiB
per wheel), real torch wheels if given, and the whole `resolve` with the project page
fetched, revalidated from --page-cache (HTTP 304), or skipped with --wheel-url
(target <= 100 KiB in all on a real wheel, issue #13).

  python benchmarks/nightly_resolve.py [--big-mb 400] [--members 20000] [--runs 5]
      [--wheel PATH ...] [--page-files 1500]

The big wheel holds one stored member of zeros (served byte by byte) plus ~20k small
members with torch-like names, so its central directory is about as large as a real
CUDA wheel's (~2 MB). Orders: walk (setuptools' writer), lex, zip (`zip -r` in readdir
order, as PyTorch's repacked Linux wheels; 5 different shuffles), random. A real wheel
comes from `pip download torch==<version> --no-deps -d DIR` (its layout is what
matters; it is served from loopback). The project page lists --page-files other
wheels besides it, as large as a real nightly index's torch page (~0.4 MB).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from agentops.bisect import index as idx  # noqa: E402
from agentops.bisect import page as pg  # noqa: E402
from agentops.bisect import wheels  # noqa: E402
from tests.bisect.server import State, build_wheel, nightly_versions, serve  # noqa: E402

KIB = 1024
HEAD = (f"{'wheel':<40} {'size':>9} {'fetched':>11} {'reqs':>5} {'time':>7}  strategy")


def _measure(root: Path, *, runs: int, range_enabled: bool = True,
             python: str = "3.12") -> tuple[int, float, int, str, bool]:
    state = State(root=root, range_enabled=range_enabled)
    wheel = next(root.glob("*.whl"))
    state.add("torch", wheel)
    sizes, times, reqs = [], [], []
    strategy, full = "", False
    with serve(state) as url:
        http = wheels.transport()
        page = pg.fetch_page(http, url, "torch")
        nightly = idx.select(page.links, package="torch", python=python,
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
        http.close()
    return (int(statistics.median(sizes)), statistics.median(times),
            int(statistics.median(reqs)), strategy, full)


def _row(label: str, size: int, fetched: float, reqs: int, secs: float, *, note: str) -> None:
    print(f"{label:<40} {size / (1 << 20):>7.1f}MB {fetched / KIB:>8.1f}KiB {reqs:>5} "
          f"{secs * 1000:>5.0f}ms  {note}")


def synthetic(args: argparse.Namespace) -> None:
    print(f"resolve, wheel reads only: median of {args.runs} runs on loopback; target "
          "<= 256 KiB per wheel")
    print(HEAD)
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
                _row(label, size, fetched, int(statistics.median(p[2] for p in per)),
                     statistics.median(p[1] for p in per),
                     note=f"{per[0][3]} (max {max(p[0] for p in per) / KIB:.1f}KiB, "
                     f"{max(p[2] for p in per)} reqs)")
                continue
            wheel = build_wheel(d, "2.10.0.dev20260601+cu128", cuda="12.8", **kwargs)
            size = wheel.stat().st_size
            fetched, secs, reqs, strategy, full = _measure(d, runs=runs, range_enabled=ranged)
            mark = "" if full or fetched <= 256 * KIB else "  (over target)"
            _row(label, size, fetched, reqs, secs, note=strategy + mark)
            wheel.unlink()


def _python_of(wheel: Path) -> str:
    tag = wheel.name.split("-")[-3]  # torch-V-cp311-cp311-plat.whl
    return f"{tag[2]}.{tag[3:]}"


def real(args: argparse.Namespace) -> None:
    print()
    print(f"resolve on real wheels (served from loopback), median of {args.runs}: the wheel "
          "reads, then the whole resolve with the project page "
          f"({args.page_files} other files listed)")
    print(HEAD)
    for path in args.wheel:
        wheel = Path(path).resolve()
        python = _python_of(wheel)
        with tempfile.TemporaryDirectory(prefix="agentops-bench-") as tmp:
            root = Path(tmp)
            os.symlink(wheel, root / wheel.name)
            fetched, secs, reqs, strategy, _ = _measure(root, runs=args.runs, python=python)
            _row(f"{wheel.name[:32]}…: wheel", wheel.stat().st_size, fetched, reqs, secs,
                 note=strategy)
            state = State(root=root)
            state.add("torch", root / wheel.name)
            state.listed_only["torch"] = [
                f"torch-{v}-cp3{m}-cp3{m}-manylinux_2_28_{arch}.whl"
                for v in nightly_versions(args.page_files // 8, start="2026-01-01")
                for m in (10, 11, 12, 13) for arch in ("x86_64", "aarch64")]
            cache = root / "page-cache.json"
            with serve(state) as url:
                for label, how in (("page fetched", "fresh"), ("page from cache (304)", "cache"),
                                   ("--wheel-url (no page)", "url")):
                    sizes, times, counts = [], [], []
                    for _ in range(args.runs):
                        if how == "fresh":
                            cache.unlink(missing_ok=True)
                        http = wheels.transport()
                        t0 = time.perf_counter()
                        if how == "url":
                            nightly = idx.nightly_from_url(
                                f"{url.rsplit('/simple', 1)[0]}/files/{wheel.name}", "torch")
                        else:
                            page = pg.fetch_page(http, url, "torch",
                                                 cache=cache if how == "cache" else None)
                            assert (how == "cache") == page.cached
                            nightly = next(n for n in idx.select(
                                page.links, package="torch", python=python,
                                platform="manylinux_2_28_x86_64")
                                if n.wheel.filename == wheel.name)
                        got = wheels.resolve(http, nightly)
                        times.append(time.perf_counter() - t0)
                        sizes.append(http.counter.body_bytes)
                        counts.append(http.counter.total)
                        http.close()
                        if how == "fresh":  # the copy the next runs revalidate
                            saved = pg.fetch_page(wheels.transport(), url, "torch",
                                                  cache=cache).to_save
                            assert saved is not None
                            cache.write_text(saved)
                    total = int(statistics.median(sizes))
                    mark = "" if how == "fresh" or total <= 100 * 1000 else "  (over target)"
                    _row(f"  resolve, {label}", wheel.stat().st_size, total,
                         int(statistics.median(counts)), statistics.median(times),
                         note=f"{got.git_version[:12]}{mark}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--big-mb", type=int, default=400)
    p.add_argument("--members", type=int, default=20000)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--wheel", action="append", default=[],
                   help="a real torch wheel file (repeatable)")
    p.add_argument("--page-files", type=int, default=1500)
    p.add_argument("--skip-synthetic", action="store_true")
    args = p.parse_args()
    if not args.skip_synthetic:
        synthetic(args)
    if args.wheel:
        real(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
