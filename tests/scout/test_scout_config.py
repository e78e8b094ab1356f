"""Scout targets as data: the shipped target validates; broken target files are
rejected with errors that name the file and the key; the CLI maps them to exit 1."""

from __future__ import annotations

import textwrap

import pytest

from agentops.errors import DataError, InputError
from agentops.scout import datafiles
from agentops.scout.config import builtin_names, load_target
from scripts import scout as cli

GOOD = """\
name: t
repo: o/r
subproject: sub
tests_dir: sub/tests
watched_paths: [core/]
workflows: [.github/workflows/ci.yaml]
"""


def test_shipped_target_validates_and_has_what_collect_needs() -> None:
    assert "torchtitan-graph-trainer" in builtin_names()
    assert datafiles.validate_all() == [
        "agentops/scout/targets/torchtitan-graph-trainer.yaml",
        "agentops/scout/targets/torchtitan-rl.yaml",
        "agentops/scout/targets/torchtitan-torchft.yaml",
        "agentops/scout/targets/torchtitan-transformers-backend.yaml"]
    t = load_target("torchtitan-graph-trainer")
    assert t.subproject == "torchtitan/experiments/graph_trainer"
    assert t.tracking_issue == {"repo": "pytorch/torchtitan", "number": 2856, "report_days": 7}
    assert t.board["number"] == 161 and t.board["project_id"]
    assert [s.name for s in t.symbols("fragile_surfaces", "classes")][:2] == [
        "Trainer.Config", "CompileConfig"]
    assert t.source.provenance()["sha256"]


@pytest.mark.parametrize(("patch", "message"), [
    ("colour: blue\n", "t.yaml: colour: unknown key"),
    ("fragile_surfaces: {classes: [{name: X}]}\n",
     "t.yaml: fragile_surfaces.classes[0]: missing required key: 'file'"),
    ("tracking_issue: {repo: o/r, number: zero}\n",
     "t.yaml: tracking_issue.number: expected integer, got \"zero\""),
    ("board: {owner: o, number: 1, colum: Backlog}\n", "t.yaml: board.colum: unknown key"),
    ("duplicate_logic: [{ours: [a.py]}]\n",
     "t.yaml: duplicate_logic[0]: missing required key: 'upstream'"),
    ("fragile_surfaces: {monkey_patches: [{name: MoE.forward}]}\n",
     "t.yaml: fragile_surfaces.monkey_patches[0]: missing required key: 'file'"),
    ("coverage: {model_flag: module}\n", "t.yaml: coverage.model_flag:"),
    ("coverage: {passes_file: 3}\n", "t.yaml: coverage.passes_file:"),
])
def test_invalid_target_names_file_and_key(tmp_path, patch, message) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(GOOD + patch, encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load_target(str(path))
    assert str(exc.value).startswith(f"{path.parent}/{message}")


def test_a_schema_error_says_where_the_keys_are_and_how_to_draft_a_target(
        tmp_path, capsys) -> None:
    """A target is written by a person: the error adds where its keys are listed and
    the verb that drafts a valid one (style.md 12), on the CLI's one line too."""
    path = tmp_path / "t.yaml"
    path.write_text(GOOD + "colour: blue\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load_target(str(path))
    assert exc.value.fix is not None
    assert "docs/scout.md (Targets as data)" in exc.value.fix and "scout.py init" in exc.value.fix
    code = cli.main(["--config", str(path), "report", "--checkout", str(tmp_path),
                     "--offline"])
    err = capsys.readouterr().err
    assert code == 1 and "colour: unknown key" in err and "Fix: the keys are listed" in err


def test_new_keys_of_issue_9_validate(tmp_path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(GOOD + "coverage: {passes_file: [a.py, b.py], pass_first_param: "
                           "fx.GraphModule, model_flag: --model}\n"
                           "fragile_surfaces: {monkey_patches: [{name: A.f, file: a.py}]}\n",
                    encoding="utf-8")
    t = load_target(str(path))
    assert t.section("coverage")["passes_file"] == ["a.py", "b.py"]
    assert [s.name for s in t.symbols("fragile_surfaces", "monkey_patches")] == ["A.f"]


def test_missing_required_key(tmp_path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(GOOD.replace("subproject: sub\n", ""), encoding="utf-8")
    with pytest.raises(DataError, match=r"t\.yaml: \(root\): missing required key: "
                                        r"'subproject'"):
        load_target(str(path))


def test_unknown_builtin_name() -> None:
    with pytest.raises(InputError, match="no built-in target 'nope'"):
        load_target("nope")


def test_cli_reports_config_error_with_exit_1(tmp_path, capsys) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(GOOD + textwrap.dedent("""\
        coverage:
          pass_tests: oops
    """), encoding="utf-8")
    code = cli.main(["report", "--config", str(path), "--checkout", str(tmp_path),
                     "--offline"])
    err = capsys.readouterr().err
    assert code == 1
    assert "t.yaml: coverage.pass_tests: expected array" in err
