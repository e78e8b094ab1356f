"""Calls of the folder's own functions that cannot bind at HEAD (#22 defect 5, code that
breaks now). ``corerefs`` binds the calls of core functions; a call of a function the
folder itself defines was never bound, though the folder changes its own signatures as
freely as core does: a helper narrowed to fewer parameters while a caller still passes
the old arguments raises ``TypeError`` when that call runs.

The callee is resolved by the names Python binds, never guessed: a module-level function
of the same module, one imported from a module of the folder (``from .m import f``,
``from pkg.m import f as g``, also inside the calling function), or a name the calling
function binds to such a function -- a parameter whose default is it, or one set to it
when the caller passes nothing (``if fn is None: fn = f``), or a local assigned it. A
parameter a caller may fill with another function is checked only on the path where the
function's own fallback runs (the item says so). Only plain functions: a decorator may
change the signature. A call spreading ``*args``/``**kwargs`` is not judged.

Pure: the HEAD tree (and the baseline for the commit that changed the signature) in,
``OwnBind`` records out.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from agentops.scout.analyses import attribution, usecheck
from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs

# Decorators that leave a function's signature as written.
_PLAIN = frozenset({"staticmethod", "torch.no_grad", "no_grad", "torch.inference_mode",
                    "cache", "lru_cache", "functools.cache", "functools.lru_cache"})


@dataclass(frozen=True)
class OwnBind:
    file: str  # the call's file
    line: int
    callee: str  # the function's name where it is defined
    callee_file: str
    callee_line: int
    signature: str  # the callee's parameters at HEAD
    via: str  # the name the call goes through when it is not the callee's own ("" else)
    problems: tuple[str, ...]  # what fails binding (usecheck.call_problems' words)
    commit: str = ""  # the window commit that changed the callee's signature ("" none)
    changed: bool = False  # the callee had another signature at the baseline


def analyse(inp: Inputs) -> list[OwnBind]:
    sub = inp.target.subproject.rstrip("/") + "/"
    mods: dict[str, ast.Module] = {}
    for path in sorted(inp.head.files):
        if path.endswith(".py") and path.startswith(sub):
            mod = ps.parse(inp.head.text(path))
            if mod is not None:
                mods[path] = mod
    funcs = {path: {n.name: n for n in mod.body if isinstance(n, ps.FuncDef.__args__)
                    and _plain(n)} for path, mod in mods.items()}
    out: list[OwnBind] = []
    for path, mod in mods.items():
        if inp.target.is_test(path):
            continue
        top = _imported(path, mod.body, mods, funcs)
        own = {**{n: (path, f) for n, f in funcs[path].items()}, **top}
        for fn in (n for n in ast.walk(mod) if isinstance(n, ps.FuncDef.__args__)):
            nodes = _own_nodes(fn)
            called = [n for n in nodes if isinstance(n, ast.Call)
                      and isinstance(n.func, ast.Name)]
            if not called:
                continue
            inner = _imported(path, fn.body, mods, funcs)
            names = {**own, **inner}
            a = fn.args
            params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
            if not any(c.func.id in names or c.func.id in params  # type: ignore[attr-defined]
                       for c in called):
                continue  # the cheap test: no call can reach a function of the folder
            bound = _bound_names(fn, names, nodes)
            mine = _locals(fn, nodes) - inner.keys()
            for call in called:
                name = call.func.id  # type: ignore[attr-defined]
                via = name if name in bound else ""
                callee = bound.get(name) if via else (
                    names.get(name) if name not in mine else None)
                if callee is None:
                    continue
                target, node = callee
                problems = usecheck.call_problems(call, usecheck.params(node, method=False))
                if problems:
                    out.append(_record(inp, path, call, (target, node), via=via,
                                       problems=problems))
    return sorted(set(out), key=lambda b: (b.file, b.line, b.callee))


def _plain(fn: ps.FuncDef) -> bool:
    return all(ast.unparse(d.func if isinstance(d, ast.Call) else d) in _PLAIN
               for d in fn.decorator_list)


def _imported(path: str, body: list[ast.stmt], mods: dict[str, ast.Module],
              funcs: dict[str, dict[str, ps.FuncDef]]) -> dict[str, tuple[str, ps.FuncDef]]:
    """Local name -> (defining file, function) for ``from <folder module> import f``
    statements directly in ``body`` (a module's top or a function's own)."""
    out: dict[str, tuple[str, ps.FuncDef]] = {}
    for stmt in body:
        if not isinstance(stmt, ast.ImportFrom):
            continue
        module = ps.from_module(path, stmt.level, stmt.module)
        where = ps.module_path(module, set(mods)) if module else None
        if where is None:
            continue
        for alias in stmt.names:
            fn = funcs.get(where, {}).get(alias.name)
            if fn is not None:
                out[alias.asname or alias.name] = (where, fn)
    return out


def _bound_names(fn: ps.FuncDef, names: dict[str, tuple[str, ps.FuncDef]],
                 nodes: list[ast.AST]) -> dict[str, tuple[str, ps.FuncDef]]:
    """Names ``fn`` binds to one of the folder's functions: a parameter defaulting to it
    or set to it in an ``if <param> is None:`` fallback, a local whose every assignment
    in ``fn`` is that function."""
    a = fn.args
    params = [*a.posonlyargs, *a.args]
    defaults: dict[str, ast.expr] = dict(zip(
        (p.arg for p in params[len(params) - len(a.defaults):]), a.defaults, strict=True))
    defaults.update((p.arg, d) for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)
                    if d is not None)
    assigned: dict[str, list[ast.expr | None]] = {}
    fallback: dict[str, ast.expr] = {}
    for node in nodes:
        if isinstance(node, ast.If) and _is_none_test(node.test):
            var = node.test.left.id  # type: ignore[attr-defined]
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                        and isinstance(stmt.targets[0], ast.Name) \
                        and stmt.targets[0].id == var:
                    fallback[var] = stmt.value
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    assigned.setdefault(t.id, []).append(node.value)
                else:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            assigned.setdefault(n.id, []).append(None)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.With,
                               ast.NamedExpr)):
            targets = [node.target] if not isinstance(node, ast.With) else [
                i.optional_vars for i in node.items if i.optional_vars is not None]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        assigned.setdefault(n.id, []).append(None)
    out: dict[str, tuple[str, ps.FuncDef]] = {}
    param_names = {p.arg for p in (*params, *a.kwonlyargs)}
    for var in param_names:
        value = defaults.get(var)
        if isinstance(value, ast.Constant) and value.value is None:
            value = fallback.get(var)
        if not isinstance(value, ast.Name):
            continue
        own = names.get(value.id)
        rebinds = [v for v in assigned.get(var, ()) if v is not fallback.get(var)]
        if own is not None and not rebinds:
            out[var] = own
    for var, values in assigned.items():
        if var in param_names or not values or any(not isinstance(v, ast.Name)
                                                   for v in values):
            continue
        found = {v.id for v in values if isinstance(v, ast.Name)}
        if len(found) == 1:
            own = names.get(found.pop())
            if own is not None:
                out[var] = own
    return out


def _is_none_test(test: ast.expr) -> bool:
    return isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) \
        and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is) \
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None


def _own_nodes(fn: ps.FuncDef) -> list[ast.AST]:
    """The nodes of ``fn``'s own scope (nested functions, classes and lambdas aside)."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(fn.body)
    while todo:
        node = todo.pop()
        out.append(node)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (*ps.FuncDef.__args__, ast.ClassDef, ast.Lambda)):
                todo.append(child)
    return out


def _locals(fn: ps.FuncDef, nodes: list[ast.AST]) -> set[str]:
    """Names ``fn`` binds itself (parameters, assignments, loop targets, imports): a call
    of one of them is not a call of the module's function of that name."""
    a = fn.args
    out = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
    out |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out |= {(al.asname or al.name).split(".")[0] for al in node.names}
        elif isinstance(node, (*ps.FuncDef.__args__, ast.ClassDef)):
            out.add(node.name)
    return out


def _record(inp: Inputs, path: str, call: ast.Call, callee: tuple[str, ps.FuncDef], *,
            via: str, problems: list[str]) -> OwnBind:
    """The finding, with the window's commit that changed the callee's signature when
    the baseline had another one (the change was made in the window, by that commit)."""
    target, node = callee
    sig = ps.signature(node)
    changed, commit = False, ""
    if inp.base is not None:
        state = attribution.signature_state(node.name)
        then = state(inp.base.text(target))
        if then is not None and then != sig:
            changed = True
            commit = attribution.introduced(inp, target, state)
    return OwnBind(path, call.lineno, node.name, target, node.lineno, sig, via,
                   tuple(problems), commit, changed)
