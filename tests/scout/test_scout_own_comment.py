"""The scout's own-comment check on its own (#26 item 5): ``agentops.scout.publish
.find_report_comment`` takes as "the report already posted" only a comment its own
identity wrote holding the same date and target; report-shaped comments of anyone else
are listed as ignored, never taken; and it asks only for comments since two days before
the report date."""

from __future__ import annotations

from typing import Any

import pytest

from agentops.github.identity import Identity
from agentops.github.provenance import Provenance
from agentops.scout import embedded
from agentops.scout.collect import REPORT_HEADING
from agentops.scout.publish import ReportFile, find_report_comment, is_same_report

ME = Identity("scout-bot", "GraphQL viewer")


def _author(client: Any) -> Provenance:
    """No signing key, no workflow to check runs against, and a personal account: the
    author rule (a comment is ours when this identity wrote it)."""
    prov = Provenance(client, "o/r", 1, ME)
    assert prov.mode == "author"
    return prov


def body(date: str = "2026-07-09", target: str | None = "torchtitan") -> str:
    payload: dict[str, Any] = {"date": date, "items": []}
    if target is not None:
        payload["target"] = target
    return embedded.embed(f"{REPORT_HEADING} — {date}\n\nnothing new\n", payload)


REPORT = ReportFile(path="r.md", markdown=body(), payload={"date": "2026-07-09",
                                                           "target": "torchtitan"})


class _Comments:
    def __init__(self, comments: list[dict[str, Any]]) -> None:
        self.comments = comments
        self.asked: list[tuple[str, Any]] = []

    def paginate(self, path: str, params: Any = None, **_: Any):
        self.asked.append((path, params))
        yield from self.comments


def comment(cid: int, login: str, text: str) -> dict[str, Any]:
    return {"id": cid, "user": {"login": login, "type": "Bot"}, "body": text,
            "html_url": f"https://github.com/o/r/issues/1#issuecomment-{cid}"}


def test_only_its_own_comment_of_the_same_report_is_taken() -> None:
    client = _Comments([
        comment(1, "mallory", body()),  # a look-alike by someone else
        comment(2, "scout-bot", "unrelated chatter"),
        comment(7, "eve", "thanks, same here"),  # not report-shaped: neither taken nor listed
        comment(3, "scout-bot", body(date="2026-07-08")),  # yesterday's report
        comment(4, "scout-bot", body(target="other")),
        comment(5, "SCOUT-BOT", body()),  # ours (logins compare case-insensitively)
        comment(6, "scout-bot", body()),  # a later copy: the oldest is the one
    ])
    found = find_report_comment(client, "o/r", 1, REPORT, _author(client))  # type: ignore[arg-type]
    assert found.own is not None and found.own["id"] == 5
    assert [c["id"] for c in found.ignored] == [1]
    assert client.asked == [("/repos/o/r/issues/1/comments",
                             {"since": "2026-07-07T00:00:00Z"})]


def test_nothing_of_its_own_means_no_report_yet() -> None:
    client = _Comments([comment(1, "mallory", body()), comment(2, "eve", body())])
    found = find_report_comment(client, "o/r", 1, REPORT, _author(client))  # type: ignore[arg-type]
    assert found.own is None and [c["id"] for c in found.ignored] == [1, 2]
    assert "ignored 2 report-like comment(s) not written by scout-bot" in found.ignored_note(ME)


@pytest.mark.parametrize(("text", "same"), [
    (body(), True),
    (body(target=None), True),  # an older report without a target
    (body(target=""), True),
    (body(target="other"), False),
    (body(date="2026-07-10"), False),
    ("x" + body(), False),  # the heading must open the comment
    (f"{REPORT_HEADING} — 2026-07-09\n\nno hidden block\n", False),
])
def test_is_same_report(text: str, same: bool) -> None:
    assert is_same_report(text, REPORT) is same


def test_a_report_without_a_target_matches_any_target() -> None:
    untargeted = ReportFile(path="r.md", markdown=body(target=None),
                            payload={"date": "2026-07-09"})
    assert is_same_report(body(target="other"), untargeted)


def test_a_comment_without_a_body_is_skipped() -> None:
    client = _Comments([{"id": 1, "user": {"login": "scout-bot"}, "body": None},
                        comment(2, "scout-bot", body())])
    found = find_report_comment(client, "o/r", 1, REPORT, _author(client))  # type: ignore[arg-type]
    assert found.own is not None and found.own["id"] == 2 and found.ignored == ()
