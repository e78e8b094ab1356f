"""P-5 (#24, round 30, pm-probe13c): a battery of made-up sentences judged by hand
before the lint was run on them (``data/probe_battery.yaml``), families of agent x
predicate x mood. Each row is linted alone; the categories the lint reports must equal
the judged ones, except the categories a row lists under ``lint_differs`` (the lint's
known misses and false flags, left as they are). So the test fails when a kept reading
is taken away (its rows depart from the truth again) and when a listed departure is
mended without the list being updated."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from agentops.postmortem import datafiles, lint

RULES = datafiles.lint_rules()
SECTIONS = datafiles.sections()
CATEGORY = {"hedging": "H", "blame": "B", "advocacy": "A"}
BATTERY: dict[str, list[dict[str, Any]]] = yaml.safe_load(
    (Path(__file__).parent / "data" / "probe_battery.yaml").read_text("utf-8"))["families"]
ROWS = [(family, row) for family, rows in BATTERY.items() for row in rows]


def _categories(text: str, rules: tuple[lint.Rule, ...] = RULES) -> set[str]:
    return {CATEGORY[f.rule] for f in lint.lint(f"# T\n\n{text}\n", rules, sections=SECTIONS)
            if f.rule in CATEGORY}


def test_battery_shape() -> None:
    assert len(ROWS) >= 150
    texts = [row["text"] for _, row in ROWS]
    assert len(set(texts)) == len(texts)
    for _, row in ROWS:
        assert set(row["judged"]) <= set("HBA")
        assert set(row.get("lint_differs", [])) <= set("HBA")
    # Clean rows and flagged rows of each category are both there.
    for cat in "HBA":
        assert any(cat in row["judged"] for _, row in ROWS), cat
    assert sum(not row["judged"] for _, row in ROWS) >= 75


@pytest.mark.parametrize(("family", "row"), ROWS,
                         ids=[f"{f}-{i}" for i, (f, _) in enumerate(ROWS)])
def test_lint_agrees_with_the_judgement(family: str, row: dict[str, Any]) -> None:
    differs = _categories(row["text"]) ^ set(row["judged"])
    assert differs == set(row.get("lint_differs", [])), (family, row["text"])


def _without(rule_id: str, marker: str) -> tuple[lint.Rule, ...]:
    out = []
    for r in RULES:
        kept = tuple(u for u in r.unless if r.id != rule_id or marker not in u.pattern)
        assert r.id != rule_id or len(kept) < len(r.unless), marker
        out.append(lint.replace(r, unless=kept) if r.id == rule_id else r)
    return tuple(out)


@pytest.mark.parametrize(("rule_id", "marker", "family", "least"), [
    # The role as the experiencer or recipient of what the system was meant to show.
    ("blame", "been (?:paged|notified", "should_display", 10),
    ("hedging", "been (?:paged|notified", "should_display", 1),
    # The writer's epistemic aside in a discussion.
    ("blame", "am I|", "epistemic_aside", 2),
    # An operator's act offered as permitted (one battery row; kept on the pool's
    # evidence, outside the round's strict bar).
    ("hedging", "optionally |safely |instead )?be", "hedge_lookalike", 1),
])
def test_each_kept_reading_carries_battery_rows(rule_id: str, marker: str, family: str,
                                                least: int) -> None:
    bare = _without(rule_id, marker)
    cat = CATEGORY[rule_id]
    broken = [r["text"] for r in BATTERY[family]
              if cat not in r["judged"] and cat in _categories(r["text"], bare)]
    assert len(broken) >= least, broken
