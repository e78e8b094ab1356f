"""P-6 approval through a GitHub Environment: the publish job reads who approved this
run's deployment (REST actions/runs/{id}/approvals, replayed from cassettes), refuses a
self-approval or a missing one, and posts to the loopback JIRA stand-in only when both
the approver and the hash hold. Through `postmortem.py publish`:
agentops.postmortem.commands._environment_approver and publish_command."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from examples.postmortem.jira_standin import Standin
from scripts import postmortem as script

CASSETTE_SKILL = "postmortem"
ROOT = Path(__file__).resolve().parents[2]
TADA = ROOT / "examples" / "postmortem" / "tada-hang.facts.yml"


@pytest.fixture(scope="module")
def vcr_config(vcr_config):  # type: ignore[no-untyped-def]
    # The JIRA stand-in is a real loopback server; only GitHub is replayed.
    return {**vcr_config, "ignore_localhost": True}


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[tuple[Standin, list[str]]]:
    server = Standin(email="e@x", token="t").start()
    for name, value in {"JIRA_EMAIL": "e@x", "JIRA_API_TOKEN": "t", "GITHUB_TOKEN": "test",
                        "GITHUB_REPOSITORY": "org/agentops", "GITHUB_RUN_ID": "4242",
                        "GITHUB_TRIGGERING_ACTOR": "alex-tada",
                        "AGENTOPS_RETRY_ATTEMPTS": "1"}.items():
        monkeypatch.setenv(name, value)
    out = tmp_path / "d.adf.json"
    assert script.main(["draft", str(TADA), "--format", "adf", "--out", str(out)]) == 0
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    yield server, ["publish", "--draft", str(out), "--jira-url", server.url, "--ticket",
                   "JIRA-12345", "--approved-sha256", digest,
                   "--approved-by-environment", "postmortem-publish"]
    server.shutdown()
    server.server_close()


@pytest.mark.vcr
def test_approver_from_environment_review(all_played, run, capsys) -> None:
    server, argv = run
    assert script.main(argv) == 0
    assert len(server.posts()) == 1
    assert "approved by maria-maint" in capsys.readouterr().out


@pytest.mark.vcr
def test_self_approval_refused(all_played, run, capsys) -> None:
    server, argv = run
    assert script.main(argv) == 3
    assert server.requests == []
    assert "alex-tada approved their own run" in capsys.readouterr().err


@pytest.mark.vcr
def test_no_environment_approval_refused(all_played, run, capsys) -> None:
    server, argv = run
    assert script.main(argv) == 3
    assert server.requests == []
    assert "no approval of environment 'postmortem-publish'" in capsys.readouterr().err


def test_a_named_approver_beside_the_environment_is_refused_before_any_read(
        run, monkeypatch, capsys) -> None:
    # Two sources of the approver would leave one silently ignored: exit 2 naming the
    # flag, before the Environment's approvals are read and before JIRA hears anything.
    from agentops.postmortem import gather

    asked: list[str] = []
    monkeypatch.setattr(gather, "environment_approver",
                        lambda client, **kw: asked.append(kw["environment"]) or "maria-maint")
    server, argv = run
    assert script.main([*argv, "--approved-by", "someone-else"]) == 2
    assert asked == [] and server.requests == []
    assert "--approved-by: does not apply to --approved-by-environment" in \
        capsys.readouterr().err
