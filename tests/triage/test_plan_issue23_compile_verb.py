"""Issue #23, step-1 round (stop 37): the compiler named by its verb in the title ("…
is not compiled when …", "Compiling … fails") is the compiler named (rubric
`compiler_title`), like `torch.compile` or "inductor": beside a component the report
names once, which of the two owners is at fault is a human's call, so the plan routes
and asks `triage review`. A test id (`test_compile_x`, `XCompileTest`) names a test, not
the compiler. Made-up issues only; thresholds off, so the rule decides."""

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
)

SIGNAL = "compiler_title"

_BODY = ("The op works eagerly on the sharded input.\n" + fence(
    "t = distribute_tensor(torch.ones(8, 4), mesh, [Shard(0)])\n"
    "out = step(t)\nprint(out.placements)"))


queue = queue_with_thresholds()  # every threshold off, set here: the rule decides


@pytest.mark.parametrize("title", [
    "[DTensor] slice op is not compiled when the input is a sharded DTensor",
    "Compiling a step over DTensor inputs drops the placements",
])
def test_the_compile_verb_beside_a_component_named_once_withholds_triaged(queue, title):
    plan = plan_ok(make_issue(title, _BODY), queue)
    assert SIGNAL in evidence_signals(plan, "against"), plan.to_json()
    assert plan.decision != "not_distributed", plan.reasoning
    assert PAR in plan.add_labels and "module: dtensor" in plan.add_labels, plan.reasoning
    assert TRIAGED not in plan.add_labels and REVIEW in plan.add_labels, plan.reasoning


def test_the_same_title_without_the_verb_is_triaged(queue):
    plan = plan_ok(make_issue("[DTensor] slice op drops the placements of a sharded DTensor",
                              _BODY), queue)
    assert SIGNAL not in evidence_signals(plan, "against"), plan.to_json()
    assert TRIAGED in plan.add_labels, plan.reasoning


@pytest.mark.parametrize("title", [
    "DISABLED test_compile_slice (__main__.DTensorCompileTest)",
    "DTensor slice op fails on precompiled_kernels inputs",
])
def test_a_test_id_or_an_identifier_is_not_the_verb(queue, title):
    plan = plan_ok(make_issue(title, _BODY), queue)
    assert SIGNAL not in evidence_signals(plan, "against"), plan.to_json()
