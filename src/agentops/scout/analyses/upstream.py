"""S-1 upstream delta and S-4 config drift / stale patches: what changed upstream
since the baseline on the surfaces the sub-project depends on, found by parsing the
Python at both ends (baseline commit and HEAD).

Pure: reads ``Inputs`` (trees already loaded), returns frozen records.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from agentops.scout.analyses import attribution, classindex, docclaims, usecheck
from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses import refs as refindex
from agentops.scout.analyses import signatures as sig
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
    uses: tuple[str, ...] = ()  # sub-project file:line referring to the changed name
    # Uses checked against the change and found fine (a call passing nothing it
    # touches, an override already matching the new signature): "adapted", one line.
    adapted: tuple[str, ...] = ()
    detail: str = ""  # what breaks at ``uses`` ("passes `x=`", "declares `y`")
    # ``uses`` were each checked against the new signature at HEAD (``usecheck``) and
    # found not to fit, each surely a use of the changed function (``_sure_uses``): what
    # the folder's code does now, not which commit touched it.
    checked: bool = False


@dataclass(frozen=True)
class DriftFinding:
    """Config drift: a source-class field the copy/subclass does not handle as it should."""

    kind: str  # "copy" | "subclass"
    source: str  # Trainer.Config
    other: str  # to_graph_trainer_config | GraphTrainerCompileConfig
    field: str
    problem: str
    severity: str  # blocking | should-fix | nice-to-have | not checked (a symbol is gone)
    file: str


@dataclass(frozen=True)
class NewApi:
    file: str
    names: tuple[str, ...]
    commit: str
    imported_by_subproject: bool = False  # the sub-project already imports this module
    # name -> "file:line" of a sub-project definition it may replace (same key words)
    counterparts: tuple[tuple[str, str], ...] = ()


def commits(inp: Inputs) -> list[UpstreamCommit]:
    """S-1: commits since the baseline on the watched paths, newest first."""
    return [UpstreamCommit(c.sha, c.date, c.subject, c.files) for c in inp.commits]


def _touching(commits_: tuple[Commit, ...], path: str) -> str:
    return next((c.sha for c in commits_ if path in c.files), "")


def _introduced(inp: Inputs, path: str, state: Callable[[str | None], object]) -> str:
    return attribution.introduced(inp, path, state)


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
    """The configured symbol's definition in ``tree``, or None. A file that no longer
    defines the name but imports it (``from .model import Name``) still provides it to
    every importer, so the lookup follows that import, as Python would: a class moved to
    another module and re-exported is not gone (#22: "when a configured symbol moves")."""
    if tree is None:
        return None
    return provided(tree, sym.file, sym.name)


# Re-export chains longer than this are not followed (a cycle, or a layout no
# configuration relies on).
_MAX_REEXPORTS = 3


def provided(tree: Tree, file: str, dotted: str) -> ast.ClassDef | ps.FuncDef | None:
    """The class or function ``dotted`` that ``file`` provides in ``tree``: its own
    definition, else the one a ``from … import`` of its first part resolves to."""
    found = _resolve(tree, file, dotted, 0)
    return found[1] if found else None


_Found = tuple[str, ast.ClassDef | ps.FuncDef] | None


def _resolve(tree: Tree, file: str, dotted: str, depth: int,
             memo: dict[tuple[str, str, int], _Found] | None = None) -> _Found:
    """(the file that defines it, the definition) for ``provided``; ``memo`` holds the
    answers already given in this lookup (one answer per file, name and depth).

    Without the memo the work grew as (star imports per module) to the power of
    ``_MAX_REEXPORTS``: modules that star-import each other are followed again from every
    importer (40 such modules: seconds; 80: a minute). With it each (file, name, depth)
    is resolved once.

    As Python binds the name, in source order (``_module_binders``): of the imports,
    classes, functions, assignments and ``del`` statements that run whenever the module
    is imported, the last one binding it wins (a star import binds it only when its
    module exports it); one that runs only under a condition (``try``, ``if``, a loop,
    a ``match`` case) after it, or anywhere when none always runs, wins when it
    resolves, the first such; an import only a type
    checker sees (``if TYPE_CHECKING:``) provides nothing at run time."""
    memo = {} if memo is None else memo
    key = (file, dotted, depth)
    if key not in memo:
        memo[key] = _resolve_once(tree, file, dotted, depth, memo)
    return memo[key]


def _resolve_once(tree: Tree, file: str, dotted: str, depth: int,
                  memo: dict[tuple[str, str, int], _Found]) -> _Found:
    """``_resolve`` without the memo's look-up."""
    text = tree.text(file)
    module = ps.parse(text) if text is not None else None
    if module is None:
        return None
    head, _, rest = dotted.partition(".")

    def source(stmt: ast.ImportFrom) -> str | None:
        module = ps.from_module(file, stmt.level, stmt.module)
        return ps.module_path(module, tree.paths) if module is not None else None

    def follow(stmt: _Binder) -> tuple[bool, _Found]:
        """(whether ``stmt`` binds ``head``, where that binding leads)."""
        if isinstance(stmt, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            if stmt.name != head:  # the module's own def or class
                return False, None
            own = ps.find(ast.Module(body=[stmt], type_ignores=[]), dotted)
            return True, (file, own) if own is not None else None
        if isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
            return assigned(stmt)
        if isinstance(stmt, ast.Delete):
            # ``del Spec``: the module no longer provides the name at all.
            return any(head in _target_names(t) for t in stmt.targets), None
        if isinstance(stmt, ast.Import):
            # ``import m as Spec`` (or ``import Spec``) binds a module: no class or
            # function, unless the rest of the dotted name is one of that module.
            mods = [a.name if a.asname else a.name.split(".")[0] for a in stmt.names
                    if (a.asname or a.name.split(".")[0]) == head]
            if not mods:
                return False, None
            target = ps.module_path(mods[-1], tree.paths)
            if not rest or target is None or depth >= _MAX_REEXPORTS:
                return True, None
            return True, _resolve(tree, target, rest, depth + 1, memo)
        star = [a for a in stmt.names if a.name == "*"]
        named = [a for a in stmt.names if (a.asname or a.name) == head]
        if named:
            target = source(stmt)
            if target is None or depth >= _MAX_REEXPORTS:
                # Not followed, yet it binds the name: a definition of the module's own
                # before it is not what the module provides.
                return True, None
            # ``import Other as Spec, Spec``: Python binds the names left to right,
            # so the last alias of the name is the one the module keeps.
            return True, _resolve(tree, target, ".".join(filter(None, (named[-1].name,
                                                                         rest))), depth + 1,
                                  memo)
        if star and depth < _MAX_REEXPORTS:
            # (Past the limit a star import is taken to bind nothing: whether it does
            # needs its module read, which the limit is there to stop.)
            target = source(stmt)
            if target is None or not _exports(tree, target, head):
                return False, None
            found = _resolve(tree, target, dotted, depth + 1, memo)
            return found is not None, found
        return False, None

    def assigned(stmt: ast.Assign | ast.AnnAssign | ast.AugAssign) -> tuple[bool, _Found]:
        """``Spec = …``: a value made from the name's own binding (``Spec = wrap(Spec)``,
        ``Spec += …``) keeps what that binding leads to, so it rebinds nothing here; an
        alias of another name (``Spec = NewSpec``) leads where that name does; any other
        value binds the name to something no definition describes."""
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if not any(head in _target_names(t) for t in targets):
            return False, None
        value = stmt.value
        if isinstance(stmt, ast.AugAssign) or value is None or any(
                isinstance(n, ast.Name) and n.id == head for n in ast.walk(value)):
            return False, None
        if isinstance(value, ast.Name) and len(targets) == 1 \
                and isinstance(targets[0], ast.Name) and depth < _MAX_REEXPORTS:
            return True, _resolve(tree, file, ".".join(filter(None, (value.id, rest))),
                                  depth + 1, memo)
        return True, None

    binders = _module_binders(module.body)
    last: tuple[int, _Found] | None = None  # (where, what) of the last binding that always runs
    for at in range(len(binders) - 1, -1, -1):
        stmt, conditional = binders[at]
        if not conditional:
            binds, found = follow(stmt)
            if binds:
                last = (at, found)
                break
    # A binding under a condition after it (or anywhere, when none always runs) rebinds
    # the name when it runs: the first of them that leads to a definition, as in
    # ``try: from fast import Spec`` / ``except ImportError: from slow import Spec``.
    start = last[0] + 1 if last else 0
    for stmt, conditional in binders[start:]:
        if conditional:
            found = follow(stmt)[1]
            if found is not None:
                return found
    return last[1] if last else None


def _target_names(target: ast.expr) -> set[str]:
    """The names an assignment or ``del`` target binds: ``a``, ``a, (b, *c)``; not
    ``a.x`` or ``a[0]``, which change the object ``a`` names, not the name."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    if isinstance(target, ast.Tuple | ast.List):
        return {n for e in target.elts for n in _target_names(e)}
    return set()


_Binder = (ast.ImportFrom | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
           | ast.Import | ast.Assign | ast.AnnAssign | ast.AugAssign | ast.Delete)


def _module_binders(body: list[ast.stmt], conditional: bool = False
                    ) -> list[tuple[_Binder, bool]]:
    """The statements that bind names when the module is imported (``from … import``,
    ``import``, ``def``, ``class``, assignments, ``del``), in source order, each with
    whether it runs only under a condition (``if``, ``try`` and its handlers and
    ``else``, a loop, a ``match`` case). What runs whenever the statement around it does
    is no condition: a ``with`` body, a ``finally`` body (the module is imported only
    when no error leaves it), the ``else`` of ``if TYPE_CHECKING:``. Bodies of ``if
    TYPE_CHECKING:`` are left out: they never run."""
    out: list[tuple[_Binder, bool]] = []
    for stmt in body:
        if isinstance(stmt, _Binder):
            out.append((stmt, conditional))
            continue
        # (a block, whether it runs whenever ``stmt`` does), in source order
        blocks: list[tuple[list[ast.stmt], bool]] = []
        if isinstance(stmt, ast.If):
            test = stmt.test
            checking = (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
                isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
            blocks = [(stmt.orelse, True)] if checking else [(stmt.body, False),
                                                               (stmt.orelse, False)]
        elif isinstance(stmt, ast.Try | ast.TryStar):
            blocks = [(stmt.body, False), *((h.body, False) for h in stmt.handlers),
                      (stmt.orelse, False), (stmt.finalbody, True)]
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            blocks = [(stmt.body, True)]
        elif isinstance(stmt, ast.For | ast.AsyncFor | ast.While):
            blocks = [(stmt.body, False), (stmt.orelse, False)]
        elif isinstance(stmt, ast.Match):
            blocks = [(case.body, False) for case in stmt.cases]
        for block, runs in blocks:
            out += _module_binders(block, conditional=conditional or not runs)
    return out


def _exports(tree: Tree, file: str, name: str) -> bool:
    """Whether ``from <file> import *`` binds ``name``: listed in the module's ``__all__``
    as its top level builds it (assigned, ``+=``, ``.extend`` / ``.append`` of literals,
    a later assignment replacing an earlier one), or, without one, any name not starting
    with an underscore. A part of ``__all__`` that is computed cannot be read: then a
    public name counts as exported, as it would without ``__all__``."""
    module = ps.parse(tree.text(file) or "")
    if module is None:
        return False
    listed: set[str] | None = None  # None: no __all__ (yet)
    computed = False

    def literal(value: ast.expr | None) -> set[str] | None:
        if isinstance(value, ast.List | ast.Tuple) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts):
            return {e.value for e in value.elts if isinstance(e, ast.Constant)}
        return None

    read: set[int] = set()  # the statements whose change of __all__ was read
    for stmt in module.body:
        if isinstance(stmt, ast.Assign | ast.AnnAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                names = literal(stmt.value)
                listed, computed = names or set(), names is None
                read.add(id(stmt))
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) \
                and stmt.target.id == "__all__":
            names = literal(stmt.value)
            listed = (listed or set()) | (names or set())
            computed |= names is None
            read.add(id(stmt))
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            func = call.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                    and func.value.id == "__all__" and func.attr in ("extend", "append"):
                arg = call.args[0] if len(call.args) == 1 else None
                one = {arg.value} if isinstance(arg, ast.Constant) and isinstance(
                    arg.value, str) else None
                names = one if func.attr == "append" else literal(arg)
                listed = (listed or set()) | (names or set())
                computed |= names is None
                read.add(id(stmt))
    # Any other change of __all__ (bound, a method of it, a slice assigned) may add to
    # it: under an ``if`` or ``try``, an ``.insert``, in a function the module calls. Not
    # read: then, as for a computed part, a public name counts as exported.
    def changes(n: ast.AST) -> bool:
        if isinstance(n, ast.Name):
            return n.id == "__all__" and not isinstance(n.ctx, ast.Load)
        if isinstance(n, ast.Attribute | ast.Subscript) and isinstance(n.value, ast.Name) \
                and n.value.id == "__all__":
            return isinstance(n, ast.Attribute) or not isinstance(n.ctx, ast.Load)
        return False

    computed |= listed is not None and any(
        changes(n) for stmt in module.body if id(stmt) not in read for n in ast.walk(stmt))
    if listed is None:
        return not name.startswith("_")
    return name in listed or (computed and not name.startswith("_"))


def fragile_changes(inp: Inputs) -> list[SurfaceChange]:
    """S-1: fields added/removed/retyped, signature and return-arity changes on the
    configured fragile surfaces, baseline → HEAD; each with the sub-project's AST
    references to the changed name (none: the change is FYI at most)."""
    if inp.base is None:
        return []
    out: list[SurfaceChange] = []
    cfg = inp.target
    refs = refindex.index(inp)
    for sym in cfg.symbols("fragile_surfaces", "classes"):
        old, new = _symbol_at(inp.base, sym), _symbol_at(inp.head, sym)
        commit = _touching(inp.commits, sym.file)

        def by(name: str, sym: Symbol = sym) -> str:
            return _introduced(inp, sym.file, _field_state(sym, name))

        if isinstance(old, ast.ClassDef) and not isinstance(new, ast.ClassDef):
            # Moved (a module turned package): the sub-project's imports resolve to it.
            at = _moved_to(inp, sym.name.split(".")[0])
            node = ps.find(ps.parse(inp.head.text(at[0]) or ""), sym.name) if at else None
            if isinstance(node, ast.ClassDef):
                new = node
        if isinstance(old, ast.ClassDef) and not isinstance(new, ast.ClassDef):
            users = tuple(refs.imported(sym.name.split(".")[0]))
            out.append(SurfaceChange("fields", sym.name, f"class {sym.name} no longer found in "
                                     f"{sym.file}", commit, sym.file,
                                     "blocking" if users else "should-fix", sym.why, users))
            continue
        if not (isinstance(old, ast.ClassDef) and isinstance(new, ast.ClassDef)):
            continue
        before, after = ps.class_fields(old), ps.class_fields(new)
        for name in after.keys() - before.keys():
            out.append(SurfaceChange("fields", f"{sym.name}.{name}",
                                     f"field added: {name}: {after[name]}", by(name), sym.file,
                                     "nice-to-have", sym.why))
        for name in before.keys() - after.keys():
            users = tuple(refs.uses(name))
            out.append(SurfaceChange("fields", f"{sym.name}.{name}",
                                     f"field removed: {name}: {before[name]}", by(name),
                                     sym.file, "blocking" if users else "should-fix", sym.why,
                                     users))
        for name in before.keys() & after.keys():
            if before[name] == after[name]:
                continue
            users = tuple(refs.uses(name))
            idx = classindex.for_tree(inp.head)
            if users and widened(before[name], after[name], idx):
                # Every value the old type allowed still fits, so code that only passes
                # the field needs nothing; code that reads a member the wider type lacks
                # may now fail.
                users = tuple(_reads_beyond(inp, name, after[name], idx))
            elif users and literal_values(after[name]) is not None:
                # A Literal's values changed: code that passes the field on needs
                # nothing; only a value the new Literal no longer allows is stale.
                users = tuple(_stale_literals(inp, name, literal_values(after[name]) or set()))
            out.append(SurfaceChange("fields", f"{sym.name}.{name}",
                                     f"field retyped: {before[name]} -> {after[name]}",
                                     by(name), sym.file, "should-fix", sym.why, users))
    for sym in cfg.symbols("fragile_surfaces", "functions"):
        old, new = _symbol_at(inp.base, sym), _symbol_at(inp.head, sym)
        users = tuple(refs.calls_or_overrides(sym.name.rsplit(".", 1)[-1]))
        if "." in sym.name:
            users = _overrides_of(inp, sym.name, users,
                                  refs.functions.get(sym.name.rsplit(".", 1)[-1], []))
        moved = _moved_method(inp, sym.name) if isinstance(old, ps.FuncDef) and not \
            isinstance(new, ps.FuncDef) else None
        if moved is not None and isinstance(moved[1], ps.FuncDef.__args__):
            # The module became a package (or the function moved) and the sub-project's
            # imports resolve to the new place: compare with that definition (#22).
            path, new = moved
            if ps.signature(old) == ps.signature(new):
                out.append(SurfaceChange("signature", sym.name, f"{sym.name} moved to {path}; "
                                         "the sub-project's imports resolve there, same "
                                         "signature", _touching(inp.commits, sym.file), path,
                                         "nice-to-have", sym.why, ()))
                continue
        changes = _signature_change("signature", sym.name, old, new, file=sym.file,
                                    commit=_introduced(inp, sym.file,
                                                       _func_state(sym.name, ps.signature)),
                                    why=sym.why, uses=users)
        if changes and isinstance(old, ps.FuncDef) and isinstance(new, ps.FuncDef):
            sites = usecheck.check_named(inp, sym.name, old, new)
            sure = _sure_uses(inp, sym.name, sites)
            changes = [_from_use(c, sites, sure) for c in changes]
        out += changes
    for sym in cfg.symbols("fragile_surfaces", "return_tuples"):
        old, new = _symbol_at(inp.base, sym), _symbol_at(inp.head, sym)
        if isinstance(old, ps.FuncDef) and isinstance(new, ps.FuncDef):
            a, b = ps.return_arities(old), ps.return_arities(new)
            if a != b:
                users = tuple(refs.calls_or_overrides(sym.name.rsplit(".", 1)[-1]))
                out.append(SurfaceChange("return tuple", sym.name,
                                         f"returns a {_arity(a)} at the baseline, a {_arity(b)} "
                                         "now", _introduced(inp, sym.file, _func_state(
                                             sym.name, ps.return_arities)), sym.file,
                                         "blocking" if users else "should-fix", sym.why, users))
    return sorted(_migrated(inp, _moves(out)), key=lambda c: (c.file, c.symbol, c.change))


_TYPE_NAME = re.compile(r"[A-Za-z_][\w.]*")


def widened(old: str, new: str, idx: classindex.ClassIndex) -> bool:
    """``CheckpointManager.Config`` -> ``BaseCheckpointManager.Config`` where
    ``CheckpointManager`` derives from ``BaseCheckpointManager`` (also inside ``X | None``,
    ``list[X]``): the new type accepts everything the old one did."""
    old_none, new_none = _optional(old), _optional(new)
    if old_none[1] and not new_none[1]:
        return False  # None no longer accepted: narrower
    old, new = old_none[0], new_none[0]
    a, b = _TYPE_NAME.findall(old), _TYPE_NAME.findall(new)
    if len(a) != len(b) or _TYPE_NAME.sub("T", old) != _TYPE_NAME.sub("T", new):
        return False
    changed = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    if not changed:
        return new_none[1] and not old_none[1]  # only "| None" added
    for x, y in changed:
        x_head, _, x_rest = x.partition(".")
        y_head, _, y_rest = y.partition(".")
        if x_rest != y_rest or y_head not in _ancestors(x_head, idx):
            return False
    return True


def literal_values(annotation: str) -> set[object] | None:
    """The constants of ``Literal['a', 'b']`` (also ``| None``), else None."""
    text, optional = _optional(annotation)
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    if not (isinstance(node, ast.Subscript) and ast.unparse(node.value).split(".")[-1]
            == "Literal"):
        return None
    elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if not all(isinstance(e, ast.Constant) for e in elts):
        return None
    return {e.value for e in elts if isinstance(e, ast.Constant)} | (
        {None} if optional else set())


def _stale_literals(inp: Inputs, name: str, allowed: set[object]) -> list[str]:
    """``file:line`` where the sub-project compares, assigns or passes a constant for
    field ``name`` that the new ``Literal`` no longer allows."""
    sub = inp.target.subproject + "/"
    out = []
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")) or name not in text:
            continue
        mod = ps.parse(text)
        for node in ps.walk(mod) if mod is not None else ():
            values: list[ast.expr] = []
            if (isinstance(node, ast.keyword) and node.arg == name) or (
                    isinstance(node, ast.Assign) and any(
                        isinstance(t, ast.Attribute) and t.attr == name for t in node.targets)):
                values = [node.value]
            elif isinstance(node, ast.Compare) and any(
                    isinstance(x, ast.Attribute) and x.attr == name
                    for x in (node.left, *node.comparators)):
                for x in (node.left, *node.comparators):
                    values += x.elts if isinstance(x, ast.Tuple | ast.List | ast.Set) else [x]
            if any(isinstance(v, ast.Constant) and v.value not in allowed for v in values):
                out.append(f"{path}:{node.lineno}")  # type: ignore[attr-defined]
    return sorted(set(out), key=refindex._order)


def _reads_beyond(inp: Inputs, name: str, new_type: str, idx: classindex.ClassIndex
                  ) -> list[str]:
    """``file:line`` of ``….name.member`` reads in the sub-project where ``member`` is
    not a member of ``new_type`` (or cannot be told to be one)."""
    wanted = _optional(new_type)[0]
    classes = idx.resolve(wanted) if _TYPE_NAME.fullmatch(wanted) else []
    members = docclaims.members(classes[0], idx) if len(classes) == 1 else None
    sub = inp.target.subproject + "/"
    out = []
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")) or f".{name}." not in text:
            continue
        mod = ps.parse(text)
        for node in ps.walk(mod) if mod is not None else ():
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) \
                    and node.value.attr == name and (members is None
                                                     or node.attr not in members):
                out.append(f"{path}:{node.lineno}")
    return sorted(set(out), key=refindex._order)


def _optional(annotation: str) -> tuple[str, bool]:
    """The annotation without a top-level ``| None`` / ``Optional[...]``, and whether
    it had one."""
    text = annotation.strip()
    m = re.fullmatch(r"Optional\[(.*)\]", text)
    if m:
        return m.group(1).strip(), True
    parts = [p.strip() for p in text.split("|")]
    if "None" in parts and len(parts) > 1 and "[" not in text:
        return " | ".join(p for p in parts if p != "None"), True
    return text, False


def _ancestors(name: str, idx: classindex.ClassIndex, depth: int = 6) -> set[str]:
    """Names of the bases of class ``name``, transitively (last dotted part)."""
    seen: set[str] = set()
    todo = [name]
    while todo and depth:
        depth -= 1
        nxt = []
        for cls in (c for n in todo for c in idx.resolve(n)):
            for base in cls.bases:
                last = ast.unparse(base).split("[")[0].split(".")[-1]
                if last and last not in seen:
                    seen.add(last)
                    nxt.append(last)
        todo = nxt
    return seen


def _overrides_of(inp: Inputs, dotted: str, users: tuple[str, ...],
                  defs: list[str]) -> tuple[str, ...]:
    """The uses of method ``C.m`` less the definitions named ``m`` that override no
    ``C``: a def is an override only inside a class that, in the HEAD tree the claim is
    read from, still has ``C`` among its ancestors (bases followed through the
    repository's classes and the file's import aliases). A folder whose config class
    moved to another base declaring the same methods no longer uses the old base's (#22,
    set 20 kind a). References other than definitions are kept as they are."""
    owner = dotted.rsplit(".", 1)[0].rsplit(".", 1)[-1]
    method = dotted.rsplit(".", 1)[-1]
    defs_at = set(defs)
    keep: list[str] = []
    for loc in users:
        if loc not in defs_at:
            keep.append(loc)
            continue
        path, _, line = loc.rpartition(":")
        mod = ps.parse(inp.head.text(path) or "")
        cls = _class_defining(mod, method, int(line) if line.isdigit() else 0)
        if cls is None:
            continue  # a module-level function of that name overrides nothing
        if owner in _base_names(cls, mod, inp.head):
            keep.append(loc)
    return tuple(keep)


def _class_defining(mod: ast.Module | None, method: str, line: int) -> ast.ClassDef | None:
    for node in ps.walk(mod) if mod is not None else ():
        if isinstance(node, ast.ClassDef) and any(
                isinstance(s, ps.FuncDef.__args__) and s.name == method and s.lineno == line
                for s in node.body):
            return node
    return None


def _base_names(cls: ast.ClassDef, mod: ast.Module | None, tree: Tree,
                depth: int = 6) -> set[str]:
    """Last parts of the names of ``cls``'s ancestors (an import alias read as the name
    it imports), followed through the repository's classes in ``tree``."""
    idx = classindex.for_tree(tree)
    seen: set[str] = set()
    todo: list[tuple[ast.ClassDef, ast.Module | None]] = [(cls, mod)]
    visited: set[int] = set()
    while todo and depth:
        depth -= 1
        nxt: list[tuple[ast.ClassDef, ast.Module | None]] = []
        for node, where in todo:
            if id(node) in visited:
                continue
            visited.add(id(node))
            aliases = ps.imports(where)
            for base in node.bases:
                whole = ast.unparse(base).split("[")[0]
                first, _, rest = whole.partition(".")
                if first in aliases and aliases[first][1]:
                    whole = aliases[first][1] + ("." + rest if rest else "")
                seen.add(whole.split(".")[-1])
                for found in idx.resolve(whole) or idx.resolve(whole.split(".")[-1]):
                    nxt.append((found, ps.parse(tree.text(idx.path(found)) or "")))
        todo = nxt
    return seen


