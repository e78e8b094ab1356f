"""The pure planner on hand-written issues: one or more per step, edge case and
constraint of the spec (T-10 … T-16, T-20 … T-26). Every plan also passes the
constraint checker (plankit.plan_ok)."""

from __future__ import annotations

import pytest

from agentops.triage.model import Comment
from agentops.triage.plan import plan_issue
from agentops.triage.queue import load_queue
from tests.triage.plankit import (
    CKPT,
    INFRA,
    PAR,
    QUEUE_LABEL,
    fence,
    make_issue,
    plan_ok,
    with_thresholds,
)

DDP_REPRO = fence("""
import torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("nccl")
model = DDP(Net().cuda(), device_ids=[rank])
model(x).sum().backward()
""")

FSDP_REPRO = fence("""
import torch
from torch.distributed.fsdp import fully_shard
for layer in model.layers:
    fully_shard(layer)
fully_shard(model)
model(x).sum().backward()
""")


def frames(*paths: str, error: str = "RuntimeError: boom") -> str:
    """A Python traceback through the given files (outermost first)."""
    lines = ["Traceback (most recent call last):", '  File "train.py", line 10, in <module>']
    lines += [f'  File "/venv/lib/python3.11/site-packages/{p}", line {100 + i}, in f{i}'
              for i, p in enumerate(paths)]
    return fence("\n".join([*lines, error]), "")


# ------------------------------------------------------------------ step 0 (T-10)

def test_step0_human_classified_gets_marker_and_triaged(queue):
    snap = make_issue("FSDP2 leaks memory", "details", labels=(QUEUE_LABEL, PAR, "module: fsdp"))
    plan = plan_ok(snap, queue)
    assert plan.decision == "already_classified"
    assert plan.add_labels == ("bot-triaged", "triaged")
    assert plan.comments == ()


def test_step0_never_adds_a_label_already_there(queue):
    snap = make_issue("x", labels=(QUEUE_LABEL, PAR, "module: fsdp", "bot-triaged"))
    assert plan_ok(snap, queue).add_labels == ("triaged",)
    # On infra with the first-level bot's marker: the text does not lead this planner to
    # that route and module, so it is a human's classification (T-10), not a proposal.
    infra = make_issue("x", labels=(QUEUE_LABEL, INFRA, "module: c10d", "bot-triaged"))
    assert plan_ok(infra, queue).add_labels == ("triaged",)


def test_review_without_marker_awaits_humans_and_adds_nothing(queue):
    # A human asked for review (or this bot's high-priority path left it so): T-15/T-27.
    snap = make_issue("x", labels=(QUEUE_LABEL, INFRA, "module: nccl", "triage review"))
    plan = plan_ok(snap, queue)
    assert plan.add_labels == () and plan.comments == ()
    assert plan.awaiting_humans and "awaits humans" in plan.reasoning
    # With the marker (the low-confidence path's end state) step 0 goes on as usual.
    marked = plan_ok(make_issue("x", labels=(*snap.labels, "bot-triaged")), queue)
    assert marked.decision == "already_classified" and "triaged" not in marked.add_labels


def test_high_priority_with_the_first_level_marker_plans_nothing_on_a_rerun(queue):
    # The first-level bot's `bot-triaged` is already there (T-2), so the end state of the
    # high-priority path carries the marker too; the rerun must still ask nothing (T-27).
    body = "Segmentation fault (core dumped) in ProcessGroupNCCL during all_reduce."
    snap = make_issue("ProcessGroupNCCL segfaults in all_reduce", body,
                      labels=(QUEUE_LABEL, "bot-triaged", "needs reproduction"))
    first = plan_ok(snap, queue)
    assert first.decision == "high_priority" and first.comments == ()
    again = plan_ok(make_issue(snap.title, body, labels=snap.labels + first.add_labels), queue)
    assert again.add_labels == () and again.comments == ()


def test_high_priority_end_state_plans_nothing_on_a_rerun(queue):
    body = "Segmentation fault (core dumped) in ProcessGroupNCCL during all_reduce."
    snap = make_issue("ProcessGroupNCCL segfaults in all_reduce", body,
                      labels=(QUEUE_LABEL, "module: c10d", "needs reproduction"))
    first = plan_ok(snap, queue)
    assert first.decision == "high_priority"
    again = plan_ok(make_issue(snap.title, body, labels=snap.labels + first.add_labels), queue)
    assert again.add_labels == () and again.comments == ()


