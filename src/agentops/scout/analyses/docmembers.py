"""Prose about a class's members that the class does not have (#22 defect 7, S-5): in
the sub-project's Python, whatever the window,

- a class docstring's ``Attributes:`` section (Google style, first indentation level)
  listing a name the class neither sets (``self.x = …``, ``register_buffer("x", …)``,
  a class-level assignment or annotation, a method or property) nor inherits from a
  base class of the repository — a buffer renamed (``freqs_cis`` -> ``rope_cache``)
  while its docstring kept the old name;
- a comment inside a method naming ``a.b`` where the method's own code reads the same
  member ``b`` through another attribute (``self.lm_head.weight``), ``a`` is no member
  of the class, and nothing in the file's code (names, attributes, parameters, strings)
  is called ``a`` — the comment describes this code under a name it no longer uses.

Resolved against the class's own structure, never a word list. Precision first: a
class whose members cannot all be known (a base outside the repository other than
``nn.Module``, ``__getattr__``, ``setattr`` with a computed name, ``__dict__``) is not
judged.

Pure: the sub-project's file texts (and the repository's classes for bases) in,
``DocProblem`` records out.
"""

from __future__ import annotations

import ast
import re

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.classindex import ClassIndex, for_tree
from agentops.scout.analyses.commentrefs import own_sources
from agentops.scout.analyses.docargs import documented
from agentops.scout.analyses.docs import DocProblem
from agentops.scout.model import Inputs

_ATTRS = re.compile(r"^(?:Attributes|Members)\s*:\s*$")
# A dotted pair in a comment, not part of a longer chain, a path or a version.
_PAIR = re.compile(r"(?<![\w./`-])([a-z_][a-z0-9_]{1,60})\.([a-z_][a-z0-9_]{1,60})(?![\w(/-])")
# nn.Module's own members are known; any other base outside the repository may add some.
_MODULE_BASES = {"nn.Module", "torch.nn.Module", "Module", "object"}
_REGISTERS = {"register_buffer", "register_parameter", "register_module", "add_module"}
MAX_PER_FILE = 20
MAX_DEPTH = 6


def _own_members(cls: ast.ClassDef) -> set[str] | None:
    """Names the class body and its methods define on the class or its instances;
    ``None`` when a member may be added under a name the code does not spell."""
    out: set[str] = set()
    for stmt in cls.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(stmt.name)
            if stmt.name in ("__getattr__", "__getattribute__"):
                return None
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            out.add(stmt.target.id)
        elif isinstance(stmt, ast.Assign):
            out |= {t.id for t in stmt.targets if isinstance(t, ast.Name)}
    for node in ast.walk(cls):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "self":
            if node.attr == "__dict__":
                return None
            if isinstance(node.ctx, ast.Store):
                out.add(node.attr)
        elif isinstance(node, ast.Call):
            name = ps.name_chain(node.func)[-1:] or [""]
            if name[0] == "setattr" or name[0] in _REGISTERS:
                arg = node.args[1 if name[0] == "setattr" else 0] if len(node.args) > (
                    1 if name[0] == "setattr" else 0) else None
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    out.add(arg.value)
                elif name[0] == "setattr":
                    return None
    return out


def members(cls: ast.ClassDef, index: ClassIndex, depth: int = 0) -> set[str] | None:
    """The class's members with those of its bases in the repository; ``None`` when
    some cannot be known. Cached per class in the index, so a base shared by many
    classes (or a name several classes carry) is walked once; a cycle of bases, or one
    deeper than ``MAX_DEPTH``, counts as unknown."""
    key = ("docmembers", id(cls))
    if key not in index.memo:
        index.memo[key] = None  # an ancestor asking for itself again is a cycle: unknown
        index.memo[key] = _members(cls, index, depth)
    found = index.memo[key]
    return None if found is None else set(found)  # type: ignore[call-overload]


def _members(cls: ast.ClassDef, index: ClassIndex, depth: int) -> set[str] | None:
    own = _own_members(cls)
    if own is None or depth > MAX_DEPTH:
        return None
    for base in cls.bases:
        src = ast.unparse(base).split("[")[0]
        if src in _MODULE_BASES or src in ("Generic", "Protocol", "ABC", "abc.ABC"):
            continue
        resolved = index.resolve(src) or index.resolve(src.split(".")[-1])
        if not resolved:
            return None
        for parent in resolved:
            more = members(parent, index, depth + 1)
            if more is None:
                return None
            own |= more
    return own


