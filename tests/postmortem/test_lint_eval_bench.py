"""benchmarks/postmortem_lint_eval.py: figures only from rules that load (#24, P-5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentops.errors import DataError
from benchmarks import postmortem_lint_eval as bench


def _root(tmp_path: Path) -> Path:
    set_dir = tmp_path / "root" / "set1"
    (set_dir / "texts").mkdir(parents=True)
    (set_dir / "texts" / "d.md").write_text("# t\n\nWe might have lost data.\n",
                                            encoding="utf-8")
    (set_dir / "judged.tsv").write_text("doc\tstart\tend\tcat\tstrength\nd\t3\t3\tH\t-\n",
                                        encoding="utf-8")
    return tmp_path / "root"


def test_rules_that_do_not_load_stop_the_benchmark_with_exit_2(tmp_path: Path, capsys,
                                                               monkeypatch) -> None:
    def broken() -> None:
        raise DataError("postmortem/lint_rules.yaml", "rules[3].cues", "a made-up error")

    monkeypatch.setattr(bench.datafiles, "lint_rules", broken)
    assert bench.main([str(_root(tmp_path)), "--split", "all"]) == 2
    captured = capsys.readouterr()
    assert "rules[3].cues" in captured.err
    assert "hedging" not in captured.out


def test_rules_that_load_give_figures(tmp_path: Path, capsys) -> None:
    assert bench.main([str(_root(tmp_path)), "--split", "all", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["crashes"] == []
    assert result["categories"]["hedging"]["tp"] == 1
    assert result["categories"]["hedging"]["found"] == 1


@pytest.mark.parametrize(("kind", "form"), [
    ("issue thread", "thread"), ("comment thread (web page)", "thread"),
    ("pull request", "thread"), ("Forum post", "thread"), ("PR", "thread"),
    ("code review", "thread"), ("registry pull request", "thread"),
    ("status-page post-mortem", "write-up"), ("incident issue (formal write-up)", "write-up"),
    ("personal blog", "write-up"), ("talk slides", "write-up"),
    ("post-mortem (mailing-list message)", "write-up"),
    ("outage statement (forum post by the host)", "write-up"),
    ("pull request (release post-mortem checklist)", "thread"),
    ("post-incident review", "write-up"), ("docker image", "unknown"),
    ("spreadsheet", "unknown")])
def test_forms_are_read_from_the_sources_kind(kind: str, form: str) -> None:
    assert bench.form_of(kind) == form


def test_by_form_reports_write_ups_and_threads_apart(tmp_path: Path, capsys) -> None:
    root = _root(tmp_path)
    set_dir = root / "set1"
    # A second document: a thread whose hedged line the lint also flags.
    (set_dir / "texts" / "t.md").write_text("# t\n\nIt might be the cache.\n\nok\n",
                                            encoding="utf-8")
    (set_dir / "judged.tsv").write_text(
        "doc\tstart\tend\tcat\tstrength\nd\t3\t3\tH\t-\nt\t3\t3\tH\t-\n", encoding="utf-8")
    (set_dir / "sources.tsv").write_text(
        "doc\tkind\turl\tcompleteness\nd\tstatus-page post-mortem\tu1\tfull\n"
        "t\tissue thread\tu2\tfull\n", encoding="utf-8")
    assert bench.main([str(root), "--split", "all", "--json", "--by-form"]) == 0
    results = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    by = {r["form"]: r for r in results}
    assert set(by) == {"all", "write-up", "thread"}
    assert by["all"]["documents"] == 2
    assert by["write-up"]["documents"] == 1 and by["thread"]["documents"] == 1
    assert by["write-up"]["categories"]["hedging"]["spans"] == 1
    assert by["thread"]["categories"]["hedging"]["spans"] == 1
    assert by["all"]["categories"]["hedging"]["spans"] == 2
