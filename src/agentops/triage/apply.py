"""The only writer of triage: carries a ``Plan`` out on the live issue.

Writer side of the I/O line. Whatever the plan says, it enforces T-20 … T-28 itself
against the issue as read just before (``snapshot_now``), and validates everything
before its first write, so a refusal writes nothing:

- T-20 add-only: the only mutating calls below are ``POST …/labels`` and
  ``POST …/comments``; no path removes a label, closes, locks or assigns.
- T-21 only allowlisted labels; each label it adds must already exist in the
  repository (checked without listing all labels); it never creates one.
- T-22 a second sub-oncall becomes the review label; T-23 ``triaged`` never rides with
  review / needs-reproduction / high priority; T-24 the marker label on every handled
  issue except the high-priority path; T-25 sub-oncall first.
- T-26 at most one comment, from a queue template only, with its hidden marker, and
  only when no equivalent comment is on the issue; T-27 labels already present are
  dropped, so a second run writes nothing; T-28 one call adds all labels.

It must never read the event payload, decide what to triage, or know about dry runs
(the command function stops before calling it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from agentops.errors import AgentopsError, ApiError, ConfigError, PartialApplyError, RefusedError
from agentops.github.client import GitHubClient
from agentops.triage import similar
from agentops.triage.collect import issue_path, read_comments, split_repo
from agentops.triage.model import IssueSnapshot, Plan, Queue

# Sanity: one GraphQL call checks at most this many labels (aliases per document).
LABELS_PER_QUERY = 50


@dataclass(frozen=True)
class LabelChanges:
    """The labels one apply will add, after the constraints, and why any changed."""

    add: tuple[str, ...]
    already_present: tuple[str, ...]
    adjustments: tuple[str, ...]  # what the applier changed in the plan, and which rule


@dataclass(frozen=True)
class ApplyResult:
    """What one ``apply_plan`` did."""

    repo: str
    issue: int
    labels_added: tuple[str, ...]
    already_present: tuple[str, ...]
    adjustments: tuple[str, ...]
    comment: str | None = None  # template posted
    comment_url: str = ""
    comment_skipped: str = ""  # why a planned comment was not posted
    final_labels: tuple[str, ...] = ()
    writes: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.labels_added or self.comment)


class LabelChecker:
    """Does a label exist in the repository? One GraphQL call with aliased
    ``repository.label(name:)`` fields per batch of unknown names; results are cached
    for the run, so a sweep pays for each label once. Where GraphQL cannot answer (an
    endpoint without it, a proxy that only passes REST), one REST
    ``GET /repos/{owner}/{repo}/labels/{name}`` per label does the same, never a listing
    of all the repository's labels."""

    def __init__(self, client: GitHubClient, repo: str, *, prefetch: Iterable[str] = ()) -> None:
        self.client = client
        self.repo = repo
        self.known: dict[str, bool] = {}
        self._prefetch = tuple(prefetch)
        self.rest_only = False

    def missing(self, names: Iterable[str]) -> list[str]:
        """The names among ``names`` that do not exist in the repository."""
        wanted = list(dict.fromkeys(names))
        unknown = [n for n in wanted if n.casefold() not in self.known]
        if unknown:
            # A sweep asks once for the whole allowlist rather than once per new label.
            batch = list(dict.fromkeys([*unknown, *(p for p in self._prefetch
                                                    if p.casefold() not in self.known)]))
            for start in range(0, len(batch), LABELS_PER_QUERY):
                self._query(batch[start:start + LABELS_PER_QUERY])
        return [n for n in wanted if not self.known.get(n.casefold())]

    def _query(self, names: list[str]) -> None:
        if not self.rest_only:
            try:
                self._query_graphql(names)
                return
            except ApiError as exc:
                if not _graphql_unavailable(exc):
                    raise
                self.rest_only = True  # for the rest of the run: no second failed call
        owner, name = split_repo(self.repo)
        for n in names:
            self.known[n.casefold()] = self.client.exists(
                f"/repos/{owner}/{name}/labels/{quote(n, safe='')}")

    def _query_graphql(self, names: list[str]) -> None:
        owner, name = split_repo(self.repo)
        decl = "".join(f", $l{i}: String!" for i in range(len(names)))
        fields = " ".join(f"l{i}: label(name: $l{i}) {{ name }}" for i in range(len(names)))
        doc = (f"query AgentopsLabelsExist($owner: String!, $name: String!{decl}) "
               f"{{ repository(owner: $owner, name: $name) {{ {fields} }} }}")
        variables: dict[str, Any] = {"owner": owner, "name": name}
        variables.update({f"l{i}": n for i, n in enumerate(names)})
        repo = self.client.graphql(doc, variables).get("repository")
        if repo is None:
            raise ApiError(f"repository {self.repo} not found through GraphQL",
                           fix="check --repo; the token needs read access to it")
        for i, n in enumerate(names):
            self.known[n.casefold()] = bool(repo.get(f"l{i}"))


