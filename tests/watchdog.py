"""A watchdog for inputs built to make a scan backtrack: the call is stopped with
``TimeoutError`` after ``SECONDS`` of the process's own CPU time. Not a speed target
(those live in benchmarks/): the bound is many times what a linear scan of the input
takes, and far below what a quadratic one does. CPU time, not wall time, because a
backtracking scan burns CPU while a machine shared with other jobs only delays it: a
wall-clock bound failed a linear scan on a loaded machine (load 10 on 2 cores)."""

from __future__ import annotations

import signal
from collections.abc import Callable
from typing import Any

SECONDS = 10.0


def within(seconds: float, fn: Callable[[], Any]) -> Any:
    def _timeout(signum, frame):  # type: ignore[no-untyped-def]
        raise TimeoutError(f"still running after {seconds:.0f} s")

    old = signal.signal(signal.SIGPROF, _timeout)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)
