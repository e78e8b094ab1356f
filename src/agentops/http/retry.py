"""Retry policy of the one HTTP transport: the knobs and defaults per service
(``docs/http.md``), server-asked waits, the one retry loop every caller uses, and
the call counter. Pure: it decides how long to wait and whether to try again."""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import os
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from agentops import ghactions
from agentops.errors import InputError
from agentops.http.urls import short

USER_AGENT = "agentops"
MAX_REDIRECTS = 5
RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
READ_CHUNK = 64 * 1024
# Sanity: an error answer is read only for its message; a few KiB say everything.
ERROR_BODY_BYTES = 64 * 1024

# --- policy -----------------------------------------------------------------------------

SERVICES = ("github", "jira", "files")


@dataclass(frozen=True)
class Policy:
    """How often to try a request again, how long to wait, and how long one request may
    take. One instance per service (``Policy.from_env(service=...)``); the defaults and
    the environment knobs are the table in ``docs/http.md``."""

    attempts: int = 5
    base_delay: float = 1.0  # first backoff; doubles per attempt, with jitter
    max_delay: float = 60.0  # cap of one backoff wait
    # Sanity: a primary rate limit can reset an hour away; waiting that long inside a
    # job burns runner minutes, so past this the call fails with a clear message.
    max_rate_limit_wait: float = 300.0
    timeout: float = 30.0  # seconds a connect or one read may stall
    deadline: float = 45.0  # seconds one request may take in all: redirects, whole body

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, *,
                 service: str = "github") -> Policy:
        """The service's defaults with the ``AGENTOPS_*`` knobs that apply to it."""
        if service not in SERVICES:
            raise ValueError(f"unknown service {service!r}")
        env = os.environ if env is None else env
        values: dict[str, Any] = dict(DEFAULTS[service])
        for knob in KNOBS:
            raw = (env.get(knob.name) or "").strip()
            if not raw or service not in knob.services:
                continue
            try:
                value = float(raw)
            except ValueError:
                value = float("nan")
            if not math.isfinite(value) or value < knob.minimum or (
                    knob.field == "attempts" and value != int(value)):
                raise InputError(knob.name, f"expected {knob.unit} >= {knob.minimum:g}, "
                                 f"got {raw[:40]!r}",
                                 fix=f"unset it (default {values[knob.field]:g}) or give a "
                                     "number, e.g. " + f"{values[knob.field]:g}")
            values[knob.field] = int(value) if knob.field == "attempts" else value
        return cls(**values)

    def replace(self, **changes: Any) -> Policy:
        return dataclasses.replace(self, **changes)

    def backoff(self, attempt: int) -> float:
        """Seconds before attempt ``attempt + 1``: exponential with jitter, capped."""
        delay = self.base_delay * (2 ** (attempt - 1))
        return min(self.max_delay, delay * (0.75 + random.random() / 2))  # noqa: S311

    def server_wait(self, headers: Mapping[str, str], now: float) -> float | None:
        """What the server asked to wait (``Retry-After`` in seconds or as an HTTP date;
        else ``X-RateLimit-Reset`` as epoch seconds or an ISO 8601 time, plus one
        second), or None if it said nothing usable."""
        return server_wait(headers, now)


@dataclass(frozen=True)
class Knob:
    """One environment variable of the policy: which field, for which services."""

    name: str
    field: str
    services: frozenset[str]
    unit: str
    minimum: float
    meaning: str


_API = frozenset({"github", "jira"})
_ALL = frozenset(SERVICES)
KNOBS: tuple[Knob, ...] = (
    Knob("AGENTOPS_RETRY_ATTEMPTS", "attempts", _API, "a whole number", 1,
         "tries per GitHub/JIRA request (first one included)"),
    Knob("AGENTOPS_HTTP_ATTEMPTS", "attempts", frozenset({"files"}), "a whole number", 1,
         "tries per file-host request (package index, wheels, job-log storage)"),
    Knob("AGENTOPS_RETRY_BASE_DELAY", "base_delay", _API, "seconds", 0,
         "first GitHub/JIRA backoff, doubling per attempt (with jitter)"),
    Knob("AGENTOPS_HTTP_BACKOFF", "base_delay", frozenset({"files"}), "seconds", 0,
         "first file-host backoff, doubling per attempt (with jitter)"),
    Knob("AGENTOPS_RETRY_MAX_DELAY", "max_delay", _ALL, "seconds", 0,
         "cap of one backoff wait"),
    Knob("AGENTOPS_MAX_RATE_LIMIT_WAIT", "max_rate_limit_wait", _ALL, "seconds", 0,
         "longest wait a server may ask for (Retry-After, rate-limit reset) before the "
         "call fails instead"),
    Knob("AGENTOPS_HTTP_TIMEOUT", "timeout", _ALL, "seconds", 0.001,
         "longest stall of a connect or of one read"),
    Knob("AGENTOPS_HTTP_DEADLINE", "deadline", _ALL, "seconds", 0.001,
         "longest time one request may take in all (redirects and the whole body)"),
)

