"""Selective triage, fitted and checked on labelled issues (issue #10).

Pure: records and a queue in, thresholds and figures out. Three things:

- ``fit_thresholds``: per label (each module and sub-oncall), the least evidence score
  at which the planner's choice of that label was right often enough on the labelled
  issues (``target_precision``, a precision estimate shrunk towards the pooled one so a
  label seen three times cannot claim 100 %). Labels seen once or never take their
  family's pooled threshold. These are the numbers in labels.json ``config.confidence``.
- ``kfold``: split the issues into k folds by issue, fit on k-1 folds, plan the held-out
  fold with what was fitted, and score every issue from the run that never saw it. The
  figures that matter are these; the full-set figures (fit and checked on the same
  issues) are printed next to them only to show the gap.
- ``ablation``: each rubric signal removed in turn, with the issues it fixes and breaks
  and the number of folds it fixes any in (a rule that helps one fold only is fitted).

Precision at coverage (every threshold scaled) is part of ``evaluate`` itself.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace

from agentops.triage.evaluate import (
    Record,
    Scores,
    score,
    snapshot_of,
    suboncall_label,
)
from agentops.triage.model import Plan, Queue, Selective
from agentops.triage.plan import Reading, plan_issue, read

# How many judged issues a label's own estimate needs before it replaces its kind's pool.
# Two: the estimate is already shrunk towards the pool (PRIOR_WEIGHT), so a few points
# of a label are its record, not noise to drop (issue #23: at five, a module wrong on
# two issues routed away from the queue and right on one took its family's zero).
MIN_SUPPORT = 2
# Weight (in issues) of the pooled precision in each label's estimate.
PRIOR_WEIGHT = 1.0


@dataclass(frozen=True)
class Judged:
    """One label the planner added, with its evidence score and whether the humans
    agreed (only where the labelled issue says: modules where the humans set some or
    routed the issue, the sub-oncall where it is known)."""

    label: str
    score: float
    right: bool


def unthresholded(queue: Queue) -> Queue:
    """The queue with selective triage off: the planner's own choices, to fit on."""
    return replace(queue, confidence=Selective(
        target_precision=queue.confidence.target_precision, default=0.0, thresholds={}))


def judged_labels(records: Sequence[Record], plans: Sequence[Plan],
                  queue: Queue) -> list[Judged]:
    """Every scored label a plan added that the records can judge (on an issue routed
    away from the queue, the labels of a plan marked `triaged`: ``_off_queue_points``)."""
    out: list[Judged] = []
    modules = set(queue.modules)
    for rec, plan in zip(records, plans, strict=True):
        if not rec.is_distributed:
            out.extend(_off_queue_points(plan, queue))
            continue
        want_sub = suboncall_label(rec.suboncall, queue)
        for label, value in plan.scores.items():
            if label not in plan.add_labels:
                continue
            if label in modules and (rec.modules or want_sub is not None):
                # A module proposed where the humans routed the issue and set none is
                # judged wrong, as evaluate's `triaged` precision judges that plan: the
                # thresholds must see the mistake the figure they are fitted for counts.
                out.append(Judged(label, value, label in rec.modules))
            elif label in queue.suboncalls and want_sub is not None:
                out.append(Judged(label, value, label == want_sub))
    return out


def _off_queue_points(plan: Plan, queue: Queue) -> list[Judged]:
    """A plan marked `triaged` on an issue the humans routed away from the queue is a
    wrong `triaged` in evaluate (issue #23), so its thresholds must see it too: each
    label the claim rests on is judged wrong, the modules it adds, or its sub-oncall
    when it adds none (on the module path the sub-oncall is the module's owner, not
    evidence of its own). A plan not marked `triaged` there is not counted by the
    figure, and judges nothing."""
    if queue.triaged_label not in plan.add_labels:
        return []
    added = [lb for lb in plan.add_labels if lb in plan.scores]
    decided = [lb for lb in added if lb in queue.modules] \
        or [lb for lb in added if lb in queue.suboncalls]
    return [Judged(lb, plan.scores[lb], False) for lb in decided]


def _estimate(right: int, n: int, prior: float) -> float:
    return (right + PRIOR_WEIGHT * prior) / (n + PRIOR_WEIGHT)


