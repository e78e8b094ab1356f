"""Issue #23, coverage round: evidence that right plans carried but did not credit,
grouped by kind across the fit sets (dev, blind2 … blind5). Each rule has a case it must
change and a case it must leave alone. Written for this file (no labelled issue's
text); every plan also passes the constraint checker."""

from __future__ import annotations

import pytest

from tests.triage.plankit import make_issue, plan_ok

NEEDS_REPRO = "needs reproduction"
_CC = "cc @alice @bob\n"


# --------------------------------------------- a request after the title's component tags

@pytest.mark.parametrize("title", [
    "[FSDP] Support nested wrapping of tied embeddings",
    "[DTensor][ops] Add a sharding strategy for aten.roll",
    "[Prototype] Allow several checkpoint wrappers under fully_shard",
])
def test_an_imperative_after_component_tags_is_a_request_not_asked_for_a_repro(queue, title):
    body = "Today this has to be done by hand in every training script.\n\n" + _CC
    plan = plan_ok(make_issue(title, body), queue)
    assert plan.decision != "needs_reproduction", plan.reasoning
    assert NEEDS_REPRO not in plan.add_labels
    assert "feature" in plan.add_labels, plan.add_labels


@pytest.mark.parametrize("title", [
    # A tag, then a report: the verb is not an imperative at the title's start.
    "[FSDP] Adding a hook crashes the backward pass",
    "[DDP] Supporting sparse gradients hangs in backward",
    # An imperative not at the start of the title is a sentence about something else.
    "FSDP hangs when I [x] Support flags",
])
def test_a_tagged_report_is_still_a_report(queue, title):
    body = "It fails on two GPUs.\n\n" + _CC
    plan = plan_ok(make_issue(title, body), queue)
    assert "feature" not in plan.add_labels, plan.reasoning
    assert plan.decision == "needs_reproduction", plan.reasoning
