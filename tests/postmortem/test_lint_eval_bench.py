"""benchmarks/postmortem_lint_eval.py: figures only from rules that load (#24, P-5)."""

from __future__ import annotations

import json
from pathlib import Path

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
