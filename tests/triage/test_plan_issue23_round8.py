"""Issue #23, stop 33: `triaged` coverage lost to rules, not thresholds. Each rule here
came from a kind of evidence that withheld `triaged` from right plans in at least three
of the fit sets, and has a case it must change and a case it must leave alone. Written
for this file (no labelled issue's text); every plan also passes the constraint
checker."""

from __future__ import annotations

import pytest

from tests.triage.plankit import TRIAGED, fence, make_issue, plan_ok

NEEDS_REPRO = "needs reproduction"


# ------------------------------------------------------------------ T-16: a test of the suite

_CASES = [
    # unittest's failure line, as a CI log prints it (timestamps first).
    ("test_allgather_coalesced is flaky", "See the CI log:\n{}",
     fence("Mar 02 10:11:12 FAIL [2.101s]: test_allgather_coalesced "
           "(__main__.ProcessGroupNCCLTest)\n"
           "Mar 02 10:11:12 AssertionError: Tensor-likes are not equal!", lang="")),
    # pytest's summary line names the file and the test.
    ("FSDP sharded state dict test fails on main", "The test fails on a fresh build:\n{}",
     fence("FAILED test/distributed/fsdp/test_fsdp_state_dict.py::TestFSDPStateDict::"
           "test_state_dict_save_load_flow - AssertionError", lang="")),
    # A traceback whose frames go through a test function of test/distributed/.
    ("DTensor redistribute of a 2-D mesh raises IndexError", "Running the examples:\n{}",
     fence("Traceback (most recent call last):\n"
           '  File "/src/ml/test/distributed/tensor/parallel/test_tp_examples.py", line 210, in '
           "test_transformer_training\n"
           "    out.sum().backward()\n"
           '  File "/src/ml/torch/distributed/tensor/_redistribute.py", line 88, in redistribute\n'
           "    placements[i]\n"
           "IndexError: tuple index out of range", lang="")),
    # Prose naming the test file and the test in it.
    ("[DTensor] optimizer step of a partly tensor-parallel model can fail",
     "{} fails when one layer of the model is left without a tensor-parallel plan.",
     "In `test_fsdp_dsd.py`, the test `test_save_with_2d_and_load`"),
]


@pytest.mark.parametrize(("title", "body", "test_named"), _CASES)
def test_a_named_test_of_the_suite_is_its_own_reproduction(queue, title, body, test_named):
    # T-16 never asks when the issue has steps to follow: rerunning the named test is
    # the reproduction, as for CI's disabled-test reports (round 4). The same report
    # without the test named is asked for one, so the test is what changed the plan.
    plan = plan_ok(make_issue(title, body.format(test_named)), queue)
    assert NEEDS_REPRO not in plan.add_labels, plan.reasoning
    assert plan.comments == ()
    without = plan_ok(make_issue(title, body.format("The run")), queue)
    assert NEEDS_REPRO in without.add_labels, without.reasoning


@pytest.mark.parametrize(("title", "body"), [
    # A person's own script and test, not the suite's: no steps anybody can follow.
    ("DDP hangs in my training", "I wrote test_ddp.py and it hangs after the first epoch "
                                 "with DistributedDataParallel."),
    ("FSDP training crashes",
     "Using FullyShardedDataParallel, training stops with\n" + fence(
         "Traceback (most recent call last):\n"
         '  File "/home/me/project/train.py", line 12, in main\n'
         "    loss.backward()\n"
         "RuntimeError: FSDP expected a flat parameter", lang="")),
    ("FSDP training crashes", "FAIL: my FullyShardedDataParallel training run crashed."),
])
def test_a_persons_own_script_or_test_is_no_reproduction(queue, title, body):
    plan = plan_ok(make_issue(title, body), queue)
    assert NEEDS_REPRO in plan.add_labels, plan.reasoning
    assert TRIAGED not in plan.add_labels
    assert "suite_test_failure" not in {e.signal for e in plan.evidence}


def test_an_unstable_ci_job_is_its_own_reproduction(queue):
    # An UNSTABLE report names a CI job: rerunning the job reproduces it (T-16).
    plan = plan_ok(make_issue(
        "UNSTABLE pull / linux-jammy-py3.10-gcc11 / test (distributed)",
        "FSDP tests fail intermittently on trunk; marking the job unstable while the "
        "fully_shard failures are investigated."), queue)
    assert NEEDS_REPRO not in plan.add_labels, plan.reasoning
    assert plan.comments == ()


def test_a_title_that_only_looks_like_a_ci_job_is_still_asked(queue):
    plan = plan_ok(make_issue("Unstable loss / divergence with FSDP2",
                              "The loss spikes after a few hundred steps with fully_shard."),
                   queue)
    assert NEEDS_REPRO in plan.add_labels, plan.reasoning
