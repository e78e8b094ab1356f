"""Two step rules whose edges no test decided (issue #23, the seed-37 mutation pass of
agentops.triage.plan, #26): a layered module's `title_lead` (T-13, docs/triage.md "The
queue's data": DTensor is kept under FSDP only when the title names DTensor first) and
where the title and the prose put the other owner in step 1 (T-11, docs/triage.md
"Step 1": a platform's test tracker, a weak word after another owner in the title, and
what a report rules out naming no owner). Issues made up for this file; thresholds are
off here (set explicitly), so the rule and not a fitted threshold decides."""

from __future__ import annotations

from tests.triage.plankit import PAR, make_issue, plan_ok, queue_with_thresholds

DTENSOR, FSDP = "module: dtensor", "module: fsdp"
REVIEW = "triage review"
_FSDP_DTENSOR_BODY = "With fully_shard on 8 GPUs the DTensor op fails."


queue = queue_with_thresholds()  # every threshold off, set here


# ------------------------------------------------ step 3: the layer's `title_lead` (T-13)

def test_dtensor_that_the_title_names_alone_is_kept(queue):
    # FSDP only in the prose, DTensor the title's subject: nothing in the title comes
    # before DTensor, so it leads the title.
    plan = plan_ok(make_issue("DTensor cannot run a scatter op", _FSDP_DTENSOR_BODY), queue)
    assert plan.add_labels[0] == PAR, plan.reasoning
    assert DTENSOR in plan.add_labels, plan.reasoning


def test_dtensor_named_before_fsdp_in_the_title_is_kept_beside_it(queue):
    plan = plan_ok(make_issue("DTensor cannot run a scatter op, breaking FSDP",
                              _FSDP_DTENSOR_BODY), queue)
    assert {DTENSOR, FSDP} <= set(plan.add_labels), plan.reasoning


def test_dtensor_named_after_fsdp_in_the_title_is_fsdps_use_of_it(queue):
    plan = plan_ok(make_issue("FSDP's DTensor state dict is not loaded",
                              "With fully_shard the DTensor state dict is not loaded."), queue)
    assert FSDP in plan.add_labels and DTENSOR not in plan.add_labels, plan.reasoning


def test_dtensor_in_the_prose_only_stays_under_fsdp(queue):
    # A title that names neither: DTensor has no place of its own, and leading a title
    # that does not name it is not leading it.
    plan = plan_ok(make_issue("Training stalls after step 10",
                              "With fully_shard the DTensor state dict is not loaded."), queue)
    assert FSDP in plan.add_labels and DTENSOR not in plan.add_labels, plan.reasoning


# ---------------------------------------------------- step 1: a platform's test tracker

_TEST_ID = "DISABLED test_all_reduce_sum (__main__.TestCollectives)"
_PLATFORM = ("Platforms: rocm\n\nThis test was disabled because it is failing in ROCm6.1.\n\n"
             "all_reduce returns the wrong sum on rank 1.")
_COMPILER_TRACE = ("```\nTraceback (most recent call last):\n"
                   '  File "/opt/conda/lib/python3.10/site-packages/torch/_inductor/graph.py",'
                   " line 3, in run\n"
                   "torch._inductor.exc.InductorError: invalid device function\n```\n")


def test_a_platform_test_tracker_names_the_test_not_a_distributed_failure(queue):
    # A test id for a title and a platform-owned test in the prose: the collective and
    # the per-rank words in the body name the test (T-11, docs/triage.md step 1).
    plan = plan_ok(make_issue(_TEST_ID, _PLATFORM), queue)
    assert plan.decision == "not_distributed", plan.reasoning


def test_a_platform_in_the_prose_without_a_test_id_keeps_the_collective(queue):
    # The same body under a person's title: not a test tracker, so the collective that
    # returns a wrong sum is the subject.
    plan = plan_ok(make_issue("all_reduce returns the wrong sum on rank 1", _PLATFORM), queue)
    assert plan.decision != "not_distributed", plan.reasoning


def test_a_test_id_with_another_owner_only_in_its_trace_is_no_tracker(queue):
    # The compiler raised in a trace, not in the prose: the test id alone does not make
    # the body's collective the test's name; distributed stays, contested.
    plan = plan_ok(make_issue(_TEST_ID, "all_reduce returns the wrong sum on rank 1.\n"
                              + _COMPILER_TRACE), queue)
    assert plan.decision != "not_distributed", plan.reasoning
    assert REVIEW in plan.add_labels, plan.reasoning


def test_a_test_id_whose_other_owner_the_prose_quotes_from_its_trace_is_no_tracker(queue):
    # The compiler's error is in the prose and in the trace: the trace shows where it was
    # raised, so it is the failure's owner in a trace, not a platform-owned test.
    body = ("all_reduce returns the wrong sum on rank 1; the log ends in "
            "torch._inductor.exc.InductorError: invalid device function.\n" + _COMPILER_TRACE)
    plan = plan_ok(make_issue(_TEST_ID, body), queue)
    assert plan.decision != "not_distributed", plan.reasoning


def test_a_test_id_whose_other_owner_is_only_in_the_title_is_no_tracker(queue):
    # The tracker's other owner must be in the prose; the title of a CI report is a
    # test id, whatever it names.
    plan = plan_ok(make_issue("DISABLED test_all_reduce_sum fails with "
                              "torch._inductor.exc.InductorError",
                              "all_reduce returns the wrong sum on rank 1."), queue)
    assert plan.decision != "not_distributed", plan.reasoning


# ----------------------------------- step 1: which title words name another owner (T-11)

def test_a_weak_launcher_word_after_another_owner_in_the_title_is_context(queue):
    # "CUDA OOM when launching with torchrun": one device's memory error leads the title,
    # the launcher after it says where the failure was seen (docs/triage.md, hand batches).
    plan = plan_ok(make_issue("CUDA OOM when launching with torchrun",
                              "The job runs out of memory on the first batch."), queue)
    assert plan.decision == "not_distributed", plan.reasoning


def test_single_process_before_a_launcher_names_no_owner(queue):
    # "single process" says what the issue is not, never whose it is (names_owner:
    # false): it does not make the launcher after it context, and the issue stays in the
    # queue for a human (docs/triage.md step 1).
    plan = plan_ok(make_issue("Single process: OOM when launched with torchrun",
                              "CUDA out of memory."), queue)
    assert plan.decision != "not_distributed", plan.reasoning
    assert REVIEW in plan.add_labels and "triaged" not in plan.add_labels, plan.reasoning
