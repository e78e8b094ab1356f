"""benchmarks/triage_loso.py (issue #23): each released set is planned with thresholds
fitted without it, and every wrong `triaged` plan gets one class. Made-up records only."""

from __future__ import annotations

import sys

import pytest

from agentops.triage.evaluate import Record
from agentops.triage.model import Plan
from agentops.triage.queue import load_queue
from benchmarks import triage_loso as lo

Q = load_queue("distributed")
PAR = "oncall: distributed parallelisms"
INFRA = "oncall: distributed infra"


def _rec(number: int, *, dist: bool = True, modules: tuple[str, ...] = (),
         sub: str | None = None) -> Record:
    return Record(number=number, title="made-up report", text="", human_labels=(),
                  modules=frozenset(modules), suboncall=sub, is_distributed=dist, url="",
                  type=None, state="")


def _plan(*labels: str) -> Plan:
    return Plan(repo="o/r", issue=1, decision="classify", add_labels=labels)


@pytest.mark.parametrize(("rec", "plan", "want"), [
    (_rec(1, dist=False), _plan(Q.triaged_label, PAR), "off_queue"),
    (_rec(2, sub="infra"), _plan(Q.triaged_label, "module: fsdp", INFRA), "no_module"),
    (_rec(3, modules=("module: ddp",)),
     _plan(Q.triaged_label, "module: ddp", "module: fsdp", PAR), "extra_module"),
    (_rec(4, modules=("module: ddp",), sub="infra"),
     _plan(Q.triaged_label, "module: ddp", PAR), "wrong_sub"),
    # Right, not triaged, or not judged (no module, no sub-oncall): no class.
    (_rec(5, modules=("module: ddp",)), _plan(Q.triaged_label, "module: ddp", PAR), None),
    (_rec(6, dist=False), _plan(PAR), None),
    (_rec(7), _plan(Q.triaged_label, "module: fsdp", PAR), None),
    (_rec(8, modules=("module: ddp", "module: fsdp")),
     _plan(Q.triaged_label, "module: fsdp", PAR), None),
])
def test_mistake_classes(rec: Record, plan: Plan, want: str | None) -> None:
    assert lo.mistake(rec, plan, Q) == want


def test_the_left_out_set_is_never_fitted_on(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[set[int]] = []
    fit = sys.modules[lo.leave_out.__module__].fit_thresholds

    def spy(records, queue, **kw):  # type: ignore[no-untyped-def]
        seen.append({r.number for r in records})
        return fit(records, queue, **kw)

    monkeypatch.setattr(lo, "fit_thresholds", spy)
    monkeypatch.setattr(lo, "operating_scale", lambda *a, **k: 1.0)
    sets = {"blind2": [_rec(21, modules=("module: ddp",)), _rec(22, dist=False)],
            "blind3": [_rec(31, modules=("module: fsdp",)), _rec(32, dist=False)]}
    row = lo.leave_out("blind2", sets, [_rec(1, modules=("module: ddp",))], Q, k=2,
                       target=0.9)
    assert seen == [{1, 31, 32}]
    assert row.name == "blind2" and row.n == 2 and row.distributed == 1
    assert row.judged == row.right + sum(row.classes.values())


def test_released_sets_exclude_the_blind_ones() -> None:
    assert lo.RELEASED[0] == "blind2" and "blind16" in lo.RELEASED
    assert "blind17" not in lo.RELEASED


def test_unjudged_counts_triaged_queue_issues_without_labels() -> None:
    row = lo.Row(name="b", n=5, scale=1.0, triaged=4, judged=3, right=1, off_queue=1)
    # 4 triaged queue issues, 2 of them judged (3 judged minus the off-queue one).
    assert row.unjudged == 2
    assert lo.Row(name="b", n=2, scale=1.0, triaged=1, judged=1).unjudged == 0


def test_pooled_adds_the_counts_of_every_set() -> None:
    """Issue #23 (stop 39): the pooled row is the micro figure over the left-out sets."""
    a = lo.Scores(tp=3, fp=1, fn=0, sub_right=2, sub_total=2, nd_tp=1, nd_fp=1, nd_fn=0,
                  judgeable_right=1, judgeable_total=1, judgeable_distributed=4,
                  judgeable_triaged=1)
    b = lo.Scores(tp=1, fp=0, fn=2, sub_right=1, sub_total=2, nd_tp=2, nd_fp=0, nd_fn=3)
    a.per_module = {"module: ddp": [3, 1, 0]}
    b.per_module = {"module: ddp": [1, 0, 1], "module: fsdp": [0, 0, 1]}
    s = lo.pooled([a, b])
    assert (s.tp, s.fp, s.fn, s.sub_right, s.sub_total) == (4, 1, 2, 3, 4)
    assert s.per_module == {"module: ddp": [4, 1, 1], "module: fsdp": [0, 0, 1]}
    assert a.per_module == {"module: ddp": [3, 1, 0]}  # the parts are left as they were
    m = lo.measures(s)
    assert m["module_counts"] == [4, 1, 2] and m["suboncall_accuracy"] == 0.75
    assert m["not_distributed_counts"] == [3, 1, 3]
    assert m["judgeable_triaged"]["distributed"] == 4
    assert "0.750 (3/4)" in lo._measure_line("all", s)


def test_a_left_out_row_carries_every_measure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lo, "operating_scale", lambda *a, **k: 1.0)
    sets = {"blind2": [_rec(21, modules=("module: ddp",), sub="parallelisms"),
                       _rec(22, dist=False)],
            "blind3": [_rec(31, modules=("module: fsdp",))]}
    row = lo.leave_out("blind2", sets, [_rec(1, modules=("module: ddp",))], Q, k=2,
                       target=0.9)
    m = row.to_json()["measures"]
    # Two issues planned: one distributed with a module, one not distributed.
    assert row.scores.sub_total == 1 and sum(m["module_counts"]) >= 1
    assert row.scores.nd_tp + row.scores.nd_fn == 1 and row.scores.distributed == 1
    assert m["judgeable_triaged"]["distributed"] == 1
