"""Docstrings that document arguments the code no longer takes (#22 defect 7, S-5): the
``Args:`` section (Google style) or ``:param x:`` lines of a function's docstring, or of
a class's docstring against its own ``__init__``, naming a parameter the signature does
not have — left behind when a constructor moved to taking one config object.

Precision first: a signature with ``*args``/``**kwargs`` may take any name and is not
judged; a class without its own ``__init__`` (a dataclass documents fields) is not
judged; only entries of the section's first indentation level count.

Pure: the sub-project's file texts in, ``DocProblem`` records out.
"""

from __future__ import annotations

import ast
import re

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.commentrefs import own_sources
from agentops.scout.analyses.docs import DocProblem
from agentops.scout.analyses.todos import MARKERS
from agentops.scout.model import Inputs

_SECTION = re.compile(r"^(?:Args|Arguments|Parameters|Params|Keyword Args)\s*:\s*$")
_HEADER = re.compile(r"^[A-Z][A-Za-z ]{0,30}:\s*$")
_ENTRY = re.compile(r"^([A-Za-z_]\w*)\s*(?:\([^)]{0,120}\))?\s*:")
_SPHINX = re.compile(r"^:param\s+(?:[\w.\[\], ]+\s+)?([A-Za-z_]\w*)\s*:")
MAX_PER_FILE = 20


def documented(doc: str, section: re.Pattern[str] = _SECTION, *, sphinx: bool = True
               ) -> list[tuple[int, str]]:
    """(line offset within the docstring, name) of each entry of a ``section`` (by
    default the parameters; ``:param x:`` lines too while ``sphinx``)."""
    out: list[tuple[int, str]] = []
    lines = doc.splitlines()
    i = 0
    while i < len(lines):
        raw = lines[i]
        text = raw.strip()
        m = _SPHINX.match(text) if sphinx else None
        if m:
            out.append((i, m.group(1)))
        if not section.match(text):
            i += 1
            continue
        head = len(raw) - len(raw.lstrip())
        level = None
        i += 1
        while i < len(lines):
            raw = lines[i]
            if not raw.strip():
                i += 1
                continue
            indent = len(raw) - len(raw.lstrip())
            if (indent <= head and _HEADER.match(raw.strip())) or indent < head:
                break
            if level is None:
                level = indent
            if indent < level:
                break
            if indent == level:
                e = _ENTRY.match(raw.strip())
                # A marker line ("TODO: drop once ...") sits at an entry's indent but is
                # a note to the maintainers, not a parameter.
                if e and e.group(1) not in MARKERS:
                    out.append((i, e.group(1)))
            i += 1
    return out


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str] | None:
    a = fn.args
    if a.vararg is not None or a.kwarg is not None:
        return None
    # Every name the signature binds, "self" included: a module-level function can take
    # a parameter called self (one bound onto a class later), and documenting it is no
    # stale entry; a method's docstring never documents its own self anyway.
    return {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}


def _docstring(node: ast.AST) -> ast.Constant | None:
    body = getattr(node, "body", [])
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[0].value
    return None


def analyse(inp: Inputs) -> list[DocProblem]:
    sub = inp.target.subproject.rstrip("/") + "/"
    out: list[DocProblem] = []
    for path, text in own_sources(inp.head.files, sub):
        if "Args" not in text and "Arguments" not in text and "Parameters" not in text \
                and ":param" not in text:
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        found = 0
        nodes = sorted((n for n in ps.walk(mod) if isinstance(
            n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))), key=lambda n: n.lineno)
        for node in nodes:
            if isinstance(node, ast.ClassDef):
                init = next((n for n in node.body if isinstance(
                    n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "__init__"),
                            None)
                if init is None:
                    continue
                fn, label = init, f"class `{node.name}`"
            else:
                fn, label = node, f"`{node.name}`"
            doc = _docstring(node)
            params = _params(fn)
            if doc is None or params is None:
                continue
            stale = [(off, n) for off, n in documented(doc.value) if n not in params]
            if not stale:
                continue
            names = ", ".join(f"`{n}`" for n in dict.fromkeys(n for _o, n in stale))
            takes = ", ".join(sorted(params - {"self", "cls"})) or "no argument"
            out.append(DocProblem(
                path, doc.lineno + stale[0][0],
                f"the docstring of {label} documents {names}, which "
                f"`{fn.name}` does not take (it takes {takes})"))
            found += 1
            if found >= MAX_PER_FILE:
                break
    return out
