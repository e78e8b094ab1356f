"""A stateful stand-in for the parts of GitHub the scout writes to, on loopback.

REST: list/create/update issue comments (paginated with ``Link`` like GitHub), workflow
runs (``GET …/actions/runs/{id}``, for the provenance of report comments), and who a
token is: ``GET /user`` (403 "Resource not accessible by integration" for an App
installation token, as GitHub answers) and GraphQL ``viewer { login }``. Each token
acts as an account (``State.accounts``); a comment it posts carries that ``user``, and,
as on GitHub, a token with issues: write may edit anyone's comment.
GraphQL: a Projects (v2) board — list items (paginated), add a draft, set a single-select
field, read one item's Status. It records every write, and can inject a fault into the
n-th write of a kind (``comment-create``, ``comment-update``, ``draft-create``,
``draft-edit``, ``status-update``): ``state.faults[kind]`` is a queue, one entry per
request of that kind (``None`` serves it normally). An entry is a ``Fault`` of
``tests/standin/github.py`` (any status with its headers, a GraphQL RATE_LIMITED answer,
a reset, a timeout; ``apply_first`` stores the write before failing), or one of the
shorthands ``502-after`` (stored, then 502), ``502-before`` (502, not stored),
``secondary`` (403 secondary rate limit, not stored), ``reset-after`` (stored, then the
connection is reset without an answer).
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

from tests.standin.github import Fault, drop_connection

STATUS_FIELD = "PVTSSF_lADOAUB9vs4BT6Cuzg9"
OPTIONS = {"Backlog": "f75ad846", "Ready": "61e4505c", "In Progress": "47fc9ee4",
           "Need Review": "0ba4b1a2", "Done": "98236657", "Abort": "a3b5c7d9"}
NO_SCOPE_TOKEN = "token-without-project-scope"
INSTALLATION_TOKEN = "ghs_workflow-installation-token"  # a workflow's GITHUB_TOKEN
ITEM_MARKER = "<!-- agentops:scout-item "
# token -> the account it acts as; the installation tokens cannot call GET /user.
ACCOUNTS = {"issues-token": "github-actions[bot]", INSTALLATION_TOKEN: "github-actions[bot]",
            "project-token": "a-maintainer", NO_SCOPE_TOKEN: "a-maintainer",
            "attacker-token": "mallory"}
INSTALLATION_TOKENS = frozenset({"issues-token", INSTALLATION_TOKEN})
SCOUT_WORKFLOW = ".github/workflows/nightly-scout.yml"
SCOUT_RUN = 9_100_000_001  # the run the tests' publish/handoff steps belong to
SHORTHANDS = {"502-before": Fault.status_code(502),
              "502-after": Fault.status_code(502, apply_first=True),
              "secondary": Fault.secondary(0),
              "reset-after": Fault.reset(apply_first=True)}


@dataclass
class State:
    repo: str = "pytorch/torchtitan"
    issue: int = 2856
    project_id: str = "PVT_kwDOAUB9vs4BT6Cu"
    owner: str = "pytorch"
    number: int = 161
    page_size: int = 2
    options: dict[str, str] = field(default_factory=lambda: dict(OPTIONS))
    comments: list[dict[str, Any]] = field(default_factory=list)
    items: list[dict[str, Any]] = field(default_factory=list)
    writes: list[tuple[str, str, Any]] = field(default_factory=list)
    log: list[str] = field(default_factory=list)  # "GET comments", "gql items", "gql add", …
    faults: dict[str, list[Fault | str | None]] = field(default_factory=dict)  # kind -> queue
    next_id: int = 4_100_000_000
    accounts: dict[str, str] = field(default_factory=lambda: dict(ACCOUNTS))
    # Workflow runs of the tracking repository (GET …/actions/runs/{id}); ``run_of``
    # adds one. ``runs_failing`` answers every run lookup with that status.
    runs: dict[int, dict[str, Any]] = field(default_factory=dict)
    runs_failing: int = 0
    installation_tokens: frozenset[str] = INSTALLATION_TOKENS

    def fault(self, kind: str) -> Fault | None:
        queue = self.faults.get(kind) or []
        entry = queue.pop(0) if queue else None
        return SHORTHANDS[entry] if isinstance(entry, str) else entry

    def run_of(self, run_id: int, workflow: str = SCOUT_WORKFLOW, *,
               created: str = "2026-07-09T06:00:00Z", updated: str = "2026-07-09T06:30:00Z",
               status: str = "completed") -> dict[str, Any]:
        """A workflow run as GitHub's Actions API shows it (the fields agentops reads and
        their neighbours)."""
        owner = self.repo.split("/")[0]
        run = {
            "id": run_id, "name": workflow.rsplit("/", 1)[-1].removesuffix(".yml"),
            "node_id": f"WFR_kwLOA{run_id}", "head_branch": "main",
            "head_sha": "0d6b5a3c4e1f2a7b8c9d0e1f2a3b4c5d6e7f8a9b", "path": workflow,
            "display_title": "Nightly", "run_number": run_id % 1000, "event": "schedule",
            "status": status, "conclusion": "success" if status == "completed" else None,
            "workflow_id": 161_000_000 + sum(map(ord, workflow)) % 1000,
            "url": f"https://api.github.com/repos/{self.repo}/actions/runs/{run_id}",
            "html_url": f"https://github.com/{self.repo}/actions/runs/{run_id}",
            "pull_requests": [], "created_at": created, "updated_at": updated,
            "run_attempt": 1, "run_started_at": created,
            "repository": {"id": 600_000_001, "name": self.repo.split("/")[1],
                           "full_name": self.repo, "private": False,
                           "owner": user_object(owner),
                           "html_url": f"https://github.com/{self.repo}"},
        }
        self.runs[run_id] = run
        return run

    def __post_init__(self) -> None:
        self.run_of(SCOUT_RUN)

    def posted_by_run(self, body: str, when: str, workflow: str = SCOUT_WORKFLOW) -> str:
        """``body`` as a run of ``workflow`` alive at ``when`` posts it: its hidden block
        names that run (registered here, as the Actions API would show it)."""
        from agentops.scout import publish

        start = dt.datetime.fromisoformat(when.replace("Z", "+00:00"))
        rid = SCOUT_RUN + 1 + len(self.runs)
        self.run_of(rid, workflow,
                    created=(start - dt.timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    updated=(start + dt.timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ"))
        return publish.stamp(body, {"repository": self.repo, "id": rid})

    def items_of(self, item_id: str) -> list[dict[str, Any]]:
        """Board items carrying the scout's marker for report item ``item_id``."""
        return [i for i in self.items if f"{ITEM_MARKER}{item_id} " in i["body"]]

    def add_item(self, title: str, body: str, status: str | None = None) -> dict[str, Any]:
        self.next_id += 1
        item = {"id": f"PVTI_lADOAUB9vs4BT6Cuz{self.next_id}", "databaseId": self.next_id,
                "draft_id": f"DI_lADOAUB9vs4BT6Cuz{self.next_id}",
                "title": title, "body": body, "status": status}
        self.items.append(item)
        return item


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # no delayed-ACK stall between headers and body

    def log_message(self, *args: Any) -> None:  # keep pytest output clean
        pass

    # --- plumbing ------------------------------------------------------------------

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length) or b"null")

    def _token(self) -> str:
        auth = self.headers.get("Authorization") or ""
        return auth.split(" ", 1)[1] if " " in auth else ""

    def _faulted(self, kind: str, apply: Any) -> bool:
        """Apply a fault for a write of ``kind``; True if the response is already sent
        (or dropped)."""
        fault = self.server.state.fault(kind)
        if fault is None:
            return False
        if fault.apply_first:
            apply()
        if fault.kind == "status":
            self._send(fault.status, {
                "message": fault.message,
                "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"},
                dict(fault.headers))
        elif fault.kind == "graphql":
            self._send(200, {"errors": [{"type": "RATE_LIMITED", "message": fault.message}]},
                       dict(fault.headers))
        else:  # reset, timeout: the answer never comes
            drop_connection(self, fault.delay if fault.kind == "timeout" else 0.0)
        return True

    # --- REST -------------------------------------------------------------------------

    def do_GET(self) -> None:
        st = self.server.state
        url = urlparse(self.path)
        if not self._token():
            self._send(401, {"message": "Requires authentication"})
            return
        if url.path == "/user":
            self._user()
            return
        run = re.fullmatch(rf"/repos/{re.escape(st.repo)}/actions/runs/(\d+)", url.path)
        if run:
            st.log.append(f"GET run {run.group(1)}")
            if st.runs_failing:
                self._send(st.runs_failing, {"message": "Server Error"})
            elif int(run.group(1)) in st.runs:
                self._send(200, st.runs[int(run.group(1))])
            else:
                self._send(404, {"message": "Not Found",
                                 "documentation_url": "https://docs.github.com/rest/actions/"
                                                      "workflow-runs#get-a-workflow-run",
                                 "status": "404"})
            return
        if url.path == f"/repos/{st.repo}/issues/{st.issue}/comments":
            st.log.append("GET comments")
            q = parse_qs(url.query)
            per_page = int(q.get("per_page", ["30"])[0])
            page = int(q.get("page", ["1"])[0])
            since = q.get("since", [""])[0]
            rows = [c for c in st.comments if not since or c["updated_at"] >= since]
            chunk = rows[(page - 1) * per_page: page * per_page]
            headers = {}
            if page * per_page < len(rows):
                nxt = dict(q)
                nxt["page"] = [str(page + 1)]
                link = (f"http://{self.headers['Host']}{url.path}?"
                        f"{urlencode({k: v[0] for k, v in nxt.items()})}")
                headers["Link"] = f'<{link}>; rel="next"'
            self._send(200, chunk, headers)
            return
        self._send(404, {"message": "Not Found"})

    def _user(self) -> None:
        st = self.server.state
        st.log.append("GET user")
        token = self._token()
        if token in st.installation_tokens:
            self._send(403, {"message": "Resource not accessible by integration",
                             "documentation_url": "https://docs.github.com/rest/users/users"
                                                  "#get-the-authenticated-user",
                             "status": "403"})
            return
        login = st.accounts.get(token)
        if login is None:
            self._send(401, {"message": "Bad credentials",
                             "documentation_url": "https://docs.github.com/rest",
                             "status": "401"})
            return
        self._send(200, user_object(login))

    def do_POST(self) -> None:
        st = self.server.state
        url = urlparse(self.path)
        if url.path == "/graphql":
            self._graphql(self._body())
            return
        if url.path == f"/repos/{st.repo}/issues/{st.issue}/comments":
            payload = self._body()
            st.log.append("POST comment")
            made: dict[str, Any] = {}

            def apply() -> None:
                st.next_id += 1
                cid = st.next_id
                made.update({
                    "id": cid, "body": payload["body"],
                    "html_url": f"https://github.com/{st.repo}/issues/{st.issue}"
                                f"#issuecomment-{cid}",
                    "created_at": "2026-07-09T06:10:00Z", "updated_at": "2026-07-09T06:10:00Z",
                    "user": user_object(st.accounts.get(self._token(), "ghost"))})
                st.comments.append(made)
                st.writes.append(("POST", url.path, payload))

            if self._faulted("comment-create", apply):
                return
            apply()
            self._send(201, made)
            return
        self._send(404, {"message": "Not Found"})

    def do_PATCH(self) -> None:
        st = self.server.state
        url = urlparse(self.path)
        match = re.fullmatch(rf"/repos/{re.escape(st.repo)}/issues/comments/(\d+)", url.path)
        target = next((c for c in st.comments if match and c["id"] == int(match.group(1))), None)
        if target is None:
            self._send(404, {"message": "Not Found"})
            return
        payload = self._body()
        st.log.append("PATCH comment")

        def apply() -> None:
            target["body"] = payload["body"]
            target["updated_at"] = "2026-07-09T06:20:00Z"
            st.writes.append(("PATCH", url.path, payload))

        if self._faulted("comment-update", apply):
            return
        apply()
        self._send(200, target)

    # --- GraphQL ----------------------------------------------------------------------

    def _graphql(self, request: dict[str, Any]) -> None:
        st = self.server.state
        query, variables = request["query"], request.get("variables") or {}
        boardish = "ProjectV2" in query or "projectV2" in query
        if "viewer" in query and not boardish:
            st.log.append("gql viewer")
            login = st.accounts.get(self._token())
            if login is None:
                self._send(401, {"message": "Bad credentials",
                                 "documentation_url": "https://docs.github.com/graphql"})
                return
            self._send(200, {"data": {"viewer": {"login": login}}})
            return
        if self._token() == INSTALLATION_TOKEN and boardish:
            st.log.append("gql denied")
            self._send(200, {"data": {"node": None}, "errors": [{
                "type": "FORBIDDEN", "path": ["node"], "locations": [{"line": 2, "column": 3}],
                "message": "Resource not accessible by integration"}]})
            return
        if self._token() == NO_SCOPE_TOKEN and boardish:
            st.log.append("gql denied")
            self._send(200, {"errors": [{
                "type": "INSUFFICIENT_SCOPES", "locations": [{"line": 2, "column": 3}],
                "message": "Your token has not been granted the required scopes to execute "
                           "this query. The 'id' field requires one of the following scopes: "
                           "['read:project'], but your token has only been granted the: "
                           "['repo'] scopes. Please modify your token's granted scopes at: "
                           "https://github.com/settings/tokens."}]})
            return
        if "addProjectV2DraftIssue" in query:
            self._add_draft(variables)
        elif "updateProjectV2ItemFieldValue" in query:
            self._set_field(variables)
        elif "updateProjectV2DraftIssue" in query:
            self._edit_draft(variables)
        elif "node(id: $item)" in query:
            st.log.append("gql item")
            item = next((i for i in st.items if i["id"] == variables["item"]), None)
            node = None if item is None else {
                "id": item["id"],
                "fieldValueByName": {"name": item["status"]} if item["status"] else None}
            self._send(200, {"data": {"node": node}})
        elif "items(first: 100" in query:
            self._list(variables)
        else:
            self._send(200, {"errors": [{"message": "stand-in: unknown query"}]})

    def _list(self, variables: dict[str, Any]) -> None:
        st = self.server.state
        st.log.append("gql items")
        start = int(base64.b64decode(variables["cursor"]).decode()) if variables.get(
            "cursor") else 0
        chunk = st.items[start:start + st.page_size]
        end = start + len(chunk)
        project = {
            "id": st.project_id, "title": "GraphTrainer AutoDev",
            "url": f"https://github.com/orgs/{st.owner}/projects/{st.number}",
            "fields": {"nodes": [{}, {"id": STATUS_FIELD, "name": "Status", "options": [
                {"id": oid, "name": name} for name, oid in st.options.items()]}]},
            "items": {"pageInfo": {"hasNextPage": end < len(st.items),
                                   "endCursor": base64.b64encode(str(end).encode()).decode()},
                      "nodes": [{"id": i["id"], "databaseId": i["databaseId"],
                                 "fieldValueByName": {"name": i["status"]} if i["status"]
                                 else None,
                                 "content": {"__typename": "DraftIssue", "id": i["draft_id"],
                                             "title": i["title"], "body": i["body"]}}
                                for i in chunk]}}
        if "id" in variables:
            data = {"node": project if variables["id"] == st.project_id else None}
        else:
            data = {"organization": {"projectV2": project}}
        self._send(200, {"data": data})

    def _add_draft(self, variables: dict[str, Any]) -> None:
        st = self.server.state
        st.log.append("gql add")
        made: dict[str, Any] = {}

        def apply() -> None:
            made.update(st.add_item(variables["title"], variables["body"]))
            st.writes.append(("GRAPHQL", "addProjectV2DraftIssue", dict(variables)))

        if variables.get("project") != st.project_id:
            self._send(200, {"errors": [{"type": "NOT_FOUND", "message": "no project"}]})
            return
        if self._faulted("draft-create", apply):
            return
        apply()
        self._send(200, {"data": {"addProjectV2DraftIssue": {"projectItem": {
            "id": made["id"], "databaseId": made["databaseId"]}}}})

    def _edit_draft(self, variables: dict[str, Any]) -> None:
        st = self.server.state
        st.log.append("gql edit")
        item = next((i for i in st.items if i["draft_id"] == variables["draft"]), None)
        if item is None:
            self._send(200, {"errors": [{"type": "NOT_FOUND", "message": "no draft"}]})
            return

        def apply() -> None:
            item["body"] = variables["body"]
            st.writes.append(("GRAPHQL", "updateProjectV2DraftIssue", dict(variables)))

        if self._faulted("draft-edit", apply):
            return
        apply()
        self._send(200, {"data": {"updateProjectV2DraftIssue": {"draftIssue": {
            "id": item["draft_id"]}}}})

    def _set_field(self, variables: dict[str, Any]) -> None:
        st = self.server.state
        st.log.append("gql status")
        item = next((i for i in st.items if i["id"] == variables["item"]), None)
        names = {oid: name for name, oid in st.options.items()}
        if item is None or variables["field"] != STATUS_FIELD or variables["option"] not in names:
            self._send(200, {"errors": [{"type": "NOT_FOUND", "message": "bad item/field/option"}]})
            return

        def apply() -> None:
            item["status"] = names[variables["option"]]
            st.writes.append(("GRAPHQL", "updateProjectV2ItemFieldValue", dict(variables)))

        if self._faulted("status-update", apply):
            return
        apply()
        self._send(200, {"data": {"updateProjectV2ItemFieldValue": {
            "projectV2Item": {"id": item["id"]}}}})


