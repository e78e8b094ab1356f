"""S-1 upstream delta and S-4 config drift / stale patches: what changed upstream
since the baseline on the surfaces the sub-project depends on, found by parsing the
Python at both ends (baseline commit and HEAD).

Pure: reads ``Inputs`` (trees already loaded), returns frozen records.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from agentops.scout.analyses import pysource as ps
from agentops.scout.config import Symbol
from agentops.scout.gitrepo import Commit, Tree
from agentops.scout.model import Inputs


@dataclass(frozen=True)
class UpstreamCommit:
    sha: str
    date: str
    subject: str
    files: tuple[str, ...]


@dataclass(frozen=True)
class SurfaceChange:
    """A fragile surface that differs between the baseline and HEAD."""

    surface: str  # "fields" | "signature" | "return tuple" | "monkey patch"
    symbol: str  # Trainer.Config.foo, ParallelDims.build_mesh, MoE.forward
    change: str  # human sentence: added/removed/retyped/…
    commit: str  # newest commit since the baseline touching the file ("" if unknown)
    file: str
    severity: str  # blocking | should-fix | nice-to-have
    why: str = ""


@dataclass(frozen=True)
class PatchSite:
    """A monkey-patch found in the sub-project and the upstream symbol it replaces."""

    file: str
    line: int
    target: str  # MoE.forward
    upstream_file: str  # "" when it could not be resolved (e.g. a torch module)
    wraps: bool = False  # wraps the original (args pass through) vs replaces it


@dataclass(frozen=True)
class DriftFinding:
    """Config drift: a source-class field the copy/subclass does not handle as it should."""

    kind: str  # "copy" | "subclass"
    source: str  # Trainer.Config
    other: str  # to_graph_trainer_config | GraphTrainerCompileConfig
    field: str
    problem: str
    severity: str
    file: str


@dataclass(frozen=True)
class NewApi:
    file: str
    names: tuple[str, ...]
    commit: str
    imported_by_subproject: bool = False  # the sub-project already imports this module


def commits(inp: Inputs) -> list[UpstreamCommit]:
    """S-1: commits since the baseline on the watched paths, newest first."""
    return [UpstreamCommit(c.sha, c.date, c.subject, c.files) for c in inp.commits]


def _touching(commits_: tuple[Commit, ...], path: str) -> str:
    return next((c.sha for c in commits_ if path in c.files), "")


def _introduced(inp: Inputs, path: str, state: Callable[[str | None], object]) -> str:
    """The newest commit since the baseline at which ``state`` of ``path`` changed (the
    commit that made the change, not merely the last one to touch the file); falls back
    to the newest commit touching the file when no history was loaded."""
    hist = inp.history.get(path)
    if not hist or inp.base is None:
        return _touching(inp.commits, path)
    prev, found = state(inp.base.text(path)), ""
    for sha, text in hist:
        cur = state(text)
        if cur != prev:
            found = sha
        prev = cur
    return found or _touching(inp.commits, path)


def _field_state(sym: Symbol, name: str) -> Callable[[str | None], object]:
    def state(text: str | None) -> object:
        node = ps.find(ps.parse(text), sym.name) if text is not None else None
        return ps.class_fields(node).get(name) if isinstance(node, ast.ClassDef) else None
    return state


def _func_state(name: str, how: Callable[[ps.FuncDef], object]
                ) -> Callable[[str | None], object]:
    def state(text: str | None) -> object:
        node = ps.find(ps.parse(text), name) if text is not None else None
        return how(node) if isinstance(node, ps.FuncDef) else None
    return state


def _symbol_at(tree: Tree | None, sym: Symbol) -> ast.ClassDef | ps.FuncDef | None:
    if tree is None:
        return None
    text = tree.text(sym.file)
    return ps.find(ps.parse(text), sym.name) if text is not None else None


def fragile_changes(inp: Inputs) -> list[SurfaceChange]:
    """S-1: fields added/removed/retyped, signature and return-arity changes on the
    configured fragile surfaces, baseline → HEAD."""
    if inp.base is None:
        return []
    out: list[SurfaceChange] = []
    cfg = inp.target
    for sym in cfg.symbols("fragile_surfaces", "classes"):
        old, new = _symbol_at(inp.base, sym), _symbol_at(inp.head, sym)
        commit = _touching(inp.commits, sym.file)

        def by(name: str, sym: Symbol = sym) -> str:
            return _introduced(inp, sym.file, _field_state(sym, name))

        if isinstance(old, ast.ClassDef) and not isinstance(new, ast.ClassDef):
            out.append(SurfaceChange("fields", sym.name, f"class {sym.name} no longer found in "
                                     f"{sym.file}", commit, sym.file, "blocking", sym.why))
            continue
        if not (isinstance(old, ast.ClassDef) and isinstance(new, ast.ClassDef)):
            continue
        before, after = ps.class_fields(old), ps.class_fields(new)
        for name in after.keys() - before.keys():
            out.append(SurfaceChange("fields", f"{sym.name}.{name}",
                                     f"field added: {name}: {after[name]}", by(name), sym.file,
                                     "nice-to-have", sym.why))
        for name in before.keys() - after.keys():
            users = _mentions(inp, name)
            where = (f"; still named in {', '.join(users[:3])}" if users
                     else "; the sub-project does not name it")
            out.append(SurfaceChange("fields", f"{sym.name}.{name}",
                                     f"field removed: {name}: {before[name]}{where}", by(name),
                                     sym.file, "blocking" if users else "should-fix", sym.why))
        for name in before.keys() & after.keys():
            if before[name] != after[name]:
                out.append(SurfaceChange("fields", f"{sym.name}.{name}",
                                         f"field retyped: {before[name]} -> {after[name]}",
                                         by(name), sym.file, "should-fix", sym.why))
    for sym in cfg.symbols("fragile_surfaces", "functions"):
        old, new = _symbol_at(inp.base, sym), _symbol_at(inp.head, sym)
        out += _signature_change("signature", sym.name, old, new, file=sym.file,
                                 commit=_introduced(inp, sym.file,
                                                    _func_state(sym.name, ps.signature)),
                                 why=sym.why)
    for sym in cfg.symbols("fragile_surfaces", "return_tuples"):
        old, new = _symbol_at(inp.base, sym), _symbol_at(inp.head, sym)
        if isinstance(old, ps.FuncDef) and isinstance(new, ps.FuncDef):
            a, b = ps.return_arities(old), ps.return_arities(new)
            if a != b:
                out.append(SurfaceChange("return tuple", sym.name,
                                         f"returns a {_arity(a)} at the baseline, a {_arity(b)} "
                                         "now", _introduced(inp, sym.file, _func_state(
                                             sym.name, ps.return_arities)), sym.file,
                                         "blocking", sym.why))
    return sorted(_moves(out), key=lambda c: (c.file, c.symbol, c.change))


def _moves(changes: list[SurfaceChange]) -> list[SurfaceChange]:
    """A field removed from one fragile class and added to another in the same window
    moved (``enable_async_tensor_parallel``: parallelism -> compile): say so, and do not
    call it blocking just because the sub-project still uses the name."""
    added = {c.symbol.rsplit(".", 1)[1]: c.symbol.rsplit(".", 1)[0] for c in changes
             if c.surface == "fields" and c.change.startswith("field added")}
    out = []
    for c in changes:
        owner, _, name = c.symbol.rpartition(".")
        if c.surface == "fields" and c.change.startswith("field removed") \
                and added.get(name, owner) != owner:
            detail = c.change.split(";", 1)[1].strip() if ";" in c.change else ""
            text = f"field moved to {added[name]}.{name}" + (f" ({detail})" if detail else "")
            out.append(replace(c, change=text, severity="should-fix"))
            continue
        out.append(c)
    return out


def _mentions(inp: Inputs, name: str) -> list[str]:
    """``file:line`` of sub-project lines that use ``name`` as a field: an attribute
    (``cfg.training.name``), a string key (``d["name"]``) or a CLI flag (``.name=``); a
    local variable of the same name is not a use."""
    rx = re.compile(rf"\.{re.escape(name)}\b|[\"']{re.escape(name)}[\"']")
    out = []
    for path in sorted(inp.head.files):
        if path.startswith(inp.target.subproject + "/") and path.endswith(".py"):
            for n, line in enumerate(inp.head.files[path].splitlines(), 1):
                if rx.search(line):
                    out.append(f"{path}:{n}")
    return out


def _arity(sizes: list[int]) -> str:
    return "/".join(f"{n}-tuple" for n in sizes) if sizes else "non-tuple"


def _signature_change(surface: str, name: str, old: object, new: object, *, file: str,
                      commit: str, why: str) -> list[SurfaceChange]:
    if isinstance(old, ps.FuncDef) and not isinstance(new, ps.FuncDef):
        return [SurfaceChange(surface, name, f"{name} no longer found in {file}", commit, file,
                              "blocking", why)]
    if not (isinstance(old, ps.FuncDef) and isinstance(new, ps.FuncDef)):
        return []
    a, b = ps.signature(old), ps.signature(new)
    if a == b:
        return []
    removed = [p for p in ps.param_names(old) if p not in ps.param_names(new)]
    added = [p for p in ps.param_names(new) if p not in ps.param_names(old)]
    parts = []
    if removed:
        parts.append("removed " + ", ".join(removed))
    if added:
        parts.append("added " + ", ".join(added))
    detail = "; ".join(parts) or "annotations/defaults changed"
    return [SurfaceChange(surface, name, f"signature changed ({detail}): {a} -> {b}", commit,
                          file, "blocking" if removed else "should-fix", why)]


def _resolve_class(tree: Tree, module: str, name: str, hops: int = 4
                   ) -> tuple[str, ast.ClassDef] | None:
    """Follow ``from a import X`` re-exports (package ``__init__``) to X's definition."""
    for _ in range(hops):
        path = ps.module_path(module, tree.paths)
        text = tree.text(path) if path else None
        mod = ps.parse(text) if text is not None else None
        if mod is None or path is None:
            return None
        node = ps.find(mod, name)
        if isinstance(node, ast.ClassDef):
            return path, node
        reexport = ps.imports(mod).get(name)
        if not reexport or not reexport[1]:
            return None
        module, name = reexport
    return None


