"""agentops.events on real webhook payloads (npm ``@octokit/webhooks-examples``) and on
the event files the runner writes for workflow_dispatch and schedule runs."""

from __future__ import annotations

import copy
import json

import pytest

from agentops import events
from agentops.errors import InputError
from agentops.events import Targets, triage_targets
from tests.ci_fixtures import require
from tests.contract import openapi

TRIGGER = "oncall: distributed"


def _examples() -> dict[str, list[dict]]:
    require(openapi.WEBHOOK_EXAMPLES, "@octokit/webhooks-examples")
    return openapi.webhook_examples()


@pytest.fixture(scope="module")
def examples() -> dict[str, list[dict]]:
    return _examples()


def _labeled(examples) -> list[dict]:
    found = [e for e in examples["issues"] if e.get("action") == "labeled"]
    assert found, "the package has issues.labeled examples"
    return found


def _relabel(payload: dict, name: str) -> dict:
    out = copy.deepcopy(payload)
    out["label"]["name"] = name
    out["issue"]["labels"] = [*out["issue"]["labels"], dict(out["label"])]
    return out


def test_every_real_labeled_example_with_the_trigger_label_targets_its_issue(examples):
    for payload in _labeled(examples):
        real = payload["label"]["name"]
        # As delivered: the real label is the trigger of a queue named after it …
        assert triage_targets("issues", payload, trigger_label=real) == Targets(
            numbers=(payload["issue"]["number"],))
        # … and the same event with our trigger label (case-insensitive, as GitHub is).
        ours = _relabel(payload, "Oncall: Distributed")
        assert triage_targets("issues", ours, trigger_label=TRIGGER).numbers == (
            payload["issue"]["number"],)


def test_other_labels_are_ignored(examples):
    for payload in _labeled(examples):
        got = triage_targets("issues", payload, trigger_label=TRIGGER)
        assert got.numbers == () and not got.sweep
        assert got.ignored_reason == f"label {payload['label']['name']!r} is not the trigger " \
                                     f"'oncall: distributed'"


@pytest.mark.parametrize("sender", [
    {"login": "github-actions[bot]", "type": "Bot"},
    {"login": "pytorch-bot[bot]", "type": "Bot"},
    {"login": "agentops-triage", "type": "User"},  # a machine user named in bot_logins
])
def test_label_events_from_bots_never_start_triage(examples, sender):
    for payload in _labeled(examples):
        ours = _relabel(payload, TRIGGER)
        ours["sender"] = {**ours["sender"], **sender}
        got = triage_targets("issues", ours, trigger_label=TRIGGER,
                             bot_logins=("AgentOps-Triage",))
        assert got.numbers == ()
        assert got.ignored_reason.startswith(f"labelled by a bot ({sender['login']!r})")


def test_a_trusted_first_level_bot_starts_triage_but_never_this_bot(examples):
    payload = _relabel(_labeled(examples)[0], TRIGGER)
    payload["sender"] = {**payload["sender"], "login": "pytorch-bot[bot]", "type": "Bot"}
    got = triage_targets("issues", payload, trigger_label=TRIGGER,
                         bot_logins=("github-actions[bot]",), trusted_bots=("PyTorch-Bot[bot]",))
    assert got.numbers == (payload["issue"]["number"],)
    # Listing our own login as trusted does not open a loop.
    payload["sender"]["login"] = "github-actions[bot]"
    got = triage_targets("issues", payload, trigger_label=TRIGGER,
                         bot_logins=("github-actions[bot]",), trusted_bots=("github-actions[bot]",))
    assert got.numbers == () and got.ignored_reason.startswith("labelled by a bot")


def test_pull_requests_and_closed_issues_are_ignored(examples):
    payload = _relabel(_labeled(examples)[0], TRIGGER)
    pr = copy.deepcopy(payload)
    pr["issue"]["pull_request"] = {"url": "https://api.github.com/repos/o/r/pulls/1"}
    assert triage_targets("issues", pr, trigger_label=TRIGGER).ignored_reason == \
        f"#{payload['issue']['number']} is a pull request, not an issue"
    closed = copy.deepcopy(payload)
    closed["issue"]["state"] = "closed"
    assert triage_targets("issues", closed, trigger_label=TRIGGER).ignored