def _migrated(inp: Inputs, changes: list[SurfaceChange]) -> list[SurfaceChange]:
    """A change whose commit also changed sub-project files that use the name was
    made together with its migration (the author updated the sub-project there and
    then): not at risk now, FYI at most. Not a change whose uses were checked at HEAD
    against the new signature and do not fit it: the code says the migration did not
    happen, whichever commit it is attributed to (#22, set 23: a commit that moved the
    class and edited the folder's imports, while the folder's override kept the removed
    parameter)."""
    out = []
    for c in changes:
        if c.checked and c.uses:
            out.append(c)
            continue
        touched = set(inp.commit_files.get(c.commit, ()))
        users = {u.rsplit(":", 1)[0] for u in c.uses}
        if users & touched:
            out.append(replace(c, change=f"{c.change} (the sub-project was updated in the "
                                         "same commit)", uses=()))
            continue
        out.append(c)
    return out


def _moves(changes: list[SurfaceChange]) -> list[SurfaceChange]:
    """A field removed from one fragile class and added to another in the same window
    moved (``enable_async_tensor_parallel``: parallelism -> compile): say so; the
    sub-project's references to the old place still need the new one."""
    added = {c.symbol.rsplit(".", 1)[1]: c.symbol.rsplit(".", 1)[0] for c in changes
             if c.surface == "fields" and c.change.startswith("field added")}
    moved_to = set()
    out = []
    for c in changes:
        owner, _, name = c.symbol.rpartition(".")
        if c.surface == "fields" and c.change.startswith("field removed") \
                and added.get(name, owner) != owner:
            moved_to.add(f"{added[name]}.{name}")
            out.append(replace(c, change=f"field moved to {added[name]}.{name}",
                               severity="should-fix"))
            continue
        out.append(c)
    out = [c for c in out if not (c.change.startswith("field added")
                                  and c.symbol in moved_to)]
    return _renames(out)


