"""benchmarks/judged_tables.py: the one strict reader of judged span tables (#24, P-5).

Every benchmark that reads judged.tsv goes through it, so a malformed row is refused with
the same file:line message everywhere instead of being skipped by one script."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import postmortem_judge_agreement as agree
from benchmarks import postmortem_lint_eval as ev
from benchmarks.judged_tables import JudgedTableError, Row, read_judged

HEADER = "doc\tstart\tend\tcat\tstrength\n"


def _table(path: Path, body: str) -> Path:
    path.write_text(HEADER + body, encoding="utf-8")
    return path


def test_rows_are_read_with_their_extra_cells_and_blank_lines_skipped(tmp_path: Path) -> None:
    path = _table(tmp_path / "j.tsv", "a\t3\t4\tB\tclear\n\nb\t7\t7\tA\n")
    assert read_judged(path) == [Row("a", 3, 4, "B", ("clear",)), Row("b", 7, 7, "A", ())]


@pytest.mark.parametrize(("body", "line", "says"), [
    ("a\t3\t4\tX\n", 2, "cat (H, B or A)"),
    ("a\t3\t4\n", 2, "cat (H, B or A)"),
    ("a\t3\t4\tH\nb\tthree\t4\tB\n", 3, "line numbers"),
    ("a\t5\t4\tH\n", 2, "start <= end"),
    ("a\t0\t1\tH\n", 2, "start <= end"),
    ("\t1\t1\tH\n", 2, "cat (H, B or A)"),
])
def test_a_malformed_row_names_file_and_line(tmp_path: Path, body: str, line: int,
                                             says: str) -> None:
    path = _table(tmp_path / "j.tsv", body)
    with pytest.raises(JudgedTableError) as err:
        read_judged(path)
    assert f"{path}:{line}:" in str(err.value) and says in str(err.value)


def test_a_table_without_its_header_is_refused_at_line_1(tmp_path: Path) -> None:
    path = tmp_path / "j.tsv"
    path.write_text("a\t1\t1\tH\n", encoding="utf-8")
    with pytest.raises(JudgedTableError, match=r"j\.tsv:1: expected the header"):
        read_judged(path)


def test_agreement_refuses_a_row_it_used_to_skip(tmp_path: Path, capsys) -> None:
    texts = tmp_path / "texts"
    texts.mkdir()
    (texts / "d.md").write_text("# t\n\nline\n", encoding="utf-8")
    good = _table(tmp_path / "a.tsv", "d\t3\t3\tH\n")
    bad = _table(tmp_path / "b.tsv", "d\t3\t3\tQ\n")
    assert agree.main([str(good), str(bad), str(texts)]) == 2
    assert f"{bad}:2:" in capsys.readouterr().err


def test_the_evaluation_stops_on_a_malformed_table_naming_it(tmp_path: Path) -> None:
    set_dir = tmp_path / "set1"
    (set_dir / "texts").mkdir(parents=True)
    (set_dir / "texts" / "d.md").write_text("# t\n\nline\n", encoding="utf-8")
    _table(set_dir / "judged.tsv", "d\t3\tx\tH\n")
    with pytest.raises(SystemExit, match=r"judged\.tsv:2: start and end must be line numbers"):
        ev.read_sets(tmp_path)
