"""A helper written for one model's structure that runs for other models (#22, S-4,
census row "one model's helper used for other models").

The repository's models are named by path: the folders directly below any folder named
``models`` (``pkg/models/<name>/``) whose package registers or describes a model (a call
with several keywords in its ``__init__.py``). A module lies in model A's folder when a folder of
its path bears A's name (the core folder itself, or a per-model subfolder of an
experiment: ``pkg/experiments/x/<name>/``); the nearest such folder is its model.

A top-level function of model A's folder is *model-specific* when its body (and the
body of the same module's top-level functions it calls, a few levels deep) reads, off
one of its parameters, attribute names that A's classes define: an annotated class
field (a config field, ``n_layers``) or an attribute one of its methods assigns on
``self`` (a layer, ``tok_embeddings``). A's classes are those of its folder and of the
core folder of the same name.

Such a function is *used for another model* when a module outside A's folder imports
it (at module or function level, through package re-exports) and names it again, and
that module is either in the folder of another model B, or in no model's folder at
all (shared code of a folder that dispatches over models, or another sub-project's own
wiring) and not a package ``__init__`` above A's folder (its registry, its re-exports).
Tests are not callers.

A finding is kept when the helper or one of its users lies in the sub-project: one
record per defining module, with its helpers and their users. An Opportunity: move
the helper to shared code, or give each model its own. Pure: the HEAD tree in,
``ModelHelper`` records out.
"""

from __future__ import annotations

import ast
import posixpath
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.siblinghooks import _py
from agentops.scout.model import Inputs

MAX_FINDINGS = 6
MAX_USERS = 6
MIN_KEYWORDS = 3
CALL_DEPTH = 3  # same-module calls followed from the helper's body
REEXPORT_HOPS = 3  # package re-exports followed from an import to the definition
_FuncDef = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class ModelHelper:
    file: str  # the module of model A's folder defining the helpers
    line: int  # the first helper's definition
    names: tuple[str, ...]  # the helpers
    model: str  # A
    reads: tuple[str, ...]  # attribute names of A's classes their bodies read
    users: tuple[str, ...]  # ``file:line`` of the imports in other models' or shared code


def model_names(files: dict[str, str], paths: frozenset[str]) -> frozenset[str]:
    """Folders directly below a folder named ``models`` whose package describes a model:
    its ``__init__.py`` makes a call with at least ``MIN_KEYWORDS`` keywords (a
    registration, a flavor's arguments). A folder of shared parts (``models/common``)
    only re-exports, and names no model."""
    out = set()
    for p in paths:
        parts = p.split("/")
        if len(parts) < 3 or parts[-1] != "__init__.py" or parts[-3] != "models":
            continue
        mod = ps.parse(files.get(p))
        if mod is not None and any(isinstance(n, ast.Call) and len(n.keywords) >= MIN_KEYWORDS
                                   for n in ast.walk(mod)):
            out.add(parts[-2])
    return frozenset(out)


def model_of(path: str, names: frozenset[str]) -> tuple[str, str] | None:
    """(model name, its folder) for the nearest folder of ``path`` named for a model."""
    parts = path.split("/")[:-1]
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] in names:
            return parts[i], "/".join(parts[:i + 1])
    return None


def _structure(files: dict[str, str], folders: list[str]) -> frozenset[str]:
    """Class fields and ``self`` attributes the classes of ``folders`` define."""
    out: set[str] = set()
    for folder in folders:
        for _path, text in _py(files, folder + "/"):
            mod = ps.parse(text)
            if mod is None:
                continue
            for cls in ps.statements(mod):
                if not isinstance(cls, ast.ClassDef):
                    continue
                for stmt in cls.body:
                    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                        out.add(stmt.target.id)
                for node in ast.walk(cls):
                    if isinstance(node, (ast.Assign, ast.AnnAssign)):
                        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                        for t in targets:
                            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) \
                                    and t.value.id == "self":
                                out.add(t.attr)
    return frozenset(out)


