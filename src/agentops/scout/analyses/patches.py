"""S-1/S-4 monkey-patches: the patch sites in the sub-project's code (``X.attr = …``,
``setattr(X, "attr", …)`` on a class imported from upstream), what each upstream
signature change since the baseline does to them (a wrapper that forwards every
argument stays valid; a replacement with its own parameter list breaks when callers
now pass it something it does not take), upstream subclasses whose override bypasses
a patch, and which patch targets the target config lists that no longer exist.

Pure: reads the loaded trees; returns frozen records.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from agentops.scout.analyses import attribution, classindex
from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses import signatures as sig
from agentops.scout.gitrepo import Tree
from agentops.scout.model import Inputs


@dataclass(frozen=True)
class PatchSite:
    """A monkey-patch found in the sub-project and the upstream symbol it replaces."""

    file: str
    line: int
    target: str  # MoE.forward
    upstream_file: str  # "" when it could not be resolved (e.g. a torch module)
    wraps: bool = False  # wraps the original (args pass through) vs replaces it
    how: str = ""  # "wrapper" | "forwarder" | "replacement" | "other" (see _how)
    replacement_line: int = 0  # the replacing function's line (replacements)
    upstream: str = ""  # the configured upstream (``upstreams:``) the class comes from


@dataclass(frozen=True)
class PatchChange:
    """An upstream change to a patched method, and what it does to the patch."""

    site: PatchSite
    verdict: str  # "stale" | "still valid" | "gone"
    change: str  # human sentence
    severity: str  # blocking | should-fix | nice-to-have
    commit: str
    sites: tuple[str, ...] = ()  # every "file:line" patching the same target


@dataclass(frozen=True)
class Bypass:
    """An upstream subclass overriding a patched method without calling ``super()``:
    the patch never runs for it."""

    site: PatchSite
    subclass: str
    file: str
    line: int


@dataclass(frozen=True)
class ListedPatch:
    """A patch target the target config lists, and what became of it."""

    name: str
    file: str
    status: str  # "no longer exists" | "not patched by the code"


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


def _saved_originals(mod: ast.Module, owner: str, attr: str) -> set[str]:
    """Variables holding the original method: ``orig = Owner.attr``."""
    return {t.id for n in ps.statements(mod) if isinstance(n, ast.Assign)
            and isinstance(n.value, ast.Attribute) and n.value.attr == attr
            and isinstance(n.value.value, ast.Name) and n.value.value.id == owner
            for t in n.targets if isinstance(t, ast.Name)}


def _value_at(mod: ast.Module, line: int) -> ast.expr | None:
    for n in ps.statements(mod):
        if n.lineno == line:
            if isinstance(n, ast.Assign):
                return n.value
            if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and \
                    len(n.value.args) > 2:
                return n.value.args[2]  # setattr(X, "attr", value)
    return None


def _how(site: ps.PatchSite, mod: ast.Module) -> tuple[str, int]:
    """wrapper (built from the original), restore (puts the original back), forwarder
    (a local ``*args, **kwargs`` function), replacement (a local function with its own
    parameters), or other."""
    if site.wraps:
        return "wrapper", 0
    saved = _saved_originals(mod, site.owner, site.attr)
    value = _value_at(mod, site.line)
    if saved and value is not None:
        if isinstance(value, ast.Name) and value.id in saved:
            return "restore", 0
        if any(isinstance(n, ast.Name) and n.id in saved for n in ast.walk(value)):
            return "wrapper", 0
    if site.value:
        func = ps.function_named(mod, site.value, site.line)
        if func is not None:
            return ("forwarder" if sig.forwards_everything(func) else "replacement"), func.lineno
    return "other", 0


def patch_sites(inp: Inputs) -> list[PatchSite]:
    """Monkey-patch sites discovered in the sub-project code (not a hand list)."""
    cfg = inp.target
    surfaces = cfg.section("fragile_surfaces")
    if surfaces.get("discover_monkey_patches") is False:
        return []
    upstreams = upstream_trees(inp)
    exclude = tuple(surfaces.get("monkey_patch_exclude", ()))
    own_module = cfg.subproject.replace("/", ".")
    out: list[PatchSite] = []
    for path in sorted(inp.head.files):
        if not (path.startswith(cfg.subproject + "/") and path.endswith(".py")) \
                or path.startswith(exclude):
            continue
        mod = ps.parse(inp.head.files[path])
        if mod is None:
            continue
        imported = ps.imports(mod)
        for site in ps.patch_sites(mod):
            module, name = imported[site.owner]
            if module.startswith(own_module):
                continue  # patching the sub-project's own classes is not upstream drift
            root = module.split(".")[0]
            upstream = root if root in upstreams else ""
            # A class of a configured upstream is looked up in that upstream's source.
            resolved = _resolve_class(upstreams[root] if upstream else inp.head, module, name)
            how, line = _how(site, mod)
            if how == "restore":
                continue  # putting the original back is not a patch
            out.append(PatchSite(path, site.line, f"{name}.{site.attr}",
                                 resolved[0] if resolved else "", site.wraps, how, line,
                                 upstream))
    return out


def upstream_trees(inp: Inputs) -> dict[str, Tree]:
    """Each configured upstream's source read, as a tree of its files."""
    return {name: Tree("", frozenset(src.files), dict(src.files))
            for name, src in inp.upstreams.items() if not src.missing}


