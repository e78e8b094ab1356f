"""Issue #23, step 1 (T-11): a title naming nothing distributed but another owner's
failure as its subject (a data-loader worker killed, the compiler's error) is that
owner's report; the distributed errors its prose tells of (other ranks then hang on a
backend error) followed from it, as for a title naming another owner by a weak word.
A distributed component in the title, or a distributed frame in a trace, still counts.

Every issue below is made up for this file; every plan also passes the constraint
checker."""

from __future__ import annotations

from tests.triage.plankit import fence, make_issue, plan_ok

_PROSE = ("Our job runs on four nodes with two loader workers per rank. At shutdown one "
          "node's worker dies and the other nodes then report an NCCL error and hang.")
_TRACE = fence(
    "Traceback (most recent call last):\n"
    '  File "/srv/env/lib/torch/distributed/c10d_helpers_x.py", line 41, in sync_all\n'
    "    merged = exchange_now(shard_buf)\n"
    "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:77, remote peer went away", lang="")


def test_another_owners_failure_as_the_titles_only_subject_is_not_distributed(queue):
    plan = plan_ok(make_issue("DataLoader worker killed by signal when training ends",
                              _PROSE), queue)
    assert plan.decision == "not_distributed", plan.reasoning


def test_a_component_in_the_title_beside_it_stays_distributed(queue):
    plan = plan_ok(make_issue("DataLoader worker killed by signal when DDP training ends",
                              _PROSE), queue)
    assert plan.decision != "not_distributed", plan.reasoning


def test_a_distributed_frame_in_a_trace_stays_distributed(queue):
    plan = plan_ok(make_issue("DataLoader worker killed by signal when training ends",
                              _PROSE + "\n\n" + _TRACE), queue)
    assert plan.decision != "not_distributed", plan.reasoning


def test_another_owners_failure_told_only_in_the_prose_leaves_the_errors_the_subject(queue):
    # The rule reads the title: a title naming neither side leaves the prose's compiler
    # error beside the distributed errors, which stay the subject.
    body = ("After some hours the compiler raises torch._dynamo.exc.Unsupported in one "
            "rank, and then the other ranks report an NCCL watchdog timeout and hang.")
    plan = plan_ok(make_issue("Training stops after a few hours", body), queue)
    assert plan.decision != "not_distributed", plan.reasoning
