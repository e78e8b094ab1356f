"""Contract of actions/triage/action.yml, the root action.yml and the triage workflow
(style practices 10 and 15): inputs reach the script only as AGENTOPS_* env vars that
are its flag defaults, no expression inside `run:`, declared outputs are written, the
root dispatcher checks `skill` against a fixed list, least-privilege jobs."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from scripts import triage as cli

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "actions" / "triage" / "action.yml").read_text())
ROOT_ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
WORKFLOW_TEXT = (ROOT / ".github" / "workflows" / "triage.yml").read_text()
WORKFLOW = yaml.safe_load(WORKFLOW_TEXT)

# input -> (verb, argparse dest) that its AGENTOPS_* variable must be the default of
FLAG_OF = {
    "repo": ("run", "repo"),
    "dry-run": ("run", "dry_run"),
    "max-issues": ("sweep", "max_issues"),
    "queue": ("run", "queue"),
    "state-file": ("sweep", "state_file"),
    "plan-out": ("run", "plan_out"),
    "plan-in": ("run", "plan_in"),
    "snapshot-out": ("run", "snapshot_out"),
    "issue-file": ("plan", "issue_file"),
    "trusted-bots": ("run", "trusted_bots"),
}


def env_name(inp: str) -> str:
    return "GITHUB_TOKEN" if inp == "github-token" else "AGENTOPS_" + inp.upper().replace("-", "_")


def script_step(action: dict) -> dict:
    return action["runs"]["steps"][-1]


def test_no_expression_inside_any_run():
    for action in (ACTION, ROOT_ACTION):
        for step in action["runs"]["steps"]:
            assert "${{" not in step.get("run", ""), step
    for job in WORKFLOW["jobs"].values():
        for step in job["steps"]:
            assert "${{" not in step.get("run", ""), step


def test_every_input_is_passed_as_env_and_is_a_flag_default(monkeypatch):
    env = script_step(ACTION)["env"]
    for inp in ACTION["inputs"]:
        assert env.get(env_name(inp)) == f"${{{{ inputs.{inp} }}}}", inp
    # Secrets (the token, the signing key) are read from the environment only, never a
    # flag, which would show in the process list.
    assert set(FLAG_OF) | {"command", "issue", "github-token", "signing-key"} == set(
        ACTION["inputs"])
    values = {"repo": "own/er", "dry-run": "true", "max-issues": "7", "queue": "qdir",
              "state-file": "s.json", "plan-out": "p.json", "plan-in": "i.json",
              "snapshot-out": "snaps", "issue-file": "issue.json",
              "trusted-bots": "first-bot[bot]"}
    for inp, value in values.items():
        monkeypatch.setenv(env_name(inp), value)
    for inp, (verb, dest) in FLAG_OF.items():
        args = cli.build().parse_args([verb])
        got = getattr(args, dest)
        want = {"dry-run": True, "max-issues": 7}.get(inp, values[inp])
        assert got == want, inp


def test_commands_are_verbs_and_outputs_are_written():
    verbs = set(cli.build()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    assert {"run", "sweep", "plan"} <= verbs
    assert script_step(ACTION)["run"].endswith('scripts/triage.py" "$AGENTOPS_COMMAND"')
    live = (ROOT / "src" / "agentops" / "triage" / "live.py").read_text()
    for name, spec in ACTION["outputs"].items():
        assert spec["value"] == f"${{{{ steps.triage.outputs.{name} }}}}"
        assert f'set_output("{name}"' in live, name


def test_action_setup_steps_are_pinned_and_isolated():
    py, venv, _ = ACTION["runs"]["steps"]
    assert py["uses"] == "actions/setup-python@a26af69be951a213d495a4c3e4e4022e16d87065"
    assert py["with"]["update-environment"] is False
    assert venv["run"] == 'bash "$GITHUB_ACTION_PATH/../../scripts/setup_venv.sh"'


def _run_step(run: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-eo", "pipefail", "-c", run], check=False, text=True,
                          capture_output=True, env={**os.environ, **env}, timeout=30)


def test_triage_action_step_passes_the_command_only():
    step = script_step(ACTION)
    out = _run_step(step["run"], {"AGENTOPS_VENV_PYTHON": "echo",
                                  "GITHUB_ACTION_PATH": "/x/actions/triage",
                                  "AGENTOPS_COMMAND": "sweep"})
    assert out.stdout.strip() == "/x/actions/triage/../../scripts/triage.py sweep"


def test_root_action_dispatches_from_a_fixed_list_with_args_array():
    step = script_step(ROOT_ACTION)
    assert "uses" not in step and not any(
        "./actions" in str(s.get("uses", "")) for s in ROOT_ACTION["runs"]["steps"])
    assert set(ROOT_ACTION["inputs"]) == {"skill", "command", "args", "github-token"}
    base = {"AGENTOPS_VENV_PYTHON": "printf", "GITHUB_ACTION_PATH": "/a"}
    out = _run_step(step["run"].replace('"$AGENTOPS_VENV_PYTHON"', '"$AGENTOPS_VENV_PYTHON" '
                                        "'[%s]'"),
                    {**base, "AGENTOPS_SKILL": "triage", "AGENTOPS_COMMAND": "run",
                     "AGENTOPS_ARGS": "--repo\no/r $(touch /tmp/pwned)\n\n--dry-run\n"})
    assert out.returncode == 0, out.stderr
    assert out.stdout == "[/a/scripts/triage.py][run][--repo][o/r $(touch /tmp/pwned)][--dry-run]"
    out = _run_step(step["run"], {**base, "AGENTOPS_SKILL": "nightly-bisect",
                                  "AGENTOPS_COMMAND": "x", "AGENTOPS_VENV_PYTHON": "echo"})
    assert out.stdout.strip() == "/a/scripts/nightly_bisect.py x"
    for bad in ("triage/../../x", "../triage", "evil; rm -rf /", ""):
        out = _run_step(step["run"], {**base, "AGENTOPS_SKILL": bad, "AGENTOPS_COMMAND": "run"})
        assert out.returncode == 2 and "must be one of" in out.stdout


def test_workflow_triggers_filter_and_permissions():
    on = WORKFLOW[True] if True in WORKFLOW else WORKFLOW["on"]  # YAML 1.1 reads `on` as True
    assert on["issues"] == {"types": ["labeled"]}
    assert {"issues", "dry-run"} <= set(on["workflow_dispatch"]["inputs"])
    assert on["schedule"]
    assert WORKFLOW["permissions"] == {}
    jobs = WORKFLOW["jobs"]
    # actions: read — whether a github-actions[bot] comment is this workflow's (#21)
    assert jobs["plan"]["permissions"] == {"contents": "read", "issues": "read",
                                           "actions": "read"}
    assert jobs["apply"]["permissions"] == {"contents": "read", "issues": "write",
                                            "actions": "read"}
    assert jobs["apply"]["needs"] == "plan"
    cond = jobs["plan"]["if"]
    assert "github.event.label.name == 'oncall: distributed'" in cond
    assert "github.event.sender.type != 'Bot'" in cond
    for name in ("plan", "apply"):
        conc = jobs[name]["concurrency"]
        assert "github.event.issue.number" in conc["group"]
        assert conc["cancel-in-progress"] is False
    plan_steps = jobs["plan"]["steps"]
    triage = [s for s in plan_steps if str(s.get("uses", "")).startswith("./actions/triage")]
    assert triage and triage[0]["with"]["command"] == "plan"
    assert any("upload-artifact@" in str(s.get("uses")) for s in plan_steps)
    apply_steps = jobs["apply"]["steps"]
    assert any("download-artifact@" in str(s.get("uses")) for s in apply_steps)
    run = next(s for s in apply_steps if str(s.get("uses", "")).startswith("./actions/triage"))
    assert run["with"]["command"] == "run" and "plan-in" in run["with"]
    for job in jobs.values():
        for step in job["steps"]:
            if "checkout@" in str(step.get("uses")):
                assert step["with"]["persist-credentials"] is False
    # Every grant carries a comment saying why.
    for match in re.finditer(r"\n(\s+)permissions:\n", WORKFLOW_TEXT):
        before = WORKFLOW_TEXT[:match.start()].rstrip().splitlines()[-1]
        assert before.strip().startswith("#"), before


@pytest.mark.parametrize("path", ["actions/triage/action.yml", "action.yml",
                                  ".github/workflows/triage.yml"])
def test_third_party_actions_are_pinned_by_sha(path):
    text = (ROOT / path).read_text()
    for uses in re.findall(r"uses:\s*([^\s#]+)", text):
        if uses.startswith("./"):
            continue
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", uses), uses


def _readme_section(heading: str) -> str:
    """The README from `heading` to the next `## ` heading: one skill's section only."""
    readme = (ROOT / "README.md").read_text()
    assert f"\n{heading}\n" in readme, heading
    return readme.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]


