"""Dead parameters (#22 defect 8): a parameter with a default of one of the
sub-project's own functions that no call in the sub-project (its tests included) ever
sets — by keyword, by position, or through ``*args``/``**kwargs`` — while the function
is called: a knob no caller can turn, often left behind by a copy of an upstream
function whose callers changed.

Pure: parsed sources in, frozen records out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs


@dataclass(frozen=True)
class DeadParam:
    file: str
    line: int
    function: str
    params: tuple[str, ...]
    calls: int


def analyse(inp: Inputs) -> list[DeadParam]:
    sub = inp.target.subproject + "/"
    tests = inp.target.tests_dir + "/"
    defs: dict[str, list[tuple[str, ps.FuncDef]]] = {}
    calls: dict[str, list[ast.Call]] = {}
    referenced: set[str] = set()  # passed around as a value: callers we cannot see
    test_texts: list[str] = []
    for path, text in sorted(inp.head.files.items()):
        if not ((path.startswith(sub) or path.startswith(tests)) and path.endswith(".py")):
            continue
        if path.startswith(tests) or "/tests/" in path:
            # Tests are read as text (walking large test modules costs more than all the
            # rest): a keyword a test passes makes the parameter settable.
            test_texts.append(text)
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        if path.startswith(sub) and "/tests/" not in path:
            for node in mod.body:
                # A decorated function may be registered and called by a framework.
                if isinstance(node, ps.FuncDef.__args__) and not node.name.startswith("_") \
                        and not node.decorator_list:
                    defs.setdefault(node.name, []).append((path, node))
        called_ids: set[int] = set()
        loads: list[ast.Name] = []
        for node in ps.walk(mod):
            if isinstance(node, ast.Call):
                name = node.func.id if isinstance(node.func, ast.Name) else (
                    node.func.attr if isinstance(node.func, ast.Attribute) else "")
                if name:
                    calls.setdefault(name, []).append(node)
                called_ids.add(id(node.func))
            elif isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx,
                                                                          ast.Load):
                loads.append(node)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and node.value.isidentifier():
                referenced.add(node.value)  # looked up by name (a registry key, getattr)
        # A name used other than by calling it (in a list of passes, a registry, an
        # argument, ``module.fn`` handed on): called from places this scan cannot see.
        referenced |= {n.id if isinstance(n, ast.Name) else n.attr for n in loads
                       if id(n) not in called_ids}
    # Any call setting that keyword (``partial(fn, dyn_map=…)`` included) may set it.
    set_by_kw = {k.arg for cs in calls.values() for c in cs for k in c.keywords}
    out = []
    for name, found in sorted(defs.items()):
        if len(found) != 1 or name not in calls or name in referenced:
            continue  # ambiguous, never called (an entry point), or handed to a framework
        path, fn = found[0]
        sites = calls[name]
        if any(isinstance(a, ast.Starred) for c in sites for a in c.args) or any(
                k.arg is None for c in sites for k in c.keywords):
            continue
        a = fn.args
        pos = [p.arg for p in (*a.posonlyargs, *a.args)]
        with_default = pos[len(pos) - len(a.defaults):] + [
            p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None]
        reach = max(len(c.args) for c in sites)
        dead = tuple(p for p in with_default if p not in set_by_kw
                     and not (p in pos and pos.index(p) < reach))
        tests_text = "\n".join(t for t in test_texts if name in t)
        dead = tuple(p for p in dead if not re.search(rf"\b{re.escape(p)}\s*=(?!=)",
                                                      tests_text))
        if dead:
            out.append(DeadParam(path, fn.lineno, name, dead, len(sites)))
    return out
