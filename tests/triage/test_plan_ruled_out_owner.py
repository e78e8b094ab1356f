"""Step 1 of agentops.triage.plan (T-11; docs/triage.md, the step-1 subject rules and the
second hand batch): a component the report rules out for the failure ("the same happens
without DDP, on one GPU") is where the failure was seen once the report names another
owner, even with no compiler or build error in sight; a component it does not rule out
stays the subject. Pins the owner-only branch of step 1's ruled-out rule, which the
seed-36 mutation pass (#26) showed no test decided alone. Issues written for this file."""

from __future__ import annotations

import pytest

from tests.triage.plankit import make_issue, plan_ok


@pytest.mark.parametrize(("component", "error"), [
    ("DDP", "The first convolution raises a cuDNN error."),
    ("FSDP", "The first convolution raises a cuDNN error."),
])
def test_a_ruled_out_component_beside_another_owners_error_is_not_distributed(
        queue, component, error):
    snap = make_issue("cuDNN error at the first conv",
                      f"We train with {component}. {error} The same happens without "
                      f"{component}, on one GPU.\n")
    plan = plan_ok(snap, queue)
    assert plan.decision == "not_distributed", plan.reasoning


def test_the_same_component_not_ruled_out_keeps_the_issue_distributed(queue):
    # The contrast: the report says the error needs DDP, so DDP is the subject.
    snap = make_issue("cuDNN error at the first conv",
                      "We train with DDP. The first convolution raises a cuDNN error. It "
                      "works on one GPU and fails only with DDP.\n")
    plan = plan_ok(snap, queue)
    assert plan.decision != "not_distributed", plan.reasoning
