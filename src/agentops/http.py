"""The one HTTP transport of agentops for every call that is not PyGithub's own request
building: a ``requests.Session`` with a policy (retries, backoff, server-asked waits,
a per-read timeout and a total deadline per request), a body-size cap the caller
states per call, its own redirect rules, credential redaction, a request counter and
one error type. The GitHub client keeps PyGithub but runs its requests through this
transport too (``agentops.github.client``), so every retry and bound is described by
one table: ``docs/http.md``.

Adapter side of the I/O line: it moves bytes and decides only whether to try again.

Why the redirects are followed here rather than by ``requests``: a redirect may only
go to http(s) (never ``file://``), at most ``MAX_REDIRECTS`` times, and the
``Authorization`` header never travels to another host; ``requests`` raises on a loop
(a traceback for the caller) and leaves the scheme to its adapters.

Why the body is read with ``read1``: urllib3's ``read(n)`` blocks until ``n`` bytes
arrived, so a server sending one byte a second would never let the deadline be
checked; ``read1`` returns whatever one receive brought.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
import os
import random
import re
import time
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import IO, Any, TypeVar

import requests
import urllib3.exceptions
import urllib3.response

from agentops import ghactions
from agentops.errors import ApiError, InputError

USER_AGENT = "agentops"
MAX_REDIRECTS = 5
RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
READ_CHUNK = 64 * 1024
# Sanity: an error answer is read only for its message; a few KiB say everything.
ERROR_BODY_BYTES = 64 * 1024
MESSAGE_LIMIT = 300  # characters of any remote text echoed in a message

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


# --- credentials in URLs ------------------------------------------------------------------

REDACTED = "***"
_SECRET_PARAM = re.compile(r"(?i)^(?:.*token.*|.*secret.*|.*password.*|.*passwd.*|sig|"
                           r"signature|x-amz-signature|x-amz-credential|x-amz-security-token|"
                           r"key|api[-_]?key|access[-_]?key|auth|code)$")
_USERINFO_IN_TEXT = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@:]*(?::[^/\s@]*)?@")


def redact(url: str) -> str:
    """``url`` with any ``user:password@`` and credential-like query values (``token``,
    ``sig``, ``X-Amz-Signature``, …) replaced by ``***``: safe for a message, a log
    line or a summary."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return _USERINFO_IN_TEXT.sub(rf"\1{REDACTED}@", url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{netloc.rsplit('@', 1)[1]}"
    query = parts.query
    if query:
        pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
        if any(_SECRET_PARAM.match(k) for k, _ in pairs):
            query = "&".join(f"{urllib.parse.quote(k, safe='')}="
                             f"{REDACTED if _SECRET_PARAM.match(k) else urllib.parse.quote(v)}"
                             for k, v in pairs)
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def strip_userinfo(url: str) -> str:
    """``url`` without ``user:password@`` (for storing it)."""
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[-1]))


def with_credentials_of(url: str, like: str) -> str:
    """``url`` (any userinfo dropped) with the ``user:password@`` of ``like`` when both
    are on the same host and port, as pip reuses an index's credentials for its files."""
    a = urllib.parse.urlsplit(strip_userinfo(url))
    b = urllib.parse.urlsplit(like)
    if "@" not in b.netloc or a.netloc.lower() != b.netloc.rsplit("@", 1)[-1].lower():
        return urllib.parse.urlunsplit(a)
    return urllib.parse.urlunsplit(a._replace(netloc=b.netloc))


_QUERY_IN_TEXT = re.compile(r"([?&])([^=&\s'\"]+)=([^&\s'\"]*)")


def redact_text(text: str) -> str:
    """Free text (an exception's message) with every ``scheme://user:password@`` and
    every credential-like query value replaced by ``***``."""
    text = _USERINFO_IN_TEXT.sub(rf"\1{REDACTED}@", text)
    return _QUERY_IN_TEXT.sub(lambda m: f"{m.group(1)}{m.group(2)}={REDACTED}"
                              if _SECRET_PARAM.match(m.group(2)) else m.group(0), text)


