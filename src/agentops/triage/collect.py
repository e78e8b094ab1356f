"""Read issues from GitHub into ``IssueSnapshot`` records (style practice 3).

Adapter side of the I/O line: reads only, never writes, decides nothing about labels.
``collect_issue`` reads one issue over REST (the event payload is never trusted: a
queued run may start minutes after the event). ``collect_queue`` reads the sweep's
candidates in GraphQL batches: one call returns up to 100 issues of each selection with
their labels and first 100 comments; only issues with more comments cost extra pages.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from agentops.errors import ApiError, InputError
from agentops.flag_values import is_repo
from agentops.github.client import GitHubClient
from agentops.triage.model import Comment, IssueSnapshot, Queue

# GitHub's search returns at most 1000 results per query; 10 pages of 100.
MAX_SEARCH_PAGES = 10
PAGE_SIZE = 100
MIN_PAGE_SIZE = 10
# Sanity: pages of comments read per issue (10,000 comments); past it the thread is cut
# and marked so (IssueSnapshot.comments_truncated).
MAX_COMMENT_PAGES = 100


TRUNCATED_KEY = "comments_truncated"


def split_repo(repo: str | None, *, field: str = "--repo") -> tuple[str, str]:
    """``OWNER/NAME`` → ``(owner, name)``, or an InputError naming the flag."""
    fix = "e.g. --repo pytorch/pytorch (in a workflow it defaults to GITHUB_REPOSITORY)"
    if not repo:
        raise InputError(field, "no repository given", fix=fix)
    if not is_repo(repo) or repo.endswith("."):
        raise InputError(field, f"expected OWNER/NAME, got {repo!r}", fix=fix)
    owner, name = repo.split("/", 1)
    return owner, name


def issue_path(repo: str, number: int) -> str:
    """REST path of an issue."""
    owner, name = split_repo(repo)
    return f"/repos/{owner}/{name}/issues/{int(number)}"


def read_comments(client: GitHubClient, repo: str, number: int, *,
                  start_page: int = 1) -> tuple[list[dict[str, Any]], bool]:
    """The REST comment objects of an issue (100 a page) from ``start_page`` on, at most
    MAX_COMMENT_PAGES pages, and whether that cap cut the thread short (#12: a request
    beyond the cap would be missed and asked again, so a cut thread gets no comment)."""
    params: dict[str, Any] = {"per_page": PAGE_SIZE}
    if start_page > 1:
        params["page"] = start_page
    # One page past the cap says whether anything is beyond it.
    items = list(client.paginate(f"{issue_path(repo, number)}/comments", params,
                                 max_pages=MAX_COMMENT_PAGES + 1))
    keep = MAX_COMMENT_PAGES * PAGE_SIZE
    return items[:keep], len(items) > keep


def collect_issue(client: GitHubClient, repo: str, number: int) -> IssueSnapshot:
    """One issue and its comments, read fresh over REST (1 call + 1 per 100 comments)."""
    raw = read_issue(client, repo, number)
    return IssueSnapshot.from_rest(raw, raw["comments"], repo=repo)


def read_issue(client: GitHubClient, repo: str, number: int) -> dict[str, Any]:
    """The REST issue object with its REST comment objects inline under ``comments``:
    the offline ``plan`` input, so a live read can be saved and replayed."""
    try:
        issue = client.read(issue_path(repo, number))
    except ApiError as exc:
        if exc.status_code == 404:
            raise ApiError(
                f"issue {repo}#{number} not found (HTTP 404)", status_code=404,
                fix="check --repo and --issue; a private repository answers 404 to a token "
                    "without access (give the job `permissions: issues: read`)") from exc
        raise
    if not isinstance(issue, Mapping) or "number" not in issue:
        raise ApiError(f"issue {repo}#{number}: the API answered something that is not an issue")
    # Sanity: the issue object says how many comments exist; skip the call when none.
    comments, cut = (read_comments(client, repo, number) if int(issue.get("comments") or 0)
                     else ([], False))
    # `comments_truncated` (not a REST field) travels with a saved snapshot, so an
    # offline replay of a cut thread plans no comment either.
    return {**issue, "comments": comments, **({TRUNCATED_KEY: True} if cut else {})}


# --- the sweep's batched reads ----------------------------------------------------------

ISSUE_FIELDS = """
fragment AgentopsTriageIssue on Issue {
  number title body url state locked updatedAt createdAt
  author { login __typename }
  labels(first: 100) { totalCount nodes { name } }
  comments(first: 100) {
    totalCount
    pageInfo { hasNextPage endCursor }
    nodes { databaseId body createdAt authorAssociation author { login __typename } }
  }
}
"""


def search_document(aliases: Iterable[str], first: int = PAGE_SIZE) -> str:
    """The GraphQL document for one batch: one aliased ``search`` per selection."""
    names = list(aliases)
    decl = ", ".join(f"${a}: String!, ${a}After: String" for a in names)
    fields = "\n".join(
        f"  {a}: search(query: ${a}, type: ISSUE, first: {int(first)}, after: ${a}After) {{\n"
        f"    issueCount pageInfo {{ hasNextPage endCursor }}\n"
        f"    nodes {{ ...AgentopsTriageIssue }}\n  }}"
        for a in names)
    return f"query AgentopsTriageQueue({decl}) {{\n{fields}\n}}\n{ISSUE_FIELDS}"


def quoted_label(label: str) -> str:
    # Search qualifiers take quoted values; a quote inside a label name cannot be
    # expressed, so such a label is refused rather than silently widening the search.
    if '"' in label:
        raise InputError("queue labels", f"label {label!r} contains a double quote",
                         fix="rename the label; GitHub search cannot quote it")
    return f'"{label}"'


def selection_queries(repo: str, queue: Queue) -> dict[str, str]:
    """T-2's two selections as search strings, oldest-updated first.

    ``fresh``: open queue issues without the marker label. ``marked``: open queue issues
    that carry the marker (the first-level bot sets it too) but no sub-oncall label and
    no review label, i.e. this bot never finished them."""
    split_repo(repo)
    base = f"repo:{repo} is:issue is:open label:{quoted_label(queue.trigger_label)}"
    fresh = f"{base} -label:{quoted_label(queue.marker_label)} sort:updated-asc"
    unrouted = " ".join(f"-label:{quoted_label(s)}"
                        for s in (*queue.suboncalls, queue.review_label))
    marked = f"{base} label:{quoted_label(queue.marker_label)} {unrouted} sort:updated-asc"
    return {"fresh": fresh, "marked": marked}


def snapshot_from_graphql(node: Mapping[str, Any], repo: str) -> IssueSnapshot:
    """An ``IssueSnapshot`` from one search node (comments: the first page only)."""
    comments = []
    for c in (node.get("comments") or {}).get("nodes") or []:
        author = c.get("author") or {}
        comments.append(Comment(
            id=int(c.get("databaseId") or 0),
            author=str(author.get("login") or "ghost"),
            author_type="Bot" if author.get("__typename") == "Bot" else "User",
            author_association=str(c.get("authorAssociation") or "NONE"),
            body=str(c.get("body") or ""),
            created_at=str(c.get("createdAt") or ""),
        ))
    return IssueSnapshot(
        repo=repo,
        number=int(node["number"]),
        title=str(node.get("title") or ""),
        body=str(node.get("body") or ""),
        labels=tuple(str(n["name"]) for n in (node.get("labels") or {}).get("nodes") or []),
        comments=tuple(comments),
        state=str(node.get("state") or "OPEN").lower(),
        author=str((node.get("author") or {}).get("login") or ""),
        updated_at=str(node.get("updatedAt") or ""),
        url=str(node.get("url") or ""),
        locked=bool(node.get("locked")),
    )


def refresh_issues(client: GitHubClient, repo: str,
                   numbers: Iterable[int]) -> dict[int, IssueSnapshot | None]:
    """Re-read some issues in one GraphQL call (aliased ``issue(number:)``), with extra
    comment pages over REST for long threads; ``None`` for an issue no longer readable.
    The sweep uses it so a write never acts on a batch read older than a few seconds."""
    owner, name = split_repo(repo)
    wanted = [int(n) for n in dict.fromkeys(numbers)]
    if not wanted:
        return {}
    fields = "\n".join(f"    i{n}: issue(number: {n}) {{ ...AgentopsTriageIssue }}"
                       for n in wanted)
    doc = (f"query AgentopsTriageIssues($owner: String!, $name: String!) {{\n"
           f"  repository(owner: $owner, name: $name) {{\n{fields}\n  }}\n}}\n{ISSUE_FIELDS}")
    data = client.graphql(doc, {"owner": owner, "name": name}).get("repository") or {}
    out: dict[int, IssueSnapshot | None] = {}
    for n in wanted:
        node = data.get(f"i{n}")
        if not node:
            out[n] = None
            continue
        snap = snapshot_from_graphql(node, repo)
        if comments_missing(node):
            snap = with_more_comments(client, snap)
        out[n] = snap
    return out


def with_more_comments(client: GitHubClient, snap: IssueSnapshot) -> IssueSnapshot:
    """Pages 2+ of a long thread over REST (the first 100 came with the GraphQL read)."""
    extra, cut = read_comments(client, snap.repo, snap.number, start_page=2)
    return replace(snap, comments=(*snap.comments, *(Comment.from_rest(c) for c in extra)),
                   comments_truncated=cut)


def comments_missing(node: Mapping[str, Any]) -> bool:
    info = (node.get("comments") or {}).get("pageInfo") or {}
    return bool(info.get("hasNextPage"))


Verdict = Literal["plan", "defer", "skip"]


@dataclass(frozen=True)
class QueueScan:
    """What one sweep read: the issues to plan (oldest first, within the budget), and
    those it passed over (unchanged since last planned)."""

    selected: tuple[IssueSnapshot, ...]
    skipped: tuple[IssueSnapshot, ...]
    total: int  # candidates GitHub reported across the selections
    exhausted: bool  # every candidate page was read


def collect_queue(client: GitHubClient, repo: str, queue: Queue, budget: int, *,
                  judge: Callable[[IssueSnapshot], Verdict] | None = None) -> QueueScan:
    """The sweep's candidates (T-2), read in GraphQL batches until ``budget`` issues to
    plan are found or the selections run out.

    ``judge`` sorts each candidate: ``plan`` (take it), ``defer`` (take it only if the
    budget is not filled by others, e.g. it failed last time) or ``skip`` (unchanged
    since it was last planned). Issues are taken oldest-updated first."""
    if budget < 1:
        raise InputError("--max-issues", f"must be at least 1, got {budget}",
                         fix="give the number of issues one sweep may plan, e.g. 50")
    judge = judge or (lambda _s: "plan")
    queries = selection_queries(repo, queue)
    cursors: dict[str, str | None] = dict.fromkeys(queries)
    open_queries = set(queries)
    seen: dict[int, IssueSnapshot] = {}
    more_comments: set[int] = set()
    total = 0
    pages = 0
    first = PAGE_SIZE
    take: list[int] = []
    deferred: list[int] = []
    skipped: list[int] = []
    while open_queries and pages < MAX_SEARCH_PAGES * PAGE_SIZE // first:
        pages += 1
        names = sorted(open_queries)
        variables: dict[str, Any] = {}
        for a in names:
            variables[a] = queries[a]
            variables[f"{a}After"] = cursors[a]
        try:
            data = client.graphql(search_document(names, first), variables)
        except ApiError as exc:
            # GitHub answers 502 / times out when a page of 100 issues with 100
            # comments each is too large to build in time: ask for smaller pages.
            overloaded = (exc.status_code or 0) >= 500 or (
                exc.status_code is None and any(w in exc.message.lower() for w in (
                    "timeout", "timed out", "went wrong")))
            if first <= MIN_PAGE_SIZE or not overloaded:
                raise
            first = max(MIN_PAGE_SIZE, first // 2)
            pages -= 1
            continue
        batch: list[tuple[str, int]] = []
        for a in names:
            result = data.get(a) or {}
            if pages == 1:
                total += int(result.get("issueCount") or 0)
            info = result.get("pageInfo") or {}
            if info.get("hasNextPage") and info.get("endCursor"):
                cursors[a] = str(info["endCursor"])
            else:
                open_queries.discard(a)
            for node in result.get("nodes") or []:
                if not node or "number" not in node or int(node["number"]) in seen:
                    continue
                snap = snapshot_from_graphql(node, repo)
                seen[snap.number] = snap
                batch.append((snap.updated_at, snap.number))
                if comments_missing(node):
                    more_comments.add(snap.number)
        # Two selections interleave: merge each batch by age so neither starves.
        for _, number in sorted(batch):
            verdict = judge(seen[number])
            {"plan": take, "defer": deferred, "skip": skipped}[verdict].append(number)
        if len(take) >= budget:
            break
    chosen = (take + deferred)[:budget]
    chosen_set = set(chosen)
    chosen.sort(key=lambda n: (n not in take, seen[n].updated_at, n))
    selected = []
    for number in chosen:
        snap = seen[number]
        if number in more_comments:
            snap = with_more_comments(client, snap)
        selected.append(snap)
    return QueueScan(
        selected=tuple(selected),
        skipped=tuple(seen[n] for n in skipped if n not in chosen_set),
        total=total,
        exhausted=not open_queries,
    )
