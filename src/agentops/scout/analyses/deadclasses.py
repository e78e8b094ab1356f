"""Dead classes (#22 defect 8): a public class of the sub-project's own code that
nothing in the repository refers to — no call, annotation, base, test, registry,
string or doc mentions its name — other than the import lines that re-export it
(``from .x import JobConfig``, ``__all__``). A relic: left behind when what used it
moved (an old config system, a replaced wrapper), and exported as if it were API.

Pure: loaded texts in, frozen records out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs

_IMPORT_LINE = re.compile(r"^\s*(from\s+\S+\s+)?import\b")
_DATACLASS = re.compile(r"(dataclasses\.)?dataclass|(attr\.)?(s|define|frozen)")


@dataclass(frozen=True)
class DeadClass:
    file: str
    line: int
    name: str
    exported_by: tuple[str, ...]  # files whose import lines re-export it


def _uses(text: str, name: str, *, defining: bool) -> tuple[int, bool]:
    """(references to ``name`` other than its definition, an import or an ``__all__``
    entry; whether an import line names it)."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    definition = re.compile(rf"\s*class\s+{re.escape(name)}\b")
    refs, imported = 0, False
    in_import = in_all = False
    for line in text.splitlines():
        stripped = line.strip()
        if _IMPORT_LINE.match(line) or in_import:
            in_import = ("(" in line and ")" not in line) or (in_import and ")" not in line)
            imported = imported or bool(word.search(line))
            continue
        if stripped.startswith("__all__") or in_all:
            in_all = ("[" in line and "]" not in line) or (in_all and "]" not in line)
            continue
        if name not in line:
            continue
        hits = len(word.findall(line.split("#", 1)[0] if not line.lstrip().startswith(
            ("'", '"')) else line))
        if defining and definition.match(line):
            hits -= 1
        refs += max(hits, 0)
    return refs, imported


def analyse(inp: Inputs) -> list[DeadClass]:
    sub = inp.target.subproject + "/"
    tests = inp.target.tests_dir + "/"
    out: list[DeadClass] = []
    nearby = sorted(inp.head.files, key=lambda p: not p.startswith(sub))
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")) or path.startswith(tests) \
                or "/tests/" in path[len(sub) - 1:] or "class " not in text:
            continue
        mod = ps.parse(text)
        for node in mod.body if mod is not None else ():
            if not isinstance(node, ast.ClassDef) or node.name.startswith("_") or any(
                    _DATACLASS.fullmatch(ast.unparse(d).split("(", 1)[0]) is None
                    for d in node.decorator_list):
                continue  # private, or registered by a decorator
            name, exported, used = node.name, [], False
            # Its own file and the sub-project first: most classes are used near home.
            for other in (path, *(p for p in nearby if p != path)):
                body = inp.head.files[other]
                if name not in body:
                    continue
                refs, imported = _uses(body, name, defining=other == path)
                if refs:
                    used = True
                    break
                if imported:
                    exported.append(other)
            if not used:
                out.append(DeadClass(path, node.lineno, name, tuple(sorted(exported))))
    return out
