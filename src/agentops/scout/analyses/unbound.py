"""Names the sub-project's code reads that nothing binds (#22 defect 5, code that breaks
now): a name read in a module of the folder that the scope rules resolve to
the module's globals, while the module neither imports, defines nor assigns it and it is
no builtin. The line raises ``NameError`` whenever it is reached: a copy of upstream code
that calls a helper upstream imports and the copy does not, a local a refactor removed
while a later line still reads it.

The interpreter's own scoping is read through ``symtable`` (locals, enclosing functions,
class bodies, comprehensions, ``global`` declarations), never guessed. A module that can
bind names no table shows (``from m import *``, ``globals()``, ``exec``/``eval``,
``__builtins__``, ``sys.modules``) is not judged. Annotations are not reads (they may
never be evaluated).

The folder's own test files are read too (a test that raises NameError tests nothing;
``test`` marks such a record, a should-fix, not a break of the folder's code): there the
names pytest provides count as bound, its built-in fixtures (``request``, ``tmp_path``,
``monkeypatch``, ``capsys``...) and every name a ``conftest.py`` of the file's folder or a
folder above binds (its imports, functions, assignments), and pytest calls the
``test*`` functions and methods nothing else names.

Pure: the HEAD tree in, ``Unbound`` records out.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import re
import symtable
from collections import deque
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
# Text that means a module may bind names its tables do not show. ``exec``/``eval`` are
# left to the tree test: as text they also match a method of that name
# (``model.eval()``), which binds nothing, and the module would go unjudged.
_DYNAMIC = ("import *", "globals()", "__builtins__", "sys.modules")

# Names whose mere reference hands out a namespace or runs code (an alias such as
# ``g = globals`` is enough), and the calls that return the module object by its name.
_NAMESPACE_FUNCS = frozenset({"globals", "exec", "eval", "__builtins__"})
_IMPORTERS = frozenset({"import_module", "__import__"})
_NAME_ERROR_BASES = frozenset({"NameError", "Exception", "BaseException"})
# pytest's built-in fixtures: in a test file a fixture is a parameter (a local, bound
# already); as globals they are set apart so that no fixture name is ever reported there.
_PYTEST_FIXTURES = frozenset({
    "request", "tmp_path", "tmpdir", "tmp_path_factory", "tmpdir_factory", "monkeypatch",
    "capsys", "capsysbinary", "capfd", "capfdbinary", "caplog", "recwarn", "pytestconfig",
    "record_property", "record_xml_attribute", "record_testsuite_property", "cache",
    "doctest_namespace", "testdir", "pytester"})


@dataclass(frozen=True)
class Unbound:
    file: str
    line: int  # the first read
    name: str
    scope: str  # the function or class reading it ("" at module level)
    lines: tuple[int, ...]  # every read in the module
    # Whether some read can run: at module level or in a class body, or in a function
    # that code of the repository reaches (``_unreached``). False: every read is in a
    # function nothing calls or names, so the NameError waits for a caller.
    reached: bool = True
    # Whether the module is one of the folder's test files (conftest.py included): the
    # NameError fails a test, not the folder's code.
    test: bool = False


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
    (``import builtins``, ``__import__("builtins")``, ``__builtins__``). The text check
    of ``_DYNAMIC`` misses these when spelled otherwise (``globals ()``, ``g = globals``,
    ``import sys as s``)."""
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
        # ``import_module(__name__)`` is the module itself; ``__import__("builtins")``
        # is the builtins as much as ``import builtins`` is (its ``.exec`` runs code).
        if isinstance(node, ast.Call) and node.args and (
                (isinstance(node.args[0], ast.Name) and node.args[0].id == "__name__")
                or (isinstance(node.args[0], ast.Constant)
                    and node.args[0].value == "builtins")) and (
                (isinstance(node.func, ast.Name) and node.func.id in _IMPORTERS)
                or (isinstance(node.func, ast.Attribute) and node.func.attr in _IMPORTERS)):
            return True
    return False