def mask_credentials(url: str) -> None:
    """Ask the runner to mask the userinfo and credential-like query values of ``url``
    in every later log line, and scrub the password and those values (and their
    encoded forms) from every later output (the messages are redacted as well)."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return
    if parts.username:
        ghactions.mask(urllib.parse.unquote(parts.username))
    if parts.password:
        # Scrubbed too, with its base64 ``user:password`` (the Basic header a server
        # may echo).
        ghactions.secret(parts.password, user=parts.username)
    elif parts.username:
        ghactions.secret(parts.username)  # a token given as the user name
    for key, value in urllib.parse.parse_qsl(parts.query, keep_blank_values=True):
        if value and _SECRET_PARAM.match(key):
            ghactions.secret(value)


def short(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """Remote or user text cut for a one-line message."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "…"


def size_text(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


# --- errors -------------------------------------------------------------------------------

class TransportError(ApiError):
    """One failed HTTP request, after the retries the caller allowed. Exit 5 (the
    shared table in ``agentops.errors``): the remote side failed or misbehaved before
    anything was written.

    ``kind``: timeout | deadline | connect | reset | too-large | redirect | url |
    encoding | status. ``retryable``: trying again may help. ``ambiguous``: the server
    may have acted on the request (a write must be verified before it is resent).
    ``refused``: the connection was refused, so the request never arrived."""

    def __init__(self, message: str, *, kind: str, retryable: bool = False,
                 ambiguous: bool = False, refused: bool = False,
                 status_code: int | None = None, fix: str | None = None,
                 headers: Mapping[str, str] | None = None, body: bytes = b"",
                 reason: str | None = None) -> None:
        super().__init__(redact_text(message), status_code=status_code, fix=fix,
                         ambiguous=ambiguous)
        self.reason = redact_text(reason or message)  # the failure without what/URL
        self.kind = kind
        self.retryable = retryable
        self.refused = refused
        self.headers = dict(headers or {})
        self.body = body


def _classify(exc: BaseException) -> tuple[str, str, bool, bool, bool]:
    """(kind, reason, retryable, ambiguous, refused) of an exception raised while
    sending a request or reading its answer."""
    text = short(redact_text(f"{type(exc).__name__}: {exc}"), 200)
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return "timeout", f"connect timeout ({text})", True, False, False
    if isinstance(exc, (requests.exceptions.ReadTimeout, urllib3.exceptions.ReadTimeoutError,
                        TimeoutError)):
        return "timeout", f"timed out waiting for the response ({text})", True, True, False
    if isinstance(exc, (requests.exceptions.InvalidURL, requests.exceptions.InvalidSchema,
                        requests.exceptions.MissingSchema, urllib3.exceptions.LocationValueError)):
        return "url", f"not a usable URL ({text})", False, False, False
    if isinstance(exc, (requests.exceptions.ContentDecodingError,
                        urllib3.exceptions.DecodeError)):
        return "encoding", f"the body does not decode ({text})", False, False, False
    if isinstance(exc, requests.exceptions.ConnectionError):
        lower = str(exc).lower()
        refused = "refused" in lower or "NewConnectionError" in repr(exc)
        if "timed out" in lower:
            return "timeout", f"timed out ({text})", True, not refused, refused
        if "nameresolution" in repr(exc).lower() or "name or service not known" in lower:
            return "connect", "the host name does not resolve", True, False, True
        if refused:
            return "connect", "connection refused", True, False, True
        return "reset", f"connection error ({text})", True, True, False
    # urllib3 protocol errors and OS errors mid-body: the connection broke.
    return "reset", f"the connection broke ({text})", True, True, False


# --- responses ----------------------------------------------------------------------------

class Response:
    """An answer whose body is read at most once, bounded by the size the caller
    states and by the request's deadline."""

    def __init__(self, transport: Transport, raw: requests.Response, *, what: str,
                 url: str, deadline_at: float) -> None:
        self._transport = transport
        self._raw = raw
        self.what = what
        self.url = url  # the final URL (after redirects), unredacted
        self.status = raw.status_code
        self.headers = raw.headers
        self.deadline_at = deadline_at
        self.body: bytes | None = None

    @property
    def content_length(self) -> int | None:
        value = self.headers.get("Content-Length", "").strip()
        return int(value) if value.isdigit() else None

    def read(self, max_bytes: int, *, truncate: bool = False) -> bytes:
        """The body, at most ``max_bytes``; more is an error (``too-large``), or with
        ``truncate`` the first ``max_bytes`` (the rest is not read)."""
        chunks: list[bytes] = []
        self._pump(max_bytes, chunks.append, truncate=truncate)
        self.body = b"".join(chunks)
        return self.body

    def read_into(self, sink: IO[bytes], max_bytes: int) -> int:
        """Stream the body into ``sink``; returns its size. Over ``max_bytes`` is an
        error and the caller discards the sink."""
        return self._pump(max_bytes, sink.write, truncate=False)

    def text(self) -> str:
        """The body read so far, decoded with the charset the server named (UTF-8 if
        none; undecodable bytes replaced)."""
        body = self.body if self.body is not None else b""
        m = re.search(r"charset=([\w.-]+)", self.headers.get("Content-Type", ""), re.I)
        try:
            return body.decode(m.group(1) if m else "utf-8", errors="replace")
        except LookupError:
            return body.decode("utf-8", errors="replace")

    def json(self, *, max_depth: int = 64) -> Any:
        """The body read so far, parsed as JSON nested at most ``max_depth`` deep
        (``encoding`` error otherwise)."""
        try:
            return loads_bounded(self.text(), max_depth=max_depth)
        except ValueError as exc:
            raise TransportError(f"{self.what} {redact(self.url)}: the answer is not usable "
                                 f"JSON: {short(str(exc), 200)}", kind="encoding") from exc

    def close(self) -> None:
        self._raw.close()

    def _pump(self, max_bytes: int, put: Callable[[bytes], Any], *, truncate: bool) -> int:
        where = f"{self.what} {redact(self.url)}"
        declared = self.content_length
        if declared is not None and declared > max_bytes and not truncate:
            self.close()
            reason = (f"the answer is {size_text(declared)}, more than the "
                      f"{size_text(max_bytes)} this call reads")
            raise TransportError(f"{where}: {reason}", kind="too-large", reason=reason,
                                 ambiguous=True, status_code=self.status)
        total = 0
        try:
            while True:
                if self._transport.clock() > self.deadline_at:
                    self.close()
                    reason = (f"the answer took longer than the "
                              f"{self._transport.policy.deadline:g} s deadline "
                              f"({size_text(total)} received)")
                    raise TransportError(
                        f"{where}: {reason}", kind="deadline", ambiguous=True, reason=reason,
                        status_code=self.status,
                        fix="the server is too slow or never ends its answer; rerun later, "
                            "or raise AGENTOPS_HTTP_DEADLINE")
                chunk = _read_some(self._raw.raw, min(READ_CHUNK, max_bytes - total + 1))
                if not chunk:
                    break
                if total + len(chunk) > max_bytes:
                    keep = max_bytes - total
                    self._transport.counter.body_bytes += keep
                    if truncate:
                        put(chunk[:keep])
                        total += keep
                        self.close()
                        break
                    self.close()
                    reason = f"the answer is longer than the {size_text(max_bytes)} this " \
                             "call reads"
                    raise TransportError(f"{where}: {reason}", kind="too-large",
                                         reason=reason, ambiguous=True,
                                         status_code=self.status)
                self._transport.counter.body_bytes += len(chunk)
                total += len(chunk)
                put(chunk)
        except TransportError:
            raise
        except (requests.exceptions.RequestException, urllib3.exceptions.HTTPError,
                OSError) as exc:
            self.close()
            kind, reason, retryable, ambiguous, _ = _classify(exc)
            reason = f"{reason} after {size_text(total)} of the body"
            raise TransportError(f"{where}: {reason}", kind=kind, reason=reason,
                                 retryable=retryable, ambiguous=ambiguous,
                                 status_code=self.status) from exc
        return total


def _read_some(raw: Any, n: int) -> bytes:
    """Up to ``n`` decoded body bytes, as soon as one receive brought some."""
    if isinstance(raw, urllib3.response.HTTPResponse):
        return raw.read1(n, decode_content=True)
    # A stand-in response (vcrpy's replay holds the body in memory): nothing to wait for.
    return raw.read(n, decode_content=True)


def loads_bounded(text: str, *, max_depth: int) -> Any:
    """``json.loads`` that refuses documents nested deeper than ``max_depth`` (the
    parser's own recursion limit would raise RecursionError, a traceback)."""
    try:
        doc = json.loads(text)
    except RecursionError:
        raise ValueError(f"nested deeper than {max_depth} levels") from None
    # Sanity: iterative, so checking the depth cannot itself overflow the stack.
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            raise ValueError(f"nested deeper than {max_depth} levels")
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node if isinstance(v, (dict, list)))
    return doc