def test_step0_module_without_suboncall_continues_and_routes_by_the_module(queue):
    snap = make_issue("Something is off", "no details", labels=(QUEUE_LABEL, "module: rpc"))
    plan = plan_ok(snap, queue)
    assert plan.decision == "route"
    assert plan.add_labels[0] == INFRA
    assert "module: rpc" not in plan.add_labels


def test_step0_suboncall_without_module_continues(queue):
    snap = make_issue("ProcessGroupGloo allgather returns stale data", "prose only",
                      labels=(QUEUE_LABEL, INFRA))
    plan = plan_ok(snap, queue)
    assert plan.decision == "route"
    # the module the text shows is proposed for the sub-team; `triaged` waits for it
    assert plan.add_labels == ("module: c10d", "bot-triaged")
    # T-27: the issue as this run leaves it plans nothing more (not read as human triage)
    again = plan_ok(make_issue(snap.title, snap.body, labels=snap.labels + plan.add_labels),
                    queue)
    assert again.decision == "already_classified" and again.add_labels == ()
    # the same labels set by a human (no marker yet) are a human's triage (T-10)
    confirmed = plan_ok(make_issue(snap.title, snap.body,
                                   labels=(QUEUE_LABEL, INFRA, "module: c10d")), queue)
    assert confirmed.add_labels == ("bot-triaged", "triaged")


def test_existing_suboncall_is_never_joined_by_a_second(queue):
    # The text reads like FSDP, but a human already routed it to infra (T-12, T-22).
    snap = make_issue("FSDP fully_shard fails", FSDP_REPRO, labels=(QUEUE_LABEL, INFRA))
    plan = plan_ok(snap, queue)
    assert not {PAR, CKPT} & set(plan.add_labels)
    assert plan.decision == "route"


def test_existing_parallelisms_goes_on_to_modules(queue):
    snap = make_issue("fully_shard + CPUOffloadPolicy fails in backward", FSDP_REPRO,
                      labels=(QUEUE_LABEL, PAR))
    plan = plan_ok(snap, queue)
    assert plan.decision == "classify"
    assert plan.add_labels == ("module: fsdp", "bot-triaged", "triaged")


# ------------------------------------------------------------------ step 1 (T-11)

def test_step1_build_error_naming_nccl_is_not_distributed(queue):
    body = fence("""
>>> import torch
ImportError: /opt/conda/torch/lib/libtorch_cuda.so: undefined symbol: ncclAlltoAll
""", "")
    plan = plan_ok(make_issue("import torch fails after pip install", body), queue)
    assert plan.decision == "not_distributed"
    assert plan.add_labels == ("triage review", "bot-triaged")
    assert plan.comments == ("not_distributed",)
    assert QUEUE_LABEL not in plan.add_labels  # kept, never re-added or removed


def test_step1_pure_compile_issue_is_not_distributed(queue):
    body = "torch.compile with mode='max-autotune' recompiles on every call.\n" + fence(
        "model = torch.compile(model)\nfor x in batches:\n    model(x)")
    plan = plan_ok(make_issue("inductor recompiles every step", body), queue)
    assert plan.decision == "not_distributed"


def test_step1_compile_with_ddp_is_distributed(queue):
    body = "Compiling the DDP-wrapped model fails.\n" + DDP_REPRO
    plan = plan_ok(make_issue("torch.compile of a DDP model raises", body), queue)
    assert plan.decision != "not_distributed"
    assert "module: ddp" in plan.add_labels


def test_step1_single_gpu_oom_is_not_distributed(queue):
    body = "Training on a single GPU runs into CUDA out of memory at batch size 64."
    plan = plan_ok(make_issue("OOM with a large batch", body), queue)
    assert plan.decision == "not_distributed"


