"""Issue #23, step 1 (T-11): the subsystems with owners of their own that a title can
name, completed. TorchScript and CUDA graphs join the core subsystems a title names
(``core_subsystem_title``: export, serialization, quantization, the profiler), and the
compiler's ahead-of-time path and CUDA-graph trees join the compiler's names
(``compiler_title``). A title naming one and nothing distributed is that owner's
report; a distributed component leading the title, or named beside it, still counts.

Every issue below is made up for this file; every plan also passes the constraint
checker."""

from __future__ import annotations

import pytest

from tests.triage.plankit import make_issue, plan_ok

_BODY = "It fails on the second step."


@pytest.mark.parametrize("title", [
    "TorchScript cannot script my custom layer",
    "torch.jit.trace drops a branch of the model",
    "CUDA graph replay reads a freed buffer",
    "AOTInductor package gives wrong values for a padded input",
    "[cudagraph_trees] output overwritten after replay",
])
def test_another_subsystem_named_alone_in_the_title_is_its_owners(queue, title):
    plan = plan_ok(make_issue(title, _BODY), queue)
    assert plan.decision == "not_distributed", plan.reasoning


@pytest.mark.parametrize("title", [
    "DDP with CUDA graphs hangs on the second step",
    "TorchScript cannot script a module wrapped in DDP",
])
def test_a_distributed_component_beside_it_stays_distributed(queue, title):
    plan = plan_ok(make_issue(title, _BODY), queue)
    assert plan.decision != "not_distributed", plan.reasoning
