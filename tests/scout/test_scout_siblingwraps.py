"""#22 sibling parity (``siblingwraps``): a call in the function the sub-project
registers made under a narrower ``if`` than two siblings make it. Match: ours wraps only
when sharding is on, the siblings also when experts are split, and our folder reads the
experts switch elsewhere (an Opportunity naming both places). No-match: a folder that
never reads the extra switch, a single widening sibling, the same condition, and a call
in a function nothing registers."""

from __future__ import annotations

import ast
import dataclasses

from agentops.scout.analyses import siblingwraps
from agentops.scout.itemize import debt
from tests.scout import minirepo

SPEC = '''\
from core.spec import Recipe

from .wiring import {fn}


def recipe():
    return Recipe(name="{name}", wire_fn={fn})
'''

WIRING = '''\
from core.shard import wrap_blocks, split_experts


def {fn}(model, dims):
    if dims.{uses}:
        split_experts(model)
    if {cond}:
        wrap_blocks(model)
'''

WIDE = "dims.shard_on or dims.experts_on"


def _files(ours_cond: str = "dims.shard_on", uses: str = "experts_on",
           wide: tuple[str, ...] = ("alpha", "beta"), spec: str = SPEC) -> dict[str, str]:
    files = {"core/__init__.py": "", "core/spec.py": "class Recipe:\n    pass\n",
             "core/shard.py": "def wrap_blocks(m):\n    pass\n\n\ndef split_experts(m):\n"
                              "    pass\n",
             "pkg/__init__.py": "", "pkg/models/__init__.py": "",
             "pkg/models/deep/__init__.py": spec.format(fn="wire_deep", name="deep"),
             "pkg/models/deep/wiring.py": WIRING.format(fn="wire_deep", uses=uses,
                                                        cond=ours_cond)}
    for s in ("alpha", "beta", "gamma"):
        cond = WIDE if s in wide else "dims.shard_on"
        files[f"pkg/models/{s}/__init__.py"] = SPEC.format(fn=f"wire_{s}", name=s)
        files[f"pkg/models/{s}/wiring.py"] = WIRING.format(fn=f"wire_{s}", uses="experts_on",
                                                           cond=cond)
    return files


def _inp(tmp_path, files):
    inp = minirepo.build(tmp_path, head=files)
    return dataclasses.replace(inp, target=dataclasses.replace(
        inp.target, subproject="pkg/models/deep"))


def test_a_call_the_siblings_also_make_in_a_case_this_folder_reads(tmp_path) -> None:
    inp = _inp(tmp_path, _files())
    [w] = siblingwraps.analyse(inp)
    assert (w.file, w.line, w.function, w.keyword, w.callee) == (
        "pkg/models/deep/wiring.py", 8, "wire_deep", "wire_fn", "wrap_blocks")
    assert (w.condition, w.extra) == ("shard_on", ("experts_on",))
    assert w.siblings == ("pkg/models/alpha/wiring.py:8", "pkg/models/beta/wiring.py:8")
    [item] = debt._sibling_wraps(inp, {"sibling_wraps": [w]})
    assert item.kind == "opportunity" and item.where == "pkg/models/deep/wiring.py:8"
    assert "`shard_on or experts_on`" in item.title and "alpha/wiring.py:8" in item.title


def test_no_wider_call_reported_without_the_feature_agreement_or_registration(
        tmp_path) -> None:
    # Our folder never reads the experts switch: the siblings' case is not ours.
    assert siblingwraps.analyse(_inp(tmp_path / "a", _files(uses="other_on"))) == []
    # One sibling widening it is no agreement.
    assert siblingwraps.analyse(_inp(tmp_path / "b", _files(wide=("alpha",)))) == []
    # Ours makes the call under the same condition.
    assert siblingwraps.analyse(_inp(tmp_path / "c", _files(ours_cond=WIDE))) == []
    # The function is registered nowhere.
    bare = SPEC.replace(", wire_fn={fn}", "").replace("from .wiring import {fn}\n", "")
    assert siblingwraps.analyse(_inp(tmp_path / "d", _files(spec=bare))) == []


def _custom(ours_body: str, their_body: str, their_keyword: str = "wire_fn",
            extra: str = "") -> dict[str, str]:
    """Wiring functions written out: ``{fn}`` is each folder's function name."""
    head = ("from core.shard import wrap_blocks, split_experts, wrap_norms\n\n\n"
            "def {fn}(model, dims):\n    if dims.experts_on:\n        split_experts(model)\n")
    files = _files()
    files["core/shard.py"] += "\n\ndef wrap_norms(m):\n    pass\n"
    files["pkg/models/deep/wiring.py"] = (head + ours_body).format(fn="wire_deep") + extra
    for s in ("alpha", "beta"):
        files[f"pkg/models/{s}/wiring.py"] = (head + their_body).format(fn=f"wire_{s}")
        if their_keyword != "wire_fn":
            files[f"pkg/models/{s}/__init__.py"] = SPEC.format(
                fn=f"wire_{s}", name=s).replace("wire_fn=", f"{their_keyword}=")
    return files


WIDE_BODY = ("    if dims.shard_on or dims.experts_on:\n        wrap_blocks(model)\n"
             "        wrap_norms(model)\n        len(model)\n")


