"""Issue #23, stop 36: another PyTorch subsystem that leads the title (export/ONNX, the
function transforms, serialization, quantization, the profiler) beside a distributed
component is the meeting of two owners, so the plan routes and asks `triage review`
instead of `triaged`; the same subsystem named after the component ("FSDP model fails to
export") is what the component was used for and changes nothing. Made-up issues only;
every plan also passes the constraint checker. Thresholds are off here (default 0), so
the rule and not a fitted threshold decides."""

from __future__ import annotations

import pytest

from tests.triage.plankit import (
    PAR,
    REVIEW,
    TRIAGED,
    fence,
    make_issue,
    plan_ok,
    queue_with_thresholds,
    with_signal_flags,
)

SIGNAL = "core_subsystem_title"


queue = queue_with_thresholds()  # every threshold off, set here: the rule decides


_DP_BODY = ("The model is wrapped in nn.DataParallel over two GPUs before the call.\n"
            + fence("net = torch.nn.DataParallel(Net().cuda(), device_ids=[0, 1])\n"
                    "out = step(net, torch.randn(8, 16).cuda())"))
_FSDP_BODY = ("Each rank wraps the model with fully_shard and the call below raises.\n"
              + fence("from torch.distributed.fsdp import fully_shard\n"
                      "fully_shard(model)\nrun(model)"))

# (title led by another subsystem, the same report's title without it, body, module)
LED = [
    ("Cannot export a DataParallel model: the wrapper's forward is rejected",
     "DataParallel model: the wrapper's forward is rejected", _DP_BODY,
     "module: data parallel"),
    ("vmap over a model wrapped in nn.DataParallel raises a RuntimeError",
     "A model wrapped in nn.DataParallel raises a RuntimeError", _DP_BODY,
     "module: data parallel"),
    ("QAT: preparing a model wrapped in nn.DataParallel raises a KeyError",
     "Preparing a model wrapped in nn.DataParallel raises a KeyError", _DP_BODY,
     "module: data parallel"),
]


@pytest.mark.parametrize("case", LED, ids=["export", "vmap", "qat"])
def test_a_subsystem_leading_the_title_withholds_triaged(queue, case):
    led, plain, body, module = case
    # Without the subsystem in the title the same report is a sure classification:
    # the title word, not the body, is what withholds `triaged`.
    alone = plan_ok(make_issue(plain, body), queue)
    assert alone.decision == "classify" and TRIAGED in alone.add_labels, alone.reasoning

    plan = plan_ok(make_issue(led, body), queue)
    # Still distributed, routed and classified: the component is in the title too ...
    assert plan.decision != "not_distributed", plan.reasoning
    assert PAR in plan.add_labels and module in plan.add_labels, plan.reasoning
    # ... but which owner is at fault is a human's call.
    assert TRIAGED not in plan.add_labels and REVIEW in plan.add_labels, plan.reasoning
    against = {e.signal for e in plan.evidence if e.stance == "against"}
    assert SIGNAL in against, plan.to_json()


@pytest.mark.parametrize("title", [
    "FSDP model fails to export: fully_shard parameters are rejected",
    "fully_shard module raises when its state is saved with torch.save",
])
def test_a_subsystem_named_after_the_component_is_not_evidence_against(queue, title):
    plan = plan_ok(make_issue(title, _FSDP_BODY), queue)
    against = {e.signal for e in plan.evidence if e.stance == "against"}
    assert SIGNAL not in against, plan.to_json()
    assert plan.decision == "classify" and TRIAGED in plan.add_labels, plan.reasoning
    assert "module: fsdp" in plan.add_labels


def test_the_flag_decides_not_the_wording(queue):
    # With every signal's leads_title off, the subsystem counts wherever the title names
    # it: the same title, naming it after the component, is then withheld too.
    title = "A DataParallel model fails to export: the wrapper's forward is rejected"
    kept = plan_ok(make_issue(title, _DP_BODY), queue)
    assert TRIAGED in kept.add_labels, kept.reasoning
    loose = with_signal_flags(queue, leads_title=False)
    plan = plan_ok(make_issue(title, _DP_BODY), loose)
    assert TRIAGED not in plan.add_labels and REVIEW in plan.add_labels, plan.reasoning


def test_a_subsystem_in_the_body_only_changes_nothing(queue):
    body = ("After training we export the model to ONNX; before that, FSDP raises.\n"
            + _FSDP_BODY)
    plan = plan_ok(make_issue("fully_shard raises on a tied embedding", body), queue)
    assert SIGNAL not in {e.signal for e in plan.evidence}
    assert TRIAGED in plan.add_labels, plan.reasoning
