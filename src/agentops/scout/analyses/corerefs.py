"""References from the sub-project to core that are broken at HEAD (#22): an attribute
read on an object whose type resolves to a core class that no longer has it, a keyword
argument a core callable no longer accepts, a name imported from a core module that no
longer defines it. Checked against the code at HEAD whatever the window, so a break
made before the window (never reported as a change) is still found; the commit that
made it is named when the window shows it.

Types come from what the code states, never guessed: a parameter's, attribute's or
return's annotation, a constructor call, a dataclass field's annotation, ``self.x: T``,
a core factory whose return is annotated. A reference whose type cannot be resolved is
not checked; one whose class may have members the index cannot see (``__getattr__``, a
base outside the repository, a class decorator, computed ``setattr``) is counted as
"not checked (why)"; an attribute some subclass of the annotated class defines is no
finding (the object may be that subclass).

Pure: the loaded trees in, frozen records out (cached per tree: ``report`` asks for the
owner files first, to load their history).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from agentops.scout.analyses import attribution, classindex, coreindex, usecheck
from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.coreindex import DYNAMIC, CoreIndex, Obj
from agentops.scout.config import is_test_path
from agentops.scout.gitrepo import Tree
from agentops.scout.model import Inputs

# Decorators that leave a function's signature as written.
_PLAIN_DECORATORS = ("staticmethod", "classmethod", "abstractmethod", "abc.abstractmethod",
                     "override", "typing.override", "torch.no_grad", "no_grad",
                     "torch.inference_mode", "record", "cache", "lru_cache",
                     "functools.cache", "functools.lru_cache")
MAX_TYPE_DEPTH = 6
# Bases that add no constructor parameters of their own.
_PLAIN_BASES = ("object", "ABC", "abc.ABC", "Generic", "typing.Generic")


@dataclass(frozen=True)
class BrokenRef:
    """One reference to core that fails at HEAD."""

    kind: str  # "attribute" | "keyword" | "import" | "argument" | "module" (``m.X``)
    name: str  # the attribute, keyword or imported name
    owner: str  # the core class, callable or module it is looked up on
    owner_file: str
    loc: str  # sub-project file:line
    severity: str  # blocking (breaks when the line runs) | should-fix (a test file)
    commit: str = ""  # the window's commit that removed it ("" when not in the window)
    # "in the window" | "owner new in the window" | "before the window" | "before HEAD"
    when: str = ""
    detail: str = ""


@dataclass(frozen=True)
class CoreRefs:
    broken: tuple[BrokenRef, ...] = ()
    checked: dict[str, int] = field(default_factory=dict)  # kind -> references checked
    unchecked: dict[str, int] = field(default_factory=dict)  # why -> references skipped


class _Checker:
    def __init__(self, inp: Inputs) -> None:
        self.inp = inp
        self.idx = coreindex.for_tree(inp.head)
        self.sub = inp.target.subproject.rstrip("/") + "/"
        self.broken: list[BrokenRef] = []
        self.checked: dict[str, int] = {}
        self.unchecked: dict[str, int] = {}
        self._attr_types: dict[tuple[int, str], Obj | None] = {}
        self._outside_sets: dict[str, bool] = {}
        self._setattr_sets: dict[str, bool] = {}
        self._ext: dict[str, set[str]] | None = None
        self.path = ""
        self._mod: ast.Module | None = None
        self._parents: dict[int, ast.AST] | None = None

    def core(self, obj: Obj | None) -> bool:
        return obj is not None and bool(obj.path) and not obj.path.startswith(self.sub)

    def skip(self, why: str) -> None:
        self.unchecked[why] = self.unchecked.get(why, 0) + 1

    def count(self, kind: str) -> None:
        self.checked[kind] = self.checked.get(kind, 0) + 1

    # -- types -----------------------------------------------------------------------
    def callee(self, func: ast.expr, env: dict[str, Obj | None]) -> tuple[Obj | None, bool]:
        """(what a call's callee resolves to, whether it is a bound method)."""
        dotted = _dotted(func)
        if dotted and dotted.split(".")[0] not in env:
            obj = self.idx.resolve(self.path, dotted)
            if obj is not None:
                return obj, False
        if isinstance(func, ast.Attribute):
            owner = self.type_of(func.value, env)
            if owner is not None:
                found = self.member_def(owner, func.attr)
                if found is not None:
                    return found, True
        return None, False

    def type_of(self, expr: ast.expr, env: dict[str, Obj | None], depth: int = 0
                ) -> Obj | None:
        """The repository class of the instance ``expr`` evaluates to, when stated."""
        if depth > MAX_TYPE_DEPTH:
            return None
        if isinstance(expr, ast.Name):
            return env.get(expr.id)
        if isinstance(expr, ast.Attribute):
            owner = self.type_of(expr.value, env, depth + 1)
            return self.attr_type(owner, expr.attr) if owner is not None else None
        if isinstance(expr, ast.Call):
            obj, _method = self.callee(expr.func, env)
            if obj is None:
                return None
            if obj.kind == "class":
                return obj
            if obj.kind == "func" and isinstance(obj.node, ps.FuncDef.__args__):
                return self.idx.annotation_class(obj.path, obj.node.returns)
        return None

    def member_def(self, cls: Obj, name: str, depth: int = 0) -> Obj | None:
        """The method ``name`` of a class or of its repository bases."""
        node = cls.node
        if not isinstance(node, ast.ClassDef) or depth > coreindex.MAX_DEPTH:
            return None
        for stmt in node.body:
            if isinstance(stmt, ps.FuncDef.__args__) and stmt.name == name:
                return Obj("func", cls.path, stmt, cls.qualname)
        for found in self._base_classes(cls, node):
            hit = self.member_def(found, name, depth + 1)
            if hit is not None:
                return hit
        return None

    def _base_classes(self, cls: Obj, node: ast.ClassDef) -> Iterator[Obj]:
        """The repository classes ``node``'s bases name (``Base[T]`` read as ``Base``), in
        order, resolved one at a time."""
        for base in node.bases:
            found = self.idx.resolve(cls.path, ast.unparse(
                base.value if isinstance(base, ast.Subscript) else base))
            if found is not None and found.kind == "class":
                yield found

    def attr_type(self, cls: Obj, attr: str, depth: int = 0) -> Obj | None:
        """The declared class of attribute ``attr`` of instances of ``cls``."""
        node = cls.node
        if not isinstance(node, ast.ClassDef) or depth > coreindex.MAX_DEPTH:
            return None
        key = (id(node), attr)
        if key in self._attr_types:
            return self._attr_types[key]
        self._attr_types[key] = None  # recursion guard
        found: list[Obj | None] = []
        declared = [s for s in node.body if isinstance(s, ast.AnnAssign)
                    and isinstance(s.target, ast.Name) and s.target.id == attr]
        # A declaration in the class body states the type; assignments in the methods
        # (``self.x = config.x``) are then instances of it.
        for stmt in [] if declared else node.body:
            if isinstance(stmt, ps.FuncDef.__args__):
                if stmt.name == attr and any(ast.unparse(d).endswith("property")
                                             for d in stmt.decorator_list):
                    found.append(self.idx.annotation_class(cls.path, stmt.returns))
                found += self._self_assigned(cls.path, stmt, attr)
        if declared:
            found = [self.idx.annotation_class(cls.path, declared[-1].annotation)]
        result: Obj | None = None
        kinds = {id(f.node) if f is not None else None for f in found}
        if found and len(kinds) == 1 and None not in kinds:
            result = found[0]
        elif not found:
            for b in self._base_classes(cls, node):
                result = self.attr_type(b, attr, depth + 1)
                if result is not None:
                    break
        self._attr_types[key] = result
        return result

    def _self_assigned(self, path: str, func: ps.FuncDef, attr: str) -> list[Obj | None]:
        args = [*func.args.posonlyargs, *func.args.args]
        if not args:
            return []
        me = args[0].arg
        anns = {a.arg: a.annotation for a in (*args, *func.args.kwonlyargs)}
        out: list[Obj | None] = []
        saved = self.path
        self.path = path
        try:
            for n in ps.walk(func):
                if isinstance(n, ast.AnnAssign) and _is_self_attr(n.target, me, attr):
                    out.append(self.idx.annotation_class(path, n.annotation))
                elif isinstance(n, ast.Assign) and any(_is_self_attr(t, me, attr)
                                                       for t in n.targets):
                    v = n.value
                    if isinstance(v, ast.Name) and v.id in anns:
                        out.append(self.idx.annotation_class(path, anns[v.id]))
                    elif isinstance(v, ast.Call):
                        out.append(self.type_of(v, {}))
                    elif isinstance(v, ast.Constant) and v.value is None:
                        continue  # ``self.x = None`` first, the real value later
                    else:
                        out.append(None)
                elif isinstance(n, (ast.AugAssign,)) and _is_self_attr(n.target, me, attr):
                    out.append(None)
        finally:
            self.path = saved
        return out

    # -- scanning ------------------------------------------------------------------------
    def scan_file(self, path: str, text: str) -> None:
        mod = ps.parse(text)
        if mod is None:
            return
        self.path = path
        self._mod = mod
        self._parents = None
        self._imports(path, mod)
        nested: list[ast.AST] = []
        nodes = _shallow(mod.body, nested)
        self._scan(nodes, nested, None, {})

    @property
    def guard(self) -> dict[int, ast.AST]:
        """Parents of the current file's nodes (built only when a finding needs them)."""
        if self._parents is None:
            self._parents = coreindex.parents(self._mod)
        return self._parents

    def _scan(self, nodes: list[ast.AST], nested: list[ast.AST], cls: Obj | None,
              env: dict[str, Obj | None]) -> None:
        for node in nodes:
            if isinstance(node, ast.Attribute):
                if isinstance(node.ctx, ast.Load):
                    self._attribute(node, env)
                    self._module_attr(node, env)
            elif isinstance(node, ast.Call):
                if node.keywords:
                    self._keywords(node, env)
                self._arguments(node, env)
        for n in nested:
            if isinstance(n, ast.ClassDef):
                inner = Obj("class", self.path, n, n.name)
                more: list[ast.AST] = []
                self._scan(_shallow(n.body, more), more, inner, dict(env))
            elif isinstance(n, ps.FuncDef.__args__):
                more = []
                body = _shallow(n.body, more)
                self._scan(body, more, None, self._env(n, cls, env, body))

    def _env(self, func: ps.FuncDef, cls: Obj | None, outer: dict[str, Obj | None],
             nodes: list[ast.AST]) -> dict[str, Obj | None]:
        env = dict(outer)
        args = [*func.args.posonlyargs, *func.args.args]
        decos = {ast.unparse(d) for d in func.decorator_list}
        for i, a in enumerate([*args, *func.args.kwonlyargs]):
            if i == 0 and cls is not None and not decos & {"staticmethod", "classmethod"}:
                env[a.arg] = cls
            else:
                env[a.arg] = self.idx.annotation_class(self.path, a.annotation)
        for extra in (func.args.vararg, func.args.kwarg):
            if extra is not None:
                env[extra.arg] = None
        bindings: dict[str, list[ast.AST]] = {}
        for n in nodes:
            if isinstance(n, _BINDERS):
                for name, value in _bindings(n):
                    bindings.setdefault(name, []).append(value)
        params = {a.arg for a in (*args, *func.args.kwonlyargs)}
        for name, values in bindings.items():
            if name in params or len(values) != 1 or not isinstance(values[0], ast.expr):
                env[name] = None
                continue
            value = values[0]
            env[name] = self.type_of(value, env)
        for name, values in bindings.items():
            if len(values) == 1 and isinstance(values[0], ast.AnnAssign) \
                    and name not in params:
                env[name] = self.idx.annotation_class(self.path, values[0].annotation)
        return env

    def _attribute(self, node: ast.Attribute, env: dict[str, Obj | None]) -> None:
        attr = node.attr
        if attr.startswith("__") and attr.endswith("__"):
            return
        owner = self.type_of(node.value, env)
        if owner is not None and not self.core(owner):
            owner = self._inherited_from(owner, attr)
        if not self.core(owner):
            return
        assert owner is not None
        names, why = self.idx.members(owner)
        if why:
            self.skip(why)
            return
        self.count("attribute")
        if attr in names:
            return
        if self._on_subclass(owner, attr):
            self.skip("defined on a subclass of the annotated class")
            return
        if not _is_dataclass(owner) and self._set_from_outside(attr):
            self.skip("assigned on instances from outside the class")
            return
        if attr in self._extension_fields().get(owner.qualname.rsplit(".", 1)[-1], ()):
            self.skip("declared by an extension module the folder names")
            return
        if self._narrowed(node):
            self.skip("read under an isinstance/hasattr test")
            return
        self.broken.append(BrokenRef(
            "attribute", attr, owner.qualname, owner.path, f"{self.path}:{node.lineno}",
            self._severity(node), detail=f"`{ast.unparse(node)[:80]}`"))

    def _module_attr(self, node: ast.Attribute, env: dict[str, Obj | None]) -> None:
        """``m.X`` where ``m`` names a core module (``import core.m as m``, ``from core
        import m``, ``import core.m``): ``X`` must be defined, re-exported or a submodule
        there at HEAD, or Python raises AttributeError when the line runs. A module whose
        names cannot all be known (``__getattr__``, a star import) is counted not
        checked; an alias bound under an optional import, a name other code sets on the
        module, a read under hasattr/try or only for the type checker is no finding."""
        attr = node.attr
        if attr.startswith("__") and attr.endswith("__"):
            return
        dotted = _dotted(node.value)
        if not dotted or dotted.split(".")[0] in env:
            return
        obj = self.idx.resolve(self.path, dotted)
        if obj is None or obj.kind != "module" or not obj.qualname or not self.core(obj):
            return
        found = self.idx.lookup(obj.qualname, attr)
        if found is DYNAMIC or (found is None and _binds_at_run_time(
                self.inp.head.files.get(obj.path, ""))):
            self.skip("the module's names cannot all be known")
            return
        self.count("module attribute")
        if found is not None:
            return
        if self._optional_alias(dotted.split(".")[0]):
            self.skip("the module is imported under an optional block")
            return
        if self._set_from_outside(attr) or self._setattr_named(attr):
            self.skip("assigned on the module from outside")
            return
        if self._narrowed(node) or self._type_only(node):
            self.skip("read under a guard or only for the type checker")
            return
        self.broken.append(BrokenRef(
            "module", attr, obj.qualname, obj.path, f"{self.path}:{node.lineno}",
            self._severity(node), detail=f"{dotted}.{attr}"))

    def _optional_alias(self, name: str) -> bool:
        """Whether an import binding ``name`` in the current file is under an optional
        block (``if TYPE_CHECKING``, a ``try`` catching import errors)."""
        assert self._mod is not None
        guarded = coreindex.guarded_imports(self._mod)
        return any(id(n) in guarded and name in {n for n, _v in _bindings(n)}
                   for n in ps.statements(self._mod)
                   if isinstance(n, (ast.Import, ast.ImportFrom)))

    def _setattr_named(self, attr: str) -> bool:
        # Memoized like _set_from_outside: every read of the same missing name asks it,
        # and each answer scans every file of the tree.
        if attr not in self._setattr_sets:
            pat = re.compile(rf"setattr\([^)]*[\"']{re.escape(attr)}[\"']")
            self._setattr_sets[attr] = any(
                attr in text and pat.search(text)
                for p, text in self.inp.head.files.items() if p.endswith(".py"))
        return self._setattr_sets[attr]

    def _type_only(self, node: ast.AST) -> bool:
        """Inside an annotation or an ``if TYPE_CHECKING:`` body: never run, or not as
        a module attribute read."""
        child, cur = node, self.guard.get(id(node))
        while cur is not None:
            if isinstance(cur, ast.AnnAssign) and child is cur.annotation:
                return True
            if isinstance(cur, ast.arg) or (isinstance(cur, ps.FuncDef.__args__)
                                            and child is cur.returns):
                return True
            if isinstance(cur, ast.If) and child in cur.body \
                    and "TYPE_CHECKING" in ast.unparse(cur.test):
                return True
            child, cur = cur, self.guard.get(id(cur))
        return False

    def _inherited_from(self, own: Obj, attr: str) -> Obj | None:
        """For a sub-project class with core bases: the core base that had ``attr`` at
        the baseline, when the class (with all its bases) lacks it at HEAD; a name
        only core could have provided, removed in the window."""
        base_tree = self.inp.base
        if base_tree is None or not isinstance(own.node, ast.ClassDef):
            return None
        names, why = self.idx.members(own)
        if why or attr in names:
            return None
        base_idx = coreindex.for_tree(base_tree)
        for b in own.node.bases:
            src = ast.unparse(b.value if isinstance(b, ast.Subscript) else b)
            now = self.idx.resolve(own.path, src)
            if not self.core(now):
                continue
            assert now is not None
            then = base_idx.resolve(now.path, now.qualname) if now.path in base_tree.files \
                else None
            if then is not None and then.kind == "class":
                had, why_then = base_idx.members(then)
                if not why_then and attr in had:
                    return now
        return None

    def _keywords(self, node: ast.Call, env: dict[str, Obj | None]) -> None:
        obj, method = self.callee(node.func, env)
        if not self.core(obj):
            return
        assert obj is not None
        accepted, why = self._accepted(obj, method)
        if why:
            self.skip(why)
            return
        if accepted is None:
            return
        self.count("keyword")
        for k in node.keywords:
            if k.arg and k.arg not in accepted:
                name = obj.qualname if obj.kind == "class" else (
                    f"{obj.qualname}.{obj.node.name}" if method and obj.qualname  # type: ignore[union-attr]
                    else getattr(obj.node, "name", ""))
                self.broken.append(BrokenRef(
                    "keyword", k.arg, name, obj.path, f"{self.path}:{node.lineno}",
                    self._severity(node), detail=f"`{ast.unparse(node.func)[:60]}(…)`"))

    def _arguments(self, node: ast.Call, env: dict[str, Obj | None]) -> None:
        """A call of a core function that cannot bind at HEAD: a required parameter it
        does not pass, more positional arguments than the function takes (#22 defect
        5: code that breaks now). Unknown keywords are ``_keywords``' finding. Only
        plain functions and methods: a decorator may change the signature, and a
        method some subclass overrides may be called on that subclass."""
        obj, bound = self.callee(node.func, env)
        if not self.core(obj) or obj is None or obj.kind != "func" \
                or not isinstance(obj.node, ps.FuncDef.__args__):
            return
        fn = obj.node
        decos = [ast.unparse(d.func if isinstance(d, ast.Call) else d)
                 for d in fn.decorator_list]
        if any(d not in _PLAIN_DECORATORS for d in decos):
            return
        if obj.qualname:
            cls = self.idx.resolve(obj.path, obj.qualname)
            if cls is None or cls.kind != "class" or self._on_subclass(cls, fn.name):
                return
        method = bound or "classmethod" in decos or (
            bool(obj.qualname) and isinstance(node.func, ast.Attribute)
            and self.type_of(node.func.value, env) is not None)
        sig = usecheck.params(fn, method=method)
        name = f"{obj.qualname}.{fn.name}" if obj.qualname else fn.name
        for problem in usecheck.call_problems(node, sig):
            if problem.startswith("passes `"):
                continue  # an unknown keyword: reported by ``_keywords``
            if problem.startswith("does not pass required `"):
                what = problem.split("`")[1]
            else:
                what = f"{len(node.args)} positional"
            self.broken.append(BrokenRef(
                "argument", what, name, obj.path, f"{self.path}:{node.lineno}",
                self._severity(node),
                detail=f"{obj.path}:{fn.lineno} `{ps.signature(fn)[:100]}`"))

    def _accepted(self, obj: Obj, method: bool) -> tuple[set[str] | None, str]:
        """Keyword names a callable accepts (``None``: any), or why unknown."""
        if obj.kind == "func" and isinstance(obj.node, ps.FuncDef.__args__):
            return _func_accepts(obj.node, method or bool(obj.qualname))
        if obj.kind != "class":
            return None, ""
        return self._class_accepts(obj, 0)

    def _class_accepts(self, cls: Obj, depth: int) -> tuple[set[str] | None, str]:
        node = cls.node
        assert isinstance(node, ast.ClassDef)
        if depth > coreindex.MAX_DEPTH:
            return None, "deep base chain"
        if any(k.arg == "metaclass" for k in node.keywords):
            return None, "a metaclass decides the constructor"
        own = {s.name: s for s in node.body if isinstance(s, ps.FuncDef.__args__)}
        if "__new__" in own:
            return None, "the class defines __new__"
        if "__init__" in own:
            return _func_accepts(own["__init__"], True)
        if _is_dataclass(cls):
            return self._dataclass_fields(cls, 0)
        for src, found in self._bases(cls):
            if found is None or found.kind != "class":
                return None, f"base `{src}` is outside the repository"
            return self._class_accepts(found, depth + 1)
        return None, ""  # ``object``'s constructor: nothing worth saying

    def _bases(self, cls: Obj) -> Iterator[tuple[str, Obj | None]]:
        """Each base of ``cls`` that can add constructor parameters, as written and as
        resolved (None: not in the repository); resolved only when asked for, so a
        caller that stops at the first base looks up no other."""
        assert isinstance(cls.node, ast.ClassDef)
        for base in cls.node.bases:
            src = ast.unparse(base.value if isinstance(base, ast.Subscript) else base)
            if src not in _PLAIN_BASES:
                yield src, self.idx.resolve(cls.path, src)

    def _dataclass_fields(self, cls: Obj, depth: int) -> tuple[set[str] | None, str]:
        node = cls.node
        assert isinstance(node, ast.ClassDef)
        out: set[str] = set()
        if depth > coreindex.MAX_DEPTH:
            return None, "deep base chain"
        for src, found in self._bases(cls):
            if found is None or found.kind != "class":
                return None, f"base `{src}` is outside the repository"
            if not _is_dataclass(found):
                if any(isinstance(s, ps.FuncDef.__args__) and s.name == "__init__"
                       for s in found.node.body):  # type: ignore[union-attr]
                    continue
                more, why = self._class_accepts(found, depth + 1)
                if why or more is None:
                    continue
                out |= more
                continue
            more, why = self._dataclass_fields(found, depth + 1)
            if why or more is None:
                return None, why or "unknown base fields"
            out |= more
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                ann = ast.unparse(stmt.annotation)
                if "ClassVar" in ann:
                    continue
                if isinstance(stmt.value, ast.Call) and any(
                        k.arg == "init" and isinstance(k.value, ast.Constant)
                        and k.value.value is False for k in stmt.value.keywords):
                    out.discard(stmt.target.id)
                    continue
                out.add(stmt.target.id)
        return out, ""

    def _imports(self, path: str, mod: ast.Module) -> None:
        dotted_sub = self.sub.rstrip("/").replace("/", ".")
        guarded = coreindex.guarded_imports(mod)
        for node in ps.statements(mod):
            if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                continue
            module = node.module
            if module == dotted_sub or module.startswith(dotted_sub + ".") \
                    or not self.idx.in_repo(module) or id(node) in guarded:
                continue
            for a in node.names:
                if a.name == "*":
                    continue
                found = self.idx.lookup(module, a.name)
                if found is DYNAMIC:
                    self.skip("the module's names cannot all be known")
                    continue
                self.count("import")
                if found is None:
                    gone = self.idx.module_file(module) is None and not \
                        self.idx.is_namespace(module)
                    self.broken.append(BrokenRef(
                        "import", a.name, module, self.idx.module_file(module) or "",
                        f"{path}:{node.lineno}", self._severity(node),
                        detail="the module is gone" if gone else ""))

    # -- guards against false alarms ------------------------------------------------------
    def _on_subclass(self, owner: Obj, attr: str) -> bool:
        """Whether a subclass of ``owner`` (anywhere in the repository, four levels down)
        defines ``attr`` or may (members it cannot know): the object in hand, or the
        method a call reaches, may then be that subclass's."""
        index = classindex.for_tree(self.inp.head)
        seen: set[int] = set()
        todo = [owner.qualname]
        for _ in range(4):
            nxt: list[str] = []
            for name in todo:
                for sub in index.subclasses(name):
                    if id(sub) in seen:
                        continue
                    seen.add(id(sub))
                    names, why = CoreIndex.own_members(sub)
                    if attr in names or why:
                        return True
                    nxt.append(index.qualname(sub))
            todo = nxt
        return False

    def _extension_fields(self) -> dict[str, set[str]]:
        """Class name -> fields, of the dataclasses in the extension modules the folder
        names: a dotted module of the repository written as a string value in one of its
        files (a config's ``custom args module = "pkg.ext"``, a ``merge("pkg.ext")``
        call). A loader that merges such a module into the configuration adds its
        sections' fields to core's classes of the same name (#22, set 17 kind b)."""
        if self._ext is None:
            self._ext = {}
            for file in named_modules(self.inp.head, self.sub):
                mod = ps.parse(self.inp.head.text(file) or "")
                for node in mod.body if mod is not None else ():
                    if isinstance(node, ast.ClassDef) and _dataclass_node(node):
                        self._ext.setdefault(node.name, set()).update(ps.class_fields(node))
        return self._ext

    def _set_from_outside(self, attr: str) -> bool:
        if attr not in self._outside_sets:
            pat = re.compile(rf"(?<!\bself)\.{re.escape(attr)}\s*=(?!=)")
            self._outside_sets[attr] = any(
                f".{attr}" in text and pat.search(text)
                for p, text in self.inp.head.files.items() if p.endswith(".py"))
        return self._outside_sets[attr]

    def _narrowed(self, node: ast.AST) -> bool:
        """Under ``if isinstance(…)`` / ``hasattr(…)`` / ``getattr(…)`` (the object may be
        another class there) or inside a ``try`` that catches AttributeError."""
        cur = self.guard.get(id(node))
        while cur is not None and not isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                       ast.Module)):
            if isinstance(cur, (ast.If, ast.IfExp, ast.While, ast.Assert)):
                test = ast.unparse(cur.test)
                if "isinstance(" in test or "hasattr(" in test or "getattr(" in test:
                    return True
            if isinstance(cur, ast.Try) and any(
                    h.type is None or "AttributeError" in ast.unparse(h.type)
                    or ast.unparse(h.type) == "Exception" for h in cur.handlers):
                return True
            cur = self.guard.get(id(cur))
        return False

    def _severity(self, node: ast.AST) -> str:
        del node
        return "should-fix" if is_test_path(self.path) else "blocking"


