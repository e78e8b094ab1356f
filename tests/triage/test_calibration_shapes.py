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


def test_a_decided_label_the_report_never_names_counts_as_named_once(queue):
    # The humans set the module; the plan adds only the sub-oncall it implies, which no
    # signal names. Shapes have one or two-plus mentions, nothing below: this plan sits
    # in the weakest row with the other once-named plans.
    snap = make_issue(_TITLE, _BODY, labels=("oncall: distributed", "module: dtensor"))
    shape = plan_shape(plan_ok(snap, queue), read(snap, queue), queue)
    assert shape == Shape(decided_by="classify", modules=0, shown=False, mentions=1,
                          against="-")
    assert str(shape) == "classify mods=0 prose/code 1x against=-"


def test_kfold_plans_every_issue_once_with_thresholds_fitted_without_its_fold(queue):
    from agentops.triage.calibrate import fold_of, kfold

    # Some plans wrong (the humans set another module), so the thresholds are not 0.
    recs = [_record(n, ("module: dtensor" if n % 3 else "module: fsdp",), "parallelisms")
            for n in range(11, 20)]
    k = 3
    out = kfold(recs, queue, k=k)
    assert [p.issue for p in out.plans] == [r.number for r in recs]
    in_fold = [sum(fold_of(r.number, k) == i for r in recs) for i in range(k)]
    # Every fold holds issues, and a fold's size differs from the rest's: fitting on
    # the fold itself instead of the others would show in the count.
    assert 0 not in in_fold and any(2 * n != len(recs) for n in in_fold)
    assert [f.fitted_on for f in out.folds] == [
        f"{len(recs) - n} labelled issues" for n in in_fold]
    # A scale multiplies every fitted threshold of every fold, the default too.
    assert any(f.default for f in out.folds)
    scaled = kfold(recs, queue, k=k, scale=2.0)
    assert [(f.default, f.thresholds) for f in scaled.folds] == [
        (2 * f.default, {lb: 2 * v for lb, v in f.thresholds.items()}) for f in out.folds]
