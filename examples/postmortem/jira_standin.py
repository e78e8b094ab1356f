#!/usr/bin/env python3
"""A JIRA Cloud stand-in on loopback for the post-mortem demo and tests: just enough of
REST API v3 to receive comments the way JIRA does.

  POST /rest/api/3/issue/{KEY}/comment   basic auth; body {"body": <ADF doc>} -> 201
  GET  /rest/api/3/issue/{KEY}/comment   the stored comments, paged as JIRA does
                                         (orderBy, startAt, maxResults up to page_size)
  GET  /rest/api/3/myself                the API user (its accountId is each comment's
                                         author.accountId)

Faults can be scripted (a queue of status codes, e.g. 500 then 429 with Retry-After)
so retries can be shown. It records every request's raw bytes, so a test can compare
what arrived with the approved artifact, byte for byte.

  python examples/postmortem/jira_standin.py --email demo@example.com --token t0k3n \\
      --url-file /tmp/jira.url          # prints the base URL; Ctrl-C stops it
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import itertools
import json
import re
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

_PATH = re.compile(r"^/rest/api/3/issue/([A-Z][A-Z0-9_]*-[0-9]+)/comment(?:\?.*)?$")
_MYSELF = re.compile(r"^/rest/api/3/myself(?:\?.*)?$")
# The stand-in's API user; JIRA Cloud account ids look like this (``557058:`` + uuid).
ACCOUNT_ID = "557058:f1b1c4a2-6d5e-4c1e-9a57-0b7c2d3e4f50"


class Standin(ThreadingHTTPServer):
    """The server; ``requests`` (method, path, raw body) and ``comments`` are recorded."""

    daemon_threads = True

    def __init__(self, *, email: str, token: str, issues: tuple[str, ...] = ("JIRA-12345",),
                 faults: list[tuple[int, dict[str, str]]] | None = None,
                 max_body: int = 32_768 * 8, dump_dir: str | None = None,
                 page_size: int = 50) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.email = email
        self.auth = "Basic " + base64.b64encode(f"{email}:{token}".encode()).decode()
        self.issues = set(issues)
        self.faults = list(faults or [])
        self.max_body = max_body
        self.page_size = page_size  # comments per page at most, whatever is asked
        self.ignores_start_at = False  # a broken server: every page is the first
        self.dump_dir = dump_dir
        self.requests: list[tuple[str, str, bytes]] = []
        self.comments: dict[str, list[dict[str, Any]]] = {}
        self._ids = itertools.count(10000)
        self.lock = threading.Lock()

    def user(self, account_id: str = ACCOUNT_ID, name: str = "agentops") -> dict[str, Any]:
        """A user as JIRA shows it (``/myself``, and a comment's ``author``)."""
        return {"self": f"{self.url}/rest/api/3/user?accountId={account_id}",
                "accountId": account_id, "displayName": name, "active": True,
                "timeZone": "Etc/UTC", "accountType": "atlassian",
                "avatarUrls": {"48x48": f"{self.url}/avatar/{len(name)}.png"}}

    def add_comment(self, key: str, doc: dict[str, Any], *, account_id: str = ACCOUNT_ID,
                    name: str = "agentops") -> dict[str, Any]:
        """Store a comment as JIRA would: ``account_id`` other than the API user's is
        another person writing on the issue (a test's look-alike)."""
        cid = str(next(self._ids))
        author = self.user(account_id, name)
        comment = {"id": cid, "self": f"{self.url}/rest/api/3/issue/{key}/comment/{cid}",
                   "author": author, "body": doc, "updateAuthor": author,
                   "created": "2026-03-30T12:00:00.000+0000",
                   "updated": "2026-03-30T12:00:00.000+0000", "jsdPublic": True}
        with self.lock:
            self.comments.setdefault(key, []).append(comment)
        return comment

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def posts(self) -> list[bytes]:
        return [body for method, _, body in self.requests if method == "POST"]

    def start(self) -> Standin:
        threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05},
                         daemon=True).start()
        return self


