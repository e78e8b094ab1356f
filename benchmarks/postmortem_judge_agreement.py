"""How far two people who judge the same write-ups agree (#24, P-5).

The lint is scored against one reader's judgements. Before asking a rule to reach a bar,
it helps to know how close a second careful reader gets to the first on the same texts:
that agreement is the ceiling a rule can be expected to reach on sets judged by someone
else. This script compares two ``judged.tsv`` files of the same texts line by line, per
category (H hedging, B blame, A advocacy), and prints the second reader's precision and
recall against the first, plus Cohen's kappa over every judged-or-not line of the texts.

    python benchmarks/postmortem_judge_agreement.py FIRST.tsv SECOND.tsv TEXTS_DIR

Only identifiers and line numbers are read from the tables; the texts are read to count
their prose lines (non-blank, not the title).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from judged_tables import CATEGORIES, JudgedTableError, read_judged


def read_lines(path: Path) -> dict[str, set[tuple[str, int]]]:
    """Judged (doc, line) pairs per category of one ``judged.tsv``."""
    out: dict[str, set[tuple[str, int]]] = {c: set() for c in CATEGORIES}
    for row in read_judged(path):
        out[row.cat].update((row.doc, line) for line in range(row.start, row.end + 1))
    return out


def prose_lines(texts: Path) -> set[tuple[str, int]]:
    """Every non-blank line after the title of every text: the lines a reader judged."""
    lines: set[tuple[str, int]] = set()
    for path in sorted(texts.glob("*.md")):
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if number > 1 and text.strip():
                lines.add((path.stem, number))
    return lines


def kappa(first: set, second: set, universe: set) -> float | None:
    """Cohen's kappa of two yes/no judgements over ``universe``."""
    n = len(universe)
    if not n:
        return None
    a, b = first & universe, second & universe
    both = len(a & b)
    neither = n - len(a | b)
    observed = (both + neither) / n
    expected = (len(a) * len(b) + (n - len(a)) * (n - len(b))) / (n * n)
    return None if expected == 1 else (observed - expected) / (1 - expected)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("first", type=Path, help="the reference reader's judged.tsv")
    parser.add_argument("second", type=Path, help="the second reader's judged.tsv")
    parser.add_argument("texts", type=Path, help="the texts/ folder both judged")
    args = parser.parse_args(argv)
    for path in (args.first, args.second):
        if not path.is_file():
            print(f"error: {path}: no such judged.tsv", file=sys.stderr)
            return 2
    if not args.texts.is_dir():
        print(f"error: {args.texts}: not a folder of texts", file=sys.stderr)
        return 2
    try:
        first, second = read_lines(args.first), read_lines(args.second)
    except JudgedTableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    universe = prose_lines(args.texts)
    print(f"{len(universe)} prose lines in {args.texts}")
    print(f"{'category':10} {'first':>6} {'second':>6} {'both':>5}   P(2nd|1st)  R(2nd|1st)  kappa")
    for cat, name in CATEGORIES.items():
        a, b = first[cat] & universe, second[cat] & universe
        both = len(a & b)
        p = both / len(b) if b else float("nan")
        r = both / len(a) if a else float("nan")
        k = kappa(a, b, universe)
        ks = "n/a" if k is None else f"{k:.2f}"
        print(f"{name:10} {len(a):6} {len(b):6} {both:5}   {p:10.2f}  {r:10.2f}  {ks:>5}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
