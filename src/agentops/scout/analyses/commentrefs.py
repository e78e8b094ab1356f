"""Stale references in code comments (#22 defect 7): a comment or docstring of the
sub-project's Python code that names a repository file (``pkg/dir/file.py``) or a
module (``pkg.dir.module``) that does not exist at HEAD: a pointer left behind by a
move ("adapted from …", "see …").

Only references whose first folder is a top-level folder of the repository, or a
folder beside one of the commenting file's folders (``llama4/infra/parallelize.py``
written in ``models/deepseek_v3/``, where ``models/llama4/`` exists), are checked (a
bare ``model.py`` could mean anything), and one is stale only when no file of that
path exists from the root, from the commenting file's folder or one above it, from the
sub-project, or deeper down the tree.

Pure: file texts and the HEAD path list in, ``DocProblem`` records out.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterator, Mapping

from agentops.scout.analyses.docs import DocProblem
from agentops.scout.model import Inputs

# Security: comments are untrusted text; scanned with bounded regexes, per file capped
# (and no file longer than ``gitrepo.MAX_PYTHON_CHARS`` is in a tree).
MAX_PER_FILE = 20
_PATH = re.compile(r"(?<![\w./-])((?:[A-Za-z_][\w-]{0,60}/){1,12}[A-Za-z_][\w-]{0,80}"
                   r"\.(?:py|md|yaml|yml|toml|sh|json))(?![\w/-])")
_MODULE = re.compile(r"(?<![\w./-])([A-Za-z_]\w{0,60}(?:\.[A-Za-z_]\w{0,60}){2,10})"
                     r"(?![\w/(-])")


def own_sources(files: Mapping[str, str],
                prefix: str | tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """(path, text) of the Python files under ``prefix`` that are not tests (nothing in
    a ``tests/`` folder, no ``test_`` file), in path order:
    the code of its own that an analysis reads in a sub-project or a sibling folder."""
    for path, text in sorted(files.items()):
        if path.startswith(prefix) and path.endswith(".py") \
                and "/tests/" not in path and not path.rsplit("/", 1)[-1].startswith("test_"):
            yield path, text


def _texts(text: str) -> list[tuple[int, str]]:
    """(line, text) of every comment and triple-quoted string (docstrings)."""
    out: list[tuple[int, str]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                out.append((tok.start[0], tok.string))
            elif tok.type == tokenize.STRING and tok.string.lstrip("rRbBuUfF")[:3] in (
                    '"""', "'''"):
                for i, ln in enumerate(tok.string.splitlines()):
                    out.append((tok.start[0] + i, ln))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return out
    return out


def _resolves(ref: str, path: str, sub: str, paths: frozenset[str]) -> bool:
    """A path is written from the repository root, the commenting file's folder or one
    above it, the sub-project, or names a file deeper down ("the skill's
    scripts/x.py"): any of those that exists is what the comment means."""
    parts = path.split("/")[:-1]
    bases = {"", sub.rstrip("/")} | {"/".join(parts[:i]) for i in range(1, len(parts) + 1)}
    if any((f"{b}/{ref}" if b else ref) in paths for b in bases):
        return True
    return any(p.endswith("/" + ref) for p in paths)


def _module_exists(dotted: str, paths: frozenset[str], dirs: set[str]) -> bool | None:
    """True/False when ``dotted`` is (or is not) a module, or a name in one; ``None``
    when it does not look like a module path of this repository at all."""
    parts = dotted.split(".")
    if parts[0] not in dirs:
        return None
    # ``pkg.mod.attr`` and ``pkg.mod.Class.method`` are fine when a prefix is a module.
    for n in range(len(parts), 1, -1):
        stem = "/".join(parts[:n])
        if f"{stem}.py" in paths or f"{stem}/__init__.py" in paths:
            # Names after the module are attributes we do not resolve; a deeper dotted
            # path under a package (not a module) must exist as a file or folder.
            return n >= len(parts) - 2 or f"{stem}.py" in paths
    return False


def analyse(inp: Inputs) -> list[DocProblem]:
    sub = inp.target.subproject + "/"
    paths = inp.head.paths
    tops = {p.split("/", 1)[0] for p in paths if "/" in p}
    dirs = {t for t in tops if f"{t}/__init__.py" in paths}
    folders = {p.rsplit("/", 1)[0] for p in paths if "/" in p}
    children: dict[str, set[str]] = {}
    for f in folders:
        for i in range(1, f.count("/") + 1):  # every ancestor folder of a file is one too
            d = f.rsplit("/", i)[0]
            head, _, name = d.rpartition("/")
            children.setdefault(head, set()).add(name)
        head, _, name = f.rpartition("/")
        children.setdefault(head, set()).add(name)
    out: list[DocProblem] = []
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")):
            continue
        parts = path.split("/")[:-1]
        anchors = tops | {c for i in range(1, len(parts) + 1)
                          for c in children.get("/".join(parts[:i]), ())}
        # Tokenizing is the cost: only a file with a reference that does not resolve
        # (wherever it is: code lines name modules that exist) is tokenized.
        if not any(r.split("/", 1)[0] in anchors and not _resolves(r, path, sub, paths)
                   for r in _PATH.findall(text)) and not any(
                _module_exists(r, paths, dirs) is False for r in _MODULE.findall(text)):
            continue
        found = 0
        for line, chunk in _texts(text):
            for m in _PATH.finditer(chunk):
                ref = m.group(1)
                if ref.split("/", 1)[0] not in anchors or _resolves(ref, path, sub, paths):
                    continue
                near = ref.rsplit("/", 1)[0]
                out.append(DocProblem(path, line, f"comment names `{ref}`, which does not "
                                      "exist" + (f" (nor does `{near}/`)" if near not in
                                                 folders else "")))
                found += 1
            for m in _MODULE.finditer(chunk):
                ok = _module_exists(m.group(1), paths, dirs)
                if ok is False:
                    out.append(DocProblem(path, line, f"comment names module "
                                          f"`{m.group(1)}`, which does not exist"))
                    found += 1
            if found >= MAX_PER_FILE:
                break
    return out