def test_every_other_issues_action_and_comment_events_are_ignored(examples):
    for payload in examples["issues"]:
        if payload["action"] == "labeled":
            continue
        got = triage_targets("issues", _relabel(payload, TRIGGER) if "label" in payload
                             else payload, trigger_label=TRIGGER)
        assert got == Targets(ignored_reason=f"issues.{payload['action']}: only issues.labeled "
                                             "starts triage")
    created = [e for e in examples["issue_comment"] if e["action"] == "created"]
    assert created
    for payload in created:
        got = triage_targets("issue_comment", payload, trigger_label=TRIGGER)
        assert got.numbers == () and got.ignored_reason.startswith("event 'issue_comment'")


def test_real_workflow_dispatch_examples_without_inputs_mean_sweep(examples):
    for payload in examples["workflow_dispatch"]:
        assert triage_targets("workflow_dispatch", payload, trigger_label=TRIGGER) == Targets(
            sweep=True)


# --- the runner's event files -----------------------------------------------------------

def _runner_env(tmp_path, name: str, payload: dict) -> dict[str, str]:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload))
    return {"GITHUB_EVENT_NAME": name, "GITHUB_EVENT_PATH": str(path)}


def test_workflow_dispatch_issue_list_and_dry_run_from_the_event_file(tmp_path, examples):
    payload = copy.deepcopy(examples["workflow_dispatch"][0])
    payload["inputs"] = {"issue": " 12, 34  #56,12 ", "dry-run": "true"}
    name, read = events.read_event(_runner_env(tmp_path, "workflow_dispatch", payload))
    assert (name, read["inputs"]) == ("workflow_dispatch", payload["inputs"])
    assert triage_targets(name, read, trigger_label=TRIGGER) == Targets(
        numbers=(12, 34, 56), dry_run=True)
    payload["inputs"] = {"issue": "7", "dry-run": False}  # a boolean input as JSON
    assert triage_targets("workflow_dispatch", payload, trigger_label=TRIGGER) == Targets(
        numbers=(7,))


@pytest.mark.parametrize(("issue", "dry", "message"), [
    ("12; rm -rf /", "false", "issue: '12;' is not an issue number"),
    ("0", "false", "issue: '0' is not an issue number"),
    ("12", "maybe", "dry-run: 'maybe' is not a boolean"),
    (" ".join(str(n) for n in range(1, 60)), "", "issue: 59 issues in one dispatch"),
    ("١٢", "", "issue: '١٢' is not an issue number"),  # non-ASCII digits
])
def test_bad_dispatch_inputs_are_input_errors(issue, dry, message):
    payload = {"inputs": {"issue": issue, "dry-run": dry}}
    with pytest.raises(InputError) as err:
        triage_targets("workflow_dispatch", payload, trigger_label=TRIGGER)
    assert err.value.one_line().startswith(message)


def test_schedule_means_sweep(tmp_path):
    payload = {"schedule": "17 3 * * *", "workflow": ".github/workflows/triage.yml",
               "repository": {"full_name": "o/r"}}
    name, read = events.read_event(_runner_env(tmp_path, "schedule", payload))
    assert triage_targets(name, read, trigger_label=TRIGGER) == Targets(sweep=True)


def test_read_event_outside_a_runner_and_broken_files(tmp_path):
    assert events.read_event({}) == ("", {})
    with pytest.raises(InputError, match=r"GITHUB_EVENT_PATH: .*no such file"):
        events.read_event({"GITHUB_EVENT_NAME": "schedule",
                           "GITHUB_EVENT_PATH": str(tmp_path / "missing.json")})
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(InputError, match="not a JSON object"):
        events.read_event({"GITHUB_EVENT_PATH": str(bad)})
    assert triage_targets("", {}, trigger_label=TRIGGER).ignored_reason.startswith(
        "event '(none)' does not start triage")


def test_dispatch_inputs_for_other_skills():
    payload = {"inputs": {"date": "2026-12-01", "publish": True, "draft-sha256": None}}
    assert events.dispatch_inputs("workflow_dispatch", payload) == {
        "date": "2026-12-01", "publish": "true", "draft-sha256": ""}
    assert events.dispatch_inputs("schedule", payload) == {}
