"""Records of the triage skill: the issue snapshot the planner reads, the queue's data
(labels, templates), and the Plan it returns (T-30).

Pure: no I/O. A Plan checks its own shape on construction; the applier checks it again
against the live issue before the first write (T-20 … T-28).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

DECISIONS = (
    "already_classified",
    "not_distributed",
    "route",
    "classify",
    "low_confidence",
    "high_priority",
    "needs_reproduction",
)
Decision = Literal[
    "already_classified", "not_distributed", "route", "classify", "low_confidence",
    "high_priority", "needs_reproduction",
]
Confidence = Literal["high", "medium", "low"]
WHERE = ("title", "body", "code", "traceback", "comment", "labels", "rule")
# "labels": evidence is a label already on the issue; "rule": a step of the spec decided
# it (e.g. T-24 adds the marker to every handled issue), not a text signal.

# Sanity: bounds on what one plan may ask for; a plan past them is a planner bug.
# A rubric layer's `keep_if` value beside the places: the layered module is named in
# the title before every module it sits under (the title's subject, issue #23).
TITLE_LEAD = "title_lead"
MAX_LABELS_PER_PLAN = 12
MAX_COMMENTS_PER_PLAN = 1


@dataclass(frozen=True)
class Comment:
    """One issue comment as the planner and applier see it."""

    id: int
    author: str
    body: str
    author_type: str = "User"  # "User" | "Bot" (GitHub's user.type)
    author_association: str = "NONE"  # OWNER | MEMBER | COLLABORATOR | CONTRIBUTOR | NONE …
    created_at: str = ""
    # Security: written by the workflow token's shared account (github-actions[bot]) but
    # not provably by the triage workflow (agentops.github.provenance): another workflow
    # may have posted user text. Read as an ordinary person's comment, never as a bot's.
    unproven: bool = False

    @property
    def is_bot(self) -> bool:
        if self.unproven:
            return False
        return self.author_type == "Bot" or self.author.endswith("[bot]")

    @property
    def is_maintainer(self) -> bool:
        return self.author_association in ("OWNER", "MEMBER", "COLLABORATOR")

    @classmethod
    def from_rest(cls, obj: Mapping[str, Any]) -> Comment:
        user = obj.get("user") or {}
        return cls(
            id=int(obj.get("id") or 0),
            author=str(user.get("login") or ""),
            author_type=str(user.get("type") or "User"),
            author_association=str(obj.get("author_association") or "NONE"),
            body=str(obj.get("body") or ""),
            created_at=str(obj.get("created_at") or ""),
        )

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "author": self.author, "author_type": self.author_type,
                "author_association": self.author_association, "body": self.body,
                "created_at": self.created_at}


@dataclass(frozen=True)
class IssueSnapshot:
    """Everything the planner may look at, read once (style practice 3)."""

    repo: str
    number: int
    title: str
    body: str
    labels: tuple[str, ...]
    comments: tuple[Comment, ...] = ()
    state: str = "open"
    author: str = ""
    is_pull_request: bool = False
    updated_at: str = ""
    url: str = ""
    locked: bool = False  # a locked issue takes labels but no comment from the bot
    # The comment-read cap cut the thread: an equivalent request may be among the unread
    # comments, so the bot posts none (T-26; #12).
    comments_truncated: bool = False

    @classmethod
    def from_rest(cls, issue: Mapping[str, Any], comments: Sequence[Mapping[str, Any]] = (),
                  *, repo: str | None = None) -> IssueSnapshot:
        """From a GitHub REST issue object and its REST comment objects."""
        if repo is None:
            # repository_url: https://api.github.com/repos/OWNER/NAME
            url = str(issue.get("repository_url") or "")
            repo = "/".join(url.rstrip("/").split("/")[-2:]) if "/repos/" in url else ""
        labels = []
        for label in issue.get("labels") or []:
            labels.append(str(label.get("name") if isinstance(label, Mapping) else label))
        return cls(
            repo=repo,
            number=int(issue.get("number") or 0),
            title=str(issue.get("title") or ""),
            body=str(issue.get("body") or ""),
            labels=tuple(labels),
            comments=tuple(Comment.from_rest(c) for c in comments),
            state=str(issue.get("state") or "open"),
            author=str((issue.get("user") or {}).get("login") or ""),
            is_pull_request="pull_request" in issue,
            updated_at=str(issue.get("updated_at") or ""),
            url=str(issue.get("html_url") or ""),
            locked=bool(issue.get("locked")),
            comments_truncated=issue.get("comments_truncated") is True,
        )

    def to_json(self) -> dict[str, Any]:
        return {"repo": self.repo, "number": self.number, "title": self.title, "body": self.body,
                "labels": list(self.labels), "comments": [c.to_json() for c in self.comments],
                "state": self.state, "author": self.author,
                "is_pull_request": self.is_pull_request, "updated_at": self.updated_at,
                "url": self.url, "locked": self.locked,
                "comments_truncated": self.comments_truncated}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> IssueSnapshot:
        return cls(
            repo=str(obj["repo"]), number=int(obj["number"]), title=str(obj["title"]),
            body=str(obj.get("body") or ""), labels=tuple(obj.get("labels") or ()),
            comments=tuple(Comment(**c) for c in obj.get("comments") or ()),
            state=str(obj.get("state") or "open"), author=str(obj.get("author") or ""),
            is_pull_request=bool(obj.get("is_pull_request")),
            updated_at=str(obj.get("updated_at") or ""), url=str(obj.get("url") or ""),
            locked=bool(obj.get("locked")),
            comments_truncated=bool(obj.get("comments_truncated")),
        )


@dataclass(frozen=True)
class Template:
    """A comment template: current body plus earlier versions (for T-26 duplicate checks)."""

    name: str
    version: int
    body: str
    earlier: tuple[tuple[int, str], ...] = ()  # (version, body), oldest first
    # Regexes (case-insensitive) that recognise the same request written by a person
    # or another bot in other words (T-26).
    intent_patterns: tuple[str, ...] = ()

    def bodies(self) -> tuple[str, ...]:
        """Every version's body, current first."""
        return (self.body, *(b for _, b in reversed(self.earlier)))

    def marker(self) -> str:
        """The hidden marker posted with every comment (T-26)."""
        return f"<!-- agentops:triage template={self.name} version={self.version} -->"


