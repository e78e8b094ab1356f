"""Config-class fields against the attributes code reads (#22, group I): the
sub-project's own dataclasses (model args, component configs) checked both ways.

- **Dead field**: a field that no code of the repository reads — no attribute read on
  an object that may be of the class (its own type, a base or subclass, or a type the
  code does not state), no string naming it (``getattr``, key maps): setting it in a
  flavor or config changes nothing.
- **Undeclared read**: an attribute read on an object whose stated type is the
  dataclass, where the class (with its bases) neither declares nor sets it in
  ``__init__`` / ``__post_init__``, only in another method (``update_from_config``):
  any path that builds the config without calling that method fails with
  AttributeError. When that method sets it from a setting whose name is a dead field
  of the same class, the field is read under another name, and the two are one finding.

Types come from what the code states (``corerefs``' resolution: annotations,
constructor calls, ``self``); a read whose object type is not stated counts as a read
of every class that has the field, so a dead field is one nothing can be reading.

Pure: the loaded tree in, frozen records out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout.analyses import classindex, coreindex, corerefs
from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.coreindex import Obj
from agentops.scout.config import is_test_path
from agentops.scout.model import Inputs

# Calls that read every field of a dataclass at once: a class handed to one of these
# (anywhere its name is used) has no field that is certainly unread.
_GENERIC_READS = frozenset({"asdict", "astuple", "fields", "vars", "__dict__"})
# Dict methods that touch one key (``x.__dict__.setdefault("k", 0)``).
_KEYED_METHODS = frozenset({"get", "setdefault", "pop"})
# Methods that run whenever the class is built: an attribute they set always exists.
_BUILDERS = frozenset({"__init__", "__post_init__", "__new__", "__attrs_post_init__"})
MAX_FIELDS = 400  # fields judged per run (bounded work on a hostile tree)
# Files outside the sub-project typed (parsed, names resolved) per run to settle reads
# the text leaves open; past it such a read counts as one (speed: one report <= 10 s).
MAX_TYPED_FILES = 12
# ``receiver.`` right before an attribute: group 1 is a dot when the receiver is itself
# an attribute (a chain), group 2 the receiver's name.
_RECEIVER = re.compile(r"(\.?)\b([A-Za-z_]\w*)\s*\.")
# ``self.x = y.name`` alone on a line: a read that may only copy the value (typed to
# tell; any other read on a stated type counts at once).
_COPY_LINE = re.compile(r"[ \t]*self\.\w+[ \t]*=[ \t]*[\w.]+[ \t]*(?:#.*)?$")
# Copies followed into their target: a field copied into an attribute copied again.
MAX_COPY_DEPTH = 2
_CLASS_LINE = re.compile(r"^([ \t]*)class[ \t]+(\w+)[ \t]*(?:\(([^)]*)\))?", re.M)


@dataclass(frozen=True)
class DeadField:
    cls: str  # qualified class name
    name: str
    file: str
    line: int
    kind: str = "field"  # "field" of a dataclass | "attribute" set by ``__init__``
    # (Class.attr, file, line): where its only reads copy it, attributes nothing reads.
    copied_to: tuple[tuple[str, str, int], ...] = ()


@dataclass(frozen=True)
class UndeclaredRead:
    cls: str
    name: str
    file: str  # where the class is defined
    line: int  # the class line
    reads: tuple[str, ...]  # file:line of the reads
    set_in: tuple[str, ...]  # "method (file:line)" where it is assigned
    from_field: str = ""  # a dead field of the class it is set from (read under another name)


@dataclass(frozen=True)
class ConfigFields:
    dead: tuple[DeadField, ...] = ()
    undeclared: tuple[UndeclaredRead, ...] = ()
    classes: int = 0  # dataclasses checked


def _classes(inp: Inputs, sub: str) -> list[Obj]:
    """Every class of the sub-project's own (non-test) code, nested ones included."""
    out: list[Obj] = []
    for path in sorted(inp.head.files):
        if not (path.startswith(sub) and path.endswith(".py")) or is_test_path(path):
            continue
        mod = ps.parse(inp.head.files[path])
        if mod is None:
            continue
        stack: list[tuple[ast.stmt, str]] = [(n, "") for n in mod.body]
        while stack:
            node, prefix = stack.pop()
            if isinstance(node, ast.ClassDef):
                qual = prefix + node.name
                out.append(Obj("class", path, node, qual))
                stack += [(n, qual + ".") for n in node.body]
    return out


