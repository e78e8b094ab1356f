"""Issue #23, round 6: a link to a module's source file in the pytorch repository names
the module, as a frame of that file does. Found on blind5's module misses once it became
fit material: a feature request for the launcher that pointed at the line to change (a
link into torch/distributed/elastic/) and named the module nowhere else. Written for this
file (no labelled issue's text); every plan also passes the constraint checker."""

from __future__ import annotations

import pytest

from tests.triage.plankit import INFRA, PAR, make_issue, plan_ok

_BLOB = "https://github.com/pytorch/pytorch/blob/0123abc/"

_TITLE = "Forward one more signal to the worker processes"
_BODY = ("### The feature, motivation and pitch\n\nOnly four signals are forwarded to the "
         "workers today; our scheduler sends another one before preemption. It looks like "
         "a two-line addition in [{path}]({blob}{path}#L400):\n\n"
         "Could it be added?\n")


@pytest.mark.parametrize("path, module, sub", [
    ("torch/distributed/elastic/multiprocessing/api.py", "module: elastic", INFRA),
    ("torch/distributed/run.py", "module: elastic", INFRA),
    ("torch/distributed/fsdp/_runtime_utils.py", "module: fsdp", PAR),
    ("torch/nn/parallel/distributed.py", "module: ddp", PAR),
    ("torch/distributed/pipelining/schedules.py", "module: pipelining", PAR),
    ("torch/distributed/tensor/_redistribute.py", "module: dtensor", PAR),
    ("torch/distributed/device_mesh.py", "module: DeviceMesh", INFRA),
    ("torch/distributed/rpc/api.py", "module: rpc", INFRA),
])
def test_a_source_link_names_its_module(queue, path, module, sub):
    plan = plan_ok(make_issue(_TITLE, _BODY.format(path=path, blob=_BLOB)), queue)
    assert module in plan.add_labels, plan.reasoning
    assert sub in plan.add_labels, plan.reasoning


@pytest.mark.parametrize("path", [
    # Not a link: the same path as prose, or a frame of a pasted log, is not a pointer
    # at the code to change (the launcher re-raises every worker's failure).
    "plain",
    # A link into a folder no module of the queue owns.
    "torch/nn/parallel/data_parallel.py",
    # DTensor's tensor-parallel styles are not DTensor's own code.
    "torch/distributed/tensor/parallel/style.py",
    # Autograd's own engine is not distributed autograd (rpc).
    "torch/autograd/graph.py",
])
def test_no_module_without_a_link_to_its_code(queue, path):
    if path == "plain":
        body = _BODY.replace("[{path}]({blob}{path}#L400)",
                             "torch/distributed/elastic/multiprocessing/api.py")
    else:
        body = _BODY.format(path=path, blob=_BLOB)
    plan = plan_ok(make_issue(_TITLE, body), queue)
    for module in ("module: elastic", "module: fsdp", "module: ddp", "module: pipelining",
                   "module: dtensor", "module: DeviceMesh", "module: rpc"):
        assert module not in plan.add_labels, plan.reasoning
