"""The only GitHub client of agentops: REST and GraphQL over PyGithub's requester,
with our own retry policy, a per-run write cap and a request counter.

Its policy is the ``github`` row of the one HTTP policy (``agentops.http.Policy``:
attempts, backoff, server-asked waits, the per-read timeout and the total deadline;
``docs/http.md``), and PyGithub's requests go through the one transport
(``agentops.http.Transport``, via PyGithub's connection-class hook): each answer is
bounded in time by the deadline and in size by ``MAX_ANSWER_BYTES``, and redirects
keep the transport's rules. Counting stays here: one logical call, one count.

Adapter side of the I/O line. It performs the requests it is asked to make and decides
only *whether to try again*; what to write is decided by the skills' planners, and only
their appliers/publishers call ``write``.

Why the one retry loop of agentops (``agentops.http.retry``, shared with the
transport and JIRA) rather than PyGithub's ``GithubRetry``: that one also retries
POSTs, which can post the same comment twice when a 502 arrives after GitHub stored it.
Here a non-idempotent write that fails *ambiguously* (5xx, reset after the request was
sent, read timeout) is retried only after ``verify`` re-reads the target and finds the
write did not land.
"""

from __future__ import annotations

import os
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from github import Auth, Github, GithubException
from github.Requester import Requester

from agentops import ghactions
from agentops import http as transport_mod
from agentops.errors import ApiError, InputError, WriteBudgetError
from agentops.http import CallCounter, TransportError

DEFAULT_API_URL = "https://api.github.com"
RETRYABLE_STATUS = frozenset({500, 502, 503, 504})
# Sanity: GitHub limits content creation to about 80 a minute and 500 an hour; a run
# that wants more than this is a bug or a runaway loop, not a bigger backlog.
DEFAULT_MAX_WRITES = 200
# Sanity: a page of 100 issues with 65,536-character bodies is ~7 MB; a job log that
# GHES answers inline is cut at 48 MiB by its reader.
MAX_ANSWER_BYTES = 64 * 1024 * 1024
NOT_GITHUB_FIX = ("something between the runner and the API (a proxy, GITHUB_API_URL) "
                  "answered in GitHub's place; check GITHUB_API_URL and rerun")


