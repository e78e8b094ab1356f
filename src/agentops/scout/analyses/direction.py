"""Which way a copy runs (#22 precision): a file outside the sub-project that repeats
the sub-project's code is its upstream only when it is not code built ON the
sub-project. An experiment that imports the folder and keeps its own variant of one of
its functions (a vLLM-only TP plan, an inference copy of the model) is downstream: what
it adds for its own purpose is no drift of the folder from its source.

The evidence is the imports: the file's own folder, or a project folder above it
(below the first folder it does not share with the sub-project), has a module that
imports the sub-project. The first folder below the shared ancestor is read only
for its own modules: it is a category (``experiments/``, ``models/``) whose other
members are unrelated projects.

Pure: file texts in, the import that shows the direction (``file:line``) or "" out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from agentops.scout.model import Inputs


def _importer(sub: str) -> re.Pattern[str]:
    dotted = sub.strip("/").replace("/", ".")
    parent, _, leaf = dotted.rpartition(".")
    return re.compile(
        rf"^[ \t]*(?:from[ \t]+{re.escape(dotted)}\b|import[ \t]+{re.escape(dotted)}\b"
        + (rf"|from[ \t]+{re.escape(parent)}[ \t]+import[ \t]+(?:[^\n]*\b)?"
           rf"{re.escape(leaf)}\b" if parent else "") + ")", re.M)


def built_on(files: Mapping[str, str], path: str, sub: str,
             seen: dict[str, str] | None = None) -> str:
    """``file:line`` of an import of ``sub`` that makes ``path`` part of code built on
    the sub-project ("" when none does). ``seen`` caches per folder across calls."""
    sub = sub.strip("/")
    if path.startswith(sub + "/"):
        return ""
    seen = {} if seen is None else seen
    uses = _importer(sub)
    shared = 0
    for a, b in zip(path.split("/"), sub.split("/"), strict=False):
        if a != b:
            break
        shared += 1
    parts = path.split("/")[:-1]
    for depth in range(len(parts), shared, -1):
        folder = "/".join(parts[:depth]) + "/"
        if folder not in seen:
            deep = depth > shared + 1
            seen[folder] = next((hit for p, text in sorted(files.items())
                                 if p.startswith(folder) and p.endswith(".py")
                                 and (deep or "/" not in p[len(folder):])
                                 and (hit := _first_use(uses, p, text))), "")
        if seen[folder]:
            return seen[folder]
    return ""


def _first_use(uses: re.Pattern[str], path: str, text: str) -> str:
    m = uses.search(text)
    if m is None:
        return ""
    line = text.count("\n", 0, m.start()) + 1
    return f"{path}:{line}"


@dataclass(frozen=True)
class ReversedPair:
    """A configured ``duplicate_logic`` pair whose "upstream" is built on the
    sub-project: not compared (its additions are its own, not drift of ours)."""

    ours: tuple[str, ...]
    upstream: str
    evidence: str  # file:line of the import of the sub-project


def reversed_pairs(inp: Inputs) -> list[ReversedPair]:
    """The configured pairs (at HEAD) whose upstream side is code built on the
    sub-project, computed once per tree."""
    key = ("direction-reversed", inp.target.subproject)
    cached = inp.head.cache.get(key)
    if cached is not None and cached[0] is inp.target:
        return cached[1]
    seen: dict[str, str] = {}
    out: list[ReversedPair] = []
    for pair in inp.target.raw.get("duplicate_logic", []) or []:
        for up in pair.get("upstream", ()):
            if up in inp.head.paths and (
                    why := built_on(inp.head.files, up, inp.target.subproject, seen)):
                out.append(ReversedPair(tuple(pair.get("ours", ())), up, why))
    inp.head.cache[key] = (inp.target, out)
    return out


def downstream_files(inp: Inputs) -> set[str]:
    """Configured upstream files that are built on the sub-project."""
    return {r.upstream for r in reversed_pairs(inp)}
