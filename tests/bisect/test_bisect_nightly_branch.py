"""The nightly branch as a commit source: one REST call replayed from a cassette, the
title parsing, and the cross-check against torch/version.py."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentops.bisect import nightly_branch as nb
from agentops.github.client import GitHubClient
from scripts.nightly_bisect import main
from tests.bisect.server import State, build_wheel, serve

CASSETTE_SKILL = "bisect"


def sha(seed: str) -> str:
    return hashlib.sha1(seed.encode()).hexdigest()  # the cassette's ids are built alike


def main_of(day: str) -> str:
    return sha(f"main-{day}")


def nightly_of(day: str) -> str:
    return sha(f"nightly-{day}")


@pytest.mark.vcr
def test_read_releases_one_call(all_played) -> None:  # type: ignore[no-untyped-def]
    client = GitHubClient("")
    releases = nb.read_releases(client, "pytorch/pytorch")
    assert client.counter.total == 1
    assert len(releases) == 11  # the revert commit on the branch is not a release
    newest = releases[0]
    assert newest == nb.NightlyRelease(date=dt.date(2026, 5, 12),
                                       nightly_sha=nightly_of("2026-05-12"),
                                       main_sha=main_of("2026-05-12"))
    assert dt.date(2026, 5, 5) not in {r.date for r in releases}


def _releases(*days: str) -> list[nb.NightlyRelease]:
    return [nb.NightlyRelease(dt.date.fromisoformat(d), nightly_of(d), main_of(d))
            for d in days]


def test_cross_check_cases() -> None:
    rel = _releases("2026-05-02", "2026-05-03")
    d2, d3 = dt.date(2026, 5, 2), dt.date(2026, 5, 3)
    agree = nb.cross_check(d2, main_of("2026-05-02"), rel)
    assert (agree.sha, agree.source, agree.mismatch) == (main_of("2026-05-02"),
                                                         "version.py+nightly-branch", False)
    # version.py holds the nightly-branch commit: report the main one from the title
    mapped = nb.cross_check(d3, nightly_of("2026-05-03"), rel)
    assert mapped.sha == main_of("2026-05-03") and not mapped.mismatch
    assert "nightly-branch commit" in mapped.note
    # version.py names another day's nightly commit: mapped, and flagged
    other = nb.cross_check(d3, nightly_of("2026-05-02"), rel)
    assert other.sha == main_of("2026-05-02") and other.mismatch
    wrong = nb.cross_check(d3, "f" * 40, rel)
    assert wrong.sha == "f" * 40 and wrong.mismatch and "mismatch" in wrong.note
    only_branch = nb.cross_check(d3, None, rel)
    assert only_branch.sha == main_of("2026-05-03") and only_branch.source == "nightly-branch"
    assert nb.cross_check(dt.date(2026, 1, 1), None, rel).sha is None
    assert nb.cross_check(d3, "a" * 40, None) == nb.Commit("a" * 40, "version.py")
    # an abbreviated sha in a title still matches the full one in version.py
    short = [nb.NightlyRelease(d2, nightly_of("x"), main_of("2026-05-02")[:10])]
    assert nb.cross_check(d2, main_of("2026-05-02"), short).sha == main_of("2026-05-02")


def test_parse_releases_skips_other_commits() -> None:
    commits = [{"sha": "1" * 40, "commit": {"message": "2026-05-02 nightly release (" + "a" * 40
                                            + ")\n\nbody"}},
               {"sha": "2" * 40, "commit": {"message": "Merge branch 'main' into nightly"}},
               {"sha": "3" * 40, "commit": {"message": "2026-13-02 nightly release (abcdef0)"}},
               {"sha": "4" * 40}]
    assert nb.parse_releases(commits) == [
        nb.NightlyRelease(dt.date(2026, 5, 2), "1" * 40, "a" * 40)]


@pytest.fixture
def index(tmp_path: Path) -> Iterator[str]:
    state = State(root=tmp_path)
    # 05-02's wheel carries the main commit, 05-03's the nightly-branch commit.
    for version, git in (("2.10.0.dev20260502+cpu", main_of("2026-05-02")),
                         ("2.10.0.dev20260503+cpu", nightly_of("2026-05-03"))):
        state.add("torch", build_wheel(tmp_path, version, git_version=git, members=30))
    with serve(state) as url:
        yield url


@pytest.mark.vcr(ignore_localhost=True)
def test_range_cross_checks_wheel_and_branch(all_played, index: str,  # type: ignore[no-untyped-def]
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["range", "--index-url", index, "--python", "3.12", "--good", "dev20260502",
                 "--bad", "dev20260503", "--commit-source", "both", "--json"])
    out, err = capsys.readouterr()
    assert code == 0
    got = json.loads(out)
    assert got["compare_url"] == ("https://github.com/pytorch/pytorch/compare/"
                                  f"{main_of('2026-05-02')}...{main_of('2026-05-03')}")
    assert "nightly-branch commit" in got["bad"]["note"]
    assert "API calls: 1" in err


@pytest.mark.vcr
def test_resolve_from_the_branch_when_the_index_dropped_it(  # type: ignore[no-untyped-def]
        all_played, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["resolve", "--index-url", "http://127.0.0.1:9/unused", "--version",
                 "dev20260507", "--commit-source", "branch"])
    out, err = capsys.readouterr()
    assert code == 0, err
    got = json.loads(out)
    assert got["git_version"] == main_of("2026-05-07") and got["bytes_fetched"] == 0
    assert got["commit_source"] == "nightly-branch"
