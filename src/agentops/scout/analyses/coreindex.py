"""The repository's modules as a symbol table: what a module defines at top level (and
what it re-exports), what an annotation or a dotted name in a file resolves to, and
which attributes a class has (its body, ``self.x`` assignments in its methods, its
bases in the repository), with the reason whenever that cannot be known (a
``__getattr__``, a base outside the repository, a class decorator that may add
members, ``setattr`` with a computed name).

Used to check the sub-project's references to core at HEAD (``corerefs``). Pure:
loaded source texts in, AST nodes and names out; parsed lazily, cached per tree.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from agentops.scout.analyses import pysource as ps

# Bases that add no attribute a reference could rely on (or only dunders).
_NEUTRAL_BASES = {"object", "ABC", "abc.ABC", "Protocol", "typing.Protocol", "Generic",
                  "typing.Generic"}
# Class decorators known not to add attributes a sub-project would read.
_SAFE_DECORATORS = {"dataclass", "dataclasses.dataclass", "final", "typing.final",
                    "total_ordering", "functools.total_ordering", "runtime_checkable",
                    "typing.runtime_checkable", "unique", "enum.unique"}
MAX_DEPTH = 8  # re-export chains and base-class chains followed at most this far


@dataclass(frozen=True)
class Obj:
    """A resolved name: a class, a function, a module, or another top-level value."""

    kind: str  # "class" | "func" | "module" | "value"
    path: str  # the file defining it ("" for a namespace package)
    node: ast.AST | None = None
    qualname: str = ""


@dataclass
class ModuleInfo:
    path: str
    defs: dict[str, ast.AST] = field(default_factory=dict)  # top-level name -> node
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)  # local -> (mod, name)
    dynamic: str = ""  # why its names cannot all be known ("" when they can)


DYNAMIC = Obj("dynamic", "")


def _optional(stmt: ast.stmt) -> bool:
    """``if TYPE_CHECKING:`` or a ``try`` that catches import errors: imports under it
    are not run, or their failure is handled."""
    if isinstance(stmt, ast.If):
        return "TYPE_CHECKING" in ast.unparse(stmt.test)
    if isinstance(stmt, ast.Try):
        return any(h.type is None or any(w in ast.unparse(h.type) for w in
                                         ("ImportError", "ModuleNotFoundError", "Exception"))
                   for h in stmt.handlers)
    return False


def guarded_imports(mod: ast.Module) -> set[int]:
    """ids of the import statements under an optional block (see ``_optional``)."""
    out: set[int] = set()
    for stmt in ps.statements(mod):
        if _optional(stmt):
            # The try's handlers are its fallbacks: guarded too (an If's else is not).
            inner: list[ast.stmt] = list(ps.statements(stmt))
            for h in getattr(stmt, "handlers", ()):
                for x in h.body:
                    inner += [x, *ps.statements(x)]
            out |= {id(n) for n in inner if isinstance(n, (ast.Import, ast.ImportFrom))}
    return out


def parents(mod: ast.AST) -> dict[int, ast.AST]:
    """id(node) -> the statement or expression that contains it."""
    out: dict[int, ast.AST] = {}
    for node in ps.walk(mod):
        for child in ast.iter_child_nodes(node):
            out[id(child)] = node
    return out


class CoreIndex:
    """Modules, names and class members of one loaded tree."""

    def __init__(self, files: dict[str, str], paths: frozenset[str] | set[str]) -> None:
        self.files = files
        self.paths = paths
        self._mods: dict[str, ModuleInfo | None] = {}
        self._members: dict[int, tuple[frozenset[str], str]] = {}
        self._dirs: set[str] | None = None
        self.path_of: dict[int, str] = {}

    # -- modules ------------------------------------------------------------------
    def module_file(self, dotted: str) -> str | None:
        return ps.module_path(dotted, self.paths)

    def is_namespace(self, dotted: str) -> bool:
        if self._dirs is None:
            self._dirs = {p.rsplit("/", i)[0] for p in self.paths
                          for i in range(1, p.count("/") + 1)}
        return dotted.replace(".", "/") in self._dirs

    def module(self, path: str) -> ModuleInfo | None:
        if path in self._mods:
            return self._mods[path]
        text = self.files.get(path)
        mod = ps.parse(text) if text is not None else None
        info = None
        if mod is not None:
            info = ModuleInfo(path)
            for node in mod.body:
                self._top(node, info, path)
        self._mods[path] = info
        return info

    def _top(self, node: ast.stmt, info: ModuleInfo, path: str) -> None:
        if isinstance(node, (ast.ClassDef, *ps.FuncDef.__args__)):
            info.defs[node.name] = node
            self.path_of[id(node)] = path
            if node.name == "__getattr__":
                info.dynamic = "the module defines __getattr__"
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        info.defs[n.id] = node
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target,
                                                                             ast.Name):
            info.defs[node.target.id] = node
        elif isinstance(node, ast.ImportFrom):
            base = ps.from_module(path, node.level, node.module)
            if base is None:
                return  # dots above the repository's top: Python raises ImportError
            for a in node.names:
                if a.name == "*":
                    info.dynamic = f"`from {base} import *`"
                else:
                    info.imports[a.asname or a.name] = (base, a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                local = a.asname or a.name.split(".")[0]
                info.imports[local] = (a.name if a.asname else a.name.split(".")[0], "")
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            # Conditional definitions (version switches, optional imports) still define.
            for attr in ("body", "orelse", "finalbody"):
                for sub in getattr(node, attr, ()) or ():
                    self._top(sub, info, path)
            for h in getattr(node, "handlers", ()) or ():
                for sub in h.body:
                    self._top(sub, info, path)

    def lookup(self, dotted: str, name: str, depth: int = 0) -> Obj | None:
        """What ``from dotted import name`` binds: an ``Obj``, ``DYNAMIC`` when the
        module's names cannot all be known, ``None`` when it defines no such name."""
        if depth > MAX_DEPTH:
            return DYNAMIC
        path = self.module_file(dotted)
        sub = self.module_file(f"{dotted}.{name}")
        if path is None:
            if sub is not None:
                return Obj("module", sub)
            return Obj("module", "") if self.is_namespace(f"{dotted}.{name}") else None
        info = self.module(path)
        if info is None:
            return DYNAMIC  # the file does not parse: nothing can be said
        node = info.defs.get(name)
        if node is not None:
            kind = ("class" if isinstance(node, ast.ClassDef) else
                    "func" if isinstance(node, ps.FuncDef.__args__) else "value")
            return Obj(kind, path, node, name if kind == "class" else "")
        if name in info.imports:
            mod, imported = info.imports[name]
            if not imported:
                f = self.module_file(mod)
                return Obj("module", f or "") if f or self.is_namespace(mod) else DYNAMIC
            found = self.lookup(mod, imported, depth + 1)
            # Sanity: a re-export of something outside the repository exists all the same.
            return found if found is not None or self._in_repo(mod) else DYNAMIC
        if sub is not None:
            return Obj("module", sub)
        if self.is_namespace(f"{dotted}.{name}"):
            return Obj("module", "")
        return DYNAMIC if info.dynamic else None

    def _in_repo(self, dotted: str) -> bool:
        return self.module_file(dotted) is not None or self.is_namespace(dotted)

    def in_repo(self, dotted: str) -> bool:
        """Whether a module's top package is one of the repository's."""
        top = dotted.split(".", maxsplit=1)[0]
        return self.module_file(top) is not None or self.is_namespace(top)

    # -- names in a file's context ------------------------------------------------
    def resolve(self, path: str, dotted: str, depth: int = 0) -> Obj | None:
        """``A``, ``m.A``, ``A.Config`` as written in ``path``: the class, function or
        module it names (``None`` when it names nothing the repository defines)."""
        info = self.module(path)
        if info is None or not dotted or depth > MAX_DEPTH:
            return None
        first, *rest = dotted.split(".")
        obj: Obj | None
        if first in info.defs:
            node = info.defs[first]
            if isinstance(node, ast.ClassDef):
                obj = Obj("class", path, node, first)
            elif isinstance(node, ps.FuncDef.__args__):
                obj = Obj("func", path, node)
            else:
                return None
        elif first in info.imports:
            mod, name = info.imports[first]
            if not name:
                if not self.in_repo(mod):
                    return None
                obj = Obj("module", self.module_file(mod) or "", None, mod)
                # ``import a.b`` binds ``a``; ``a.b.C`` walks the dotted parts.
                while rest and obj.kind == "module":
                    nxt = self.lookup(obj.qualname, rest[0])
                    if nxt is None or nxt is DYNAMIC:
                        return None
                    mod = f"{obj.qualname}.{rest[0]}"
                    obj = nxt if nxt.kind != "module" else Obj("module", nxt.path, None, mod)
                    rest = rest[1:]
            else:
                if not self.in_repo(mod):
                    return None
                found = self.lookup(mod, name)
                if found is None or found is DYNAMIC:
                    return None
                obj = found if found.kind != "module" else Obj("module", found.path, None,
                                                               f"{mod}.{name}")
                while rest and obj.kind == "module":
                    nxt = self.lookup(obj.qualname, rest[0])
                    if nxt is None or nxt is DYNAMIC:
                        return None
                    obj = nxt if nxt.kind != "module" else Obj(
                        "module", nxt.path, None, f"{obj.qualname}.{rest[0]}")
                    rest = rest[1:]
        else:
            return None
        for part in rest:
            if obj.kind != "class" or not isinstance(obj.node, ast.ClassDef):
                return None
            inner = next((n for n in obj.node.body if isinstance(n, ast.ClassDef)
                          and n.name == part), None)
            if inner is None:
                return None
            self.path_of[id(inner)] = obj.path
            obj = Obj("class", obj.path, inner, f"{obj.qualname}.{part}")
        return obj

    def annotation_class(self, path: str, ann: ast.expr | None) -> Obj | None:
        """The one repository class an annotation names (``X``, ``X | None``,
        ``Optional[X]``, ``"X"``); ``None`` for anything else (a union of classes, a
        ``type[X]``, a builtin)."""
        if ann is None:
            return None
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            try:
                ann = ast.parse(ann.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
            sides = [s for s in (ann.left, ann.right)
                     if not (isinstance(s, ast.Constant) and s.value is None)]
            return self.annotation_class(path, sides[0]) if len(sides) == 1 else None
        if isinstance(ann, ast.Subscript):
            head = ast.unparse(ann.value)
            if head in ("Optional", "typing.Optional"):
                return self.annotation_class(path, ann.slice)
            return None
        if isinstance(ann, (ast.Name, ast.Attribute)):
            obj = self.resolve(path, ast.unparse(ann))
            return obj if obj is not None and obj.kind == "class" else None
        return None

    # -- class members ------------------------------------------------------------
    def members(self, cls: Obj, depth: int = 0) -> tuple[frozenset[str], str]:
        """(attribute names, why unknown): every name the class and its repository
        bases define; ``why`` is non-empty when a member may come from somewhere the
        index cannot see (then nothing can be said to be missing)."""
        node = cls.node
        assert isinstance(node, ast.ClassDef)
        if id(node) in self._members:
            return self._members[id(node)]
        self._members[id(node)] = (frozenset(), "recursive base chain")  # cycle guard
        names, why = self.own_members(node)
        for deco in node.decorator_list:
            d = ast.unparse(deco.func if isinstance(deco, ast.Call) else deco)
            if d not in _SAFE_DECORATORS:
                why = why or f"class decorator `{d}` may add members"
        if any(k.arg == "metaclass" for k in node.keywords):
            why = why or "a metaclass may add members"
        if not why and depth <= MAX_DEPTH:
            for base in node.bases:
                src = ast.unparse(base.value if isinstance(base, ast.Subscript) else base)
                if src in _NEUTRAL_BASES:
                    continue
                found = self.resolve(cls.path, src)
                if found is None or found.kind != "class":
                    why = f"base `{src}` is outside the repository"
                    break
                more, why = self.members(found, depth + 1)
                if why:
                    break
                names |= more
        result = (frozenset(names), why)
        self._members[id(node)] = result
        return result

    @staticmethod
    def own_members(node: ast.ClassDef) -> tuple[set[str], str]:
        """Names the class body binds and ``self.x`` its methods assign; why unknown."""
        names: set[str] = set()
        why = ""
        for stmt in node.body:
            if isinstance(stmt, (ast.ClassDef, *ps.FuncDef.__args__)):
                names.add(stmt.name)
                if stmt.name in ("__getattr__", "__getattribute__"):
                    why = f"the class defines {stmt.name}"
                if isinstance(stmt, ps.FuncDef.__args__):
                    n, w = _self_attrs(stmt)
                    names |= n
                    why = why or w
            elif isinstance(stmt, ast.Assign):
                for t in stmt.targets:
                    names |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                names.add(stmt.target.id)
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                names |= {a.asname or a.name.split(".")[0] for a in stmt.names}
            elif isinstance(stmt, (ast.If, ast.Try, ast.With, ast.For)):
                fake = ast.ClassDef(name=node.name, bases=[], keywords=[], decorator_list=[],
                                    body=[s for s in ast.walk(stmt) if isinstance(s, ast.stmt)
                                          and s is not stmt], type_params=[])
                more, w = CoreIndex.own_members(fake)
                names |= more
                why = why or w
        if "__dict__" in names:
            why = why or "the class manipulates __dict__"
        return names, why


def _self_attrs(func: ps.FuncDef) -> tuple[set[str], str]:
    """``self.x`` targets a method assigns (any nesting) and whether it sets computed
    attribute names (``setattr(self, name, …)``, ``self.__dict__.update``)."""
    args = [*func.args.posonlyargs, *func.args.args]
    if not args:
        return set(), ""
    me = args[0].arg
    out: set[str] = set()
    why = ""
    for n in ps.walk(func):
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del)) \
                and isinstance(n.value, ast.Name) and n.value.id == me:
            out.add(n.attr)
        elif isinstance(n, ast.Call) and isinstance(n.func, (ast.Name, ast.Attribute)) \
                and ast.unparse(n.func) in ("setattr", "object.__setattr__") and n.args \
                and isinstance(n.args[0], ast.Name) and n.args[0].id == me:
            if len(n.args) > 1 and isinstance(n.args[1], ast.Constant) \
                    and isinstance(n.args[1].value, str):
                out.add(n.args[1].value)
            else:
                why = "it sets attributes with computed names (setattr)"
        elif _writes_dict(n, me):
            why = "it writes its __dict__"
    return out, why


def _is_dict_of(node: ast.AST, me: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "__dict__" \
        and isinstance(node.value, ast.Name) and node.value.id == me


def _writes_dict(n: ast.AST, me: str) -> bool:
    """``self.__dict__.update(…)`` / ``.setdefault(…)`` or ``self.__dict__[k] = …``
    (reading ``self.__dict__`` adds nothing)."""
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
            and n.func.attr in ("update", "setdefault") and _is_dict_of(n.func.value, me):
        return True
    return isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) \
        and _is_dict_of(n.value, me)


def for_tree(tree: object) -> CoreIndex:
    """The index of a loaded tree, built once per tree."""
    cache = tree.cache  # type: ignore[attr-defined]
    if "coreindex" not in cache:
        cache["coreindex"] = CoreIndex(tree.files, tree.paths)  # type: ignore[attr-defined]
    return cache["coreindex"]
