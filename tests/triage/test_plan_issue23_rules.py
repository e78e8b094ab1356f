"""Issue #23, second pass: each general rule found on the fit part's errors (and on
hand-written issues of the seed's kinds) with a case it must change and a case it must
leave alone; then more hand-written cases of the seed's steps in other words than
test_plan_issue23.py. Written for this file (no labelled issue's text); every plan also
passes the constraint checker (plankit.plan_ok)."""

from __future__ import annotations

import pytest

from tests.triage.plankit import CKPT, PAR, fence, make_issue, plan_ok
from tests.triage.test_plan_issue23 import step1_evidence, trace

REVIEW, MARKER, TRIAGED = "triage review", "bot-triaged", "triaged"


def modules(plan) -> set[str]:  # type: ignore[no-untyped-def]
    return {lb for lb in plan.add_labels if lb.startswith("module: ")}


# ------------------------------------------------------------------ step 1 rules

OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB\n"


def test_distributed_code_blocks_a_verdict_on_weak_evidence(queue):
    # T-11 "no distributed code": the repro wraps the model in FSDP; one device's error
    # in the title does not send it elsewhere. Contested, so never `triaged`.
    plan = plan_ok(make_issue("CUDA out of memory in the first step",
                              OOM + fence("model = FSDP(model, device_id=rank)\n"
                                          "loss = model(x).sum()")), queue)
    assert plan.decision != "not_distributed", plan.reasoning
    assert "fsdp_api" in step1_evidence(plan, "for")
    assert TRIAGED not in plan.add_labels and "contested" in plan.reasoning


def test_single_device_code_still_routes_away(queue):
    plan = plan_ok(make_issue("CUDA out of memory in the first step",
                              OOM + fence("model = Net().cuda()\nloss = model(x).sum()")),
                   queue)
    assert plan.decision == "not_distributed", plan.reasoning


def test_a_package_pin_in_a_code_block_is_not_a_packaging_report(queue):
    # A pip list naming nvidia-nccl-cu12 is the environment, not the subject: the FSDP
    # report in the prose decides.
    body = ("With fully_shard on 8 GPUs training stops making progress after two hours.\n"
            + fence("torch==2.8.0\nnvidia-nccl-cu12==2.27.3\nnumpy==2.1.0", ""))
    plan = plan_ok(make_issue("Training hangs after two hours", body), queue)
    assert plan.decision != "not_distributed", plan.reasoning
    assert "module: fsdp" in plan.add_labels


def test_a_packaging_report_in_the_prose_still_routes_away(queue):
    plan = plan_ok(make_issue("Bump NCCL to 2.27.3 in the nightly wheels",
                              "The nightly wheels still ship nvidia-nccl-cu12 2.26, which has "
                              "a known bug; please update the pin."), queue)
    assert plan.decision == "not_distributed", plan.reasoning


DTENSOR_IN_COMPILE = trace("torch/_dynamo/eval_frame.py", "torch/_dynamo/convert_frame.py",
                           "torch/distributed/tensor/_dispatch.py",
                           "torch/_subclasses/fake_tensor.py",
                           error="torch._dynamo.exc.TorchRuntimeError: Failed running "
                                 "call_function aten.mm")
DDP_AROUND_COMPILE = trace("torch/nn/parallel/distributed.py", "torch/_dynamo/eval_frame.py",
                           "torch/_dynamo/convert_frame.py", "torch/_subclasses/fake_tensor.py",
                           error="torch._dynamo.exc.TorchRuntimeError: Failed running "
                                 "call_function aten.mm")


def test_distributed_frames_inside_the_compilers_frames_are_the_subject(queue):
    # The compiler was tracing DTensor's dispatch when it failed: DTensor is on the
    # failing path, so the issue stays distributed (contested: no `triaged`).
    plan = plan_ok(make_issue("Compiling my model fails", "It fails:\n" + DTENSOR_IN_COMPILE),
                   queue)
    assert plan.decision != "not_distributed", plan.reasoning
    assert "distributed_frame_inside_other_owner" in step1_evidence(plan, "for")
    assert "module: dtensor" in plan.add_labels
    assert TRIAGED not in plan.add_labels


