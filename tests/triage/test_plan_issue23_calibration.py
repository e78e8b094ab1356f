"""Issue #23, calibration round: the `triaged` gate on the shape of a plan. An owner
whose code runs in the same failure as the distributed code (the compiler tracing a
DTensor or DDP program; ``contends: true`` in the rubric), named in the prose or a trace
beside a component the report names once, is a rival reading of who is at fault: the
plan routes and classifies, but asks `triage review` instead of `triaged`. The compiler
only in the repro's code is how the component was run, and a component the report shows
twice is sure. Issues written for this file (no labelled issue's text); every plan also
passes the constraint checker."""

from __future__ import annotations

import pytest

from tests.triage.plankit import PAR, REVIEW, TRIAGED, fence, make_issue, plan_ok, with_signal_flags

REASON = "report names another owner"

_TITLE = "DTensor redistribute from Shard(0) to Replicate() gives a wrong local shape"
_REPRO = fence("mesh = init_device_mesh('cuda', (4,))\n"
               "dt = distribute_tensor(torch.randn(8, 4), mesh, [Shard(0)])\n"
               "out = step(dt)\n"
               "print(out.redistribute(mesh, [Replicate()]).to_local().shape)")
_PLAIN = "After the redistribute the local tensor has 2 rows instead of 8.\n" + _REPRO
# The same report, the compiler named in its prose: the step function is compiled.
_COMPILED_PROSE = ("The step function is wrapped in torch.compile with the inductor "
                   "backend; after the redistribute the local tensor has 2 rows instead "
                   "of 8.\n" + _REPRO)
# The compiler only in the repro's code: the prose is about the component alone.
_COMPILED_CODE = ("After the redistribute the local tensor has 2 rows instead of 8.\n"
                  + _REPRO.replace("out = step(dt)", "out = torch.compile(step)(dt)"))
_DTENSOR_FRAME = fence(
    "Traceback (most recent call last):\n"
    '  File "repro.py", line 5, in <module>\n'
    "    print(out.redistribute(mesh, [Replicate()]).to_local().shape)\n"
    '  File "/opt/py/site-packages/torch/distributed/tensor/_api.py", line 540, '
    "in redistribute\n"
    "    return Redistribute.apply(self, device_mesh, placements)\n"
    "AssertionError: local shape mismatch", lang="")


def test_the_plain_report_is_triaged(queue):
    # The control: without the compiler anywhere, the same report is a sure classification.
    plan = plan_ok(make_issue(_TITLE, _PLAIN), queue)
    assert plan.decision == "classify", plan.reasoning
    assert PAR in plan.add_labels and "module: dtensor" in plan.add_labels
    assert TRIAGED in plan.add_labels and REVIEW not in plan.add_labels, plan.reasoning


def test_the_compiler_in_the_prose_beside_one_mention_asks_for_review(queue):
    plan = plan_ok(make_issue(_TITLE, _COMPILED_PROSE), queue)
    # Still distributed, routed and classified: the compiler does not send it elsewhere ...
    assert plan.decision == "low_confidence", plan.reasoning
    assert PAR in plan.add_labels and "module: dtensor" in plan.add_labels, plan.reasoning
    # ... but which of the two owners is at fault is a human's call.
    assert TRIAGED not in plan.add_labels and REVIEW in plan.add_labels, plan.reasoning
    assert REASON in plan.reasoning and "compiler_only" in plan.reasoning


def test_the_compiler_only_in_the_repro_code_is_still_triaged(queue):
    plan = plan_ok(make_issue(_TITLE, _COMPILED_CODE), queue)
    assert plan.decision == "classify", plan.reasoning
    assert TRIAGED in plan.add_labels and REASON not in plan.reasoning, plan.reasoning


def test_a_component_shown_twice_is_not_one_mention(queue):
    # The compiler in the prose as above, but DTensor's own frame in the trace too.
    plan = plan_ok(make_issue(_TITLE, _COMPILED_PROSE + _DTENSOR_FRAME), queue)
    assert "module: dtensor" in plan.add_labels, plan.reasoning
    assert TRIAGED in plan.add_labels and REASON not in plan.reasoning, plan.reasoning


def test_the_rubric_flag_is_what_decides(queue):
    # The compiler signal carries the flag in the shipped rubric, and only
    # not_distributed signals do; with the flag off the same report is triaged again.
    assert "compiler_only" in queue.rubric.contenders
    roles = {s.id: s.role for s in queue.rubric.signals}
    assert all(roles[i] == "not_distributed" for i in queue.rubric.contenders)
    plan = plan_ok(make_issue(_TITLE, _COMPILED_PROSE), with_signal_flags(queue, contends=False))
    assert TRIAGED in plan.add_labels and REASON not in plan.reasoning, plan.reasoning


@pytest.mark.parametrize("title", [
    "DTensor redistribute gives a wrong local shape with torch.compile",
    "[inductor] DTensor redistribute gives a wrong local shape",
])
def test_the_title_case_still_says_the_title(queue, title):
    plan = plan_ok(make_issue(title, _PLAIN), queue)
    assert TRIAGED not in plan.add_labels and REVIEW in plan.add_labels, plan.reasoning
    assert "The title names another owner" in plan.reasoning
