"""Calls a copy makes differently from upstream (#22 defect 4, copies that lag): a
module of the sub-project that calls many of the same repository functions as an
upstream module (an engine copied from the trainer) is compared with it call by call,
module-qualified calls (``dist_utils.init_distributed(…)``) and methods reached through
the same chain (``config.checkpoint.build(…)``) included. For a callee both
modules call:

- ``pinned``: ours passes ``k=None`` where every upstream call passes a value for ``k``
  (the copy switched a component off: a checkpointer built with ``dataloader=None``);
- ``omitted``: every upstream call passes ``k``, ours does not, and upstream's value is
  not the callee's default (resolved in the repository; an unresolved callee, or a
  keyword without a default, is not judged), nor a bare local of upstream's (its value
  may be the default), nor one of upstream's own components the copy's module never
  has (``self.ft_manager`` in a copy without one);
- ``short``: ours passes fewer positional arguments than every upstream call and not
  the first missing one by keyword (``validator.validate(parts)`` where upstream passes
  ``(parts, self.step)``); not judged when upstream's value there is the callee's
  default, a bare local of upstream's or one of its components the copy never has;
- ``discarded``: every upstream call binds the result to a name, ours calls it as a bare
  statement and its function binds that same name from something else (a world size
  read from the environment instead of the value the call returns).

Which modules correspond: the configured ``duplicate_logic`` pairs, and any upstream
module of the watched paths, or named as a pair's upstream (a trainer outside them whose
constructor a second module of the folder copies), sharing at least ``MIN_SHARED``
distinct repository callees with the sub-project's module, and at least ``MIN_SHARE`` of
the module's own. An upstream value reading a section the copy's own parameter cannot
have (its annotation a folder class without it: a trimmed config) is nothing to hand
over, never ``omitted`` or ``short``. Calls through ``self``/locals are compared only
as a chain of three parts or more written the same way on both sides, or as a method of
one of the instance's own components (``self.validator.validate``), never ``omitted``
(the callee's defaults are unknown).

An Opportunity: the copy may differ on purpose. Pure: the HEAD tree in,
``CallParity`` records out.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from agentops.scout.analyses import bodydrift, direction, duplicates
from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs

MIN_SHARED = 5
MIN_SHARE = 0.4
CHAIN = "chain:"
CHAIN_PARTS = 3


@dataclass(frozen=True)
class CallParity:
    file: str  # our module
    line: int  # our call
    callee: str  # as written in our call (``dist_utils.init_distributed``)
    how: str  # "pinned" | "omitted" | "short" | "discarded"
    # the keyword (pinned/omitted), the first positional parameter ours leaves out
    # (short: its name, or "argument N" when the callee is unknown), or upstream's bound
    # name (discarded)
    keyword: str
    upstream_value: str  # upstream's value for the keyword/argument, or the call it binds
    upstream: str  # file:line of upstream's call
    ours_instead: str = ""  # discarded: file:line and source of our own binding


@dataclass
class _Module:
    path: str
    text: str
    tree: ast.Module
    calls: dict[str, list[ast.Call]]  # callee key -> calls


def _key(call: ast.Call, imported: dict[str, tuple[str, str]], paths: frozenset[str]
         ) -> str:
    """``module.name`` of a call of a name imported from the repository (directly or
    through an imported module), "" otherwise."""
    f = call.func
    if isinstance(f, ast.Name) and f.id in imported:
        module, name = imported[f.id]
        if name and ps.module_path(module, paths) is not None:
            return f"{module}.{name}"
        return ""
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) \
            and f.value.id in imported:
        module, name = imported[f.value.id]
        dotted = f"{module}.{name}" if name else module
        if ps.module_path(dotted, paths) is not None:
            return f"{dotted}.{f.attr}"
        return ""
    # A method reached through a config object (``config.checkpoint.build``): matched
    # by the chain as written, ``self.`` aside; three parts at least, so a generic
    # ``x.append`` never pairs two unrelated calls.
    # A method of one of the instance's own components (``self.validator.validate``)
    # counts too: the component is held under the same name on both sides.
    chain = ps.name_chain(f)
    own = chain[:1] == ["self"]
    chain = chain[1:] if own else chain
    if chain and chain[0] not in imported and (
            len(chain) >= CHAIN_PARTS or (own and len(chain) == CHAIN_PARTS - 1)):
        return CHAIN + ".".join(chain)
    return ""


def _module(inp: Inputs, path: str) -> _Module | None:
    text = inp.head.text(path) or ""
    tree = ps.parse(text)
    if tree is None:
        return None
    imported = ps.imports(tree)
    calls: dict[str, list[ast.Call]] = {}
    for node in ps.nodes(tree):
        if isinstance(node, ast.Call) and (key := _key(node, imported, inp.head.paths)):
            calls.setdefault(key, []).append(node)
    return _Module(path, text, tree, calls)


def _pairs(inp: Inputs) -> list[tuple[str, str]]:
    sub = inp.target.subproject + "/"
    watched = tuple(inp.target.watched_paths)
    # The configured pairs as call drift reads them (a downstream copy never counts as
    # our source).
    out: list[tuple[str, str]] = [(o, u) for o, u, _why in duplicates._pairs(inp)]
    downstream = direction.downstream_files(inp)
    ours = [p for p in sorted(inp.head.files) if p.endswith(".py") and p.startswith(sub)
            and not inp.target.is_test(p)]
    # A core module the target names as the source of a copy (``duplicate_logic``'s
    # upstream, often outside the watched paths) may be the source of the folder's other
    # modules too: an engine holding the trainer's constructor next to a copied loop.
    sources = {u for _o, u in out}
    theirs = [p for p in sorted(inp.head.files) if p.endswith(".py")
              and ((watched and p.startswith(watched)) or p in sources)
              and not p.startswith(sub) and "/tests/" not in p and p not in downstream]
    # Modules are paired by what they call from the repository, not by chains.
    keys = {p: {k for k in m.calls if not k.startswith(CHAIN)} for p in ours + theirs
            if (m := _cached(inp, p)) is not None}
    for o in ours:
        mine = keys.get(o, set())
        if len(mine) < MIN_SHARED:
            continue
        for u in theirs:
            shared = mine & keys.get(u, set())
            if len(shared) >= MIN_SHARED and len(shared) >= MIN_SHARE * len(mine):
                out.append((o, u))
    return list(dict.fromkeys(out))


_CACHE: dict[tuple[str, str, int], _Module | None] = {}


def _cached(inp: Inputs, path: str) -> _Module | None:
    """Keyed by the text and the tree's paths, not by object: a later run in the same
    process reads another commit."""
    key = (path, inp.head.text(path) or "", hash(inp.head.paths))
    if key not in _CACHE:
        if len(_CACHE) > 4096:
            _CACHE.clear()
        _CACHE[key] = _module(inp, path)
    return _CACHE[key]


def _kw(call: ast.Call) -> dict[str, str]:
    return {k.arg: ast.unparse(k.value) for k in call.keywords if k.arg}


def _is_none(text: str) -> bool:
    return text == "None"


def _signature(inp: Inputs, key: str) -> ps.FuncDef | None:
    """The callee's definition (a class: its ``__init__``), or None when not found."""
    if key.startswith(CHAIN):
        return None
    module, _, name = key.rpartition(".")
    for _ in range(4):
        path = ps.module_path(module, inp.head.paths)
        tree = ps.parse(inp.head.text(path) or "") if path else None
        if tree is None:
            return None
        for node in ps.statements(tree):
            if isinstance(node, ps.FuncDef.__args__) and node.name == name:
                return node
            if isinstance(node, ast.ClassDef) and node.name == name:
                return next((n for n in node.body if isinstance(n, ps.FuncDef.__args__)
                             and n.name == "__init__"), None)
        hop = ps.imports(tree).get(name)
        if not hop or not hop[1]:
            return None
        module, name = hop
    return None


