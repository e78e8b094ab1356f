"""Python-source facts the analyses compare at two commits: dataclass fields, function
signatures, return-tuple arities, imports, monkey-patch sites, comments. Parsed with ``ast``,
never by reading diffs as text (S-1).

Pure: takes source text, returns plain values; never reads files.
"""

from __future__ import annotations

import ast
import io
import posixpath
import re
import sys
import tokenize
from dataclasses import dataclass
from functools import lru_cache

FuncDef = ast.FunctionDef | ast.AsyncFunctionDef
# The standard library's top-level module names (``__future__`` among them): an import of
# one needs no package declared and is no third-party API.
STDLIB_MODULES = frozenset(sys.stdlib_module_names) | {"__future__"}


# Security: the file's author chose its shape. Real code nests 30-100 levels deep (the
# deepest of 15,000 stdlib and site-packages files: 99, bar three generated tables);
# ``ast.unparse`` and every recursive visitor fail somewhere past 250.
MAX_AST_DEPTH = 150
# Why each text that did not parse was skipped, for the report to say (a memo, like
# ``parse``'s cache: the same text always gets the same answer).
_UNPARSED: dict[str, str] = {}


@lru_cache(maxsize=4096)
def parse(text: str | None) -> ast.Module | None:
    """The module AST, or ``None`` when there is no text, it does not parse or is nested
    past ``MAX_AST_DEPTH`` (``unparsed`` says why). A file mid-rewrite, or one written to
    exhaust the parser, must not stop the report. Its length is bounded before it gets
    here: a tree holds no Python file past ``gitrepo.MAX_PYTHON_CHARS``."""
    if text is None:
        return None
    try:
        module = ast.parse(text)
    except SyntaxError as exc:
        _UNPARSED[text] = (f"syntax error at line {exc.lineno}" if exc.lineno
                           else f"syntax error ({exc.msg})")
        return None
    except ValueError:
        _UNPARSED[text] = "not parseable source (NUL bytes)"
        return None
    except (RecursionError, MemoryError):
        # CPython's parser gives up on deep nesting with one of these before using much
        # memory (its own stack guard), e.g. "x = " followed by 200,000 "-".
        _UNPARSED[text] = "nested too deeply for the Python parser"
        return None
    walked = _walk_within(module, MAX_AST_DEPTH)
    if walked is None:
        _UNPARSED[text] = f"nested deeper than {MAX_AST_DEPTH} levels"
        return None
    if data_not_code(module):
        _UNPARSED[text] = ("data, not code (bracketed headers and literal assignments "
                           "only, e.g. a config saved with a .py suffix)")
        return None
    _remember_nodes(module, walked)
    return module


