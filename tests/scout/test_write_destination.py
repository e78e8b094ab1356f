"""Issue #21 item 6: a workflow never writes outside its own repository unless the
repository is named explicitly. The README's scout snippet, copied as is, must not
post on the built-in target's tracking issue (pytorch/torchtitan#2856); only this
repository's own workflow names it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from agentops.errors import ExitStatus
from scripts.scout import main as scout_main
from tests.scout.test_scout_publish import report_text

ROOT = Path(__file__).resolve().parents[2]
EXPR = re.compile(r"\$\{\{\s*vars\.\w+\s*\}\}")


def _readme_scout_workflow() -> dict:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("\n## Scout"):]
    section = section[:section.index("\n## ", 5)]
    block = re.search(r"### Usage\n\n```yaml\n(.*?)```", section, re.S)
    assert block, "the Scout section has no Usage workflow"
    return yaml.safe_load(block.group(1))


def _writing_steps(workflow: dict) -> list[dict]:
    return [s.get("with", {}) for job in workflow["jobs"].values()
            for s in job.get("steps", [])
            if "actions/scout" in str(s.get("uses", ""))
            and s.get("with", {}).get("command") in ("publish", "handoff")]


def test_the_readme_snippet_passes_issue_and_never_names_another_repository():
    steps = _writing_steps(_readme_scout_workflow())
    assert [s["command"] for s in steps] == ["publish", "handoff"]
    for step in steps:
        assert "issue" in step and "2856" not in str(step["issue"])
        assert "repo" not in step  # the workflow's own repository


@pytest.mark.parametrize("verb", ["publish", "handoff"])
def test_the_readme_snippet_copied_as_is_stops_and_names_the_input(tmp_path, capsys,
                                                                   monkeypatch, verb):
    """Run each writing step as the action would: its inputs as AGENTOPS_* env, an unset
    repository variable as an empty string, in someone else's repository."""
    [step] = [s for s in _writing_steps(_readme_scout_workflow()) if s["command"] == verb]
    report = tmp_path / "scout-report.md"
    report.write_text(report_text())
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_REPOSITORY", "someone/copied-it")
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")  # a request would fail (5)
    monkeypatch.setenv("GITHUB_TOKEN", "t")
    monkeypatch.setenv("AGENTOPS_PROJECT_TOKEN", "p")
    for key, value in step.items():
        if key in ("command", "report-file", "project-token"):
            continue
        monkeypatch.setenv(f"AGENTOPS_{key.upper().replace('-', '_')}",
                           EXPR.sub("", str(value)))
    monkeypatch.setenv("AGENTOPS_REPORT_FILE", str(report))
    capsys.readouterr()
    code = scout_main([verb])
    err = capsys.readouterr().err
    assert code == ExitStatus.USAGE, err
    assert "outside this workflow's repository someone/copied-it" in err
    assert "set the action's `issue` input" in err


def test_only_this_repositorys_own_workflow_names_the_built_in_tracking_issue():
    names = {}
    for path in sorted((ROOT / ".github" / "workflows").glob("*.yml")):
        workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
        for step in _writing_steps(workflow):
            names[(path.name, step["command"])] = (str(step.get("repo")), str(step.get("issue")))
    assert set(names) == {("nightly-scout.yml", "publish"), ("nightly-scout.yml", "handoff")}
    for repo, issue in names.values():
        # Named explicitly, and only for the built-in target (SCOUT_CONFIG unset).
        assert "vars.SCOUT_TRACKING_REPO" in repo and "'pytorch/torchtitan'" in repo
        assert "vars.SCOUT_TRACKING_ISSUE" in issue and "'2856'" in issue
        assert "vars.SCOUT_CONFIG == ''" in repo and "vars.SCOUT_CONFIG == ''" in issue