# --- the transport --------------------------------------------------------------------------

class Transport:
    """Requests with the policy's bounds; ``counter`` counts every request sent."""

    def __init__(self, policy: Policy | None = None, *, service: str = "files",
                 counter: CallCounter | None = None, user_agent: str = USER_AGENT,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], float] = time.time,
                 count: bool = True) -> None:
        self.policy = policy or Policy.from_env(service=service)
        self.counter = counter if counter is not None else CallCounter()
        self.session = requests.Session()
        self.session.headers["User-Agent"] = user_agent
        self.sleep = sleep
        self.clock = clock
        self.wall_clock = wall_clock
        self._count = count

    def close(self) -> None:
        self.session.close()

    # One exchange (and its redirects), body unread.
    def open(self, method: str, url: str, *, headers: Mapping[str, str] | None = None,
             data: bytes | str | None = None, what: str | None = None,
             follow_redirects: bool = True, write: bool = False,
             route: str | None = None) -> Response:
        """Send one request and return once the headers arrived. Redirects (GET/HEAD
        only) are followed to http(s) URLs, at most ``MAX_REDIRECTS`` times, and
        ``Authorization`` is dropped when the host, port or scheme changes (except an
        upgrade to https on the same host). ``route`` names the request in the
        counter (default: the URL's path). Raises TransportError."""
        what = what or method
        started = self.clock()
        deadline_at = started + self.policy.deadline
        current = url
        hdrs = dict(headers or {})
        seen: list[str] = []
        while True:
            _check_url(current, what=what, original=url)
            remaining = deadline_at - self.clock()
            if remaining <= 0:
                raise TransportError(f"{what} {redact(url)}: no answer within the "
                                     f"{self.policy.deadline:g} s deadline", kind="deadline",
                                     fix="the server is too slow; rerun later, or raise "
                                         "AGENTOPS_HTTP_DEADLINE")
            wait = min(self.policy.timeout, remaining)
            if self._count:
                self.counter.note(method, route or _route_of(current), write=write)
            try:
                raw = self.session.request(method, current, headers=hdrs, data=data,
                                           stream=True, timeout=(wait, wait),
                                           allow_redirects=False)
            except (requests.exceptions.RequestException, urllib3.exceptions.HTTPError,
                    OSError, ValueError) as exc:
                kind, reason, retryable, ambiguous, refused = _classify(exc)
                raise TransportError(f"{what} {redact(current)}: {reason}", kind=kind,
                                     retryable=retryable, ambiguous=ambiguous,
                                     refused=refused, reason=reason) from exc
            location = raw.headers.get("Location")
            if not (follow_redirects and raw.is_redirect and location
                    and method.upper() in ("GET", "HEAD")):
                return Response(self, raw, what=what, url=current, deadline_at=deadline_at)
            raw.close()
            target = urllib.parse.urljoin(current, location)
            seen.append(current)
            if len(seen) > MAX_REDIRECTS or target in seen:
                loop = "a redirect loop" if target in seen else f"more than {MAX_REDIRECTS} " \
                                                                 "redirects"
                raise TransportError(f"{what} {redact(url)}: {loop} (last to "
                                     f"{short(redact(target), 200)})", kind="redirect",
                                     fix="the server's redirects never reach the file; "
                                         "check the URL")
            scheme = urllib.parse.urlsplit(target).scheme.lower()
            if scheme not in ("http", "https"):
                raise TransportError(f"{what} {redact(url)}: redirected to a {scheme or 'non'}"
                                     f": URL ({short(redact(target), 200)}); only http(s) "
                                     "redirects are followed", kind="redirect",
                                     fix="check the URL; the server points outside HTTP")
            if not _same_origin(current, target):
                # Security: a credential is for the host it was given to.
                hdrs = {k: v for k, v in hdrs.items()
                        if k.lower() not in ("authorization", "cookie", "proxy-authorization")}
            current = target

    def request(self, method: str, url: str, *, max_bytes: int,
                headers: Mapping[str, str] | None = None, what: str | None = None,
                truncate: bool = False, unread: Iterable[int] = (),
                retry_status: frozenset[int] = RETRY_STATUS,
                route: str | None = None) -> Response:
        """An idempotent request (GET/HEAD) with retries: timeouts, resets (also
        mid-body) and ``retry_status`` answers are tried again after the policy's
        backoff or the wait the server asked for; other 4xx/5xx raise at once. The body
        is read (at most ``max_bytes``), except for a status in ``unread``, which comes
        back unread for the caller to bound itself."""
        what = what or method
        unread = frozenset(unread)
        attempts = self.policy.attempts

        def attempt(n: int) -> Response:
            try:
                resp = self.open(method, url, headers=headers, what=what, route=route)
                if resp.status in unread:
                    return resp
                if resp.status < 400:
                    resp.read(max_bytes, truncate=truncate)
                    return resp
                detail = resp.read(ERROR_BODY_BYTES, truncate=True)
                failed = status_error(what, resp, detail)
                if resp.status not in retry_status:
                    raise failed
                wait = server_wait(resp.headers, self.wall_clock())
            except TransportError as exc:
                if exc.kind == "status" or not exc.retryable:
                    raise
                failed, wait = exc, None
            raise RetryLater(self._gave_up(what, url, attempts, failed), wait=wait,
                             message=failed.message)

        def too_long(failure: RetryLater, wait: float) -> Exception:
            last = failure.error
            assert isinstance(last, TransportError)
            return TransportError(f"{failure.message}; the server asks to wait {wait:.0f} s, "
                                  f"more than the {self.policy.max_rate_limit_wait:.0f} s "
                                  "this run may wait", kind="status",
                                  status_code=last.status_code,
                                  fix="rerun later, or raise AGENTOPS_MAX_RATE_LIMIT_WAIT")

        return retry(self.policy, attempt, what=f"{what} {redact(url)}", counter=self.counter,
                     sleep=self.sleep, too_long=too_long)

    @staticmethod
    def _gave_up(what: str, url: str, attempts: int, last: TransportError) -> TransportError:
        return TransportError(f"{what} {redact(url)} failed after {attempts} attempt(s): "
                              f"{last.reason}", kind=last.kind, retryable=True,
                              status_code=last.status_code, refused=last.refused,
                              ambiguous=last.ambiguous, reason=last.reason,
                              fix=last.fix or "the server is down or slow; rerun later, or "
                                  "raise the attempts/timeouts (docs/http.md)")


