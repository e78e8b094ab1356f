"""A stateful GitHub stand-in on loopback, for tests and benchmarks.

It serves the parts of the REST and GraphQL APIs that agentops uses, with the real
paths, methods, status codes and object fields, keeps state (labels added, comments
posted), records every request, and injects faults per route and attempt: 5xx,
secondary rate limits (403 + Retry-After), 429, primary rate limits (403 +
X-RateLimit-Reset), a connection reset after the request was read (optionally after
acting on it), and a response that never comes (timeout).

Point the code under test at it with ``GITHUB_API_URL=<stand-in>.url`` (GraphQL is then
served at ``<url>/graphql``, as PyGithub derives it).

    with GitHubStandIn() as gh:
        gh.add_repo("o/r", labels=["bug"])
        gh.add_issue("o/r", 1, title="...", labels=["bug"])
        gh.inject("POST", r"/issues/1/labels$", Fault.status(502), attempts=[1])
        ... GITHUB_API_URL=gh.url GITHUB_TOKEN=gh.token ...
        assert gh.writes() == [...]

Served: GET issue, GET/POST issue comments (paginated), POST/GET/DELETE issue labels,
PATCH issue, GET repo labels (list and one), GET repo issues (list), POST /graphql with
the queries ``AgentopsLabelsExist`` (aliased ``repository.label(name:)``) and
``AgentopsTriageQueue`` (aliased ``search(type: ISSUE)``) and ``AgentopsTriageIssues``
(aliased ``repository.issue(number:)``); other GraphQL operations can
be added with ``gh.graphql_handlers[name] = fn(variables, query) -> data``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import socket
import struct
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

EPOCH = 1767225600  # 2026-01-01T00:00:00Z


def _iso(ts: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def _id(*parts: Any) -> int:
    return int(hashlib.sha256(repr(parts).encode()).hexdigest()[:9], 16)


def _node_id(prefix: str, n: int) -> str:
    return prefix + "_" + base64.b64encode(str(n).encode()).decode().rstrip("=")


@dataclass(frozen=True)
class Fault:
    """What to do instead of (or after) serving a request."""

    kind: str  # "status" | "graphql" | "raw" | "reset" | "timeout"
    status: int = 0
    headers: tuple[tuple[str, str], ...] = ()
    message: str = ""
    apply_first: bool = False  # act on the request before failing (the ambiguous case)
    delay: float = 0.0

    @classmethod
    def status_code(cls, status: int, *, apply_first: bool = False) -> Fault:
        return cls("status", status, message={502: "Bad Gateway", 503: "Service Unavailable"}
                   .get(status, "Server Error"), apply_first=apply_first)

    @classmethod
    def secondary(cls, retry_after: int = 0) -> Fault:
        return cls("status", 403, (("Retry-After", str(retry_after)),),
                   "You have exceeded a secondary rate limit. Please wait a few minutes before "
                   "you try again.")

    @classmethod
    def too_many(cls, retry_after: int = 0) -> Fault:
        return cls("status", 429, (("Retry-After", str(retry_after)),), "Too Many Requests")

    @classmethod
    def primary(cls, reset_in: int = 0) -> Fault:
        reset = int(time.time()) + reset_in
        return cls("status", 403, (("X-RateLimit-Limit", "5000"), ("X-RateLimit-Remaining", "0"),
                                   ("X-RateLimit-Reset", str(reset))),
                   "API rate limit exceeded for installation.")

    @classmethod
    def graphql_rate_limited(cls, reset_in: int = 0) -> Fault:
        """GraphQL's way: HTTP 200, an error of type RATE_LIMITED, the reset in headers."""
        reset = int(time.time()) + reset_in
        return cls("graphql", 200, (("X-RateLimit-Limit", "5000"), ("X-RateLimit-Remaining", "0"),
                                    ("X-RateLimit-Reset", str(reset)),
                                    ("X-RateLimit-Resource", "graphql")),
                   "API rate limit already exceeded for installation ID 1.")

    @classmethod
    def raw(cls, body: str, *, status: int = 200,
            content_type: str = "application/json; charset=utf-8") -> Fault:
        """An answer with this exact body: truncated JSON, an HTML error page (what a
        proxy or a load balancer answers with a 200)."""
        return cls("raw", status, (("Content-Type", content_type),), body)

    @classmethod
    def reset(cls, *, apply_first: bool = False) -> Fault:
        return cls("reset", apply_first=apply_first)

    @classmethod
    def timeout(cls, delay: float = 3.0, *, apply_first: bool = False) -> Fault:
        return cls("timeout", delay=delay, apply_first=apply_first)


