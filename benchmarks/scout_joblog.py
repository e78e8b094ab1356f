"""Median time and peak memory of parsing a large GitHub Actions job log (S-3a).

A GPU integration job prints tens of MB (8 ranks x every step); collect reads up to
48 MB of it, so the parser must stay linear. Prints medians; asserts nothing.

    python benchmarks/scout_joblog.py [MB]
"""

from __future__ import annotations

import statistics
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from agentops.scout import joblog  # noqa: E402

FIXTURE = ROOT / "tests" / "scout" / "fixtures" / "joblogs" / "integration_failed.log"


def synthetic_log(megabytes: float) -> str:
    """Training chatter from 8 ranks around the real failure fixture."""
    tail = FIXTURE.read_text()
    lines: list[str] = []
    size = 0
    step = 0
    while size < megabytes * 1024 * 1024:
        step += 1
        for rank in range(8):
            line = (f"2026-07-09T04:{step // 60 % 60:02d}:{step % 60:02d}.{rank:07d}Z "
                    f"[fsdp_default] [rank{rank}]:[titan] 2026-07-09 04:00:00,000 - root - "
                    f"INFO - step: {step:6d}  loss: 7.{step % 9999:04d}  memory: 31.2GiB(40%)  "
                    f"tps: 10,{step % 999:03d}  mfu: 41.2%")
            lines.append(line)
            size += len(line) + 1
    return "\n".join(lines) + "\n" + tail


def main() -> None:
    mb = float(sys.argv[1]) if len(sys.argv) > 1 else 32.0
    text = synthetic_log(mb)
    times = []
    for _ in range(5):
        start = time.perf_counter()
        summary = joblog.parse(text, source_dir="torchtitan/experiments/graph_trainer")
        times.append(time.perf_counter() - start)
    assert [t.name for t in summary.failed_tests] == ["fsdp_tp_aot", "fsdp_aot_ac"]
    tracemalloc.start()
    joblog.parse(text, source_dir="torchtitan/experiments/graph_trainer")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    lines = text.count("\n")
    print(f"joblog.parse: {len(text) / 1e6:.1f} MB, {lines} lines: median "
          f"{statistics.median(times):.2f} s over 5 runs "
          f"({lines / statistics.median(times) / 1e6:.2f} M lines/s); "
          f"peak extra memory {peak / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
