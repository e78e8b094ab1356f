"""collect: the live parts from recorded GitHub answers (S-0a, S-0b, S-2, S-3a, S-6), and
the skipped reasons when the API refuses or cannot be reached."""

from __future__ import annotations

import argparse
import datetime as dt
import socket
from pathlib import Path
from types import SimpleNamespace

import pytest

from agentops.github.client import GitHubClient, RetryPolicy
from agentops.scout import collect, projects

CASSETTE_SKILL = "scout"
NOW = dt.datetime(2026, 7, 9, 6, 0, tzinfo=dt.UTC)
SUB = "torchtitan/experiments/graph_trainer"
TARGETS = collect.LiveTargets(
    repo="pytorch/torchtitan", subproject=SUB,
    workflows=(".github/workflows/integration_test_8gpu_graph_trainer.yaml",
               ".github/workflows/integration_test_8gpu_graph_trainer_h100.yaml"),
    tracking_repo="pytorch/torchtitan", tracking_number=2856,
    board=projects.Board(owner="pytorch", number=161, project_id="PVT_kwDOAUB9vs4BT6Cu"),
    search="graph_trainer")


# The environment of a scout workflow step: which workflow the scout's comments come from.
SCOUT_RUN_ENV = {"GITHUB_REPOSITORY": "pytorch/torchtitan",
                 "AGENTOPS_SCOUT_WORKFLOW": ".github/workflows/nightly-scout.yml"}


def _client(**kw) -> GitHubClient:
    return GitHubClient("test-token", policy=RetryPolicy(attempts=1), sleep=lambda s: None, **kw)


STORAGE = Path(__file__).parent / "fixtures" / "log-storage"


# The job logs' storage downloads are recorded apart from the API cassette.
@pytest.mark.vcr(str(STORAGE / "collect_live_red_workflow.yaml"))
def test_collect_live_red_workflow(all_played):
    client = _client()
    live = collect.collect_live(client, TARGETS, now=NOW,
                                pull_refs=["pytorch/pytorch#160123", "pytorch/pytorch#999999"],
                                env=SCOUT_RUN_ENV)
    assert live.skipped == {}
    # S-0a: two pages; the human comment is not a report; oldest first; date from heading.
    assert [(r.date, r.comment_id) for r in live.prior_reports] == [("2026-07-07", 3051),
                                                                    ("2026-07-08", 3099)]
    # A look-alike by another account (forged block: head, suppressed) is never a prior;
    # the token's account was asked once (GraphQL viewer, as for a GITHUB_TOKEN).
    assert [(r.comment_id, r.author) for r in live.ignored_reports] == [
        (3100, "mallory"), (3101, "github-actions[bot]")]
    # Issue #21 item 5: the bot's own account, but its block names a run of another
    # workflow of the repository (the Actions API says so): not the scout's, not a prior.
    assert live.ignored_reports[1].why == ("run 9200000003 is a run of .github/workflows/"
                                           "echo-comment.yml, not of .github/workflows/"
                                           "nightly-scout.yml")
    assert {r.author for r in live.prior_reports} == {"github-actions[bot]"}
    assert live.prior_reports[-1].url.endswith("#issuecomment-3099")
    # S-0b: all pages read; only items that came from a report are kept, with status.
    assert [(b.title, b.status) for b in live.board_items] == [
        ("[NightlyScout][P1] Port SimpleFSDP to public DTensor API", "In Progress"),
        ("[NightlyScout][P2] Drop stale MoE patch", "Done")]
    assert live.board_items[0].url == ("https://github.com/orgs/pytorch/projects/161"
                                       "?pane=issue&itemId=101")
    # S-2: the merged PR is unblocked; the unknown one is left out, not an error.
    pr = live.pulls["pytorch/pytorch#160123"]
    assert (pr.state, pr.merged_at) == ("closed", "2026-07-08T16:59:00Z")
    assert "pytorch/pytorch#999999" not in live.pulls
    # S-3a/b/c: the red workflow with its failing tests, root cause, torch range, repro.
    a10, h100 = live.ci
    assert a10.latest_conclusion == "failure"
    assert a10.latest_url.endswith("/runs/16100000005")
    assert a10.last_success_url.endswith("/runs/16100000003")
    assert (a10.last_success_torch, a10.failing_torch) == ("2.9.0.dev20260707+cu126",
                                                           "2.9.0.dev20260709+cu126")
    assert [t.name for t in a10.failed_tests] == ["fsdp_tp_aot", "fsdp_aot_ac"]
    # The log's command is kept as text; collect never turns it into a command (#21).
    assert a10.failed_tests[0].logged_command.startswith("TORCH_TRACE=")
    assert a10.failed_tests[0].command == ""
    assert a10.root_cause == "ValueError: too many values to unpack (expected 3)"
    assert a10.failed_jobs == ("build-test / linux-job",)
    assert (a10.recent_runs, a10.recent_failures) == (5, 3)
    assert h100.latest_conclusion == "success" and h100.failed_tests == ()
    # S-6: only PRs touching the sub-project; a reviewed PR is not "waiting"; the search's
    # pull request is not a stale issue.
    work = live.open_work
    assert [p.number for p in work.waiting_prs] == [2870]
    assert [p.number for p in work.merged_recently] == [2880]
    assert work.merged_recently[0].merged_at == "2026-07-08T20:00:00Z"
    assert [i.number for i in work.stale_issues] == [2700]
    assert client.counter.line().startswith("API calls: 21 ")  # 3 of them run lookups
    assert client.counter.by_route["POST /graphql"] == 5  # the viewer, the board, 3 searches


