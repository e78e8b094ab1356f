"""Severity from use (#22 defects 3 and 5): an upstream function or method whose
signature changed between the baseline and HEAD, checked against each place the
sub-project uses it — a call (the arguments it passes, bound to the old and the new
signature) and an override (the parameters it declares against what upstream now
passes). A call that passes a removed parameter, or misses a newly required one,
breaks now; an override that still declares a removed parameter, or does not accept
a new one, needs a change; one that already matches the new signature is adapted. A
use that passes nothing the change touches is no finding at all.

Discovered without configuration: upstream functions the sub-project imports and
calls, and methods of upstream classes its classes subclass and override (calls
through ``super()`` included).

Pure: parsed sources in, frozen records out.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from agentops.scout.analyses import attribution, geninit
from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs

MAX_CHANGED_FILES = 400  # watched files compared per run (a huge window stays bounded)


@dataclass(frozen=True)
class Params:
    """A signature as binding sees it (``self``/``cls`` of a method dropped)."""

    positional: tuple[str, ...]  # positional-or-keyword and positional-only, in order
    posonly: frozenset[str]
    kwonly: tuple[str, ...]
    required: frozenset[str]
    defaults: tuple[tuple[str, str], ...]  # name -> default source
    varargs: bool
    varkw: bool
    # name -> annotation source, for the parameters that have one
    annotations: tuple[tuple[str, str], ...] = ()

    @property
    def names(self) -> set[str]:
        return set(self.positional) | set(self.kwonly)


def params(func: ps.FuncDef, *, method: bool) -> Params:
    a = func.args
    pos = [p.arg for p in (*a.posonlyargs, *a.args)]
    defaults = dict(zip(pos[len(pos) - len(a.defaults):],
                        (ast.unparse(d) for d in a.defaults), strict=True))
    for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        if d is not None:
            defaults[p.arg] = ast.unparse(d)
    static = any(ast.unparse(d).endswith("staticmethod") for d in func.decorator_list)
    if method and not static and pos:
        pos = pos[1:]
    kwonly = [p.arg for p in a.kwonlyargs]
    notes = {p.arg: ast.unparse(p.annotation) for p in (*a.posonlyargs, *a.args,
                                                         *a.kwonlyargs)
             if p.annotation is not None}
    return Params(tuple(pos), frozenset(p.arg for p in a.posonlyargs), tuple(kwonly),
                  frozenset(n for n in (*pos, *kwonly) if n not in defaults),
                  tuple(sorted(defaults.items())), a.vararg is not None, a.kwarg is not None,
                  tuple(sorted(notes.items())))


def call_problems(call: ast.Call, sig: Params) -> list[str]:
    """What goes wrong binding ``call``'s arguments to ``sig`` (empty: it binds)."""
    starred = any(isinstance(x, ast.Starred) for x in call.args)
    spread = any(k.arg is None for k in call.keywords)
    n_pos = len(call.args)
    out = []
    for k in call.keywords:
        if k.arg and (k.arg not in sig.names or k.arg in sig.posonly) and not sig.varkw:
            out.append(f"passes `{k.arg}=`")
    if not starred and n_pos > len(sig.positional) and not sig.varargs:
        out.append(f"passes {n_pos} positional arguments ({len(sig.positional)} accepted)")
    if not starred and not spread:
        given = set(sig.positional[:n_pos]) | {k.arg for k in call.keywords if k.arg}
        out += [f"does not pass required `{r}`" for r in sorted(sig.required - given)]
    return out


def default_reliance(call: ast.Call, old: Params, new: Params) -> list[str]:
    """Parameters whose default changed that ``call`` leaves to the default."""
    n_pos = len(call.args)
    given = set(new.positional[:n_pos]) | {k.arg for k in call.keywords if k.arg}
    if any(k.arg is None for k in call.keywords):
        return []
    was, now = dict(old.defaults), dict(new.defaults)
    return [f"`{n}` ({was[n]} -> {now[n]})" for n in sorted(was.keys() & now.keys())
            if was[n] != now[n] and n not in given]


