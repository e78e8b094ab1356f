"""The live verbs of triage: ``run`` (issues by number), ``sweep`` (the scheduled
backlog sweep, T-2) and the live form of ``plan`` (read and plan, never write).

Shell side of the I/O line: wires collect → plan → apply, prints progress, writes the
job summary, outputs, plan files and the sweep's state file. The dry-run branch lives
here and only here (style practice 4): it stops after planning, before the applier.
The planner and the queue loader are imported lazily, so this module imports without
them (they live in ``plan.py`` / ``queue.py``).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agentops import cli, console, events, files, flag_values, ghactions
from agentops.errors import (
    AgentopsError,
    ApiError,
    ExitStatus,
    InputError,
    PartialApplyError,
    RefusedError,
    WriteBudgetError,
)
from agentops.github.client import GitHubClient
from agentops.github.identity import Identity
from agentops.github.provenance import Provenance, run_line_payload, with_run_line
from agentops.triage import render, similar
from agentops.triage.apply import LabelChecker, apply_plan, preview
from agentops.triage.collect import (
    QueueScan,
    Verdict,
    collect_queue,
    read_issue,
    refresh_issues,
    split_repo,
)
from agentops.triage.model import IssueSnapshot, Plan, Queue
from agentops.triage.outcome import Outcome

PLAN_FORMAT = "agentops-triage-plans/1"
STATE_FORMAT = "agentops-triage-sweep/1"
# Sanity: the state file stays small; the oldest records go first past this.
MAX_STATE_RECORDS = 5000
# A live sweep re-reads issues (REFRESH_BATCH per GraphQL call) before acting on a batch
# read older than this; with writes a second apart (about 1.3 per issue) that is one
# re-read per ~45 issues, keeping the sweep under one read per 20 issues.
FRESH_SECONDS = 60.0
REFRESH_BATCH = 50


# --- the pure core, imported lazily -------------------------------------------------------

def load_queue(name_or_path: str) -> Queue:
    """The queue's data (labels, rubric, templates), validated."""
    from agentops.triage.queue import load_queue as _load

    return _load(name_or_path)


def plan_issue(snapshot: IssueSnapshot, queue: Queue) -> Plan:
    """The pure planner."""
    from agentops.triage.plan import plan_issue as _plan

    return _plan(snapshot, queue)


# --- helpers --------------------------------------------------------------------------------

def event_targets(queue: Queue, trusted_bots: str | None) -> events.Targets:
    """What the run's event (``GITHUB_EVENT_NAME`` / ``GITHUB_EVENT_PATH``) asks of triage:
    the labelled issue, the dispatched numbers, a sweep, or nothing (and why)."""
    name, payload = events.read_event()
    trusted = parse_logins(trusted_bots or os.environ.get("AGENTOPS_TRUSTED_BOTS") or "")
    return events.triage_targets(name, payload, trigger_label=queue.trigger_label,
                                 trusted_bots=trusted)


def parse_logins(text: str) -> tuple[str, ...]:
    """``["a[bot]", "b"]`` (JSON, as the repository variable holds it) or ``a[bot], b``."""
    text = text.strip()
    if text.startswith("["):
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise InputError("--trusted-bots", f"not a JSON list of logins: {text[:80]!r}",
                             fix='e.g. ["pytorch-bot[bot]"] or pytorch-bot[bot],other') from exc
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InputError("--trusted-bots", "the JSON must be a list of login strings",
                             fix='e.g. ["pytorch-bot[bot]"]')
        return tuple(v.strip() for v in value if v.strip())
    return tuple(p for p in re.split(r"[\s,]+", text) if p)


def _repo_arg(args: argparse.Namespace, named: str | None = None) -> str:
    repo = named or getattr(args, "repo", None) or os.environ.get("GITHUB_REPOSITORY")
    split_repo(repo)
    return str(repo)


def _skip_reason(snapshot: IssueSnapshot, queue: Queue) -> str:
    if snapshot.is_pull_request:
        return "a pull request, not an issue"
    if snapshot.state != "open":
        return f"the issue is {snapshot.state}"
    if queue.trigger_label.casefold() not in {lb.casefold() for lb in snapshot.labels}:
        return f"not in the queue (no {queue.trigger_label!r} label)"
    return ""