def _never_true(test: ast.expr) -> bool:
    """Whether an ``if`` test is false whenever the module runs: ``TYPE_CHECKING`` (bare
    or an attribute) or a false constant."""
    if isinstance(test, ast.Constant):
        return not test.value
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _catches_name_error(handler: ast.ExceptHandler) -> bool:
    """Whether the handler catches NameError: bare, or naming it or a base class."""
    if handler.type is None:
        return True
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any((isinstance(k, ast.Name) and k.id in _NAME_ERROR_BASES)
               or (isinstance(k, ast.Attribute) and k.attr in _NAME_ERROR_BASES)
               for k in kinds)


def _run_now(stmts: list[ast.stmt]) -> list[ast.AST]:
    """The nodes of ``stmts`` evaluated when they run: a function's or lambda's body runs
    later, when it is called (its decorators, defaults and annotations run now)."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(stmts)
    while todo:
        node = todo.pop()
        out.append(node)
        if isinstance(node, (*ps.FuncDef.__args__, ast.Lambda)):
            todo += [*getattr(node, "decorator_list", []), *node.args.defaults,
                     *(d for d in node.args.kw_defaults if d is not None)]
        else:
            todo += ast.iter_child_nodes(node)
    return out


def _no_name_error(tree: ast.Module) -> set[int]:
    """ids of the Name nodes whose NameError never stops the module: under an ``if``
    that is never true (``if TYPE_CHECKING:``), or run inside a ``try`` whose handler
    catches NameError (the ``try: get_ipython() except NameError:`` probe of a name
    that a host such as IPython adds to the builtins)."""
    out: set[int] = set()
    for node in ps.nodes(tree):
        if isinstance(node, ast.If) and _never_true(node.test):
            out |= {id(n) for s in node.body for n in ast.walk(s) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Try | ast.TryStar) \
                and any(_catches_name_error(h) for h in node.handlers):
            out |= {id(n) for n in _run_now(node.body) if isinstance(n, ast.Name)}
    return out


def unbound(path: str, text: str, bound_elsewhere: frozenset[str] = frozenset()
            ) -> list[Unbound]:
    """The unbound reads of one module. ``bound_elsewhere``: names other code binds where
    this module resolves them, never judged: for a package's ``__init__.py`` the names of
    its modules and sub-packages (importing one from anywhere, ``from .a import f`` in
    the package itself or ``import pkg.a`` elsewhere, binds its name in the package's
    namespace), and names any module of the repository sets on ``builtins``."""
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
    # (A def or class statement counts as an assignment: is_namespace adds nothing.)
    bound = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    # A function's ``global x`` followed by an assignment or an import binds a module
    # name (symtable flags ``import x`` as imported, not assigned: a lazy
    # ``global np; import numpy as np`` binds ``np`` as much as ``np = ...`` does).
    bound |= {s.get_name() for t in tables for s in t.get_symbols()
              if s.is_declared_global()
              and (s.is_assigned() or s.is_imported())}
    missing: dict[int, set[str]] = {}  # id(table) -> the names it reads unbound
    for t in tables:
        for s in t.get_symbols():
            name = s.get_name()
            if not s.is_referenced() or name in bound \
                    or hasattr(builtins, name) or name in _OTHER_BUILTINS \
                    or name in _MODULE_NAMES or name in bound_elsewhere \
                    or (t.get_type() == "class" and name in _CLASS_NAMES):
                continue
            # A ``global x`` that only reads ``x`` binds nothing: the read still goes to
            # the module's globals (the assigning declarations are in ``bound`` above).
            # At module level every name is global, so the module's own reads are here.
            if s.is_global():
                missing.setdefault(id(t), set()).add(name)
    if not missing:
        return []
    no_error = _annotation_names(tree) | _no_name_error(tree)
    reads: dict[str, list[tuple[int, str]]] = {}
    for node, table in _scoped_names(tree, top):
        if isinstance(node.ctx, ast.Load) and node.id in missing.get(id(table), ()) \
                and id(node) not in no_error:
            scope = "" if table.get_type() == "module" else table.get_name()
            reads.setdefault(node.id, []).append((node.lineno, scope))
    return [Unbound(path, min(found)[0], name, min(found)[1],
                    tuple(sorted({n for n, _ in found})))
            for name, found in sorted(reads.items())]


# The AST nodes that open a scope of their own, by the name symtable gives its table.
_SCOPE_NAMES = {ast.Lambda: "lambda", ast.ListComp: "listcomp", ast.SetComp: "setcomp",
                ast.DictComp: "dictcomp", ast.GeneratorExp: "genexpr"}


def _scoped_names(tree: ast.Module, top: symtable.SymbolTable
                  ) -> list[tuple[ast.Name, symtable.SymbolTable]]:
    """Every Name node with the symbol table of the scope it is evaluated in. A
    function's decorators, defaults and annotations, a class's bases and a
    comprehension's first iterable run in the enclosing scope; the rest in the node's
    own table (matched among the enclosing table's children by name and line, in source
    order; a scope symtable does not list stays with the enclosing one)."""
    out: list[tuple[ast.Name, symtable.SymbolTable]] = []
    taken: set[int] = set()  # ids of the child tables already matched
    todo: deque[tuple[ast.AST, symtable.SymbolTable]] = deque([(tree, top)])

    def child(node: ast.AST, table: symtable.SymbolTable) -> symtable.SymbolTable:
        name = getattr(node, "name", None) or _SCOPE_NAMES.get(type(node), "")
        for c in table.get_children():
            if c.get_name() == name and c.get_lineno() == node.lineno and id(c) not in taken:
                taken.add(id(c))
                return c
        return table

    while todo:
        node, table = todo.popleft()
        if isinstance(node, ast.Name):
            out.append((node, table))
            continue
        if isinstance(node, (*ps.FuncDef.__args__, ast.Lambda)):
            args = node.args
            outer: list[ast.AST] = [*getattr(node, "decorator_list", []), *args.defaults,
                                    *(d for d in args.kw_defaults if d is not None)]
            inner_table = child(node, table)
            outer += [a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs,
                                             args.vararg, args.kwarg)
                      if a is not None and a.annotation is not None]
            outer += [node.returns] if getattr(node, "returns", None) is not None else []
            body = node.body if isinstance(node.body, list) else [node.body]
            todo += [(n, table) for n in outer] + [(n, inner_table) for n in body]
        elif isinstance(node, ast.ClassDef):
            inner_table = child(node, table)
            todo += [(n, table) for n in (*node.decorator_list, *node.bases, *node.keywords)]
            todo += [(n, inner_table) for n in node.body]
        elif isinstance(node, tuple(_SCOPE_NAMES)) and not isinstance(node, ast.Lambda):
            inner_table = child(node, table)
            first = node.generators[0]
            todo.append((first.iter, table))
            inner = [n for n in ast.iter_child_nodes(node) if n is not first]
            inner += [first.target, *first.ifs]
            todo += [(n, inner_table) for n in inner]
        else:
            todo += [(n, table) for n in ast.iter_child_nodes(node)]
    return out


def analyse(inp: Inputs) -> list[Unbound]:
    sub = inp.target.subproject + "/"
    out: list[Unbound] = []
    paths = sorted(inp.head.paths)  # every path: a sub-package's text may not be loaded
    injected: frozenset[str] | None = None
    set_on: dict[str, set[str]] = {}
    for path in sorted(inp.head.files):
        if path.endswith(".py") and path.startswith(sub):
            test = inp.target.is_test(path) or path.endswith("/conftest.py")
            if injected is None:
                injected = _set_on_builtins(inp.head.files)
                set_on = _set_on_modules(inp.head.files, inp.head.paths)
            given = _pytest_names(inp, path) if test else frozenset()
            found = unbound(path, inp.head.text(path) or "",
                            _submodules(paths, path) | injected | given
                            | frozenset(set_on.get(path, ())))
            if test:
                found = [dataclasses.replace(u, test=True) for u in found]
            out += _with_reach(inp, path, found, test) if found else []
    return out


def _pytest_names(inp: Inputs, path: str) -> frozenset[str]:
    """The names pytest provides a test file: its built-in fixtures and the names every
    ``conftest.py`` of the file's folder or a folder above binds at module level (its
    imports, functions, classes, assignments: fixtures and the helpers it imports)."""
    cache: dict[str, frozenset[str]] = inp.head.cache.setdefault("unbound-conftest", {})
    out = set(_PYTEST_FIXTURES)
    parts = path.split("/")[:-1]
    for depth in range(len(parts), -1, -1):
        conf = "/".join([*parts[:depth], "conftest.py"])
        if conf == path:
            continue
        if conf not in cache:
            cache[conf] = _module_binds(inp.head.text(conf) or "", conf)
        out |= cache[conf]
    return frozenset(out)


def _module_binds(text: str, path: str) -> frozenset[str]:
    """The names a module binds at module level (empty for no text or no parse)."""
    if not text:
        return frozenset()
    try:
        top = symtable.symtable(text, path, "exec")
    except (SyntaxError, ValueError):
        return frozenset()
    return frozenset(s.get_name() for s in top.get_symbols()
                     if s.is_assigned() or s.is_imported())


# Files whose text may call or name a function: code, shell scripts, configs and
# workflows (a registry key, an entry point, a ``python -c`` line).
_NAMING_FILES = (".py", ".sh", ".toml", ".yml", ".yaml", ".cfg", ".ini", ".json")
_BINDING_DECORATORS = frozenset({"staticmethod", "classmethod"})


def _occurrences(inp: Inputs, names: set[str]) -> dict[str, int]:
    """How often each name occurs as a word in the repository's loaded code and config
    texts (its own ``def`` line is one), cached on the tree."""
    cache: dict[str, int] = inp.head.cache.setdefault("unbound-occurrences", {})
    todo = sorted(n for n in names if n not in cache)
    if todo:
        word = re.compile(r"(?<!\w)(" + "|".join(map(re.escape, todo)) + r")(?!\w)")
        counts = dict.fromkeys(todo, 0)
        for path, text in inp.head.files.items():
            if path.endswith(_NAMING_FILES):
                for m in word.finditer(text):
                    counts[m.group(1)] += 1
        cache.update(counts)
    return {n: cache[n] for n in names}


def _functions(tree: ast.Module) -> list[tuple[ps.FuncDef, ast.ClassDef | None, int, int]]:
    """Every function with the class it is a method of (None otherwise) and the lines of
    its body (the signature's defaults and decorators run where it is defined)."""
    out: list[tuple[ps.FuncDef, ast.ClassDef | None, int, int]] = []
    todo: list[tuple[ast.AST, ast.ClassDef | None]] = [(tree, None)]
    while todo:
        node, owner = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ps.FuncDef.__args__):
                out.append((child, owner, child.body[0].lineno,
                            child.end_lineno or child.body[-1].lineno))
                todo.append((child, None))
            elif isinstance(child, ast.ClassDef):
                todo.append((child, child))
            else:
                todo.append((child, owner))
    return out


