"""Issue #23, round 7: step 1's evidence of another owner that recurred in the fit part's
not-distributed misses across blind3, blind4 and blind5 (and the platform group across
every fit set): a platform's CI as the title's subject, one device's library errors and
CUDA IPC between processes, and the compiler's name in a triple-backtick span. Each rule
has a case it must change and a case it must leave alone. Written for this file (no
labelled issue's text); every plan also passes the constraint checker."""

from __future__ import annotations

import pytest

from tests.triage.plankit import REVIEW, TRIAGED, fence, make_issue, plan_ok
from tests.triage.test_plan_issue23 import step1_evidence

MARKER = "bot-triaged"

_CC = "cc @alice @bob @platform-team\n"


# ------------------------------------------------------------------ a platform's CI

@pytest.mark.parametrize(("title", "body"), [
    # A whole CI job of the platform marked unstable: its job name names the platform.
    ("UNSTABLE periodic / linux-jammy-rocm6.4-py3.12 / test (distributed)",
     "Marking these jobs unstable while the runners are being re-imaged.\n\n" + _CC),
    ("UNSTABLE rocm-nightly / linux-noble-rocm-nightly-py3.12-gfx950 / test (distributed)",
     "See the sev issue.\n\n" + _CC),
    ("UNSTABLE xpu / linux-jammy-xpu-2025.1-py3.10 / test (distributed, 1, 2)", _CC),
    # A title opened by the platform's CI: the NCCL tests are what ran there.
    ("ROCm CI hangs for hours once the NCCL tests have run",
     "The job times out after the distributed shard; the next job on that runner is fine.\n"),
    # A title opened by the platform's tag; the collective is what its stack ran.
    ("[XPU] all_gather returns stale values after graph replay",
     "On two Intel GPUs both ranks read the previous step's data after replaying the "
     "captured graph.\n"),
])
def test_a_platforms_ci_or_tag_leading_the_title_goes_to_the_platform(queue, title, body):
    plan = plan_ok(make_issue(title, body), queue)
    assert plan.decision == "not_distributed", plan.reasoning
    assert set(plan.add_labels) == {REVIEW, MARKER}
    assert "platform_ci" in step1_evidence(plan, "against")


@pytest.mark.parametrize(("title", "body"), [
    # An unstable job that names no platform: nothing says whose it is.
    ("UNSTABLE trunk / linux-jammy-cuda12.8-py3.10-gcc11 / test (distributed)", _CC),
    # A person's report of a distributed failure on the platform: a report about NCCL.
    ("NCCL all_reduce hangs on ROCm CI runners with 8 GPUs",
     "Every rank blocks in all_reduce after the first step; the NCCL timeout fires after "
     "30 minutes.\n"),
    # A component named after the platform's tag stays a subject (contested at most).
    ("[XPU] FSDP2 fully_shard loses gradients on the second step",
     "With fully_shard on two Intel GPUs the gradients of the second step are zero on "
     "rank 1.\n"),
])
def test_a_platform_named_elsewhere_in_the_title_keeps_the_distributed_report(
        queue, title, body):
    plan = plan_ok(make_issue(title, body), queue)
    assert plan.decision != "not_distributed", plan.reasoning
    assert TRIAGED not in plan.add_labels or "platform_ci" not in step1_evidence(
        plan, "against")


def test_a_distributed_frame_in_the_trace_still_wins_over_the_platform_tag(queue):
    body = ("Traceback (most recent call last):\n"
            '  File "/opt/venv/lib/python3.12/site-packages/torch/distributed/'
            'distributed_c10d.py", line 2810, in all_gather\n'
            "    work = group.allgather([tensor_list], [tensor])\n"
            "RuntimeError: XCCL error: invalid argument\n")
    plan = plan_ok(make_issue("[XPU] all_gather raises after graph replay", body), queue)
    assert plan.decision != "not_distributed", plan.reasoning


