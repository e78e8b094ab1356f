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
from collections import Counter
from dataclasses import dataclass

from agentops.scout.analyses import callsites
from agentops.scout.model import Inputs


@dataclass(frozen=True)
class DeadParam:
    file: str
    line: int
    function: str
    params: tuple[str, ...]
    calls: int


def analyse(inp: Inputs) -> list[DeadParam]:
    # Undecorated module-level functions only: a decorated one may be registered and
    # called by a framework. Private helpers count too (their callers are all in the
    # sub-project, so a default none of them sets is certainly never set). A name
    # looked up as a string (a registry key, getattr) is a use too.
    scanned = callsites.scan(
        inp, lambda node: not (node.name.startswith("__") and node.name.endswith("__"))
        and not node.decorator_list,
        strings_refer=True)
    defs, calls, referenced = scanned.defs, scanned.calls, scanned.referenced
    test_texts = scanned.test_texts
    # Any call setting that keyword (``partial(fn, dyn_map=…)`` included) may set it.
    # A call inside the function that forwards its own parameter (``x=x``) sets
    # nothing new: it is not counted for that function.
    set_by_kw = Counter(k.arg for cs in calls.values() for c in cs for k in c.keywords)
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
        forwards = Counter(k.arg for c in ast.walk(fn) if isinstance(c, ast.Call)
                           for k in c.keywords if isinstance(k.value, ast.Name)
                           and k.value.id == k.arg)
        dead = tuple(p for p in with_default if set_by_kw[p] <= forwards[p]
                     and not (p in pos and pos.index(p) < reach))
        tests_text = "\n".join(t for t in test_texts if name in t)
        dead = tuple(p for p in dead if not re.search(rf"\b{re.escape(p)}\s*=(?!=)",
                                                      tests_text))
        if dead:
            out.append(DeadParam(path, fn.lineno, name, dead, len(sites)))
    return out
