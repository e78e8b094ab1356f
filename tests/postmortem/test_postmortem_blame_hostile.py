"""Security (#24; rev33 and rev34 reviews): the blame rule's patterns stay linear on long
runs of what they repeat. A post-mortem lint reads a draft built from issue and PR text,
which anyone can write. Each run is one that a copy of the pattern with its bound taken
away turns quadratic (checked when each was written); the compiled patterns of
``lint_rules.yaml`` are searched directly by one scan, and the whole lint (or the cue
reader) reads one such line or clause.

- Round 13 (pm-blame4): the writer's denied diligence, a person-like agent with a fault
  verb, the exemptions read with either apostrophe; unbounded, an adverb is read any
  number of times, a look-ahead spans any number of words, an aside is of any length.
- Round 17 (pm-blame5): the cue classes (a person's destructive act on what cannot be
  rebuilt, an act regretted right after it); unbounded, the plan's condition is read to
  the end of any stretch instead of at most 40 characters, the adverb before the
  regret's verb as any number of words, the engine's look-back before a cue to the
  clause's start."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from agentops.postmortem import blamecues, datafiles, lint
from tests import watchdog

RULES = datafiles.lint_rules()
BLAME = next(r for r in RULES if r.id == "blame")


def _predicate(needle: str) -> re.Pattern[str]:
    return next(p for c in BLAME.conditions for p in c.predicates if needle in p.pattern)


def _unless(needle: str) -> re.Pattern[str]:
    return next(p for p in BLAME.unless if needle in p.pattern)


def _cue(name: str) -> blamecues.CueClass:
    assert BLAME.cues is not None
    return next(c for c in BLAME.cues.classes if c.name == name)


def _condition() -> re.Pattern[str]:
    pattern = _cue("destroyed_data").not_before
    assert pattern is not None
    return pattern


# (id, which pattern, a run of what it repeats); each about 1 MB or less.
RUNS: list[tuple[str, Callable[[], re.Pattern[str]], str]] = [
    # Round 13: predicates and exemptions.
    ("denied-diligence-adverbs", lambda: _predicate("pa(?:y|id)"), "didn't really " * 70_000),
    ("denied-diligence-curly", lambda: _predicate("pa(?:y|id)"), "I hadn’t even " * 70_000),
    ("fault-verb-repeated", lambda: _predicate("borked"), "we broke it " * 80_000),
    ("fault-verb-object-run", lambda: _predicate("borked"),
     "you wrecked " + "the tag " * 120_000),
    ("unless-given-that", lambda: _unless("given that"), "we didn’t " * 100_000),
    ("unless-straight-away", lambda: _unless("straight away"), "I didn’t notice " * 60_000),
    ("unless-aware-of", lambda: _unless("aware of"), "we didn’t realise that " * 40_000),
    # Round 17: cue classes.
    ("cue-condition-once", _condition, "once " * 200_000 + ";"),
    ("cue-condition-if-we", _condition, "if we " * 160_000 + "."),
    ("regretted-when-we", lambda: _cue("regretted_act").pattern, "when we " * 60_000),
    ("regretted-and-i", lambda: _cue("regretted_act").pattern,
     "and I " * 80_000 + "don't know how"),
    ("destroyed-objects", lambda: _cue("destroyed_data").pattern, "main " * 200_000),
    ("destroyed-blanks", lambda: _cue("destroyed_data").pattern, "trunk" + " " * 1_000_000),
]


@pytest.mark.parametrize(("which", "text"), [(w, t) for _id, w, t in RUNS],
                         ids=[i for i, _w, _t in RUNS])
def test_a_long_run_is_searched_in_linear_time(
        which: Callable[[], re.Pattern[str]], text: str) -> None:
    pattern = which()
    found = watchdog.within(watchdog.SECONDS, lambda: sum(1 for _ in pattern.finditer(text)))
    assert found >= 0


def test_the_patterns_still_find_what_they_were_written_for() -> None:
    """The runs above are no empty test: each pattern still reads its own forms."""
    assert _predicate("pa(?:y|id)").search("I didn’t bother to run the suite")
    assert _predicate("borked").search("we botched the cutover")
    assert not _predicate("borked").search("it broke the pipeline apart")
    assert _unless("given that").search("we didn’t tell users because the fix was server-side")
    assert _condition().search("Once we deleted the staging copies ")
    assert not _condition().search("Once done. We deleted the staging copies ")
    assert _cue("regretted_act").pattern.search("then I noticed the tag was broken")
    assert _cue("regretted_act").pattern.search("so we do not know how to restore it")
    assert _cue("destroyed_data").pattern.search("reset the trunk  branch")


def test_the_whole_lint_reads_a_long_blaming_line_in_bounded_time() -> None:
    text = "# Post-mortem\n\n## Root cause\n\n" + "I didn’t run it and we botched it, " * 300 + "\n"
    found = watchdog.within(watchdog.SECONDS, lambda: lint.lint(text, RULES))
    assert any(f.rule == "blame" for f in found)


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