def make_plan(snapshot: IssueSnapshot, queue: Queue) -> Plan:
    """The planner's plan for a freshly read issue."""
    plan = plan_issue(snapshot, queue)
    if not plan.repo:
        # The pure planner may leave the repository to its caller; this one read it.
        plan = dataclasses.replace(plan, repo=snapshot.repo)
    return plan


# Every workflow's GITHUB_TOKEN writes as this account: its comments are the triage
# bot's only when their provenance checks out (issue #21 item 5).
SHARED_BOT = "github-actions"
MAX_TRIAGE_RUN_LOOKUPS = 100  # a sweep judges up to max-issues issues' bot comments


def comment_provenance(client: GitHubClient, repo: str) -> Provenance:
    """How a comment of the shared workflow account is told to be the triage bot's: the
    signing key (``AGENTOPS_SIGNING_KEY``), else the run its run line names must be a
    run of the triage workflow (``AGENTOPS_TRIAGE_WORKFLOW``, in Actions the running
    one), else none is."""
    return Provenance.from_env(client, repo, 0, Identity(f"{SHARED_BOT}[bot]", "GITHUB_TOKEN"),
                               workflow_var="AGENTOPS_TRIAGE_WORKFLOW",
                               max_lookups=MAX_TRIAGE_RUN_LOOKUPS)


def judge_comments(snapshot: IssueSnapshot, prov: Provenance | None) -> IssueSnapshot:
    """The snapshot with the shared account's comments that are not provably the triage
    bot's marked ``unproven`` (read as an ordinary person's: never "a bot already
    told", never a bot's request); says so in a warning."""
    if prov is None:
        return snapshot
    shared = [c for c in snapshot.comments if c.is_bot
              and c.author.removesuffix("[bot]").casefold() == SHARED_BOT]
    if not shared:
        return snapshot
    verdicts = prov.judge_all(
        [{"user": {"login": prov.me.login}, "body": c.body, "created_at": c.created_at}
         for c in shared], [run_line_payload(c.body) for c in shared], issue=snapshot.number)
    unproven = {c.id: v.why for c, v in zip(shared, verdicts, strict=True) if not v.ours}
    if not unproven:
        return snapshot
    whys = "; ".join(dict.fromkeys(unproven.values()))
    ghactions.warning(
        f"#{snapshot.number}: {len(unproven)} comment(s) of {prov.me.login} read as an "
        f"ordinary person's, not the triage bot's: provenance does not check out ({whys})")
    return dataclasses.replace(snapshot, comments=tuple(
        dataclasses.replace(c, unproven=True) if c.id in unproven else c
        for c in snapshot.comments))


def triage_snapshot(client: GitHubClient, snapshot: IssueSnapshot, queue: Queue, *,
                    dry_run: bool, checker: LabelChecker, plan: Plan | None = None,
                    prov: Provenance | None = None) -> Outcome:
    """Plan (unless given) and apply one freshly read issue; the dry-run branch."""
    base = {"repo": snapshot.repo, "number": snapshot.number, "title": snapshot.title,
            "url": snapshot.url}
    reason = _skip_reason(snapshot, queue)
    if reason:
        return Outcome(status="skipped", reason=reason, **base)
    snapshot = judge_comments(snapshot, prov)
    plan = plan or make_plan(snapshot, queue)
    common = {"decision": plan.decision, "confidence": plan.confidence, "plan": plan,
              "awaiting_humans": plan.awaiting_humans or plan.decision == "high_priority"}
    if dry_run:
        pre = preview(plan, snapshot, queue)
        return Outcome(status="dry-run", labels=pre.labels_added, comment=pre.comment,
                       comment_skipped=pre.comment_skipped, adjustments=pre.adjustments,
                       **common, **base)
    number = snapshot.number
    seal = (lambda body: prov.seal(body, with_run_line, issue=number)) if prov else None
    res = apply_plan(client, plan, snapshot, queue, labels=checker, seal=seal)
    return Outcome(status="applied" if res.changed else "no-op", labels=res.labels_added,
                   comment=res.comment, comment_skipped=res.comment_skipped,
                   adjustments=res.adjustments, **common, **base)


