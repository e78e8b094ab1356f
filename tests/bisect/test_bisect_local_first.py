"""A wrong or missing local input of `range` and `narrow` is said before the index is
read: exit 1 naming the flag and the fix, no request, no retry wait, no traceback.

Before, `range` without --good/--bad and `narrow` with a missing --results folder
first fetched the index (exit 5 after the retries when it was down), and `narrow`
without --results crashed (exit 70) once the index answered."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentops.errors import ExitStatus
from scripts.nightly_bisect import main
from tests.standin.scripted import Scripted, body

PAGE = (b'<html><body><a href="/files/torch-2.10.0.dev20260601%2Bcpu-cp312-cp312-'
        b'manylinux_2_28_x86_64.whl">w</a></body></html>')


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTOPS_HTTP_BACKOFF", "0.01")
    monkeypatch.setenv("AGENTOPS_HTTP_ATTEMPTS", "2")
    for name in ("AGENTOPS_GOOD", "AGENTOPS_BAD", "AGENTOPS_RESULTS_DIR", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)


PAIR = ["--good", "dev20260601", "--bad", "dev20260609"]


@pytest.mark.parametrize(("argv", "field", "fix"), [
    (["range"], "--good/--bad: both are required", "give the last good and the first bad"),
    (["range", "--good", "dev20260601"], "--good/--bad: both are required",
     "give the last good and the first bad"),
    (["narrow", "--bad", "dev20260609", "--results", "."], "--good/--bad: both are required",
     "give the last good and the first bad"),
    (["narrow", *PAIR], "--results: narrow needs the folder", "pass --results DIR"),
    (["narrow", *PAIR, "--results", "{tmp}/no-such-folder"], "--results:",
     "download their artifacts into this folder"),
    (["narrow", *PAIR, "--results", "{tmp}/empty"], "--results: no *.json result files",
     "each uploads one result file"),
])
def test_local_inputs_are_checked_before_the_index_is_read(
        argv: list[str], field: str, fix: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    with Scripted() as srv:
        srv.route("/simple/torch/", body(PAGE, content_type="text/html"))
        args = [a.replace("{tmp}", str(tmp_path)) for a in argv]
        code = main([*args, "--index-url", srv.url + "/simple", "--python", "3.12"])
        seen = list(srv.seen)
    err = capsys.readouterr().err
    assert code == ExitStatus.INPUT, err
    assert field in err, err
    assert "Fix: " in err and fix in err, err
    assert "Traceback" not in err
    assert seen == [], [s.path for s in seen]
