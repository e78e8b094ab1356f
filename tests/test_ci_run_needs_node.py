"""`.ci/run` installs its contract-test fixtures with npm (issue #25 item 8): without
node or npm the step stops with exit 1 and says what is missing and why, instead of
letting the contract tests skip. No network: both cases stop before any install."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / ".ci" / "npm-fixtures"


def _bin(tmp_path: Path, *, node: bool) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    for tool in ("dirname",):
        os.symlink(shutil.which(tool) or f"/usr/bin/{tool}", folder / tool)
    if node:  # a node that knows no package: the fixtures look absent, npm is next
        (folder / "node").write_text("#!/bin/sh\nexit 1\n")
        (folder / "node").chmod(0o755)
    return folder


@pytest.mark.parametrize(("node", "missing"), [(False, "node"), (True, "npm")])
def test_without_node_or_npm_the_fixture_step_fails_saying_so(
        tmp_path: Path, node: bool, missing: str) -> None:
    env = {"PATH": str(_bin(tmp_path, node=node)), "HOME": str(tmp_path)}
    proc = subprocess.run(["/bin/bash", str(FIXTURES)], env=env, capture_output=True,
                          text=True, timeout=60, check=False)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith(f"error: {missing} not found: ")
    assert "needs Node.js (node and npm)" in proc.stderr and "network access" in proc.stderr
    proc = subprocess.run(["/bin/bash", str(FIXTURES)], env={**env, "GITHUB_ACTIONS": "true"},
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 1 and proc.stderr.startswith(f"::error::{missing} not found")


def test_ci_run_stops_at_the_fixture_step_and_the_readme_says_what_it_needs() -> None:
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "set -euo pipefail" in run and "bash .ci/npm-fixtures" in run
    testing = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Testing\n", 1)[1]
    for needed in ("Node.js", "npm", "network"):
        assert needed in testing, needed