@dataclass(frozen=True)
class Selective:
    """Selective triage (labels.json ``config.confidence``): per-label evidence
    thresholds below which the bot does not act on a label by itself. A module below
    its threshold is not added; a sub-oncall below its threshold is still routed (every
    handled issue gets one), but the issue is flagged for review instead of ``triaged``.
    The thresholds are fitted on labelled issues for ``target_precision``
    (benchmarks/triage_kfold.py); ``default`` covers labels without enough data."""

    target_precision: float = 0.95
    default: float = 0.0
    thresholds: Mapping[str, float] = field(default_factory=dict)
    fitted_on: str = ""

    def threshold(self, label: str) -> float:
        return float(self.thresholds.get(label, self.default))


@dataclass(frozen=True)
class Queue:
    """One triage queue's data (``queues/<name>/``): who may be labelled with what."""

    name: str
    trigger_label: str  # e.g. "oncall: distributed"
    allowlist: frozenset[str]  # every label the bot may add (T-21)
    suboncalls: tuple[str, ...]  # routing labels; at most one on an issue (T-22)
    modules: tuple[str, ...]  # allowlisted "module: …" labels
    marker_label: str  # "bot-triaged" (configurable: "ptd-bot-triaged")
    triaged_label: str
    review_label: str  # "triage review"
    needs_repro_label: str
    type_labels: tuple[str, ...]  # "feature", "enhancement"
    keep_labels: tuple[str, ...]  # labels the bot must never drop, e.g. "oncall: pt2"
    templates: Mapping[str, Template]
    provenance: tuple[Mapping[str, str], ...] = ()
    # Added for the planner (defaults keep older constructors working):
    rubric: Any = None  # agentops.triage.signals.Rubric, compiled once per queue
    module_suboncall: Mapping[str, str] = field(default_factory=dict)  # module -> sub-oncall
    feature_label: str = ""
    enhancement_label: str = ""
    performance_label: str = ""
    label_keywords: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # baseline
    modules_after_route: bool = False  # also classify modules after an infra/ckpt route
    confidence: Selective = field(default_factory=Selective)

    def awaits_humans(self, labels: Iterable[str]) -> bool:
        """T-15: the review label without the marker is the high-priority path's end
        state (or a person's request for review): the bot adds and asks nothing more."""
        have = {lb.casefold() for lb in labels}
        return self.review_label.casefold() in have and self.marker_label.casefold() not in have


