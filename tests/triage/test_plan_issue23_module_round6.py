"""Issue #23, module round 6 (T-13 layering): a layered module's title lead does not
count when another owner's subject stands in the title before it. In a title that is
the compiler's message ("Dynamo cannot trace torch._C._distributed_c10d._x",
"Inductor error: cannot lower …"), the process-group symbol is where the compiled
code called the collective: context, not the subject.
The module that calls it (DDP, FSDP: the one the body shows) decides, and the issue
is not routed to the process-group layer's team on that symbol alone.

Written from the fit part's module errors on issues with one human module (a
process-group module proposed instead of the wrapper humans set); every issue below is
made up for this file, and every plan also passes the constraint checker."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agentops.triage.plan import _title_pos, read
from tests.triage.plankit import fence, make_issue, plan_ok

C10D = "module: c10d"
DDP = "module: ddp"
FSDP = "module: fsdp"
DTENSOR = "module: dtensor"
PAR = "oncall: distributed parallelisms"
INFRA = "oncall: distributed infra"

_DDP_BODY = ("Compiling a model wrapped in DistributedDataParallel on two ranks prints this "
             "warning on every step and the step time doubles.\n"
             + fence("model = DDP(net.cuda(rank), device_ids=[rank])\n"
                     "model = torch.compile(model)\n"))
_FSDP_BODY = ("Our FSDP2 job on eight GPUs stops compiling the block after this message.\n"
              + fence("for block in net.blocks:\n    fully_shard(block)\n"
                      "fully_shard(net)\nnet = torch.compile(net)\n"))


@pytest.mark.parametrize("title, body, caller", [
    ("Dynamo cannot trace torch._C._distributed_c10d._reduce_coalesced_hook", _DDP_BODY, DDP),
    ("Inductor error: cannot lower torch._C._distributed_c10d._allgather_base",
     _FSDP_BODY, FSDP),
    # The compiler named by a dotted keyword ("torch.compile" is read as two words).
    ("torch.compile fails on all_gather_into_tensor in my training step", _FSDP_BODY, FSDP),
    # The same for DTensor under FSDP (its layer keeps it on a title lead too).
    ("torch.compile: DTensor redistribute fails in FSDP2 training", _FSDP_BODY, FSDP),
])
def test_a_layered_module_inside_another_owners_title_is_context(queue, title, body, caller):
    plan = plan_ok(make_issue(title, body), queue)
    assert caller in plan.add_labels, plan.reasoning
    assert C10D not in plan.add_labels and DTENSOR not in plan.add_labels, plan.reasoning
    assert PAR in plan.add_labels and INFRA not in plan.add_labels, plan.reasoning


@pytest.mark.parametrize("title, body", [
    # The process-group symbol leads the title; the compiler comes after it.
    ("torch._C._distributed_c10d._reduce_coalesced graph-breaks under torch.compile",
     _DDP_BODY),
    ("ProcessGroup allgather slow under torch.compile", _FSDP_BODY),
    # No other owner in the title: the collective is the title's subject, as before.
    ("all_gather_into_tensor hangs on the second step", _FSDP_BODY),
])
def test_the_title_lead_stands_when_no_other_owner_precedes_it(queue, title, body):
    plan = plan_ok(make_issue(title, body), queue)
    assert C10D in plan.add_labels, plan.reasoning


def test_dtensor_named_first_keeps_its_title_lead_beside_a_later_compiler(queue):
    plan = plan_ok(make_issue("DTensor redistribute fails in FSDP2 training under "
                              "torch.compile", _FSDP_BODY), queue)
    assert DTENSOR in plan.add_labels and FSDP in plan.add_labels, plan.reasoning


def test_the_title_places_a_dotted_keyword_before_the_symbol_it_precedes(queue):
    title = "torch.compile fails on all_gather_into_tensor"
    reading = read(make_issue(title, _FSDP_BODY), queue)
    compiler = next(h for h in reading.hits if h.signal == "compiler_title")
    c10d = next(h for h in reading.label_hits[C10D] if "title" in h.places)
    at_compiler, at_c10d = _title_pos(title.lower(), compiler), _title_pos(title.lower(), c10d)
    assert at_compiler is not None and at_c10d is not None
    assert at_compiler < at_c10d
    # A hit made by hand (no recorded place) is placed by its match, or not at all.
    assert _title_pos("fsdp hangs", replace(c10d, title_at=None)) is None