def _threshold(points: Sequence[Judged], target: float, prior: float) -> float:
    """The least score whose selection reaches ``target`` (shrunk estimate); 0 (the
    planner's own floor decides) when the label was never wrong, however weak its
    evidence was; past the highest score seen when no score reaches it (the label then
    needs more than was ever enough)."""
    if points and all(j.right for j in points) and \
            _estimate(len(points), len(points), prior) >= target:
        return 0.0
    ordered = sorted(points, key=lambda j: -j.score)
    best: float | None = None
    right = n = 0
    for i, j in enumerate(ordered):
        right += j.right
        n += 1
        if i + 1 < len(ordered) and ordered[i + 1].score == j.score:
            continue  # a threshold keeps every point with the same score
        if _estimate(right, n, prior) >= target:
            best = j.score
    if best is None:
        return round(ordered[0].score + 0.5, 3) if ordered else 0.0
    return round(best, 3)


def fit_thresholds(records: Sequence[Record], queue: Queue, *,
                   target: float | None = None) -> Selective:
    """Per-label thresholds for ``target`` precision from ``records`` (see module doc).

    Every module and sub-oncall gets one: its own when the records judged it at least
    MIN_SUPPORT times, else the one fitted on its family pooled (a sub-oncall's modules
    together, the same humans labelling them the same way; the sub-oncalls together).
    ``default`` is the threshold of all modules pooled, for a label added later."""
    target = queue.confidence.target_precision if target is None else target
    base = unthresholded(queue)
    plans = [plan_issue(snapshot_of(r, base), base) for r in records]
    points = judged_labels(records, plans, base)

    def family(label: str) -> str:
        return queue.module_suboncall.get(label, "sub-oncalls")

    by_label: dict[str, list[Judged]] = {}
    by_family: dict[str, list[Judged]] = {}
    for j in points:
        by_label.setdefault(j.label, []).append(j)
        by_family.setdefault(family(j.label), []).append(j)

    def fitted(pool: list[Judged], prior: float) -> float:
        return _threshold(pool, target, prior) if pool else 0.0

    modules = [j for j in points if j.label in queue.modules]
    thresholds: dict[str, float] = {}
    for label in (*queue.suboncalls, *queue.modules):
        pool = by_family.get(family(label), [])
        prior = sum(j.right for j in pool) / len(pool) if pool else target
        mine = by_label.get(label, [])
        thresholds[label] = (fitted(mine, prior) if len(mine) >= MIN_SUPPORT
                             else fitted(pool, prior))
    prior = sum(j.right for j in modules) / len(modules) if modules else target
    return Selective(target_precision=target, default=fitted(modules, prior),
                     thresholds=thresholds, fitted_on=f"{len(records)} labelled issues")


def fold_of(number: int, k: int) -> int:
    """The fold of an issue: a stable hash of its number (the same split every run)."""
    return int(hashlib.sha256(str(number).encode()).hexdigest(), 16) % k


@dataclass(frozen=True)
class KFold:
    """Out-of-fold plans (each issue planned with thresholds fitted without it)."""

    k: int
    plans: tuple[Plan, ...]
    folds: tuple[Selective, ...]
    scores: Scores


def kfold(records: Sequence[Record], queue: Queue, *, k: int = 5,
          target: float | None = None, scale: float = 1.0) -> KFold:
    """Fit on k-1 folds, plan the held-out one; score every issue out of fold. With
    ``scale``, every fitted threshold times it (an out-of-fold coverage/precision curve)."""
    if k < 2:
        raise ValueError("k-fold needs k >= 2")
    fold = [fold_of(r.number, k) for r in records]
    plans: list[Plan | None] = [None] * len(records)
    fitted: list[Selective] = []
    for i in range(k):
        train = [r for r, f in zip(records, fold, strict=True) if f != i]
        sel = fit_thresholds(train, queue, target=target)
        if scale != 1.0:
            sel = replace(sel, default=sel.default * scale,
                          thresholds={lb: v * scale for lb, v in sel.thresholds.items()})
        fitted.append(sel)
        q = replace(queue, confidence=sel)
        for j, r in enumerate(records):
            if fold[j] == i:
                plans[j] = plan_issue(snapshot_of(r, q), q)
    done = [p for p in plans if p is not None]
    return KFold(k=k, plans=tuple(done), folds=tuple(fitted),
                 scores=score(records, done, queue))


