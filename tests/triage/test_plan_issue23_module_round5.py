"""Issue #23, module round 5 (T-13): a title that gives the NCCL backend as the
condition of the failure ("… not working with the NCCL backend") reports a
backend-specific bug. The collective it names is where the bug shows, so the
process-group layer's module is not proposed beside NCCL's, unless the layer's own
frame is the root cause of a trace (rubric layering with ``over_signals``).

Written from the fit part's module errors by kind (c10d proposed beside the one
module humans set); every issue below is made up for this file, and every plan also
passes the constraint checker."""

from __future__ import annotations

import pytest

from agentops.triage.plan import read
from tests.triage.plankit import fence, make_issue, plan_ok

C10D = "module: c10d"
NCCL = "module: nccl"

_BODY = ("On two nodes with four GPUs each, rank 5 gets the objects rank 0 sent one step "
         "earlier; the same script gives the right objects on one node.\n"
         + fence("dist.init_process_group(backend='nccl')\n"
                 "objs = [None] * 4\n"
                 "dist.broadcast_object_list(objs, src=0)\n"))
_C10D_TRACE = """Traceback (most recent call last):
  File "/srv/job/train.py", line 40, in <module>
    dist.broadcast_object_list(objs, src=0)
  File "/venv/torch/distributed/distributed_c10d.py", line 3180, in broadcast_object_list
    object_list[i] = _tensor_to_object(obj_view, obj_size, group)
RuntimeError: object size mismatch on rank 5
"""


@pytest.mark.parametrize("title", [
    "broadcast_object_list returns stale objects when using the NCCL backend",
    "`broadcast_object_list` not working with NCCL Backend",
    "broadcast_object_list gives wrong objects on nccl",
])
def test_the_backend_as_the_titles_condition_leaves_the_collective_as_context(queue, title):
    plan = plan_ok(make_issue(title, _BODY), queue)
    assert NCCL in plan.add_labels, plan.reasoning
    assert C10D not in plan.add_labels, plan.reasoning


@pytest.mark.parametrize("title, body", [
    # No backend in the title: the collective is the title's subject.
    ("broadcast_object_list returns stale objects", _BODY + "We use the NCCL backend.\n"),
    # NCCL named, but as an error, not as the condition: the rule is how NCCL is named.
    ("NCCL error in broadcast_object_list on two nodes", _BODY),
    # The process-group layer's own frame is where the trace ends: its root cause.
    ("broadcast_object_list fails when using the NCCL backend", _BODY + _C10D_TRACE),
])
def test_the_process_group_layer_stays_when_more_than_the_collectives_name(
        queue, title, body):
    plan = plan_ok(make_issue(title, body), queue)
    assert C10D in plan.add_labels, plan.reasoning


# ------------------------------------------------------------------ informational log lines

PAR = "oncall: distributed parallelisms"
INFRA = "oncall: distributed infra"
DDP = "module: ddp"

_DDP_BODY = ("With gradient accumulation over two steps, the second backward reports the "
             "head's parameters as unused and the step raises. The log of both ranks:\n")
_INFO_LOG = ("I1203 10:11:12.000123 4242 reducer.cpp:1300] [Rank 0]: Parameter head.bias at "
             "index 7 is marked as unused.\n"
             "I1203 10:11:12.500000 4250 ProcessGroupNCCL.cpp:900] [Rank 0] NCCL watchdog "
             "thread terminated normally\n"
             "gpu-node-07:5120:5188 [1] NCCL INFO Channel 00/02 :    0   1\n")


def _signals(queue, title, body):
    return {h.signal for h in read(make_issue(title, body), queue).hits}


def test_informational_log_lines_are_not_evidence(queue):
    title = "DistributedDataParallel reports unused parameters with gradient accumulation"
    assert not _signals(queue, "Unused parameters", _INFO_LOG) & {"nccl_error", "nccl_word"}
    plan = plan_ok(make_issue(title, _DDP_BODY + _INFO_LOG), queue)
    # A normal shutdown of the watchdog in the log is no NCCL report: the title's DDP keeps
    # the route and its module.
    assert plan.add_labels[0] == PAR, plan.reasoning
    assert DDP in plan.add_labels and INFRA not in plan.add_labels, plan.reasoning


@pytest.mark.parametrize("line", [
    # The same watchdog at ERROR severity: the log says what failed.
    "E1203 10:11:12.500000 4250 ProcessGroupNCCL.cpp:900] [Rank 0] NCCL watchdog thread "
    "terminated with exception: NCCL error: unhandled system error\n",
    # NCCL's own warning lines are its report of a failure.
    "gpu-node-07:5120:5188 [1] NCCL WARN Cuda failure 'out of memory'\n",
    # An INFO word in prose is no log line.
    "I checked the NCCL watchdog: it never fires.\n",
])
def test_warning_and_error_log_lines_stay_evidence(queue, line):
    assert "nccl_error" in _signals(queue, "Training stops after an hour", line)