def upstream_checks(inp: Inputs, sites: list[PatchSite]) -> list[PatchChange]:
    """Patches of classes from a configured upstream (one version, no baseline):
    whether the patched method exists in the upstream's source, and whether a
    replacement still accepts what its signature there takes."""
    trees = upstream_trees(inp)
    by_target: dict[tuple[str, str, str], list[PatchSite]] = {}
    for site in sites:
        if site.upstream and site.upstream_file and site.upstream in trees:
            by_target.setdefault((site.upstream, site.target, site.upstream_file),
                                 []).append(site)
    out: list[PatchChange] = []
    for (name, target, ufile), group in sorted(by_target.items()):
        label = inp.upstreams[name].label
        where = tuple(f"{s.file}:{s.line}" for s in group)
        theirs = _method(trees[name], ufile, target)
        if theirs is None:
            if not any(s.how == "other" for s in group):  # a new attribute on purpose
                out.append(PatchChange(group[0], "gone", f"`{target}` does not exist in "
                                       f"{label} ({ufile}); the patch adds an attribute "
                                       "nothing calls", "blocking", "", where))
            continue
        for site in group:
            mine = _method_at(inp.head, site) if site.how == "replacement" else None
            if mine is None:
                continue
            broken = [b for b in sig.breakages(theirs, mine) if b.severity != "nice-to-have"]
            if broken:
                out.append(PatchChange(site, "stale", f"the replacement at {site.file}:"
                                       f"{site.replacement_line} of `{target}` ({label}) "
                                       + "; ".join(_as_replacement(b) for b in broken),
                                       sig.worst(broken), "", where))
    return out


def _method(tree: Tree | None, file: str, target: str) -> ps.FuncDef | None:
    if tree is None:
        return None
    text = tree.text(file)
    node = ps.find(ps.parse(text), target) if text is not None else None
    return node if isinstance(node, ps.FuncDef) else None


def patch_changes(inp: Inputs, sites: list[PatchSite]) -> list[PatchChange]:
    """Each patched upstream method whose signature changed (or vanished) since the
    baseline, judged by the kind of patch."""
    if inp.base is None:
        return []
    by_target: dict[tuple[str, str], list[PatchSite]] = {}
    for site in sites:
        if site.upstream_file and not site.upstream:
            by_target.setdefault((site.target, site.upstream_file), []).append(site)
    out: list[PatchChange] = []
    for (target, ufile), group in sorted(by_target.items()):
        old, new = _method(inp.base, ufile, target), _method(inp.head, ufile, target)
        if old is None or (new is not None and ps.signature(old) == ps.signature(new)):
            continue
        commit = attribution.introduced(inp, ufile, attribution.signature_state(target))
        where = tuple(f"{s.file}:{s.line}" for s in group)
        if new is None:
            out.append(PatchChange(group[0], "gone", f"`{target}` no longer exists in {ufile}; "
                                   "the patch now adds an attribute nothing calls",
                                   "blocking", commit, where))
            continue
        found = sig.breakages(old, new)
        summary = "; ".join(b.text() for b in found) or "annotations changed"
        for site in group:
            if site.how in ("wrapper", "forwarder"):
                out.append(PatchChange(site, "still valid", f"signature changed upstream "
                                       f"({summary}); patch still valid: the "
                                       f"{site.how} forwards every argument",
                                       "nice-to-have", commit, where))
                continue
            mine = (_method_at(inp.head, site) if site.how == "replacement" else None)
            if mine is None:
                out.append(PatchChange(site, "stale", f"signature changed upstream ({summary})"
                                       "; check the patch still matches", "should-fix", commit,
                                       where))
                continue
            # What breaks when upstream callers, now using the new signature, call ours.
            broken = [b for b in sig.breakages(new, mine) if b.severity != "nice-to-have"]
            if not broken:
                out.append(PatchChange(site, "still valid", f"signature changed upstream "
                                       f"({summary}); the replacement still accepts every "
                                       "call", "nice-to-have", commit, where))
                continue
            out.append(PatchChange(site, "stale", f"signature changed upstream ({summary}); "
                                   f"the replacement at {site.file}:{site.replacement_line} "
                                   + "; ".join(_as_replacement(b) for b in broken),
                                   sig.worst(broken), commit, where))
    return out