def test_readme_usage_example_is_least_privilege():
    # The tables are tests/test_readme.py's (generated from action.yml).
    doc = _readme_section("## Triage")
    first = yaml.safe_load(doc.split("```yaml\n", 1)[1].split("```", 1)[0])
    job = first["jobs"]["triage"]
    assert first["permissions"] == {} and job["permissions"] == {"issues": "write"}
    assert job["steps"][0]["uses"] == "org/agentops/actions/triage@v1"
    assert set(job["steps"][0]["with"]) <= set(ACTION["inputs"])


def test_root_action_names_an_args_line_holding_a_flag_and_its_value():
    # Issue #25 item 3: `--repo o/r` on one line reached argparse as one odd token.
    step = script_step(ROOT_ACTION)
    base = {"AGENTOPS_VENV_PYTHON": "echo", "GITHUB_ACTION_PATH": "/a",
            "AGENTOPS_SKILL": "triage", "AGENTOPS_COMMAND": "run"}
    out = _run_step(step["run"], {**base, "AGENTOPS_ARGS": "--dry-run\n--repo o/r\n"})
    assert out.returncode == 2
    assert out.stdout.strip() == (
        "::error title=agentops::input 'args' line 2: --repo and its value are on one line; "
        "give one argument per line (--repo, then the value on the next line) or "
        "--repo=VALUE")
    # What is allowed stays allowed: --flag=value, and a value line with spaces.
    out = _run_step(step["run"], {**base, "AGENTOPS_ARGS":
                                  "--repo=o/r\n--repro-command\npython -m x --flag y\n-k a b\n"})
    assert out.returncode == 0, out.stdout
    assert out.stdout.strip() == ("/a/scripts/triage.py run --repo=o/r --repro-command "
                                  "python -m x --flag y -k a b")
