"""Backtest on a repository's own history (issue #10): read the queue's issues that
humans already triaged, in batched GraphQL reads, and turn each into an evaluation
record (the JSONL format of ``evaluate FILE.jsonl``). ``evaluate --repo`` then scores the
planner on them exactly as on a file (planning only with the first-level labels), and
``--save`` writes them, so an offline rerun gives the same figures without a token.

Adapter side: reads only, never writes to GitHub; the one file written is ``--save``'s,
all at once after every read succeeded (nothing half-written).

Reads: one GraphQL ``search`` call per 50 issues (their labels and first 100 comments
come with it), plus REST pages of comments for a thread longer than 100 comments (at
most ``MAX_COMMENT_PAGES``: a bot marker anywhere in the thread makes the issue no
ground truth). GitHub's search answers at most 1,000 results per query; past that the
next query starts at the oldest issue read (``created:<=T``, repeats dropped).
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from agentops import files, ghactions
from agentops.errors import ApiError, InputError
from agentops.github.client import GitHubClient
from agentops.triage import similar
from agentops.triage.collect import (
    comments_missing,
    quoted_label,
    search_document,
    snapshot_from_graphql,
    split_repo,
    with_more_comments,
)
from agentops.triage.evaluate import Record
from agentops.triage.model import IssueSnapshot, Queue
from agentops.triage.queue import load_queue
from agentops.triage.signals import bounded

BATCH = 50  # issues per GraphQL call
SEARCH_CAP = 1000  # GitHub search results per query
DEFAULT_MAX_ISSUES = 500
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def parse_since(value: str | None) -> str | None:
    """``--since``: a calendar date (YYYY-MM-DD), checked."""
    if value is None:
        return None
    if not _DATE.match(value):
        raise InputError("--since", f"not a date: {value!r}",
                         fix="give YYYY-MM-DD, e.g. 2025-01-01")
    try:
        date.fromisoformat(value)
    except ValueError as exc:
        raise InputError("--since", f"not a calendar date: {value!r}",
                         fix="give YYYY-MM-DD, e.g. 2025-01-31") from exc
    return value


def search_query(repo: str, queue: Queue, *, since: str | None, before: str | None,
                 strict: bool = False) -> str:
    """The queue's issues, newest first, optionally from ``since`` and up to ``before``
    (``created:<=before``; ``created:<before`` when ``strict``)."""
    split_repo(repo)
    q = f"repo:{repo} is:issue label:{quoted_label(queue.trigger_label)} sort:created-desc"
    if since:
        q += f" created:>={since}"
    if before:
        # `<=`: issues created in the same second as the oldest one read are not all on
        # the page that ended the window; the caller's seen set drops the repeats.
        q += f" created:{'<' if strict else '<='}{before}"
    return q


def triaged_by_humans(snap: IssueSnapshot, queue: Queue) -> str | None:
    """Why an issue is no ground truth (``None`` if it is): it must carry what a human
    triage leaves (a sub-oncall, a module of the queue, or ``triaged``), and this bot
    must never have commented there (its own output is not a human's answer)."""
    have = {lb.casefold() for lb in snap.labels}
    judged = (*queue.suboncalls, *queue.modules, queue.triaged_label)
    if not any(lb.casefold() in have for lb in judged):
        return "no sub-oncall, module or triaged label"
    if any(similar.markers(c.body) for c in snap.comments):
        return "this bot commented there"
    if snap.comments_truncated:
        # Sanity: past the comment-page cap a bot marker could hide; not ground truth.
        return "thread too long to check for this bot's comments"
    return None


def thread_text(snap: IssueSnapshot, queue: Queue, created: str = "") -> str:
    """The issue as one text, as the labelled sets hold it: the description, then each
    person's comment (not a bot's, not triage boilerplate), within the planner's caps."""
    templates = tuple(queue.templates.values())
    people = [c for c in snap.comments
              if not c.is_bot and not similar.is_boilerplate(c, templates)]
    _, body, texts = bounded("", snap.body, [c.body for c in people])
    parts = [f"{snap.author or 'ghost'} · description · {created[:10]}\n{body}".rstrip()]
    for c, text in zip(people, texts, strict=False):
        parts.append(f"{c.author} · comment · {c.created_at[:10]}\n{text}".rstrip())
    return "\n\n".join(parts)


def record_of(snap: IssueSnapshot, queue: Queue, created: str = "") -> Record:
    """The evaluation record of a human-triaged queue issue."""
    have = {lb.casefold(): lb for lb in snap.labels}
    sub = next((s for s in queue.suboncalls if s.casefold() in have), None)
    kind = next((t for t in queue.type_labels if t.casefold() in have), None)
    return Record(
        number=snap.number, title=snap.title, text=thread_text(snap, queue, created),
        human_labels=tuple(snap.labels),
        modules=frozenset(m for m in queue.modules if m.casefold() in have),
        suboncall=sub.rsplit(" ", 1)[-1] if sub else None, is_distributed=True,
        url=snap.url, type=kind, state=snap.state)


@dataclass
class Backtest:
    """What one backtest read."""

    records: list[Record] = field(default_factory=list)
    scanned: int = 0  # queue issues read
    skipped: dict[str, int] = field(default_factory=dict)  # why an issue is no ground truth
    search_calls: int = 0
    comment_pages: int = 0
    exhausted: bool = False  # every matching issue was read


def collect_triaged(client: GitHubClient, repo: str, queue: Queue, *, since: str | None,
                    max_issues: int,
                    on_progress: Callable[[str], None] = lambda _line: None) -> Backtest:
    """Read the queue's issues newest first until ``max_issues`` human-triaged ones are
    found (or ten times that many were read, or none are left)."""
    if max_issues < 1:
        raise InputError("--max-issues", f"must be at least 1, got {max_issues}",
                         fix="give how many triaged issues to score, e.g. 200")
    out = Backtest()
    seen: set[int] = set()
    before: str | None = None
    strict = False
    scan_cap = 10 * max_issues
    while len(out.records) < max_issues and out.scanned < scan_cap:
        query = search_query(repo, queue, since=since, before=before, strict=strict)
        cursor: str | None = None
        oldest = ""
        new_in_query = 0
        total = 0
        while True:
            data = client.graphql(search_document(["triaged"], BATCH),
                                  {"triaged": query, "triagedAfter": cursor})
            out.search_calls += 1
            result, nodes = search_page(data.get("triaged"))
            total = int(result.get("issueCount") or 0)
            for node in nodes:
                number = int(node["number"])
                created = str(node.get("createdAt") or "")
                if created:
                    oldest = min(oldest, created) if oldest else created
                if number in seen:
                    continue
                seen.add(number)
                new_in_query += 1
                out.scanned += 1
                snap = snapshot_from_graphql(node, repo)
                if comments_missing(node):
                    # Every page (bounded): a bot marker after the first 100 comments
                    # makes the issue no ground truth, however full the text budget.
                    snap = with_more_comments(client, snap)
                    out.comment_pages += 1
                why = triaged_by_humans(snap, queue)
                if why:
                    out.skipped[why] = out.skipped.get(why, 0) + 1
                elif len(out.records) < max_issues:
                    out.records.append(record_of(snap, queue, created))
            on_progress(f"read {out.scanned} issue(s) in {out.search_calls} search call(s): "
                        f"{len(out.records)} triaged by humans (of {max_issues} wanted)")
            info = result.get("pageInfo") or {}
            cursor = info.get("endCursor") if info.get("hasNextPage") and nodes else None
            if not cursor or len(out.records) >= max_issues or out.scanned >= scan_cap:
                break
        if cursor:
            break  # the budget ended the read
        if total <= SEARCH_CAP:
            out.exhausted = True
            break
        # Past GitHub's 1,000-result window: the next query starts at the oldest issue
        # on it (`created:<=T`, an exact timestamp; the seen set drops the repeats, so an
        # issue created in that same second is not skipped). When a whole window held
        # issues of that one second, the next goes strictly below it; a strict query
        # that gets no further ends the read.
        if not oldest:
            break
        if before is None or oldest < before:
            before, strict = oldest, False
        elif not strict:
            strict = True
        else:
            break
    return out


def search_page(result: object) -> tuple[Mapping[str, Any], list[Mapping[str, Any]]]:
    """One ``search`` answer, checked: ``(result, issue nodes)``. Deleted issues (``null``)
    and nodes without a number are passed over, as GitHub returns them; anything else
    that is not the documented shape is ``ApiError`` (exit 5) with the reason. A node
    without its ``labels`` connection in particular is refused: read as "no labels" it
    would count as untriaged and silently leave the ground truth."""
    if result is None:
        return {}, []
    if not isinstance(result, Mapping):
        raise _malformed("`search` is not an object")
    count = result.get("issueCount")
    if count is not None and (isinstance(count, bool) or not isinstance(count, int)):
        raise _malformed("`issueCount` is not a number")
    raw = result.get("nodes")
    if raw is not None and not isinstance(raw, list):
        raise _malformed("`nodes` is not a list")
    if not isinstance(result.get("pageInfo") or {}, Mapping):
        raise _malformed("`pageInfo` is not an object")
    nodes = []
    for node in raw or []:
        if node is None:
            continue
        if not isinstance(node, Mapping):
            raise _malformed("a search node is not an object")
        if "number" not in node:
            continue
        number = node["number"]
        if isinstance(number, bool) or not isinstance(number, int):
            raise _malformed("a search node's `number` is not a number")
        labels = node.get("labels")
        if not isinstance(labels, Mapping) or not isinstance(labels.get("nodes"), list) or \
                not all(isinstance(lb, Mapping) and isinstance(lb.get("name"), str)
                        for lb in labels["nodes"]):
            raise _malformed(f"issue #{number} came without its `labels` (null or not a "
                             "list of names); it cannot be told triaged or not")
        comments = node.get("comments")
        if comments is not None and (not isinstance(comments, Mapping) or not isinstance(
                comments.get("nodes") or [], list)):
            raise _malformed(f"issue #{number}: `comments` is not a connection")
        nodes.append(node)
    return result, nodes


def _malformed(why: str) -> ApiError:
    return ApiError(f"POST /graphql (search): the answer is not GitHub's answer: {why}",
                    fix="rerun; if it persists, check GITHUB_API_URL (a proxy may answer in "
                        "GitHub's place). Nothing was saved")


def describe(bt: Backtest, repo: str, since: str | None) -> str:
    """One line for the report's heading."""
    span = f" since {since}" if since else ""
    skipped = ", ".join(f"{n} {why}" for why, n in sorted(bt.skipped.items()))
    return (f"{repo}{span}: {len(bt.records)} human-triaged issue(s) of {bt.scanned} read "
            f"({bt.search_calls} search call(s), {bt.comment_pages} extra comment read(s))"
            + (f"; left out: {skipped}" if skipped else ""))


def evaluate_repo(args: argparse.Namespace) -> tuple[list[Record], str]:
    """``evaluate --repo``: read the records live (progress on stderr), write ``--save``
    once all reads succeeded, and say where they came from."""
    repo = str(args.repo)
    split_repo(repo)
    since = parse_since(getattr(args, "since", None))
    limit = getattr(args, "max_issues", None)
    limit = DEFAULT_MAX_ISSUES if limit is None else int(limit)
    queue = load_queue(args.queue)
    if getattr(args, "save", None):
        # A --save path that cannot be written is refused before the first API call.
        files.check_writable(args.save, field="--save")
    client = GitHubClient.from_env()
    with ghactions.group(f"triage evaluate: read {repo}"):
        bt = collect_triaged(client, repo, queue, since=since, max_issues=limit,
                             on_progress=ghactions.notice)
    ghactions.notice(client.counter.line())
    if not bt.records:
        raise InputError("--repo", f"no issues of {repo} in the {queue.trigger_label!r} queue "
                         f"were triaged by humans ({bt.scanned} read"
                         + (f", since {since}" if since else "") + ")",
                         fix="widen --since, or check the queue (--queue) matches the "
                             "repository's labels")
    if getattr(args, "save", None):
        save_records(args.save, bt.records)
        ghactions.notice(f"wrote {len(bt.records)} record(s) to {args.save}")
    return bt.records, describe(bt, repo, since)


def save_records(path: str, records: Sequence[Record]) -> None:
    """Write the records as a labelled set, atomically (never half a file)."""
    text = "".join(json.dumps(r.to_json(), ensure_ascii=False) + "\n" for r in records)
    files.write_atomic(path, text, field="--save")
