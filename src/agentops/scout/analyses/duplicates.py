"""S-4 duplicated logic, compared call by call and name by name:

- call-site drift: the same callee called in our copy and in upstream's (or, for a
  function the sub-project imports from upstream, in upstream's own callers), where
  upstream passes a keyword ours omits (a feature flag) or ours passes one the callee
  no longer takes or upstream stopped passing;
- divergence: in a pair of corresponding functions (same name, or the most alike by
  the ops, calls and attributes they use), the ops, config fields and calls upstream's
  copy uses that the sub-project never does.

Pure: reads the loaded trees; returns frozen records.
"""

from __future__ import annotations

import ast
import functools
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass

from agentops.scout.analyses import defaultgate, direction
from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses import refs as refindex
from agentops.scout.model import Inputs


@dataclass(frozen=True)
class CallDrift:
    callee: str
    ours: str  # file:line of our call
    upstream: str  # file:line of upstream's call
    missing: tuple[str, ...]  # keywords upstream passes that ours omits
    extra: tuple[str, ...] = ()  # keywords ours passes that the callee no longer takes
    dropped: tuple[str, ...] = ()  # keywords upstream stopped passing since the baseline
    values: tuple[str, ...] = ()  # upstream's "k=value" for the missing ones
    why: str = ""  # the duplicate_logic pair's reason
    # Keywords ours omits whose upstream value is the callee's default unless a feature
    # the sub-project never refers to is on (#22 item 5: no drift), and those tests.
    gated: tuple[str, ...] = ()
    gated_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class Divergence:
    ours: str  # file:line of our function
    upstream: str  # file:line of upstream's function
    ours_function: str
    upstream_function: str
    ops: tuple[str, ...] = ()
    config_fields: tuple[str, ...] = ()
    calls: tuple[str, ...] = ()  # shared-module calls upstream makes under a condition
    why: str = ""


_GENERIC = {"apply", "to", "module", "get", "build", "maybe", "enable", "init", "init_",
            "make", "create", "set", "the", "of", "and", "with", "for", "fn", "func"}
_LOGGING = re.compile(r"^(logger|logging|log|warnings|print)\b")


def _pairs(inp: Inputs) -> list[tuple[str, str, str]]:
    """(ours file, upstream file, why) for each configured duplicate pair: by position
    when each side has one file, else by the longest common path suffix. An "upstream"
    built on the sub-project (it imports it) is a copy of ours, never compared as our
    source (``direction``; the report says so in one line)."""
    out: list[tuple[str, str, str]] = []
    downstream = direction.downstream_files(inp)
    for pair in inp.target.raw.get("duplicate_logic", []):
        ours = [f for f in pair["ours"] if inp.head.text(f) is not None]
        ups = [f for f in pair["upstream"] if inp.head.text(f) is not None
               and f not in downstream]
        why = pair.get("why", "")
        if len(pair["ours"]) == 1 and len(pair["upstream"]) == 1:
            out += [(o, u, why) for o in ours for u in ups]
            continue
        for o in ours:
            best = max(ups, key=lambda u: _common_suffix(o, u), default="")
            if best and _common_suffix(o, best) >= 2:
                out.append((o, best, why))
    return out


def _common_suffix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(reversed(a.split("/")), reversed(b.split("/")), strict=False):
        if x != y:
            break
        n += 1
    return n


def _origin(inp: Inputs, name: str, path: str, mod: ast.Module, defs: set[str]) -> str:
    """Where a called name is defined: ``module.name``, following re-exports through
    the repository's modules (a few hops); "" when unknown (then calls are not
    compared)."""
    if name in defs:
        return f"{path.removesuffix('.py').replace('/', '.')}.{name}"
    imported = ps.imports(mod).get(name)
    if not imported or not imported[1]:
        return ""
    module, name = imported
    for _ in range(4):
        target = ps.module_path(module, inp.head.paths)
        other = ps.parse(inp.head.text(target) or "") if target else None
        if other is None or name in _function_defs(inp.head.text(target)):
            break
        again = ps.imports(other).get(name)
        if not again or not again[1]:
            break
        module, name = again
    return f"{module}.{name}"


