"""Median time to parse the project's own YAML data files (rubric, scout targets,
post-mortem schema, lint rules, sections) with the pure-Python strict loader (before,
issue #25 item 11) and with libyaml's (after), both refusing duplicate keys; checks
that both give the same values.

  python benchmarks/data_loader.py [--runs 30]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from agentops import data

ROOT = Path(__file__).resolve().parent.parent


def _median_ms(texts: list[str], loader: type, runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        for text in texts:
            yaml.load(text, Loader=loader)
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=30)
    runs = p.parse_args().runs
    paths = sorted(q for q in (ROOT / "src" / "agentops").rglob("*")
                   if q.suffix in (".yml", ".yaml"))
    texts = [q.read_text(encoding="utf-8") for q in paths]
    before, after = data.yaml_loader(trusted=False), data.yaml_loader(trusted=True)
    for path, text in zip(paths, texts, strict=True):
        if yaml.load(text, Loader=before) != yaml.load(text, Loader=after):
            raise SystemExit(f"{path}: the two loaders disagree")
    for loader in (before, after):
        try:
            yaml.load("a: 1\na: 2\n", Loader=loader)
            raise SystemExit(f"{loader.__name__} kept a duplicate key")
        except yaml.constructor.ConstructorError:
            pass
    size = sum(len(t.encode()) for t in texts)
    print(f"{len(paths)} data files, {size / 1024:.0f} KiB, same values, duplicate keys "
          f"refused by both; median of {runs} runs:")
    b = _median_ms(texts, before, runs)
    a = _median_ms(texts, after, runs)
    print(f"  before: pure-Python SafeLoader    {b:8.1f} ms")
    print(f"  after:  libyaml CSafeLoader       {a:8.1f} ms   ({b / a:.1f}x)")


if __name__ == "__main__":
    main()
