"""Step 1 of agentops.triage.plan (T-10, issue #23): a title led by another owner's tag
("Inductor: …", "[inductor] …") is filed against that owner; the collective named after
the tag says what that owner's pass did, not which team owns the bug. Issues written
for this file."""

from __future__ import annotations

import pytest

from tests.triage.plankit import fence, make_issue, plan_ok

_COMPILE = fence("out = torch.compile(model)(inp)")


@pytest.mark.parametrize(("title", "body"), [
    ("Inductor: allreduce fusion pass emits buffers in the wrong order",
     "With torch.compile the fused all_reduce buffers come out reordered.\n" + _COMPILE),
    ("[inductor] all_gather bucketing pass produces a wrong shape",
     "The bucketing pass in inductor gives a wrong shape.\n" + _COMPILE),
])
def test_a_collective_after_the_compilers_tag_is_what_its_pass_did(queue, title, body):
    plan = plan_ok(make_issue(title, body), queue)
    assert plan.decision == "not_distributed", plan.reasoning
    assert not any(lb.startswith("oncall:") for lb in plan.add_labels)