def _graphql_unavailable(exc: ApiError) -> bool:
    """A GraphQL failure that REST may not share: the endpoint is missing or refuses the
    document. Auth, permission and rate-limit failures are REST's too, so they stand."""
    if exc.status_code in (400, 404, 405, 410, 415, 422, 501):
        return True
    text = exc.message.lower()
    return exc.status_code is None and text.startswith("graphql error") and not any(
        w in text for w in ("rate", "limit", "scope", "forbidden", "permission"))


def plan_label_changes(plan: Plan, current: Iterable[str], queue: Queue) -> LabelChanges:
    """The labels to add for ``plan`` on an issue that has ``current`` (T-21 … T-25, T-27).

    Pure. Raises RefusedError when the plan asks for a label outside the allowlist."""
    allow = {a.casefold() for a in queue.allowlist}
    outside = [lb for lb in plan.add_labels if lb.casefold() not in allow]
    if outside:
        raise RefusedError(
            f"plan for {plan.repo}#{plan.issue} asks for labels outside the queue "
            f"{queue.name!r} allowlist (T-21); nothing was written",
            [f"not allowlisted: {lb!r}" for lb in outside],
            fix=f"add them to the queue's labels.json if they are meant to be applied, or fix "
                f"the planner; allowed: {', '.join(sorted(queue.allowlist))}")
    for role, lb in (("marker", queue.marker_label), ("review", queue.review_label),
                     ("triaged", queue.triaged_label)):
        if lb.casefold() not in allow:
            raise ConfigError(f"queue {queue.name!r}: its {role} label {lb!r} is not in its "
                              "own allowlist", fix="add it to the queue's labels.json")
    have = {c.casefold() for c in current}
    subs = {s.casefold() for s in queue.suboncalls}
    adjustments: list[str] = []
    want = list(dict.fromkeys(plan.add_labels))
    high_priority = plan.awaiting_humans or plan.decision == "high_priority"

    # T-22: at most one sub-oncall after the run, and never a replacement.
    present_sub = [c for c in current if c.casefold() in subs]
    new_sub = [lb for lb in want if lb.casefold() in subs and lb.casefold() not in have]
    if new_sub and (present_sub or len(new_sub) > 1):
        want = [lb for lb in want if lb not in new_sub]
        if queue.review_label not in want:
            want.append(queue.review_label)
        held = f"the issue has {present_sub[0]!r}" if present_sub else "the plan names several"
        adjustments.append(f"T-22: not adding {', '.join(new_sub)} ({held}); "
                           f"added {queue.review_label!r} for a human")
    # T-24: the marker on every handled issue, except the high-priority path. An issue
    # that already carries the review label but not the marker is on that path (this bot
    # left it for humans, or a human asked for review): a later plan, e.g. step 0 seeing
    # the labels this bot added, must not mark it handled (T-15, and T-27: a second run
    # on a high-priority issue writes nothing).
    awaiting = queue.awaits_humans(current)
    if (high_priority or awaiting) and queue.marker_label in want:
        want.remove(queue.marker_label)
        why = "the high-priority path" if high_priority else (
            f"the issue awaits humans ({queue.review_label!r} without the marker)")
        adjustments.append(f"T-24: dropped {queue.marker_label!r} on {why}")
    elif not (high_priority or awaiting) and queue.marker_label not in want:
        want.append(queue.marker_label)
        adjustments.append(f"T-24: added {queue.marker_label!r} (every handled issue)")
    if high_priority and queue.review_label not in want:
        want.append(queue.review_label)
        adjustments.append(f"T-15: added {queue.review_label!r} on the high-priority path")
    # T-23: `triaged` never with review / needs reproduction / high priority.
    after = have | {lb.casefold() for lb in want}
    blockers = [lb for lb in (queue.review_label, queue.needs_repro_label)
                if lb.casefold() in after]
    if queue.triaged_label in want and (blockers or high_priority):
        want.remove(queue.triaged_label)
        why = ", ".join(repr(b) for b in blockers) or "the high-priority path"
        adjustments.append(f"T-23: dropped {queue.triaged_label!r} (with {why})")
    # T-27: a label already on the issue is not sent again.
    present = tuple(lb for lb in want if lb.casefold() in have)
    add = [lb for lb in want if lb.casefold() not in have]
    # T-25: sub-oncall first, then modules, then the rest in plan order.
    modules = {m.casefold() for m in queue.modules}
    add.sort(key=lambda lb: 0 if lb.casefold() in subs else 1 if lb.casefold() in modules else 2)
    return LabelChanges(add=tuple(add), already_present=present, adjustments=tuple(adjustments))


