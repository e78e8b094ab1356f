"""Lookups outside the guard that makes what they look up exist (#22, group K): a
strict lookup of a named part (``parallel_dims.get_mesh("fsdp")``) on a class that also
offers the lenient one (``get_optional_mesh``, so the strict one fails for a part that
is not there), of a part the class gates by a flag of its own (``fsdp_enabled``), run
under a condition that names that flag but does not ensure it: ``if fsdp_enabled or
ep_enabled:`` reaches the lookup with FSDP off.

Only a condition that names the part's flag is judged (a lookup under no such test may
be guarded by its caller). The part's name comes from a string argument, a list of
them, or a local bound once from such an expression (with ``a if c else b``, the names
both branches hold).

Pure: the loaded tree in, frozen records out.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from agentops.scout.analyses import coreindex, corerefs
from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.coreindex import Obj
from agentops.scout.model import Inputs


@dataclass(frozen=True)
class UnguardedLookup:
    file: str
    line: int
    call: str  # the lookup as written, shortened
    part: str  # the part looked up ("fsdp")
    flag: str  # the class's flag for it ("fsdp_enabled")
    lenient: str  # the lenient lookup the class offers ("get_optional_mesh")
    guard: str  # the condition it runs under, as written
    guard_line: int


class _Lookups(corerefs._Checker):
    def __init__(self, inp: Inputs) -> None:
        super().__init__(inp)
        self.found: list[tuple[ast.Attribute, Obj, str]] = []

    def _attribute(self, node: ast.Attribute, env: dict[str, Obj | None]) -> None:
        attr = node.attr
        if not attr.startswith("get_") or attr.startswith("get_optional_"):
            return
        owner = self.type_of(node.value, env)
        if owner is None or owner.kind != "class":
            return
        names, why = self.idx.members(owner)
        lenient = "get_optional_" + attr[len("get_"):]
        if not why and lenient in names:
            self.found.append((node, owner, lenient))

    def _keywords(self, node: ast.Call, env: dict[str, Obj | None]) -> None:
        return


def _strings(expr: ast.expr | None) -> set[str]:
    """Names an argument certainly holds: a constant, a list/tuple of them, or both
    branches of a conditional expression."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return {expr.value}
    if isinstance(expr, (ast.List, ast.Tuple)):
        return {e.value for e in expr.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    if isinstance(expr, ast.IfExp):
        return _strings(expr.body) & _strings(expr.orelse)
    return set()


def _bound_once(func: ast.AST, name: str) -> ast.expr | None:
    values = [n.value for n in ps.walk(func) if isinstance(n, ast.Assign)
              and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)]
    return values[0] if len(values) == 1 else None


def _mentions(test: ast.expr, flag: str) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == flag for n in ast.walk(test))


def _ensures(test: ast.expr, flag: str) -> bool:
    """Whether the condition being true implies the flag is (``x.flag``, or an ``and``
    one of whose terms does)."""
    if isinstance(test, ast.Attribute):
        return test.attr == flag
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_ensures(v, flag) for v in test.values)
    return False


def _guards(parents: dict[int, ast.AST], node: ast.AST) -> list[ast.expr]:
    """The conditions under whose true branch ``node`` runs, innermost first, up to
    its function."""
    out: list[ast.expr] = []
    child, cur = node, parents.get(id(node))
    while cur is not None and not isinstance(cur, (*ps.FuncDef.__args__, ast.Module)):
        in_body = isinstance(cur, (ast.If, ast.While)) and any(child is s for s in cur.body)
        if in_body or (isinstance(cur, ast.IfExp) and child is cur.body):
            out.append(cur.test)
        child, cur = cur, parents.get(id(cur))
    return out


def _function(parents: dict[int, ast.AST], node: ast.AST) -> ast.AST | None:
    cur = parents.get(id(node))
    while cur is not None and not isinstance(cur, ps.FuncDef.__args__):
        cur = parents.get(id(cur))
    return cur


def analyse(inp: Inputs) -> list[UnguardedLookup]:
    sub = inp.target.subproject.rstrip("/") + "/"
    checker = _Lookups(inp)
    out: list[UnguardedLookup] = []
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")) or corerefs._is_test(path):
            continue
        if ".get_" not in text or ("get_optional_" in text and ".get_" not in text):
            continue
        checker.found = []
        checker.scan_file(path, text)
        if not checker.found:
            continue
        mod = ps.parse(text)
        assert mod is not None
        parents = coreindex.parents(mod)
        for node, owner, lenient in checker.found:
            call = parents.get(id(node))
            if not isinstance(call, ast.Call) or call.func is not node or not call.args:
                continue
            arg = call.args[0]
            if isinstance(arg, ast.Name):
                func = _function(parents, call)
                arg = _bound_once(func, arg.id) if func is not None else None
            names, _why = coreindex.for_tree(inp.head).members(owner)
            guards = _guards(parents, call)
            for part in sorted(_strings(arg)):
                flag = f"{part}_enabled"
                if flag not in names:
                    continue
                named = [g for g in guards if _mentions(g, flag)]
                if not named or any(_ensures(g, flag) for g in guards):
                    continue
                out.append(UnguardedLookup(
                    path, call.lineno, ast.unparse(call)[:80], part, flag, lenient,
                    ast.unparse(named[0])[:120], named[0].lineno))
    return out
