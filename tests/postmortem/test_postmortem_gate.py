"""P-3: one refusal per missing input and per non-applicable kind, through the CLI
(exit 3, the name printed) and the pure gate; malformed files exit 1 naming the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from agentops.postmortem import commands, validate
from agentops.postmortem.model import CheckRun, Gathered, merge
from scripts import postmortem as script


def _write(tmp_path: Path, facts: dict[str, Any]) -> str:
    path = tmp_path / "facts.yml"
    path.write_text(yaml.safe_dump(facts, sort_keys=False), encoding="utf-8")
    return str(path)


def _drop(facts: dict[str, Any], dotted: str) -> None:
    *parents, last = dotted.split(".")
    node = facts
    for part in parents:
        node = node[part]
    del node[last]


def test_complete_facts_pass(tmp_path: Path, tada: dict[str, Any], capsys) -> None:
    assert script.main(["check", _write(tmp_path, tada)]) == 0
    assert "drafting may start for JIRA-12345" in capsys.readouterr().out


@pytest.mark.parametrize(("dotted", "name"), [
    ("repro", "reliable reproduction"),
    ("repro.steps", "reliable reproduction"),
    ("root_cause", "root cause"),
    ("root_cause.mechanism", "root cause"),
    ("fix.refs", "fix reference"),
    ("verification", "verification"),
])
def test_each_missing_input_refuses(tmp_path: Path, tada: dict[str, Any], capsys,
                                    dotted: str, name: str) -> None:
    _drop(tada, dotted)
    path = _write(tmp_path, tada)
    for verb in ("check", "draft"):
        assert script.main([verb, path]) == 3, verb
        err = capsys.readouterr().err
        assert f"missing: {name}" in err
        others = {"reliable reproduction", "root cause", "fix reference", "verification"} - {name}
        assert not any(f"missing: {o}" in err for o in others), err


def test_all_four_missing_listed(tmp_path: Path, capsys) -> None:
    path = _write(tmp_path, {"ticket": "JIRA-1", "owner": "Sam"})
    assert script.main(["check", path]) == 3
    err = capsys.readouterr().err
    for name in ("reliable reproduction", "root cause", "fix reference", "verification"):
        assert f"missing: {name}" in err


def test_intermittent_repro_is_not_reliable(tada: dict[str, Any]) -> None:
    tada["repro"]["reliability"] = "intermittent"
    gate = validate.check(merge(tada, None), hedge=commands.first_hedge)
    assert [m.split(" (")[0] for m in gate.missing] == ["reliable reproduction"]
    assert "intermittent" in gate.missing[0]


def test_hedged_mechanism_is_a_hypothesis(tada: dict[str, Any]) -> None:
    tada["root_cause"]["mechanism"] = "Probably a race between the two streams."
    gate = validate.check(merge(tada, None), hedge=commands.first_hedge)
    assert gate.missing and gate.missing[0].startswith("root cause (")
    assert "Probably" in gate.missing[0]


@pytest.mark.parametrize(("kind", "reason"), [
    ("outage", "outage: needs an incident report"),
    ("trivial", "trivial fix: the PR description is the record"),
])
def test_non_applicable_kind_refuses(tmp_path: Path, tada: dict[str, Any], capsys,
                                     kind: str, reason: str) -> None:
    tada["kind"] = kind
    path = _write(tmp_path, tada)
    assert script.main(["check", path]) == 3
    assert reason in capsys.readouterr().err
    assert script.main(["draft", path]) == 3
    captured = capsys.readouterr()
    assert reason in captured.err and captured.out == ""


def test_unmerged_pr_is_not_a_fix_reference(tada: dict[str, Any]) -> None:
    del tada["fix"]["refs"]
    g = Gathered(pr_ref="org/platform#5751", pr_merged=False, head_sha="a" * 40,
                 check_runs=(CheckRun("build", "completed", "success"),))
    gate = validate.check(merge(tada, g), hedge=commands.first_hedge)
    assert gate.missing == ("fix reference (org/platform#5751 is not merged: the fix has "
                            "not landed)",)


@pytest.mark.parametrize(("runs", "ok"), [
    ((CheckRun("build", "completed", "success"), CheckRun("lint", "completed", "skipped")), True),
    ((CheckRun("build", "completed", "success"), CheckRun("gpu", "completed", "failure")), False),
    ((CheckRun("build", "in_progress", None),), False),
    ((), False),
])
def test_check_runs_as_verification(tada: dict[str, Any], runs, ok: bool) -> None:
    del tada["verification"]
    g = Gathered(pr_ref="org/platform#5751", pr_merged=True, head_sha="b" * 40, check_runs=runs)
    gate = validate.check(merge(tada, g), hedge=commands.first_hedge)
    assert gate.ok is ok
    if not ok:
        assert gate.missing[0].startswith("verification (")


@pytest.mark.parametrize(("mutate", "key"), [
    (lambda f: f.update(kind="hotfix"), "kind"),
    (lambda f: f["repro"].update(reliability="sometimes"), "repro.reliability"),
    (lambda f: f.update(colour="red"), "colour"),
    (lambda f: f.pop("owner"), "owner"),
    (lambda f: f["verification"][0].update(checks="x"), "verification[0].checks"),
    (lambda f: f.update(ticket="12345"), "ticket"),
    (lambda f: f.update(action_items="nothing"), "action_items"),
    (lambda f: f["action_items"][1].pop("tracking"), "action_items[1]"),
])
def test_malformed_facts_exit_1_naming_the_key(tmp_path: Path, tada: dict[str, Any], capsys,
                                               mutate, key: str) -> None:
    mutate(tada)
    path = _write(tmp_path, tada)
    assert script.main(["check", path]) == 1
    err = capsys.readouterr().err
    assert f"facts.yml: {key}" in err or (key == "owner" and "missing required key: "
                                          "'owner'" in err), err


def test_ticket_mismatch_is_an_input_error(tmp_path: Path, tada: dict[str, Any], capsys) -> None:
    assert script.main(["check", _write(tmp_path, tada), "--ticket", "JIRA-9"]) == 1
    assert "--ticket: JIRA-9 does not match" in capsys.readouterr().err
