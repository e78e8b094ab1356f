"""Gather what GitHub knows about the bug (P-2): the source issue's error lines and
code blocks, the fix PR (title, merge state, merge commit, commits, changed files),
the check runs of its head commit, and identifiers from its diff.

Adapter side: reads through ``agentops.github.client`` only, never writes. The
``parse_*`` functions are pure (REST JSON in, ``Gathered`` fields out) so the whole
path replays offline from cassettes or a saved snapshot.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from agentops.errors import InputError
from agentops.github.client import GitHubClient, quote_path
from agentops.postmortem.model import CheckRun, Gathered

_REF = re.compile(r"^([A-Za-z0-9][\w.-]*)/([\w.-]+)#([0-9]+)$")
_FENCE = re.compile(r"^\s*(```+|~~~+)")
# Error *lines*, not prose about errors: exception class names are case-sensitive.
_ERROR_LINE = re.compile(
    r"((?-i:\b\w*(?:Error|Exception)\b)|\berror:|(?-i:\bFAILED\b)|\bTraceback \(most"
    r"|\bSegmentation fault\b|\bassert(ion)? failed\b|\bCUDA error\b|\bfatal:)",
    re.IGNORECASE)
# Code-like names: snake_case, camelCase, Scoped::names or ptr->fields.
_IDENT = re.compile(r"\b([A-Za-z_]\w*(?:(?:::|->)[A-Za-z_]\w*)*)\s*\(")
_DEFN = re.compile(r"^\s*(?!(?:return|if|else|while|for|switch|case|throw|new|delete)\b)"
                   r"(?:def|class|struct|fn|func|void|static|inline|template|"
                   r"[A-Za-z_][\w:<>*& ]*\s)\s*\**([A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)\s*[({]")
_KEYWORDS = frozenset("if for while switch return sizeof catch elif print assert with "
                      "super self len range isinstance".split())
MAX_ERROR_LINES = 10
MAX_LINE = 300
MAX_IDENTIFIERS = 15
MAX_PARAGRAPH = 600
MAX_COMMITS = 10


def parse_ref(text: str, *, field: str) -> tuple[str, str, int]:
    """``OWNER/NAME#N`` → (owner, name, N); an InputError naming the flag otherwise."""
    m = _REF.match(text.strip())
    if not m:
        raise InputError(field, f"expected OWNER/NAME#N, got {text!r}",
                         fix=f"e.g. {field} pytorch/pytorch#123456")
    return m.group(1), m.group(2), int(m.group(3))


def _defuse(text: str) -> str:
    # Security: issue and PR text is untrusted; keep an @mention from pinging anyone
    # wherever the draft ends up (PR description, JIRA with GitHub links).
    return re.sub(r"(?<![\w`])@(?=[A-Za-z0-9])", "@\u200b", text)


