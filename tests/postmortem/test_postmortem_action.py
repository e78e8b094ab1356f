"""Contract of actions/postmortem/action.yml and .github/workflows/postmortem.yml:
inputs reach the script only as AGENTOPS_* env, no ``${{`` inside ``run:``, the
workflow passes only declared inputs and grants nothing at the top (the README tables
are tests/test_readme.py's)."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "actions" / "postmortem" / "action.yml").read_text())
WORKFLOW = yaml.safe_load((ROOT / ".github" / "workflows" / "postmortem.yml").read_text())
COMMENT = yaml.safe_load((ROOT / ".github" / "workflows" / "postmortem-comment.yml").read_text())
SCRIPT = (ROOT / "scripts" / "postmortem.py").read_text()
COMMANDS = (ROOT / "src" / "agentops" / "postmortem" / "commands.py").read_text()


def _env_name(inp: str) -> str:
    return "AGENTOPS_" + inp.upper().replace("-", "_")


def test_every_input_is_passed_as_env_and_read_by_the_script() -> None:
    step = ACTION["runs"]["steps"][-1]
    env = step["env"]
    for name in ACTION["inputs"]:
        # The token input is `github-token` in every action (issue #13).
        var = "GITHUB_TOKEN" if name == "github-token" else _env_name(name)
        assert env.get(var) == "${{ inputs." + name + " }}", name
        assert var in SCRIPT or var in COMMANDS or var in ("AGENTOPS_COMMAND", "GITHUB_TOKEN"), var
    assert '"$AGENTOPS_COMMAND"' in step["run"]


def test_no_expression_inside_run() -> None:
    for step in ACTION["runs"]["steps"]:
        assert "${{" not in step.get("run", "")
    for workflow in (WORKFLOW, COMMENT):
        for job in workflow["jobs"].values():
            for step in job["steps"]:
                assert "${{" not in step.get("run", "")


def test_outputs_are_written_by_the_script() -> None:
    for name in ACTION["outputs"]:
        assert f'set_output("{name}"' in COMMANDS, name


def test_workflow_permissions_and_inputs() -> None:
    assert WORKFLOW["permissions"] == {} and COMMENT["permissions"] == {}
    declared = set(ACTION["inputs"])
    for name, job in [*WORKFLOW["jobs"].items(), *COMMENT["jobs"].items()]:
        assert "permissions" in job, name
        for step in job["steps"]:
            if step.get("uses", "").startswith("./actions/postmortem"):
                assert set(step.get("with", {})) <= declared, (name, step.get("with"))
    assert WORKFLOW["jobs"]["publish"]["environment"] == "postmortem-publish"
    # Only the publish jobs see the JIRA secrets.
    text = (ROOT / ".github" / "workflows" / "postmortem.yml").read_text()
    draft = yaml.safe_dump(WORKFLOW["jobs"]["draft"])
    assert "JIRA_API_TOKEN" not in draft and text.count("secrets.JIRA_API_TOKEN") == 2


def test_comment_path_authorizes_before_any_secret() -> None:
    steps = COMMENT["jobs"]["publish-by-comment"]["steps"]
    kinds = [s.get("with", {}).get("command") or s.get("uses", "").split("@")[0]
             for s in steps]
    assert kinds == ["actions/checkout", "authorize", "actions/download-artifact", "publish"]
    assert "secrets" not in yaml.safe_dump(steps[:3])
    assert steps[3]["with"]["approved-by"] == "${{ steps.authorize.outputs.approved-by }}"