def user_object(login: str) -> dict[str, Any]:
    """The ``user`` GitHub puts on a comment (and answers ``GET /user`` with)."""
    bot = login.endswith("[bot]")
    uid = 41898282 if login == "github-actions[bot]" else 5_120_000 + sum(map(ord, login))
    return {"login": login, "id": uid, "node_id": ("BOT_" if bot else "U_") + f"kgDO{uid}",
            "type": "Bot" if bot else "User", "site_admin": False,
            "html_url": f"https://github.com/{login.removesuffix('[bot]')}"}


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, state: State) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state = state


def in_scout_run(monkeypatch: Any, repo: str = "pytorch/torchtitan",
                 run_id: int = SCOUT_RUN) -> None:
    """The environment of a step of the scout's workflow run ``run_id`` in ``repo``."""
    monkeypatch.setenv("GITHUB_REPOSITORY", repo)
    monkeypatch.setenv("GITHUB_RUN_ID", str(run_id))
    monkeypatch.setenv("AGENTOPS_SCOUT_WORKFLOW", SCOUT_WORKFLOW)


@contextmanager
def running(state: State | None = None) -> Iterator[tuple[str, State]]:
    """Serve ``state`` on a loopback port; yields ``(base_url, state)``."""
    server = _Server(state or State())
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server.state
    finally:
        server.shutdown()
        server.server_close()