def _failed(repo: str, number: int, exc: AgentopsError, snapshot: IssueSnapshot | None,
            plan: Plan | None = None) -> Outcome:
    return Outcome(repo=repo, number=number,
                   status="partial" if isinstance(exc, PartialApplyError) else "failed",
                   title=snapshot.title if snapshot else "", url=snapshot.url if snapshot else "",
                   decision=plan.decision if plan else "", reason=exc.one_line(),
                   plan=plan, exit_status=int(exc.status))


def _set_outputs(outcomes: Sequence[Outcome]) -> None:
    rows = [o for o in outcomes if o.status != "awaiting"]
    if len(rows) == 1:
        ghactions.set_output("decision", rows[0].decision or rows[0].status)
        ghactions.set_output("labels", ",".join(rows[0].labels))
    else:
        ghactions.set_output("decision", "\n".join(f"#{o.number} {o.decision or o.status}"
                                                   for o in rows))
        ghactions.set_output("labels", "\n".join(f"#{o.number} {','.join(o.labels)}"
                                                 for o in rows))


def write_plans(path: str, repo: str, queue: Queue, plans: Sequence[Plan]) -> dict[str, Any]:
    """Write the plans file (the artifact the apply job consumes)."""
    doc = {"format": PLAN_FORMAT, "repo": repo, "queue": queue.name,
           "run_id": os.environ.get("GITHUB_RUN_ID", ""),
           "plans": [p.to_json() for p in plans]}
    target = files.write_atomic(path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n",
                                field="--plan-out")
    ghactions.set_output("plan-path", str(target))
    return doc


def read_plans(path: str, repo: str) -> dict[int, Plan]:
    """The plans of a plans file, checked to be for this repository and run."""
    fix = "give the file written by `plan --plan-out` / `run --plan-out`"
    doc = files.read_json(path, field="--plan-in", fix=fix)
    if doc.get("format") != PLAN_FORMAT:
        raise InputError("--plan-in", f"{path} is not a plans file ({PLAN_FORMAT})",
                         fix="give the file written by `plan --plan-out`")
    problems = []
    if str(doc.get("repo", "")).casefold() != repo.casefold():
        problems.append(f"the plans are for {doc.get('repo')!r}, this run is for {repo!r}")
    run_id = os.environ.get("GITHUB_RUN_ID", "")
    if run_id and doc.get("run_id") and str(doc["run_id"]) != run_id:
        problems.append(f"the plans come from run {doc['run_id']}, this is run {run_id}")
    if problems:
        raise RefusedError(f"refusing the plans in {path}; nothing was written", problems,
                           fix="apply plans only in the run and repository that made them")
    raw = doc.get("plans") or []
    if not isinstance(raw, list):
        raise InputError("--plan-in", f"{path}: 'plans' is a JSON {files.json_kind(raw)}, "
                                      "not a list", fix=fix)
    plans = []
    for i, obj in enumerate(raw):
        if not isinstance(obj, dict):
            raise InputError("--plan-in", f"{path}: plans[{i}] is a JSON "
                                          f"{files.json_kind(obj)}, not a plan object", fix=fix)
        try:
            plans.append(Plan.from_json(obj))
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError("--plan-in", f"{path}: plans[{i}]: {files.shape_reason(exc)}",
                             fix=fix) from exc
    return {p.issue: p for p in plans}


def _save_snapshot(folder: str, raw: dict[str, Any]) -> None:
    # Style practice 3: what was read, saved in the offline `plan` input shape, so any
    # live decision can be replayed with `triage.py plan FOLDER/issue-N.json`.
    path = Path(folder) / f"issue-{int(raw['number'])}.json"
    files.write_atomic(path, json.dumps(raw, indent=1, ensure_ascii=False) + "\n",
                       field="--snapshot-out")


def _check_outputs(args: argparse.Namespace) -> None:
    """Every output path, before the first API call: a bad one fails the run up front
    instead of once per issue, after the reads."""
    if getattr(args, "plan_out", None):
        files.check_writable(args.plan_out, field="--plan-out")
    if getattr(args, "snapshot_out", None):
        files.check_folder(args.snapshot_out, field="--snapshot-out")
    if getattr(args, "state_file", None):
        files.check_writable(args.state_file, field="--state-file")


