"""Issue #23, step 1 (T-11): a generic distributed word (no component, no distributed
error: "multi-GPU", "world_size") that the title names after another owner says where
the owner's failure was seen. The title's weight lifts such a word above the evidence
that blocks a not-distributed verdict; it no longer does when another owner leads the
title. A component named after the owner, or the generic word leading the title,
still counts.

Every issue below is made up for this file; every plan also passes the constraint
checker."""

from __future__ import annotations

import pytest

from tests.triage.plankit import make_issue, plan_ok

_BODY = "Loading the file puts every tensor on the first card instead of the one I asked for."


@pytest.mark.parametrize("title", [
    "torch.load ignores map_location on multi-GPU machines",
    "torch.load ignores map_location when world_size is 4",
])
def test_a_generic_word_after_another_owner_in_the_title_is_context(queue, title):
    plan = plan_ok(make_issue(title, _BODY), queue)
    assert plan.decision == "not_distributed", plan.reasoning


@pytest.mark.parametrize("title", [
    # The generic word leads the title: the owner is what it was used for.
    "Multi-GPU machines: torch.load ignores map_location",
    # A component named after the owner is no generic word.
    "torch.load of a DDP model ignores map_location",
    # Nor is a per-rank behaviour (a distributed subject with no component label).
    "torch.load hangs on multinode jobs",
])
def test_a_leading_generic_word_or_a_component_stays_distributed(queue, title):
    plan = plan_ok(make_issue(title, _BODY), queue)
    assert plan.decision != "not_distributed", plan.reasoning
