"""Step 1 (issue #23, T-11): "not distributed" needs positive evidence of another owner
(a component, error or frame owned elsewhere). What a report rules out ("no DDP",
"single process") argues against distributed but names no owner: alone it sends the
issue to a human, never elsewhere; nor does a short report with no evidence either way."""

from __future__ import annotations

import pytest

from tests.triage.plankit import PAR, fence, make_issue, plan_ok, with_signal_flags

REVIEW, TRIAGED = "triage review", "triaged"
CODE = fence("model = Net().cuda()\nfor batch in loader:\n    loss = model(batch).sum()\n"
             "    loss.backward()\n    print(loss)")
RULED_OUT = [
    ("Loss becomes NaN after 10 steps",
     "This runs in a single process, no DDP or FSDP is used. The loss becomes NaN after "
     "10 steps.\n" + CODE),
    ("Loss becomes NaN after 10 steps",
     "Single process, not using torchrun. The loss becomes NaN.\n" + CODE),
]


@pytest.mark.parametrize("title, body", RULED_OUT)
def test_ruled_out_alone_goes_to_a_human_not_elsewhere(queue, title, body):
    plan = plan_ok(make_issue(title, body), queue)
    assert plan.decision != "not_distributed"
    assert plan.add_labels[0] == PAR  # kept in the queue
    assert REVIEW in plan.add_labels and TRIAGED not in plan.add_labels
    assert "none of another owner" in plan.reasoning
    # The same evidence counted as naming an owner is what sent it elsewhere before.
    before = plan_ok(make_issue(title, body), with_signal_flags(queue, names_owner=True))
    assert before.decision == "not_distributed"


def test_ruled_out_plus_another_owners_error_is_not_distributed(queue):
    body = ("Single process, no DDP. RuntimeError: DataLoader worker (pid 4242) is killed "
            "by signal: Bus error.\n" + CODE)
    plan = plan_ok(make_issue("DataLoader worker killed", body), queue)
    assert plan.decision == "not_distributed"
    against = {e.signal for e in plan.evidence if e.stance == "against"}
    assert against - queue.rubric.ownerless, against


def test_a_short_report_with_no_evidence_either_way_is_reviewed(queue):
    for title in ("something is broken", "training is slow"):
        plan = plan_ok(make_issue(title, ""), queue)
        assert plan.decision != "not_distributed"
        assert REVIEW in plan.add_labels and TRIAGED not in plan.add_labels


def test_the_shipped_rubric_marks_what_names_no_owner(queue):
    assert {"ruled_out_distributed", "single_process"} <= queue.rubric.ownerless
    roles = {s.id: s.role for s in queue.rubric.signals}
    assert all(roles[i] == "not_distributed" for i in queue.rubric.ownerless)