def _finish(outcomes: Sequence[Outcome], client: GitHubClient, *, heading: str, dry_run: bool,
            notes: Sequence[str] = ()) -> None:
    line = client.counter.line()
    ghactions.notice(line)
    ghactions.append_summary(render.summary(outcomes, heading=heading, dry_run=dry_run,
                                            api_line=line, notes=notes))
    _set_outputs(outcomes)


# --- run / plan -------------------------------------------------------------------------------

def run_command(args: argparse.Namespace) -> int:
    """``run``: read, plan and apply each ``--issue`` (or each plan of ``--plan-in``)."""
    return _run(args, dry_run=bool(args.dry_run), verb="run")


def plan_command(args: argparse.Namespace) -> int:
    """Live ``plan``: read and plan each ``--issue``, print the plans; never writes."""
    return _run(args, dry_run=True, verb="plan")


def _run(args: argparse.Namespace, *, dry_run: bool, verb: str) -> int:
    # `--issue` appends, so its env default is read here: a flag on the command line
    # replaces AGENTOPS_ISSUE instead of adding to it. Numbers take --repo; an
    # OWNER/NAME#N names its own repository (#25: one --issue in every script).
    refs = flag_values.issue_refs(getattr(args, "issue", None)
                                  or os.environ.get("AGENTOPS_ISSUE") or None,
                                  getattr(args, "repo", None))
    repo = _repo_arg(args, refs.repo)
    numbers = list(refs.numbers)
    plan_in = getattr(args, "plan_in", None)
    if numbers or plan_in:
        # The bot filter decides which issue an *event* names; here none is asked.
        cli.refuse_flags(args, {"trusted_bots": "--trusted-bots"},
                         context=f"`{verb}` with " + ("--plan-in" if plan_in else "--issue"),
                         fix="drop --trusted-bots (it filters the issue an event names, "
                             "when no --issue is given)")
    given: dict[int, Plan] = read_plans(plan_in, repo) if plan_in else {}
    if plan_in and not numbers:
        numbers = sorted(given)
        if not numbers:
            # The plan job found nothing to plan (e.g. the issue left the queue).
            ghactions.notice(f"no plans in {plan_in}; nothing to apply")
            ghactions.append_summary(f"### Triage {verb} — {repo}\n\nNo plans to apply.\n")
            return int(ExitStatus.OK)
    queue = load_queue(args.queue)
    if not numbers and not plan_in and os.environ.get("GITHUB_EVENT_PATH"):
        # In a workflow without an `issue` input: the event that started the run names
        # the issue (T-1, T-3), and decides whether triage runs at all (no loops).
        targets = event_targets(queue, getattr(args, "trusted_bots", None))
        if targets.ignored:
            ghactions.notice(f"triage {verb}: {targets.ignored_reason}; nothing to do")
            why = ghactions.inert_markdown(targets.ignored_reason)
            ghactions.append_summary(f"### Triage {verb} — {ghactions.inert_markdown(repo)}"
                                     f"\n\nNothing to do: {why}.\n")
            return int(ExitStatus.OK)
        if targets.sweep:
            raise InputError("--issue", "this event names no issue; it asks for the backlog "
                                        "sweep", fix="run the `sweep` command for schedule and "
                                        "issue-less workflow_dispatch events")
        numbers = list(targets.numbers)
        dry_run = dry_run or targets.dry_run
    if not numbers:
        raise InputError("--issue", "no issue number given",
                         fix="pass --issue 123 (or AGENTOPS_ISSUE; in a workflow the event's "
                             "issue number)")
    missing = [n for n in numbers if given and n not in given]
    if missing:
        raise InputError("--issue", f"no plan for #{missing[0]} in {plan_in}",
                         fix="apply only issues planned in that file")
    snapshot_dir = getattr(args, "snapshot_out", None)
    _check_outputs(args)
    client = GitHubClient.from_env()
    checker = LabelChecker(client, repo)
    prov = comment_provenance(client, repo)
    outcomes: list[Outcome] = []
    errors: list[AgentopsError] = []
    with ghactions.group(f"triage {verb}: {repo} " + " ".join(f"#{n}" for n in numbers)):
        for k, number in enumerate(numbers, 1):
            snapshot = None
            try:
                raw = read_issue(client, repo, number)
                if snapshot_dir:
                    _save_snapshot(snapshot_dir, raw)
                snapshot = IssueSnapshot.from_rest(raw, raw["comments"], repo=repo)
                outcome = triage_snapshot(client, snapshot, queue, dry_run=dry_run,
                                          checker=checker, plan=given.get(number), prov=prov)
            except AgentopsError as exc:
                errors.append(exc)
                outcome = _failed(repo, number, exc, snapshot, given.get(number))
                if len(numbers) > 1:  # a single issue's error is reported once, at the end
                    ghactions.error(f"#{number}: {exc.one_line()}",
                                    title=f"triage {verb} failed")
            outcomes.append(outcome)
            ghactions.notice(render.progress_line(outcome, index=k, total=len(numbers)))
    plans = [o.plan for o in outcomes if o.plan is not None]
    if getattr(args, "plan_out", None):
        write_plans(args.plan_out, repo, queue, plans)
    if verb == "plan":
        doc = {"format": PLAN_FORMAT, "repo": repo, "queue": queue.name,
               "plans": [p.to_json() for p in plans]}
        console.say_json(doc, indent=2, ensure_ascii=False)
    heading = f"Triage {verb} — {repo}" + (" (dry run)" if dry_run and verb == "run" else "")
    _finish(outcomes, client, heading=heading, dry_run=dry_run)
    if not errors:
        return int(ExitStatus.OK)
    if len(errors) == len(numbers):
        # Every issue failed the same way a single one would: keep its message and code.
        raise errors[0]
    return int(ExitStatus.PARTIAL)


