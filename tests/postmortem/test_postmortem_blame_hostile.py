"""Security (#24, rev33 review): the blame predicates and exemptions added in round 13
(pm-blame4: the writer's denied diligence, a person-like agent with a fault verb, the
exemptions read with either apostrophe) stay linear on long runs of what they repeat.
A post-mortem lint reads a draft built from issue and PR text, which anyone can write.
Each run is one that a copy of the pattern with its bound taken away (an adverb read
any number of times, a look-ahead over any number of words, an aside of any length)
turns quadratic; the compiled patterns of ``lint_rules.yaml`` are searched directly,
and the whole lint reads one such line."""

from __future__ import annotations

import re

import pytest

from agentops.postmortem import datafiles, lint
from tests import watchdog

RULES = datafiles.lint_rules()
BLAME = next(r for r in RULES if r.id == "blame")


def _predicate(needle: str) -> re.Pattern[str]:
    return next(p for c in BLAME.conditions for p in c.predicates if needle in p.pattern)


def _unless(needle: str) -> re.Pattern[str]:
    return next(p for p in BLAME.unless if needle in p.pattern)


# (which pattern, a run of what it repeats); each about 1 MB.
RUNS = [
    (lambda: _predicate("pa(?:y|id)"), "didn't really " * 70_000),
    (lambda: _predicate("pa(?:y|id)"), "I hadn’t even " * 70_000),
    (lambda: _predicate("borked"), "we broke it " * 80_000),
    (lambda: _predicate("borked"), "you wrecked " + "the tag " * 120_000),
    (lambda: _unless("given that"), "we didn’t " * 100_000),
    (lambda: _unless("straight away"), "I didn’t notice " * 60_000),
    (lambda: _unless("aware of"), "we didn’t realise that " * 40_000),
]


@pytest.mark.parametrize("which,text", RUNS, ids=[f"run{i}" for i in range(len(RUNS))])
def test_a_long_run_is_searched_in_linear_time(which, text: str) -> None:
    pattern = which()
    found = watchdog.within(watchdog.SECONDS, lambda: sum(1 for _ in pattern.finditer(text)))
    assert found >= 0


def test_the_patterns_still_find_what_they_were_written_for() -> None:
    """The runs above are no empty test: each pattern still reads its own forms."""
    assert _predicate("pa(?:y|id)").search("I didn’t bother to run the suite")
    assert _predicate("borked").search("we botched the cutover")
    assert not _predicate("borked").search("it broke the pipeline apart")
    assert _unless("given that").search("we didn’t tell users because the fix was server-side")


def test_the_whole_lint_reads_a_long_blaming_line_in_bounded_time() -> None:
    text = "# Post-mortem\n\n## Root cause\n\n" + "I didn’t run it and we botched it, " * 300 + "\n"
    found = watchdog.within(watchdog.SECONDS, lambda: lint.lint(text, RULES))
    assert any(f.rule == "blame" for f in found)