def _bindings(tree: ast.Module) -> tuple[dict[int, ast.AST], dict[int, str]]:
    """Call id -> the statement holding it as a bare expression, and call id -> the
    name an assignment binds its result to."""
    bare: dict[int, ast.AST] = {}
    bound: dict[int, str] = {}
    for node in ps.nodes(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            bare[id(node.value)] = node
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.value, ast.Call):
            name = _target_name(node.targets[0])
            if name:
                bound[id(node.value)] = name
    return bare, bound


def _target_name(target: ast.expr) -> str:
    """The bound name as written (``size``, ``self.size``): a local and an attribute of
    the same last name are different things."""
    if isinstance(target, ast.Name | ast.Attribute):
        return ast.unparse(target)
    return ""


def _enclosing(tree: ast.Module, line: int) -> ps.FuncDef | None:
    best = None
    for node in ps.nodes(tree):
        if isinstance(node, ps.FuncDef.__args__) \
                and node.lineno <= line <= (node.end_lineno or node.lineno) \
                and (best is None or node.lineno > best.lineno):
            best = node
    return best


def _own_binding(func: ps.FuncDef, name: str, skip: ast.Call) -> ast.Assign | None:
    """An assignment in ``func`` binding ``name`` from something other than ``skip``
    (a plain alias of another name computes nothing)."""
    for node in ps.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and _target_name(node.targets[0]) == name and node.value is not skip \
                and not isinstance(node.value, ast.Name):
            return node
    return None


