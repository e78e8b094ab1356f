"""Op save lists that leave out a kernel the shared code dispatches to (#22 defect 4, a
copy that lags what it depends on): a module-level set (list, tuple) of the
sub-project's code whose elements are op overloads (``torch.ops.<ns>.<op>.<overload>``)
and that keeps the outputs of one family of kernels, one op per member of an enum the
code the sub-project imports selects from (``Backend.FAST_KERNEL`` ->
``_run_fast_kernel``), while that code also selects a member of the same shape whose op
the list lacks. A policy that saves what the list names recomputes the rest in the
backward, so on the path where the shared code picks that member the work the list was
written to keep is done twice.

The family is read from names alone, never from a table of known kernels: a member
``WORD_SUFFIX`` is covered when an op of the list has ``word`` as one of its
underscore-separated parts; two or more covered members whose ops read the same once the
word is taken out give the family's pattern; every other member the selecting code names
with the same ``_SUFFIX`` (a member of another shape, such as a fallback ``MATH``, is no
kernel of the family) is missing when the pattern filled with its word is no op of the
list. The selecting code is a module of the sub-project or one it imports, where members
of one enum sit in a list or tuple literal or are handed to ``insert``/``append``.

Pure: the HEAD tree in, ``SaveListGap`` records out.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs


@dataclass(frozen=True)
class SaveListGap:
    file: str  # the sub-project module holding the save list
    line: int
    name: str  # the list's name
    covered: tuple[str, ...]  # enum members whose op the list keeps (in selection order)
    member: str  # the member whose op it lacks
    op: str  # the op name the family's pattern gives for it
    enum: str
    select_file: str
    select_line: int  # where the selecting code names the member


@dataclass(frozen=True)
class _SaveList:
    line: int
    name: str
    ops: frozenset[str]


def _op(node: ast.expr) -> str | None:
    """``torch.ops.<ns>.<op>[.<overload>]`` -> ``op``."""
    chain = ps.name_chain(node)
    if len(chain) in (4, 5) and chain[:2] == ["torch", "ops"]:
        return chain[3]
    return None


def save_lists(module: ast.Module) -> list[_SaveList]:
    """Module-level names bound to a literal collection (or ``set``/``frozenset`` of
    one) of attribute chains of ``torch``, two or more of them op overloads."""
    out = []
    for node in module.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if not isinstance(target, ast.Name):
            continue
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
                and value.func.id in ("set", "frozenset", "list", "tuple") \
                and len(value.args) == 1 and not value.keywords:
            value = value.args[0]
        if not isinstance(value, (ast.Set, ast.List, ast.Tuple)) or len(value.elts) < 2:
            continue
        ops = [o for o in map(_op, value.elts) if o]
        # Other callables of torch may sit beside the ops (a higher-order op).
        if len(ops) >= 2 and all(ps.name_chain(e)[:1] == ["torch"] for e in value.elts):
            out.append(_SaveList(node.lineno, target.id, frozenset(ops)))
    return out


def _member(node: ast.expr) -> tuple[str, str] | None:
    """``Enum.MEMBER_NAME`` (a bare name before it) -> (Enum, MEMBER_NAME)."""
    chain = ps.name_chain(node)
    if len(chain) == 2 and chain[1].isupper() and chain[1][:1].isalpha():
        return chain[0], chain[1]
    return None


def selections(module: ast.Module) -> dict[str, dict[str, int]]:
    """Enum -> member -> first line, for the members that sit in a list or tuple
    literal holding two or more members of that enum, or are handed to
    ``insert``/``append``."""
    out: dict[str, dict[str, int]] = {}

    def add(elt: ast.expr) -> None:
        got = _member(elt)
        if got:
            lines = out.setdefault(got[0], {})
            lines[got[1]] = min(lines.get(got[1], elt.lineno), elt.lineno)

    for node in ps.nodes(module):
        if isinstance(node, (ast.List, ast.Tuple)):
            found = [m for m in map(_member, node.elts) if m]
            if len(found) >= 2 and len({e for e, _ in found}) == 1:
                for elt in node.elts:
                    add(elt)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("insert", "append") and node.args:
            add(node.args[-1])
    return out


def _imported_modules(path: str, module: ast.Module, paths: frozenset[str]) -> set[str]:
    """Repository files ``module`` (at ``path``) imports, absolute or relative."""
    out: set[str] = set()
    for node in ps.nodes(module):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ps.from_module(path, node.level, node.module)
            if base is None:
                continue  # above the repository's top: the import cannot run
            names = [base] + [f"{base}.{a.name}" for a in node.names if a.name != "*"]
        for name in names:
            found = ps.module_path(name, paths) if name else None
            if found:
                out.add(found)
    return out


def _family(lst: _SaveList, members: dict[str, int]
            ) -> tuple[str, str, tuple[str, ...]] | None:
    """(pattern with ``{}`` for the word, the members' shared suffix, covered members)
    when two or more members of one suffix are covered by ops that read the same once
    the member's word is taken out."""
    by_pattern: dict[tuple[str, str], list[str]] = {}
    for member in members:
        word, sep, suffix = member.partition("_")
        if not sep or not suffix:
            continue
        for op in lst.ops:
            parts = op.split("_")
            if parts.count(word.lower()) == 1:
                i = parts.index(word.lower())
                pattern = "_".join([*parts[:i], "{}", *parts[i + 1:]])
                by_pattern.setdefault((pattern, suffix), []).append(member)
    best = [(p, s, tuple(ms)) for (p, s), ms in by_pattern.items() if len(set(ms)) >= 2]
    if len(best) != 1:
        return None
    return best[0]


def analyse(inp: Inputs) -> list[SaveListGap]:
    sub = inp.target.subproject.rstrip("/") + "/"
    own = sorted(p for p in inp.head.files
                 if p.endswith(".py") and p.startswith(sub) and not inp.target.is_test(p))
    lists: list[tuple[str, _SaveList]] = []
    for path in own:
        text = inp.head.text(path) or ""
        if "torch.ops." not in text:
            continue
        module = ps.parse(text)
        if module is not None:
            lists += [(path, lst) for lst in save_lists(module)]
    if not lists:
        return []
    selecting: set[str] = set(own)
    for path in own:
        module = ps.parse(inp.head.text(path) or "")
        if module is not None:
            selecting |= _imported_modules(path, module, inp.head.paths)
    picks: list[tuple[str, str, dict[str, int]]] = []
    for path in sorted(selecting):
        text = inp.head.text(path)
        module = ps.parse(text) if text and path.endswith(".py") else None
        if module is not None:
            picks += [(path, enum, ms) for enum, ms in selections(module).items()]
    out = []
    for path, lst in lists:
        for sel_path, enum, members in picks:
            fam = _family(lst, members)
            if fam is None:
                continue
            pattern, suffix, covered = fam
            for member, line in members.items():
                word, _, rest = member.partition("_")
                op = pattern.format(word.lower())
                if rest == suffix and member not in covered and op not in lst.ops:
                    out.append(SaveListGap(path, lst.line, lst.name, covered, member, op,
                                           enum, sel_path, line))
    return out
