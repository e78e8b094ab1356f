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

A second kind of preference (round sc-fit21a, census row of sets 4, 15 and 21): a class
of the same module declares the field with a value of its own (``head_dim: int = 128``
in the body, ``self.head_dim = v`` in a method, ``v`` no arithmetic), and the field's
name is one unit's share of what the floor division derives: its last two parts are the
divisor's unit and the dividend's last part (``head_dim``, ``qk_rope_head_dim`` for
``dim // n_heads``; ``group_size`` for ``size // num_groups``). The model then sizes
that share on its own, and a copied ``dim // n_heads`` (a FLOP count written for a model
where it holds) is wrong for every flavor whose heads are sized otherwise.

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
    honoured: tuple[str, ...]  # file:line of the code that prefers it (or declares it)
    declared: bool = False  # a class of the module declares it (no fallback code)


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


def _declared(mod: ast.Module) -> dict[str, int]:
    """Field -> line for what the module's classes declare with a value of their own:
    ``x: int = 64`` in a class body, ``self.x = v`` in a method (``v`` no arithmetic)."""
    out: dict[str, int] = {}
    for cls in (n for n in ps.walk(mod) if isinstance(n, ast.ClassDef)):
        for n in cls.body:
            if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) \
                    and n.value is not None and not isinstance(n.value, ast.BinOp):
                out.setdefault(n.target.id, n.lineno)
        for fn in cls.body:
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for n in ps.walk(fn):
                if isinstance(n, ast.Assign) and not isinstance(n.value, ast.BinOp):
                    for target in n.targets:
                        chain = ps.name_chain(target)
                        if len(chain) == 2 and chain[0] == "self":
                            out.setdefault(chain[1], n.lineno)
    return out


def _per_unit(field: str, shape: tuple[str, str, str]) -> bool:
    """``head_dim`` is one unit's share of ``dim // n_heads``: the field's last two parts
    are the divisor's unit (singular) and the dividend's last part."""
    op, left, right = shape
    parts = field.split("_")
    unit = right.split("_")[-1]
    unit = unit[:-1] if unit.endswith("s") else unit
    whole = left.split("_")[-1]
    return op == "FloorDiv" and len(parts) >= 2 and parts[-1] == whole \
        and parts[-2] == unit and unit != whole


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
    declared: dict[str, dict[str, int]] = {}  # path -> field -> line
    for path, text in own_sources(inp.head.files, sub):
        mod = ps.parse(text)
        if mod is None:
            continue
        funcs += [(path, name, fn) for name, fn in _functions(mod)]
        if "//" in text:
            declared[path] = _declared(mod)
        if " or " not in text and " else " not in text:
            continue
        for field, derived in _fallbacks(mod):
            shape = _shape(derived)
            if shape is None or field in shape[1:]:
                continue
            preferred.setdefault(shape, (field, set()))[1].add(f"{path}:{derived.lineno}")
            guarded.add(id(derived))
    if not preferred and not any(declared.values()):
        return []
    out: list[IgnoredSetting] = []
    for path, name, fn in sorted(funcs, key=lambda f: (f[0], f[2].lineno)):
        reads: set[str] | None = None
        hits: list[ast.BinOp] = []
        # derivation -> (the declared per-unit fields, sorted; where they are declared)
        own: dict[int, tuple[list[str], set[str]]] = {}
        for n in ps.walk(fn):
            if not isinstance(n, ast.BinOp):
                continue
            shape = _shape(n)
            if shape is None or id(n) in guarded:
                continue
            if shape not in preferred:
                fields = sorted(f for f in declared.get(path, {}) if _per_unit(f, shape))
                if not fields:
                    continue
                own[id(n)] = (fields, {f"{path}:{declared[path][f]}" for f in fields})
            # Only a derivation read off an object that can carry the setting (a
            # config): one of a function's own locals (a flavor choosing its sizes)
            # is that function's choice.
            if not any(isinstance(x, ast.Attribute) for x in (n.left, n.right)):
                continue
            if reads is None:
                reads = {_leaf(x) for x in ps.walk(fn)}
            if id(n) in own:
                if not reads.intersection(own[id(n)][0]):
                    hits.append(n)
            elif preferred[shape][0] not in reads:
                hits.append(n)
        if hits:
            n = min(hits, key=lambda h: (h.lineno, h.col_offset))
            if id(n) in own:
                field, where = own[id(n)][0][0], own[id(n)][1]
            else:
                field, where = preferred[_shape(n)]  # type: ignore[index]
            out.append(IgnoredSetting(path, n.lineno, name, ast.unparse(n), field,
                                      tuple(sorted(where)), id(n) in own))
            if len(out) >= MAX_FINDINGS:
                return out
    return out
