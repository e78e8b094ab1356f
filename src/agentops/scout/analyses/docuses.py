"""Prose about what a definition stopped doing in the window (#22 defect 7, S-5). A
comment or docstring describes the code of the function or class it sits in; when the
window changes that code, the prose should change with it. Two changes are resolved
against the code at the baseline and at HEAD, never against the prose's wording:

- a use removed: the definition used a member of its own object (``self.x``) or called a
  function or class the sub-project defined (``_helper()``) at the baseline, no longer does
  at HEAD, and no code of the sub-project names it at HEAD (removed or renamed, not moved
  to a helper); an unchanged prose line of that definition still names it as a word
  (leading underscores aside: ``_dequantize`` is "dequantize");
- a hand-over removed: a function passed one of its names to a call's keyword at the
  baseline (``spawn(boot=make(env))``: ``env`` goes to ``boot``, through one local
  assignment too), no call of the function does at HEAD, and an unchanged prose line of
  it names both the value and the keyword.

Precision first: only prose lines present at the baseline (a line rewritten in the window
is the author's new statement), only the innermost definition's own changes, names of four
characters or more, and a name still spelled anywhere in the sub-project's code at HEAD
(an attribute, a call, a definition, a parameter) is not judged removed. A line another doc
check already reports is not repeated.

Pure: the sub-project's texts at HEAD and at the baseline in, ``DocProblem`` records out.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.commentrefs import _texts, own_sources
from agentops.scout.analyses.docs import DocProblem
from agentops.scout.model import Inputs

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
MIN_NAME = 4
MAX_PER_FILE = 5


def _bare(name: str) -> str:
    return name.lstrip("_")


def _defs(tree: ast.Module) -> dict[str, ast.AST]:
    """Qualified name (``Class.method``) -> definition, nested ones included."""
    out: dict[str, ast.AST] = {}
    todo: list[tuple[ast.AST, str]] = [(tree, "")]
    while todo:
        node, prefix = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _DEFS):
                name = prefix + child.name
                out[name] = child
                todo.append((child, name + "."))
            else:
                todo.append((child, prefix))
    return out


def _innermost(defs: dict[str, ast.AST]) -> dict[int, str]:
    """line -> the innermost definition spanning it (a later start is nested deeper)."""
    out: dict[int, str] = {}
    for name, node in sorted(defs.items(), key=lambda kv: kv[1].lineno):
        for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
            out[line] = name
    return out


def _uses(node: ast.AST, own: set[str]) -> dict[str, str]:
    """bare name -> how the definition uses it: a member of its own object, or a call of
    something the sub-project defines."""
    out: dict[str, str] = {}
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and \
                n.value.id in ("self", "cls"):
            out.setdefault(_bare(n.attr), f"{n.value.id}.{n.attr}")
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in own:
            out.setdefault(_bare(n.func.id), f"{n.func.id}()")
    return out


def _handovers(fn: ast.AST) -> dict[tuple[str, str], str]:
    """(keyword, name) -> the callee, for each name a call of ``fn`` passes to a keyword
    (in the keyword's value, or in what a local used there was assigned)."""
    assigned: dict[str, set[str]] = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign):
            names = {x.id for x in ast.walk(n.value) if isinstance(x, ast.Name)}
            for t in n.targets:
                if isinstance(t, ast.Name):
                    assigned.setdefault(t.id, set()).update(names)
    out: dict[tuple[str, str], str] = {}
    for n in ast.walk(fn):
        if not isinstance(n, ast.Call):
            continue
        callee = ps.name_chain(n.func)
        for kw in n.keywords:
            if not kw.arg:
                continue
            names = {x.id for x in ast.walk(kw.value) if isinstance(x, ast.Name)}
            for name in list(names):
                names |= assigned.get(name, set())
            for name in names - {kw.arg}:
                out.setdefault((kw.arg, name), ".".join(callee) or "a call")
    return out


def _lost(old: ast.AST, new: ast.AST) -> dict[tuple[str, str], str]:
    """The hand-overs of the baseline's function that HEAD's no longer makes."""
    kept = _handovers(new)
    return {k: v for k, v in _handovers(old).items() if k not in kept}


def _word(name: str, line: str) -> re.Match[str] | None:
    return re.search(r"(?<![\w])_?" + re.escape(name) + r"(?!\w)", line)


