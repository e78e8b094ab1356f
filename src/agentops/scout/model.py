"""Records of the scout report: what the analyses read (``Inputs``), what the report
holds (``Item``, ``Todo``, ``Report``).

Pure records, no I/O.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from agentops.scout.config import Target
from agentops.scout.gitrepo import Commit, Tree
from agentops.scout.installed import PackageIndex, UpstreamSource
from agentops.scout.livedata import LiveData

KINDS = ("action", "carried", "opportunity", "fyi", "docs", "all_clear")
PRIORITIES = ("P0", "P1", "P2")
SEVERITIES = ("blocking", "should-fix", "nice-to-have")
# Severity decides priority for debt items: one scale, two names (S-4 / S-7).
PRIORITY_OF = {"blocking": "P0", "should-fix": "P1", "nice-to-have": "P2"}


def stable_id(*parts: str) -> str:
    """A short id from the identity of a finding (never from a line number, so a
    finding that moves keeps its id)."""
    norm = "\x1f".join(re.sub(r"\s+", " ", p.strip()) for p in parts)
    return hashlib.sha1(norm.encode()).hexdigest()[:12]  # noqa: S324 - identity, not security


@dataclass(frozen=True)
class Baseline:
    """The since-date of S-1 and where it came from (S-0a)."""

    since: str
    source: str  # "--since" | "prior report" | "prior report head" | "first run"
    commit: str | None  # last commit before ``since`` (None: history starts later)


@dataclass(frozen=True)
class PriorPayload:
    """The machine-readable part of one earlier report."""

    date: str
    head: str = ""  # the commit the prior report analysed (exact baseline when known)
    items: tuple[dict[str, Any], ...] = ()
    todos: tuple[dict[str, Any], ...] = ()
    suppressed: tuple[str, ...] = ()  # "id:fingerprint" of FYIs dropped as unchanged


@dataclass(frozen=True)
class Inputs:
    """Everything the pure analyses read."""

    target: Target
    date: str
    baseline: Baseline
    head: Tree
    base: Tree | None
    commits: tuple[Commit, ...]
    live: LiveData
    priors: tuple[PriorPayload, ...] = ()  # oldest first
    # path -> ((sha, text at sha), ...) oldest first, for the commits since the baseline
    # that touched a fragile file: which commit made a change, not just touched the file.
    history: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict, hash=False,
                                                            compare=False)
    torch: PackageIndex | None = None  # the installed torch, when there is one
    # Configured upstreams outside the repository (``upstreams:``), by name.
    upstreams: dict[str, UpstreamSource] = field(default_factory=dict, hash=False,
                                                 compare=False)
    # sha -> every file the commit changed (the window's commits; ``commits`` lists only
    # their watched files): a sub-project file changed in the same commit was migrated.
    commit_files: dict[str, tuple[str, ...]] = field(default_factory=dict, hash=False,
                                                     compare=False)


# How many facts of an action item (and how many characters of each) the hidden block
# keeps for the next run: enough for a folder's uncollected test files, one fact each
# (#22), bounded so the comment stays within its size.
MAX_FACTS = 32
FACT_CHARS = 60


@dataclass(frozen=True)
class Item:
    """One line of the report, with a stable identity across runs (S-7)."""

    id: str
    section: str  # S-1 … S-6
    kind: str  # one of KINDS
    title: str
    why: str = ""
    where: str = ""
    priority: str = ""
    severity: str = ""
    files: tuple[str, ...] = ()
    fingerprint: str = ""  # changes when the finding's substance changes
    first_reported: str = ""
    status: str = ""  # carried items: the re-investigation result
    fix: str = ""  # the concrete change that resolves it (action items)
    facts: tuple[str, ...] = ()  # the finding's parts (names, call sites): what changed
    # A carried action item unchanged in the three newest reports: kept (its id and
    # fingerprint, for the next run and the board) but not repeated in the visible
    # report; it is counted in one line of Carried Forward (#22, S-7).
    muted: bool = False

    def __post_init__(self) -> None:
        if self.facts and not self.fingerprint:
            object.__setattr__(self, "fingerprint", stable_id(*self.facts))
        # Sanity: a malformed item would render a report that the next run misreads.
        if self.kind not in KINDS:
            raise ValueError(f"item kind {self.kind!r} not in {KINDS}")
        if self.priority and self.priority not in PRIORITIES:
            raise ValueError(f"priority {self.priority!r} not in {PRIORITIES}")
        if self.severity and self.severity not in SEVERITIES:
            raise ValueError(f"severity {self.severity!r} not in {SEVERITIES}")

    def to_json(self) -> dict[str, Any]:
        """The JSON form (``--json`` items and the embedded block)."""
        return {"id": self.id, "section": self.section, "kind": self.kind,
                "priority": self.priority, "severity": self.severity, "title": self.title,
                "why": self.why, "where": self.where, "files": list(self.files),
                "fingerprint": self.fingerprint, "first_reported": self.first_reported,
                "status": self.status, "fix": self.fix, "facts": list(self.facts),
                "muted": self.muted}


@dataclass(frozen=True)
class Report:
    """The whole report: items by section, the analyses' results, and what the next
    run needs (todo ids, suppressed FYIs)."""

    date: str
    target: str
    baseline: Baseline
    head: str
    items: tuple[Item, ...]
    resolved: tuple[Item, ...]
    suppressed: tuple[str, ...]
    analyses: dict[str, Any] = field(hash=False, compare=False)
    ci_lines: tuple[str, ...] = ()
    provenance: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    quiet: dict[str, int] = field(default_factory=dict, hash=False, compare=False)  # kind
    # -> how many items of that kind were dropped as unchanged (suppressed)
