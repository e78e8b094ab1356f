"""Median time of the post-mortem pure path on the seed's Tada example: gate, build the
section model, render Markdown and ADF, validate the ADF, lint the Markdown.

  python benchmarks/postmortem_render.py [--runs 200]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from agentops.postmortem import datafiles, lint, render, validate
from agentops.postmortem.model import merge

ROOT = Path(__file__).resolve().parent.parent


def _median_ms(fn: Callable[[], object], runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=200)
    runs = p.parse_args().runs
    loaded = datafiles.load_facts(ROOT / "examples" / "postmortem" / "tada-hang.facts.yml")
    facts = merge(loaded.content, None, facts_sha256=loaded.sha256)
    rules = datafiles.lint_rules()
    hedges = datafiles.hedges()
    draft = render.build(facts, date="2026-03-30")
    md = render.to_markdown(draft)
    doc = render.to_adf(draft)
    cases = {
        "gate": lambda: validate.check(facts, hedges=hedges),
        "build section model": lambda: render.build(facts, date="2026-03-30"),
        "render markdown": lambda: render.to_markdown(draft),
        "render adf + bytes": lambda: render.adf_bytes(render.to_adf(draft)),
        "validate adf": lambda: render.validate_adf(doc),
        "lint markdown (with facts)": lambda: lint.lint(md, rules, facts=loaded.content),
    }
    print(f"post-mortem pure path, Tada example ({len(md)} B md, "
          f"{len(render.adf_bytes(doc))} B ADF), median of {runs} runs:")
    for name, fn in cases.items():
        print(f"  {name:28s} {_median_ms(fn, runs):8.3f} ms")


if __name__ == "__main__":
    main()
