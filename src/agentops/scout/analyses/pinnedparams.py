"""Pinned parameters (#22 defect 8, the case ``deadparams`` cannot see): a parameter
of one of the sub-project's module-level functions that every call passes as the same
constant, equal to its default, or omits. Callers do "set" it, so it is not dead by
``deadparams``' rule, yet no caller, config or test selects any other value: the
branch behind the other value runs nowhere. Typical after core made a feature the
default and every flavour kept passing ``flag=True``.

Only private helpers (``_name``) are judged: all their callers are in view, while a
public builder may be called by configs elsewhere. A parameter that is only forwarded
to a callee that another builder feeds a different value (a reverse debug flavour of a
sibling builder) is reachable and not reported.

Pure: parsed sources in, frozen records out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout.analyses import callsites
from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs

_NO_VALUE = object()
# A knob worth naming chooses between code paths: a flag or a mode string. Numeric
# defaults (sizes, seeds) pinned by every caller are ordinary configuration.
_KNOB_TYPES = (bool, str, type(None))


@dataclass(frozen=True)
class PinnedParam:
    file: str
    line: int  # the parameter's line
    function: str
    param: str
    value: str  # the one value every call gives it
    explicit: int  # calls that pass it explicitly
    calls: int


def _const(node: ast.expr | None) -> object:
    if isinstance(node, ast.Constant) and isinstance(node.value, _KNOB_TYPES):
        return node.value
    return _NO_VALUE


def _used_in_branch(fn: ps.FuncDef, name: str) -> bool:
    """The parameter decides something: read in a condition or handed on (a builder
    forwarding it to what it builds). One that is never read is ``deadparams``' case."""
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
               for n in ps.walk(fn))


def analyse(inp: Inputs) -> list[PinnedParam]:
    # Private helpers only (``_name``, not dunders), undecorated: all their callers are
    # in view. ``escaped``: used as a value somewhere, so called where we cannot see.
    scanned = callsites.scan(
        inp, lambda node: not node.decorator_list and node.name.startswith("_")
        and not node.name.startswith("__"))
    defs, calls, escaped = scanned.defs, scanned.calls, scanned.referenced
    test_texts = scanned.test_texts
    out = []
    for name, found in sorted(defs.items()):
        sites = calls.get(name, [])
        if len(found) != 1 or len(sites) < 2 or name in escaped:
            continue
        if any(isinstance(a, ast.Starred) for c in sites for a in c.args) or any(
                k.arg is None for c in sites for k in c.keywords):
            continue  # ``*args``/``**kw`` forwarding: values we cannot see
        path, fn = found[0]
        a = fn.args
        pos = [p.arg for p in (*a.posonlyargs, *a.args)]
        params = list(zip(pos[len(pos) - len(a.defaults):], a.defaults, strict=True)) + [
            (p.arg, d) for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)
            if d is not None]
        nodes = {p.arg: p for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
        tests_text = "\n".join(t for t in test_texts if name in t)
        for pname, default in params:
            dval = _const(default)
            if dval is _NO_VALUE or not _used_in_branch(fn, pname):
                continue
            explicit, pinned = 0, True
            for c in sites:
                given = [k.value for k in c.keywords if k.arg == pname]
                if pname in pos and pos.index(pname) < len(c.args):
                    given.append(c.args[pos.index(pname)])
                for g in given:
                    v = _const(g)
                    if v is _NO_VALUE or v != dval or type(v) is not type(dval):
                        pinned = False
                    explicit += 1
            # A test that passes the keyword at all may choose the other value.
            if not pinned or explicit == 0 or re.search(
                    rf"\b{re.escape(pname)}\s*=(?!=)", tests_text):
                continue
            out.append(PinnedParam(path, nodes[pname].lineno, name, pname, repr(dval),
                                   explicit, len(sites)))
    return _reachable_elsewhere(out, defs, calls)


def _reachable_elsewhere(found: list[PinnedParam],
                         defs: dict[str, list[tuple[str, ps.FuncDef]]],
                         calls: dict[str, list[ast.Call]]) -> list[PinnedParam]:
    """Drop a pinned parameter whose only effect is ``callee(kw=param)`` when another
    call of that callee passes ``kw`` something else: the other path is reachable."""
    pinned = {(p.function, p.param): p for p in found}
    owner: dict[int, tuple[str, set[str]]] = {}  # call id -> (function, its params)
    for name, ((_path, fn),) in ((n, f) for n, f in defs.items() if len(f) == 1):
        params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
        for n in ps.walk(fn):
            if isinstance(n, ast.Call):
                owner[id(n)] = (name, params)
    out = []
    for p in found:
        fn = defs[p.function][0][1]
        fwd = [(c, k.arg) for c in ps.walk(fn) if isinstance(c, ast.Call)
               for k in c.keywords if isinstance(k.value, ast.Name) and k.value.id == p.param]
        reachable = False
        for c, kw in fwd:
            f = c.func
            callee = f.id if isinstance(f, ast.Name) else (
                f.attr if isinstance(f, ast.Attribute) else "")
            for other in calls.get(callee, []):
                if other is c:
                    continue
                for k in other.keywords:
                    if k.arg != kw:
                        continue
                    v = _const(k.value)
                    own = owner.get(id(other))
                    if isinstance(k.value, ast.Name) and own and k.value.id in own[1]:
                        reachable |= (own[0], k.value.id) not in pinned
                    elif v is _NO_VALUE or repr(v) != p.value:
                        reachable = True
        if not reachable:
            out.append(p)
    return out
