"""Step 5 (issue #23, T-15): a crash counts as high priority only in distributed code.
When another owner's error or frame is a subject of the report too (a DataLoader worker
killed by a segfault during DDP training), the crash is that owner's: the issue may stay
in the queue (a human decides), but not on the high-priority path. The same crash raised
by distributed code (ProcessGroupNCCL) still is."""

from __future__ import annotations

from tests.triage.plankit import fence, make_issue, plan_ok, with_signal_flags

DDP_LOOP = fence("loader = DataLoader(ds, num_workers=4)\nmodel = DDP(model, device_ids=[rank])\n"
                 "for x in loader:\n    model(x).sum().backward()")
WORKER_SEGFAULT = ("Segmentation fault in DataLoader worker during DDP training",
                   "With DDP on 8 GPUs, after some steps:\n" + fence(
                       "RuntimeError: DataLoader worker (pid 4711) is killed by signal: "
                       "Segmentation fault.") + "\n" + DDP_LOOP)
PG_SEGFAULT = ("Segmentation fault in ProcessGroupNCCL during DDP training",
               "With DDP on 8 GPUs, after some steps every rank dies:\n" + fence(
                   "Segmentation fault (core dumped)\n#0 c10d::ProcessGroupNCCL::"
                   "WorkNCCL::isCompleted()") + "\n" + DDP_LOOP)


def test_a_crash_another_owner_raised_is_not_high_priority(queue):
    plan = plan_ok(make_issue(*WORKER_SEGFAULT), queue)
    assert plan.decision != "high_priority", plan.reasoning
    assert "triaged" not in plan.add_labels
    # Without the flag, the crash word alone put it on the high-priority path.
    crash_anywhere = with_signal_flags(queue, in_distributed_code=False)
    assert plan_ok(make_issue(*WORKER_SEGFAULT), crash_anywhere).decision == "high_priority"


def test_a_crash_in_distributed_code_stays_high_priority(queue):
    plan = plan_ok(make_issue(*PG_SEGFAULT), queue)
    assert plan.decision == "high_priority", plan.reasoning
    assert any(e.signal == "crash" for e in plan.evidence)


def test_the_shipped_rubric_marks_the_crash_criterion(queue):
    assert "crash" in queue.rubric.in_distributed_code
    roles = {s.id: s.role for s in queue.rubric.signals}
    assert all(roles[i] == "high_priority" for i in queue.rubric.in_distributed_code)