def patch_sites(inp: Inputs) -> list[PatchSite]:
    """Monkey-patch sites discovered in the sub-project code (not a hand list)."""
    cfg = inp.target
    surfaces = cfg.section("fragile_surfaces")
    if surfaces.get("discover_monkey_patches") is False:
        return []
    exclude = tuple(surfaces.get("monkey_patch_exclude", ()))
    own_module = cfg.subproject.replace("/", ".")
    out: list[PatchSite] = []
    for path in sorted(inp.head.files):
        if not (path.startswith(cfg.subproject + "/") and path.endswith(".py")) \
                or path.startswith(exclude):
            continue
        mod = ps.parse(inp.head.files[path])
        imported = ps.imports(mod)
        for site in ps.patch_sites(mod):
            module, name = imported[site.owner]
            if module.startswith(own_module):
                continue  # patching the sub-project's own classes is not upstream drift
            resolved = _resolve_class(inp.head, module, name)
            out.append(PatchSite(path, site.line, f"{name}.{site.attr}",
                                 resolved[0] if resolved else "", site.wraps))
    return out


def stale_patches(inp: Inputs, sites: list[PatchSite]) -> list[SurfaceChange]:
    """S-4: patched upstream methods whose signature changed since the baseline."""
    if inp.base is None:
        return []
    out: list[SurfaceChange] = []
    seen: set[tuple[str, str]] = set()
    for site in sites:
        if not site.upstream_file or (site.target, site.upstream_file) in seen:
            continue
        seen.add((site.target, site.upstream_file))
        sym = Symbol(site.target, site.upstream_file)
        old, new = _symbol_at(inp.base, sym), _symbol_at(inp.head, sym)
        how = "wrapped" if site.wraps else "replaced"
        why = f"{how} in {site.file}:{site.line}"
        for ch in _signature_change("monkey patch", site.target, old, new,
                                    file=site.upstream_file,
                                    commit=_introduced(inp, site.upstream_file, _func_state(
                                        site.target, ps.signature)), why=why):
            # A wrapper that passes the original through keeps working after a rename;
            # a replacement silently drops new parameters. A vanished method breaks both.
            keep = "no longer found" in ch.change
            out.append(ch if keep else replace(
                ch, severity="nice-to-have" if site.wraps else "should-fix"))
    return out


