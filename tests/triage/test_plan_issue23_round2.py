"""Issue #23, round 2: the general rules found on the fit part's and blind2's errors
(blind2 read after its one blind run), each with a case it must change and a case it
must leave alone. Written for this file (no labelled issue's text); every plan also
passes the constraint checker (plankit.plan_ok)."""

from __future__ import annotations

import pytest

from agentops.triage.calibrate import unthresholded
from tests.triage.plankit import TRIAGED, fence, make_issue, plan_ok
from tests.triage.test_plan_issue23 import step1_evidence, trace

FSDP_REPRO = fence("model = FSDP(model, ignored_modules=[model.head])\n"
                   "model = torch.compile(model)\nloss = model(x).sum()")


# ------------------------------------------------------------------ the title's subject

@pytest.mark.parametrize("title", [
    "torch.compile fails with FSDP when some modules are ignored",
    "`torch.compile` failed in DDP with a custom hook",
    "inductor error when DDP wraps a model with SyncBatchNorm",
    "Inductor error on my model wrapped in DDP",
])
def test_a_title_about_the_compiler_failing_sends_it_to_the_compiler(queue, title):
    # The compiler is what the title says fails; the wrapper after the preposition is
    # where it was seen (the compiler team keeps these).
    plan = plan_ok(make_issue(title, "Compiling the wrapped model raises.\n" + FSDP_REPRO),
                   queue)
    assert plan.decision == "not_distributed", plan.reasoning
    assert "compiler_fails_in_title" in step1_evidence(plan, "against")


@pytest.mark.parametrize("title", [
    "FSDP fails under torch.compile when some modules are ignored",
    "torch.compile + FSDP cause a wrong gradient shape",
    "torch.compile is not compatible with DDP and SyncBatchNorm",
])
def test_a_title_where_the_component_is_a_subject_stays_distributed(queue, title):
    plan = plan_ok(make_issue(title, "Compiling the wrapped model raises.\n" + FSDP_REPRO),
                   queue)
    assert plan.decision != "not_distributed", plan.reasoning
    assert "module: ddp" in plan.add_labels or "module: fsdp" in plan.add_labels


def test_a_distributed_frame_at_the_top_keeps_a_compiler_title_distributed(queue):
    body = ("Compiling the wrapped model raises.\n" + FSDP_REPRO
            + trace("torch/_dynamo/eval_frame.py", "torch/distributed/fsdp/_flat_param.py",
                    error="AssertionError: flat param is not sharded"))
    plan = plan_ok(make_issue("torch.compile fails with FSDP when some modules are ignored",
                              body), queue)
    assert plan.decision != "not_distributed", plan.reasoning
    assert "module: fsdp" in plan.add_labels


# ------------------------------------------------------------------ platform test trackers

NCCL_TESTS = "TestModule: test/distributed/test_c10d_nccl.py::ProcessGroupNCCLTest"
TRACKER = ("{platforms}\n\nThese tests of ProcessGroupNCCL were disabled: all_reduce and "
           "broadcast with NCCL fail on the runners.\n\nROCm-skipped tests: 4")


def test_a_platform_tracker_of_distributed_tests_goes_to_the_platform(queue):
    plan = plan_ok(make_issue(NCCL_TESTS,
                              TRACKER.format(platforms="Platforms: rocm")), queue)
    assert plan.decision == "not_distributed", plan.reasoning
    assert "platform_owned_test" in step1_evidence(plan, "against")


def test_a_tracker_the_distributed_team_owns_stays_distributed(queue):
    body = ("Platforms: linux\n\nThese tests of ProcessGroupNCCL were disabled: all_reduce "
            "and broadcast with NCCL fail on the runners.")
    plan = plan_ok(make_issue(NCCL_TESTS,
                              body), queue)
    assert plan.decision != "not_distributed", plan.reasoning


def test_a_distributed_crash_in_a_platform_tracker_trace_stays_distributed(queue):
    body = (TRACKER.format(platforms="Platforms: rocm")
            + trace("torch/distributed/distributed_c10d.py",
                    error="RuntimeError: NCCL error: unhandled system error"))
    plan = plan_ok(make_issue(NCCL_TESTS,
                              body), queue)
    assert plan.decision != "not_distributed", plan.reasoning