def _renames(changes: list[SurfaceChange]) -> list[SurfaceChange]:
    """A field removed and one of the same type added to the same class, with a similar
    name (``n_heads`` -> ``num_heads``), was renamed (#22 defect 8): the sub-project's
    uses of the old name (attributes, keywords, string keys) lag the rename."""
    added: dict[tuple[str, str], list[str]] = {}
    for c in changes:
        if c.surface == "fields" and c.change.startswith("field added: "):
            owner, _, name = c.symbol.rpartition(".")
            added.setdefault((owner, c.change.split(": ", 2)[2]), []).append(name)
    renamed: set[str] = set()
    out = []
    for c in changes:
        owner, _, name = c.symbol.rpartition(".")
        if c.surface == "fields" and c.change.startswith("field removed: "):
            ann = c.change.split(": ", 2)[2]
            near = difflib.get_close_matches(name, added.get((owner, ann), []), n=1,
                                             cutoff=0.6)
            if near:
                renamed.add(f"{owner}.{near[0]}")
                out.append(replace(c, change=f"field renamed: {name} -> {near[0]}",
                                   detail=f"still uses the old name `{name}`"
                                   if c.uses else ""))
                continue
        out.append(c)
    return [c for c in out if c.symbol not in renamed
            or not c.change.startswith("field added")]