def _callee(call: ast.Call) -> str:
    f = call.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return ""


def _calls(node: ast.AST) -> list[ast.Call]:
    found = ps.nodes(node) if isinstance(node, ast.Module) else ps.walk(node)
    return [n for n in found if isinstance(n, ast.Call) and _callee(n)]


def _function_defs(tree_text: str | None) -> dict[str, ps.FuncDef]:
    return _defs_of(tree_text) if tree_text is not None else {}


@functools.lru_cache(maxsize=2048)
def _defs_of(text: str) -> dict[str, ps.FuncDef]:
    mod = ps.parse(text)
    if mod is None:
        return {}
    return {n.name: n for n in ps.statements(mod) if isinstance(n, ps.FuncDef.__args__)}


def _resolve_def(inp: Inputs, file: str, name: str) -> ps.FuncDef | None:
    """The definition of ``name`` as seen from ``file``: defined there, or imported
    from a module in the repository (re-exports followed a few hops)."""
    text = inp.head.text(file)
    defs = _function_defs(text)
    if name in defs:
        return defs[name]
    imported = ps.imports(ps.parse(text) if text is not None else None).get(name)
    if not imported or not imported[1]:
        return None
    module, name = imported
    for _ in range(4):
        path = ps.module_path(module, inp.head.paths)
        if path is None:
            return None
        found = _function_defs(inp.head.text(path))
        if name in found:
            return found[name]
        again = ps.imports(ps.parse(inp.head.text(path) or "")).get(name)
        if not again or not again[1]:
            return None
        module, name = again
    return None


def _kw(call: ast.Call) -> dict[str, str]:
    return {k.arg: ast.unparse(k.value) for k in call.keywords if k.arg}


def call_drift(inp: Inputs) -> list[CallDrift]:
    """Keywords upstream's copy passes to the same callee that ours omits, and
    keywords ours passes that the callee no longer takes or upstream dropped."""
    out: list[CallDrift] = []
    known = _known(inp)
    for ours, up, why in _pairs(inp):
        o_mod, u_mod = ps.parse(inp.head.text(ours) or ""), ps.parse(inp.head.text(up) or "")
        if o_mod is None or u_mod is None:
            continue
        u_calls: dict[str, list[ast.Call]] = {}
        for c in _calls(u_mod):
            u_calls.setdefault(_callee(c), []).append(c)
        base_text = inp.base.text(up) if inp.base is not None else None
        b_mod = ps.parse(base_text) if base_text is not None else None
        b_calls: dict[str, list[ast.Call]] = {}
        for c in _calls(b_mod) if b_mod is not None else []:
            b_calls.setdefault(_callee(c), []).append(c)
        o_defs = set(_function_defs(inp.head.text(ours)))
        u_defs = set(_function_defs(inp.head.text(up)))
        for call in _calls(o_mod):
            name = _callee(call)
            theirs = u_calls.get(name)
            if not theirs or any(k.arg is None for k in call.keywords) \
                    or not isinstance(call.func, ast.Name):
                continue
            # The same callee, not just the same name (simple_fsdp's MixedPrecisionPolicy
            # is not torch's).
            mine_from = _origin(inp, name, ours, o_mod, o_defs)
            if not mine_from or mine_from != _origin(inp, name, up, u_mod, u_defs):
                continue
            func = _resolve_def(inp, ours, name)
            found = _compare(call, theirs, func, where=(ours, up),
                             before=b_calls.get(name, []), why=why,
                             gate=_gate_for(inp, known, ours, o_mod, call=call,
                                            homes={id(c): u_mod for c in theirs}))
            if found is not None:
                out.append(found)
    return _dedupe(out + _imported_call_drift(inp, {d.ours for d in out}))


