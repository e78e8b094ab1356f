"""The only writer of the scout: posts the report on the tracking issue (S-7) and hands
its action items to the Projects (v2) board as Backlog drafts (S-8).

Writer side of the I/O line. Each command reads first, plans (pure functions below),
and only then writes; ``--dry-run`` is the one branch that stops after the plan. Every
write is convergent: a rerun finds the comment (by the embedded date/target) and the
board items (by a hidden marker or the title) it made before and does not repeat them.
A create that fails ambiguously is retried only after a re-read shows it did not land.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentops import ghactions
from agentops.errors import (
    ApiError,
    ConfigError,
    InputError,
    PartialApplyError,
)
from agentops.github.client import GitHubClient
from agentops.scout import embedded, projects
from agentops.scout.collect import REPORT_HEADING, LiveTargets
from agentops.scout.livedata import BoardItem

MAX_COMMENT_CHARS = 65536  # GitHub rejects longer issue comment bodies (422)
ITEM_MARKER = "<!-- agentops:scout-item {id} -->"
# The fingerprint of the finding as last written to the board item (S-0b).
ITEM_MARKER_FP = "<!-- agentops:scout-item {id} fp={fp} -->"
LINK_MARKER = "<!-- agentops:board-link {id} -->"
_ITEM_MARKER_RE = re.compile(
    r"<!-- agentops:scout-item (?P<id>[\w.-]+)(?: fp=(?P<fp>[\w.-]*))? -->")
RESOLVED = ("Done", "Abort")
_SECTIONS = {"S-1": "Upstream delta (S-1)", "S-2": "TODO unblock (S-2)",
             "S-3": "Tests and CI (S-3)", "S-4": "Freshness and debt (S-4)",
             "S-5": "Docs (S-5)", "S-6": "Open work (S-6)"}
_PRIORITY_OF = {"blocking": "P0", "should-fix": "P1", "nice-to-have": "P2"}
HANDOFF_KINDS = ("action", "carried")
# Security/Sanity: a hand-off never moves work into Ready; only people do (S-8).
INITIAL_STATUS = "Backlog"
SCOPE_FIX = ("the board needs a token with the `project` scope (a classic PAT, or a GitHub "
             "App with Projects read and write); GITHUB_TOKEN cannot reach Projects. Store it "
             "as the PROJECT_TOKEN secret and pass it as the action's `project-token` input "
             "(env AGENTOPS_PROJECT_TOKEN)")
_SCOPE_RE = re.compile(r"scope|not accessible|forbidden|insufficient|permission", re.I)


# --- the report file -------------------------------------------------------------------

@dataclass(frozen=True)
class ReportFile:
    """A report as ``scout.py report`` wrote it: Markdown with the embedded block."""

    path: str
    markdown: str
    payload: dict[str, Any]

    @property
    def date(self) -> str:
        """The report date (YYYY-MM-DD) from the embedded block."""
        return str(self.payload.get("date", ""))

    @property
    def target(self) -> str:
        """The target name from the embedded block ("" in older reports)."""
        return str(self.payload.get("target", ""))


def load_report(path: str) -> ReportFile:
    """Read and check a report file; everything is validated before the first write."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError("--report", f"cannot read {path}: {exc.strerror}",
                         fix="give the file `scout.py report --out FILE` wrote") from exc
    if not text.startswith(REPORT_HEADING):
        raise InputError("--report", f"{path} does not start with {REPORT_HEADING!r}",
                         fix="give the Markdown report itself, not the job summary or JSON")
    payload = embedded.extract(text)
    if payload is None or not re.fullmatch(r"\d{4}-\d\d-\d\d", str(payload.get("date", ""))):
        raise InputError("--report", f"{path} has no valid embedded report block",
                         fix="publish the file exactly as `scout.py report` wrote it; the "
                             "hidden block tells the next run which items are new")
    if len(text) > MAX_COMMENT_CHARS:
        raise InputError("--report", f"{path} is {len(text)} characters; a GitHub comment "
                         f"holds at most {MAX_COMMENT_CHARS}",
                         fix="shorten the report (FYI and All Clear are the first to trim)")
    return ReportFile(path=path, markdown=text, payload=payload)


