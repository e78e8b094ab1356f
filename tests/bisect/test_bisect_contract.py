"""action.yml and the workflow against the script: inputs ↔ env ↔ argparse, outputs
↔ what the script writes, no expression inside `run:`, the repro only through env."""

from __future__ import annotations

from pathlib import Path

import yaml

from scripts.nightly_bisect import build

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "actions/nightly-bisect/action.yml").read_text())
WORKFLOW = yaml.safe_load((ROOT / ".github/workflows/nightly-bisect.yml").read_text())
COMMAND = "".join(p.read_text() for p in sorted(
    (ROOT / "src/agentops/bisect/verbs").glob("*.py")))


def _verbs() -> dict:
    parser = build()
    return next(a for a in parser._actions if a.dest == "verb").choices


def _auto_options() -> set[str]:
    return {opt for a in _verbs()["auto"]._actions for opt in a.option_strings}


def test_every_input_reaches_the_script_through_env_only() -> None:
    steps = ACTION["runs"]["steps"]
    run = steps[-1]
    assert "${{" not in run["run"] and all("${{" not in s.get("run", "") for s in steps)
    env = run["env"]
    options = _auto_options()
    # Issue #13: `command` is the verb (an argument, never a flag or the repro), the
    # token is `github-token` as in every action.
    specials = {"github-token": "GITHUB_TOKEN"}
    for name in ACTION["inputs"]:
        var = specials.get(name, "AGENTOPS_" + name.upper().replace("-", "_"))
        assert env.get(var) == f"${{{{ inputs.{name} }}}}", name
        if name not in specials and name != "command":
            flag = "--" + {"results-dir": "results"}.get(name, name)
            assert flag in options, f"input {name} has no flag {flag}"
    assert run["run"].endswith('/nightly_bisect.py" "$AGENTOPS_COMMAND"')
    described = ACTION["inputs"]["command"]["description"]
    for verb in ("auto", "plan", "probe", "narrow", "range"):
        assert verb in _verbs() and verb in described


def test_agentops_runs_on_its_own_python_and_the_probe_on_the_asked_one() -> None:
    # Issue #13 item 4: `python:` below 3.11 must not be the interpreter of agentops.
    steps = {s["id"]: s for s in ACTION["runs"]["steps"]}
    assert steps["py"]["with"]["python-version"] == "3.11"
    assert steps["venv"]["env"]["AGENTOPS_SETUP_PYTHON"] == "${{ steps.py.outputs.python-path }}"
    assert steps["probe-py"]["with"]["python-version"] == "${{ inputs.python }}"
    assert steps["run"]["env"]["AGENTOPS_INTERPRETER"] == \
        "${{ steps.probe-py.outputs.python-path }}"


def test_declared_outputs_are_written_by_the_script() -> None:
    for name, spec in ACTION["outputs"].items():
        assert spec["value"] == f"${{{{ steps.run.outputs.{name} }}}}"
        assert f'set_output("{name}"' in COMMAND, f"the script never sets {name}"


def test_workflow_passes_the_repro_command_only_as_an_action_input() -> None:
    on = WORKFLOW[True] if True in WORKFLOW else WORKFLOW["on"]  # YAML 1.1: on -> True
    assert set(on["workflow_dispatch"]["inputs"]) == set(on["workflow_call"]["inputs"])
    assert {"good", "bad", "width", "repro-command", "index-url"} <= set(
        on["workflow_dispatch"]["inputs"])
    assert WORKFLOW["permissions"] == {}
    jobs = WORKFLOW["jobs"]
    probes = [j for j in jobs if j.startswith("probe-")]
    narrows = [j for j in jobs if j.startswith("narrow-")]
    assert len(probes) == len(narrows) >= 2
    for job in jobs.values():
        assert set(job["permissions"]) == {"contents"}
        for step in job["steps"]:
            assert "run" not in step  # decisions live in the script, not in YAML
            if "inputs.repro-command" in str(step):
                assert step["uses"] == "$/actions/nightly-bisect"
                assert step["with"]["command"] == "probe"
                assert step["with"]["github-token"] == ""  # the repro never sees a token
    for n in range(2, len(probes) + 1):
        # a round runs only while the previous one left more than one step
        assert f"needs.narrow-{n - 1}.outputs.done == 'false'" in jobs[f"probe-{n}"]["if"]
        matrix = jobs[f"probe-{n}"]["strategy"]["matrix"]
        assert matrix == f"${{{{ fromJSON(needs.narrow-{n - 1}.outputs.matrix) }}}}"


def _readme_section(heading: str) -> str:
    """The README from `heading` to the next `## ` heading: one skill's section only."""
    readme = (ROOT / "README.md").read_text()
    assert f"\n{heading}\n" in readme, heading
    return readme.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]


def test_readme_usage_example_is_least_privilege() -> None:
    # The tables are tests/test_readme.py's (generated from action.yml).
    doc = _readme_section("## Nightly bisect")
    first = doc.split("```yaml", 1)[1].split("```", 1)[0]
    jobs = yaml.safe_load(first)["jobs"]
    uses = [s.get("uses", "") for j in jobs.values() for s in j["steps"]]
    assert "org/agentops/actions/nightly-bisect@v1" in uses
    assert all("permissions" in j for j in jobs.values())
    assert yaml.safe_load(first)["permissions"] == {}
