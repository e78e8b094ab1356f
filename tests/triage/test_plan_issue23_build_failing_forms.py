"""Issue #23, step 1 (T-11): the build named failing in any grammatical form ("build
failing", "builds are failing", "build failed") is a build report, as "build fails"
and "failed to build" already were. Building something else ("building the model
fails") is no build of PyTorch, and a component named beside it still counts.

Every issue below is made up for this file; every plan also passes the constraint
checker."""

from __future__ import annotations

import pytest

from tests.triage.plankit import make_issue, plan_ok

_BODY = "Compiling from a fresh clone stops halfway with the log below."


@pytest.mark.parametrize("title", [
    "Build failing on a fresh clone",
    "Source builds are failing since Tuesday",
    "Build failed after the last sync",
])
def test_the_build_named_failing_is_not_distributed(queue, title):
    plan = plan_ok(make_issue(title, _BODY), queue)
    assert plan.decision == "not_distributed", plan.reasoning


@pytest.mark.parametrize("title", [
    "Building the DDP model fails on rank 1",
    "FSDP build failing on a fresh clone",
])
def test_another_building_or_a_component_beside_it_stays_distributed(queue, title):
    plan = plan_ok(make_issue(title, _BODY), queue)
    assert plan.decision != "not_distributed", plan.reasoning
