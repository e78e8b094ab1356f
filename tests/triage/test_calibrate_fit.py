"""agentops.triage.calibrate's arithmetic (issue #23, T-23): how a label's threshold is
fitted from judged points (shrunk estimate, ties kept together, the never-wrong and
never-enough cases), when a label's own record replaces its family's pool, a plan's
confidence (its least sure decided label) and the calibration bands. Points, plans and
issues are made up for this file; no labelled issue's text."""

from __future__ import annotations

import json

import pytest

from agentops.triage import calibrate
from agentops.triage.calibrate import (
    Band,
    Judged,
    Shape,
    _threshold,
    calibration,
    fit_thresholds,
    plan_confidence,
    plan_shape,
    thresholds_json,
)
from agentops.triage.evaluate import Record, snapshot_of
from agentops.triage.model import Plan, Selective
from agentops.triage.plan import read
from tests.triage.plankit import fence, make_issue

PAR = "oncall: distributed parallelisms"
CKPT = "oncall: distributed checkpointing"


def _pts(*marks: tuple[float, bool], label: str = "module: fsdp") -> list[Judged]:
    return [Judged(label, s, r) for s, r in marks]


def test_a_label_never_wrong_needs_no_threshold():
    assert _threshold(_pts((1.0, True), (2.0, True), (9.0, True)), 0.8, 0.9) == 0.0


def test_the_threshold_is_the_least_score_whose_selection_reaches_the_target():
    # Walking down: 9 -> (1+.5)/2 = .75; 7 -> 2.5/3 = .83 (reaches); 5 wrong -> .63;
    # 3 -> 3.5/5 = .70. Only the selection down to 7 reaches 0.8.
    pts = _pts((3.0, True), (9.0, True), (5.0, False), (7.0, True))
    assert _threshold(pts, 0.8, 0.5) == 7.0


def test_a_lower_score_that_reaches_the_target_again_wins():
    # 9 -> .75; 7 wrong -> .5; then right at 5, 4, 3, 2: .63, .70, .75, .79; at 1 right
    # 6.5/8 = .81: the whole selection reaches it, down to 1.
    pts = _pts((9.0, True), (7.0, False), (5.0, True), (4.0, True), (3.0, True), (2.0, True),
               (1.0, True))
    assert _threshold(pts, 0.8, 0.5) == 1.0


def test_points_with_the_same_score_are_kept_or_dropped_together():
    # Two 8s right (2.5/3 = .83 reaches); at 6 one right and one wrong: taking only the
    # right one would read .875, but a threshold of 6 keeps both: 3.5/5 = .70.
    pts = _pts((8.0, True), (8.0, True), (6.0, True), (6.0, False))
    assert _threshold(pts, 0.8, 0.5) == 8.0


def test_no_selection_reaching_the_target_puts_the_threshold_past_the_best_score():
    pts = _pts((6.0, False), (4.0, True), (3.0, False))
    assert _threshold(pts, 0.95, 0.5) == 6.5


def test_the_prior_shrinks_a_small_perfect_record():
    # One right point: (1 + 1 * prior) / 2 reaches .95 only with a prior of .9 or more.
    assert _threshold(_pts((5.0, True)), 0.95, 0.9) == 0.0
    assert _threshold(_pts((5.0, True)), 0.95, 0.5) == 5.5


def _fit_on(monkeypatch, queue, points: list[Judged]):
    """fit_thresholds on made-up judged points (the planner is not what is tested)."""
    monkeypatch.setattr(calibrate, "plan_issue", lambda snap, q: None)
    monkeypatch.setattr(calibrate, "snapshot_of", lambda rec, q: None)
    monkeypatch.setattr(calibrate, "judged_labels", lambda recs, plans, q: list(points))
    return fit_thresholds([object()] * 3, queue, target=0.8)  # type: ignore[list-item]