def thresholds_json(sel: Selective) -> dict[str, object]:
    """``config.confidence`` as labels.json holds it."""
    return {
        "description": "Selective triage (issue #10): per-label evidence thresholds below "
                       "which the bot does not act on a label by itself: a module below its "
                       "threshold is only proposed and a route below its threshold only "
                       "made, and the issue is flagged for review instead of marked "
                       "triaged. Fitted by benchmarks/triage_kfold.py --write for "
                       "target_precision per label; 'default' covers labels seen too "
                       "rarely to fit.",
        "target_precision": sel.target_precision,
        "default": sel.default,
        "thresholds": dict(sorted(sel.thresholds.items())),
        "fitted_on": sel.fitted_on,
    }



def _problems(rec: Record, plan: Plan, queue: Queue) -> int:
    """How many ways one plan disagrees with the humans (module misses and extras, a
    wrong sub-oncall, a wrong ``triaged``, a wrong not-distributed call)."""
    s = score([rec], [plan], queue)
    return (s.fp + s.fn + (s.sub_total - s.sub_right)
            + (s.triaged_total - s.triaged_right) + s.nd_fp + s.nd_fn)


@dataclass(frozen=True)
class SignalEffect:
    """What one rubric signal does on labelled issues: the issues it fixes and breaks
    (planned without it), and in how many folds it fixes one."""

    signal: str
    fixes: tuple[int, ...]
    breaks: tuple[int, ...]
    folds: int


def ablation(records: Sequence[Record], queue: Queue, *, k: int = 5) -> list[SignalEffect]:
    """Each signal removed in turn (thresholds off): a signal that fixes issues in one
    fold only is fitted to that fold, not a rule (issue #10)."""
    base_q = unthresholded(queue)
    plans = [plan_issue(snapshot_of(r, base_q), base_q) for r in records]
    before = [_problems(r, p, base_q) for r, p in zip(records, plans, strict=True)]
    out = []
    for sig in base_q.rubric.signals:
        rubric = replace(base_q.rubric,
                         signals=tuple(s for s in base_q.rubric.signals if s.id != sig.id))
        q = replace(base_q, rubric=rubric)
        without = [_problems(r, plan_issue(snapshot_of(r, q), q), q) for r in records]
        fixes = tuple(r.number for r, a, b in zip(records, before, without, strict=True) if a < b)
        breaks = tuple(r.number for r, a, b in zip(records, before, without, strict=True)
                       if a > b)
        folds = len({fold_of(n, k) for n in fixes})
        out.append(SignalEffect(signal=sig.id, fixes=fixes, breaks=breaks, folds=folds))
    return out


# ------------------------------------------------------------------ calibration (issue #23)

# Bands of a plan's confidence score (the least evidence score among the labels it
# decides on its own): what the calibration table groups by.
BANDS = (0.0, 3.0, 4.5, 6.0, 9.0)


def plan_confidence(plan: Plan, queue: Queue) -> float | None:
    """A plan's confidence score: the weakest confidence (``plan.confidence_score``, what
    the selective thresholds read) among the modules and the sub-oncall it adds (a plan
    is as sure as its least sure part); None when it adds none it scored (an existing
    route, a human's labels)."""
    added = set(plan.add_labels)
    scored = [v for k, v in plan.scores.items()
              if k in added and (k in queue.modules or k in queue.suboncalls)]
    return min(scored) if scored else None


@dataclass(frozen=True)
class Band:
    """Precision of one confidence band: of the plans in it that would be triaged with
    the thresholds off and that the labels can judge, how many were right."""

    low: float
    high: float | None
    judged: int
    right: int

    @property
    def precision(self) -> float | None:
        return round(self.right / self.judged, 4) if self.judged else None


