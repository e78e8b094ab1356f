"""A watchdog for inputs built to make a scan backtrack: the call is stopped with
``TimeoutError`` after ``SECONDS``. Not a speed target (those live in benchmarks/):
the bound is many times what a linear scan of the input takes, and far below what a
quadratic one does."""

from __future__ import annotations

import signal
from collections.abc import Callable
from typing import Any

SECONDS = 10.0


def within(seconds: float, fn: Callable[[], Any]) -> Any:
    def _timeout(signum, frame):  # type: ignore[no-untyped-def]
        raise TimeoutError(f"still running after {seconds:.0f} s")

    old = signal.signal(signal.SIGALRM, _timeout)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