def _absent_component(value: str, text: str) -> bool:
    """Upstream passes one of its own components (``self.ft_manager``) that the copy's
    module never has: nothing to hand over, not a lag."""
    head = value.split("(", maxsplit=1)[0]
    if not head.startswith("self."):
        return False
    attr = head.split(".")[1]
    return f"self.{attr}" not in text


def _class_attrs(cls: ast.ClassDef) -> set[str]:
    """What an instance of ``cls`` has: fields, class-level names, methods, and what its
    methods assign on ``self``."""
    out = set(ps.class_fields(cls))
    for stmt in cls.body:
        if isinstance(stmt, ast.Assign):
            out |= {t.id for t in stmt.targets if isinstance(t, ast.Name)}
        elif isinstance(stmt, ps.FuncDef.__args__):
            out.add(stmt.name)
            for node in ps.walk(stmt):
                if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                        and isinstance(node.value, ast.Name) and node.value.id == "self":
                    out.add(node.attr)
    return out


def _lacks(inp: Inputs, ours: _Module, call: ast.Call, value: str) -> bool:
    """Upstream's value reads a section (``job_config.job.dump_folder``) that the copy's
    own parameter of that name cannot have: its annotation is a class without bases
    whose instances hold no such attribute (a trimmed config of the folder's). Nothing
    to hand over, not a lag."""
    tree = ps.parse(value)
    expr = tree.body[0] if tree is not None and len(tree.body) == 1 else None
    chain = ps.name_chain(expr.value) if isinstance(expr, ast.Expr) else []
    scope = _enclosing(ours.tree, call.lineno)
    if len(chain) < 2 or scope is None:
        return False
    ann = next((a.annotation for a in (*scope.args.posonlyargs, *scope.args.args,
                                       *scope.args.kwonlyargs)
                if a.arg == chain[0]), None)
    if not isinstance(ann, ast.Name):
        return False
    cls = ps.find(ours.tree, ann.id)
    if not isinstance(cls, ast.ClassDef):
        cls = (bodydrift._repo_class(inp, ours.tree, ann.id)
               or bodydrift._relative_class(inp, ours.tree, ours.path, ann.id))
    if not isinstance(cls, ast.ClassDef) or any(b != "object" for b in ps.class_bases(cls)):
        return False
    return chain[1] not in _class_attrs(cls)


def _is_local(call: ast.Call, keyword: str) -> bool:
    """Upstream passes a bare local (``leaf_folder=leaf_folder``): what it holds is
    decided in upstream's function and may well be the callee's default."""
    return any(k.arg == keyword and isinstance(k.value, ast.Name) for k in call.keywords)


