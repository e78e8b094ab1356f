"""`triaged` counted on judgeable issues only (issue #23, stop 39): queue issues a human
labelled with a module or sub-oncall, and issues routed away (no queue label, a mark of
triage elsewhere). The present figures stay as they were. Made-up records only."""

from __future__ import annotations

import json
from dataclasses import replace

from agentops.triage.evaluate import Record, routed_away, score
from agentops.triage.model import Plan
from agentops.triage.queue import load_queue
from benchmarks import triage_kfold as tk

Q = load_queue("distributed")
PAR = "oncall: distributed parallelisms"
TRIGGER = Q.trigger_label


def _rec(number: int, labels: tuple[str, ...], *, modules: tuple[str, ...] = (),
         sub: str | None = None) -> Record:
    return Record(number=number, title="made-up report", text="", human_labels=labels,
                  modules=frozenset(modules), suboncall=sub,
                  is_distributed=TRIGGER in labels)


def _triaged(number: int, *labels: str) -> Plan:
    return Plan(repo="o/r", issue=number, decision="classify",
                add_labels=(*labels, Q.triaged_label))


def test_routed_away_needs_a_mark_of_triage_elsewhere_and_no_queue_label() -> None:
    assert routed_away(_rec(1, ("triaged", "module: widgets")), Q)
    assert routed_away(_rec(2, ("oncall: gadgets",)), Q)
    assert routed_away(_rec(3, ("module: widgets",)), Q)
    # Never triaged: no mark; or the labels contradict each other (a queue label set,
    # the trigger not); or still in the queue.
    assert not routed_away(_rec(4, ()), Q)
    assert not routed_away(_rec(5, ("feature", "bug")), Q)
    assert not routed_away(_rec(6, ("triaged", "module: ddp", "module: widgets")), Q)
    assert not routed_away(_rec(7, ("triaged", PAR)), Q)
    assert not routed_away(_rec(8, (TRIGGER, "triaged", "module: ddp"),
                                modules=("module: ddp",)), Q)


def test_routed_away_reads_each_mark_on_its_own() -> None:
    # The `triaged` label alone is a mark, with no label of a known scheme beside it.
    assert routed_away(_rec(11, ("triaged", "feature")), Q) is True
    # An issue the data set calls distributed stays in the queue, whatever labels it kept.
    kept = replace(_rec(12, ("triaged", "module: widgets")), is_distributed=True)
    assert routed_away(kept, Q) is False
    assert routed_away(_rec(13, ("bug",)), Q) is False
    # A label without a scheme gives none: a queue whose module label has no "name:" part
    # does not make "gadgets: ..." a mark of triage.
    bare = replace(Q, modules=("gadgets", *Q.modules))
    assert routed_away(_rec(14, ("gadgets: extra",)), bare) is False
    assert routed_away(_rec(15, ("module: extra",)), bare) is True


def test_judgeable_pair_counts_only_finished_issues() -> None:
    recs = [
        _rec(1, (TRIGGER, "module: ddp"), modules=("module: ddp",)),  # judgeable, right
        _rec(2, (TRIGGER,)),  # queue issue with no module, no sub-oncall: unjudgeable
        _rec(3, (TRIGGER, "module: fsdp"), modules=("module: fsdp",)),  # judgeable, held back
        _rec(4, ("triaged", "module: widgets")),  # routed away: judgeable, wrong
        _rec(5, ("triaged", "module: ddp", "module: widgets")),  # contradicting labels
        _rec(6, ("bug",)),  # never triaged
    ]
    plans = [_triaged(1, "module: ddp", PAR), _triaged(2, "module: ddp", PAR),
             Plan(repo="o/r", issue=3, decision="classify",
                  add_labels=("module: fsdp", PAR, Q.review_label)),
             _triaged(4, PAR), _triaged(5, "module: ddp", PAR), _triaged(6, PAR)]
    s = score(recs, plans, Q)
    assert routed_away(recs[3], Q) is True and routed_away(recs[4], Q) is False
    # The present figure: every off-queue plan judged wrong, coverage over all queue issues.
    assert (s.triaged_right, s.triaged_total, s.triaged_any, s.distributed) == (1, 4, 2, 3)
    assert s.judgeable() == {"precision": 0.5, "right": 1, "judged": 2, "coverage": 0.5,
                             "triaged": 1, "distributed": 2, "off_queue": 1}


def test_a_sub_oncall_label_alone_makes_a_queue_issue_judgeable() -> None:
    recs = [_rec(1, (TRIGGER, PAR), sub="parallelisms"), _rec(2, (TRIGGER,))]
    plans = [_triaged(1, PAR), _triaged(2, PAR)]
    j = score(recs, plans, Q).judgeable()
    assert (j["right"], j["judged"], j["triaged"], j["distributed"]) == (1, 1, 1, 1)


def test_the_benchmark_prints_and_stores_the_pair() -> None:
    recs = [_rec(1, (TRIGGER, "module: ddp"), modules=("module: ddp",)),
            _rec(2, ("triaged", "module: ddp", "module: widgets"))]
    plans = [_triaged(1, "module: ddp", PAR), _triaged(2, "module: ddp", PAR)]
    j = score(recs, plans, Q).judgeable()
    line = tk.judgeable_line("blindX", j)
    assert "precision 1.000 (1/1 on judgeable issues, 0 routed away)" in line
    assert "coverage 1.000 (1 of 1 queue issues" in line
    assert json.loads(json.dumps(j))["judged"] == 1