def _init_attrs(node: ast.ClassDef) -> list[tuple[str, int]]:
    """(name, line) of each ``self.x = value`` statement of ``__init__`` whose value is
    plain data (a name, attribute, constant or arithmetic, no call): a submodule, buffer
    or built component is used through the object graph, not by name."""
    init = next((s for s in node.body if isinstance(s, ps.FuncDef.__args__)
                 and s.name == "__init__"), None)
    if init is None or not init.args.args:
        return []
    me = init.args.args[0].arg
    out = []
    for n in ps.walk(init):
        if not isinstance(n, (ast.Assign, ast.AnnAssign)) or n.value is None:
            continue
        if any(isinstance(v, (ast.Call, ast.Lambda, ast.Await, ast.Yield))
               for v in ast.walk(n.value)):
            continue
        targets = n.targets if isinstance(n, ast.Assign) else [n.target]
        for t in targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) \
                    and t.value.id == me:
                out.append((t.attr, n.lineno))
    return out


def _fields(node: ast.ClassDef) -> list[ast.AnnAssign]:
    out = []
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            ann = ast.unparse(stmt.annotation)
            if "ClassVar" in ann or "InitVar" in ann:
                continue
            out.append(stmt)
    return out


class _Reads(corerefs._Checker):
    """Every attribute read of a file with the class its object resolves to (``None``
    when the code does not state it); keyword checks are not this analysis'."""

    def __init__(self, inp: Inputs) -> None:
        super().__init__(inp)
        self.found: list[tuple[str, Obj | None, str, ast.Attribute]] = []
        self.lines: set[int] | None = None  # only reads on these lines (None: all)

    def _attribute(self, node: ast.Attribute, env: dict[str, Obj | None]) -> None:
        if self.lines is None or node.lineno in self.lines:
            self.found.append((node.attr, self.type_of(node.value, env),
                               f"{self.path}:{node.lineno}", node))

    def _scan(self, nodes: list[ast.AST], nested: list[ast.AST], cls: Obj | None,
              env: dict[str, Obj | None]) -> None:
        # Speed: a function or class with none of the wanted lines is not typed at all.
        lines = self.lines
        if lines is not None:
            nested = [n for n in nested if any(
                n.lineno <= ln <= (n.end_lineno or n.lineno) for ln in lines)]
            nodes = [n for n in nodes if getattr(n, "lineno", -1) in lines]
        super()._scan(nodes, nested, cls, env)

    def _keywords(self, node: ast.Call, env: dict[str, Obj | None]) -> None:
        return


