"""benchmarks/postmortem_judge_agreement.py: a second reader scored against the first (#24)."""

from __future__ import annotations

from pathlib import Path

from benchmarks import postmortem_judge_agreement as agree

HEADER = "doc\tstart\tend\tcat\tstrength\n"


def _tsv(path: Path, rows: list[str]) -> Path:
    path.write_text(HEADER + "".join(r + "\n" for r in rows), encoding="utf-8")
    return path


def _texts(folder: Path) -> Path:
    folder.mkdir()
    # Title, then five prose lines with blank lines between (lines 3, 5, 7, 9, 11).
    body = "# t\n" + "".join(f"\nline {n}\n" for n in range(5))
    (folder / "d.md").write_text(body, encoding="utf-8")
    return folder


def test_second_reader_precision_recall_and_kappa(tmp_path: Path, capsys) -> None:
    texts = _texts(tmp_path / "texts")
    first = _tsv(tmp_path / "a.tsv", ["d\t3\t5\tB\t-", "d\t7\t7\tA\t-"])
    second = _tsv(tmp_path / "b.tsv", ["d\t5\t5\tB\t-", "d\t9\t9\tB\t-", "d\t4\t4\tH\t-"])
    assert agree.main([str(first), str(second), str(texts)]) == 0
    out = capsys.readouterr().out
    assert "5 prose lines" in out
    blame = next(line for line in out.splitlines() if line.startswith("blame"))
    # first blames lines 3 and 5 (4 is blank, not prose); second blames 5 and 9: 1 shared.
    assert blame.split()[1:4] == ["2", "2", "1"]
    assert blame.split()[4:6] == ["0.50", "0.50"]
    advocacy = next(line for line in out.splitlines() if line.startswith("advocacy"))
    assert advocacy.split()[1:4] == ["1", "0", "0"]
    # A judgement on a blank line is outside the prose lines and is not counted.
    hedging = next(line for line in out.splitlines() if line.startswith("hedging"))
    assert hedging.split()[1:4] == ["0", "0", "0"]


def test_kappa_is_one_for_identical_and_zero_at_chance() -> None:
    universe = {("d", n) for n in range(4)}
    same = {("d", 0), ("d", 1)}
    assert agree.kappa(same, same, universe) == 1.0
    # Both say yes to half the lines, agreeing on one of two: observed 0.5 = expected 0.5.
    assert agree.kappa({("d", 0), ("d", 1)}, {("d", 1), ("d", 2)}, universe) == 0.0


def test_a_missing_table_is_exit_2_naming_it(tmp_path: Path, capsys) -> None:
    texts = _texts(tmp_path / "texts")
    first = _tsv(tmp_path / "a.tsv", [])
    assert agree.main([str(first), str(tmp_path / "nope.tsv"), str(texts)]) == 2
    assert "nope.tsv" in capsys.readouterr().err