def _may_be_called(func: ps.FuncDef, owner: ast.ClassDef | None, occurs: int,
                   test: bool = False) -> bool:
    """Whether something may call ``func`` though nothing in the repository names it
    again: a dunder (the interpreter calls it), a decorated function (the decorator may
    register it: a command, a hook, an op), a public method of a class with a base (the
    base, maybe a library's, may call it by name: ``forward``, ``extra_repr``), and in a
    test file a ``test*`` function or method (pytest collects it) and ``setup*``/
    ``teardown*`` ones (pytest's and unittest's hooks)."""
    if test and func.name.lower().startswith(("test", "setup", "teardown")):
        return True
    if func.name.startswith("__") and func.name.endswith("__"):
        return True
    if any(not (isinstance(d, ast.Name) and d.id in _BINDING_DECORATORS)
           for d in func.decorator_list):
        return True
    if owner is not None and owner.bases and not func.name.startswith("_"):
        return True
    return occurs > 1


def _with_reach(inp: Inputs, path: str, found: list[Unbound], test: bool = False
                ) -> list[Unbound]:
    """``found`` with ``reached`` false for the names read only inside functions that no
    code of the repository calls, names (a call, a reference, a registry string, an
    ``__all__`` entry, a ``__main__`` block all name it) or may call implicitly
    (``_may_be_called``), or inside functions nested in one. Such a read raises no
    NameError until someone adds a caller: dead or unreached code, not a break now."""
    if all(not u.scope for u in found):
        return found
    tree = ps.parse(inp.head.text(path) or "")
    if tree is None:
        return found
    funcs = _functions(tree)
    occurs = _occurrences(inp, {f.name for f, _o, _a, _b in funcs})

    def runs(line: int) -> bool:
        return all(_may_be_called(f, owner, occurs[f.name], test)
                   for f, owner, first, last in funcs if first <= line <= last)

    return [u if any(runs(n) for n in u.lines) else dataclasses.replace(u, reached=False)
            for u in found]