def override_problems(fn: ps.FuncDef, old: Params, new: Params) -> tuple[list[str], str]:
    """(problems, severity) of an override written against ``old`` now that upstream's
    method is ``new``: a removed parameter it still declares, a new one it does not
    accept. An override that accepts anything (``*args, **kwargs``) adapts by itself."""
    mine = params(fn, method=True)
    problems: list[str] = []
    severity = ""
    removed = old.names - new.names
    added = new.names - old.names
    # A positional parameter renamed in place (``x`` -> ``x_TD``): callers passing it by
    # position reach the override's own name unchanged; a copy lagging a rename, not a
    # break.
    for i, name in enumerate(old.positional):
        if name in removed and i < len(new.positional) and new.positional[i] in added \
                and i < len(mine.positional) and mine.positional[i] not in removed - {name}:
            removed.discard(name)
            added.discard(new.positional[i])
    for r in sorted(removed & mine.names):
        if r in mine.required:
            problems.append(f"declares `{r}` (required), which upstream removed and no "
                            "longer passes")
            severity = "blocking"
        else:
            problems.append(f"declares `{r}`, which upstream removed (a dead parameter)")
            severity = severity or "should-fix"
    if not mine.varkw:
        for a in sorted(added - mine.names):
            if a in new.required:
                problems.append(f"does not accept `{a}`, which upstream now requires")
                severity = "blocking"
            else:
                problems.append(f"does not accept `{a}`, new upstream")
                severity = severity or "should-fix"
    return problems, severity


@dataclass(frozen=True)
class Site:
    """One use of a changed upstream function in the sub-project."""

    loc: str  # file:line
    how: str  # "call" | "override" | "super call"
    verdict: str  # "breaks" | "needs change" | "adapted" | "default"
    detail: str = ""
    severity: str = ""


@dataclass(frozen=True)
class UseCheck:
    """A changed upstream function and every use of it the sub-project has."""

    symbol: str  # Class.method or function
    file: str  # upstream file
    commit: str
    change: str  # "(old) -> (new)"
    sites: tuple[Site, ...]
    # The constructor Python generates for a dataclass or NamedTuple (``geninit``): the
    # class's fields changed, no ``def`` did.
    generated: bool = False

    @property
    def severity(self) -> str:
        order = {"blocking": 0, "should-fix": 1}
        worst = sorted((s.severity for s in self.sites if s.severity), key=order.get)
        return worst[0] if worst else ""


def changed_functions(inp: Inputs, names: set[str] | None = None
                      ) -> list[tuple[str, str, ps.FuncDef, ps.FuncDef, bool]]:
    """(file, qualname, old, new, is_method) of upstream functions and class methods in
    the watched files whose signature differs between the baseline and HEAD; with
    ``names``, only in files that define one of those names (a cheap text test first,
    so a long window parses only the files the sub-project can be using)."""
    if inp.base is None:
        return []
    sub = inp.target.subproject + "/"
    watched = tuple(inp.target.watched_paths)
    out = []
    files_wanted = _imported_files(inp) if names is not None else set()
    # A watched package ``__init__.py`` stands for the modules it re-exports from: the
    # sub-project's ``from pkg import Name`` reaches ``Name`` defined in ``pkg/mod.py``.
    packages = tuple(w[:-len("__init__.py")] for w in watched if w.endswith("/__init__.py"))
    files = sorted(p for p in inp.head.files if p.endswith(".py") and not p.startswith(sub)
                   and (p.startswith(watched) or (p in files_wanted and p.startswith(packages)
                                                  and p.count("/") == _level(p, packages))))
    checked = 0
    for path in files:
        old_text, new_text = inp.base.text(path), inp.head.files[path]
        if old_text is None or old_text == new_text:
            continue
        if names is not None and (path not in files_wanted or not any(
                f"def {n}" in new_text or f"class {n}" in new_text for n in names)):
            continue
        checked += 1
        if checked > MAX_CHANGED_FILES:
            break
        old_defs = _defs(ps.parse(old_text), path, geninit.tree_resolver(
            inp.base.text, inp.base.paths))
        new_defs = _defs(ps.parse(new_text), path, geninit.tree_resolver(
            inp.head.files.get, inp.head.paths))
        for name, (new, method) in new_defs.items():
            owner = name.rpartition(".")[0]
            if names is not None and (owner or name) not in names:
                continue
            old = old_defs.get(name, (None, False))[0]
            if old is not None and ps.signature(old) != ps.signature(new) and \
                    params(old, method=method) != params(new, method=method):
                out.append((path, name, old, new, method))
    return out


def _level(path: str, packages: tuple[str, ...]) -> int:
    """The depth of the watched package folder holding ``path`` directly (-1: none)."""
    return next((p.count("/") for p in packages if path.startswith(p)
                 and path.count("/") == p.count("/")), -1)


