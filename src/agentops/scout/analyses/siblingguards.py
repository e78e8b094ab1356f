"""Guards the sibling folders agree on and the sub-project lacks (#22, copies that lag):
a model folder's ``update_from_config`` that never rejects an unsupported combination
(CP with varlen attention) which the other model folders beside it all reject. The
sub-project is compared with the folders next to it (``models/<name>`` with the other
``models/*``): for each method it overrides, found under the same base class and name
in at least two siblings, a check (``if …: raise``) that at least two
siblings — and at least a third of those that override the method — make, and that no
check of the sub-project's method or of the base method it inherits resembles, is
reported with the siblings' file:line.

Precision first: a guard is compared by the names its condition reads (a rename of a
local does not hide it); a guard that reads a name the sibling folder defines itself
(its own classes, helpers) is that model's business and never counted; only a method
the sub-project overrides is judged. An Opportunity, never an action: the sibling's
reason may not apply.

Pure: the HEAD tree in, ``MissingGuard`` records out.
"""

from __future__ import annotations

import ast
import posixpath
import re
from dataclasses import dataclass

from agentops.scout.analyses import classindex
from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.commentrefs import own_sources
from agentops.scout.model import Inputs

# Names a condition reads that say nothing about what it guards.
_NEUTRAL = frozenset({"self", "cls", "isinstance", "len", "getattr", "hasattr", "type",
                      "config", "cfg", "Config", "None", "True", "False", "kwargs"})
MIN_SIBLINGS = 2
SIMILAR = 0.5
MAX_SIBLINGS = 40
MAX_FINDINGS = 20


@dataclass(frozen=True)
class Guard:
    file: str
    line: int
    text: str  # the condition, unparsed and shortened
    names: frozenset[str]
    key: frozenset[str] = frozenset()  # what it tests: leaf names and compared strings


@dataclass(frozen=True)
class MissingGuard:
    file: str  # the sub-project's method
    line: int
    method: str  # Class.method
    guard: str  # the siblings' condition (the first one's text)
    siblings: tuple[str, ...]  # file:line of each sibling's guard


def _names(node: ast.AST) -> frozenset[str]:
    out = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    out |= {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
    return frozenset(out - _NEUTRAL)


def _guards(path: str, fn: ast.AST, outer: tuple[ast.expr, ...] = ()) -> list[Guard]:
    """Every explicit rejection in the function, with the conditions around it: a check
    written ``if tp > 1:`` … ``if n_heads % tp != 0: raise`` (or inside a loop over the
    layers) is the same guard as a flat ``if tp > 1 and n_heads % tp: raise``."""
    out = []
    for st in getattr(fn, "body", []):
        if isinstance(st, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)):
            out += _guards(path, st, outer)
            continue
        if not isinstance(st, ast.If):
            continue
        tests = (*outer, st.test)
        # An explicit rejection only: an ``assert isinstance(...)`` mostly narrows a
        # type for the checker and says nothing about a supported combination.
        if st.body and isinstance(st.body[-1], ast.Raise) and not st.orelse:
            names = frozenset().union(*(_names(t) for t in tests))
            if len(names) >= 2:
                text = " and ".join(ast.unparse(t) for t in tests)
                out.append(Guard(path, st.lineno,
                                 text if len(text) <= 160 else text[:157] + "...", names,
                                 frozenset().union(*(_key(t) for t in tests))))
            continue
        out += _guards(path, st, tests)
    return out


def _nested_guards(fn: ast.AST, outer: frozenset[str] = frozenset()) -> list[frozenset[str]]:
    """The names of every raising check anywhere in a function, each with the names of
    the conditions around it (``if cp > 1:`` … ``if varlen: raise``)."""
    out: list[frozenset[str]] = []
    for st in getattr(fn, "body", []) + getattr(fn, "orelse", []):
        if isinstance(st, ast.Assert):
            out.append(outer | _names(st.test))
        elif isinstance(st, ast.If):
            inner = outer | _names(st.test)
            if any(isinstance(s, ast.Raise) for s in st.body):
                out.append(inner)
            out += _nested_guards(ast.Module(body=st.body, type_ignores=[]), inner)
            out += _nested_guards(ast.Module(body=st.orelse, type_ignores=[]), outer)
        elif isinstance(st, (ast.With, ast.For, ast.While, ast.Try)):
            out += _nested_guards(st, outer)
    return out


def _leaf(node: ast.expr) -> str | None:
    """The specific part of a name or attribute chain: ``job_config.parallelism.
    context_parallel_degree`` is ``context_parallel_degree``; ``VarlenAttention.Config``
    is ``VarlenAttention`` (a generic last part names nothing)."""
    parts: list[str] = []
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
        node = node.value if not isinstance(node, ast.Call) else node.func
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return next((p for p in parts if p not in _NEUTRAL), None)


