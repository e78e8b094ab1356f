"""S-1/S-4 hand-rolled construction: the sub-project builds an upstream class field by
field (``ParallelDims(dp_shard=..., tp=parallelism.tensor_parallel_degree, ...)``)
while upstream has a classmethod that builds it from the same source
(``ParallelDims.from_config(parallelism, world_size)``), added in the window or
earlier. What the construction says decides the finding (#22 issue items 5 and 6, set 22
and set 4 kind a): a literal where the factory reads its parameter (``cp=1`` for
``cp=par.context_parallel_degree``) overrides that field on purpose, so the factory cannot
stand in for it (no finding); one that leaves out a keyword the factory passes leaves that
field at its default (``omitted``: an action, it drifts); one that passes every keyword
from the source is a clean-up, nothing drifts (an opportunity).

Pure: reads the loaded trees; returns frozen records.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.patches import _resolve_class
from agentops.scout.model import Inputs


@dataclass(frozen=True)
class HandRolled:
    cls: str  # ParallelDims
    factory: str  # from_config
    file: str  # the sub-project's construction site
    line: int
    upstream_file: str
    factory_line: int
    new_in_window: bool  # the factory did not exist at the baseline
    shared: tuple[str, ...]  # the keywords ours passes that the factory fills
    omitted: tuple[str, ...] = ()  # the factory's keywords ours leaves at their default


@dataclass(frozen=True)
class _Factory:
    name: str
    line: int
    keywords: frozenset[str]  # keywords it passes to cls(...)
    reads: frozenset[str]  # attributes it reads from its parameters
    sourced: frozenset[str]  # keywords whose value it computes (not a literal)


def _factories(cls: ast.ClassDef) -> list[_Factory]:
    """Classmethods returning ``cls(...)`` (or ``ClassName(...)``)."""
    out = []
    for node in cls.body:
        if not isinstance(node, ps.FuncDef.__args__) or not any(
                ast.unparse(d) == "classmethod" for d in node.decorator_list):
            continue
        params = {p.lstrip("*") for p in ps.param_names(node)[1:]}
        for ret in ps.walk(node):
            if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Call) \
                    and ast.unparse(ret.value.func) in ("cls", cls.name):
                kws = frozenset(k.arg for k in ret.value.keywords if k.arg)
                reads = frozenset(n.attr for n in ps.walk(node) if isinstance(n, ast.Attribute)
                                  and isinstance(n.value, ast.Name) and n.value.id in params)
                sourced = frozenset(k.arg for k in ret.value.keywords
                                    if k.arg and not _literal(k.value))
                out.append(_Factory(node.name, node.lineno, kws, reads, sourced))
                break
    return out


def _literal(node: ast.expr) -> bool:
    """A constant written out (``1``, ``-1``, ``None``, ``"x"``)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        node = node.operand
    return isinstance(node, ast.Constant)


def _reads(node: ast.AST) -> set[str]:
    return {n.attr for n in ps.walk(node) if isinstance(n, ast.Attribute)}


def hand_rolled(inp: Inputs) -> list[HandRolled]:
    """Direct constructions of upstream classes in the sub-project's non-test code
    that an upstream factory classmethod covers: at least two of its keywords passed,
    and at least one attribute read from the same source the factory reads; none of
    them a literal where the factory computes the value (a deliberate override)."""
    sub = inp.target.subproject + "/"
    own = inp.target.subproject.replace("/", ".")
    out: list[HandRolled] = []
    resolved: dict[tuple[str, str], tuple[str, ast.ClassDef] | None] = {}
    for path in sorted(inp.head.files):
        if not path.startswith(sub) or inp.target.is_test(path) or not path.endswith(".py"):
            continue
        mod = ps.parse(inp.head.files[path])
        if mod is None:
            continue
        imported = ps.imports(mod)
        funcs = [n for n in ps.statements(mod) if isinstance(n, ps.FuncDef.__args__)]
        for call in (n for n in ps.nodes(mod) if isinstance(n, ast.Call)):
            if not isinstance(call.func, ast.Name) or call.func.id not in imported:
                continue
            module, name = imported[call.func.id]
            if not name or module.startswith(own):
                continue
            key = (module, name)
            if key not in resolved:
                resolved[key] = _resolve_class(inp.head, module, name)
            found = resolved[key]
            if found is None:
                continue
            ufile, cls = found
            mine = {k.arg for k in call.keywords if k.arg}
            fixed = {k.arg for k in call.keywords if k.arg and _literal(k.value)}
            scope = next((f for f in funcs if f.lineno <= call.lineno
                          <= (f.end_lineno or f.lineno)), call)
            for fac in _factories(cls):
                shared = mine & fac.keywords
                if len(shared) < 2 or len(shared) * 2 < len(fac.keywords) \
                        or not (fac.reads & _reads(scope)):
                    continue
                if fixed & shared & fac.sourced:
                    break  # fields pinned on purpose: the factory would build another
                out.append(HandRolled(name, fac.name, path, call.lineno, ufile, fac.line,
                                      _new_in_window(inp, ufile, name, fac.name),
                                      tuple(sorted(shared)),
                                      tuple(sorted(fac.keywords - mine))))
                break
    return out


def _new_in_window(inp: Inputs, ufile: str, cls: str, factory: str) -> bool:
    if inp.base is None:
        return False
    text = inp.base.text(ufile)
    node = ps.find(ps.parse(text), f"{cls}.{factory}") if text is not None else None
    return node is None
