"""Line prints of a gathered lint set, so its judgements outlive the transcription (#24, P-5).

A gathered set keeps its judgements in the repository (``judged.tsv``: doc, start, end, cat,
strength, with 1-based line numbers) and its texts only in a local cache, because the texts
are other people's words. The line numbers refer to one exact transcription. When that cache
is lost (a new machine), a new transcription of the same sources never has the same line
numbers: a title line, a dropped quote or a re-flowed paragraph shifts every line after it,
and the judged spans would point at the wrong sentences. Sets 31-33 and 34-44 were lost that
way: their tables remain, unreadable.

``record`` writes ``line_prints.tsv`` beside the set's tables: per text, each line that holds
a word, with a short hash of its words (case, punctuation, spacing and Unicode width
folded). The hashes carry no text. ``restore`` takes a new transcription, aligns its line
hashes with the recorded ones (longest matching runs, in order), and writes a set folder
the evaluation reads, with every judged span moved to its new line numbers. A span is kept
only when every worded line of it is matched, in order; otherwise it is dropped and counted,
so a restored set is never scored against sentences nobody judged.

    python benchmarks/postmortem_line_prints.py record SETDIR TEXTS
    python benchmarks/postmortem_line_prints.py restore SETDIR NEW_TEXTS OUT

``SETDIR`` is ``benchmarks/data/postmortem_lint_gathered/setNN``; ``TEXTS`` the folder of
``<doc>.md`` transcriptions. ``restore`` writes ``OUT/setNN/`` (``texts/``, the judged
tables moved, ``sources.tsv``) and prints, per text and in all, the lines matched and the
spans kept per category; it refuses to write over an existing folder. Exit 0 on success,
2 on bad input (the message names the file, the line and the fix); nothing is left half
written.
"""

from __future__ import annotations

import argparse
import csv
import difflib
import hashlib
import re
import shutil
import sys
import tempfile
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from judged_tables import CATEGORIES, JudgedTableError, Row, read_judged

PRINTS = "line_prints.tsv"
TABLES = ("judged.tsv", "judged_second_reader.tsv")
MAX_TEXT = 2_000_000  # bytes read per transcription
MAX_TEXTS = 2_000  # transcriptions read per set
PRINT_HEX = 12  # 48 bits: no collision expected among a set's few thousand lines
_WORD = re.compile(r"\w+")


class InputError(Exception):
    """Bad input: the message names the file, the line and the fix."""


def line_print(line: str) -> str | None:
    """The print of one line, or None for a line without a word (blank, rule, bullet)."""
    words = _WORD.findall(unicodedata.normalize("NFKC", line).casefold())
    if not words:
        return None
    return hashlib.sha256(" ".join(words).encode("utf-8")).hexdigest()[:PRINT_HEX]


