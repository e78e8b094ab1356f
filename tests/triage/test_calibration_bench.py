"""benchmarks/triage_calibration.py (issue #23): its calibration table counts a `triaged`
plan in the band of the plan's weakest decided score, judges it as evaluate does, and
judges one on an issue the humans sent off the queue wrong, as evaluate does, and also
counts it in its own column ("off-queue"). Made-up records and plans, no labelled issue."""

from __future__ import annotations

from agentops.triage.evaluate import Record
from agentops.triage.model import Plan
from benchmarks.triage_calibration import BANDS, bands

PAR = "oncall: distributed parallelisms"
INFRA = "oncall: distributed infra"


def _record(number: int, *, modules: tuple[str, ...], sub: str | None,
            distributed: bool = True) -> Record:
    return Record.from_json({"number": number, "title": "t", "text": "", "labels": [],
                             "expected": {"modules": list(modules), "suboncall": sub,
                                          "is_distributed": distributed}})


def _plan(number: int, labels: tuple[str, ...], scores: dict[str, float]) -> Plan:
    return Plan(repo="example-org/example-ml", issue=number, decision="classify",
                add_labels=labels, queue="distributed", scores=scores)


def _band(score: float) -> int:
    return max(k for k, lo in enumerate(BANDS) if score >= lo)


def test_bands_judge_right_wrong_and_off_queue_apart(queue):
    recs = [
        _record(1, modules=("module: fsdp",), sub="parallelisms"),   # right
        _record(2, modules=("module: ddp",), sub="parallelisms"),    # wrong module
        _record(3, modules=(), sub=None, distributed=False),         # off the queue
        _record(4, modules=("module: fsdp",), sub="parallelisms"),   # not triaged
    ]
    plans = [
        _plan(1, (PAR, "module: fsdp", "bot-triaged", "triaged"),
              {PAR: 9.0, "module: fsdp": 4.5}),
        _plan(2, (PAR, "module: fsdp", "bot-triaged", "triaged"),
              {PAR: 7.5, "module: fsdp": 7.5}),
        _plan(3, (INFRA, "module: c10d", "bot-triaged", "triaged"),
              {INFRA: 4.5, "module: c10d": 4.5}),
        _plan(4, (PAR, "module: fsdp", "bot-triaged", "triage review"),
              {PAR: 4.5, "module: fsdp": 4.5}),
    ]
    rows = bands(recs, plans, queue)
    low, mid = _band(4.5), _band(7.5)
    assert low != mid
    # The weakest decided score (4.5, not the route's 9) places the right plan; the
    # off-queue plan shares its band, judged and wrong.
    assert rows[low] == [2, 1, 1]
    assert rows[mid] == [1, 0, 0]
    # Nothing else is counted (the untriaged plan stays out).
    assert sum(r[0] for r in rows) == 3 and sum(r[2] for r in rows) == 1