STATUS_FIXES = {
    401: "the server wants credentials (or rejected them)",
    403: "the server refused: the URL may need credentials or be private",
    404: "check the URL (and the package or version in it)",
    416: "the server rejected the byte range; report it with the URL",
}


def status_error(what: str, resp: Response, detail: bytes) -> TransportError:
    """The error for a 4xx/5xx answer; ``detail`` is the start of its body."""
    text = short(detail.decode("utf-8", errors="replace"), 200) if detail else ""
    reason = f"HTTP {resp.status}" + (f" ({text})" if text and resp.status != 404 else "")
    return TransportError(f"{what} {redact(resp.url)}: {reason}", reason=reason,
                          kind="status", retryable=resp.status in RETRY_STATUS,
                          status_code=resp.status, headers=dict(resp.headers), body=detail,
                          fix=STATUS_FIXES.get(resp.status))


def _check_url(url: str, *, what: str, original: str) -> None:
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError as exc:
        raise TransportError(f"{what} {short(redact(original), 200)}: not a usable URL",
                             kind="url") from exc
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise TransportError(f"{what} {short(redact(url), 200)}: not an http(s) URL",
                             kind="url")


def _origin(url: str) -> tuple[str, str, int | None]:
    p = urllib.parse.urlsplit(url)
    scheme = p.scheme.lower()
    port = p.port or {"http": 80, "https": 443}.get(scheme)
    return scheme, (p.hostname or "").lower(), port


def _same_origin(a: str, b: str) -> bool:
    sa, ha, pa = _origin(a)
    sb, hb, pb = _origin(b)
    if ha != hb:
        return False
    # An upgrade to https on the standard ports keeps the credential (as requests does).
    return (sa, pa) == (sb, pb) or (sa, pa, sb, pb) == ("http", 80, "https", 443)


def _route_of(url: str) -> str:
    return urllib.parse.urlsplit(url).path or "/"


def check_http_url(value: str, *, field_name: str, example: str) -> str:
    """A user-given base URL: http(s) with a host, else InputError naming the field
    (its credentials redacted in the message)."""
    try:
        parts = urllib.parse.urlsplit(value)
        ok = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:
        ok = False
    if not ok:
        raise InputError(field_name, f"not an http(s) URL: {short(redact(value), 200)!r}",
                         fix=f"give e.g. {example}")
    return value
