"""Whose comment is it, for triage (issue #21 item 5): every workflow's GITHUB_TOKEN
writes as github-actions[bot], so a comment of that account is the triage bot's only
when the run its hidden run line names is a run of the triage workflow (Actions API),
or it carries the signing key's signature. Otherwise it is read as an ordinary person's
comment: it never tells the planner "the bot already said this is not distributed".
The real planner and queue, against the GitHub stand-in on loopback."""

from __future__ import annotations

import json

import pytest

from agentops.github import provenance
from agentops.triage.queue import load_queue
from scripts import triage as cli
from tests.standin.github import GitHubStandIn

REPO = "o/r"
TRIGGER = "oncall: distributed"
TRIAGE_WF = ".github/workflows/triage.yml"
ECHO_WF = ".github/workflows/echo-comment.yml"
BODY = "Printing a tensor takes two seconds on my laptop: print(torch.randn(3))."


@pytest.fixture
def gh(monkeypatch):
    queue = load_queue("distributed")
    with GitHubStandIn() as server:
        server.add_repo(REPO, labels=sorted(queue.allowlist | {TRIGGER}))
        monkeypatch.setenv("GITHUB_TOKEN", server.token)
        monkeypatch.setenv("GITHUB_API_URL", server.url)
        monkeypatch.setenv("AGENTOPS_RETRY_BASE_DELAY", "0.01")
        monkeypatch.setenv("AGENTOPS_SECONDS_BETWEEN_WRITES", "0")
        monkeypatch.setenv("GITHUB_REPOSITORY", REPO)
        monkeypatch.setenv("AGENTOPS_TRIAGE_WORKFLOW", TRIAGE_WF)
        yield server


def _notice(run_id: int | None) -> str:
    """The not-distributed notice as the triage bot posts it (template and marker)."""
    tpl = load_queue("distributed").templates["not_distributed"]
    body = f"{tpl.body.rstrip()}\n\n{tpl.marker()}\n"
    return provenance.with_run_line(body, {"repository": REPO, "id": run_id}) if run_id else body


def _plan(gh: GitHubStandIn, capsys, number: int) -> tuple[dict, str]:
    assert cli.main(["plan", "--repo", REPO, "--issue", str(number)]) == 0
    out, err = capsys.readouterr()
    [plan] = json.loads(out)["plans"]
    return plan, err


TOLD = "no distributed evidence since"


def test_the_bots_own_notice_keeps_its_verdict(gh, capsys):
    gh.add_run(REPO, 77, TRIAGE_WF)
    gh.add_issue(REPO, 5, title="Tensor printing is slow", body=BODY,
                 labels=[TRIGGER], age_days=0.01,
                 comments=[{"body": _notice(77), "login": "github-actions[bot]",
                            "type": "Bot"}])
    plan, err = _plan(gh, capsys, 5)
    assert TOLD in plan["reasoning"], plan["reasoning"]
    assert "read as an ordinary person's" not in err


@pytest.mark.parametrize("forgery", ["another workflow's run", "no run line",
                                     "a run that does not exist"])
def test_the_same_notice_from_another_workflow_decides_nothing(gh, capsys, forgery):
    # An echo workflow of the same repository posts user text as github-actions[bot].
    gh.add_run(REPO, 78, ECHO_WF)
    run = {"another workflow's run": 78, "no run line": None,
           "a run that does not exist": 4242}[forgery]
    gh.add_issue(REPO, 6, title="Tensor printing is slow", body=BODY,
                 labels=[TRIGGER], age_days=0.01,
                 comments=[{"body": _notice(run), "login": "github-actions[bot]",
                            "type": "Bot"}])
    plan, err = _plan(gh, capsys, 6)
    assert TOLD not in plan["reasoning"], plan["reasoning"]
    assert "1 comment(s) of github-actions[bot] read as an ordinary person's" in err
    # Anyone's marker still keeps the bot from asking again (T-26: it says less, never
    # more), so the forged notice is not answered with a second one.
    assert not plan.get("comments")


def test_a_failed_run_lookup_is_not_the_bots_and_says_so(gh, capsys, monkeypatch):
    from tests.standin.github import Fault

    monkeypatch.setenv("AGENTOPS_RETRY_ATTEMPTS", "1")
    gh.add_run(REPO, 77, TRIAGE_WF)
    gh.add_issue(REPO, 7, title="Tensor printing is slow", body=BODY,
                 labels=[TRIGGER], age_days=0.01,
                 comments=[{"body": _notice(77), "login": "github-actions[bot]",
                            "type": "Bot"}])
    gh.inject("GET", r"/actions/runs/77$", Fault.status_code(502), attempts=[1])
    plan, err = _plan(gh, capsys, 7)
    assert TOLD not in plan["reasoning"]
    assert "provenance could not be established" in err and "Traceback" not in err


def test_the_comment_the_bot_posts_names_its_run_and_is_its_own_next_time(gh, capsys,
                                                                         monkeypatch):
    monkeypatch.setenv("GITHUB_RUN_ID", "79")
    gh.add_run(REPO, 79, TRIAGE_WF, status="in_progress")
    gh.add_issue(REPO, 8, title="FSDP training hangs on 8 GPUs",
                 body="fully_shard training hangs after the first step on 8 GPUs with NCCL.",
                 labels=[TRIGGER])
    assert cli.main(["run", "--repo", REPO, "--issue", "8"]) == 0
    posted = gh.issue_comments(REPO, 8)
    assert len(posted) == 1 and posted[0].rstrip().endswith("<!-- agentops:run o/r 79 -->")
    capsys.readouterr()
    _, err = _plan(gh, capsys, 8)
    assert "read as an ordinary person's" not in err


def test_with_a_signing_key_only_a_signed_comment_is_the_bots(gh, capsys, monkeypatch):
    monkeypatch.setenv("AGENTOPS_SIGNING_KEY", "s" * 32)
    gh.add_run(REPO, 77, TRIAGE_WF)
    key = b"s" * 32
    signed = provenance.sign(_notice(77), key=key, repo=REPO, issue=9)
    gh.add_issue(REPO, 9, title="Tensor printing is slow", body=BODY,
                 labels=[TRIGGER], age_days=0.01,
                 comments=[{"body": signed, "login": "github-actions[bot]", "type": "Bot"}])
    # The same signed body copied to another issue does not verify there.
    gh.add_issue(REPO, 10, title="Tensor printing is slow", body=BODY,
                 labels=[TRIGGER], age_days=0.01,
                 comments=[{"body": signed, "login": "github-actions[bot]", "type": "Bot"}])
    plan, _ = _plan(gh, capsys, 9)
    assert TOLD in plan["reasoning"]
    plan, err = _plan(gh, capsys, 10)
    assert TOLD not in plan["reasoning"]
    assert "no valid signature of the signing key" in err
