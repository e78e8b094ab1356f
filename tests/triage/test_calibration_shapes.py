"""calibrate.plan_shape / shape_record (issue #23, calibration round): the shape of a plan
marked `triaged` (which step decided, how many modules, where and how often the report
names them, the evidence against) and the record per shape, judged as evaluate judges
`triaged`. Issues and records written for this file (no labelled issue's text)."""

from __future__ import annotations

from agentops.triage.calibrate import Shape, plan_shape, shape_record
from agentops.triage.evaluate import Record, snapshot_of
from agentops.triage.plan import read
from tests.triage.plankit import fence, make_issue, plan_ok

_TITLE = "DTensor redistribute from Shard(0) to Replicate() gives a wrong local shape"
_REPRO = fence("dt = distribute_tensor(torch.randn(8, 4), mesh, [Shard(0)])\n"
               "print(dt.redistribute(mesh, [Replicate()]).to_local().shape)")
_BODY = "After the redistribute the local tensor has 2 rows instead of 8.\n" + _REPRO
_FRAME = fence(
    "Traceback (most recent call last):\n"
    '  File "repro.py", line 2, in <module>\n'
    "    print(dt.redistribute(mesh, [Replicate()]).to_local().shape)\n"
    '  File "/opt/py/site-packages/torch/distributed/tensor/_api.py", line 540, '
    "in redistribute\n"
    "    return Redistribute.apply(self, device_mesh, placements)\n"
    "AssertionError: local shape mismatch", lang="")


def _shape(queue, title: str, body: str) -> Shape | None:
    snap = make_issue(title, body)
    return plan_shape(plan_ok(snap, queue), read(snap, queue), queue)


def test_a_title_named_module_named_once(queue):
    shape = _shape(queue, _TITLE, _BODY)
    assert shape == Shape(decided_by="classify", modules=1, shown=True, mentions=1,
                          against="-")
    assert str(shape) == "classify mods=1 title/trace 1x against=-"


def test_a_module_shown_by_its_frame_too_is_named_twice(queue):
    shape = _shape(queue, _TITLE, _BODY + _FRAME)
    assert shape is not None and shape.mentions == 2 and shape.shown


def test_the_compiler_in_the_repro_code_is_a_contender_against(queue):
    body = _BODY.replace("print(dt", "print(torch.compile(lambda t: t)(dt)")
    shape = _shape(queue, _TITLE, body)
    # Still `triaged` (the compiler only in the code), but its shape says so.
    assert shape is not None and shape.against == "contender"


def test_a_module_named_only_in_the_prose_is_not_shown(queue):
    # No component in the title: the prose names it, the code runs it.
    shape = _shape(queue, "Wrong number of rows after changing placements",
                   "The DTensor redistribute from Shard(0) to Replicate() gives 2 rows.\n"
                   + _REPRO)
    assert shape is not None and shape.modules == 1, shape
    assert not shape.shown and str(shape).startswith("classify mods=1 prose/code")


def test_a_plan_not_marked_triaged_has_no_shape(queue):
    # No reproduction: the plan asks for one instead of `triaged`.
    assert _shape(queue, _TITLE, "After the redistribute the local tensor is wrong.") is None


def _record(number: int, modules: tuple[str, ...], sub: str | None,
            distributed: bool = True) -> Record:
    return Record.from_json({"number": number, "title": _TITLE, "text": _BODY, "labels": [],
                             "expected": {"modules": list(modules), "suboncall": sub,
                                          "is_distributed": distributed}})


def test_the_record_judges_as_evaluate_does(queue):
    recs = [_record(1, ("module: dtensor",), "parallelisms"),   # right
            _record(2, ("module: fsdp",), "parallelisms"),      # wrong module
            _record(3, (), None, distributed=False),            # sent off the queue
            _record(4, (), None)]                               # nothing to judge by
    plans = [plan_ok(snapshot_of(r, queue), queue) for r in recs]
    rows = shape_record(recs, plans, queue)
    assert list(rows.values()) == [[1, 1, 1, 1]], rows