def _imported_call_drift(inp: Inputs, seen: set[str]) -> list[CallDrift]:
    """For functions the sub-project imports from upstream: keywords that every one of
    upstream's own call sites (at least two, in the watched paths) passes and the
    sub-project's call omits."""
    sub = inp.target.subproject + "/"
    watched = tuple(inp.target.watched_paths)
    upstream_files = [p for p in sorted(inp.head.files) if p.endswith(".py")
                      and p.startswith(watched) and not p.startswith(sub)
                      and "/tests/" not in p]
    out: list[CallDrift] = []
    known = _known(inp)
    cache: dict[str, list[tuple[str, ast.Call]]] = {}
    for path in sorted(inp.head.files):
        if not path.startswith(sub) or inp.target.is_test(path) or not path.endswith(".py"):
            continue
        mod = ps.parse(inp.head.files[path])
        if mod is None:
            continue
        defs = set(_function_defs(inp.head.files[path]))
        imported = ps.imports(mod)
        for call in _calls(mod):
            if not isinstance(call.func, ast.Name) or call.func.id not in imported \
                    or any(k.arg is None for k in call.keywords) \
                    or f"{path}:{call.lineno}" in seen:
                continue
            name = call.func.id
            origin = _origin(inp, name, path, mod, defs)
            home = ps.module_path(origin.rpartition(".")[0], inp.head.paths) if origin else None
            if home is None or home.startswith(sub) or not home.startswith(watched):
                continue  # not an upstream function of this repository's watched code
            func = _resolve_def(inp, path, name)
            if func is None or not ps.param_defaults(func):
                continue  # no optional parameter: nothing a caller could leave out
            if origin not in cache:
                cache[origin] = _upstream_calls(inp, upstream_files, name, origin)
            theirs = cache[origin]
            if len(theirs) < 2:
                continue  # one caller is an example, not a convention
            homes = {id(c): ps.parse(inp.head.files[f]) for f, c in theirs}
            found = _compare(call, [c for _f, c in theirs], func,
                             where=(path, theirs[0][0]), before=[],
                             why=f"upstream's {len(theirs)} callers",
                             gate=_gate_for(inp, known, path, mod, call=call, homes=homes))
            if found is not None and (found.missing or found.gated):
                out.append(CallDrift(found.callee, found.ours,
                                     f"{theirs[0][0]}:{theirs[0][1].lineno}", found.missing,
                                     (), (), found.values, found.why, found.gated,
                                     found.gated_by))
    return out


def _upstream_calls(inp: Inputs, files: list[str], name: str, origin: str
                    ) -> list[tuple[str, ast.Call]]:
    """Calls of ``origin`` (by its local ``name``) in upstream files."""
    out = []
    needle = name + "("
    for path in files:
        text = inp.head.files[path]
        if needle not in text:
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        defs = set(_function_defs(text))
        if _origin(inp, name, path, mod, defs) != origin:
            continue
        out += [(path, c) for c in _calls(mod) if isinstance(c.func, ast.Name)
                and c.func.id == name and not any(k.arg is None for k in c.keywords)]
    return out


def _compare(call: ast.Call, theirs: list[ast.Call], func: ps.FuncDef | None, *,
             where: tuple[str, str], before: list[ast.Call], why: str,
             gate: _Gate | None = None) -> CallDrift | None:
    ours, up = where
    mine = _kw(call)
    covered = set(mine) | (ps.positional_params(func, call) if func is not None else set())
    defaults = ps.param_defaults(func) if func is not None else {}
    # Upstream's consensus: keywords every one of its calls passes.
    common = set.intersection(*(set(_kw(c)) for c in theirs))
    ref = theirs[0]
    values = _kw(ref)
    omitted = sorted(k for k in common if k not in covered
                     and defaults.get(k) != values.get(k))
    # #22 item 5: equal to the default unless a feature the sub-project never refers to
    # is on, in every one of upstream's calls, is no drift.
    gates: dict[str, str] = {}
    for k in omitted:
        if gate is not None and k in defaults:
            found = [gate(c, k, defaults[k]) for c in theirs]
            if all(found):
                gates[k] = " / ".join(sorted({g for g in found if g}))
    missing = tuple(k for k in omitted if k not in gates)
    accepted = set(ps.param_names(func)) if func is not None else set()
    extra = tuple(sorted(k for k in mine if func is not None and k not in accepted
                         and func.args.kwarg is None))
    passed_before = set.intersection(*(set(_kw(c)) for c in before)) if before else set()
    dropped = tuple(sorted(k for k in mine if k in passed_before and k not in common
                           and k not in extra))
    if not (missing or extra or dropped or gates):
        return None
    return CallDrift(_callee(call), f"{ours}:{call.lineno}", f"{up}:{ref.lineno}", missing,
                     extra, dropped, tuple(f"{k}={values[k]}" for k in missing), why,
                     tuple(gates), tuple(gates.values()))


