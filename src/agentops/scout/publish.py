"""The only writer of the scout: posts the report on the tracking issue (S-7) and hands
its action items to the Projects (v2) board as Backlog drafts (S-8).

Pure planners (``plan_publish``, ``plan_handoff``) and the writers that carry their plans
out (``apply_publish``, ``apply_handoff``); the verbs that read, plan and choose between
printing and applying are in ``commands``. Every write is convergent: a rerun finds the
comment (by the embedded date/target) and the board items (by a hidden marker or the
title) it made before and does not repeat them. A create that fails ambiguously is
retried only after a re-read shows it did not land.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agentops import files, ghactions
from agentops import markdown_escape as esc
from agentops.errors import (
    ApiError,
    ConfigError,
    InputError,
    PartialApplyError,
)
from agentops.github.client import GitHubClient
from agentops.github.identity import Identity
from agentops.github.provenance import Provenance, unsigned
from agentops.scout import embedded, projects
from agentops.scout.collect import REPORT_HEADING
from agentops.scout.livedata import BoardItem

MAX_COMMENT_CHARS = 65536  # GitHub rejects longer issue comment bodies (422)
ITEM_MARKER = "<!-- agentops:scout-item {id} -->"
# The fingerprint of the finding as last written to the board item (S-0b).
ITEM_MARKER_FP = "<!-- agentops:scout-item {id} fp={fp} -->"
LINK_MARKER = "<!-- agentops:board-link {id} -->"
_ITEM_MARKER_RE = re.compile(
    r"<!-- agentops:scout-item (?P<id>[\w.-]+)(?: fp=(?P<fp>[\w.-]*))? -->")
_ID_RE = re.compile(r"[\w.-]{1,64}")
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


# Projects (v2) mutations: sent only from this module (the read queries are in projects).
ADD_DRAFT = """mutation($project: ID!, $title: String!, $body: String!) {
  addProjectV2DraftIssue(input: {projectId: $project, title: $title, body: $body}) {
    projectItem { id databaseId }
  }
}"""

SET_STATUS = """mutation($project: ID!, $item: ID!, $field: ID!, $option: String!) {
  updateProjectV2ItemFieldValue(input: {projectId: $project, itemId: $item, fieldId: $field,
                                        value: {singleSelectOptionId: $option}}) {
    projectV2Item { id }
  }
}"""

EDIT_DRAFT = """mutation($draft: ID!, $body: String!) {
  updateProjectV2DraftIssue(input: {draftIssueId: $draft, body: $body}) {
    draftIssue { id }
  }
}"""


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
    # A comment holds 65,536 characters (up to 4 bytes each); anything bigger is refused.
    text = files.read_text(path, field="--report", limit=4 * MAX_COMMENT_CHARS,
                           fix="give the file `scout.py report --out FILE` wrote")
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


def stamp(body: str, run: Mapping[str, Any]) -> str:
    """``body`` with the workflow run that writes it recorded in its hidden block (the
    provenance the next run checks through the Actions API)."""
    payload = embedded.extract(body)
    if payload is None:
        return body
    return embedded.embed(body, {**payload, "run": dict(run)})


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


@dataclass(frozen=True)
class ReportComments:
    """The report-shaped comments on the tracking issue around a report's date."""

    own: dict[str, Any] | None  # this report, written by the scout (author and provenance)
    # Look-alikes (the heading, maybe a forged hidden block) written by anyone else:
    # never edited, never read for board links or priors; counted in the summary.
    ignored: tuple[dict[str, Any], ...] = ()
    # Written by the token's account, but not provably by the scout (another workflow of
    # the same bot account, a copied run id, no signature): treated as look-alikes.
    unproven: tuple[tuple[dict[str, Any], str], ...] = ()
    warnings: tuple[str, ...] = ()  # provenance that could not be established, and why

    def ignored_note(self, me: Identity) -> str:
        """The lines naming what was ignored and why ("" when nothing was)."""
        lines = []
        if self.ignored:
            lines.append(f"ignored {len(self.ignored)} report-like comment(s) not written by "
                         f"{me.login} (the token's account): {_urls(self.ignored)}")
        if self.unproven:
            whys = "; ".join(dict.fromkeys(why for _c, why in self.unproven))
            lines.append(f"ignored {len(self.unproven)} report-like comment(s) by {me.login} "
                         f"whose provenance does not check out ({whys}): "
                         f"{_urls([c for c, _w in self.unproven])}")
        return "\n".join(lines)


def _urls(comments: Any) -> str:
    comments = list(comments)
    urls = ", ".join(str(c.get("html_url") or c.get("id")) for c in comments[:5])
    return urls + (f" and {len(comments) - 5} more" if len(comments) > 5 else "")