def _imported_files(inp: Inputs) -> set[str]:
    """Repository files the sub-project imports from; for a package, its modules (a
    name imported from a package is usually defined in one of them)."""
    key = "usecheck-imported-files"
    if key in inp.head.cache:
        return inp.head.cache[key]
    sub = inp.target.subproject + "/"
    out: set[str] = set()
    for path, text in inp.head.files.items():
        if path.startswith(sub) and path.endswith(".py"):
            for module, _name in ps.imports(ps.parse(text)).values():
                found = ps.module_path(module, inp.head.paths)
                if not found or found.startswith(sub):
                    continue
                out.add(found)
                if found.endswith("/__init__.py"):
                    folder = found[:-len("__init__.py")]
                    out |= {p for p in inp.head.files if p.startswith(folder)
                            and p.endswith(".py") and p.count("/") == folder.count("/")}
    inp.head.cache[key] = out
    return out


def _imported_names(inp: Inputs) -> set[str]:
    """Names the sub-project imports from the repository's own packages."""
    sub = inp.target.subproject + "/"
    out: set[str] = set()
    for path, text in inp.head.files.items():
        if path.startswith(sub) and path.endswith(".py"):
            for module, name in ps.imports(ps.parse(text)).values():
                if name and ps.module_path(module, inp.head.paths):
                    out.add(name)
    return out


def _defs(mod: ast.Module | None, path: str = "",
          resolve: geninit.Resolver | None = None) -> dict[str, tuple[ps.FuncDef, bool]]:
    """Top-level functions and class methods by qualified name; for a dataclass or
    NamedTuple that writes no constructor, the one Python generates (``C.__init__``,
    built by ``geninit``: a changed field changes it, #22 defect 5)."""
    out: dict[str, tuple[ps.FuncDef, bool]] = {}
    for node in mod.body if mod is not None else ():
        if isinstance(node, ps.FuncDef.__args__):
            out[node.name] = (node, False)
        elif isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if isinstance(stmt, ps.FuncDef.__args__):
                    out[f"{node.name}.{stmt.name}"] = (stmt, True)
            made = geninit.generated_init(node, path, resolve or geninit.same_module(mod))
            if made is not None:
                out[f"{node.name}.__init__"] = (made, True)
    return out


def _module_file(module: str, inp: Inputs) -> str:
    return ps.module_path(module, inp.head.paths) or ""


def discover(inp: Inputs) -> list[UseCheck]:
    """Every changed upstream function the sub-project calls (imported by name, or a
    class it constructs) or overrides (a method of an upstream base class)."""
    if inp.base is None:
        return []
    changed = changed_functions(inp, _imported_names(inp))
    if not changed:
        return []
    # Upstream name (function or class) -> its changed functions, by file.
    by_name: dict[str, list[tuple[str, str, ps.FuncDef, ps.FuncDef, bool]]] = {}
    for entry in changed:
        owner, _, leaf = entry[1].rpartition(".")
        by_name.setdefault(owner or leaf, []).append(entry)
    sub = inp.target.subproject + "/"
    sites: dict[tuple[str, str], list[Site]] = {}
    resolved: dict[str, str] = {}
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")) or not any(
                n in text for n in by_name):
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        # Local name -> the changed upstream entries it stands for (import resolved once).
        local: dict[str, list[tuple[str, str, ps.FuncDef, ps.FuncDef, bool]]] = {}
        for alias, (module, name) in ps.imports(mod).items():
            if name not in by_name:
                continue
            if module not in resolved:
                resolved[module] = _module_file(module, inp)
            found = resolved[module]
            for entry in by_name[name]:
                if found and (found == entry[0] or (found.endswith("/__init__.py") and entry[0]
                              .startswith(found[:-len("__init__.py")]))):
                    local.setdefault(alias, []).append(entry)
        if not local:
            continue
        for node in ps.walk(mod):
            if isinstance(node, ast.ClassDef):
                for b in node.bases:
                    base = ast.unparse(b).split("[")[0].split(".")[-1]
                    for file, name, old, new, method in local.get(base, ()):
                        owner, _, leaf = name.rpartition(".")
                        if owner:
                            sites.setdefault((file, name), []).extend(_class_sites(
                                path, node, leaf, params(old, method=method),
                                params(new, method=method),
                                generated=geninit.is_generated(new)))
            elif isinstance(node, ast.Call):
                func = node.func
                head = func.id if isinstance(func, ast.Name) else (
                    func.value.id if isinstance(func, ast.Attribute)
                    and isinstance(func.value, ast.Name) else "")
                for file, name, old, new, method in local.get(head, ()):
                    owner, _, leaf = name.rpartition(".")
                    if _callee(node, owner, leaf):
                        sites.setdefault((file, name), []).extend(_call_site(
                            path, node, params(old, method=method),
                            params(new, method=method), "call",
                            kept=partial(_kept_since_base, inp, path, node)))
    out = []
    for file, name, old, new, _method in changed:
        found_sites = sites.get((file, name))
        if found_sites:
            out.append(UseCheck(name, file, _commit(inp, file, name), _change(old, new),
                                tuple(dict.fromkeys(found_sites)),
                                generated=geninit.is_generated(new)))
    return out


