#!/usr/bin/env python3
"""Median time to get the parsed project page of a loopback index as large as a real
nightly index's torch page (--page-files wheels, JSON and HTML): fetched fresh, and
revalidated from --page-cache (HTTP 304, no body). A 304 should cost less than a
fresh fetch: it moves no body and, since issue #25 item 12, parses nothing either
(the saved copy holds the parsed links).

  python benchmarks/page_cache.py [--page-files 1500] [--runs 15]
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
from agentops.bisect import page as pg  # noqa: E402
from agentops.bisect import wheels  # noqa: E402
from tests.bisect.server import State, build_wheel, nightly_versions, serve  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--page-files", type=int, default=1500)
    p.add_argument("--runs", type=int, default=15)
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="agentops-bench-") as tmp:
        root = Path(tmp)
        wheel = build_wheel(root, "2.10.0.dev20260101+cpu", python="cp312")
        print(f"project page with {args.page_files} files, median of {args.runs} runs "
              "(fetch_page: request, then the parsed links):")
        for fmt in ("json", "html"):
            state = State(root=root, formats=(fmt,))
            state.add("torch", wheel)
            state.listed_only["torch"] = [
                f"torch-{v}-cp3{m}-cp3{m}-manylinux_2_28_{arch}.whl"
                for v in nightly_versions(args.page_files // 8, start="2025-01-01")
                for m in (10, 11, 12, 13) for arch in ("x86_64", "aarch64")]
            cache = root / f"page-cache-{fmt}.json"
            with serve(state) as url:
                http = wheels.transport()
                saved = pg.fetch_page(http, url, "torch", cache=cache).to_save
                assert saved is not None
                cache.write_text(saved, encoding="utf-8")
                # Before: a 304 re-parsed the saved page text (cache format 1); the same
                # request plus that parse stands in for it.
                resp = http.request("GET", idx.project_url(url, "torch"),
                                    headers={"Accept": idx.ACCEPT}, what="index page",
                                    max_bytes=pg.MAX_PAGE_BYTES)
                text, ctype = resp.body.decode(), resp.headers["Content-Type"]
                times: dict[str, list[float]] = {"fresh": [], "before": [], "after": []}
                links = {}
                for _ in range(args.runs):
                    for how in ("fresh", "before", "after"):
                        t0 = time.perf_counter()
                        page = pg.fetch_page(http, url, "torch",
                                             cache=None if how == "fresh" else cache)
                        got = (idx.parse_page(text, ctype, resp.url) if how == "before"
                               else page.links)
                        times[how].append((time.perf_counter() - t0) * 1000)
                        assert page.cached == (how != "fresh")
                        links[how] = tuple(got)
                assert links["fresh"] == links["before"] == links["after"], "links differ"
                http.close()
            med = {k: statistics.median(v) for k, v in times.items()}
            print(f"  {fmt:4s} page ({len(links['fresh'])} links, {cache.stat().st_size // 1024} "
                  f"KiB cache file): fresh {med['fresh']:6.1f} ms; 304 before (re-parse) "
                  f"{med['before']:6.1f} ms, after (parsed copy) {med['after']:6.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
