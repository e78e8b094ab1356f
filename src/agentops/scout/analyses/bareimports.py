"""Sibling modules imported by bare name in a folder the repository imports as a package
(#22, census row sc-fit21a: sets 16-18 and 21): a module of the sub-project writes
``from helpers import f`` (or ``import helpers``) where ``helpers`` is a module beside
it, a name that resolves only when that folder itself is on ``sys.path`` (Python 3 has
no implicit relative import), while other code reaches the same folder through its
package path (``from pkg.sub.helpers import f``, ``from .helpers import f``). The two
import roots disagree: imported through the package the module fails with
``ModuleNotFoundError``, and run from the folder its siblings load a second time as
other modules.

Counted for a module when

- one of its imports (module or function level) is a bare name whose first part is a
  ``.py`` module or package beside it, neither a module at the repository's root nor
  one of the standard library's;
- some other file imports that module (by package path, relatively, or by bare name
  from its folder): a script nothing imports (a dev or benchmark script run from its
  folder, a leaf) keeps the script convention and is left alone;
- the folder holding it is imported by its package path somewhere in the repository
  (an absolute import of one of its modules, or a relative one): a folder of scripts
  only ever run from inside has one root and no disagreement;
- it does not put its own folder on ``sys.path`` itself (``sys.path.append`` with
  ``__file__``), which makes the bare name resolve from anywhere.

Test files (under ``tests/``/``test/``, ``test_*``/``*_test.py``, ``conftest.py``) are
not judged. Which files are read: nothing is parsed unless a library module's text has an
``import``/``from`` line naming a module beside it; then the folder's ``.py`` files and,
outside it, only the files whose text names the folder's dotted package; each at most
``_MAX_FILE`` characters. Pure: the HEAD tree in, one record per folder with such modules.
"""

from __future__ import annotations

import ast
import posixpath
import re
from dataclasses import dataclass

from agentops.scout import gitrepo
from agentops.scout.analyses import pysource as ps
from agentops.scout.config import is_test_code
from agentops.scout.model import Inputs

_MAX_FILE = gitrepo.MAX_PYTHON_CHARS
MAX_MODULES = 8  # modules listed per folder


@dataclass(frozen=True)
class BareImport:
    line: int
    name: str  # the sibling as written (``helpers``)


@dataclass(frozen=True)
class BareModule:
    file: str
    imports: tuple[BareImport, ...]
    imported_by: str  # file:line of one file importing this module


@dataclass(frozen=True)
class BareFolder:
    folder: str  # the directory holding the modules
    modules: tuple[BareModule, ...]
    package_import: str  # file:line importing a module of the folder by package path
    package_name: str  # the dotted name that import used


def _sibling(folder: str, name: str, paths: frozenset[str]) -> str | None:
    """The file a bare first part ``name`` names beside ``folder``'s modules."""
    base = f"{folder}/{name}" if folder else name
    for cand in (f"{base}.py", f"{base}/__init__.py"):
        if cand in paths:
            return cand
    return None


def _names_sibling(text: str, names: set[str]) -> bool:
    """The text has an ``import x`` / ``from x`` line naming one of ``names``."""
    if not names:
        return False
    alt = "(?:" + "|".join(map(re.escape, sorted(names))) + r")\b"
    return re.search(r"^[ \t]*(?:from[ \t]+" + alt + r"|import[ \t]+(?:[\w.]+(?:[ \t]+as[ \t]+\w+)?"
                     r"[ \t]*,[ \t]*)*" + alt + ")", text, re.M) is not None


@dataclass(frozen=True)
class _Edge:
    line: int
    target: str  # the imported file
    bare: bool  # by bare name from its folder, not by package path
    name: str = ""  # the bare first part as written


