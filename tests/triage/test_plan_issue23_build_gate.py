"""Issue #23, off-queue round: the `triaged` gate on a failing build. A pasted log (the
repro's code block or a trace) that shows a build, link or import step failing (rubric
``fails_build``: a compiler diagnostic, an undefined symbol at import) while the title
still names a distributed component: humans route such reports both ways (the build team
for a missing header of a distributed library, the component's team for its own code),
so the plan routes and classifies, but asks `triage review` instead of `triaged`. The
same report failing at run time is triaged, and a build word in the prose alone
("building from source") is context, not the failure. Issues written for this file (no
labelled issue's text); every plan also passes the constraint checker."""

from __future__ import annotations

from tests.triage.plankit import (
    INFRA,
    REVIEW,
    TRIAGED,
    fence,
    make_issue,
    plan_ok,
    queue_with_thresholds,
    with_signal_flags,
)

# The built-in queue with its selective thresholds off, set here: the rule under test,
# not a fitted threshold, decides these plans.
queue = queue_with_thresholds()


REASON = "build, link or import step fail"
MODULE = "module: symm_mem"

_TITLE = "symmetric memory: the NVSHMEM backend breaks with nvshmem 3.4"
_RUNTIME = fence(
    "Traceback (most recent call last):\n"
    '  File "train.py", line 9, in <module>\n'
    "    buf = symm_mem.empty(1024, device='cuda')\n"
    '  File "/opt/py/site-packages/torch/distributed/_symmetric_memory/__init__.py", '
    "line 1710, in empty\n"
    "    return _SymmetricMemory.empty_strided_p2p(\n"
    "RuntimeError: nvshmem_malloc returned a null pointer on rank 2", lang="")
_BUILD_LOG = fence(
    "[812/5210] Building CUDA object caffe2/CMakeFiles/torch_cuda.dir/symm_mem/"
    "NVSHMEMSymmetricMemory.cu.o\n"
    "torch/csrc/distributed/c10d/symm_mem/NVSHMEMSymmetricMemory.cu:21:10: fatal error: "
    "nvshmem_api.h: No such file or directory\n"
    "ninja: build stopped: subcommand failed.", lang="")
_IMPORT_TRACE = fence(
    "Traceback (most recent call last):\n"
    '  File "train.py", line 1, in <module>\n'
    "    import torch\n"
    "ImportError: /opt/py/site-packages/torch/lib/libtorch_nvshmem.so: undefined symbol: "
    "nvshmemx_init_status", lang="")


def _routed(plan) -> None:  # type: ignore[no-untyped-def]
    # Still distributed, routed and classified: the build does not send it elsewhere.
    assert plan.decision == "route", plan.reasoning
    assert INFRA in plan.add_labels and MODULE in plan.add_labels, plan.reasoning


def test_the_runtime_failure_is_triaged(queue):
    # The control: the same title, failing at run time with the component's own frame.
    plan = plan_ok(make_issue(_TITLE, "Allocating a buffer fails on one rank.\n" + _RUNTIME),
                   queue)
    _routed(plan)
    assert TRIAGED in plan.add_labels and REVIEW not in plan.add_labels, plan.reasoning
    assert REASON not in plan.reasoning


def test_a_compiler_diagnostic_in_a_pasted_build_log_asks_for_review(queue):
    plan = plan_ok(make_issue(_TITLE, "Building from a fresh checkout:\n" + _BUILD_LOG), queue)
    _routed(plan)
    assert TRIAGED not in plan.add_labels and REVIEW in plan.add_labels, plan.reasoning
    assert REASON in plan.reasoning and "build_packaging" in plan.reasoning
    # Step 1's evidence says where the failing build was seen.
    against = [e for e in plan.evidence if e.step == "1" and e.stance == "against"]
    assert any(e.signal == "build_packaging" and e.where == "code" for e in against)


def test_an_undefined_symbol_at_import_in_a_trace_asks_for_review(queue):
    plan = plan_ok(make_issue(_TITLE, "After installing the nightly wheel:\n" + _IMPORT_TRACE),
                   queue)
    _routed(plan)
    assert TRIAGED not in plan.add_labels and REVIEW in plan.add_labels, plan.reasoning
    assert REASON in plan.reasoning


def test_a_build_word_in_the_prose_alone_is_context(queue):
    body = ("I am building from source. Allocating a buffer fails on one rank.\n" + _RUNTIME)
    plan = plan_ok(make_issue(_TITLE, body), queue)
    _routed(plan)
    # The build signal fired (in the prose), and did not hold `triaged` back.
    against = [e for e in plan.evidence if e.step == "1" and e.stance == "against"]
    assert any(e.signal == "build_packaging" and e.where == "body" for e in against), \
        plan.evidence
    assert TRIAGED in plan.add_labels and REASON not in plan.reasoning, plan.reasoning


def test_the_rubric_flag_is_what_decides(queue):
    # The build signal carries the flag in the shipped rubric, only not_distributed
    # signals do, and with the flag off the build-log report is triaged again.
    assert "build_packaging" in queue.rubric.build_failures
    roles = {s.id: s.role for s in queue.rubric.signals}
    assert all(roles[i] == "not_distributed" for i in queue.rubric.build_failures)
    plan = plan_ok(make_issue(_TITLE, "Building from a fresh checkout:\n" + _BUILD_LOG),
                   with_signal_flags(queue, fails_build=False))
    assert TRIAGED in plan.add_labels and REASON not in plan.reasoning, plan.reasoning