def _check_target(plan: Plan, snapshot: IssueSnapshot, queue: Queue) -> None:
    # Security: a plan artifact from another run, repo or issue must never be applied
    # here; the check is on the fresh read, not on what the plan claims.
    problems = []
    if plan.repo.casefold() != snapshot.repo.casefold():
        problems.append(f"plan is for repository {plan.repo!r}, the issue is in {snapshot.repo!r}")
    if plan.issue != snapshot.number:
        problems.append(f"plan is for issue #{plan.issue}, the issue read is #{snapshot.number}")
    if plan.queue and plan.queue != queue.name:
        problems.append(f"plan was made with queue {plan.queue!r}, applying with {queue.name!r}")
    for name in plan.comments:
        if name not in queue.templates:
            problems.append(f"comment {name!r} is not a template of queue {queue.name!r} (T-26)")
    if problems:
        raise RefusedError(f"refusing the plan for {plan.repo}#{plan.issue}; nothing was written",
                           problems, fix="plan and apply the same issue with the same queue")


def comment_body(queue: Queue, name: str) -> str:
    """The comment for template ``name``: its current body plus the hidden marker."""
    template = queue.templates[name]
    return f"{template.body.rstrip()}\n\n{template.marker()}\n"


def _comment_decision(plan: Plan, snapshot: IssueSnapshot, queue: Queue,
                      adding: Iterable[str]) -> tuple[str | None, str]:
    """(template to post, or None; why a planned one is skipped) — T-26."""
    for name in plan.comments:
        if queue.awaits_humans([*snapshot.labels, *adding]):
            # T-15: an issue awaiting humans gets no bot comment, whatever the plan says:
            # one that already did, and one this run's labels leave for humans (the
            # high-priority path: the review label without the marker).
            return None, f"the issue awaits humans ({queue.review_label!r} without the marker)"
        if snapshot.comments_truncated:
            # #12: the comment-read cap cut the thread; the same request may be among the
            # comments not read, so posting could ask twice (T-26). Labels still go on.
            return None, "the thread is longer than the comment-read cap; an equivalent " \
                         "request may be among the unread comments"
        if snapshot.locked:
            # GitHub refuses comments on a locked issue from non-collaborators; the
            # labels still go on, and the run stays whole instead of partly applied.
            return None, "the issue is locked"
        why = similar.find_equivalent(snapshot.comments, queue.templates[name])
        return (None, why) if why else (name, "")
    return None, ""