# The family pool of the parallelisms modules: fsdp's points below plus ddp's.
_DDP = _pts((9.0, True), (8.0, True), (7.0, False), (6.0, False), label="module: ddp")


def test_a_label_judged_twice_gets_its_own_threshold(monkeypatch, queue):
    own = _pts((5.0, True), (4.0, True))
    sel = _fit_on(monkeypatch, queue, own + _DDP)
    assert sel.thresholds["module: fsdp"] == 0.0  # never wrong: its own record stands
    # ddp's own four points (prior: the family's 4 right of 6): 9, 8 right reach .8.
    assert sel.thresholds["module: ddp"] == 8.0
    assert sel.fitted_on == "3 labelled issues" and sel.target_precision == 0.8


def test_a_label_judged_once_takes_its_familys_threshold(monkeypatch, queue):
    own = _pts((5.0, True))
    sel = _fit_on(monkeypatch, queue, own + _DDP)
    pooled = sel.thresholds["module: pipelining"]  # never judged: the family's
    assert sel.thresholds["module: fsdp"] == pooled
    # The pool (3 right of 5) walked down with its own rate as the prior: 9 reaches .8
    # (1.6/2), 8 too (2.6/3); from 7 on it stays below, so 8.
    assert pooled == 8.0


def test_a_few_wrong_points_of_a_label_are_not_hidden_in_a_right_family(monkeypatch, queue):
    """Issue #23: a module whose plans went wrong twice at low scores (on issues the humans
    routed away from the queue) beside one right at a high score, in a family that is
    otherwise always right. Its own record, shrunk towards the family's rate, asks for
    the high score; the pool would take the family's zero and let the low ones through
    (what a support of five did to a label judged three times)."""
    mine = _pts((7.5, True), (4.5, False), (3.0, False), label="module: data parallel")
    family = _pts(*((float(s), True) for s in range(1, 21)))
    sel = _fit_on(monkeypatch, queue, mine + family)
    assert sel.thresholds["module: data parallel"] == 7.5
    assert sel.thresholds["module: pipelining"] < 3.0  # the pool: 21 right of 23


def test_the_family_prior_is_the_pools_rate_not_the_target(monkeypatch, queue):
    # The pool is right once in two (prior .5): at 9, (1 + .5) / 2 = .75 misses .8, so no
    # score is enough. The target (.8) as prior would read (1 + .8) / 2 = .9 and pass 9.
    pts = _pts((9.0, True), (2.0, False))
    sel = _fit_on(monkeypatch, queue, pts)
    assert sel.thresholds["module: fsdp"] == 9.5
    assert sel.default == 9.5  # every module pooled: the same two points


def test_labels_of_another_family_do_not_move_a_familys_threshold(monkeypatch, queue):
    sel = _fit_on(monkeypatch, queue, _pts((9.0, False), (8.0, False), label=CKPT))
    assert sel.thresholds["module: fsdp"] == 0.0  # nothing judged in its family
    assert sel.thresholds[CKPT] == 9.5 == sel.thresholds[PAR]  # sub-oncalls pooled


def test_a_plans_confidence_is_its_least_sure_decided_label(queue):
    plan = Plan(repo="o/r", issue=1, decision="classify",
                add_labels=(PAR, "module: fsdp", "module: ddp", "triaged"),
                scores={PAR: 7.0, "module: fsdp": 4.5, "module: ddp": 6.0,
                        "module: dtensor": 1.0,  # scored but not added
                        "triaged": 0.5})  # not a module or sub-oncall
    assert plan_confidence(plan, queue) == 4.5


def test_a_plan_adding_nothing_it_scored_has_no_confidence(queue):
    plan = Plan(repo="o/r", issue=1, decision="classify", add_labels=("triaged",),
                scores={"module: fsdp": 4.0})
    assert plan_confidence(plan, queue) is None


def test_calibration_bands_are_contiguous_and_the_last_is_open(queue):
    assert calibration([], queue, bands=(0.0, 3.0, 6.0)) == [
        Band(0.0, 3.0, 0, 0), Band(3.0, 6.0, 0, 0), Band(6.0, None, 0, 0)]


