"""Issue #23, step-1 round (stop 37): another team's oncall label already on the issue
(a keep label other than the trigger, `oncall: pt2`) is evidence of that team's
ownership the text need not carry. Beside a component the report names once (one
signal), the plan routes and classifies as before but asks `triage review` instead of
`triaged`; a component the report shows twice (its API and its frame), or the same
report without the label, stays `triaged`. Made-up issues only; every plan also passes
the constraint checker. Thresholds are off here (default 0), so the rule and not a
fitted threshold decides."""

from __future__ import annotations

import pytest

from tests.triage.plankit import (
    PAR,
    QUEUE_LABEL,
    REVIEW,
    TRIAGED,
    fence,
    make_issue,
    plan_ok,
    queue_with_thresholds,
)

PT2 = "oncall: pt2"


queue = queue_with_thresholds()  # every threshold off, set here: the rule decides


# Reports that name their component once (one signal each), with no compiler word: the
# label is the only sign that another team holds them.
ONCE = [
    ("DTensor redistribute from Shard(0) to Replicate gives a wrong shape",
     "The output has 4 rows instead of 16 after the call; nothing else changes.\n"
     + fence("t = distribute_tensor(torch.ones(16, 8), mesh, [Shard(0)])\n"
             "print(t.redistribute(mesh, [Replicate()]).shape)"),
     "module: dtensor"),
    ("fully_shard: parameters stay unsharded after the first step",
     "After one optimizer step the local parameters have the full size on every GPU.\n"
     + fence("fully_shard(model)\nopt.step()\nprint(model.weight.to_local().shape)"),
     "module: fsdp"),
]


@pytest.mark.parametrize("case", ONCE, ids=["dtensor", "fsdp"])
def test_another_teams_label_beside_a_component_named_once_withholds_triaged(queue, case):
    title, body, module = case
    alone = plan_ok(make_issue(title, body), queue)
    # Without the label the same report is a sure classification: the label decides.
    assert alone.decision == "classify" and TRIAGED in alone.add_labels, alone.reasoning

    plan = plan_ok(make_issue(title, body, labels=(QUEUE_LABEL, PT2)), queue)
    assert plan.decision != "not_distributed", plan.reasoning
    assert PAR in plan.add_labels and module in plan.add_labels, plan.reasoning
    assert TRIAGED not in plan.add_labels and REVIEW in plan.add_labels, plan.reasoning
    assert PT2 in plan.reasoning and "another team" in plan.reasoning.lower()


def test_a_component_shown_twice_keeps_triaged_with_the_label(queue):
    # The DDP API in the title and DDP's own frame at the top of the trace: named by two
    # signals, so the compiler team's label does not make it a guess.
    body = ("The second step raises inside DDP's reducer.\n" + fence(
        "model = DistributedDataParallel(net, static_graph=True)\n"
        "for step in (1, 2):\n    model(x).sum().backward()") + fence(
        'Traceback (most recent call last):\n'
        '  File "train.py", line 40, in <module>\n    loss = model(x).sum()\n'
        '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/parallel/distributed.py",'
        ' line 1600, in forward\n    inputs, kwargs = self._pre_forward(*inputs, **kwargs)\n'
        "RuntimeError: Expected to have finished reduction in the prior iteration", ""))
    title = "DistributedDataParallel with static_graph=True raises on the second step"
    plan = plan_ok(make_issue(title, body, labels=(QUEUE_LABEL, PT2)), queue)
    assert plan.decision == "classify", plan.reasoning
    assert "module: ddp" in plan.add_labels and TRIAGED in plan.add_labels, plan.reasoning
    assert PT2 not in plan.add_labels  # kept on the issue, never re-added


def test_the_trigger_label_alone_is_not_another_team(queue):
    # The trigger is a keep label too; it is the queue's own, never another owner.
    title, body, _ = ONCE[0]
    plan = plan_ok(make_issue(title, body, labels=(QUEUE_LABEL,)), queue)
    assert TRIAGED in plan.add_labels, plan.reasoning
    assert "another team" not in plan.reasoning.lower()