DEFAULTS: dict[str, dict[str, float]] = {
    "github": {"attempts": 5, "base_delay": 1.0, "max_delay": 60.0,
               "max_rate_limit_wait": 300.0, "timeout": 30.0, "deadline": 45.0},
    "jira": {"attempts": 4, "base_delay": 1.0, "max_delay": 60.0,
             "max_rate_limit_wait": 120.0, "timeout": 30.0, "deadline": 45.0},
    "files": {"attempts": 4, "base_delay": 1.0, "max_delay": 60.0,
              "max_rate_limit_wait": 300.0, "timeout": 30.0, "deadline": 45.0},
}


def server_wait(headers: Mapping[str, str], now: float) -> float | None:
    """See ``Policy.server_wait``."""
    after = _header(headers, "retry-after").strip()
    if after:
        if after.isdigit():
            return float(after)
        try:
            when = dt.datetime.strptime(after, "%a, %d %b %Y %H:%M:%S GMT").replace(
                tzinfo=dt.UTC)
            return max(0.0, when.timestamp() - now)
        except ValueError:
            pass
    reset = _header(headers, "x-ratelimit-reset").strip()
    if not reset:
        return None
    if reset.isdigit():  # GitHub: epoch seconds
        return max(0.0, float(reset) - now) + 1.0
    try:  # JIRA: ISO 8601 to the minute, e.g. 2026-07-09T06:11Z
        stamp = dt.datetime.fromisoformat(reset.replace("Z", "+00:00"))
    except ValueError:
        return None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=dt.UTC)
    return max(0.0, stamp.timestamp() - now) + 1.0


# --- the one retry loop -------------------------------------------------------------------

T = TypeVar("T")


class RetryLater(Exception):
    """One failed attempt that trying again may fix. ``error``: what to raise if it
    was the last attempt; ``wait``: what the server asked for (None: the policy's
    backoff); ``message``: the failure for the retry line."""

    def __init__(self, error: Exception, *, message: str, wait: float | None = None) -> None:
        super().__init__(message)
        self.error = error
        self.message = message
        self.wait = wait


def retry(policy: Policy, attempt: Callable[[int], T], *, what: str, counter: CallCounter,
          sleep: Callable[[float], None],
          too_long: Callable[[RetryLater, float], Exception]) -> T:
    """The one retry loop of agentops (GitHub REST and GraphQL, the file transport):
    call ``attempt(n)`` for n = 1 .. ``policy.attempts``. It returns the result, or
    raises ``RetryLater`` to be called again, or raises anything else to stop. Between
    attempts it waits what the server asked for (refused with ``too_long(failure,
    wait)`` when that is more than ``policy.max_rate_limit_wait``) or the policy's
    backoff, counts the retry and prints one line. After the last attempt the last
    failure's ``error`` is raised."""
    attempts = policy.attempts
    for n in range(1, attempts + 1):
        try:
            return attempt(n)
        except RetryLater as failure:
            last = failure
        if n >= attempts:
            break
        if last.wait is None:
            wait = policy.backoff(n)
        elif last.wait > policy.max_rate_limit_wait:
            raise too_long(last, last.wait) from last.error
        else:
            wait = last.wait
        counter.retries += 1
        ghactions.notice(f"  retry {n}/{attempts - 1} of {what} in {wait:.1f} s: "
                         f"{short(last.message, 200)}")
        sleep(wait)
    raise last.error


def _header(headers: Mapping[str, Any], name: str) -> str:
    for key, value in headers.items():
        if key.lower() == name:
            return str(value)
    return ""


# --- counting ---------------------------------------------------------------------------

@dataclass
class CallCounter:
    """How many HTTP requests a run made (retries included), by kind, and the body
    bytes received; ``line()`` is the run's closing ``API calls:`` line."""

    reads: int = 0
    writes: int = 0
    retries: int = 0
    body_bytes: int = 0
    by_route: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return self.reads + self.writes

    def note(self, method: str, route: str, *, write: bool) -> None:
        if write:
            self.writes += 1
        else:
            self.reads += 1
        key = f"{method} {route}"
        self.by_route[key] = self.by_route.get(key, 0) + 1

    def line(self) -> str:
        """``API calls: N (reads R, writes W, retries X)`` for logs and summaries."""
        return (f"API calls: {self.total} (reads {self.reads}, writes {self.writes}, "
                f"retries {self.retries})")