def test_step1_domain_library_that_mentions_distributed(queue):
    body = ("torchvision.io.read_video returns fewer frames than the container has. "
            "We noticed it while running our distributed data pipeline.")
    plan = plan_ok(make_issue("torchvision read_video drops frames", body), queue)
    assert plan.decision == "not_distributed"


def test_step1_vague_issue_without_positive_evidence_is_not_flagged(queue):
    plan = plan_ok(make_issue("My model does not converge", "It just does not learn."), queue)
    assert plan.decision != "not_distributed"


def test_step1_equivalent_comment_skips_the_comment_but_keeps_labels(queue):
    old = Comment(id=5, author="helper-bot[bot]", author_type="Bot",
                  body="This issue does not seem to involve distributed training; a human "
                       "will re-route it.")
    snap = make_issue("inductor graph break on a data-dependent branch",
                      "torch.compile fails with a graph break", comments=(old,))
    plan = plan_ok(snap, queue)
    assert plan.decision == "not_distributed"
    assert plan.comments == ()
    assert plan.add_labels == ("triage review", "bot-triaged")
    assert "skipped" in plan.reasoning


# ------------------------------------------------------------------ step 2 (T-12)

def test_route_nccl_timeout_during_fsdp_training_is_infra(queue):
    body = ("FSDP training on one node with 8 GPUs stops after 2000 steps.\n"
            + fence("[rank3]:[E ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective "
                    "operation timeout: WorkNCCL(SeqNum=9000, OpType=_ALLGATHER_BASE, "
                    "Timeout(ms)=600000) ran for 600001 milliseconds before timing out.", ""))
    # Thresholds off, set here: T-12's edge case, not a fitted threshold, is under test.
    plan = plan_ok(make_issue("FSDP job dies with a watchdog timeout", body),
                   with_thresholds(queue))
    assert plan.add_labels[0] == INFRA
    assert plan.decision == "route"
    assert "triaged" in plan.add_labels


def test_route_fsdp_checkpoint_save_load_is_checkpointing(queue):
    body = ("Saving the FSDP model with DCP works but loading on 4 ranks fails.\n"
            + fence("import torch.distributed.checkpoint as dcp\n"
                    "dcp.save({'model': model.state_dict()}, checkpoint_id=path)\n"
                    "dcp.load({'model': model.state_dict()}, checkpoint_id=path)"))
    plan = plan_ok(make_issue("FSDP checkpoint load fails on fewer ranks", body), queue)
    assert plan.add_labels[0] == CKPT
    assert plan.decision == "route"


def test_route_fsdp_state_dict_config_internals_is_parallelisms(queue):
    body = ("ShardedStateDictConfig(offload_to_cpu=True) is ignored: the sharded state dict "
            "stays on GPU when we save the checkpoint.\n"
            + fence("with FSDP.state_dict_type(model, StateDictType.SHARDED_STATE_DICT,\n"
                    "                         ShardedStateDictConfig(offload_to_cpu=True)):\n"
                    "    sd = model.state_dict()"))
    plan = plan_ok(make_issue("FSDP sharded state dict ignores offload_to_cpu", body), queue)
    assert plan.add_labels[0] == PAR
    assert "module: fsdp" in plan.add_labels


def test_route_torchrun_rendezvous_failure_with_ddp_is_infra(queue):
    body = ("Our DDP job never starts: torchrun fails during rendezvous.\n" + DDP_REPRO
            + fence("torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError", ""))
    plan = plan_ok(make_issue("torchrun --rdzv_backend=c10d cannot form the group", body), queue)
    assert plan.add_labels[0] == INFRA


def test_route_torchrun_launch_works_but_ddp_fails_is_parallelisms(queue):
    body = ("torchrun starts all 8 workers fine; the first backward then fails.\n" + DDP_REPRO
            + fence("RuntimeError: Expected to have finished reduction in the prior iteration "
                    "before starting a new one.", ""))
    plan = plan_ok(make_issue("DDP raises about reduction in prior iteration", body), queue)
    assert plan.add_labels[:2] == (PAR, "module: ddp")


def test_route_backend_selection_error_is_infra(queue):
    body = fence('dist.init_process_group(backend="ucc")', "python") + fence(
        "RuntimeError: Distributed package doesn't have UCC built in", "")
    plan = plan_ok(make_issue("init_process_group fails to select the backend", body), queue)
    assert plan.add_labels[0] == INFRA


