"""Issue #23, round tr-fit15: a CI report's test id names its component by its parts.

A platform's disabled-test record with nothing distributed in it goes to the platform's
team (outsider case oc13); one whose test id names a component of the rubric, in snake
or CamelCase parts, is a distributed test and stays contested. Made-up titles only."""

from __future__ import annotations

import pytest

from agentops.triage.plan import _component_keywords, plan_issue
from agentops.triage.signals import components_in_test_id
from tests.triage.plankit import REVIEW, TRIAGED, make_issue, plan_ok
from tests.triage.test_plan_issue23 import step1_evidence


def _disabled(platform: str = "rocm") -> str:
    return (f"Platforms: {platform}\n\nThis test was disabled because it kept failing in "
            "the nightly jobs.\n\ncc @alice @bob\n")


@pytest.mark.parametrize(("title", "component"), [
    ("DISABLED test_fully_shard_uneven_split (__main__.TestUnevenSplit)", "fully_shard"),
    ("DISABLED test_uneven_split (__main__.TestFullyShardUneven)", "fully_shard"),
    ("DISABLED test_uneven_split (__main__.TestFSDPUneven)", "fsdp"),
    ("DISABLED test_placements_roundtrip (__main__.TestDTensorPlacements)", "dtensor"),
    ("DISABLED test_barrier_timeout (__main__.ProcessGroupGlooExtraTest)", "processgroup"),
    ("DISABLED test_column_split_tensor_parallel (__main__.TestLayers)", "tensor parallel"),
    ("DISABLED test_resume_from_shards (__main__.TestStateDictResume)", "state_dict"),
])
def test_a_test_id_names_the_component_its_parts_spell(queue, title, component):
    assert component in components_in_test_id(title, _component_keywords(queue))


@pytest.mark.parametrize("title", [
    "DISABLED test_conv_transpose_channels_last (__main__.TestConvolutionNN)",
    # distributed words that name no component of the rubric
    "DISABLED test_local_rank_from_env (__main__.TestEnvParsing)",
    "DISABLED test_world_size_default (__main__.TestLauncherArgs)",
    # a component's word only inside a longer part ("shard" is not fully_shard)
    "DISABLED test_shard_tensor_view (__main__.TestShardedViews)",
])
def test_a_test_id_without_a_component_names_none(queue, title):
    assert components_in_test_id(title, _component_keywords(queue)) == ()


@pytest.mark.parametrize("title", [
    "DISABLED test_uneven_split (__main__.TestFullyShardUneven)",
    "DISABLED test_fully_shard_uneven_split (__main__.TestUnevenSplit)",
    "DISABLED test_placements_roundtrip (__main__.TestDTensorPlacements)",
])
def test_a_platforms_disabled_distributed_test_stays_contested(queue, title):
    plan = plan_ok(make_issue(title, _disabled()), queue)
    assert plan.decision != "not_distributed", plan.reasoning
    assert REVIEW in plan.add_labels and TRIAGED not in plan.add_labels
    assert "platform_test_header" in step1_evidence(plan, "against")


@pytest.mark.parametrize("title", [
    "DISABLED test_conv_transpose_channels_last (__main__.TestConvolutionNN)",
    "DISABLED test_local_rank_from_env (__main__.TestEnvParsing)",
])
def test_a_platforms_disabled_test_naming_nothing_distributed_goes_to_the_platform(
        queue, title):
    plan = plan_ok(make_issue(title, _disabled()), queue)
    assert plan.decision == "not_distributed", plan.reasoning
    assert "platform_test_header" in step1_evidence(plan, "against")


def test_a_component_in_the_prose_is_read_as_before(queue):
    # The test-id reading is for a test report's title only: a person's report with
    # the same header-free prose keeps its own reading.
    body = "Saw this on a ROCm box while running test_fully_shard_uneven_split locally."
    plan = plan_issue(make_issue("Uneven split test fails on my machine", body), queue)
    assert "platform_test_header" not in step1_evidence(plan, "against")
