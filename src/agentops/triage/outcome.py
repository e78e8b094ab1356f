"""Records of a live triage run: what happened to each issue (for the log, the job
summary, the action outputs and the sweep's state file).

Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agentops.triage.model import Plan

Status = Literal["applied", "no-op", "dry-run", "skipped", "failed", "partial", "awaiting"]


@dataclass(frozen=True)
class Outcome:
    """One issue's row in the run's table (T-31)."""

    repo: str
    number: int
    status: Status
    title: str = ""
    url: str = ""
    decision: str = ""
    confidence: str | None = None
    labels: tuple[str, ...] = ()  # added (applied) or that would be added (dry-run)
    comment: str | None = None  # template posted, or that would be posted
    comment_skipped: str = ""  # why a planned comment was not (or would not be) posted
    adjustments: tuple[str, ...] = ()
    reason: str = ""  # why skipped / what failed
    awaiting_humans: bool = False
    plan: Plan | None = None
    exit_status: int = 0

    @property
    def failed(self) -> bool:
        return self.status in ("failed", "partial")
