"""The applier against a recording fake: every constraint T-20 … T-28 is enforced by
``apply_plan`` itself, and every refusal writes nothing."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from agentops.errors import ApiError, ConfigError, PartialApplyError, RefusedError
from agentops.triage.apply import LabelChecker, apply_plan, plan_label_changes, preview
from agentops.triage.model import Comment, Plan
from tests.triage.livekit import (
    CKPT,
    INFRA,
    PAR,
    REPO_LABELS,
    REPRO_V1,
    TRIGGER,
    RecordingClient,
    issue,
    make_queue,
)

ROOT = Path(__file__).resolve().parents[2]
Q = make_queue()


def plan(labels, *, decision="classify", comments=(), repo="o/r", number=7, **kw) -> Plan:
    return Plan(repo=repo, issue=number, decision=decision, add_labels=tuple(labels),
                comments=tuple(comments), confidence="high", queue="distributed", **kw)


def label_posts(client: RecordingClient) -> list[list[str]]:
    return [body["labels"] for m, p, body in client.mutations if p.endswith("/labels")]


def comment_posts(client: RecordingClient) -> list[str]:
    return [body["body"] for m, p, body in client.mutations if p.endswith("/comments")]


# --- refusals: zero mutations ------------------------------------------------------------

def test_label_outside_allowlist_is_refused_with_zero_writes():
    client = RecordingClient()
    p = plan([PAR, "module: fsdp", "high priority", "bot-triaged"])
    with pytest.raises(RefusedError) as err:
        apply_plan(client, p, issue(), Q)
    assert client.mutations == []
    assert "outside the queue 'distributed' allowlist (T-21)" in err.value.message
    assert err.value.reasons == ["not allowlisted: 'high priority'"]
    assert "labels.json" in (err.value.fix or "")


def test_plan_for_another_issue_or_repo_is_refused_with_zero_writes():
    client = RecordingClient()
    with pytest.raises(RefusedError) as err:
        apply_plan(client, plan([PAR, "bot-triaged"], number=8), issue(7), Q)
    assert "plan is for issue #8, the issue read is #7" in err.value.reasons
    with pytest.raises(RefusedError) as err:
        apply_plan(client, plan([PAR, "bot-triaged"], repo="evil/fork"), issue(7), Q)
    assert "plan is for repository 'evil/fork'" in err.value.reasons[0]
    assert client.mutations == [] and client.calls == []


def test_comment_not_from_a_template_is_refused():
    client = RecordingClient()
    with pytest.raises(RefusedError) as err:
        apply_plan(client, plan([PAR, "bot-triaged"], comments=("free text",)), issue(), Q)
    assert "is not a template of queue" in err.value.reasons[0]
    assert client.mutations == []


def test_missing_repository_label_is_a_config_error_with_zero_writes():
    client = RecordingClient(repo_labels=[lb for lb in REPO_LABELS if lb != "module: fsdp"])
    with pytest.raises(ConfigError) as err:
        apply_plan(client, plan([PAR, "module: fsdp", "bot-triaged", "triaged"]), issue(), Q)
    assert client.mutations == []
    assert "'module: fsdp' do not exist in the repository" in err.value.message
    assert "never creates labels" in err.value.message
    assert 'gh label create "module: fsdp" -R o/r' in (err.value.fix or "")
    # One aliased query, no listing of every label.
    assert client.calls == [("POST", "/graphql")]


# --- T-20: add-only, by construction ---------------------------------------------------------

def _is_client_write(node: ast.Call) -> bool:
    """``<client>.write(...)``: GitHubClient.write takes ``idempotent=`` and an HTTP
    method first (``sys.stdout.write(text)`` does neither)."""
    assert isinstance(node.func, ast.Attribute)
    if node.func.attr != "write":
        return False
    receiver = ast.unparse(node.func.value)
    first = node.args[0] if node.args else None
    is_method = isinstance(first, ast.Constant) and str(first.value).upper() in {
        "POST", "PATCH", "PUT", "DELETE", "GET"}
    return (any(k.arg == "idempotent" for k in node.keywords) or is_method
            or "client" in receiver.lower())


def test_t20_only_apply_writes_and_only_posts():
    """No module of triage but apply.py calls a mutating method; apply.py only POSTs to
    labels/comments; nothing anywhere removes labels, closes, locks or assigns."""
    pkg = ROOT / "src" / "agentops" / "triage"
    writers = {}
    for path in pkg.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                    _is_client_write(node) or (
                        node.func.attr == "graphql"
                        and any(k.arg == "write" for k in node.keywords))):
                writers.setdefault(path.name, []).append(node)
        text = path.read_text()
        assert not re.search(r'"(DELETE|PATCH|PUT)"', text), path.name
        assert "mutation" not in text.replace("# ", ""), path.name
        assert not re.search(r"/(lock|assignees)\b", text), path.name
    assert set(writers) == {"apply.py"}
    methods = [ast.literal_eval(call.args[0]) for call in writers["apply.py"]]
    assert methods == ["POST", "POST"]


# --- T-22 … T-25 ---------------------------------------------------------------------------

def test_t22_second_suboncall_becomes_triage_review():
    client = RecordingClient()
    snap = issue(labels=[TRIGGER, INFRA])
    res = apply_plan(client, plan([PAR, "module: fsdp", "bot-triaged", "triaged"]), snap, Q)
    assert label_posts(client) == [["module: fsdp", "bot-triaged", "triage review"]]
    assert PAR not in res.labels_added and "triaged" not in res.labels_added
    assert any(a.startswith("T-22:") for a in res.adjustments)
    assert any(a.startswith("T-23:") for a in res.adjustments)


def test_t22_plan_with_two_suboncalls_adds_neither():
    ch = plan_label_changes(plan([INFRA, CKPT, "bot-triaged"]), [TRIGGER], Q)
    assert ch.add == ("bot-triaged", "triage review")


def test_t22_existing_same_suboncall_is_just_present():
    ch = plan_label_changes(plan([INFRA, "bot-triaged", "triaged"]), [TRIGGER, INFRA], Q)
    assert ch.add == ("bot-triaged", "triaged") and ch.already_present == (INFRA,)
    assert ch.adjustments == ()


@pytest.mark.parametrize("extra,current", [
    (["triage review"], [TRIGGER]),
    (["needs reproduction"], [TRIGGER]),
    ([], [TRIGGER, "triage review"]),  # a human's review label already there
    ([], [TRIGGER, "needs reproduction"]),
])
def test_t23_triaged_never_with_review_or_repro(extra, current):
    ch = plan_label_changes(plan([PAR, "module: fsdp", *extra, "bot-triaged", "triaged"]),
                            current, Q)
    assert "triaged" not in ch.add
    assert any(a.startswith("T-23:") for a in ch.adjustments)


def test_t23_t24_high_priority_path_gets_review_not_marker_not_triaged():
    p = plan([INFRA, "module: c10d", "bot-triaged", "triaged"], decision="high_priority",
             awaiting_humans=True)
    ch = plan_label_changes(p, [TRIGGER], Q)
    assert ch.add == (INFRA, "module: c10d", "triage review")


def test_t24_t27_issue_awaiting_humans_is_not_marked_by_a_later_plan():
    """First run: high priority → sub-oncall, module, triage review, no marker. A second
    run's planner sees module + sub-oncall (step 0) and asks for marker + triaged: the
    applier writes nothing."""
    client = RecordingClient()
    hp = plan([PAR, "module: fsdp", "triage review"], decision="high_priority",
              awaiting_humans=True)
    apply_plan(client, hp, issue(), Q)
    again = issue(labels=[TRIGGER, *client.labels])
    before = list(client.mutations)
    res = apply_plan(client, plan(["bot-triaged", "triaged"], decision="already_classified"),
                     again, Q)
    assert client.mutations == before and res.writes == 0
    assert any("awaits humans" in a for a in res.adjustments)


def test_t24_marker_added_when_the_plan_forgot_it():
    ch = plan_label_changes(plan([CKPT, "triaged"], decision="route"), [TRIGGER], Q)
    assert ch.add == (CKPT, "triaged", "bot-triaged")
    assert ch.adjustments == ("T-24: added 'bot-triaged' (every handled issue)",)


def test_t24_configurable_marker_label():
    q = make_queue(marker="ptd-bot-triaged")
    ch = plan_label_changes(plan([CKPT, "triaged"], decision="route"), [TRIGGER, "bot-triaged"],
                            q)
    assert ch.add == (CKPT, "triaged", "ptd-bot-triaged")


def test_t25_suboncall_first_then_modules():
    ch = plan_label_changes(plan(["bot-triaged", "module: dtensor", "triaged", PAR,
                                  "module: fsdp"]), [TRIGGER], Q)
    assert ch.add == (PAR, "module: dtensor", "module: fsdp", "bot-triaged", "triaged")


# --- T-26 … T-28 -------------------------------------------------------------------------------

def test_t26_t28_one_labels_call_one_comment_with_marker():
    client = RecordingClient()
    p = plan([PAR, "module: fsdp", "needs reproduction", "bot-triaged"],
             decision="needs_reproduction", comments=("needs_distributed_reproduction",))
    res = apply_plan(client, p, issue(), Q)
    assert [m for m, _, _ in client.mutations] == ["POST", "POST"]
    assert label_posts(client) == [[PAR, "module: fsdp", "needs reproduction", "bot-triaged"]]
    (body,) = comment_posts(client)
    tpl = Q.templates["needs_distributed_reproduction"]
    assert body.startswith(tpl.body) and tpl.marker() in body
    assert res.comment == "needs_distributed_reproduction" and res.writes == 2


def test_t26_skips_comment_when_older_version_marker_present_labels_still_added():
    old = Comment(id=5, author="github-actions[bot]", author_type="Bot",
                  body=REPRO_V1 + "\n<!-- agentops:triage template=needs_distributed_reproduction"
                                  " version=1 -->")
    client = RecordingClient()
    p = plan([PAR, "needs reproduction", "bot-triaged"], decision="needs_reproduction",
             comments=("needs_distributed_reproduction",))
    res = apply_plan(client, p, issue(comments=[old]), Q)
    assert comment_posts(client) == []
    assert label_posts(client) == [[PAR, "needs reproduction", "bot-triaged"]]
    assert res.comment_skipped == \
        "marker of needs_distributed_reproduction v1 already in comment 5"


def test_t26_skips_when_a_maintainer_already_asked_in_other_words():
    asked = Comment(id=6, author="maint", author_association="MEMBER",
                    body="Can you give us a minimal repro? Otherwise we cannot look at it.")
    client = RecordingClient()
    p = plan([PAR, "needs reproduction", "bot-triaged"], decision="needs_reproduction",
             comments=("needs_distributed_reproduction",))
    res = apply_plan(client, p, issue(comments=[asked]), Q)
    assert comment_posts(client) == [] and res.comment is None
    assert "maintainer maint already asked" in res.comment_skipped


def test_locked_issue_gets_labels_but_no_comment():
    client = RecordingClient()
    p = plan([PAR, "needs reproduction", "bot-triaged"], decision="needs_reproduction",
             comments=("needs_distributed_reproduction",))
    snap = issue()
    locked = type(snap)(**{**snap.__dict__, "locked": True})
    res = apply_plan(client, p, locked, Q)
    assert comment_posts(client) == [] and res.comment_skipped == "the issue is locked"
    assert label_posts(client) == [[PAR, "needs reproduction", "bot-triaged"]]


def test_t27_second_apply_writes_nothing():
    client = RecordingClient()
    p = plan([PAR, "module: fsdp", "needs reproduction", "bot-triaged"],
             decision="needs_reproduction", comments=("needs_distributed_reproduction",))
    first = apply_plan(client, p, issue(), Q)
    assert first.writes == 2
    posted = [Comment.from_rest(c) for c in client.comments]
    again = issue(labels=[TRIGGER, *client.labels], comments=posted)
    before = list(client.mutations)
    second = apply_plan(client, p, again, Q)
    assert client.mutations == before
    assert second.writes == 0 and not second.changed
    assert second.already_present == (PAR, "module: fsdp", "needs reproduction", "bot-triaged")


def test_partial_apply_when_comment_fails_after_labels():
    def fail(method, path):
        return ApiError("POST comments failed: HTTP 500", status_code=500,
                        ambiguous=True) if path.endswith("/comments") else None

    client = RecordingClient(fail_write=fail)
    p = plan([PAR, "needs reproduction", "bot-triaged"], decision="needs_reproduction",
             comments=("needs_distributed_reproduction",))
    with pytest.raises(PartialApplyError) as err:
        apply_plan(client, p, issue(), Q)
    assert "labels oncall: distributed parallelisms, needs reproduction, bot-triaged were " \
           "added" in err.value.message
    assert int(err.value.status) == 4 and "rerun" in (err.value.fix or "")


def test_comment_failure_without_label_write_is_not_partial():
    def fail(method, path):
        return ApiError("boom", status_code=500) if path.endswith("/comments") else None

    client = RecordingClient(fail_write=fail)
    p = plan([], decision="not_distributed", comments=("not_distributed",))
    snap = issue(labels=[TRIGGER, "triage review", "bot-triaged"])
    with pytest.raises(ApiError):
        apply_plan(client, p, snap, Q)


def test_nothing_to_add_means_no_label_check_and_no_write():
    client = RecordingClient()
    snap = issue(labels=[TRIGGER, INFRA, "bot-triaged", "triaged"])
    res = apply_plan(client, plan([INFRA, "bot-triaged", "triaged"], decision="route"), snap, Q)
    assert client.calls == [] and res.writes == 0


def test_label_checker_caches_and_prefetches_the_allowlist():
    client = RecordingClient()
    checker = LabelChecker(client, "o/r", prefetch=sorted(Q.allowlist))
    assert checker.missing([PAR]) == []
    assert checker.missing(["module: fsdp", "triaged"]) == []
    assert client.calls == [("POST", "/graphql")]


def test_preview_matches_apply_without_calls():
    client = RecordingClient()
    p = plan([PAR, "module: fsdp", "needs reproduction", "bot-triaged", "triaged"],
             comments=("needs_distributed_reproduction",))
    pre = preview(p, issue(), Q)
    assert client.calls == []
    res = apply_plan(client, p, issue(), Q)
    assert pre.labels_added == res.labels_added and pre.comment == res.comment
