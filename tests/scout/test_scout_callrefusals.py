"""#22, a check the counterpart has and this code lacks or writes otherwise
(``callrefusals``): the folders beside the sub-project refuse a combination right
before a step the sub-project takes too, under the same condition. Match: a refusal
the sub-project lacks, and one it writes on another test. No match: a step whose
names the sub-project hands to a helper of its own, a refusal it makes elsewhere, a
sibling's own function of the same name, a refusal only one sibling makes, and one
the sub-project dropped itself in the window. Made-up widget code throughout.
"""

from __future__ import annotations

import dataclasses

from agentops.scout.analyses import callrefusals
from agentops.scout.itemize import debt
from tests.scout import minirepo

STEPS = '''\
def apply_widen(model, dims):
    return model


def apply_paint(model):
    return model


def apply_tune(model):
    return model


def maybe_tune(opts, model):
    return model
'''

SIBLING = '''\
from shared.steps import apply_paint, apply_tune, apply_widen


def parallelize(model, dims, opts):
    if dims.wide_enabled:
        if dims.tall_enabled:
            raise NotImplementedError("wide with tall is not supported")
        apply_widen(model, dims)
    if dims.paint_enabled:
        if dims.world != dims.canvas.size():
            raise RuntimeError("paint with more dimensions is not supported")
        apply_paint(model)
    if dims.tune_enabled:
        if opts.fast and not opts.compiled:
            raise RuntimeError("fast tuning needs a compiled model")
        apply_tune(model)
    return model
'''

# A third sibling takes the steps without the refusals: two of three still refuse.
PLAIN = '''\
from shared.steps import apply_paint, apply_widen


def parallelize(model, dims, opts):
    if dims.wide_enabled:
        apply_widen(model, dims)
    if dims.paint_enabled:
        apply_paint(model)
    return model
'''

OURS = '''\
from shared.steps import apply_paint, apply_tune, apply_widen, maybe_tune


def parallelize(model, dims, opts):
    if dims.wide_enabled:
        apply_widen(model, dims)
    if dims.paint_enabled:
        if dims.canvas.ndim > 1:
            raise RuntimeError("paint with more dimensions is not supported")
        apply_paint(model)
    if dims.tune_enabled:
        maybe_tune(opts, model)
        apply_tune(model)
    return model
'''


def _inp(tmp_path, ours: str = OURS, base: dict[str, str] | None = None, **extra: str):
    files = {"shared/steps.py": STEPS, "models/beta/parallelize.py": SIBLING,
             "models/gamma/parallelize.py": SIBLING, "models/delta/parallelize.py": PLAIN,
             "models/alpha/parallelize.py": ours, **extra}
    inp = minirepo.build(tmp_path, head=files, base=base)
    return dataclasses.replace(inp, target=dataclasses.replace(inp.target,
                                                               subproject="models/alpha"))


def _found(inp) -> list[tuple[int, str, str, str]]:
    return [(r.line, r.callee, r.refusal, ";".join(r.ours))
            for r in callrefusals.analyse(inp)]


def test_a_refusal_the_siblings_make_before_the_same_step_is_found(tmp_path) -> None:
    inp = _inp(tmp_path)
    # The tuning refusal reads `opts`, which this folder hands to its own helper
    # (`maybe_tune`) that the siblings never call there: it refuses for us.
    assert _found(inp) == [
        (6, "apply_widen", "dims.tall_enabled", ""),
        (10, "apply_paint", "dims.world != dims.canvas.size()", "8: dims.canvas.ndim > 1")]
    found = callrefusals.analyse(inp)
    assert found[0].siblings == ("models/beta/parallelize.py:6",
                                 "models/gamma/parallelize.py:6")
    assert found[0].makers == 3
    items = debt._call_refusals(inp, {"call_refusals": found})
    [paint] = [i for i in items if "apply_paint" in i.title]
    assert paint.kind == "opportunity" and paint.section == "S-4"
    assert "`apply_paint(…)` at parallelize.py:10 runs under `if dims.paint_enabled`" \
        in paint.title
    assert "2 of the 3 sibling folders" in paint.title
    assert "here the block refuses only `if dims.canvas.ndim > 1` (line 8)" in paint.title
    assert paint.files[0] == "models/alpha/parallelize.py"


def test_a_refusal_made_elsewhere_or_by_one_sibling_or_dropped_here_is_no_finding(
        tmp_path) -> None:
    # The folder refuses wide-with-tall in a check of its own, elsewhere.
    check = "def check(dims):\n    if dims.wide_enabled and dims.tall_enabled:\n" \
            "        raise ValueError('no')\n"
    assert [f[1] for f in _found(_inp(tmp_path / "a", **{"models/alpha/check.py": check}))] \
        == ["apply_paint"]
    # Only one sibling refuses: no consensus.
    one = _inp(tmp_path / "b", **{"models/gamma/parallelize.py": PLAIN})
    assert _found(one) == []
    # The folder had the wide-with-tall refusal at the baseline and dropped it.
    had = OURS.replace("        apply_widen(model, dims)\n",
                       "        if dims.tall_enabled:\n            raise ValueError('x')\n"
                       "        apply_widen(model, dims)\n", 1)
    dropped = _inp(tmp_path / "c", base={"models/alpha/parallelize.py": had,
                                         "shared/steps.py": STEPS})
    assert [f[1] for f in _found(dropped)] == ["apply_paint"]


def test_a_siblings_own_function_of_the_same_name_is_another_step(tmp_path) -> None:
    # beta and gamma define their own apply_widen / apply_paint: not the shared step.
    own = SIBLING.replace("from shared.steps import apply_paint, apply_tune, apply_widen",
                          "from shared.steps import apply_tune") + (
        "\n\ndef apply_widen(model, dims):\n    return model\n"
        "\n\ndef apply_paint(model):\n    return model\n")
    inp = _inp(tmp_path, **{"models/beta/parallelize.py": own,
                            "models/gamma/parallelize.py": own})
    assert _found(inp) == []
