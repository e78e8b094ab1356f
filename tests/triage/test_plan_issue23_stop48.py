"""Issue #23, stop 48 (round tr-fit48): module readings (T-12 "what the report is about,
not every component it names") and one wrong `triaged` plan, found from the fit part's
out-of-fold errors (dev fit part + blind13-16).

- A CI report's test id is the test's name and its suite's class. The name says what the
  test checks; the class may also name the harness or backend the suite runs on. Beside
  a module the test's name names, a module only the class names (title only) is that
  context, not a second module (``_suite_only_modules``). Without a module in the test's
  name, the class is the only clue and nothing is dropped.
- A title that opens with another framework's tag ("[caffe2] …") files the report against
  that framework (rubric ``other_framework_title``; issue #23 item 2): a backend named
  after the tag is what that framework's run used, so the plan is not `triaged`.
- A person's title that quotes a test by its name as code ("… `test_fsdp_grad_clip`")
  names the component the test checks by the test's name's parts (``test_name_parts``).
  The module is proposed, never `triaged` on that alone, and it is no rival owner of
  another team's route. A test named in plain words keeps its whole-word reading.

Made-up issues in our own words; thresholds off, so the rules decide."""

from __future__ import annotations

import pytest

from agentops.triage.signals import test_name_parts as name_parts
from tests.triage.plankit import (
    CKPT,
    INFRA,
    PAR,
    REVIEW,
    TRIAGED,
    evidence_signals,
    fence,
    make_issue,
    plan_ok,
    queue_with_thresholds,
)

DDP = "module: ddp"
RPC = "module: rpc"
FSDP = "module: fsdp"

queue = queue_with_thresholds()  # every threshold off, set here: the rules decide

_CI_BODY = "Failing on the trunk jobs since Tuesday; the linked runs hold the logs."


def test_a_module_only_the_suite_class_names_is_context_beside_the_tests_own(queue):
    plan = plan_ok(make_issue("DISABLED test_ddp_grad_sync (__main__.TensorPipeDdpSyncTest)",
                              _CI_BODY), queue)
    assert DDP in plan.add_labels, plan.reasoning
    assert RPC not in plan.add_labels, plan.reasoning
    assert PAR in plan.add_labels and INFRA not in plan.add_labels, plan.reasoning


def test_without_a_module_in_the_tests_name_the_class_still_counts(queue):
    plan = plan_ok(make_issue("DISABLED test_weights_sync (__main__.TensorPipeDdpSyncTest)",
                              _CI_BODY), queue)
    assert RPC in plan.add_labels, plan.reasoning


def test_a_class_module_the_report_shows_beyond_the_title_stays(queue):
    body = _CI_BODY + "\n" + fence("fut = rpc.rpc_async('worker1', torch.add, args=(t, 1))")
    plan = plan_ok(make_issue("DISABLED test_ddp_grad_sync (__main__.TensorPipeDdpSyncTest)",
                              body), queue)
    assert RPC in plan.add_labels, plan.reasoning


def test_a_title_tagged_with_another_framework_is_not_ours(queue):
    plan = plan_ok(make_issue(
        "[caffe2] the trainer fails between two machines with gloo",
        "Running the image trainer on two hosts with the gloo rendezvous stops after the "
        "first step; one host prints a connection reset."), queue)
    assert "other_framework_title" in evidence_signals(plan), plan.to_json()
    assert TRIAGED not in plan.add_labels, plan.reasoning
    assert INFRA not in plan.add_labels, plan.reasoning


@pytest.mark.parametrize("title", [
    "Gloo all_reduce hangs between two hosts after moving from Caffe2",
    "[c10d] gloo all_reduce hangs between two hosts",
])
def test_a_framework_named_later_or_our_own_tag_is_untouched(queue, title):
    plan = plan_ok(make_issue(title, "Both hosts wait in the collective for ever."), queue)
    assert "other_framework_title" not in evidence_signals(plan), plan.to_json()
    assert plan.decision != "not_distributed", plan.reasoning


def test_a_test_quoted_by_name_names_its_component_for_review(queue):
    plan = plan_ok(make_issue(
        "Add a sharded-gradient case to `test_fsdp_grad_clip`",
        "The test only covers one rank group today; add one that shards the gradients."),
        queue)
    assert FSDP in plan.add_labels, plan.reasoning
    assert TRIAGED not in plan.add_labels, plan.reasoning
    assert REVIEW in plan.add_labels, plan.reasoning


def test_a_test_named_in_plain_words_keeps_its_whole_word_reading(queue):
    plan = plan_ok(make_issue(
        "Add a sharded-gradient case to test_fsdp_grad_clip",
        "The test only covers one rank group today; add one that shards the gradients."),
        queue)
    assert FSDP not in plan.add_labels, plan.reasoning


def test_a_module_named_by_a_quoted_test_is_no_rival_of_another_teams_route(queue):
    plan = plan_ok(make_issue(
        "[DCP] `test_fsdp_save` fails on unrelated changes in CI",
        "dcp.save raises in this test on trunk for PRs that touch nothing of it."), queue)
    assert CKPT in plan.add_labels, plan.reasoning
    assert TRIAGED in plan.add_labels, plan.reasoning


@pytest.mark.parametrize(("title", "parts"), [
    ("add a case to `test_fsdp_grad_clip`", {"fsdp", "grad", "clip", "fsdp_grad",
                                             "grad_clip", "fsdp_grad_clip"}),
    ("see `test_c10d.py` and `helper_x`", {"c10d"}),
    ("add a case to test_fsdp_grad_clip", set()),
    ("`fsdp_test_helper` is slow", set()),
])
def test_test_name_parts(title, parts):
    assert set(name_parts(title)) == parts
