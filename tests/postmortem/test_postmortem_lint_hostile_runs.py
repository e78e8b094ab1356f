"""Security (#24): the whole lint reads a draft line holding a long run of what its
clause patterns step over (blanks of any kind, indentation, brackets, hyphens, dotted
words, repeated clause words) in bounded time. A draft quotes issue and PR text that
anyone can write; before blank runs were read as one space, 5,000 blanks between two
words kept the lint busy for over 15 s. The watchdog bound is many times a linear scan."""

from __future__ import annotations

import pytest

from agentops.postmortem import datafiles, lint
from tests import watchdog

RULES = datafiles.lint_rules()
HEAD = "# Post-mortem\n\n## Root cause\n\n"
N = 40_000

RUNS = {
    "spaces": "I didn't" + " " * N + "test it, but it failed.",
    "tabs": "we didn't" + "\t" * N + "test it.",
    "mixed blanks": "we didn't" + " \t\u00a0" * (N // 3) + "test it.",
    "indentation": "we didn't test it.\n" + " " * N + "x y",
    "list indentation": "-" + " " * N + "I forgot to test it.",
    "brackets": "I" + "(" * (N // 4) + " forgot.",
    "hyphens": "we" + "-" * (N // 4) + " should.",
    "dotted": "a." * (N // 8),
    "clause words": "we didn't really " * (N // 64),
}


@pytest.mark.parametrize("run", sorted(RUNS))
def test_a_long_run_in_a_draft_line_is_read_in_bounded_time(run: str) -> None:
    text = HEAD + RUNS[run] + "\n"
    findings = watchdog.within(watchdog.SECONDS, lambda: lint.lint(text, RULES))
    assert all(f.line >= 1 for f in findings)


def test_blanks_read_as_one_space_keep_the_finding_and_its_line() -> None:
    """No empty test: the squeezed line is still read, at its own line number."""
    wide = HEAD + "Intro line.\n\nI forgot" + " " * 5_000 + "to run the tests before tagging.\n"
    narrow = HEAD + "Intro line.\n\nI forgot to run the tests before tagging.\n"
    wide_found = [(f.line, f.rule) for f in lint.lint(wide, RULES)]
    assert wide_found == [(f.line, f.rule) for f in lint.lint(narrow, RULES)]
    assert any(rule == "blame" for _line, rule in wide_found)
    assert lint._squeeze("  - a   b\t\tc") == "  - a b c"
    assert lint._squeeze(" " * 100 + "x") == " " * lint._MAX_INDENT + "x"