# --- sweep -------------------------------------------------------------------------------------

def _fresh_seconds() -> float:
    raw = os.environ.get("AGENTOPS_SWEEP_FRESH_SECONDS", str(FRESH_SECONDS))
    try:
        return max(0.0, float(raw))
    except ValueError as exc:
        raise InputError("AGENTOPS_SWEEP_FRESH_SECONDS", f"not a number: {raw!r}",
                         fix=f"give seconds, e.g. {FRESH_SECONDS}") from exc


def _write_pause() -> float:
    raw = os.environ.get("AGENTOPS_SECONDS_BETWEEN_WRITES", "1")
    try:
        return max(0.0, float(raw))
    except ValueError as exc:
        raise InputError("AGENTOPS_SECONDS_BETWEEN_WRITES", f"not a number: {raw!r}",
                         fix="give seconds, e.g. 1 (0 disables the pause)") from exc


def fingerprint(snapshot: IssueSnapshot, labels: Sequence[str] | None = None) -> str:
    """What the planner sees of an issue, hashed; the bot's own comments and the
    timestamp (bumped by our writes) are left out, so only outside changes count."""
    comments = [(c.id, c.body) for c in snapshot.comments[:100] if not similar.markers(c.body)]
    blob = json.dumps([snapshot.title, snapshot.body,
                       sorted({lb.casefold() for lb in (labels or snapshot.labels)}), comments],
                      ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:20]


def _data_hash(queue: Queue) -> str:
    blob = json.dumps(sorted(str(p.get("sha256", "")) for p in queue.provenance))
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


