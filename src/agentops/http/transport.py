"""The transport itself: one ``requests`` session with the policy applied, bodies
read under a size cap and a deadline, redirects followed by its own rules, and one
error type (``TransportError``) for every failed request."""

from __future__ import annotations

import json
import re
import time
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from typing import IO, Any

import requests
import urllib3.exceptions
import urllib3.response

from agentops.errors import ApiError
from agentops.http.retry import (
    ERROR_BODY_BYTES,
    MAX_REDIRECTS,
    READ_CHUNK,
    RETRY_STATUS,
    USER_AGENT,
    CallCounter,
    Policy,
    RetryLater,
    retry,
    server_wait,
)
from agentops.http.urls import (
    _route_of,
    _same_origin,
    redact,
    redact_text,
    short,
    size_text,
)

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
