"""Issue #23, round 3: general rules found on the fit part's errors when each fit issue
is cut to its title and first lines (the held-out extra set's reports are that short),
each with a case it must change and a case it must leave alone. Written for this file
(no labelled issue's text); every plan also passes the constraint checker."""

from __future__ import annotations

import pytest

from tests.triage.plankit import INFRA, PAR, REVIEW, TRIAGED, fence, make_issue, plan_ok
from tests.triage.test_plan_issue23 import step1_evidence, trace

# ------------------------------------------------------------------ step 2: a lean route

def test_a_short_report_whose_little_evidence_names_infra_leans_to_infra(queue):
    # One collective in the title is below route_fit, yet it names the communication
    # layer, not a parallelism API: the default team is the wrong guess.
    plan = plan_ok(make_issue("`all_reduce` never returns in a two-process script",
                              "Both processes print their rank and then wait forever."), queue)
    assert plan.add_labels[0] == INFRA
    assert TRIAGED not in plan.add_labels and REVIEW in plan.add_labels
    assert "leans to" in plan.reasoning


def test_a_lean_route_counts_only_evidence_outside_the_repro_code(queue):
    # The repro's init_process_group is on every distributed script's path (context):
    # it does not lean the report to infra.
    body = ("Training diverges after a few hundred steps on 8 GPUs.\n"
            + fence("dist.init_process_group('nccl')\nmodel = MyModel().cuda()\ntrain(model)"))
    plan = plan_ok(make_issue("Loss diverges in my distributed training", body), queue)
    assert plan.add_labels[0] == PAR
    assert "leans to" not in plan.reasoning


def test_no_lean_away_from_the_default_when_it_has_as_much_evidence(queue):
    # A broadcast (infra) beside the parallelism dimensions the report builds (the
    # default team's), neither strong enough to fit: the default is not outweighed.
    plan = plan_ok(make_issue("Training step is slower than expected",
                              "We build tp_mesh with pp_size = 2 and the broadcast of the "
                              "inputs takes long."), queue)
    assert plan.add_labels[0] == PAR
    assert "leans to" not in plan.reasoning


# ------------------------------------------------------------------ step 1: a title's tag

TORCHRUN_CMD = "Run with `torchrun --nproc-per-node 2 repro.py`; the second run raises.\n"


@pytest.mark.parametrize("title", [
    "Inductor: reduce_scatter bucketing writes a cache other ranks cannot load",
    "[dynamo] all_gather in a compiled region recompiles on every rank",
])
def test_another_owners_tag_opening_the_title_makes_its_distributed_words_context(
        queue, title):
    # The writer filed it against the compiler: the collective and the ranks after the
    # tag say what the compiler's pass did; the launcher in the repro is context.
    plan = plan_ok(make_issue(title, TORCHRUN_CMD), queue)
    assert plan.decision == "not_distributed"
    assert "compiler_title" in step1_evidence(plan, "against")


@pytest.mark.parametrize("title", [
    # Our own tag, then the compiler: a distributed report that meets the compiler.
    "[DTensor] Inductor reduce_scatter bucketing breaks on other ranks",
    # The compiler named, but not as the title's tag.
    "reduce_scatter bucketing in Inductor breaks on other ranks",
    # A tag-like opening that is not the compiler's name ("Inductors" is not a tag).
    "Inductors of rank 0: reduce_scatter breaks on other ranks",
    # A component named after the tag: the compiler and FSDP2/DTensor meet there.
    "Inductor: comm reordering pass breaks FSDP2 overlap",
    "[inductor] DTensor redistribute lowering is wrong",
])
def test_without_another_owners_tag_the_distributed_words_stay_the_subject(queue, title):
    plan = plan_ok(make_issue(title, TORCHRUN_CMD), queue)
    assert plan.decision != "not_distributed"


def test_a_distributed_frame_at_the_top_outweighs_another_owners_tag(queue):
    body = TORCHRUN_CMD + trace("torch/_inductor/compile_fx.py",
                                "torch/distributed/distributed_c10d.py",
                                error="RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:100")
    plan = plan_ok(make_issue("Inductor: reduce_scatter bucketing crashes", body), queue)
    assert plan.decision != "not_distributed"


# ------------------------------------------------------------------ step 3: modules named short

@pytest.mark.parametrize(("title", "module"), [
    ("Pipeline parallelism skips the backward of the last stage", "module: pipelining"),
    ("GPipe with fewer microbatches than stages raises", "module: pipelining"),
    ("[Elastic] the agent exits 0 after a failed restart", "module: elastic"),
    ("launch_agent swallows RendezvousGracefulExitError", "module: elastic"),
])
def test_a_short_report_names_its_module_by_the_words_people_use(queue, title, module):
    plan = plan_ok(make_issue(title, "It happens every time on 4 GPUs."), queue)
    assert module in plan.add_labels


@pytest.mark.parametrize(("title", "body", "module"), [
    # The RPC-era Pipe is not torch.distributed.pipelining.
    ("Pipeline parallel example fails", fence("from torch.distributed.pipeline.sync "
                                               "import Pipe\nmodel = Pipe(seq, chunks=8)"),
     "module: pipelining"),
    # Pipeline parallelism as one dimension in the prose, the title about something else.
    ("FSDP2 loses gradients with reshard_after_forward=False",
     "We combine FSDP2 with pipeline parallelism on 4 GPUs.", "module: pipelining"),
    # An elastic net is not torchelastic.
    ("ElasticNet loss diverges under DDP", "model = DDP(ElasticNet())", "module: elastic"),
])
def test_words_near_a_module_name_do_not_name_it(queue, title, body, module):
    plan = plan_ok(make_issue(title, body), queue)
    assert module not in plan.add_labels


# ------------------------------------------------------------------ step 1: a missing backend

def test_a_communication_backend_the_build_lacks_is_infra_not_the_build(queue):
    # The build words suppress the backend's own signals (a build log naming gloo is not
    # gloo code), but a backend that cannot be found is the report's subject.
    plan = plan_ok(make_issue("Unable to find MPI backend with the nightly build from source"),
                   queue)
    assert plan.decision != "not_distributed"
    assert plan.add_labels[0] == INFRA


def test_another_backend_the_build_lacks_stays_with_its_owner(queue):
    plan = plan_ok(make_issue("MPS backend unavailable with the nightly build from source"),
                   queue)
    assert plan.decision == "not_distributed"