_MODULE_STRING = re.compile(r"""["']([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)["']""")


def named_modules(head: Tree, sub: str) -> list[str]:
    """Files of the repository's modules that a file under ``sub`` names as a dotted
    string value (a config's ``custom args module = "pkg.ext"``, a ``merge("pkg.ext")``
    call), in the order the folder's files name them; a string naming no module of the
    tree is passed over. Corerefs and configkeys read a folder's config extensions from
    these."""
    files: list[str] = []
    seen: set[str] = set()
    for path, text in head.files.items():
        if not path.startswith(sub):
            continue
        for dotted in _MODULE_STRING.findall(text):
            if dotted in seen:
                continue
            seen.add(dotted)
            file = ps.module_path(dotted, head.paths)
            if file:
                files.append(file)
    return files


def _dotted(expr: ast.expr) -> str:
    return ".".join(ps.name_chain(expr))


# A module that binds its own names at run time: ``globals()`` written, its entry in
# ``sys.modules`` reached, ``exec``. Its top level does not list everything it has.
_RUNTIME_NAMES = re.compile(r"\bglobals\(\)|sys\.modules\[|\bexec\(")


def _binds_at_run_time(text: str) -> bool:
    return bool(_RUNTIME_NAMES.search(text))


def _is_self_attr(target: ast.expr, me: str, attr: str) -> bool:
    return isinstance(target, ast.Attribute) and target.attr == attr \
        and isinstance(target.value, ast.Name) and target.value.id == me


