"""The README as a contract: the Quick start is exactly two commands (the offline demo,
then the test suite that .ci/run is), every skill's Inputs/Outputs tables are exactly
what its action.yml declares, and every relative link resolves."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from scripts import sync_readme_tables as tables

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    return README.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_quick_start_is_exactly_two_commands_and_ci_runs_the_second() -> None:
    blocks = re.findall(r"```(?:bash|sh)?\n(.*?)```", _section("Quick start"), re.S)
    commands = [ln for b in blocks for ln in b.splitlines() if ln.strip()
                and not ln.lstrip().startswith("#")]
    assert commands == ["bash examples/demo.sh", "bash .ci/run"]
    workflow = (ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8")
    assert "bash .ci/run" in workflow


def test_every_skill_table_matches_its_action() -> None:
    _, stale = tables.sync(README)
    assert stale == [], "run: python scripts/sync_readme_tables.py"


def test_a_changed_input_makes_the_table_stale() -> None:
    action = yaml.safe_load((ROOT / tables.SECTIONS["Scout"]).read_text(encoding="utf-8"))
    row = tables.inputs_table(action)[2]
    assert row in README
    _, stale = tables.sync(README.replace(row, row.replace(" | no | ", " | yes | ", 1), 1))
    assert stale == [f"Scout / Inputs (from {tables.SECTIONS['Scout']})"]


def test_every_input_of_every_action_is_in_its_section() -> None:
    # Independent of the generator: each declared input and output is named in the section.
    for title, path in tables.SECTIONS.items():
        action = yaml.safe_load((ROOT / path).read_text(encoding="utf-8"))
        section = _section(title)
        for name in [*(action.get("inputs") or {}), *(action.get("outputs") or {})]:
            assert f"| `{name}` |" in section, f"{title}: {name}"


def test_relative_links_resolve() -> None:
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for doc in docs:
        text = doc.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            assert (doc.parent / target).exists(), f"{doc.relative_to(ROOT)}: {target}"


# --- issue #25 item 4: a README snippet copied into a workflow does what its text says --

_OURS = re.compile(r"^org/agentops(?:/actions/([\w-]+))?@")


def _snippets() -> list[tuple[str, object]]:
    """Every YAML block of the README and docs/ that uses one of our actions."""
    out = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for block in re.findall(r"```ya?ml\n(.*?)```", doc.read_text(encoding="utf-8"), re.S):
            if "org/agentops" in block:
                out.append((f"{doc.name}: {block.splitlines()[0]}", yaml.safe_load(block)))
    return out


def _steps(doc: object) -> list[dict]:
    if isinstance(doc, list):
        return [s for s in doc if isinstance(s, dict)]
    jobs = (doc or {}).get("jobs") or {} if isinstance(doc, dict) else {}
    return [s for job in jobs.values() for s in job.get("steps") or [] if isinstance(s, dict)]


def _action(uses: str) -> dict | None:
    m = _OURS.match(uses)
    if not m:
        return None
    path = ROOT / "actions" / m.group(1) / "action.yml" if m.group(1) else ROOT / "action.yml"
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _commands_named(description: str, commands: set[str]) -> set[str]:
    return {c for c in commands if re.search(rf"\b{c}\b", description)}


def test_readme_snippets_pass_only_inputs_that_exist() -> None:
    snippets = _snippets()
    assert len(snippets) >= 5  # every skill's usage and the root action's
    for where, doc in snippets:
        for step in _steps(doc):
            action = _action(str(step.get("uses", "")))
            if action is None:
                continue
            unknown = set(step.get("with") or {}) - set(action["inputs"])
            assert not unknown, f"{where}: {step.get('uses')} has no input {sorted(unknown)}"


def test_every_choice_a_readme_workflow_offers_reaches_each_step_it_changes() -> None:
    # The post-mortem snippet offered `destination: docs` and published to JIRA anyway.
    checked = 0
    for where, doc in _snippets():
        if not isinstance(doc, dict):
            continue
        on = doc.get("on", doc.get(True)) or {}
        offered = ((on.get("workflow_dispatch") or {}) if isinstance(on, dict) else {}
                   ).get("inputs") or {}
        text = yaml.safe_dump(doc)
        for name, spec in offered.items():
            assert f"inputs.{name}" in text, f"{where}: input {name} is offered and unused"
            if (spec or {}).get("type") != "choice":
                continue
            for step in _steps(doc):
                action = _action(str(step.get("uses", "")))
                if action is None or name not in action["inputs"]:
                    continue
                verbs = set(re.findall(r"`(\w+)`|\b(\w+)(?=[:/,])",
                                       action["inputs"]["command"]["description"]))
                names = {v for pair in verbs for v in pair if v}
                said = _commands_named(action["inputs"][name]["description"], names)
                command = (step.get("with") or {}).get("command")
                if command in said:
                    checked += 1
                    assert f"inputs.{name}" in str((step.get("with") or {}).get(name, "")), \
                        f"{where}: the {command} step ignores the {name} choice"
    assert checked >= 3  # the post-mortem's two drafts and its publish