def _token(line: str, match: re.Match[str]) -> str:
    """The code-like token around a match (``output.weight``), for the report to quote."""
    start, end = match.start(), match.end()
    while start > 0 and (line[start - 1].isalnum() or line[start - 1] in "_."):
        start -= 1
    while end < len(line) and (line[end].isalnum() or line[end] in "_."):
        end += 1
    return line[start:end].strip(".")


def analyse(inp: Inputs, seen: Iterable[tuple[str, int]] = ()) -> list[DocProblem]:
    base = inp.base
    if base is None or base.commit == inp.head.commit:
        return []
    sub = inp.target.subproject.rstrip("/") + "/"
    head_trees: dict[str, ast.Module] = {}
    for path, text in own_sources(inp.head.files, sub):
        if (tree := ps.parse(text)) is not None:
            head_trees[path] = tree
    base_trees: dict[str, ast.Module] = {}
    for path, text in own_sources(base.files, sub):
        if (tree := ps.parse(text)) is not None:
            base_trees[path] = tree
    if not head_trees or not base_trees:
        return []
    still = {_bare(n) for tree in head_trees.values() for n in ps.spelled(tree)}
    own = {n.name for t in base_trees.values() for n in ast.walk(t) if isinstance(n, _DEFS)}
    done = set(seen)
    # (file, definition, what) -> [(line, token)]; what describes the removed use.
    found: dict[tuple[str, str, str], list[tuple[int, str, bool]]] = {}
    for path, tree in head_trees.items():
        old_tree = base_trees.get(path)
        old_text = base.text(path)
        if old_tree is None or old_text is None or old_text == inp.head.files[path]:
            continue  # new in the window, or unchanged: no definition of it changed
        new_defs, old_defs = _defs(tree), _defs(old_tree)
        inner = _innermost(new_defs)
        old_prose = {ln.strip() for _n, ln in _texts(old_text)}
        # definition -> (uses gone, hand-overs lost), or None when its code is unchanged
        changed: dict[str, tuple[dict[str, str], dict[tuple[str, str], str]] | None] = {}
        per_file = 0
        for line, chunk in _texts(inp.head.files[path]):
            if (path, line) in done or chunk.strip() not in old_prose or per_file >= MAX_PER_FILE:
                continue
            name = inner.get(line)
            if name is None or name not in old_defs:
                continue
            new, old = new_defs[name], old_defs[name]
            if name not in changed:
                changed[name] = None if ast.dump(new) == ast.dump(old) else (
                    {k: v for k, v in _uses(old, own).items()
                     if len(k) >= MIN_NAME and k not in still},
                    _lost(old, new) if isinstance(new, _FUNCS) else {})
            if (diff := changed[name]) is None:
                continue
            gone, lost = diff
            comment = chunk.lstrip().startswith("#")
            hit = False
            for bare, how in sorted(gone.items()):
                if (m := _word(bare, chunk)) is not None:
                    what = (f"`{how}`, which the window removed from it; no code of the "
                            "folder names it at HEAD")
                    found.setdefault((path, name, what), []).append(
                        (line, _token(chunk, m), comment))
                    hit = True
                    break
            if not hit:
                for (kw, value), callee in sorted(lost.items()):
                    if len(kw) >= MIN_NAME and len(value) >= MIN_NAME and \
                            _word(kw, chunk) and (m := _word(value, chunk)) is not None:
                        what = (f"`{value}` handed to `{kw}=` of `{callee}`, which it did "
                                "at the baseline and no call of it does at HEAD")
                        found.setdefault((path, name, what), []).append(
                            (line, _token(chunk, m), comment))
                        hit = True
                        break
            per_file += hit
    out: list[DocProblem] = []
    for (path, name, what), lines in sorted(found.items()):
        kinds = {"comment" if c else "docstring" for _l, _t, c in lines}
        tokens = sorted({t for _l, t, _c in lines})
        problem = (f"the {' and '.join(sorted(kinds))} of `{name}` still name"
                   f"{'s' if len(lines) == 1 else ''} {', '.join(f'`{t}`' for t in tokens)}: "
                   f"{what}, so the prose describes what the code no longer does; update "
                   "it to what the code does now or drop it")
        out += [DocProblem(path, line, problem) for line, _t, _c in lines]
    return out