class SweepState:
    """The sweep's resume file: per issue the fingerprint last planned, the decision,
    whether it was applied live and whether it awaits humans."""

    def __init__(self, path: str | None, repo: str, queue: str) -> None:
        self.path = Path(path) if path else None
        self.repo = repo
        self.queue = queue
        self.runs = 0
        self.issues: dict[str, dict[str, Any]] = {}
        if self.path and self.path.exists():
            self._load()

    def _load(self) -> None:
        assert self.path is not None
        fix = "delete the file to start afresh (the sweep then re-plans from the oldest issue)"
        doc = files.read_json(self.path, field="--state-file", fix=fix)
        if doc.get("format") != STATE_FORMAT:
            raise InputError("--state-file", f"{self.path}: not a sweep state file "
                             f"({STATE_FORMAT})", fix="give another path or delete the file")
        if str(doc.get("repo", "")).casefold() != self.repo.casefold() or doc.get(
                "queue") != self.queue:
            # Sanity: another repo's or queue's records would skip the wrong issues.
            ghactions.warning(f"state file {self.path} is for {doc.get('repo')} queue "
                              f"{doc.get('queue')}; starting afresh")
            return
        runs, issues = doc.get("runs") or 0, doc.get("issues") or {}
        if not isinstance(runs, int) or not isinstance(issues, dict) \
                or not all(isinstance(v, dict) for v in issues.values()):
            raise InputError("--state-file", f"{self.path}: 'runs' must be a number and "
                                             "'issues' an object of objects", fix=fix)
        self.runs = runs
        self.issues = {str(k): dict(v) for k, v in issues.items()}

    def judge(self, snapshot: IssueSnapshot, *, data: str, dry_run: bool) -> Verdict:
        """plan / defer (failed last time) / skip (unchanged since last planned)."""
        rec = self.issues.get(str(snapshot.number))
        if not rec:
            return "plan"
        if rec.get("status") == "failed":
            return "defer"
        same = rec.get("fingerprint") == fingerprint(snapshot) and rec.get("data") == data
        # A dry run's record does not spare a live run the work of applying.
        if same and (rec.get("mode") == "live" or dry_run):
            return "skip"
        return "plan"

    def record(self, outcome: Outcome, snapshot: IssueSnapshot, *, data: str,
               dry_run: bool, labels_after: Sequence[str]) -> None:
        self.issues[str(outcome.number)] = {
            "fingerprint": fingerprint(snapshot, labels_after),
            "data": data,
            "decision": outcome.decision,
            "status": "failed" if outcome.failed else "ok",
            "mode": "dry-run" if dry_run else "live",
            "awaiting_humans": outcome.awaiting_humans,
            "run": self.runs,
        }

    def save(self, scan: QueueScan) -> None:
        if not self.path:
            return
        if scan.exhausted:
            # Every candidate was seen: issues no longer in the queue need no record.
            alive = {str(s.number) for s in (*scan.selected, *scan.skipped)}
            alive |= {k for k, v in self.issues.items() if v.get("run") == self.runs}
            self.issues = {k: v for k, v in self.issues.items() if k in alive}
        if len(self.issues) > MAX_STATE_RECORDS:
            keep = sorted(self.issues.items(), key=lambda kv: -int(kv[1].get("run") or 0))
            self.issues = dict(keep[:MAX_STATE_RECORDS])
        doc = {"format": STATE_FORMAT, "repo": self.repo, "queue": self.queue,
               "runs": self.runs, "issues": self.issues}
        # Atomic: a killed job never leaves half a state file.
        files.write_atomic(self.path, json.dumps(doc, indent=1, sort_keys=True) + "\n",
                           field="--state-file")


