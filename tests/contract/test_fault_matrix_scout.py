"""Every fault at every write of ``scout.py publish`` and ``scout.py handoff``, through
the script and the built-in target, against the scout's GitHub stand-in on loopback
(``tests/standin/scout_github.py``: the tracking issue's comments and a Projects (v2)
board).

The writes: publish's comment POST (no report comment for the date yet) and its PATCH
(one exists with different content); handoff's addProjectV2DraftIssue,
updateProjectV2ItemFieldValue (Status Backlog), updateProjectV2DraftIssue (a carried
finding changed) and the PATCH that links the items from the report comment.

For each (write, fault): a single fault is absorbed by the retries (exit 0; a GraphQL
RATE_LIMITED answer to a mutation is not retried: it stops with 5, or 4 once something
landed); a fault on every attempt stops with 5 if nothing was written and 4 if
something was; never another exit code, never two report comments for the date, never
two board items for one action item (its ``<!-- agentops:scout-item ID`` marker),
never a Status other than Backlog. Then a clean rerun must reach exactly the fault-free end
state (comments and board, byte for byte), and a third run must write nothing (S-7,
S-8, issue #6).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agentops.github.client import GitHubClient
from agentops.scout import commands as scout_commands
from agentops.scout import publish
from scripts import scout as cli
from tests.scout.test_scout_publish import DATE, ITEMS, report_text
from tests.standin import scout_github as standin
from tests.standin.github import Fault

REPO, ISSUE = "pytorch/torchtitan", 2856
TARGET = "torchtitan-graph-trainer"  # its tracking issue and board are the stand-in's
ATTEMPTS = 3  # the client's retry budget in these tests (AGENTOPS_RETRY_ATTEMPTS)
TIMEOUT = 1  # the client's read timeout in these tests (PyGithub takes whole seconds)
SLOW = TIMEOUT + 0.5  # how long a "timeout" fault holds its answer
NOTE = "- S-5 re-checked"  # what makes the re-published report differ
NEW = ("a1b2c3d4e5f6", "0badc0ffee01")  # the action items handoff creates
CARRIED = "c0ffee000002"  # on the board In Progress, with an older fingerprint: edited
ACTIONS = [i["id"] for i in ITEMS if i["kind"] in ("action", "carried")]

# write -> (scenario, the stand-in's write kind)
WRITES = {
    "publish: create comment": ("publish", "comment-create"),
    "publish: update comment": ("republish", "comment-update"),
    "handoff: add draft": ("handoff", "draft-create"),
    "handoff: set Backlog": ("handoff", "status-update"),
    "handoff: edit draft": ("handoff", "draft-edit"),
    "handoff: link items in comment": ("handoff", "comment-update"),
}
GRAPHQL_WRITES = sorted(w for w, (_, kind) in WRITES.items() if not kind.startswith("comment"))
FAULTS: dict[str, Callable[[], Fault]] = {
    "502 before": lambda: Fault.status_code(502),
    "502 after it landed": lambda: Fault.status_code(502, apply_first=True),
    "503 before": lambda: Fault.status_code(503),
    "reset before": Fault.reset,
    "reset after it landed": lambda: Fault.reset(apply_first=True),
    "timeout before": lambda: Fault.timeout(SLOW),
    "timeout after it landed": lambda: Fault.timeout(SLOW, apply_first=True),
    "secondary rate limit": lambda: Fault.secondary(0),
    "429": lambda: Fault.too_many(0),
    "primary rate limit": lambda: Fault.primary(0),
}
# On every attempt of the first run (the queue holds ATTEMPTS entries).
PERSISTENT: dict[str, Callable[[], list[Fault]]] = {
    "503 on every attempt": lambda: [Fault.status_code(503)] * ATTEMPTS,
    "reset on every attempt": lambda: [Fault.reset()] * ATTEMPTS,
    "refused, then landed behind a 502 on the last attempt": lambda: [
        Fault.status_code(502)] * (ATTEMPTS - 1) + [Fault.status_code(502, apply_first=True)],
}
# The first run's exit code when a write fails on every attempt: 5 if nothing landed
# before it, 4 if something did (handoff creates both drafts before editing, and a
# draft lands before its Status is set).
STOPPED = {"publish: create comment": 5, "publish: update comment": 5,
           "handoff: add draft": 5, "handoff: set Backlog": 4, "handoff: edit draft": 4,
           "handoff: link items in comment": 4}
WRITE_LOG = {"POST comment", "PATCH comment", "gql add", "gql status", "gql edit"}


@pytest.fixture
def harness(monkeypatch, tmp_path, capsys) -> Harness:
    for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    monkeypatch.setenv("AGENTOPS_RETRY_ATTEMPTS", str(ATTEMPTS))
    monkeypatch.setenv("AGENTOPS_RETRY_BASE_DELAY", "0.01")
    monkeypatch.setenv("AGENTOPS_RETRY_MAX_DELAY", "0.05")
    monkeypatch.setenv("AGENTOPS_SECONDS_BETWEEN_WRITES", "0")
    monkeypatch.setenv("GITHUB_TOKEN", "issues-token")
    monkeypatch.setenv("AGENTOPS_PROJECT_TOKEN", "project-token")
    standin.in_scout_run(monkeypatch)  # steps of the scout's workflow run (#21 item 5)
    waits: list[float] = []

    class Client(GitHubClient):
        """The real client with a short read timeout, and waits recorded, not slept
        (a primary rate limit asks for the reset plus a second)."""

        def __init__(self, token: str, **kwargs: Any) -> None:
            kwargs.setdefault("timeout", TIMEOUT)
            kwargs.setdefault("sleep", waits.append)
            super().__init__(token, **kwargs)

    monkeypatch.setattr(scout_commands, "GitHubClient", Client)
    return Harness(monkeypatch, tmp_path, capsys, waits)


def _comment(cid: int, body: str, updated: str) -> dict[str, Any]:
    return {"id": cid, "body": body, "updated_at": updated, "created_at": updated,
            "html_url": f"https://github.com/{REPO}/issues/{ISSUE}#issuecomment-{cid}",
            "user": {"login": "github-actions[bot]", "type": "Bot"}}


def _state(scenario: str) -> standin.State:
    """The tracking issue and board before the run: yesterday's report, the board of
    ``tests/scout/test_scout_publish.py`` (the carried item recorded an older
    fingerprint, so handoff adds a dated update), and for ``republish``/``handoff``
    today's report as published before."""
    st = standin.State()
    st.add_item("Unrelated: qwen3 support", "Add qwen3.", "Ready")
    st.add_item("[NightlyScout][P2] Document the min_cut memory policy",
                "**Source:** Nightly Scout Report — 2026-07-01", "Done")
    st.add_item("Unrelated: flaky test", "x", None)
    st.add_item("[NightlyScout][P2] Drop the stale MoE.forward monkey-patch",
                "**Source:** Nightly Scout Report — 2026-07-05\n\n"
                f"<!-- agentops:scout-item {CARRIED} fp=f3-old -->", "In Progress")
    st.comments.append(_comment(7, "# Nightly Scout Report — 2026-07-08\nold",
                                "2026-07-08T06:00:00Z"))
    if scenario != "publish":
        # Posted by this same run of the scout's workflow: its block names the run.
        st.comments.append(_comment(8, publish.stamp(report_text(), {
            "repository": REPO, "id": standin.SCOUT_RUN}), "2026-07-09T06:10:00Z"))
    return st