class _Analysis:
    def __init__(self, inp: Inputs) -> None:
        self.inp = inp
        self.idx = coreindex.for_tree(inp.head)
        self.sub = inp.target.subproject.rstrip("/") + "/"
        self.reader = _Reads(inp)
        self._scanned: dict[str, list[tuple[str, Obj | None, str, ast.Attribute]]] = {}
        self._ancestors: dict[int, set[int]] = {}
        self._parents: dict[str, dict[int, ast.AST]] = {}
        self._names: dict[int, set[str]] = {}
        self._members: dict[int, frozenset[str] | None] = {}
        self._typed_left = MAX_TYPED_FILES
        self._typed_files: set[str] = set()
        # (file, class, attribute) of copies found dead: the field's value ends there.
        self.copies: set[tuple[str, str, str, int]] = set()
        self._generic: dict[str, bool] = {}
        self._count: dict[str, int] = {}
        self._files_of: dict[str, set[str]] = {}
        self.py = {p: t for p, t in inp.head.files.items() if p.endswith(".py")}

    def reads_in(self, path: str, name: str = ""
                 ) -> list[tuple[str, Obj | None, str, ast.Attribute]]:
        """The attribute reads of a file: all of them in the sub-project, elsewhere
        those of ``name`` (typed only where the text reads it)."""
        key = path if path.startswith(self.sub) else f"{path}\x00{name}"
        if key not in self._scanned:
            self.reader.found = []
            text = self.py[path]
            self.reader.lines = None if path.startswith(self.sub) else {
                text.count("\n", 0, m.start()) + 1
                for m in re.finditer(rf"\.{re.escape(name)}\b", text)}
            self.reader.scan_file(path, text)
            self._scanned[key] = self.reader.found
        return self._scanned[key]

    def ancestors(self, cls: Obj, depth: int = 0) -> set[int]:
        """ids of the class nodes ``cls`` is or derives from (repository bases)."""
        node = cls.node
        assert isinstance(node, ast.ClassDef)
        if id(node) in self._ancestors:
            return self._ancestors[id(node)]
        out = {id(node)}
        self._ancestors[id(node)] = out
        if depth <= coreindex.MAX_DEPTH:
            for base in node.bases:
                found = self.idx.resolve(cls.path, ast.unparse(
                    base.value if isinstance(base, ast.Subscript) else base))
                if found is not None and found.kind == "class":
                    out |= self.ancestors(found, depth + 1)
        return out

    def related(self, owner: Obj | None, cls: Obj) -> bool:
        """Whether an object stated to be ``owner`` may be an instance of ``cls``."""
        if owner is None or owner.kind != "class":
            return True
        return id(cls.node) in self.ancestors(owner) or id(owner.node) in self.ancestors(cls)

    def index_names(self, classes: list[Obj]) -> None:
        """One pass over the texts: how often each class's simple name occurs, and in
        which files (speed: one regex for all classes, not one per class)."""
        names = sorted({c.qualname.rsplit(".", 1)[-1] for c in classes})
        self._count: dict[str, int] = dict.fromkeys(names, 0)
        self._files_of: dict[str, set[str]] = {n: set() for n in names}
        if not names:
            return
        wanted = set(names)
        # One token scan per file (an alternation of every name is far slower).
        token = re.compile(r"\b[A-Z]\w*" if all(n[:1].isupper() for n in names)
                           else r"\b[A-Za-z_]\w*")
        for path, text in self.py.items():
            for word in token.findall(text):
                if word in wanted:
                    self._count[word] += 1
                    self._files_of[word].add(path)

    def _generic_file(self, path: str) -> bool:
        if path not in self._generic:
            text = self.py[path]
            found = False
            if any(g in text for g in _GENERIC_READS):
                mod = ps.parse(text)
                keyed = set() if mod is None else _keyed_dicts(mod)
                found = mod is None or any(
                    (isinstance(n, ast.Call) and ps.name_chain(n.func)[-1:] != []
                     and ps.name_chain(n.func)[-1] in _GENERIC_READS)
                    or (isinstance(n, ast.Attribute) and n.attr == "__dict__"
                        and id(n) not in keyed)
                    for n in ps.walk(mod))
            self._generic[path] = found
        return self._generic[path]

    def generic(self, cls: Obj) -> bool:
        """A file of the sub-project, or one naming the class, reads fields generically
        (``asdict(x)``, ``fields(x)``, ``vars(x)``, ``x.__dict__``)."""
        files = self.files_naming(cls) | {p for p in self.py if p.startswith(self.sub)}
        return any(self._generic_file(p) for p in sorted(files))

    def used(self, cls: Obj) -> bool:
        """The class is named somewhere besides its own definition."""
        return self._count.get(cls.qualname.rsplit(".", 1)[-1], 0) > 1

    def mentions(self, path: str, cls: Obj) -> bool:
        """A file that may handle the class: the sub-project's own, or one naming it (a
        string elsewhere keys another class's fields)."""
        return path.startswith(self.sub) or path in self.files_naming(cls)

    def files_naming(self, cls: Obj) -> set[str]:
        """Files whose text names the class (indexed for the sub-project's classes,
        searched once for another, such as the holder of a copied value)."""
        name = cls.qualname.rsplit(".", 1)[-1]
        if name not in self._files_of:
            word = re.compile(rf"\b{re.escape(name)}\b")
            self._files_of[name] = {p for p, t in self.py.items()
                                    if name in t and word.search(t)}
        return self._files_of[name]

    def narrowed(self, path: str, node: ast.AST) -> bool:
        """Read under an isinstance/hasattr/getattr test or an AttributeError handler
        (``corerefs``' rule, over this file's parents, built once per file)."""
        mod = ps.parse(self.py[path])
        if mod is None:
            return True
        if path not in self._parents:
            self._parents[path] = coreindex.parents(mod)
        self.reader._mod = mod
        self.reader._parents = self._parents[path]
        return self.reader._narrowed(node)

    def field_read(self, cls: Obj, name: str, depth: int = 0,
                   loads_only: bool = False) -> bool:
        """Whether some code may read ``cls.name``. A read counts unless the code shows
        it is none: its object is stated to be of an unrelated class, its untyped
        object is used in the same function as something the class is not (``_alien``),
        or it only copies the value into an attribute nothing reads (``_dead_copy``).
        ``loads_only``: assignments to ``x.name`` in other files are not reads either
        (asked of a copy's target, whose own stores are not its uses)."""
        dotted = re.compile(rf"\.{re.escape(name)}\b")
        quoted = re.compile(rf"[\"']{re.escape(name)}[\"']")
        store = re.compile(r"\s*=(?!=)")
        for path, text in self.py.items():
            if name not in text:
                continue
            if quoted.search(text) and self.mentions(path, cls):
                return True  # getattr / a key map: a read the types cannot rule out
            if not dotted.search(text):
                continue
            if path.startswith(self.sub):
                if any(attr == name and self.related(owner, cls)
                       and self.counts(path, node, owner, cls, depth)
                       for attr, owner, _loc, node in self.reads_in(path)):
                    return True
                continue
            if path == cls.path:
                # The class's own file outside the folder (a copy's holder): typed on
                # the reads of this name (the text rule takes it for a namesake).
                if any(attr == name and self.related(owner, cls)
                       and self.counts(path, node, owner, cls, depth)
                       for attr, owner, _loc, node in self.reads_in(path, name)):
                    return True
                continue
            matches = [m for m in dotted.finditer(text)
                       if not (loads_only and store.match(text, m.end()))]
            verdicts = [self.foreign(text, m.start(), cls) for m in matches]
            if False in verdicts and not all(
                    _COPY_LINE.match(_line_at(text, m.start()))
                    for m, v in zip(matches, verdicts, strict=True) if v is False):
                return True  # a read on an object stated to be of the class
            if False in verdicts or None in verdicts:
                # Undecided by the text (a chain, an unannotated name) or a copy into
                # an attribute: the types the code states, on the reads of this name.
                if not self.typed_budget(path, name):
                    return True
                related = [(owner, node) for attr, owner, _loc, node
                           in self.reads_in(path, name)
                           if attr == name and self.related(owner, cls)]
                if False in verdicts and not related:
                    return True  # the text and the types disagree: count it
                if any(self.counts(path, node, owner, cls, depth)
                       for owner, node in related):
                    return True
        return False

    def counts(self, path: str, node: ast.Attribute, owner: Obj | None, cls: Obj,
               depth: int) -> bool:
        """Whether one read of a field (on an object that may be of ``cls``) is a use."""
        if owner is None and self._alien(path, node, cls):
            return False
        return not (depth < MAX_COPY_DEPTH and self._dead_copy(path, node, depth))

    def _scope(self, path: str, node: ast.AST) -> tuple[dict[int, ast.AST], ast.AST | None]:
        mod = ps.parse(self.py[path])
        if mod is None:
            return {}, None
        if path not in self._parents:
            self._parents[path] = coreindex.parents(mod)
        parents = self._parents[path]
        up = parents.get(id(node))
        while up is not None and not isinstance(up, (*ps.FuncDef.__args__, ast.Lambda)):
            up = parents.get(id(up))
        return parents, up

    def _alien(self, path: str, node: ast.Attribute, cls: Obj) -> bool:
        """The read's untyped object cannot be an instance of ``cls``: in the function
        holding the read it is bound once (a name) or never rebound (an attribute
        chain), is never tested (``isinstance``/``hasattr``/``getattr``), and some other
        attribute read on it is no member of the class, its bases or subclasses (an
        instance of the class would fail there). Protects the rule that an untyped read
        counts: it is set aside only where its own function shows another type."""
        recv = node.value
        if not all(isinstance(n, (ast.Name, ast.Attribute, ast.Load)) for n in ast.walk(recv)):
            return False
        members = self.family_members(cls)
        if members is None:
            return False
        _parents, scope = self._scope(path, node)
        if scope is None:
            return False
        key = ast.unparse(recv)
        binds = 0
        if isinstance(scope, (*ps.FuncDef.__args__, ast.Lambda)):
            a = scope.args
            binds += sum(x.arg == key for x in (*a.posonlyargs, *a.args, *a.kwonlyargs))
        other: set[str] = set()
        for n in ast.walk(scope):
            if isinstance(n, (ast.Global, ast.Nonlocal)) and key.split(".")[0] in n.names:
                return False
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in (
                    "isinstance", "hasattr", "getattr", "type") and n.args \
                    and ast.unparse(n.args[0]) == key:
                return False
            if isinstance(n, (ast.Name, ast.Attribute)) and not isinstance(n.ctx, ast.Load) \
                    and ast.unparse(n) == key:
                binds += 1
            if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) \
                    and not (n.attr.startswith("__") and n.attr.endswith("__")) \
                    and ast.unparse(n.value) == key:
                other.add(n.attr)
        if (isinstance(recv, ast.Name) and binds != 1) or \
                (isinstance(recv, ast.Attribute) and binds):
            return False
        return bool(other - members)

    def family_members(self, cls: Obj) -> frozenset[str] | None:
        """Every member name of the class, its repository bases and its subclasses (a
        few levels); ``None`` when a member may come from somewhere not read."""
        key = id(cls.node)
        if key not in self._members:
            names, why = self.idx.members(cls)
            out: set[str] | None = None if why else set(names)
            index = classindex.for_tree(self.inp.head)
            todo = [cls.qualname]
            for _ in range(3):
                if out is None:
                    break
                subs = [sub for n in todo for sub in index.subclasses(n)]
                for sub in subs:
                    more, why = coreindex.CoreIndex.own_members(sub)
                    if why:
                        out = None
                        break
                    out |= more
                todo = [index.qualname(sub) for sub in subs]
            self._members[key] = None if out is None else frozenset(out)
        return self._members[key]

    def _dead_copy(self, path: str, node: ast.Attribute, depth: int) -> bool:
        """The read only copies the field into ``self.x`` of a method's class, and
        nothing reads that attribute: the field's one use is a value nobody uses."""
        parents, func = self._scope(path, node)
        stmt = parents.get(id(node))
        if not (isinstance(stmt, ast.Assign) and stmt.value is node and len(stmt.targets) == 1
                and isinstance(func, ps.FuncDef.__args__)):
            return False
        target = stmt.targets[0]
        args = [*func.args.posonlyargs, *func.args.args]
        owner = parents.get(id(func))
        if not (args and isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                and target.value.id == args[0].arg and isinstance(owner, ast.ClassDef)):
            return False
        holder = Obj("class", path, owner, owner.name)
        if self.generic(holder) or self.field_read(holder, target.attr, depth + 1,
                                                   loads_only=True):
            return False
        self.copies.add((path, owner.name, target.attr, stmt.lineno))
        return True

    def typed_budget(self, path: str, name: str) -> bool:
        """Whether this file may still be typed for ``name`` (bounded work: past the
        budget an undecided read counts as a read, so nothing is reported from it).
        The budget counts files, as ``MAX_TYPED_FILES`` says: a file typed for one
        field is typed for the next at the cost of its few lines."""
        if path in self._typed_files:
            return True  # parsed already: typing more of its lines costs little
        self._typed_left -= 1
        if self._typed_left < 0:
            return False
        self._typed_files.add(path)
        return True

    def names_of(self, cls: Obj) -> set[str]:
        """Simple names of the class, its repository bases and its subclasses (a few
        levels): the types an object holding an instance of it may be stated as."""
        key = id(cls.node)
        if key not in self._names:
            out = {cls.qualname.rsplit(".", 1)[-1]}
            todo = [cls]
            for _ in range(coreindex.MAX_DEPTH):
                nxt = []
                for c in todo:
                    for base in getattr(c.node, "bases", ()):
                        src = ast.unparse(base.value if isinstance(base, ast.Subscript)
                                          else base)
                        found = self.idx.resolve(c.path, src)
                        if found is not None and found.kind == "class":
                            out.add(found.qualname.rsplit(".", 1)[-1])
                            nxt.append(found)
                todo = nxt
            index = classindex.for_tree(self.inp.head)
            names = [cls.qualname]
            for _ in range(3):
                subs = [sub for n in names for sub in index.subclasses(n)]
                out |= {sub.name for sub in subs}
                names = [index.qualname(sub) for sub in subs]
            self._names[key] = out
        return self._names[key]

    def foreign(self, text: str, pos: int, cls: Obj) -> bool | None:
        """Whether the attribute read at ``pos`` (the dot) of a file outside the
        sub-project is certainly on another class: read on ``self`` inside a class
        unrelated to ``cls``, or on a name the file annotates with an unrelated type.
        Read from the text (no parse: most such files are not otherwise parsed); any
        doubt — a chain, an unannotated name, two annotations — is ``None``."""
        m = _RECEIVER.search(text, max(0, pos - 80), pos + 1)
        while m is not None and m.end() != pos + 1:
            m = _RECEIVER.search(text, m.start() + 1, pos + 1)
        if m is None or m.group(1):
            return None  # a chain (``x.y.name``) or no plain receiver
        receiver = m.group(2)
        names = self.names_of(cls)
        if receiver in ("self", "cls"):
            line_start = text.rfind("\n", 0, pos) + 1
            indent = len(text[line_start:pos]) - len(text[line_start:pos].lstrip())
            owner, bases = _enclosing_class(text, line_start, indent)
            if not owner:
                return None
            # A class of this file with our class's name is another model's namesake
            # (``Attention``), unless it derives from ours.
            own = cls.qualname.rsplit(".", 1)[-1]
            return owner not in names - {own} and not re.search(
                rf"\b{re.escape(own)}\b", bases)
        types = {t.strip("\"'").split("[")[0].rsplit(".", 1)[-1] for t in re.findall(
            rf"\b{re.escape(receiver)}\s*:\s*([\"']?[\w.]+(?:\[[\w.]+\])?)", text)}
        types -= {"Optional"}
        if len(types) != 1:
            return None
        return not types & names