# ------------------------------------------------------------------ multiprocessing

SPAWN = fence("import torch.multiprocessing as mp\n\ndef work(rank, model):\n    pass\n\n"
              "model = Net().to('cuda:0')\nmodel.share_memory()\n"
              "mp.spawn(work, args=(model,), nprocs=2)")


def test_spawning_processes_that_share_a_model_is_multiprocessing(queue):
    # mp.spawn starts processes for plain multiprocessing too: with no process group,
    # collective or parallel wrapper it is not distributed code.
    plan = plan_ok(make_issue("Multiprocessing with a CUDA model fails to share it",
                              "Spawning workers that share a CUDA module raises.\n" + SPAWN),
                   queue)
    assert plan.decision == "not_distributed", plan.reasoning
    assert "multiprocessing_title" in step1_evidence(plan, "against")


def test_spawned_workers_that_join_a_process_group_stay_distributed(queue):
    body = ("Each spawned worker joins the group and all_reduce hangs.\n"
            + SPAWN.replace("    pass", "    dist.init_process_group('nccl', rank=rank, "
                            "world_size=2)\n    dist.all_reduce(torch.ones(1).cuda(rank))"))
    plan = plan_ok(make_issue("Multiprocessing workers hang in all_reduce", body), queue)
    assert plan.decision != "not_distributed", plan.reasoning


# ------------------------------------------------------------------ rank-prefixed traces

def ranked_frames(*paths: str, error: str) -> str:
    """Frames as torchrun prints them through its per-rank prefix, no Traceback line."""
    lines = [f'[rank3]   File "/usr/lib/python3.10/site-packages/{p}", line {40 + i}, in f\n'
             f"[rank3]     return g(x)" for i, p in enumerate(paths)]
    return fence("\n".join([*lines, f"[rank3] {error}"]), "")


def test_a_rank_prefixed_trace_in_the_compiler_is_the_compilers(queue):
    body = ("Compiling one function of an 8-GPU training script with reduce-overhead "
            "raises:\n" + ranked_frames("torch/_inductor/compile_fx.py",
                                        "torch/_inductor/cudagraph_trees.py",
                                        error="RuntimeError: tensor output was overwritten"))
    plan = plan_ok(make_issue("RuntimeError: accessing an overwritten graph output", body),
                   queue)
    assert plan.decision == "not_distributed", plan.reasoning
    assert "compiler_at_top" in step1_evidence(plan, "against")


def test_a_rank_prefixed_trace_in_fsdp_stays_distributed(queue):
    body = ("One step of an 8-GPU training script raises:\n"
            + ranked_frames("torch/_inductor/compile_fx.py",
                            "torch/distributed/fsdp/_fully_shard/_fsdp_param.py",
                            error="RuntimeError: tensor output was overwritten"))
    plan = plan_ok(make_issue("RuntimeError: accessing an overwritten graph output", body),
                   queue)
    assert plan.decision != "not_distributed", plan.reasoning
    assert "module: fsdp" in plan.add_labels


# ------------------------------------------------------------------ a compiler-only title

TP_PROSE = ("Our model does tensor parallelism with all_reduce calls between layers. With "
            "CUDA graphs on, the profile shows over a hundred streams; without them, three.")


def test_a_title_naming_only_the_compiler_makes_prose_collectives_context(queue):
    plan = plan_ok(make_issue("torch.compile with CUDA graphs creates too many streams",
                              TP_PROSE), queue)
    assert plan.decision == "not_distributed", plan.reasoning
    assert "compiler_title" in step1_evidence(plan, "against")


def test_a_title_naming_the_compiler_and_a_component_stays_distributed(queue):
    plan = plan_ok(make_issue("torch.compile with tensor parallel creates too many streams",
                              TP_PROSE), queue)
    assert plan.decision != "not_distributed", plan.reasoning