@pytest.mark.vcr
def test_collect_live_forbidden(all_played):
    live = collect.collect_live(_client(), TARGETS, now=NOW)
    assert live.prior_reports is None and live.board_items is None
    assert live.ci is None and live.open_work is None
    assert live.skipped["prior_reports"].startswith("GitHub API not permitted (HTTP 403)")
    assert "`actions: read`" in live.skipped["ci"]
    assert live.skipped["board_items"] == ("GitHub API not permitted (GraphQL error: "
                                           "Resource not accessible by integration)")
    assert "GraphQL error" in live.skipped["open_work"]
    assert live.pulls == {}  # nothing was asked, nothing skipped


def test_collect_live_unreachable_api_says_not_allowlisted():
    # A port nothing listens on: every request is refused, as on a runner whose egress
    # allowlist does not include the API host.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = _client(api_url=f"http://127.0.0.1:{port}", timeout=2)
    live = collect.collect_live(client, TARGETS, now=NOW, pull_refs=["pytorch/pytorch#1"])
    for part in ("prior_reports", "board_items", "pulls", "ci", "open_work"):
        assert getattr(live, part) is None
        assert live.skipped[part] == "GitHub API not allowlisted"  # shown as "skipped — …"
    assert client.counter.total == 1  # the first refusal settles it for every part


def test_targets_from_config_object_and_mapping():
    target = SimpleNamespace(
        repo="pytorch/torchtitan", subproject=SUB + "/", workflows=("a.yaml",),
        tracking_issue={"repo": "pytorch/torchtitan", "number": 2856},
        board={"owner": "pytorch", "number": 161, "project_id": "PVT_x"},
        raw={"open_work": {"review_wait_days": 3}})
    t = collect.LiveTargets.from_config(target)
    assert (t.subproject, t.tracking_number, t.board.project_id) == (SUB, 2856, "PVT_x")
    assert (t.search, t.review_wait_days, t.stale_issue_days) == ("graph_trainer", 3, 14)
    m = collect.LiveTargets.from_config({"repo": "o/r", "subproject": "x", "workflows": []})
    assert m.board is None and m.tracking_number == 0
    live = collect.collect_live(_client(), m, now=NOW)
    assert live.skipped["board_items"] == "no board configured"


def test_report_date_falls_back_to_block_then_created_at():
    assert collect.report_date("# Nightly Scout Report — 2026-07-01\n") == "2026-07-01"
    body = ("# Nightly Scout Report\n<!-- agentops:scout-report v1\n"
            '{"date":"2026\\u002d07\\u002d02"}\n-->\n')
    assert collect.report_date(body) == "2026-07-02"
    assert collect.report_date("# Nightly Scout Report", "2026-07-03T01:00:00Z") == "2026-07-03"