def _arity(sizes: list[int]) -> str:
    return "/".join(f"{n}-tuple" for n in sizes) if sizes else "non-tuple"


def _sure_uses(inp: Inputs, dotted: str, sites: list[usecheck.Site]) -> bool:
    """Whether every site that does not fit is surely a use of ``dotted``: a call of a
    module-level function, or an override in a class that still derives from the method's
    class at HEAD (``check_named`` reads every method of that name and every ``.m(...)``
    call, whatever the class; such a reading may not override the decision of
    ``_migrated``)."""
    bad = [s for s in sites if s.verdict in ("breaks", "needs change")]
    if "." not in dotted:
        return bool(bad)
    defs = tuple(s.loc for s in bad if s.how == "override")
    return bool(bad) and len(defs) == len(bad) and \
        set(_overrides_of(inp, dotted, defs, list(defs))) == set(defs)


def _from_use(change: SurfaceChange, sites: list[usecheck.Site],
              sure: bool = False) -> SurfaceChange:
    """Severity from use (#22 defect 5): the change is an action only at a call that
    passes what was removed (or misses what is now required) or an override that
    declares it; blocking only where the code breaks now. A use that passes nothing
    the change touches is adapted, and a mere import or attribute is no use."""
    bad = [s for s in sites if s.verdict in ("breaks", "needs change")]
    if not bad:
        return replace(change, uses=(), severity="nice-to-have",
                       adapted=tuple(s.loc for s in sites))
    order = {"blocking": 0, "should-fix": 1}
    worst = sorted((s.severity or "should-fix" for s in bad), key=order.get)[0]
    return replace(change, uses=tuple(dict.fromkeys(s.loc for s in bad)), severity=worst,
                   checked=sure,
                   detail="; ".join(dict.fromkeys(f"{s.loc} {s.detail}" for s in bad)))