def _short(call: ast.Call, theirs: list[ast.Call], func: ps.FuncDef | None,
           defaults: dict[str, str], text: str) -> tuple[str, str] | None:
    """Ours passes fewer positional arguments than every upstream call: (the first
    missing parameter, or its position when the callee is unknown; upstream's value).
    Not judged when ours passes that parameter by keyword, when upstream's value is the
    callee's default, a bare local of upstream's (it may hold the default) or one of its
    own components the copy never has. A call that then does not bind fails when
    reached; one that binds runs the callee with its default where upstream does not."""
    if any(isinstance(a, ast.Starred) for c in (call, *theirs) for a in c.args):
        return None
    n = len(call.args)
    if min(len(c.args) for c in theirs) <= n:
        return None
    value = theirs[0].args[n]
    text_value = ast.unparse(value)
    if isinstance(value, ast.Name) or _absent_component(text_value, text):
        return None
    if func is None:
        # An unknown callee: a keyword of ours that upstream does not pass may be the
        # missing parameter by name.
        if set(_kw(call)) - set.intersection(*(set(_kw(c)) for c in theirs)):
            return None
        return f"argument {n + 1}", text_value
    params = [p.arg for p in (*func.args.posonlyargs, *func.args.args)]
    params = params[1:] if params[:1] in (["self"], ["cls"]) else params
    if n >= len(params):
        return None
    name = params[n]
    if name in _kw(call) or defaults.get(name) == text_value:
        return None
    return name, text_value


def _compare(inp: Inputs, ours: _Module, up: _Module) -> list[CallParity]:
    out: list[CallParity] = []
    o_bare, _ = _bindings(ours.tree)
    _, u_bound = _bindings(up.tree)
    for key in sorted(set(ours.calls) & set(up.calls)):
        theirs = [c for c in up.calls[key] if not any(k.arg is None for k in c.keywords)]
        if not theirs:
            continue
        ref = theirs[0]
        where_up = f"{up.path}:{ref.lineno}"
        common = set.intersection(*(set(_kw(c)) for c in theirs))
        func = _signature(inp, key)
        defaults = ps.param_defaults(func) if func is not None else {}
        for call in ours.calls[key]:
            if any(k.arg is None for k in call.keywords):
                continue
            mine, values = _kw(call), _kw(ref)
            callee = ast.unparse(call.func)
            for k in sorted(common):
                if k in mine:
                    if _is_none(mine[k]) and not any(_is_none(_kw(c)[k]) for c in theirs):
                        out.append(CallParity(ours.path, call.lineno, callee, "pinned", k,
                                              values[k], where_up))
                    continue
                # Only a parameter with a default is judged: one the callee takes
                # through **kwargs has no default to compare with.
                if func is None or k in ps.positional_params(func, call) or k not in defaults \
                        or defaults[k] == values[k] or _is_none(values[k]) \
                        or _absent_component(values[k], ours.text) \
                        or _is_local(ref, k) or _lacks(inp, ours, call, values[k]):
                    continue
                out.append(CallParity(ours.path, call.lineno, callee, "omitted", k,
                                      values[k], where_up))
            short = _short(call, theirs, func, defaults, ours.text)
            if short is not None and not _lacks(inp, ours, call, short[1]):
                out.append(CallParity(ours.path, call.lineno, callee, "short", *short,
                                      where_up))
            names = {u_bound.get(id(c), "") for c in theirs}
            if id(call) in o_bare and len(names) == 1 and "" not in names:
                [name] = names
                scope = _enclosing(ours.tree, call.lineno)
                own = _own_binding(scope, name, call) if scope is not None else None
                if own is not None:
                    out.append(CallParity(
                        ours.path, call.lineno, callee, "discarded", name,
                        ast.unparse(ref.func), where_up,
                        f"{ours.path}:{own.lineno} `{ast.unparse(own.value)[:80]}`"))
    return out


def analyse(inp: Inputs) -> list[CallParity]:
    out: list[CallParity] = []
    seen: set[tuple[str, int, str, str]] = set()
    for o, u in _pairs(inp):
        ours, up = _cached(inp, o), _cached(inp, u)
        if ours is None or up is None:
            continue
        for f in _compare(inp, ours, up):
            if (f.file, f.line, f.how, f.keyword) not in seen:
                seen.add((f.file, f.line, f.how, f.keyword))
                out.append(f)
    return out
