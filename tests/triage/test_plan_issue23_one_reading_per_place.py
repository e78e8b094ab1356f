"""Issue #23 (T-13, round tr-fit19): the confidence a selective threshold reads counts
agreement between places (title, body, code, traceback, frame), each place once at its
strongest hit. Two signals that fire on the same words of one title are one reading of
that title, not two; the same component seen in the title and again in a trace is two.
Made-up hits and issues only."""

from __future__ import annotations

from agentops.triage.plan import confidence_score, read
from agentops.triage.queue import load_queue
from agentops.triage.signals import Hit
from tests.triage.plankit import make_issue, plan_ok, with_thresholds

NCCL = "module: nccl"
FACTOR = {"title": 1.5, "body": 1.0, "code": 1.0, "traceback": 1.0, "frame": 1.5,
          "comment": 0.7}


def _hit(signal: str, weight: float, where: str, places: set[str]) -> Hit:
    return Hit(signal=signal, label=NCCL, role=None, where=where, weight=weight,
               score=weight * FACTOR[where], places=frozenset(places))


def test_two_signals_in_one_place_count_once_at_the_strongest() -> None:
    strong = _hit("made_up_error", 3, "title", {"title"})
    word = _hit("made_up_word", 1, "title", {"title"})
    assert confidence_score([strong, word], FACTOR, 3) == strong.score == 4.5
    # Order does not matter, nor does a repeat of the same reading.
    assert confidence_score([word, strong, word], FACTOR, 3) == 4.5


def test_signals_in_different_places_still_add() -> None:
    title = _hit("made_up_error", 3, "title", {"title"})
    body = _hit("made_up_word", 1, "body", {"body"})
    trace = _hit("made_up_frame", 3, "traceback", {"traceback"})
    assert confidence_score([title, body], FACTOR, 3) == 4.5 + 1.0
    assert confidence_score([title, body, trace], FACTOR, 3) == 4.5 + 1.0 + 3.0


def test_corroboration_and_a_hit_of_that_place_are_one_reading() -> None:
    # An explicit hit seen in the title and in the code gains the code once; a second
    # signal found in that code adds nothing beyond the stronger of the two there.
    shown = _hit("made_up_api", 3, "title", {"title", "code"})
    in_code = _hit("made_up_import", 3, "code", {"code"})
    assert confidence_score([shown], FACTOR, 3) == 4.5 + 3.0
    assert confidence_score([shown, in_code], FACTOR, 3) == 4.5 + 3.0


def test_a_plan_reads_one_title_once() -> None:
    queue = load_queue("distributed")
    off = with_thresholds(queue)
    # A made-up title naming the backend twice: as its error and as a word.
    twice = make_issue("NCCL error during the first all_reduce with the NCCL backend",
                       "Rank 3 stops after the warmup step; logs attached below.")
    hits = read(twice, queue).label_hits[NCCL]
    assert len(hits) >= 2 and {h.where for h in hits} == {"title"}
    plan = plan_ok(twice, off)
    assert plan.scores[NCCL] == max(h.score for h in hits)
    assert plan.scores[NCCL] < sum(h.score for h in hits)  # the old count, per signal