def test_route_precedence_checkpointing_over_infra(queue):
    body = ("dcp.async_save stalls and later the job prints an NCCL error in "
            "ProcessGroupNCCL.\n" + fence("dcp.async_save(state_dict, checkpoint_id=path)"))
    plan = plan_ok(make_issue("async checkpoint save stalls", body), queue)
    assert plan.add_labels[0] == CKPT


def test_unsure_default_route_is_not_confident(queue):
    snap = make_issue("Distributed training is slower than expected",
                      "We moved to 16 GPUs and it feels slower.")
    plan = plan_ok(snap, queue)
    assert plan.add_labels[0] == PAR
    assert "triaged" not in plan.add_labels
    assert "triage review" in plan.add_labels
    assert plan.confidence == "low"
    assert any(e.signal.startswith("rule:T-12 default") for e in plan.evidence)


# ------------------------------------------------------------------ step 3 (T-13)

def test_innermost_frame_outweighs_words(queue):
    body = ("We moved from DDP to FSDP last week; since then the forward fails.\n"
            + FSDP_REPRO + frames("torch/distributed/fsdp/_runtime_utils.py",
                                  "torch/distributed/fsdp/_flat_param.py"))
    plan = plan_ok(make_issue("forward fails after the migration", body), queue)
    assert "module: fsdp" in plan.add_labels
    assert "module: ddp" not in plan.add_labels


def test_trace_through_c10d_is_not_c10d_when_fsdp_uses_it(queue):
    body = FSDP_REPRO + frames("torch/distributed/fsdp/_flat_param.py",
                               "torch/distributed/distributed_c10d.py",
                               error="RuntimeError: output tensor size must be equal to "
                                     "world_size times input tensor size")
    plan = plan_ok(make_issue("fully_shard with uneven params breaks", body), queue)
    assert plan.add_labels[:2] == (PAR, "module: fsdp")
    assert "module: c10d" not in plan.add_labels
    assert any(e.label == "module: fsdp" and e.where == "traceback" for e in plan.evidence)


def test_sharding_alone_is_not_fsdp(queue):
    body = ("The sharding of my embedding table across 2 GPUs gives the wrong shapes.\n"
            + fence("emb = shard_rows(table, world_size)\nprint(emb.shape)"))
    plan = plan_ok(make_issue("sharding gives wrong shapes", body), queue)
    assert "module: fsdp" not in plan.add_labels


def test_data_parallel_without_process_group_is_legacy_module(queue):
    body = fence("model = torch.nn.DataParallel(model).cuda()\nout = model(x)")
    plan = plan_ok(make_issue("nn.DataParallel scatters a dict input wrongly", body), queue)
    assert plan.add_labels[:2] == (PAR, "module: data parallel")


def test_data_parallel_words_with_process_group_are_not_legacy(queue):
    body = ("Data parallel training breaks.\n" + DDP_REPRO)
    plan = plan_ok(make_issue("data parallel training breaks on 2 GPUs", body), queue)
    assert "module: data parallel" not in plan.add_labels
    assert "module: ddp" in plan.add_labels


def test_devicemesh_used_by_fsdp2_is_not_devicemesh(queue):
    body = fence("""
mesh = init_device_mesh("cuda", (2, 4), mesh_dim_names=("dp", "tp"))
fully_shard(model, mesh=mesh["dp"])
model(x).sum().backward()
""") + frames("torch/distributed/_composable/fsdp/_fsdp_param.py")
    plan = plan_ok(make_issue("fully_shard on a 2D mesh fails in backward", body), queue)
    assert "module: fsdp" in plan.add_labels
    assert "module: DeviceMesh" not in plan.add_labels
    assert plan.add_labels[0] == PAR


def test_devicemesh_bug_itself_is_devicemesh_and_infra(queue):
    body = fence('mesh = init_device_mesh("cuda", (2, 2), mesh_dim_names=("a", "b"))\n'
                 'sub = mesh["a", "b"]') + frames("torch/distributed/device_mesh.py",
                                                    error="KeyError: 'a'")
    plan = plan_ok(make_issue("DeviceMesh slicing with two names raises KeyError", body), queue)
    assert plan.add_labels[0] == INFRA