class RetryPolicy(transport_mod.Policy):
    """The GitHub row of the one HTTP policy (``agentops.http.Policy``)."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, *,  # type: ignore[override]
                 service: str = "github") -> RetryPolicy:
        base = transport_mod.Policy.from_env(env, service=service)
        return cls(**{f: getattr(base, f) for f in base.__dataclass_fields__})


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


# Every action has a `github-token` input (default the workflow's token) that reaches the
# script as GITHUB_TOKEN; the offline ways differ per script, so each is named.
OFFLINE_HINT = ("in a workflow, the action's `github-token` input (its default, the "
                "workflow's token, is enough unless it was set to \"\"); from a shell "
                "`export GITHUB_TOKEN=$(gh auth token)`; or run without the API: "
                "`triage.py plan ISSUE.json`, `scout.py report --offline`, `postmortem.py` "
                "without --issue/--pr (or with --gathered)")


class GitHubClient:
    """REST + GraphQL with retry, rate-limit handling, write cap and call counting."""

    def __init__(
        self,
        token: str,
        *,
        api_url: str | None = None,
        policy: RetryPolicy | None = None,
        max_writes: int = DEFAULT_MAX_WRITES,
        timeout: float | None = None,
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
        if timeout is not None:
            self.policy = self.policy.replace(timeout=float(timeout))
        self.max_writes = max_writes
        self.counter = CallCounter()
        self._sleep = sleep
        self._clock = clock
        # Counted here per logical call (retries apart), so the transport counts nothing.
        self.transport = transport_mod.Transport(self.policy, user_agent="agentops",
                                                 counter=self.counter, count=False)
        # PyGithub's public hook for its connection classes: the Requester built here
        # keeps the classes bound to this client's transport; the hook is reset at once
        # so no other Requester picks them up.
        Requester.injectConnectionClasses(*_connection_classes(self.transport))
        try:
            self._gh = Github(
                auth=Auth.Token(token) if token else None,
                base_url=self.api_url,
                timeout=max(1, round(self.policy.timeout)),  # unused: the transport's
                retry=None,
                per_page=100,
                seconds_between_requests=None,
                seconds_between_writes=seconds_between_writes or None,
                user_agent="agentops",
            )
        finally:
            Requester.resetConnectionClasses()
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
                fix=OFFLINE_HINT)
        ghactions.secret(token)
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

        def attempt(n: int) -> dict[str, Any]:
            headers, out = self._request("POST", url, body=body, write=write,
                                         idempotent=not write, verify=verify)
            if not isinstance(out, dict):
                raise ApiError("POST /graphql: the answer is not GitHub's answer: not a JSON "
                               "object", fix=NOT_GITHUB_FIX)
            errors = out.get("errors") or []
            if not isinstance(errors, list) or not all(isinstance(e, dict) for e in errors):
                raise ApiError("POST /graphql: the answer is not GitHub's answer: `errors` "
                               "is not a list of objects", fix=NOT_GITHUB_FIX)
            if not errors:
                data = out.get("data")
                if data is not None and not isinstance(data, dict):
                    raise ApiError("POST /graphql: the answer is not GitHub's answer: `data` "
                                   "is not a JSON object", fix=NOT_GITHUB_FIX)
                return data or {}
            # GitHub reports an exhausted GraphQL budget as HTTP 200 with an error of
            # type RATE_LIMITED; a query is a read, so wait for the reset and ask again.
            limited = any(isinstance(e, dict) and e.get("type") == "RATE_LIMITED"
                          for e in errors)
            error = self._graphql_error(query, errors, headers, limited=limited)
            if not limited or write:
                raise error
            reset = _header(headers, "x-ratelimit-reset")
            wait = (max(0.0, float(reset) - self._clock()) + 1.0
                    if reset and reset.strip().isdigit() else 60.0)
            raise transport_mod.RetryLater(error, wait=wait, message="GraphQL rate limit")

        def too_long(failure: transport_mod.RetryLater, wait: float) -> Exception:
            return ApiError(
                f"POST /graphql: rate limited; the limit resets in {wait:.0f} s, more than "
                f"the {self.policy.max_rate_limit_wait:.0f} s this run may wait",
                fix="rerun after the reset, or set AGENTOPS_MAX_RATE_LIMIT_WAIT")

        return transport_mod.retry(self.policy, attempt, what="POST /graphql",
                                   counter=self.counter, sleep=self._sleep, too_long=too_long)

    def _graphql_error(self, query: str, errors: list[Any], headers: Mapping[str, Any], *,
                       limited: bool) -> ApiError:
        messages = "; ".join(str(e.get("message", e)) if isinstance(e, dict) else str(e)
                             for e in errors[:3])
        scopes = "project" if "project" in query.lower() else None
        fix = (f"the token may lack the `{scopes}` scope (a classic PAT or GitHub App with "
               "Projects access; GITHUB_TOKEN cannot reach user/org projects)"
               if scopes and any(isinstance(e, dict)
                                 and e.get("type") in ("FORBIDDEN", "INSUFFICIENT_SCOPES")
                                 for e in errors) else None)
        if limited:
            # A mutation is not retried on RATE_LIMITED; say when the rerun can go.
            reset = _header(headers, "x-ratelimit-reset")
            when = (f" (it resets in {max(0.0, float(reset) - self._clock()):.0f} s)"
                    if reset and reset.strip().isdigit() else "")
            fix = (f"the token's GraphQL rate limit is used up{when}; rerun after the "
                   "reset (a rerun re-reads before it writes, so it converges)")
        return ApiError(f"GraphQL error: {messages}", fix=fix)

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
        route = _route(path)

        def attempt(n: int) -> tuple[dict[str, Any], Any]:
            self.counter.note(method, route, write=write)
            try:
                return self._once(method, path, params=params, body=body)
            except _Failure as failure:
                last = failure
            checked = False
            if write and last.ambiguous:
                final = n >= self.policy.attempts
                if not idempotent and verify is None:
                    # Sanity: cannot prove it did not land, so never resend blind.
                    raise self._error(method, path, last, write=write)
                if verify is not None and (final or not idempotent):
                    # Re-read before resending, and before giving up: a write that landed
                    # behind a lost answer is done (exit 0), not a failure before any
                    # write (exit 5).
                    landed = verify()
                    if landed:
                        return {}, landed
                    checked = True
            error = self._error(method, path, last, write=write, checked=checked)
            if not last.retryable:
                raise error
            raise transport_mod.RetryLater(error, wait=last.wait, message=last.message)

        def too_long(failure: transport_mod.RetryLater, wait: float) -> Exception:
            status = failure.error.status_code if isinstance(failure.error, ApiError) else None
            return ApiError(
                f"{method} {route}: rate limited; the limit resets in {wait:.0f} s, "
                f"more than the {self.policy.max_rate_limit_wait:.0f} s this run may wait",
                status_code=status,
                fix="rerun after the reset, or set AGENTOPS_MAX_RATE_LIMIT_WAIT")

        return transport_mod.retry(self.policy, attempt, what=f"{method} {route}",
                                   counter=self.counter, sleep=self._sleep, too_long=too_long)

    def _once(self, method: str, path: str, *, params: Mapping[str, Any] | None,
              body: Any) -> tuple[dict[str, Any], Any]:
        try:
            headers, data = self.requester.requestJsonAndCheck(
                method, path, parameters=dict(params) if params else None, input=body)
        except GithubException as exc:
            raise self._classify_status(exc.status, exc.headers or {}, exc.data) from exc
        except RecursionError as exc:
            # PyGithub parses the answer; one nested past the parser's depth is not an
            # answer of GitHub's. The request did reach the server.
            raise _Failure("the answer is JSON nested too deep to be GitHub's", status=None,
                           retryable=False, ambiguous=True, wait=None) from exc
        except TransportError as exc:
            # A refused connection never reached the server; a reset, a read timeout or
            # a broken-off answer may have come after the server acted on the request.
            raise _Failure(exc.reason, status=None, retryable=exc.retryable,
                           ambiguous=exc.ambiguous and not exc.refused, wait=None) from exc
        except ValueError as exc:
            # Sanity: a body that starts like JSON and does not parse (cut off by a proxy
            # or a dropped connection) is not GitHub's answer; the server did act.
            raise _Failure("the answer is not GitHub's answer: JSON that does not parse "
                           "(cut off?)", status=None, retryable=True, ambiguous=True,
                           wait=None) from exc
        if isinstance(data, dict) and list(data) == ["data"] and isinstance(data["data"], str):
            # PyGithub wraps a body that is not JSON at all as {"data": text}: an HTML page
            # of a proxy or load balancer, or plain text. Its text is not echoed.
            kind = "an HTML page" if data["data"].lstrip()[:1] == "<" else "text"
            raise _Failure(f"the answer is not GitHub's answer: {kind}, not JSON",
                           status=None, retryable=True, ambiguous=True, wait=None)
        return headers, data

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
        elif "not GitHub's answer" in failure.message:
            fix = NOT_GITHUB_FIX
        elif failure.retryable:
            fix = (f"GitHub did not answer after {self.policy.attempts} attempts; rerun later "
                   "(a rerun re-reads before it writes, so it converges)")
        ambiguous = write and failure.ambiguous and not checked
        landed = (" It may have landed: rerun to converge (the rerun re-reads before writing)."
                  if ambiguous else " A re-read shows it did not land." if checked else "")
        return ApiError(f"{route} failed: {failure.message}.{landed}",
                        status_code=failure.status, fix=fix, ambiguous=ambiguous)


class _Answer:
    """What PyGithub reads from a connection's response (``RequestsResponse``'s
    interface: ``status``, ``headers``, ``getheaders()``, ``read()``)."""

    def __init__(self, resp: transport_mod.Response) -> None:
        self.status = resp.status
        self.headers = resp.headers
        self._text = resp.text()
        self._body = resp.body or b""

    def getheaders(self) -> Any:
        return self.headers.items()

    def read(self) -> str:
        return self._text

    def iter_content(self, chunk_size: int | None = 1) -> Iterator[bytes]:
        step = max(1, chunk_size or len(self._body) or 1)
        for i in range(0, len(self._body), step):
            yield self._body[i:i + step]

    def raise_for_status(self) -> None:
        if self.status >= 400:
            raise ApiError(f"HTTP {self.status}", status_code=self.status)


class _Connection:
    """PyGithub's connection interface (``request`` then ``getresponse``) on the
    agentops transport; subclassed per client with its transport and scheme."""

    transport: transport_mod.Transport
    protocol = "https"

    def __init__(self, host: str, port: int | None = None, **kwargs: Any) -> None:
        # kwargs: PyGithub's timeout, retry, pool size, verify; the transport has its own.
        self.host = host
        self.port = port or (443 if self.protocol == "https" else 80)
        self._call: tuple[str, str, Any, dict[str, str]] = ("GET", "/", None, {})

    def request(self, verb: str, url: str, input: Any, headers: dict[str, str],
                stream: bool = False) -> None:
        self._call = (verb, url, input, headers)

    def getresponse(self) -> _Answer:
        verb, url, data, headers = self._call
        full = f"{self.protocol}://{self.host}:{self.port}{url}"
        resp = self.transport.open(verb, full, headers=headers, data=data,
                                   what=f"{verb} {_route(url)}", follow_redirects=False,
                                   write=verb != "GET")
        resp.read(MAX_ANSWER_BYTES)
        return _Answer(resp)

    def close(self) -> None:
        """The transport's session outlives one connection; nothing to close here."""


def _connection_classes(transport: transport_mod.Transport) -> tuple[type, type]:
    attrs = {"transport": transport, "__module__": __name__}
    return (type("HTTPConnection", (_Connection,), {**attrs, "protocol": "http"}),
            type("HTTPSConnection", (_Connection,), {**attrs, "protocol": "https"}))


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