def is_same_report(body: str, report: ReportFile) -> bool:
    """True if a comment body is a posting of the same report (date and target)."""
    if not body.startswith(REPORT_HEADING):
        return False
    payload = embedded.extract(body)
    if payload is None:
        return False
    if str(payload.get("date")) != report.date:
        return False
    return not report.target or str(payload.get("target", "")) in ("", report.target)


def find_report_comment(client: GitHubClient, repo: str, issue: int,
                        report: ReportFile) -> dict[str, Any] | None:
    """The comment already holding this report, if any (oldest first)."""
    since = dt.date.fromisoformat(report.date) - dt.timedelta(days=2)
    for comment in client.paginate(f"/repos/{repo}/issues/{issue}/comments",
                                   {"since": f"{since.isoformat()}T00:00:00Z"}):
        if is_same_report(comment.get("body") or "", report):
            return dict(comment)
    return None


# --- publish (S-7) --------------------------------------------------------------------------

@dataclass(frozen=True)
class PublishPlan:
    """What publishing will do: create, update (edit in place) or nothing."""

    operation: str  # created | updated | noop
    comment_id: int = 0
    url: str = ""


def plan_publish(existing: Mapping[str, Any] | None, body: str) -> PublishPlan:
    """Pure: the operation for ``body`` given the comment found (or not)."""
    if existing is None:
        return PublishPlan("created")
    same = (existing.get("body") or "").rstrip() == body.rstrip()
    return PublishPlan("noop" if same else "updated", int(existing["id"]),
                       str(existing.get("html_url", "")))


def publish_command(args: argparse.Namespace) -> int:
    """``scout.py publish``: post (or edit in place) the report comment."""
    repo, issue = _publish_target(args)
    report = load_report(args.report)
    client = GitHubClient.from_env()
    with ghactions.group("publish: read the tracking issue"):
        existing = find_report_comment(client, repo, issue, report)
    body = keep_board_links(report, existing)
    plan = plan_publish(existing, body)
    if args.dry_run:
        where = plan.url or f"{repo}#{issue}"
        print(f"dry run: would {_verb(plan.operation)} the {report.date} report on {where}")
        print(client.counter.line())
        return 0
    with ghactions.group("publish: write the comment"):
        comment = apply_publish(client, repo, issue, report, plan, body=body)
    url = str(comment.get("html_url", "")) if comment else plan.url
    print(f"{plan.operation}: {url}")
    ghactions.set_output("comment-url", url)
    ghactions.set_output("operation", plan.operation)
    _finish(client, f"Scout report {plan.operation}: {url}")
    return 0


def keep_board_links(report: ReportFile, existing: Mapping[str, Any] | None) -> str:
    """Pure: the report to post; when re-publishing over a comment that ``handoff``
    already linked, its board links are carried over instead of being erased."""
    if existing is None:
        return report.markdown
    old = embedded.extract(existing.get("body") or "") or {}
    links = {str(k): str(v) for k, v in (old.get("board_items") or {}).items()}
    if not links:
        return report.markdown
    return link_items(report.markdown, report.payload, links, handoff_items(report.payload))


def apply_publish(client: GitHubClient, repo: str, issue: int, report: ReportFile,
                  plan: PublishPlan, *, body: str | None = None) -> dict[str, Any]:
    """Carry out a ``PublishPlan``; returns the comment as GitHub answered."""
    body = report.markdown if body is None else body
    if plan.operation == "noop":
        return {"id": plan.comment_id, "html_url": plan.url}
    if plan.operation == "updated":
        return client.write("PATCH", f"/repos/{repo}/issues/comments/{plan.comment_id}",
                            {"body": body}, idempotent=True)

    def landed() -> dict[str, Any] | None:
        # Sanity: a 502 or a reset after GitHub stored the comment must not post it twice.
        return find_report_comment(client, repo, issue, report)

    return client.write("POST", f"/repos/{repo}/issues/{issue}/comments",
                        {"body": body}, idempotent=False, verify=landed)


# --- hand-off (S-8) --------------------------------------------------------------------------

@dataclass(frozen=True)
class Draft:
    """One board draft to create for an action item."""

    item_id: str
    title: str
    body: str


@dataclass(frozen=True)
class HandoffPlan:
    """Drafts to create, items already on the board, and items that need Backlog set."""

    create: tuple[Draft, ...] = ()
    existing: dict[str, BoardItem] = field(default_factory=dict)  # report item id -> board
    set_backlog: tuple[BoardItem, ...] = ()  # ours, created earlier, never given a status
    updates: tuple[tuple[BoardItem, str], ...] = ()  # (draft, new body): finding changed


