"""publish and handoff against a stateful stand-in on loopback (S-7, S-8): no duplicate
comment or board item on a rerun, Backlog set explicitly and never Ready, the comment
edited with links, an ambiguous create re-read before any retry."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentops import cli
from agentops.errors import ExitStatus
from agentops.scout import commands, embedded, projects, publish
from agentops.scout.livedata import BoardItem
from tests.standin import scout_github as standin

DATE = "2026-07-09"
BOARD = projects.Board(owner="pytorch", number=161, project_id="PVT_kwDOAUB9vs4BT6Cu")
ITEMS = [
    {"id": "a1b2c3d4e5f6", "kind": "action", "priority": "P1", "section": "S-4",
     "title": "Replace DTensorSpec in simple_fsdp.py with the public DTensor API",
     "why": "torch now exports a public spec type", "where": "simple_fsdp.py:77",
     "files": ["torchtitan/experiments/graph_trainer/simple_fsdp.py"], "severity": "should-fix",
     "fingerprint": "f1", "first_reported": DATE, "status": ""},
    {"id": "0badc0ffee01", "kind": "action", "priority": "P0", "section": "S-1",
     "title": "Copy the new Trainer.Config field `debug` in to_graph_trainer_config",
     "why": "upstream added it; @pytorch/titan-oncall configs silently drop it",
     "where": "configs.py", "files": ["torchtitan/experiments/graph_trainer/configs.py"],
     "severity": "", "fingerprint": "f2", "first_reported": DATE, "status": ""},
    {"id": "c0ffee000002", "kind": "carried", "priority": "P2", "section": "S-4",
     "title": "Drop the stale MoE.forward monkey-patch", "why": "", "where": "common_utils.py",
     "files": [], "severity": "", "fingerprint": "f3", "first_reported": "2026-07-05",
     "status": "no upstream change"},
    {"id": "d00d00000003", "kind": "action", "priority": "P2", "section": "S-5",
     "title": "Document the min_cut memory policy", "why": "", "where": "README.md",
     "files": [], "severity": "", "fingerprint": "f4", "first_reported": DATE, "status": ""},
    {"id": "e0e0e0e0e0e0", "kind": "fyi", "priority": "", "section": "S-6",
     "title": "PR 2880 merged", "why": "", "where": "", "files": [], "severity": "",
     "fingerprint": "f5", "first_reported": DATE, "status": ""},
]


def report_text(items: list[dict] = ITEMS, *, date: str = DATE, note: str = "") -> str:
    def line(i: dict) -> str:
        tail = (f"first reported {i['first_reported']}, {i['status']}" if i["kind"] == "carried"
                else f"{i['why'] or 'see'}, {i['where']}")
        return f"- [ ] [{i['priority']}] {i['title']} — {tail}"

    md = [f"# Nightly Scout Report — {date}", "", "## CI Failures", "CI green", "",
          "## Action Items (new findings)", *[line(i) for i in items if i["kind"] == "action"],
          "", "## Carried Forward (from prior reports, re-investigated)",
          *[line(i) for i in items if i["kind"] == "carried"], "", "## Opportunities",
          "nothing to report", "", "## FYI", *[f"- {i['title']}" for i in items
                                               if i["kind"] == "fyi"],
          "", "## Docs", "docs are current", "", "## All Clear", "- S-3d tests in CI", note]
    return embedded.embed("\n".join(md), {"date": date, "target": "torchtitan-graph-trainer",
                                          "items": items, "todos": []})


@pytest.fixture
def server(monkeypatch):
    state = standin.State()
    # Board: the carried item is ours (marker) and in progress, on the last page; the
    # docs item was done by hand under the same title, without a marker.
    state.add_item("Unrelated: qwen3 support", "Add qwen3.", "Ready")
    state.add_item("[NightlyScout][P2] Document the min_cut memory policy",
                   "**Source:** Nightly Scout Report — 2026-07-01", "Done")
    state.add_item("Unrelated: flaky test", "x", None)
    state.add_item("[NightlyScout][P2] Drop the stale MoE.forward monkey-patch",
                   "**Source:** Nightly Scout Report — 2026-07-05\n\n"
                   "<!-- agentops:scout-item c0ffee000002 -->", "In Progress")
    with standin.running(state) as (url, st):
        monkeypatch.setenv("GITHUB_API_URL", url)
        monkeypatch.setenv("GITHUB_TOKEN", "issues-token")
        monkeypatch.setenv("AGENTOPS_PROJECT_TOKEN", "project-token")
        monkeypatch.setenv("AGENTOPS_RETRY_BASE_DELAY", "0.01")
        standin.in_scout_run(monkeypatch)
        yield st


def _main(argv: list[str]) -> int:
    def build():
        p = cli.parser("scout.py", "test harness for the publish verbs", "example")
        sub = p.add_subparsers(dest="verb", required=True)
        for verb in ("publish", "handoff"):
            sp = sub.add_parser(verb)
            sp.add_argument("--repo")
            sp.add_argument("--issue")
            sp.add_argument("--report", required=True)
            sp.add_argument("--dry-run", action="store_true")
        return p

    def dispatch(args):
        if args.verb == "publish":
            return commands.publish_command(args)
        args.board = BOARD
        return commands.handoff_command(args)

    return cli.run(build, dispatch, argv)


def _publish(tmp_path, text: str, *extra: str) -> int:
    path = tmp_path / "report.md"
    path.write_text(text)
    return _main(["publish", "--repo", "pytorch/torchtitan", "--issue", "2856",
                  "--report", str(path), *extra])


def _handoff(tmp_path, *extra: str) -> int:
    return _main(["handoff", "--repo", "pytorch/torchtitan", "--issue", "2856",
                  "--report", str(tmp_path / "report.md"), *extra])


# --- publish -----------------------------------------------------------------------------

def test_publish_creates_then_noop_then_updates_in_place(server, tmp_path, capsys):
    server.comments.append({"id": 7, "body": "# Nightly Scout Report — 2026-07-08\nold",
                            "html_url": "u", "updated_at": "2026-07-08T06:00:00Z"})
    assert _publish(tmp_path, report_text()) == 0
    assert "created: https://github.com/pytorch/torchtitan/issues/2856#issuecomment-" in (
        capsys.readouterr().out)
    assert _publish(tmp_path, report_text()) == 0
    assert capsys.readouterr().out.startswith("noop: ")
    assert _publish(tmp_path, report_text(note="- S-5 re-checked")) == 0
    out = capsys.readouterr().out
    # Reads: who the token is (one GraphQL viewer call), the comments; one write.
    # (and the run its block names, to check it is the scout's: issue #21 item 5)
    assert out.startswith("updated: ") and "API calls: 4 (reads 3, writes 1" in out
    ours = [c for c in server.comments if c["body"].startswith(f"# Nightly Scout Report — {DATE}")]
    assert len(ours) == 1 and ours[0]["body"].endswith("-->\n")
    assert "- S-5 re-checked" in ours[0]["body"]
    assert [w[0] for w in server.writes] == ["POST", "PATCH"]


def test_publish_reads_all_comment_pages_before_deciding(server, tmp_path):
    for n in range(150):  # the report sits on page 2 of 100
        server.comments.append({"id": n + 1, "body": f"comment {n}", "html_url": "u",
                                "updated_at": "2026-07-08T10:00:00Z"})
    assert _publish(tmp_path, report_text()) == 0
    assert _publish(tmp_path, report_text()) == 0
    assert [w[0] for w in server.writes] == ["POST"]
    assert server.log.count("GET comments") == 4


@pytest.mark.parametrize("fault", ["502-after", "reset-after", "502-before", "secondary"])
def test_publish_ambiguous_create_is_reread_before_retry(server, tmp_path, fault):
    server.faults["comment-create"] = [fault]
    assert _publish(tmp_path, report_text()) == 0
    assert len([c for c in server.comments if DATE in c["body"]]) == 1
    posts = [i for i, e in enumerate(server.log) if e == "POST comment"]
    if fault in ("502-after", "reset-after"):
        # Landed: the re-read finds it, so it is never sent again.
        assert len(posts) == 1 and server.log[posts[0] + 1] == "GET comments"
    elif fault == "502-before":
        assert len(posts) == 2 and server.log[posts[0] + 1] == "GET comments"
    else:  # a rate limit is not ambiguous: GitHub refused it; retried after Retry-After
        assert len(posts) == 2 and server.log[posts[0] + 1] == "POST comment"


def test_publish_dry_run_writes_nothing(server, tmp_path, capsys):
    assert _publish(tmp_path, report_text(), "--dry-run") == 0
    assert server.writes == []
    assert "dry run: would post the 2026-07-09 report on pytorch/torchtitan#2856" in (
        capsys.readouterr().out)


def test_publish_refuses_a_report_without_the_block(server, tmp_path, capsys):
    assert _publish(tmp_path, "# Nightly Scout Report — 2026-07-09\nno block\n") == 1
    assert "--report: " in capsys.readouterr().err and server.log == []


# --- handoff ---------------------------------------------------------------------------

def _board_items(st: standin.State) -> dict[str, dict]:
    return {i["title"]: i for i in st.items}


def test_handoff_creates_backlog_drafts_links_them_and_converges(server, tmp_path, capsys):
    assert _publish(tmp_path, report_text()) == 0
    server.writes.clear()
    assert _handoff(tmp_path) == 0
    out = capsys.readouterr().out
    assert "handoff: 4 action item(s); 2 already on the board; 2 to create" in out
    items = _board_items(server)
    new = [items["[NightlyScout][P1] Replace DTensorSpec in simple_fsdp.py with the public "
                 "DTensor API"],
           items["[NightlyScout][P0] Copy the new Trainer.Config field `debug` in "
                 "to_graph_trainer_config"]]
    assert [i["status"] for i in new] == ["Backlog", "Backlog"]  # P0 too: never Ready
    assert len(server.items) == 6  # the Done and the In Progress items were not recreated
    body = new[1]["body"]
    assert body.startswith("**Source:** Nightly Scout Report — 2026-07-09\n**Priority:** P0\n"
                           "**Section:** Upstream delta (S-1)\n")
    assert "## Problem\n" in body and "## Suggested Fix\nStart at configs.py." in body
    assert ("- Report comment: https://github.com/pytorch/torchtitan/issues/2856"
            "#issuecomment-") in body
    assert "`torchtitan/experiments/graph_trainer/configs.py`" in body
    assert "@\u200bpytorch/titan-oncall" in body  # quoted text never pings a team
    assert body.endswith("<!-- agentops:scout-item 0badc0ffee01 fp=f2 -->")
    status_writes = [w for w in server.writes if w[1] == "updateProjectV2ItemFieldValue"]
    assert {w[2]["option"] for w in status_writes} == {standin.OPTIONS["Backlog"]}
    # The report comment now links every action item (new and existing) to its board item.
    comment = next(c for c in server.comments if DATE in c["body"])
    links = [ln for ln in comment["body"].split("\n") if "— board: [item](" in ln]
    assert len(links) == 4
    assert any(ln.startswith("- [ ] [P0] Copy the new Trainer.Config") and
               f"itemId={new[1]['databaseId']})" in ln for ln in links)
    assert embedded.extract(comment["body"])["board_items"]["a1b2c3d4e5f6"].endswith(
        f"itemId={new[0]['databaseId']}")
    assert [w[0] for w in server.writes] == ["GRAPHQL"] * 4 + ["PATCH"]
    # Second run: everything found, nothing written.
    server.writes.clear()
    assert _handoff(tmp_path) == 0
    assert server.writes == [] and len(server.items) == 6
    # Publishing the same report again keeps the links (noop); a changed report keeps
    # them too, on the lines that are still there.
    assert _publish(tmp_path, report_text()) == 0
    assert server.writes == []
    assert _publish(tmp_path, report_text(note="- S-5 re-checked")) == 0
    comment = next(c for c in server.comments if DATE in c["body"])
    assert "- S-5 re-checked" in comment["body"]
    assert len([ln for ln in comment["body"].split("\n") if "— board: [item](" in ln]) == 4


@pytest.mark.parametrize(("fault", "adds"), [("502-after", 2), ("reset-after", 2),
                                             ("502-before", 3), ("secondary", 3)])
def test_handoff_ambiguous_create_is_reread_before_retry(server, tmp_path, fault, adds):
    assert _publish(tmp_path, report_text()) == 0
    server.faults["draft-create"] = [fault]
    server.faults["status-update"] = ["502-after"]
    assert _handoff(tmp_path) == 0
    titles = [i["title"] for i in server.items]
    assert len(titles) == len(set(titles)) == 6  # no duplicate board item
    assert server.log.count("gql add") == adds
    first_add = server.log.index("gql add")
    if fault != "secondary":
        assert server.log[first_add + 1] == "gql items"  # re-read ALL items first
    assert all(i["status"] == "Backlog" for i in server.items if "scout-item a1" in i["body"])
    # The status write answered 502 after landing: the item status was re-read, not re-set.
    assert server.log.count("gql item") == 1


def test_handoff_dry_run_and_missing_backlog_option(server, tmp_path, capsys):
    assert _publish(tmp_path, report_text()) == 0
    server.writes.clear()
    assert _handoff(tmp_path, "--dry-run") == 0
    out = capsys.readouterr().out
    assert out.count("dry run: would create") == 2 and "set Status to Backlog" in out
    assert server.writes == []
    del server.options["Backlog"]
    assert _handoff(tmp_path) == ExitStatus.INPUT
    err = capsys.readouterr().err
    assert "no Status option 'Backlog'" in err and "never start in Ready" in err
    assert server.writes == []


def test_handoff_without_project_scope_fails_clearly(server, tmp_path, capsys, monkeypatch):
    assert _publish(tmp_path, report_text()) == 0
    server.writes.clear()
    monkeypatch.setenv("AGENTOPS_PROJECT_TOKEN", standin.NO_SCOPE_TOKEN)
    assert _handoff(tmp_path) == ExitStatus.INPUT
    err = capsys.readouterr().err
    assert "the token cannot use Projects" in err
    assert "`project` scope" in err and "PROJECT_TOKEN secret" in err
    assert server.writes == []


def test_handoff_needs_the_published_comment(server, tmp_path, capsys):
    (tmp_path / "report.md").write_text(report_text())
    assert _handoff(tmp_path) == ExitStatus.INPUT
    assert "run `scout.py publish` first" in capsys.readouterr().err
    assert server.writes == []


def test_handoff_finishes_an_item_left_without_status(server, tmp_path):
    assert _publish(tmp_path, report_text()) == 0
    # A previous run created this one and stopped before setting its Status.
    server.add_item("[NightlyScout][P1] Replace DTensorSpec in simple_fsdp.py with the "
                    "public DTensor API", "<!-- agentops:scout-item a1b2c3d4e5f6 -->", None)
    assert _handoff(tmp_path) == 0
    assert server.log.count("gql add") == 1  # only the P0 item was missing
    assert all(i["status"] == "Backlog" for i in server.items if "scout-item a1" in i["body"])


def test_plan_handoff_is_pure_and_matches_marker_before_title():
    board = (BoardItem("I1", "renamed by a human", "x <!-- agentops:scout-item a1b2c3d4e5f6 -->",
                       "Abort"),)
    plan = publish.plan_handoff(publish.handoff_items({"items": ITEMS}), board, date=DATE,
                                comment_url="")
    assert "a1b2c3d4e5f6" in plan.existing and plan.set_backlog == ()
    assert [d.item_id for d in plan.create] == ["0badc0ffee01", "c0ffee000002", "d00d00000003"]
    assert publish.draft_title({"title": "x " * 60, "priority": "", "severity": "blocking"}
                               ).startswith("[NightlyScout][P0] x x")
    assert len(publish.draft_title({"title": "x " * 60})) <= 100


def test_handoff_falls_back_to_github_token_and_explains_the_refusal(
        server, tmp_path, capsys, monkeypatch):
    assert _publish(tmp_path, report_text()) == 0
    server.writes.clear()
    monkeypatch.delenv("AGENTOPS_PROJECT_TOKEN")
    monkeypatch.setenv("GITHUB_TOKEN", standin.INSTALLATION_TOKEN)
    assert _handoff(tmp_path) == ExitStatus.INPUT
    err = capsys.readouterr().err
    assert "using GITHUB_TOKEN for the board" in err
    assert "Resource not accessible by integration" in err
    assert "`project` scope" in err and "PROJECT_TOKEN secret" in err
    assert server.writes == []
    monkeypatch.delenv("GITHUB_TOKEN")
    assert _handoff(tmp_path) == ExitStatus.INPUT
    assert "AGENTOPS_PROJECT_TOKEN: not set (nor GITHUB_TOKEN)" in capsys.readouterr().err


def test_publish_falls_back_to_the_configured_tracking_issue(server, tmp_path, capsys):
    from agentops.scout.collect import LiveTargets

    path = tmp_path / "report.md"
    path.write_text(report_text())
    args = __import__("argparse").Namespace(
        repo=None, issue=None, report=str(path), dry_run=False, config=None,
        targets=LiveTargets(repo="pytorch/torchtitan", subproject="x",
                            tracking_repo="pytorch/torchtitan", tracking_number=2856))
    assert commands.publish_command(args) == 0
    assert [w[1] for w in server.writes] == ["/repos/pytorch/torchtitan/issues/2856/comments"]
    # Issue #13 item 7: --repo without --issue is not silently dropped.
    args.repo = "someone/else"
    with pytest.raises(commands.UsageError, match="--repo: names the tracking issue's "
                                                  "repository and needs --issue"):
        commands.publish_command(args)
    args.repo, args.targets = None, None
    with pytest.raises(commands.InputError, match="--issue: target None names no tracking "
                                                  "issue to post on"):
        commands.publish_command(args)
    assert len(server.writes) == 1


def test_handoff_adds_a_dated_update_only_when_a_finding_changed(server, tmp_path, capsys):
    # The carried item's board draft recorded fingerprint f3-old; the report says f3.
    carried = next(i for i in server.items if "c0ffee000002" in i["body"])
    carried["body"] = carried["body"].replace("scout-item c0ffee000002 -->",
                                              "scout-item c0ffee000002 fp=f3-old -->")
    done = next(i for i in server.items if i["status"] == "Done")
    assert _publish(tmp_path, report_text()) == 0
    server.faults["draft-edit"] = ["502-after"]
    assert _handoff(tmp_path) == 0
    assert "2 to create; 1 changed" in capsys.readouterr().out
    assert "### Update 2026-07-09 (Nightly Scout Report)\nno upstream change\n\n" in (
        carried["body"])
    assert carried["body"].endswith("<!-- agentops:scout-item c0ffee000002 fp=f3 -->")
    assert carried["status"] == "In Progress"  # an update never moves an item
    assert server.log.count("gql edit") == 1  # landed despite the 502: re-read, not resent
    assert done["body"] == "**Source:** Nightly Scout Report — 2026-07-01"  # resolved
    server.writes.clear()
    assert _handoff(tmp_path) == 0
    assert server.writes == []  # unchanged now: no second update


def test_updated_body_rules():
    item = {"id": "x1", "fingerprint": "b", "status": "partial fix landed"}
    draft = BoardItem("I", "t", "p\n<!-- agentops:scout-item x1 fp=a -->", "Backlog",
                      content_type="DraftIssue", content_id="DI_1")
    assert publish.updated_body(draft, item, date=DATE) == (
        "p\n### Update 2026-07-09 (Nightly Scout Report)\npartial fix landed\n\n"
        "<!-- agentops:scout-item x1 fp=b -->")
    assert publish.updated_body(draft, {**item, "fingerprint": "a"}, date=DATE) is None
    for status in ("Done", "Abort"):
        assert publish.updated_body(BoardItem("I", "t", draft.body, status,
                                              content_type="DraftIssue"), item, date=DATE) is None
    issue = BoardItem("I", "t", draft.body, "Ready", content_type="Issue")
    assert publish.updated_body(issue, item, date=DATE) is None
    legacy = BoardItem("I", "t", "<!-- agentops:scout-item x1 -->", "Ready",
                       content_type="DraftIssue")
    assert publish.updated_body(legacy, item, date=DATE) is None


def test_handoff_partly_applied_exits_4_and_a_rerun_converges(server, tmp_path, capsys,
                                                              monkeypatch):
    assert _publish(tmp_path, report_text()) == 0
    monkeypatch.setenv("AGENTOPS_RETRY_ATTEMPTS", "2")
    # The first draft lands; the second is refused on both attempts.
    server.faults["draft-create"] = [None, "502-before", "502-before"]
    assert _handoff(tmp_path) == ExitStatus.PARTIAL
    err = capsys.readouterr().err
    assert "handoff: 1 of 2 board item(s) created, then:" in err and "rerun" in err
    assert len(server.items) == 5
    assert _handoff(tmp_path) == 0
    titles = [i["title"] for i in server.items]
    assert len(titles) == len(set(titles)) == 6
    assert all(i["status"] == "Backlog" for i in server.items if "scout-item" in i["body"]
               and "c0ffee000002" not in i["body"])


def test_publish_and_handoff_without_config_use_the_report_target(server, tmp_path, capsys):
    # Issue #13 item 9: with no --config, publish and handoff used to say "no board" /
    # "--repo expected OWNER/NAME, got ''"; they use the built-in target, as report does.
    from scripts.scout import main as scout_main

    path = tmp_path / "report.md"
    path.write_text(report_text())
    capsys.readouterr()
    assert scout_main(["publish", "--report", str(path), "--dry-run"]) == 0
    assert ("dry run: would post the 2026-07-09 report on pytorch/torchtitan#2856"
            in capsys.readouterr().out)
    assert scout_main(["publish", "--report", str(path)]) == 0
    server.writes.clear()
    assert scout_main(["handoff", "--report", str(path), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "dry run: would create" in out and "on pytorch#161" in out
    assert server.writes == []


def test_handoff_log_lines_keep_board_titles_inert(server, tmp_path, capsys):
    """Issue #21 item 2: the ``created {title}`` line carries a finding's title (outside
    text); the runner must see no command in it, in either form."""
    hostile = dict(ITEMS[1], title="Fix it ##[add-mask]x\r::stop-commands::tok")
    assert _publish(tmp_path, report_text([ITEMS[0], hostile, *ITEMS[2:]])) == 0
    capsys.readouterr()
    assert _handoff(tmp_path) == 0
    err = capsys.readouterr().err
    created = [ln for ln in err.replace("\r", "\n").splitlines() if "add-mask" in ln]
    # The title's line break is folded by the draft; the legacy command is broken.
    assert created == ["  created [NightlyScout][P0] Fix it ##\u200b[add-mask]x "
                       "::stop-commands::tok (2/2)"]
    assert "##[" not in err


# --- issue #21 item 6: no default posts outside the workflow's repository ---------------

@pytest.mark.parametrize("case", [("publish", "someone/fork"), ("handoff", "someone/fork"),
                                  ("publish", ""), ("handoff", "")])
def test_in_a_workflow_the_targets_issue_elsewhere_is_refused_before_any_request(
        server, tmp_path, capsys, monkeypatch, case):
    """A copied workflow with the built-in target and no `issue:` would post on
    pytorch/torchtitan#2856: refused with exit 2 naming the input, before any call."""
    from scripts.scout import main as scout_main

    verb, own = case
    path = tmp_path / "report.md"
    path.write_text(report_text())
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    # Any request would now fail another way (exit 5): exit 2 says none was made.
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")
    if own:
        monkeypatch.setenv("GITHUB_REPOSITORY", own)
    else:
        monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    capsys.readouterr()
    assert scout_main([verb, "--report", str(path)]) == ExitStatus.USAGE
    err = capsys.readouterr().err
    assert "--issue: the tracking issue of target 'torchtitan-graph-trainer' is " \
           "pytorch/torchtitan#2856, outside this workflow's repository" in err
    assert (own or "GITHUB_REPOSITORY is not set") in err
    assert "set the action's `issue` input" in err
    assert server.writes == []