def _is_dataclass(cls: Obj) -> bool:
    return isinstance(cls.node, ast.ClassDef) and _dataclass_node(cls.node)


def _dataclass_node(node: ast.ClassDef) -> bool:
    """Decorated ``@dataclass`` / ``@dataclasses.dataclass(...)``: the decorator's last
    name is ``dataclass`` itself, not a name merely containing it."""
    return ps.dataclass_decorator(node) is not None


def _func_accepts(func: ps.FuncDef, method: bool) -> tuple[set[str] | None, str]:
    for d in func.decorator_list:
        name = ast.unparse(d.func if isinstance(d, ast.Call) else d)
        if name not in _PLAIN_DECORATORS and not name.endswith(".setter"):
            return None, f"decorator `{name}` may change the signature"
    sig = usecheck.params(func, method=method)
    if sig.varkw:
        return None, ""
    return set(sig.names) - set(sig.posonly), ""


_SCOPES = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _shallow(body: list[ast.stmt], nested: list[ast.AST]) -> list[ast.AST]:
    """Every node of ``body`` not inside a nested function or class (those go to
    ``nested``); lambdas and comprehensions are walked as part of their function."""
    out: list[ast.AST] = []
    stack: list[ast.AST] = list(reversed(body))
    pop, push, extend, AST = stack.pop, stack.append, stack.extend, ast.AST
    while stack:
        n = pop()
        if isinstance(n, _SCOPES):
            nested.append(n)
            extend(n.decorator_list)
            continue
        out.append(n)
        for name in n._fields:
            v = getattr(n, name, None)
            if isinstance(v, list):
                extend(x for x in v if isinstance(x, AST))
            elif isinstance(v, AST):
                push(v)
    return out


