"""Applier behaviour no other test pinned down (#26 item 2), checked on what
``agentops.triage.apply`` writes, not on its lines:

- T-15: an issue that awaits humans — already, or because this run's labels put it on
  the high-priority path — gets no bot comment, whatever the plan carries; its labels
  still go on.
- The label-existence check asks GraphQL in batches of at most 50 names per document,
  each name once, and never lists the repository's labels.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pytest

from agentops.errors import ApiError
from agentops.triage.apply import LabelChecker, apply_plan, preview
from agentops.triage.model import Plan
from tests.triage.livekit import INFRA, PAR, TRIGGER, RecordingClient, issue, make_queue

Q = make_queue()
REPRO = "needs_distributed_reproduction"


def _plan(labels: tuple[str, ...], decision: str, *, awaiting: bool = False) -> Plan:
    return Plan(repo="o/r", issue=7, decision=decision, add_labels=labels, comments=(REPRO,),
                confidence="high", queue="distributed", awaiting_humans=awaiting)


def _comments(client: RecordingClient) -> list[Any]:
    return [b for _, p, b in client.mutations if p.endswith("/comments")]


def _labels(client: RecordingClient) -> list[Any]:
    return [b["labels"] for _, p, b in client.mutations if p.endswith("/labels")]


@pytest.mark.parametrize(("decision", "awaiting"), [
    ("high_priority", True), ("high_priority", False), ("needs_reproduction", True)])
def test_t15_a_high_priority_plan_with_a_comment_posts_no_comment(decision, awaiting):
    client = RecordingClient()
    p = _plan((INFRA, "module: c10d", "triage review"), decision, awaiting=awaiting)
    res = apply_plan(client, p, issue(), Q)
    assert _comments(client) == [] and res.comment is None
    assert res.comment_skipped == "the issue awaits humans ('triage review' without the marker)"
    assert _labels(client) == [[INFRA, "module: c10d", "triage review"]]
    assert res.writes == 1
    pre = preview(p, issue(), Q)
    assert pre.comment is None and pre.comment_skipped == res.comment_skipped
    assert pre.writes == 0 and pre.labels_added == res.labels_added


def test_t15_an_issue_already_awaiting_humans_gets_no_comment():
    client = RecordingClient()
    p = _plan((PAR, "needs reproduction", "bot-triaged"), "needs_reproduction")
    res = apply_plan(client, p, issue(labels=[TRIGGER, "triage review"]), Q)
    assert _comments(client) == [] and res.comment is None
    assert _labels(client) == [[PAR, "needs reproduction"]]  # the marker held back (T-24)


def test_the_same_comment_is_posted_when_the_issue_does_not_await_humans():
    # The counterpart: without the review label (or with the marker beside it) the
    # planned comment goes out, once.
    for labels in ([TRIGGER], [TRIGGER, "triage review", "bot-triaged"]):
        client = RecordingClient()
        p = _plan((PAR, "needs reproduction", "bot-triaged"), "needs_reproduction")
        res = apply_plan(client, p, issue(labels=labels), Q)
        assert res.comment == REPRO and len(_comments(client)) == 1, labels


class _BatchClient:
    """Answers aliased ``label(name:)`` documents; records the names of each one."""

    def __init__(self, existing: set[str], *, graphql_status: int | None = None,
                 graphql_error: str = "") -> None:
        self.existing = existing
        self.documents: list[list[str]] = []
        self.rest: list[str] = []
        self.graphql_status = graphql_status
        self.graphql_error = graphql_error

    def graphql(self, query: str, variables: Mapping[str, Any] | None = None,
                **_: Any) -> dict[str, Any]:
        if self.graphql_status:
            raise ApiError("graphql: not here", status_code=self.graphql_status)
        if self.graphql_error:
            raise ApiError(self.graphql_error)
        aliases = re.findall(r"(\w+): label\(name: \$(\w+)\)", query)
        names = [str((variables or {})[var]) for _, var in aliases]
        self.documents.append(names)
        return {"repository": {a: ({"name": n} if n in self.existing else None)
                               for (a, _), n in zip(aliases, names, strict=True)}}

    def exists(self, path: str) -> bool:
        self.rest.append(path)
        return path.rsplit("/", 1)[1] in self.existing


@pytest.mark.parametrize(("count", "sizes"), [
    (1, [1]), (49, [49]), (50, [50]), (51, [50, 1]), (100, [50, 50]), (120, [50, 50, 20])])
def test_label_existence_is_asked_in_batches_of_fifty(count, sizes):
    names = [f"label-{i:03d}" for i in range(count)]
    client = _BatchClient(set(names[::2]))
    checker = LabelChecker(client, "o/r")  # type: ignore[arg-type]
    assert checker.missing(names) == names[1::2]
    assert [len(d) for d in client.documents] == sizes
    assert [n for d in client.documents for n in d] == names  # each once, in order
    assert checker.missing(names) == names[1::2] and len(client.documents) == len(sizes)


def test_rest_fallback_asks_one_label_at_a_time_and_lists_nothing():
    names = ["a", "b b", "c/d"]
    client = _BatchClient({"a", "c%2Fd"}, graphql_status=404)
    checker = LabelChecker(client, "o/r")  # type: ignore[arg-type]
    assert checker.missing(names) == ["b b"]
    assert client.rest == ["/repos/o/r/labels/a", "/repos/o/r/labels/b%20b",
                           "/repos/o/r/labels/c%2Fd"]


@pytest.mark.parametrize("status", [401, 403, 429, 500, 502])
def test_graphql_failures_rest_shares_are_not_retried_over_rest(status):
    client = _BatchClient({"a"}, graphql_status=status)
    checker = LabelChecker(client, "o/r")  # type: ignore[arg-type]
    with pytest.raises(ApiError):
        checker.missing(["a"])
    assert client.rest == [] and checker.rest_only is False


class _HiddenRepoClient(_BatchClient):
    """GraphQL answers ``repository: null``: the repository does not exist, or the token
    cannot see it (GitHub answers both with data, not an HTTP error)."""

    def graphql(self, query: str, variables: Mapping[str, Any] | None = None,
                **_: Any) -> dict[str, Any]:
        self.documents.append([str(v) for k, v in (variables or {}).items() if k[1:].isdigit()])
        return {"repository": None}


def test_a_repository_graphql_does_not_show_is_an_api_error_naming_it():
    # Not a traceback on the missing object, and not a label that "does not exist":
    # the run stops with the repository and the fix named, before any write.
    client = _HiddenRepoClient({"a"})
    checker = LabelChecker(client, "o/hidden")  # type: ignore[arg-type]
    with pytest.raises(ApiError) as err:
        checker.missing(["a"])
    assert "o/hidden" in err.value.message and "--repo" in (err.value.fix or "")
    assert client.documents == [["a"]] and client.rest == [] and checker.known == {}


@pytest.mark.parametrize("status", [400, 404, 405, 410, 415, 422, 501])
def test_graphql_unavailable_falls_back_to_rest_for_the_rest_of_the_run(status):
    client = _BatchClient({"a", "b"}, graphql_status=status)
    checker = LabelChecker(client, "o/r")  # type: ignore[arg-type]
    assert checker.missing(["a", "x"]) == ["x"] and checker.rest_only is True
    assert checker.missing(["b"]) == []
    assert client.rest == ["/repos/o/r/labels/a", "/repos/o/r/labels/x", "/repos/o/r/labels/b"]


@pytest.mark.parametrize(("current", "labels", "held"), [
    ([TRIGGER, INFRA], (PAR, "module: fsdp", "bot-triaged"), f"the issue has {INFRA!r}"),
    ([TRIGGER], (PAR, INFRA, "bot-triaged"), "the plan names several"),
])
def test_t22_says_why_the_suboncall_was_held_back(current, labels, held):
    from agentops.triage.apply import plan_label_changes

    p = Plan(repo="o/r", issue=7, decision="classify", add_labels=labels,
             confidence="high", queue="distributed")
    ch = plan_label_changes(p, current, Q)
    new = ", ".join(lb for lb in labels if lb.startswith("oncall:"))
    assert ch.adjustments[0] == (f"T-22: not adding {new} ({held}); added 'triage review' "
                                 "for a human")
    assert not any(lb.startswith("oncall:") for lb in ch.add)


@pytest.mark.parametrize(("message", "falls_back"), [
    ("GraphQL error: Field 'label' doesn't exist on type 'Repository'", True),
    ("graphql error: unknown document", True),
    ("GraphQL error: API rate limit exceeded", False),
    ("GraphQL error: secondary LIMIT hit", False),
    ("GraphQL error: token lacks the read:org scope", False),
    ("GraphQL error: Forbidden", False),
    ("GraphQL error: Resource not accessible (permission)", False),
    ("connection reset by peer", False),
])
def test_a_graphql_error_without_status_falls_back_only_when_not_rest_shared(message,
                                                                             falls_back):
    client = _BatchClient({"a"}, graphql_error=message)
    checker = LabelChecker(client, "o/r")  # type: ignore[arg-type]
    if falls_back:
        assert checker.missing(["a"]) == [] and client.rest == ["/repos/o/r/labels/a"]
    else:
        with pytest.raises(ApiError):
            checker.missing(["a"])
        assert client.rest == []


@pytest.mark.parametrize(("labels", "current", "why"), [
    ((PAR, "triage review", "triaged", "bot-triaged"), [TRIGGER], "'triage review'"),
    ((PAR, "triaged", "bot-triaged"), [TRIGGER, "needs reproduction"], "'needs reproduction'"),
])
def test_t23_names_the_label_that_keeps_triaged_off(labels, current, why):
    # The adjustment says which label blocked `triaged` (T-23), so a reader of the summary
    # knows what a human has to resolve; the high-priority wording is for that path only.
    from agentops.triage.apply import plan_label_changes

    p = Plan(repo="o/r", issue=7, decision="classify", add_labels=labels,
             confidence="high", queue="distributed")
    ch = plan_label_changes(p, current, Q)
    assert "triaged" not in ch.add
    assert f"T-23: dropped 'triaged' (with {why})" in ch.adjustments


def test_t22_names_the_first_suboncall_the_issue_has():
    from agentops.triage.apply import plan_label_changes

    p = Plan(repo="o/r", issue=7, decision="classify", add_labels=(PAR, "bot-triaged"),
             confidence="high", queue="distributed")
    ch = plan_label_changes(p, [TRIGGER, INFRA, "oncall: distributed checkpointing"], Q)
    assert ch.adjustments[0] == (f"T-22: not adding {PAR} (the issue has {INFRA!r}); added "
                                 "'triage review' for a human")


@pytest.mark.parametrize(("role", "label"), [("marker", "bot-triaged"),
                                             ("review", "triage review"),
                                             ("triaged", "triaged")])
def test_a_queue_whose_own_labels_are_not_allowlisted_is_a_config_error(role, label):
    import dataclasses

    from agentops.errors import ConfigError
    from agentops.triage.apply import plan_label_changes

    q = dataclasses.replace(Q, allowlist=Q.allowlist - {label})
    p = Plan(repo="o/r", issue=7, decision="classify", add_labels=(PAR,), confidence="high",
             queue="distributed")
    with pytest.raises(ConfigError, match=f"its {role} label {label!r} is not in its own "
                                          "allowlist"):
        plan_label_changes(p, [TRIGGER], q)


def test_a_run_that_only_comments_changed_the_issue():
    client = RecordingClient()
    p = _plan((PAR, "needs reproduction", "bot-triaged"), "needs_reproduction")
    res = apply_plan(client, p, issue(labels=[TRIGGER, PAR, "needs reproduction",
                                              "bot-triaged"]), Q)
    assert res.labels_added == () and res.comment == REPRO and res.changed is True
    quiet = Plan(repo="o/r", issue=7, decision="needs_reproduction",
                 add_labels=(PAR, "needs reproduction", "bot-triaged"), confidence="high",
                 queue="distributed")
    again = apply_plan(client, quiet, issue(labels=[TRIGGER, PAR, "needs reproduction",
                                                    "bot-triaged"]), Q)
    assert again.changed is False and again.writes == 0


# --- answers the applier must not misread (fresh-seed mutation survivors, #26 item 5) ---

class _OddAnswers(RecordingClient):
    """GitHub answers of another shape: the label POST gives no list, the comment POST
    no html_url (an Enterprise proxy, a stand-in): the applier reports what it knows."""

    def __init__(self, label_answer: Any, comment_answer: Any) -> None:
        super().__init__()
        self.label_answer, self.comment_answer = label_answer, comment_answer

    def write(self, method: str, path: str, body: Any = None, *, idempotent: bool,
              verify: Any = None) -> Any:
        super().write(method, path, body, idempotent=idempotent, verify=verify)
        return self.label_answer if path.endswith("/labels") else self.comment_answer


@pytest.mark.parametrize("label_answer", [None, {}, {"name": "x"}, "ok"])
def test_a_label_answer_that_is_no_list_keeps_the_known_labels(label_answer):
    client = _OddAnswers(label_answer, {"id": 1})
    p = _plan((PAR, "needs reproduction", "bot-triaged"), "needs_reproduction")
    res = apply_plan(client, p, issue(labels=[TRIGGER]), Q)
    # Nothing read back: the final labels are what the issue had (never an empty set,
    # never the keys of an object).
    assert res.final_labels == (TRIGGER,)
    assert res.comment == REPRO and res.comment_url == ""  # no html_url: no link, not "None"


def test_the_comment_link_is_the_answers_html_url():
    client = _OddAnswers([{"name": TRIGGER}], {"id": 1, "html_url": "https://x/1"})
    p = _plan((PAR,), "needs_reproduction")
    assert apply_plan(client, p, issue(labels=[TRIGGER]), Q).comment_url == "https://x/1"


def test_the_t24_note_names_the_high_priority_path():
    from agentops.triage.apply import plan_label_changes

    p = Plan(repo="o/r", issue=7, decision="high_priority",
             add_labels=(INFRA, "bot-triaged"), confidence="high", queue="distributed")
    changes = plan_label_changes(p, [TRIGGER], Q)
    assert "T-24: dropped 'bot-triaged' on the high-priority path" in changes.adjustments


@pytest.mark.parametrize("status", [500, 502, 503])
def test_a_graphql_error_with_a_server_status_is_not_a_missing_endpoint(status):
    # "GraphQL error" text with an HTTP status is the server failing, which REST shares:
    # no fallback, the error stands.
    client = _BatchClient({"a"})
    client.graphql_error = "GraphQL error: something odd"

    def fail(query: str, variables: Mapping[str, Any] | None = None, **_: Any):
        raise ApiError("GraphQL error: something odd", status_code=status)

    client.graphql = fail  # type: ignore[method-assign]
    with pytest.raises(ApiError):
        LabelChecker(client, "o/r").missing(["a"])  # type: ignore[arg-type]
    assert client.rest == []
