"""Scout fixtures: a small git repository built by the tests (three dated commits,
examples/scout/make_repo.py), one clone per commit, and the ``--update-golden`` switch
for the report golden files under tests/golden/scout/."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from examples.scout import make_repo

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "scout"



@pytest.fixture(scope="session")
def fixture_repo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``{"c1": path, "c2": path, "c3": path, "target": yaml path}``: one clone per
    commit, so tests never move a shared work tree."""
    base = tmp_path_factory.mktemp("scout")
    src = base / "src"
    shas = make_repo.build(src)
    out: dict[str, Path] = {"target": base / "src-target.yaml"}
    for i, sha in enumerate(shas, 1):
        dest = base / f"c{i}"
        subprocess.run(["git", "clone", "-q", str(src), str(dest)], check=True)
        make_repo.checkout(dest, sha)
        out[f"c{i}"] = dest
    return out


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    try:
        return bool(request.config.getoption("--update-golden"))
    except ValueError:  # the option is only registered when this conftest loads early
        return False
