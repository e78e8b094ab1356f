"""Security (#23, rev35 review): the two suite signals of stop 36 (c10d_test_suite,
dtensor_test_suite) read a CI test report's title, which anyone can write. Each pattern
is searched directly on 1 MB runs of what it steps over (open parentheses, the
``__main__.`` prefix, a suite name followed by a word run that never closes), and the
whole planner reads a title of repeated suite ids past the title cap with a 1 MB body,
under the watchdog; the plan still passes the constraint checker and is never
`triaged` on the test id alone."""

from __future__ import annotations

import re

import pytest

from agentops.triage import signals
from tests import watchdog
from tests.triage.plankit import make_issue, plan_ok

ONE_MB = 1 << 20
_BOT_BODY = "Disabled: it fails in CI now and then.\n"


def _patterns(queue, signal_id: str) -> list[re.Pattern[str]]:  # type: ignore[no-untyped-def]
    sig = next(s for s in queue.rubric.signals if s.id == signal_id)
    return [p for _scope, p in sig.patterns]


def _run(words: str, size: int = ONE_MB) -> str:
    return (words * (size // len(words) + 1))[:size]


RUNS = {
    "open parentheses": "(" * ONE_MB,
    "main prefixes": _run("(__main__."),
    "unclosed c10d suite": "(__main__.TestDistBackend" + "x" * ONE_MB,
    "unclosed comm suites": _run("(AbstractCommTest_"),
    "unclosed dtensor suite": "(DistTensor" + "_" * ONE_MB,
    "repeated tp suites": _run("(__main__.TensorParallelStyleTest"),
    "closed suites": _run("(__main__.DistTensorOpsTest)(CommTest)"),
}


@pytest.mark.parametrize("signal_id", ["c10d_test_suite", "dtensor_test_suite"])
@pytest.mark.parametrize("run", sorted(RUNS))
def test_a_suite_pattern_is_searched_in_linear_time(queue, signal_id: str, run: str) -> None:
    text = RUNS[run]
    for pattern in _patterns(queue, signal_id):
        watchdog.within(watchdog.SECONDS, lambda p=pattern: sum(1 for _ in p.finditer(text)))


def test_the_suite_patterns_still_read_their_own_ids(queue) -> None:
    """No empty test: each pattern still finds a suite id and refuses a bare name."""
    c10d, dtensor = _patterns(queue, "c10d_test_suite"), _patterns(queue, "dtensor_test_suite")
    assert any(p.search("DISABLED test_x (__main__.TestDistBackendWithSpawn)") for p in c10d)
    assert any(p.search("DISABLED test_y (AbstractCommTest)") for p in c10d)
    assert not any(p.search("TestDistBackend hangs (not an id") for p in c10d)
    assert any(p.search("DISABLED test_z (__main__.DistTensorOpsTest)") for p in dtensor)
    assert not any(p.search("(DistTensor ops)") for p in dtensor)


@pytest.mark.parametrize("suite", ["__main__.TestDistBackendWithSpawn", "DistTensorOpsTest"])
def test_a_title_of_repeated_suite_ids_is_planned_in_bounded_time(queue, suite: str) -> None:
    title = _run(f"DISABLED test_a ({suite}) ", signals.MAX_TITLE_CHARS * 2)
    body = _run(f"({suite} " + _BOT_BODY, ONE_MB)
    plan = watchdog.within(watchdog.SECONDS, lambda: plan_ok(make_issue(title, body), queue))
    assert "triaged" not in plan.add_labels, plan.reasoning