# (upstream call, keyword, callee default as source) -> the unreachable feature test
_Gate = Callable[[ast.Call, str, str], "str | None"]


def _known(inp: Inputs) -> frozenset[str]:
    key = "defaultgate-known"
    cached = inp.head.cache.get(key)
    if cached is None or cached[0] != inp.target.subproject:
        cached = inp.head.cache[key] = (
            inp.target.subproject,
            defaultgate.known_names(inp.head.files, inp.target.subproject + "/"))
    return cached[1]


def omission_gated(inp: Inputs, up_file: str, call: ast.Call, keyword: str, *,
                   ours_file: str, ours_at: ast.AST, inherited: bool = False) -> str | None:
    """For a keyword upstream's ``call`` (in ``up_file``) passes and the copy at
    ``ours_at`` (in ``ours_file``) lacks: the feature test under which upstream's value
    differs from the callee's default, when the sub-project cannot reach it (#22 item
    5); ``None`` when the omission may change behaviour. ``inherited``: the copy is an
    override, so upstream's ``self.`` state is the copy's too."""
    up_mod = ps.parse(inp.head.text(up_file) or "")
    o_mod = ps.parse(inp.head.text(ours_file) or "")
    if up_mod is None or o_mod is None or not isinstance(call.func, ast.Name):
        return None
    func = _resolve_def(inp, up_file, call.func.id)
    default = ps.param_defaults(func).get(keyword) if func is not None else None
    if default is None:
        return None
    inherits = inherited or _inherits_outside(inp, ours_file, o_mod, ours_at)
    g = defaultgate.gate(up_mod, call, keyword, default, _known(inp),
                         self_reachable=inherits)
    return g.condition if g is not None else None


def _gate_for(inp: Inputs, known: frozenset[str], ours: str, o_mod: ast.Module, *,
              call: ast.Call, homes: dict[int, ast.Module | None]) -> _Gate:
    """The gate test for one of our calls against upstream's calls (each parsed in
    ``homes`` by id): ``self.`` tests count as reachable when our call's class inherits
    from a repository class outside the sub-project."""
    inherits = _inherits_outside(inp, ours, o_mod, call)

    def one(theirs: ast.Call, keyword: str, default: str) -> str | None:
        home = homes.get(id(theirs))
        if home is None:
            return None
        g = defaultgate.gate(home, theirs, keyword, default, known,
                             self_reachable=inherits)
        return g.condition if g is not None else None
    return one


def _inherits_outside(inp: Inputs, path: str, mod: ast.Module, call: ast.AST) -> bool:
    """Whether the class holding ``call`` (any node with a line) has, through the
    sub-project's own classes, a base class defined in the repository outside it."""
    sub = inp.target.subproject + "/"
    cls = None
    for n in ps.statements(mod):
        if isinstance(n, ast.ClassDef) and n.lineno <= getattr(call, "lineno", 0) \
                <= (n.end_lineno or 0):
            cls = n
    todo = [(path, mod, cls)] if cls is not None else []
    for _ in range(6):
        if not todo:
            return False
        at, at_mod, c = todo.pop()
        for b in ps.class_bases(c):
            parts = b.split(".")
            local = ps.find(at_mod, b) if len(parts) == 1 else None
            if isinstance(local, ast.ClassDef):
                todo.append((at, at_mod, local))
                continue
            imported = ps.imports(at_mod).get(parts[0])
            if imported is None:
                continue
            module = ".".join([x for x in imported if x] + parts[1:-1])
            if len(parts) == 1:
                module = imported[0]
            where = ps.module_path(module, inp.head.paths)
            if where is None:
                continue  # outside the repository (torch, the standard library)
            if not where.startswith(sub):
                return True
            other = ps.parse(inp.head.text(where) or "")
            found = ps.find(other, parts[-1])
            if isinstance(found, ast.ClassDef):
                todo.append((where, other, found))
    return False


