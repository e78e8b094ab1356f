"""The nightly bisect through its actions, as a job runs them (issue #13): the root
action's `command` is the verb and never the repro command; the skill's own action
takes the verb as `command` and the repro as `repro-command`; the probe's interpreter
is checked before anything is installed; every output a verb writes is declared."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from agentops.errors import ExitStatus
from scripts.nightly_bisect import main
from tests.bisect.server import State, build_wheel, nightly_versions, serve
from tests.contract import runner

ROOT = Path(__file__).resolve().parents[2]
PY = f"{sys.version_info.major}.{sys.version_info.minor}"
# Prints the installed nightly, then fails: a probe that ran this records "fail" with
# exit 3 and the version in its log; one that ran the verb instead would find no
# command named "probe" (exit 127).
REPRO = 'python -c "import torch; print(\'repro on\', torch.__version__)"; exit 3'


@pytest.fixture
def index(tmp_path: Path) -> Iterator[str]:
    if PY not in ("3.11", "3.12"):
        pytest.skip("the fixture wheels are cp311/cp312")
    state = State(root=tmp_path / "wheels")
    state.root.mkdir()
    for i, v in enumerate(nightly_versions(6)):
        state.add("torch", build_wheel(state.root, v, python=f"cp{PY.replace('.', '')}",
                                       members=10, seed=i))
    with serve(state) as url:
        yield url


@pytest.fixture(autouse=True)
def _fast_http(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTOPS_HTTP_BACKOFF", "0.01")
    monkeypatch.setenv("AGENTOPS_HTTP_ATTEMPTS", "2")


def _result(folder: Path) -> dict:
    (path,) = folder.glob("*.json")
    return json.loads(path.read_text())


def test_root_action_runs_the_repro_command_not_the_verb(index: str, tmp_path: Path) -> None:
    # Bug 1: the root action passed its `command` (the verb, "probe") as
    # AGENTOPS_COMMAND, which the probe ran as the repro: "probe: command not found".
    results = tmp_path / "results"
    res = runner.run_action(ROOT, {
        "skill": "nightly-bisect", "command": "probe",
        "args": "\n".join(["--index-url", index, "--python", PY, "--version", "dev20260503",
                           "--results", str(results)]),
        "github-token": ""}, env={"AGENTOPS_REPRO_COMMAND": REPRO}, workspace=tmp_path)
    assert res.ok, res.log
    got = _result(results)
    assert got["status"] == "fail" and got["exit_code"] == 3, got
    assert "repro on 2.10.0.dev20260503+cpu" in got["log_tail"]
    assert "command not found" not in got["log_tail"]
    assert res.outputs["status"] == "fail"
    assert res.outputs["result-path"] == str(results / "2-10-0-dev20260503-cpu.json")


def test_skill_action_takes_the_verb_as_command_and_the_repro_as_repro_command(
        index: str, tmp_path: Path) -> None:
    results = tmp_path / "results"
    res = runner.run_action(ROOT / "actions" / "nightly-bisect", {
        "command": "probe", "repro-command": REPRO, "index-url": index, "python": PY,
        "version": "dev20260504", "results-dir": str(results), "commit-source": "wheel",
        "github-token": ""}, workspace=tmp_path)
    assert res.ok, res.log
    # The probe's interpreter came from its own setup-python step (simulated here).
    assert [s.id for s in res.steps] == ["py", "venv", "probe-py", "run"]
    got = _result(results)
    assert got["status"] == "fail" and "repro on 2.10.0.dev20260504+cpu" in got["log_tail"]
    assert res.outputs["result-path"].endswith("2-10-0-dev20260504-cpu.json")


def test_plan_through_the_action_sets_every_declared_output_and_no_probe_python(
        index: str, tmp_path: Path) -> None:
    res = runner.run_action(ROOT / "actions" / "nightly-bisect", {
        "command": "plan", "index-url": index, "python": PY, "good": "dev20260501",
        "bad": "dev20260506", "width": "2", "commit-source": "wheel", "github-token": ""},
        workspace=tmp_path)
    assert res.ok, res.log
    assert "probe-py" not in [s.id for s in res.steps]  # plan installs nothing
    written = res.steps[-1].outputs
    declared = yaml.safe_load((ROOT / "actions/nightly-bisect/action.yml").read_text())
    # Item 10: what the verb wrote is declared (rounds was not), and reaches the caller.
    assert set(written) <= set(declared["outputs"]), set(written) - set(declared["outputs"])
    assert res.outputs["rounds"] == written["rounds"] == "2"
    assert len(json.loads(res.outputs["matrix"])["include"]) == 2


def _fake_python(tmp_path: Path, version: str) -> str:
    exe = tmp_path / f"python{version}"
    exe.write_text(f"#!/bin/sh\necho {version}\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return str(exe)


def test_probe_refuses_a_python_mismatch_before_installing_anything(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Item 5: --python 3.12 on a 3.11 interpreter used to record `skip` (exit 0), and a
    # skipped nightly is never probed again. Nothing listens on the index URL: the
    # refusal comes before any request, install or result file.
    monkeypatch.setenv("AGENTOPS_REPRO_COMMAND", "exit 0")
    other = "3.12" if PY != "3.12" else "3.11"
    results = tmp_path / "results"
    code = main(["probe", "--index-url", "http://127.0.0.1:9/simple", "--python", other,
                 "--version", "dev20260503", "--results", str(results)])
    err = capsys.readouterr().err
    assert code == ExitStatus.INPUT
    assert f"the wheels are for CPython {other}, but the probe's interpreter " \
           f"{sys.executable} is {PY}" in err
    assert "--interpreter" in err and f"--python {PY}" in err
    assert not results.exists()
    fake = _fake_python(tmp_path, "3.9")
    code = main(["probe", "--index-url", "http://127.0.0.1:9/simple", "--python", "3.12",
                 "--interpreter", fake, "--version", "dev20260503", "--results",
                 str(results)])
    assert code == ExitStatus.INPUT
    assert f"{fake} is 3.9" in capsys.readouterr().err and not results.exists()


def test_probe_checks_its_output_folder_before_installing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTOPS_REPRO_COMMAND", "exit 0")
    results = tmp_path / "results.json"
    results.write_text("{}")
    code = main(["probe", "--index-url", "http://127.0.0.1:9/simple", "--python", PY,
                 "--version", "dev20260503", "--results", str(results)])
    assert code == ExitStatus.INPUT
    assert f"--results: {results} is a file; this writes into a folder" in \
        capsys.readouterr().err
    assert results.read_text() == "{}"


def test_the_retired_command_flag_names_its_successor(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", "--command", "python repro.py"]) == ExitStatus.USAGE
    assert "--command is not this flag: use --repro-command" in capsys.readouterr().err


def test_the_root_action_declares_every_skill_output() -> None:
    root = yaml.safe_load((ROOT / "action.yml").read_text())
    union = set()
    for path in (ROOT / "actions").glob("*/action.yml"):
        union |= set(yaml.safe_load(path.read_text())["outputs"])
    assert set(root["outputs"]) == union
    assert all(v["value"] == f"${{{{ steps.skill.outputs.{k} }}}}"
               for k, v in root["outputs"].items())


@pytest.mark.skipif(os.name == "nt", reason="bash")
def test_every_action_uses_one_venv_step_on_a_supported_python() -> None:
    # Item 4: one mechanism; agentops never runs on the probed Python.
    for path in [ROOT / "action.yml", *sorted((ROOT / "actions").glob("*/action.yml"))]:
        steps = {s.get("id"): s for s in yaml.safe_load(path.read_text())["runs"]["steps"]}
        assert steps["py"]["with"]["python-version"] == "3.11", path
        assert steps["venv"]["run"].endswith('scripts/setup_venv.sh"'), path
        assert steps["venv"]["env"] == {
            "AGENTOPS_SETUP_PYTHON": "${{ steps.py.outputs.python-path }}"}, path
