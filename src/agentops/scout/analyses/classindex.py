"""Classes across the loaded sources, found without parsing everything: a regex
pre-scan maps class names (and textual bases) to files, and a file is parsed only when
a class in it is asked for, so a large checkout costs a few parses, not hundreds. Used
to resolve config classes (docs flags, config copies), subclasses (monkey-patches an
override bypasses) and factories.

Pure: source texts in, AST nodes out.
"""

from __future__ import annotations

import ast
import re

from agentops.scout.analyses import pysource as ps

_CLASS_RE = re.compile(r"^[ \t]*class[ \t]+(\w+)[ \t]*(?:\(([^)]*)\))?", re.M)


class ClassIndex:
    """Classes by name, their files, fields (through bases and subclasses) and
    subclasses, parsed lazily."""

    def __init__(self, files: dict[str, str]) -> None:
        self._files = files
        self._path_of: dict[int, str] = {}
        self._types: dict[int, list[ast.ClassDef] | None] = {}
        self.memo: dict[object, object] = {}  # derived results its users cache here
        self._parsed: dict[str, list[ast.ClassDef]] = {}
        self._subs: dict[str, list[ast.ClassDef]] = {}
        self._fields: dict[tuple[object, ...], dict[str, ast.AnnAssign] | None] = {}
        self._where: dict[str, set[str]] = {}
        self._sub_where: dict[str, set[str]] = {}  # base text (whole and last part) -> files
        self._qualname: dict[int, str] = {}
        for path, text in files.items():
            if not path.endswith(".py") or "class" not in text:
                continue
            for m in _CLASS_RE.finditer(text):
                self._where.setdefault(m.group(1), set()).add(path)
                for base in (m.group(2) or "").split(","):
                    whole = base.strip().split("[")[0]
                    last = whole.split(".")[-1]
                    if last:
                        self._sub_where.setdefault(last, set()).add(path)
                        self._sub_where.setdefault(whole, set()).add(path)

    def _classes_in(self, paths: set[str]) -> list[ast.ClassDef]:
        out: list[ast.ClassDef] = []
        for path in sorted(paths):
            if path not in self._parsed:
                mod = ps.parse(self._files[path])
                self._parsed[path] = [] if mod is None else [
                    n for n in ps.statements(mod) if isinstance(n, ast.ClassDef)]
                for cls in self._parsed[path]:
                    self._path_of[id(cls)] = path
                if mod is not None:
                    self._name_nested(mod.body, "")
            out += self._parsed[path]
        return out

    def resolve(self, dotted: str) -> list[ast.ClassDef]:
        """Classes named ``A`` or ``A.B`` (nested)."""
        first, *rest = dotted.split(".")
        found = [c for c in self._classes_in(self._where.get(first, set())) if c.name == first]
        for part in rest:
            found = [n for c in found for n in c.body
                     if isinstance(n, ast.ClassDef) and n.name == part]
        return found

    def _name_nested(self, body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                name = f"{prefix}{node.name}"
                self._qualname[id(node)] = name
                self._name_nested(node.body, name + ".")

    def qualname(self, cls: ast.ClassDef) -> str:
        """``Trainer.Config`` for a class nested in ``Trainer`` (its own name else)."""
        return self._qualname.get(id(cls), cls.name)

    def path(self, cls: ast.ClassDef) -> str:
        """The file a resolved class is defined in."""
        return self._path_of.get(id(cls), "")

    def subclasses(self, name: str) -> list[ast.ClassDef]:
        """Classes whose bases name ``name``: a dotted name (``Trainer.Config``) must
        appear whole (so the many ``class Config(X.Config)`` are not all parsed), a
        plain one as the last part of a base."""
        if name not in self._subs:
            if "." in name:
                match = (lambda b: b == name or b.endswith("." + name))  # noqa: E731
            else:
                match = (lambda b: b.split(".")[-1] == name)  # noqa: E731
            self._subs[name] = [c for c in self._classes_in(self._sub_where.get(name, set()))
                                if any(match(ast.unparse(b).split("[")[0]) for b in c.bases)]
        return self._subs[name]

    def fields(self, classes: list[ast.ClassDef], depth: int = 0, *,
               subclasses: bool = True) -> dict[str, ast.AnnAssign] | None:
        """Fields of the classes, their bases and (with ``subclasses``) subclasses;
        ``None`` when a base cannot be resolved (then nothing can be said to be
        missing)."""
        key = (depth, subclasses, *(id(c) for c in classes))
        if key not in self._fields:
            self._fields[key] = self._compute_fields(classes, depth, subclasses)
        return self._fields[key]

    def _compute_fields(self, classes: list[ast.ClassDef], depth: int, subclasses: bool
                        ) -> dict[str, ast.AnnAssign] | None:
        out: dict[str, ast.AnnAssign] = {}
        for cls in classes:
            for stmt in cls.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    out.setdefault(stmt.target.id, stmt)
            if depth > 6:
                continue
            for base in cls.bases:
                src = ast.unparse(base)
                if src in ("object", "Generic") or src.startswith(("Generic[", "Protocol")):
                    continue
                resolved = self.resolve(src)
                if not resolved:
                    return None
                more = self.fields(resolved, depth + 1)
                if more is None:
                    return None
                for k, v in more.items():
                    out.setdefault(k, v)
            for sub in self.subclasses(self.qualname(cls)) if depth == 0 and subclasses \
                    else []:
                for stmt in sub.body:
                    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                        out.setdefault(stmt.target.id, stmt)
        return out

    def types_of(self, field: ast.AnnAssign) -> list[ast.ClassDef] | None:
        """Classes a field's annotation (and default_factory) names; ``None`` when any
        name cannot be resolved (cached per field)."""
        if id(field) not in self._types:
            self._types[id(field)] = self._types_of(field)
        return self._types[id(field)]

    def _types_of(self, field: ast.AnnAssign) -> list[ast.ClassDef] | None:
        exprs: list[ast.expr] = [field.annotation]
        if isinstance(field.value, ast.Call):
            exprs += [k.value for k in field.value.keywords if k.arg == "default_factory"]
        out: list[ast.ClassDef] = []
        for expr in exprs:
            for node in ast.walk(expr):
                if isinstance(node, (ast.Name, ast.Attribute)) and not isinstance(
                        getattr(node, "ctx", None), ast.Store):
                    src = ast.unparse(node)
                    if src in ("None", "str", "int", "float", "bool", "list", "dict",
                               "Literal", "Annotated", "Optional", "tuple", "Any"):
                        continue
                    if src.startswith(("tyro.", "typing.", "torch.")):
                        continue
                    out += self.resolve(src) or self._resolve_qualified(src)
        return out or None

    def alias(self, name: str) -> ast.expr | None:
        """The right side of a module-level type alias ``Name = Literal[...]`` (or
        ``Name: TypeAlias = ...``) when exactly one loaded file defines ``name``."""
        key = ("alias", name)
        if key not in self.memo:
            pat = re.compile(rf"^{re.escape(name)}\s*(?::\s*TypeAlias\s*)?=\s*(.+)$", re.M)
            found = [m.group(1) for text in self._files.values()
                     if name in text for m in pat.finditer(text)]
            expr = None
            if len(set(found)) == 1:
                try:
                    expr = ast.parse(found[0], mode="eval").body
                except SyntaxError:  # a value continued on the next lines
                    expr = None
            self.memo[key] = expr
        return self.memo[key]  # type: ignore[return-value]

    def _resolve_qualified(self, src: str) -> list[ast.ClassDef]:
        """``m.MetricsProcessor.Config`` (a module alias in front): the class part,
        found by dropping the leading lowercase (module) names."""
        parts = src.split(".")
        while len(parts) > 1 and parts[0][:1].islower():
            parts = parts[1:]
        rest = ".".join(parts)
        return self.resolve(rest) if rest != src and rest[:1].isupper() else []


def for_tree(tree: object) -> ClassIndex:
    """The class index of a loaded tree, built once per tree."""
    cache = tree.cache
    if "classes" not in cache:
        cache["classes"] = ClassIndex(tree.files)
    return cache["classes"]