def apply_plan(client: GitHubClient, plan: Plan, snapshot_now: IssueSnapshot, queue: Queue, *,
               labels: LabelChecker | None = None,
               seal: Callable[[str], str] | None = None) -> ApplyResult:
    """Apply ``plan`` to the issue read as ``snapshot_now``: at most one labels call and one
    comment; nothing when nothing is missing."""
    _check_target(plan, snapshot_now, queue)
    changes = plan_label_changes(plan, snapshot_now.labels, queue)
    comment_name, comment_skipped = _comment_decision(plan, snapshot_now, queue, changes.add)
    checker = labels or LabelChecker(client, snapshot_now.repo)
    if changes.add:
        missing = checker.missing(changes.add)
        if missing:
            raise ConfigError(
                f"{snapshot_now.repo}: label(s) {', '.join(repr(m) for m in missing)} do not "
                f"exist in the repository; the triage bot never creates labels (T-21), so "
                f"nothing was written to #{snapshot_now.number}",
                fix=f"create them in {snapshot_now.repo} (Issues → Labels → New label, or "
                    f"`gh label create \"{missing[0]}\" -R {snapshot_now.repo}`), or remove "
                    f"them from the queue's labels.json")

    path = issue_path(snapshot_now.repo, snapshot_now.number)
    writes = 0
    final = tuple(snapshot_now.labels)
    if changes.add:
        # Idempotent (adding a present label is a no-op), so the client retries it freely.
        out = client.write("POST", f"{path}/labels", {"labels": list(changes.add)},
                           idempotent=True)
        writes += 1
        if isinstance(out, list):
            final = tuple(str(lb.get("name")) for lb in out if isinstance(lb, dict))
    url = ""
    if comment_name:
        template = queue.templates[comment_name]
        body = comment_body(queue, comment_name)
        if seal is not None:
            body = seal(body)  # the run that posts it, and the signature (provenance)

        def landed() -> dict[str, Any] | None:
            # Before any retry of the POST: did the first attempt land after all?
            for c in read_comments(client, snapshot_now.repo, snapshot_now.number)[0]:
                found = similar.markers(str(c.get("body") or ""))
                if any(n == template.name for n, _ in found):
                    return c
            return None

        try:
            out = client.write("POST", f"{path}/comments", {"body": body},
                               idempotent=False, verify=landed)
        except AgentopsError as exc:
            if not writes:
                raise
            raise PartialApplyError(
                f"{snapshot_now.repo}#{snapshot_now.number}: labels {', '.join(changes.add)} "
                f"were added but the {comment_name!r} comment failed: {exc.message}",
                fix="rerun: labels already present are skipped and the comment is posted only "
                    "if its marker is not on the issue yet") from exc
        writes += 1
        url = str(out.get("html_url") or "") if isinstance(out, dict) else ""
    return ApplyResult(
        repo=snapshot_now.repo, issue=snapshot_now.number, labels_added=changes.add,
        already_present=changes.already_present, adjustments=changes.adjustments,
        comment=comment_name, comment_url=url, comment_skipped=comment_skipped,
        final_labels=final, writes=writes,
    )


def preview(plan: Plan, snapshot: IssueSnapshot, queue: Queue) -> ApplyResult:
    """What ``apply_plan`` would do, computed without any call (for dry runs and plans)."""
    _check_target(plan, snapshot, queue)
    changes = plan_label_changes(plan, snapshot.labels, queue)
    comment_name, skipped = _comment_decision(plan, snapshot, queue, changes.add)
    return ApplyResult(
        repo=snapshot.repo, issue=snapshot.number, labels_added=changes.add,
        already_present=changes.already_present, adjustments=changes.adjustments,
        comment=comment_name, comment_skipped=skipped,
        final_labels=(*snapshot.labels, *changes.add), writes=0)

