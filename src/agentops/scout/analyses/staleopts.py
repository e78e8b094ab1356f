"""Comments about removed option values (#22 defect 7): a comment or docstring of the
sub-project that names ``option="value"`` where the code at the baseline accepted that
value for that option (a ``Literal`` field, a comparison, a keyword or default) and the
code at HEAD nowhere does: the mode was removed and the comment still explains the code
with it.

Judged against the baseline, not against HEAD alone: a value the code never had is
prose, not a stale claim.

Pure: the two trees' texts in, ``DocProblem`` records out.
"""

from __future__ import annotations

import ast
import re

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.commentrefs import _texts
from agentops.scout.analyses.docs import DocProblem
from agentops.scout.gitrepo import Tree
from agentops.scout.model import Inputs

_COMMENTED_OPTION = re.compile(r"#[^\n]*?[A-Za-z_]\s?=\s?[\"'][\w.+-]{1,40}[\"']")
_OPTION = re.compile(r"(?<![\w.])([A-Za-z_]\w{0,40})\s?=\s?([\"'])([\w.+-]{1,40})\2")


def _name(node: ast.AST) -> str:
    return node.id if isinstance(node, ast.Name) else (
        node.attr if isinstance(node, ast.Attribute) else "")


def _strs(node: ast.AST | None) -> list[str]:
    if node is None:
        return []
    return [n.value for n in ast.walk(node)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _pairs(tree: Tree, roots: tuple[str, ...], values: frozenset[str]
           ) -> set[tuple[str, str]]:
    """Every (option, value) the code of ``roots`` accepts or uses, for ``values``."""
    key = ("staleopts-pairs", roots, values)
    if key in tree.cache:
        return tree.cache[key]
    out: set[tuple[str, str]] = set()
    quoted = [f"{q}{v}{q}" for v in values for q in "\"'"]
    for path, text in tree.files.items():
        if not path.endswith(".py") or not path.startswith(roots):
            continue
        # Only a file that spells one of the values as a literal can accept it; parsing
        # every watched file of two trees costs more than the rest of this check.
        if not any(q in text for q in quoted):
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        for n in ps.walk(mod):
            if isinstance(n, ast.keyword) and n.arg:
                out |= {(n.arg, v) for v in _strs(n.value)}
            elif isinstance(n, ast.Compare):
                name = _name(n.left)
                out |= {(name, v) for c in n.comparators for v in _strs(c)} if name else set()
            elif isinstance(n, ast.AnnAssign) and _name(n.target):
                vals = _strs(n.annotation) + _strs(n.value)
                out |= {(_name(n.target), v) for v in vals}
            elif isinstance(n, ast.Assign):
                for t in n.targets:
                    if _name(t):
                        out |= {(_name(t), v) for v in _strs(n.value)}
            elif isinstance(n, ast.arguments):
                args = [*n.posonlyargs, *n.args]
                for a, d in zip(args[len(args) - len(n.defaults):], n.defaults,
                                strict=True):
                    out |= {(a.arg, v) for v in _strs(d)}
                for a, d in zip(n.kwonlyargs, n.kw_defaults, strict=True):
                    out |= {(a.arg, v) for v in _strs(d)}
                out |= {(a.arg, v) for a in (*args, *n.kwonlyargs) for v in
                        _strs(a.annotation)}
    tree.cache[key] = out
    return out


def analyse(inp: Inputs) -> list[DocProblem]:
    if inp.base is None:
        return []
    sub = inp.target.subproject + "/"
    roots = tuple(sorted({sub, *(w if w.endswith((".py", "/")) else w + "/"
                                 for w in inp.target.watched_paths)}))
    named: list[tuple[str, int, str, str]] = []
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")):
            continue
        if not _COMMENTED_OPTION.search(text):
            continue  # tokenizing every file costs more than the rest of this check
        for line, chunk in _texts(text):
            if chunk.lstrip().startswith("#"):  # docstrings show examples; comments explain
                named += [(path, line, m.group(1), m.group(3))
                          for m in _OPTION.finditer(chunk)]
    if not named:
        return []
    values = frozenset(v for *_x, v in named)
    then, now = _pairs(inp.base, roots, values), _pairs(inp.head, roots, values)
    return [DocProblem(path, line, f"comment names `{kw}=\"{v}\"`, a value the code "
                       f"accepted at {inp.baseline.since} and no longer does")
            for path, line, kw, v in named if (kw, v) in then and (kw, v) not in now]
