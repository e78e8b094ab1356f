"""Where the sub-project's code refers to a name, by AST: attribute access
(``cfg.training.steps``), keyword arguments (``steps=``), string keys (``d["steps"]``,
``d.get("steps")``, ``getattr(x, "steps")``), imports, calls and op references
(``torch.ops.aten.mm.default``); and which names the sub-project defines itself (its
own fields, attributes, functions, classes, parameters), which are never references
to an upstream symbol.

One walk per file, shared by every analysis (cached on the tree). Pure: reads the
loaded tree; never a text match.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs

_OP_ROOTS = ("aten", "_c10d_functional", "c10d_functional", "prims")


@dataclass
class RefIndex:
    """Name → ``file:line`` of the sub-project's references, and its own names."""

    attrs: dict[str, list[str]] = field(default_factory=dict)
    keywords: dict[str, list[str]] = field(default_factory=dict)
    strings: dict[str, list[str]] = field(default_factory=dict)
    imports: dict[str, list[str]] = field(default_factory=dict)  # imported name
    defined: set[str] = field(default_factory=set)
    functions: dict[str, list[str]] = field(default_factory=dict)  # def name → file:line
    calls: set[str] = field(default_factory=set)  # called names (last part)
    # attribute → (the name it is read from, file:line): ``parallelism.x`` → parallelism
    owners: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    ops: set[str] = field(default_factory=set)  # "aten.mm.default"
    files: int = 0

    def uses(self, name: str, *, own_ok: bool = False) -> list[str]:
        """``file:line`` of references to ``name`` as a field or attribute; none when
        the sub-project defines a name of its own by that name (unless ``own_ok``)."""
        if name in self.defined and not own_ok:
            return []
        found = self.attrs.get(name, []) + self.keywords.get(name, []) \
            + self.strings.get(name, [])
        return sorted(set(found), key=_order)

    def imported(self, name: str) -> list[str]:
        return sorted(set(self.imports.get(name, [])), key=_order)

    def calls_or_overrides(self, name: str) -> list[str]:
        """``file:line`` where a method ``name`` is used (attribute, import) or
        defined (an override must keep matching the upstream signature)."""
        found = self.attrs.get(name, []) + self.imports.get(name, []) \
            + self.functions.get(name, [])
        return sorted(set(found), key=_order)

    def reads(self, section: str, name: str) -> list[str]:
        """``file:line`` of ``<…section…>.name`` reads (``parallelism.x``,
        ``cfg.parallelism.x``, ``parallelism_config.x``): a field read through its
        config section, not any attribute that happens to share the name."""
        return sorted({loc for owner, loc in self.owners.get(name, [])
                       if section in owner.lower()}, key=_order)

    def include(self, other: RefIndex) -> None:
        for name in ("attrs", "keywords", "strings", "imports", "functions", "owners"):
            mine, theirs = getattr(self, name), getattr(other, name)
            for k, v in theirs.items():
                mine.setdefault(k, []).extend(v)
        self.defined |= other.defined
        self.calls |= other.calls
        self.ops |= other.ops
        self.files += other.files


def _order(loc: str) -> tuple[str, int]:
    path, _, line = loc.rpartition(":")
    return path, int(line) if line.isdigit() else 0


def _add(table: dict[str, list[str]], name: str, loc: str) -> None:
    table.setdefault(name, []).append(loc)


def index(inp: Inputs, *, include_tests: bool = True) -> RefIndex:
    """The reference index of the sub-project at HEAD (per-file scans cached on the
    tree; the test folder left out when ``include_tests`` is false)."""
    key = ("refs", include_tests)
    cache = inp.head.cache
    if key in cache:
        return cache[key]
    per_file: dict[str, RefIndex] = cache.setdefault("refs-files", {})
    sub = inp.target.subproject + "/"
    tests = inp.target.tests_dir + "/"
    out = RefIndex()
    for path in sorted(inp.head.files):
        if not (path.startswith(sub) and path.endswith(".py")):
            continue
        if not include_tests and path.startswith(tests):
            continue
        if path not in per_file:
            mod = ps.parse(inp.head.files[path])
            one = RefIndex()
            if mod is not None:
                one.files = 1
                _scan(mod, path, one)
            per_file[path] = one
        out.include(per_file[path])
    cache[key] = out
    return out