def _dedupe(found: list[CallDrift]) -> list[CallDrift]:
    seen: set[tuple[str, str]] = set()
    out = []
    for d in found:
        if (d.ours, d.callee) not in seen:
            seen.add((d.ours, d.callee))
            out.append(d)
    return out


# --- divergence inside corresponding functions ---------------------------------------------


def _ops(node: ast.AST) -> set[str]:
    """``torch.ops.aten.mm.default`` → ``aten.mm.default``."""
    return _maximal({op for n in ps.walk(node) if isinstance(n, ast.Attribute)
                     and (op := refindex.op_chain(n))})


def _maximal(names: set[str]) -> set[str]:
    """Drop ``aten.mm`` when ``aten.mm.default`` is there too."""
    return {n for n in names if not any(o != n and o.startswith(n + ".") for o in names)}


def _config_params(func: ps.FuncDef) -> set[str]:
    """Parameters whose annotation names a config class (``ACConfig``, ``X.Config``)."""
    out = set()
    for p in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs):
        ann = ast.unparse(p.annotation) if p.annotation is not None else ""
        last = ann.rsplit(".", 1)[-1].split("[")[0]
        if last.endswith("Config"):
            out.add(p.arg)
    return out


def _is_logging_only(body: list[ast.stmt]) -> bool:
    return all(isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
               and _LOGGING.match(ast.unparse(s.value.func)) for s in body)


def _logic_config_reads(func: ps.FuncDef) -> set[str]:
    """``cfg.field`` reads of a config parameter that decide something: in a condition,
    a loop, a comparison, or through a local variable used there; a read that is only
    passed on as an argument (plumbing) or only logged does not count."""
    params = _config_params(func)
    if not params:
        return set()
    reads_by_var: dict[str, set[str]] = {}
    for node in ps.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            reads_by_var.setdefault(node.targets[0].id, set()).update(_reads(node.value, params))
    out: set[str] = set()
    for node in ps.walk(func):
        tests: list[ast.expr] = []
        if isinstance(node, ast.IfExp) or (isinstance(node, (ast.If, ast.While))
                                            and not _is_logging_only(node.body)):
            tests.append(node.test)
        elif isinstance(node, (ast.For, ast.comprehension)):
            tests.append(node.iter)
        elif isinstance(node, ast.Compare):
            tests.append(node)
        for t in tests:
            out |= _reads(t, params)
            for n in ps.walk(t):
                if isinstance(n, ast.Name) and n.id in reads_by_var:
                    out |= reads_by_var[n.id]
    return out


def _reads(expr: ast.AST, params: set[str]) -> set[str]:
    return {n.attr for n in ps.walk(expr) if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name) and n.value.id in params
            and isinstance(n.ctx, ast.Load)}


def _features(func: ps.FuncDef) -> set[str]:
    """What a function uses, for telling which of ours corresponds to upstream's: ops,
    called names and attribute names (common ones dropped)."""
    out = _ops(func)
    for n in ps.walk(func):
        if isinstance(n, ast.Call):
            name = _callee(n)
            if name and name not in _COMMON:
                out.add(f"call:{name}")
        elif isinstance(n, ast.Attribute) and n.attr not in _COMMON:
            out.add(f"attr:{n.attr}")
    return out


_COMMON = {"append", "get", "items", "keys", "values", "info", "debug", "warning", "format",
           "join", "split", "isinstance", "len", "str", "int", "range", "enumerate", "set",
           "list", "dict", "tuple", "zip", "any", "all", "sorted", "print", "getattr",
           "hasattr", "setattr", "super", "update", "add", "pop", "default", "shape",
           "recompile", "graph", "meta", "nodes", "op", "target", "args", "kwargs", "name"}


