"""Issue #23, stop 34 (step 1's "not distributed" recall): evidence kinds written from the
fit part's writing sets and kept only after they added recall on the validation sets
without a false "not distributed" there. Each kind has cases it must change and cases it
must leave alone (T-11). Every issue here is made up for this file; every plan also
passes the constraint checker (plan_ok)."""

from __future__ import annotations

import pytest

from agentops.triage.plan import read
from tests.triage.plankit import INFRA, PAR, REVIEW, make_issue, plan_ok
from tests.triage.test_plan_issue23 import step1_evidence

MARKER = "bot-triaged"


def _item(test_class: str, test_name: str, source: str, *, extra: str = "",
          parent: str = "- Parent issue: #4321") -> str:
    """A test-skip tracker's item, as such trackers file one per test."""
    return (f"## Context\n- Source file: `{source}`\n- Test class: `{test_class}`\n"
            f"- Test name: `{test_name}`\n- Defined at line: 88\n{parent}\n"
            f"- Code reference: see the source file above\n\n{extra}cc @alice @bob\n")


# ------------------------------------------------------------------ a test tracker's item

@pytest.mark.parametrize(("title", "body"), [
    ("Test: WidgetAllGatherTest.test_all_gather_uneven",
     _item("WidgetAllGatherTest", "test_all_gather_uneven", "test/distributed/test_widgets.py")),
    # Component words in the test's names (FSDP, ProcessGroupNCCL, NVSHMEM) name the test.
    ("Test: ProcessGroupNCCLWidgetTest.test_fsdp_reduce_scatter",
     _item("ProcessGroupNCCLWidgetTest", "test_fsdp_reduce_scatter",
           "test/distributed/fsdp/test_widget_fsdp.py")),
    ("Test: NVSHMEMWidgetTest.test_put_signal",
     _item("NVSHMEMWidgetTest", "test_put_signal", "test/distributed/test_nvshmem_widgets.py",
           parent="* Parent tracker: #99")),
])
def test_an_item_of_a_test_skip_tracker_is_not_distributed(queue, title, body):
    # T-11: positive evidence of another owner, the tracker's; it reports no failure of
    # distributed code, so the component words are the test's names (platform_test).
    plan = plan_ok(make_issue(title, body), queue)
    assert plan.decision == "not_distributed", plan.reasoning
    assert set(plan.add_labels) == {REVIEW, MARKER}
    assert "skip_tracker_item" in step1_evidence(plan, "against")
    assert tuple(plan.comments) == ("not_distributed",)


@pytest.mark.parametrize(("title", "body"), [
    # The item reports a failure of its own: a report, read as one.
    ("Test: WidgetAllGatherTest.test_all_gather_uneven",
     _item("WidgetAllGatherTest", "test_all_gather_uneven", "test/distributed/test_widgets.py",
           extra="It fails on 2 ranks with RuntimeError: NCCL error: unhandled system "
                 "error.\n\n")),
    ("Test: WidgetAllGatherTest.test_all_gather_uneven",
     _item("WidgetAllGatherTest", "test_all_gather_uneven", "test/distributed/test_widgets.py",
           extra="The test hangs in all_gather on rank 1 since yesterday.\n\n")),
    # A parent tracker named in a person's report, with no test record: not an item.
    ("FSDP2 all_gather hangs with uneven shards",
     "Part of the FSDP2 rollout.\n- Parent issue: #4321\n\n`fully_shard(model)` then the "
     "first forward hangs on rank 1 while rank 0 finishes."),
    # A sub-issue of a person's feature tracker that names no test: not a skip tracker's.
    ("[FSDP2] support uneven shards in fully_shard",
     "- Parent issue: #4321\n\nfully_shard should accept a parameter whose first dimension "
     "does not divide by the world size, padding the last rank's shard."),
    # A test record with no parent tracker: not a tracker's item.
    ("Test: WidgetAllGatherTest.test_all_gather_uneven",
     _item("WidgetAllGatherTest", "test_all_gather_uneven", "test/distributed/test_widgets.py",
           parent="")),
])
def test_a_failure_report_or_a_record_without_a_tracker_is_not_a_tracker_item(
        queue, title, body):
    plan = plan_ok(make_issue(title, body), queue)
    assert "skip_tracker_item" not in step1_evidence(plan, "against"), plan.reasoning
    assert plan.decision != "not_distributed", plan.reasoning
    assert any(lb in plan.add_labels for lb in (INFRA, PAR)), plan.add_labels


def test_a_tracker_item_title_is_a_test_id(queue):
    # "Test: Class.test_name" names a test (like "DISABLED test_x (__main__.Class)"): the
    # component words in it are the test's, not a person's subject; a title that only
    # starts with "Test:" is not one.
    item = read(make_issue("Test: FSDPWidgetTest.test_fsdp_step", "x"), queue)
    prose = read(make_issue("Test: does FSDP support uneven shards?", "x"), queue)
    assert item.text.test_report
    assert not prose.text.test_report