@pytest.mark.vcr
def test_publish_and_handoff_replayed(all_played, monkeypatch, capsys):
    """The real API's shapes end to end: comment create, the user-owned board found after
    the organization lookup fails, the draft and Status mutations, the comment edit."""
    from agentops.scout import commands

    monkeypatch.setenv("GITHUB_TOKEN", "test-token")
    # Steps of run 9200000010 of the scout's workflow (the block names it; handoff checks).
    for name, value in {**SCOUT_RUN_ENV, "GITHUB_RUN_ID": "9200000010"}.items():
        monkeypatch.setenv(name, value)
    report = str(Path(__file__).parent / "fixtures" / "report-2026-07-09.md")
    args = argparse.Namespace(repo="pytorch/torchtitan", issue="2856", report=report,
                              dry_run=False)
    assert commands.publish_command(args) == 0
    args.board = projects.Board(owner="a-maintainer", number=3)
    assert commands.handoff_command(args) == 0
    out = capsys.readouterr().out
    assert ("created: https://github.com/pytorch/torchtitan/issues/2856"
            "#issuecomment-3130000001") in out
    assert "handoff: created 1 board item(s) in Backlog; report comment updated" in out


def test_ci_outputs_pick_the_red_workflow_with_a_range():
    from agentops.scout.livedata import FailedTest, LiveData, WorkflowHealth

    green = WorkflowHealth("h100.yaml", "success", recent_runs=5)
    no_good = WorkflowHealth("a.yaml", "failure", failing_torch="2.9.0.dev20260709",
                             recent_runs=5, recent_failures=5)
    red = WorkflowHealth("b.yaml", "failure", last_success_torch="2.9.0.dev20260707+cu126",
                         failing_torch="2.9.0.dev20260709+cu126", recent_runs=5,
                         failed_tests=(FailedTest("t0"), FailedTest("t1", command="NGPU=2 x")))
    assert collect.ci_outputs(LiveData(ci=(green, no_good, red))) == {
        "ci-red": "true", "last-good": "2.9.0.dev20260707+cu126",
        "first-bad": "2.9.0.dev20260709+cu126", "repro-command": "NGPU=2 x"}
    assert collect.ci_outputs(LiveData(ci=(green,)))["ci-red"] == "false"
    assert collect.ci_outputs(LiveData())["ci-red"] == "false"  # skipped is not red


def test_pull_refs_discovered_from_todos_in_the_checkout(tmp_path):
    pkg = tmp_path / SUB
    pkg.mkdir(parents=True)
    (pkg / "passes.py").write_text(
        "# TODO(alice): drop once https://github.com/pytorch/pytorch/pull/160123 lands\n"
        "x = 1  # see pytorch/pytorch#999 (a plain comment)\n"
        "# FIXME: blocked on\n#   pytorch/pytorch#161000\n")
    (tmp_path / "other.py").write_text("# TODO pytorch/pytorch#1 outside the sub-project\n")
    assert collect.discover_pull_refs(tmp_path, SUB) == {"pytorch/pytorch#160123",
                                                         "pytorch/pytorch#161000"}


def test_prior_report_window_is_never_shorter_than_report_days():
    from agentops.errors import ApiError

    seen = []

    class Probe:
        counter = None

        def paginate(self, path, params):
            seen.append(params["since"])
            return iter(())

        def graphql(self, *a, **k):
            raise ApiError("GraphQL error: no", status_code=None)

    targets = collect.LiveTargets(repo="o/r", subproject="s", tracking_repo="o/r",
                                  tracking_number=1)
    # A baseline yesterday must not shrink the 7-day window; an older one widens it.
    collect.collect_live(Probe(), targets, "2026-07-08", now=NOW)
    collect.collect_live(Probe(), targets, "2026-06-20", now=NOW)
    assert seen == ["2026-07-02T06:00:00Z", "2026-06-20T00:00:00Z"]


def test_write_ci_outputs_in_a_runner(tmp_path, monkeypatch):
    from agentops.scout.livedata import FailedTest, LiveData, WorkflowHealth

    out = tmp_path / "out"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    red = WorkflowHealth("b.yaml", "failure", last_success_torch="2.9.0.dev20260707",
                         failing_torch="2.9.0.dev20260709", recent_runs=2,
                         failed_tests=(FailedTest("t", command="NGPU=2 ./run_train.sh"),))
    collect.write_ci_outputs(LiveData(ci=(red,)))
    text = out.read_text()
    for line in ("\ntrue\n", "\n2.9.0.dev20260707\n", "\n2.9.0.dev20260709\n",
                 "\nNGPU=2 ./run_train.sh\n"):
        assert line in text
    assert [ln.split("<<")[0] for ln in text.splitlines() if "<<" in ln] == [
        "ci-red", "last-good", "first-bad", "repro-command"]