def _literal(node: ast.expr) -> bool:
    """A value a data file spells: a constant, a bare word (``true``), a signed number, or
    a list/tuple/dict display of those."""
    if isinstance(node, ast.Constant | ast.Name):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, ast.List | ast.Tuple):
        return all(_literal(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _literal(k) for k in node.keys) and all(
            _literal(v) for v in node.values)
    return False


def _key(node: ast.expr) -> bool:
    """A bare or dotted key (``a``, ``a.b``)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _header(node: ast.expr) -> bool:
    """A bracketed header of keys (``[a]``, ``[a.b]``, ``[[a]]``)."""
    if isinstance(node, ast.List) and len(node.elts) == 1:
        inner = node.elts[0]
        return _key(inner) or _header(inner)
    return False


def data_not_code(module: ast.Module) -> bool:
    """Whether a text that parses as Python is a data file that happens to (an INI or
    TOML body saved as ``.py``): at least one statement is a bracketed header used as a
    statement (a list display whose value is thrown away, which no code means), and every
    top-level statement is such a header, a string, or an assignment of a literal to a
    bare or dotted key. Such a file imports, defines and calls nothing; read as a module,
    its section and value words look like unbound names."""
    headers = 0
    for stmt in module.body:
        if isinstance(stmt, ast.Expr) and _header(stmt.value):
            headers += 1
            continue
        docstring = isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
        setting = isinstance(stmt, ast.Assign) and all(_key(t) for t in stmt.targets) \
            and _literal(stmt.value)
        if not (docstring or setting):
            return False
    return headers > 0


def unparsed(text: str) -> str | None:
    """Why ``parse(text)`` gave ``None`` ("" never; ``None`` if it parsed or was not
    asked yet)."""
    return _UNPARSED.get(text)


def walk(node: ast.AST) -> list[ast.AST]:
    """Every node under ``node`` (itself included), like ``ast.walk`` but without its
    generator layers: the hot loop of the reference index and the call scans."""
    out: list[ast.AST] = []
    stack = [node]
    pop, push, extend = stack.pop, stack.append, stack.extend
    AST = ast.AST
    while stack:
        n = pop()
        out.append(n)
        for name in n._fields:
            v = getattr(n, name, None)
            if isinstance(v, list):
                extend(x for x in v if isinstance(x, AST))
            elif isinstance(v, AST):
                push(v)
    return out


_NODES: dict[int, tuple[ast.AST, list[ast.AST]]] = {}


def nodes(module: ast.Module) -> list[ast.AST]:
    """``walk(module)``, computed once per parsed module: the analyses that look at
    every node of a file (references, calls, registries, factories) share one walk."""
    hit = _NODES.get(id(module))
    if hit is not None and hit[0] is module:
        return hit[1]
    out = walk(module)
    _remember_nodes(module, out)
    return out


def _remember_nodes(module: ast.AST, out: list[ast.AST]) -> None:
    """Keep ``out`` as the walk of ``module`` for ``nodes`` (at most 4096 modules, as
    many as ``parse`` keeps trees)."""
    if len(_NODES) > 4096:
        _NODES.clear()
    _NODES[id(module)] = (module, out)


def _walk_within(node: ast.AST, limit: int) -> list[ast.AST] | None:
    """``walk(node)`` (the same nodes in the same order), or ``None`` as soon as a node
    lies more than ``limit`` levels deep: the depth bound and the walk every analysis
    shares, in one pass instead of two (iterative, so a deep tree cannot exhaust the
    stack here)."""
    out: list[ast.AST] = []
    stack = [node]
    depths = [1]
    pop, push, extend = stack.pop, stack.append, stack.extend
    dpop, dpush, dextend = depths.pop, depths.append, depths.extend
    AST = ast.AST
    while stack:
        n = pop()
        d = dpop()
        if d > limit:
            return None
        out.append(n)
        d += 1
        for name in n._fields:
            v = getattr(n, name, None)
            if isinstance(v, list):
                kids = [x for x in v if isinstance(x, AST)]
                extend(kids)
                dextend([d] * len(kids))
            elif isinstance(v, AST):
                push(v)
                dpush(d)
    return out


def statements(node: ast.AST) -> list[ast.stmt]:
    """Every statement under ``node`` (nested bodies included), without descending into
    expressions: much cheaper than ``ast.walk`` for imports, classes and assignments."""
    out: list[ast.stmt] = []
    stack: list[ast.stmt] = list(getattr(node, "body", []))
    while stack:
        stmt = stack.pop()
        out.append(stmt)
        for attr in ("body", "orelse", "finalbody"):
            stack.extend(getattr(stmt, attr, ()) or ())
        for handler in getattr(stmt, "handlers", ()) or ():
            stack.extend(handler.body)
        for case in getattr(stmt, "cases", ()) or ():
            stack.extend(case.body)
    return out


def _accessor(node: ast.ClassDef | FuncDef) -> bool:
    """A ``@name.setter`` / ``.deleter`` / ``.getter`` def: it adds to the property the
    first def of the name made, it is not the member readers compare."""
    return not isinstance(node, ast.ClassDef) and any(
        isinstance(d, ast.Attribute) and d.attr in ("setter", "deleter", "getter")
        and isinstance(d.value, ast.Name) and d.value.id == node.name
        for d in node.decorator_list)


def find(module: ast.Module | None, dotted: str) -> ast.ClassDef | FuncDef | None:
    """The class or function named ``A.B.c`` (nested definitions, each read in the
    body of the one before), or ``None``. Of several definitions of a part in one body
    the last is the one Python keeps (a redefinition, ``@overload`` stubs before the
    implementation), a property's ``@c.setter`` aside: the member is its getter."""
    if module is None:
        return None
    scope: list[ast.stmt] = module.body
    node: ast.ClassDef | FuncDef | None = None
    for part in dotted.split("."):
        node = None
        for n in scope:
            if isinstance(n, (ast.ClassDef, *FuncDef.__args__)) and n.name == part \
                    and not (node is not None and _accessor(n)):
                node = n
        if node is None:
            return None
        scope = node.body
    return node


def dataclass_decorator(cls: ast.ClassDef) -> ast.expr | None:
    """The ``@dataclass`` / ``@dataclasses.dataclass(...)`` decorator of ``cls`` (its last
    dotted name is ``dataclass`` itself, not a name merely containing it), or None."""
    for d in cls.decorator_list:
        if ast.unparse(d.func if isinstance(d, ast.Call) else d).split(".")[-1] == "dataclass":
            return d
    return None


def class_fields(cls: ast.ClassDef) -> dict[str, str]:
    """Annotated class attributes (dataclass fields) → annotation source, in order."""
    out: dict[str, str] = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            ann = ast.unparse(stmt.annotation)
            if "ClassVar" not in ann:
                out[stmt.target.id] = ann
    return out


def class_bases(cls: ast.ClassDef) -> list[str]:
    """Base class expressions as source (``Configurable.Config``)."""
    return [ast.unparse(b) for b in cls.bases]


def signature(func: FuncDef) -> str:
    """A normalized signature: parameters with annotations and defaults, and the
    return annotation."""
    ret = f" -> {ast.unparse(func.returns)}" if func.returns else ""
    return f"({ast.unparse(func.args)}){ret}"


def param_names(func: FuncDef) -> list[str]:
    """Every parameter name, in order (positional, *args, keyword-only, **kwargs)."""
    a = func.args
    names = [p.arg for p in (*a.posonlyargs, *a.args)]
    if a.vararg:
        names.append("*" + a.vararg.arg)
    names += [p.arg for p in a.kwonlyargs]
    if a.kwarg:
        names.append("**" + a.kwarg.arg)
    return names


def param_defaults(func: FuncDef) -> dict[str, str]:
    """Parameter name -> its default as source, for every parameter that has one
    (positional and keyword-only)."""
    a = func.args
    pos = [*a.posonlyargs, *a.args]
    out = {p.arg: ast.unparse(d) for p, d in zip(pos[len(pos) - len(a.defaults):], a.defaults,
                                                 strict=False)}
    out |= {p.arg: ast.unparse(d) for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=False)
            if d is not None}
    return out


