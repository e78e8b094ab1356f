"""Exceptions swallowed into an ordinary value (#22, census row of sets 16, 18, 19 and
23): an ``except`` clause in the folder's library code whose handler turns a failure into
a value the function does not otherwise return - an implicit ``None`` by falling off the
end, an empty container, a constant - so the caller takes it as a result and fails later,
on that value, with no trace of the real cause (a dispatcher printing the error and
falling through; a version probe returning ``{}`` that the caller asserts on with a
generic message).

Counted for a handler when

- its function returns a computed value somewhere (a ``return`` of something other than
  ``None``, a constant or an empty container): callers expect a result;
- the handler, on some path, gives back an empty value - ``return`` of ``None``, a
  constant or an empty container (``{}``, ``[]``, ``()``, ``dict()``) - or, with the
  ``try`` the function's last statement and no ``finally``, ends without ``raise``,
  ``return``, ``continue`` or ``break`` (the function falls through to ``None``);
- that value is not one the function returns outside its handlers: a function that
  already returns ``None`` (or ``""``) for "no result" has callers that handle it, and
  the handler keeps that contract rather than disguising a failure.

Library code only: test files and scripts with a ``__main__`` block (a debug script's
pass/fail helpers) are left alone. A handler re-raising on every path is never counted,
one re-raising only on some (``if cond: return {}`` then ``raise``) is.

Pure: the HEAD tree in, one record per handler.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from agentops.scout import gitrepo
from agentops.scout.analyses import pysource as ps
from agentops.scout.config import is_test_code
from agentops.scout.model import Inputs

_MAX_FILE = gitrepo.MAX_PYTHON_CHARS
_EMPTY_CALLS = frozenset({"dict", "list", "set", "tuple", "str"})
_FALLS = "falls through to None"


@dataclass(frozen=True)
class Swallowed:
    file: str
    line: int      # the ``except`` line
    function: str
    caught: str    # the handler's exception type as written, ``bare`` for ``except:``
    gives: str     # ``returns `{}```, ``falls through to None``


def _empty(value: ast.expr | None) -> bool:
    if value is None or isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.Dict):
        return not value.keys
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return not value.elts
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
            and value.func.id in _EMPTY_CALLS and not value.args and not value.keywords)


def _key(value: ast.expr | None) -> str:
    return "None" if value is None else ast.unparse(value)


def _local(nodes: list[ast.stmt]) -> list[ast.AST]:
    """The nodes of ``nodes``, not entering nested functions, lambdas or classes."""
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    out: list[ast.AST] = []
    stack: list[ast.AST] = [n for n in nodes if not isinstance(n, nested)]
    while stack:
        node = stack.pop()
        out.append(node)
        stack += [c for c in ast.iter_child_nodes(node) if not isinstance(c, nested)]
    return out


def _ends(body: list[ast.stmt]) -> bool:
    """Whether every path through ``body`` leaves by raise, return, continue or break."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Raise, ast.Return, ast.Continue, ast.Break)):
        return True
    if isinstance(last, ast.If):
        return _ends(last.body) and _ends(last.orelse)
    return False


def _function(fn: ast.FunctionDef | ast.AsyncFunctionDef, path: str) -> list[Swallowed]:
    nodes = _local(fn.body)
    handlers = [h for t in nodes if isinstance(t, ast.Try) for h in t.handlers]
    inside = {id(n) for h in handlers for n in _local(h.body)}
    returns = [n for n in nodes if isinstance(n, ast.Return)]
    if not any(not _empty(r.value) for r in returns):
        return []
    # Values the function gives back outside its handlers: its own "no result".
    ordinary = {_key(r.value) for r in returns if id(r) not in inside}
    out: list[Swallowed] = []
    for tr in nodes:
        if not isinstance(tr, ast.Try):
            continue
        for h in tr.handlers:
            gives = ""
            for r in _local(h.body):
                if isinstance(r, ast.Return) and _empty(r.value) \
                        and _key(r.value) not in ordinary:
                    gives = f"returns `{_key(r.value)}`"
                    break
            if not gives and tr is fn.body[-1] and not tr.finalbody \
                    and not _ends(h.body) and "None" not in ordinary:
                gives = _FALLS
            if gives:
                caught = ast.unparse(h.type) if h.type is not None else "bare"
                out.append(Swallowed(path, h.lineno, fn.name, caught, gives))
    return out


def handlers(mod: ast.Module | None, path: str) -> list[Swallowed]:
    """Every handler of the module's functions that swallows a failure into a value."""
    if mod is None or ps.has_main_block(mod):
        return []
    out: list[Swallowed] = []
    for fn in ast.walk(mod):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out += _function(fn, path)
    return sorted(out, key=lambda s: s.line)


def analyse(inp: Inputs) -> list[Swallowed]:
    sub = inp.target.subproject.rstrip("/")
    if not sub:
        return []
    files = inp.head.files
    found: list[Swallowed] = []
    for path in sorted(files):
        if not (path.startswith(sub + "/") and path.endswith(".py")) or is_test_code(path):
            continue
        text = files[path]
        if not text or len(text) > _MAX_FILE or "except" not in text:
            continue
        found += handlers(ps.parse(text), path)
    return found