def _moved_to(inp: Inputs, name: str) -> tuple[str, ps.FuncDef | ast.ClassDef] | None:
    """Where the sub-project's imports of ``name`` (a function or class) resolve at HEAD
    (through a package's ``__init__`` re-export too): (file, definition), or None."""
    sub = inp.target.subproject + "/"
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")) or name not in text:
            continue
        for module, orig in ps.imports(ps.parse(text)).values():
            if orig == name:
                found = _definition_of(inp, module, name)
                if found is not None:
                    return found
    return None


def _moved_method(inp: Inputs, name: str) -> tuple[str, ps.FuncDef | ast.ClassDef] | None:
    """``_moved_to`` for a function or a method (``Class.method``): a method is found
    wherever the folder's imports find its class (#22, set 17: a class re-exported by the
    package its module became)."""
    head, _, rest = name.partition(".")
    found = _moved_to(inp, head)
    if found is None or not rest:
        return found
    if not isinstance(found[1], ast.ClassDef):
        return None
    # By the name it is defined under: a re-export may rename it (``import B as A``).
    member = ps.find(ast.Module(body=[found[1]], type_ignores=[]), f"{found[1].name}.{rest}")
    return (found[0], member) if member is not None else None


def _definition_of(inp: Inputs, module: str, name: str
                   ) -> tuple[str, ps.FuncDef | ast.ClassDef] | None:
    """Where ``module``'s ``name`` is defined at HEAD, through re-exports."""
    path = ps.module_path(module, inp.head.paths)
    return _resolve(inp.head, path, name, 0) if path else None


