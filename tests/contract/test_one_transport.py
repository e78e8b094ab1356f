"""One HTTP transport (issue #14): every request agentops sends goes through
``src/agentops/http/transport.py`` (PyGithub's request building included, through its
connection-class hook). This test reads the source of src/, scripts/ and benchmarks/
and fails on any other way to send a request: ``requests.get/post/…/Session``, a
``from requests import …`` of those, ``urllib.request.urlopen``, ``http.client``
connections, urllib3 pools, httpx."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TRANSPORT = ROOT / "src" / "agentops" / "http" / "transport.py"
SCANNED = sorted(p for d in ("src", "scripts", "benchmarks") for p in (ROOT / d).rglob("*.py"))
REQUESTS_SENDERS = frozenset({"get", "post", "put", "patch", "delete", "head", "options",
                              "request", "Session", "session"})
OTHER_SENDERS = {
    "urllib.request": {"urlopen", "Request", "build_opener", "OpenerDirector"},
    "http.client": {"HTTPConnection", "HTTPSConnection"},
    "urllib3": {"PoolManager", "HTTPConnectionPool", "HTTPSConnectionPool", "request"},
}


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Name):
        return node.id
    return "…"


def senders(source: str, filename: str = "<src>") -> list[str]:
    """``line: what`` for every way to send a request other than the transport."""
    tree = ast.parse(source, filename=filename)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = {a.name for a in node.names}
            if node.module in ("requests", "requests.api", "requests.sessions"):
                bad = names & REQUESTS_SENDERS
            else:
                bad = names & OTHER_SENDERS.get(node.module, set())
            if node.module.split(".")[0] == "httpx":
                bad = names
            out += [f"{node.lineno}: from {node.module} import {b}" for b in sorted(bad)]
        elif isinstance(node, ast.Import):
            out += [f"{node.lineno}: import {a.name}" for a in node.names
                    if a.name.split(".")[0] == "httpx"]
        elif isinstance(node, ast.Attribute):
            dotted = _dotted(node)
            head, _, attr = dotted.rpartition(".")
            via_requests = head in ("requests", "requests.api", "requests.sessions") \
                and attr in REQUESTS_SENDERS
            if via_requests or attr in OTHER_SENDERS.get(head, set()):
                out.append(f"{node.lineno}: {dotted}")
    return sorted(set(out), key=lambda s: (int(s.split(":")[0]), s))


@pytest.mark.parametrize("module", [p for p in SCANNED if p != TRANSPORT],
                         ids=[str(p.relative_to(ROOT)) for p in SCANNED if p != TRANSPORT])
def test_no_request_outside_the_transport(module: Path) -> None:
    found = senders(module.read_text(encoding="utf-8"), str(module))
    assert not found, (f"{module.relative_to(ROOT)} sends HTTP requests itself; use "
                       "agentops.http.Transport (bounds, retries, redaction):\n  "
                       + "\n  ".join(found))


def test_the_transport_is_where_the_session_is() -> None:
    assert "requests.Session()" in TRANSPORT.read_text(encoding="utf-8")
    assert senders(TRANSPORT.read_text(encoding="utf-8"))  # the detector sees it there


def test_detector_flags_each_form() -> None:
    source = '''
import requests
from requests import Session, get
import urllib.request
import httpx
requests.get(url)
requests.post(url, data=b"")
s = requests.Session()
requests.sessions.Session()
urllib.request.urlopen(url)
http.client.HTTPSConnection("h")
urllib3.PoolManager()
'''
    assert senders(source) == [
        "3: from requests import Session", "3: from requests import get", "5: import httpx",
        "6: requests.get", "7: requests.post", "8: requests.Session",
        "9: requests.sessions.Session", "10: urllib.request.urlopen",
        "11: http.client.HTTPSConnection", "12: urllib3.PoolManager"]


def test_detector_leaves_the_rest_alone() -> None:
    source = '''
import requests
from requests import RequestException
x = requests.RequestException
transport.request("GET", url, max_bytes=10)
d.get("x")
session = self.http.session
'''
    assert senders(source) == []