def positional_params(func: FuncDef, call: ast.Call) -> set[str]:
    """The parameters ``call``'s positional arguments fill (``self``/``cls`` left out)."""
    params = [p.arg for p in (*func.args.posonlyargs, *func.args.args)]
    if params and params[0] in ("self", "cls"):
        params = params[1:]
    return set(params[:len(call.args)])


def return_arities(func: FuncDef) -> list[int]:
    """Sorted distinct lengths of tuples this function returns (its own body only)."""
    sizes: set[int] = set()
    stack: list[ast.AST] = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (*FuncDef.__args__, ast.Lambda, ast.ClassDef)):
            continue  # Sanity: a nested function's returns are not this function's
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
            sizes.add(len(node.value.elts))
        stack.extend(ast.iter_child_nodes(node))
    return sorted(sizes)


_IMPORTS: dict[int, tuple[ast.Module, dict[str, tuple[str, str]]]] = {}


def imports(module: ast.Module | None) -> dict[str, tuple[str, str]]:
    """Local name → (module, imported name) for every ``from M import N [as L]`` anywhere
    in the file (function-level imports included); ``import a.b as c`` → (a.b, "").
    Computed once per parsed module (callers must not mutate the result)."""
    if module is None:
        return {}
    hit = _IMPORTS.get(id(module))
    if hit is not None and hit[0] is module:
        return hit[1]
    if len(_IMPORTS) > 8192:
        _IMPORTS.clear()
    out = _imports(module)
    _IMPORTS[id(module)] = (module, out)
    return out


