"""Issue #23, round 5: `triaged` on a route to a team that ends triage (T-12) needs no
rival owner. Found on blind5's wrongly triaged plans once it became fit material: an
infra route from a collective and NCCL in the title over a DDP script, and a
checkpointing route from a DCP call in an FSDP-wrapped model, both with a HIGH module of
parallelisms that step 3 selected but the route's precedence set aside. Written for this
file (no labelled issue's text); every plan also passes the constraint checker."""

from __future__ import annotations

import pytest

from tests.triage.plankit import (
    CKPT,
    INFRA,
    PAR,
    QUEUE_LABEL,
    REVIEW,
    TRIAGED,
    fence,
    make_issue,
    plan_ok,
    queue_with_thresholds,
)

# The built-in queue with its selective thresholds off, set here: the rule under test,
# not a fitted threshold, decides these plans.
queue = queue_with_thresholds()



_PROSE = "On 2 GPUs the output differs on every rank and nothing is raised.\n"

_INFRA_TITLE = "reduce_scatter returns garbage with the NCCL backend"
_INFRA_PLAIN = _PROSE + fence(
    "dist.init_process_group('nccl')\nout = torch.empty(4, device='cuda')\n"
    "dist.reduce_scatter_tensor(out, torch.ones(8, device='cuda'))")
_INFRA_DDP = _PROSE + fence(
    "dist.init_process_group('nccl')\nmodel = DistributedDataParallel(net, "
    "device_ids=[rank])\nout = torch.empty(4, device='cuda')\n"
    "dist.reduce_scatter_tensor(out, torch.ones(8, device='cuda'))")

# The title names DCP: the route then clears the checkpointing threshold refitted with
# blind7 in the fit part (a DCP call in the prose alone no longer does), so the plain
# case is a confident route and only the rival can withhold `triaged`.
_CKPT_TITLE = "State dict keys keep a stale prefix after saving with DCP"
_CKPT_PLAIN = ("The saved keys still carry the wrapper's prefix when I call "
               "torch.distributed.checkpoint.save on the model's state dict.\n"
               "Steps: save, then load into a fresh model; the load fails on the keys.\n")
_CKPT_FSDP = _CKPT_PLAIN.replace(
    "on the model's state dict", "on the state dict of a model wrapped with fully_shard")


@pytest.mark.parametrize("case", [
    (_INFRA_TITLE, _INFRA_PLAIN, _INFRA_DDP, INFRA, "module: ddp"),
    (_CKPT_TITLE, _CKPT_PLAIN, _CKPT_FSDP, CKPT, "module: fsdp"),
])
def test_a_route_beside_a_rival_owners_explicit_module_is_not_triaged(queue, case):
    title, plain, rival, route, rival_module = case
    alone = plan_ok(make_issue(title, plain), queue)
    assert alone.decision == "route" and route in alone.add_labels, alone.reasoning
    assert TRIAGED in alone.add_labels, alone.reasoning
    assert "another sub-oncall" not in alone.reasoning

    plan = plan_ok(make_issue(title, rival), queue)
    # Still routed to the same team (precedence), but a human confirms the owner.
    assert plan.decision == "route" and route in plan.add_labels, plan.reasoning
    assert TRIAGED not in plan.add_labels and REVIEW in plan.add_labels, plan.reasoning
    assert "another sub-oncall" in plan.reasoning and rival_module in plan.reasoning
    # The rival is a reason to look again, never a label the route's team did not own.
    assert rival_module not in plan.add_labels


def test_a_rival_module_does_not_unsettle_a_human_route(queue):
    # A sub-oncall a human set is never second-guessed (T-12, T-22): no rival there.
    plan = plan_ok(make_issue(_INFRA_TITLE, _INFRA_DDP, labels=(QUEUE_LABEL, INFRA)), queue)
    assert plan.decision == "route" and PAR not in plan.add_labels, plan.reasoning
    assert "another sub-oncall" not in plan.reasoning, plan.reasoning
    assert TRIAGED in plan.add_labels, plan.reasoning


def test_a_route_shown_by_the_failures_own_output_has_no_rival(queue):
    # T-12's edge case: an NCCL timeout during FSDP training is infra. The watchdog's
    # log is where the failure shows itself, so FSDP in the title and body is context,
    # and the route stays a confident, complete one.
    body = ("FSDP training with fully_shard on 8 GPUs stops after a few thousand steps.\n"
            + fence("[rank5]:[E ProcessGroupNCCL.cpp:616] [Rank 5] Watchdog caught collective "
                    "operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, "
                    "Timeout(ms)=600000) ran for 600004 milliseconds before timing out.", ""))
    plan = plan_ok(make_issue("fully_shard run dies on an NCCL timeout after an hour", body),
                   queue)
    assert plan.decision == "route" and INFRA in plan.add_labels, plan.reasoning
    assert "another sub-oncall" not in plan.reasoning
    assert TRIAGED in plan.add_labels, plan.reasoning