def _copy_references(func: ps.FuncDef) -> tuple[bool, set[str]]:
    """Whether the copy function spreads every field (``fields(param)``), and the field
    names it handles explicitly (``d["x"]``, ``d.get("x")``, ``param.x``, ``x=``)."""
    params = ps.param_names(func)
    first = params[0] if params else ""
    spread = False
    names: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "fields" and node.args \
                and isinstance(node.args[0], ast.Name) and node.args[0].id == first:
            spread = True
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, str):
            names.add(node.slice.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("get", "pop", "setdefault") and node.args \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            names.add(node.args[0].value)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == first:
            names.add(node.attr)
    return spread, names


def config_drift(inp: Inputs) -> list[DriftFinding]:
    """S-4: source-class fields vs what the copy function handles, and a base config
    class vs its subclass in the sub-project."""
    out: list[DriftFinding] = []
    drift = inp.target.section("config_drift")
    for pair in drift.get("copies", []):
        src, fn = Symbol(**pair["source"]), Symbol(**pair["copy_function"])
        cls, func = _symbol_at(inp.head, src), _symbol_at(inp.head, fn)
        if not isinstance(cls, ast.ClassDef) or not isinstance(func, ps.FuncDef):
            missing = src if not isinstance(cls, ast.ClassDef) else fn
            out.append(DriftFinding("copy", src.name, fn.name, "",
                                    f"{missing.name} not found in {missing.file}", "blocking",
                                    missing.file))
            continue
        now = ps.class_fields(cls)
        old_cls = _symbol_at(inp.base, src)
        before = ps.class_fields(old_cls) if isinstance(old_cls, ast.ClassDef) else now
        spread, handled = _copy_references(func)
        for name in now:
            if not spread and name not in handled:
                out.append(DriftFinding("copy", src.name, fn.name, name,
                                        f"{src.name}.{name} is not copied by {fn.name}",
                                        "should-fix", fn.file))
            elif spread and name not in before:
                out.append(DriftFinding("copy", src.name, fn.name, name,
                                        f"new field {src.name}.{name} ({now[name]}) is copied "
                                        f"verbatim by the dict-spread in {fn.name}; check "
                                        "whether the sub-project needs its own handling",
                                        "nice-to-have", fn.file))
        for name in sorted(handled & (set(before) - set(now))):
            out.append(DriftFinding("copy", src.name, fn.name, name,
                                    f"{fn.name} handles {name!r}, which {src.name} no longer "
                                    "has", "blocking", fn.file))
    for pair in drift.get("subclasses", []):
        base, sub = Symbol(**pair["base"]), Symbol(**pair["subclass"])
        bcls, scls = _symbol_at(inp.head, base), _symbol_at(inp.head, sub)
        if not isinstance(bcls, ast.ClassDef) or not isinstance(scls, ast.ClassDef):
            missing = base if not isinstance(bcls, ast.ClassDef) else sub
            out.append(DriftFinding("subclass", base.name, sub.name, "",
                                    f"{missing.name} not found in {missing.file}", "blocking",
                                    missing.file))
            continue
        now, mine = ps.class_fields(bcls), ps.class_fields(scls)
        old_b = _symbol_at(inp.base, base)
        before = ps.class_fields(old_b) if isinstance(old_b, ast.ClassDef) else now
        for name in now:
            if name not in before:
                out.append(DriftFinding("subclass", base.name, sub.name, name,
                                        f"{sub.name} inherits new field {base.name}.{name} "
                                        f"({now[name]}); check the sub-project handles it",
                                        "nice-to-have", sub.file))
            elif name in mine and before[name] != now[name]:
                out.append(DriftFinding("subclass", base.name, sub.name, name,
                                        f"{base.name}.{name} changed type upstream "
                                        f"({before[name]} -> {now[name]}) but {sub.name} "
                                        f"overrides it as {mine[name]}", "should-fix", sub.file))
        for name in sorted(set(mine) & (set(before) - set(now))):
            out.append(DriftFinding("subclass", base.name, sub.name, name,
                                    f"{sub.name} overrides {name}, which {base.name} no longer "
                                    "has (now a field only graph_trainer defines)",
                                    "should-fix", sub.file))
    return out


def new_apis(inp: Inputs) -> list[NewApi]:
    """S-1 opportunities: public top-level names added in watched files since the
    baseline (a utility that may replace something hand-rolled)."""
    if inp.base is None:
        return []
    out: list[NewApi] = []
    watched = tuple(inp.target.watched_paths)
    used: set[str] = set()
    for path, text in inp.head.files.items():
        if path.startswith(inp.target.subproject + "/") and path.endswith(".py"):
            for module, _name in ps.imports(ps.parse(text)).values():
                target = ps.module_path(module, inp.head.paths)
                if target:
                    used.add(target)
    for path in sorted(p for p in inp.head.files if p.endswith(".py") and p.startswith(watched)):
        new_text = inp.head.files[path]
        old_text = inp.base.text(path)
        if old_text == new_text:
            continue
        now = ps.top_level_names(ps.parse(new_text))
        before = ps.top_level_names(ps.parse(old_text)) if old_text is not None else {}
        added = tuple(sorted(now.keys() - before.keys()))
        if added:
            out.append(NewApi(path, added, _touching(inp.commits, path), path in used))
    return out


def new_models(inp: Inputs) -> list[str]:
    """S-1: model directories added under ``models_dir`` since the baseline that the
    sub-project has no directory for yet."""
    models = str(inp.target.raw.get("models_dir", "")).rstrip("/")
    if not models or inp.base is None:
        return []

    def dirs(tree: Tree) -> set[str]:
        return {p[len(models) + 1:].split("/", 1)[0] for p in tree.paths
                if p.startswith(models + "/") and p.count("/") > models.count("/") + 1}

    sub = inp.target.subproject + "/"
    supported = {p[len(sub):].split("/", 1)[0] for p in inp.head.paths
                 if p.startswith(sub) and p.count("/") > sub.count("/")}
    return sorted(dirs(inp.head) - dirs(inp.base) - supported)
