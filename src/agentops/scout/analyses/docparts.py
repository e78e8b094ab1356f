"""Doc lists of a class's parts (#22 defect 7): a doc line that names a class defined
in the repository and introduces a nested list of what it "consists of" / "contains"
is a claim about the class's fields. Each listed part must correspond to a field
(word stems against the field names' words); a part no field corresponds to is a
stale claim (a field that was removed, e.g. a loss builder that left a spec class).

A guide that points at a folder of the repository as the example ("refer to the [X
folder](x) as an example") and then lists how a folder "should be organized" (bullets
of backticked file names) claims the example has those files: a listed file the
example folder lacks, unless its bullet says it is optional, is reported.

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
_EXAMPLE = re.compile(r"\[[^\]]{1,80}\]\(([^)\s:#]{1,200})\)[^.]{0,40}\bexample\b", re.I)
_LAYOUT = re.compile(r"\b(folder|directory)\b.{0,40}\b(organi[sz]ed|structured|contain)",
                     re.I)
_FILE_BULLET = re.compile(r"^(\s*)[-*+]\s+`([\w.-]{1,80}\.[a-z]{1,5})`(.*)$")
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


_EG = re.compile(r"\be\.g\.,?\s*([^)]{1,200})")
_SNAKE = re.compile(r"(?<![\w.-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![\w-])")


def _gone_examples(inp: Inputs, doc: str, lines: list[str], k: int, *, indent: int,
                   path: str) -> list[DocProblem]:
    """Examples (``e.g. flex_attn, float8``) under a layout bullet for ``path`` that the
    example folder's file named at the baseline (as a name or part of one) and names
    nowhere at HEAD: a variant the window removed, still offered as the model to copy."""
    if inp.base is None:
        return []
    now, then = inp.head.text(path), inp.base.text(path)
    if now is None or then is None:
        return []
    out: list[DocProblem] = []
    for j in range(k + 1, len(lines)):
        b = _BULLET.match(lines[j])
        if lines[j].startswith("#") or (b and len(b.group(1)) <= indent):
            break
        for eg in _EG.findall(lines[j]):
            for word in dict.fromkeys(_SNAKE.findall(eg)):
                part = re.compile(rf"(?<![A-Za-z0-9]){re.escape(word)}(?![A-Za-z0-9])")
                if part.search(then) and not part.search(now):
                    out.append(DocProblem(
                        doc, j + 1, f"gives `{word}` as an example for `{path}`, which "
                        f"named it at {inp.baseline.since} and no longer does"))
    return out


def layout(inp: Inputs, doc: str, lines: list[str]) -> list[DocProblem]:
    """Files a guide's folder layout lists that the example folder it links lacks."""
    out: list[DocProblem] = []
    example: tuple[int, str] | None = None
    for n, raw in enumerate(lines):
        m = _EXAMPLE.search(raw)
        if m:
            target = m.group(1)
            folder = target.strip("/") if target.startswith("/") else posixpath.normpath(
                posixpath.join(posixpath.dirname(doc), target))
            if any(p.startswith(folder + "/") for p in inp.head.paths):
                example = (n + 1, folder)
            continue
        if example is None or not _LAYOUT.search(raw):
            continue
        indent: int | None = None
        for k in range(n + 1, len(lines)):
            if lines[k].startswith("#"):
                break
            fb = _FILE_BULLET.match(lines[k])
            if not fb:
                continue
            if indent is None:
                indent = len(fb.group(1))
            if len(fb.group(1)) != indent or "optional" in fb.group(3).lower():
                continue
            name = fb.group(2)
            out += _gone_examples(inp, doc, lines, k, indent=indent, path=f"{example[1]}/{name}")
            if f"{example[1]}/{name}" not in inp.head.paths:
                out.append(DocProblem(doc, k + 1, f"the folder layout lists `{name}`, but "
                                      f"the example folder it points to (`{example[1]}/`, "
                                      f"line {example[0]}) has no {name}"))
        example = None
    return out


def analyse(inp: Inputs) -> list[DocProblem]:
    out: list[DocProblem] = []
    for doc in inp.target.docs:
        text = inp.head.text(doc)
        if not text:
            continue
        lines = [ln[:MAX_LINE] for ln in text.splitlines()]
        out += layout(inp, doc, lines)
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
