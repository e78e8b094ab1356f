"""One strict reader of the judged tables of the post-mortem lint sets (#24, P-5).

A judged table (``judged.tsv``, ``judged_second_reader.tsv``) holds one judged span a row:
doc, start, end, cat (H, B or A), then optional cells (strength, ...). The evaluation, the
second-reader agreement, the line-print restore and the advocacy-places benchmarks all read
it; they share this reader so a malformed row is refused the same way everywhere, naming
the file and line, instead of being skipped by one script and counted by another.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CATEGORIES = {"H": "hedging", "B": "blame", "A": "advocacy"}
HEADER = ["doc", "start", "end", "cat"]


class JudgedTableError(ValueError):
    """A judged table that is not one: the message names the file and line."""


@dataclass(frozen=True)
class Row:
    doc: str
    start: int
    end: int
    cat: str  # H, B or A
    rest: tuple[str, ...] = ()  # cells after cat (strength, ...), kept as they are


def read_judged(path: Path) -> list[Row]:
    """Every row of one judged table; blank lines are skipped, anything else malformed is
    a JudgedTableError naming ``path`` and the line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise JudgedTableError(f"{path}: cannot read ({exc.__class__.__name__})") from None
    if not lines or lines[0].split("\t")[:4] != HEADER:
        raise JudgedTableError(f"{path}:1: expected the header doc, start, end, cat[, strength]")
    rows = []
    for n, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) < 4 or cells[3].strip() not in CATEGORIES or not cells[0].strip():
            raise JudgedTableError(f"{path}:{n}: expected doc, start, end, cat (H, B or A)")
        try:
            start, end = int(cells[1]), int(cells[2])
        except ValueError:
            raise JudgedTableError(f"{path}:{n}: start and end must be line numbers") from None
        if not 1 <= start <= end:
            raise JudgedTableError(f"{path}:{n}: a span runs from line 1 on, start <= end")
        rows.append(Row(cells[0].strip(), start, end, cells[3].strip(), tuple(cells[4:])))
    return rows