def test_the_nearest_if_holds_calls_in_loops_and_match_arms(tmp_path) -> None:
    # A call inside a loop under the if counts; a method call beside it is no wrapping;
    # two widened calls under one if make one record, at the first.
    ours = ("    if dims.shard_on:\n        model.check()\n        for block_no in range(3):\n"
            "            wrap_blocks(model)\n        wrap_norms(model)\n")
    [w] = siblingwraps.analyse(_inp(tmp_path / "a", _custom(ours, WIDE_BODY)))
    assert (w.line, w.callee) == (10, "wrap_blocks")
    # In a match arm, an if nearer than the outer one decides: here it is as wide as
    # the siblings' test.
    ours = ("    if dims.shard_on:\n        match dims.style:\n            case 'x':\n"
            "                if dims.shard_on or dims.experts_on:\n"
            "                    wrap_blocks(model)\n")
    assert siblingwraps.analyse(_inp(tmp_path / "b", _custom(ours, WIDE_BODY))) == []


def test_no_wider_call_for_builtins_unguarded_calls_or_another_registration(
        tmp_path) -> None:
    # A builtin under a narrower if is no wrapping.
    ours = "    if dims.shard_on:\n        len(model)\n"
    assert siblingwraps.analyse(_inp(tmp_path / "a", _custom(ours, WIDE_BODY))) == []
    # A call under no if is not judged.
    ours = "    wrap_blocks(model)\n"
    assert siblingwraps.analyse(_inp(tmp_path / "b", _custom(ours, WIDE_BODY))) == []
    # The siblings register their function under another keyword: another slot.
    ours = "    if dims.shard_on:\n        wrap_blocks(model)\n"
    assert siblingwraps.analyse(_inp(tmp_path / "c", _custom(ours, WIDE_BODY,
                                                             "norm_fn"))) == []


def test_a_call_with_no_readable_extra_does_not_stop_the_next(tmp_path) -> None:
    # The first if's wider test adds a switch this folder never reads; the second's
    # adds one it reads: only the second is reported.
    theirs = ("    if dims.shard_on or dims.tiles_on:\n        wrap_norms(model)\n"
              + WIDE_BODY.replace("        wrap_norms(model)\n", ""))
    ours = ("    if dims.shard_on:\n        wrap_norms(model)\n"
            "    if dims.shard_on:\n        wrap_blocks(model)\n")
    [w] = siblingwraps.analyse(_inp(tmp_path, _custom(ours, theirs)))
    assert (w.line, w.callee, w.extra) == (10, "wrap_blocks", ("experts_on",))


def test_at_most_ten_records(tmp_path) -> None:
    ours = "".join(f"    if dims.shard_on:\n        wrap_blocks(model, {k})\n"
                   for k in range(12))
    found = siblingwraps.analyse(_inp(tmp_path, _custom(ours, WIDE_BODY)))
    assert len(found) == 10


def test_the_title_names_every_condition_around_the_call_outermost_first(tmp_path) -> None:
    # The nearest if decides the match; the ifs around it (an else as its negated test)
    # are said too, so the reader sees every case in which the call runs.
    ours = ("    if dims.staged or dims.eager:\n        pass\n    else:\n"
            "        if dims.ready:\n            if dims.shard_on:\n"
            "                wrap_blocks(model)\n")
    inp = _inp(tmp_path / "a", _custom(ours, WIDE_BODY))
    [w] = siblingwraps.analyse(inp)
    assert (w.condition, w.within) == ("shard_on", ("not (staged or eager)", "ready"))
    [item] = debt._sibling_wraps(inp, {"sibling_wraps": [w]})
    assert "runs only if `not (staged or eager) and ready and shard_on`" in item.title
    # One if: the title names it alone, as before.
    ours = "    if dims.shard_on:\n        wrap_blocks(model)\n"
    inp = _inp(tmp_path / "b", _custom(ours, WIDE_BODY))
    [w] = siblingwraps.analyse(inp)
    assert w.within == ()
    [item] = debt._sibling_wraps(inp, {"sibling_wraps": [w]})
    assert "runs only if `shard_on` (" in item.title
    # An outer disjunction is kept whole.
    ours = ("    if dims.staged or dims.eager:\n        if dims.shard_on:\n"
            "            wrap_blocks(model)\n")
    inp = _inp(tmp_path / "c", _custom(ours, WIDE_BODY))
    [item] = debt._sibling_wraps(inp, {"sibling_wraps": siblingwraps.analyse(inp)})
    assert "runs only if `(staged or eager) and shard_on`" in item.title


def test_guarded_calls_pass_over_nested_definitions_and_go_on_after_them() -> None:
    # A call inside a nested def or class under the ``if`` is no call of this function;
    # the calls after such a definition in the same block still count.
    fn = ast.parse(
        "def outer(x):\n"
        "    if x.flag:\n"
        "        def inner():\n"
        "            helper_a()\n"
        "        class Box:\n"
        "            made = helper_b()\n"
        "        helper_c()\n").body[0]
    assert [(name, line) for name, line, *_ in siblingwraps._guarded_calls(fn)] == [
        ("helper_c", 7)]