def find_report_comment(client: GitHubClient, repo: str, issue: int, report: ReportFile,
                        prov: Provenance) -> ReportComments:
    """The comment already holding this report (the oldest the scout provably wrote),
    and the report-like comments that are not the scout's, which are ignored."""
    since = dt.date.fromisoformat(report.date) - dt.timedelta(days=2)
    found: list[dict[str, Any]] = []
    for comment in client.paginate(f"/repos/{repo}/issues/{issue}/comments",
                                   {"since": f"{since.isoformat()}T00:00:00Z"}):
        body = comment.get("body") or ""
        if body.startswith(REPORT_HEADING):
            found.append(dict(comment))
    mine = [c for c in found if prov.me.wrote(c)]
    # Security: another author's block is never parsed; ours is, to check its provenance.
    verdicts = prov.judge_all(mine, [embedded.extract(c.get("body") or "") for c in mine])
    own: dict[str, Any] | None = None
    unproven: list[tuple[dict[str, Any], str]] = []
    for comment, verdict in zip(mine, verdicts, strict=True):
        if not verdict.ours:
            unproven.append((comment, verdict.why))
        elif own is None and is_same_report(comment.get("body") or "", report):
            own = comment
    return ReportComments(own=own, ignored=tuple(c for c in found if not prov.me.wrote(c)),
                          unproven=tuple(unproven),
                          warnings=tuple(dict.fromkeys(v.why for v in verdicts if v.warn)))


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
                  plan: PublishPlan, *, prov: Provenance, body: str | None = None
                  ) -> dict[str, Any]:
    """Carry out a ``PublishPlan``; returns the comment as GitHub answered."""
    body = report.markdown if body is None else body
    if plan.operation == "noop":
        return {"id": plan.comment_id, "html_url": plan.url}
    if plan.operation == "updated":
        return client.write("PATCH", f"/repos/{repo}/issues/comments/{plan.comment_id}",
                            {"body": body}, idempotent=True,
                            verify=_comment_reads(client, repo, issue, report, prov=prov,
                                                  comment_id=plan.comment_id, body=body))

    def landed() -> dict[str, Any] | None:
        # Sanity: a 502 or a reset after GitHub stored the comment must not post it twice.
        return find_report_comment(client, repo, issue, report, prov).own

    return client.write("POST", f"/repos/{repo}/issues/{issue}/comments",
                        {"body": body}, idempotent=False, verify=landed)


def _comment_reads(client: GitHubClient, repo: str, issue: int, report: ReportFile, *,
                   prov: Provenance, comment_id: int, body: str) -> Any:
    """``verify`` for an edit of the report comment: the comment as re-read, if it
    already holds ``body`` (an edit whose answer was lost on the last attempt)."""
    def landed() -> dict[str, Any] | None:
        current = find_report_comment(client, repo, issue, report, prov).own
        if (current is not None and int(current.get("id") or 0) == comment_id
                and (current.get("body") or "").rstrip() == body.rstrip()):
            return current
        return None

    return landed


# --- hand-off (S-8) --------------------------------------------------------------------------

@dataclass(frozen=True)
class ReportComment:
    """The report comment that hand-off links its board items from: found among the
    comments ``me`` (the issues token's account) wrote."""

    repo: str
    issue: int
    comment: Mapping[str, Any]
    prov: Provenance


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
    paths = [str(f) for f in item.get("files") or []]
    section = str(item.get("section", ""))
    lines = [
        f"**Source:** Nightly Scout Report — {date}",
        f"**Priority:** {_priority(item)}",
        f"**Section:** {_SECTIONS.get(section, section or 'unknown')}",
        "",
        "## Problem",
        esc.marked(str(item.get("title", "")), limit=500)
        + (f" — {esc.marked(why, limit=2000)}" if why else ""),
        "",
        "## Suggested Fix",
        esc.marked(fix, limit=2000),
        "",
        "## References",
        f"- Report comment: {comment_url or 'not posted (publishing is off)'}",
        "- Relevant files: " + (", ".join(esc.code(f, limit=200) for f in paths) if paths
                                else (esc.marked(where, limit=500) or "none")),
        "",
        _marker(item),
    ]
    return "\n".join(lines)


def _fingerprint(item: Mapping[str, Any]) -> str:
    # It is written inside an HTML comment: only the characters a fingerprint has.
    return re.sub(r"[^\w.-]", "", str(item.get("fingerprint") or ""))


def _marker(item: Mapping[str, Any]) -> str:
    fp = _fingerprint(item)
    return (ITEM_MARKER_FP.format(id=item["id"], fp=fp) if fp
            else ITEM_MARKER.format(id=item["id"]))