_BINDERS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor,
            ast.comprehension, ast.withitem, ast.NamedExpr, ast.ExceptHandler, ast.Global,
            ast.Nonlocal, ast.Import, ast.ImportFrom, ast.Delete)


def _bindings(node: ast.AST) -> list[tuple[str, ast.AST]]:
    """(name, value) for each local name a statement binds; the value is the assigned
    expression, the ``AnnAssign`` itself, or the statement (an untyped binding)."""
    if isinstance(node, ast.Assign):
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            return [(node.targets[0].id, node.value)]
        return [(n.id, node) for t in node.targets for n in ast.walk(t)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [(node.target.id, node)]
    if isinstance(node, (ast.AugAssign, ast.For, ast.AsyncFor, ast.comprehension)):
        return [(n.id, node) for n in ast.walk(node.target) if isinstance(n, ast.Name)
                and isinstance(n.ctx, ast.Store)]
    if isinstance(node, ast.withitem) and node.optional_vars is not None:
        return [(n.id, node) for n in ast.walk(node.optional_vars)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    if isinstance(node, ast.NamedExpr):
        return [(node.target.id, node)]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [(node.name, node)]
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return [(n, node) for n in node.names]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [((a.asname or a.name).split(".")[0], node) for a in node.names]
    if isinstance(node, ast.Delete):
        return [(n.id, node) for t in node.targets for n in ast.walk(t)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Del)]
    return []


def _scan(inp: Inputs) -> CoreRefs:
    checker = _Checker(inp)
    for path, text in sorted(inp.head.files.items()):
        if path.startswith(checker.sub) and path.endswith(".py"):
            start = len(checker.broken)
            checker.scan_file(path, text)
            if len(checker.broken) > start and "sys" in text and "__file__" in text:
                kept = _past_path_entries(path, text, checker.broken[start:], inp.head.paths,
                                          checker.skip)
                checker.broken[start:] = kept
    return CoreRefs(tuple(dict.fromkeys(checker.broken)), dict(checker.checked),
                    dict(checker.unchecked))


def scan(inp: Inputs) -> CoreRefs:
    """The broken references at HEAD (cached on the tree), before attribution."""
    key = ("corerefs", inp.target.subproject)
    if key not in inp.head.cache:
        inp.head.cache[key] = _scan(inp)
    return inp.head.cache[key]


def _existed(inp: Inputs, ref: BrokenRef) -> bool:
    """Whether the name was there at the baseline (then the window removed it); for an
    argument, whether the function was there and bound the call differently."""
    if inp.base is None:
        return False
    if ref.kind == "argument":
        if not ref.owner_file or ref.owner_file not in inp.head.files:
            return False
        state = _state(ref)
        then = state(inp.base.text(ref.owner_file))
        return then is not None and then != state(inp.head.files[ref.owner_file])
    base_idx = coreindex.for_tree(inp.base)
    if ref.kind in ("import", "module"):
        found = base_idx.lookup(ref.owner, ref.name)
        return found is not None
    if not ref.owner_file or ref.owner_file not in inp.base.files:
        return False
    owner = base_idx.resolve(ref.owner_file, ref.owner.split(".")[0]) if ref.owner else None
    for part in ref.owner.split(".")[1:]:
        if owner is None or not isinstance(owner.node, ast.ClassDef):
            break
        inner = next((n for n in owner.node.body if isinstance(n, ast.ClassDef)
                      and n.name == part), None)
        if inner is None:
            # ``Class.method`` for a keyword: the method is in the class body
            fn = next((n for n in owner.node.body if isinstance(n, ps.FuncDef.__args__)
                       and n.name == part), None)
            if fn is not None and ref.kind == "keyword":
                accepted, _why = _func_accepts(fn, True)
                return accepted is None or ref.name in accepted
            owner = None
            break
        owner = Obj("class", owner.path, inner, f"{owner.qualname}.{part}")
    if owner is None:
        return False
    if ref.kind == "attribute" and owner.kind == "class":
        names, why = base_idx.members(owner)
        return not why and ref.name in names
    if ref.kind == "keyword":
        if owner.kind == "func" and isinstance(owner.node, ps.FuncDef.__args__):
            accepted, _why = _func_accepts(owner.node, False)
            return accepted is None or ref.name in accepted
        if owner.kind == "class":
            fields_ = _BaseFields(inp).accepts(owner)
            return fields_ is None or ref.name in fields_
    return False


class _BaseFields(_Checker):
    """The constructor check, run against the baseline's index."""

    def __init__(self, inp: Inputs) -> None:
        super().__init__(inp)
        assert inp.base is not None
        self.idx = coreindex.for_tree(inp.base)

    def accepts(self, cls: Obj) -> set[str] | None:
        accepted, why = self._class_accepts(cls, 0)
        return None if why else accepted


def upstream_files(inp: Inputs) -> set[str]:
    """Core files of the broken references that were there at the baseline: their
    history names the commit that removed the name."""
    return {r.owner_file for r in scan(inp).broken if r.owner_file and _existed(inp, r)}


def _state(ref: BrokenRef):
    def state(text: str | None) -> object:
        mod = ps.parse(text) if text is not None else None
        if mod is None:
            return None
        if ref.kind in ("import", "module"):
            return ref.name in ps.top_level_defs(text) or ref.name in ps.imports(mod)
        node = ps.find(mod, ref.owner)
        if ref.kind == "argument":
            return _binding_state(node, ref.name)
        if isinstance(node, ast.ClassDef):
            if ref.kind == "attribute":
                return ref.name in CoreIndex.own_members(node)[0]
            init = next((s for s in node.body if isinstance(s, ps.FuncDef.__args__)
                         and s.name == "__init__"), None)
            return ref.name in (ps.param_names(init) if init else
                                ps.class_fields(node))
        if isinstance(node, ps.FuncDef.__args__):
            return ref.name in ps.param_names(node)
        return None
    return state


def _binding_state(node: ast.AST | None, name: str) -> object:
    """What decides whether a call binds: for ``N positional``, how many positional
    parameters the function takes (None: any); else whether ``name`` is required."""
    if not isinstance(node, ps.FuncDef.__args__):
        return None
    a = node.args
    if name.endswith(" positional"):
        return None if a.vararg else len(a.posonlyargs) + len(a.args)
    defaulted = {p.arg for p in (*a.posonlyargs, *a.args)[len(a.posonlyargs) + len(a.args)
                                                           - len(a.defaults):]}
    defaulted |= {p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)
                  if d is not None}
    return name in ps.param_names(node) and name not in defaulted