def _int(values: list[str] | None, default: int) -> int:
    raw = (values or [""])[-1]
    return max(0, int(raw)) if raw.isdigit() else default


class _Handler(BaseHTTPRequestHandler):
    server: Standin

    def log_message(self, fmt: str, *args: Any) -> None:
        print(f"jira-standin: {self.command} {self.path} -> {args[1] if len(args) > 1 else ''}",
              file=sys.stderr)

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json;charset=UTF-8")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _common(self, body: bytes) -> str | None:
        with self.server.lock:
            self.server.requests.append((self.command, self.path, body))
        m = _PATH.match(self.path) or _MYSELF.match(self.path)
        if not m:
            self._send(404, {"errorMessages": ["No such endpoint"], "errors": {}})
            return None
        if self.headers.get("Authorization") != self.server.auth:
            self._send(401, {"errorMessages": ["Client must be authenticated to access this "
                                               "resource."], "errors": {}})
            return None
        if m.groups() and m.group(1) not in self.server.issues:
            self._send(404, {"errorMessages": ["Issue does not exist or you do not have "
                                               "permission to see it."], "errors": {}})
            return None
        with self.server.lock:
            fault = self.server.faults.pop(0) if self.server.faults else None
        if fault:
            status, headers = fault
            self._send(status, {"errorMessages": [f"scripted fault {status}"], "errors": {}},
                       headers)
            return None
        return m.group(1) if m.groups() else "myself"

    def do_GET(self) -> None:
        key = self._common(b"")
        if key == "myself":
            self._send(200, {**self.server.user(), "emailAddress": self.server.email,
                             "locale": "en_US", "groups": {"size": 1, "items": []},
                             "applicationRoles": {"size": 1, "items": []}})
        elif key:
            # As JIRA pages them: orderBy (created, or -created for newest first),
            # startAt, and maxResults capped at the server's page size.
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
            order = (query.get("orderBy") or ["created"])[-1]
            comments = list(self.server.comments.get(key, []))
            if order.startswith("-"):
                comments.reverse()
            start = 0 if self.server.ignores_start_at else _int(query.get("startAt"), 0)
            size = min(_int(query.get("maxResults"), self.server.page_size),
                       self.server.page_size)
            self._send(200, {"startAt": start, "maxResults": size, "total": len(comments),
                             "comments": comments[start:start + size]})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        key = self._common(raw)
        if not key:
            return
        if length > self.server.max_body:
            self._send(413, {"errorMessages": ["Request entity too large"], "errors": {}})
            return
        try:
            doc = json.loads(raw)["body"]
            assert doc["type"] == "doc" and doc["version"] == 1
        except (ValueError, KeyError, TypeError, AssertionError):
            self._send(400, {"errorMessages": [], "errors": {"comment": "Comment body is not "
                                                                       "valid ADF."}})
            return
        if key == "myself":
            self._send(405, {"errorMessages": ["Method Not Allowed"], "errors": {}})
            return
        comment = self.server.add_comment(key, doc)
        cid = comment["id"]
        if self.server.dump_dir:  # the raw request body, for a byte-for-byte comparison
            Path(self.server.dump_dir, f"comment-{cid}.request.json").write_bytes(raw)
        self._send(201, comment)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--email", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--issue", action="append", default=None, help="known issue keys")
    p.add_argument("--url-file", help="write the base URL here once listening")
    p.add_argument("--dump-dir", help="write each accepted POST body here")
    args = p.parse_args()
    server = Standin(email=args.email, token=args.token,
                     issues=tuple(args.issue or ["JIRA-12345"]), dump_dir=args.dump_dir)
    if args.url_file:
        Path(args.url_file).write_text(server.url + "\n", encoding="utf-8")
    print(f"jira-standin listening on {server.url}", file=sys.stderr, flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
