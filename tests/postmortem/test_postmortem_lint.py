"""P-5: every lint rule runs its own match/no_match examples from lint_rules.yaml; a
hedged and a blaming draft fail at the right lines; the CLI prints file:line: rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentops.errors import DataError
from agentops.postmortem import datafiles, lint
from scripts import postmortem as script

ROOT = Path(__file__).resolve().parents[2]
RULES = datafiles.lint_rules()


def _examples(kind: str) -> list[Any]:
    out = []
    for rule in RULES:
        for i, example in enumerate(getattr(rule, kind)):
            out.append(pytest.param(rule, example, id=f"{rule.id}-{kind}-{i}"))
    return out


def _run(rule: lint.Rule, example: dict[str, Any]) -> list[lint.Finding]:
    if "draft" in example:
        lines = lint.split(example["draft"])
        return lint.apply_rule(rule, lines, facts=example.get("facts"), file="ex.md")
    section = example.get("section", "root_cause")
    from agentops.postmortem.model import TITLES

    text = f"### {TITLES[section]}\n\n{example['text']}\n"
    return lint.apply_rule(rule, lint.split(text), facts=None, file="ex.md")


def test_every_rule_has_examples_both_ways() -> None:
    assert {r.id for r in RULES} >= {"hedging", "blame", "advocacy", "missing-section",
                                     "lost-identifier", "verification-overclaim"}
    for rule in RULES:
        assert rule.match and rule.no_match, rule.id


@pytest.mark.parametrize(("rule", "example"), _examples("match"))
def test_rule_fires_on_match_examples(rule: lint.Rule, example: dict[str, Any]) -> None:
    findings = _run(rule, example)
    assert findings and all(f.rule == rule.id for f in findings), example


@pytest.mark.parametrize(("rule", "example"), _examples("no_match"))
def test_rule_silent_on_no_match_examples(rule: lint.Rule, example: dict[str, Any]) -> None:
    assert _run(rule, example) == [], example


def test_hedged_draft_fails_at_the_right_lines() -> None:
    path = ROOT / "examples" / "postmortem" / "hedged-draft.md"
    findings = lint.lint(path.read_text("utf-8"), RULES, file="hedged-draft.md")
    got = [(f.line, f.rule) for f in findings]
    assert got == [(8, "hedging"), (12, "hedging"), (16, "advocacy"), (20, "blame"),
                   (24, "verification-overclaim")], got


def test_blaming_draft(tmp_path: Path, capsys) -> None:
    text = ("### Summary\n\nA hang.\n\n### Root cause\n\n`f` skips the event.\n\n### Fix\n\n"
            "Removed.\n\n### Why it slipped\n\nCI did not cover it.\n"
            "@jdoe forgot to add the test.\n\n### Verification\n\n- Repro passes.\n")
    path = tmp_path / "blame.md"
    path.write_text(text, encoding="utf-8")
    assert script.main(["lint", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [f"{path}:16: blame: describe the bug and the process gap, not a "
                   "person ('@jdoe forgot')"]


def test_code_is_not_prose() -> None:
    text = ("### Root cause\n\n`maybe_launch()` runs.\n\n```\nRuntimeError: might be a race\n"
            "```\n")
    lexical = [r for r in RULES if r.kind == "lexicon"]
    assert lint.lint(text, lexical) == []
    assert [f.rule for f in lint.lint(text.replace("`maybe_launch()`", "maybe it"),
                                      lexical)] == ["hedging"]


def test_lost_identifier_and_untested_scope_with_facts(tmp_path: Path, capsys) -> None:
    golden = (ROOT / "tests" / "golden" / "postmortem" / "tada-hang.md").read_text("utf-8")
    broken = golden.replace("`scratchBuf`", "the buffer").replace("Not re-tested:", "Also:")
    path = tmp_path / "d.md"
    path.write_text(broken, encoding="utf-8")
    facts = str(ROOT / "examples" / "postmortem" / "tada-hang.facts.yml")
    assert script.main(["lint", str(path), "--facts", facts]) == 1
    out = capsys.readouterr().out
    assert "lost-identifier: a code identifier from the facts is missing from the draft: " \
           "scratchBuf" in out
    assert "verification-overclaim: verification claims more than the facts list: the " \
           "draft drops what was NOT re-tested" in out
    path.write_text(golden, encoding="utf-8")
    assert script.main(["lint", str(path), "--facts", facts]) == 0


def test_broken_rules_file_names_the_key(tmp_path: Path, monkeypatch) -> None:
    bad = tmp_path / "lint_rules.yaml"
    bad.write_text("version: 1\nrules:\n  - id: hedging\n    kind: lexicon\n    message: m\n"
                   "    patterns: ['(']\n    match: [{text: a}]\n    no_match: [{text: b}]\n",
                   encoding="utf-8")
    monkeypatch.setattr(datafiles, "LINT_RULES", bad)
    datafiles.lint_rules.cache_clear()
    try:
        with pytest.raises(DataError, match=r"rules\[0\]\.patterns\[0\]: not a valid regex"):
            datafiles.lint_rules()
        bad.write_text("version: 1\nrules:\n  - id: hedging\n    kind: lexicon\n    message: m\n"
                       "    match: [{text: a}]\n", encoding="utf-8")
        datafiles.lint_rules.cache_clear()
        with pytest.raises(DataError, match=r"rules\[0\]: missing required key: 'no_match'"):
            datafiles.lint_rules()
    finally:
        datafiles.lint_rules.cache_clear()


def test_validate_all_lists_shipped_files() -> None:
    assert datafiles.validate_all()[:2] == ["postmortem/schema.yaml",
                                            "postmortem/lint_rules.yaml"]
