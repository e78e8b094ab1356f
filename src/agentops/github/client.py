"""The only GitHub client of agentops: REST and GraphQL over PyGithub's requester,
with our own retry policy, a per-run write cap and a request counter.

Adapter side of the I/O line. It performs the requests it is asked to make and decides
only *whether to try again*; what to write is decided by the skills' planners, and only
their appliers/publishers call ``write``.

Why our own retry loop rather than PyGithub's ``GithubRetry``: that one also retries
POSTs, which can post the same comment twice when a 502 arrives after GitHub stored it.
Here a non-idempotent write that fails *ambiguously* (5xx, reset after the request was
sent, read timeout) is retried only after ``verify`` re-reads the target and finds the
write did not land.
"""

from __future__ import annotations

import os
import random
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import requests
from github import Auth, Github, GithubException

from agentops import ghactions
from agentops.errors import ApiError, InputError, WriteBudgetError

DEFAULT_API_URL = "https://api.github.com"
RETRYABLE_STATUS = frozenset({500, 502, 503, 504})
# Sanity: GitHub limits content creation to about 80 a minute and 500 an hour; a run
# that wants more than this is a bug or a runaway loop, not a bigger backlog.
DEFAULT_MAX_WRITES = 200


@dataclass
class CallCounter:
    """How many HTTP requests a run made (retries included), by kind."""

    reads: int = 0
    writes: int = 0
    retries: int = 0
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


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait before trying a request again."""

    attempts: int = 5
    base_delay: float = 1.0
    max_delay: float = 60.0
    # Sanity: a primary rate limit can reset an hour away; waiting that long inside a
    # job burns runner minutes, so past this we fail with a clear message instead.
    max_rate_limit_wait: float = 300.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> RetryPolicy:
        env = os.environ if env is None else env
        try:
            return cls(
                attempts=int(env.get("AGENTOPS_RETRY_ATTEMPTS", cls.attempts)),
                base_delay=float(env.get("AGENTOPS_RETRY_BASE_DELAY", cls.base_delay)),
                max_delay=float(env.get("AGENTOPS_RETRY_MAX_DELAY", cls.max_delay)),
                max_rate_limit_wait=float(
                    env.get("AGENTOPS_MAX_RATE_LIMIT_WAIT", cls.max_rate_limit_wait)),
            )
        except ValueError as exc:
            raise InputError("AGENTOPS_RETRY_*", f"not a number: {exc}",
                             fix="unset it or give a number of seconds/attempts") from exc


class _Failure(Exception):
    """One failed attempt, classified."""

    def __init__(self, message: str, *, status: int | None, retryable: bool,
                 ambiguous: bool, wait: float | None, data: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retryable = retryable
        self.ambiguous = ambiguous
        self.wait = wait
        self.data = data


def _header(headers: Mapping[str, Any], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name.lower():
            return str(value)
    return None


def _route(path: str) -> str:
    """``/repos/o/r/issues/12/comments?page=2`` → ``/repos/{owner}/{repo}/issues/{n}/comments``
    (for the per-route counter only)."""
    parsed = urllib.parse.urlparse(path)
    parts = parsed.path.split("/")
    out = []
    for i, part in enumerate(parts):
        if i >= 1 and parts[i - 1] == "repos":
            out.append("{owner}")
        elif i >= 2 and parts[i - 2] == "repos":
            out.append("{repo}")
        elif part.isdigit():
            out.append("{n}")
        elif i >= 1 and parts[i - 1] == "labels" and part:
            out.append("{name}")
        else:
            out.append(part)
    return "/".join(out)


class GitHubClient:
    """REST + GraphQL with retry, rate-limit handling, write cap and call counting."""

    def __init__(
        self,
        token: str,
        *,
        api_url: str | None = None,
        policy: RetryPolicy | None = None,
        max_writes: int = DEFAULT_MAX_WRITES,
        timeout: int = 30,
        seconds_between_writes: float = 0.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.api_url = (api_url or DEFAULT_API_URL).rstrip("/")
        parsed = urllib.parse.urlparse(self.api_url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise InputError("GITHUB_API_URL", f"not an http(s) URL: {self.api_url!r}",
                             fix="unset it for github.com, or give e.g. https://ghe.example/api/v3")
        self.policy = policy or RetryPolicy()
        self.max_writes = max_writes
        self.counter = CallCounter()
        self._sleep = sleep
        self._clock = clock
        self._gh = Github(
            auth=Auth.Token(token) if token else None,
            base_url=self.api_url,
            timeout=timeout,
            retry=None,
            per_page=100,
            seconds_between_requests=None,
            seconds_between_writes=seconds_between_writes or None,
            user_agent="agentops",
        )
        self.requester = self._gh.requester

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **kwargs: Any) -> GitHubClient:
        """Token from ``GITHUB_TOKEN``, base from ``GITHUB_API_URL`` (GHES, or a test
        server on loopback)."""
        env = os.environ if env is None else env
        token = env.get("GITHUB_TOKEN", "").strip()
        if not token:
            raise InputError(
                "GITHUB_TOKEN", "not set; live mode needs a token",
                fix="in a workflow pass `env: GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}`; "
                    "from a shell `export GITHUB_TOKEN=$(gh auth token)`; or use the "
                    "offline verbs, which need none")
        ghactions.mask(token)
        kwargs.setdefault("policy", RetryPolicy.from_env(env))
        writes = env.get("AGENTOPS_MAX_WRITES")
        if writes:
            if not writes.isdigit():
                raise InputError("AGENTOPS_MAX_WRITES", f"not a whole number: {writes!r}",
                                 fix="give the per-run cap on write calls, e.g. 200")
            kwargs.setdefault("max_writes", int(writes))
        return cls(token, api_url=env.get("GITHUB_API_URL") or None, **kwargs)

    # --- public calls -------------------------------------------------------------

    def read(self, path: str, params: Mapping[str, Any] | None = None) -> Any:
        """GET a REST path; returns the JSON body."""
        return self._request("GET", path, params=params, write=False)[1]

    def read_with_headers(self, path: str,
                          params: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], Any]:
        """GET a REST path; returns ``(headers, body)``."""
        return self._request("GET", path, params=params, write=False)

    def exists(self, path: str) -> bool:
        """True if GET ``path`` answers 2xx, False on 404."""
        try:
            self._request("GET", path, write=False)
        except ApiError as exc:
            if exc.status_code == 404:
                return False
            raise
        return True

    def paginate(self, path: str, params: Mapping[str, Any] | None = None, *,
                 max_pages: int = 100) -> Iterator[Any]:
        """GET every page of a list endpoint (``Link: rel="next"``), yielding items."""
        query = dict(params or {})
        query.setdefault("per_page", 100)
        url: str | None = path
        pages = 0
        while url and pages < max_pages:
            headers, body = self._request("GET", url, params=query if pages == 0 else None,
                                          write=False)
            pages += 1
            items = body.get("items", []) if isinstance(body, dict) else body
            yield from items
            url = _next_link(_header(headers, "link"))

    def graphql(self, query: str, variables: Mapping[str, Any] | None = None, *,
                write: bool = False, verify: Callable[[], Any] | None = None) -> dict[str, Any]:
        """POST a GraphQL document; returns ``data``. ``write`` marks a mutation (counted
        against the write cap; ``verify`` as in ``write``)."""
        body = {"query": query, "variables": dict(variables or {})}
        url = self.requester.graphql_url
        attempt = 0
        while True:
            attempt += 1
            headers, out = self._request("POST", url, body=body, write=write,
                                         idempotent=not write, verify=verify)
            if not isinstance(out, dict):
                raise ApiError("GraphQL: the response is not a JSON object")
            errors = out.get("errors") or []
            # GitHub reports an exhausted GraphQL budget as HTTP 200 with an error of
            # type RATE_LIMITED; a query is a read, so wait for the reset and ask again.
            limited = any(isinstance(e, dict) and e.get("type") == "RATE_LIMITED"
                          for e in errors)
            if not limited or write or attempt >= self.policy.attempts:
                break
            reset = _header(headers, "x-ratelimit-reset")
            wait = (max(0.0, float(reset) - self._clock()) + 1.0
                    if reset and reset.strip().isdigit() else 60.0)
            if wait > self.policy.max_rate_limit_wait:
                raise ApiError(
                    f"POST /graphql: rate limited; the limit resets in {wait:.0f} s, more than "
                    f"the {self.policy.max_rate_limit_wait:.0f} s this run may wait",
                    fix="rerun after the reset, or set AGENTOPS_MAX_RATE_LIMIT_WAIT")
            self.counter.retries += 1
            ghactions.notice(f"  retry {attempt}/{self.policy.attempts - 1} of POST /graphql "
                             f"in {wait:.1f} s: GraphQL rate limit")
            self._sleep(wait)
        if errors:
            messages = "; ".join(str(e.get("message", e)) for e in errors[:3])
            scopes = "project" if "project" in query.lower() else None
            fix = (f"the token may lack the `{scopes}` scope (a classic PAT or GitHub App with "
                   "Projects access; GITHUB_TOKEN cannot reach user/org projects)"
                   if scopes and any(e.get("type") in ("FORBIDDEN", "INSUFFICIENT_SCOPES")
                                     for e in errors) else None)
            if limited:
                # A mutation is not retried on RATE_LIMITED; say when the rerun can go.
                reset = _header(headers, "x-ratelimit-reset")
                when = (f" (it resets in {max(0.0, float(reset) - self._clock()):.0f} s)"
                        if reset and reset.strip().isdigit() else "")
                fix = (f"the token's GraphQL rate limit is used up{when}; rerun after the "
                       "reset (a rerun re-reads before it writes, so it converges)")
            raise ApiError(f"GraphQL error: {messages}", fix=fix)
        return out.get("data") or {}

    def write(self, method: str, path: str, body: Any = None, *,
              idempotent: bool, verify: Callable[[], Any] | None = None) -> Any:
        """A mutating REST call. ``idempotent`` writes (adding labels) are retried like
        reads; a non-idempotent one (a comment) that fails ambiguously is retried only
        after ``verify()`` returns a falsy value (the write did not land). If ``verify``
        finds it landed, its return value is returned instead of the response. When the
        last attempt fails ambiguously, ``verify`` (if given, idempotent or not) decides
        between success and the error."""
        return self._request(method, path, body=body, write=True,
                             idempotent=idempotent, verify=verify)[1]

    # --- machinery ------------------------------------------------------------------

    def _request(self, method: str, path: str, *, params: Mapping[str, Any] | None = None,
                 body: Any = None, write: bool, idempotent: bool = True,
                 verify: Callable[[], Any] | None = None) -> tuple[dict[str, Any], Any]:
        if write and self.counter.writes >= self.max_writes:
            raise WriteBudgetError(
                f"write cap reached: {self.counter.writes} writes this run "
                f"(AGENTOPS_MAX_WRITES={self.max_writes}); stopped before {method} {_route(path)}",
                fix="rerun later (the rest converges), or raise AGENTOPS_MAX_WRITES; GitHub "
                    "limits content creation to about 80 a minute and 500 an hour")
        attempt = 0
        while True:
            attempt += 1
            self.counter.note(method, _route(path), write=write)
            try:
                return self._once(method, path, params=params, body=body)
            except _Failure as failure:
                last = failure
            checked = False
            if write and last.ambiguous:
                final = attempt >= self.policy.attempts
                if not idempotent and verify is None:
                    break  # Sanity: cannot prove it did not land, so never resend blind.
                if verify is not None and (final or not idempotent):
                    # Re-read before resending, and before giving up: a write that landed
                    # behind a lost answer is done (exit 0), not a failure before any
                    # write (exit 5).
                    landed = verify()
                    if landed:
                        return {}, landed
                    checked = True
            if not last.retryable or attempt >= self.policy.attempts:
                break
            delay = last.wait if last.wait is not None else self._backoff(attempt)
            if delay > self.policy.max_rate_limit_wait:
                raise ApiError(
                    f"{method} {_route(path)}: rate limited; the limit resets in {delay:.0f} s, "
                    f"more than the {self.policy.max_rate_limit_wait:.0f} s this run may wait",
                    status_code=last.status,
                    fix="rerun after the reset, or set AGENTOPS_MAX_RATE_LIMIT_WAIT")
            self.counter.retries += 1
            ghactions.notice(f"  retry {attempt}/{self.policy.attempts - 1} of {method} "
                             f"{_route(path)} in {delay:.1f} s: {last.message}")
            self._sleep(delay)
        raise self._error(method, path, last, write=write, checked=checked)

    def _backoff(self, attempt: int) -> float:
        delay = self.policy.base_delay * (2 ** (attempt - 1))
        return min(self.policy.max_delay, delay * (0.75 + random.random() / 2))  # noqa: S311

    def _once(self, method: str, path: str, *, params: Mapping[str, Any] | None,
              body: Any) -> tuple[dict[str, Any], Any]:
        try:
            return self.requester.requestJsonAndCheck(
                method, path, parameters=dict(params) if params else None, input=body)
        except GithubException as exc:
            raise self._classify_status(exc.status, exc.headers or {}, exc.data) from exc
        except requests.exceptions.ConnectTimeout as exc:
            raise _Failure(f"connect timeout: {exc}", status=None, retryable=True,
                           ambiguous=False, wait=None) from exc
        except requests.exceptions.Timeout as exc:
            raise _Failure(f"timed out waiting for the response: {exc}", status=None,
                           retryable=True, ambiguous=True, wait=None) from exc
        except requests.exceptions.ConnectionError as exc:
            # A refused connection never reached the server; a reset or a dropped
            # response may have come after the server acted on the request.
            refused = "refused" in str(exc).lower() or "NewConnectionError" in repr(exc)
            raise _Failure(f"connection error: {exc}", status=None, retryable=True,
                           ambiguous=not refused, wait=None) from exc

    def _classify_status(self, status: int, headers: Mapping[str, Any], data: Any) -> _Failure:
        message = data.get("message", "") if isinstance(data, dict) else str(data or "")
        lower = message.lower()
        if status in RETRYABLE_STATUS:
            return _Failure(f"HTTP {status} {message}".strip(), status=status, retryable=True,
                            ambiguous=True, wait=None, data=data)
        if status in (403, 429):
            retry_after = _header(headers, "retry-after")
            remaining = _header(headers, "x-ratelimit-remaining")
            reset = _header(headers, "x-ratelimit-reset")
            if retry_after and retry_after.strip().isdigit():
                return _Failure(f"HTTP {status} secondary rate limit (Retry-After {retry_after})",
                                status=status, retryable=True, ambiguous=False,
                                wait=float(retry_after))
            if remaining == "0" and reset and reset.strip().isdigit():
                wait = max(0.0, float(reset) - self._clock()) + 1.0
                return _Failure(f"HTTP {status} primary rate limit (resets in {wait:.0f} s)",
                                status=status, retryable=True, ambiguous=False, wait=wait)
            if status == 429 or "secondary rate limit" in lower or "abuse" in lower:
                # GitHub's guidance without a header: wait at least a minute.
                return _Failure(f"HTTP {status} secondary rate limit", status=status,
                                retryable=True, ambiguous=False, wait=60.0)
        return _Failure(f"HTTP {status} {message}".strip(), status=status, retryable=False,
                        ambiguous=False, wait=None, data=data)

    def _error(self, method: str, path: str, failure: _Failure, *, write: bool,
               checked: bool = False) -> ApiError:
        route = f"{method} {_route(path)}"
        fix = None
        if failure.status == 401:
            fix = "the token is invalid or expired; check the GITHUB_TOKEN secret"
        elif failure.status == 403:
            need = "issues: write" if write else "issues: read (contents: read for code)"
            fix = (f"the token lacks a permission: add `permissions:\\n  {need}` to the job, "
                   "or use a token with that scope")
        elif failure.status == 404:
            fix = ("check OWNER/NAME and the number; a private repository answers 404 to a "
                   "token without access")
        elif failure.status == 422:
            fix = f"GitHub rejected the request body: {failure.data}"
        elif failure.retryable:
            fix = (f"GitHub did not answer after {self.policy.attempts} attempts; rerun later "
                   "(a rerun re-reads before it writes, so it converges)")
        ambiguous = write and failure.ambiguous and not checked
        landed = (" It may have landed: rerun to converge (the rerun re-reads before writing)."
                  if ambiguous else " A re-read shows it did not land." if checked else "")
        return ApiError(f"{route} failed: {failure.message}.{landed}",
                        status_code=failure.status, fix=fix, ambiguous=ambiguous)


def _next_link(link: str | None) -> str | None:
    if not link:
        return None
    for part in link.split(","):
        section = part.split(";")
        if len(section) < 2:
            continue
        if any(s.strip() == 'rel="next"' for s in section[1:]):
            return section[0].strip().strip("<>")
    return None


def quote_path(segment: str) -> str:
    """URL-encode one path segment (label names hold spaces, colons and slashes)."""
    return urllib.parse.quote(segment, safe="")