def sweep_command(args: argparse.Namespace, *,
                  on_progress: Callable[[str], None] = ghactions.notice) -> int:
    """``sweep``: the queue's open, unfinished issues, oldest-updated first, within the
    budget; one failure does not stop the rest (exit 4 if any failed)."""
    repo = _repo_arg(args)
    budget = int(args.max_issues)
    if budget < 1:
        raise InputError("--max-issues", f"must be at least 1, got {budget}",
                         fix="give the number of issues one sweep may plan, e.g. 50")
    dry_run = bool(args.dry_run)
    queue = load_queue(args.queue)
    _check_outputs(args)
    state = SweepState(args.state_file, repo, queue.name)
    state.runs += 1
    # GitHub asks integrations to leave about a second between content-creating calls;
    # a sweep makes many, so it paces them (AGENTOPS_SECONDS_BETWEEN_WRITES, default 1).
    client = GitHubClient.from_env(seconds_between_writes=_write_pause())
    data = _data_hash(queue)
    with ghactions.group(f"triage sweep: read the queue of {repo}"):
        scan = collect_queue(client, repo, queue, budget,
                             judge=lambda s: state.judge(s, data=data, dry_run=dry_run))
        on_progress(f"{scan.total} candidate(s); planning {len(scan.selected)}, "
                    f"{len(scan.skipped)} unchanged since last planned")
    # A live sweep asks once whether every allowlisted label exists, not per issue.
    checker = LabelChecker(client, repo, prefetch=sorted(queue.allowlist))
    prov = comment_provenance(client, repo)
    outcomes: list[Outcome] = []
    notes: list[str] = []
    fresh_for = _fresh_seconds()
    read_at = time.monotonic()
    fresh: dict[int, IssueSnapshot | None] = {}
    with ghactions.group(f"triage sweep: {len(scan.selected)} issue(s)"):
        for k, batched in enumerate(scan.selected, 1):
            snapshot = batched
            plan = None
            stop = False
            try:
                if not dry_run and time.monotonic() - read_at > fresh_for:
                    # Sanity: the batch read may be minutes old by now (writes are paced);
                    # an event-triggered run may have routed an issue meanwhile, and acting
                    # on stale labels could add a second sub-oncall (T-22) or repeat a
                    # comment (T-26). Re-read the next issues in one call.
                    upcoming = [s.number for s in scan.selected[k - 1:k - 1 + REFRESH_BATCH]]
                    fresh = refresh_issues(client, repo, upcoming)
                    read_at = time.monotonic()
                if snapshot.number in fresh:
                    latest = fresh[snapshot.number]
                    if latest is None:
                        raise ApiError(f"issue {repo}#{snapshot.number} is no longer readable "
                                       "(deleted or transferred?)", status_code=404)
                    snapshot = latest
                snapshot = judge_comments(snapshot, prov)
                plan = make_plan(snapshot, queue)
                outcome = triage_snapshot(client, snapshot, queue, dry_run=dry_run,
                                          checker=checker, plan=plan, prov=prov)
            except AgentopsError as exc:
                outcome = _failed(repo, snapshot.number, exc, snapshot, plan)
                ghactions.error(f"#{snapshot.number}: {exc.one_line()}",
                                title="triage sweep: one issue failed")
                # Past the run's write cap every later issue would fail the same way.
                stop = isinstance(exc, WriteBudgetError) or isinstance(
                    exc.__cause__, WriteBudgetError)
            except Exception as exc:  # a planner bug on one issue must not stop the others
                outcome = _failed(repo, snapshot.number, AgentopsError(
                    f"{type(exc).__name__}: {exc} (a bug in agentops; please report it)"),
                    snapshot, plan)
                ghactions.error(f"#{snapshot.number}: {outcome.reason}",
                                title="triage sweep: unexpected error")
            after = (*snapshot.labels, *outcome.labels) if outcome.status == "applied" \
                else snapshot.labels
            state.record(outcome, snapshot, data=data, dry_run=dry_run, labels_after=after)
            outcomes.append(outcome)
            on_progress(render.progress_line(outcome, index=k, total=len(scan.selected)))
            if stop:
                left = len(scan.selected) - k
                notes.append(f"Stopped at the write cap; {left} issue(s) left for the next "
                             "sweep.")
                on_progress(notes[-1])
                break
    for snapshot in scan.skipped:
        rec = state.issues.get(str(snapshot.number)) or {}
        if rec.get("awaiting_humans"):
            outcomes.append(Outcome(repo=repo, number=snapshot.number, status="awaiting",
                                    title=snapshot.title, url=snapshot.url,
                                    decision=str(rec.get("decision") or ""),
                                    awaiting_humans=True))
    state.save(scan)
    if args.plan_out:
        write_plans(args.plan_out, repo, queue, [o.plan for o in outcomes if o.plan])
    quiet = sum(1 for s in scan.skipped
                if not (state.issues.get(str(s.number)) or {}).get("awaiting_humans"))
    notes.insert(0, f"Candidates: {scan.total}; budget {budget}"
                 + ("" if scan.exhausted else "; more remain for the next sweep"))
    if quiet:
        notes.append(f"{quiet} issue(s) unchanged since last planned were not re-planned.")
    _finish(outcomes, client, heading=f"Triage sweep — {repo}" + (" (dry run)" if dry_run
                                                                   else ""),
            dry_run=dry_run, notes=notes)
    failed = [o for o in outcomes if o.failed]
    if failed:
        tried = sum(1 for o in outcomes if o.status != "awaiting")
        ghactions.error(f"{len(failed)} of {tried} issue(s) failed: "
                        + ", ".join(f"#{o.number}" for o in failed),
                        title="triage sweep")
        return int(ExitStatus.PARTIAL)
    return int(ExitStatus.OK)

