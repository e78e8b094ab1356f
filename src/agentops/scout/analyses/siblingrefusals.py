"""The same refusal, tested differently in the sibling folders (#22, sibling parity): a
check ``if …: raise X("message")`` of the sub-project whose message some sibling folder
(``models/<name>`` beside ``models/<other>``) raises word for word, under a condition
that reads none of the names the sub-project's condition reads. Two folders refusing
"the same thing" by unrelated tests cannot refuse the same setups: one of them lets
through what it means to stop (a guard rewritten for one model and copied wrong to
another), or stops what it means to allow.

What a condition tests is the leaf of each name it reads and each string it compares
with (``siblingguards._key``): a local alias of the same setting, ``self.`` or not, is
the same test; a condition that shares any name with the sibling's is a variant, not
judged. A short message (under ``MIN_MESSAGE`` characters) is too generic to say two
checks mean the same thing.

An Opportunity naming both sides: which of the two is right needs the code read. Pure:
the HEAD tree in, ``RefusalSplit`` records out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses import siblingguards
from agentops.scout.model import Inputs

MIN_MESSAGE = 15
MAX_FILE_CHARS = 400_000


@dataclass(frozen=True)
class Refusal:
    file: str
    line: int
    condition: str
    message: str  # normalised: what two refusals are matched by
    key: frozenset[str]
    said: str = ""  # the message as written


@dataclass(frozen=True)
class RefusalSplit:
    file: str
    line: int
    condition: str  # ours
    message: str  # ours, as written
    siblings: tuple[str, ...]  # "file:line `condition`" of each differing sibling


def _said(exc: ast.expr) -> str:
    """The words of a raise's string constants (f-string parts included), blanks
    collapsed."""
    text = " ".join(n.value for n in ast.walk(exc)
                    if isinstance(n, ast.Constant) and isinstance(n.value, str))
    return re.sub(r"\s+", " ", text).strip()


def refusals(path: str, text: str) -> list[Refusal]:
    """Each ``if cond: raise …`` (the raise first in the body) with a message."""
    tree = ps.parse(text)
    if tree is None:
        return []
    out = []
    for node in ps.nodes(tree):
        if not isinstance(node, ast.If) or not node.body:
            continue
        first = node.body[0]
        if not isinstance(first, ast.Raise) or first.exc is None:
            continue
        said = _said(first.exc)
        if len(said) >= MIN_MESSAGE:
            out.append(Refusal(path, node.lineno, ast.unparse(node.test), said.lower(),
                               siblingguards._key(node.test), said))
    return out


def _folder_refusals(inp: Inputs, folder: str) -> list[Refusal]:
    out = []
    for path in sorted(inp.head.files):
        if not (path.startswith(folder) and path.endswith(".py")) or "/tests/" in path \
                or path.rsplit("/", 1)[-1].startswith("test_"):
            continue
        text = inp.head.files[path]
        if "raise" in text and len(text) <= MAX_FILE_CHARS:
            out += refusals(path, text)
    return out


def analyse(inp: Inputs) -> list[RefusalSplit]:
    parent, siblings = siblingguards.sibling_folders(inp)
    if not siblings:
        return []
    ours = _folder_refusals(inp, inp.target.subproject.rstrip("/") + "/")
    if not ours:
        return []
    wanted = {r.message for r in ours}
    theirs: dict[str, list[Refusal]] = {}
    for s in siblings:
        for r in _folder_refusals(inp, f"{parent}/{s}/"):
            if r.message in wanted:
                theirs.setdefault(r.message, []).append(r)
    out = []
    for r in ours:
        # Another check of the sub-project with the same message and a related
        # condition: the folder already tests it that way too.
        own = [o.key for o in ours if o.message == r.message and o is not r]
        split = [t for t in theirs.get(r.message, ())
                 if r.key and t.key and not (r.key & t.key)
                 and not any(k & t.key for k in own)]
        if split:
            out.append(RefusalSplit(r.file, r.line, r.condition, r.said, tuple(
                f"{t.file}:{t.line} `{t.condition[:80]}`" for t in split)))
    return out