def draft_title(item: Mapping[str, Any]) -> str:
    """``[NightlyScout][Pn] short description`` (one line, at most ~100 characters)."""
    text = re.sub(r"\s+", " ", str(item.get("title", ""))).strip()
    if len(text) > 80:
        text = text[:79].rstrip() + "…"
    return f"[NightlyScout][{_priority(item)}] {text}"


def draft_body(item: Mapping[str, Any], *, date: str, comment_url: str) -> str:
    """The draft's body: Source, Priority, Section, Problem, Suggested Fix, References,
    and the hidden marker that makes the next run find it."""
    why = str(item.get("why", "")).strip()
    where = str(item.get("where", "")).strip()
    fix = str(item.get("fix") or item.get("suggestion") or "").strip()
    if not fix:
        fix = (f"Start at {where}." if where else "See the report item.") + (
            f" Status when reported: {item['status']}." if item.get("status") else "")
    files = [str(f) for f in item.get("files") or []]
    section = str(item.get("section", ""))
    lines = [
        f"**Source:** Nightly Scout Report — {date}",
        f"**Priority:** {_priority(item)}",
        f"**Section:** {_SECTIONS.get(section, section or 'unknown')}",
        "",
        "## Problem",
        ghactions.inert_markdown(str(item.get("title", "")), limit=500)
        + (f" — {ghactions.inert_markdown(why, limit=2000)}" if why else ""),
        "",
        "## Suggested Fix",
        ghactions.inert_markdown(fix, limit=2000),
        "",
        "## References",
        f"- Report comment: {comment_url or 'not posted (publishing is off)'}",
        "- Relevant files: " + (", ".join(f"`{ghactions.inert_markdown(f, limit=200)}`"
                                          for f in files) if files else (where or "none")),
        "",
        _marker(item),
    ]
    return "\n".join(lines)


def _marker(item: Mapping[str, Any]) -> str:
    fp = str(item.get("fingerprint") or "")
    return (ITEM_MARKER_FP.format(id=item["id"], fp=fp) if fp
            else ITEM_MARKER.format(id=item["id"]))


def updated_body(board_item: BoardItem, item: Mapping[str, Any], *, date: str) -> str | None:
    """Pure (S-0b): the draft's body with a dated status update, when the finding's
    fingerprint differs from the one the board item records; ``None`` when unchanged,
    resolved (Done/Abort) or not a draft the scout can edit."""
    fp = str(item.get("fingerprint") or "")
    if not fp or board_item.status in RESOLVED or board_item.content_type != "DraftIssue":
        return None
    match = next((m for m in _ITEM_MARKER_RE.finditer(board_item.body)
                  if m.group("id") == item["id"]), None)
    if match is None or (match.group("fp") or "") == fp:
        return None
    if not match.group("fp"):
        return None  # Sanity: no recorded fingerprint, so no evidence of a change
    note = str(item.get("status") or item.get("why") or "the finding changed").strip()
    update = (f"### Update {date} (Nightly Scout Report)\n"
              f"{ghactions.inert_markdown(note, limit=1000)}\n\n")
    body = board_item.body
    return body[:match.start()] + update + _marker(item) + body[match.end():]


