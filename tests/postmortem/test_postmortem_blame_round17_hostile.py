"""Security (#24, rev34 review): the blame cue classes of round 17 (pm-blame5: a person's
destructive act on what cannot be rebuilt, an act regretted right after it) stay linear
on long runs of what they repeat. A post-mortem lint reads a draft built from issue and
PR text, which anyone can write. Each run is one that a copy without its bound turns
quadratic (checked when this was written): the plan's condition read to the end of any
stretch instead of at most 40 characters, the adverb before the regret's verb read as
any number of words, the engine's look-back before a cue taken to the clause's start."""

from __future__ import annotations

import re

import pytest

from agentops.postmortem import blamecues, datafiles
from tests import watchdog

RULES = datafiles.lint_rules()
BLAME = next(r for r in RULES if r.id == "blame")


def _cue(name: str) -> blamecues.CueClass:
    assert BLAME.cues is not None
    return next(c for c in BLAME.cues.classes if c.name == name)


def _condition() -> re.Pattern[str]:
    pattern = _cue("destroyed_data").not_before
    assert pattern is not None
    return pattern


# (which pattern, a run of what it repeats); each about 1 MB or less.
RUNS = [
    (_condition, "once " * 200_000 + ";"),
    (_condition, "if we " * 160_000 + "."),
    (lambda: _cue("regretted_act").pattern, "when we " * 60_000),
    (lambda: _cue("regretted_act").pattern, "and I " * 80_000 + "don't know how"),
    (lambda: _cue("destroyed_data").pattern, "main " * 200_000),
    (lambda: _cue("destroyed_data").pattern, "trunk" + " " * 1_000_000),
]


@pytest.mark.parametrize("which,text", RUNS, ids=[f"run{i}" for i in range(len(RUNS))])
def test_a_long_run_is_searched_in_linear_time(which, text: str) -> None:
    pattern = which()
    found = watchdog.within(watchdog.SECONDS, lambda: sum(1 for _ in pattern.finditer(text)))
    assert found >= 0


def test_the_patterns_still_find_what_they_were_written_for() -> None:
    """The runs above are no empty test: each pattern still reads its own forms."""
    assert _condition().search("Once we deleted the staging copies ")
    assert not _condition().search("Once done. We deleted the staging copies ")
    assert _cue("regretted_act").pattern.search("then I noticed the tag was broken")
    assert _cue("regretted_act").pattern.search("so we do not know how to restore it")
    assert _cue("destroyed_data").pattern.search("reset the trunk  branch")


def test_a_clause_of_thousands_of_cues_is_read_in_bounded_time() -> None:
    """Every object word after one destructive act is a cue of its own; each reads only
    its neighbourhood for the plan's condition and the act (_NOT_BEFORE_CHARS,
    _GROUP_CHARS), so one clause of 10,000 cues stays linear (either look-back taken to
    the clause's start: over a minute)."""
    assert BLAME.grammar is not None and BLAME.cues is not None
    text = "we deleted " + "production " * 10_000
    found = watchdog.within(watchdog.SECONDS, lambda: list(
        blamecues.spans(text, BLAME.grammar, BLAME.cues)))
    assert any(name == "destroyed_data" for _s, _e, name, _agent in found)
