"""What agentops.triage.plan calls sure on the two ways a route ends (T-12, T-13, T-30;
docs/triage.md "The plan"): on the default route an explicit API in the repro's code is
HIGH module evidence, so a report whose only evidence is its code is still triaged; after
infra or checkpointing the plan's confidence is `high` for a human's sub-oncall or
evidence of at least twice `route_fit`, `medium` below that. Pins the plan.py lines the
seed-36 mutation pass (#26) looked at (the default-route clause of _Route.confident, the
confidence of _finish_route). Issues written for this file."""

from __future__ import annotations

from agentops.triage.model import Plan
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


def _reasoning_evidence(plan: Plan) -> float:
    """The route's evidence as the plan's reasoning names it ("routed to … (evidence
    4.5: …)")."""
    return float(plan.reasoning.split("(evidence ", 1)[1].split(":", 1)[0])


def _dcp_save_issue():
    """The DCP API in the title and in the repro's code: a checkpointing route above
    route_fit on its plain evidence, below twice it."""
    return make_issue("dcp.save writes an empty folder",
                      "torch.distributed.checkpoint.save leaves the directory empty.\n"
                      + fence("import torch.distributed.checkpoint as dcp\n"
                              "dcp.save(state_dict, checkpoint_id='/tmp/ckpt')"))


def test_a_default_route_whose_evidence_is_all_in_the_repro_code_is_triaged(queue):
    # Nothing distributed in the prose: the FSDP2 call and import are in the code only.
    # T-13: an explicit API is HIGH, and HIGH is triaged; the route is the default team's,
    # where the module's confidence decides, not where the route's evidence sits.
    snap = make_issue("Loss turns NaN after step 200",
                      "The script below goes NaN after about 200 steps.\n"
                      + fence("from torch.distributed.fsdp import fully_shard\n"
                              "model = fully_shard(model)\nmodel(x).sum().backward()"))
    plan = plan_ok(snap, queue)
    assert plan.add_labels[0] == PAR, plan.reasoning
    assert "module: fsdp" in plan.add_labels
    assert queue.triaged_label in plan.add_labels, plan.reasoning
    assert queue.review_label not in plan.add_labels


def test_a_route_with_twice_the_fit_evidence_is_high(queue):
    route_fit = queue.rubric.thresholds["route_fit"]
    snap = make_issue("init_process_group fails with the gloo backend",
                      "Calling init_process_group with gloo raises an error.\n"
                      + fence("import torch.distributed as dist\n"
                              "dist.init_process_group('gloo')"))
    plan = plan_ok(snap, queue)
    assert plan.add_labels[0] == INFRA and plan.decision == "route", plan.reasoning
    assert plan.plain_scores[INFRA] >= 2 * route_fit
    assert plan.confidence == "high"


def test_a_route_that_only_fits_is_medium(queue):
    # Above route_fit (a confident route, triaged: T-12) but below twice it.
    route_fit = queue.rubric.thresholds["route_fit"]
    snap = _dcp_save_issue()
    plan = plan_ok(snap, queue)
    assert plan.add_labels[0] == CKPT and plan.decision == "route", plan.reasoning
    assert route_fit <= plan.plain_scores[CKPT] < 2 * route_fit, plan.reasoning
    assert queue.triaged_label in plan.add_labels, plan.reasoning
    assert plan.confidence == "medium"


def test_a_sub_oncall_a_human_set_is_high_without_evidence(queue):
    # No distributed word at all: the humans' route is the classification (T-12), and the
    # plan adds only the marker and triaged beside it.
    snap = make_issue("Question about a result", "The script below does something odd.\n"
                      + fence("x = 1"), labels=(QUEUE_LABEL, INFRA))
    plan = plan_ok(snap, queue)
    assert plan.decision == "route", plan.reasoning
    assert set(plan.add_labels) == {queue.marker_label, queue.triaged_label}
    assert plan.confidence == "high"


def test_the_plan_names_the_plain_and_the_corroborated_route_scores_apart(queue):
    # Issue #23's debt: `triaged` reads the corroborated score (`scores`, T-23 selective
    # threshold), high/medium the plain evidence (`plain_scores`, T-30 confidence;
    # docs/triage.md "The plan"). The DCP API in the title and in the repro's code: the
    # code corroborates it, so the two differ, and each field must say which is which.
    route_fit = queue.rubric.thresholds["route_fit"]
    snap = _dcp_save_issue()
    unset = plan_ok(snap, with_thresholds(queue))
    plain, sure = unset.plain_scores[CKPT], unset.scores[CKPT]
    assert plain < 2 * route_fit <= sure  # the case separates the two readings
    # A threshold between the two: the corroborated score reaches it, the plain does not.
    plan = plan_ok(snap, with_thresholds(queue, {CKPT: (plain + sure) / 2}))
    assert plan.add_labels[0] == CKPT and plan.decision == "route", plan.reasoning
    assert queue.triaged_label in plan.add_labels, plan.reasoning  # read `scores`
    assert plan.confidence == "medium"  # read `plain_scores`, below twice route_fit
    assert plan.plain_scores[CKPT] == _reasoning_evidence(plan)
    # Both reach the plan's JSON output by name, and come back from it.
    out = plan.to_json()
    assert (out["scores"][CKPT], out["plain_scores"][CKPT]) == (round(sure, 3), round(plain, 3))
    back = Plan.from_json(out)
    assert (back.scores[CKPT], back.plain_scores[CKPT]) == (sure, plain)