@dataclass(frozen=True)
class Evidence:
    """Why a label is in the plan: which rubric signal fired, and where."""

    label: str
    signal: str
    where: str  # one of WHERE
    excerpt: str = ""
    # Which step of the planner weighed it ("1" … "6", issue #23), and for step 1 which
    # way it pointed: "for" (distributed) or "against" (not distributed).
    step: str = ""
    stance: str = ""

    def to_json(self) -> dict[str, str]:
        out = {"label": self.label, "signal": self.signal, "where": self.where}
        if self.excerpt:
            out["excerpt"] = self.excerpt
        if self.step:
            out["step"] = self.step
        if self.stance:
            out["stance"] = self.stance
        return out


@dataclass(frozen=True)
class Plan:
    """What triage wants done to one issue (T-30). Add-only by construction."""

    repo: str
    issue: int
    decision: str
    add_labels: tuple[str, ...]
    comments: tuple[str, ...] = ()  # template names
    confidence: str | None = None
    evidence: tuple[Evidence, ...] = ()
    reasoning: str = ""
    queue: str = ""
    awaiting_humans: bool = False  # the high-priority path: humans must look
    provenance: tuple[Mapping[str, str], ...] = field(default=(), compare=False)
    # Evidence score of each label the planner weighed (modules, the sub-oncall), added
    # or not: what the selective thresholds compare, and what they are fitted on (the
    # corroborated score, plan.confidence_score).
    scores: Mapping[str, float] = field(default_factory=dict, compare=False)
    # The same labels' plain evidence (each hit once, at its best place): what module
    # choice, routing and the high/medium confidence read (issue #23). Carried by name so
    # no reader takes one score for the other.
    plain_scores: Mapping[str, float] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        # Sanity: structural invariants; the allowlist and live-state checks are the
        # applier's (it knows the queue and the issue's current labels).
        if self.decision not in DECISIONS:
            raise ValueError(f"Plan.decision: {self.decision!r} is not one of {DECISIONS}")
        if len(set(self.add_labels)) != len(self.add_labels):
            raise ValueError(f"Plan.add_labels: duplicates in {self.add_labels}")
        if len(self.add_labels) > MAX_LABELS_PER_PLAN:
            raise ValueError(f"Plan.add_labels: {len(self.add_labels)} labels, over the cap")
        if len(self.comments) > MAX_COMMENTS_PER_PLAN:
            raise ValueError(f"Plan.comments: at most {MAX_COMMENTS_PER_PLAN} per run (T-28)")
        if self.confidence not in (None, "high", "medium", "low"):
            raise ValueError(f"Plan.confidence: {self.confidence!r}")
        for ev in self.evidence:
            if ev.where not in WHERE:
                raise ValueError(f"Plan.evidence: where={ev.where!r} not in {WHERE}")

    def to_json(self) -> dict[str, Any]:
        """The T-30 plan object (plus repo, queue and provenance)."""
        return {
            "repo": self.repo,
            "issue": self.issue,
            "decision": self.decision,
            "add_labels": list(self.add_labels),
            "comments": list(self.comments),
            "confidence": self.confidence,
            "evidence": [e.to_json() for e in self.evidence],
            "reasoning": self.reasoning,
            "queue": self.queue,
            "awaiting_humans": self.awaiting_humans,
            "data": [dict(p) for p in self.provenance],
            "scores": {k: round(v, 3) for k, v in sorted(self.scores.items())},
            "plain_scores": {k: round(v, 3) for k, v in sorted(self.plain_scores.items())},
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Plan:
        return cls(
            repo=str(obj.get("repo") or ""), issue=int(obj["issue"]),
            decision=str(obj["decision"]), add_labels=tuple(obj.get("add_labels") or ()),
            comments=tuple(obj.get("comments") or ()), confidence=obj.get("confidence"),
            evidence=tuple(Evidence(**e) for e in obj.get("evidence") or ()),
            reasoning=str(obj.get("reasoning") or ""), queue=str(obj.get("queue") or ""),
            awaiting_humans=bool(obj.get("awaiting_humans")),
            provenance=tuple(obj.get("data") or ()),
            scores=_scores(obj.get("scores")),
            plain_scores=_scores(obj.get("plain_scores")),
        )


def _scores(value: Any) -> dict[str, float]:
    return {str(k): float(v) for k, v in _mapping(value).items()
            if isinstance(v, (int, float)) and not isinstance(v, bool)}


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
