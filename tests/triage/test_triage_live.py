"""`run`, live `plan`, `run --plan-in` and `sweep` end to end against the GitHub
stand-in on loopback, with faults injected on the writes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agentops.github.client import GitHubClient, RetryPolicy
from agentops.triage import live
from agentops.triage import queue as queue_mod
from agentops.triage.apply import apply_plan
from agentops.triage.collect import collect_issue
from scripts import triage as cli
from tests.ci_fixtures import require
from tests.standin.github import Fault, GitHubStandIn
from tests.triage import livekit
from tests.triage.livekit import INFRA, PAR, REPO_LABELS, TRIGGER

REPO = "o/r"


@pytest.fixture
def gh(monkeypatch):
    monkeypatch.setattr(live, "load_queue", lambda name: livekit.make_queue())
    monkeypatch.setattr(live, "plan_issue", livekit.fake_plan)
    with GitHubStandIn() as server:
        server.add_repo(REPO, labels=REPO_LABELS)
        monkeypatch.setenv("GITHUB_TOKEN", server.token)
        monkeypatch.setenv("GITHUB_API_URL", server.url)
        monkeypatch.setenv("AGENTOPS_RETRY_BASE_DELAY", "0.01")
        monkeypatch.setenv("AGENTOPS_SECONDS_BETWEEN_WRITES", "0")
        yield server


@pytest.fixture
def runner_files(tmp_path, monkeypatch):
    out, summary = tmp_path / "output", tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    return out, summary


def outputs(path: Path) -> dict[str, str]:
    text = path.read_text() if path.exists() else ""
    out = {}
    lines = iter(text.splitlines())
    for line in lines:
        name, _, delim = line.partition("<<")
        value = []
        for v in lines:
            if v == delim:
                break
            value.append(v)
        out[name] = "\n".join(value)
    return out


def mutations(server: GitHubStandIn) -> list[tuple[str, str]]:
    return [(r.method, r.path) for r in server.writes()]


def assert_nothing_removed(server: GitHubStandIn) -> None:
    assert all(r.method == "POST" for r in server.writes()), mutations(server)
    assert server.created_labels == []


# --- run --------------------------------------------------------------------------------------

def test_run_twice_with_502_and_secondary_limit_on_first_write(gh, runner_files, capsys):
    gh.add_issue(REPO, 11, title="FSDP [repro] hangs", labels=[TRIGGER, "oncall: pt2"],
                 comments=[{"body": "same here"}])
    gh.inject("POST", r"/issues/11/labels$", Fault.status_code(502), attempts=[1])
    gh.inject("POST", r"/issues/11/labels$", Fault.secondary(0), attempts=[2])
    assert cli.main(["run", "--repo", REPO, "--issue", "11"]) == 0
    label_calls = [r for r in gh.writes() if r.path.endswith("/labels")]
    assert [r.status for r in label_calls] == [502, 403, 200]
    # Every attempt carried every label: one call's worth of labels (T-28).
    assert {tuple(r.body["labels"]) for r in label_calls} == {
        (PAR, "module: fsdp", "needs reproduction", "bot-triaged")}
    assert len(gh.issue_comments(REPO, 11)) == 2
    assert gh.issue_labels(REPO, 11) == [TRIGGER, "oncall: pt2", PAR, "module: fsdp",
                                         "needs reproduction", "bot-triaged"]
    err = capsys.readouterr().err
    assert "API calls: 7 (reads 3, writes 4, retries 2)" in err
    out, summary = runner_files
    o = outputs(out)
    assert o["decision"] == "needs_reproduction"
    assert o["labels"] == f"{PAR},module: fsdp,needs reproduction,bot-triaged"
    text = summary.read_text()
    # The title is inert text: its brackets escaped, so they cannot form a link.
    assert ("| [#11](https://github.com/o/r/issues/11) FSDP \\[repro\\] hangs "
            "| needs_reproduction |") in text
    assert "posted `needs_distributed_reproduction`" in text and "API calls: 7" in text

    gh.reset_log()
    assert cli.main(["run", "--repo", REPO, "--issue", "11"]) == 0
    assert gh.writes() == []  # T-27
    assert len(gh.reads()) == 2
    assert_nothing_removed(gh)
    assert "API calls: 2 (reads 2, writes 0, retries 0)" in capsys.readouterr().err


def test_run_cold_budget_is_four_reads_two_writes(gh):
    gh.add_issue(REPO, 12, title="[repro] DDP", labels=[TRIGGER], comments=[{"body": "x"}])
    assert cli.main(["run", "--repo", REPO, "--issue", "12"]) == 0
    assert len(gh.reads()) <= 4 and len(gh.writes()) == 2
    assert not any(r.path.endswith("/labels") and r.method == "GET" for r in gh.requests)


def test_comment_reset_after_it_landed_is_verified_not_reposted(gh):
    gh.add_issue(REPO, 13, title="[repro] FSDP", labels=[TRIGGER])
    gh.inject("POST", r"/issues/13/comments$", Fault.reset(apply_first=True), attempts=[1])
    assert cli.main(["run", "--repo", REPO, "--issue", "13"]) == 0
    assert len(gh.issue_comments(REPO, 13)) == 1
    posts = [r for r in gh.writes() if r.path.endswith("/comments")]
    assert len(posts) == 1  # verify() found it; no second POST
    assert [r.method for r in gh.requests if r.path.endswith("/comments")] == ["POST", "GET"]


def test_comment_502_before_landing_is_retried_once(gh):
    gh.add_issue(REPO, 14, title="[repro] FSDP", labels=[TRIGGER])
    gh.inject("POST", r"/issues/14/comments$", Fault.status_code(502), attempts=[1])
    assert cli.main(["run", "--repo", REPO, "--issue", "14"]) == 0
    assert len(gh.issue_comments(REPO, 14)) == 1
    assert [r.status for r in gh.writes() if r.path.endswith("/comments")] == [502, 201]


def test_comment_that_keeps_failing_is_partial_exit_4_and_rerun_converges(gh, capsys):
    gh.add_issue(REPO, 15, title="[repro] FSDP", labels=[TRIGGER])
    gh.inject("POST", r"/issues/15/comments$", Fault.status_code(503), attempts=range(1, 6))
    assert cli.main(["run", "--repo", REPO, "--issue", "15"]) == 4
    assert "were added but the 'needs_distributed_reproduction' comment failed" in \
        capsys.readouterr().err
    assert "bot-triaged" in gh.issue_labels(REPO, 15) and gh.issue_comments(REPO, 15) == []
    gh.reset_log()
    assert cli.main(["run", "--repo", REPO, "--issue", "15"]) == 0
    assert mutations(gh) == [("POST", "/repos/o/r/issues/15/comments")]
    assert len(gh.issue_comments(REPO, 15)) == 1


def test_rate_limits_on_reads_are_waited_out(gh):
    gh.add_issue(REPO, 16, title="[infra] NCCL", labels=[TRIGGER])
    gh.inject("GET", r"/issues/16$", Fault.too_many(0), attempts=[1])
    gh.inject("GET", r"/issues/16$", Fault.primary(0), attempts=[2])
    assert cli.main(["run", "--repo", REPO, "--issue", "16"]) == 0
    assert gh.issue_labels(REPO, 16) == [TRIGGER, INFRA, "bot-triaged", "triaged"]


def test_read_timeout_on_comment_post_is_verified(gh):
    gh.add_issue(REPO, 17, title="[notdist] vision", labels=[TRIGGER])
    gh.inject("POST", r"/issues/17/comments$", Fault.timeout(2.0, apply_first=True),
              attempts=[1])
    client = GitHubClient(gh.token, api_url=gh.url, timeout=1,
                          policy=RetryPolicy(base_delay=0.01))
    queue = livekit.make_queue()
    snap = collect_issue(client, REPO, 17)
    res = apply_plan(client, livekit.fake_plan(snap, queue), snap, queue)
    assert res.comment == "not_distributed"
    assert len(gh.issue_comments(REPO, 17)) == 1
    assert len([r for r in gh.writes() if r.path.endswith("/comments")]) == 1


def test_dry_run_writes_nothing_and_reports(gh, runner_files, capsys):
    gh.add_issue(REPO, 18, title="[repro] FSDP ::error::x @org/team </td>", labels=[TRIGGER])
    assert cli.main(["run", "--repo", REPO, "--issue", "18", "--dry-run"]) == 0
    assert gh.writes() == []
    assert len(gh.reads()) == 1  # no comments: the comments call is skipped
    err = capsys.readouterr().err
    assert "would add" in err
    out, summary = runner_files
    text = summary.read_text()
    assert "Labels to add" in text and "would post `needs_distributed_reproduction`" in text
    assert "<details><summary>Why (evidence per issue)</summary>" in text
    assert "- `x` ← test-marker (title)" in text
    # Untrusted title made inert (style 13).
    assert "@org" not in text and "</td>" not in text
    assert not re.search(r"^\s*::", text, re.M)  # no line starts a workflow command
    assert outputs(out)["decision"] == "needs_reproduction"


def test_several_issues_one_missing_continues_and_exits_4(gh, capsys):
    gh.add_issue(REPO, 19, title="[infra] store", labels=[TRIGGER])
    assert cli.main(["run", "--repo", REPO, "--issue", "19, 999"]) == 4
    err = capsys.readouterr().err
    assert "issue o/r#999 not found (HTTP 404)" in err
    assert INFRA in gh.issue_labels(REPO, 19)


def test_issue_outside_the_queue_or_closed_is_skipped(gh):
    gh.add_issue(REPO, 20, title="[infra] x", labels=["bug"])
    gh.add_issue(REPO, 21, title="[infra] x", labels=[TRIGGER], state="closed")
    assert cli.main(["run", "--repo", REPO, "--issue", "20", "--issue", "21"]) == 0
    assert gh.writes() == []


def test_env_issue_default_and_flag_replaces_it(gh, monkeypatch):
    gh.add_issue(REPO, 22, title="[infra] a", labels=[TRIGGER])
    gh.add_issue(REPO, 23, title="[infra] b", labels=[TRIGGER])
    monkeypatch.setenv("AGENTOPS_ISSUE", "22")
    assert cli.main(["run", "--repo", REPO]) == 0
    assert INFRA in gh.issue_labels(REPO, 22) and INFRA not in gh.issue_labels(REPO, 23)
    assert cli.main(["run", "--repo", REPO, "--issue", "23"]) == 0
    assert INFRA in gh.issue_labels(REPO, 23)


# --- CLI errors ---------------------------------------------------------------------------------

def test_no_token_exit_1_names_github_token(monkeypatch, capsys):
    monkeypatch.setattr(live, "load_queue", lambda name: livekit.make_queue())
    assert cli.main(["run", "--repo", REPO, "--issue", "1"]) == 1
    assert "GITHUB_TOKEN: not set" in capsys.readouterr().err


def test_bad_repo_is_a_bad_command_line_exit_2(capsys):
    # Issue #25 item 2: a value failing its own format check is exit 2, like argparse's.
    assert cli.main(["run", "--repo", "not a repo", "--issue", "1"]) == 2
    assert "argument --repo: expected OWNER/NAME, e.g. pytorch/pytorch, got 'not a repo'" \
        in capsys.readouterr().err


def test_bad_issue_number_is_a_bad_command_line_exit_2(capsys):
    # Issue #13 item 11: a malformed flag value is exit 2 (bad command line), not 1.
    assert cli.main(["run", "--repo", REPO, "--issue", "12a"]) == 2
    assert "argument --issue: expected issue numbers (123, or 123,124) or OWNER/NAME#123, " \
           "got '12a'" in capsys.readouterr().err


def test_unknown_issue_exit_5_with_404_message(gh, capsys):
    assert cli.main(["run", "--repo", REPO, "--issue", "4040"]) == 5
    err = capsys.readouterr().err
    assert "issue o/r#4040 not found (HTTP 404)" in err and "permissions: issues: read" in err


def test_missing_repository_label_exit_1_zero_writes(gh, capsys):
    gh.repos["o/r"].labels.pop("module: fsdp")
    gh.add_issue(REPO, 24, title="FSDP wrong grads", labels=[TRIGGER])
    assert cli.main(["run", "--repo", REPO, "--issue", "24"]) == 1
    assert gh.writes() == []
    assert "'module: fsdp' do not exist in the repository" in capsys.readouterr().err


# --- split workflow: plan (read-only) then run --plan-in ------------------------------------

def test_live_plan_then_apply_plan_file(gh, tmp_path, capsys, monkeypatch):
    gh.add_issue(REPO, 30, title="[ckpt] DCP", labels=[TRIGGER])
    plans = tmp_path / "plans" / "plans.json"
    monkeypatch.setenv("GITHUB_RUN_ID", "77")
    snaps = tmp_path / "snaps"
    assert cli.main(["plan", "--repo", REPO, "--issue", "30", "--plan-out", str(plans),
                     "--snapshot-out", str(snaps)]) == 0
    assert gh.writes() == []
    saved = json.loads((snaps / "issue-30.json").read_text())
    assert saved["number"] == 30 and saved["comments"] == []
    assert saved["repository_url"] == "https://api.github.com/repos/o/r"
    doc = json.loads(capsys.readouterr().out)
    assert doc["plans"][0]["decision"] == "route"
    assert json.loads(plans.read_text())["run_id"] == "77"
    # A human routes it between the plan and the apply job.
    gh.repos["o/r"].issues[30].labels.append(INFRA)
    assert cli.main(["run", "--repo", REPO, "--plan-in", str(plans)]) == 0
    assert gh.issue_labels(REPO, 30) == [TRIGGER, INFRA, "bot-triaged", "triage review"]


def test_plan_file_for_another_repo_or_run_is_refused(gh, tmp_path, capsys, monkeypatch):
    gh.add_issue(REPO, 31, title="[ckpt] DCP", labels=[TRIGGER])
    plans = tmp_path / "plans.json"
    monkeypatch.setenv("GITHUB_RUN_ID", "1")
    assert cli.main(["plan", "--repo", REPO, "--issue", "31", "--plan-out", str(plans)]) == 0
    monkeypatch.setenv("GITHUB_RUN_ID", "2")
    assert cli.main(["run", "--repo", REPO, "--plan-in", str(plans)]) == 3
    assert "the plans come from run 1, this is run 2" in capsys.readouterr().err
    monkeypatch.delenv("GITHUB_RUN_ID")
    doc = json.loads(plans.read_text())
    doc["plans"][0]["issue"] = 32
    gh.add_issue(REPO, 32, title="other", labels=[TRIGGER])
    plans.write_text(json.dumps(doc))
    doc["plans"][0]["repo"] = "x/y"
    (tmp_path / "p2.json").write_text(json.dumps(doc))
    assert cli.main(["run", "--repo", REPO, "--plan-in", str(tmp_path / "p2.json")]) == 3
    assert "plan is for repository 'x/y'" in capsys.readouterr().err
    assert gh.writes() == []


# --- sweep ------------------------------------------------------------------------------------

def seed_backlog(gh: GitHubStandIn, n: int = 30) -> None:
    kinds = ["[infra]", "[ckpt]", "", "[repro]", "[low]", "[hp]", "[notdist]"]
    for i in range(1, n + 1):
        gh.add_issue(REPO, 100 + i, title=f"{kinds[i % len(kinds)]} issue {i}",
                     labels=[TRIGGER], age_days=n - i + 1)
    # Finished by this bot earlier: must not be picked.
    gh.add_issue(REPO, 500, title="done", labels=[TRIGGER, INFRA, "bot-triaged", "triaged"])
    # The first-level bot set the marker, this bot never ran: must be picked.
    gh.add_issue(REPO, 501, title="[infra] marked by level one", labels=[TRIGGER, "bot-triaged"],
                 age_days=100)
    gh.add_issue(REPO, 502, title="not ours", labels=["bug"])


def test_sweep_budget_order_progress_and_resume(gh, tmp_path, runner_files):
    seed_backlog(gh)
    state = tmp_path / "state.json"
    lines: list[str] = []
    args = cli.build().parse_args(["sweep", "--repo", REPO, "--max-issues", "10",
                                   "--state-file", str(state)])
    assert live.sweep_command(args, on_progress=lines.append) == 0
    progress = [ln for ln in lines if ln.startswith("[")]
    assert len(progress) == 10 and progress[0].startswith("[1/10] #501 route")
    assert progress[1].startswith("[2/10] #101 ")  # then oldest-updated first
    reads = gh.reads()
    assert sum(r.graphql == "AgentopsTriageQueue" for r in reads) == 1
    assert sum(r.graphql == "AgentopsLabelsExist" for r in reads) == 1
    assert len(reads) == 2  # no per-issue reads
    assert 500 not in [int(ln.split("#")[1].split()[0]) for ln in progress]
    assert_nothing_removed(gh)

    # The second sweep continues; high-priority ones planned before are listed, not re-planned.
    lines.clear()
    assert live.sweep_command(args, on_progress=lines.append) == 0
    numbers = [int(ln.split("#")[1].split()[0]) for ln in lines if ln.startswith("[")]
    assert numbers[0] == 110 and len(numbers) == 10
    assert 105 not in numbers  # [hp] issue 5: awaiting humans, unchanged
    text = runner_files[1].read_text()
    assert "**Awaiting humans**" in text and "[#105]" in text
    st = json.loads(state.read_text())
    assert st["issues"]["105"]["awaiting_humans"] is True and st["runs"] == 2

    # A human comments on the high-priority issue: it changed, so it is planned again.
    gh.add_comment(REPO, 105, "more details", login="someone")
    lines.clear()
    args.max_issues = 50
    assert live.sweep_command(args, on_progress=lines.append) == 0
    numbers = [int(ln.split("#")[1].split()[0]) for ln in lines if ln.startswith("[")]
    assert numbers[-1] == 105  # updated last, so planned last
    assert 112 not in numbers  # [hp] issue 12 from the second sweep still awaits humans


def test_sweep_one_failure_does_not_stop_others_exit_4(gh, tmp_path, capsys):
    seed_backlog(gh, 6)
    gh.inject("POST", r"/issues/103/labels$", Fault.status_code(500), attempts=range(1, 9))
    args = cli.build().parse_args(["sweep", "--repo", REPO, "--max-issues", "50",
                                   "--state-file", str(tmp_path / "s.json")])
    assert live.sweep_command(args) == 4
    err = capsys.readouterr().err
    assert "#103" in err and "1 of 7 issue(s) failed: #103" in err
    assert "bot-triaged" in gh.issue_labels(REPO, 101) and INFRA in gh.issue_labels(REPO, 501)
    # The failed one is retried on the next sweep (deferred behind fresh work) and converges.
    assert live.sweep_command(args) == 0
    assert "bot-triaged" in gh.issue_labels(REPO, 103)


def test_sweep_stops_at_the_write_cap_and_resumes(gh, tmp_path, monkeypatch, capsys):
    seed_backlog(gh, 6)
    monkeypatch.setenv("AGENTOPS_MAX_WRITES", "3")
    args = cli.build().parse_args(["sweep", "--repo", REPO, "--state-file",
                                   str(tmp_path / "s.json")])
    assert live.sweep_command(args) == 4
    err = capsys.readouterr().err
    assert "write cap reached" in err and "Stopped at the write cap;" in err
    first = {r.path for r in gh.writes() if r.status < 300}
    assert len(gh.writes()) == 3
    monkeypatch.delenv("AGENTOPS_MAX_WRITES")
    assert live.sweep_command(args) == 0
    assert {r.path for r in gh.writes() if r.status < 300} > first
    assert all("bot-triaged" in gh.issue_labels(REPO, n) or "triage review" in
               gh.issue_labels(REPO, n) for n in range(101, 107))


def test_sweep_planner_bug_on_one_issue_does_not_stop_the_rest(gh, monkeypatch, capsys):
    seed_backlog(gh, 3)

    def planner(snapshot, queue):
        if snapshot.number == 102:
            raise ValueError("boom")
        return livekit.fake_plan(snapshot, queue)

    monkeypatch.setattr(live, "plan_issue", planner)
    args = cli.build().parse_args(["sweep", "--repo", REPO])
    assert live.sweep_command(args) == 4
    assert "#102: ValueError: boom (a bug in agentops" in capsys.readouterr().err
    assert "bot-triaged" in gh.issue_labels(REPO, 103)


def test_sweep_dry_run_resumes_without_writing(gh, tmp_path):
    seed_backlog(gh, 12)
    state = tmp_path / "state.json"
    seen: list[int] = []
    for _ in range(3):
        lines: list[str] = []
        args = cli.build().parse_args(["sweep", "--repo", REPO, "--max-issues", "5",
                                       "--dry-run", "--state-file", str(state)])
        assert live.sweep_command(args, on_progress=lines.append) == 0
        seen += [int(ln.split("#")[1].split()[0]) for ln in lines if ln.startswith("[")]
    assert gh.writes() == []
    assert len(seen) == 13 and len(set(seen)) == 13  # 12 + #501, none twice


def test_sweep_reads_extra_comment_pages_only_for_long_threads(gh, tmp_path):
    gh.add_issue(REPO, 600, title="[repro] long", labels=[TRIGGER],
                 comments=[{"body": f"c{i}"} for i in range(150)])
    gh.add_issue(REPO, 601, title="[repro] short", labels=[TRIGGER],
                 comments=[{"body": "c"}])
    args = cli.build().parse_args(["sweep", "--repo", REPO, "--dry-run"])
    assert live.sweep_command(args) == 0
    rest = [r for r in gh.reads() if not r.graphql]
    assert [(r.path, r.query.get("page")) for r in rest] == [
        ("/repos/o/r/issues/600/comments", "2")]


def test_sweep_asks_for_smaller_pages_when_github_cannot_build_a_big_one(gh, monkeypatch):
    seed_backlog(gh, 60)
    monkeypatch.setenv("AGENTOPS_RETRY_ATTEMPTS", "2")
    gh.inject("POST", r"^/graphql$", Fault.status_code(502), attempts=[1, 2])
    lines: list[str] = []
    args = cli.build().parse_args(["sweep", "--repo", REPO, "--max-issues", "61", "--dry-run"])
    assert live.sweep_command(args, on_progress=lines.append) == 0
    assert len([ln for ln in lines if ln.startswith("[")]) == 61
    firsts = [re.search(r"first: (\d+), after", r.body["query"]).group(1)
              for r in gh.requests if r.graphql == "AgentopsTriageQueue"]
    assert firsts == ["100", "100", "50", "50"]


def test_sweep_selection_queries_follow_t2():
    q = live.collect_queue.__globals__["selection_queries"](REPO, livekit.make_queue(
        marker="ptd-bot-triaged"))
    assert q["fresh"] == ('repo:o/r is:issue is:open label:"oncall: distributed" '
                          '-label:"ptd-bot-triaged" sort:updated-asc')
    assert q["marked"].startswith('repo:o/r is:issue is:open label:"oncall: distributed" '
                                  'label:"ptd-bot-triaged" -label:"oncall: distributed '
                                  'parallelisms"')
    assert q["marked"].endswith('-label:"triage review" sort:updated-asc')


# --- with the real planner (after the branches merge) ----------------------------------------

def test_run_as_subprocess_with_the_real_planner(tmp_path):
    import os
    import subprocess
    import sys

    queue = queue_mod.load_queue("distributed")
    root = Path(__file__).resolve().parents[2]
    with GitHubStandIn() as server:
        server.add_repo(REPO, labels=[queue.trigger_label, *sorted(queue.allowlist)])
        server.add_issue(REPO, 40, title="NCCL timeout in init_process_group with torchrun",
                         body="```\nimport torch.distributed as dist\n"
                              "dist.init_process_group('nccl')\n```\n"
                              "RuntimeError: NCCL error in ProcessGroupNCCL.cpp: timeout "
                              "during rendezvous on 2 nodes",
                         labels=[queue.trigger_label])
        env = {**os.environ, "GITHUB_TOKEN": server.token, "GITHUB_API_URL": server.url,
               "AGENTOPS_RETRY_BASE_DELAY": "0.01",
               "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
        cmd = [sys.executable, str(root / "scripts" / "triage.py"), "run", "--repo", REPO,
               "--issue", "40"]
        server.inject("POST", r"/issues/40/labels$", Fault.status_code(502), attempts=[1])
        server.inject("POST", r"/issues/40/labels$", Fault.secondary(0), attempts=[2])
        first = subprocess.run(cmd, check=False, env=env, capture_output=True, text=True,
                               timeout=120)
        assert first.returncode == 0, first.stderr
        added = [lb for lb in server.issue_labels(REPO, 40) if lb != queue.trigger_label]
        assert added and all(lb in queue.allowlist for lb in added)
        assert len([r for r in server.writes() if r.path.endswith("/comments")]) <= 1
        server.reset_log()
        second = subprocess.run(cmd, check=False, env=env, capture_output=True, text=True,
                                timeout=120)
        assert second.returncode == 0, second.stderr
        assert server.writes() == []
        assert "API calls: 2 (reads 2, writes 0, retries 0)" in second.stderr \
            or "API calls: 1 (reads 1, writes 0, retries 0)" in second.stderr
        assert server.created_labels == []
        assert "API calls:" in (tmp_path / "summary.md").read_text()

def test_sweep_rereads_before_writing_when_the_batch_read_is_stale(gh, monkeypatch):
    """A person (or the event-triggered run) routes #102 after the batch read: the sweep
    must see it and not add a second sub-oncall (T-22) nor repeat a comment (T-26)."""
    seed_backlog(gh, 4)  # 101 [ckpt], 102 "", 103 [repro], 104 [low]
    monkeypatch.setenv("AGENTOPS_SWEEP_FRESH_SECONDS", "0")

    def meanwhile(line: str) -> None:
        if "candidate(s)" in line:
            gh.repos["o/r"].issues[101].labels.append(INFRA)
            gh.add_comment(REPO, 103, "<!-- agentops:triage template=needs_distributed_"
                                      "reproduction version=2 -->", login="github-actions[bot]",
                           user_type="Bot")

    args = cli.build().parse_args(["sweep", "--repo", REPO])
    assert live.sweep_command(args, on_progress=meanwhile) == 0
    assert gh.issue_labels(REPO, 101) == [TRIGGER, INFRA, "bot-triaged", "triage review"]
    assert len(gh.issue_comments(REPO, 103)) == 1
    refreshes = [r for r in gh.requests if r.graphql == "AgentopsTriageIssues"]
    assert len(refreshes) == 5  # freshness 0: before every issue


def test_sweep_rereads_once_per_window(gh, tmp_path):
    seed_backlog(gh, 30)
    args = cli.build().parse_args(["sweep", "--repo", REPO])
    assert live.sweep_command(args) == 0
    assert not any(r.graphql == "AgentopsTriageIssues" for r in gh.requests)  # all < 30 s


def test_sweep_write_pause_default_and_validation(monkeypatch):
    monkeypatch.delenv("AGENTOPS_SECONDS_BETWEEN_WRITES", raising=False)
    assert live._write_pause() == 1.0
    monkeypatch.setenv("AGENTOPS_SECONDS_BETWEEN_WRITES", "soon")
    with pytest.raises(live.InputError, match="AGENTOPS_SECONDS_BETWEEN_WRITES: not a number"):
        live._write_pause()


def test_live_plan_replays_offline_to_the_same_plan(tmp_path, monkeypatch, capsys):
    queue = queue_mod.load_queue("distributed")
    with GitHubStandIn() as server:
        server.add_repo(REPO, labels=[queue.trigger_label, *sorted(queue.allowlist)])
        server.add_issue(REPO, 41, title="DCP save hangs with FSDP2 state_dict",
                         body="```python\nimport torch.distributed.checkpoint as dcp\n"
                              "dcp.save(model.state_dict(), checkpoint_id='ckpt')\n```",
                         labels=[queue.trigger_label],
                         comments=[{"body": "Also on 8 GPUs.", "login": "x"}])
        monkeypatch.setenv("GITHUB_TOKEN", server.token)
        monkeypatch.setenv("GITHUB_API_URL", server.url)
        snaps = tmp_path / "snaps"
        assert cli.main(["plan", "--repo", REPO, "--issue", "41",
                         "--snapshot-out", str(snaps)]) == 0
        live_plan = json.loads(capsys.readouterr().out)["plans"][0]
    monkeypatch.delenv("GITHUB_TOKEN")
    assert cli.main(["plan", str(snaps / "issue-41.json")]) == 0
    offline_plan = json.loads(capsys.readouterr().out)
    for key in ("issue", "decision", "add_labels", "comments", "confidence"):
        assert offline_plan[key] == live_plan[key], key


def test_sweep_waits_out_a_graphql_rate_limit(gh):
    seed_backlog(gh, 3)
    gh.inject("POST", r"^/graphql$", Fault.graphql_rate_limited(0), attempts=[1])
    args = cli.build().parse_args(["sweep", "--repo", REPO, "--dry-run"])
    assert live.sweep_command(args) == 0
    assert [r.graphql for r in gh.requests] == ["AgentopsTriageQueue"] * 2


REAL_ISSUES = [
    ("NCCL watchdog timeout, all ranks hang in allreduce on 4 nodes",
     "Multi-node training (4 hosts x 8 GPUs) hangs; NCCL watchdog timeout after 30 min in "
     "ProcessGroupNCCL allreduce. Regression from 2.4, worked on 2.3."),
    ("FSDP2 fully_shard: wrong gradients with DTensor",
     "```python\nfrom torch.distributed.fsdp import fully_shard\nmodel = fully_shard(m)\n```\n"
     "Gradients differ from DDP."),
    ("dcp.save hangs", "torch.distributed.checkpoint.save never returns with 2 ranks."),
    ("Slow matmul on one GPU", "torch.matmul is slow on a single A100, no distributed code."),
    ("DDP question", "Something about data parallel is broken, not sure what."),
]


def test_real_planner_second_run_writes_nothing(tmp_path, monkeypatch):
    queue = queue_mod.load_queue("distributed")
    with GitHubStandIn() as server:
        server.add_repo(REPO, labels=[queue.trigger_label, *sorted(queue.allowlist)])
        for i, (title, body) in enumerate(REAL_ISSUES, 1):
            server.add_issue(REPO, 200 + i, title=title, body=body,
                             labels=[queue.trigger_label])
        monkeypatch.setenv("GITHUB_TOKEN", server.token)
        monkeypatch.setenv("GITHUB_API_URL", server.url)
        numbers = ",".join(str(200 + i) for i in range(1, len(REAL_ISSUES) + 1))
        assert cli.main(["run", "--repo", REPO, "--issue", numbers]) == 0
        for i in range(1, len(REAL_ISSUES) + 1):
            labels = server.issue_labels(REPO, 200 + i)
            subs = [lb for lb in labels if lb in queue.suboncalls]
            assert len(subs) <= 1, labels  # T-22
            assert not ({"triaged", queue.review_label} <= set(labels)), labels  # T-23
        server.reset_log()
        assert cli.main(["run", "--repo", REPO, "--issue", numbers]) == 0
        assert server.writes() == []  # T-27
        args = cli.build().parse_args(["sweep", "--repo", REPO, "--state-file",
                                       str(tmp_path / "s.json")])
        monkeypatch.setenv("AGENTOPS_SECONDS_BETWEEN_WRITES", "0")
        assert live.sweep_command(args) == 0
        assert server.writes() == []
        assert server.created_labels == []


# --- the event names the issue (no --issue, as `uses: …/actions/triage@v1` on issues) -----

def _labeled_event(tmp_path, *, number: int, label: str, sender: dict) -> Path:
    """An issues.labeled payload from @octokit/webhooks-examples, pointed at our issue."""
    from tests.contract import openapi

    require(openapi.WEBHOOK_EXAMPLES, "@octokit/webhooks-examples")
    payload = openapi.webhook_example("issues", "labeled")
    payload["issue"]["number"] = number
    payload["issue"]["state"] = "open"
    payload["issue"].pop("pull_request", None)
    payload["label"]["name"] = label
    payload["sender"] = sender
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload))
    return path


@pytest.mark.parametrize(("label", "sender", "trusted", "runs"), [
    (TRIGGER, {"login": "octocat", "type": "User"}, "", True),
    ("module: fsdp", {"login": "octocat", "type": "User"}, "", False),  # not the trigger
    (TRIGGER, {"login": "triage-bot[bot]", "type": "Bot"}, "", False),  # no loops
    (TRIGGER, {"login": "first-bot[bot]", "type": "Bot"}, '["first-bot[bot]"]', True),
])
def test_run_takes_the_issue_from_a_real_labeled_event(gh, runner_files, tmp_path,  # noqa: PLR0917
                                                       monkeypatch, label, sender, trusted,
                                                       runs):
    gh.add_issue(REPO, 31, title="[repro] FSDP", labels=[TRIGGER])
    event = _labeled_event(tmp_path, number=31, label=label, sender=sender)
    monkeypatch.setenv("GITHUB_EVENT_NAME", "issues")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    monkeypatch.delenv("AGENTOPS_ISSUE", raising=False)
    argv = ["run", "--repo", REPO] + (["--trusted-bots", trusted] if trusted else [])
    assert cli.main(argv) == 0
    if runs:
        # the planned labels in one call, then the reproduction request (T-28)
        assert [p for _, p in mutations(gh)] == [f"/repos/{REPO}/issues/31/labels",
                                                 f"/repos/{REPO}/issues/31/comments"]
        assert_nothing_removed(gh)
    else:
        assert mutations(gh) == []
        assert "Nothing to do:" in runner_files[1].read_text()


def test_an_issueless_event_asks_for_the_sweep_command(gh, tmp_path, monkeypatch, capsys):
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"inputs": {"issue": "", "dry-run": "false"}}))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "workflow_dispatch")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    monkeypatch.delenv("AGENTOPS_ISSUE", raising=False)
    assert cli.main(["run", "--repo", REPO]) == 1
    err = capsys.readouterr().err
    assert "asks for the backlog sweep" in err and "`sweep`" in err
    assert mutations(gh) == []


def test_trusted_bots_accept_json_or_a_list_and_refuse_bad_json() -> None:
    assert live.parse_logins('["a[bot]", " b "]') == ("a[bot]", "b")
    assert live.parse_logins("a[bot], b  c") == ("a[bot]", "b", "c")
    with pytest.raises(live.InputError, match="--trusted-bots"):
        live.parse_logins('["a[bot]"')


def test_run_checks_labels_over_rest_where_graphql_is_unavailable(gh, capsys):
    # An endpoint without GraphQL (404 on every POST /graphql): the label check falls
    # back to one REST GET per label, never a listing, and never creates a label (T-21).
    gh.add_issue(REPO, 41, title="[repro] FSDP", labels=[TRIGGER])
    gh.inject("POST", r"^/graphql$", Fault.status_code(404), attempts=range(1, 50))
    assert cli.main(["run", "--repo", REPO, "--issue", "41"]) == 0
    reads = [(r.method, r.path) for r in gh.requests if r.method == "GET"]
    label_reads = [p for _, p in reads if "/labels/" in p]
    assert label_reads and all(re.search(r"/repos/o/r/labels/[^/]+$", p) for p in label_reads)
    assert f"/repos/{REPO}/labels" not in [p for _, p in reads]  # no listing
    assert next(p for _, p in mutations(gh)) == f"/repos/{REPO}/issues/41/labels"
    assert_nothing_removed(gh)
    gh.reset_log()
    assert cli.main(["run", "--repo", REPO, "--issue", "41"]) == 0
    assert mutations(gh) == []  # T-27


def test_a_missing_label_is_refused_over_rest_too(gh, capsys):
    gh.add_issue(REPO, 42, title="[repro] FSDP", labels=[TRIGGER])
    gh.inject("POST", r"^/graphql$", Fault.status_code(404), attempts=range(1, 50))
    del gh.repos[REPO.casefold()].labels["bot-triaged"]
    assert cli.main(["run", "--repo", REPO, "--issue", "42"]) == 1
    assert "'bot-triaged'" in capsys.readouterr().err and mutations(gh) == []


@pytest.mark.parametrize(("status", "message", "fallback"), [
    (404, "POST /graphql failed: HTTP 404 Not Found", True),
    (501, "POST /graphql failed: HTTP 501", True),
    (None, "GraphQL error: Field 'label' doesn't exist on type 'Repository'", True),
    (401, "POST /graphql failed: HTTP 401 Bad credentials", False),
    (403, "POST /graphql failed: HTTP 403", False),
    (None, "GraphQL error: API rate limit exceeded (RATE_LIMITED)", False),
    (None, "GraphQL error: Your token has not been granted the required scopes", False),
])
def test_only_a_missing_or_refusing_graphql_falls_back_to_rest(status, message, fallback):
    from agentops.errors import ApiError
    from agentops.triage.apply import _graphql_unavailable

    assert _graphql_unavailable(ApiError(message, status_code=status)) is fallback