def _imports(module: ast.Module) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for node in statements(module):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                out[alias.asname or alias.name] = (node.module, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                out[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0], "")
    return out


def from_imports(path: str, module: ast.Module | None) -> dict[str, tuple[str, str, int]]:
    """Local name -> (absolute module, imported name, line) for every ``from`` import
    anywhere in the file at ``path``, relative ones resolved against it; one reaching
    above the repository's top is left out (it cannot run)."""
    out: dict[str, tuple[str, str, int]] = {}
    for node in statements(module) if module is not None else ():
        if isinstance(node, ast.ImportFrom):
            base = from_module(path, node.level, node.module)
            if base is None:
                continue
            for alias in node.names:
                out[alias.asname or alias.name] = (base, alias.name, node.lineno)
    return out


@dataclass(frozen=True)
class ImportUse:
    """One ``import``/``from … import`` statement entry."""

    line: int
    module: str
    name: str  # "" for ``import module``


def import_uses(module: ast.Module | None) -> list[ImportUse]:
    """Every absolute import entry with its line."""
    out: list[ImportUse] = []
    if module is None:
        return out
    for node in statements(module):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out += [ImportUse(node.lineno, node.module, a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            out += [ImportUse(node.lineno, a.name, "") for a in node.names]
    return sorted(out, key=lambda u: (u.line, u.module, u.name))


@dataclass(frozen=True)
class PatchSite:
    """``Cls.attr = …`` or ``setattr(Cls, "attr", …)`` on a class-like name."""

    line: int
    owner: str  # the local name assigned through (``MoE``)
    attr: str  # ``forward``
    wraps: bool = False  # the new value is built from the original (``f(MoE.forward)``)
    value: str = ""  # the name assigned when it is a plain name (a local function)


def patch_sites(module: ast.Module | None) -> list[PatchSite]:
    """Assignments to an attribute of a name bound by an import (a class from
    elsewhere): the monkey-patch sites of a file."""
    if module is None:
        return []
    imported = imports(module)
    sites: list[PatchSite] = []
    for stmt in statements(module):
        targets: list[tuple[ast.expr, str]] = []
        node: ast.AST = stmt.value if isinstance(stmt, ast.Expr) else stmt
        if isinstance(node, ast.Assign):
            targets = [(t.value, t.attr) for t in node.targets if isinstance(t, ast.Attribute)]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "setattr" and len(node.args) >= 2 \
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            targets = [(node.args[0], node.args[1].value)]
        value = node.value if isinstance(node, ast.Assign) else (
            node.args[2] if isinstance(node, ast.Call) and len(node.args) > 2 else None)
        if isinstance(value, ast.Constant):
            continue  # setting a flag on a config module/class, not replacing behaviour
        for owner, attr in targets:
            # Only names bound by an import: instance attributes (self.x, module.forward
            # on a local variable) are ordinary code, not patches of upstream classes.
            if isinstance(owner, ast.Name) and owner.id in imported and imported[owner.id][1]:
                wraps = value is not None and any(
                    isinstance(n, ast.Attribute) and n.attr == attr
                    and isinstance(n.value, ast.Name) and n.value.id == owner.id
                    for n in ast.walk(value))
                name = value.id if isinstance(value, ast.Name) else ""
                sites.append(PatchSite(stmt.lineno, owner.id, attr, wraps, name))
    return sorted(set(sites), key=lambda s: (s.line, s.owner, s.attr))


def function_named(module: ast.Module | None, name: str, before: int = 10**9
                   ) -> FuncDef | None:
    """The last definition of function ``name`` (any nesting) above line ``before``."""
    found: FuncDef | None = None
    for node in statements(module) if module is not None else ():
        if isinstance(node, FuncDef.__args__) and node.name == name \
                and node.lineno < before and (found is None or node.lineno > found.lineno):
            found = node
    return found


_TOP_DEF = re.compile(r"^(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z]\w*)", re.M)


def has_main_block(module: ast.Module | None) -> bool:
    """Whether the module has a top-level ``if __name__ == "__main__"`` block: a script
    run as a program, which owns the process it runs in."""
    for node in module.body if module is not None else ():
        if isinstance(node, ast.If):
            test = ast.unparse(node.test)
            if "__name__" in test and "__main__" in test:
                return True
    return False


def top_level_defs(text: str | None) -> dict[str, int]:
    """Public top-level functions and classes → line, from the text alone (a definition
    at column 0 is a module-level one): no parse, for scanning many file versions."""
    if not text:
        return {}
    out: dict[str, int] = {}
    for m in _TOP_DEF.finditer(text):
        out.setdefault(m.group(1), text.count("\n", 0, m.start()) + 1)
    return out


def top_level_names(module: ast.Module | None) -> dict[str, int]:
    """Public top-level functions and classes → line."""
    if module is None:
        return {}
    return {n.name: n.lineno for n in module.body
            if isinstance(n, (ast.ClassDef, *FuncDef.__args__)) and not n.name.startswith("_")}


def name_chain(node: ast.expr) -> list[str]:
    """``self.ft.enabled`` → [self, ft, enabled]; [] for anything but a chain of attributes
    on a plain name (a call, subscript or literal anywhere in it)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return []
    parts.append(node.id)
    return parts[::-1]


def from_module(importer: str, level: int, module: str | None) -> str | None:
    """The absolute dotted module that ``from <level dots><module> import ...`` names when
    written in the repository file ``importer`` ("" for ``from . import x`` at the top);
    None when the dots climb above the repository's top, where Python raises ImportError
    (a negative slice would read a prefix of the package as the base instead)."""
    if not level:
        return module or ""
    package = importer.removesuffix(".py").removesuffix("/__init__").split("/")
    if not importer.endswith("/__init__.py"):
        package = package[:-1]
    up = level - 1  # packages above the importer's own
    if up > len(package):
        return None
    return ".".join([*package[:len(package) - up], *([module] if module else [])])


def module_path(modname: str, paths: frozenset[str] | set[str]) -> str | None:
    """The repo file defining ``a.b.c``: ``a/b/c.py`` or ``a/b/c/__init__.py``."""
    base = modname.replace(".", "/")
    for cand in (f"{base}.py", f"{base}/__init__.py"):
        if cand in paths:
            return cand
    return None


def module_name(path: str) -> str:
    """The dotted module a repository file is imported as (``a/b/c.py`` and
    ``a/b/c/__init__.py`` -> ``a.b.c``): the inverse of ``module_path``."""
    return path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def spelled(module: ast.AST, *, strings: bool = False, alias_parts: bool = False
            ) -> set[str]:
    """Every name the code spells: names, attributes, parameters, keywords, definitions
    and import aliases (the first part of a dotted one, or every part with
    ``alias_parts``); with ``strings``, also the words of its string constants (the
    first 2,000 characters of each)."""
    out: set[str] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.Attribute):
            out.add(node.attr)
        elif isinstance(node, (ast.arg, ast.keyword)):
            if node.arg:
                out.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.alias):
            parts = (node.asname or node.name).split(".")
            out |= set(parts) if alias_parts else {parts[0]}
        elif strings and isinstance(node, ast.Constant) and isinstance(node.value, str):
            out |= set(re.findall(r"\w+", node.value[:2000]))
    return out


@dataclass(frozen=True)
class Comment:
    line: int
    text: str  # the comment token, ``#`` included
    alone: bool  # nothing but blanks before it on its line


def comments(text: str) -> list[Comment]:
    """The comments of ``text`` in order, read with ``tokenize`` (a ``#`` inside a
    string is none); none at all when the text does not tokenize."""
    out: list[Comment] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                out.append(Comment(tok.start[0], tok.string,
                                   not tok.line[:tok.start[1]].strip()))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []
    return out


# -- a script's own ``sys.path`` entries (corerefs resolves past them; bareimports
# takes them as the script making its bare imports resolve) ---------------------------
_PATH_KEEP = frozenset({"resolve", "absolute", "expanduser"})
_OS_SAME = frozenset({"abspath", "realpath", "normpath", "expanduser"})


def path_value(expr: ast.expr, path: str) -> str | None:
    """The repository path an expression built from ``__file__`` stands for, in module
    ``path`` ("" for the repository's root), or None when it cannot be told statically:
    ``Path(__file__)``, ``.parent``, ``.parents[n]``, ``.resolve()``, ``/ "x"``,
    ``str(...)``, ``os.path.dirname/abspath/realpath/normpath/join`` with literal parts."""
    def up(p: str | None) -> str | None:  # the folder above (None above the root)
        return None if not p else norm(posixpath.dirname(p) or ".")

    def norm(p: str | None) -> str | None:
        if p is None:
            return None
        out = posixpath.normpath(p) if p else "."
        return None if out == ".." or out.startswith("../") or out.startswith("/") else (
            "" if out == "." else out)

    if isinstance(expr, ast.Name):
        return path if expr.id == "__file__" else None
    if isinstance(expr, ast.Attribute) and expr.attr == "parent":
        return up(path_value(expr.value, path))
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Attribute) \
            and expr.value.attr == "parents" and isinstance(expr.slice, ast.Constant) \
            and isinstance(expr.slice.value, int) and expr.slice.value >= 0:
        inner = path_value(expr.value.value, path)
        for _ in range(expr.slice.value + 1):
            inner = up(inner)
        return inner
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div) \
            and isinstance(expr.right, ast.Constant) and isinstance(expr.right.value, str):
        inner = path_value(expr.left, path)
        return None if inner is None else norm(posixpath.join(inner, expr.right.value))
    if not isinstance(expr, ast.Call) or expr.keywords:
        return None
    chain = name_chain(expr.func)
    name = chain[-1] if chain else (expr.func.attr if isinstance(expr.func, ast.Attribute)
                                    else "")
    if isinstance(expr.func, ast.Attribute) and name in _PATH_KEEP and not expr.args \
            and chain[:2] != ["os", "path"]:
        return path_value(expr.func.value, path)
    if len(expr.args) == 1 and (chain in (["Path"], ["pathlib", "Path"], ["PurePath"],
                                          ["str"], ["os", "fspath"])
                                or (chain[:2] == ["os", "path"] and name in _OS_SAME)):
        return path_value(expr.args[0], path)
    if chain == ["os", "path", "dirname"] and len(expr.args) == 1:
        return up(path_value(expr.args[0], path))
    if chain == ["os", "path", "join"] and expr.args:
        inner = path_value(expr.args[0], path)
        rest = expr.args[1:]
        if inner is None or not all(isinstance(a, ast.Constant) and isinstance(a.value, str)
                                    for a in rest):
            return None
        return norm(posixpath.join(inner, *(a.value for a in rest)))  # type: ignore[union-attr]
    return None


def path_entries(path: str, mod: ast.Module) -> list[tuple[str, str | None]]:
    """(``insert`` | ``append``, the folder or None when not known statically) for each
    ``sys.path.insert/append`` of module ``path`` whose value is built from
    ``__file__``: a script putting a folder of its own first (or last) on the path."""
    out: list[tuple[str, str | None]] = []
    for node in walk(mod):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("append", "insert") \
                and name_chain(node.func.value) == ["sys", "path"] and node.args:
            value = node.args[-1]
            if any(isinstance(n, ast.Name) and n.id == "__file__" for n in ast.walk(value)):
                out.append((node.func.attr, path_value(value, path)))
    return out