@pytest.mark.parametrize(("shape", "text"), [
    (Shape("route", 0, True, 1, "-"), "route mods=0 title/trace 1x against=-"),
    (Shape("classify", 2, False, 2, "owner"), "classify mods=2+ prose/code 2+x against=owner"),
    (Shape("human", 1, True, 2, "contender"), "human mods=1 title/trace 2+x against=contender"),
])
def test_a_shape_prints_two_as_two_or_more(shape, text):
    assert str(shape) == text


def test_a_routed_plan_without_modules_is_shaped_by_its_own_suboncall(queue):
    # The checkpointing route is named in the title twice; the first sub-oncall of the
    # queue (parallelisms) is named nowhere and must not stand in for it.
    snap = make_issue("DCP checkpoint save hangs", "dcp.save hangs on rank 1 with "
                      "torch.distributed.checkpoint")
    plan = Plan(repo=snap.repo, issue=1, decision="route", add_labels=(CKPT, "triaged"),
                scores={CKPT: 9.0})
    shape = plan_shape(plan, read(snap, queue), queue)
    assert shape == Shape("route", 0, True, 2, "-")


def test_fitted_thresholds_round_trip_through_the_queue_config():
    from agentops.triage.queue import _selective

    sel = Selective(target_precision=0.9, default=4.5, fitted_on="12 labelled issues",
                    thresholds={PAR: 3.0, "module: fsdp": 6.0})
    raw = thresholds_json(sel)
    assert list(raw["thresholds"]) == ["module: fsdp", PAR]  # sorted: a stable file diff
    assert _selective(json.loads(json.dumps(raw))) == sel


_TITLE = "DTensor redistribute from Shard(0) to Replicate() gives a wrong local shape"
_BODY = ("After the redistribute the local tensor has 2 rows instead of 8.\n"
         + fence("dt = distribute_tensor(torch.randn(8, 4), mesh, [Shard(0)])\n"
                 "print(dt.redistribute(mesh, [Replicate()]).to_local().shape)"))


def _record(number: int, modules: tuple[str, ...], sub: str | None) -> Record:
    return Record.from_json({"number": number, "title": _TITLE, "text": _BODY, "labels": [],
                             "expected": {"modules": list(modules), "suboncall": sub,
                                          "is_distributed": True}})


def test_calibration_counts_only_triaged_plans_the_labels_can_judge(queue):
    recs = [_record(1, ("module: dtensor",), "parallelisms"),  # right
            _record(2, ("module: fsdp",), "parallelisms"),     # wrong module
            _record(3, (), None), _record(4, (), None)]        # nothing to judge by
    bands = calibration(recs, queue)
    assert [b.low for b in bands] == list(calibrate.BANDS)
    used = [b for b in bands if b.judged]
    assert [(b.judged, b.right, b.precision) for b in used] == [(2, 1, 0.5)]
    # The band is the one holding the plan's confidence (the same issue text each time).
    base = calibrate.unthresholded(queue)
    conf = plan_confidence(calibrate.plan_issue(snapshot_of(recs[0], base), base), base)
    assert conf is not None and used[0].low <= conf
    assert used[0].high is None or conf < used[0].high


def test_the_ablation_counts_each_way_a_plan_disagrees_with_the_humans(queue):
    rec = _record(5, ("module: fsdp",), "parallelisms")
    right = Plan(repo="o/r", issue=5, decision="classify",
                 add_labels=(PAR, "module: fsdp", "triaged"))
    # An extra module and a missed one, and the `triaged` mark on that wrong plan.
    wrong = Plan(repo="o/r", issue=5, decision="classify",
                 add_labels=(PAR, "module: dtensor", "triaged"))
    assert calibrate._problems(rec, right, queue) == 0
    assert calibrate._problems(rec, wrong, queue) == 3