def test_in_a_workflow_the_targets_issue_is_the_default_in_its_own_repository(
        server, tmp_path, capsys, monkeypatch):
    from scripts.scout import main as scout_main

    path = tmp_path / "report.md"
    path.write_text(report_text())
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_REPOSITORY", "PyTorch/TorchTitan")  # names are case-blind
    capsys.readouterr()
    assert scout_main(["publish", "--report", str(path), "--dry-run"]) == 0
    assert ("would post the 2026-07-09 report on pytorch/torchtitan#2856"
            in capsys.readouterr().out)
    assert server.writes == []
    # handoff resolves its tracking issue the same way (the one place both verbs use).
    args = __import__("argparse").Namespace(repo=None, issue=None,
                                            config="torchtitan-graph-trainer")
    assert commands._tracking(args) == ("pytorch/torchtitan", 2856)


def test_in_a_workflow_a_named_repository_is_written_to(server, tmp_path, capsys,
                                                        monkeypatch):
    """Naming the repository (repo + issue inputs) is the explicit way to write elsewhere;
    `issue` alone means this repository."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_REPOSITORY", "someone/fork")
    assert _publish(tmp_path, report_text()) == 0
    assert [w[1] for w in server.writes] == ["/repos/pytorch/torchtitan/issues/2856/comments"]
    args = __import__("argparse").Namespace(repo=None, issue="7", config=None)
    assert commands._tracking(args) == ("someone/fork", 7)


def test_from_a_shell_the_targets_issue_stays_the_default(server, tmp_path, capsys,
                                                          monkeypatch):
    from scripts.scout import main as scout_main

    path = tmp_path / "report.md"
    path.write_text(report_text())
    monkeypatch.setenv("GITHUB_REPOSITORY", "someone/fork")  # not GITHUB_ACTIONS: a person
    assert scout_main(["publish", "--report", str(path), "--dry-run"]) == 0
    assert "pytorch/torchtitan#2856" in capsys.readouterr().out


@pytest.mark.parametrize("case", [
    ("someone/fork", "torchtitan-graph-trainer", None, True),   # built-in board elsewhere
    ("", "torchtitan-graph-trainer", None, True),
    ("someone/fork", "torchtitan-graph-trainer", "someone/other", True),
    ("pytorch/anything", "torchtitan-graph-trainer", None, False),  # the owner's repository
    ("org/agentops", "torchtitan-graph-trainer", "pytorch/torchtitan", False),  # named
    ("someone/fork", "FILE", None, False),  # the user's own target file names its board
])
def test_in_a_workflow_a_built_in_targets_board_elsewhere_is_refused(
        tmp_path, monkeypatch, case):
    """Issue #21 item 6, the board half: handoff with a built-in target adds items to that
    target's board only from a workflow of the board owner's repositories, or one that
    names such a repository (`repo`); (own repository, config, repo, refused)."""
    own, config, repo, refused = case
    from agentops.errors import UsageError
    from agentops.scout import config as scout_config

    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    if own:
        monkeypatch.setenv("GITHUB_REPOSITORY", own)
    else:
        monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    if config == "FILE":
        src = scout_config.load_target("torchtitan-graph-trainer")
        assert src.board is not None
        path = tmp_path / "mine.yaml"
        path.write_text((Path(scout_config.__file__).parent / "targets"
                         / "torchtitan-graph-trainer.yaml").read_text())
        config = str(path)
    args = __import__("argparse").Namespace(config=config, repo=repo)
    if refused:
        with pytest.raises(UsageError, match="outside the owner of this workflow's repository"):
            commands._board(args)
    else:
        assert commands._board(args).owner.lower() == "pytorch"
    monkeypatch.delenv("GITHUB_ACTIONS")
    assert commands._board(args).owner.lower() == "pytorch"  # a person at a shell chose it