def _signature_change(surface: str, name: str, old: object, new: object, *, file: str,
                      commit: str, why: str, uses: tuple[str, ...]) -> list[SurfaceChange]:
    if isinstance(old, ps.FuncDef) and not isinstance(new, ps.FuncDef):
        return [SurfaceChange(surface, name, f"{name} no longer found in {file}", commit, file,
                              "blocking" if uses else "should-fix", why, uses)]
    if not (isinstance(old, ps.FuncDef) and isinstance(new, ps.FuncDef)):
        return []
    a, b = ps.signature(old), ps.signature(new)
    if a == b:
        return []
    found = sig.breakages(old, new)
    detail = "; ".join(x.text() for x in found) or "annotations changed"
    severity = sig.worst(found) or "nice-to-have"
    return [SurfaceChange(surface, name, f"signature changed ({detail}): {a} -> {b}", commit,
                          file, severity, why, uses)]


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
                                    f"{missing.name} not found in {missing.file}", "not checked",
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
                                    f"{missing.name} not found in {missing.file}", "not checked",
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
            elif name in mine and before[name] != now[name] and not _same_type(
                    now[name], base.file, mine[name], sub.file, inp.head):
                out.append(DriftFinding("subclass", base.name, sub.name, name,
                                        f"{base.name}.{name} changed type upstream "
                                        f"({before[name]} -> {now[name]}) but {sub.name} "
                                        f"overrides it as {mine[name]}", "should-fix", sub.file))
        for name in sorted(set(mine) & (set(before) - set(now))):
            out.append(DriftFinding("subclass", base.name, sub.name, name,
                                    f"{sub.name} overrides {name}, which {base.name} no longer "
                                    "has (now a field only the sub-project defines)",
                                    "should-fix", sub.file))
    return out


