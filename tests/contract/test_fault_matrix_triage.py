"""Every fault at every write of ``triage.py run``, with the real planner and queue,
against the GitHub stand-in on loopback (``tests/standin/github.py``).

For each (write, fault) the first run may succeed (0), stop part-way (4) or fail
before writing (5), never anything else; then a clean rerun must converge to exactly
the state a fault-free run reaches (same labels, one comment with its marker, nothing
removed, no label created), and a third run must write nothing (T-20, T-26, T-27,
T-28). Runs once triage's live command and the stand-in are merged.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentops.triage import queue as queue_mod
from scripts import triage as cli
from tests.standin import github as standin

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "triage" / "issues" / "needs-reproduction.json"
REPO = "octo-org/octo-repo"
Fault = standin.Fault

WRITES = {"labels": r"/issues/{n}/labels$", "comment": r"/issues/{n}/comments$"}
FAULTS = {
    "502 before": lambda: Fault.status_code(502),
    "502 after it landed": lambda: Fault.status_code(502, apply_first=True),
    "reset before": Fault.reset,
    "reset after it landed": lambda: Fault.reset(apply_first=True),
    "timeout after it landed": lambda: Fault.timeout(1.5, apply_first=True),
    "secondary rate limit": lambda: Fault.secondary(0),
    "429": lambda: Fault.too_many(0),
    "primary rate limit": lambda: Fault.primary(0),
}
PERSISTENT = {"503 on every attempt": lambda: Fault.status_code(503),
              "reset on every attempt": Fault.reset}
ATTEMPTS = 3  # the client's retry budget in these tests (AGENTOPS_RETRY_ATTEMPTS)


@pytest.fixture
def env(monkeypatch, tmp_path):
    for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    monkeypatch.setenv("AGENTOPS_RETRY_ATTEMPTS", str(ATTEMPTS))
    monkeypatch.setenv("AGENTOPS_RETRY_BASE_DELAY", "0.01")
    monkeypatch.setenv("AGENTOPS_RETRY_MAX_DELAY", "0.05")
    monkeypatch.setenv("AGENTOPS_SECONDS_BETWEEN_WRITES", "0")
    return monkeypatch


def _issue() -> dict:
    return json.loads(EXAMPLE.read_text(encoding="utf-8"))


def _server(env, number: int) -> standin.GitHubStandIn:
    issue = _issue()
    queue = queue_mod.load_queue("distributed")
    server = standin.GitHubStandIn().start()
    server.add_repo(REPO, labels=sorted(queue.allowlist | {lb["name"] for lb in issue["labels"]}))
    server.add_issue(REPO, number, title=issue["title"], body=issue.get("body") or "",
                     labels=[lb["name"] for lb in issue["labels"]],
                     comments=[{"body": c["body"], "login": c["user"]["login"],
                                "type": c["user"].get("type", "User"),
                                "association": c.get("author_association", "NONE")}
                               for c in issue.get("comments") or []])
    env.setenv("GITHUB_TOKEN", server.token)
    env.setenv("GITHUB_API_URL", server.url)
    return server


def _run(number: int) -> int:
    return cli.main(["run", "--repo", REPO, "--issue", str(number)])


@pytest.fixture
def golden(env):
    """Labels and comments after one fault-free run (the state every case converges to)."""
    server = _server(env, 1)
    try:
        assert _run(1) == 0
        labels, comments = sorted(server.issue_labels(REPO, 1)), server.issue_comments(REPO, 1)
    finally:
        server.stop()
    assert len(comments) == 1, "the example must make triage post one comment"
    return labels, comments


def _check_converges(server, number: int, golden, first_exit: int) -> None:
    labels, comments = golden
    assert first_exit in (0, 4, 5), f"first run exited {first_exit}"
    # Never two comments, whatever the fault did.
    assert len(server.issue_comments(REPO, number)) <= 1
    server.reset_log()
    assert _run(number) == 0
    assert sorted(server.issue_labels(REPO, number)) == labels
    assert server.issue_comments(REPO, number) == comments
    assert all(r.method == "POST" for r in server.writes())
    assert server.created_labels == []
    server.reset_log()
    assert _run(number) == 0
    assert server.writes() == [], "T-27: a converged issue is written again"


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("write", sorted(WRITES))
def test_one_fault_at_one_write_converges(env, golden, write: str, fault: str) -> None:
    number = 7
    server = _server(env, number)
    try:
        server.inject("POST", WRITES[write].format(n=number), FAULTS[fault](), attempts=[1])
        _check_converges(server, number, golden, _run(number))
    finally:
        server.stop()


@pytest.mark.parametrize("fault", sorted(PERSISTENT))
@pytest.mark.parametrize("write", sorted(WRITES))
def test_a_write_that_keeps_failing_stops_cleanly_and_converges(env, golden, write: str,
                                                                 fault: str) -> None:
    number = 8
    server = _server(env, number)
    try:
        # The stand-in counts attempts per path over its life: the first run's whole
        # retry budget fails, the rerun's first attempt is the next number and passes.
        server.inject("POST", WRITES[write].format(n=number), PERSISTENT[fault](),
                      attempts=range(1, ATTEMPTS + 1))
        first = _run(number)
        # Labels first: if they never land nothing was written (5); if the comment
        # never lands the labels did (4, "partly applied").
        assert first == (5 if write == "labels" else 4)
        _check_converges(server, number, golden, first)
    finally:
        server.stop()
