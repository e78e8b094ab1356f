"""Issue #23, confidence round: `triaged` only where the plan is sure of every part. A
title that names another owner (the compiler) beside a distributed component the report
names once keeps both subjects (spec: "torch.compile breaks with DDP" is contested), so
the plan routes and asks `triage review` instead of closing the issue with `triaged`.
Written for this file (no labelled issue's text); every plan also passes the constraint
checker."""

from __future__ import annotations

import pytest

from tests.triage.plankit import (
    PAR,
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


REASON = "another owner"

_DDP_BODY = ("With the model wrapped in DistributedDataParallel and compiled, the loss is "
             "NaN from step two.\n"
             + fence("model = torch.compile(DistributedDataParallel(net, device_ids=[rank]))\n"
                     "loss = model(x).sum()"))
_DTENSOR_BODY = ("Calling redistribute on a DTensor inside a compiled function gives a "
                 "tensor of the wrong local shape.\n"
                 + fence("out = torch.compile(fn)(dt)\nprint(out.to_local().shape)"))
_DDP_TRACE = fence(
    "Traceback (most recent call last):\n"
    '  File "train.py", line 4, in <module>\n'
    "    loss = model(x).sum()\n"
    '  File "/usr/lib/python3.11/site-packages/torch/nn/parallel/distributed.py", '
    "line 1636, in forward\n"
    "    inputs, kwargs = self._pre_forward(*inputs, **kwargs)\n"
    "RuntimeError: loss is nan", lang="")

# (title naming the compiler too, the same title without it, body, module)
CASES = [
    ("DDP model gives NaN loss after the first step with torch.compile",
     "DDP model gives NaN loss after the first step", _DDP_BODY, "module: ddp"),
    ("torch.compile: DDP model gives NaN loss after the first step",
     "DDP model gives NaN loss after the first step", _DDP_BODY, "module: ddp"),
    ("DTensor redistribute returns the wrong shape with torch.compile",
     "DTensor redistribute returns the wrong shape", _DTENSOR_BODY, "module: dtensor"),
]


@pytest.mark.parametrize("case", CASES, ids=["ddp-after", "compiler-tag", "dtensor"])
def test_another_owner_in_the_title_beside_one_mention_is_not_triaged(queue, case):
    both, plain, body, module = case
    # The same report without the compiler in its title is a sure classification: the
    # compiler word in the title, not the body or the code, is what withholds `triaged`.
    alone = plan_ok(make_issue(plain, body), queue)
    assert alone.decision == "classify" and TRIAGED in alone.add_labels, alone.reasoning
    assert REASON not in alone.reasoning

    plan = plan_ok(make_issue(both, body), queue)
    # Still distributed, routed and classified (step 1 keeps it: both are subjects) ...
    assert plan.decision == "low_confidence", plan.reasoning
    assert PAR in plan.add_labels and module in plan.add_labels, plan.reasoning
    # ... but a human decides which of the two owners is at fault.
    assert TRIAGED not in plan.add_labels and REVIEW in plan.add_labels, plan.reasoning
    assert REASON in plan.reasoning and "compiler" in plan.reasoning


def test_a_component_the_report_shows_twice_is_not_one_mention(queue):
    # The compiler in the title as above, but DDP's own frame in the trace as well as its
    # API: two signals name the component, and the plan is sure again.
    plan = plan_ok(make_issue(CASES[0][0], _DDP_BODY + _DDP_TRACE), queue)
    assert plan.decision == "classify", plan.reasoning
    assert "module: ddp" in plan.add_labels and TRIAGED in plan.add_labels, plan.reasoning
    assert REASON not in plan.reasoning



def test_a_title_that_rules_a_component_out_is_contested_not_this_rule(queue):
    # Evidence against that names no owner ("on a single process") as strong as the one
    # mention: step 1 is contested, which withholds `triaged` on its own account.
    title = "DDP model gives NaN loss after the first step in a single process"
    plan = plan_ok(make_issue(title, _DDP_BODY), queue)
    assert TRIAGED not in plan.add_labels and "contested" in plan.reasoning
    assert REASON not in plan.reasoning, plan.reasoning
