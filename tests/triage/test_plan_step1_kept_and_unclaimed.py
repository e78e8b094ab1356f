"""Step 1 of the planner (issue #23, T-11): a distributed label humans already set keeps
an issue in the queue, and a report with no evidence either way says so in its reasoning
instead of naming evidence against it does not have. Made-up issues."""

from __future__ import annotations

from tests.triage.plankit import QUEUE_LABEL, make_issue, plan_ok

_SHM_TITLE = "DataLoader worker killed by bus error: insufficient shared memory"
_SHM_BODY = ("Training a vision model on one GPU, no DDP. The DataLoader with num_workers=8 "
             "dies with 'bus error' in /dev/shm. Increasing shm size fixes it.\n")


def test_a_distributed_label_humans_set_keeps_a_report_sent_away_alone_in_the_queue(queue):
    alone = plan_ok(make_issue(_SHM_TITLE, _SHM_BODY), queue)
    assert alone.decision == "not_distributed"
    # A module alone, or a sub-oncall alone, is a human's distributed verdict.
    for label in ("module: fsdp", "oncall: distributed infra"):
        kept = plan_ok(make_issue(_SHM_TITLE, _SHM_BODY, labels=(QUEUE_LABEL, label)), queue)
        assert kept.decision != "not_distributed", label
        assert "not_distributed" not in kept.comments, label
        assert "Step 1: distributed (a distributed label is already on the issue;" in \
            kept.reasoning, label


def test_a_report_without_evidence_either_way_claims_none_against(queue):
    plan = plan_ok(make_issue("Accuracy lower than expected after an upgrade",
                              "Accuracy went from 76 to 71 percent on our benchmark after "
                              "upgrading the package."), queue)
    assert plan.reasoning.startswith(
        "Step 1: distributed (no positive evidence of another owner).")