def _resolved(ann: str, file: str, tree: Tree) -> str:
    """An annotation with each name replaced by where the file imports it from, so
    ``nn.Module.Config`` and ``Module.Config`` imported from the same place compare
    equal; string annotations are unquoted first."""
    try:
        node = ast.parse(ann.strip().strip("'\""), mode="eval")
    except SyntaxError:
        return ann
    mod = ps.parse(tree.text(file) or "")
    imports = ps.imports(mod)
    # a class the file defines itself resolves to the file's own module path
    here = ps.module_name(file)
    local = {n.name for n in (mod.body if mod is not None else ())
             if isinstance(n, ast.ClassDef)}

    def full(n: ast.AST) -> str:
        if isinstance(n, ast.Name):
            module, name = imports.get(n.id, ("", ""))
            if module:
                return f"{module}.{name}".rstrip(".")
            return f"{here}.{n.id}" if n.id in local else n.id
        if isinstance(n, ast.Attribute):
            return f"{full(n.value)}.{n.attr}"
        return ast.unparse(n)

    def walk(n: ast.AST) -> str:
        if isinstance(n, ast.Name | ast.Attribute):
            return full(n)
        if isinstance(n, ast.Subscript):
            return f"{walk(n.value)}[{walk(n.slice)}]"
        if isinstance(n, ast.Tuple):
            return ", ".join(walk(e) for e in n.elts)
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr):
            return f"{walk(n.left)} | {walk(n.right)}"
        return ast.unparse(n)

    return walk(node.body)


