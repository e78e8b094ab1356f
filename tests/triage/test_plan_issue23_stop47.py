"""Issue #23, stop 47 (round tr-fit47): three readings a careful triager makes that the
planner missed, found from the wrong `triaged` plans out of fold on the fit part (dev fit
part + blind13-16).

- A test's report whose title names the test and then the platform it fails or flakes on
  is the platform's (rubric ``platform_in_test_title``; issue #23 item 2): the writer gave
  the platform as the failure's condition. A person's report about a component on that
  platform names no test and stays the component's.
- A title that opens with the documentation files a report about docs (``docs_title``):
  which team fixes them is a human's call beside a component named once, so the plan is
  not `triaged`; it never sends the issue out of the queue by itself.
- A cluster's run set against a single node's is the several-node run by contrast, so a
  hang or a collective timeout there is T-15's multi-node hang (``multi_node_hang``,
  ``multi_node_timeout``): humans look, no `triaged`. "Collective timeouts" names the
  timeout as collective_timeout reads it. A single node's collective timeout is still
  T-12's confident infra route.

Made-up issues in our own words; thresholds off, so the rules decide."""

from __future__ import annotations

import pytest

from tests.triage.plankit import (
    INFRA,
    PAR,
    REVIEW,
    TRIAGED,
    evidence_signals,
    fence,
    make_issue,
    plan_ok,
    queue_with_thresholds,
)

DDP = "module: ddp"

queue = queue_with_thresholds()  # every threshold off, set here: the rules decide


# A CI log pasted into a test's report: the runner prints the test's one-line description,
# which names DDP; nothing else in the report is about DDP.
_CI_LOG = fence(
    "ERROR [12.031s]: test_bucket_rebuild (__main__.ShardedOptimTest)\n"
    "Checks the sharded optimizer against a plain one when wrapped with DDP\n"
    "Traceback (most recent call last):\n"
    '  File "/opt/venv/lib/python3.10/site-packages/torch/testing/_internal/'
    'common_distributed.py", line 512, in wrapper\n'
    "    self._join_processes(fn)\n"
    "RuntimeError: Process 1 exited with error code 10", lang="")


@pytest.mark.parametrize("title", [
    "test_bucket_rebuild (__main__.ShardedOptimTest) is flaky on ROCm",
    "distributed/optim_test.py::ShardedOptimTest::test_bucket_rebuild fails in ROCm CI",
    "test_bucket_rebuild (__main__.ShardedOptimTest) is failing only on Windows",
])
def test_a_test_report_naming_its_platform_is_the_platforms(queue, title):
    plan = plan_ok(make_issue(title, "Seen twice this week on the nightly jobs.\n" + _CI_LOG),
                   queue)
    assert "platform_in_test_title" in evidence_signals(plan, "against"), plan.to_json()
    assert TRIAGED not in plan.add_labels, plan.reasoning
    assert DDP not in plan.add_labels, plan.reasoning
    assert plan.decision == "not_distributed", plan.reasoning


def test_the_same_test_report_without_a_platform_stays_ours(queue):
    plan = plan_ok(make_issue("test_bucket_rebuild (__main__.ShardedOptimTest) is flaky",
                              "Seen twice this week on the nightly jobs.\n" + _CI_LOG), queue)
    assert "platform_in_test_title" not in evidence_signals(plan), plan.to_json()
    assert plan.decision != "not_distributed", plan.reasoning


def test_a_persons_component_report_on_a_platform_names_no_test(queue):
    body = ("Training with DistributedDataParallel on four AMD GPUs stops at the first "
            "backward; the same script runs on NVIDIA cards.\n" + fence(
                "import torch.distributed as dist\n"
                "from torch.nn.parallel import DistributedDataParallel as DDP\n"
                "dist.init_process_group('nccl')\n"
                "model = DDP(Net().cuda(), device_ids=[rank])\n"
                "model(batch).sum().backward()"))
    plan = plan_ok(make_issue("DDP hangs on ROCm with four GPUs", body), queue)
    assert "platform_in_test_title" not in evidence_signals(plan), plan.to_json()
    assert plan.decision != "not_distributed", plan.reasoning
    assert DDP in plan.add_labels, plan.reasoning


