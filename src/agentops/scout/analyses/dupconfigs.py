"""S-3: config functions in a sub-project's config registry that build exactly what
another one builds. A variant whose name promises a difference (``_ep``, ``_flex``)
but whose body, once its field overrides are applied to the config it starts from,
equals a sibling's, is a misleading duplicate: it typically appears when core removes
the field that set the variant apart. Pure: reads the registry files, returns findings.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs

MAX_FUNCS = 400  # a registry larger than this is not compared (bounded work)


@dataclass(frozen=True)
class DuplicateConfig:
    file: str
    names: tuple[str, ...]  # the config functions that build the same config
    lines: tuple[int, ...]


def _body(fn: ps.FuncDef) -> list[ast.stmt]:
    body = list(fn.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring says what it is, not what it builds
    return body


def _returned_call(fn: ps.FuncDef) -> ast.Call | None:
    body = _body(fn)
    if len(body) == 1 and isinstance(body[0], ast.Return) and isinstance(body[0].value,
                                                                          ast.Call):
        return body[0].value
    return None


def _derived(fn: ps.FuncDef, funcs: dict[str, ps.FuncDef]) -> str | None:
    """``c = base(); c.f = v; …; return c`` over a sibling that returns one call:
    that call with the overrides applied (an override to the value base already
    passes changes nothing)."""
    body = _body(fn)
    if len(body) < 2 or not isinstance(body[0], ast.Assign) or len(body[0].targets) != 1:
        return None
    var, first = body[0].targets[0], body[0].value
    ret = body[-1]
    if not (isinstance(var, ast.Name) and isinstance(first, ast.Call)
            and isinstance(first.func, ast.Name) and not first.args and not first.keywords
            and isinstance(ret, ast.Return) and isinstance(ret.value, ast.Name)
            and ret.value.id == var.id):
        return None
    base = funcs.get(first.func.id)
    call = _returned_call(base) if base is not None else None
    if call is None:
        return None
    kws = {k.arg: ast.dump(k.value) for k in call.keywords if k.arg}
    for stmt in body[1:-1]:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Attribute)
                and isinstance(stmt.targets[0].value, ast.Name)
                and stmt.targets[0].value.id == var.id):
            return None  # anything else (a call, a nested field) is not compared
        kws[stmt.targets[0].attr] = ast.dump(stmt.value)
    return "call:" + ast.dump(call.func) + repr(sorted(kws.items())) + repr(
        [ast.dump(a) for a in call.args])


def _canonical(fn: ps.FuncDef, funcs: dict[str, ps.FuncDef]) -> str | None:
    derived = _derived(fn, funcs)
    if derived is not None:
        return derived
    call = _returned_call(fn)
    if call is not None:
        return "call:" + ast.dump(call.func) + repr(sorted(
            (k.arg, ast.dump(k.value)) for k in call.keywords if k.arg)) + repr(
            [ast.dump(a) for a in call.args])
    body = _body(fn)
    if not any(isinstance(n, ast.Call) for s in body for n in ast.walk(s)):
        return None  # a literal or placeholder builds no config worth comparing
    return "body:" + repr([ast.dump(s) for s in body])


def analyse(inp: Inputs) -> list[DuplicateConfig]:
    name = inp.target.section("coverage").get("config_registry_name", "config_registry.py")
    sub = inp.target.subproject + "/"
    out: list[DuplicateConfig] = []
    for path in sorted(p for p in inp.head.files if p.startswith(sub)
                       and p.rsplit("/", 1)[-1] == name):
        mod = ps.parse(inp.head.files[path])
        if mod is None:
            continue
        funcs = {n.name: n for n in mod.body if isinstance(n, ps.FuncDef)
                 and not n.name.startswith("_") and not n.args.args}
        if len(funcs) > MAX_FUNCS:
            continue
        groups: dict[str, list[ps.FuncDef]] = {}
        for fn in funcs.values():
            form = _canonical(fn, funcs)
            if form is not None:
                groups.setdefault(form, []).append(fn)
        for same in groups.values():
            if len(same) > 1:
                same.sort(key=lambda f: f.lineno)
                out.append(DuplicateConfig(path, tuple(f.name for f in same),
                                           tuple(f.lineno for f in same)))
    return out
