"""A comment that pins the code it sits on to a commit it follows, while what that code is
built from changed after the pin (#22 defect 7, S-5). A copied config or engine often
carries ``# in step with commit <sha>``: a statement that it matches the repository as of
that commit. The statement is resolved against the code, not its words: the definition the
comment is attached to (the class or function right below it, or the one whose docstring
holds it) uses names the file imports from repository modules outside the sub-project; when
one of those classes or functions differs between the baseline and HEAD, and the pin was
already there at the baseline (so it predates the change), the pinned state is no longer
what the code claims to follow.

Precision first: a hash inside a link (another project's blob), a pin written in the window
(its order against the change is unknown), a definition that uses nothing from the
repository, and modules that changed only outside the names used are not judged.

Pure: the sub-project's texts at HEAD and at the baseline in, ``DocProblem`` records out.
"""

from __future__ import annotations

import ast
import re

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.commentrefs import _texts, own_sources
from agentops.scout.analyses.docs import DocProblem
from agentops.scout.gitrepo import Tree
from agentops.scout.model import Inputs

# Security: comments are untrusted text, read with one bounded regex; a file's pins capped.
_SHA = re.compile(r"(?<![\w./#=-])([0-9a-f]{7,40})(?![\w./-])")
MAX_PER_FILE = 5
MAX_NAMES = 6
_DEFS = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _pins(chunk: str) -> list[str]:
    """Commit-like hashes in a comment line: hex with letters and digits, not in a link."""
    if "://" in chunk:
        return []
    return [h for h in _SHA.findall(chunk)
            if any(c.isdigit() for c in h) and any(c.isalpha() for c in h)]


def _attached(tree: ast.Module, line: int) -> ast.ClassDef | ast.FunctionDef | \
        ast.AsyncFunctionDef | None:
    """The definition a comment on ``line`` belongs to: one starting (decorators
    included) within three lines below it, or one whose docstring spans it."""
    best = None
    for node in ast.walk(tree):
        if not isinstance(node, _DEFS):
            continue
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        if line < start <= line + 3:
            return node
        doc = node.body[0] if node.body else None
        if isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant) and \
                isinstance(doc.value.value, str) and \
                doc.lineno <= line <= (doc.end_lineno or doc.lineno):
            best = node
    return best


def _imported(tree: ast.Module, paths: frozenset[str], sub: str) -> dict[str, tuple[str, str]]:
    """name -> (repository file, name there) of absolute imports from modules outside
    the sub-project."""
    out: dict[str, tuple[str, str]] = {}
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
            continue
        stem = node.module.replace(".", "/")
        path = next((p for p in (f"{stem}.py", f"{stem}/__init__.py") if p in paths), None)
        if path is None or path.startswith(sub):
            continue
        for alias in node.names:
            out[alias.asname or alias.name] = (path, alias.name)
    return out


def _top_defs(text: str | None) -> dict[str, ast.AST] | None:
    tree = ps.parse(text)
    if tree is None:
        return None
    return {n.name: n for n in tree.body if isinstance(n, _DEFS)}


def _fields(node: ast.AST) -> list[str]:
    return [s.target.id for s in getattr(node, "body", ())
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]


def _change(name: str, old: ast.AST | None, new: ast.AST) -> str | None:
    """How a class or function of the repository moved since the baseline, or None."""
    if old is None:
        return f"`{name}` (new since)"
    if ast.dump(old) == ast.dump(new):
        return None
    gained = [f for f in _fields(new) if f not in _fields(old)]
    lost = [f for f in _fields(old) if f not in _fields(new)]
    parts = [f"+{f}" for f in gained[:3]] + [f"-{f}" for f in lost[:3]]
    return f"`{name}` ({', '.join(parts)})" if parts else f"`{name}` (changed)"


def _drift(inp: Inputs, base: Tree, uses: set[str], imported: dict[str, tuple[str, str]]
           ) -> list[tuple[str, str]]:
    """(how it changed, its file) of each imported definition ``uses`` names that differs
    between the baseline and HEAD."""
    out: list[tuple[str, str]] = []
    parsed: dict[str, tuple[dict[str, ast.AST] | None, dict[str, ast.AST] | None]] = {}
    for local in sorted(uses & imported.keys()):
        path, name = imported[local]
        if path not in parsed:
            parsed[path] = (_top_defs(base.text(path)), _top_defs(inp.head.text(path)))
        old, new = parsed[path]
        if old is None or new is None or name not in new:
            continue  # unreadable, or a name that is not a definition there
        if (what := _change(name, old.get(name), new[name])) is not None:
            out.append((what, path))
    return out


def analyse(inp: Inputs) -> list[DocProblem]:
    base = inp.base
    if base is None or base.commit == inp.head.commit:
        return []
    sub = inp.target.subproject.rstrip("/") + "/"
    out: list[DocProblem] = []
    for path, text in own_sources(inp.head.files, sub):
        if not _SHA.search(text):
            continue
        tree = ps.parse(text)
        if tree is None:
            continue  # a file that does not parse: its pins attach to nothing
        old_text = base.text(path) or ""
        found = 0
        for line, chunk in _texts(text):
            for pin in _pins(chunk):
                if pin not in old_text or found >= MAX_PER_FILE:
                    continue  # written in the window: its order against a change is unknown
                node = _attached(tree, line)
                if node is None:
                    continue
                uses = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
                moved = _drift(inp, base, uses, _imported(tree, inp.head.paths, sub))
                if not moved:
                    continue
                found += 1
                origin = sorted({p for _w, p in moved})
                shown = ", ".join(w for w, _p in moved[:MAX_NAMES]) + (
                    f" and {len(moved) - MAX_NAMES} more" if len(moved) > MAX_NAMES else "")
                out.append(DocProblem(
                    path, line,
                    f"comment pins `{node.name}` to commit {pin[:12]}, which predates the "
                    f"baseline {base.commit[:12]}; since then what it is built from changed "
                    f"in the repository: {shown} "
                    f"(from {', '.join(f'`{o}`' for o in origin[:3])}), so the pinned "
                    "state is not what the code follows now: re-check against HEAD and "
                    "update the commit or drop the claim"))
    return out
