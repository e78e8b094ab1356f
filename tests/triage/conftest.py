"""Fixtures of the triage planner tests, and the ``--update-golden`` option.

Run ``pytest tests/triage --update-golden`` to rewrite tests/golden/triage/*.plan.json
from examples/triage/issues/*.json; review the diff before committing.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from agentops.triage.model import Comment, IssueSnapshot, Queue
from agentops.triage.queue import load_queue


@pytest.fixture(scope="session")
def queue() -> Queue:
    return load_queue("distributed")


def make_issue(title: str, body: str = "", labels: Sequence[str] = ("oncall: distributed",),
               comments: Sequence[Comment] = (), number: int = 1) -> IssueSnapshot:
    """A hand-written issue snapshot (repo example-org/example-ml)."""
    return IssueSnapshot(repo="example-org/example-ml", number=number, title=title, body=body,
                         labels=tuple(labels), comments=tuple(comments))
