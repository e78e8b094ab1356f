"""Only the writer modules write (style practice 1, T-20): a mutating GitHub/HTTP call
anywhere under src/ other than ``*/apply.py``, ``*/publish.py``,
``src/agentops/github/`` or the one transport ``src/agentops/http/transport.py`` (which sends what
those ask for) fails this test, and ``dry_run`` never appears in a writer (style
practice 4: the dry-run branch lives in the command function).

AST-based and generic over src/: new modules are covered the day they are added.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
WRITER_NAMES = ("apply.py", "publish.py")
HTTP_WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# PyGithub's mutating methods (Issue, PullRequest, Repository, IssueComment, Label …).
PYGITHUB_MUTATORS = frozenset({
    "add_to_labels", "remove_from_labels", "set_labels", "delete_labels", "create_comment",
    "create_issue_comment", "create_issue", "create_label", "edit", "lock", "unlock",
    "add_to_assignees", "remove_from_assignees", "create_review", "merge", "delete",
    "create_pull", "create_git_ref", "update_file", "create_file", "delete_file",
})
REQUESTS_VERBS = frozenset({"post", "put", "patch", "delete"})


def is_writer(path: Path) -> bool:
    """Whether a module may write: a skill's apply/publish, the one client package, or
    the one transport (it sends any method its callers, the writers, ask for)."""
    rel = path.relative_to(SRC) if path.is_relative_to(SRC) else path
    return (path.name in WRITER_NAMES or rel.parts[:2] == ("agentops", "github")
            or rel.parts == ("agentops", "http", "transport.py"))


def _receiver(node: ast.AST) -> str:
    """``self.client.write`` → ``self.client``; best effort, for the message and heuristics."""
    if isinstance(node, ast.Attribute):
        return f"{_receiver(node.value)}.{node.attr}"
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return _receiver(node.func) + "()"
    return "…"


def _const_str(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def mutating_calls(source: str, filename: str = "<src>") -> list[str]:
    """``line: call — why`` for every mutating call in ``source``."""
    tree = ast.parse(source, filename=filename)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value.lstrip().startswith("mutation") \
                and "{" in node.value:
            out.append(f"{node.lineno}: a GraphQL mutation document")
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        attr = node.func.attr
        recv = _receiver(node.func.value)
        where = f"{node.lineno}: {recv}.{attr}(…)"
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        if attr == "write":
            # GitHubClient.write(method, path, body): an HTTP method first (file handles'
            # .write(text) take one argument that is not a method name).
            method = _const_str(node.args[0]) if node.args else _const_str(kw.get("method"))
            if (method and method.upper() in HTTP_WRITE_METHODS) or len(node.args) >= 2 \
                    or "method" in kw or "client" in recv.lower():
                out.append(f"{where} — GitHubClient.write")
        elif attr == "graphql":
            flag = kw.get("write")
            if flag is not None and not (isinstance(flag, ast.Constant) and flag.value is False):
                out.append(f"{where} — graphql(write=…)")
        elif attr in REQUESTS_VERBS and (recv.split(".")[-1] in ("requests", "httpx")
                                          or "session" in recv.lower()):
            out.append(f"{where} — HTTP {attr.upper()}")
        elif attr == "request" and (recv.split(".")[-1] in ("requests", "httpx")
                                    or "session" in recv.lower()):
            method = _const_str(node.args[0]) if node.args else _const_str(kw.get("method"))
            if method is None or method.upper() in HTTP_WRITE_METHODS:
                out.append(f"{where} — HTTP request({method or '?'})")
        elif attr in ("open", "request", "send") and node.args \
                and (_const_str(node.args[0]) or "").upper() in HTTP_WRITE_METHODS:
            out.append(f"{where} — HTTP {_const_str(node.args[0])} through the transport")
        elif attr in PYGITHUB_MUTATORS:
            out.append(f"{where} — PyGithub mutator")
    return sorted(out, key=lambda s: int(s.split(":")[0]))


def _uses_dry_run(source: str) -> list[int]:
    tree = ast.parse(source)
    lines = []
    for node in ast.walk(tree):
        name = (node.id if isinstance(node, ast.Name) else node.attr
                if isinstance(node, ast.Attribute) else node.arg
                if isinstance(node, ast.arg) else None)
        if name == "dry_run":
            lines.append(node.lineno)
    return sorted(set(lines))


MODULES = sorted(SRC.rglob("*.py"))


@pytest.mark.parametrize("module", [m for m in MODULES if not is_writer(m)],
                         ids=[str(m.relative_to(ROOT)) for m in MODULES if not is_writer(m)])
def test_no_mutating_call_outside_the_writers(module: Path) -> None:
    found = mutating_calls(module.read_text(encoding="utf-8"), str(module))
    assert not found, (f"{module.relative_to(ROOT)} is not a writer module "
                       f"(apply.py, publish.py, agentops/github/) but calls:\n  "
                       + "\n  ".join(found))


@pytest.mark.parametrize("module", [m for m in MODULES if m.name in WRITER_NAMES] or [None],
                         ids=[str(m.relative_to(ROOT)) for m in MODULES
                              if m.name in WRITER_NAMES] or ["none"])
def test_writers_know_nothing_of_dry_runs(module: Path | None) -> None:
    assert module is not None, "no apply.py/publish.py found: this check would check nothing"
    lines = _uses_dry_run(module.read_text(encoding="utf-8"))
    assert not lines, f"{module.relative_to(ROOT)}: dry_run on lines {lines} (style practice 4)"


# --- the detector itself ---------------------------------------------------------------

MUTATING = '''
client.write("POST", f"{path}/labels", {"labels": labels}, idempotent=True)
self.client.write("PATCH", path, body)
gh.write(method="DELETE", path=p)
client.graphql(DOC, variables, write=True)
requests.post(url, json=payload)
self.session.put(url)
requests.request("DELETE", url)
issue.add_to_labels("bug")
issue.create_comment("hi")
comment.edit("new")
repo.create_issue(title="x")
ADD = """mutation($p: ID!) { addProjectV2DraftIssue(input: {projectId: $p, title: "t"}) { id } }"""
self.http.open("POST", url, data=payload)
transport.request("PATCH", url, max_bytes=1)
'''

BENIGN = '''
fh.write("text")
sys.stdout.write(line)
path.write_text(body)
client.read("/repos/o/r/issues/1")
client.graphql(QUERY, variables)
client.graphql(QUERY, variables, write=False)
requests.get(url)
session.get(url)
requests.request("GET", url)
d.get("edit")
doc = "mutations are described in docs"
path.open("w")
transport.request("GET", url, max_bytes=1)
'''


def test_detector_flags_each_mutating_form() -> None:
    assert mutating_calls(MUTATING) == [
        '2: client.write(…) — GitHubClient.write',
        '3: self.client.write(…) — GitHubClient.write',
        '4: gh.write(…) — GitHubClient.write',
        '5: client.graphql(…) — graphql(write=…)',
        '6: requests.post(…) — HTTP POST',
        '7: self.session.put(…) — HTTP PUT',
        '8: requests.request(…) — HTTP request(DELETE)',
        '9: issue.add_to_labels(…) — PyGithub mutator',
        '10: issue.create_comment(…) — PyGithub mutator',
        '11: comment.edit(…) — PyGithub mutator',
        '12: repo.create_issue(…) — PyGithub mutator',
        '13: a GraphQL mutation document',
        '14: self.http.open(…) — HTTP POST through the transport',
        '15: transport.request(…) — HTTP PATCH through the transport',
    ]


def test_detector_leaves_reads_and_file_writes_alone() -> None:
    assert mutating_calls(BENIGN) == []


def test_writer_modules_are_recognised() -> None:
    assert is_writer(SRC / "agentops" / "triage" / "apply.py")
    assert is_writer(SRC / "agentops" / "scout" / "publish.py")
    assert is_writer(SRC / "agentops" / "github" / "client.py")
    assert is_writer(SRC / "agentops" / "http" / "transport.py")
    assert not is_writer(SRC / "agentops" / "http" / "urls.py")
    assert not is_writer(SRC / "agentops" / "triage" / "live.py")
    assert not is_writer(SRC / "agentops" / "scout" / "projects.py")
