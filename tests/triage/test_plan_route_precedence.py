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