def updated_body(board_item: BoardItem, item: Mapping[str, Any], *, date: str) -> str | None:
    """Pure (S-0b): the draft's body with a dated status update, when the finding's
    fingerprint differs from the one the board item records; ``None`` when unchanged,
    resolved (Done/Abort) or not a draft the scout can edit."""
    fp = _fingerprint(item)
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
              f"{esc.marked(note, limit=1000)}\n\n")
    body = board_item.body
    return body[:match.start()] + update + _marker(item) + body[match.end():]


def handoff_items(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The report's action items (new and carried) with a stable id."""
    # Sanity: an id lands inside an HTML comment marker; only the characters a stable id
    # has (hex today) may, so no id can close the comment.
    return [dict(i) for i in payload.get("items") or []
            if isinstance(i, Mapping) and i.get("kind") in HANDOFF_KINDS
            and not i.get("muted")  # held back as unchanged: its board item exists
            and _ID_RE.fullmatch(str(i.get("id") or ""))]


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


def apply_handoff(project_client: GitHubClient, issues_client: GitHubClient,
                  snap: projects.Snapshot, board: projects.Board, plan: HandoffPlan, *,
                  report: ReportFile, items: list[dict[str, Any]],
                  link_from: ReportComment | None) -> tuple[int, str]:
    """Carry out a ``HandoffPlan``: create each draft in Backlog, re-set Backlog where it
    was lost, add dated updates, then link every item from the report comment. Returns
    (items created, comment operation). A failure after the first create is a partial
    apply (exit 4): a rerun finds the created items by their marker."""
    links = {item_id: b.url for item_id, b in plan.existing.items()}
    created = 0
    written = 0  # every write that landed, for the exit code: 4 after one, 5 before any
    try:
        for draft in plan.create:
            item = _create_draft(project_client, snap, board, draft)
            created += 1
            written += 1
            # Sanity: an item whose Status write fails is still ours and on the board; a
            # rerun finds it by its marker and sets Backlog (``plan.set_backlog``).
            _set_backlog(project_client, snap, item["id"])
            written += 1
            links[draft.item_id] = (item.get("url")
                                    or projects.item_url(snap.url, item.get("databaseId")))
            ghactions.notice(f"  created {draft.title} ({created}/{len(plan.create)})")
        for b in plan.set_backlog:
            _set_backlog(project_client, snap, b.item_id)
            written += 1
        for b, body in plan.updates:
            _edit_draft(project_client, board, b, body)
            written += 1
            ghactions.notice(f"  updated {b.title} (the finding changed)")
    except (ApiError, ConfigError) as exc:
        if written == 0:
            raise  # nothing landed: the plain error (and its exit code) is the truth
        raise PartialApplyError(f"handoff: {created} of {len(plan.create)} board item(s) "
                                f"created, then: {exc.message}",
                                fix="rerun: items already created are found by their marker "
                                    "and not created again") from exc
    operation = "noop"
    if link_from is not None:
        old = link_from.comment.get("body") or ""
        # The signature line comes off before the edit and a fresh one goes on after.
        plain = unsigned(old)
        body = link_from.prov.seal(
            link_items(plain, embedded.extract(plain) or report.payload, links, items), stamp)
        if body.rstrip() != old.rstrip():
            cid = int(link_from.comment["id"])
            try:
                issues_client.write(
                    "PATCH", f"/repos/{link_from.repo}/issues/comments/{cid}",
                    {"body": body}, idempotent=True,
                    verify=_comment_reads(issues_client, link_from.repo, link_from.issue,
                                          report, prov=link_from.prov, comment_id=cid,
                                          body=body))
            except ApiError as exc:
                if written == 0:
                    raise
                raise PartialApplyError(
                    f"handoff: {created} board item(s) created, but linking them from the "
                    f"report comment failed: {exc.message}",
                    fix="rerun: the items are found by their marker and only the links are "
                        "written") from exc
            operation = "updated"
    return created, operation


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
        ADD_DRAFT, {"project": snap.project_id, "title": draft.title,
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

    _scoped(lambda: client.graphql(EDIT_DRAFT, {"draft": item.content_id,
                                                         "body": body},
                                   write=True, verify=landed), board)


def _set_backlog(client: GitHubClient, snap: projects.Snapshot, item_id: str) -> None:
    option = snap.status_options[INITIAL_STATUS]

    def landed() -> dict[str, Any] | None:
        data = client.graphql(projects.ITEM_STATUS, {"item": item_id})
        status = ((data.get("node") or {}).get("fieldValueByName") or {}).get("name")
        return ({"data": {"updateProjectV2ItemFieldValue": {"projectV2Item": {"id": item_id}}}}
                if status == INITIAL_STATUS else None)

    client.graphql(SET_STATUS, {"project": snap.project_id, "item": item_id,
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


def _item_line(lines: list[str], item: Mapping[str, Any]) -> int | None:
    candidates = {str(item.get("title", "")).strip(),
                  esc.marked(str(item.get("title", "")), limit=10_000).strip()}
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


