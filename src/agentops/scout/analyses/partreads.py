"""Attributes the repository reads on every model part that the sub-project's model no
longer has (#22 defect 8, a rename the other side still uses): the shared training code
reads a member by name on each element of a sequence of modules (``[m.x for m in
parts]`` where ``parts: list[nn.Module]``), with no ``hasattr``/``getattr`` guard, and a
module class the sub-project registers with the repository (handed by keyword to a
call of its own code, ``Spec(model_cls=OurModel)``) neither defines nor inherits ``x``
while a class another folder registers under the same keyword does — the folder renamed
the member (a buffer, a method) and the shared code still reads the old name, so the
run dies with AttributeError on the path that reads it.

When the read sits under a condition (``... if dims.feature_on else None``) and the
sub-project's own code tests the same attribute in an ``if`` that does not merely raise,
the line names that place: the folder lets the path run. A folder that refuses the
condition outright makes the read unreachable and is not reported.

Resolved through annotations and the classes' members (``docmembers.members``: bodies,
``self.x =``, registered buffers, bases of the repository); a class whose members cannot
all be known is not judged. Never a word list.

Pure: the HEAD tree in, ``MissingMember`` records out.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.classindex import for_tree
from agentops.scout.analyses.commentrefs import own_sources
from agentops.scout.analyses.docmembers import members
from agentops.scout.model import Inputs

# An annotation naming a sequence of modules: ``list[nn.Module]``, ``Sequence[Module]``.
_MODULE_SEQ = re.compile(r"^(?:list|List|Sequence|Iterable|tuple|Tuple)\[(?:[\w.]+\.)?Module"
                         r"(?:,\s*\.\.\.)?\]$")
# Speed: a name annotated as a sequence of modules, and its use as a loop's iterable or
# subscripted, found in a file's text before it is parsed.
_SEQ_TYPE = re.compile(r"(?:list|List|Sequence|Iterable|tuple|Tuple)\[(?:[\w.]+\.)?Module\b")
_NAME_COLON = re.compile(r"(\w+)[ \t]*:[ \t]*$")
_KEYWORD_CLASS = re.compile(r"\b(\w+)\s*=\s*([A-Z]\w*)\s*[,)]")
MAX_FINDINGS = 6
MAX_READER_FILES = 400  # files outside the folder parsed per run (bounded work)


@dataclass(frozen=True)
class MissingMember:
    cls: str  # the folder's class
    file: str  # where it is defined
    line: int
    member: str  # the name read
    reads: tuple[str, ...]  # file:line of the unguarded reads
    keyword: str  # how the class is registered (``model_cls``)
    sibling: str  # a class registered the same way that has the member
    reach: str = ""  # file:line of the folder's own test of the read's condition


def _seq_names(text: str) -> set[str]:
    """Names the text annotates as a sequence of modules (``parts: list[nn.Module]``)."""
    out = set()
    for m in _SEQ_TYPE.finditer(text):
        before = _NAME_COLON.search(text, max(0, m.start() - 80), m.start())
        if before:
            out.add(before.group(1))
    return out


def _registered(files: dict[str, str], prefix: str | tuple[str, ...], inside: bool,
                keywords: set[str] | None = None) -> list[tuple[str, str, str]]:
    """(keyword, class name, file) of every ``kw=ClassName`` keyword of a call in the
    non-test code under (``inside``) or outside the prefix (only ``keywords``, when
    given)."""
    out = []
    alts = "|".join(map(re.escape, sorted(keywords or ())))
    pattern = _KEYWORD_CLASS if keywords is None else re.compile(
        rf"\b({alts})\s*=\s*([A-Z]\w*)\s*[,)]")
    for path, text in sorted(files.items()):
        if not path.endswith(".py") or path.startswith(prefix) != inside:
            continue
        if "/tests/" in path or path.rsplit("/", 1)[-1].startswith("test_"):
            continue
        if "=" not in text or (keywords is not None and not any(k in text for k in keywords)):
            continue
        for m in pattern.finditer(text):
            out.append((m.group(1), m.group(2), path))
    return out


def _defined(path_classes: dict[str, list[ast.ClassDef]], name: str, files: list[str]
             ) -> tuple[ast.ClassDef, str] | None:
    for path in files:
        for cls in path_classes.get(path, []):
            if cls.name == name:
                return cls, path
    return None


def _module_seqs(fn: ast.AST, class_seqs: set[str]) -> tuple[set[str], set[str]]:
    """Names (parameters, locals) and ``self`` attributes holding a sequence of modules."""
    names: set[str] = set()
    attrs = set(class_seqs)
    args = fn.args  # type: ignore[attr-defined]
    for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
        if a.annotation is not None and _MODULE_SEQ.match(ast.unparse(a.annotation)):
            names.add(a.arg)
    for node in ps.walk(fn) if attrs else ():
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            v = node.value
            if isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) \
                    and v.value.id == "self" and v.attr in attrs:
                names.add(node.targets[0].id)
    return names, attrs



def _loops_or_indexes(text: str, alts: str) -> bool:
    """Whether ``text`` loops over or indexes one of the sequences ``alts`` names."""
    return re.search(rf"(?:\bin\s+(?:self\.)?(?:{alts})\b|\b(?:{alts})\[)", text) is not None


Holder = ast.Module | ast.ClassDef


def sequence_functions(files: dict[str, str], sub: str, uses: Callable[[str, str], bool],
                       limit: int) -> Iterator[tuple[str, ast.ClassDef | None, ps.FuncDef,
                                                     dict[str, ps.FuncDef], set[str],
                                                     set[str]]]:
    """The functions of the shared code that work on a sequence of modules: in every
    non-test module outside the folder ``sub`` whose text names such a sequence and that
    ``uses(text, alternation of those names)`` accepts (a cheap test before parsing; at
    most ``limit`` files are parsed: bounded work), each function or method holding one,
    as (path, its class or None, the function, the functions of its holder by name, the
    local names and ``self`` attributes that hold the sequence). Shared by the readers of
    members (partreads) and the callers of parts (modelprep)."""
    scanned = 0
    for path, text in sorted(files.items()):
        if not path.endswith(".py") or path.startswith(sub) or "Module" not in text \
                or "/tests/" in path or path.rsplit("/", 1)[-1].startswith("test_"):
            continue
        alts = "|".join(map(re.escape, sorted(_seq_names(text))))
        if not alts or not uses(text, alts):
            continue
        scanned += 1
        if scanned > limit:
            break
        mod = ps.parse(text)
        if mod is None:
            continue
        holders: list[Holder] = [mod, *(n for n in ps.walk(mod) if isinstance(n, ast.ClassDef))]
        for holder in holders:
            cls = holder if isinstance(holder, ast.ClassDef) else None
            seqs = {st.target.id for st in holder.body if isinstance(st, ast.AnnAssign)
                    and isinstance(st.target, ast.Name)
                    and _MODULE_SEQ.match(ast.unparse(st.annotation))} if cls else set()
            fns = [f for f in holder.body if isinstance(f, ps.FuncDef.__args__)]
            methods = {f.name: f for f in fns}
            for fn in fns:
                names, attrs = _module_seqs(fn, seqs)
                if names or attrs:
                    yield path, cls, fn, methods, names, attrs

def _is_seq(node: ast.expr, names: set[str], attrs: set[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in names
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
        and node.value.id == "self" and node.attr in attrs


def _reads(fn: ast.AST, names: set[str], attrs: set[str]) -> list[tuple[str, int, ast.AST]]:
    """(member, line, node) of each data read on an element of a module sequence."""
    nodes = ps.walk(fn)  # one walk: loops, called attributes and reads
    elems: set[str] = set()
    called: set[int] = set()
    candidates: list[ast.Attribute] = []
    for node in nodes:
        gens = node.generators if isinstance(
            node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)) else []
        for g in gens:
            if isinstance(g.target, ast.Name) and _is_seq(g.iter, names, attrs):
                elems.add(g.target.id)
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name) \
                and _is_seq(node.iter, names, attrs):
            elems.add(node.target.id)
        elif isinstance(node, ast.Call):
            called.add(id(node.func))
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) \
                and not node.attr.startswith("_") \
                and isinstance(node.value, (ast.Name, ast.Subscript)):
            candidates.append(node)
    out = []
    for node in candidates:
        v = node.value
        on_elem = (isinstance(v, ast.Name) and v.id in elems) or (
            isinstance(v, ast.Subscript) and _is_seq(v.value, names, attrs))
        # a method call is not judged: modules share many; a data member is the model's own
        if on_elem and id(node) not in called:
            out.append((node.attr, node.lineno, node))
    return out


def _guarded(fn: ast.AST, member: str) -> bool:
    for node in ps.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("hasattr", "getattr") and len(node.args) >= 2:
            arg = node.args[1]
            if isinstance(arg, ast.Constant) and arg.value == member:
                return True
    return False


def _condition_names(fn: ast.AST, target: ast.AST) -> set[str]:
    """Attribute names tested by the ``if``/conditional expressions enclosing ``target``."""
    out: set[str] = set()
    for node in ps.walk(fn):
        if isinstance(node, (ast.If, ast.IfExp)):
            branch = node.body if isinstance(node, ast.If) else [node.body]
            if any(target is n for b in branch for n in ast.walk(b)):
                out |= {n.attr for n in ast.walk(node.test) if isinstance(n, ast.Attribute)}
    return out


def _reach(own: list[tuple[str, ast.Module]], tested: set[str]) -> tuple[str, bool]:
    """(file:line of the folder's ``if`` testing one of ``tested`` and not only raising,
    whether some ``if`` testing it refuses it outright)."""
    where, refused = "", False
    for path, mod in own:
        for node in ps.walk(mod):
            if not isinstance(node, ast.If):
                continue
            names = {n.attr for n in ast.walk(node.test) if isinstance(n, ast.Attribute)}
            if not names & tested:
                continue
            only_raise = all(isinstance(s, ast.Raise) for s in node.body)
            if only_raise and isinstance(node.test, ast.Attribute):
                refused = True
            elif not only_raise and not where:
                where = f"{path}:{node.lineno}"
    return where, refused


def _shared(path: str, sub: str) -> int:
    a, b = path.split("/"), sub.split("/")
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def analyse(inp: Inputs) -> list[MissingMember]:
    files = inp.head.files
    sub = inp.target.subproject.rstrip("/") + "/"
    index = for_tree(inp.head)
    own = [(p, m) for p, t in own_sources(files, sub) if (m := ps.parse(t)) is not None]
    own_classes = {p: [n for n in m.body if isinstance(n, ast.ClassDef)] for p, m in own}
    ours: dict[tuple[str, str], tuple[ast.ClassDef, str]] = {}
    for kw, name, _path in _registered(files, sub, True):
        hit = _defined(own_classes, name, sorted(own_classes))
        if hit is not None and any(isinstance(s, ps.FuncDef.__args__) and s.name == "forward"
                                   for s in hit[0].body):
            ours[(kw, name)] = hit
    if not ours:
        return []
    keywords = {kw for kw, _ in ours}
    siblings: dict[str, list[tuple[str, set[str], str]]] = {}
    for kw, name, _path in _registered(files, sub, False, keywords):
        for cls in index.resolve(name):
            have = members(cls, index)
            where = index.path(cls)
            if have is not None and not where.startswith(sub):
                siblings.setdefault(kw, []).append((name, have, where))
    reads: dict[str, list[tuple[str, int, set[str]]]] = {}
    for path, _cls, fn, _methods, names, attrs in sequence_functions(
            files, sub, _loops_or_indexes, MAX_READER_FILES):
        for member, line, node in _reads(fn, names, attrs):
            if _guarded(fn, member):
                continue
            reads.setdefault(member, []).append((path, line, _condition_names(fn, node)))
    out: list[MissingMember] = []
    for (kw, name), (cls, path) in sorted(ours.items()):
        have = members(cls, index)
        if have is None:
            continue
        for member, where in sorted(reads.items()):
            if member in have:
                continue
            # the nearest folder's class first (a sibling beside us, not a copy elsewhere)
            near = sorted(siblings.get(kw, []), key=lambda s: (-_shared(s[2], sub), s[2]))
            sib = next((s for s, h, _w in near if member in h), "")
            if not sib:
                continue
            tested = set().union(*(t for _p, _l, t in where))
            reach, refused = _reach(own, tested) if tested else ("", False)
            if refused and not reach:
                continue
            out.append(MissingMember(
                cls=name, file=path, line=cls.lineno, member=member,
                reads=tuple(dict.fromkeys(f"{p}:{ln}" for p, ln, _t in where)),
                keyword=kw, sibling=sib, reach=reach))
            if len(out) >= MAX_FINDINGS:
                return out
    return out
