"""P-5 (#24, round 57, branch pm-fit23a; convention 7): the writer's or the team's own act
told after a word of regret that opens its sentence is blame though no fault word is
read ("Unfortunately we pointed the exporter at the live bucket"): the regret presents
the act as the cause or a departure. What befell the team, its detection, its response,
its beliefs and its plans are not acts of its own, and a third party's act is not the
writer's. Sentences are made up and run through the whole lint, so each test fails when
the reading is taken out of ``lint_rules.yaml``."""

from __future__ import annotations

import re

import pytest

from agentops.postmortem import datafiles, lint

RULES = datafiles.lint_rules()
SECTIONS = datafiles.sections()
BLAME = next(r for r in RULES if r.id == "blame")
REGRET = re.compile(r"\(\?:unfortunately\|regrettably\|embarrassingly")

POSITIVE = [
    "Unfortunately we pointed the exporter at the live bucket.",
    "Embarrassingly, I had typed the purge into the primary shell.",
    "Sadly, that evening we skipped the soak run.",
    "Regrettably, we left the debug flag on in the release image.",
    "Foolishly, I deleted the staging volume instead of the scratch one.",
]

NEGATIVE = [
    "Unfortunately we were unable to restore the snapshot.",
    "Sadly we lost a day of uploads.",
    "Unfortunately we noticed the alert only at noon.",
    "Unfortunately the vendor deleted the zone.",
    "Unfortunately we had to roll back the release.",
    "Unfortunately, we reverted the patch an hour later.",
    "Unfortunately we decided to wait for the vendor.",
    "Sadly I received no reply from the registrar.",
]


def _blamed(sentence: str, rules: tuple[lint.Rule, ...] = RULES) -> bool:
    text = f"# Incident\n\n## Root cause\n\n{sentence}\n"
    return any(f.rule == "blame" for f in lint.lint(text, rules, file="d", sections=SECTIONS))


def _without_regret() -> tuple[lint.Rule, ...]:
    kept = tuple(p for p in BLAME.patterns if not REGRET.search(p.pattern))
    assert len(kept) == len(BLAME.patterns) - 1
    return tuple(lint.replace(r, patterns=kept) if r.id == "blame" else r for r in RULES)


@pytest.mark.parametrize("sentence", POSITIVE)
def test_own_act_after_regret_is_blame(sentence: str) -> None:
    assert _blamed(sentence), sentence


@pytest.mark.parametrize("sentence", NEGATIVE)
def test_regret_over_what_befell_or_the_response_is_not_blame(sentence: str) -> None:
    assert not _blamed(sentence), sentence


def test_the_regret_reading_carries_the_positives() -> None:
    # No other reading of the blame rule finds these: without the pattern every one of
    # them is clean, so the positives above measure this reading alone.
    bare = _without_regret()
    assert [s for s in POSITIVE if _blamed(s, bare)] == []