def op_chain(node: ast.Attribute) -> str:
    """``torch.ops.aten.mm.default`` → ``aten.mm.default``; "" when not an op."""
    parts: list[str] = []
    cur: ast.expr = node
    while isinstance(cur, ast.Attribute):
        parts.append(cur.attr)
        cur = cur.value
        if len(parts) > 6:
            return ""
    if not isinstance(cur, ast.Name):
        return ""
    parts.append(cur.id)
    parts.reverse()
    if parts[:2] == ["torch", "ops"]:
        parts = parts[2:]
    if len(parts) < 2 or parts[0] not in _OP_ROOTS or len(parts) > 3:
        return ""
    return ".".join(parts)


def _scan(mod: ast.Module, path: str, out: RefIndex) -> None:
    for node in ps.nodes(mod):
        if isinstance(node, ast.Attribute):
            if isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name) \
                    and node.value.id in ("self", "cls"):
                out.defined.add(node.attr)  # self.x = …: an attribute of its own
            else:
                loc = f"{path}:{node.lineno}"
                _add(out.attrs, node.attr, loc)
                owner = node.value.id if isinstance(node.value, ast.Name) else (
                    node.value.attr if isinstance(node.value, ast.Attribute) else "")
                if owner:
                    out.owners.setdefault(node.attr, []).append((owner, loc))
                if isinstance(node.value, ast.Attribute):
                    op = op_chain(node)
                    if op:
                        out.ops.add(op)
        elif isinstance(node, ast.keyword) and node.arg:
            _add(out.keywords, node.arg, f"{path}:{getattr(node, 'lineno', 0)}")
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, str):
            _add(out.strings, node.slice.value, f"{path}:{node.lineno}")
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else (
                func.attr if isinstance(func, ast.Attribute) else "")
            if name:
                out.calls.add(name)
            if name == "add_argument":
                out.defined |= _argparse_dests(node)  # its own options, not upstream's
            if node.args:
                _call_string(node, path, out)
        elif isinstance(node, (ast.ImportFrom, ast.Import)):
            for alias in node.names:
                _add(out.imports, alias.name.rsplit(".", 1)[-1], f"{path}:{node.lineno}")
        elif isinstance(node, ast.ClassDef):
            out.defined.add(node.name)
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    out.defined.add(stmt.target.id)
                elif isinstance(stmt, ast.Assign):
                    out.defined |= {t.id for t in stmt.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ps.FuncDef):
            out.defined.add(node.name)
            _add(out.functions, node.name, f"{path}:{node.lineno}")
            out.defined |= set(p.lstrip("*") for p in ps.param_names(node))


def _argparse_dests(node: ast.Call) -> set[str]:
    """``parser.add_argument("--max-steps", dest=…)`` → the attribute it defines."""
    for k in node.keywords:
        if k.arg == "dest" and isinstance(k.value, ast.Constant) \
                and isinstance(k.value.value, str):
            return {k.value.value}
    flags = [a.value for a in node.args if isinstance(a, ast.Constant)
             and isinstance(a.value, str)]
    longs = [f for f in flags if f.startswith("--")]
    pick = longs[0] if longs else (flags[0] if flags else "")
    return {pick.lstrip("-").replace("-", "_")} if pick else set()


def _call_string(node: ast.Call, path: str, out: RefIndex) -> None:
    """``getattr(x, "name")`` / ``d.get("name")`` / ``d.pop("name")``."""
    func = node.func
    if isinstance(func, ast.Name) and func.id in ("getattr", "hasattr", "setattr") \
            and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
            and isinstance(node.args[1].value, str):
        _add(out.strings, node.args[1].value, f"{path}:{node.lineno}")
    elif isinstance(func, ast.Attribute) and func.attr in ("get", "pop", "setdefault") \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        _add(out.strings, node.args[0].value, f"{path}:{node.lineno}")