def test_fsdp2_hitting_a_dtensor_error_gets_both(queue):
    body = FSDP_REPRO + frames(
        "torch/distributed/_composable/fsdp/_fsdp_param.py",
        "torch/distributed/tensor/_dispatch.py",
        error="RuntimeError: aten.cat.default: got mixed torch.Tensor and DTensor")
    plan = plan_ok(make_issue("FSDP2: cat of params fails", body), queue)
    assert plan.add_labels[:3] == (PAR, "module: fsdp", "module: dtensor")


def test_fsdp2_mentioning_dtensor_without_a_dtensor_error_is_fsdp_only(queue):
    body = ("With fully_shard the parameters are DTensors, and clip_grad_norm_ is slow.\n"
            + FSDP_REPRO)
    plan = plan_ok(make_issue("fully_shard: clipping is slow", body), queue)
    assert "module: fsdp" in plan.add_labels
    assert "module: dtensor" not in plan.add_labels


def test_low_confidence_adds_review_and_no_module(queue):
    body = "Something is wrong with our cluster job.\n" + fence("python launch.py --gpus 16", "")
    plan = plan_ok(make_issue("Job is flaky", body), queue)
    assert plan.decision == "low_confidence"
    assert not set(plan.add_labels) & set(queue.modules)
    assert {"triage review", "bot-triaged"} <= set(plan.add_labels)
    assert "triaged" not in plan.add_labels


def test_keeps_pt2_and_adds_the_distributed_module(queue):
    snap = make_issue("torch.compile + FSDP2 mixed precision raises",
                      "Compiling the fully_shard model fails.\n" + FSDP_REPRO,
                      labels=(QUEUE_LABEL, "oncall: pt2"))
    plan = plan_ok(snap, queue)
    assert "module: fsdp" in plan.add_labels
    assert "oncall: pt2" not in plan.add_labels
    assert "oncall: pt2" in plan.reasoning


def test_high_and_medium_confidence(queue):
    high = plan_ok(make_issue("ScheduleGPipe hangs with 4 stages", fence(
        "schedule = ScheduleGPipe(stage, n_microbatches=8)\nschedule.step(x)")), queue)
    assert high.confidence == "high"


# ------------------------------------------------------------------ step 4 (T-14)

def test_feature_request_gets_feature_and_no_repro_request(queue):
    body = ("### 🚀 The feature, motivation and pitch\n\nWe would like fully_shard to accept "
            "a per-parameter placement so experts can be sharded on dim 1.")
    plan = plan_ok(make_issue("[Feature request] fully_shard per-parameter placement", body),
                   queue)
    assert plan.decision == "classify"
    assert "feature" in plan.add_labels
    assert "needs reproduction" not in plan.add_labels
    assert "triaged" in plan.add_labels


def test_enhancement_of_something_that_works(queue):
    body = ("DTensor redistribute from Shard(0) to Shard(1) currently works, but falls back "
            "to an all-gather followed by a local chunk. A direct all_to_all would be better.")
    plan = plan_ok(make_issue("[RFC] DTensor: native Shard(0)->Shard(1) redistribute", body),
                   queue)
    assert "enhancement" in plan.add_labels
    assert "feature" not in plan.add_labels


def test_performance_enhancement_also_gets_module_performance(queue):
    body = ("ScheduleInterleaved1F1B currently works, but the bubble is large and throughput "
            "is low; reordering the warm-up would make it faster.")
    plan = plan_ok(make_issue("[RFC] pipelining: smaller bubble in interleaved 1F1B", body),
                   queue)
    assert {"enhancement", "module: performance", "module: pipelining"} <= set(plan.add_labels)


def test_bug_report_gets_no_type_label(queue):
    body = "### 🐛 Describe the bug\n\nfully_shard raises in backward.\n" + FSDP_REPRO
    plan = plan_ok(make_issue("fully_shard raises in backward", body), queue)
    assert not {"feature", "enhancement"} & set(plan.add_labels)


# ------------------------------------------------------------------ step 5 (T-15)

