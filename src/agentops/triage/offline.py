"""The offline verbs of scripts/triage.py: ``plan`` (an issue JSON file -> plan JSON on
stdout, T-4/T-30) and ``evaluate`` (labelled issues -> figures, T-32).

Shell side: reads the files named on the command line and prints; needs no token and
no network, and never writes anywhere but stdout/stderr.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any

from agentops import cli, console, data, files, ghactions
from agentops.errors import DataError, ExitStatus, InputError, UsageError
from agentops.triage import render
from agentops.triage.evaluate import Record, evaluate, render_text
from agentops.triage.model import IssueSnapshot
from agentops.triage.outcome import Outcome
from agentops.triage.plan import plan_issue
from agentops.triage.queue import LABELLED_SET, load_queue, queue_dir

_FIX_ISSUE = ("give a GitHub REST issue object (GET /repos/OWNER/NAME/issues/N) with its "
              "REST comment objects inline under \"comments\"")


def read_issue(path: str, *, repo: str | None = None) -> IssueSnapshot:
    """An issue snapshot from a REST issue JSON file with inline comments."""
    text = files.read_text(path, field="ISSUE.json")
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError("ISSUE.json", f"{path}: not valid JSON at line {exc.lineno}, column "
                         f"{exc.colno}: {exc.msg}", fix="fix the JSON syntax there") from exc
    return issue_from_json(obj, path=path, repo=repo)


def issue_from_json(obj: Any, *, path: str, repo: str | None = None) -> IssueSnapshot:
    """Validate the shape of a REST issue object (naming the missing field) and convert."""
    if not isinstance(obj, Mapping):
        raise InputError("ISSUE.json", f"{path}: not a GitHub issue object (a JSON "
                         f"{type(obj).__name__}, expected an object)", fix=_FIX_ISSUE)
    wanted = {"number": (int, "the issue number, e.g. 123"),
              "title": (str, "the issue's title as text"),
              "labels": (list, "a list of label objects (or [] for none)")}
    for key, (kind, what) in wanted.items():
        if key not in obj:
            raise InputError("ISSUE.json", f"{path}: not a GitHub issue object: missing "
                             f"field {key!r}", fix=_FIX_ISSUE)
        value = obj[key]
        if value is None:
            raise InputError("ISSUE.json", f"{path}: field {key!r} is missing (null)",
                             fix=f"set {key!r} to {what}")
        if not isinstance(value, kind) or isinstance(value, bool):
            raise InputError("ISSUE.json", f"{path}: field {key!r} is a JSON "
                             f"{files.json_kind(value)} ({json.dumps(value)[:40]}), not "
                             f"{what.split(',')[0]}", fix=f"set {key!r} to {what}")
    if not obj["title"].strip():
        raise InputError("ISSUE.json", f"{path}: field 'title' is empty",
                         fix="set 'title' to the issue's title as text (the planner reads it)")
    if obj.get("body") is not None and not isinstance(obj["body"], str):
        raise InputError("ISSUE.json", f"{path}: field 'body' should be a string or null",
                         fix="set 'body' to the issue's text (or null for none)")
    _check_user(obj, path=path, where="user")
    if "pull_request" in obj:
        raise InputError("ISSUE.json", f"{path}: #{obj['number']} is a pull request, "
                         "not an issue", fix="triage issues only")
    for i, label in enumerate(obj["labels"]):
        if isinstance(label, Mapping) and not isinstance(label.get("name"), str):
            raise InputError("ISSUE.json", f"{path}: labels[{i}] is a label object without "
                             "a 'name' text", fix=_FIX_ISSUE)
        if not isinstance(label, (str, Mapping)):
            raise InputError("ISSUE.json", f"{path}: labels[{i}] is a JSON "
                             f"{files.json_kind(label)} ({json.dumps(label)[:40]}), not a "
                             "label: expected a label object with a 'name', or the name "
                             "as text", fix=_FIX_ISSUE)
    comments = obj.get("comments") or []
    if isinstance(comments, int):
        # The plain REST issue has a comment count here; without the bodies the
        # duplicate-comment check (T-26) cannot see earlier requests.
        console.say(f"warning: {path}: 'comments' is a count ({comments}), not the comment "
              "objects; planning without them", err=True)
        comments = []
    if not isinstance(comments, list):
        raise InputError("ISSUE.json", f"{path}: field 'comments' should be a list of "
                         "REST comment objects", fix=_FIX_ISSUE)
    for i, c in enumerate(comments):
        if not isinstance(c, Mapping) or not isinstance(c.get("body", ""), (str, type(None))):
            raise InputError("ISSUE.json", f"{path}: comments[{i}] is not a REST comment "
                             "object with a 'body'", fix=_FIX_ISSUE)
        _check_user(c, path=path, where=f"comments[{i}].user")
        if c.get("id") is not None and (not isinstance(c["id"], int)
                                        or isinstance(c["id"], bool)):
            raise InputError("ISSUE.json", f"{path}: comments[{i}].id is a JSON "
                             f"{files.json_kind(c['id'])}, not the comment's number",
                             fix=_FIX_ISSUE)
    if repo is not None and repo.count("/") != 1:
        raise InputError("--repo", f"{repo!r} is not OWNER/NAME",
                         fix="e.g. --repo octo-org/octo-repo")
    return IssueSnapshot.from_rest(obj, comments, repo=repo)


def _check_user(obj: Mapping[str, Any], *, path: str, where: str) -> None:
    """``user`` of an issue or comment: absent, null or a REST user object (its login
    and type decide whose comment it is, so a wrong shape is an input error)."""
    user = obj.get("user")
    if user is None:
        return
    if not isinstance(user, Mapping):
        raise InputError("ISSUE.json", f"{path}: {where} is a JSON {files.json_kind(user)}, "
                         "not a REST user object", fix=_FIX_ISSUE)
    for key in ("login", "type"):
        if user.get(key) is not None and not isinstance(user[key], str):
            raise InputError("ISSUE.json", f"{path}: {where}.{key} is a JSON "
                             f"{files.json_kind(user[key])}, not text", fix=_FIX_ISSUE)


def plan_command(args: argparse.Namespace) -> int:
    """``plan ISSUE.json``: print the plan JSON (T-30) on stdout; with ``--plan-out``
    also the plans file ``run --plan-in`` applies."""
    cli.refuse_flags(args, {"issue": "--issue", "snapshot_out": "--snapshot-out",
                            "trusted_bots": "--trusted-bots"},
                     env={"issue": "AGENTOPS_ISSUE"},
                     context="`plan ISSUE.json` (offline: the file is the issue as read)",
                     fix="drop them, or drop ISSUE.json to read the issue live")
    if args.plan_out:
        files.check_writable(args.plan_out, field="--plan-out")
    snapshot = read_issue(args.issue_file, repo=getattr(args, "repo", None) or None)
    queue = load_queue(args.queue)
    plan = plan_issue(snapshot, queue)
    if args.plan_out:
        from agentops.triage.live import write_plans

        if not plan.repo:
            raise InputError("--plan-out", f"the plans file names the repository, and "
                             f"{args.issue_file} has no repository_url",
                             fix="pass --repo OWNER/NAME")
        write_plans(args.plan_out, plan.repo, queue, [plan])
    console.say_json(plan.to_json(), indent=2, ensure_ascii=False)
    # In a runner: the action's outputs and job summary, as a live dry run reports them
    # (both calls are no-ops in a shell).
    outcome = Outcome(repo=plan.repo, number=plan.issue, status="dry-run",
                      title=snapshot.title, decision=plan.decision,
                      confidence=plan.confidence, labels=plan.add_labels,
                      comment=plan.comments[0] if plan.comments else None,
                      awaiting_humans=plan.awaiting_humans, plan=plan)
    ghactions.set_output("decision", plan.decision)
    ghactions.set_output("labels", ",".join(plan.add_labels))
    ghactions.append_summary(render.summary(
        [outcome], heading=f"Triage plan (offline) — {args.issue_file}", dry_run=True,
        api_line="API calls: 0 (offline)"))
    return int(ExitStatus.OK)


LABELLED_FIX = ("one JSON object per line: number, title, labels, text and expected "
                "{is_distributed, modules, suboncall, type}, as in "
                "src/agentops/triage/queues/distributed/labelled.jsonl (or a file "
                "`evaluate --repo ... --save` wrote)")
_TEXT = {"type": ["string", "null"]}
_TEXTS = {"type": ["array", "null"], "items": {"type": "string"}}
# What Record.from_json reads, with the types it needs; other keys are left alone.
RECORD_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "number": {"type": "integer"}, "title": _TEXT, "text": _TEXT, "url": _TEXT,
        "state": _TEXT, "labels": _TEXTS,
        "expected": {"type": "object", "properties": {
            "is_distributed": {"type": "boolean"}, "modules": _TEXTS,
            "suboncall": _TEXT, "type": _TEXT}},
    },
}


def read_records(path: str) -> list[Record]:
    """Labelled issues, one JSON object per line (blank lines skipped)."""
    text = files.read_text(path, field="FILE.jsonl")
    records: list[Record] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError("FILE.jsonl", f"{path}: line {n}: not valid JSON: {exc.msg}",
                             fix="one JSON object per line") from exc
        if not isinstance(obj, Mapping):
            raise InputError("FILE.jsonl", f"{path}: line {n}: not a JSON object",
                             fix=LABELLED_FIX)
        for key in ("number", "title", "expected"):
            if key not in obj:
                raise InputError("FILE.jsonl", f"{path}: line {n}: missing field {key!r}",
                                 fix=LABELLED_FIX)
        if not isinstance(obj["expected"], Mapping) or "is_distributed" not in obj["expected"]:
            raise InputError("FILE.jsonl", f"{path}: line {n}: missing field "
                             "'expected.is_distributed'", fix=LABELLED_FIX)
        try:
            # Sanity: a wrong type would crash from_json (exit 70) or, worse, be read
            # as something else ("yes" as True, a string of labels as its letters).
            data.validate(obj, RECORD_SCHEMA, name=f"{path}: line {n}")
        except DataError as exc:
            raise InputError("FILE.jsonl", exc.message, fix=LABELLED_FIX) from None
        records.append(Record.from_json(obj))
    if not records:
        raise InputError("FILE.jsonl", f"{path}: no records", fix=LABELLED_FIX)
    return records


def evaluate_command(args: argparse.Namespace) -> int:
    """``evaluate FILE.jsonl`` / ``evaluate --repo OWNER/NAME``: figures of the planner and
    the keyword baseline on labelled issues."""
    repo = getattr(args, "repo", None)
    dataset = getattr(args, "dataset", None)
    if repo and dataset:
        raise UsageError("FILE.jsonl and --repo", "are two sources; give one",
                         fix="evaluate a file offline, or a repository's history live")
    if not repo:
        for flag, value in (("--since", getattr(args, "since", None)),
                            ("--max-issues", getattr(args, "max_issues", None)),
                            ("--save", getattr(args, "save", None))):
            if value is not None:
                raise UsageError(flag, "only applies with --repo OWNER/NAME",
                                 fix=f"add --repo, or drop {flag}")
        if not dataset:
            # The queue's own small labelled set, so `evaluate` works from a fresh clone.
            bundled = queue_dir(args.queue)[0] / LABELLED_SET
            if not bundled.is_file():
                raise InputError("FILE.jsonl", f"no labelled issues to evaluate (the queue "
                                 f"{args.queue!r} ships no {LABELLED_SET})",
                                 fix="give a labelled set FILE.jsonl or --repo OWNER/NAME")
            dataset = str(bundled)
        records = read_records(dataset)
        source = dataset
    else:
        from agentops.triage import backtest

        records, source = backtest.evaluate_repo(args)
    queue = load_queue(args.queue)
    ev = evaluate(records, queue)
    console.say(render_text(ev, source=source, modules_after_route=queue.modules_after_route,
                      confidence=queue.confidence))
    if args.errors:
        console.say(f"\nmismatches ({len(ev.planner.errors)}):")
        for line in ev.planner.errors:
            console.say(f"  {line}")
    if ev.planner.violations:
        console.say(f"\n{ev.planner.violations} constraint violation(s): the planner is wrong "
                    "(T-15, T-20 … T-28)", err=True)
    if args.json:
        console.say_json(ev.to_json(), sort_keys=False)
    # Sanity: a plan that breaks a constraint is a planner bug, not a soft figure.
    return int(ExitStatus.REFUSED if ev.planner.violations else ExitStatus.OK)