def _keyed_dicts(mod: ast.AST) -> set[int]:
    """ids of ``x.__dict__`` nodes used for one key written as a string
    (``x.__dict__["k"]``, ``x.__dict__.setdefault("k", v)``): one named entry, which
    the quoted-name rule already counts, not a read of every field."""
    out: set[int] = set()
    for n in ps.walk(mod):
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) \
                and isinstance(n.slice.value, str):
            inner = n.value
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                and n.func.attr in _KEYED_METHODS and n.args \
                and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str):
            inner = n.func.value
        else:
            continue
        if isinstance(inner, ast.Attribute) and inner.attr == "__dict__":
            out.add(id(inner))
    return out


def _line_at(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text[start:] if end < 0 else text[start:end]


def _enclosing_class(text: str, line_start: int, indent: int) -> tuple[str, str]:
    """The class whose body holds the line at ``line_start`` (indented ``indent``):
    the last ``class`` line before it indented less, with no code line between them
    back at or left of the class's indentation; with the text of its bases."""
    found, bases = "", ""
    for c in _CLASS_LINE.finditer(text, 0, line_start):
        if len(c.group(1)) < indent:
            found, bases, level, end = c.group(2), c.group(3) or "", len(c.group(1)), c.end()
    if not found:
        return "", ""
    for line in text[end:line_start].splitlines()[1:]:
        stripped = line.lstrip()
        if stripped and not stripped.startswith(("#", ")", "]", "}")) and \
                len(line) - len(stripped) <= level:
            return "", ""
    return found, bases


def _assignments(cls: ast.ClassDef, path: str, attr: str) -> list[tuple[str, int, ast.expr]]:
    """(method, line, value) of each ``self.attr = value`` in the class's methods."""
    out = []
    for stmt in cls.body:
        if not isinstance(stmt, ps.FuncDef.__args__):
            continue
        args = [*stmt.args.posonlyargs, *stmt.args.args]
        if not args:
            continue
        me = args[0].arg
        for n in ps.walk(stmt):
            targets = n.targets if isinstance(n, ast.Assign) else (
                [n.target] if isinstance(n, (ast.AnnAssign, ast.AugAssign)) else [])
            for t in targets:
                if isinstance(t, ast.Attribute) and t.attr == attr and \
                        isinstance(t.value, ast.Name) and t.value.id == me:
                    value = getattr(n, "value", None)
                    out.append((stmt.name, n.lineno,
                                value if isinstance(value, ast.expr) else t))
    return out


def analyse(inp: Inputs) -> ConfigFields:
    sub = inp.target.subproject.rstrip("/") + "/"
    everything = _classes(inp, sub)
    classes = [c for c in everything if corerefs._is_dataclass(c)]
    is_dc = {id(c.node) for c in classes}
    if not everything:
        return ConfigFields()
    an = _Analysis(inp)
    an.index_names(everything)
    dead: list[DeadField] = []
    copied_to: dict[int, set[tuple[str, str, str, int]]] = {}
    judged = 0
    for cls in everything:
        node = cls.node
        assert isinstance(node, ast.ClassDef)
        if id(node) in is_dc:
            wanted = [(f.target.id, f.lineno) for f in _fields(node)]  # type: ignore[union-attr]
        else:
            body = _body_names(node)
            wanted = [(n, line) for n, line in dict(reversed(_init_attrs(node))).items()
                      if n not in body]
        if not wanted or not an.used(cls) or an.generic(cls):
            continue
        for name, line in wanted:
            judged += 1
            if judged > MAX_FIELDS:
                break
            an.copies.clear()
            if name.startswith("__") or an.field_read(cls, name):
                continue
            dead.append(DeadField(cls.qualname, name, cls.path, line,
                                  "field" if id(node) in is_dc else "attribute",
                                  tuple(sorted((f"{k}.{a}", p, n) for p, k, a, n in an.copies))))
            copied_to[len(dead) - 1] = {c[:3] for c in an.copies}
    # A field whose value only reaches an attribute reported here is one finding,
    # stated at the attribute (the end of the chain, where the value stops).
    reported = {(d.file, d.cls.rsplit(".", 1)[-1], d.name) for d in dead}
    dead = [d for i, d in enumerate(dead) if not copied_to.get(i, set()) & reported]
    undeclared = _undeclared(inp, an, classes, dead)
    dead_left = [d for d in dead if not any(u.from_field == d.name and u.cls == d.cls
                                            for u in undeclared)]
    return ConfigFields(tuple(dead_left), tuple(undeclared), len(classes))


def _undeclared(inp: Inputs, an: _Analysis, classes: list[Obj],
                dead: list[DeadField]) -> list[UndeclaredRead]:
    by_node = {id(c.node): c for c in classes}
    reads: dict[tuple[int, str], list[tuple[str, str, ast.AST]]] = {}
    for path in sorted(an.py):
        if not path.startswith(an.sub):
            continue
        for attr, owner, loc, node in an.reads_in(path):
            if owner is None or id(owner.node) not in by_node or attr.startswith("__"):
                continue
            reads.setdefault((id(owner.node), attr), []).append((path, loc, node))
    out: list[UndeclaredRead] = []
    for (key, attr), found in sorted(reads.items(), key=lambda kv: (kv[1][0][1], kv[0][1])):
        cls = by_node[key]
        names, why = an.idx.members(cls)
        if why or attr not in names:
            continue  # unknown members, or defined nowhere (corerefs' kind of break)
        chain = _chain(an, cls)
        if any(attr in _body_names(c.node) for c in chain):
            continue  # a field, class attribute, method or property
        locs = [loc for path, loc, node in found if not an.narrowed(path, node)]
        if not locs:
            continue
        declared = False
        sets: list[tuple[str, str, int, ast.expr]] = []
        for c in chain:
            node = c.node
            assert isinstance(node, ast.ClassDef)
            own, _ = coreindex.CoreIndex.own_members(node)
            if attr not in own:
                continue
            assigned = _assignments(node, c.path, attr)
            if not assigned or any(m in _BUILDERS for m, _l, _v in assigned):
                declared = True  # a field, method, class attribute or set when built
                break
            sets += [(m, c.path, line, v) for m, line, v in assigned]
        if declared or not sets or an.reader._set_from_outside(attr):
            continue
        dead_names = {d.name for d in dead if d.cls == cls.qualname}
        source = ""
        for _m, _p, _l, v in sets:
            last = ps.name_chain(v)[-1:] if isinstance(v, (ast.Attribute, ast.Name)) else []
            if last and last[0] in dead_names:
                source = last[0]
        out.append(UndeclaredRead(
            cls.qualname, attr, cls.path, cls.node.lineno,  # type: ignore[union-attr]
            tuple(sorted(set(locs))), tuple(f"{m} ({p}:{line})" for m, p, line, _v in sets),
            source))
    return out


def _body_names(node: ast.AST | None) -> set[str]:
    """Names a class body binds (fields, class attributes, methods, nested classes)."""
    out: set[str] = set()
    for stmt in getattr(node, "body", ()):
        if isinstance(stmt, (ast.ClassDef, *ps.FuncDef.__args__)):
            out.add(stmt.name)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            out.add(stmt.target.id)
        elif isinstance(stmt, ast.Assign):
            out |= {n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return out


def _chain(an: _Analysis, cls: Obj, depth: int = 0) -> list[Obj]:
    node = cls.node
    assert isinstance(node, ast.ClassDef)
    out = [cls]
    if depth > coreindex.MAX_DEPTH:
        return out
    for base in node.bases:
        found = an.idx.resolve(cls.path, ast.unparse(
            base.value if isinstance(base, ast.Subscript) else base))
        if found is not None and found.kind == "class":
            out += _chain(an, found, depth + 1)
    return out
