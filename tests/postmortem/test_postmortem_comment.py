"""P-6 comment path: `/postmortem approve KEY SHA256 RUN` counts only from a commenter
with write access (collaborator-permission API, replayed from cassettes) who did not
start the draft run, and only for a post-mortem draft run. Through `postmortem.py
authorize`: agentops.postmortem.commands.authorize_command and
agentops.postmortem.validate.parse_approval_comment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentops.postmortem.validate import parse_approval_comment
from scripts import postmortem as script

CASSETTE_SKILL = "postmortem"
SHA = "ab" * 32


def _real_comment_event() -> dict:
    """A real issue_comment.created payload (npm @octokit/webhooks-examples), or a minimal
    one of the same shape where the package is not installed."""
    from tests.contract import openapi

    if openapi.WEBHOOK_EXAMPLES.exists():
        return openapi.webhook_example("issue_comment", "created")
    return {"action": "created", "issue": {"number": 7, "title": "Post-mortem JIRA-12345"},
            "comment": {"id": 1, "body": "", "user": {"login": "", "type": "User"}},
            "repository": {"full_name": ""}}


def _event(tmp_path: Path, login: str, body: str) -> str:
    event = _real_comment_event()
    event["comment"]["body"] = body
    event["comment"]["user"]["login"] = login
    event["repository"]["full_name"] = "org/agentops"
    path = tmp_path / "event.json"
    path.write_text(json.dumps(event), encoding="utf-8")
    return str(path)


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("GITHUB_TOKEN", "test")
    monkeypatch.setenv("AGENTOPS_RETRY_ATTEMPTS", "1")
    out = tmp_path / "github_output"
    out.write_text("")
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    return out


@pytest.mark.vcr
def test_comment_approval_by_a_writer(all_played, env: Path, tmp_path: Path, capsys) -> None:
    event = _event(tmp_path, "maria-maint", f"/postmortem approve JIRA-12345 {SHA} 4242\r\nLGTM")
    assert script.main(["authorize", "--event", event]) == 0
    outputs = env.read_text()
    for expected in ("ticket", "JIRA-12345", "approved-sha256", SHA, "draft-run", "4242",
                     "approved-by", "maria-maint"):
        assert expected in outputs
    assert "by maria-maint (maintain)" in capsys.readouterr().out


@pytest.mark.vcr
def test_comment_approval_by_a_reader_refused(all_played, env: Path, tmp_path: Path,
                                              capsys) -> None:
    event = _event(tmp_path, "drive-by", f"/postmortem approve JIRA-12345 {SHA} 4242")
    assert script.main(["authorize", "--event", event]) == 3
    assert "drive-by has 'triage' permission" in capsys.readouterr().err
    assert env.read_text() == ""


@pytest.mark.vcr
def test_comment_self_approval_refused(all_played, env: Path, tmp_path: Path, capsys) -> None:
    event = _event(tmp_path, "alex-tada", f"/postmortem approve JIRA-12345 {SHA} 4242")
    assert script.main(["authorize", "--event", event]) == 3
    assert "alex-tada started draft run 4242: no self-approval" in capsys.readouterr().err


@pytest.mark.vcr
def test_comment_naming_another_workflow_run_refused(all_played, env: Path, tmp_path: Path,
                                                     capsys) -> None:
    event = _event(tmp_path, "maria-maint", f"/postmortem approve JIRA-12345 {SHA} 4242")
    assert script.main(["authorize", "--event", event]) == 3
    assert "is not a post-mortem draft run (.github/workflows/ci.yml)" in capsys.readouterr().err


@pytest.mark.parametrize("body", [
    f"please /postmortem approve JIRA-12345 {SHA} 4242",
    f"/postmortem approve JIRA-12345 {SHA[:-1]} 4242",
    f"/postmortem approve jira-12345 {SHA} 4242",
    f"/postmortem approve JIRA-12345 {SHA} 4242; rm -rf /",
    "/postmortem approve",
    "",
])
def test_anything_but_the_exact_command_is_not_an_approval(body: str, env: Path,
                                                           tmp_path: Path) -> None:
    assert parse_approval_comment(body) is None
    # Refused before any API call (no cassette here: a call would fail the test).
    assert script.main(["authorize", "--event", _event(tmp_path, "maria-maint", body)]) == 3
