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
