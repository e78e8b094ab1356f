"""Issue #23 (T-12 edge case, T-23): a component named only as where the object the
failing call handles came from ("a checkpoint saved from an FSDP model") is the context
of the report, not a rival owner of its root cause; a component that is itself failing,
or is named in the title, code or a trace, still is. Made-up issues written for this
file; every plan also passes the constraint checker."""

from __future__ import annotations

import pytest

from agentops.triage.queue import load_queue
from tests.triage.plankit import (
    CKPT,
    REVIEW,
    TRIAGED,
    evidence_signals,
    fence,
    make_issue,
    plan_ok,
    queue_with_thresholds,
)

# The built-in queue with its selective thresholds off, set here: the rule under test,
# not a fitted threshold, decides these plans.
queue = queue_with_thresholds()


RIVAL = "another sub-oncall"

_TITLE = "dcp.load into a smaller world size leaves keys unloaded"
_CODE = fence("sd = get_model_state_dict(model)\ndcp.load(sd, checkpoint_id=ckpt_dir)\n"
              "set_model_state_dict(model, sd)")


def _body(prose: str) -> str:
    return prose + "\nThe load finishes, but half of the keys keep their initial values.\n" + _CODE


@pytest.mark.parametrize("prose", [
    "The checkpoint was written by dcp.save from an FSDP model on 16 GPUs; I read it on 4.",
    "I resume on 4 GPUs from a checkpoint of our FSDP-wrapped model written on 16.",
    "Our FSDP checkpoint has 16 shards and I read it back on 4 GPUs.",
    "Written on 16 GPUs from an FSDP model, read back on 4; the FSDP state dict was "
    "flattened before saving.",
])
def test_a_component_named_as_the_objects_origin_is_no_rival(queue, prose):
    plan = plan_ok(make_issue(_TITLE, _body(prose)), queue)
    assert plan.decision == "route" and CKPT in plan.add_labels, plan.reasoning
    assert RIVAL not in plan.reasoning, plan.reasoning
    assert TRIAGED in plan.add_labels and REVIEW not in plan.add_labels, plan.reasoning


@pytest.mark.parametrize("prose", [
    # The component acts: it is a reading of who owns the root cause.
    "FSDP drops the shards of the tied embedding when the model is saved on 16 GPUs.",
    # One mention as the origin, another where FSDP itself is what goes wrong.
    "The checkpoint comes from an FSDP model on 16 GPUs, and FSDP reshards the "
    "embedding differently on 4.",
    # Named as the origin, but through its API in prose (not followed by the object).
    "Saved on 16 GPUs after wrapping with fully_shard and read on 4.",
])
def test_a_component_that_itself_acts_stays_a_rival(queue, prose):
    plan = plan_ok(make_issue(_TITLE, _body(prose)), queue)
    assert plan.decision == "route" and CKPT in plan.add_labels, plan.reasoning
    assert RIVAL in plan.reasoning and "module: fsdp" in plan.reasoning, plan.reasoning
    assert TRIAGED not in plan.add_labels and REVIEW in plan.add_labels, plan.reasoning


def test_a_title_naming_the_component_stays_a_rival(queue):
    plan = plan_ok(make_issue("FSDP model: " + _TITLE, _body(
        "The checkpoint was written by dcp.save from an FSDP model on 16 GPUs.")), queue)
    assert CKPT in plan.add_labels and RIVAL in plan.reasoning, plan.reasoning
    assert TRIAGED not in plan.add_labels, plan.reasoning


def test_the_context_pattern_is_rubric_data():
    rubric = load_queue("distributed").rubric
    assert rubric.context_mention is not None
    text = "from an FSDP model and FSDP hangs"
    ends = [text.index("FSDP") + 4, text.rindex("FSDP") + 4]
    assert rubric.context_mention.match(text, ends[0])
    assert not rubric.context_mention.match(text, ends[1])


# collective_timeout (T-12: a collective timeout is infra, and the route's own failure
# signal) fires on a timeout that happened, not on an identifier or a setting.
@pytest.mark.parametrize("title, body", [
    ("DISABLED test_gloo_allreduce_timeout_recovery (__main__.SomeGlooTest)",
     "Platforms: linux\n\nThis test was disabled because it is failing in CI."),
    ("[c10d] Let all_gather_into_tensor take a per-call timeout",
     "The all_gather uses the group's setting; we want a per-call timeout for this collective."),
    ("[c10d] Expose a barrier timeout parameter on every backend",
     "A barrier timeout parameter exists only for gloo groups."),
])
def test_an_identifier_or_a_timeout_setting_is_no_collective_timeout(queue, title, body):
    plan = plan_ok(make_issue(title, body), queue)
    assert "collective_timeout" not in evidence_signals(plan), plan.reasoning


@pytest.mark.parametrize("title, body", [
    ("allreduce timed out on the second node after 30 minutes",
     "Two nodes, 8 GPUs each; rank 9 never returns from the allreduce."),
    ("Barrier hits the default timeout when one rank loads data slowly",
     "With 16 ranks the barrier after data loading ends in the timeout."),
])
def test_a_timeout_that_happened_is_a_collective_timeout(queue, title, body):
    plan = plan_ok(make_issue(title, body), queue)
    assert "collective_timeout" in evidence_signals(plan), plan.reasoning