def _callee(node: ast.Call, owner: str, leaf: str) -> bool:
    """``f(...)`` for a function, ``C(...)`` for ``C.__init__``, ``C.m(...)`` else."""
    func = node.func
    if not owner or leaf == "__init__":
        return isinstance(func, ast.Name)
    return isinstance(func, ast.Attribute) and func.attr == leaf


def _class_sites(path: str, cls: ast.ClassDef, leaf: str, old: Params, new: Params, *,
                 generated: bool = False) -> list[Site]:
    """The overrides of ``leaf`` in ``cls`` and their ``super()`` calls; of a generated
    constructor (``generated``) only the ``super().__init__`` calls."""
    out: list[Site] = []
    for stmt in cls.body:
        if not (isinstance(stmt, ps.FuncDef.__args__) and stmt.name == leaf):
            continue
        loc = f"{path}:{stmt.lineno}"
        # No override lags a generated constructor: a subclass's own ``__init__`` need
        # not take its dataclass base's fields.
        if not generated:
            problems, severity = override_problems(stmt, old, new)
            out.append(Site(loc, "override", "needs change", "; ".join(problems), severity)
                       if problems else Site(loc, "override", "adapted"))
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == leaf and isinstance(node.func.value, ast.Call) \
                    and isinstance(node.func.value.func, ast.Name) \
                    and node.func.value.func.id == "super":
                out += _call_site(path, node, old, new, "super call")
    return out


def _renamed(old: Params, new: Params) -> dict[str, str]:
    """Positional parameters renamed in place: old name -> new name."""
    return {o: n for o, n in zip(old.positional, new.positional, strict=False)
            if o != n and o not in new.names and n not in old.names}


def shifted(call: ast.Call, old: Params, new: Params) -> list[str]:
    """Positional parameters the new signature removed that ``call`` still fills by
    position: a call written against the old signature binds its positionals by the old
    order, so one reaching a removed slot passes that value on to whatever parameter now
    sits there (``f(a, b, n, 4)`` against ``(a, b, n_max, align)`` -> ``(a, b, align,
    cpu=False)``: ``n`` becomes the alignment). A positional parameter renamed in place
    is no removal: a positional argument binds by place, so the rename alone changes
    nothing for it; but where the slot's declared type changed with its name
    (``job_config: JobConfig`` -> ``optimizer_config: OptimizerConfig``) the value the
    call was written to pass is no longer what the parameter takes (#22, set 23)."""
    if any(isinstance(x, ast.Starred) for x in call.args):
        return []
    n_pos = len(call.args)
    renames = _renamed(old, new)
    out = []
    for i, name in enumerate(old.positional[:n_pos]):
        if name in renames:
            types = retyped(old, new, name, renames[name])
            if types:
                out.append(f"passes by position (argument {i + 1} of {n_pos}) what it wrote "
                           f"for `{name}`, which was renamed in place to `{renames[name]}` "
                           f"and retyped `{types[0]}` -> `{types[1]}`")
        elif name not in new.names:
            now = new.positional[i] if i < len(new.positional) else ""
            out.append(f"still passes removed `{name}` by position (argument {i + 1} of "
                       f"{n_pos})" + (f"; it now binds to `{now}` and the later arguments "
                                      "shift one slot" if now else ""))
    return out


def retyped(old: Params, new: Params, name: str, now: str) -> tuple[str, str] | None:
    """(old type, new type) when parameter ``name`` of ``old`` and ``now`` of ``new`` both
    declare a type and the types differ (compared by the last part of each dotted name,
    ``| None`` aside: ``config.JobConfig`` and ``JobConfig | None`` are one type); None
    when either has no annotation or they agree."""
    a, b = dict(old.annotations).get(name), dict(new.annotations).get(now)
    if a is None or b is None or _type_key(a) == _type_key(b):
        return None
    return a, b


