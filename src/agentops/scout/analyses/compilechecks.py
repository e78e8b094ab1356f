"""Runtime checks inside compiled forwards (#22, model folders): a call to an
``assert*`` / ``check*`` function that the window added to a ``forward`` method of the
sub-project, while the sub-project compiles its model (``torch.compile`` or a
``*compile*`` helper) and nothing in that forward asks whether it is being traced
(``is_compiling`` / ``is_dynamo_compiling``); a check under a condition that asks
for an opt-in checking or debug mode (``if spmd.is_type_checking():``) is meant to run
only when asked for and is left alone. Dynamo traces such a check into the graph
or breaks on it; whether it works under compile is a question a reviewer asks of the
change, so it is an Opportunity, never an action.

Pure: the two trees' texts in, frozen records out.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs

_TRACING = ("is_compiling", "is_dynamo_compiling", "is_torchdynamo_compiling")


@dataclass(frozen=True)
class CompiledCheck:
    file: str
    line: int
    cls: str
    call: str  # the check's dotted name as written


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else node.attr
    return ""


def _opt_in(test: ast.expr) -> bool:
    """A condition that asks for a debugging/type-checking mode the user turns on:
    checks under it are meant to run only when asked for."""
    return any(isinstance(n, ast.Call) and any(
        w in _dotted(n.func).rsplit(".", 1)[-1].lower() for w in ("checking", "debug"))
        for n in ast.walk(test))


def _checks(fn: ps.FuncDef) -> list[tuple[int, str]]:
    out = []
    gated = {id(c) for n in ps.walk(fn) if isinstance(n, ast.If) and _opt_in(n.test)
             for stmt in n.body for c in ast.walk(stmt)}
    for n in ps.walk(fn):
        if isinstance(n, ast.Call) and id(n) not in gated:
            name = _dotted(n.func)
            leaf = name.rsplit(".", 1)[-1]
            if leaf.startswith(("assert", "check")) and leaf not in ("assert_", "checkpoint"):
                out.append((n.lineno, name))
    return out


def _forwards(text: str | None) -> dict[str, ps.FuncDef]:
    mod = ps.parse(text or "")
    out: dict[str, ps.FuncDef] = {}
    for cls in (mod.body if mod else []):
        if isinstance(cls, ast.ClassDef):
            for fn in cls.body:
                if isinstance(fn, ps.FuncDef.__args__) and fn.name == "forward":
                    out[cls.name] = fn
    return out


def _compiles(inp: Inputs, sub: str) -> bool:
    for path, text in inp.head.files.items():
        if not (path.startswith(sub) and path.endswith(".py")) or "/tests/" in path:
            continue
        if "compile" not in text:
            continue
        mod = ps.parse(text)
        names = [_dotted(n.func) for n in ps.walk(mod or ast.Module(body=[],
                                                                        type_ignores=[]))
                 if isinstance(n, ast.Call)]
        if any(n == "torch.compile" or (n.startswith("apply") and "compile" in n)
               for n in names):
            return True
    return False


def analyse(inp: Inputs) -> list[CompiledCheck]:
    if inp.base is None:
        return []
    sub = inp.target.subproject + "/"
    found: list[CompiledCheck] = []
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")) or "/tests/" in path \
                or "forward" not in text:
            continue
        before = _forwards(inp.base.text(path))
        for cls, fn in _forwards(text).items():
            if any(t in _dotted(n.func) for n in ps.walk(fn) if isinstance(n, ast.Call)
                   for t in _TRACING):
                continue  # the forward already separates tracing from eager
            old = {name for _l, name in _checks(before[cls])} if cls in before else set()
            found += [CompiledCheck(path, line, cls, name) for line, name in _checks(fn)
                      if name not in old]
    found.sort(key=lambda c: (c.file, c.line))
    return found if found and _compiles(inp, sub) else []