def test_a_ddp_wrapper_around_the_compiler_stays_incidental(queue):
    plan = plan_ok(make_issue("Compiling my model fails", "It fails:\n" + DDP_AROUND_COMPILE),
                   queue)
    assert plan.decision == "not_distributed", plan.reasoning


INDUCTOR = "torch._inductor.exc.InductorError: LoweringException: AssertionError\n"
DDP_COMPILE = fence("model = DDP(model)\nmodel = torch.compile(model)")


def test_a_title_component_the_report_rules_out_is_incidental(queue):
    # "without DDP it fails the same way": DDP is where it was seen, not what is wrong,
    # and the compiler raised the error.
    body = ("Under DDP the compiled model fails; without DDP it fails the same way:\n"
            + INDUCTOR + DDP_COMPILE)
    plan = plan_ok(make_issue("Inductor error on my model wrapped in DDP", body), queue)
    assert plan.decision == "not_distributed", plan.reasoning
    assert "ddp_api" in step1_evidence(plan, "for")  # listed, as context


def test_a_title_component_not_ruled_out_stays_contested(queue):
    # DDP leads the title, the compiler raised: both are subjects, so contested. (With
    # the compiler's failure leading the title, "Inductor error on my model wrapped in
    # DDP", the title's subject is the compiler: round 2, test_plan_issue23_round2.py.)
    body = "Under DDP the compiled model fails:\n" + INDUCTOR + DDP_COMPILE
    plan = plan_ok(make_issue("DDP model fails with an Inductor error", body), queue)
    assert plan.decision != "not_distributed", plan.reasoning
    assert "contested" in plan.reasoning and TRIAGED not in plan.add_labels


@pytest.mark.parametrize("title", ["Illegal memory access in all-gather with bf16",
                                   "reduce-scatter crashes with an illegal memory access"])
def test_a_hyphenated_collective_is_a_collective(queue, title):
    plan = plan_ok(make_issue(title, "During training on 8 GPUs it raises CUDA error: an "
                                     "illegal memory access was encountered."), queue)
    assert plan.decision == "high_priority", plan.reasoning
    assert "collective_ops" in step1_evidence(plan, "for")


def test_a_missing_shared_library_is_packaging(queue):
    plan = plan_ok(make_issue("Test binaries are not built with an rpath to libnccl",
                              "Running build/bin/test_api says libnccl.so.2 could not be "
                              "found."), queue)
    assert plan.decision == "not_distributed", plan.reasoning
    assert "build_packaging" in step1_evidence(plan, "against")


def test_a_found_shared_library_is_no_packaging_evidence(queue):
    plan = plan_ok(make_issue("all_reduce hangs on 2 nodes",
                              "libnccl.so.2 is found and loaded, but dist.all_reduce hangs on "
                              "2 nodes."), queue)
    assert plan.decision != "not_distributed"
    assert "build_packaging" not in step1_evidence(plan, "against")


# ------------------------------------------------------------------ step 2 rule

DCP_IMPORT = "from torch.distributed.checkpoint.state_dict import get_model_state_dict\n"


def test_a_route_from_the_repros_imports_yields_to_the_titles_component(queue):
    body = ("The wrapped module's parameters are missing after summon.\n"
            + fence(DCP_IMPORT + "model = FSDP(model, use_orig_params=True)\n"
                    "sd = get_model_state_dict(model)"))
    plan = plan_ok(make_issue("FSDP use_orig_params drops parameters of shared submodules",
                              body), queue)
    assert plan.add_labels[0] == PAR, plan.reasoning
    assert "module: fsdp" in plan.add_labels


def test_checkpointing_in_the_prose_still_takes_precedence(queue):
    body = ("Saving the checkpoint with dcp.save and loading it on 4 ranks misses keys.\n"
            + fence(DCP_IMPORT + "model = FSDP(model, use_orig_params=True)\n"
                    "dcp.save(get_model_state_dict(model), checkpoint_id=path)"))
    plan = plan_ok(make_issue("FSDP model: keys missing after loading", body), queue)
    assert plan.add_labels[0] == CKPT, plan.reasoning


