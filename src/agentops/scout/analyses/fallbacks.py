"""A derived value computed where the rest of the sub-project honours an explicit
setting first (#22, copies that lag): ``head_dim = attn.head_dim or dim // n_heads``
in one place, a bare ``dim // n_heads`` in another (a FLOP count, a shape) that ignores
the configured ``head_dim``. When a change teaches some code to prefer an explicit
field over a derivation, the derivation left elsewhere is a value that is wrong for
every configuration that sets the field.

An expression is compared by its shape: the operator and the last name of each operand
(``self.dim // self.layers[0].attention.n_heads`` is ``dim // n_heads``). A bare use is
reported only when it reads an object's attributes (a config, which can carry the
setting; locals are the function's own choice) and its function never reads the field
at all (a function that reads ``head_dim`` somewhere has made its choice). An
Opportunity, never an action.

Pure: the sub-project's sources in, ``IgnoredSetting`` records out.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.commentrefs import own_sources
from agentops.scout.model import Inputs

MAX_FINDINGS = 10


@dataclass(frozen=True)
class IgnoredSetting:
    file: str
    line: int
    function: str
    expr: str  # the bare derivation, unparsed
    field: str  # the setting the other code prefers
    honoured: tuple[str, ...]  # file:line of the code that prefers it


def _leaf(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _shape(node: ast.AST) -> tuple[str, str, str] | None:
    if isinstance(node, ast.BinOp) and _leaf(node.left) and _leaf(node.right):
        return type(node.op).__name__, _leaf(node.left), _leaf(node.right)
    return None


def _fallbacks(mod: ast.AST) -> list[tuple[str, ast.BinOp]]:
    """(field, derivation) for ``x.field or derivation`` and
    ``x.field if x.field is not None else derivation``."""
    out: list[tuple[str, ast.BinOp]] = []
    for n in ps.walk(mod):
        if isinstance(n, ast.BoolOp) and isinstance(n.op, ast.Or) and len(n.values) == 2:
            first, second = n.values
            if _leaf(first) and isinstance(second, ast.BinOp):
                out.append((_leaf(first), second))
        elif isinstance(n, ast.IfExp) and isinstance(n.orelse, ast.BinOp) and _leaf(n.body):
            tested = {_leaf(x) for x in ast.walk(n.test)}
            if _leaf(n.body) in tested:
                out.append((_leaf(n.body), n.orelse))
    return out


def _functions(mod: ast.Module) -> list[tuple[str, ast.AST]]:
    out: list[tuple[str, ast.AST]] = []
    stack: list[tuple[str, ast.AST]] = [("", mod)]
    while stack:
        prefix, node = stack.pop()
        for child in getattr(node, "body", []):
            if isinstance(child, ast.ClassDef):
                stack.append((f"{prefix}{child.name}.", child))
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((f"{prefix}{child.name}", child))
    return out


def analyse(inp: Inputs) -> list[IgnoredSetting]:
    sub = inp.target.subproject.rstrip("/") + "/"
    funcs: list[tuple[str, str, ast.AST]] = []
    preferred: dict[tuple[str, str, str], tuple[str, set[str]]] = {}
    guarded: set[int] = set()
    for path, text in own_sources(inp.head.files, sub):
        mod = ps.parse(text)
        if mod is None:
            continue
        funcs += [(path, name, fn) for name, fn in _functions(mod)]
        if " or " not in text and " else " not in text:
            continue
        for field, derived in _fallbacks(mod):
            shape = _shape(derived)
            if shape is None or field in shape[1:]:
                continue
            preferred.setdefault(shape, (field, set()))[1].add(f"{path}:{derived.lineno}")
            guarded.add(id(derived))
    if not preferred:
        return []
    out: list[IgnoredSetting] = []
    for path, name, fn in sorted(funcs, key=lambda f: (f[0], f[2].lineno)):
        reads: set[str] | None = None
        hits: list[ast.BinOp] = []
        for n in ps.walk(fn):
            if not isinstance(n, ast.BinOp):
                continue
            shape = _shape(n)
            if shape is None or shape not in preferred or id(n) in guarded:
                continue
            # Only a derivation read off an object that can carry the setting (a
            # config): one of a function's own locals (a flavor choosing its sizes)
            # is that function's choice.
            if not any(isinstance(x, ast.Attribute) for x in (n.left, n.right)):
                continue
            if reads is None:
                reads = {_leaf(x) for x in ps.walk(fn)}
            if preferred[shape][0] not in reads:
                hits.append(n)
        if hits:
            n = min(hits, key=lambda h: (h.lineno, h.col_offset))
            field, where = preferred[_shape(n)]  # type: ignore[index]
            out.append(IgnoredSetting(path, n.lineno, name, ast.unparse(n), field,
                                      tuple(sorted(where))))
            if len(out) >= MAX_FINDINGS:
                return out
    return out