def test_segfault_in_process_group_is_high_priority_on_the_infra_path(queue):
    body = ("Segmentation fault (core dumped) right after destroy_process_group on every "
            "rank.\n" + DDP_REPRO)
    plan = plan_ok(make_issue("segfault in ProcessGroupNCCL shutdown", body), queue)
    assert plan.decision == "high_priority"
    assert plan.add_labels[0] == INFRA
    assert "triage review" in plan.add_labels
    assert not {"bot-triaged", "triaged", "high priority"} & set(plan.add_labels)
    assert plan.awaiting_humans


def test_regression_keeps_routing_and_modules(queue):
    body = "FSDP with HYBRID_SHARD worked in 2.4 but fails in 2.5.\n" + FSDP_REPRO
    plan = plan_ok(make_issue("HYBRID_SHARD broken after upgrade", body), queue)
    assert plan.decision == "high_priority"
    assert plan.add_labels == (PAR, "module: fsdp", "triage review")


def test_multi_node_hang_is_high_priority(queue):
    body = ("On 4 nodes the job is stuck in the first all_reduce; on one node it runs.\n"
            + DDP_REPRO)
    plan = plan_ok(make_issue("training hangs across nodes", body), queue)
    assert plan.decision == "high_priority"


def test_checkpoint_corruption_is_high_priority_on_the_checkpointing_path(queue):
    body = ("After resharding with dcp.load the weights are corrupted: the loss jumps to "
            "NaN.\n" + fence("dcp.load(sd, checkpoint_id=path)"))
    plan = plan_ok(make_issue("DCP: corrupted checkpoint after resharding", body), queue)
    assert plan.decision == "high_priority"
    assert plan.add_labels == (CKPT, "triage review")


def test_linear_regression_is_not_a_regression(queue):
    body = "We train a linear regression model with DDP and it raises.\n" + DDP_REPRO
    plan = plan_ok(make_issue("DDP raises for a small model", body), queue)
    assert plan.decision != "high_priority"


# ------------------------------------------------------------------ step 6 (T-16)

def test_missing_repro_asks_once(queue):
    body = "Our FSDP job fails after a few hours with a shape error. No idea why."
    plan = plan_ok(make_issue("FSDP fails after hours", body), queue)
    assert plan.decision == "needs_reproduction"
    assert plan.comments == ("needs_distributed_reproduction",)
    assert {"needs reproduction", "bot-triaged"} <= set(plan.add_labels)
    assert "triaged" not in plan.add_labels
    assert "module: fsdp" in plan.add_labels  # classification is still recorded


def test_code_snippet_is_a_reproduction(queue):
    plan = plan_ok(make_issue("fully_shard fails", FSDP_REPRO), queue)
    assert "needs reproduction" not in plan.add_labels
    assert plan.decision == "classify"


def test_multi_node_script_counts_as_reproduction(queue):
    body = ("FSDP with HYBRID_SHARD raises on our cluster.\n"
            + fence("#SBATCH --nodes=4\nsrun torchrun --nnodes 4 --nproc_per_node 8 train.py",
                    "bash"))
    plan = plan_ok(make_issue("HYBRID_SHARD raises on the cluster", body), queue)
    assert "needs reproduction" not in plan.add_labels


def test_steps_to_reproduce_count(queue):
    body = ("FSDP raises in backward.\n\nSteps to reproduce:\n1. clone our repo\n"
            "2. run `torchrun --nproc_per_node 2 train.py --fsdp`\n")
    plan = plan_ok(make_issue("FSDP raises in backward", body), queue)
    assert "needs reproduction" not in plan.add_labels


def test_label_alone_is_no_request_but_an_asked_issue_is_not_asked_again(queue):
    # T-16: the label without a request on the issue still gets the request (a human
    # labelled it, or this bot's comment failed after its labels landed) ...
    snap = make_issue("FSDP fails after hours", "FSDP fails with a shape error.",
                      labels=(QUEUE_LABEL, "needs reproduction"))
    plan = plan_ok(snap, queue)
    assert plan.comments == ("needs_distributed_reproduction",)
    assert "needs reproduction" not in plan.add_labels
    assert "triaged" not in plan.add_labels
    # ... and T-26: once a request is there, in whatever words, it is not repeated.
    human = Comment(id=9, author="maintainer", author_type="User", author_association="MEMBER",
                    body="Could you share a minimal script that reproduces this, with the "
                         "torchrun command and the full logs of every rank?")
    asked = make_issue("FSDP fails after hours", "FSDP fails with a shape error.",
                       labels=(QUEUE_LABEL, "needs reproduction"), comments=(human,))
    assert plan_ok(asked, queue).comments == ()


