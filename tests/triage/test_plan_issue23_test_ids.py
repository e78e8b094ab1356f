"""Issue #23, round tr-fit15: a CI report's test id names its component by its parts.

A platform's disabled-test record with nothing distributed in it goes to the platform's
team (outsider case oc13); one whose test id names a component of the rubric, in snake
or CamelCase parts, is a distributed test and stays contested. Made-up titles only."""

from __future__ import annotations

import pytest

from agentops.triage.plan import _component_keywords
from agentops.triage.signals import components_in_test_id


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
