"""Small fixture repositories for one analysis each: a real git repository with a
baseline commit (2026-03-01) and a HEAD commit (2026-03-05), read back through
``GitRepo`` exactly as the report verb reads a checkout.

  inp = minirepo.build(tmp_path, head={...}, base={...}, target="extra: yaml")
"""

from __future__ import annotations

import os
import subprocess
import textwrap
from pathlib import Path

from agentops.scout.config import load_target
from agentops.scout.gitrepo import GitRepo
from agentops.scout.livedata import LiveData
from agentops.scout.model import Baseline, Inputs

TARGET = """\
name: mini
repo: o/r
subproject: sub
tests_dir: sub/tests
watched_paths: [core/]
workflows: [.github/workflows/ci.yaml]
"""
SINCE = "2026-03-03"


def _git(repo: Path, *args: str, date: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "F", "GIT_AUTHOR_EMAIL": "f@example.com",
           "GIT_COMMITTER_NAME": "F", "GIT_COMMITTER_EMAIL": "f@example.com",
           "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date, "GIT_CONFIG_NOSYSTEM": "1",
           "HOME": str(repo)}
    subprocess.run(["git", "-C", str(repo), *args], env=env, check=True,
                   capture_output=True)


def _write(repo: Path, files: dict[str, str | None]) -> None:
    for rel, text in files.items():
        path = repo / rel
        if text is None:
            path.unlink(missing_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def target_file(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "target.yaml"
    path.write_text(TARGET + textwrap.dedent(extra), encoding="utf-8")
    return path


def build(tmp_path: Path, *, head: dict[str, str | None], base: dict[str, str] | None = None,
          target: str = "") -> Inputs:
    """Commit ``base`` (when given) then ``head`` on top of it (``None`` deletes a
    file); return the analyses' ``Inputs`` at HEAD with the baseline before
    2026-03-03."""
    repo = tmp_path / "repo"
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main", date="2026-03-01T10:00:00Z")
    if base is not None:
        _write(repo, dict(base))
        _git(repo, "add", "-A", date="2026-03-01T10:00:00Z")
        _git(repo, "commit", "-q", "-m", "base", date="2026-03-01T10:00:00Z")
    _write(repo, head)
    _git(repo, "add", "-A", date="2026-03-05T10:00:00Z")
    _git(repo, "commit", "-q", "--allow-empty", "-m", "head", date="2026-03-05T10:00:00Z")
    git = GitRepo(repo)
    base_sha = git.commit_before(SINCE)
    tgt = load_target(str(target_file(tmp_path, target)))
    return Inputs(target=tgt, date="2026-03-06", baseline=Baseline(SINCE, "--since", base_sha),
                  head=git.tree(git.head(), lambda p: True),
                  base=git.tree(base_sha, lambda p: p.endswith(".py")) if base_sha else None,
                  commits=tuple(git.log(SINCE, list(tgt.watched_paths))), live=LiveData())