def parse_issue_body(body: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Error lines outside code blocks, and the fenced code blocks themselves."""
    lines: list[str] = []
    blocks: list[str] = []
    current: list[str] | None = None
    fence = ""
    for raw in (body or "").replace("\r\n", "\n").split("\n"):
        m = _FENCE.match(raw)
        if current is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                if any(x.strip() for x in current):
                    blocks.append("\n".join(current).strip("\n"))
                current = None
            else:
                current.append(raw)
            continue
        if m:
            current, fence = [], m.group(1)
            continue
        line = raw.strip()
        if line and _ERROR_LINE.search(line) and len(lines) < MAX_ERROR_LINES:
            lines.append(_defuse(line[:MAX_LINE]))
    return tuple(lines), tuple(_defuse(b) for b in blocks)


def diff_identifiers(files: Iterable[Mapping[str, Any]]) -> tuple[str, ...]:
    """Function/struct names from hunk headers and changed definitions in the patches."""
    found: dict[str, None] = {}
    for f in files:
        for line in (f.get("patch") or "").split("\n"):
            if line.startswith("@@"):
                context = line.split("@@", 2)[-1]
                for m in _IDENT.finditer(context):
                    _keep(found, m.group(1))
            elif line[:1] in "+-" and not line.startswith(("+++", "---")):
                m = _DEFN.match(line[1:])
                if m:
                    _keep(found, m.group(1))
    return tuple(found)[:MAX_IDENTIFIERS]


def _keep(found: dict[str, None], name: str) -> None:
    tail = re.split(r"::|->", name)[-1]
    looks_code = "_" in tail.strip("_") or re.search(r"[a-z][A-Z]", tail) or name != tail
    if tail not in _KEYWORDS and len(name) >= 4 and looks_code:
        found.setdefault(name, None)


def _first_paragraph(body: str) -> str | None:
    """The PR description's first prose paragraph (no code, no checklists), bounded."""
    paragraph: list[str] = []
    for raw in body.replace("\r\n", "\n").split("\n"):
        line = raw.strip()
        if not line:
            if paragraph:
                break
            continue
        if _FENCE.match(line) or line.startswith(("#", "- [", "* [", "<!--", "|", ">")):
            if paragraph:
                break
            continue
        paragraph.append(line)
    text = " ".join(paragraph)
    return _defuse(text[:MAX_PARAGRAPH]) if text else None


def parse_pr(pr: Mapping[str, Any], commits: Sequence[Mapping[str, Any]],
             files: Sequence[Mapping[str, Any]], checks: Mapping[str, Any], *,
             ref: str) -> dict[str, Any]:
    """The PR's fields for ``Gathered``."""
    return {
        "pr_ref": ref,
        "pr_url": pr.get("html_url"),
        "pr_title": _defuse(str(pr.get("title") or "")) or None,
        "pr_body": _first_paragraph(str(pr.get("body") or "")),
        "pr_merged": bool(pr.get("merged")),
        "merge_commit": pr.get("merge_commit_sha") if pr.get("merged") else None,
        "head_sha": (pr.get("head") or {}).get("sha"),
        "commits": tuple(f"{c['sha'][:7]} {_defuse(c['commit']['message'].splitlines()[0])}"
                         for c in commits if c.get("commit", {}).get("message")),
        "files": tuple(str(f["filename"]) for f in files),
        "diff_identifiers": diff_identifiers(files),
        "check_runs": tuple(CheckRun(name=str(c["name"]), status=str(c["status"]),
                                     conclusion=c.get("conclusion"),
                                     url=str(c.get("html_url") or ""))
                            for c in checks.get("check_runs", [])),
    }


def gather(client: GitHubClient, *, issue: str | None = None,
           pr: str | None = None) -> Gathered:
    """Read the issue and/or PR (five REST reads at most, plus pages)."""
    fields: dict[str, Any] = {}
    if issue:
        owner, name, number = parse_ref(issue, field="--issue")
        obj = client.read(f"/repos/{owner}/{name}/issues/{number}")
        lines, blocks = parse_issue_body(str(obj.get("body") or ""))
        fields.update(issue_ref=f"{owner}/{name}#{number}",
                      issue_title=_defuse(str(obj.get("title") or "")) or None,
                      error_lines=lines, code_blocks=blocks)
    if pr:
        owner, name, number = parse_ref(pr, field="--pr")
        base = f"/repos/{owner}/{name}"
        obj = client.read(f"{base}/pulls/{number}")
        commits = list(client.paginate(f"{base}/pulls/{number}/commits"))
        files = list(client.paginate(f"{base}/pulls/{number}/files"))
        head = (obj.get("head") or {}).get("sha")
        checks = (client.read(f"{base}/commits/{head}/check-runs", {"per_page": 100})
                  if head else {})
        fields.update(parse_pr(obj, commits, files, checks, ref=f"{owner}/{name}#{number}"))
    return Gathered(**fields)


def approver_from_reviews(reviews: Sequence[Mapping[str, Any]], environment: str) -> str | None:
    """The login of the last approval of ``environment`` in a run's review history."""
    login = None
    for review in reviews:
        names = {str(e.get("name")) for e in review.get("environments") or []}
        if review.get("state") == "approved" and environment in names:
            login = str((review.get("user") or {}).get("login") or "") or None
    return login


def environment_approver(client: GitHubClient, *, repo: str, run_id: str,
                         environment: str) -> str | None:
    """Who approved this run's deployment to ``environment`` (``actions: read``)."""
    reviews = client.read(f"/repos/{repo}/actions/runs/{run_id}/approvals")
    return approver_from_reviews(reviews if isinstance(reviews, list) else [], environment)


def collaborator_permission(client: GitHubClient, *, repo: str, login: str) -> str:
    """The commenter's permission on the repository (admin, maintain, write, triage,
    read or none), from the collaborator-permission API."""
    obj = client.read(f"/repos/{repo}/collaborators/{quote_path(login)}/permission")
    # role_name distinguishes maintain/triage, which `permission` folds into write/read.
    return str(obj.get("role_name") or obj.get("permission") or "none")


def workflow_run(client: GitHubClient, *, repo: str, run_id: str) -> dict[str, Any]:
    """The draft run: its workflow path and who triggered it."""
    obj = client.read(f"/repos/{repo}/actions/runs/{run_id}")
    return {"path": str(obj.get("path") or ""),
            "triggering_actor": str((obj.get("triggering_actor") or obj.get("actor") or {})
                                    .get("login") or ""),
            "event": str(obj.get("event") or "")}
