"""Collect what the scout reads through the GitHub API into a ``LiveData`` (S-0a prior
reports, S-0b board items, S-2 PR states, S-3a CI health, S-6 open work).

Adapter side of the I/O line, reads only: it never writes to GitHub (``publish.py``
does) and decides nothing about the report. A part the API refuses or cannot reach is
left ``None`` with the reason in ``LiveData.skipped``; the report goes on without it.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

from agentops import flag_values, ghactions, untrusted_files
from agentops.errors import ApiError
from agentops.github.client import GitHubClient, quote_path
from agentops.github.identity import token_identity
from agentops.github.provenance import Provenance
from agentops.http import Transport, TransportError
from agentops.scout import embedded, joblog, projects
from agentops.scout.livedata import (
    BoardItem,
    FailedTest,
    LiveData,
    OpenWork,
    PriorReport,
    PullState,
    WorkflowHealth,
)

REPORT_HEADING = "# Nightly Scout Report"
# The renderer prints "skipped — <reason>"; these are the reasons.
NOT_ALLOWLISTED = "GitHub API not allowlisted"
_DATE_RE = re.compile(r"^# Nightly Scout Report\s*[—–-]\s*(\d{4}-\d\d-\d\d)")
# Sanity: a job log of a long GPU run can be tens of MB; the parts the parser needs (pip
# output near the start, the failure near the end) fit well inside this.
MAX_LOG_BYTES = 48 * 1024 * 1024
MAX_FAILED_JOBS = 4
RUNS_PER_WORKFLOW = 5


@dataclass(frozen=True)
class LiveTargets:
    """The parts of a scout target config the API collection needs."""

    repo: str  # OWNER/NAME of the code (CI workflows, PRs, issues)
    subproject: str  # repo-relative directory of the sub-project
    workflows: tuple[str, ...] = ()  # workflow files (".github/workflows/x.yaml" or "x.yaml")
    tracking_repo: str = ""
    tracking_number: int = 0
    report_days: int = 7
    board: projects.Board | None = None
    search: str = ""  # text term for S-6 issue search (default: sub-project basename)
    review_wait_days: int = 5
    merged_hours: int = 24
    stale_issue_days: int = 14

    @classmethod
    def from_config(cls, config: Any) -> LiveTargets:
        """From a loaded target (``agentops.scout.config.Target``) or a plain mapping."""
        if isinstance(config, LiveTargets):
            return config
        raw = getattr(config, "raw", None)
        raw = raw if isinstance(raw, Mapping) else (config if isinstance(config, Mapping) else {})

        def pick(name: str, default: Any = None) -> Any:
            value = getattr(config, name, None)
            return value if value is not None else raw.get(name, default)

        tracking = pick("tracking_issue", {}) or {}
        board = pick("board", {}) or {}
        work = raw.get("open_work") or {}
        subproject = str(pick("subproject", "")).rstrip("/")
        return cls(
            repo=str(pick("repo", "")),
            subproject=subproject,
            workflows=tuple(pick("workflows", ()) or ()),
            tracking_repo=str(tracking.get("repo", "")),
            tracking_number=int(tracking.get("number", 0) or 0),
            report_days=int(tracking.get("report_days", 7) or 7),
            board=projects.Board(owner=str(board["owner"]), number=int(board["number"]),
                                 project_id=str(board.get("project_id", "") or ""))
            if board.get("owner") and board.get("number") else None,
            search=str(work.get("search") or subproject.rsplit("/", 1)[-1]),
            review_wait_days=int(work.get("review_wait_days", 5)),
            merged_hours=int(work.get("merged_hours", 24)),
            stale_issue_days=int(work.get("stale_issue_days", 14)),
        )


def collect_live(client: GitHubClient, config: Any, since: str | dt.datetime | None = None, *,
                 now: dt.datetime | None = None, pull_refs: Iterable[str] = (),
                 checkout: str | Path | None = None,
                 env: Mapping[str, str] | None = None) -> LiveData:
    """Read every live part. Prior reports are read from the earlier of ``since`` (the
    baseline) and ``report_days`` (7) before ``now``. The PRs of S-2 are ``pull_refs``
    (``owner/name#N``), or those the sub-project's ``*.py`` in ``checkout`` reference."""
    targets = LiveTargets.from_config(config)
    now = now or dt.datetime.now(dt.UTC)
    window = now - dt.timedelta(days=targets.report_days)
    if since:
        window = min(window, _as_datetime(since))
    skipped: dict[str, str] = {}
    out: dict[str, Any] = {}

    def part(name: str, fn: Any, *args: Any) -> None:
        if NOT_ALLOWLISTED in skipped.values():
            # Sanity: an API host that cannot be reached once will not be reached by the
            # next part either; its retries would only burn runner minutes.
            skipped[name] = NOT_ALLOWLISTED
            return
        with ghactions.group(f"collect: {name}"):
            try:
                out[name] = fn(client, targets, *args)
            except (ApiError, requests.RequestException) as exc:
                skipped[name] = skip_reason(exc)
                ghactions.warning(f"{name}: {skipped[name]}")

    if targets.tracking_repo and targets.tracking_number:
        part("prior_reports", collect_prior_reports, window, env)
    else:
        skipped["prior_reports"] = "no tracking issue configured"
    if targets.board:
        part("board_items", collect_board_items)
    else:
        skipped["board_items"] = "no board configured"
    refs = sorted(set(pull_refs) or (discover_pull_refs(checkout, targets.subproject)
                                     if checkout else set()))
    part("pulls", collect_pulls, refs)
    if targets.workflows:
        part("ci", collect_ci)
    else:
        skipped["ci"] = "no workflows configured"
    part("open_work", collect_open_work, now)
    priors = out.get("prior_reports")
    return LiveData(prior_reports=None if priors is None else tuple(p for p in priors if p.own),
                    ignored_reports=tuple(p for p in priors or () if not p.own),
                    board_items=out.get("board_items"),
                    pulls=out.get("pulls"), ci=out.get("ci"), open_work=out.get("open_work"),
                    skipped=skipped)


def skip_reason(exc: Exception) -> str:
    """Why a part the API did not give is missing (rendered as ``skipped — <reason>``)."""
    status = getattr(exc, "status_code", None)
    message = getattr(exc, "message", str(exc))
    if status is None and message.startswith("GraphQL error"):
        return f"GitHub API not permitted ({message})"
    if isinstance(exc, requests.RequestException) or status is None:
        # No HTTP status: the request never got an answer (DNS, refused, proxy blocked) —
        # on a locked-down runner that means the API host is not allowlisted.
        return NOT_ALLOWLISTED
    if status in (401, 403):
        return (f"GitHub API not permitted (HTTP {status}); grant the job "
                "`actions: read`, `issues: read`, `pull-requests: read` (and a project token "
                "for the board)")
    if status == 404:
        return "not found (HTTP 404): check repo, issue number and workflow file"
    return f"GitHub API failed (HTTP {status})"


def ci_outputs(live: LiveData) -> dict[str, str]:
    """Pure: the step outputs a live report sets for the workflow's bisect job —
    ``ci-red``, ``last-good``/``first-bad`` torch versions and the ``repro-command`` of the
    first red workflow that has a passing run to compare with (S-3b, S-10)."""
    red = [w for w in live.ci or () if w.latest_conclusion not in ("success",)
           and w.recent_runs]
    out = {"ci-red": "true" if red else "false", "last-good": "", "first-bad": "",
           "repro-command": ""}
    for health in red:
        if health.last_success_torch and health.failing_torch and (
                health.last_success_torch != health.failing_torch):
            out["last-good"] = health.last_success_torch
            out["first-bad"] = health.failing_torch
            out["repro-command"] = next((t.command for t in health.failed_tests if t.command),
                                        "")
            break
    return out


def write_ci_outputs(live: LiveData) -> dict[str, str]:
    """Set the action's ``ci-red``, ``last-good``, ``first-bad`` and ``repro-command``
    step outputs from a live report (no-ops outside a runner); returns them."""
    out = ci_outputs(live)
    ghactions.set_output("ci-red", out["ci-red"])
    ghactions.set_output("last-good", out["last-good"])
    ghactions.set_output("first-bad", out["first-bad"])
    ghactions.set_output("repro-command", out["repro-command"])
    return out


# --- S-0a prior reports ----------------------------------------------------------------

def collect_prior_reports(client: GitHubClient, targets: LiveTargets,
                          window: dt.datetime, env: Mapping[str, str] | None = None
                          ) -> tuple[PriorReport, ...]:
    """Report comments on the tracking issue updated since ``window``, oldest first,
    each marked ``own`` when the scout wrote it: the token's account (asked once, and
    only when there is a report comment to judge) and its provenance
    (``agentops.github.provenance``; ``env`` configures it, default ``os.environ``)."""
    path = f"/repos/{targets.tracking_repo}/issues/{targets.tracking_number}/comments"
    found = [dict(c) for c in client.paginate(path, {"since": _iso(window)})
             if isinstance(c, Mapping) and str(c.get("body") or "").startswith(REPORT_HEADING)]
    if not found:
        return ()
    me = token_identity(client)
    prov = Provenance.from_env(client, targets.tracking_repo, targets.tracking_number, me,
                               env)
    mine = [c for c in found if me.wrote(c)]
    # Security: nothing of another author's comment is parsed beyond its heading; ours
    # is, to check its provenance (the run its block names, or its signature).
    verdicts = dict(zip((id(c) for c in mine),
                        prov.judge_all(mine, [embedded.extract(c.get("body") or "")
                                              for c in mine]), strict=True))
    reports: list[PriorReport] = []
    for comment in found:
        body = comment.get("body") or ""
        user = comment.get("user") if isinstance(comment.get("user"), Mapping) else {}
        verdict = verdicts.get(id(comment))
        own = verdict is not None and verdict.ours
        if verdict is not None and verdict.warn:
            ghactions.warning(
                f"prior report {comment.get('html_url') or comment.get('id')} treated as "
                f"not ours: {verdict.why}")
        reports.append(PriorReport(date=report_date(body, comment.get("created_at", ""))
                                   if own else str(comment.get("created_at", ""))[:10],
                                   markdown=body if own else "",
                                   url=comment.get("html_url", ""),
                                   comment_id=int(comment.get("id", 0)),
                                   author=str(user.get("login") or ""), own=own,
                                   why="" if own else (verdict.why if verdict else
                                                       "not written by the token's account")))
    return tuple(sorted(reports, key=lambda r: (r.date, r.comment_id)))


def report_date(body: str, created_at: str = "") -> str:
    """The report's own date: its heading, else its embedded block, else when posted."""
    match = _DATE_RE.match(body)
    if match:
        return match.group(1)
    payload = embedded.extract(body) or {}
    return str(payload.get("date") or created_at[:10])


# --- S-0b board ----------------------------------------------------------------------

def collect_board_items(client: GitHubClient, targets: LiveTargets) -> tuple[BoardItem, ...]:
    """Board items that came from earlier reports (body names "Nightly Scout Report")."""
    assert targets.board is not None
    snap = projects.read_board(client, targets.board)
    return tuple(i for i in snap.items if "Nightly Scout Report" in i.body)


# --- S-2 PR states ----------------------------------------------------------------------

_PR_URL_RE = re.compile(r"github\.com/([\w.-]+)/([\w.-]+)/pull/(\d+)")
_PR_PATH_RE = re.compile(r"(?<![\w/.])([A-Za-z][\w.-]*)/([\w.-]+)/pull/(\d+)")
_PR_HASH_RE = re.compile(r"(?<![\w/.])([A-Za-z][\w.-]*)/([\w.-]+)#(\d+)")
_TODO_RE = re.compile(r"\b(TODO|FIXME|HACK|XXX)\b")


def discover_pull_refs(checkout: str | Path, subproject: str) -> set[str]:
    """``owner/name#N`` of the PRs that TODO/FIXME/HACK/XXX comments in the sub-project's
    ``*.py`` cite (``…/pull/N`` or ``owner/name#N``), continuation comment lines included."""
    root = Path(checkout) / subproject
    refs: set[str] = set()
    # Security: the checkout is someone else's; a linked file or directory (to /dev/zero,
    # or to a TODO outside the checkout) is never followed, and every read is capped.
    found = (untrusted_files.walk(root, suffix=".py")
             if root.is_dir() and not root.is_symlink() else None)
    for path in found.files if found else ():
        try:
            lines = untrusted_files.read_text(path, root=checkout).splitlines()
        except untrusted_files.RefusedFile:
            continue
        for idx, line in enumerate(lines):
            if not _TODO_RE.search(line):
                continue
            # The TODO line and the comment lines that continue it (a wrapped reference).
            block = [line]
            for nxt in lines[idx + 1: idx + 4]:
                if not nxt.lstrip().startswith("#") or _TODO_RE.search(nxt):
                    break
                block.append(nxt)
            text = "\n".join(block)
            for rx in (_PR_URL_RE, _PR_PATH_RE, _PR_HASH_RE):
                for owner, name, num in rx.findall(text):
                    refs.add(f"{owner}/{name}#{num}")
    return refs


def collect_pulls(client: GitHubClient, targets: LiveTargets,
                  refs: list[str]) -> dict[str, PullState]:
    """State and merge time of each referenced PR (``owner/name#N``); unknown PRs are
    left out (a TODO may cite a PR number that does not exist)."""
    out: dict[str, PullState] = {}
    for ref in refs:
        repo, _, num = ref.partition("#")
        if not flag_values.is_repo(repo) or not num.isdigit():
            continue
        try:
            pr = client.read(f"/repos/{repo}/pulls/{int(num)}")
        except ApiError as exc:
            if exc.status_code == 404:
                continue
            raise
        out[ref] = _pull_state(repo, pr)
    return out


def _pull_state(repo: str, pr: Mapping[str, Any]) -> PullState:
    return PullState(repo=repo, number=int(pr.get("number", 0)), state=str(pr.get("state", "")),
                     merged_at=pr.get("merged_at") or pr.get("mergedAt"),
                     title=str(pr.get("title", "")),
                     updated_at=str(pr.get("updated_at") or pr.get("updatedAt") or ""),
                     url=str(pr.get("html_url") or pr.get("url") or ""))


# --- S-3a CI ------------------------------------------------------------------------------

def collect_ci(client: GitHubClient, targets: LiveTargets) -> tuple[WorkflowHealth, ...]:
    """Health of each configured workflow from its latest scheduled runs on main."""
    return tuple(workflow_health(client, targets, wf) for wf in targets.workflows)


def workflow_health(client: GitHubClient, targets: LiveTargets, workflow: str) -> WorkflowHealth:
    """One workflow: latest completed run; if red, the failed jobs' logs parsed."""
    file = workflow.rsplit("/", 1)[-1]
    body = client.read(f"/repos/{targets.repo}/actions/workflows/{quote_path(file)}/runs",
                       {"branch": "main", "event": "schedule", "per_page": RUNS_PER_WORKFLOW})
    runs = [r for r in (body.get("workflow_runs") or []) if r.get("status") == "completed"]
    runs.sort(key=lambda r: r.get("run_started_at") or r.get("created_at") or "", reverse=True)
    if not runs:
        return WorkflowHealth(workflow=file, latest_conclusion="no completed scheduled runs")
    latest = runs[0]
    conclusion = str(latest.get("conclusion") or "unknown")
    failures = sum(1 for r in runs if r.get("conclusion") not in ("success", "skipped"))
    if conclusion == "success":
        return WorkflowHealth(workflow=file, latest_conclusion="success",
                              latest_url=latest.get("html_url", ""),
                              last_success_url=latest.get("html_url", ""),
                              recent_runs=len(runs), recent_failures=failures)
    good = next((r for r in runs if r.get("conclusion") == "success"), None)
    tests: list[FailedTest] = []
    failing_torch: str | None = None
    root = ""
    frames: tuple[str, ...] = ()
    job_names: list[str] = []
    for job in _failed_jobs(client, targets.repo, latest)[:MAX_FAILED_JOBS]:
        job_names.append(str(job.get("name", "")))
        try:
            text = job_log(client, targets.repo, int(job["id"]))
        except (ApiError, requests.RequestException) as exc:
            # Logs expire (HTTP 410) or need actions: read; the run's status still counts.
            root = root or f"log of job {job.get('name', '')!r} unavailable: {exc}"
            continue
        summary = joblog.parse(text, source_dir=targets.subproject)
        failing_torch = failing_torch or summary.torch_version
        root = root or summary.root_cause
        frames = frames or summary.source_lines
        tests += [t for t in summary.failed_tests if t.name not in {x.name for x in tests}]
    good_torch = None
    if good is not None:
        good_torch = _run_torch_version(client, targets, good, prefer=job_names)
    return WorkflowHealth(
        workflow=file, latest_conclusion=conclusion, latest_url=latest.get("html_url", ""),
        last_success_url=good.get("html_url") if good else None,
        last_success_torch=good_torch, failing_torch=failing_torch,
        failed_tests=tuple(tests), root_cause=root, source_lines=frames,
        failed_jobs=tuple(job_names), recent_runs=len(runs), recent_failures=failures)


def _jobs(client: GitHubClient, repo: str, run: Mapping[str, Any]) -> list[dict]:
    # The jobs list wraps its array ({"total_count", "jobs"}), which ``paginate`` does
    # not unwrap; a run with more than 100 jobs is not a scheduled test workflow.
    body = client.read(f"/repos/{repo}/actions/runs/{int(run['id'])}/jobs",
                       {"filter": "latest", "per_page": 100})
    return list(body.get("jobs") or []) if isinstance(body, dict) else []


def _failed_jobs(client: GitHubClient, repo: str, run: Mapping[str, Any]) -> list[dict]:
    return [j for j in _jobs(client, repo, run) if j.get("conclusion") in ("failure", "timed_out")]


def _run_torch_version(client: GitHubClient, targets: LiveTargets, run: Mapping[str, Any], *,
                       prefer: list[str]) -> str | None:
    """The torch version a passing run installed (the job named like a failed one first)."""
    jobs = _jobs(client, targets.repo, run)
    jobs.sort(key=lambda j: 0 if j.get("name") in prefer else 1)
    for job in jobs[:2]:
        version = joblog.torch_version(job_log(client, targets.repo, int(job["id"])))
        if version:
            return version
    return None


def job_log(client: GitHubClient, repo: str, job_id: int) -> str:
    """A job's plain-text log: the API answers 302 with a short-lived signed URL on a
    storage host, which is fetched without the token, through the one transport
    (retries, deadline, at most ``MAX_LOG_BYTES`` kept), counted in the run's API calls."""
    headers, body = client.read_with_headers(f"/repos/{repo}/actions/jobs/{job_id}/logs")
    location = next((v for k, v in headers.items() if k.lower() == "location"), None)
    if not location:
        # GHES and test servers may answer 200 with the log itself.
        return body.get("data", "") if isinstance(body, dict) else str(body or "")
    # Security: the signed URL is a credential for this log; never print it.
    ghactions.secret(location)
    storage = Transport(service="files", counter=client.counter)
    try:
        resp = storage.request("GET", location, max_bytes=MAX_LOG_BYTES, truncate=True,
                               what=f"job {job_id} log download", route="job-log-download")
    except TransportError as exc:
        raise ApiError(f"job {job_id} log download failed: {exc.reason}",
                       status_code=exc.status_code, fix=exc.fix) from exc
    finally:
        storage.close()
    return (resp.body or b"").decode("utf-8", errors="replace")


# --- S-6 open work --------------------------------------------------------------------

_PR_SEARCH = """query($q: String!) {
  search(query: $q, type: ISSUE, first: 50) {
    nodes {
      ... on PullRequest {
        number title url state createdAt updatedAt mergedAt
        reviews(first: 1) { totalCount }
        files(first: 100) { nodes { path } }
      }
    }
  }
}"""


def collect_open_work(client: GitHubClient, targets: LiveTargets, now: dt.datetime) -> OpenWork:
    """Open PRs on the sub-project waiting for review, recent merges, stale issues."""
    waiting_before = (now - dt.timedelta(days=targets.review_wait_days)).date().isoformat()
    merged_after = _iso(now - dt.timedelta(hours=targets.merged_hours))
    stale_before = (now - dt.timedelta(days=targets.stale_issue_days)).date().isoformat()
    waiting = _search_prs(client, targets,
                          f"repo:{targets.repo} is:pr is:open review:none "
                          f"created:<={waiting_before}")
    # Sanity: "review:none" is also true of a PR whose only review was dismissed; the
    # review count keeps those out.
    waiting = [p for p, reviews in waiting if reviews == 0]
    merged = [p for p, _ in _search_prs(client, targets,
                                        f"repo:{targets.repo} is:pr is:merged "
                                        f"merged:>={merged_after}")]
    query = f'repo:{targets.repo} is:issue is:open updated:<={stale_before} "{targets.search}"'
    body = client.read("/search/issues",
                       {"q": query, "sort": "updated", "order": "asc", "per_page": 50})
    stale = [PullState(repo=targets.repo, number=int(i["number"]), state=i.get("state", "open"),
                       title=i.get("title", ""), updated_at=i.get("updated_at", ""),
                       url=i.get("html_url", ""))
             for i in body.get("items") or [] if "pull_request" not in i]
    return OpenWork(waiting_prs=tuple(waiting), merged_recently=tuple(merged),
                    stale_issues=tuple(stale))


def _search_prs(client: GitHubClient, targets: LiveTargets,
                query: str) -> list[tuple[PullState, int]]:
    data = client.graphql(_PR_SEARCH, {"q": query})
    prefix = targets.subproject.strip("/") + "/"
    out: list[tuple[PullState, int]] = []
    for node in (data.get("search") or {}).get("nodes") or []:
        if not node or "number" not in node:
            continue
        paths = [f.get("path", "") for f in (node.get("files") or {}).get("nodes") or []]
        if not any(p.startswith(prefix) for p in paths):
            continue
        state = str(node.get("state", "")).lower()
        pr = PullState(repo=targets.repo, number=int(node["number"]),
                       state="closed" if state == "merged" else state,
                       merged_at=node.get("mergedAt"), title=node.get("title", ""),
                       updated_at=node.get("updatedAt", ""), url=node.get("url", ""))
        out.append((pr, int((node.get("reviews") or {}).get("totalCount", 0))))
    return out


# --- helpers ------------------------------------------------------------------------------

def _as_datetime(value: str | dt.datetime) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    text = value.strip().replace("Z", "+00:00")
    parsed = dt.datetime.fromisoformat(text)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def _iso(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