_AS_REPLACEMENT = {"removed": "does not take", "added as required": "requires",
                   "became required": "requires", "moved": "takes at another position",
                   "changed kind": "takes as another kind", "default changed":
                   "has another default for"}


def _as_replacement(b: sig.Breakage) -> str:
    """A breakage of upstream's signature → ours, said of the replacement."""
    return f"{_AS_REPLACEMENT.get(b.what, b.what)} `{b.param}`"


def _method_at(tree: Tree, site: PatchSite) -> ps.FuncDef | None:
    mod = ps.parse(tree.text(site.file) or "")
    for node in ps.statements(mod) if mod is not None else ():
        if isinstance(node, ps.FuncDef.__args__) and node.lineno == site.replacement_line:
            return node
    return None


def _calls_super(func: ps.FuncDef, attr: str, bases: set[str]) -> bool:
    for node in ast.walk(func):
        if isinstance(node, ast.Attribute) and node.attr == attr:
            owner = node.value
            if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) \
                    and owner.func.id == "super":
                return True
            if isinstance(owner, ast.Name) and owner.id in bases:
                return True  # Base.attr(self, …)
    return False


def bypasses(inp: Inputs, sites: list[PatchSite]) -> list[Bypass]:
    """Upstream subclasses of a patched class that override the patched method without
    calling ``super()``: the patch never runs for them."""
    idx = classindex.for_tree(inp.head)
    sub = inp.target.subproject + "/"
    out: list[Bypass] = []
    seen: set[tuple[str, str]] = set()
    for site in sites:
        if not site.upstream_file or site.upstream:
            continue
        cls_name, _, attr = site.target.rpartition(".")
        chain = {cls_name}
        frontier = [cls_name]
        for _ in range(4):
            nxt = []
            for name in frontier:
                for child in idx.subclasses(name):
                    path = idx.path(child)
                    if path.startswith(sub) or child.name in chain:
                        continue
                    chain.add(child.name)
                    nxt.append(child.name)
                    method = next((n for n in child.body if isinstance(n, ps.FuncDef.__args__)
                                   and n.name == attr), None)
                    if method is None or (child.name, attr) in seen:
                        continue
                    bases = {ast.unparse(b).rsplit(".", 1)[-1] for b in child.bases}
                    if not _calls_super(method, attr, bases):
                        seen.add((child.name, attr))
                        out.append(Bypass(site, child.name, path, method.lineno))
            frontier = nxt
    return out


def listed(inp: Inputs, sites: list[PatchSite]) -> list[ListedPatch]:
    """Patch targets the config lists (``fragile_surfaces.monkey_patches``) that no
    longer exist upstream, or that no code patches any more."""
    out: list[ListedPatch] = []
    patched = {s.target for s in sites}
    for sym in inp.target.symbols("fragile_surfaces", "monkey_patches"):
        if _method(inp.head, sym.file, sym.name) is None:
            out.append(ListedPatch(sym.name, sym.file, "no longer exists"))
        elif sym.name not in patched:
            out.append(ListedPatch(sym.name, sym.file, "not patched by the code"))
    return out