def _match_functions(ours: dict[str, ps.FuncDef], theirs: dict[str, ps.FuncDef],
                     imported: set[str]) -> list[tuple[ps.FuncDef, ps.FuncDef]]:
    """Corresponding (ours, upstream) functions: the same name, else mutual best by
    shared features (at least 4 and a third of the smaller side)."""
    pairs: list[tuple[ps.FuncDef, ps.FuncDef]] = []
    left = {k: v for k, v in ours.items() if k not in theirs}
    right = {k: v for k, v in theirs.items() if k not in ours and k not in imported}
    for name in sorted(set(ours) & set(theirs)):
        pairs.append((ours[name], theirs[name]))
    feats_l = {k: _features(v) for k, v in left.items()}
    feats_r = {k: _features(v) for k, v in right.items()}

    def score(a: set[str], b: set[str]) -> float:
        shared = len(a & b)
        return shared if shared >= 4 and shared * 3 >= min(len(a), len(b)) else 0

    best_r = {r: max(feats_l, key=lambda k, r=r: score(feats_l[k], feats_r[r]), default="")
              for r in feats_r}
    for r, lname in sorted(best_r.items()):
        if not lname or score(feats_l[lname], feats_r[r]) == 0:
            continue
        back = max(feats_r, key=lambda k, lname=lname: score(feats_l[lname], feats_r[k]))
        if back == r:
            pairs.append((left[lname], right[r]))
    return pairs


def _gates(func: ps.FuncDef) -> list[tuple[set[str], ast.If]]:
    """(attributes a condition reads, the ``if``) for every ``if`` of the function."""
    return [({n.attr for n in ps.walk(node.test) if isinstance(n, ast.Attribute)}, node)
            for node in ps.walk(func) if isinstance(node, ast.If)]


def _compared(test: ast.expr) -> tuple[str, bool, frozenset[object]] | None:
    """``x.attr == C`` / ``x.attr in (C, D)`` (positive) or ``!=`` / ``not in``
    (negative): the attribute, whether positive, and the constants; else None."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.left, ast.Attribute)):
        return None
    op, right = test.ops[0], test.comparators[0]
    if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(right, ast.Constant):
        values = frozenset([right.value])
    elif isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List,
                                                                      ast.Set)) \
            and all(isinstance(e, ast.Constant) for e in right.elts):
        values = frozenset(e.value for e in right.elts if isinstance(e, ast.Constant))
    else:
        return None
    return test.left.attr, isinstance(op, (ast.Eq, ast.In)), values


def refuses(test: ast.expr, ours: list[ast.If]) -> bool:
    """Ours raises under the very condition upstream branches on (``if cp_enabled:
    raise NotImplementedError`` for ``if cp_enabled: apply_cp(…)``), or under one of the
    conditions upstream's ``and`` needs: upstream's branch never runs in ours."""
    needed = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) \
        else [test]
    raised = {ast.unparse(g.test) for g in ours
              if g.body and isinstance(g.body[-1], ast.Raise) and not g.orelse}
    return any(ast.unparse(t) in raised for t in needed)


def _refused(theirs_gate: ast.If, ours: list[ast.If]) -> bool:
    """Upstream calls under ``attr == Y`` (or ``in``), and ours has a guard ``if attr !=
    X: raise`` (or ``not in``) whose accepted values exclude every Y: the sub-project
    refuses that mode before it could need the call."""
    if refuses(theirs_gate.test, ours):
        return True
    up = _compared(theirs_gate.test)
    if up is None or not up[1]:
        return False
    attr, _pos, wanted = up
    for gate in ours:
        mine = _compared(gate.test)
        if mine is None or mine[0] != attr or mine[1] or not gate.body \
                or not isinstance(gate.body[-1], ast.Raise):
            continue
        if not (mine[2] & wanted):
            return True
    return False


def _tokens(name: str) -> set[str]:
    """Key words of a name, with the acronyms of adjacent word pairs
    (``async_tensor_parallel`` also stands for ``tp``)."""
    words = [t for t in re.split(r"[^a-z0-9]+", name.lower()) if t]
    acros = {a[0] + b[0] for a, b in itertools.pairwise(words)}
    return {t for t in words if t not in _GENERIC} | acros


def _words(node: ast.AST) -> list[set[str]]:
    """Token sets of every identifier and string constant under ``node``."""
    out: list[set[str]] = []
    for n in ps.walk(node):
        if isinstance(n, ast.Name):
            out.append(_tokens(n.id))
        elif isinstance(n, ast.Attribute):
            out.append(_tokens(n.attr))
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and len(n.value) < 80:
            out.append(_tokens(n.value))
    return out


def _explained(theirs: ps.FuncDef, drifts: list[CallDrift], up: str) -> set[str]:
    """Config fields whose value reaches a keyword a call-drift finding already names
    (directly or through a local variable): said once, there."""
    values = " ".join(v for d in drifts if d.upstream.startswith(up + ":") for v in d.values)
    if not values:
        return set()
    words = set(re.findall(r"\w+", values))
    out = {w for w in words}
    for node in ps.walk(theirs):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id in words:
            out |= {n.attr for n in ps.walk(node.value) if isinstance(n, ast.Attribute)}
    return out


def calls_super(func: ps.FuncDef) -> bool:
    """Whether a method calls its parent's version (``super().name(...)``)."""
    for node in ps.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == func.name and isinstance(node.func.value, ast.Call) \
                and isinstance(node.func.value.func, ast.Name) \
                and node.func.value.func.id == "super":
            return True
    return False


