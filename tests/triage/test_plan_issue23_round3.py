"""Issue #23, round 3: general rules found on the fit part's errors when each fit issue
is cut to its title and first lines (the held-out extra set's reports are that short),
each with a case it must change and a case it must leave alone. Written for this file
(no labelled issue's text); every plan also passes the constraint checker."""

from __future__ import annotations

from tests.triage.plankit import INFRA, PAR, fence, make_issue, plan_ok

TRIAGED = "triaged"
REVIEW = "triage review"


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
