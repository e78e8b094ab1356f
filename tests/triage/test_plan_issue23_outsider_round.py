"""Fixes from the outsider round (issue #23, tests/triage/data/outsider_cases.yaml): each
rule has a case it decides and one it leaves alone, on made-up issues."""

from __future__ import annotations

from agentops.triage.model import Comment, Queue
from agentops.triage.similar import equivalent
from tests.triage.plankit import make_issue, plan_ok

FSDP_MODEL = "```python\nfully_shard(block, mesh=mesh)\nfully_shard(model, mesh=mesh)\n```\n"


def test_dtensor_error_quoted_in_prose_keeps_dtensor_under_fsdp(queue: Queue) -> None:
    # T-13: an FSDP2 issue that hits a DTensor error gets both, also when the error is
    # quoted in a sentence rather than pasted as a trace.
    plan = plan_ok(make_issue(
        "fully_shard model fails in the loss scaling step",
        "After sharding, scaling the loss raises \"Sharding propagation failed for "
        "aten.mul\" on every rank.\n" + FSDP_MODEL), queue)
    assert {"module: fsdp", "module: dtensor"} <= set(plan.add_labels)


def test_dtensor_named_in_passing_stays_under_fsdp(queue: Queue) -> None:
    plan = plan_ok(make_issue(
        "fully_shard model fails in the loss scaling step",
        "After sharding, scaling the loss raises a dtype error on every rank; the params "
        "are DTensors, which may or may not matter.\n" + FSDP_MODEL), queue)
    assert "module: fsdp" in plan.add_labels
    assert "module: dtensor" not in plan.add_labels


def _bot(body: str) -> Comment:
    return Comment(id=7, author="helper-bot", body=body, author_type="Bot")


def test_not_distributed_notice_in_other_words_is_not_posted_twice(queue: Queue) -> None:
    # T-26: a bot's earlier notice that says the same in other words counts.
    template = queue.templates["not_distributed"]
    for said in ("This seems unrelated to distributed training; the oncall will pass it "
                 "to the appropriate team.",
                 "We are not the right team for this one, a human will route it."):
        assert equivalent(_bot(said), template), said
    assert not equivalent(_bot("Thanks, the NCCL team will have a look at the hang on "
                               "rank 3."), template)


def test_not_distributed_plan_skips_the_comment_after_an_equivalent_one(queue: Queue) -> None:
    issue = make_issue(
        "conv2d backward is slow with channels_last on one GPU",
        "Single process benchmark on one GPU:\n```python\nx = torch.randn(8, 3, 64, 64)\n```\n",
        comments=[_bot("Looks unrelated to the distributed stack; a human will hand it "
                       "to the right team.")])
    plan = plan_ok(issue, queue)
    assert plan.decision == "not_distributed" and plan.comments == ()
    fresh = plan_ok(make_issue(issue.title, issue.body), queue)
    assert fresh.comments == ("not_distributed",)


def test_one_op_on_an_xpu_device_is_not_distributed(queue: Queue) -> None:
    plan = plan_ok(make_issue(
        "cumsum returns zeros for long rows on the xpu device",
        "One Intel GPU, no distributed code.\n```python\n"
        "torch.ones(100000, device=\"xpu\").cumsum(0)\n```\n"), queue)
    assert plan.decision == "not_distributed"


def test_a_collective_on_xpu_stays_distributed(queue: Queue) -> None:
    plan = plan_ok(make_issue(
        "all_reduce with the xccl backend returns zeros on Intel GPUs",
        "Two ranks under torchrun.\n```python\ndist.init_process_group(\"xccl\")\n"
        "t = torch.ones(4, device=\"xpu\"); dist.all_reduce(t)\n```\n"), queue)
    assert plan.decision != "not_distributed"


def test_component_the_report_rules_out_is_context_also_in_the_title(queue: Queue) -> None:
    # The title says where it was first seen ("… under FSDP"); the body says the failure
    # happens without that component and the compiler raised it: not distributed.
    plan = plan_ok(make_issue(
        "inductor lowering error for a scatter_add kernel, first hit under FSDP",
        "The same failure happens without FSDP in a plain script on one GPU, so the wrapper "
        "plays no part. The inductor lowering fails for scatter_add with a dtype assertion."),
        queue)
    assert plan.decision == "not_distributed"


def test_component_in_the_title_not_ruled_out_stays(queue: Queue) -> None:
    plan = plan_ok(make_issue(
        "inductor lowering error for a scatter_add kernel, first hit under FSDP",
        "It only fails when the model is wrapped with FSDP; unwrapped it compiles fine. "
        "The inductor lowering fails for scatter_add with a dtype assertion."), queue)
    assert plan.decision != "not_distributed"
