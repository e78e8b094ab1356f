"""Issue #23 (T-13, T-23): the confidence a selective threshold reads ranks a component
shown as the report's subject (named in the title AND called in the repro or run
through in the traceback) above the same component named once, so one global scale of
thresholds no longer trades the first for the second. Made-up issues only."""

from __future__ import annotations

from agentops.triage.plan import confidence_score, read
from agentops.triage.queue import load_queue
from agentops.triage.signals import Hit
from tests.triage.plankit import PAR, fence, make_issue, plan_ok, with_thresholds

DDP = "module: ddp"
FACTOR = {"title": 1.5, "body": 1.0, "code": 1.0, "traceback": 1.0, "frame": 1.5,
          "comment": 0.7}


def _hit(weight: float, where: str, places: set[str]) -> Hit:
    return Hit(signal="made_up", label=DDP, role=None, where=where, weight=weight,
               score=weight * FACTOR[where], places=frozenset(places))


def test_an_explicit_hit_gains_at_each_other_place_that_shows_it() -> None:
    once = _hit(3, "title", {"title"})
    shown = _hit(3, "title", {"title", "code", "traceback"})
    assert confidence_score([once], FACTOR, 3) == 4.5  # its score, nothing added
    assert confidence_score([shown], FACTOR, 3) == 4.5 + 3 + 3


def test_prose_repeats_and_weak_hits_do_not_gain() -> None:
    # A name repeated in the body or a comment is a mention, not a use; a keyword below
    # the explicit weight is a word, wherever it is.
    prose = _hit(3, "title", {"title", "body", "comment"})
    weak = _hit(2, "title", {"title", "code", "traceback"})
    assert confidence_score([prose], FACTOR, 3) == prose.score
    assert confidence_score([weak], FACTOR, 3) == weak.score
    # Several hits in one place are one reading of it, at the strongest (round tr-fit19:
    # test_plan_issue23_one_reading_per_place.py); in different places they add.
    assert confidence_score([prose, weak], FACTOR, 3) == max(prose.score, weak.score)
    body = _hit(2, "body", {"body"})
    assert confidence_score([prose, body], FACTOR, 3) == prose.score + body.score


SHOWN_BODY = (
    "After a good torchrun launch on 2 GPUs the first backward fails.\n"
    + fence("import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
            "model = DDP(net.cuda(rank), device_ids=[rank])\nloss = model(x).sum()\n"
            "loss.backward()")
)
ONCE_BODY = "Our training script became slow after the upgrade; no code to share yet."


def test_a_shown_subject_is_triaged_where_a_title_mention_is_held() -> None:
    queue = load_queue("distributed")
    shown = make_issue("DistributedDataParallel fails in backward after launch", SHOWN_BODY)
    once = make_issue("DistributedDataParallel training is slow", ONCE_BODY, number=2)
    off = with_thresholds(queue)
    shown_sure = plan_ok(shown, off).scores[DDP]
    once_sure = plan_ok(once, off).scores[DDP]
    assert shown_sure > once_sure  # the ranking the thresholds rely on
    # Plain evidence (each hit at its best place) does not tell the two apart: the same
    # one API signal, in the title both times.
    plain = [sum(h.score for h in read(s, queue).label_hits[DDP]) for s in (shown, once)]
    assert plain[0] == plain[1]
    # The plan carries that plain sum by name beside the corroborated score (issue #23:
    # module choice reads the one, the selective threshold the other).
    assert plan_ok(shown, off).plain_scores[DDP] == plain[0] < shown_sure
    # One threshold between them: the shown report is triaged, the mention is not.
    q = with_thresholds(queue, {DDP: (shown_sure + once_sure) / 2})
    got = plan_ok(shown, q)
    assert got.add_labels[:2] == (PAR, DDP) and "triaged" in got.add_labels
    held = plan_ok(once, q)
    assert "triaged" not in held.add_labels and DDP in held.add_labels
    assert f"confidence {once_sure:g}" in held.reasoning
