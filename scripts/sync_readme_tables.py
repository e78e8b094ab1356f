#!/usr/bin/env python3
"""Rewrite the Inputs and Outputs tables of each skill's README section from its
``actions/<skill>/action.yml`` (and the root action's from ``action.yml``), so the
README says exactly what each action accepts.

    python scripts/sync_readme_tables.py           # rewrite README.md in place
    python scripts/sync_readme_tables.py --check   # exit 1 and name the stale table

tests/test_readme.py runs the check, so a changed input without its README row fails CI.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
# README section heading -> the action it documents.
SECTIONS = {
    "Triage": "actions/triage/action.yml",
    "Nightly bisect": "actions/nightly-bisect/action.yml",
    "Scout": "actions/scout/action.yml",
    "Postmortem": "actions/postmortem/action.yml",
    "The root action": "action.yml",
}


def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def inputs_table(action: dict) -> list[str]:
    rows = ["| input | required | default | description |", "|---|---|---|---|"]
    for name, spec in (action.get("inputs") or {}).items():
        default = spec.get("default")
        shown = f"`{_cell(default)}`" if default not in (None, "") else "—"
        rows.append(f"| `{name}` | {'yes' if spec.get('required') else 'no'} | {shown} | "
                    f"{_cell(spec.get('description', ''))} |")
    return rows


def outputs_table(action: dict) -> list[str]:
    rows = ["| output | description |", "|---|---|"]
    for name, spec in (action.get("outputs") or {}).items():
        rows.append(f"| `{name}` | {_cell(spec.get('description', ''))} |")
    return rows


def _replace_table(lines: list[str], start: int, end: int, heading: str,
                   table: list[str]) -> tuple[list[str], bool]:
    """Replace the first table under ``### heading`` within lines[start:end]."""
    try:
        h = next(i for i in range(start, end) if lines[i].strip() == f"### {heading}")
    except StopIteration as exc:
        raise SystemExit(f"README.md: section has no '### {heading}' heading") from exc
    t0 = next((i for i in range(h + 1, end) if lines[i].startswith("|")), None)
    if t0 is None:
        raise SystemExit(f"README.md: no table under '### {heading}'")
    t1 = t0
    while t1 < end and lines[t1].startswith("|"):
        t1 += 1
    changed = lines[t0:t1] != table
    return lines[:t0] + table + lines[t1:], changed


def sync(text: str) -> tuple[str, list[str]]:
    """The README with every table regenerated, and the names of the tables that changed."""
    lines = text.split("\n")
    stale: list[str] = []
    for title, action_path in SECTIONS.items():
        action = yaml.safe_load((ROOT / action_path).read_text(encoding="utf-8"))
        for heading, table in (("Inputs", inputs_table(action)),
                               ("Outputs", outputs_table(action))):
            start = next((i for i, ln in enumerate(lines) if ln == f"## {title}"), None)
            if start is None:
                raise SystemExit(f"README.md: no '## {title}' section")
            end = next((i for i in range(start + 1, len(lines))
                        if lines[i].startswith("## ")), len(lines))
            lines, changed = _replace_table(lines, start, end, heading, table)
            if changed:
                stale.append(f"{title} / {heading} (from {action_path})")
    return "\n".join(lines), stale


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true",
                   help="change nothing; exit 1 if a table differs from its action.yml")
    args = p.parse_args(argv)
    new, stale = sync(README.read_text(encoding="utf-8"))
    if args.check:
        for name in stale:
            print(f"README.md: stale table: {name}; run python scripts/sync_readme_tables.py",
                  file=sys.stderr)
        return 1 if stale else 0
    if stale:
        README.write_text(new, encoding="utf-8")
    print(f"README.md: {len(stale)} table(s) rewritten" if stale else "README.md: up to date")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
