"""The report verb end to end on the built fixture repository: golden Markdown,
new/carried/resolved/dropped-FYI over a sequence of reports, live data rendering through
a stand-in ``collect`` module, and exit codes."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

from agentops.scout import embedded, render
from agentops.scout.livedata import (
    BoardItem,
    FailedTest,
    LiveData,
    OpenWork,
    PullState,
    WorkflowHealth,
)
from scripts import scout as cli

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "scout"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _install_live(monkeypatch, collect_live, *, api_line: str) -> list[LiveData]:
    """Stand in for the API half: ``collect_live`` answers, a client whose counter
    prints ``api_line``; returns the list the CI outputs handed to the workflow land in."""
    written: list[LiveData] = []
    fake = types.ModuleType("agentops.scout.collect")
    fake.collect_live = collect_live
    fake.write_ci_outputs = written.append
    monkeypatch.setitem(sys.modules, "agentops.scout.collect", fake)

    class Client:
        class counter:
            @staticmethod
            def line() -> str:
                return api_line

    monkeypatch.setattr("agentops.github.client.GitHubClient.from_env",
                        classmethod(lambda cls: Client()))
    return written


def report(capsys, repo: dict[str, Path], commit: str, date: str, *extra: str,
           as_json: bool = True) -> dict | str:
    argv = ["--config", str(repo["target"]), "report", "--checkout", str(repo[commit]),
            "--offline", "--torch", "none", "--date", date, *extra]
    code, out, err = run(capsys, *argv, *(["--json"] if as_json else []))
    assert code == 0, err
    return json.loads(out) if as_json else out


@pytest.fixture(scope="module")
def sequence(fixture_repo, tmp_path_factory) -> dict[str, dict]:
    """Five nightly reports: c1 on 03-02, c2 on 03-06, c3 on 03-10, 03-11, 03-12, each
    with every earlier one as --prior (as posted: Markdown with the hidden block)."""
    out_dir = tmp_path_factory.mktemp("reports")
    plan = [("R1", "c1", "2026-03-02"), ("R2", "c2", "2026-03-06"),
            ("R3", "c3", "2026-03-10"), ("R4", "c3", "2026-03-11"), ("R5", "c3", "2026-03-12")]
    done: dict[str, dict] = {}
    priors: list[str] = []
    for name, commit, date in plan:
        md = out_dir / f"{name}.md"
        argv = ["--config", str(fixture_repo["target"]), "report", "--checkout",
                str(fixture_repo[commit]), "--offline", "--torch", "none", "--date", date,
                "--json",
                "--out", str(md), *[a for p in priors for a in ("--prior", p)]]
        import contextlib
        import io

        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert cli.main(argv) == 0
        done[name] = json.loads(buf.getvalue())
        priors.append(str(md))
    return done


def _kinds(doc: dict) -> dict[str, str]:
    return {i["id"]: i["kind"] for i in doc["items"]}


def _by_title(doc: dict, text: str) -> list[dict]:
    return [i for i in doc["items"] if text in i["title"]]


@pytest.mark.parametrize("name", ["R1", "R2", "R3", "R4"])
def test_report_markdown_matches_golden(sequence, name, update_golden) -> None:
    md = sequence[name]["markdown"]
    path = GOLDEN / "fixture-sequence" / f"{name}.md"
    if update_golden:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(md, encoding="utf-8")
    assert md == path.read_text(encoding="utf-8"), f"rerun with --update-golden and review {path}"


def test_sections_are_exactly_the_spec_order(sequence) -> None:
    md = sequence["R1"]["markdown"]
    heads = [line for line in md.splitlines() if line.startswith("#")]
    assert heads == ["# Nightly Scout Report — 2026-03-02", "## CI Failures",
                     "## Action Items (new findings)",
                     "## Carried Forward (from prior reports, re-investigated)",
                     "## Opportunities", "## FYI", "## Docs", "## All Clear"]
    assert "## Carried Forward (from prior reports, re-investigated)\nnothing to report" in md


def test_baseline_comes_from_since_prior_or_first_run(sequence, fixture_repo, capsys) -> None:
    assert sequence["R1"]["baseline"]["source"] == "first run"
    assert sequence["R1"]["baseline"]["since"] == "2026-03-01"
    # The prior's hidden block names the commit it analysed: the exact baseline.
    assert sequence["R2"]["baseline"] == {"since": "2026-03-02", "source": "prior report head",
                                          "commit": sequence["R1"]["head"]}
    doc = report(capsys, fixture_repo, "c3", "2026-03-10", "--since", "2026-03-02")
    assert doc["baseline"]["source"] == "--since"


def test_new_then_carried_with_first_reported_date(sequence) -> None:
    [r1] = _by_title(sequence["R1"], "graph passes have no test: `bucket_pass`")
    assert r1["kind"] == "action" and r1["priority"] == "P2"
    [r2] = [i for i in sequence["R2"]["items"] if i["id"] == r1["id"]]
    assert r2["kind"] == "carried"
    assert r2["first_reported"] == "2026-03-02"
    assert "unchanged since 2026-03-02" in r2["status"]
    [r3] = [i for i in sequence["R3"]["items"] if i["id"] == r1["id"]]
    assert r3["first_reported"] == "2026-03-02"
    # New in R3 only: the test file added by c3.
    [new] = _by_title(sequence["R3"], "`sub/tests/test_new.py` runs in no CI workflow")
    assert new["kind"] == "action" and new["first_reported"] == "2026-03-10"
    assert not _by_title(sequence["R2"], "test_new.py")


def test_fyi_unchanged_in_three_reports_is_dropped_and_stays_dropped(sequence) -> None:
    title = "Private API `_private_helper`"
    for name in ("R1", "R2", "R3"):
        assert len(_by_title(sequence[name], title)) == 1, name
    assert _by_title(sequence["R4"], title) == []
    assert _by_title(sequence["R5"], title) == []
    [fyi] = _by_title(sequence["R3"], title)
    assert f"{fyi['id']}:{fyi['fingerprint']}" in sequence["R4"]["suppressed"]
    assert f"{fyi['id']}:{fyi['fingerprint']}" in sequence["R5"]["suppressed"]


def test_todo_ids_survive_moving_lines_and_status_is_tracked(sequence) -> None:
    r1 = {t["id"]: t for t in sequence["R1"]["todos"]}
    r2 = {t["id"]: t for t in sequence["R2"]["todos"]}
    assert set(r1) == set(r2)
    assert all(r2[i]["line"] != r1[i]["line"] for i in r1)  # c2 moved every TODO down
    assert {t["status"] for t in r1.values()} == {"new"}
    assert {t["status"] for t in r2.values()} == {"carried"}
    r3 = sequence["R3"]
    assert [t["text"] for t in r3["todos_resolved"]] == ["remove the hack below"]
    statuses = {t["tag"]: t["status"] for t in r3["todos"]}
    assert statuses == {"TODO": "carried", "HACK": "carried", "XXX": "new"}
    [xxx] = [t for t in r3["todos"] if t["tag"] == "XXX"]
    assert xxx["owner"] == "bob" and xxx["refs"] == ["https://example.com/design"]


def test_changed_todo_is_reported_changed(fixture_repo, sequence, tmp_path, capsys) -> None:
    # A prior whose block has the same TODO id with another fingerprint: "changed".
    r2 = sequence["R2"]
    payload = embedded.extract(r2["markdown"])
    payload["todos"][0]["fingerprint"] = "0" * 12
    prior = tmp_path / "prior.md"
    prior.write_text(embedded.embed(r2["markdown"], payload), encoding="utf-8")
    doc = report(capsys, fixture_repo, "c2", "2026-03-07", "--prior", str(prior))
    changed = [t for t in doc["todos"] if t["status"] == "changed"]
    assert [t["id"] for t in changed] == [payload["todos"][0]["id"]]


def test_resolved_action_items_are_listed_in_all_clear(fixture_repo, sequence, tmp_path,
                                                       capsys) -> None:
    # R3 (c3) has "test_new.py runs in no CI"; a report of c2 after it has no test_new.py.
    prior = tmp_path / "r3.md"
    prior.write_text(sequence["R3"]["markdown"], encoding="utf-8")
    doc = report(capsys, fixture_repo, "c2", "2026-03-11", "--prior", str(prior))
    titles = [i["title"] for i in doc["resolved"]]
    assert any("test_new.py" in t for t in titles)
    assert "Resolved since 2026-03-10" in doc["markdown"]


def test_offline_json_has_every_contract_key(sequence) -> None:
    doc = sequence["R3"]
    for key in ("date", "baseline", "markdown", "items", "upstream_commits",
                "fragile_surface_changes", "config_drift", "todos", "todos_resolved",
                "tests_missing_from_ci", "ci_steps_without_tests", "coverage_gaps",
                "passes_without_tests", "configs_without_tests", "stale_patches",
                "private_api_uses", "doc_inaccuracies", "open_work"):
        assert key in doc, key
    for item in doc["items"]:
        assert {"id", "section", "kind", "priority", "severity", "title", "files"} <= set(item)
        assert item["kind"] in ("action", "carried", "opportunity", "fyi", "docs", "all_clear")
    for t in doc["todos"]:
        assert {"file", "line", "tag", "text", "owner", "refs", "status"} <= set(t)
        assert not t["file"].startswith("/")
    assert doc["open_work"] is None
    assert "## CI Failures\n- skipped — offline" in doc["markdown"]
    assert "Open work (S-6): skipped — offline" in doc["markdown"]


def test_without_offline_missing_collect_means_live_unavailable(fixture_repo, capsys,
                                                                monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "agentops.scout.collect", None)
    argv = ["--config", str(fixture_repo["target"]), "report", "--checkout",
            str(fixture_repo["c1"]), "--date", "2026-03-02"]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    assert "## CI Failures\n- skipped — live collection unavailable" in out


def test_live_data_renders_ci_pr_states_and_open_work(fixture_repo, capsys,
                                                      monkeypatch) -> None:
    calls = []

    def collect_live(client, config, since, *, checkout=None):
        calls.append((config.name, since, checkout))
        return LiveData(
            prior_reports=(),
            board_items=(BoardItem("PVTI_1", "[NightlyScout][P2] 1 of 2 graph passes have no "
                                   "test: `bucket_pass`", "Source: Nightly Scout Report",
                                   "In Progress"),),
            pulls={"pytorch/pytorch#123": PullState("pytorch/pytorch", 123, "closed",
                                                    merged_at="2026-03-01T12:00:00Z"),
                   "pytorch/pytorch#456": PullState("pytorch/pytorch", 456, "open")},
            ci=(WorkflowHealth("sub", "failure", latest_url="https://example.com/run/2",
                               last_success_url="https://example.com/run/1",
                               last_success_torch="2.9.0.dev20260301",
                               failing_torch="2.9.0.dev20260302",
                               failed_tests=(FailedTest(
                                   "sub_fsdp_tp", "RuntimeError: boom <b>",
                                   ("sub/passes.py:8 in bucket_pass",),
                                   "NGPU=8 ./run.sh --module sub --config sub_debug"),)),),
            open_work=OpenWork(waiting_prs=(PullState("example/core", 7, "open",
                                                      title="Add @someone feature",
                                                      updated_at="2026-02-20T00:00:00Z"),)))

    ci_outputs_written = _install_live(monkeypatch, collect_live,
                                       api_line="API calls: 0 (reads 0, writes 0, retries 0)")
    argv = ["--config", str(fixture_repo["target"]), "report", "--checkout",
            str(fixture_repo["c1"]), "--date", "2026-03-02", "--json", "--torch", "none"]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert calls == [("demo-sub", "2026-03-01", str(fixture_repo["c1"]))]
    # the live report hands its CI state to the workflow's bisect job as step outputs
    [written] = ci_outputs_written
    assert written.ci[0].latest_conclusion == "failure"
    assert "API calls: 0" in err
    doc = json.loads(out)
    md = doc["markdown"]
    assert "**sub**: failure" in md and "`2.9.0.dev20260301` → `2.9.0.dev20260302`" in md
    # Log text is a code span: shown exactly (no entity), and inert (code is literal).
    assert "**Error**: `RuntimeError: boom <b>`" in md
    [unblocked] = _by_title(doc, "TODO unblocked: pytorch/pytorch#123 merged 2026-03-01")
    assert unblocked["kind"] == "action" and unblocked["priority"] == "P1"
    [todo] = [t for t in doc["todos"] if t["tag"] == "TODO"]
    assert todo["pr_states"] == [["pytorch/pytorch#123", "merged 2026-03-01"]]
    # No mention, no cross-reference: a zero-width space after "@" and "#".
    assert "PR example/core#\u200b7 waiting for review: Add @\u200bsomeone feature" in md
    assert "skipped" not in md.split("## FYI")[1].split("## Docs")[0]
    [pass_item] = _by_title(doc, "graph passes have no test: `bucket_pass`")
    assert pass_item["status"] == "board: In Progress"


def test_checkout_of_another_repository_is_refused(fixture_repo, tmp_path, capsys) -> None:
    code, _, err = run(capsys, "report", "--checkout", str(fixture_repo["c1"]), "--offline")
    assert code == 1
    assert "has no torchtitan/experiments/graph_trainer/ at HEAD" in err


@pytest.mark.parametrize(("argv", "code", "needle"), [
    (["report", "--checkout", "/nonexistent/x", "--offline"], 1, "--checkout"),
    (["report", "--offline"], 2, "--checkout"),
    (["report", "--checkout", ".", "--offline", "--date", "2026-13-01"], 2, "--date"),
    (["--config", "no-such-target", "report", "--checkout", ".", "--offline"], 1,
     "no built-in target"),
    (["bogus-verb"], 2, "invalid choice"),
])
def test_exit_codes(capsys, argv, code, needle) -> None:
    got, out, err = run(capsys, *argv)
    assert got == code
    assert needle in out + err


def test_prior_that_is_not_a_report_is_an_input_error(fixture_repo, tmp_path, capsys) -> None:
    bad = tmp_path / "notes.md"
    bad.write_text("just some notes\n", encoding="utf-8")
    code, _, err = run(capsys, "--config", str(fixture_repo["target"]), "report",
                       "--checkout", str(fixture_repo["c1"]), "--offline", "--prior", str(bad))
    assert code == 1
    assert "not a scout report" in err


def test_hand_written_prior_without_block_gives_the_baseline_date(fixture_repo, tmp_path,
                                                                  capsys) -> None:
    prior = tmp_path / "old.md"
    prior.write_text("# Nightly Scout Report — 2026-03-04\n\n## CI Failures\n", "utf-8")
    doc = report(capsys, fixture_repo, "c3", "2026-03-10", "--prior", str(prior))
    assert doc["baseline"]["since"] == "2026-03-04"
    assert doc["baseline"]["source"] == "prior report"  # no block: the date decides
    assert doc["baseline"]["commit"] == sequence_head(fixture_repo, "c1")  # c2 is 03-05


def sequence_head(repo: dict[str, Path], commit: str) -> str:
    import subprocess

    return subprocess.run(["git", "-C", str(repo[commit]), "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()


def test_skipped_reason_comes_from_livedata() -> None:
    live = LiveData(skipped={"ci": "GitHub API not allowlisted"})
    assert render.skipped_reason(live, "ci") == "skipped — GitHub API not allowlisted"
    assert render.skipped_reason(live, "open_work") == "skipped — offline"


def test_rendered_report_fits_a_comment_and_keeps_the_block(sequence) -> None:
    from agentops.scout.model import Baseline, Item, Report

    many = tuple(Item(id=f"{n:012x}", section="S-4", kind="fyi", title="x" * 300)
                 for n in range(400))
    rep = Report(date="2026-03-10", target="t", baseline=Baseline("2026-03-09", "--since", None),
                 head="0" * 40, items=many, resolved=(), suppressed=(),
                 analyses={"todos": [{"id": f"{n}", "file": "f.py", "tag": "TODO",
                                      "text": "y" * 200, "fingerprint": "f",
                                      "first_reported": "2026-03-01"} for n in range(50)]})
    full = render.render(rep, LiveData(), limit=10**7)
    visible = render.markdown(rep, LiveData())
    limit = len(full) - len(visible) + 5000  # room for the whole block, part of the text
    out = render.render(rep, LiveData(), limit=limit)
    assert len(out) <= limit
    block = embedded.extract(out)
    assert block is not None and len(block["items"]) == 400
    assert "truncated to fit a GitHub comment" in out
    assert all("text" not in t for t in block["todos"])
    assert render.render(rep, LiveData(), limit=10**7).count("x" * 300) == 400


@pytest.mark.parametrize(("argv", "func"), [
    (["publish", "--repo", "o/r", "--issue", "7", "--report", "r.md", "--dry-run"],
     "publish_command"),
    (["handoff", "--report", "r.md"], "handoff_command"),
])
def test_publish_and_handoff_dispatch_to_the_live_commands(monkeypatch, capsys, argv,
                                                           func) -> None:
    seen = []
    fake = types.ModuleType("agentops.scout.commands")
    setattr(fake, func, lambda args: seen.append(args) or 0)
    monkeypatch.setitem(sys.modules, "agentops.scout.commands", fake)
    code, _, _ = run(capsys, *argv)
    assert code == 0
    [args] = seen
    assert args.verb == argv[0] and args.report == "r.md"
    if func == "publish_command":
        assert (args.repo, args.issue, args.dry_run) == ("o/r", "7", True)


def test_publish_missing_writer_is_a_clear_error(monkeypatch, capsys) -> None:
    monkeypatch.delitem(sys.modules, "agentops.scout.commands", raising=False)
    monkeypatch.setitem(sys.modules, "agentops.scout.publish", None)
    code, _, err = run(capsys, "handoff", "--report", "r.md")
    assert code == 1
    assert "agentops.scout.publish is missing" in err


def test_live_prior_reports_set_the_baseline_and_open_work_news(fixture_repo, sequence,
                                                                capsys, monkeypatch) -> None:
    from agentops.scout.livedata import PriorReport

    r2 = sequence["R2"]
    pr_old = PullState("example/core", 7, "open", title="old PR", updated_at="2026-03-01")
    pr_new = PullState("example/core", 8, "open", title="new PR", updated_at="2026-03-09")
    rounds = [(pr_old,), (pr_old, pr_new)]
    reports: list[str] = []

    def collect_live(client, config, since, *, checkout=None):
        waiting = rounds.pop(0)
        prior = tuple(PriorReport("2026-03-06" if not reports else "2026-03-10", md)
                      for md in ([r2["markdown"]] if not reports else reports[-1:]))
        return LiveData(prior_reports=prior, open_work=OpenWork(waiting_prs=waiting),
                        pulls={}, ci=(), board_items=())

    _install_live(monkeypatch, collect_live,
                  api_line="API calls: 3 (reads 3, writes 0, retries 0)")
    base = ["--config", str(fixture_repo["target"]), "report", "--checkout",
            str(fixture_repo["c3"]), "--torch", "none", "--json"]
    code, out, err = run(capsys, *base, "--date", "2026-03-10")
    assert code == 0, err
    first = json.loads(out)
    # The prior came from the tracking issue (live), not from --prior.
    assert first["baseline"] == {"since": "2026-03-06", "source": "prior report head",
                                 "commit": r2["head"]}
    [carried] = _by_title(first, "graph passes have no test: `bucket_pass`")
    assert carried["kind"] == "carried" and carried["first_reported"] == "2026-03-02"
    reports.append(first["markdown"])
    code, out, err = run(capsys, *base, "--date", "2026-03-11")
    second = json.loads(out)
    [old] = _by_title(second, "example/core#7")
    [new] = _by_title(second, "example/core#8")
    assert old["status"] == "" and new["status"] == "new since 2026-03-10"
    assert "new PR — new since 2026-03-10" in second["markdown"]


def test_action_env_prior_dir_and_report_file(fixture_repo, sequence, tmp_path, capsys,
                                              monkeypatch) -> None:
    # As actions/scout runs it: prior reports from a directory (input prior-dir), the
    # report written where publish/handoff read it (report-file), its path an output.
    priors = tmp_path / "priors"
    priors.mkdir()
    for name in ("R1", "R2", "R3"):
        (priors / f"{name}.md").write_text(sequence[name]["markdown"], encoding="utf-8")
    (priors / "notes.txt").write_text("not a report", encoding="utf-8")
    report_file = tmp_path / "out" / "scout-report.md"
    outputs = tmp_path / "github_output"
    monkeypatch.setenv("AGENTOPS_PRIOR_DIR", str(priors))
    monkeypatch.setenv("AGENTOPS_REPORT_FILE", str(report_file))
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    doc = report(capsys, fixture_repo, "c3", "2026-03-11")
    expected = sequence["R4"]
    assert doc["baseline"] == expected["baseline"]
    assert _kinds(doc) == _kinds(expected)
    assert [t["status"] for t in doc["todos"]] == [t["status"] for t in expected["todos"]]
    assert report_file.read_text(encoding="utf-8") == doc["markdown"]
    from tests.contract.runner import parse_file_commands

    assert parse_file_commands(outputs.read_text(encoding="utf-8"))["report-path"] == str(
        report_file)


def test_prior_dir_that_is_not_a_directory_is_refused(fixture_repo, tmp_path, capsys) -> None:
    code, _, err = run(capsys, "--config", str(fixture_repo["target"]), "report",
                       "--checkout", str(fixture_repo["c1"]), "--offline",
                       "--prior-dir", str(tmp_path / "missing"))
    assert code == 1  # bad input (the exit-code table)
    assert "--prior-dir" in err and "is not a directory" in err


def test_unchanged_tree_has_an_empty_delta(sequence) -> None:
    """#22 defect 2, S-0a: a prior whose head is HEAD is the baseline (never a commit
    picked by date, which on main is not ordered): nothing upstream is re-derived."""
    r3, r4 = sequence["R3"], sequence["R4"]
    assert r4["head"] == r3["head"]
    assert r4["baseline"]["commit"] == r4["head"]
    assert r4["baseline"]["source"] == "prior report head"
    assert r4["upstream_commits"] == []
    assert not [i for i in r4["items"] if i["section"] == "S-1" and i["kind"] != "all_clear"]
    # No match: the night the tree moved, the window is the prior's head .. HEAD.
    r1, r2 = sequence["R1"], sequence["R2"]
    assert r2["baseline"]["commit"] == r1["head"] != r2["head"]
    assert r2["upstream_commits"]


def test_an_unchanged_action_item_is_not_posted_a_fourth_time(sequence) -> None:
    """#22, S-7: an action item posted unchanged in the three newest reports is kept in
    the block (still open, still tracked) but counted in one line, not repeated."""
    r3, r4, r5 = sequence["R3"], sequence["R4"], sequence["R5"]
    shown3 = [i for i in r3["items"] if i["kind"] == "carried" and not i["muted"]]
    assert shown3, "the third report still shows carried items"
    muted4 = {i["id"] for i in r4["items"] if i["muted"]}
    assert muted4 and muted4 <= {i["id"] for i in shown3}
    assert all(i["kind"] == "carried" for i in r4["items"] if i["muted"])
    for i in r4["items"]:
        if i["muted"]:
            assert f"scout-item:{i['id']}" not in r4["markdown"]
    assert f"{len(muted4)} action item(s) unchanged in the last three reports" \
        in r4["markdown"]
    # Still known the night after: muted again, never "resolved" or new.
    assert muted4 <= {i["id"] for i in r5["items"] if i["muted"]}
    assert not [i for i in r5["resolved"] if i["id"] in muted4]
    block = embedded.extract(r4["markdown"])
    assert {i["id"] for i in block["items"] if i.get("muted")} == muted4


def test_handoff_skips_muted_items() -> None:
    from agentops.scout.publish import handoff_items

    items = [{"id": "a" * 12, "kind": "carried", "muted": True},
             {"id": "b" * 12, "kind": "carried"}, {"id": "c" * 12, "kind": "action"}]
    assert [i["id"] for i in handoff_items({"items": items})] == ["b" * 12, "c" * 12]


def test_a_report_runs_with_the_cyclic_collector_paused_and_restores_it(
        fixture_repo, monkeypatch, capsys) -> None:
    """The report pauses Python's cyclic collector while it builds (a third of its time
    on a large tree went to collections scanning the cached syntax trees) and leaves it
    as it found it, on success and on failure."""
    import gc

    from agentops.scout import report as report_module

    seen: list[bool] = []
    real = report_module.run_all

    def spy(inp):
        seen.append(gc.isenabled())
        return real(inp)

    monkeypatch.setattr(report_module, "run_all", spy)
    assert gc.isenabled()
    report(capsys, fixture_repo, "c1", "2026-03-02")
    assert seen == [False]
    assert gc.isenabled()

    def broken(inp):
        seen.append(gc.isenabled())
        raise RuntimeError("made-up failure inside an analysis")

    monkeypatch.setattr(report_module, "run_all", broken)
    code, _out, err = run(capsys, "--config", str(fixture_repo["target"]), "report",
                          "--checkout", str(fixture_repo["c1"]), "--offline", "--torch",
                          "none", "--date", "2026-03-02")
    assert code != 0 and "made-up failure" in err
    assert seen == [False, False]
    assert gc.isenabled()

    gc.disable()
    try:
        with report_module.collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # paused by the caller before: left paused
    finally:
        gc.enable()
