"""The constraint checker on its own (#26 item 1): for each rule of T-15 and T-20 … T-28
a plan that breaks that rule alone, and the exact violation it must produce; plans that
break none; and the near misses each check must not flag.

``violations()`` is the oracle of the planner tests and of the evaluation's
"0 violations", so a check that silently stops checking must fail here. Plans are built
by hand (never through the planner) against a queue built in code (tests/triage/livekit).
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from agentops.triage.constraints import violations
from agentops.triage.model import Plan
from tests.triage.livekit import CKPT, INFRA, PAR, TRIGGER, make_queue

Q = make_queue()
REPRO = "needs_distributed_reproduction"


def plan(labels: tuple[str, ...], decision: str = "classify", comments: tuple[str, ...] = ()
         ) -> Plan:
    return Plan(repo="o/r", issue=7, decision=decision, add_labels=labels, comments=comments,
                confidence="high", queue="distributed")


# --- plans that break nothing ----------------------------------------------------------------

@pytest.mark.parametrize(("labels", "decision", "comments", "existing"), [
    ((PAR, "module: fsdp", "bot-triaged", "triaged"), "classify", (), (TRIGGER,)),
    ((INFRA, "bot-triaged", "triaged"), "route", (), (TRIGGER,)),
    ((INFRA, "module: c10d", "triage review"), "high_priority", (), (TRIGGER,)),
    # T-15 is met by a review label a person already put on the issue.
    ((INFRA, "module: c10d"), "high_priority", (), (TRIGGER, "triage review")),
    ((PAR, "needs reproduction", "bot-triaged"), "needs_reproduction", (REPRO,), (TRIGGER,)),
    (("triage review", "bot-triaged"), "not_distributed", ("not_distributed",), (TRIGGER,)),
    # The marker already on the issue counts for T-24; adding nothing is no violation.
    ((), "already_classified", (), (TRIGGER, PAR, "module: fsdp", "bot-triaged")),
    # An existing sub-oncall joined by module labels only (T-22 counts new sub-oncalls).
    (("module: fsdp", "bot-triaged", "triaged"), "classify", (), (TRIGGER, PAR)),
    # Two sub-oncalls a person set, and a plan that adds none: not this run's doing.
    (("bot-triaged",), "classify", (), (TRIGGER, PAR, INFRA)),
    # Modules without a sub-oncall in the plan: T-25 has nothing to order.
    (("module: fsdp", "module: dtensor", "bot-triaged", "triaged"), "classify", (),
     (TRIGGER, PAR)),
], ids=["classify", "route", "high-priority", "high-priority-review-present",
        "needs-repro-with-comment", "not-distributed", "nothing-to-add", "existing-sub",
        "human-set-two-subs", "modules-only"])
def test_a_plan_within_every_rule_has_no_violation(labels, decision, comments, existing):
    assert violations(plan(labels, decision, comments), existing, Q) == []


# --- each rule broken alone ------------------------------------------------------------------

def test_t15_high_priority_without_the_review_label():
    p = plan((INFRA, "module: c10d"), "high_priority")
    assert violations(p, [TRIGGER], Q) == ["T-15: high priority without 'triage review'"]


@pytest.mark.parametrize(("request_name", "value"), [
    ("remove_labels", ("oncall: pt2",)), ("close", True), ("lock", True),
    ("assignees", ("someone",)), ("state", "closed")])
def test_t20_a_plan_that_asks_for_anything_but_adding(request_name, value):
    # ``Plan`` cannot carry these; a plan-like object from elsewhere can, and the checker
    # must name it rather than judge only the labels.
    p = SimpleNamespace(add_labels=(PAR, "module: fsdp", "bot-triaged", "triaged"),
                        comments=(), decision="classify", **{request_name: value})
    assert violations(p, [TRIGGER], Q) == [  # type: ignore[arg-type]
        f"T-20: the plan asks for {request_name!r}; triage only adds labels and comments"]


def test_t20_empty_requests_are_not_violations():
    p = SimpleNamespace(add_labels=(PAR, "module: fsdp", "bot-triaged", "triaged"),
                        comments=(), decision="classify", remove_labels=(), close=False)
    assert violations(p, [TRIGGER], Q) == []  # type: ignore[arg-type]


def test_t21_a_label_outside_the_allowlist():
    p = plan((PAR, "module: fsdp", "high priority", "bot-triaged", "triaged"))
    assert violations(p, [TRIGGER], Q) == [
        "T-21: 'high priority' is not in the queue's labels.json"]


def test_t22_a_second_suboncall_next_to_an_existing_one():
    p = plan((PAR, "module: fsdp", "bot-triaged", "triaged"))
    assert violations(p, [TRIGGER, INFRA], Q) == [
        f"T-22: more than one sub-oncall after the run: [{PAR!r}, {INFRA!r}]"]


def test_t22_two_suboncalls_in_one_plan():
    p = plan((INFRA, CKPT, "bot-triaged", "triaged"), "route")
    assert violations(p, [TRIGGER], Q) == [
        f"T-22: more than one sub-oncall after the run: [{INFRA!r}, {CKPT!r}]"]


@pytest.mark.parametrize(("labels", "existing", "blocker"), [
    ((PAR, "module: fsdp", "needs reproduction", "bot-triaged", "triaged"), (TRIGGER,),
     "needs reproduction"),
    ((PAR, "module: fsdp", "triage review", "bot-triaged", "triaged"), (TRIGGER,),
     "triage review"),
    # The blocker may already be on the issue (a person asked for a repro).
    ((PAR, "module: fsdp", "bot-triaged", "triaged"), (TRIGGER, "needs reproduction"),
     "needs reproduction"),
])
def test_t23_triaged_with_a_blocker(labels, existing, blocker):
    assert violations(plan(labels), existing, Q) == [f"T-23: 'triaged' with [{blocker!r}]"]


def test_t23_triaged_on_the_high_priority_path():
    # With the review label present the blocker is named; T-15 holds, so T-23 is alone.
    p = plan((INFRA, "module: c10d", "triage review", "triaged"), "high_priority")
    assert violations(p, [TRIGGER], Q) == ["T-23: 'triaged' with ['triage review']"]
    # Without it the high-priority path itself is the reason (T-15 breaks too).
    p = plan((INFRA, "module: c10d", "triaged"), "high_priority")
    assert violations(p, [TRIGGER], Q) == ["T-23: 'triaged' with high priority",
                                           "T-15: high priority without 'triage review'"]


def test_t24_a_handled_issue_without_the_marker():
    p = plan((PAR, "module: fsdp", "triaged"))
    assert violations(p, [TRIGGER], Q) == ["T-24: handled issue without 'bot-triaged'"]


def test_t24_the_marker_on_the_high_priority_path():
    p = plan((INFRA, "module: c10d", "triage review", "bot-triaged"), "high_priority")
    assert violations(p, [TRIGGER], Q) == ["T-24: 'bot-triaged' on the high-priority path"]


def test_t24_a_configured_marker_is_the_one_checked():
    q = make_queue(marker="ptd-bot-triaged")
    assert violations(plan((PAR, "module: fsdp", "ptd-bot-triaged", "triaged")), [TRIGGER],
                      q) == []
    assert violations(plan((PAR, "module: fsdp", "triaged")), [TRIGGER, "bot-triaged"], q) == [
        "T-24: handled issue without 'ptd-bot-triaged'"]


def test_t25_a_module_label_before_the_suboncall():
    p = plan(("module: fsdp", PAR, "bot-triaged", "triaged"))
    assert violations(p, [TRIGGER], Q) == ["T-25: a module label comes before the sub-oncall"]
    # Any module ahead of the sub-oncall counts, not only the first label.
    p = plan((PAR, "module: fsdp", "bot-triaged", "triaged"))
    assert violations(p, [TRIGGER], Q) == []
    p = plan(("bot-triaged", "module: fsdp", PAR, "triaged"))
    assert violations(p, [TRIGGER], Q) == ["T-25: a module label comes before the sub-oncall"]


def test_t26_a_comment_that_is_not_a_template():
    p = plan((PAR, "needs reproduction", "bot-triaged"), "needs_reproduction",
             ("please_share_logs",))
    assert violations(p, [TRIGGER], Q) == [
        "T-26: comment 'please_share_logs' is not a template of the queue"]


@pytest.mark.parametrize("existing", [(TRIGGER, PAR), (TRIGGER, PAR.upper())])
def test_t27_a_label_already_on_the_issue(existing):
    # Sending it again is a write on every later run: not idempotent. Label names compare
    # case-insensitively, as GitHub's do.
    p = plan((PAR, "module: fsdp", "bot-triaged", "triaged"))
    assert violations(p, existing, Q) == [f"T-27: adds {PAR!r}, already on the issue"]


def test_t28_more_than_one_comment():
    p = plan((PAR, "needs reproduction", "bot-triaged"), "needs_reproduction", (REPRO,))
    # ``Plan`` caps comments itself; the checker must not rely on that cap.
    object.__setattr__(p, "comments", (REPRO, "not_distributed"))
    assert violations(p, [TRIGGER], Q) == ["T-28: more than one comment"]


def test_every_rule_has_a_plan_that_breaks_it_alone():
    """The rule ids the tests above produce alone cover T-15 and T-20 … T-28."""
    alone = {
        "T-15": violations(plan((INFRA, "module: c10d"), "high_priority"), [TRIGGER], Q),
        "T-20": violations(SimpleNamespace(add_labels=(INFRA, "bot-triaged", "triaged"),  # type: ignore[arg-type]
                                           comments=(), decision="route", close=True),
                           [TRIGGER], Q),
        "T-21": violations(plan((INFRA, "bug", "bot-triaged"), "route"), [TRIGGER], Q),
        "T-22": violations(plan((INFRA, "bot-triaged"), "route"), [TRIGGER, CKPT], Q),
        "T-23": violations(plan((INFRA, "triage review", "bot-triaged", "triaged"), "route"),
                           [TRIGGER], Q),
        "T-24": violations(plan((INFRA, "triaged"), "route"), [TRIGGER], Q),
        "T-25": violations(plan(("module: c10d", INFRA, "bot-triaged"), "route"), [TRIGGER], Q),
        "T-26": violations(plan((INFRA, "bot-triaged"), "route", ("hello",)), [TRIGGER], Q),
        "T-27": violations(plan((INFRA, "bot-triaged"), "route"), [TRIGGER, "bot-triaged"], Q),
    }
    many = plan((INFRA, "bot-triaged"), "route", (REPRO,))
    object.__setattr__(many, "comments", (REPRO, REPRO))
    alone["T-28"] = violations(many, [TRIGGER], Q)
    assert {rule: [v.split(":")[0] for v in found] for rule, found in alone.items()} == {
        rule: [rule] for rule in alone}