def analyse(inp: Inputs, use_checks: list[usecheck.UseCheck] | None = None) -> CoreRefs:
    """Broken references at HEAD, each with the commit that broke it (when the window
    shows it) and without the calls ``use_checks`` already reports as breaking."""
    found = scan(inp)
    reported = {s.loc for u in use_checks or () for s in u.sites if s.verdict == "breaks"}
    out = []
    for ref in found.broken:
        if ref.kind in ("keyword", "argument") and ref.loc in reported:
            continue
        if _existed(inp, ref):
            sha = attribution.introduced(inp, ref.owner_file, _state(ref)) \
                if ref.owner_file else ""
            out.append(BrokenRef(**{**ref.__dict__, "commit": sha, "when": "in the window"}))
        elif inp.base is not None and ref.owner_file and ref.kind not in ("import", "module") \
                and _owner_at(inp.head.files.get(ref.owner_file), ref.owner) \
                and not _owner_at(inp.base.text(ref.owner_file), ref.owner):
            # What the name is looked up on did not exist at the baseline: the break came
            # with it, in the window (never "before the window").
            sha = attribution.introduced(
                inp, ref.owner_file, lambda text, o=ref.owner: _owner_at(text, o))
            out.append(BrokenRef(**{**ref.__dict__, "commit": sha,
                                    "when": "owner new in the window"}))
        else:
            out.append(BrokenRef(**{**ref.__dict__, "when": "before the window"
                                    if inp.base is not None else "before HEAD"}))
    return CoreRefs(tuple(out), found.checked, found.unchecked)