def text_prints(text: str) -> list[tuple[int, str]]:
    """(1-based line number, print) of every worded line of a text, in order."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        p = line_print(line)
        if p is not None:
            out.append((number, p))
    return out


def _read_text(path: Path) -> str:
    with path.open("rb") as fh:
        data = fh.read(MAX_TEXT + 1)
    if len(data) > MAX_TEXT:
        raise InputError(f"{path}: larger than {MAX_TEXT} bytes; a transcription is a few KB, "
                         "check that the folder holds the set's texts")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start}); save the "
                         "transcription as UTF-8") from None


def _texts(folder: Path) -> dict[str, Path]:
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder; give the folder of <doc>.md texts")
    paths = sorted(folder.glob("*.md"))
    if not paths:
        raise InputError(f"{folder}: no <doc>.md text in it; give the folder of the set's "
                         "transcriptions")
    if len(paths) > MAX_TEXTS:
        raise InputError(f"{folder}: more than {MAX_TEXTS} texts; a set holds a few dozen")
    return {p.stem: p for p in paths}


def record(set_dir: Path, texts: Path) -> str:
    """Write ``set_dir/line_prints.tsv`` for the texts; the summary line to print."""
    if not set_dir.is_dir():
        raise InputError(f"{set_dir}: no such folder; give the set's folder under "
                         "benchmarks/data/postmortem_lint_gathered/")
    docs = _texts(texts)
    judged = _judged_docs(set_dir)
    missing = sorted(judged - set(docs))
    if missing:
        raise InputError(f"{set_dir / 'judged.tsv'}: judges {', '.join(missing[:5])} with no "
                         f"text in {texts}; record the prints from the transcriptions judged")
    rows = ["doc\tline\tprint"]
    lines = 0
    for doc, path in docs.items():
        for number, p in text_prints(_read_text(path)):
            rows.append(f"{doc}\t{number}\t{p}")
            lines += 1
    _write_atomic(set_dir / PRINTS, "\n".join(rows) + "\n")
    return f"{set_dir / PRINTS}: {len(docs)} texts, {lines} worded lines"


def _judged_docs(set_dir: Path) -> set[str]:
    docs: set[str] = set()
    for name in TABLES:
        path = set_dir / name
        if path.is_file():
            docs |= {row.doc for row in _read_table(path)}
    return docs


def _write_atomic(path: Path, content: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with open(fd, "w", encoding="utf-8") as fh:
            fh.write(content)
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read_table(path: Path) -> list[Row]:
    try:
        return read_judged(path)
    except JudgedTableError as exc:
        raise InputError(str(exc)) from None


def _read_prints(path: Path) -> dict[str, list[tuple[int, str]]]:
    if not path.is_file():
        raise InputError(f"{path}: no line prints; they are written by `record` when the set "
                         "is gathered, and a set without them cannot be restored")
    out: dict[str, list[tuple[int, str]]] = {}
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t")
        if next(reader, None) != ["doc", "line", "print"]:
            raise InputError(f"{path}:1: expected the header doc, line, print")
        for n, cells in enumerate(reader, start=2):
            if (len(cells) != 3 or not cells[1].isdigit()
                    or not re.fullmatch(f"[0-9a-f]{{{PRINT_HEX}}}", cells[2])):
                raise InputError(f"{path}:{n}: expected doc, line number, {PRINT_HEX} hex "
                                 "digits; write the file again with `record`")
            out.setdefault(cells[0], []).append((int(cells[1]), cells[2]))
    return out


def align(old: list[tuple[int, str]], new: list[tuple[int, str]]) -> dict[int, int]:
    """Old line number -> new line number for every old worded line matched in order."""
    matcher = difflib.SequenceMatcher(None, [p for _, p in old], [p for _, p in new],
                                      autojunk=False)
    moved: dict[int, int] = {}
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            moved[old[block.a + k][0]] = new[block.b + k][0]
    return moved


def move_span(row: Row, worded: list[int], moved: dict[int, int]) -> Row | None:
    """The span at its new lines, or None when a worded line of it was not matched."""
    inside = [n for n in worded if row.start <= n <= row.end]
    if not inside or any(n not in moved for n in inside):
        return None
    return Row(row.doc, moved[inside[0]], moved[inside[-1]], row.cat, row.rest)


@dataclass
class Restored:
    lines: dict[str, tuple[int, int]] = field(default_factory=dict)  # doc -> matched, recorded
    kept: dict[str, dict[str, list[int]]] = field(default_factory=dict)  # table -> cat -> [k, n]
    absent: list[str] = field(default_factory=list)  # recorded docs with no new text


def restore(set_dir: Path, new_texts: Path, out: Path) -> Restored:
    """Write ``out/<set>/`` from a new transcription; what was matched and kept."""
    recorded = _read_prints(set_dir / PRINTS)
    docs = _texts(new_texts)
    target = out / set_dir.name
    if target.exists():
        raise InputError(f"{target}: already there; give an empty OUT folder or remove it")
    result = Restored()
    moved: dict[str, dict[int, int]] = {}
    for doc, old in recorded.items():
        if doc not in docs:
            result.absent.append(doc)
            continue
        moved[doc] = align(old, text_prints(_read_text(docs[doc])))
        result.lines[doc] = (len(moved[doc]), len(old))
    tables: dict[str, list[Row]] = {}
    for name in TABLES:
        path = set_dir / name
        if not path.is_file():
            continue
        counts = {c: [0, 0] for c in CATEGORIES}
        kept = []
        for row in _read_table(path):
            counts[row.cat][1] += 1
            worded = [n for n, _ in recorded.get(row.doc, [])]
            new_row = move_span(row, worded, moved[row.doc]) if row.doc in moved else None
            if new_row is not None:
                counts[row.cat][0] += 1
                kept.append(new_row)
        tables[name] = kept
        result.kept[name] = counts
    out.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{set_dir.name}.", dir=out))
    try:
        (staging / "texts").mkdir()
        for doc in sorted(moved):
            shutil.copyfile(docs[doc], staging / "texts" / f"{doc}.md")
        for name, rows in tables.items():
            # The table's own header, so its later columns keep their names.
            lines = (set_dir / name).read_text(encoding="utf-8").splitlines()[:1]
            lines += ["\t".join((r.doc, str(r.start), str(r.end), r.cat, *r.rest))
                      for r in rows]
            (staging / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        if (set_dir / "sources.tsv").is_file():
            shutil.copyfile(set_dir / "sources.tsv", staging / "sources.tsv")
        staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return result


def _summary(result: Restored, set_name: str) -> list[str]:
    out = []
    for doc, (matched, total) in sorted(result.lines.items()):
        if matched < total:
            out.append(f"  {doc}: {matched}/{total} lines matched")
    matched = sum(m for m, _ in result.lines.values())
    total = sum(t for _, t in result.lines.values())
    out.append(f"{set_name}: {len(result.lines)} texts restored, {len(result.absent)} with no "
               f"new transcription; {matched}/{total} recorded lines matched")
    if result.absent:
        out.append("  no new transcription: " + ", ".join(sorted(result.absent)))
    for name, counts in result.kept.items():
        cells = ", ".join(f"{c} {k}/{n}" for c, (k, n) in counts.items())
        out.append(f"  {name}: spans kept {cells}")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="See the module docstring for what is kept and why.")
    sub = p.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="write SETDIR/line_prints.tsv from the judged texts")
    rec.add_argument("set_dir", type=Path)
    rec.add_argument("texts", type=Path)
    res = sub.add_parser("restore", help="write OUT/<set>/ from a new transcription")
    res.add_argument("set_dir", type=Path)
    res.add_argument("new_texts", type=Path)
    res.add_argument("out", type=Path)
    args = p.parse_args(argv)
    try:
        if args.command == "record":
            print(record(args.set_dir, args.texts))
        else:
            result = restore(args.set_dir, args.new_texts, args.out)
            print("\n".join(_summary(result, args.set_dir.name)))
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: {exc.filename or ''}: {exc.strerror}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