def divergences(inp: Inputs, drifts: list[CallDrift] | None = None) -> list[Divergence]:
    """What upstream's corresponding function uses that the sub-project never does."""
    refs = refindex.index(inp)
    sub_ops, sub_calls = _maximal(refs.ops), refs.calls
    own_defs = [_tokens(n) for n in refs.functions]
    out: list[Divergence] = []
    for ours, up, why in _pairs(inp):
        o_text, u_text = inp.head.text(ours), inp.head.text(up)
        o_mod = ps.parse(o_text or "")
        imported = {local for local, (_m, name) in ps.imports(o_mod).items() if name}
        for mine, theirs in _match_functions(_function_defs(o_text), _function_defs(u_text),
                                             imported):
            if calls_super(mine):
                # It runs upstream's own code through super() and inherits what that
                # does; only what it re-implements could diverge (#22 defect 6).
                continue
            ops = tuple(sorted(op for op in _ops(theirs) - sub_ops
                               if not any(s.startswith(op + ".") for s in sub_ops)))
            explained = _explained(theirs, drifts or [], up)
            fields = tuple(sorted(f for f in _logic_config_reads(theirs) - _logic_config_reads(
                mine) if not refs.uses(f, own_ok=True) and f not in explained))
            calls = _gated_calls(inp, up, mine, theirs, sub_calls=sub_calls,
                                 own_defs=own_defs)
            if ops or fields or calls:
                out.append(Divergence(f"{ours}:{mine.lineno}", f"{up}:{theirs.lineno}",
                                      mine.name, theirs.name, ops, fields, calls, why))
    return out


def _gated_calls(inp: Inputs, up: str, mine: ps.FuncDef, theirs: ps.FuncDef, *,
                 sub_calls: set[str], own_defs: list[set[str]]) -> tuple[str, ...]:
    """Shared-module functions upstream calls under a condition ours evaluates too,
    that the sub-project never calls and has no counterpart for in its own branch."""
    u_imports = ps.imports(ps.parse(inp.head.text(up) or ""))
    mine_gates = _gates(mine)
    out = []
    for attrs, node in _gates(theirs):
        for call in (c for stmt in node.body for c in _calls(stmt)):
            name = _callee(call)
            if name in sub_calls or name not in u_imports or not u_imports[name][1]:
                continue  # ours calls it somewhere, or it is local to upstream's copy
            ours_here = [n for a, n in mine_gates if attrs & a]
            if not ours_here:
                continue  # ours never looks at that condition: a different design
            if _refused(node, ours_here):
                continue  # ours raises for every value under which upstream calls it
            want = {t for t in re.split(r"[^a-z0-9]+", name.lower())
                    if t and t not in _GENERIC}
            # A counterpart of its own in that branch (data_parallel(..., "fsdp") for
            # apply_fsdp, apply_graph_ac for apply_ac) or anywhere in the sub-project
            # (async_tensor_parallel_pass for maybe_enable_async_tp): a replacement.
            if not want or any(want <= w for n in ours_here for stmt in n.body
                               for w in _words(stmt)) or any(want <= d for d in own_defs):
                continue
            out.append(name)
    return tuple(sorted(set(out)))
