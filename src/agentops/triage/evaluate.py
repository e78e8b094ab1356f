"""Measure the planner on labelled issues (T-32), next to a plain keyword baseline.

Pure: records in, figures out. Each record is planned with only the labels the
first-level bot would have set (the queue's trigger label, plus its other keep labels
such as a compiler oncall where the humans had them); human module and sub-oncall
labels are never fed to the planner.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from agentops.triage.constraints import violations
from agentops.triage.model import Evidence, IssueSnapshot, Plan, Queue, Selective
from agentops.triage.plan import plan_issue
from agentops.triage.signals import keyword_regex

FIGURES = ("module_precision", "module_recall", "module_f1", "suboncall_accuracy",
           "triaged_precision", "triaged_coverage", "triaged_off_queue",
           "not_distributed_precision",
           "not_distributed_recall", "violations")


@dataclass(frozen=True)
class Record:
    """One labelled issue (the evaluation set's line)."""

    number: int
    title: str
    text: str
    human_labels: tuple[str, ...]
    modules: frozenset[str]
    suboncall: str | None  # short name as in the data set ("infra"), or None if unknown
    is_distributed: bool
    url: str = ""
    type: str | None = None
    state: str = ""

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Record:
        exp = obj["expected"]
        return cls(number=int(obj["number"]), title=str(obj.get("title") or ""),
                   text=str(obj.get("text") or ""),
                   human_labels=tuple(str(x) for x in obj.get("labels") or ()),
                   modules=frozenset(exp.get("modules") or ()), suboncall=exp.get("suboncall"),
                   is_distributed=bool(exp["is_distributed"]), url=str(obj.get("url") or ""),
                   type=exp.get("type"), state=str(obj.get("state") or ""))

    def to_json(self) -> dict[str, Any]:
        """The record as a line of a labelled set (what ``from_json`` reads back)."""
        return {"url": self.url, "number": self.number, "title": self.title,
                "state": self.state, "labels": list(self.human_labels), "text": self.text,
                "expected": {"modules": sorted(self.modules), "suboncall": self.suboncall,
                             "is_distributed": self.is_distributed, "type": self.type}}


def first_level_labels(record: Record, queue: Queue) -> tuple[str, ...]:
    """What the first-level bot would have set: the trigger label on queue issues, plus
    the keep labels (e.g. a compiler oncall) the humans also had."""
    out = [queue.trigger_label] if record.is_distributed else []
    human = {lb.casefold() for lb in record.human_labels}
    out += [k for k in queue.keep_labels if k != queue.trigger_label and k.casefold() in human]
    return tuple(out)


def snapshot_of(record: Record, queue: Queue) -> IssueSnapshot:
    """The record as an issue snapshot; its thread excerpt is the body."""
    repo = "/".join(record.url.split("/")[3:5]) if record.url.count("/") >= 5 else ""
    return IssueSnapshot(repo=repo, number=record.number, title=record.title,
                         body=record.text, labels=first_level_labels(record, queue),
                         url=record.url)


def suboncall_label(short: str | None, queue: Queue) -> str | None:
    """The sub-oncall label a short name ("infra") stands for (its last word)."""
    if not short:
        return None
    for sub in queue.suboncalls:
        if sub.rsplit(" ", 1)[-1].casefold() == short.casefold():
            return sub
    return None


# ------------------------------------------------------------------ the baseline

def keyword_planner(queue: Queue) -> Callable[[IssueSnapshot], Plan]:
    """A plain keyword baseline: a label's keywords appear -> the label."""
    pats = {lb: re.compile("|".join(keyword_regex(k) for k in kws), re.I)
            for lb, kws in queue.label_keywords.items() if kws}
    order = list(queue.rubric.precedence)

    def plan(snapshot: IssueSnapshot) -> Plan:
        text = f"{snapshot.title}\n{snapshot.body}"
        found = {lb for lb, p in pats.items() if p.search(text)}
        mods = [m for m in queue.modules if m in found]
        subs = [s for s in order if s in found] + [
            queue.module_suboncall[m] for m in mods]
        labels: list[str] = []
        if not found:
            labels = [queue.review_label, queue.marker_label]
            return Plan(repo=snapshot.repo, issue=snapshot.number, decision="not_distributed",
                        add_labels=tuple(labels), queue=queue.name)
        sub = next((s for s in order if s in subs), queue.rubric.default_route)
        labels = [sub, *mods, queue.marker_label]
        labels.append(queue.triaged_label if mods else queue.review_label)
        ev = tuple(Evidence(label=lb, signal="keyword", where="body") for lb in labels)
        return Plan(repo=snapshot.repo, issue=snapshot.number,
                    decision="classify" if mods else "low_confidence",
                    add_labels=tuple(dict.fromkeys(labels)), evidence=ev, queue=queue.name)

    return plan


# ------------------------------------------------------------------ scoring

@dataclass
class Scores:
    """Counts behind the figures of one planner."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    per_module: dict[str, list[int]] = field(default_factory=dict)  # [tp, fp, fn]
    sub_right: int = 0
    sub_total: int = 0
    triaged_right: int = 0
    triaged_total: int = 0
    # `triaged` plans on issues the humans did not keep in the queue: judged, and wrong
    # (in triaged_total, never in triaged_right); counted apart as well.
    triaged_off_queue: int = 0
    # Selective triage: distributed issues, and those the plan marks triaged (judged
    # against the human labels or not): the share triaged without a human.
    distributed: int = 0
    triaged_any: int = 0
    nd_tp: int = 0
    nd_fp: int = 0
    nd_fn: int = 0
    violations: int = 0
    errors: list[str] = field(default_factory=list)
    # `triaged` on issues a human finished triaging (issue #23, stop 39): queue issues with
    # a module or sub-oncall label, and issues routed away (``routed_away``). Beside the
    # figures above, never instead of them.
    judgeable_distributed: int = 0  # queue issues with a module or sub-oncall label
    judgeable_triaged: int = 0  # of those, marked `triaged`
    judgeable_total: int = 0  # `triaged` plans on judgeable issues (routed away too)
    judgeable_right: int = 0
    judgeable_off_queue: int = 0  # `triaged` plans on issues routed away

    def judgeable(self) -> dict[str, float | int | None]:
        """`triaged` precision and coverage counted only on judgeable issues, with the
        counts behind them (so a small denominator shows)."""
        return {"precision": _ratio(self.judgeable_right, self.judgeable_total),
                "right": self.judgeable_right, "judged": self.judgeable_total,
                "coverage": _ratio(self.judgeable_triaged, self.judgeable_distributed),
                "triaged": self.judgeable_triaged,
                "distributed": self.judgeable_distributed,
                "off_queue": self.judgeable_off_queue}

    def figures(self) -> dict[str, float | int | None]:
        p = _ratio(self.tp, self.tp + self.fp)
        rc = _ratio(self.tp, self.tp + self.fn)
        f1 = None if p is None or rc is None or p + rc == 0 else round(2 * p * rc / (p + rc), 4)
        return {
            "module_precision": p, "module_recall": rc, "module_f1": f1,
            "suboncall_accuracy": _ratio(self.sub_right, self.sub_total),
            "triaged_precision": _ratio(self.triaged_right, self.triaged_total),
            "triaged_coverage": _ratio(self.triaged_any, self.distributed),
            "triaged_off_queue": self.triaged_off_queue,
            "not_distributed_precision": _ratio(self.nd_tp, self.nd_tp + self.nd_fp),
            "not_distributed_recall": _ratio(self.nd_tp, self.nd_tp + self.nd_fn),
            "violations": self.violations,
        }


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def _prefix(label: str) -> str:
    """A label's scheme ("oncall:" of "oncall: distributed"), or "" without one."""
    head, sep, _ = label.partition(":")
    return f"{head.strip().casefold()}:" if sep else ""


def routed_away(record: Record, queue: Queue) -> bool:
    """The humans finished triaging this issue outside the queue: no trigger label, none
    of the queue's module or sub-oncall labels (with one of those the labels contradict
    each other: a queue label set, the queue's own not), and a mark of triage elsewhere:
    the `triaged` label, or another label of the trigger's or the modules' scheme (another
    team's oncall, another module). An issue with no such mark was never triaged."""
    if record.is_distributed:
        return False
    have = {lb.casefold() for lb in record.human_labels}
    ours = {lb.casefold() for lb in (queue.trigger_label, *queue.modules, *queue.suboncalls)}
    if have & ours:
        return False
    schemes = {_prefix(queue.trigger_label), *(_prefix(m) for m in queue.modules)} - {""}
    return queue.triaged_label.casefold() in have or any(
        _prefix(lb) in schemes for lb in have)


def score(records: Sequence[Record], plans: Sequence[Plan], queue: Queue) -> Scores:
    """Compare plans with the human labels (T-32 / issue #2 definitions)."""
    s = Scores()
    modules = set(queue.modules)
    for rec, plan in zip(records, plans, strict=True):
        fed = first_level_labels(rec, queue)
        s.violations += len(violations(plan, fed, queue))
        added = set(plan.add_labels)
        pred_mods = added & modules
        pred_sub = next((x for x in queue.suboncalls if x in added), None)
        want_sub = suboncall_label(rec.suboncall, queue)
        problems: list[str] = []
        in_mod = rec.is_distributed and bool(rec.modules)
        in_sub = rec.is_distributed and want_sub is not None
        if in_mod:
            for m in sorted(pred_mods | rec.modules):
                cell = s.per_module.setdefault(m, [0, 0, 0])
                if m in pred_mods and m in rec.modules:
                    s.tp += 1
                    cell[0] += 1
                elif m in pred_mods:
                    s.fp += 1
                    cell[1] += 1
                else:
                    s.fn += 1
                    cell[2] += 1
            if pred_mods != rec.modules:
                problems.append(f"modules {sorted(pred_mods)} vs {sorted(rec.modules)}")
        if in_sub:
            s.sub_total += 1
            if pred_sub == want_sub:
                s.sub_right += 1
            else:
                problems.append(f"sub-oncall {pred_sub!r} vs {want_sub!r}")
        if rec.is_distributed:
            s.distributed += 1
            s.triaged_any += queue.triaged_label in added
        if in_mod or in_sub:
            s.judgeable_distributed += 1
        if (in_mod or in_sub) and queue.triaged_label in added:
            s.triaged_total += 1
            ok = pred_mods <= rec.modules and (want_sub is None or pred_sub == want_sub)
            s.triaged_right += ok
            s.judgeable_triaged += 1
            s.judgeable_total += 1
            s.judgeable_right += ok
            if not ok:
                problems.append("marked triaged wrongly")
        elif not rec.is_distributed and queue.triaged_label in added:
            # The humans routed it away from the queue: the worst error issue #23 names,
            # since a `triaged` issue gets no second human look. Judged, and wrong.
            s.triaged_total += 1
            s.triaged_off_queue += 1
            if routed_away(rec, queue):
                s.judgeable_total += 1
                s.judgeable_off_queue += 1
            problems.append("marked triaged off the queue")
        said_nd = plan.decision == "not_distributed"
        if said_nd and not rec.is_distributed:
            s.nd_tp += 1
        elif said_nd:
            s.nd_fp += 1
            problems.append("called not distributed, but it is")
        elif not rec.is_distributed:
            s.nd_fn += 1
            problems.append("is not distributed, not flagged")
        if problems:
            s.errors.append(f"#{rec.number} {rec.title[:60]!r}: {plan.decision}; "
                            + "; ".join(problems))
    return s


@dataclass(frozen=True)
class OperatingPoint:
    """Selective triage at one scale of every threshold (1.0: as shipped)."""

    scale: float
    coverage: float | None  # distributed issues marked triaged, without a human
    precision: float | None  # of those the labels can judge, off-queue ones as wrong
    triaged: int
    off_queue: int = 0  # `triaged` plans on issues the humans routed away from the queue

    def to_json(self) -> dict[str, Any]:
        return {"scale": self.scale, "coverage": self.coverage, "precision": self.precision,
                "triaged": self.triaged, "off_queue": self.off_queue}


@dataclass(frozen=True)
class Evaluation:
    """Figures of the planner and of the baseline on one data set."""

    n: int
    planner: Scores
    baseline: Scores
    points: tuple[OperatingPoint, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"n": self.n, **self.planner.figures()}
        out["baseline"] = self.baseline.figures()
        out["precision_at_coverage"] = [p.to_json() for p in self.points]
        return out


# Threshold scales shown as precision at coverage (0: selective triage off; 1: shipped).
SCALES = (0.0, 0.5, 1.0, 1.5, 2.0)


def evaluate(records: Iterable[Record], queue: Queue, *,
             scales: Sequence[float] = SCALES) -> Evaluation:
    """Plan every record with the planner and the baseline, and score both; with
    ``scales``, also the selective-triage operating points (precision at coverage)."""
    recs = list(records)
    snaps = [snapshot_of(r, queue) for r in recs]
    ours = [plan_issue(s, queue) for s in snaps]
    base_plan = keyword_planner(queue)
    theirs = [base_plan(s) for s in snaps]
    points = []
    for factor in scales:
        q = queue if factor == 1.0 else scaled(queue, factor)
        plans = ours if factor == 1.0 else [plan_issue(s, q) for s in snaps]
        s = score(recs, plans, q)
        f = s.figures()
        points.append(OperatingPoint(scale=factor, coverage=f["triaged_coverage"],
                                     precision=f["triaged_precision"], triaged=s.triaged_any,
                                     off_queue=s.triaged_off_queue))
    return Evaluation(n=len(recs), planner=score(recs, ours, queue),
                      baseline=score(recs, theirs, queue), points=tuple(points))


def scaled(queue: Queue, factor: float) -> Queue:
    """The queue with every selective threshold (and the default) times ``factor``."""
    c = queue.confidence
    return replace(queue, confidence=replace(
        c, default=c.default * factor,
        thresholds={k: v * factor for k, v in c.thresholds.items()}))


def render_text(ev: Evaluation, *, source: str, modules_after_route: bool = False,
                confidence: Selective | None = None) -> str:
    """The side-by-side table, precision at coverage and per-module figures for people."""
    ours, base = ev.planner.figures(), ev.baseline.figures()
    lines = [f"evaluate: {ev.n} issues from {source}", "",
             f"{'figure':<28}{'planner':>10}{'baseline':>10}"]
    for k in FIGURES:
        lines.append(f"{k:<28}{_fmt(ours[k]):>10}{_fmt(base[k]):>10}")
    if ours["module_f1"] is not None and base["module_f1"]:
        lines.append(f"{'module F1 / baseline':<28}{ours['module_f1'] / base['module_f1']:>9.2f}x")
    if not modules_after_route:
        # Sanity: say why module recall has a ceiling, so nobody "fixes" it by guessing.
        lines += ["", "note: after an infra or checkpointing route the planner adds no module "
                      "label (T-12: the sub-team owns the rest);", "      those issues count "
                      "as module misses (labels.json config.modules_after_route)."]
    if ev.points:
        lines += ["", "selective triage: precision at coverage (coverage = share of the "
                      "distributed issues marked", "triaged without a human; precision = of "
                      "those the human labels can judge, a `triaged` plan on an issue the",
                  "humans routed away from the queue counted wrong; off-queue = those)"]
        if confidence is not None:
            lines.append(f"  thresholds: labels.json config.confidence, aimed at "
                         f"{confidence.target_precision:.0%} precision"
                         + (f", fitted on {confidence.fitted_on}" if confidence.fitted_on
                            else ""))
        lines.append(f"  {'thresholds':<16}{'coverage':>10}{'precision':>11}{'triaged':>9}"
                     f"{'off-queue':>11}")
        for p in ev.points:
            name = ("off" if p.scale == 0 else "as shipped" if p.scale == 1
                    else f"x{p.scale:g}")
            lines.append(f"  {name:<16}{_fmt(p.coverage):>10}{_fmt(p.precision):>11}"
                         f"{p.triaged:>9}{p.off_queue:>11}")
    lines += ["", "per module (planner | baseline): tp fp fn  P  R"]
    for m in sorted(set(ev.planner.per_module) | set(ev.baseline.per_module)):
        a = ev.planner.per_module.get(m, [0, 0, 0])
        c = ev.baseline.per_module.get(m, [0, 0, 0])
        lines.append(f"  {m:<34}{_cell(a)}  |  {_cell(c)}")
    return "\n".join(lines)


def _cell(c: list[int]) -> str:
    tp, fp, fn = c
    return (f"{tp:>2} {fp:>2} {fn:>2}  {_fmt(_ratio(tp, tp + fp)):>5} "
            f"{_fmt(_ratio(tp, tp + fn)):>5}")


def _fmt(v: float | int | None) -> str:
    if v is None:
        return "n/a"
    return str(v) if isinstance(v, int) else f"{v:.3f}"