# ------------------------------------------------------------------ one device, CUDA IPC

@pytest.mark.parametrize(("title", "body", "signal"), [
    ("loss.backward() raises RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED",
     "It happens after a few hundred steps; on another machine it does not.\n",
     "single_device"),
    ("Moving a model to the GPU inside a child process hangs",
     "Each child builds its own model; the first `.to('cuda')` prints\n"
     "`THCudaCheck FAIL file=aten/src/THC/THCGeneral.cpp line=50 error=3 : initialization "
     "error` and then hangs.\n", "single_device"),
    ("RuntimeError when a consumer process reads a shared GPU tensor",
     "The producer hands its CUDA tensors to the consumer through CUDA IPC; the consumer "
     "fails to open the handle.\n", "data_loading"),
    ("The caching allocator leaks memory with expandable segments on",
     "Reserved memory grows by one segment per step and is never released.\n",
     "single_device"),
])
def test_one_devices_errors_and_cuda_ipc_name_another_owner(queue, title, body, signal):
    plan = plan_ok(make_issue(title, body), queue)
    assert plan.decision == "not_distributed", plan.reasoning
    assert signal in step1_evidence(plan, "against")


def test_a_device_error_beside_a_distributed_failure_stays_distributed(queue):
    # The cuDNN error is one rank's; the report is the collective timing out on the rest.
    code = fence("model = DDP(model, device_ids=[rank])\nloss.backward()")
    body = ("Rank 3 raises `RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED`; "
            "the other ranks then fail with a collective timeout in ProcessGroupNCCL "
            "(WorkNCCL(SeqNum=812, OpType=ALLREDUCE) ran for 600000 milliseconds before "
            "timing out).\n" + code)
    plan = plan_ok(make_issue("DDP all_reduce times out after one rank's cuDNN error", body),
                   queue)
    assert plan.decision != "not_distributed", plan.reasoning


def test_a_multi_gpu_title_beside_a_device_error_is_left_to_a_human(queue):
    # "Multi-GPU training" in a person's title is distributed evidence of its own: with
    # the device's error beside it the verdict is contested, never settled by the bot.
    title = "Multi-GPU training: backward raises cuDNN error: CUDNN_STATUS_EXECUTION_FAILED"
    plan = plan_ok(make_issue(title, "It happens after a few hundred steps.\n"), queue)
    assert plan.decision != "not_distributed", plan.reasoning
    assert "single_device" in step1_evidence(plan, "against")
    assert TRIAGED not in plan.add_labels and REVIEW in plan.add_labels


def test_a_cudnn_version_line_is_not_a_device_error(queue):
    body = ("All ranks hang in the first all_reduce.\n\ncuDNN version: 9.1.0\n"
            + fence("dist.init_process_group('nccl')\ndist.all_reduce(t)"))
    plan = plan_ok(make_issue("all_reduce hangs on two nodes", body), queue)
    assert plan.decision != "not_distributed", plan.reasoning
    assert "single_device" not in step1_evidence(plan, "against")


# ------------------------------------------------------------------ the compiler, formatted

@pytest.mark.parametrize("title", [
    "```torch.compile``` error when using activation checkpointing with FSDP",
    "`torch.compile` error when using activation checkpointing with FSDP",
])
def test_the_compiler_failing_in_a_code_span_leads_the_title(queue, title):
    body = "Compiling the wrapped model raises an error once checkpointing is on.\n"
    plan = plan_ok(make_issue(title, body), queue)
    assert plan.decision == "not_distributed", plan.reasoning
    assert "compiler_fails_in_title" in step1_evidence(plan, "against")


def test_a_wrapper_failing_under_the_compiler_in_a_code_span_stays_contested(queue):
    title = "FSDP fails under ```torch.compile``` with activation checkpointing"
    plan = plan_ok(make_issue(title, "The backward raises once checkpointing is on.\n"), queue)
    assert plan.decision != "not_distributed", plan.reasoning