def _read_pairs(fn: ast.AST) -> dict[str, set[str]]:
    """member -> the attributes it is read through in the function (``self.x.weight``:
    ``weight`` -> {``x``})."""
    out: dict[str, set[str]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
            out.setdefault(node.attr, set()).add(node.value.attr)
    return out


def _docstring(node: ast.ClassDef) -> ast.Constant | None:
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[0].value
    return None


def _attribute_entries(cls: ast.ClassDef, have: set[str], path: str) -> DocProblem | None:
    doc = _docstring(cls)
    if doc is None:
        return None
    listed = documented(doc.value, _ATTRS, sphinx=False)
    stale = [(off, n) for off, n in listed if n not in have]
    if not stale:
        return None
    names = ", ".join(f"`{n}`" for n in dict.fromkeys(n for _o, n in stale))
    unlisted = sorted(_set_in_init(cls) - {n for _o, n in listed})
    tail = f" (it sets {', '.join(f'`{n}`' for n in unlisted[:4])}, which the list " \
           f"leaves out)" if unlisted else ""
    return DocProblem(path, doc.lineno + stale[0][0],
                      f"the docstring of class `{cls.name}` lists attribute(s) {names}, "
                      f"which `{cls.name}` does not have{tail}", kind="attribute")


def _set_in_init(cls: ast.ClassDef) -> set[str]:
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef)
                 and n.name == "__init__"), None)
    if init is None:
        return set()
    out = {n.attr for n in ast.walk(init) if isinstance(n, ast.Attribute)
           and isinstance(n.value, ast.Name) and n.value.id == "self"
           and isinstance(n.ctx, ast.Store)}
    for node in ast.walk(init):
        if isinstance(node, ast.Call) and ps.name_chain(node.func)[-1:] == ["register_buffer"] \
                and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            out.add(node.args[0].value)
    return out


def _comment_pairs(cls: ast.ClassDef, have: set[str], words: set[str],
                   comments: list[tuple[int, str]], path: str) -> list[DocProblem]:
    out: list[DocProblem] = []
    for fn in cls.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        end = fn.end_lineno or fn.lineno
        inside = [(ln, c) for ln, c in comments if fn.lineno <= ln <= end]
        if not inside:
            continue
        reads = _read_pairs(fn)
        for ln, comment in inside:
            pairs = list(_PAIR.finditer(comment[:1000]))
            named = {m.group(1) for m in pairs}
            for m in pairs:
                holder, member = m.group(1), m.group(2)
                # the holder the code reads that the comment does not name already
                through = sorted(reads.get(member, set()) - named)
                if not through or holder in have or holder in words:
                    continue
                out.append(DocProblem(
                    path, ln,
                    f"a comment in `{cls.name}.{fn.name}` names `{holder}.{member}`, but "
                    f"`{cls.name}` has no member `{holder}` and nothing in this file is "
                    f"called that; the code it comments reads `{through[0]}.{member}` "
                    f"(renamed?)", kind="attribute"))
                break
    return out


def analyse(inp: Inputs) -> list[DocProblem]:
    sub = inp.target.subproject.rstrip("/") + "/"
    index = for_tree(inp.head)
    out: list[DocProblem] = []
    for path, text in own_sources(inp.head.files, sub):
        if "class " not in text:
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        words: set[str] | None = None
        comments: list[tuple[int, str]] | None = None
        found: list[DocProblem] = []
        # lines holding a `#` (a cheap pre-test before tokenizing the file)
        hashes = [i for i, line in enumerate(text.splitlines(), 1) if "#" in line]
        for cls in sorted((n for n in ps.walk(mod) if isinstance(n, ast.ClassDef)),
                          key=lambda n: n.lineno):
            doc = _docstring(cls)
            listed = doc is not None and ("Attributes" in doc.value or "Members" in doc.value)
            end = cls.end_lineno or cls.lineno
            commented = any(cls.lineno <= i <= end for i in hashes)
            if not (listed or commented):
                continue
            have = members(cls, index)
            if have is None:
                continue
            problem = _attribute_entries(cls, have, path) if listed else None
            if problem is not None:
                found.append(problem)
            if commented:
                if words is None:
                    words = ps.spelled(mod, strings=True, alias_parts=True)
                    comments = [(c.line, c.text) for c in ps.comments(text)]
                found += _comment_pairs(cls, have, words, comments or [], path)
            if len(found) >= MAX_PER_FILE:
                break
        out += found[:MAX_PER_FILE]
    return out