def _param_reads(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Attribute names read directly off the function's parameters (not ``self``)."""
    params = {p.lstrip("*") for p in ps.param_names(fn)} - {"self", "cls"}
    return {n.attr for n in ast.walk(fn)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
            and n.value.id in params}


def _reads(mod: ast.Module, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """``_param_reads`` of the helper and of the module's functions it calls."""
    tops = {n.name: n for n in mod.body if isinstance(n, _FuncDef)}
    out, seen, frontier = set(), set(), [fn]
    for _ in range(CALL_DEPTH + 1):
        nxt = []
        for f in frontier:
            if id(f) in seen:
                continue
            seen.add(id(f))
            out |= _param_reads(f)
            nxt += [tops[c.func.id] for c in ast.walk(f) if isinstance(c, ast.Call)
                    and isinstance(c.func, ast.Name) and c.func.id in tops]
        frontier = nxt
    return out


def _imports(path: str, mod: ast.Module) -> list[tuple[str, str, str, int]]:
    """(local name, absolute module, imported name, line) of every ``from`` import,
    function-level ones included."""
    out = []
    for node in ps.statements(mod):
        if isinstance(node, ast.ImportFrom):
            module = ps.from_module(path, node.level, node.module)
            if not module:
                continue
            for alias in node.names:
                if alias.name != "*":
                    out.append((alias.asname or alias.name, module, alias.name, node.lineno))
    return out


def _definition(files: dict[str, str], paths: frozenset[str], module: str, name: str
                ) -> tuple[str, ast.Module, ast.FunctionDef | ast.AsyncFunctionDef] | None:
    """The module-level function ``name`` of ``module``, through re-exports."""
    for _ in range(REEXPORT_HOPS + 1):
        path = ps.module_path(module, paths)
        mod = ps.parse(files.get(path)) if path else None
        if path is None or mod is None:
            return None
        for node in mod.body:
            if isinstance(node, _FuncDef) and node.name == name:
                return path, mod, node
        again = next(((m, orig) for local, m, orig, _l in _imports(path, mod)
                      if local == name), None)
        if again is None:
            return None
        module, name = again
    return None


def _tests_for(test: ast.expr, model: str | None = None) -> bool:
    """``x == "kite"`` (either side): a test only the model's own name passes (any
    string's name when ``model`` is None)."""
    return isinstance(test, ast.Compare) and all(isinstance(o, ast.Eq) for o in test.ops) \
        and any(isinstance(e, ast.Constant) and isinstance(e.value, str)
                and (model is None or e.value == model)
                for e in (test.left, *test.comparators))


@dataclass(frozen=True)
class _Uses:
    """One walk of a user module: its names by identifier, and the dispatch tables and
    ``==`` branches that may bind a name to one model (read once per module, not once
    per import: a long module importing many helpers stays linear)."""

    names: dict[str, list[ast.Name]]
    pickers: list[ast.Dict | ast.If]

    @classmethod
    def of(cls, mod: ast.Module) -> _Uses:
        names: dict[str, list[ast.Name]] = {}
        pickers: list[ast.Dict | ast.If] = []
        for n in ps.walk(mod):
            if isinstance(n, ast.Name):
                names.setdefault(n.id, []).append(n)
            elif isinstance(n, ast.Dict) or (isinstance(n, ast.If) and _tests_for(n.test)):
                pickers.append(n)
        return cls(names, pickers)

    def bound_to(self, model: str, local: str) -> set[int]:
        """Ids of the ``local`` names that only run for ``model``: the value of a
        dispatch table's entry keyed by the model's name (``{"kite": split_kite}``), or a
        name inside the branch of an ``if`` that tests for that name (``if name ==
        "kite":``). Each model's helper picked by its own name runs for no other model."""
        out: set[int] = set()
        for n in self.pickers:
            if isinstance(n, ast.Dict):
                picked = [v for k, v in zip(n.keys, n.values, strict=True)
                          if isinstance(k, ast.Constant) and k.value == model]
            else:
                picked = list(n.body) if _tests_for(n.test, model) else []
            out |= {id(m) for v in picked for m in ps.walk(v)
                    if isinstance(m, ast.Name) and m.id == local}
        return out

    def again(self, local: str, model: str) -> bool:
        """Whether the module names ``local`` again where it may run for a model other
        than ``model`` (a use not bound to the model's own name)."""
        uses = self.names.get(local, [])
        if not uses:
            return False
        bound = self.bound_to(model, local) if self.pickers else set()
        return any(id(n) not in bound for n in uses)


def _user(path: str, a_model: str, a_folder: str, names: frozenset[str]) -> bool:
    """Whether a module at ``path`` runs for a model other than A."""
    if path.startswith(a_folder + "/"):
        return False
    if a_model in path.split("/")[:-1]:
        return False  # a folder of the same model (another experiment's variant of A)
    folder = posixpath.dirname(path)
    if path.endswith("/__init__.py") and a_folder.startswith(folder + "/"):
        return False  # a package above A's folder (its registry, its re-exports)
    return model_of(path, names) is None or model_of(path, names)[0] != a_model


def _within(sub: str, folder: str) -> bool:
    return (sub + "/").startswith(folder + "/")


def analyse(inp: Inputs) -> list[ModelHelper]:
    sub = inp.target.subproject.rstrip("/")
    files, paths = inp.head.files, inp.head.paths
    names = model_names(files, paths)
    if not names:
        return []
    everything = _py(files, "")
    # Helpers of model folders inside the sub-project (or the sub-project's own model):
    # their names select the candidate users anywhere in the repository.
    helper_names: set[str] = set()
    renamed: list[tuple[str, str]] = []  # (imported name, local name) in those folders
    for path, text in everything:
        owner = model_of(path, names)
        if owner is None or not (path.startswith(sub + "/") or _within(sub, owner[1])):
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        helper_names |= {n.name for n in mod.body if isinstance(n, _FuncDef)}
        renamed += [(orig, local) for local, _m, orig, _l in _imports(path, mod) if local != orig]
    # A helper the folder re-exports under another name is imported by that name.
    helper_names |= {local for orig, local in renamed if orig in helper_names}
    found: dict[tuple[str, str], tuple[int, str, set[str], list[str]]] = {}
    structure: dict[str, frozenset[str]] = {}
    for path, text in everything:
        mine = path.startswith(sub + "/")
        if not mine and not any(n in text for n in helper_names):
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        uses: _Uses | None = None
        for local, module, orig, line in _imports(path, mod):
            if not mine and orig not in helper_names:
                continue
            got = _definition(files, paths, module, orig)
            if got is None:
                continue
            def_path, def_mod, fn = got
            owner = model_of(def_path, names)
            if owner is None or not (mine or def_path.startswith(sub + "/")
                                     or _within(sub, owner[1])):
                continue
            a_model, a_folder = owner
            if not _user(path, a_model, a_folder, names):
                continue
            uses = uses or _Uses.of(mod)
            if not uses.again(local, a_model):
                continue
            if a_folder not in structure:
                cores = {p.split(f"/models/{a_model}/")[0] + f"/models/{a_model}"
                         for p in paths if f"/models/{a_model}/" in p}
                structure[a_folder] = _structure(files, sorted({a_folder, *cores}))
            key = (def_path, fn.name)
            if key not in found:
                reads = _reads(def_mod, fn) & structure[a_folder]
                found[key] = (fn.lineno, a_model, reads, [])
            found[key][3].append(f"{path}:{line}")
    by_module: dict[str, tuple[int, str, set[str], set[str], set[str]]] = {}
    for (def_path, name), (line, a_model, reads, users) in sorted(found.items()):
        if not reads:
            continue
        first, _m, helpers, read, used = by_module.setdefault(
            def_path, (line, a_model, set(), set(), set()))
        by_module[def_path] = (min(first, line), a_model, helpers | {name}, read | reads,
                               used | set(users))
    out = []
    for def_path, (line, a_model, helpers, read, used) in sorted(by_module.items()):
        out.append(ModelHelper(def_path, line, tuple(sorted(helpers)), a_model,
                               tuple(sorted(read)), tuple(sorted(used))[:MAX_USERS]))
        if len(out) >= MAX_FINDINGS:
            break
    return out
