"""P-2: GitHub gathering replayed from cassettes in the real API's shape (issue,
pulls/{n}, pulls/{n}/commits, pulls/{n}/files, commits/{sha}/check-runs); every
interaction must be played. People's facts win; GitHub fills gaps, and says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentops.data import validate
from agentops.errors import InputError
from agentops.github.client import GitHubClient, RetryPolicy
from agentops.postmortem import gather
from agentops.postmortem.model import GATHERED_SCHEMA, CheckRun, Gathered
from scripts import postmortem as script

CASSETTE_SKILL = "postmortem"
ROOT = Path(__file__).resolve().parents[2]
TADA = ROOT / "examples" / "postmortem" / "tada-hang.facts.yml"
HEAD = "9c1e4b7a2f0d3e5c8b6a4d2f1e0c9b8a7d6e5f4c"


def _client() -> GitHubClient:
    return GitHubClient("test-token", policy=RetryPolicy(attempts=1))


@pytest.mark.vcr
def test_gather_issue_and_pr(all_played) -> None:
    client = _client()
    g = gather.gather(client, issue="org/platform#5700", pr="org/platform#5751")
    assert g.issue_ref == "org/platform#5700"
    assert g.error_lines == ("RuntimeError: Watchdog caught collective operation timeout: "
                             "WorkTada(OpType=ALLREDUCE) ran for 1800000 milliseconds",)
    assert g.code_blocks[0].startswith('Thread 0x7f3a (active): "MainThread"')
    assert g.pr_merged is True and g.merge_commit.startswith("3f2a1b0c")
    assert g.pr_body == "Fixes #5700. See JIRA-12345."
    assert g.head_sha == HEAD
    assert g.commits == ("a1b2c3d Remove single-stream fast path from "
                         "tadaLaunchPrepare/Kernel/Finish",
                         "9c1e4b7 Device-side NULL check on scratchBuf before the ring wait")
    assert g.files == ("src/tada/launch.cc", "src/tada/device/ring.cuh",
                       "tests/single_stream_ipc_publish_test.cpp")
    assert g.diff_identifiers == ("tadaLaunchPrepare", "ringWaitReady",
                                  "runSingleStreamIpcPublish")
    assert [(c.name, c.conclusion) for c in g.check_runs] == [
        ("build (cuda12.4)", "success"), ("unit-tests", "success"),
        ("gpu-multi (8xA100)", "success"), ("lint", "skipped")]
    assert client.counter.reads == 5
    assert Gathered.from_json(g.to_json()) == g  # the snapshot round-trips


def _gappy(tmp_path: Path) -> str:
    facts: dict[str, Any] = yaml.safe_load(TADA.read_text("utf-8"))
    for key in ("symptoms", "verification", "not_retested"):
        del facts[key]
    del facts["fix"]["refs"]
    path = tmp_path / "facts.yml"
    path.write_text(yaml.safe_dump(facts, sort_keys=False), encoding="utf-8")
    return str(path)


@pytest.mark.vcr
def test_draft_fills_gaps_from_github(all_played, tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "test-token")
    monkeypatch.setenv("AGENTOPS_RETRY_ATTEMPTS", "1")
    snapshot = tmp_path / "gathered.json"
    out = tmp_path / "d.md"
    assert script.main(["draft", _gappy(tmp_path), "--issue", "org/platform#5700",
                        "--pr", "org/platform#5751", "--gathered-out", str(snapshot),
                        "--out", str(out)]) == 0
    md = out.read_text("utf-8")
    # Symptoms from the issue, verification from the check runs, the fix ref from the PR.
    assert "- `RuntimeError: Watchdog caught collective operation timeout" in md
    assert "- `gpu-multi (8xA100)`: success" in md
    # The fix is linked in its section (by the owner's description, or a "Fix:" line).
    fix = md.split("### Fix", 1)[1].split("\n### ", 1)[0]
    assert "[org/platform#\u200b5751](<https://github.com/org/platform/issues/5751>)" in fix
    assert "merged as `3f2a1b0c9d8e`" in md
    assert "`src/tada/launch.cc`" in md
    assert "Identifiers in the diff: `tadaLaunchPrepare`, `ringWaitReady`" in md
    assert "- `a1b2c3d` Remove single-stream fast path" in md
    # Which facts came from where.
    assert "symptoms: GitHub issue [org/platform#\u200b5700]" in md
    assert "verification: GitHub check runs on `9c1e4b7`" in md
    # People's facts won: the mechanism and summary are the facts file's.
    assert "The single-stream fast path in `tadaLaunchPrepare`" in md
    # Nothing invented where GitHub cannot know: questions instead.
    err = capsys.readouterr().err
    assert "question for Alex (Tada team): Which configurations or workloads were NOT" in err
    assert "API calls: 5 (reads 5, writes 0, retries 0)" in err
    # The @mention from the issue body never pings (it is not an error line anyway).
    assert "@alex-tada" not in md
    # Offline replay of the saved snapshot gives the same draft.
    replay = tmp_path / "replay.md"
    assert script.main(["draft", _gappy(tmp_path), "--gathered", str(snapshot),
                        "--out", str(replay)]) == 0
    assert replay.read_bytes() == out.read_bytes()


@pytest.mark.vcr
def test_check_refuses_unmerged_pr_with_failing_checks(all_played, tmp_path: Path,
                                                       monkeypatch, capsys) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "test-token")
    assert script.main(["check", _gappy(tmp_path), "--pr", "org/platform#5760"]) == 3
    err = capsys.readouterr().err
    assert "missing: fix reference (org/platform#5760 is not merged" in err
    assert "missing: verification (verification is empty and check runs failed on 9c1e4b7: " \
           "gpu-multi (8xA100))" in err


def test_bad_ref_names_the_flag() -> None:
    with pytest.raises(InputError, match="--pr: expected OWNER/NAME#N"):
        gather.parse_ref("platform#5751", field="--pr")


def test_live_mode_without_token_is_a_clear_error(tmp_path: Path, capsys) -> None:
    assert script.main(["check", str(TADA), "--pr", "org/platform#5751"]) == 1
    assert "GITHUB_TOKEN: not set" in capsys.readouterr().err


def test_issue_body_parsing_is_inert() -> None:
    lines, blocks = gather.parse_issue_body(
        "::error::RuntimeError from @someone\n~~~\nTraceback (most recent call last)\n~~~\n"
        "ok line\n")
    assert lines == ("::error::RuntimeError from @\u200bsomeone",)
    assert blocks == ("Traceback (most recent call last)",)


@pytest.mark.parametrize(("doc", "said"), [
    ({"pr_merged": "no"}, 'pr_merged: expected boolean or null, got "no"'),
    ({"commits": "a1b2c3d fix"}, 'commits: expected array, got "a1b2c3d fix"'),
    ({"pr_title": 5}, "pr_title: expected string or null, got 5"),
    ({"issue": "org/platform#1"}, "issue: unknown key"),
    ({"check_runs": [{"name": "ci", "status": "completed"}]},
     "check_runs[0]: missing required key: 'conclusion'"),
])
def test_a_replayed_gathered_file_of_another_shape_is_refused(tmp_path: Path, capsys, doc,
                                                              said) -> None:
    """A made-up --gathered file of the wrong shape is exit 1 naming the key, before
    anything is drafted; before, it was half-read (pr_merged "no" counted as merged, a
    commits string listed letter by letter, unknown keys dropped in silence)."""
    snapshot = tmp_path / "gathered.json"
    snapshot.write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "draft.md"
    code = script.main(["draft", str(TADA), "--gathered", str(snapshot), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1, err
    assert f"--gathered: {snapshot}: {said}" in err
    assert "Fix: pass a file written by --gathered-out" in err
    assert not out.exists()


def test_the_gathered_schema_and_the_record_stay_in_step() -> None:
    full = Gathered(issue_ref="o/r#1", issue_title="t", error_lines=("e",), code_blocks=("c",),
                    pr_ref="o/r#2", pr_url="u", pr_title="p", pr_body="b", pr_merged=True,
                    merge_commit="m", head_sha="h", commits=("a x",), files=("f",),
                    diff_identifiers=("i",),
                    check_runs=(CheckRun(name="ci", status="completed", conclusion=None),))
    assert set(GATHERED_SCHEMA["properties"]) == set(Gathered.__dataclass_fields__)
    validate(full.to_json(), GATHERED_SCHEMA, name="round trip")
    validate(Gathered().to_json(), GATHERED_SCHEMA, name="empty")
    assert Gathered.from_json(full.to_json()) == full