# An assignment to an attribute of a name that is not ``self``/``cls`` (``m.x = 1``), or a
# ``setattr(``: the cheap text test before a module is parsed for names it sets on others.
_SETS_ON_OTHERS = re.compile(r"(?m)^[ \t]*(?!self\.|cls\.)[A-Za-z_]\w*(?:\.\w+)+[ \t]*=[^=]"
                             r"|setattr\(")


def _set_on_modules(files: dict[str, str], paths: frozenset[str]) -> dict[str, set[str]]:
    """Module path -> the names other modules of the repository set on it after importing
    it (``import pkg.m as m; m.x = 1``, ``from pkg import m; setattr(m, "x", 1)``,
    ``import pkg.m; pkg.m.x = 1``): once that code has run, ``x`` is one of the module's
    globals, and a read of it raises no NameError. Which runs first is not known, so such
    a name is never reported."""
    out: dict[str, set[str]] = {}
    for path, text in files.items():
        if not path.endswith(".py") or not _SETS_ON_OTHERS.search(text):
            continue
        tree = ps.parse(text)
        if tree is None:
            continue
        aliases: dict[str, str] = {}  # a local name -> the dotted module it stands for
        for n in ps.nodes(tree):
            if isinstance(n, ast.Import):
                for a in n.names:
                    if a.asname:
                        aliases[a.asname] = a.name
                    else:
                        aliases.setdefault(a.name.split(".")[0], a.name.split(".")[0])
            elif isinstance(n, ast.ImportFrom):
                mod = ps.from_module(path, n.level, n.module)
                if mod is None:
                    continue
                for a in n.names:
                    if a.name != "*":
                        aliases[a.asname or a.name] = f"{mod}.{a.name}" if mod else a.name
        if not aliases:
            continue

        for obj, name in _attribute_sets(tree):
            where = _module_of(obj, aliases, paths)
            if where is not None:
                out.setdefault(where, set()).add(name)
    return out