def _run(scenario: str, tmp_path: Path) -> int:
    report = tmp_path / "report.md"
    report.write_text(report_text(note=NOTE if scenario == "republish" else ""))
    if scenario == "handoff":
        return cli.main(["--config", TARGET, "handoff", "--report", str(report)])
    return cli.main(["publish", "--repo", REPO, "--issue", str(ISSUE), "--report", str(report)])


def _snapshot(st: standin.State) -> tuple[list[str], list[tuple[str, str, str | None]]]:
    return ([c["body"] for c in st.comments],
            [(i["title"], i["body"], i["status"]) for i in st.items])


_GOLDEN: dict[str, tuple[list[str], list[tuple[str, str, str | None]]]] = {}


def _golden(scenario: str, tmp_path: Path) -> tuple[list[str], list[tuple[str, str, str | None]]]:
    """The end state of one fault-free run (what every case converges to)."""
    if scenario not in _GOLDEN:
        with standin.running(_state(scenario)) as (url, st):
            with pytest.MonkeyPatch.context() as mp:
                mp.setenv("GITHUB_API_URL", url)
                assert _run(scenario, tmp_path) == 0
            _GOLDEN[scenario] = _snapshot(st)
    return _GOLDEN[scenario]


def _check_invariants(st: standin.State) -> None:
    today = [c for c in st.comments if c["body"].startswith(f"# Nightly Scout Report — {DATE}")]
    assert len(today) <= 1, "two report comments for one date"
    for item_id in ACTIONS:
        assert len(st.items_of(item_id)) <= 1, f"two board items for {item_id}"
    titles = [i["title"] for i in st.items]
    assert len(titles) == len(set(titles)), "a duplicate board item"
    statuses = {w[2]["option"] for w in st.writes if w[1] == "updateProjectV2ItemFieldValue"}
    assert statuses <= {standin.OPTIONS["Backlog"]}, "a Status other than Backlog was set"


