"""What the scout reads through the GitHub API, as plain records (S-0a, S-0b, S-2 PR
states, S-3a CI, S-6 open work). ``collect.py`` fills a ``LiveData`` (adapter side);
the pure analyses and the renderer only read it. With ``--offline`` every field is
``None`` and the sections that need it say ``skipped — offline``.

Pure records, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PriorReport:
    """One earlier report comment on the tracking issue (S-0a)."""

    date: str  # YYYY-MM-DD of the report
    markdown: str  # the comment body as posted (carries the embedded block)
    url: str = ""  # html_url of the comment
    comment_id: int = 0
    author: str = ""  # the comment's user.login
    # Written by the token's own account. Only those are priors: anyone can post a
    # comment with the heading and a forged hidden block (docs/security.md).
    own: bool = True
    why: str = ""  # why it is not ours (another author, or its provenance)


@dataclass(frozen=True)
class BoardItem:
    """A Projects v2 item that came from an earlier report (S-0b)."""

    item_id: str
    title: str
    body: str
    status: str  # Backlog | Ready | In Progress | Need Review | Done | Abort | ""
    url: str = ""
    content_type: str = ""  # DraftIssue | Issue | PullRequest
    content_id: str = ""  # node id of the content (a draft's body is edited through it)


@dataclass(frozen=True)
class PullState:
    """State of a PR referenced by a TODO (S-2) or touching the sub-project (S-6)."""

    repo: str
    number: int
    state: str  # open | closed
    merged_at: str | None = None
    title: str = ""
    updated_at: str = ""
    url: str = ""


@dataclass(frozen=True)
class FailedTest:
    """One failing test found in a job log (S-3a)."""

    name: str
    exception: str = ""  # "RuntimeError: message"
    source_lines: tuple[str, ...] = ()  # traceback lines pointing into the sub-project
    # The ``Command:`` line as logged: outside text, shown inert, never run (S-3c).
    logged_command: str = ""
    # The repro the scout proposes: only ever the target's template filled with checked
    # values (``trusted_repro``); empty when it refused, with the reason.
    command: str = ""
    command_refused: str = ""


@dataclass(frozen=True)
class WorkflowHealth:
    """The latest scheduled runs of one configured workflow on main (S-3a)."""

    workflow: str
    latest_conclusion: str  # success | failure | cancelled | …
    latest_url: str = ""
    last_success_url: str | None = None
    last_success_torch: str | None = None  # torch version from "Successfully installed"
    failing_torch: str | None = None
    failed_tests: tuple[FailedTest, ...] = ()
    root_cause: str = ""  # first non-wrapper exception of the failed jobs' logs
    source_lines: tuple[str, ...] = ()  # its traceback frames inside the sub-project
    failed_jobs: tuple[str, ...] = ()  # names of the failed jobs of the latest run
    recent_runs: int = 0  # completed scheduled runs looked at (at most 5)
    recent_failures: int = 0  # how many of those did not succeed


@dataclass(frozen=True)
class OpenWork:
    """S-6: open PRs waiting for review, recent merges, stale issues."""

    waiting_prs: tuple[PullState, ...] = ()
    merged_recently: tuple[PullState, ...] = ()
    stale_issues: tuple[PullState, ...] = ()


@dataclass(frozen=True)
class LiveData:
    """Everything the API gave; ``None`` for a part that was skipped, with the reason."""

    prior_reports: tuple[PriorReport, ...] | None = None  # the token's own comments only
    ignored_reports: tuple[PriorReport, ...] = ()  # report-like comments by anyone else
    board_items: tuple[BoardItem, ...] | None = None
    pulls: dict[str, PullState] | None = None  # key "owner/name#N"
    ci: tuple[WorkflowHealth, ...] | None = None
    open_work: OpenWork | None = None
    skipped: dict[str, str] = field(default_factory=dict)  # part -> reason
