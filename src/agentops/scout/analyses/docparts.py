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
from collections.abc import Callable
from dataclasses import dataclass

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
_NAME_BULLET = re.compile(r"^(\s*)[-*+]\s+`([\w.-]{1,80}/?)`(.*)$")
_FILE_NAME = re.compile(r"^[\w.-]*\w\.[a-z]{1,5}$")
_FOLDER_WORD = re.compile(r"^\s*(?:folder|directory|dir)\b", re.I)
# A bullet that says its file is not always there: "(optional …)", "(if necessary)",
# "(only if absolutely necessary)".
_OPTIONAL = re.compile(r"\boptional\b|\bif (?:absolutely )?(?:necessary|needed|required)\b|"
                       r"\bonly if\b", re.I)
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
    cls = ps.find(ps.parse(inp.head.text(path)), name) if path.endswith(".py") \
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


@dataclass(frozen=True)
class LayoutEntry:
    line: int  # 1-based
    folders: tuple[str, ...]  # the folder bullets it sits in, outermost first
    name: str
    folder: bool
    optional: bool  # its bullet, or a folder it sits in, says optional / if necessary
    indent: int

    @property
    def rel(self) -> str:
        return "/".join((*self.folders, self.name))


def layout_entries(lines: list[str]) -> list[LayoutEntry]:
    """The entries of every folder layout in a doc ("the folder should be organized as
    follows" and its bullets), each with the folders it sits in: a bullet nests in the
    bullets above it with less indent, so `` - `args.py` `` under `` - `model` folder``
    is ``model/args.py``. A name bullet under a file or prose bullet describes that
    file, not the layout, and is no entry."""
    out: list[LayoutEntry] = []
    for n, raw in enumerate(lines):
        if not _LAYOUT.search(raw) or _BULLET.match(raw):
            continue
        stack: list[tuple[int, str | None, bool]] = []  # indent, folder name, optional
        for k in range(n + 1, len(lines)):
            if lines[k].startswith("#"):
                break
            b = _BULLET.match(lines[k])
            if not b:
                continue
            indent = len(b.group(1))
            while stack and stack[-1][0] >= indent:
                stack.pop()
            nb = _NAME_BULLET.match(lines[k])
            name = nb.group(2).rstrip("/") if nb else ""
            folder = bool(nb) and (nb.group(2).endswith("/") or _FOLDER_WORD.match(
                nb.group(3)) is not None)
            under_folders = all(f is not None for _i, f, _o in stack)
            optional = bool(nb) and _OPTIONAL.search(nb.group(3)) is not None
            if nb and under_folders and (folder or _FILE_NAME.match(name)):
                parents = tuple(f for _i, f, _o in stack if f is not None)
                out.append(LayoutEntry(k + 1, parents, name, folder,
                                       optional or any(o for _i, _f, o in stack),
                                       indent))
            stack.append((indent, name if folder and under_folders else None, optional))
    return out


def example_guides(paths: frozenset[str], text: Callable[[str], str | None],
                   subproject: str) -> list[str]:
    """The guides one folder above ``subproject`` that point at it as "an example" the
    folders beside it follow (``refer to the [X folder](x) as an example``): a guide
    shared by the sibling folders whose layout and API claims are claims about this
    folder. ``init`` drafts such a guide into ``docs``; a target drafted before it did
    still has it checked (#22 defect 7)."""
    sub = subproject.rstrip("/")
    parent = posixpath.dirname(sub)
    out: list[str] = []
    for path in sorted(paths):
        if not (parent and path.endswith(".md") and posixpath.dirname(path) == parent):
            continue
        for raw in (text(path) or "").splitlines():
            m = _EXAMPLE.search(raw[:MAX_LINE])
            if not m:
                continue
            link = m.group(1)
            folder = link.strip("/") if link.startswith("/") else posixpath.normpath(
                posixpath.join(parent, link))
            if folder == sub:
                out.append(path)
                break
    return out


def layout(inp: Inputs, doc: str, lines: list[str]) -> list[DocProblem]:
    """Files (and folders) a guide's folder layout lists that the example folder it
    links lacks, each at the place the layout nests it; a listed file the example keeps
    elsewhere is said with where it is."""
    out: list[DocProblem] = []
    entries = layout_entries(lines)
    example: tuple[int, str] | None = None
    taken: set[int] = set()
    for n, raw in enumerate(lines):
        m = _EXAMPLE.search(raw)
        if m:
            target = m.group(1)
            folder = target.strip("/") if target.startswith("/") else posixpath.normpath(
                posixpath.join(posixpath.dirname(doc), target))
            if any(p.startswith(folder + "/") for p in inp.head.paths):
                example = (n + 1, folder)
            continue
        if example is None or not _LAYOUT.search(raw) or _BULLET.match(raw):
            continue
        start, root = example
        end = next((k for k in range(n + 1, len(lines)) if lines[k].startswith("#")),
                   len(lines))
        mine = [e for e in entries if n + 1 < e.line <= end and e.line not in taken]
        taken |= {e.line for e in mine}
        missing_folders: set[str] = set()
        for e in mine:
            path = f"{root}/{e.rel}"
            if any(e.rel.startswith(f + "/") for f in missing_folders):
                continue
            if e.optional:
                out += _nowhere(inp, doc, e, root)
                continue
            if e.folder:
                if any(p.startswith(path + "/") for p in inp.head.paths):
                    continue
                missing_folders.add(e.rel)
                files = [f.name for f in mine if f.folders[:len(e.folders) + 1]
                         == (*e.folders, e.name) and not f.folder]
                where = "; ".join(f"{f} sits at {w}" for f in files
                                  if (w := _elsewhere(inp, root, f)))
                out.append(DocProblem(doc, e.line, f"the folder layout lists a `{e.rel}/` "
                                      f"folder, but the example folder it points to "
                                      f"(`{root}/`, line {start}) has no {e.rel}/"
                                      + (f" ({where})" if where else "")))
                continue
            out += _gone_examples(inp, doc, lines, e.line - 1, indent=e.indent, path=path)
            if path not in inp.head.paths:
                other = _elsewhere(inp, root, e.name)
                out.append(DocProblem(doc, e.line, f"the folder layout lists `{e.rel}`, but "
                                      f"the example folder it points to (`{root}/`, "
                                      f"line {start}) has no {e.rel}"
                                      + (f"; it has {other}" if other else "")))
        example = None
    return out


def _nowhere(inp: Inputs, doc: str, e: LayoutEntry, root: str) -> list[DocProblem]:
    """An optional file of the layout that neither the example nor any folder beside it
    has: the guide offers a file no model writes (its job is done elsewhere now)."""
    parent = posixpath.dirname(root)
    beside = {p[len(parent) + 1:].split("/", 1)[0] for p in inp.head.paths
              if parent and p.startswith(parent + "/") and p.count("/") > parent.count("/") + 1}
    if e.folder or len(beside) < 2 or any(
            p.startswith(parent + "/") and posixpath.basename(p) == e.name
            for p in inp.head.paths):
        return []
    return [DocProblem(doc, e.line, f"the folder layout lists `{e.rel}` (optional), but "
                       f"neither the example folder (`{root}/`) nor any of the "
                       f"{len(beside) - 1} folder{'s' if len(beside) != 2 else ''} beside "
                       f"it under `{parent}/` has one")]


def _elsewhere(inp: Inputs, root: str, name: str) -> str:
    """Where, inside the example folder, a file of that name sits (relative), or ""."""
    found = sorted(p[len(root) + 1:] for p in inp.head.paths
                   if p.startswith(root + "/") and posixpath.basename(p) == name)
    return ", ".join(found[:2])


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
