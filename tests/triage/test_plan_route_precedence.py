"""Step 2 of agentops.triage.plan (T-12, issue #23): a team that one signal alone makes
fit (one backend word) does not take the route by precedence from the default team
whose own evidence outside the repro's code outweighs it; and a module the humans
already set is not the plan's guess, so another owner beside it in the title does not
make the plan unsure. Issues written for this file."""

from __future__ import annotations

import pytest

from tests.triage.plankit import fence, make_issue, plan_ok

PAR = "oncall: distributed parallelisms"
_SCHEDULE = fence("schedule = ScheduleGPipe(stage, n_microbatches=4)\nschedule.step(x)")


@pytest.mark.parametrize("extra", ["", " The DeviceMesh is 1-D."])
def test_one_backend_word_does_not_take_a_pipelining_report_from_its_team(queue, extra):
    # The infra team's one word (gloo) against the default team's component in the title
    # and the prose; an infra module named in passing is not the default team's evidence.
    snap = make_issue("torch.distributed.pipelining hangs in the CPU gloo backend",
                      "The pipeline schedule hangs after the first microbatch." + extra
                      + "\n" + _SCHEDULE)
    plan = plan_ok(snap, queue)
    assert plan.add_labels[0] == PAR and "module: pipelining" in plan.add_labels, \
        plan.reasoning


@pytest.mark.parametrize(("title", "code", "module"), [
    ("DDP gives NaN loss with torch.compile", "model = DDP(model)", "module: ddp"),
    ("FSDP gives NaN loss with torch.compile", "model = fully_shard(model)", "module: fsdp"),
])
def test_a_module_the_humans_set_is_not_made_unsure_by_the_titles_other_owner(
        queue, title, code, module):
    body = "After a few steps the loss is NaN.\n" + fence(
        f"{code}\nmodel = torch.compile(model)\nloss = model(x).sum()")
    # The bot's own guess beside the compiler in the title: a human decides.
    guessed = plan_ok(make_issue(title, body), queue)
    assert guessed.decision == "low_confidence" and "triaged" not in guessed.add_labels
    # The same module already set by a human: nothing of the plan is a lone guess.
    labelled = plan_ok(make_issue(title, body, labels=("oncall: distributed", module)),
                       queue)
    assert labelled.decision == "classify" and "triaged" in labelled.add_labels, \
        labelled.reasoning


# The edges of the two rules above, each pinned with an issue written for this file.

def test_a_backend_word_the_title_names_first_keeps_its_team_against_the_default(queue):
    # The infra word opens the title and the default team's components are in the prose
    # only: the title's subject is the backend, so precedence stands (no comparison of
    # title positions with a component the title does not name).
    snap = make_issue("Hang on the CPU gloo backend",
                      "torch.distributed.pipelining with FSDP: the pipeline schedule hangs "
                      "after the first microbatch.\n" + _SCHEDULE)
    plan = plan_ok(snap, queue)
    assert plan.add_labels[0] == "oncall: distributed infra", plan.reasoning


def test_a_light_launcher_word_is_not_an_explicit_failure_of_its_team(queue):
    # "torchrun" in the prose is a subject word of the infra team, but a light one: with
    # the humans' module of that team giving the team its fit, the default team's FSDP
    # and pipelining in the title still outweigh it (only a heavy subject signal, an
    # explicit failure of the team, keeps the precedence route).
    snap = make_issue("FSDP with pipelining hangs",
                      "Launched with torchrun; the stage hangs after the first microbatch.\n"
                      + _SCHEDULE, labels=("oncall: distributed", "module: elastic"))
    plan = plan_ok(snap, queue)
    assert plan.add_labels[0] == PAR, plan.reasoning
    assert "oncall: distributed infra" not in plan.add_labels


_OTHER_OWNER = "another owner"


def test_another_teams_module_named_once_does_not_make_a_routed_plan_unsure(queue):
    # Routed to infra on its own failure; the FSDP call in the repro is the default
    # team's module, not part of what infra is asked to own: the compiler in the title
    # beside it makes nothing unsure.
    snap = make_issue("Watchdog caught collective operation timeout with torch.compile",
                      "ProcessGroupNCCL watchdog fired.\n"
                      + fence("model = fully_shard(model)\nmodel = torch.compile(model)"))
    plan = plan_ok(snap, queue)
    assert plan.add_labels[0] == "oncall: distributed infra"
    assert "triaged" in plan.add_labels and _OTHER_OWNER not in plan.reasoning, \
        plan.reasoning


def test_the_routed_teams_module_named_once_beside_the_compiler_is_unsure(queue):
    # The one component is infra's own (RPC): which of it and the compiler is at fault is
    # a human's call.
    plan = plan_ok(make_issue("RPC call hangs with torch.compile", "rpc_sync never returns.\n"
                              + fence("model = torch.compile(model)")), queue)
    assert plan.add_labels[0] == "oncall: distributed infra"
    assert "module: rpc" in plan.add_labels and "triage review" in plan.add_labels
    assert "triaged" not in plan.add_labels and _OTHER_OWNER in plan.reasoning, \
        plan.reasoning


def test_on_the_default_route_any_teams_module_named_once_counts(queue):
    # The default team keeps every module proposal (an infra DeviceMesh named once here,
    # tensor parallelism having no module): the compiler beside it is a stated doubt.
    plan = plan_ok(make_issue("Tensor parallel fails with torch.compile",
                              "ColwiseParallel raises an error; I use a DeviceMesh.\n"
                              + fence("model = parallelize_module(model, mesh, "
                                      "{'w1': ColwiseParallel()})\nmodel = torch.compile(model)")),
                   queue)
    assert plan.add_labels[0] == PAR and "module: DeviceMesh" in plan.add_labels
    assert "triaged" not in plan.add_labels
    assert f"The title names {_OTHER_OWNER}" in plan.reasoning, plan.reasoning