def _attribute_sets(tree: ast.Module) -> list[tuple[ast.expr, str]]:
    """(the object, the name) of every attribute the module sets by name: ``obj.name =
    ...`` and ``setattr(obj, "name", ...)``."""
    out: list[tuple[ast.expr, str]] = []
    for n in ps.nodes(tree):
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store):
            out.append((n.value, n.attr))
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) \
                and n.func.id == "setattr" and len(n.args) >= 2 \
                and isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str):
            out.append((n.args[0], n.args[1].value))
    return out


def _set_on_builtins(files: dict[str, str]) -> frozenset[str]:
    """Names a module of the repository sets on the builtins (``builtins.name = ...``,
    ``setattr(builtins, "name", ...)``, under any alias of the module): every module
    then reads them as builtins."""
    out: set[str] = set()
    for path, text in files.items():
        if not path.endswith(".py") or "builtins" not in text:
            continue
        tree = ps.parse(text)
        if tree is None:
            continue
        aliases = {a.asname or a.name for n in ps.nodes(tree) if isinstance(n, ast.Import)
                   for a in n.names if a.name == "builtins"}
        out.update(name for obj, name in _attribute_sets(tree)
                   if isinstance(obj, ast.Name) and obj.id in aliases)
    return frozenset(out)


def _module_of(node: ast.expr, aliases: dict[str, str], paths: frozenset[str]) -> str | None:
    """The repository module a name or a dotted chain from an imported name stands for
    (``m`` for ``import pkg.m as m``, ``pkg.m`` after ``import pkg.m``), or None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in aliases:
        return None
    return ps.module_path(".".join([aliases[node.id], *reversed(parts)]), paths)


def _submodules(paths: list[str], path: str) -> frozenset[str]:
    """The modules and sub-packages of the package whose ``__init__.py`` is ``path``
    (none for any other module)."""
    if not path.endswith("/__init__.py"):
        return frozenset()
    prefix = path.removesuffix("__init__.py")
    return frozenset(p[len(prefix):].split("/")[0].removesuffix(".py") for p in paths
                     if p.startswith(prefix) and p.endswith(".py") and p != path)