@pytest.mark.parametrize("labels", [
    # Step 0 (module + sub-oncall already there) and the infra route both stop before
    # step 6; with the label on the issue they must still plan the request (T-27).
    (QUEUE_LABEL, "module: fsdp", "oncall: distributed parallelisms", "needs reproduction",
     "bot-triaged"),
    (QUEUE_LABEL, "module: rpc", "needs reproduction"),
])
def test_rerun_after_a_lost_comment_plans_the_request_again(queue, labels):
    snap = make_issue("Job fails after hours", "It fails with a shape error.", labels=labels)
    plan = plan_ok(snap, queue)
    assert plan.decision in ("already_classified", "route")
    assert plan.comments == ("needs_distributed_reproduction",)


def test_older_template_version_counts_as_asked(queue):
    older = queue.templates["needs_distributed_reproduction"].earlier[0][1]
    bot = Comment(id=7, author="triage-bot[bot]", author_type="Bot", body=older)
    plan = plan_ok(make_issue("FSDP fails after hours", "FSDP fails with a shape error.",
                              comments=(bot,)), queue)
    assert plan.decision == "needs_reproduction"
    assert plan.comments == ()


def test_bot_comments_are_not_evidence(queue):
    bot = Comment(id=8, author="ci-bot[bot]", author_type="Bot",
                  body="Related: FSDP fully_shard DTensor DeviceMesh all mentioned here.")
    plan = plan_ok(make_issue("Job is flaky", "Something is wrong.", comments=(bot,)), queue)
    assert not set(plan.add_labels) & set(queue.modules)


def test_maintainer_comment_is_read(queue):
    who = Comment(id=9, author="maint", author_association="MEMBER",
                  body="This is the FSDP2 fully_shard path; see the trace.\n" + FSDP_REPRO)
    plan = plan_ok(make_issue("Training breaks", "It breaks.", comments=(who,)), queue)
    assert "module: fsdp" in plan.add_labels
    assert any(e.where in ("comment", "code") for e in plan.evidence
               if e.label == "module: fsdp")


# ------------------------------------------------------------------ constraints and shape

def test_environment_dump_is_not_evidence(queue):
    body = ("Something is wrong with the loss.\n\n### Versions\n"
            "Collecting environment information...\nPyTorch version: 2.5.0\n"
            "[pip3] nvidia-nccl-cu12==2.21.5\nIs CUDA available: True\nNCCL version 2.21.5\n")
    plan = plan_ok(make_issue("Loss looks odd", body), queue)
    assert INFRA not in plan.add_labels
    assert not set(plan.add_labels) & set(queue.modules)


def test_configurable_marker_label():
    q = load_queue("distributed", marker_label="ptd-bot-triaged")
    plan = plan_ok(make_issue("fully_shard fails", FSDP_REPRO), q)
    assert "ptd-bot-triaged" in plan.add_labels
    assert "bot-triaged" not in plan.add_labels


def test_suboncall_precedes_modules_and_every_label_has_evidence(queue):
    body = FSDP_REPRO + frames("torch/distributed/fsdp/_runtime_utils.py",
                               "torch/distributed/tensor/_dispatch.py",
                               error="RuntimeError: got mixed torch.Tensor and DTensor")
    plan = plan_ok(make_issue("FSDP DTensor error", body), queue)
    assert plan.add_labels.index(PAR) < plan.add_labels.index("module: fsdp")
    assert {e.label for e in plan.evidence} == set(plan.add_labels)


def test_plan_is_deterministic(queue):
    snap = make_issue("fully_shard fails", FSDP_REPRO)
    assert plan_issue(snap, queue).to_json() == plan_issue(snap, queue).to_json()


