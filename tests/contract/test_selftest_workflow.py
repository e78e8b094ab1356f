""".github/workflows/selftest.yml: its shape (least privilege, the failure issue only on
schedule, inputs that the actions declare) and its jobs, run offline through the
runner-like harness on this checkout (each once its action is merged)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.contract import runner

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "selftest.yml"
SPEC = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
# PyYAML reads the bare key `on` as True.
TRIGGERS = SPEC.get("on", SPEC.get(True))


def _local_uses() -> list[tuple[str, dict]]:
    return [(step["uses"], step.get("with") or {}) for job in SPEC["jobs"].values()
            for step in job.get("steps") or [] if str(step.get("uses", "")).startswith("./")]


def test_least_privilege_and_the_failure_issue() -> None:
    assert SPEC["permissions"] == {}
    assert "schedule" in TRIGGERS and "pull_request" in TRIGGERS
    for name, job in SPEC["jobs"].items():
        if name == "report-failure":
            assert job["permissions"] == {"issues": "write"}
            assert job["if"] == "failure() && github.event_name == 'schedule'"
            assert set(job["needs"]) == set(SPEC["jobs"]) - {"report-failure"}
            run = job["steps"][0]["run"]
            assert "gh issue create" in run and "${{" not in run
        else:
            assert job["permissions"] == {"contents": "read"}, name
        for step in job.get("steps") or []:
            assert "${{" not in str(step.get("run", "")), (name, step)


def test_every_action_is_selftested() -> None:
    used = {u for u, _ in _local_uses()}
    shipped = {f"./actions/{p.parent.name}" for p in ROOT.glob("actions/*/action.yml")}
    assert shipped <= used, f"not in selftest.yml: {sorted(shipped - used)}"


@pytest.mark.parametrize(("uses", "with_"), _local_uses(), ids=[u for u, _ in _local_uses()])
def test_with_keys_are_declared_inputs(uses: str, with_: dict) -> None:
    action = ROOT / uses / "action.yml"
    assert action.exists(), f"selftest.yml uses {uses}, which has no action.yml"
    declared = yaml.safe_load(action.read_text())["inputs"]
    assert set(with_) <= set(declared), (
        f"{uses}: selftest passes {sorted(set(with_) - set(declared))}, "
        f"the action declares {sorted(declared)}")


def _need(*paths: str) -> None:
    for p in paths:
        assert (ROOT / p).exists(), f"{p} is missing: the project ships it"


def test_postmortem_job_runs_offline() -> None:
    _need("actions/postmortem/action.yml", "examples/postmortem/tada-hang.facts.yml")
    res = runner.run_job(WORKFLOW, "postmortem", workspace=ROOT)
    assert res.ok, res.log[-3000:]


def test_scout_job_runs_offline() -> None:
    _need("actions/scout/action.yml", "examples/scout/make_repo.py")
    res = runner.run_job(WORKFLOW, "scout", workspace=ROOT)
    assert res.ok, res.log[-3000:]


def test_nightly_bisect_job_runs_offline() -> None:
    _need("actions/nightly-bisect/action.yml", "tests/bisect/server.py",
          "examples/nightly-bisect/results")
    res = runner.run_job(WORKFLOW, "nightly-bisect", workspace=ROOT)
    assert res.ok, res.log[-3000:]


def test_triage_job_plans_every_example_offline() -> None:
    _need("actions/triage/action.yml")
    listed = runner.run_job(WORKFLOW, "examples", workspace=ROOT)
    assert listed.ok, listed.log
    files = json.loads(listed.outputs["triage"])
    assert files == sorted(str(p.relative_to(ROOT))
                           for p in ROOT.glob("examples/triage/issues/*.json"))
    assert files, "no examples/triage/issues/*.json: the selftest would plan nothing"
    for f in files:
        res = runner.run_job(WORKFLOW, "triage", workspace=ROOT, matrix={"issue-file": f},
                             needs={"examples": listed.outputs})
        assert res.ok, f"{f}:\n{res.log[-3000:]}"
