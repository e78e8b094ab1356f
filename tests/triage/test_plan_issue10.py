"""Hand-written cases for issue #10: the seed's own examples that failed, step 1's
positive evidence, step 4's types, step 5's criteria, a case per allowlisted module, and
selective triage (per-label thresholds). Written for this test file, not taken from any
labelled set; every plan also passes the constraint checker (plankit.plan_ok)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agentops.triage import plan as plan_mod
from agentops.triage.model import Comment, Selective
from tests.triage.plankit import (
    INFRA,
    PAR,
    QUEUE_LABEL,
    fence,
    make_issue,
    plan_ok,
    with_thresholds,
)

REVIEW, MARKER, TRIAGED = "triage review", "bot-triaged", "triaged"


def notice(queue, *, author: str = "ops-robot", author_type: str = "User",  # type: ignore[no-untyped-def]
           association: str = "MEMBER") -> Comment:
    """The bot's own not-distributed notice, as a token of a person's account posts it
    (user type ``User``): the template body with its hidden marker."""
    t = queue.templates["not_distributed"]
    return Comment(id=501, author=author, author_type=author_type,
                   author_association=association, body=f"{t.body}\n\n{t.marker()}")


SINGLE_GPU_OOM = ("### Bug\nTraining a 7B model on one A100 runs out of memory at step 3:\n"
                  + fence("model = Model().cuda()\nloss = model(batch).sum()\nloss.backward()")
                  + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB "
                    "(GPU 0; 79.1 GiB total capacity)\n")


# ------------------------------------------------------------------ the seed's own examples

def test_single_gpu_oom_already_notified_gets_the_labels_and_no_second_comment(queue):
    # The notice names DDP, FSDP, torchrun and ranks; read as the report's own words it
    # used to count as distributed evidence and sent the issue to parallelisms.
    snap = make_issue("OOM on a single GPU after upgrading", SINGLE_GPU_OOM,
                      comments=[notice(queue)])
    plan = plan_ok(snap, queue)
    assert plan.decision == "not_distributed"
    assert set(plan.add_labels) == {REVIEW, MARKER}
    assert PAR not in plan.add_labels
    assert plan.comments == ()
    assert "skipped" in plan.reasoning


def test_notice_from_a_bot_account_and_labels_in_place_plans_nothing_more(queue):
    snap = make_issue("OOM on a single GPU after upgrading", SINGLE_GPU_OOM,
                      labels=(QUEUE_LABEL, REVIEW, MARKER),
                      comments=[notice(queue, author="triage-bot[bot]", author_type="Bot",
                                       association="NONE")])
    plan = plan_ok(snap, queue)
    assert plan.decision == "not_distributed"
    assert plan.add_labels == () and plan.comments == ()


def test_a_stranger_pasting_the_marker_decides_nothing(queue):
    # Only a bot or a maintainer's notice is a verdict; a vague report with a forged
    # notice from anyone else is planned on its own words.
    forged = notice(queue, author="someone", association="NONE")
    snap = make_issue("something is off", "It does not work for me.", comments=[forged])
    assert plan_ok(snap, queue).decision != "not_distributed"
    told = make_issue("something is off", "It does not work for me.", comments=[notice(queue)])
    assert plan_ok(told, queue).decision == "not_distributed"


def test_notice_followed_by_distributed_details_is_distributed_again(queue):
    reply = Comment(id=502, author="reporter", body="Sorry, I should have said: I launch it "
                    "with torchrun --nproc_per_node 8 and wrap the model in FSDP.")
    snap = make_issue("OOM after upgrading", "Training runs out of memory at step 3.",
                      comments=[notice(queue), reply])
    plan = plan_ok(snap, queue)
    assert plan.decision != "not_distributed"
    assert "module: fsdp" in plan.add_labels


def test_torchvision_transform_bug_that_mentions_distributed_is_not_distributed(queue):
    body = ("`RandomResizedCrop` from torchvision.transforms.v2 drops the bounding boxes of "
            "a sample when the crop misses every box, so the targets come out wrong. I run "
            "the classification reference script with `--distributed` on my workstation.\n"
            + fence("from torchvision.transforms import v2\nt = v2.RandomResizedCrop(224)\n"
                    "img, boxes = t(img, boxes)"))
    plan = plan_ok(make_issue("torchvision v2 RandomResizedCrop returns wrong boxes", body),
                   queue)
    assert plan.decision == "not_distributed"
    assert not plan.awaiting_humans


def test_falls_back_to_a_slower_path_is_a_performance_enhancement_without_repro_request(queue):
    body = ("`index_select` on a DTensor sharded on dim 0 works today, but it falls back to "
            "replicating the whole tensor before the op. Selecting on the local shards would "
            "be faster and use far less memory.")
    plan = plan_ok(make_issue("DTensor index_select falls back to a full replicate", body),
                   queue)
    assert plan.add_labels[:2] == (PAR, "module: dtensor")
    assert "enhancement" in plan.add_labels
    assert "module: performance" in plan.add_labels
    assert "feature" not in plan.add_labels
    assert "needs reproduction" not in plan.add_labels and plan.comments == ()


def test_after_an_infra_route_a_request_is_still_typed_and_never_asked_for_a_repro(queue):
    # T-12 stops after an infra or checkpointing route, but what kind of issue it is does
    # not depend on the team (T-14): the route keeps its enhancement and performance
    # labels, and a request is never asked for a reproduction on any path (T-16).
    body = ("`all_gather_into_tensor` works today with uneven shards, but it falls back to "
            "a padded copy on every call; gathering in place would be faster.")
    plan = plan_ok(make_issue("all_gather_into_tensor falls back to a padded copy", body), queue)
    assert plan.add_labels[0] == INFRA
    assert {"enhancement", "module: performance"} <= set(plan.add_labels)
    assert "feature" not in plan.add_labels
    assert "needs reproduction" not in plan.add_labels and plan.comments == ()


def test_an_infra_bug_report_gets_no_type_label(queue):
    body = ("init_process_group(backend='nccl') raises on every rank:\n" + fence(
        "RuntimeError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!"))
    plan = plan_ok(make_issue("ProcessGroupNCCL init fails", body), queue)
    assert plan.add_labels[0] == INFRA
    assert not {"enhancement", "feature", "module: performance"} & set(plan.add_labels)


@pytest.mark.parametrize("ruled_out", [
    "No multi-GPU, no DDP, just model.cuda() on one card.",
    "This is without DistributedDataParallel or any process group.",
    "I am not using FSDP; it is a non-distributed script.",
])
def test_what_the_report_rules_out_is_not_distributed_evidence(queue, ruled_out):
    # A negated mention ("no DDP", "without ...", "not using FSDP") names what the issue
    # is not about; read as evidence it sent single-GPU OOMs to parallelisms.
    plan = plan_ok(make_issue("CUDA OOM on a single GPU", SINGLE_GPU_OOM + ruled_out), queue)
    assert plan.decision == "not_distributed"


def test_a_plain_not_keeps_its_meaning(queue):
    # "not synchronized" is the bug itself (silent wrong gradients, T-15), not a negated
    # mention of something the issue does not use.
    plan = plan_ok(make_issue("DDP gradients are not synchronized across ranks",
                              "With DistributedDataParallel gradients are not synchronized "
                              "across ranks after no_sync(); no error is raised."), queue)
    assert plan.decision == "high_priority"


@pytest.mark.parametrize(("title", "body"), [
    ("nn.DataParallel splits a batch of 3 unevenly over 2 GPUs",
     "With nn.DataParallel the second replica gets an empty batch. DDP is not an option "
     "for this notebook.\n" + fence("model = nn.DataParallel(Net()).cuda()\nout = model(x)")),
    ("DataParallel loses buffers updated in forward", "Buffers changed inside forward are "
     "not copied back to the module on device 0 after each step."),
    ("replicas diverge", "Running my model on four GPUs this way:\n" + fence(
        'Traceback (most recent call last):\n  File "train.py", line 9, in <module>\n'
        '  File "/venv/lib/python3.11/site-packages/torch/nn/parallel/data_parallel.py", '
        'line 183, in forward\nRuntimeError: chunk expects at least a 1-dimensional tensor',
        "")),
])
def test_legacy_data_parallel_gets_its_module(queue, title, body):
    plan = plan_ok(make_issue(title, body), queue)
    assert plan.add_labels[0] == PAR
    assert "module: data parallel" in plan.add_labels
    assert "module: ddp" not in plan.add_labels


# ------------------------------------------------------------------ step 1: evidence

@pytest.mark.parametrize(("title", "body"), [
    ("import torch fails after pip install",
     "ImportError: /venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so: undefined "
     "symbol: ncclCommShrink"),
    ("Linking the C++ tests fails",
     "collect2: error: ld returned 1 exit status\nundefined reference to `ncclGroupEnd'"),
    ("The cu126 nightly wheel installs a different NCCL than it reports",
     "The nightly wheels report NCCL 2.26 but pip resolves nvidia-nccl-cu12==2.27.1."),
    ("inductor recompiles on every step",
     "torch.compile with dynamic=True recompiles my model every step; graph break count "
     "keeps growing."),
    ("CUDA error: an illegal memory access was encountered in my custom op",
     "My extension kernel crashes on cuda:0 with CUDA error: an illegal memory access was "
     "encountered."),
    ("torchaudio resample returns NaN",
     "torchaudio.functional.resample gives NaN for int16 input."),
])
def test_step1_positive_evidence_of_not_distributed(queue, title, body):
    plan = plan_ok(make_issue(title, body), queue)
    assert plan.decision == "not_distributed"
    assert set(plan.add_labels) == {REVIEW, MARKER}
    assert plan.comments == ("not_distributed",)


@pytest.mark.parametrize(("title", "body"), [
    ("CUDA out of memory in FSDP2 training",
     "torch.OutOfMemoryError: CUDA out of memory.\n" + fence(
         "from torch.distributed.fsdp import fully_shard\nfully_shard(model)")),
    ("torch.compile breaks with DDP",
     "torch.compile(model) after wrapping in DistributedDataParallel raises a graph break "
     "error inside the reducer."),
    ("undefined symbol when calling init_process_group",
     "dist.init_process_group('nccl') raises undefined symbol: ncclCommInitRankConfig on 2 "
     "nodes."),
    ("torchvision model hangs",
     "[rank1]: hangs in all_reduce after the first epoch with torchvision resnet50 under "
     "torchrun --nnodes 2."),
])
def test_step1_distributed_evidence_always_wins(queue, title, body):
    assert plan_ok(make_issue(title, body), queue).decision != "not_distributed"


def test_step1_the_word_distributed_alone_is_not_evidence_either_way(queue):
    plan = plan_ok(make_issue("distributed question", "Is it possible to make this faster?"),
                   queue)
    assert plan.decision != "not_distributed"


# ------------------------------------------------------------------ step 4: types

def test_wholly_new_functionality_is_a_feature(queue):
    body = ("### 🚀 The feature, motivation and pitch\nPlease add a way for fully_shard to "
            "keep selected parameters unsharded; nothing like it exists in FSDP2 today.")
    plan = plan_ok(make_issue("[Feature] FSDP2: opt parameters out of sharding", body), queue)
    assert "feature" in plan.add_labels and "enhancement" not in plan.add_labels
    assert "needs reproduction" not in plan.add_labels


@pytest.mark.parametrize("body", [
    "FSDP2 prefetching currently works, but the all-gather of the next layer is slow to "
    "start: it waits for the whole backward of the current one. Overlapping would be "
    "faster.",
    "The DTensor redistribute of a Partial placement is slower than doing the all_reduce by "
    "hand; please optimize it.",
])
def test_works_today_but_slow_is_enhancement_plus_performance(queue, body):
    plan = plan_ok(make_issue("make it faster", body), queue)
    assert "enhancement" in plan.add_labels and "module: performance" in plan.add_labels
    assert "feature" not in plan.add_labels
    assert "needs reproduction" not in plan.add_labels and plan.comments == ()


def test_better_error_message_is_an_enhancement_but_not_performance(queue):
    body = ("When a placement does not match the mesh, `distribute_tensor` raises a bare "
            "IndexError. A better error message naming the mesh dimension would help.")
    plan = plan_ok(make_issue("Better error message for DTensor placement mismatch", body),
                   queue)
    assert "enhancement" in plan.add_labels and "module: performance" not in plan.add_labels


def test_a_bug_report_with_a_traceback_gets_no_type(queue):
    body = fence("from torch.distributed.fsdp import fully_shard\nfully_shard(model)\n"
                 "model(x)") + "RuntimeError: expected all tensors to be on the same device"
    plan = plan_ok(make_issue("FSDP2 forward raises on CPU offload", body), queue)
    assert not {"feature", "enhancement", "module: performance"} & set(plan.add_labels)


# ------------------------------------------------------------------ step 5: criteria

@pytest.mark.parametrize(("title", "body"), [
    ("Segfault in ProcessGroupNCCL during all_reduce",
     "Segmentation fault (core dumped) right after dist.all_reduce on 8 ranks."),
    ("all_reduce silently returns wrong values with gloo",
     "dist.all_reduce with the gloo backend gives incorrect results when tensors are "
     "non-contiguous; no error is raised."),
    ("DDP gradients are not synchronized with no_sync and static_graph",
     "With DistributedDataParallel(static_graph=True) gradients are not synchronized across "
     "ranks after no_sync()."),
    ("FSDP2 worked in 2.5 but fails in 2.6",
     "fully_shard(model) worked in 2.5 but fails in 2.6 with a size mismatch."),
    ("Training hangs on 4 nodes",
     "With torchrun --nnodes 4 the job hangs in the first all_gather; NCCL timeout after "
     "10 minutes."),
    ("DCP checkpoint is corrupted after resharding",
     "Loading a checkpoint saved with dcp.save on 16 ranks onto 8 ranks gives a corrupted "
     "state_dict."),
    ("INTERNAL ASSERT in ProcessGroupNCCL",
     'RuntimeError: !work->isCompleted() INTERNAL ASSERT FAILED at '
     '"../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp":900'),
])
def test_step5_the_seeds_criteria_go_to_humans(queue, title, body):
    plan = plan_ok(make_issue(title, body), queue)
    assert plan.decision == "high_priority" and plan.awaiting_humans
    assert REVIEW in plan.add_labels
    assert MARKER not in plan.add_labels and TRIAGED not in plan.add_labels
    assert "high priority" not in plan.add_labels


@pytest.mark.parametrize(("title", "body"), [
    ("torchvision resize gives wrong output for uint8",
     "v2.Resize produces incorrect results for uint8 images; the output differs from PIL."),
    ("nn.functional.interpolate returns wrong values",
     "It produces wrong results on MPS compared to CPU. This used to work in 2.4."),
])
def test_step5_wrong_output_outside_distributed_code_is_not_high_priority(queue, title, body):
    plan = plan_ok(make_issue(title, body), queue)
    assert plan.decision != "high_priority"
    assert not plan.awaiting_humans


def test_step5_a_request_is_never_high_priority(queue):
    body = ("### 🚀 The feature, motivation and pitch\nRFC: a way to detect when gradients "
            "are not synchronized across DDP ranks would help users catch bugs.")
    plan = plan_ok(make_issue("[RFC] gradient sync checker for DDP", body), queue)
    assert plan.decision != "high_priority"


# ------------------------------------------------------------------ every allowlisted module

MODULE_CASES = {
    "module: fsdp": ("fully_shard drops the gradient of a tied weight",
                     fence("from torch.distributed.fsdp import fully_shard\n"
                           "fully_shard(model.layers[0])\nfully_shard(model)"), PAR),
    "module: ddp": ("DistributedDataParallel find_unused_parameters warning is wrong",
                    fence("model = DDP(net, device_ids=[rank], find_unused_parameters=True)"),
                    PAR),
    "module: dtensor": ("DTensor redistribute from Shard(0) to Replicate() loses a row",
                        fence("dt = distribute_tensor(t, mesh, [Shard(0)])\n"
                              "dt.redistribute(mesh, [Replicate()])"), PAR),
    "module: pipelining": ("ScheduleGPipe with 3 stages deadlocks on the last microbatch",
                           fence("from torch.distributed.pipelining import PipelineStage, "
                                 "ScheduleGPipe\nschedule = ScheduleGPipe(stage, 4)"), PAR),
    "module: context parallel": ("context_parallel gives NaN with a causal mask",
                                 fence("with context_parallel(mesh, buffers=[q, k, v]):\n"
                                       "    out = attn(q, k, v)"), PAR),
    "module: activation checkpointing": (
        "apply_activation_checkpointing recomputes twice with tensor parallel",
        fence("from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import "
              "apply_activation_checkpointing\napply_activation_checkpointing(model)\n"
              "parallelize_module(model, mesh, plan)"), PAR),
    "module: data parallel": ("nn.DataParallel returns outputs on the wrong device",
                              fence("model = torch.nn.DataParallel(net)\ny = model(x)"), PAR),
    "module: c10d": ("new_group with a subset of ranks blocks the other ranks",
                     "Calling dist.new_group(ranks=[0, 1]) on 4 ranks blocks ranks 2 and 3 "
                     "inside the process group creation.", INFRA),
    "module: nccl": ("ncclSystemError during the first all_reduce",
                     "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1270, unhandled "
                     "system error, NCCL version 2.21.5\nncclSystemError: socket closed",
                     INFRA),
    "module: DeviceMesh": ("init_device_mesh rejects mesh_dim_names with one name",
                           fence('mesh = init_device_mesh("cuda", (8,), '
                                 'mesh_dim_names=("dp",))\nmesh["dp"]'), INFRA),
    "module: rpc": ("rpc_sync to a remote worker times out with TensorPipe",
                    fence('rpc.init_rpc("w0", rank=0, world_size=2)\n'
                          'rpc.rpc_sync("w1", torch.add, args=(t, 1))'), INFRA),
    "module: elastic": ("torchrun rendezvous times out with the c10d backend",
                        "torchrun --rdzv_backend=c10d --rdzv_endpoint=head:29400 never "
                        "finishes the rendezvous: RendezvousTimeoutError.", INFRA),
    "module: mpi": ("MPI backend unavailable in my source build",
                    'dist.init_process_group(backend="mpi") raises: Distributed package '
                    "doesn't have MPI built in, although USE_MPI=1.", INFRA),
    "module: threaded pg": ("[threaded pg] MultiThreadedTestCase leaks threads",
                            "Each test of a MultiThreadedTestCase subclass leaves its "
                            "worker threads running.", INFRA),
    "module: distributed_tool": ("flight recorder dump misses the last collective",
                                 "With TORCH_NCCL_TRACE_BUFFER_SIZE=2000 the flight recorder "
                                 "dump has no entry for the collective that hung.", INFRA),
    "module: symm_mem": ("symm_mem.empty fails on the second rendezvous",
                         fence("import torch.distributed._symmetric_memory as symm_mem\n"
                               "buf = symm_mem.empty(1024, device='cuda')\n"
                               "symm_mem.rendezvous(buf, group)"), INFRA),
}


def test_every_allowlisted_module_has_a_signal_and_a_case_here(queue):
    signalled = {s.label for s in queue.rubric.signals}
    assert set(queue.modules) <= signalled
    assert set(MODULE_CASES) == set(queue.modules)


@pytest.mark.parametrize("module", sorted(MODULE_CASES))
def test_each_module_is_told_from_its_own_evidence(queue, module):
    title, body, sub = MODULE_CASES[module]
    plan = plan_ok(make_issue(title, body), queue)
    assert plan.add_labels[0] == sub
    assert module in plan.add_labels, plan.reasoning
    assert plan.scores.get(module, 0) > 0


# ------------------------------------------------------------------ selective triage

def _with(queue, **thresholds):  # type: ignore[no-untyped-def]
    return replace(queue, confidence=Selective(target_precision=0.95, default=0.0,
                                               thresholds=thresholds))


FSDP_ISSUE = ("fully_shard drops the gradient of a tied weight",
              fence("from torch.distributed.fsdp import fully_shard\nfully_shard(model)"))


def test_a_module_at_its_threshold_is_triaged(queue):
    q = _with(queue, **{"module: fsdp": 3.0})
    plan = plan_ok(make_issue(*FSDP_ISSUE), q)
    assert "module: fsdp" in plan.add_labels and TRIAGED in plan.add_labels
    assert REVIEW not in plan.add_labels


def test_a_module_below_its_threshold_is_proposed_and_flagged_for_review(queue):
    q = _with(queue, **{"module: fsdp": 50.0})
    plan = plan_ok(make_issue(*FSDP_ISSUE), q)
    assert plan.decision == "low_confidence"
    assert plan.add_labels[:2] == (PAR, "module: fsdp")
    assert REVIEW in plan.add_labels and TRIAGED not in plan.add_labels
    sure = plan.scores["module: fsdp"]
    assert 0 < sure < 50
    assert f"'module: fsdp' (confidence {sure:g} < 50) only proposed" in plan.reasoning


def test_a_route_below_its_threshold_is_routed_and_flagged(queue):
    title, body, _ = MODULE_CASES["module: c10d"]
    q = _with(queue, **{INFRA: 99.0})
    plan = plan_ok(make_issue(title, body), q)
    assert plan.add_labels[0] == INFRA
    assert REVIEW in plan.add_labels and TRIAGED not in plan.add_labels
    # The same issue with the threshold met is triaged when no module is proposed.
    plain = plan_ok(make_issue("new_group blocks the other ranks",
                               "Creating a process group for two of four ranks blocks the "
                               "others; the collective never starts."), _with(queue))
    assert plain.add_labels[0] == INFRA


def test_thresholds_come_from_the_queue_data(queue):
    # labels.json config.confidence: validated on load, a threshold per label it names.
    c = queue.confidence
    assert 0 < c.target_precision <= 1
    assert set(c.thresholds) <= set(queue.modules) | set(queue.suboncalls)


def test_keyword_soup_proposes_at_most_three_modules_and_asks_a_human(queue):
    body = ("fully_shard, DistributedDataParallel, distribute_tensor, PipelineStage, "
            "context_parallel, checkpoint_wrapper and nn.DataParallel all fail together.")
    plan = plan_ok(make_issue("everything is broken", body), queue)
    modules = [lb for lb in plan.add_labels if lb in queue.modules]
    assert 1 <= len(modules) <= plan_mod.MAX_PROPOSED_MODULES
    assert REVIEW in plan.add_labels and TRIAGED not in plan.add_labels
    assert "more than 3 modules" in plan.reasoning


def test_a_route_seen_only_in_the_repro_code_is_made_but_flagged(queue):
    # The FSDP state dict is the subject; DCP's helper is only how the repro gathers it.
    # Thresholds off, set here: the code-only rule, not a fitted threshold, flags it.
    queue = with_thresholds(queue)
    code = fence("from torch.distributed.checkpoint.state_dict import get_model_state_dict\n"
                 "sd = get_model_state_dict(model)\nprint(sorted(sd))")
    plan = plan_ok(make_issue("Missing keys after wrapping", "Some keys are missing.\n" + code),
                   queue)
    assert plan.add_labels[0] == "oncall: distributed checkpointing"
    assert REVIEW in plan.add_labels and TRIAGED not in plan.add_labels
    said = plan_ok(make_issue("get_model_state_dict misses keys",
                              "Some keys are missing.\n" + code), queue)
    assert said.add_labels[0] == "oncall: distributed checkpointing"
    assert TRIAGED in said.add_labels and REVIEW not in said.add_labels