def test_a_distributed_trace_keeps_a_compiler_title_distributed(queue):
    body = TP_PROSE + "\n" + trace("torch/_inductor/graph.py",
                                   "torch/distributed/distributed_c10d.py",
                                   error="RuntimeError: NCCL error: invalid usage")
    plan = plan_ok(make_issue("torch.compile with CUDA graphs creates too many streams",
                              body), queue)
    assert plan.decision != "not_distributed", plan.reasoning


def test_the_compiler_counts_once_against_a_component_title(queue):
    # Named in the title and in the code, the compiler counts once: a DDP title with
    # a DDP error stays an uncontested DDP report.
    body = ("The second step raises.\n"
            + fence("model = DDP(torch.compile(Net().cuda()), device_ids=[rank])\n"
                    "model(x).sum().backward()"))
    plan = plan_ok(make_issue("DDP static_graph and torch.compile: reducer error on step 2",
                              body), queue)
    assert plan.decision != "not_distributed", plan.reasoning
    assert "contested" not in plan.reasoning


def test_a_distributed_error_named_after_the_compiler_failing_stays_distributed(queue):
    # The title names a DTensor dispatch error of its own: that is a subject too.
    plan = plan_ok(make_issue("torch.compile fails with DTensor: aten.view.dtype does not "
                              "have a sharding strategy registered",
                              "Compiling a DTensor model raises.\n"
                              + fence("y = torch.compile(f)(distribute_tensor(x, mesh))")),
                   queue)
    assert plan.decision != "not_distributed", plan.reasoning
    assert "module: dtensor" in plan.add_labels


# ------------------------------------------------------------------ a rival module in the title

OBJ_BODY = ("With the gloo backend it works; the same call on 2 GPUs raises.\n"
            + fence("dist.init_process_group(backend)\nout = [None] * 2\n"
                    "dist.all_gather_object(out, {'rank': rank})"))


def test_a_module_proposal_beside_another_titled_module_is_not_triaged(queue):
    # The title names the object collective (c10d) and the backend it fails on (NCCL):
    # which one is the root cause is the sub-team's call, so no `triaged`. Since round 4
    # the backend given as the condition ("with the NCCL backend") is proposed; since
    # module round 5 it is proposed alone (the collective is where the backend's bug
    # shows), and the c10d the title still names is the rival that withholds `triaged`.
    # Thresholds off: the rival rule, not a module's threshold, withholds `triaged`.
    plan = plan_ok(make_issue("all_gather_object fails with the NCCL backend", OBJ_BODY),
                   unthresholded(queue))
    assert "oncall: distributed infra" in plan.add_labels
    assert "module: nccl" in plan.add_labels and "module: c10d" not in plan.add_labels
    assert TRIAGED not in plan.add_labels, plan.reasoning


def test_a_single_titled_module_proposal_is_still_triaged(queue):
    # The rival-module rule alone does not withhold `triaged` from one titled module:
    # with selective thresholds off, the plan is triaged. With the shipped thresholds
    # the module's own threshold decides, as for any other proposal.
    issue = make_issue("all_gather_object fails with a pickling error", OBJ_BODY)
    plan = plan_ok(issue, unthresholded(queue))
    assert "module: c10d" in plan.add_labels
    assert TRIAGED in plan.add_labels, plan.reasoning
    shipped = plan_ok(issue, queue)
    assert "module: c10d" in shipped.add_labels
    sure = shipped.scores["module: c10d"] >= queue.confidence.threshold("module: c10d")
    assert (TRIAGED in shipped.add_labels) == sure, shipped.reasoning


@pytest.mark.parametrize("title", [
    "torch.compile fails on DTensor redistribute from Shard to Replicate",
    "torch.compile fails with FSDP2 fully_shard and activation checkpointing",
])
def test_the_compiler_failing_on_a_component_it_traces_is_not_sent_away(queue, title):
    # DTensor and fully_shard are traced through by the compiler, not wrapped around
    # it: no "not distributed" verdict from the title alone.
    body = "Compiling it raises.\n" + fence(
        "fully_shard(model)\nd = distribute_tensor(x, mesh, [Shard(0)])\n"
        "torch.compile(model)(d)")
    plan = plan_ok(make_issue(title, body), queue)
    assert plan.decision != "not_distributed", plan.reasoning
