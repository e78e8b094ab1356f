"""actions/scout/action.yml against the workflow that uses it: every input reaches the
script as AGENTOPS_<INPUT> (tokens as GITHUB_TOKEN / AGENTOPS_PROJECT_TOKEN), no
expression inside `run:` (the README tables are tests/test_readme.py's)."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "actions/scout/action.yml").read_text())
WORKFLOW = yaml.safe_load((ROOT / ".github/workflows/nightly-scout.yml").read_text())
TOKEN_ENV = {"github-token": "GITHUB_TOKEN", "project-token": "AGENTOPS_PROJECT_TOKEN"}


def _env_name(name: str) -> str:
    return TOKEN_ENV.get(name) or "AGENTOPS_" + name.upper().replace("-", "_")


def test_every_input_is_passed_through_env_and_no_expression_in_run():
    steps = ACTION["runs"]["steps"]
    script = steps[-1]
    assert "${{" not in script["run"] and "scripts/scout.py" in script["run"]
    for step in steps:
        assert "${{" not in step.get("run", "")
    for name in ACTION["inputs"]:
        assert script["env"][_env_name(name)] == "${{ inputs." + name + " }}"
    extra = set(script["env"]) - {_env_name(n) for n in ACTION["inputs"]}
    assert extra == {"AGENTOPS_VENV_PYTHON"}


def test_workflow_grants_least_privilege_and_wires_the_bisect():
    assert WORKFLOW["permissions"] == {}
    jobs = WORKFLOW["jobs"]
    assert jobs["report"]["permissions"] == {"contents": "read", "actions": "read",
                                             "issues": "read"}
    # actions: read — the run a report comment names is checked to be the scout's (#21)
    assert jobs["publish"]["permissions"] == {"issues": "write", "actions": "read"}
    assert jobs["handoff"]["permissions"] == {"issues": "write", "actions": "read"}
    for job in ("report", "publish", "handoff"):
        [step] = [s for s in jobs[job]["steps"] if s.get("id") == "scout"
                  or s.get("with", {}).get("command") == job]
        assert step["with"]["signing-key"] == "${{ secrets.SCOUT_SIGNING_KEY }}"
    handoff = next(s for s in jobs["handoff"]["steps"] if "with" in s
                   and s["with"].get("command") == "handoff")
    assert handoff["with"]["project-token"] == "${{ secrets.PROJECT_TOKEN }}"
    bisect = jobs["bisect"]
    assert bisect["uses"].endswith(".github/workflows/nightly-bisect.yml")
    assert "needs.report.outputs.ci-red == 'true'" in bisect["if"]
    # Issue #21: the bisection runs only a command from trusted configuration (a
    # repository variable), never the report job's output (log-derived values).
    assert bisect["with"]["repro-command"] == "${{ vars.SCOUT_REPRO_COMMAND }}"
    assert set(bisect["with"]) <= {"good", "bad", "repro-command", "width", "index-url",
                                   "python", "commit-source"}
    for job in jobs.values():
        for step in job.get("steps", []):
            if step.get("uses", "").startswith("actions/checkout"):
                assert step["with"]["persist-credentials"] is False
