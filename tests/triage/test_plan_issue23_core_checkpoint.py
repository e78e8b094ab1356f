"""Issue #23, step-1 round (stop 37): where the API a report exercises comes from.
Activation checkpointing through core autograd's own API (`torch.utils.checkpoint`,
"gradient checkpointing") in a report with no distributed component, launcher, process
group or rank anywhere is autograd's (T-11: no distributed code), so it is evidence of
another owner (rubric `core_activation_checkpoint`): still routed with its module, but
`triage review`, never `triaged`. The distributed wrapper (`checkpoint_wrapper`,
`apply_activation_checkpointing`) or any distributed code beside the core API keeps the
report a sure one. Made-up issues only; thresholds off, so the rule decides."""

from __future__ import annotations

import pytest

from tests.triage.plankit import (
    PAR,
    REVIEW,
    TRIAGED,
    evidence_signals,
    fence,
    make_issue,
    plan_ok,
    queue_with_thresholds,
    with_signal_flags,
)

AC = "module: activation checkpointing"
SIGNAL = "core_activation_checkpoint"


queue = queue_with_thresholds()  # every threshold off, set here: the rule decides


_CORE_REPRO = fence(
    "from torch.utils.checkpoint import checkpoint\n"
    "net = Stack(6).cuda()\n"
    "y = checkpoint(net.blocks[0], torch.randn(4, 64, device='cuda'), use_reentrant=True)\n"
    "y.sum().backward()\nprint(net.blocks[0].weight.grad)  # None")

CORE = [
    ("Gradient checkpointing leaves the first block without gradients",
     "The first checkpointed block gets no gradient.\n" + _CORE_REPRO),
    ("Activation checkpointing leaves the first block without gradients",
     "I call torch.utils.checkpoint on each block of a small model; the first "
     "block gets no gradient.\n" + _CORE_REPRO),
]


@pytest.mark.parametrize("case", CORE, ids=["gradient-title", "prose-only"])
def test_the_core_checkpoint_api_alone_is_routed_but_not_triaged(queue, case):
    title, body = case
    plan = plan_ok(make_issue(title, body), queue)
    assert SIGNAL in evidence_signals(plan, "against"), plan.to_json()
    assert plan.decision != "not_distributed", plan.reasoning
    assert PAR in plan.add_labels and AC in plan.add_labels, plan.reasoning
    assert TRIAGED not in plan.add_labels and REVIEW in plan.add_labels, plan.reasoning


@pytest.mark.parametrize("extra", [
    "Each rank runs it under DDP launched with torchrun.\n",
    "The blocks are FSDP units; the same happens with fully_shard.\n",
])
def test_distributed_code_beside_the_core_api_keeps_it_ours(queue, extra):
    title, body = CORE[0]
    plan = plan_ok(make_issue(title, extra + body), queue)
    assert SIGNAL not in evidence_signals(plan, "against"), plan.to_json()


def test_the_distributed_wrapper_is_not_the_core_api(queue):
    body = ("The first wrapped block gets no gradient.\n" + fence(
        "from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import "
        "apply_activation_checkpointing, checkpoint_wrapper\n"
        "apply_activation_checkpointing(net, checkpoint_wrapper_fn=checkpoint_wrapper)\n"
        "net(torch.randn(4, 64, device='cuda')).sum().backward()"))
    plan = plan_ok(make_issue("apply_activation_checkpointing leaves the first block "
                              "without gradients", body), queue)
    assert SIGNAL not in evidence_signals(plan, "against"), plan.to_json()
    assert AC in plan.add_labels and TRIAGED in plan.add_labels, plan.reasoning


def test_the_prose_case_needs_the_contends_flag(queue):
    # With `contends` off on every signal, the core API named only in the prose and
    # code (not the title) no longer withholds `triaged`: the flag, not the wording,
    # carries that half of the rule.
    title, body = CORE[1]
    plan = plan_ok(make_issue(title, body), with_signal_flags(queue, contends=False))
    assert SIGNAL in evidence_signals(plan, "against")
    assert TRIAGED in plan.add_labels, plan.reasoning