def calibration(records: Sequence[Record], queue: Queue,
                bands: Sequence[float] = BANDS) -> list[Band]:
    """Precision per confidence band on ``records`` (held-out ones: fit nothing here).
    Plans are made with selective triage off, so every plan the planner would call done
    is in a band; a right one has modules within the humans' and the right sub-oncall,
    and one on an issue the humans routed away from the queue is judged wrong."""
    base = unthresholded(queue)
    counts = [[0, 0] for _ in bands]
    for rec in records:
        plan = plan_issue(snapshot_of(rec, base), base)
        if base.triaged_label not in plan.add_labels:
            continue
        s = score([rec], [plan], base)
        if not s.triaged_total:
            continue
        conf = plan_confidence(plan, base)
        i = max((k for k, lo in enumerate(bands) if conf is not None and conf >= lo),
                default=0)
        counts[i][0] += 1
        counts[i][1] += s.triaged_right
    return [Band(low=lo, high=bands[k + 1] if k + 1 < len(bands) else None,
                 judged=n, right=r) for k, (lo, (n, r)) in enumerate(zip(bands, counts,
                                                                         strict=True))]


# ------------------------------------------------------------------ shapes (issue #23)

_SHOWN_PLACES = frozenset({"title", "traceback", "frame", "top_frame"})


@dataclass(frozen=True, order=True)
class Shape:
    """The general shape of a plan marked `triaged` (issue #23, calibration round): on
    new issues the wrong plans were confident, so the calibration asks which shapes have
    a record of being right, not which scores. Nothing about one issue is kept."""

    decided_by: str  # "route" (T-12, infra or checkpointing), "classify" (T-13), "human"
    modules: int  # modules the plan adds: 0, 1, or 2 for two or more
    shown: bool  # every decided label is named in the title or a trace, not only prose/code
    mentions: int  # signals naming the least-named decided label: 1, or 2 for two or more
    against: str  # evidence against in step 1: "-", "contender", "owner" or "ownerless"

    def __str__(self) -> str:
        return (f"{self.decided_by} mods={self.modules}{'+' if self.modules == 2 else ''} "
                f"{'title/trace' if self.shown else 'prose/code'} "
                f"{self.mentions}{'+' if self.mentions == 2 else ''}x against={self.against}")


def plan_shape(plan: Plan, reading: Reading, queue: Queue) -> Shape | None:
    """The shape of ``plan`` (None unless it is marked `triaged`); ``reading`` is the
    issue's text as the planner read it (``plan.read``)."""
    added = set(plan.add_labels)
    if queue.triaged_label not in added:
        return None
    mods = [m for m in queue.modules if m in added]
    sub = next((x for x in queue.suboncalls if x in added), None)
    decided = mods or ([sub] if sub else [])
    hits_per_label = [reading.label_hits.get(lb, []) for lb in decided]
    shown = bool(hits_per_label) and all(any(h.places & _SHOWN_PLACES for h in hs)
                                         for hs in hits_per_label)
    mentions = min((len(hs) for hs in hits_per_label), default=0)
    signals = {e.signal for e in plan.evidence if e.stance == "against"}
    rubric = queue.rubric
    against = ("contender" if signals & rubric.contenders
               else "owner" if signals - rubric.ownerless
               else "ownerless" if signals else "-")
    decided_by = {"route": "route", "classify": "classify"}.get(plan.decision, "human")
    return Shape(decided_by=decided_by, modules=min(len(mods), 2), shown=shown,
                 mentions=min(max(mentions, 1), 2), against=against)


# The columns of a shape's record, in the order shape_record counts them.
RIGHT, WRONG, OFF_QUEUE, UNJUDGED = range(4)


def shape_record(records: Sequence[Record], plans: Sequence[Plan],
                 queue: Queue) -> dict[Shape, list[int]]:
    """Per shape of the plans marked `triaged`: [right, wrong, off-queue, unjudged] as
    evaluate judges them (off-queue: the humans sent the issue away from the queue;
    unjudged: in the queue, but with no human module or sub-oncall to judge by)."""
    out: dict[Shape, list[int]] = {}
    for rec, plan in zip(records, plans, strict=True):
        shape = plan_shape(plan, read(snapshot_of(rec, queue), queue), queue)
        if shape is None:
            continue
        out.setdefault(shape, [0, 0, 0, 0])[_judged(rec, plan, queue)] += 1
    return out


def _judged(rec: Record, plan: Plan, queue: Queue) -> int:
    """The column of ``shape_record`` one triaged plan counts in, as ``score`` judges it
    (which also decides what is off the queue)."""
    judged = score([rec], [plan], queue)
    if judged.triaged_off_queue:
        return OFF_QUEUE
    if not judged.triaged_total:
        return UNJUDGED
    return RIGHT if judged.triaged_right else WRONG