def _same_type(up: str, up_file: str, mine: str, my_file: str, tree: Tree) -> bool:
    """The override already has upstream's new type (compared resolved, after the
    window): the copy is adapted, no drift (#22, precision)."""
    return _resolved(up, up_file, tree) == _resolved(mine, my_file, tree)


_DEF_RE = re.compile(r"^(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z]\w*)", re.M)


def _defined_at(tree: Tree) -> set[str]:
    """Public top-level function and class names defined anywhere in a tree's loaded
    Python files (a regex pre-scan: cheap over the whole repository)."""
    names: set[str] = set()
    for path, text in tree.files.items():
        if path.endswith(".py"):
            names.update(_DEF_RE.findall(text))
    return names


def new_apis(inp: Inputs) -> list[NewApi]:
    """S-1 opportunities: public top-level names added in watched files since the
    baseline (a utility that may replace something hand-rolled). A name that existed
    anywhere at the baseline moved; it is not new."""
    if inp.base is None:
        return []
    existed = _defined_at(inp.base)
    refs = refindex.index(inp)
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
        now = ps.top_level_defs(new_text)
        before = ps.top_level_defs(old_text)
        # New, not moved (defined nowhere at the baseline), and not already in use.
        added = tuple(sorted(n for n in now.keys() - before.keys() if n not in existed
                             and not refs.imported(n) and not refs.attrs.get(n)))
        if added:
            out.append(NewApi(path, added, _touching(inp.commits, path), path in used,
                              _counterparts(inp, added)))
    return out


_GENERIC = {"get", "set", "make", "build", "create", "apply", "init", "config", "to", "from",
            "is", "the", "of", "and", "for", "with", "default", "base", "utils", "util"}


def _words(name: str) -> set[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return {w for w in spaced.lower().split("_") if w and w not in _GENERIC}


def _counterparts(inp: Inputs, added: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """New upstream names the sub-project already hand-rolls: a function or class of
    its own sharing at least two key words with it (``apply_sac_pass`` ↔ a new
    ``apply_sac``-like helper), i.e. where the new API may replace its code."""
    refs = refindex.index(inp, include_tests=False)
    out = []
    for name in added:
        want = _words(name)
        if len(want) < 2:
            continue
        for own, locs in sorted(refs.functions.items()):
            have = _words(own)
            if len(want & have) >= 2 and (want <= have or have <= want):
                out.append((name, f"{own} ({locs[0]})"))
                break
    return tuple(out)


def new_models(inp: Inputs) -> list[str]:
    """S-1: model directories added under ``models_dir`` since the baseline that the
    sub-project has no directory for yet."""
    models = str(inp.target.raw.get("models_dir", "")).rstrip("/")
    # "Consider supporting it" presumes one folder per model in the sub-project.
    if not models or inp.base is None or not inp.target.per_model_folders:
        return []

    def dirs(tree: Tree) -> set[str]:
        return {p[len(models) + 1:].split("/", 1)[0] for p in tree.paths
                if p.startswith(models + "/") and p.count("/") > models.count("/") + 1}

    sub = inp.target.subproject + "/"
    supported = {p[len(sub):].split("/", 1)[0] for p in inp.head.paths
                 if p.startswith(sub) and p.count("/") > sub.count("/")}
    return sorted(dirs(inp.head) - dirs(inp.base) - supported)