# ------------------------------------------------------------------ step 3 rules

def test_a_second_module_named_only_in_passing_is_context(queue):
    body = ("With FSDP2 the tied weight is sharded twice. It worked before we moved from "
            "DDP.\n" + fence("fully_shard(model.layers[0])\nfully_shard(model)"))
    plan = plan_ok(make_issue("fully_shard fails with tied embeddings", body), queue)
    assert modules(plan) == {"module: fsdp"}, plan.reasoning


def test_a_second_module_the_report_shows_is_kept(queue):
    body = ("With FSDP2 the tied weight is sharded twice, and under DDP the same model "
            "fails too.\n" + fence("fully_shard(model.layers[0])\nfully_shard(model)\n"
                                   "ddp_model = DDP(other)"))
    plan = plan_ok(make_issue("fully_shard fails with tied embeddings", body), queue)
    assert modules(plan) == {"module: fsdp", "module: ddp"}, plan.reasoning


def test_dtensor_leading_the_title_is_kept_beside_fsdp(queue):
    plan = plan_ok(make_issue("DTensor does not support bitwise ops, breaking FSDP gradient "
                              "clipping", "clip_grad_norm_ on fully_shard params fails."),
                   queue)
    assert modules(plan) == {"module: fsdp", "module: dtensor"}, plan.reasoning


def test_dtensor_after_fsdp_in_the_title_stays_fsdps(queue):
    plan = plan_ok(make_issue("FSDP2 state dict holds DTensor values that load_state_dict "
                              "ignores", "After fully_shard the state dict holds DTensor "
                                         "values; load_state_dict ignores them."), queue)
    assert modules(plan) == {"module: fsdp"}, plan.reasoning


@pytest.mark.parametrize("title", ["full_tensor() returns zeros for a sharded weight",
                                   "to_local() loses the gradient of a Partial placement"])
def test_dtensor_methods_name_dtensor(queue, title):
    plan = plan_ok(make_issue(title, "Seen on 2 ranks."), queue)
    assert modules(plan) == {"module: dtensor"}, plan.reasoning


# ------------------------------------------------------------------ the seed's steps, other words

@pytest.mark.parametrize(("title", "body"), [
    # One GPU, no distributed code.
    ("CUDA out of memory when fine-tuning on one GPU",
     "Fine-tuning on a single A100 raises torch.OutOfMemoryError: CUDA out of memory.\n"
     + fence("model = AutoModel.from_pretrained(name).cuda()\nout = model(x)")),
    # The seed's build example.
    ("import torch fails after install",
     "`import torch` raises ImportError: libtorch_cuda.so: undefined symbol: ncclAlltoAll"),
    # Pure torch.compile.
    ("Graph break on custom autograd Function",
     "torch.compile(fullgraph=True) fails with a graph break in my autograd.Function.\n"
     + fence("@torch.compile(fullgraph=True)\ndef f(x):\n    return MyFn.apply(x)")),
    # A domain library that happens to mention distributed.
    ("torchaudio resample gives NaN",
     "torchaudio.functional.resample returns NaN for 8 kHz input. Our pipeline is "
     "distributed, but this reproduces in a plain script.\n"
     + fence("import torchaudio\ny = torchaudio.functional.resample(x, 8000, 16000)")),
    # Negation in other words.
    ("NaN loss in my training loop",
     "I'm not using distributed training; this is plain single-GPU training and the loss "
     "becomes NaN after 10 steps."),
    ("Segfault in conv2d backward",
     "This is not a distributed setup: one process, one GPU. conv2d backward segfaults.\n"
     + fence("x = torch.randn(8, 3, 224, 224, device='cuda')\nconv(x).sum().backward()")),
    # Platform-owned disabled tests, whatever component they exercise: the report names
    # the platform as where it fails, beyond the disable bot's "Platforms:" line.
    ("DISABLED test_fsdp_grad_acc (__main__.TestFSDPGradAcc)",
     "Platforms: rocm\n\nThis test was disabled because it is failing on main branch "
     "on MI300."),
    ("DISABLED test_all_gather (__main__.ProcessGroupXCCLTest)",
     "Platforms: xpu\n\nThis test was disabled because it is flaky on XPU."),
    # Data loading, shared memory, torch.multiprocessing, another device.
    ("DataLoader with num_workers=4 crashes",
     "RuntimeError: unable to open shared memory object </torch_123> in read-write mode"),
    ("torch.multiprocessing Queue deadlocks",
     "Passing CUDA tensors through torch.multiprocessing.Queue deadlocks with spawn.\n"
     + fence("import torch.multiprocessing as mp\nq = mp.Queue()")),
    ("Wrong results on MPS for matmul",
     "torch.matmul on the mps device returns wrong values for float16."),
])
def test_step1_routes_away_in_other_words(queue, title, body):
    plan = plan_ok(make_issue(title, body), queue)
    assert plan.decision == "not_distributed", plan.reasoning
    assert set(plan.add_labels) == {REVIEW, MARKER}
    assert step1_evidence(plan, "against"), plan.evidence


