"""Names the sub-project's code reads that nothing binds (#22 defect 5, code that breaks
now): a name read in a module of the folder (tests aside) that the scope rules resolve to
the module's globals, while the module neither imports, defines nor assigns it and it is
no builtin. The line raises ``NameError`` whenever it is reached: a copy of upstream code
that calls a helper upstream imports and the copy does not, a local a refactor removed
while a later line still reads it.

The interpreter's own scoping is read through ``symtable`` (locals, enclosing functions,
class bodies, comprehensions, ``global`` declarations), never guessed. A module that can
bind names no table shows (``from m import *``, ``globals()``, ``exec``/``eval``,
``__builtins__``, ``sys.modules``) is not judged. Annotations are not reads (they may
never be evaluated).

Pure: the HEAD tree in, ``Unbound`` records out.
"""

from __future__ import annotations

import ast
import builtins
import symtable
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs

# Names every module has without binding them.
_MODULE_NAMES = frozenset({"__file__", "__name__", "__doc__", "__spec__", "__package__",
                           "__loader__", "__path__", "__builtins__", "__annotations__",
                           "__dict__", "__class__", "__cached__"})
# Builtins the target's Python may have while the one running the scout lacks them
# (added in 3.10: aiter, anext, EncodingWarning; 3.11: the exception groups; 3.13:
# PythonFinalizationError), and the names ``site`` adds (absent under ``python -S``).
# ``hasattr(builtins, ...)`` alone would call them unbound on an older interpreter.
_OTHER_BUILTINS = frozenset({"aiter", "anext", "EncodingWarning", "BaseExceptionGroup",
                             "ExceptionGroup", "PythonFinalizationError", "exit", "quit",
                             "copyright", "credits", "license", "help"})
# Names a class body's namespace holds before its first statement runs (3.13 adds
# ``__firstlineno__``): a class body reads them from there, never from the globals.
_CLASS_NAMES = frozenset({"__module__", "__qualname__", "__firstlineno__"})
# Text that means a module may bind names its tables do not show.
_DYNAMIC = ("import *", "globals()", "exec(", "eval(", "__builtins__", "sys.modules")

# Names whose mere reference hands out a namespace or runs code (an alias such as
# ``g = globals`` is enough), and the calls that return the module object by its name.
_NAMESPACE_FUNCS = frozenset({"globals", "exec", "eval", "__builtins__"})
_IMPORTERS = frozenset({"import_module", "__import__"})


@dataclass(frozen=True)
class Unbound:
    file: str
    line: int  # the first read
    name: str
    scope: str  # the function or class reading it ("" at module level)
    lines: tuple[int, ...]  # every read in the module


def _tables(top: symtable.SymbolTable) -> list[symtable.SymbolTable]:
    out, todo = [], [top]
    while todo:
        t = todo.pop()
        out.append(t)
        todo += t.get_children()
    return out


def _annotation_names(tree: ast.Module) -> set[int]:
    """ids of the Name nodes inside annotations."""
    out: set[int] = set()
    for node in ps.nodes(tree):
        anns: list[ast.expr | None] = []
        if isinstance(node, ast.arg):
            anns.append(node.annotation)
        elif isinstance(node, ps.FuncDef.__args__):
            anns.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            anns.append(node.annotation)
        for ann in anns:
            if ann is not None:
                out |= {id(n) for n in ast.walk(ann) if isinstance(n, ast.Name)}
    return out


def _binds_dynamically(tree: ast.Module) -> bool:
    """Whether the module may bind names its symbol tables do not show: it star-imports,
    runs code (``exec``, ``eval``), or holds a handle on a namespace its reads resolve
    in: its globals (``globals``, a no-argument ``vars()`` or ``locals()``, a frame's
    ``f_globals``, a function's ``__globals__``), its own module object
    (``sys.modules`` under any alias, ``import_module(__name__)``) or the builtins
    (``import builtins``, ``__builtins__``). The text check of ``_DYNAMIC`` misses these
    when spelled otherwise (``globals ()``, ``g = globals``, ``import sys as s``)."""
    sys_names = set()
    for node in ps.nodes(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "builtins":
                    return True
                if a.name == "sys":
                    sys_names.add(a.asname or "sys")
        elif isinstance(node, ast.ImportFrom):
            if node.module in ("builtins", "sys") and node.level == 0 and (
                    node.module == "builtins" or any(a.name == "modules" for a in node.names)):
                return True
            if any(a.name == "*" for a in node.names):
                return True
    for node in ps.nodes(tree):
        if isinstance(node, ast.Name) and node.id in _NAMESPACE_FUNCS:
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("vars", "locals") and not node.args:
            return True
        if isinstance(node, ast.Attribute) and (
                node.attr in ("__globals__", "f_globals", "__builtins__")
                or (node.attr == "modules" and isinstance(node.value, ast.Name)
                    and node.value.id in sys_names)):
            return True
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name) \
                and node.args[0].id == "__name__" and (
                (isinstance(node.func, ast.Name) and node.func.id in _IMPORTERS)
                or (isinstance(node.func, ast.Attribute) and node.func.attr in _IMPORTERS)):
            return True
    return False


def unbound(path: str, text: str) -> list[Unbound]:
    """The unbound reads of one module."""
    if any(d in text for d in _DYNAMIC):
        return []
    tree = ps.parse(text)
    if tree is None or _binds_dynamically(tree):
        return []
    try:
        top = symtable.symtable(text, path, "exec")
    except (SyntaxError, ValueError):
        return []
    tables = _tables(top)
    bound = {s.get_name() for s in top.get_symbols()
             if s.is_assigned() or s.is_imported() or s.is_namespace()}
    # A function's ``global x`` followed by an assignment or an import binds a module
    # name (symtable flags ``import x`` as imported, not assigned: a lazy
    # ``global np; import numpy as np`` binds ``np`` as much as ``np = ...`` does).
    bound |= {s.get_name() for t in tables for s in t.get_symbols()
              if s.is_declared_global()
              and (s.is_assigned() or s.is_imported() or s.is_namespace())}
    missing: dict[str, str] = {}
    for t in tables:
        for s in t.get_symbols():
            name = s.get_name()
            if not s.is_referenced() or name in bound or name in missing \
                    or hasattr(builtins, name) or name in _OTHER_BUILTINS \
                    or name in _MODULE_NAMES \
                    or (t.get_type() == "class" and name in _CLASS_NAMES):
                continue
            if t.get_type() == "module" or (s.is_global() and not s.is_declared_global()):
                missing[name] = "" if t.get_type() == "module" else t.get_name()
    if not missing:
        return []
    in_annotation = _annotation_names(tree)
    reads: dict[str, list[int]] = {}
    for node in ps.nodes(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) \
                and node.id in missing and id(node) not in in_annotation:
            reads.setdefault(node.id, []).append(node.lineno)
    return [Unbound(path, min(lines), name, missing[name], tuple(sorted(set(lines))))
            for name, lines in sorted(reads.items())]


def analyse(inp: Inputs) -> list[Unbound]:
    sub, tests = inp.target.subproject + "/", inp.target.tests_dir + "/"
    out: list[Unbound] = []
    for path in sorted(inp.head.files):
        if path.endswith(".py") and path.startswith(sub) and not path.startswith(tests) \
                and "/tests/" not in path:
            out += unbound(path, inp.head.text(path) or "")
    return out
