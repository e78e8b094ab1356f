"""benchmarks/postmortem_line_prints.py: judged spans survive a new transcription (#24, P-5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import postmortem_line_prints as lp

HEADER = "doc\tstart\tend\tcat\tstrength\n"

# A made-up write-up: title, then prose lines with blanks between (lines 3, 5, 7, 9, 11).
ORIGINAL = """# Outage of the widget queue

The widget queue stopped at noon.

It seems the cache node ran out of memory.

I pushed the config before the checks finished.

Teams should always stage config changes.

We restarted the node at 12:40.
"""

# The same source transcribed again: a line added before the prose, punctuation, case and
# spacing changed, one paragraph split in two, one judged line reworded.
RETRANSCRIBED = """# Outage of the widget queue

Posted by the on-call team.

The widget queue  stopped at noon

it SEEMS the cache node ran out of memory!

I pushed the config before the checks finished.
(Follow-up below.)

Teams should stage every config change.

We restarted the node at 12:40.
"""


def _set(tmp_path: Path, judged: list[str], second: list[str] | None = None) -> tuple[Path, Path]:
    set_dir = tmp_path / "data" / "set90"
    set_dir.mkdir(parents=True)
    (set_dir / "judged.tsv").write_text(HEADER + "".join(r + "\n" for r in judged),
                                        encoding="utf-8")
    if second is not None:
        (set_dir / "judged_second_reader.tsv").write_text(
            HEADER + "".join(r + "\n" for r in second), encoding="utf-8")
    (set_dir / "sources.tsv").write_text("doc\tkind\turl\tcompleteness\n", encoding="utf-8")
    texts = tmp_path / "texts"
    texts.mkdir()
    (texts / "w.md").write_text(ORIGINAL, encoding="utf-8")
    (texts / "clean.md").write_text("# t\n\nNothing judged here.\n", encoding="utf-8")
    return set_dir, texts


def _rows(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()[1:]]


def test_print_folds_case_punctuation_spacing_and_width() -> None:
    same = lp.line_print("it seems the node ran out")
    assert lp.line_print("It seems,  the NODE ran out!") == same
    assert lp.line_print("Ｉｔ seems") == lp.line_print("it seems")  # full-width letters
    assert lp.line_print("it seems the node ran out") != lp.line_print("the node ran out")
    assert lp.line_print("") is None and lp.line_print("  - * --- ") is None


def test_record_holds_no_text(tmp_path: Path) -> None:
    set_dir, texts = _set(tmp_path, ["w\t5\t5\tH\tline"])
    assert lp.main(["record", str(set_dir), str(texts)]) == 0
    prints = (set_dir / lp.PRINTS).read_text(encoding="utf-8")
    assert "memory" not in prints and "widget" not in prints.lower()
    rows = _rows(set_dir / lp.PRINTS)
    # Worded lines only: the title and five prose lines of w, title and one line of clean.
    assert [(d, n) for d, n, _ in rows] == [("clean", "1"), ("clean", "3"), ("w", "1"),
                                           ("w", "3"), ("w", "5"), ("w", "7"), ("w", "9"),
                                           ("w", "11")]


def test_restore_moves_spans_to_the_new_lines(tmp_path: Path, capsys) -> None:
    judged = ["w\t5\t5\tH\tline", "w\t7\t7\tB\tline", "w\t9\t9\tA\tline", "w\t3\t5\tB\t-"]
    set_dir, texts = _set(tmp_path, judged, second=["w\t7\t7\tB\tline", "w\t11\t11\tA\t-"])
    assert lp.main(["record", str(set_dir), str(texts)]) == 0
    new = tmp_path / "new"
    new.mkdir()
    (new / "w.md").write_text(RETRANSCRIBED, encoding="utf-8")
    (new / "clean.md").write_text("# t\n\nNothing judged here.\n", encoding="utf-8")
    out = tmp_path / "out"
    assert lp.main(["restore", str(set_dir), str(new), str(out)]) == 0
    rows = _rows(out / "set90" / "judged.tsv")
    # H moved 5 -> 7, B 7 -> 9, the two-line B span 3-5 -> 5-7; A (line 9) was reworded in
    # the new transcription, so it is dropped rather than pointed at unjudged words.
    assert [r[:4] for r in rows] == [["w", "7", "7", "H"], ["w", "9", "9", "B"],
                                     ["w", "5", "7", "B"]]
    assert rows[0][4] == "line"
    second = _rows(out / "set90" / "judged_second_reader.tsv")
    assert [r[:4] for r in second] == [["w", "9", "9", "B"], ["w", "14", "14", "A"]]
    assert (out / "set90" / "texts" / "w.md").read_text(encoding="utf-8") == RETRANSCRIBED
    assert (out / "set90" / "sources.tsv").is_file()
    report = capsys.readouterr().out
    assert "w: 5/6 lines matched" in report
    assert "judged.tsv: spans kept H 1/1, B 2/2, A 0/1" in report


def test_restore_counts_a_text_with_no_new_transcription(tmp_path: Path, capsys) -> None:
    set_dir, texts = _set(tmp_path, ["w\t5\t5\tH\tline"])
    lp.main(["record", str(set_dir), str(texts)])
    new = tmp_path / "new"
    new.mkdir()
    (new / "clean.md").write_text("# t\n\nNothing judged here.\n", encoding="utf-8")
    assert lp.main(["restore", str(set_dir), str(new), str(tmp_path / "out")]) == 0
    assert _rows(tmp_path / "out" / "set90" / "judged.tsv") == []
    assert not (tmp_path / "out" / "set90" / "texts" / "w.md").exists()
    report = capsys.readouterr().out
    assert "no new transcription: w" in report and "H 0/1" in report


def test_the_evaluation_reads_a_restored_set(tmp_path: Path) -> None:
    from benchmarks import postmortem_lint_eval as ev

    set_dir, texts = _set(tmp_path, ["w\t5\t5\tH\tline", "w\t7\t7\tB\tline"])
    lp.main(["record", str(set_dir), str(texts)])
    new = tmp_path / "new"
    new.mkdir()
    (new / "w.md").write_text(RETRANSCRIBED, encoding="utf-8")
    (new / "clean.md").write_text("# t\n\nNothing judged here.\n", encoding="utf-8")
    lp.main(["restore", str(set_dir), str(new), str(tmp_path / "out")])
    docs, spans = ev.read_sets(tmp_path / "out")
    assert set(docs) == {("set90", "w"), ("set90", "clean")}
    assert {(s.start, s.category) for s in spans} == {(7, "hedging"), (9, "blame")}


@pytest.mark.parametrize("case, needle", [
    ("no_prints", "no line prints"),
    ("bad_print", "line_prints.tsv:2: expected doc, line number"),
    ("exists", "already there"),
    ("bad_table", "judged.tsv:2: expected doc, start, end, cat"),
])
def test_restore_refuses_bad_input_and_writes_nothing(tmp_path: Path, capsys, case: str,
                                                      needle: str) -> None:
    set_dir, texts = _set(tmp_path, ["w\t5\t5\tH\tline"])
    lp.main(["record", str(set_dir), str(texts)])
    out = tmp_path / "out"
    if case == "no_prints":
        (set_dir / lp.PRINTS).unlink()
    elif case == "bad_print":
        (set_dir / lp.PRINTS).write_text("doc\tline\tprint\nw\tfive\tzz\n", encoding="utf-8")
    elif case == "exists":
        (out / "set90").mkdir(parents=True)
    else:
        (set_dir / "judged.tsv").write_text(HEADER + "w\t5\t5\tX\t-\n", encoding="utf-8")
    assert lp.main(["restore", str(set_dir), str(texts), str(out)]) == 2
    assert needle in capsys.readouterr().err
    leftovers = [p for p in out.rglob("*")] if out.exists() else []
    assert leftovers == ([out / "set90"] if case == "exists" else [])


def test_record_refuses_a_judged_text_it_does_not_have(tmp_path: Path, capsys) -> None:
    set_dir, texts = _set(tmp_path, ["gone\t3\t3\tB\t-"])
    assert lp.main(["record", str(set_dir), str(texts)]) == 2
    assert "judges gone with no text" in capsys.readouterr().err
    assert not (set_dir / lp.PRINTS).exists()