def _check_converges(st: standin.State, scenario: str, golden: Any, tmp_path: Path,
                     capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert _run(scenario, tmp_path) == 0, capsys.readouterr().err
    _check_invariants(st)
    assert _snapshot(st) == golden
    if scenario == "handoff":
        for item_id in NEW:
            assert [i["status"] for i in st.items_of(item_id)] == ["Backlog"]  # never Ready
        assert [i["status"] for i in st.items_of(CARRIED)] == ["In Progress"]  # not moved
    seen = len(st.log)
    assert _run(scenario, tmp_path) == 0
    assert [e for e in st.log[seen:] if e in WRITE_LOG] == [], "a converged run wrote"


def _check_first(code: int, expected: int, capsys: pytest.CaptureFixture[str]) -> None:
    err = capsys.readouterr().err
    assert code == expected, f"first run exited {code}, expected {expected}:\n{err}"
    assert "Traceback" not in err
    if code:  # a clear message: what failed, and what to do
        assert re.search(r"^error: .*(failed|rate limit).* Fix: ", err, re.M), err


@dataclass
class Harness:
    monkeypatch: pytest.MonkeyPatch
    tmp_path: Path
    capsys: pytest.CaptureFixture[str]
    waits: list[float]  # what the clients were asked to sleep

    def case(self, write: str, faults: list[Fault], expected: int) -> None:
        """Faults at ``write`` (one per attempt, from the first); the first run must
        exit ``expected``; then the rerun converges and a third run writes nothing."""
        scenario, kind = WRITES[write]
        golden = _golden(scenario, self.tmp_path)
        st = _state(scenario)
        st.faults[kind] = list(faults)
        with standin.running(st) as (url, st):
            self.monkeypatch.setenv("GITHUB_API_URL", url)
            self.capsys.readouterr()
            first = _run(scenario, self.tmp_path)
            assert st.faults[kind] == [], f"the fault at {write} was never hit"
            _check_first(first, expected, self.capsys)
            _check_invariants(st)
            _check_converges(st, scenario, golden, self.tmp_path, self.capsys)


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("write", sorted(WRITES))
def test_one_fault_at_one_write_converges(harness: Harness, write: str, fault: str) -> None:
    harness.case(write, [FAULTS[fault]()], 0)
    waits = harness.waits
    if fault in ("secondary rate limit", "429"):
        assert 0.0 in waits  # Retry-After: 0 honoured, not the 60 s guess
    if fault == "primary rate limit":
        assert any(1.0 <= w <= 2.5 for w in waits), waits  # X-RateLimit-Reset, plus 1 s


@pytest.mark.parametrize("write", GRAPHQL_WRITES)
def test_graphql_rate_limited_mutation_stops_cleanly_and_converges(harness: Harness,
                                                                    write: str) -> None:
    # GraphQL's primary limit: HTTP 200, an error of type RATE_LIMITED. A mutation is
    # not retried on it (a query is): the run stops with the message, the rerun goes on.
    harness.case(write, [Fault.graphql_rate_limited(0)], STOPPED[write])


@pytest.mark.parametrize("fault", sorted(PERSISTENT))
@pytest.mark.parametrize("write", sorted(WRITES))
def test_a_write_that_keeps_failing_stops_cleanly_and_converges(harness: Harness, write: str,
                                                                 fault: str) -> None:
    # A write whose last attempt landed behind a lost answer is re-read and done (0).
    harness.case(write, PERSISTENT[fault](),
                 0 if fault.startswith("refused") else STOPPED[write])

