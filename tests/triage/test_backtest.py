"""`evaluate --repo`: backtest the planner on a repository's own history (issue #10),
against the GitHub stand-in on loopback (GITHUB_API_URL), and from cassettes of the real
API. Reads are batched (one search call per 50 issues, plus comment pages for long
threads), the report is the one `evaluate FILE.jsonl` prints, and the `--save` file
rerun offline gives the same figures."""

from __future__ import annotations

import json
import math

import pytest

from agentops.github.client import GitHubClient, RetryPolicy
from agentops.triage import backtest
from agentops.triage.evaluate import Record
from agentops.triage.queue import load_queue
from scripts import triage as cli
from tests.standin.github import GitHubStandIn

REPO = "acme/trainer"
CASSETTE_SKILL = "triage"
TRIGGER = "oncall: distributed"
PAR, INFRA = "oncall: distributed parallelisms", "oncall: distributed infra"
FSDP_BODY = ("fully_shard on 8 GPUs hangs in the first all-gather.\n```python\n"
             "from torch.distributed.fsdp import fully_shard\nfully_shard(model)\n```")
NCCL_BODY = "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1270, unhandled system error"


def populate(gh: GitHubStandIn, *, triaged: int = 70, untriaged: int = 40) -> None:
    """A queue history: issues humans triaged (sub-oncall and/or module, `triaged`),
    issues nobody triaged yet, one the bot commented on, a long thread, and issues
    outside the queue (the search must not read those)."""
    gh.add_repo(REPO)
    n = 1000
    for i in range(triaged):
        n += 1
        if i % 3 == 0:
            gh.add_issue(REPO, n, title=f"fully_shard hangs #{i}", body=FSDP_BODY,
                         labels=[TRIGGER, PAR, "module: fsdp", "triaged"], age_days=400 - i)
        elif i % 3 == 1:
            gh.add_issue(REPO, n, title=f"NCCL error on rank {i}", body=NCCL_BODY,
                         labels=[TRIGGER, "module: nccl", "triaged", "oncall: pt2"],
                         age_days=400 - i)
        else:
            gh.add_issue(REPO, n, title=f"new_group blocks ranks ({i})",
                         body="dist.new_group(ranks=[0, 1]) blocks ranks 2 and 3.",
                         labels=[TRIGGER, INFRA], age_days=400 - i)
    for i in range(untriaged):
        n += 1
        gh.add_issue(REPO, n, title=f"something hangs ({i})", body="It hangs.",
                     labels=[TRIGGER], age_days=200 - i)
    n += 1
    gh.add_issue(REPO, n, title="DTensor redistribute is slow", body="DTensor redistribute.",
                 labels=[TRIGGER, PAR, "module: dtensor"], age_days=50,
                 comments=[{"body": "Thanks! <!-- agentops:triage template=needs_distributed_"
                                    "reproduction version=2 -->", "login": "triage-bot[bot]",
                            "type": "Bot"}])
    n += 1
    gh.add_issue(REPO, n, title="long thread on DDP", body="DistributedDataParallel hangs.",
                 labels=[TRIGGER, PAR, "module: ddp"], age_days=40,
                 comments=[{"body": f"same here {i}", "login": f"user{i}"} for i in range(130)])
    for i in range(5):
        gh.add_issue(REPO, 5000 + i, title="vision bug", labels=["module: vision"])


@pytest.fixture
def gh(monkeypatch):
    with GitHubStandIn() as server:
        monkeypatch.setenv("GITHUB_TOKEN", server.token)
        monkeypatch.setenv("GITHUB_API_URL", server.url)
        monkeypatch.setenv("AGENTOPS_RETRY_BASE_DELAY", "0.01")
        yield server