@pytest.mark.parametrize("title,body", [
    ("", ""),
    ("x" * 300, "y" * 20000),
    ("```", "```python\nunterminated fence"),
    ("Traceback (most recent call last):", "Traceback (most recent call last):"),
])
def test_odd_inputs_still_give_a_valid_plan(queue, title, body):
    plan = plan_ok(make_issue(title, body), queue)
    assert plan.decision in ("low_confidence", "needs_reproduction", "not_distributed",
                             "classify", "route", "high_priority")


def test_modules_after_route_propose_without_triaged_and_can_be_switched_off(tmp_path):
    import json
    import shutil

    from agentops.triage.queue import QUEUES_DIR

    body = ("rpc_sync to a remote worker returns a stale RRef value.\n"
            + fence("rpc.init_rpc('w0', rank=0, world_size=2)\n"
                    "ref = rpc.remote('w1', torch.add, args=(t, 1))\nprint(ref.to_here())"))
    snap = make_issue("RRef.to_here returns a stale value", body)
    # Default for `distributed`: the infra route plus the module the text shows, as a
    # proposal; `triaged` is withheld until the sub-team confirms the module.
    # Thresholds set here, the same in both: the module's above what its evidence
    # reaches (a proposal the sub-team confirms), the route's off; the config switch is
    # under test, not a fitted threshold.
    held_module = {"module: rpc": 100.0}
    default = plan_ok(snap, with_thresholds(load_queue("distributed"), held_module))
    assert default.decision == "route"
    assert default.add_labels == (INFRA, "module: rpc", "bot-triaged")
    assert "withheld" in default.reasoning
    folder = tmp_path / "q"
    shutil.copytree(QUEUES_DIR / "distributed", folder)
    labels = json.loads((folder / "labels.json").read_text())
    labels["config"]["modules_after_route"] = False
    (folder / "labels.json").write_text(json.dumps(labels))
    strict = plan_ok(snap, with_thresholds(load_queue(str(folder)), held_module))
    assert strict.add_labels == (INFRA, "bot-triaged", "triaged")  # T-12 as written: stop


def test_route_proposal_next_to_a_human_module_is_a_fixed_point(queue):
    # A human set a module but no sub-oncall; the bot routes and proposes another module
    # of that sub-oncall. Rerun: the labels are the planner's own output, so nothing more
    # (T-27), although a module and the sub-oncall are now both there (not T-10).
    body = ("rpc_sync to a remote worker returns a stale RRef value.\n"
            + fence("rpc.init_rpc('w0', rank=0, world_size=2)\n"
                    "ref = rpc.remote('w1', torch.add, args=(t, 1))\nprint(ref.to_here())"))
    snap = make_issue("RRef.to_here returns a stale value", body,
                      labels=(QUEUE_LABEL, "module: nccl"))
    # The module is held above what its evidence reaches, so the first run leaves a
    # proposal (the shape under test), whatever thresholds labels.json ships.
    q = with_thresholds(queue, {"module: rpc": 100.0})
    first = plan_ok(snap, q)
    assert first.decision == "route" and "module: rpc" in first.add_labels
    assert "triaged" not in first.add_labels
    again = plan_ok(make_issue(snap.title, body, labels=snap.labels + first.add_labels), q)
    assert again.add_labels == () and again.comments == ()


def test_a_route_without_a_module_is_still_triaged(queue):
    # T-12: a confident checkpointing route with no module to propose (the queue has no
    # checkpointing module) is a complete routing.
    snap = make_issue("Distributed checkpoint resharding fails on load",
                      "dcp.load of a checkpoint saved with 8 ranks fails when loading on 4 "
                      "ranks, resharding error in the planner.")
    plan = plan_ok(snap, queue)
    assert plan.add_labels == ("oncall: distributed checkpointing", "bot-triaged", "triaged")


def test_docs_issue_needs_no_reproduction(queue):
    plan = plan_ok(make_issue("FSDP docs: sync_module_states is not explained",
                              "The FSDP documentation does not say what sync_module_states does."),
                   queue)
    assert "needs reproduction" not in plan.add_labels
    assert plan.decision == "classify"
