"""Fixes from the outsider round (issue #23, tests/triage/data/outsider_cases.yaml): each
rule has a case it decides and one it leaves alone, on made-up issues."""

from __future__ import annotations

from agentops.triage.model import Queue
from tests.triage.plankit import make_issue, plan_ok

FSDP_MODEL = "```python\nfully_shard(block, mesh=mesh)\nfully_shard(model, mesh=mesh)\n```\n"


def test_dtensor_error_quoted_in_prose_keeps_dtensor_under_fsdp(queue: Queue) -> None:
    # T-13: an FSDP2 issue that hits a DTensor error gets both, also when the error is
    # quoted in a sentence rather than pasted as a trace.
    plan = plan_ok(make_issue(
        "fully_shard model fails in the loss scaling step",
        "After sharding, scaling the loss raises \"aten.mul.Tensor: got mixed torch.Tensor "
        "and DTensor\" on every rank.\n" + FSDP_MODEL), queue)
    assert {"module: fsdp", "module: dtensor"} <= set(plan.add_labels)


def test_dtensor_named_in_passing_stays_under_fsdp(queue: Queue) -> None:
    plan = plan_ok(make_issue(
        "fully_shard model fails in the loss scaling step",
        "After sharding, scaling the loss raises a dtype error on every rank; the params "
        "are DTensors, which may or may not matter.\n" + FSDP_MODEL), queue)
    assert "module: fsdp" in plan.add_labels
    assert "module: dtensor" not in plan.add_labels