def _key(test: ast.expr) -> frozenset[str]:
    """What a condition tests, whatever its shape: the leaf of each name it reads and
    each string it compares with (``attn_type != "sdpa"`` -> attn_type, 'sdpa')."""
    out: set[str] = set()
    inner: set[int] = set()
    for node in ast.walk(test):
        if isinstance(node, (ast.Attribute, ast.Subscript)) and id(node) not in inner:
            leaf = _leaf(node)
            if leaf:
                out.add(leaf)
            inner |= {id(n) for n in ast.walk(node) if n is not node
                      and isinstance(n, (ast.Attribute, ast.Subscript, ast.Name))}
        elif isinstance(node, ast.Name) and id(node) not in inner \
                and node.id not in _NEUTRAL:
            out.add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.add(repr(node.value))
    return frozenset(out)


def _refusals(files: dict[str, str], folder: str) -> list[frozenset[str]]:
    """What every raising check of the folder's own code tests, in any function or
    file: an ``if …: raise`` (the raise in its body or its ``else``, under the
    conditions around it), a raise after ``if …: return``, or an ``assert``. A
    sub-project that refuses a combination in its parallelize function, in a helper
    or at the top of a function refuses it, whichever method its siblings check in."""
    out: list[frozenset[str]] = []

    def visit(body: list[ast.stmt], outer: frozenset[str]) -> None:
        exits: frozenset[str] = frozenset()  # ``if ok: return`` before a bare raise
        for st in body:
            if isinstance(st, ast.Raise) and exits:
                out.append(outer | exits)
            elif isinstance(st, ast.If) and st.body and isinstance(
                    st.body[-1], (ast.Return, ast.Continue)) and not st.orelse:
                exits |= _key(st.test)
            if isinstance(st, ast.Assert):
                out.append(outer | _key(st.test))
            elif isinstance(st, ast.If):
                inner = outer | _key(st.test)
                if any(isinstance(x, ast.Raise) for x in st.body + st.orelse):
                    out.append(inner)
                visit(st.body, inner)
                visit(st.orelse, inner)
            elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                visit(st.body, frozenset())
            elif isinstance(st, (ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While,
                                 ast.Try)):
                visit(st.body, outer)
                visit(getattr(st, "orelse", []), outer)
                for h in getattr(st, "handlers", []):
                    visit(h.body, outer)
                visit(getattr(st, "finalbody", []), outer)

    for _path, text in own_sources(files, folder):
        if "raise" not in text and "assert" not in text:
            continue
        mod = ps.parse(text)
        if mod is not None:
            visit(mod.body, frozenset())
    return out


def _refused(key: frozenset[str], refusals: list[frozenset[str]]) -> bool:
    """Whether one of ``refusals`` tests what a sibling's guard tests: every string it
    compares with, and at least two thirds of the names (all of two)."""
    consts = {k for k in key if k.startswith("'")}
    names = key - consts
    return bool(key) and any(consts <= r and 3 * len(names & r) >= 2 * len(names)
                             for r in refusals)


def _covered(g: frozenset[str], by: list[frozenset[str]]) -> bool:
    """Whether a check reading at least half of ``g``'s names is among ``by``."""
    return any(len(g & b) * 2 >= len(g) for b in by)


def _base_guards(inp: Inputs, bases: list[str], method: str) -> list[frozenset[str]]:
    """Checks the method of the classes the sub-project's class derives from already
    makes: what the sub-project inherits (or calls through ``super``) is not missing."""
    index = classindex.for_tree(inp.head)
    out: list[frozenset[str]] = []
    for base in bases:
        for cls in index.resolve(base)[:4]:
            for fn in cls.body:
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                        and fn.name == method:
                    out += _nested_guards(fn)
    return out


def _bases(cls: ast.ClassDef) -> str:
    return ",".join(sorted(ast.unparse(b) for b in cls.bases))


def _methods(path: str, text: str) -> dict[tuple[str, str], tuple[str, int, list[Guard]]]:
    """(bases of the class, method) -> (Outer.Class.method, line, guards) of one file."""
    mod = ps.parse(text)
    if mod is None:
        return {}
    out: dict[tuple[str, str], tuple[str, int, list[Guard]]] = {}
    stack: list[tuple[str, ast.AST]] = [("", mod)]
    while stack:
        prefix, node = stack.pop()
        for cls in getattr(node, "body", []):
            if not isinstance(cls, ast.ClassDef):
                continue
            stack.append((f"{prefix}{cls.name}.", cls))
            if not cls.bases:
                continue
            bases = _bases(cls)
            for fn in cls.body:
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out[(bases, fn.name)] = (f"{prefix}{cls.name}.{fn.name}", fn.lineno,
                                             _guards(path, fn))
    return out


_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:class|def)[ \t]+(\w+)", re.M)


