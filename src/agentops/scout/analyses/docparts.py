"""Doc lists of a class's parts (#22 defect 7): a doc line that names a class defined
in the repository and introduces a nested list of what it "consists of" / "contains"
is a claim about the class's fields. Each listed part must correspond to a field
(word stems against the field names' words); a part no field corresponds to is a
stale claim (a field that was removed, e.g. a loss builder that left a spec class).

Pure: doc texts and the parsed class in, ``DocProblem`` records out.
"""

from __future__ import annotations

import ast
import posixpath
import re

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.docs import DocProblem
from agentops.scout.model import Inputs

# Security: a doc is untrusted text; lines are bounded before the regexes run.
MAX_LINE = 2000
_INTRO = re.compile(r"(consist(?:s|ing)? of|contain(?:s|ing)?|made (?:up )?of|"
                    r"composed of)\s*:?\s*$", re.I)
_LINK = re.compile(r"\[`?([A-Za-z_]\w{0,80})`?\]\(([^)\s]{1,300})\)")
_BULLET = re.compile(r"^(\s*)[-*+]\s+(.*)$")
# Words that say what kind of thing a part is, not which one.
_GENERIC = {"function", "functions", "builder", "builders", "build", "callable", "fn",
            "object", "objects", "class", "type", "the", "and", "a", "an", "of", "for",
            "its", "with", "optional", "instance", "dataclass", "method", "hook"}


def _stems(words: list[str]) -> set[str]:
    return {w[:5] for w in words if w and w not in _GENERIC}


def _fields(inp: Inputs, doc: str, name: str, target: str) -> list[str] | None:
    path = target.split("#", 1)[0]
    path = path.lstrip("/") if path.startswith("/") else posixpath.normpath(
        posixpath.join(posixpath.dirname(doc), path))
    cls = ps.find(ps.parse(inp.head.text(path) or ""), name) if path.endswith(".py") \
        else None
    if not isinstance(cls, ast.ClassDef):
        return None
    return list(ps.class_fields(cls))


def _parts(item: str) -> list[str]:
    item = re.sub(r"\([^)]*\)", " ", item.replace("`", " "))
    return [p.strip() for p in re.split(r",|\band\b|/", item) if p.strip()]


def analyse(inp: Inputs) -> list[DocProblem]:
    out: list[DocProblem] = []
    for doc in inp.target.docs:
        text = inp.head.text(doc)
        if not text:
            continue
        lines = [ln[:MAX_LINE] for ln in text.splitlines()]
        for n, raw in enumerate(lines):
            link = _LINK.search(raw)
            if not link or not _INTRO.search(raw):
                continue
            fields = _fields(inp, doc, link.group(1), link.group(2))
            if not fields:
                continue
            field_stems = _stems([w for f in fields for w in f.lower().split("_")])
            indent = len(raw) - len(raw.lstrip())
            for k in range(n + 1, len(lines)):
                m = _BULLET.match(lines[k])
                if not lines[k].strip():
                    break
                if not m or len(m.group(1)) <= indent:
                    break
                for part in _parts(m.group(2)):
                    words = re.findall(r"[a-z]+", part.lower())
                    mine = _stems(words)
                    if mine and not mine & field_stems:
                        out.append(DocProblem(
                            doc, k + 1, f"lists \"{part[:80]}\" as part of "
                            f"`{link.group(1)}`, which has no such field (fields: "
                            f"{', '.join(fields[:10])})"))
    return out
