"""What core does to a component that a copied engine skips (#22, group D): for a
module of the sub-project paired with the upstream module it copies (``callparity``'s
pairs: configured ``duplicate_logic`` or shared callees), the methods upstream calls on
each of its components (``self.lr_schedulers.get_metrics()``,
``self.metrics_processor.log(…, extra_metrics=…)``, ``self.checkpointer.close()``)
against the copy's calls on its component of the same name:

- ``skipped``: upstream calls the method, the copy never does, though it calls other
  methods on that component (so it is the same component, in use);
- ``dropped``: both call it, every upstream call passes a keyword no call of the copy
  passes (whatever the value: what core hands a component it logs or saves with);
- ``spread``: a callee written the same way on both sides (``model_parts[0](…)``,
  ``self.pp_schedule.step(…)``) to which every upstream call spreads a dict upstream's
  function builds itself (``**extra_inputs``), while no call of the copy spreads it
  (arguments core's loop now hands the model that the copy drops).

A ``skipped`` call whose arguments need something the sub-project never names (a hook
calling ``model_converters`` in a copy that builds no converters) is not judged.

A component the copy never has is not judged. Opportunities: the copy may differ on
purpose. Pure: the HEAD tree in, frozen records out.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass

from agentops.scout.analyses import callparity
from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs

# Methods every object has, or that only read state: skipping them changes nothing.
_NEUTRAL = frozenset({"__init__", "__call__", "get", "keys", "items", "values", "copy",
                      "to", "cpu", "cuda", "numel", "size", "item", "detach", "clone"})


@dataclass(frozen=True)
class ComponentGap:
    how: str  # "skipped" | "dropped"
    component: str  # the attribute name (``lr_schedulers``)
    method: str
    keyword: str  # "dropped": the keyword; "" otherwise
    file: str  # the copy
    line: int  # the copy's class or call line
    upstream: str  # upstream file:line of the call


def _functions(tree: ast.Module) -> list[ps.FuncDef]:
    return [n for n in ps.walk(tree) if isinstance(n, ps.FuncDef.__args__)]


def _calls_in(func: ps.FuncDef, *, uses_only: bool = False
              ) -> dict[tuple[str, str], list[ast.Call]]:
    """``(component, method) -> calls`` of ``self.<component>.<method>(…)``; with
    ``uses_only``, not those whose result becomes another component (``self.x =
    self.spec.build(…)`` builds, it does nothing to the component it is called on)."""
    calls: dict[tuple[str, str], list[ast.Call]] = {}
    builds = {id(v) for n in ps.walk(func) if isinstance(n, ast.Assign) and any(
        isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
        and t.value.id == "self" for t in n.targets) for v in ast.walk(n.value)
        if isinstance(v, ast.Call)} if uses_only else set()
    for n in ps.walk(func):
        if id(n) in builds:
            continue
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            chain = ps.name_chain(n.func)
            if len(chain) == 3 and chain[0] == "self":
                calls.setdefault((chain[1], chain[2]), []).append(n)
    return calls


def _locals(func: ps.FuncDef) -> set[str]:
    """Names ``func`` binds by assignment (a tuple target included), not parameters."""
    out: set[str] = set()
    for n in ps.walk(func):
        if isinstance(n, ast.Assign | ast.AnnAssign):
            for t in n.targets if isinstance(n, ast.Assign) else [n.target]:
                out |= {x.id for x in ast.walk(t) if isinstance(x, ast.Name)}
    return out


def _spreads(func: ps.FuncDef) -> dict[str, list[ast.Call]]:
    """Callee as written -> calls in ``func`` (callees through ``self`` or a local)."""
    out: dict[str, list[ast.Call]] = {}
    for n in ps.walk(func):
        if isinstance(n, ast.Call) and not isinstance(n.func, ast.Name):
            out.setdefault(ast.unparse(n.func), []).append(n)
    return out


def _spread_names(call: ast.Call) -> set[str]:
    return {k.value.id for k in call.keywords
            if k.arg is None and isinstance(k.value, ast.Name)}


def _needs_absent(call: ast.Call, mentioned: str, func: ps.FuncDef) -> bool:
    """The call's arguments read something the sub-project's text never names: a name
    (not a lambda's own parameter, not a builtin) or ``self`` attribute; a local of
    upstream's function stands for what it is assigned from (``lm_head =
    self.model_parts[0].lm_head`` needs only ``model_parts``)."""
    params = {a.arg for n in ast.walk(call) if isinstance(n, ast.Lambda)
              for a in (*n.args.args, *n.args.kwonlyargs, *filter(None, (
                  n.args.vararg, n.args.kwarg)))}
    assigned: dict[str, list[ast.expr]] = {}
    for n in ps.walk(func):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 \
                and isinstance(n.targets[0], ast.Name):
            assigned.setdefault(n.targets[0].id, []).append(n.value)

    def lacks(expr: ast.expr, depth: int) -> bool:
        for n in ast.walk(expr):
            name = n.id if isinstance(n, ast.Name) else (
                n.attr if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                and n.value.id == "self" else "")
            if not name or name == "self" or name in params or hasattr(builtins, name) \
                    or name in mentioned:
                continue
            values = assigned.get(name, []) if isinstance(n, ast.Name) else []
            if depth or not values or any(lacks(v, depth + 1) for v in values):
                return True
        return False

    return any(lacks(arg, 0) for arg in (*call.args, *(k.value for k in call.keywords)))


def _components_used(func: ps.FuncDef) -> set[str]:
    return {n.attr for n in ps.walk(func) if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name) and n.value.id == "self"}


def _compare(up_path: str, up: ast.Module, ours: dict[str, list[tuple[str, ps.FuncDef]]],
             anywhere: set[tuple[str, str]], mentioned: str) -> list[ComponentGap]:
    """Upstream's functions against the sub-project's functions of the same name."""
    out: list[ComponentGap] = []
    for func in _functions(up):
        mine = ours.get(func.name, [])
        if not mine:
            continue  # not re-implemented: the copy inherits or does not have it
        used = set().union(*(_components_used(f) for _p, f in mine))
        my_calls: dict[tuple[str, str], list[tuple[str, ast.Call]]] = {}
        for path, f in mine:
            for key, calls in _calls_in(f).items():
                my_calls.setdefault(key, []).extend((path, c) for c in calls)
        for (comp, method), calls in sorted(_calls_in(func, uses_only=True).items()):
            if method in _NEUTRAL or method.startswith("_") or comp not in used:
                continue
            where = f"{up_path}:{calls[0].lineno}"
            if (comp, method) not in my_calls:
                if (comp, method) in anywhere or any(_needs_absent(c, mentioned, func)
                                                     for c in calls):
                    continue  # the copy does it elsewhere, or lacks what it needs
                path, f = next((p, f) for p, f in mine if comp in _components_used(f))
                out.append(ComponentGap("skipped", comp, method, "", path, f.lineno, where))
                continue
            ours_kw = {k.arg for _p, c in my_calls[comp, method] for k in c.keywords if k.arg}
            every = set.intersection(*({k.arg for k in c.keywords if k.arg} for c in calls))
            for kw in sorted(every - ours_kw):
                values = [k.value for c in calls for k in c.keywords if k.arg == kw]
                # A constant may be the callee's default (unknown for a component's
                # method); a component of upstream's the copy never uses is not lacked.
                # A setting the sub-project never names (``config.x.disable_cuda_graphs``)
                # selects a feature the copy does not have.
                if any(isinstance(v, ast.Constant) for v in values) or any(
                        isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                        and n.value.id == "self" and n.attr not in used
                        for v in values for n in ast.walk(v)) or any(
                        isinstance(v, ast.Attribute) and len(ps.name_chain(v)) > 2
                        and ps.name_chain(v)[-1] not in mentioned for v in values):
                    continue
                path, c = my_calls[comp, method][0]
                out.append(ComponentGap("dropped", comp, method, kw, path, c.lineno, where))
        out += _spread_gaps(up_path, func, mine)
    return out


def _spread_gaps(up_path: str, func: ps.FuncDef, mine: list[tuple[str, ps.FuncDef]]
                 ) -> list[ComponentGap]:
    built = _locals(func)
    theirs = _spreads(func)
    out: list[ComponentGap] = []
    for path, f in mine:
        for callee, my_calls in sorted(_spreads(f).items()):
            calls = theirs.get(callee)
            if not calls:
                continue
            every = set.intersection(*(_spread_names(c) for c in calls)) & built
            lacked = every - set().union(*(_spread_names(c) for c in my_calls))
            for name in sorted(lacked):
                out.append(ComponentGap("spread", callee, "", f"**{name}", path,
                                        my_calls[0].lineno, f"{up_path}:{calls[0].lineno}"))
    return out


def analyse(inp: Inputs) -> list[ComponentGap]:
    sub = inp.target.subproject + "/"
    pairs = callparity._pairs(inp)
    if not pairs:
        return []
    # The copy may spread the upstream module over several files (an engine and the
    # script that subclasses it): every function of the sub-project's own code counts.
    ours: dict[str, list[tuple[str, ps.FuncDef]]] = {}
    anywhere: set[tuple[str, str]] = set()
    mentioned = "\n".join(t for p, t in inp.head.files.items() if p.startswith(sub))
    for path in sorted(inp.head.files):
        if not (path.endswith(".py") and path.startswith(sub)) or inp.target.is_test(path):
            continue
        tree = ps.parse(inp.head.files[path])
        if tree is None:
            continue
        for f in _functions(tree):
            ours.setdefault(f.name, []).append((path, f))
            anywhere |= set(_calls_in(f))
    out: list[ComponentGap] = []
    seen: set[tuple[str, str, str, str]] = set()
    for u in dict.fromkeys(u for _o, u in pairs):
        text = inp.head.text(u)
        up_tree = ps.parse(text) if text is not None else None
        if up_tree is None:
            continue
        for g in _compare(u, up_tree, ours, anywhere, mentioned):
            key = (g.component, g.method, g.keyword, g.how)
            if key not in seen:
                seen.add(key)
                out.append(g)
    return out
