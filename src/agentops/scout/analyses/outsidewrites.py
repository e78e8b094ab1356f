"""Writes into state outside the folder, process-wide (#22, census row of sets 18-20):
an assignment in the sub-project's library code whose target is reached from a name
bound by an import of a module outside the folder (``torch._inductor.config.flag =``,
``Library.method = replacement``, ``Class._registry[key] = fn``, ``setattr(mod, "f",
g)``), so every later user of that module or class in the process sees the change,
not only the folder's model.

Counted when the write replaces behaviour (the value is a function or class of the
same file, a lambda, or a call built from the original it replaces: a wrapper) or
reaches private state (a ``_``-prefixed part on the way, which the owner may change
without notice). A public flag set to a value (``torch.backends.cudnn.benchmark =
True``, ``os.environ[k] = v``) is the owner's documented switch and is left alone, as
are writes that are put back from a saved original in the same file (a scoped patch:
an original of the same name read from the import, held in a name, on ``self`` or read
by ``getattr``, also when put back under two aliases of the patched name), test files
and ``conftest.py``, entry-point scripts (a module with a ``__main__`` block owns its
process), and a write the repository's own library code outside the folder makes to
the same target (the project's convention for that switch, not this folder's choice).
Writes through objects reached by calls or parameters (also a parameter spelled like an
import) are not followed.

Pure: parsed sources in, frozen records out; each file parsed once, at most
``_MAX_FILE`` characters read.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout import gitrepo
from agentops.scout.analyses import pysource as ps
from agentops.scout.config import is_test_code
from agentops.scout.model import Inputs

# The tree loader's own cap: a test-built tree is held to what a real checkout holds.
_MAX_FILE = gitrepo.MAX_PYTHON_CHARS


@dataclass(frozen=True)
class OutsideWrite:
    line: int
    target: str  # the written name, its import resolved (``torch._inductor.config.x``)
    replaces: bool  # the value is behaviour (a function, a wrapper), not data
    private: bool  # a ``_``-prefixed part on the way


@dataclass(frozen=True)
class OutsideWrites:
    file: str
    writes: tuple[OutsideWrite, ...]


def _private(parts: list[str]) -> bool:
    return any(p.startswith("_") and not (p.startswith("__") and p.endswith("__"))
               for p in parts)


def _shadows(stmts: list[ast.stmt], imported: dict[str, tuple[str, str]]
             ) -> list[tuple[int, int, set[str]]]:
    """Line spans of the functions with a parameter spelled like an imported name, and
    those names: inside, the name is a local object, not the import."""
    out: list[tuple[int, int, set[str]]] = []
    for f in stmts:
        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names = imported.keys() & set(ps.param_names(f))
            if names:
                out.append((f.lineno, f.end_lineno or f.lineno, names))
    return out


def _replaces(value: ast.expr | None, written: str, defined: set[str]) -> bool:
    """The value is behaviour: a function or class of this file, a lambda, or a call
    that takes the original it replaces (``wrap(X.f)``)."""
    if value is None:
        return False
    if isinstance(value, ast.Lambda):
        return True
    if isinstance(value, ast.Name):
        return value.id in defined
    if isinstance(value, ast.Call):
        return any(isinstance(n, ast.Attribute) and ast.unparse(n) == written
                   for n in ast.walk(value))
    return False


def _targets(stmt: ast.stmt) -> list[tuple[ast.expr, ast.expr | None]]:
    node: ast.AST = stmt.value if isinstance(stmt, ast.Expr) else stmt
    if isinstance(node, ast.Assign):
        return [(t, node.value) for t in node.targets]
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
        return [(node.target, node.value)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id == "setattr" and len(node.args) == 3 \
            and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
        return [(ast.Attribute(value=node.args[0], attr=node.args[1].value, ctx=ast.Store()),
                 node.args[2])]
    return []


def _saved(stmts: list[ast.stmt], imported: dict[str, tuple[str, str]]
           ) -> dict[str, str]:
    """Holders of an original read from an import, to the attribute name read:
    ``orig = X.f``, ``self._orig = X.f`` or ``orig = getattr(X, "f")`` -> {holder: "f"}
    (a local value such as ``dim = args.dim`` is no original: ``args`` is not imported)."""
    out: dict[str, str] = {}
    for n in stmts:
        if not isinstance(n, ast.Assign):
            continue
        read = ps.name_chain(n.value)
        if isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name) \
                and n.value.func.id == "getattr" and len(n.value.args) == 2 \
                and isinstance(n.value.args[1], ast.Constant) \
                and isinstance(n.value.args[1].value, str):
            head = ps.name_chain(n.value.args[0])
            read = [*head, n.value.args[1].value] if head else []
        if len(read) < 2 or read[0] not in imported:
            continue
        for t in n.targets:
            if ps.name_chain(t):
                out[ast.unparse(t)] = read[-1]
    return out


def file_writes(mod: ast.Module, own_module: str) -> list[OutsideWrite]:
    """The counted writes of one parsed module (see the module docstring)."""
    imported = ps.imports(mod)
    stmts = ps.statements(mod)
    defined = {n.name for n in stmts
               if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    saved = _saved(stmts, imported)
    shadows = _shadows(stmts, imported)
    found: list[tuple[int, str, str, bool, bool]] = []
    restored: set[str] = set()
    for stmt in stmts:
        for target, value in _targets(stmt):
            item = isinstance(target, ast.Subscript)
            base = target.value if isinstance(target, ast.Subscript) else target
            parts = ps.name_chain(base)
            if not parts or (len(parts) < 2 and not item) or parts[0] not in imported:
                continue
            if any(a <= stmt.lineno <= b and parts[0] in names for a, b, names in shadows):
                continue
            module, name = imported[parts[0]]
            if module == own_module or module.startswith(own_module + "."):
                continue
            written = ".".join(parts)
            holder = ast.unparse(value) if value is not None and ps.name_chain(value) else ""
            if saved.get(holder) == parts[-1]:  # an original of the same name put back
                restored.add(written)
                continue
            full = [*module.split("."), *([name] if name else []), *parts[1:]]
            resolved = ".".join(full) + ("[...]" if item else "")
            found.append((stmt.lineno, written, resolved, _replaces(value, written, defined),
                          _private(full)))
    out = {OutsideWrite(line, resolved, rep, priv)
           for line, written, resolved, rep, priv in found
           if written not in restored and (rep or priv)}
    return sorted(out, key=lambda w: (w.line, w.target))


def _elsewhere(inp: Inputs, sub: str, targets: set[str]) -> set[str]:
    """The targets that library code outside the folder writes too: only files whose
    text assigns to one of the targets' last names are parsed."""
    last = {t.removesuffix("[...]").rsplit(".", 1)[-1] for t in targets}
    spot = re.compile(r"\.(?:" + "|".join(map(re.escape, sorted(last)))
                      + r")\s*(?:\[[^\n]*\])?\s*(?://|\*\*|<<|>>|[-+*/%@&|^])?=(?!=)"
                      r"|\bsetattr\(")  # every augmented operator file_writes counts
    found: set[str] = set()
    for path in sorted(inp.head.files):
        if path.startswith(sub + "/") or not path.endswith(".py") or is_test_code(path):
            continue
        text = inp.head.files[path]
        if not text or len(text) > _MAX_FILE or not spot.search(text):
            continue
        mod = ps.parse(text)
        if mod is None or ps.has_main_block(mod):
            continue
        own = ps.module_name(path)
        found |= {w.target for w in file_writes(mod, own)} & targets
        if found == targets:
            break
    return found


def analyse(inp: Inputs) -> list[OutsideWrites]:
    sub = inp.target.subproject.rstrip("/")
    own_module = sub.replace("/", ".")
    per_file: list[tuple[str, list[OutsideWrite]]] = []
    for path in sorted(inp.head.files):
        if not (path.startswith(sub + "/") and path.endswith(".py")) or is_test_code(path):
            continue
        text = inp.head.files[path]
        if not text or len(text) > _MAX_FILE or ("=" not in text and "setattr" not in text):
            continue
        mod = ps.parse(text)
        if mod is None or ps.has_main_block(mod):
            continue
        writes = file_writes(mod, own_module)
        if writes:
            per_file.append((path, writes))
    if not per_file:
        return []
    common = _elsewhere(inp, sub, {w.target for _p, ws in per_file for w in ws})
    out: list[OutsideWrites] = []
    for path, writes in per_file:
        kept = tuple(w for w in writes if w.target not in common)
        if kept:
            out.append(OutsideWrites(path, kept))
    return out