def handoff_items(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The report's action items (new and carried) with a stable id."""
    return [dict(i) for i in payload.get("items") or []
            if isinstance(i, Mapping) and i.get("kind") in HANDOFF_KINDS and i.get("id")]


def plan_handoff(items: list[dict[str, Any]], board: tuple[BoardItem, ...], *, date: str,
                 comment_url: str) -> HandoffPlan:
    """Pure: a draft per item with no board item yet (matched by marker, else title);
    Done/Abort items count as existing, so a resolved finding is never recreated."""
    by_marker: dict[str, BoardItem] = {}
    by_title: dict[str, BoardItem] = {}
    for b in board:
        for match in _ITEM_MARKER_RE.finditer(b.body):
            by_marker.setdefault(match.group("id"), b)
        by_title.setdefault(_norm(b.title), b)
    create: list[Draft] = []
    existing: dict[str, BoardItem] = {}
    backlog: list[BoardItem] = []
    updates: list[tuple[BoardItem, str]] = []
    for item in items:
        title = draft_title(item)
        found = by_marker.get(item["id"]) or by_title.get(_norm(title))
        if found is not None:
            existing[item["id"]] = found
            if not found.status and item["id"] in by_marker:
                backlog.append(found)  # ours, from a run that stopped before setting it
            body = updated_body(found, item, date=date)
            if body is not None:
                updates.append((found, body))
            continue
        if any(d.title == title for d in create):
            continue  # two findings that render the same title: one board item
        create.append(Draft(item_id=item["id"], title=title,
                            body=draft_body(item, date=date, comment_url=comment_url)))
    return HandoffPlan(create=tuple(create), existing=existing, set_backlog=tuple(backlog),
                       updates=tuple(updates))


def link_items(markdown: str, payload: Mapping[str, Any], links: Mapping[str, str],
               items: list[dict[str, Any]]) -> str:
    """Pure: the report with each action item's line linking its board item, and the
    links recorded in the embedded block (so the next run and a rerun see them)."""
    lines = markdown.split("\n")
    for item in items:
        url = links.get(item["id"])
        if not url:
            continue
        marker = LINK_MARKER.format(id=item["id"])
        if any(marker in line for line in lines):
            continue
        idx = _item_line(lines, item)
        if idx is None:
            ghactions.warning(f"handoff: no line for item {item['id']} in the report; its "
                              "board link is only in the embedded block")
            continue
        lines[idx] = f"{lines[idx]} — board: [item]({url}) {marker}"
    new_payload = dict(payload)
    merged = dict(payload.get("board_items") or {})
    merged.update({k: v for k, v in links.items() if v})
    new_payload["board_items"] = merged
    return embedded.embed("\n".join(lines), new_payload)


def handoff_command(args: argparse.Namespace) -> int:
    """``scout.py handoff``: one Backlog draft per action item, then link them in the
    report comment."""
    report = load_report(args.report)
    board = _board(args)
    items = handoff_items(report.payload)
    project_client = _project_client()
    issues_client = GitHubClient.from_env() if os.environ.get("GITHUB_TOKEN") else project_client
    tracking = _tracking(args)
    comment: dict[str, Any] | None = None
    if tracking:
        with ghactions.group("handoff: find the report comment"):
            comment = find_report_comment(issues_client, tracking[0], tracking[1], report)
        if comment is None:
            raise ConfigError(f"handoff: no {report.date} report comment on "
                              f"{tracking[0]}#{tracking[1]}",
                              fix="run `scout.py publish` first; the board items link to it")
    comment_url = str(comment.get("html_url", "")) if comment else ""
    with ghactions.group("handoff: read the board (all items)"):
        snap = _scoped(lambda: projects.read_board(project_client, board), board)
    plan = plan_handoff(items, snap.items, date=report.date, comment_url=comment_url)
    if (plan.create or plan.set_backlog) and INITIAL_STATUS not in snap.status_options:
        raise ConfigError(
            f"board {board.owner}#{board.number}: no Status option {INITIAL_STATUS!r} "
            f"(options: {', '.join(snap.status_options) or 'no Status field'})",
            fix="add a Backlog option to the board's Status field; new scout items never "
                "start in Ready")
    print(f"handoff: {len(items)} action item(s); {len(plan.existing)} already on the board; "
          f"{len(plan.create)} to create; {len(plan.updates)} changed")
    if args.dry_run:
        for draft in plan.create:
            print(f"dry run: would create {draft.title!r} on {board.owner}#{board.number} "
                  f"and set Status to {INITIAL_STATUS}")
        for b in plan.set_backlog:
            print(f"dry run: would set Status of {b.title!r} to {INITIAL_STATUS}")
        for b, _ in plan.updates:
            print(f"dry run: would add a dated update to {b.title!r} (the finding changed)")
        print(_calls(project_client, issues_client))
        return 0
    links = {item_id: b.url for item_id, b in plan.existing.items()}
    created = 0
    try:
        for draft in plan.create:
            item = _create_draft(project_client, snap, board, draft)
            _set_backlog(project_client, snap, item["id"])
            links[draft.item_id] = (item.get("url")
                                    or projects.item_url(snap.url, item.get("databaseId")))
            created += 1
            ghactions.notice(f"  created {draft.title} ({created}/{len(plan.create)})")
        for b in plan.set_backlog:
            _set_backlog(project_client, snap, b.item_id)
        for b, body in plan.updates:
            _edit_draft(project_client, board, b, body)
            ghactions.notice(f"  updated {b.title} (the finding changed)")
    except (ApiError, ConfigError) as exc:
        if created == 0:
            raise  # nothing landed: the plain error (and its exit code) is the truth
        raise PartialApplyError(f"handoff: {created} of {len(plan.create)} board item(s) "
                                f"created, then: {exc.message}",
                                fix="rerun: items already created are found by their marker "
                                    "and not created again") from exc
    operation = "noop"
    if comment is not None:
        body = link_items(comment.get("body") or "", embedded.extract(comment.get("body") or "")
                          or report.payload, links, items)
        if body.rstrip() != (comment.get("body") or "").rstrip():
            issues_client.write("PATCH", f"/repos/{tracking[0]}/issues/comments/{comment['id']}",
                                {"body": body}, idempotent=True)
            operation = "updated"
    ghactions.set_output("items-created", str(created))
    ghactions.set_output("comment-url", comment_url)
    ghactions.set_output("operation", operation)
    print(f"handoff: created {created} board item(s) in {INITIAL_STATUS}; report comment "
          f"{operation}")
    _finish(project_client, f"Scout hand-off: {created} board item(s) created in "
                            f"{INITIAL_STATUS}, report comment {operation}",
            other=issues_client)
    return 0


# --- hand-off writes ------------------------------------------------------------------------

def _create_draft(client: GitHubClient, snap: projects.Snapshot, board: projects.Board,
                  draft: Draft) -> dict[str, Any]:
    def landed() -> dict[str, Any] | None:
        # Re-read ALL items: an ambiguous create that did land shows up with our marker.
        for b in projects.read_board(client, board).items:
            if any(m.group("id") == draft.item_id for m in _ITEM_MARKER_RE.finditer(b.body)):
                return {"data": {"addProjectV2DraftIssue": {
                    "projectItem": {"id": b.item_id, "url": b.url}}}}
        return None

    data = _scoped(lambda: client.graphql(
        projects.ADD_DRAFT, {"project": snap.project_id, "title": draft.title,
                             "body": draft.body}, write=True, verify=landed), board)
    item = ((data.get("addProjectV2DraftIssue") or {}).get("projectItem") or {})
    if not item.get("id"):
        raise ApiError("addProjectV2DraftIssue returned no item id")
    return item


def _edit_draft(client: GitHubClient, board: projects.Board, item: BoardItem,
                body: str) -> None:
    def landed() -> dict[str, Any] | None:
        for b in projects.read_board(client, board).items:
            if b.item_id == item.item_id and b.body == body:
                return {"data": {"updateProjectV2DraftIssue": {"draftIssue": {
                    "id": item.content_id}}}}
        return None

    _scoped(lambda: client.graphql(projects.EDIT_DRAFT, {"draft": item.content_id,
                                                         "body": body},
                                   write=True, verify=landed), board)


def _set_backlog(client: GitHubClient, snap: projects.Snapshot, item_id: str) -> None:
    option = snap.status_options[INITIAL_STATUS]

    def landed() -> dict[str, Any] | None:
        data = client.graphql(projects.ITEM_STATUS, {"item": item_id})
        status = ((data.get("node") or {}).get("fieldValueByName") or {}).get("name")
        return ({"data": {"updateProjectV2ItemFieldValue": {"projectV2Item": {"id": item_id}}}}
                if status == INITIAL_STATUS else None)

    client.graphql(projects.SET_STATUS, {"project": snap.project_id, "item": item_id,
                                         "field": snap.status_field_id, "option": option},
                   write=True, verify=landed)


# --- helpers ------------------------------------------------------------------------------------

def _scoped(call: Any, board: projects.Board) -> Any:
    """Run a board call; a token without the ``project`` scope becomes a clear exit 1."""
    try:
        return call()
    except ApiError as exc:
        scope_problem = exc.status_code in (401, 403) or (
            exc.status_code is None and exc.message.startswith("GraphQL error")
            and (_SCOPE_RE.search(exc.message) or (exc.fix and "project" in exc.fix)))
        if scope_problem:
            raise ConfigError(f"board {board.owner}#{board.number}: the token cannot use "
                              f"Projects: {exc.message}", fix=SCOPE_FIX) from exc
        raise


def _project_client() -> GitHubClient:
    env = dict(os.environ)
    token = (os.environ.get("AGENTOPS_PROJECT_TOKEN") or "").strip()
    if token:
        env["GITHUB_TOKEN"] = token
    elif not (env.get("GITHUB_TOKEN") or "").strip():
        raise InputError("AGENTOPS_PROJECT_TOKEN", "not set (nor GITHUB_TOKEN)", fix=SCOPE_FIX)
    else:
        # The fallback works for a PAT or an App token passed as github-token; the
        # workflow's own GITHUB_TOKEN is refused by the board, which _scoped explains.
        ghactions.notice("handoff: no AGENTOPS_PROJECT_TOKEN; using GITHUB_TOKEN for the board")
    return GitHubClient.from_env(env)


def _repo_issue(args: argparse.Namespace) -> tuple[str, int]:
    repo = str(getattr(args, "repo", "") or "")
    issue = str(getattr(args, "issue", "") or "")
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", repo):
        raise InputError("--repo", f"expected OWNER/NAME, got {repo!r}",
                         fix="e.g. --repo pytorch/torchtitan (env AGENTOPS_REPO)")
    if not issue.isdigit() or int(issue) < 1:
        raise InputError("--issue", f"expected the tracking issue number, got {issue!r}",
                         fix="e.g. --issue 2856 (env AGENTOPS_ISSUE)")
    return repo, int(issue)


def _publish_target(args: argparse.Namespace) -> tuple[str, int]:
    """``--repo``/``--issue`` when an issue is given, else the config's tracking issue."""
    if getattr(args, "issue", None):
        return _repo_issue(args)
    targets = _targets(args)
    if targets and targets.tracking_repo and targets.tracking_number:
        return targets.tracking_repo, targets.tracking_number
    return _repo_issue(args)  # names the missing --issue


def _tracking(args: argparse.Namespace) -> tuple[str, int] | None:
    if getattr(args, "repo", None) and getattr(args, "issue", None):
        return _repo_issue(args)
    targets = _targets(args)
    if targets and targets.tracking_repo and targets.tracking_number:
        return targets.tracking_repo, targets.tracking_number
    return None


def _board(args: argparse.Namespace) -> projects.Board:
    board = getattr(args, "board", None)
    if isinstance(board, projects.Board):
        return board
    targets = _targets(args)
    if targets is None or targets.board is None:
        raise ConfigError("handoff: the target config has no `board`",
                          fix="add `board: {owner: ORG, number: N, project_id: PVT_…}` to the "
                              "target YAML (--config)")
    return targets.board


def _targets(args: argparse.Namespace) -> LiveTargets | None:
    targets = getattr(args, "targets", None)
    if isinstance(targets, LiveTargets):
        return targets
    name = getattr(args, "config", None)
    if not name:
        return None
    from agentops.scout import config as scout_config  # the report half's loader

    return LiveTargets.from_config(scout_config.load_target(name))


def _item_line(lines: list[str], item: Mapping[str, Any]) -> int | None:
    candidates = {str(item.get("title", "")).strip(),
                  ghactions.inert_markdown(str(item.get("title", "")), limit=10_000).strip()}
    candidates.discard("")
    for idx, line in enumerate(lines):
        if item["id"] in line and line.lstrip().startswith("- "):
            return idx
    for idx, line in enumerate(lines):
        if line.lstrip().startswith("- [") and any(c in line for c in candidates):
            return idx
    return None


def _priority(item: Mapping[str, Any]) -> str:
    p = str(item.get("priority") or "")
    if p in ("P0", "P1", "P2"):
        return p
    return _PRIORITY_OF.get(str(item.get("severity") or ""), "P2")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def _verb(operation: str) -> str:
    return {"created": "post", "updated": "edit", "noop": "leave unchanged"}[operation]


def _calls(client: GitHubClient, other: GitHubClient | None = None) -> str:
    if other is None or other is client:
        return client.counter.line()
    return (f"API calls: {client.counter.total + other.counter.total} "
            f"(board {client.counter.line().removeprefix('API calls: ')}; "
            f"issues {other.counter.line().removeprefix('API calls: ')})")


def _finish(client: GitHubClient, headline: str, *, other: GitHubClient | None = None) -> None:
    line = _calls(client, other)
    print(line)
    ghactions.append_summary(f"{ghactions.inert_markdown(headline, limit=500)}\n\n{line}\n")