def _owner_at(text: str | None, owner: str) -> bool:
    """Whether a file's text defines ``owner`` (a dotted class or function path)."""
    mod = ps.parse(text) if text is not None else None
    return mod is not None and ps.find(mod, owner) is not None


# -- a script's own ``sys.path`` entries --------------------------------------------------
def _top_names(folder: str, paths: frozenset[str] | set[str]) -> set[str]:
    """The top-level modules and packages a folder on ``sys.path`` offers."""
    prefix = f"{folder}/" if folder else ""
    out: set[str] = set()
    for p in paths:
        if p.startswith(prefix):
            first = p[len(prefix):].split("/", 1)
            out.add(first[0].removesuffix(".py") if len(first) == 1 else first[0])
    return out


def _past_path_entries(path: str, text: str, found: list[BrokenRef],
                       paths: frozenset[str] | set[str], skip: Callable[[str], None]
                       ) -> list[BrokenRef]:
    """``found`` (one module's broken references) without those to a module the
    module's own ``sys.path`` entries may resolve elsewhere: a folder built from
    ``__file__`` inserted first that holds the module's top package resolves it there
    (the folder's own module, not core's); one appended, or one whose folder cannot be
    told statically, may: each such reference is counted "not checked (why)"."""
    mod = ps.parse(text)
    entries = ps.path_entries(path, mod) if mod is not None else []
    if not entries:
        return found
    kept: list[BrokenRef] = []
    for ref in found:
        top = (ref.owner_file.split("/", 1)[0].removesuffix(".py") if ref.owner_file
               else ref.owner.split(".", 1)[0])
        why = ""
        for how, folder in entries:
            if folder is None:
                why = "a sys.path entry built from __file__ that cannot be resolved statically"
            elif top in _top_names(folder, paths) and folder:
                why = ("the module's own sys.path entry resolves it in its folder first"
                       if how == "insert" else
                       "the module's own sys.path entry may resolve it in its folder")
            if why:
                break
        if why:
            skip(why)
        else:
            kept.append(ref)
    return kept
