"""Composite actions as the runner runs them (style practice 10).

Static: every ``action.yml`` / ``actions/*/action.yml`` passes ``actions.check_action``.
Dynamic: ``runner.run_action`` executes actions the way a job would (expressions,
``env:``-only inputs, ``GITHUB_OUTPUT``/``GITHUB_STEP_SUMMARY`` files, ``bash -e``),
proven here on fixture actions and used on the triage action when it exists.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import yaml

from tests.contract import actions, runner

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_REPO = Path(__file__).parent / "fixtures" / "actionrepo"
ECHO = FIXTURE_REPO / "actions" / "echo"
# What not to do: an input pasted into `run:`. Kept to prove the harness substitutes
# expressions into run like the runner, and that the contract check refuses it.
INJECTABLE = """\
name: agentops test fixture (injectable, must fail the contract)
description: What not to do.
inputs:
  name:
    description: Untrusted.
    required: true
runs:
  using: composite
  steps:
    - id: run
      shell: bash
      run: echo "hello ${{ inputs.name }}"
"""
PROJECT_ACTIONS = actions.discover(ROOT)
HOSTILE = ("Robert'); $(touch pwned) `touch pwned2` ${{ github.token }}\n"
           "::set-output name=greeting::owned\n::add-mask::x\n::stop-commands::tok\n"
           "@pytorch/pt2 </details><script>x</script> | cell \u202e\u2066")


# --- static contract --------------------------------------------------------------------

@pytest.mark.parametrize("action_yml", [*PROJECT_ACTIONS, ECHO / "action.yml"],
                         ids=[str(p.relative_to(ROOT)) for p in
                              [*PROJECT_ACTIONS, ECHO / "action.yml"]])
def test_action_contract(action_yml: Path) -> None:
    problems = actions.check_action(action_yml, display=str(action_yml.relative_to(ROOT)))
    assert not problems, "\n".join(problems)


def test_every_contract_mistake_is_reported_with_its_place() -> None:
    got = actions.check_action(FIXTURE_REPO / "actions" / "broken" / "action.yml",
                               display="broken/action.yml")
    assert got == [
        "broken/action.yml: steps[0]: uses: actions/checkout@v4 is not pinned to a full "
        "commit SHA",
        "broken/action.yml: steps[1]: local uses: ./actions/echo resolves against the "
        "caller's workspace; run the script by $GITHUB_ACTION_PATH instead",
        "broken/action.yml: steps[2] (run): run: contains '${{' (pass values through env:, "
        "never expressions in the script)",
        f"broken/action.yml: steps[2] (run): script $GITHUB_ACTION_PATH/../../scripts/missing.py "
        f"does not exist ({FIXTURE_REPO / 'scripts' / 'missing.py'})",
        "broken/action.yml: steps[2] (run): env AGENTOPS_UNUSED is set but nothing reads it "
        "(no \"AGENTOPS_UNUSED\" in the script or src/)",
        "broken/action.yml: steps[2] (run): env AGENTOPS_OTHER reads inputs.other, which is "
        "not declared",
        "broken/action.yml: steps[2] (run): env AGENTOPS_OTHER is set but nothing reads it "
        "(no \"AGENTOPS_OTHER\" in the script or src/)",
        "broken/action.yml: steps[3]: shell: must be bash (got None)",
        "broken/action.yml: input 'colour' must reach the script as env AGENTOPS_COLOUR: "
        "${{ inputs.colour }}",
        "broken/action.yml: input 'api-token' must reach the script as env AGENTOPS_API_TOKEN: "
        "${{ inputs.api-token }} (found SECRET)",
        "broken/action.yml: output 'verdict': step 'run' never writes 'verdict' "
        "(no set_output(\"verdict\") in its script or src/)",
        "broken/action.yml: output 'ghost' reads step 'nope', "
        "and no step of the action has that id",
        # Issue #13: echo.py also writes `event`, which this action never declares.
        "broken/action.yml: step 'run' writes output 'event' (echo.py:42) but the action "
        "does not declare it",
    ]


def test_env_name_is_upper_snake() -> None:
    assert actions.env_name("dry-run") == "AGENTOPS_DRY_RUN"
    assert actions.env_name("max-issues") == "AGENTOPS_MAX_ISSUES"
    assert actions.env_name("queue") == "AGENTOPS_QUEUE"


# --- the harness, on the fixture actions -----------------------------------------------

def test_echo_action_runs_like_a_job_and_untrusted_text_stays_inert(tmp_path) -> None:
    res = runner.run_action(ECHO, {"name": HOSTILE, "issue-title": HOSTILE, "shout": "false"},
                            workspace=tmp_path)
    assert res.ok, res.log
    # Inputs arrived byte-for-byte through env:, nothing was executed.
    assert res.outputs["greeting"] == f"hello {HOSTILE}"
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "pwned2").exists()
    assert res.outputs["event"] == "workflow_dispatch"
    assert res.outputs["python"] == sys.executable  # the simulated venv step
    assert [s.id for s in res.steps] == ["py", "venv", "run"]
    assert [s.simulated for s in res.steps] == [True, True, False]
    # The log: no line can start a workflow command.
    for line in res.log.splitlines():
        assert not line.startswith("::"), line
    assert "\u202e" not in res.log and "\u2066" not in res.log
    # The summary: one table row, HTML escaped, mention defused, pipes escaped.
    lines = res.summary.splitlines()
    assert lines[:2] == ["| name | title |", "|---|---|"]
    rows = lines[2:]
    assert len(rows) == 1 and rows[0].startswith("| hello") is False
    assert "</details>" not in res.summary and "<script>" not in res.summary
    assert "@pytorch/pt2" not in res.summary
    assert "\\| cell" in rows[0] and rows[0].count(" | ") == 1  # one cell boundary only


def test_flag_input_and_token_default_expression(tmp_path) -> None:
    res = runner.run_action(ECHO, {"name": "ada", "shout": "true"}, workspace=tmp_path,
                            event_name="schedule")
    assert res.ok, res.log
    assert res.outputs["greeting"] == "HELLO ADA"
    assert res.outputs["event"] == "schedule"


def test_script_failure_stops_the_action_with_an_annotation(tmp_path) -> None:
    res = runner.run_action(ECHO, {"name": ""}, workspace=tmp_path)
    assert res.failed_step == "run"
    assert res.steps[-1].returncode == 1  # ExitStatus.INPUT
    assert "::error title=echo.py failed::--name: required" in res.steps[-1].stderr
    assert res.outputs["greeting"] == ""


def test_required_and_unknown_inputs_are_refused_like_the_runner(tmp_path) -> None:
    with pytest.raises(runner.ActionError, match="Input required and not supplied: name"):
        runner.run_action(ECHO, {}, workspace=tmp_path)
    with pytest.raises(runner.ActionError, match=r"unexpected input\(s\) \['nmae'\]"):
        runner.run_action(ECHO, {"name": "x", "nmae": "y"}, workspace=tmp_path)


def test_expression_in_run_is_injected_exactly_as_the_runner_would(tmp_path) -> None:
    # Why the contract forbids `${{` in run: the harness, like the runner, pastes it
    # into the script, and the shell executes what an attacker wrote.
    # The action is written here, never shipped in the tree: no scanner or copy of the
    # repository meets an injectable action.yml.
    inj = tmp_path / "injectable"
    inj.mkdir()
    (inj / "action.yml").write_text(INJECTABLE)
    work = tmp_path / "work"
    work.mkdir()
    res = runner.run_action(inj, {"name": "x$(touch pwned)"}, workspace=work)
    assert res.ok and (work / "pwned").exists()
    assert any("run: contains '${{'" in p for p in actions.check_action(inj / "action.yml"))


# --- the harness's pieces ----------------------------------------------------------------

def _ctx(**inputs: str) -> runner.Contexts:
    ctx = runner.Contexts(inputs=inputs, github={"event_name": "schedule", "token": ""},
                          runner={"temp": "/tmp/rt"}, env={"X": "1"})
    ctx.data["steps"]["py"] = {"outputs": {"python-path": "/usr/bin/python3"}}
    return ctx


def test_expression_evaluation() -> None:
    ctx = _ctx(a="", b="bee")
    assert runner.evaluate("${{ inputs.a || 'dflt' }}-${{ inputs.b }}", ctx) == "dflt-bee"
    assert runner.evaluate("${{ steps.py.outputs.python-path }}", ctx) == "/usr/bin/python3"
    assert runner.evaluate("${{ runner.temp }}/x ${{ env.X }}", ctx) == "/tmp/rt/x 1"
    assert runner.evaluate("${{ steps.none.outputs.x }}", ctx) == ""
    assert runner.evaluate_condition("github.event_name == 'SCHEDULE'", ctx) is True
    assert runner.evaluate_condition("${{ failure() && github.event_name == 'schedule' }}",
                                     ctx) is False
    ctx.status_ok = False
    assert runner.evaluate_condition("failure() && github.event_name == 'schedule'", ctx)
    assert runner.evaluate_condition("inputs.b != ''", ctx) is False  # implied success()
    with pytest.raises(runner.ActionError, match="not supported"):
        runner.evaluate("${{ fromJSON(inputs.a) ?? 1 }}", ctx)


def test_output_file_parsing() -> None:
    text = "a=1\nmulti<<ghadelimiter_9\nline 1\nline=2\nghadelimiter_9\nb=x=y\n"
    assert runner.parse_file_commands(text) == {"a": "1", "multi": "line 1\nline=2", "b": "x=y"}
    with pytest.raises(runner.ActionError, match="never closed"):
        runner.parse_file_commands("m<<EOF\nunterminated\n")


# --- the project's own actions through the harness (run once the skills are merged) -------

def test_triage_action_plans_an_example_offline() -> None:
    action = ROOT / "actions" / "triage"
    assert (action / "action.yml").exists(), "actions/triage/action.yml is missing"
    examples = sorted((ROOT / "examples" / "triage" / "issues").glob("*.json"))
    assert examples, "no examples/triage/issues/*.json to plan"
    declared = yaml.safe_load((action / "action.yml").read_text())["inputs"]
    verb = next((n for n in ("command", "verb", "mode") if n in declared), None)
    file_input = next((n for n in ("issue-file", "issue-json", "file", "input", "path")
                       if n in declared), None)
    # selftest.yml plans the bundled examples through the action, so it needs an input
    # for the issue file (read as the default of `triage.py plan ISSUE.json`).
    assert verb and file_input, (
        f"actions/triage has no input for an offline issue file (inputs: {sorted(declared)}); "
        "add `issue-file`, passed as AGENTOPS_ISSUE_FILE and read by the plan verb")
    example = examples[0]
    res = runner.run_action(action, {verb: "plan", file_input: str(example.relative_to(ROOT))},
                            workspace=ROOT)
    assert res.ok, res.log
    issue = json.loads(example.read_text())
    plan = json.loads(res.steps[-1].stdout)
    assert plan["issue"] == issue["number"]
    assert re.fullmatch(r"[a-z_]+", plan["decision"])