def _folder(tree_files: dict[str, str], folder: str, wanted: set[str] | None = None,
            bases: set[str] | None = None
            ) -> tuple[dict[tuple[str, str], tuple[str, str, int, list[Guard]]], set[str]]:
    """A folder's methods by (bases, name) and the names its own code defines; with
    ``wanted``/``bases``, only files that raise, define one of those methods and spell
    one of those base classes are parsed (a method can match no other way)."""
    methods: dict[tuple[str, str], tuple[str, str, int, list[Guard]]] = {}
    defined: set[str] = set()
    for path, text in own_sources(tree_files, folder):
        names = set(_DEF.findall(text))
        defined |= names
        if wanted is not None and not (names & wanted):
            continue
        if bases is not None and ("raise" not in text or not any(b in text for b in bases)):
            continue
        for key, (name, line, guards) in _methods(path, text).items():
            methods.setdefault(key, (path, name, line, guards))
    return methods, defined


_WORD = re.compile(r"[A-Za-z_]\w*")


def _words(tree_files: dict[str, str], folder: str) -> frozenset[str]:
    """Every identifier-like word the folder's Python sources spell."""
    out: set[str] = set()
    for path, text in tree_files.items():
        if path.startswith(folder) and path.endswith(".py"):
            out.update(_WORD.findall(text))
    return frozenset(out)


def _concerns(names: frozenset[str], spoken: frozenset[str]) -> bool:
    """Whether a sibling's check is about something the sub-project has: at least half
    of the specific names it reads (``expert_parallel_degree``, ``n_kv_heads``; a
    compound name, not a short local like ``tp``) are spelled somewhere in the
    sub-project. A dense model is not asked to reject an MoE backend setting it never
    reads, nor a model without KV heads to check their count."""
    specific = [n for n in names if "_" in n.strip("_")]
    return 2 * sum(n in spoken for n in specific) >= len(specific)


def _similar(a: frozenset[str], b: frozenset[str]) -> bool:
    return len(a & b) / len(a | b) >= SIMILAR


def sibling_folders(inp: Inputs) -> tuple[str, list[str]]:
    """The sub-project's parent folder and the folders beside the sub-project that hold
    Python code (by name, at most MAX_SIBLINGS); none when fewer than MIN_SIBLINGS, or
    when the sub-project sits at the repository's root."""
    sub = inp.target.subproject.rstrip("/")
    parent = posixpath.dirname(sub)
    if not parent:
        return parent, []
    siblings = sorted({p[len(parent) + 1:].split("/", 1)[0] for p in inp.head.paths
                       if p.startswith(parent + "/") and p.count("/") > parent.count("/") + 1
                       and p.endswith(".py")} - {posixpath.basename(sub)})[:MAX_SIBLINGS]
    return parent, siblings if len(siblings) >= MIN_SIBLINGS else []


def analyse(inp: Inputs) -> list[MissingGuard]:
    sub = inp.target.subproject.rstrip("/")
    parent, siblings = sibling_folders(inp)
    if not siblings:
        return []
    files = inp.head.files
    ours, _ = _folder(files, sub + "/")
    spoken = _words(files, sub + "/")
    refusals: list[frozenset[str]] | None = None
    wanted = {k[1] for k in ours}
    spelled = {b for k in ours for b in k[0].split(",")}
    others = [_folder(files, f"{parent}/{s}/", wanted, spelled) for s in siblings]
    out: list[MissingGuard] = []
    for key, (path, name, line, guards) in sorted(ours.items()):
        theirs = [(m[key], own) for m, own in others if key in m]
        if len(theirs) < MIN_SIBLINGS:
            continue
        # Each sibling's guards that read no name of the sibling's own code.
        shared = [[g for g in m[3] if not (g.names & own)] for m, own in theirs]
        seen: list[frozenset[str]] = []
        for i, gs in enumerate(shared):
            for g in gs:
                if any(_similar(g.names, s) for s in seen):
                    continue
                seen.append(g.names)
                alike = [h for j, hs in enumerate(shared) if j != i for h in hs
                         if _similar(g.names, h.names)]
                holders = [g, *alike[:MAX_SIBLINGS]]
                folders = {h.file for h in holders}
                if len(folders) < MIN_SIBLINGS or 3 * len(folders) < len(theirs):
                    continue
                if any(_similar(g.names, h.names) for h in guards):
                    continue
                if not _concerns(g.names, spoken):
                    continue
                if _covered(g.names, _base_guards(inp, key[0].split(","), key[1])):
                    continue
                if refusals is None:
                    refusals = _refusals(files, sub + "/")
                if _refused(g.key, refusals):
                    continue
                out.append(MissingGuard(path, line, name, g.text,
                                        tuple(sorted(f"{h.file}:{h.line}" for h in holders))))
                if len(out) >= MAX_FINDINGS:
                    return out
    return out