@pytest.mark.parametrize("title", [
    "[docs] The SyncBatchNorm page points to a conversion helper that is not there",
    "Docs for SyncBatchNorm name the wrong home of its conversion helper",
])
def test_a_docs_report_naming_a_component_once_is_not_triaged(queue, title):
    body = ("The example on the page calls the helper from a module where it does not "
            "live; the class method is the one that exists.")
    plan = plan_ok(make_issue(title, body), queue)
    assert "docs_title" in evidence_signals(plan, "against"), plan.to_json()
    assert plan.decision != "not_distributed", plan.reasoning
    assert PAR in plan.add_labels, plan.reasoning
    assert TRIAGED not in plan.add_labels and REVIEW in plan.add_labels, plan.reasoning


def test_a_docs_title_alone_never_sends_the_issue_away(queue):
    plan = plan_ok(make_issue("[doc] write up the NCCL environment switches",
                              "There is no page that lists them."), queue)
    assert "docs_title" in evidence_signals(plan, "against"), plan.to_json()
    assert plan.decision != "not_distributed", plan.reasoning
    assert TRIAGED not in plan.add_labels, plan.reasoning


def test_docs_after_the_component_are_the_components_report(queue):
    body = ("The DistributedDataParallel page still says find_unused_parameters is "
            "needed for frozen layers.\n" + fence(
                "model = torch.nn.parallel.DistributedDataParallel(net, "
                "find_unused_parameters=True)"))
    plan = plan_ok(make_issue("DistributedDataParallel docs: the frozen-layer advice is "
                              "out of date", body), queue)
    assert "docs_title" not in evidence_signals(plan), plan.to_json()
    assert DDP in plan.add_labels and TRIAGED in plan.add_labels, plan.reasoning


_FSDP_REPRO = fence(
    "from torch.distributed.fsdp import FullyShardedDataParallel as FSDP\n"
    "model = FSDP(Net().cuda())\n"
    "for epoch in range(10):\n"
    "    train_one_epoch(model)\n"
    "    evaluate(model)")


@pytest.mark.parametrize("title, body", [
    ("FSDP job dies at the end of the first epoch on the cluster, reaches epoch 9 on a "
     "single node", "The cluster run ends with collective timeouts and the communicators "
     "are aborted.\n" + _FSDP_REPRO),
    ("FSDP training stops with collective timeouts",
     "Every run on our cluster hangs after epoch 2, while a single node run completes.\n"
     + _FSDP_REPRO),
])
def test_a_cluster_set_against_a_single_node_is_a_multi_node_failure(queue, title, body):
    plan = plan_ok(make_issue(title, body), queue)
    assert plan.decision == "high_priority", plan.reasoning
    assert evidence_signals(plan) & {"multi_node_hang", "multi_node_timeout"}, plan.to_json()
    assert TRIAGED not in plan.add_labels, plan.reasoning


def test_a_cluster_alone_is_not_several_nodes(queue):
    body = ("I run DDP on an 8 GPU cluster with a DataLoader of four workers and the "
            "job hangs before the first step.\n" + fence(
                "model = torch.nn.parallel.DistributedDataParallel(net)\n"
                "loader = DataLoader(ds, num_workers=4)"))
    plan = plan_ok(make_issue("DDP with workers hangs on our cluster", body), queue)
    assert "multi_node_hang" not in evidence_signals(plan), plan.to_json()


def test_a_single_nodes_collective_timeout_is_still_a_confident_infra_route(queue):
    body = ("During FSDP training on one node with 8 GPUs the job stops:\n" + fence(
        "[Rank 3] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=812, OpType=_ALLGATHER_BASE) ran for 600000 milliseconds",
        lang=""))
    plan = plan_ok(make_issue("NCCL collective timeouts during FSDP training", body), queue)
    assert plan.decision == "route", plan.reasoning
    assert INFRA in plan.add_labels and TRIAGED in plan.add_labels, plan.reasoning
