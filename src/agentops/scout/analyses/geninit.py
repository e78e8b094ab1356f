"""The constructor Python generates for a class that writes none (#22 defect 5, S-1): a
``@dataclass`` or a ``NamedTuple`` has no ``__init__`` in its source, so a changed field
(one added without a default, one removed or renamed) changes a signature no ``def``
shows. ``generated_init`` builds that signature as a ``def __init__(self, ...)`` node, so
the callers that bind calls to a ``def`` (usecheck) bind them to it unchanged.

Followed: fields in order, inherited dataclass fields first (a field declared again
keeps its place and takes the new default), ``= x``, ``field(default=x)``,
``field(default_factory=f)`` (shown as ``f()``), ``field(init=False)`` and ``ClassVar``
left out, ``InitVar`` kept (a constructor parameter that is no field), ``kw_only`` on the
decorator or the field, and the ``KW_ONLY`` marker. Not built (None): a class defining
``__init__`` or ``__new__`` itself (its ``def`` is the signature), ``init=False``, a
metaclass, a base that cannot be read (outside the repository, or a dataclass base
deeper than ``MAX_DEPTH``), or fields in an order Python would refuse (a required
positional field after a defaulted one).

Pure: parsed sources in, an AST node out.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from agentops.scout.analyses import pysource as ps

MAX_DEPTH = 6  # dataclass bases followed (a longer chain is not built)
# Bases that add no constructor parameter of their own.
PLAIN_BASES = frozenset({"object", "ABC", "abc.ABC", "Generic", "typing.Generic",
                         "Protocol", "typing.Protocol"})
_NAMEDTUPLE = frozenset({"NamedTuple", "typing.NamedTuple"})

# (module file, base source) -> (that base's ClassDef, the file it is in), or None
Resolver = Callable[[str, str], "tuple[ast.ClassDef, str] | None"]
# name -> (annotation or None, default node or None, keyword-only)
_Fields = dict[str, tuple["ast.expr | None", "ast.expr | None", bool]]


def _last(node: ast.expr) -> str:
    return ast.unparse(node.func if isinstance(node, ast.Call) else node).split(".")[-1]


def is_namedtuple(cls: ast.ClassDef) -> bool:
    return any(ast.unparse(b) in _NAMEDTUPLE for b in cls.bases)


def _flag(call: ast.expr | None, name: str) -> bool | None:
    """The constant a call passes as keyword ``name`` (None: not passed or not a
    constant)."""
    if not isinstance(call, ast.Call):
        return None
    for k in call.keywords:
        if k.arg == name and isinstance(k.value, ast.Constant):
            return bool(k.value.value)
    return None


def _own_init(cls: ast.ClassDef) -> bool:
    return any(isinstance(s, ps.FuncDef.__args__) and s.name in ("__init__", "__new__")
               for s in cls.body)


def generated_init(cls: ast.ClassDef, path: str, resolve: Resolver | None = None
                   ) -> ast.FunctionDef | None:
    """``def __init__(self, <fields>)`` as Python generates it for ``cls`` (in file
    ``path``), or None where the class has no generated constructor or it cannot be
    known. ``resolve`` finds a base class written in a file; without it only bases
    defined in ``cls``'s own module body can be read (give the module with
    ``same_module``)."""
    if _own_init(cls) or any(k.arg == "metaclass" for k in cls.keywords):
        return None
    if is_namedtuple(cls):
        fields = _namedtuple_fields(cls)
    else:
        deco = ps.dataclass_decorator(cls)
        if deco is None or _flag(deco, "init") is False:
            return None
        fields = _dataclass_fields(cls, path, resolve, 0)
    if fields is None:
        return None
    return _function(fields, cls)


def _namedtuple_fields(cls: ast.ClassDef) -> _Fields:
    out: _Fields = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            out[stmt.target.id] = (stmt.annotation, stmt.value, False)
    return out


def _dataclass_fields(cls: ast.ClassDef, path: str, resolve: Resolver | None,
                      depth: int) -> _Fields | None:
    if depth > MAX_DEPTH:
        return None
    out: _Fields = {}
    # Python's MRO collects base fields from the last base to the first.
    for base in reversed(cls.bases):
        src = ast.unparse(base.value if isinstance(base, ast.Subscript) else base)
        if src in PLAIN_BASES:
            continue
        found = resolve(path, src) if resolve is not None else None
        if found is None:
            return None  # a base that cannot be read may add fields
        node, where = found
        if ps.dataclass_decorator(node) is None:
            continue  # a plain class adds no field (the generated __init__ ignores its)
        more = _dataclass_fields(node, where, resolve, depth + 1)
        if more is None:
            return None
        out.update(more)
    kw_default = bool(_flag(ps.dataclass_decorator(cls), "kw_only"))
    kw = kw_default
    for stmt in cls.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        note = ast.unparse(stmt.annotation)
        if "ClassVar" in note:
            continue
        if note.split(".")[-1] == "KW_ONLY":
            kw = True
            continue
        name, value = stmt.target.id, stmt.value
        default: ast.expr | None = value
        field_kw = kw
        if isinstance(value, ast.Call) and _last(value) == "field":
            if _flag(value, "init") is False:
                out.pop(name, None)
                continue
            keywords = {k.arg: k.value for k in value.keywords if k.arg}
            default = keywords.get("default")
            if default is None and "default_factory" in keywords:
                default = ast.Call(func=keywords["default_factory"], args=[], keywords=[])
            flag = _flag(value, "kw_only")
            field_kw = kw if flag is None else flag
        out[name] = (stmt.annotation, default, field_kw)
    return out


def _function(fields: _Fields, cls: ast.ClassDef) -> ast.FunctionDef | None:
    positional = [(n, a, d) for n, (a, d, k) in fields.items() if not k]
    kwonly = [(n, a, d) for n, (a, d, k) in fields.items() if k]
    defaults: list[ast.expr] = []
    for _name, _note, default in positional:
        if default is not None:
            defaults.append(default)
        elif defaults:
            return None  # a required field after a defaulted one: Python refuses the class
    args = ast.arguments(
        posonlyargs=[], args=[ast.arg("self"), *(ast.arg(n, a) for n, a, _ in positional)],
        vararg=None, kwonlyargs=[ast.arg(n, a) for n, a, _ in kwonly],
        kw_defaults=[d for _, _, d in kwonly], kwarg=None, defaults=defaults)
    fn = ast.FunctionDef(name="__init__", args=args, body=[ast.Pass()], decorator_list=[],
                         returns=None, lineno=cls.lineno, col_offset=cls.col_offset)
    setattr(fn, _MARK, True)
    return ast.fix_missing_locations(fn)


_MARK = "agentops_generated"


def is_generated(fn: ast.AST) -> bool:
    """Whether ``fn`` is a constructor ``generated_init`` built (no source has it)."""
    return bool(getattr(fn, _MARK, False))


def same_module(module: ast.Module) -> Resolver:
    """A resolver reading bases defined at the top of ``module`` only."""
    classes = {n.name: n for n in module.body if isinstance(n, ast.ClassDef)}

    def resolve(path: str, src: str) -> tuple[ast.ClassDef, str] | None:
        node = classes.get(src)
        return (node, path) if node is not None else None
    return resolve


def tree_resolver(text_of: Callable[[str], str | None], paths: frozenset[str] | set[str]
                  ) -> Resolver:
    """A resolver reading a tree: a base defined at the top of the class's own file, or
    imported into it by name (``from m import B``, relative imports included) from a
    file of the tree, or reached through its module (``m.B`` after ``import m``)."""
    def classes(path: str) -> tuple[ast.Module | None, dict[str, ast.ClassDef]]:
        mod = ps.parse(text_of(path))
        return mod, {n.name: n for n in (mod.body if mod is not None else ())
                     if isinstance(n, ast.ClassDef)}

    def resolve(path: str, src: str, depth: int = 0) -> tuple[ast.ClassDef, str] | None:
        mod, here = classes(path)
        if mod is None or depth > MAX_DEPTH:
            return None
        head, _, leaf = src.rpartition(".")
        if not head and leaf in here:
            return here[leaf], path
        if head:
            module = ps.imports(mod).get(head, ("", ""))
            target = ps.module_path(module[0] if not module[1] else
                                    f"{module[0]}.{module[1]}", paths)
            return resolve(target, leaf, depth + 1) if target else None
        imported = ps.from_imports(path, mod).get(leaf)
        if imported is None:
            return None
        module_name, name, _line = imported
        target = ps.module_path(module_name, paths)
        if target is None:
            return None
        return resolve(target, name, depth + 1)
    return resolve
