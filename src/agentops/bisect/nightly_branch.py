"""The upstream ``nightly`` branch as a second source of a nightly's commit: each of
its commits is titled ``YYYY-MM-DD nightly release (<main sha>)``, so one API call
(100 commits) covers about 50 days of nightlies, including ones the index dropped.

Adapter (``read_releases``: one GET through ``GitHubClient``) plus pure helpers
(``parse_releases``, ``cross_check``). Never writes.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentops.errors import DataError
from agentops.github.client import GitHubClient, RetryPolicy

TITLE_RE = re.compile(r"^(\d{4}-\d{2}-\d{2}) nightly release \(([0-9a-f]{7,40})\)\s*$")


@dataclass(frozen=True)
class NightlyRelease:
    """One commit of the nightly branch and the main-branch commit it was cut from."""

    date: dt.date
    nightly_sha: str
    main_sha: str


@dataclass(frozen=True)
class Commit:
    """The main-branch commit of one nightly, where it came from, and any doubt."""

    sha: str | None
    source: str  # version.py | nightly-branch | version.py+nightly-branch | none
    note: str = ""
    mismatch: bool = False


def parse_releases(commits: Iterable[Mapping[str, Any]]) -> list[NightlyRelease]:
    """Nightly releases from REST commit objects (``sha``, ``commit.message``); other
    commits on the branch (reverts, merges) are skipped."""
    out = []
    for c in commits:
        message = str((c.get("commit") or {}).get("message") or "")
        m = TITLE_RE.match(message.splitlines()[0] if message else "")
        if not m:
            continue
        try:
            date = dt.date.fromisoformat(m.group(1))
        except ValueError:
            continue
        out.append(NightlyRelease(date=date, nightly_sha=str(c.get("sha") or ""),
                                  main_sha=m.group(2)))
    return out


def read_releases(client: GitHubClient, repo: str, *, branch: str = "nightly") -> list[
        NightlyRelease]:
    """One GET of the branch's newest 100 commits."""
    body = client.read(f"/repos/{repo}/commits", {"sha": branch, "per_page": 100})
    if not isinstance(body, list):
        raise DataError(f"GET /repos/{repo}/commits", "", "expected a list of commits")
    return parse_releases(body)


def client_from_env(env: Mapping[str, str] | None = None) -> GitHubClient:
    """A client with ``GITHUB_TOKEN`` if set; reading a public repository's commits
    also works without one (at GitHub's lower unauthenticated rate)."""
    env = os.environ if env is None else env
    if env.get("GITHUB_TOKEN", "").strip():
        return GitHubClient.from_env(env)
    return GitHubClient("", api_url=env.get("GITHUB_API_URL") or None,
                        policy=RetryPolicy.from_env(env))


def _same(a: str, b: str) -> bool:
    # A title may carry an abbreviated sha; version.py carries the full one.
    return bool(a and b) and (a.startswith(b) or b.startswith(a))


def cross_check(date: dt.date | None, git_version: str | None,
                releases: Sequence[NightlyRelease] | None) -> Commit:
    """The main commit of a nightly from ``version.py``'s ``git_version`` and/or the
    nightly branch. A ``git_version`` that is a nightly-branch commit is mapped to the
    main commit in its title; a disagreement is reported, never resolved silently."""
    rel = next((r for r in releases or () if r.date == date), None) if date else None
    if not git_version:
        if rel:
            return Commit(rel.main_sha, "nightly-branch",
                          f"from the nightly branch title of {rel.date}")
        return Commit(None, "none", "no commit: not in version.py nor on the nightly branch"
                      if releases is not None else "no commit source")
    if releases is None:
        return Commit(git_version, "version.py")
    if rel and _same(git_version, rel.main_sha):
        return Commit(git_version if len(git_version) >= len(rel.main_sha) else rel.main_sha,
                      "version.py+nightly-branch")
    by_nightly = next((r for r in releases if _same(git_version, r.nightly_sha)), None)
    if by_nightly:
        note = (f"version.py holds nightly-branch commit {git_version[:12]}; reporting the "
                f"main commit from its title")
        if rel is not None and by_nightly is not rel:
            note += f" (the title is dated {by_nightly.date}, the version {date})"
        return Commit(by_nightly.main_sha, "version.py+nightly-branch", note,
                      mismatch=rel is not None and by_nightly is not rel)
    if rel:
        return Commit(git_version, "version.py",
                      f"mismatch: the nightly branch says {rel.main_sha[:12]} for {rel.date}",
                      mismatch=True)
    return Commit(git_version, "version.py",
                  f"{date} is not among the nightly branch's newest 100 commits" if date else "")
