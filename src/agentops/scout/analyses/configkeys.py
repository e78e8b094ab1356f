"""Train-config keys that name no config field (#22, S-4; census row of sets 15-17): a
TOML of the sub-project sets ``section.key`` and no field of the job config the loader
builds from it has that name, so the setting is read by nothing (ignored, or rejected at
load, depending on the loader).

The job config is read as the loader maps a TOML: the root dataclass (the one, outside
the folder, whose fields are the sections the folder's TOMLs use), each table to the
dataclass its field's annotation (or ``default_factory``) names, nested tables to nested
dataclasses; a field whose type is no dataclass takes any keys. Extension modules the
folder names in a string (``corerefs``' reading: a config's module string, a ``merge``
call) add their dataclasses' fields to the section of the same name. A key is judged
only inside a section whose class is fully known (bases resolved); a section no class
has is judged only when it was one at the baseline.

Against the baseline: a key that was a field there (or a section that was one) was
renamed or removed in the window; otherwise the key never named a field (a typo or an
older rename), still read by nothing.

Bounded: only TOMLs of the folder, each under the tree loader's size cap, at most
``MAX_FILES`` files and ``MAX_DEPTH`` table levels. Pure: the two trees in, records out.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass

from agentops.scout.analyses import classindex, tomldoc
from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.corerefs import _dataclass_node, named_modules
from agentops.scout.gitrepo import Tree
from agentops.scout.model import Inputs

MAX_FILES = 60
MAX_DEPTH = 4
MAX_KEYS = 40  # findings per run


@dataclass(frozen=True)
class UnreadKey:
    file: str
    line: int
    key: str  # dotted: section.key
    cls: str  # the class of the section ("" when the section itself is unknown)
    cls_file: str
    near: str  # the closest field name of that class, if any
    was_field: bool  # a field (or section) of the job config at the baseline
    commit: str  # the window commit that changed the class's file, when only one did


# A section: field name -> the class its table maps to (None: any keys accepted).
class _Schema:
    def __init__(self, tree: Tree, sub: str) -> None:
        self.tree = tree
        self.sub = sub.rstrip("/")
        self.idx = classindex.for_tree(tree)
        self._mods: dict[str, dict[str, ast.ClassDef]] = {}

    def module_classes(self, path: str) -> dict[str, ast.ClassDef]:
        if path not in self._mods:
            mod = ps.parse(self.tree.text(path) or "")
            self._mods[path] = {} if mod is None else {
                n.name: n for n in mod.body
                if isinstance(n, ast.ClassDef) and _dataclass_node(n)}
        return self._mods[path]

    def fields(self, cls: ast.ClassDef) -> dict[str, ast.AnnAssign] | None:
        return self.idx.fields([cls], subclasses=False)

    def type_of(self, field: ast.AnnAssign, home: str) -> list[ast.ClassDef]:
        """Dataclasses a field's annotation or default_factory names: the field's own
        module first, else any class of that name in the tree."""
        exprs: list[ast.expr] = [field.annotation]
        if isinstance(field.value, ast.Call):
            exprs += [k.value for k in field.value.keywords if k.arg == "default_factory"]
        local = self.module_classes(home)
        out: list[ast.ClassDef] = []
        for expr in exprs:
            for node in ast.walk(expr):
                if not isinstance(node, (ast.Name, ast.Attribute)):
                    continue
                name = ast.unparse(node).split(".")[-1]
                if name in local:
                    out.append(local[name])
                elif name[:1].isupper():
                    out += [c for c in self.idx.resolve(name) if _dataclass_node(c)]
        return list({id(c): c for c in out}.values())


def _folder(inp: Inputs) -> str:
    return inp.target.subproject.rstrip("/") + "/"


def _tables(data: dict, prefix: str, depth: int) -> list[tuple[str, dict]]:
    out = [(prefix, data)]
    if depth >= MAX_DEPTH:
        return out
    for k, v in data.items():
        if isinstance(v, dict):
            out += _tables(v, f"{prefix}.{k}" if prefix else k, depth + 1)
    return out


def _configs(inp: Inputs) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for path in sorted(inp.head.files):
        if len(out) >= MAX_FILES:
            break
        if path.startswith(_folder(inp)) and path.endswith(".toml"):
            data = tomldoc.parse(inp.head.files[path])
            if data is None:
                continue
            if any(isinstance(v, dict) for v in data.values()):
                out[path] = data
    return out


def _roots(schema: _Schema, sections: set[str]) -> list[tuple[str, ast.ClassDef]]:
    """The root: the dataclass outside the folder whose fields cover the most of the
    sections (at least half of them, at least two)."""
    best: list[tuple[int, int, str, ast.ClassDef]] = []
    want = max(2, (len(sections) + 1) // 2)
    for path, text in schema.tree.files.items():
        if not path.endswith(".py") or path.startswith(schema.sub + "/") \
                or "dataclass" not in text \
                or sum(1 for s in sections if f"{s}:" in text) < want:
            continue
        for cls in schema.module_classes(path).values():
            names = {s.target.id for s in cls.body
                     if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
            hit = len(names & sections)
            if hit >= want:
                best.append((hit, len(names), path, cls))
    best.sort(key=lambda t: (-t[0], -t[1], t[2]))
    return [(p, c) for _h, _n, p, c in best[:1]]


def _extensions(schema: _Schema, inp: Inputs) -> list[tuple[str, ast.ClassDef]]:
    """Dataclasses of modules named in a string by a folder file (``x.y.z``)."""
    return [(file, c) for file in named_modules(inp.head, _folder(inp))
            for c in schema.module_classes(file).values()]


# dotted table path -> (class label, file, field names) or None (any key accepted)
Layout = dict[str, tuple[str, str, set[str]] | None]


def _layout(tree: Tree, inp: Inputs, sections: set[str], tables: set[str]) -> Layout:
    schema = _Schema(tree, inp.target.subproject)
    roots = _roots(schema, sections)
    if not roots:
        return {}
    exts = _extensions(schema, inp) if tree is inp.head else []
    out: Layout = {}
    root_path, root = roots[0]
    todo: list[tuple[str, list[tuple[str, ast.ClassDef]]]] = [("", [(root_path, root)])]
    # An extension's root-like classes: their fields add sections of the same name.
    ext_sections: dict[str, list[tuple[str, ast.ClassDef]]] = {}
    for path, cls in exts:
        for name, f in (schema.fields(cls) or {}).items():
            for t in schema.type_of(f, path):
                ext_sections.setdefault(name, []).append((schema.idx.path(t) or path, t))
    while todo:
        prefix, classes = todo.pop()
        names: set[str] = set()
        known = True
        for path, cls in classes:
            fields = schema.fields(cls)
            if fields is None:
                known = False
                continue
            names |= set(fields)
            for name, f in fields.items():
                sub = f"{prefix}.{name}" if prefix else name
                if sub not in tables or sub in out or sub.count(".") >= MAX_DEPTH:
                    continue
                kinds = schema.type_of(f, path)
                if not kinds:
                    out[sub] = None
                    continue
                more = [(schema.idx.path(k) or path, k) for k in kinds]
                if not prefix:
                    more += ext_sections.get(name, [])
                todo.append((sub, more))
        if prefix:
            out[prefix] = (classes[0][1].name, classes[0][0], names) if known else None
        elif known:
            out[""] = (root.name, root_path, names | set(ext_sections))
    return out


def _line_of(text: str, table: str, key: str) -> int:
    header = re.compile(r"^\s*\[\s*([^\]]+?)\s*\]")
    current = ""
    pat = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=")
    for n, line in enumerate(text.splitlines(), 1):
        m = header.match(line)
        if m:
            current = m.group(1).replace(" ", "").replace('"', "").replace("'", "")
            continue
        if current == table and pat.match(line):
            return n
    return 1


def _nearest(key: str, names: set[str]) -> str:
    """The field that contains the key (or is contained in it), closest first; else the
    closest by spelling."""
    within = sorted(n for n in names if key in n or (len(n) >= 4 and n in key))
    found = difflib.get_close_matches(key, within, n=1, cutoff=0.0) if within else \
        difflib.get_close_matches(key, sorted(names), n=1, cutoff=0.6)
    return found[0] if found else ""


def _header_line(text: str, table: str) -> int:
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip().replace(" ", "") == f"[{table}]":
            return n
    return 1


def _window_commit(inp: Inputs, file: str, name: str) -> str:
    """The window commit after which ``file`` (its texts kept for the window) no longer
    declares ``name``: only when the history shows it."""
    pat = re.compile(rf"^[ \t]+{re.escape(name)}\s*:", re.M)
    had = False
    for sha, text in inp.history.get(file, ()):
        if pat.search(text):
            had = True
        elif had:
            return sha
    return ""


def analyse(inp: Inputs) -> list[UnreadKey]:
    configs = _configs(inp)
    if not configs:
        return []
    sections = {k for d in configs.values() for k, v in d.items() if isinstance(v, dict)}
    tables = {t for d in configs.values() for t, _v in _tables(d, "", 0) if t}
    head = _layout(inp.head, inp, sections, tables)
    if not head:
        return []
    base = _layout(inp.base, inp, sections, tables) if inp.base is not None else {}
    out: list[UnreadKey] = []
    for path, data in configs.items():
        own = {k for k, v in data.items() if isinstance(v, dict)}
        root = head.get("")
        if root is None or len(own & root[2]) * 2 < len(own):
            continue  # not a config of this job (another tool's TOML)
        text = inp.head.files[path]
        for table, body in _tables(data, "", 0):
            if not table:
                continue
            parent, _, last = table.rpartition(".")
            holder = head.get(parent)
            if table not in head and holder is not None and last not in holder[2]:
                was = base.get(parent) is not None and last in base[parent][2]  # type: ignore[index]
                if was:  # a whole section gone in the window
                    out.append(UnreadKey(path, _header_line(text, table), table, "", "",
                                         "", True, _window_commit(inp, holder[1], last)))
                continue
            spec = head.get(table)
            if spec is None:
                continue
            cls, cls_file, names = spec
            for key, value in body.items():
                if isinstance(value, dict) or key in names:
                    continue
                old = base.get(table)
                was = old is not None and key in old[2]
                near = _nearest(key, names)
                out.append(UnreadKey(path, _line_of(text, table, key), f"{table}.{key}", cls,
                                     cls_file, near, was,
                                     _window_commit(inp, cls_file, key) if was else ""))
                if len(out) >= MAX_KEYS:
                    return out
    return out
