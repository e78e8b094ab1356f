"""Wrapping conditions the sibling folders widened (#22, sibling parity): in a function
the sub-project registers (``Spec(parallelize_fn=parallelize_x)``), a call made under
an ``if`` whose test is ``A``, while two or more sibling folders, in the function they
register under the same keyword, make the call to the same name under ``A or B``, and
the sub-project's own code reads every name of ``B`` (it has that feature). The
siblings then apply the wrapping in a case where the sub-project skips it (FSDP applied
when only expert parallelism is on).

Tests are compared by their disjuncts, each written with attribute chains reduced to
their last part (``parallel_dims.ep_enabled`` -> ``ep_enabled``), so a local holder or
another path to the same setting reads the same. Only the nearest ``if`` whose body
holds the call counts; a call in an ``else`` branch or under no ``if`` is not judged.
The ``if`` statements around that one (an ``else`` as the negated test) are kept,
outermost first, so the item can say every condition the call runs under.

An Opportunity, never an action: the sibling's reason may not apply. Pure: the HEAD tree
in, ``NarrowWrap`` records out.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.siblingguards import MIN_SIBLINGS, sibling_folders
from agentops.scout.analyses.siblinghooks import _WORD, _py
from agentops.scout.analyses.siblingimports import _registered, _top_functions
from agentops.scout.model import Inputs

MAX_FINDINGS = 10


@dataclass(frozen=True)
class NarrowWrap:
    file: str  # the sub-project's call
    line: int
    function: str  # the registered function holding it
    keyword: str  # the keyword it is registered under (``parallelize_fn``)
    callee: str  # the call's name (``apply_fsdp``)
    condition: str  # the sub-project's test, reduced (``fsdp_enabled``)
    extra: tuple[str, ...]  # the disjuncts the siblings add (``ep_enabled``)
    siblings: tuple[str, ...]  # ``file:line`` of the siblings' calls
    within: tuple[str, ...] = ()  # the tests of the ``if``s around it, outermost first


class _Leaves(ast.NodeTransformer):
    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        return ast.copy_location(ast.Name(id=node.attr, ctx=ast.Load()), node)


def _disjuncts(test: ast.expr) -> frozenset[str]:
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) \
        else [test]
    out = set()
    for p in parts:
        try:
            out.add(ast.unparse(_Leaves().visit(ast.parse(ast.unparse(p), mode="eval"))))
        except (SyntaxError, ValueError, RecursionError):
            return frozenset()
    return frozenset(out)


def _reduced(test: ast.expr) -> str:
    """A test as the item shows it, attribute chains reduced to their last part."""
    try:
        return ast.unparse(_Leaves().visit(ast.parse(ast.unparse(test), mode="eval")))
    except (SyntaxError, ValueError, RecursionError):
        return ""


def _guarded_calls(fn: ast.AST
                   ) -> list[tuple[str, int, frozenset[str], int, tuple[str, ...]]]:
    """(callee name, line, disjuncts of the nearest ``if`` whose body holds the call,
    that ``if``'s line, the tests of the ``if``s around that one, outermost first, an
    ``else`` branch as ``not (test)``); builtins (``tuple``) are no wrapping."""
    out: list[tuple[str, int, frozenset[str], int, tuple[str, ...]]] = []

    def walk(stmts: list[ast.stmt], cond: frozenset[str] | None, at: int = 0,
             outer: tuple[str, ...] = (), tests: tuple[str, ...] = ()) -> None:
        # ``outer``: the tests around the nearest ``if``; ``tests``: those and its own.
        for st in stmts:
            if isinstance(st, ast.If):
                walk(st.body, _disjuncts(st.test), st.lineno, tests,
                     (*tests, _reduced(st.test)))
                walk(st.orelse, None, 0, (),
                     (*tests, _reduced(ast.UnaryOp(op=ast.Not(), operand=st.test))))
                continue
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            # The statements a loop, ``with``, ``try`` or ``match`` holds are walked
            # (an ``if`` among them is nearer); its own expressions give its calls.
            inner = [b for f in ("body", "orelse", "finalbody") for b in getattr(st, f, [])]
            for block in (*getattr(st, "handlers", []), *getattr(st, "cases", [])):
                inner += block.body
            own = [n for child in ast.iter_child_nodes(st)
                   if not isinstance(child, ast.stmt | ast.excepthandler | ast.match_case)
                   for n in ast.walk(child) if isinstance(n, ast.Call)]
            for call in own:
                if cond and isinstance(call.func, ast.Name) and \
                        not hasattr(builtins, call.func.id):
                    out.append((call.func.id, call.lineno, cond, at, outer))
            walk(inner, cond, at, outer, tests)

    walk(getattr(fn, "body", []), None)
    return out


def _wraps(files: dict[str, str], paths: frozenset[str], folder_files: list[tuple[str, str]]
           ) -> list[tuple[str, str, str, int, str, frozenset[str], int, tuple[str, ...]]]:
    """(keyword, registered function, file, line, callee, disjuncts, ``if`` line, the
    tests around that ``if``) of each guarded call in the folder's registered
    functions."""
    out = []
    for where, fn_name, keyword, _at in _registered(folder_files, paths, files):
        fn = _top_functions(ps.parse(files[where])).get(fn_name)
        for callee, line, cond, at, outer in _guarded_calls(fn) if fn is not None else ():
            out.append((keyword, fn_name, where, line, callee, cond, at, outer))
    return out


def analyse(inp: Inputs) -> list[NarrowWrap]:
    sub = inp.target.subproject.rstrip("/")
    parent, siblings = sibling_folders(inp)
    if not siblings:
        return []
    files, paths = inp.head.files, inp.head.paths
    ours_files = _py(files, sub + "/")
    ours = _wraps(files, paths, ours_files)
    if not ours:
        return []
    spelled = {w for _p, t in ours_files for w in _WORD.findall(t)}
    theirs = {s: _wraps(files, paths, _py(files, f"{parent}/{s}/")) for s in siblings}
    found: dict[tuple[str, int], NarrowWrap] = {}
    for keyword, fn_name, where, line, callee, cond, at, outer in ours:
        wider: list[tuple[frozenset[str], str]] = []
        for _s, wraps in sorted(theirs.items()):
            for k, _f, w, ln, c, d, _at, _outer in wraps:
                if k == keyword and c == callee and cond < d:
                    wider.append((d - cond, f"{w}:{ln}"))
                    break
        if len(wider) < MIN_SIBLINGS:
            continue
        extra = frozenset.intersection(*(e for e, _at in wider))
        extra = frozenset(e for e in extra
                          if all(n in spelled for n in _WORD.findall(e)))
        if not extra:
            continue
        # One record per ``if`` of ours: its first call the siblings widen.
        if (where, at) not in found:
            found[(where, at)] = NarrowWrap(
                where, line, fn_name, keyword, callee, " or ".join(sorted(cond)),
                tuple(sorted(extra)), tuple(a for _e, a in wider), outer)
            if len(found) >= MAX_FINDINGS:
                break
    return list(found.values())
