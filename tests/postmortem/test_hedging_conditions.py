"""P-5 hedging (#24, round 58, pm-fit23b): a hedge word inside the antecedent of a
condition, or among the alternatives a "whether" lists, supposes rather than asserts, so
it is no hedge; the same words outside a condition, after an open question ("unclear
if", "wonder whether") or after a memory frame ("if I remember right, ...") still are.
Each pair differs only in the condition, so a rule that stops reading the clause fails
one side. Sentences are made up."""

from __future__ import annotations

import pytest

from tests.postmortem.lintkit import hedges as _hedges


@pytest.mark.parametrize(("supposed", "asserted"), [
    ("The flag helps if the tarball was truncated somehow.",
     "The tarball was truncated somehow, and the flag helped."),
    ("A second mirror matters unless the primary is perhaps the only one users hit.",
     "The primary is perhaps the only one users hit."),
    ("In case the token was possibly copied, rotate it.",
     "The token was possibly copied, so we rotated it."),
    ("Nobody writes these up, whether from pride, haste or something else.",
     "Nobody wrote it up, out of pride, haste or something else."),
])
def test_condition_supposes(supposed: str, asserted: str) -> None:
    assert _hedges(supposed) == []
    assert _hedges(asserted)


@pytest.mark.parametrize("text", [
    "If I remember right, the queue was possibly full.",
    "We still wonder if the runner was perhaps reused.",
    "It is not clear whether it was the disk or something else.",
    "I never knew whether the cache was maybe cold.",
])
def test_open_questions_and_memory_frames_still_hedge(text: str) -> None:
    assert _hedges(text)