def _json_line(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


def test_backtest_reads_in_batches_and_saves_what_reruns_offline_the_same(gh, capsys,
                                                                          tmp_path):
    populate(gh)
    saved = tmp_path / "history.jsonl"
    assert cli.main(["evaluate", "--repo", REPO, "--save", str(saved), "--json"]) == 0
    live = capsys.readouterr()
    queue_issues = 70 + 40 + 2
    searches = [r for r in gh.reads() if r.graphql == "AgentopsTriageQueue"]
    rest = [r for r in gh.reads() if not r.graphql]
    assert len(searches) <= math.ceil(queue_issues / 50)
    # One extra comment page: the long thread (its first 100 comments came with the batch).
    assert [(r.path, r.query.get("page")) for r in rest] == [
        (f"/repos/{REPO}/issues/{1000 + queue_issues}/comments", "2")]
    assert gh.writes() == []
    assert "triaged by humans" in live.err  # progress lines
    assert "API calls:" in live.err
    figures = _json_line(live.out)
    # 70 triaged + the long thread; the untriaged and the bot-commented one are left out.
    assert figures["n"] == 71
    assert "left out: 40 no sub-oncall, module or triaged label, 1 this bot commented there" \
        in live.out
    rows = [json.loads(line) for line in saved.read_text().splitlines()]
    assert len(rows) == 71 and {r["expected"]["is_distributed"] for r in rows} == {True}
    assert all(5000 > r["number"] > 1000 for r in rows)

    assert cli.main(["evaluate", str(saved), "--json"]) == 0
    offline = _json_line(capsys.readouterr().out)
    assert offline == figures


def test_backtest_figures_judge_the_human_labels(gh, capsys):
    populate(gh, triaged=12, untriaged=0)
    assert cli.main(["evaluate", "--repo", REPO, "--json", "--errors"]) == 0
    out = capsys.readouterr().out
    figures = _json_line(out)
    assert figures["violations"] == 0
    assert figures["module_recall"] is not None and figures["module_recall"] > 0.5
    assert figures["suboncall_accuracy"] == 1.0  # the routed issues: parallelisms and infra
    assert "selective triage: precision at coverage" in out


def test_max_issues_and_since_bound_the_read(gh, capsys):
    populate(gh)
    # The newest 50 queue issues hold 9 that humans triaged: 5 are read in one call.
    assert cli.main(["evaluate", "--repo", REPO, "--max-issues", "5", "--since",
                     "2020-01-01", "--json"]) == 0
    assert _json_line(capsys.readouterr().out)["n"] == 5
    searches = [r for r in gh.reads() if r.graphql == "AgentopsTriageQueue"]
    assert len(searches) == 1
    query = searches[0].body["variables"]["triaged"]
    assert query == (f'repo:{REPO} is:issue label:"{TRIGGER}" sort:created-desc '
                     "created:>=2020-01-01")


def test_past_the_search_window_the_next_query_starts_below_the_oldest(monkeypatch):
    # GitHub answers at most 1,000 results per query: the reader goes on with
    # created:<=OLDEST and stops when a query brings nothing new.
    queue = load_queue("distributed")
    pages: list[dict] = []

    def node(n: int) -> dict:
        return {"number": n, "title": "t", "body": "fully_shard", "url": f"u/{n}",
                "state": "OPEN", "createdAt": f"2025-01-{31 - n % 28:02d}T00:00:00Z",
                "labels": {"nodes": [{"name": TRIGGER}, {"name": "module: fsdp"}]},
                "comments": {"nodes": [], "pageInfo": {"hasNextPage": False}}}

    class Client:
        def graphql(self, query, variables):  # type: ignore[no-untyped-def]
            pages.append(dict(variables))
            q = variables["triaged"]
            if "created:<" in q:
                return {"triaged": {"issueCount": 1, "nodes": [node(7)],
                                    "pageInfo": {"hasNextPage": False}}}
            return {"triaged": {"issueCount": 5000, "nodes": [node(1), node(2)],
                                "pageInfo": {"hasNextPage": False}}}

    bt = backtest.collect_triaged(Client(), REPO, queue, since=None,  # type: ignore[arg-type]
                                  max_issues=50)
    assert [r.number for r in bt.records] == [1, 2, 7]
    assert pages[1]["triaged"].endswith("created:<=2025-01-29T00:00:00Z")
    assert bt.exhausted


@pytest.mark.parametrize(("argv", "flag"), [
    (["evaluate", "--since", "2025-01-01", "x.jsonl"], "--since"),
    (["evaluate", "--save", "out.jsonl", "x.jsonl"], "--save"),
    (["evaluate", "--max-issues", "5", "x.jsonl"], "--max-issues"),
    (["evaluate", "--repo", REPO, "x.jsonl"], "--repo"),
    (["evaluate", "--repo", REPO, "--since", "2025-13-40"], "--since"),
    (["evaluate", "--repo", REPO, "--since", "last week"], "--since"),
    (["evaluate", "--repo", "not-a-repo"], "--repo"),
])
def test_bad_evaluate_arguments_exit_2_naming_the_flag(gh, capsys, argv, flag):
    # Issue #25 item 2: a malformed value or a flag that needs another is a bad command line.
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert flag in err and "Traceback" not in err


def test_evaluate_alone_measures_the_queues_own_labelled_set(capsys):
    assert cli.main(["evaluate", "--json"]) == 0
    out = capsys.readouterr().out
    assert "labelled.jsonl" in out.splitlines()[0]
    figures = _json_line(out)
    assert figures["n"] >= 30 and figures["violations"] == 0
    # Its issues say what they are: some not distributed, some requests, every module
    # of the queue's parallelisms side at least once.
    assert figures["not_distributed_recall"] is not None


def test_a_queue_without_a_labelled_set_needs_a_file(tmp_path, capsys):
    import shutil

    from agentops.triage.queue import QUEUES_DIR

    folder = tmp_path / "q"
    shutil.copytree(QUEUES_DIR / "distributed", folder)
    (folder / "labelled.jsonl").unlink()
    assert cli.main(["--queue", str(folder), "evaluate"]) == 1
    assert "ships no labelled.jsonl" in capsys.readouterr().err


def test_backtest_without_a_token_exits_1(monkeypatch, capsys):
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    assert cli.main(["evaluate", "--repo", REPO]) == 1
    assert "GITHUB_TOKEN" in capsys.readouterr().err


def test_no_triaged_issues_exit_1_and_no_file(gh, capsys, tmp_path):
    gh.add_repo(REPO)
    gh.add_issue(REPO, 1, title="x", labels=[TRIGGER])
    saved = tmp_path / "h.jsonl"
    assert cli.main(["evaluate", "--repo", REPO, "--save", str(saved)]) == 1
    assert "triaged by humans" in capsys.readouterr().err
    assert not saved.exists()


def test_record_round_trip_and_thread_text():
    queue = load_queue("distributed")
    from agentops.triage.model import Comment, IssueSnapshot

    notice = queue.templates["not_distributed"]
    snap = IssueSnapshot(
        repo=REPO, number=3, title="t", body="the body", url="https://github.com/x/3",
        labels=(TRIGGER, INFRA, "module: c10d", "enhancement", "oncall: pt2"), author="ann",
        comments=(Comment(1, "bob", "a person's comment", created_at="2025-02-02T00:00:00Z"),
                  Comment(2, "bot", "bot noise", author_type="Bot"),
                  Comment(3, "maint", f"{notice.body}\n{notice.marker()}",
                          author_association="MEMBER")))
    rec = backtest.record_of(snap, queue, "2025-02-01T00:00:00Z")
    assert rec.modules == {"module: c10d"} and rec.suboncall == "infra"
    assert rec.type == "enhancement" and rec.is_distributed
    assert rec.text == ("ann · description · 2025-02-01\nthe body\n\n"
                        "bob · comment · 2025-02-02\na person's comment")
    assert Record.from_json(json.loads(json.dumps(rec.to_json()))) == rec


@pytest.mark.vcr
def test_backtest_from_recorded_api(all_played):
    client = GitHubClient("test-token", policy=RetryPolicy(attempts=1))
    queue = load_queue("distributed")
    bt = backtest.collect_triaged(client, REPO, queue, since="2025-01-01", max_issues=55)
    # 63 queue issues (the run cassettes' two among them): two search calls of up to 50,
    # one comment page for the long thread.
    assert bt.search_calls == 2 and bt.comment_pages == 1 and bt.exhausted
    assert bt.scanned == 63 and len(bt.records) == 51
    assert bt.skipped == {"no sub-oncall, module or triaged label": 11,
                          "this bot commented there": 1}
    long_thread = next(r for r in bt.records if r.number == 7001)
    assert long_thread.text.count(" · comment · ") == 103
    assert client.counter.reads == bt.search_calls + bt.comment_pages
    assert all(r.is_distributed and (r.modules or r.suboncall) for r in bt.records)


def test_api_failure_mid_read_exits_5_and_saves_nothing(gh, capsys, tmp_path, monkeypatch):
    from tests.standin.github import Fault

    populate(gh)
    monkeypatch.setenv("AGENTOPS_RETRY_ATTEMPTS", "2")
    # The second search page fails on every attempt: the first page was read, yet
    # nothing may be written (no half a history file).
    gh.inject("POST", r"^/graphql$", Fault.status_code(502), attempts=[2, 3, 4, 5])
    saved = tmp_path / "h.jsonl"
    assert cli.main(["evaluate", "--repo", REPO, "--save", str(saved)]) == 5
    err = capsys.readouterr().err
    assert "502" in err and "Traceback" not in err
    assert not saved.exists() and not (tmp_path / "h.jsonl.tmp").exists()


def test_odd_search_answers_do_not_break_the_read():
    # Nodes GitHub may return as null (deleted issues), pages without a cursor.
    queue = load_queue("distributed")

    class Client:
        def graphql(self, query, variables):  # type: ignore[no-untyped-def]
            return {"triaged": {"issueCount": 3, "pageInfo": {"hasNextPage": True,
                                                              "endCursor": None},
                                "nodes": [None, {"title": "no number"}, {
                                    "number": 5, "labels": {"nodes": []}, "comments": None}]}}

    bt = backtest.collect_triaged(Client(), REPO, queue, since=None,  # type: ignore[arg-type]
                                  max_issues=5)
    assert bt.scanned == 1 and bt.records == [] and bt.search_calls == 1


@pytest.mark.parametrize("body", [
    '{"data": {"triaged": {"issueCount": 3, "nodes": [{"number": 1',  # cut off
    "<!DOCTYPE html><html><body><h1>Unicorn!</h1></body></html>",  # a proxy's page
    '{"data": "maintenance"}',
    '{"data": {"triaged": "x"}}',
    '{"data": {"triaged": {"issueCount": 1, "nodes": "x"}}}',
    '{"data": {"triaged": {"issueCount": 1, "nodes": [{"number": "one"}]}}}',
    '{"errors": "x"}',
])
def test_a_malformed_200_answer_exits_5_with_the_reason_and_saves_nothing(
        gh, capsys, tmp_path, monkeypatch, body):
    # Issue #21 item 7: a 200 whose body is not GitHub's answer is an API failure with
    # its reason (exit 5), never an AttributeError (exit 70), and nothing is saved.
    from tests.standin.github import Fault

    populate(gh, triaged=3, untriaged=0)
    monkeypatch.setenv("AGENTOPS_RETRY_ATTEMPTS", "1")
    gh.inject("POST", r"^/graphql$", Fault.raw(body), attempts=[1])
    saved = tmp_path / "h.jsonl"
    assert cli.main(["evaluate", "--repo", REPO, "--save", str(saved)]) == 5
    err = capsys.readouterr().err
    assert "Traceback" not in err and "AttributeError" not in err
    assert "not GitHub's answer" in err
    assert not saved.exists()


def test_a_search_node_without_labels_is_an_error_not_an_untriaged_issue(gh, capsys,
                                                                         tmp_path):
    # A node whose `labels` is missing or null says nothing about how humans triaged it;
    # counting it as untriaged would silently drop it from the ground truth.
    populate(gh, triaged=3, untriaged=0)
    real = gh._issue_node

    def without_labels(repo, issue, first):  # type: ignore[no-untyped-def]
        node = real(repo, issue, first)
        if issue.number == 1002:
            node["labels"] = None
        return node

    gh._issue_node = without_labels  # type: ignore[method-assign]
    saved = tmp_path / "h.jsonl"
    assert cli.main(["evaluate", "--repo", REPO, "--save", str(saved)]) == 5
    err = capsys.readouterr().err
    assert "#1002" in err and "labels" in err and "Traceback" not in err
    assert not saved.exists()


class _WindowedSearch:
    """GitHub's search as the backtest sees it: `created:<=T` / `created:<T` filter,
    newest first, at most `cap` results per query (the 1,000-result window, scaled)."""

    def __init__(self, created: dict[int, str], cap: int) -> None:
        self.created, self.cap, self.queries = created, cap, []

    def graphql(self, query, variables):  # type: ignore[no-untyped-def]
        import re

        q = variables["triaged"]
        self.queries.append(q)
        hits = sorted(self.created.items(), key=lambda kv: (kv[1], -kv[0]), reverse=True)
        m = re.search(r"created:(<=?)(\S+)", q)
        if m:
            op, t = m.groups()
            hits = [(n, c) for n, c in hits if (c <= t if op == "<=" else c < t)]
        nodes = [{"number": n, "title": "t", "body": "fully_shard", "url": f"u/{n}",
                  "state": "OPEN", "createdAt": c,
                  "labels": {"nodes": [{"name": TRIGGER}, {"name": "module: fsdp"}]},
                  "comments": {"nodes": [], "pageInfo": {"hasNextPage": False}}}
                 for n, c in hits[:self.cap]]
        return {"triaged": {"issueCount": len(hits), "nodes": nodes,
                            "pageInfo": {"hasNextPage": False}}}


def test_past_the_window_issues_of_the_same_second_are_not_skipped(monkeypatch):
    # Issue #21 item 7: the window ends inside one second (#2, #3 read, #4 not);
    # restarting with `created:<T` skipped #4 for good. `<=T` plus the seen set reads
    # it; a window made only of that second goes on strictly below it.
    monkeypatch.setattr(backtest, "SEARCH_CAP", 3)
    t3, t2, t1 = "2025-01-03T00:00:00Z", "2025-01-02T00:00:00Z", "2025-01-01T00:00:00Z"
    search = _WindowedSearch({1: t3, 2: t2, 3: t2, 4: t2, 5: t1, 6: t1}, cap=3)
    bt = backtest.collect_triaged(search, REPO, load_queue("distributed"),  # type: ignore[arg-type]
                                  since=None, max_issues=50)
    assert sorted(r.number for r in bt.records) == [1, 2, 3, 4, 5, 6]
    assert bt.scanned == 6 and bt.exhausted
    assert any(q.endswith(f"created:<={t2}") for q in search.queries)


def test_a_bot_marker_past_the_first_100_comments_is_found(gh, capsys):
    # Issue #21 item 7: the first 100 comments fill the planner's text budget, the bot's
    # marker is comment 130: the issue is bot-touched, not human ground truth.
    gh.add_repo(REPO)
    long_text = "x " * 2000
    comments = [{"body": f"{long_text} {i}", "login": f"user{i}"} for i in range(130)]
    comments.append({"body": "Thanks! <!-- agentops:triage template=needs_distributed_"
                             "reproduction version=2 -->", "login": "triage-bot[bot]",
                     "type": "Bot"})
    gh.add_issue(REPO, 1001, title="fully_shard hangs", body=FSDP_BODY,
                 labels=[TRIGGER, PAR, "module: fsdp", "triaged"], age_days=10,
                 comments=comments)
    gh.add_issue(REPO, 1002, title="fully_shard hangs again", body=FSDP_BODY,
                 labels=[TRIGGER, PAR, "module: fsdp", "triaged"], age_days=9)
    assert cli.main(["evaluate", "--repo", REPO, "--json"]) == 0
    out = capsys.readouterr().out
    assert _json_line(out)["n"] == 1
    assert "1 this bot commented there" in out