def _type_key(annotation: str) -> str:
    text = re.sub(r"[\s'\"]", "", annotation)
    text = re.sub(r"^Optional\[(.*)\]$", r"\1", text)
    parts = sorted(p for p in text.split("|") if p != "None") or ["None"]
    return "|".join(re.sub(r"[A-Za-z_][\w.]*", lambda m: m.group(0).rsplit(".", 1)[-1], p)
                    for p in parts)


def _call_site(path: str, node: ast.Call, old: Params, new: Params, how: str, *,
               kept: Callable[[], bool] | None = None) -> list[Site]:
    """``kept``: whether the call is as it was at the baseline (written against
    ``old``), asked only of a call that would bind shifted (the baseline's calls are
    unparsed only then: most calls pass no removed slot)."""
    loc = f"{path}:{node.lineno}"
    before, after = call_problems(node, old), call_problems(node, new)
    renames = _renamed(old, new)
    # A keyword that lags a rename says so (#22 defect 8): the fix is the new name.
    after = [f"{p} (renamed to `{renames[p[8:-2]]}`)" if p.startswith("passes `")
             and p.endswith("=`") and p[8:-2] in renames else p for p in after]
    fresh = [p for p in after if p not in before]
    if fresh:
        return [Site(loc, how, "breaks", "; ".join(fresh), "blocking")]
    # Binds without error, but to other parameters than it was written for: a silent
    # misbinding (wrong values, no TypeError), so should-fix rather than blocking.
    if kept is not None and not before:
        moved = shifted(node, old, new)
        if moved and kept():
            return [Site(loc, how, "breaks", "; ".join(moved), "should-fix")]
    relies = default_reliance(node, old, new)
    if relies:
        return [Site(loc, how, "default", "relies on the default of " + ", ".join(relies))]
    return [Site(loc, how, "adapted")]


def check_named(inp: Inputs, name: str, old: ps.FuncDef, new: ps.FuncDef) -> list[Site]:
    """A configured surface (``fragile_surfaces.functions``): every call in the
    sub-project whose callee's last name is the method's, and every method of that name
    its classes define, checked against the change."""
    leaf = name.rsplit(".", 1)[-1]
    method = "." in name
    o, n = params(old, method=method), params(new, method=method)
    sub = inp.target.subproject + "/"
    out: list[Site] = []
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")) or leaf not in text:
            continue
        mod = ps.parse(text)
        for node in ps.walk(mod) if mod is not None else ():
            if method and isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    if isinstance(stmt, ps.FuncDef.__args__) and stmt.name == leaf:
                        problems, severity = override_problems(stmt, o, n)
                        loc = f"{path}:{stmt.lineno}"
                        out.append(Site(loc, "override", "needs change" if problems
                                        else "adapted", "; ".join(problems), severity))
            elif isinstance(node, ast.Call):
                func = node.func
                last = func.attr if isinstance(func, ast.Attribute) else (
                    func.id if isinstance(func, ast.Name) else "")
                if last == leaf:
                    out += _call_site(path, node, o, n, "call",
                                      kept=partial(_kept_since_base, inp, path, node))
    return list(dict.fromkeys(out))


def _kept_since_base(inp: Inputs, path: str, node: ast.Call) -> bool:
    """Whether ``path`` made this very call (same source text) at the baseline."""
    return ast.unparse(node) in _base_calls(inp, path)


def _base_calls(inp: Inputs, path: str) -> set[str]:
    """The calls ``path`` makes at the baseline, as source text (memoized in the baseline
    tree's own cache, which lives and dies with it)."""
    if inp.base is None:
        return set()
    key = ("usecheck.base_calls", path)
    if key not in inp.base.cache:
        mod = ps.parse(inp.base.text(path))
        inp.base.cache[key] = {ast.unparse(n) for n in ps.walk(mod)
                               if isinstance(n, ast.Call)} if mod is not None else set()
    return inp.base.cache[key]


def _change(old: ps.FuncDef, new: ps.FuncDef) -> str:
    return f"{ps.signature(old)} -> {ps.signature(new)}"


def _commit(inp: Inputs, file: str, name: str) -> str:
    def state(text: str | None) -> object:
        mod = ps.parse(text) if text is not None else None
        node = ps.find(mod, name)
        if node is None and name.endswith(".__init__") and mod is not None:
            # A generated constructor: its fields as the class's own file shows them.
            node = _defs(mod, file).get(name, (None, False))[0]
        return ps.signature(node) if isinstance(node, ps.FuncDef.__args__) else None
    return attribution.introduced(inp, file, state)