def drop_connection(h: BaseHTTPRequestHandler, delay: float = 0.0) -> None:
    """Answer a request with a TCP reset instead of a response, after ``delay`` seconds
    (a "timeout" when the client gives up first). Shared by every stand-in that serves
    ``Fault.reset`` and ``Fault.timeout``."""
    if delay:
        time.sleep(delay)
    sock = h.connection
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    h.close_connection = True
    sock.close()


@dataclass
class _Rule:
    method: str
    pattern: re.Pattern[str]
    attempts: frozenset[int]
    fault: Fault


@dataclass(frozen=True)
class Request:
    """One request as the stand-in received it."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    status: int
    graphql: str = ""  # the operation name, for POST /graphql

    @property
    def is_write(self) -> bool:
        if self.graphql:
            return isinstance(self.body, dict) and str(self.body.get("query", "")).lstrip(
            ).startswith("mutation")
        return self.method not in ("GET", "HEAD")


@dataclass
class _Issue:
    number: int
    title: str
    body: str
    labels: list[str]
    user: dict[str, Any]
    author_association: str
    state: str
    created: int
    updated: int
    pull_request: bool = False
    comments: list[dict[str, Any]] = field(default_factory=list)
    locked: bool = False
    assignees: list[str] = field(default_factory=list)


@dataclass
class _Repo:
    full_name: str
    labels: dict[str, dict[str, Any]] = field(default_factory=dict)  # casefold -> label
    issues: dict[int, _Issue] = field(default_factory=dict)


class GitHubStandIn:
    """The stand-in server; use as a context manager or call ``start``/``stop``."""

    def __init__(self, token: str = "standin-token") -> None:
        self.token = token
        self.repos: dict[str, _Repo] = {}
        self.requests: list[Request] = []
        self.created_labels: list[str] = []
        self.runs: dict[tuple[str, int], dict[str, Any]] = {}  # (repo, id) -> workflow run
        self.graphql_handlers: dict[str, Callable[[dict[str, Any], str], dict[str, Any]]] = {
            "AgentopsLabelsExist": self._gql_labels,
            "AgentopsTriageQueue": self._gql_search,
            "AgentopsTriageIssues": self._gql_issues,
        }
        self._rules: list[_Rule] = []
        self._attempts: dict[tuple[str, str], int] = {}
        self._clock = EPOCH + 86400 * 30
        self._lock = threading.RLock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- setup --------------------------------------------------------------------------

    def add_repo(self, repo: str, labels: Iterable[str] = ()) -> None:
        r = self.repos.setdefault(repo.casefold(), _Repo(repo))
        for name in labels:
            self._make_label(r, name)

    def add_issue(self, repo: str, number: int, *, title: str, body: str = "",
                  labels: Sequence[str] = (), login: str = "reporter",
                  association: str = "NONE", state: str = "open", pull_request: bool = False,
                  age_days: float = 10.0, comments: Sequence[dict[str, Any]] = ()) -> None:
        """An issue; ``comments`` are dicts with body, login, type, association."""
        r = self.repos[repo.casefold()]
        for name in labels:
            if name.casefold() not in r.labels:
                self._make_label(r, name)
        created = self._clock - int(age_days * 86400)
        issue = _Issue(number, title, body, list(labels), self._user(login), association,
                       state, created, created, pull_request)
        r.issues[number] = issue
        for c in comments:
            self._add_comment(r, issue, str(c["body"]), login=str(c.get("login", "someone")),
                              user_type=str(c.get("type", "User")),
                              association=str(c.get("association", "NONE")), bump=False)

    def add_run(self, repo: str, run_id: int, path: str, *, status: str = "completed",
                created_ago: int = 3600, updated_ago: int = 0) -> dict[str, Any]:
        """A workflow run of ``path`` in ``repo`` as the Actions API shows it, created
        ``created_ago`` seconds before the stand-in's clock (and updated after)."""
        r = self.repos[repo.casefold()]
        run = {"id": run_id, "name": path.rsplit("/", 1)[-1], "path": path,
               "node_id": _node_id("WFR", run_id), "head_branch": "main",
               "head_sha": hashlib.sha1(str(run_id).encode()).hexdigest(),
               "run_number": run_id % 1000, "event": "issues", "status": status,
               "conclusion": "success" if status == "completed" else None,
               "workflow_id": _id("workflow", path) % 10**9,
               "url": f"https://api.github.com/repos/{r.full_name}/actions/runs/{run_id}",
               "html_url": f"https://github.com/{r.full_name}/actions/runs/{run_id}",
               "created_at": _iso(self._clock - created_ago),
               "updated_at": _iso(self._clock - updated_ago),
               "run_started_at": _iso(self._clock - created_ago), "run_attempt": 1,
               "pull_requests": [],
               "repository": {"id": _id("repo", r.full_name) % 10**9,
                              "full_name": r.full_name, "name": r.full_name.split("/")[1]}}
        self.runs[(r.full_name.casefold(), run_id)] = run
        return run

    def add_comment(self, repo: str, number: int, body: str, *, login: str = "someone",
                    user_type: str = "User", association: str = "NONE") -> None:
        r = self.repos[repo.casefold()]
        self._add_comment(r, r.issues[number], body, login=login, user_type=user_type,
                          association=association, bump=True)

    def inject(self, method: str, path_regex: str, fault: Fault,
               attempts: Iterable[int] = (1,)) -> None:
        """Fail the n-th request (1-based, counted per method and exact path) whose
        path matches ``path_regex``."""
        self._rules.append(_Rule(method.upper(), re.compile(path_regex), frozenset(attempts),
                                 fault))

    # --- inspection ---------------------------------------------------------------------

    def issue_labels(self, repo: str, number: int) -> list[str]:
        return list(self.repos[repo.casefold()].issues[number].labels)

    def issue_comments(self, repo: str, number: int) -> list[str]:
        return [c["body"] for c in self.repos[repo.casefold()].issues[number].comments]

    def issue(self, repo: str, number: int) -> _Issue:
        return self.repos[repo.casefold()].issues[number]

    def writes(self) -> list[Request]:
        """Every mutating request received (failed attempts included)."""
        return [r for r in self.requests if r.is_write]

    def reads(self) -> list[Request]:
        return [r for r in self.requests if not r.is_write]

    def reset_log(self) -> None:
        with self._lock:
            self.requests.clear()

    # --- server ---------------------------------------------------------------------------

    @property
    def url(self) -> str:
        assert self._server is not None, "start() the stand-in first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> GitHubStandIn:
        standin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in two writes; with Nagle on, each response can
            # wait for the client's delayed ACK (tens of ms a request on loopback).
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:  # quiet
                return None

            def _serve(self) -> None:
                standin._handle(self)

            do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _serve

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> GitHubStandIn:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # --- request handling -----------------------------------------------------------------

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        parsed = urllib.parse.urlsplit(h.path)
        path = parsed.path
        query = {k: v[-1] for k, v in urllib.parse.parse_qs(parsed.query).items()}
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        op = ""
        if path == "/graphql" and isinstance(body, dict):
            m = re.match(r"\s*(?:query|mutation)\s+(\w+)", str(body.get("query", "")))
            op = m.group(1) if m else "(anonymous)"
        fault = self._fault_for(h.command, path)
        auth = h.headers.get("Authorization", "")
        if auth not in (f"token {self.token}", f"Bearer {self.token}"):
            self._log(h.command, path, query, body, status=401, op=op)
            self._send(h, 401, {"message": "Bad credentials",
                                "documentation_url": "https://docs.github.com/rest"})
            return
        if fault and not fault.apply_first:
            self._log(h.command, path, query, body, status=fault.status or 0, op=op)
            self._fail(h, fault)
            return
        with self._lock:
            status, payload, headers = self._route(h.command, path, query, body)
        self._log(h.command, path, query, body, status=fault.status if fault else status, op=op)
        if fault:
            self._fail(h, fault)
            return
        self._send(h, status, payload, headers)

    def _fault_for(self, method: str, path: str) -> Fault | None:
        # Attempts are counted per route (method + path), so rules for attempt 1 and
        # attempt 2 of the same call compose.
        with self._lock:
            key = (method, path)
            self._attempts[key] = self._attempts.get(key, 0) + 1
            for rule in self._rules:
                if (rule.method == method and rule.pattern.search(path)
                        and self._attempts[key] in rule.attempts):
                    return rule.fault
        return None

    def _log(self, method: str, path: str, query: dict[str, str], body: Any, *, status: int,
             op: str) -> None:
        with self._lock:
            self.requests.append(Request(method, path, query, body, status, op))

    def _fail(self, h: BaseHTTPRequestHandler, fault: Fault) -> None:
        if fault.kind == "graphql":
            self._send(h, 200, {"errors": [{"type": "RATE_LIMITED", "message": fault.message}]},
                       dict(fault.headers))
            return
        if fault.kind == "raw":
            data = fault.message.encode()
            try:
                h.send_response(fault.status)
                for k, v in fault.headers:
                    h.send_header(k, v)
                h.send_header("Content-Length", str(len(data)))
                h.end_headers()
                h.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        if fault.kind == "status":
            self._send(h, fault.status, {
                "message": fault.message,
                "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"},
                dict(fault.headers))
            return
        drop_connection(h, fault.delay if fault.kind == "timeout" else 0.0)

    def _send(self, h: BaseHTTPRequestHandler, status: int, payload: Any,
              headers: dict[str, str] | None = None) -> None:
        data = b"" if payload is None else json.dumps(payload).encode()
        try:
            h.send_response(status)
            h.send_header("Content-Type", "application/json; charset=utf-8")
            h.send_header("Content-Length", str(len(data)))
            h.send_header("X-GitHub-Media-Type", "github.v3; format=json")
            for k, v in (headers or {}).items():
                h.send_header(k, v)
            h.end_headers()
            h.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    # --- routes ---------------------------------------------------------------------------

    def _route(self, method: str, path: str, query: dict[str, str],
               body: Any) -> tuple[int, Any, dict[str, str]]:
        if path == "/graphql" and method == "POST":
            return self._graphql(body)
        m = re.fullmatch(r"/repos/([^/]+)/([^/]+)(/.*)?", path)
        repo = self.repos.get(f"{m.group(1)}/{m.group(2)}".casefold()) if m else None
        if not m or repo is None:
            return self._not_found()
        rest = m.group(3) or ""
        rm = re.fullmatch(r"/actions/runs/(\d+)", rest)
        if rm and method == "GET":
            run = self.runs.get((repo.full_name.casefold(), int(rm.group(1))))
            return (200, run, {}) if run else self._not_found()
        im = re.fullmatch(r"/issues/(\d+)(/.*)?", rest)
        if im:
            issue = repo.issues.get(int(im.group(1)))
            if issue is None:
                return self._not_found()
            sub = im.group(2) or ""
            if sub == "" and method == "GET":
                return 200, self._issue_json(repo, issue), {}
            if sub == "" and method == "PATCH":
                for key in ("state", "title", "body"):
                    if isinstance(body, dict) and key in body:
                        setattr(issue, key, body[key])
                self._bump(issue)
                return 200, self._issue_json(repo, issue), {}
            if sub == "/comments" and method == "GET":
                return self._page(path, query, [self._comment_json(repo, issue, c)
                                                for c in issue.comments])
            if sub == "/comments" and method == "POST":
                if not isinstance(body, dict) or not body.get("body"):
                    return 422, {"message": "Validation Failed"}, {}
                c = self._add_comment(repo, issue, str(body["body"]), login="github-actions[bot]",
                                      user_type="Bot", association="NONE", bump=True)
                return 201, self._comment_json(repo, issue, c), {}
            if sub == "/labels" and method == "GET":
                return self._page(path, query, [repo.labels[lb.casefold()] for lb in issue.labels])
            if sub == "/labels" and method in ("POST", "PUT"):
                names = body.get("labels") if isinstance(body, dict) else body
                if not isinstance(names, list):
                    return 422, {"message": "Invalid request."}, {}
                if method == "PUT":
                    issue.labels = []
                for name in names:
                    if name.casefold() not in repo.labels:
                        # The real endpoint creates a missing label; agentops must not rely
                        # on (or trigger) that, and tests assert this list stays empty.
                        self._make_label(repo, name)
                        self.created_labels.append(name)
                    canonical = repo.labels[name.casefold()]["name"]
                    if canonical.casefold() not in {lb.casefold() for lb in issue.labels}:
                        issue.labels.append(canonical)
                self._bump(issue)
                return 200, [repo.labels[lb.casefold()] for lb in issue.labels], {}
            lm = re.fullmatch(r"/labels/(.+)", sub)
            if lm and method == "DELETE":
                name = urllib.parse.unquote(lm.group(1))
                issue.labels = [lb for lb in issue.labels if lb.casefold() != name.casefold()]
                self._bump(issue)
                return 200, [repo.labels[lb.casefold()] for lb in issue.labels], {}
            return self._not_found()
        if rest == "/labels" and method == "GET":
            return self._page(path, query, list(repo.labels.values()))
        lm = re.fullmatch(r"/labels/(.+)", rest)
        if lm and method == "GET":
            label = repo.labels.get(urllib.parse.unquote(lm.group(1)).casefold())
            return (200, label, {}) if label else self._not_found()
        if rest == "/issues" and method == "GET":
            want = [w.strip().casefold() for w in query.get("labels", "").split(",") if w.strip()]
            state = query.get("state", "open")
            items = [self._issue_json(repo, i) for i in sorted(repo.issues.values(),
                                                                 key=lambda i: -i.created)
                     if state in ("all", i.state)
                     and all(w in {lb.casefold() for lb in i.labels} for w in want)]
            return self._page(path, query, items)
        return self._not_found()

    @staticmethod
    def _not_found() -> tuple[int, Any, dict[str, str]]:
        return 404, {"message": "Not Found",
                     "documentation_url": "https://docs.github.com/rest",
                     "status": "404"}, {}

    def _page(self, path: str, query: dict[str, str],
              items: list[Any]) -> tuple[int, Any, dict[str, str]]:
        per_page = min(100, int(query.get("per_page") or 30))
        page = max(1, int(query.get("page") or 1))
        last = max(1, -(-len(items) // per_page))
        links = []
        base = f"{self.url}{path}"

        def link(p: int, rel: str) -> str:
            q = urllib.parse.urlencode({**query, "per_page": per_page, "page": p})
            return f'<{base}?{q}>; rel="{rel}"'

        if page < last:
            links += [link(page + 1, "next"), link(last, "last")]
        if page > 1:
            links += [link(1, "first"), link(page - 1, "prev")]
        headers = {"Link": ", ".join(links)} if links else {}
        return 200, items[(page - 1) * per_page: page * per_page], headers

    # --- state helpers ----------------------------------------------------------------------

    def _bump(self, issue: _Issue) -> None:
        self._clock += 60
        issue.updated = self._clock

    def _user(self, login: str, user_type: str = "User") -> dict[str, Any]:
        uid = _id("user", login)
        api = f"https://api.github.com/users/{urllib.parse.quote(login)}"
        return {"login": login, "id": uid, "node_id": _node_id("U", uid),
                "avatar_url": f"https://avatars.githubusercontent.com/u/{uid}?v=4",
                "gravatar_id": "", "url": api,
                "html_url": f"https://github.com/{urllib.parse.quote(login)}",
                "followers_url": f"{api}/followers",
                "following_url": f"{api}/following{{/other_user}}",
                "gists_url": f"{api}/gists{{/gist_id}}",
                "starred_url": f"{api}/starred{{/owner}}{{/repo}}",
                "subscriptions_url": f"{api}/subscriptions",
                "organizations_url": f"{api}/orgs", "repos_url": f"{api}/repos",
                "events_url": f"{api}/events{{/privacy}}",
                "received_events_url": f"{api}/received_events",
                "type": user_type, "user_view_type": "public", "site_admin": False}

    def _make_label(self, repo: _Repo, name: str) -> None:
        lid = _id("label", repo.full_name, name)
        repo.labels[name.casefold()] = {
            "id": lid, "node_id": _node_id("LA", lid),
            "url": f"https://api.github.com/repos/{repo.full_name}/labels/"
                   f"{urllib.parse.quote(name, safe='')}",
            "name": name, "color": hashlib.sha256(name.encode()).hexdigest()[:6],
            "default": False, "description": None,
        }

    def _add_comment(self, repo: _Repo, issue: _Issue, body: str, *, login: str, user_type: str,
                     association: str, bump: bool) -> dict[str, Any]:
        if bump:
            self._bump(issue)
        cid = _id("comment", repo.full_name, issue.number, len(issue.comments), body[:50])
        c = {"id": cid, "body": body, "user": self._user(login, user_type),
             "author_association": association,
             "created": issue.updated if bump else issue.created + 60 * (len(issue.comments) + 1)}
        issue.comments.append(c)
        return c

    def _issue_json(self, repo: _Repo, i: _Issue) -> dict[str, Any]:
        api = f"https://api.github.com/repos/{repo.full_name}"
        iid = _id("issue", repo.full_name, i.number)
        out = {
            "url": f"{api}/issues/{i.number}",
            "repository_url": api,
            "labels_url": f"{api}/issues/{i.number}/labels{{/name}}",
            "comments_url": f"{api}/issues/{i.number}/comments",
            "events_url": f"{api}/issues/{i.number}/events",
            "html_url": f"https://github.com/{repo.full_name}/"
                        f"{'pull' if i.pull_request else 'issues'}/{i.number}",
            "id": iid, "node_id": _node_id("I", iid), "number": i.number, "title": i.title,
            "user": i.user, "labels": [repo.labels[lb.casefold()] for lb in i.labels],
            "state": i.state, "locked": i.locked, "assignee": None,
            "assignees": [self._user(a) for a in i.assignees], "milestone": None,
            "comments": len(i.comments), "created_at": _iso(i.created),
            "updated_at": _iso(i.updated), "closed_at": None,
            "author_association": i.author_association, "active_lock_reason": None,
            "body": i.body, "closed_by": None, "state_reason": None,
        }
        if i.pull_request:
            out["pull_request"] = {"url": f"{api}/pulls/{i.number}",
                                   "html_url": f"https://github.com/{repo.full_name}/pull/"
                                               f"{i.number}"}
        return out

    def _comment_json(self, repo: _Repo, issue: _Issue, c: dict[str, Any]) -> dict[str, Any]:
        api = f"https://api.github.com/repos/{repo.full_name}"
        return {
            "url": f"{api}/issues/comments/{c['id']}",
            "html_url": f"https://github.com/{repo.full_name}/issues/{issue.number}"
                        f"#issuecomment-{c['id']}",
            "issue_url": f"{api}/issues/{issue.number}",
            "id": c["id"], "node_id": _node_id("IC", c["id"]), "user": c["user"],
            "created_at": _iso(c["created"]), "updated_at": _iso(c["created"]),
            "author_association": c["author_association"], "body": c["body"],
            "performed_via_github_app": None,
        }

    # --- GraphQL ----------------------------------------------------------------------------

    def _graphql(self, body: Any) -> tuple[int, Any, dict[str, str]]:
        if not isinstance(body, dict) or "query" not in body:
            return 400, {"message": "Problems parsing JSON"}, {}
        query = str(body["query"])
        variables = dict(body.get("variables") or {})
        m = re.match(r"\s*(query|mutation)\s+(\w+)", query)
        handler = self.graphql_handlers.get(m.group(2)) if m else None
        if handler is None:
            return 200, {"errors": [{"message": "the stand-in does not serve this operation",
                                     "type": "UNSUPPORTED"}]}, {}
        try:
            return 200, {"data": handler(variables, query)}, {}
        except LookupError as exc:
            return 200, {"data": None, "errors": [{"type": "NOT_FOUND", "message": str(exc)}]}, {}

    def _gql_repo(self, variables: dict[str, Any]) -> _Repo:
        name = f"{variables.get('owner')}/{variables.get('name')}"
        repo = self.repos.get(name.casefold())
        if repo is None:
            raise LookupError(f"Could not resolve to a Repository with the name '{name}'.")
        return repo

    def _gql_labels(self, variables: dict[str, Any], query: str) -> dict[str, Any]:
        repo = self._gql_repo(variables)
        out: dict[str, Any] = {}
        for alias, var in re.findall(r"(\w+)\s*:\s*label\(name:\s*\$(\w+)\)", query):
            label = repo.labels.get(str(variables.get(var, "")).casefold())
            out[alias] = {"name": label["name"]} if label else None
        return {"repository": out}

    def _gql_search(self, variables: dict[str, Any], query: str) -> dict[str, Any]:
        cm = re.search(r"comments\(first:\s*(\d+)\)", query)
        comments_first = int(cm.group(1)) if cm else 100
        out: dict[str, Any] = {}
        pattern = (r"(\w+)\s*:\s*search\(query:\s*\$(\w+),\s*type:\s*ISSUE,\s*first:\s*(\d+),"
                   r"\s*after:\s*\$(\w+)\)")
        for alias, qvar, first, after_var in re.findall(pattern, query):
            hits = self.search(str(variables.get(qvar, "")))
            after = variables.get(after_var)
            start = _decode_cursor(str(after)) if after else 0
            page = hits[start:start + int(first)]
            end = start + len(page)
            out[alias] = {
                "issueCount": len(hits),
                "pageInfo": {"hasNextPage": end < len(hits),
                             "endCursor": _encode_cursor(end) if page else None},
                "nodes": [self._issue_node(repo, i, comments_first) for repo, i in page],
            }
        return out

    def _gql_issues(self, variables: dict[str, Any], query: str) -> dict[str, Any]:
        repo = self._gql_repo(variables)
        cm = re.search(r"comments\(first:\s*(\d+)\)", query)
        comments_first = int(cm.group(1)) if cm else 100
        out: dict[str, Any] = {}
        for alias, number in re.findall(r"(\w+)\s*:\s*issue\(number:\s*(\d+)\)", query):
            issue = repo.issues.get(int(number))
            out[alias] = self._issue_node(repo, issue, comments_first) if issue else None
        return {"repository": out}

    def search(self, q: str) -> list[tuple[_Repo, _Issue]]:
        """Issues matching a search string (repo:, is:, label:, -label:, sort:)."""
        tokens = re.findall(r'(-?)(\w+):("([^"]*)"|\S+)', q)
        repos = list(self.repos.values())
        hits = [(r, i) for r in repos for i in r.issues.values()]
        sort = "created-desc"
        for neg, key, raw, quoted in tokens:
            value = (quoted if raw.startswith('"') else raw).casefold()
            if key == "repo":
                hits = [(r, i) for r, i in hits if r.full_name.casefold() == value]
            elif key == "is" and value in ("issue", "pr"):
                hits = [(r, i) for r, i in hits if i.pull_request == (value == "pr")]
            elif key in ("is", "state") and value in ("open", "closed"):
                hits = [(r, i) for r, i in hits if i.state == value]
            elif key == "label":
                has = [(r, i) for r, i in hits if value in {lb.casefold() for lb in i.labels}]
                hits = [h for h in hits if h not in has] if neg else has
            elif key == "sort":
                sort = value
        field_, _, direction = sort.partition("-")
        attr = "updated" if field_ == "updated" else "created"
        hits.sort(key=lambda ri: (getattr(ri[1], attr), ri[1].number),
                  reverse=direction != "asc")
        return hits

    def _issue_node(self, repo: _Repo, i: _Issue, comments_first: int) -> dict[str, Any]:
        def author(user: dict[str, Any]) -> dict[str, Any]:
            return {"login": user["login"].removesuffix("[bot]"),
                    "__typename": "Bot" if user["type"] == "Bot" else "User"}

        shown = i.comments[:comments_first]
        return {
            "number": i.number, "title": i.title, "body": i.body,
            "url": f"https://github.com/{repo.full_name}/issues/{i.number}",
            "state": i.state.upper(), "locked": i.locked,
            "updatedAt": _iso(i.updated), "createdAt": _iso(i.created),
            "author": author(i.user),
            "labels": {"totalCount": len(i.labels), "nodes": [{"name": lb} for lb in i.labels]},
            "comments": {
                "totalCount": len(i.comments),
                "pageInfo": {"hasNextPage": len(i.comments) > comments_first,
                             "endCursor": _encode_cursor(len(shown)) if shown else None},
                "nodes": [{"databaseId": c["id"], "body": c["body"],
                           "createdAt": _iso(c["created"]),
                           "authorAssociation": c["author_association"],
                           "author": author(c["user"])} for c in shown],
            },
        }


def _encode_cursor(n: int) -> str:
    return base64.b64encode(f"cursor:{n}".encode()).decode()


def _decode_cursor(cursor: str) -> int:
    try:
        return int(base64.b64decode(cursor).decode().split(":", 1)[1])
    except (ValueError, IndexError):
        return 0
