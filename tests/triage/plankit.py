"""Helpers shared by the triage planner tests: hand-written issues and a plan checker."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

import pytest

from agentops.triage.constraints import violations
from agentops.triage.model import Comment, IssueSnapshot, Plan, Queue, Selective
from agentops.triage.plan import plan_issue

QUEUE_LABEL = "oncall: distributed"
PAR = "oncall: distributed parallelisms"
INFRA = "oncall: distributed infra"
CKPT = "oncall: distributed checkpointing"
# The labels a plan adds when it is sure (T-16) and when a human must look.
TRIAGED = "triaged"
REVIEW = "triage review"


def make_issue(title: str, body: str = "", labels: Sequence[str] = (QUEUE_LABEL,),
               comments: Sequence[Comment] = (), number: int = 1) -> IssueSnapshot:
    """A hand-written issue snapshot (repo example-org/example-ml)."""
    return IssueSnapshot(repo="example-org/example-ml", number=number, title=title, body=body,
                         labels=tuple(labels), comments=tuple(comments))


def plan_ok(snapshot: IssueSnapshot, queue: Queue) -> Plan:
    """Plan and assert the plan meets T-15, T-20 … T-28 (every planner test goes through here)."""
    plan = plan_issue(snapshot, queue)
    bad = violations(plan, snapshot.labels, queue)
    assert bad == [], f"constraint violations: {bad}\n{plan.to_json()}"
    return plan


def with_signal_flags(queue: Queue, **flags: bool) -> Queue:
    """``queue`` with ``flags`` set on every rubric signal (the rubric's derived sets are
    rebuilt): how a test shows that a flag, not the wording, decides a plan."""
    sigs = tuple(replace(s, **flags) for s in queue.rubric.signals)
    return replace(queue, rubric=replace(queue.rubric, signals=sigs))


def with_thresholds(queue: Queue, thresholds: Mapping[str, float] | None = None, *,
                    default: float = 0.0) -> Queue:
    """``queue`` with its selective-triage thresholds set by the test (``default`` for
    every label not in ``thresholds``; 0 switches them off) instead of read from
    labels.json: a test of a rule (a gate, a route) then checks that rule, and a refit of
    the shipped thresholds (benchmarks/triage_kfold.py --write) does not change what it
    checks (issue #23, stop 36)."""
    return replace(queue, confidence=Selective(
        target_precision=queue.confidence.target_precision, default=default,
        thresholds=dict(thresholds or {})))


def queue_with_thresholds(thresholds: Mapping[str, float] | None = None, *,
                          default: float = 0.0) -> Callable[..., Queue]:
    """A module-scoped ``queue`` fixture that overrides the session one with the
    thresholds given here (``with_thresholds``; no argument: every threshold off). A test
    file whose rule, not a fitted threshold, decides its plans assigns it by name, so the
    thresholds it runs at stay written in that file:

        queue = queue_with_thresholds()  # thresholds off, set here

    and a refit of labels.json does not change what the file checks (issue #23, stop 36).
    """
    # The override requests the conftest's ``queue``: pytest hands a fixture that asks
    # for its own name the one it overrides.
    @pytest.fixture(scope="module", name="queue")
    def queue(queue: Queue) -> Queue:
        return with_thresholds(queue, thresholds, default=default)

    return queue


def evidence_signals(plan: Plan, stance: str | None = None) -> set[str]:
    """The signals of a plan's evidence: of one stance ("for", "against") or all."""
    return {e.signal for e in plan.evidence if stance is None or e.stance == stance}


def fence(code: str, lang: str = "python") -> str:
    return f"```{lang}\n{code.strip()}\n```\n"