@pytest.mark.parametrize(("title", "body"), [
    ("DDP gradients are not averaged across ranks with no_sync",
     "After no_sync, ranks end up with different weights; no error, training silently "
     "diverges.\n" + fence("with model.no_sync():\n    loss.backward()")),
    ("all_reduce returns incorrect results for int8 on NCCL",
     "dist.all_reduce gives wrong values for int8 tensors.\n" + fence("dist.all_reduce(t)")),
    ("DDP training regressed after upgrading to 2.6",
     "After upgrading from 2.5 to 2.6, DDP throughput dropped by 40%.\n"
     + fence("model = DDP(model)")),
    ("Job hangs in barrier on 16 nodes",
     "Our torchrun job with 16 nodes hangs forever at dist.barrier() after checkpointing.\n"
     + fence("dist.barrier()")),
    ("Segmentation fault in ProcessGroupGloo allgather",
     "Calling all_gather on gloo with CPU tensors segfaults.\n" + fence("dist.all_gather(o, t)")),
    ("DCP checkpoint corrupted after resharding",
     "Loading a DCP checkpoint saved on 8 ranks on 4 ranks gives corrupted tensors.\n"
     + fence("dcp.load(sd, checkpoint_id=path)")),
])
def test_step5_high_priority_in_other_words(queue, title, body):
    plan = plan_ok(make_issue(title, body), queue)
    assert plan.decision == "high_priority", plan.reasoning
    assert REVIEW in plan.add_labels
    assert TRIAGED not in plan.add_labels and MARKER not in plan.add_labels


@pytest.mark.parametrize("title", ["TP loses gradients under torch.compile",
                                   "Uneven DTensors break torch.compile",
                                   "Expert parallelism breaks torch.compile"])
def test_parallelism_names_people_use_are_distributed_subjects(queue, title):
    # A compiler word in the title too: only the parallelism name keeps it distributed.
    plan = plan_ok(make_issue(title, "inductor recompiles on every step."), queue)
    assert plan.decision != "not_distributed", plan.reasoning
    assert plan.add_labels[0] == PAR


def test_a_capitalised_abbreviation_needs_its_case(queue):
    # "tp" in lower case is no parallelism name: with a compiler word in the title and
    # nothing distributed, the compiler owns it.
    plan = plan_ok(make_issue("torch.compile recompiles on every tp of the scheduler",
                              "inductor recompiles on every step."), queue)
    assert plan.decision == "not_distributed", plan.reasoning


@pytest.mark.parametrize("title", ["broadcast_object_list hangs when one rank passes None",
                                   "all_gather_object returns stale objects on rank 1"])
def test_an_object_collective_names_the_process_group_layer(queue, title):
    plan = plan_ok(make_issue(title, "Seen with the gloo backend on 2 processes."), queue)
    assert "module: c10d" in plan.add_labels, plan.reasoning
    assert plan.add_labels[0] == "oncall: distributed infra"
