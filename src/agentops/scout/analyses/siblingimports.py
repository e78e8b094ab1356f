"""Wiring taken from another model's folder (#22, sibling parity): a function the
sub-project registers (a keyword value of one of its calls naming a function it
defines: ``Spec(parallelize_fn=parallelize_x)``) that calls a function imported from
the folder of a sibling model (``from pkg.models.other.parallelize import apply_w``),
while another sibling folder makes that function its own way: defines one of the same
name, or imports it from code outside the sibling folders. What the sub-project runs at
that registered point then changes whenever the other model's folder does, and the
other siblings show it need not.

The registered function is followed into the module that defines it (absolute and
relative imports of the sub-project resolve to its own files); only direct calls in its
body count, and only functions the sibling's module defines at its top level (a class
or a re-export is not a helper of that model). One record per registered function and
sibling module, naming the import's ``file:line``, the functions, the sibling module
and the siblings that make them otherwise.

An Opportunity, never an action: the sharing may be intended. Pure: the HEAD tree in,
``BorrowedWiring`` records out.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.siblingguards import sibling_folders
from agentops.scout.analyses.siblinghooks import _py
from agentops.scout.model import Inputs

MAX_FINDINGS = 10
_FuncDef = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class BorrowedWiring:
    file: str  # the sub-project's module importing from the sibling
    line: int  # the import statement
    registered: str  # the sub-project's registered function (``parallelize_x``)
    keyword: str  # the keyword it is registered under (``parallelize_fn``)
    registered_at: str  # file:line of the registration call
    module: str  # the sibling module (``pkg.models.other.parallelize``)
    functions: tuple[str, ...]  # what the registered function calls from it
    otherwise: tuple[str, ...]  # ``file:line`` of the other siblings' own versions


def _dotted(path: str) -> str:
    mod = path[:-3] if path.endswith(".py") else path
    mod = mod[:-len("/__init__")] if mod.endswith("/__init__") else mod
    return mod.replace("/", ".")


def _top_functions(mod: ast.Module | None) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    return {n.name: n for n in (mod.body if mod is not None else ()) if isinstance(n, _FuncDef)}


def _registered(ours: list[tuple[str, str]], paths: frozenset[str], files: dict[str, str]
                ) -> list[tuple[str, str, str, str]]:
    """(module path, function, keyword, call file:line) for each keyword value of a call
    in the sub-project naming a function the sub-project defines at module level."""
    defs_in: dict[str, set[str]] = {}
    mine = {p for p, _t in ours}
    out = []
    seen = set()
    for path, text in ours:
        mod = ps.parse(text)
        if mod is None:
            continue
        imported = ps.from_imports(path, mod)
        local = _top_functions(mod)
        for node in ps.nodes(mod):
            if not isinstance(node, ast.Call):
                continue
            for k in node.keywords:
                if not (k.arg and isinstance(k.value, ast.Name)):
                    continue
                name = k.value.id
                if name in local:
                    where, fn = path, name
                elif name in imported:
                    module, orig, _line = imported[name]
                    where = ps.module_path(module, paths) or ""
                    fn = orig
                else:
                    continue
                if where not in mine:
                    continue
                if where not in defs_in:
                    defs_in[where] = set(_top_functions(ps.parse(files[where])))
                if fn in defs_in[where] and (where, fn) not in seen:
                    seen.add((where, fn))
                    out.append((where, fn, k.arg, f"{path}:{node.lineno}"))
    return out


def _called(fn: ast.AST) -> set[str]:
    return {n.func.id for n in ast.walk(fn)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def analyse(inp: Inputs) -> list[BorrowedWiring]:
    sub = inp.target.subproject.rstrip("/")
    parent, siblings = sibling_folders(inp)
    if not siblings:
        return []
    files, paths = inp.head.files, inp.head.paths
    ours = _py(files, sub + "/")
    if not ours:
        return []
    sib_modules = {_dotted(f"{parent}/{s}"): s for s in siblings}
    out: list[BorrowedWiring] = []
    own: dict[str, dict[str, str]] = {}

    def made_by(s: str) -> dict[str, str]:
        """Function name -> file:line for what sibling ``s`` defines at module level or
        imports from code outside every sibling folder (and outside the sub-project)."""
        if s not in own:
            made: dict[str, str] = {}
            for path, text in _py(files, f"{parent}/{s}/"):
                mod = ps.parse(text)
                if mod is None:
                    continue
                for name, node in _top_functions(mod).items():
                    made.setdefault(name, f"{path}:{node.lineno}")
                for name, (module, orig, line) in ps.from_imports(path, mod).items():
                    if module.startswith(_dotted(parent) + ".") or not module:
                        continue
                    if ps.module_path(module, paths) and name == orig:
                        made.setdefault(orig, f"{path}:{line}")
            own[s] = made
        return own[s]

    for where, fn_name, keyword, reg_at in _registered(ours, paths, files):
        mod = ps.parse(files[where])
        if mod is None:
            continue
        fn = _top_functions(mod)[fn_name]
        imported = ps.from_imports(where, mod)
        by_module: dict[tuple[str, int], list[str]] = {}
        for name in sorted(_called(fn)):
            if name not in imported:
                continue
            module, orig, line = imported[name]
            owner = next((s for m, s in sib_modules.items()
                          if module == m or module.startswith(m + ".")), None)
            if owner is None:
                continue
            src = ps.module_path(module, paths)
            text = files.get(src, "") if src is not None else ""
            if orig not in _top_functions(ps.parse(text)):
                continue
            by_module.setdefault((module, line), []).append(orig)
        for (module, line), names in sorted(by_module.items()):
            owner = next(s for m, s in sib_modules.items()
                         if module == m or module.startswith(m + "."))
            otherwise = tuple(sorted({made_by(s)[n] for s in siblings if s != owner
                                      for n in names if n in made_by(s)}))
            if not otherwise:
                continue
            out.append(BorrowedWiring(where, line, fn_name, keyword, reg_at, module,
                                      tuple(names), otherwise))
            if len(out) >= MAX_FINDINGS:
                return out
    return out
