"""The sub-project's own functions and every call to them, as the parameter checks
(``deadparams``, ``pinnedparams``) read them: one scan of the sub-project and its tests.

Pure: parsed sources in, a frozen record out.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs


@dataclass(frozen=True)
class CallSites:
    # Module-level definitions the caller asked for, by name: (file, node) each.
    defs: dict[str, list[tuple[str, ps.FuncDef]]]
    # Every call in the sub-project, by the called name (``f(…)`` and ``x.f(…)``).
    calls: dict[str, list[ast.Call]]
    # Names used other than by calling them (handed on as a value, put in a registry):
    # called from places this scan cannot see.
    referenced: set[str]
    # Test modules, kept as text: walking large test modules costs more than all the
    # rest, and a keyword a test passes is found by a text search.
    test_texts: list[str]


def scan(inp: Inputs, wanted: Callable[[ast.AST], bool], *,
         strings_refer: bool = False) -> CallSites:
    """Definitions at module level for which ``wanted`` holds, and the calls and value
    uses of every name. With ``strings_refer``, a string constant that is an identifier
    also counts as a use (a registry key, ``getattr``)."""
    sub = inp.target.subproject + "/"
    tests = inp.target.tests_dir + "/"
    defs: dict[str, list[tuple[str, ps.FuncDef]]] = {}
    calls: dict[str, list[ast.Call]] = {}
    referenced: set[str] = set()
    test_texts: list[str] = []
    for path, text in sorted(inp.head.files.items()):
        if not ((path.startswith(sub) or path.startswith(tests)) and path.endswith(".py")):
            continue
        if path.startswith(tests) or "/tests/" in path:
            test_texts.append(text)
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        for node in mod.body:
            if isinstance(node, ps.FuncDef.__args__) and wanted(node):
                defs.setdefault(node.name, []).append((path, node))
        called_ids: set[int] = set()
        loads: list[ast.Name | ast.Attribute] = []
        for node in ps.walk(mod):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else (
                    f.attr if isinstance(f, ast.Attribute) else "")
                if name:
                    calls.setdefault(name, []).append(node)
                called_ids.add(id(f))
            elif isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx,
                                                                          ast.Load):
                loads.append(node)
            elif strings_refer and isinstance(node, ast.Constant) \
                    and isinstance(node.value, str) and node.value.isidentifier():
                referenced.add(node.value)
        referenced |= {n.id if isinstance(n, ast.Name) else n.attr for n in loads
                       if id(n) not in called_ids}
    return CallSites(defs, calls, referenced, test_texts)