def _edges(path: str, mod: ast.Module, paths: frozenset[str]) -> list[_Edge]:
    """The repository files one module imports, each with how it names them."""
    folder = posixpath.dirname(path)
    out: list[_Edge] = []
    for node in ps.walk(mod):
        if isinstance(node, ast.Import):
            names = [(a.name, None) for a in node.names]
            level = 0
        elif isinstance(node, ast.ImportFrom):
            base = ps.from_module(path, node.level, node.module)
            if base is None:
                continue
            names = [(base, [a.name for a in node.names])]
            level = node.level
        else:
            continue
        for dotted, members in names:
            if not dotted and not members:
                continue
            first = dotted.split(".", 1)[0] if dotted else ""
            if level == 0 and first and first not in ps.STDLIB_MODULES \
                    and _sibling(folder, first, paths) \
                    and ps.module_path(first, paths) is None:
                local = f"{folder}/{dotted.replace('.', '/')}" if folder else dotted
                target = ps.module_path(ps.module_name(local + ".py"), paths) \
                    or _sibling(folder, first, paths)
                if target and target != path:
                    out.append(_Edge(node.lineno, target, True, first))
                continue
            cands = [f"{dotted}.{m}" if dotted else m for m in members or ()] + [dotted]
            for cand in cands:
                target = ps.module_path(cand, paths) if cand else None
                if target and target != path:
                    out.append(_Edge(node.lineno, target, False))
                    break
    return out


def analyse(inp: Inputs) -> list[BareFolder]:
    sub = inp.target.subproject.rstrip("/")
    if not sub:
        return []
    files, paths = inp.head.files, inp.head.paths
    dotted_sub = sub.replace("/", ".")
    spot = re.compile(re.escape(dotted_sub) + r"\b")
    inside: list[str] = []
    outside: list[str] = []
    for path in sorted(files):
        text = files[path] if path.endswith(".py") else None
        if not text or len(text) > _MAX_FILE or "import" not in text:
            continue
        (inside if path.startswith(sub + "/") else outside if spot.search(text)
         else []).append(path)
    # Only a library module whose text imports a name of a module beside it can hold a
    # bare sibling import: without one, no file is parsed.
    beside: dict[str, set[str]] = {}
    for p in paths:
        if p.startswith(sub + "/") and p.endswith(".py"):
            folder, name = posixpath.split(p.removesuffix("/__init__.py").removesuffix(".py"))
            beside.setdefault(folder, set()).add(name)
    if not any(_names_sibling(files[p], beside.get(posixpath.dirname(p), set()))
               for p in inside if not is_test_code(p)):
        return []
    parsed: dict[str, ast.Module] = {}
    for path in inside:
        mod = ps.parse(files[path])
        if mod is not None:
            parsed[path] = mod
    edges = {p: _edges(p, m, paths) for p, m in parsed.items()}
    if not any(e.bare for p, es in edges.items() if not is_test_code(p) for e in es):
        return []  # nothing to judge: the files outside are not read
    for path in outside:
        mod = ps.parse(files[path])
        if mod is not None:
            parsed[path] = mod
            edges[path] = _edges(path, mod, paths)
    importers: dict[str, tuple[str, int]] = {}  # file -> first (importer, line)
    by_package: dict[str, tuple[str, int, str]] = {}  # folder -> (importer, line, name)
    for src, es in sorted(edges.items()):
        for e in es:
            importers.setdefault(e.target, (src, e.line))
            if not e.bare:  # the folder holding the target is reached as a package
                by_package.setdefault(posixpath.dirname(e.target),
                                      (src, e.line, ps.module_name(e.target)))
    per_folder: dict[str, list[BareModule]] = {}
    for path, es in sorted(edges.items()):
        if not path.startswith(sub + "/") or is_test_code(path):
            continue
        folder = posixpath.dirname(path)
        bare = [e for e in es if e.bare]
        if not bare or folder not in by_package or path not in importers:
            continue
        if ps.path_entries(path, parsed[path]):  # it puts a folder of its own on sys.path
            continue
        shown = sorted({(e.line, e.name) for e in bare})
        src, line = importers[path]
        per_folder.setdefault(folder, []).append(BareModule(
            path, tuple(BareImport(ln, nm) for ln, nm in shown), f"{src}:{line}"))
    out: list[BareFolder] = []
    for folder, mods in sorted(per_folder.items()):
        src, line, name = by_package[folder]
        out.append(BareFolder(folder, tuple(mods[:MAX_MODULES]), f"{src}:{line}", name))
    return out
