"""A doc's one-direction limit against the code (#22 item 7, S-5: a support claim
resolved against what the code does). A doc line that says only one direction of a
conversion is supported ("we only support conversion from HF checkpoints to DCP
checkpoints", "only A -> B is supported") is contradicted when the sub-project's own
code defines the other direction: a function or method named for it (``to_hf`` /
``dcp_to_hf`` / ``dcp2hf`` for "from HF to DCP") whose body does more than refuse
(``raise NotImplementedError`` or ``pass`` is no implementation). Scripts of the
repository named for that direction (``convert_to_hf.py``) are named as well, so the
reader sees how to run it.

Conservative: a line inside a code block, a claim without "only", or a direction the
sub-project implements only in tests is not judged. A judged claim is no longer listed
among the unverified support claims (``settled``).

Pure: doc texts and parsed sources in, ``DocProblem`` records out.
"""

from __future__ import annotations

import ast
import posixpath
import re

from agentops.scout.analyses import docclaims
from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.docs import DocProblem
from agentops.scout.model import Inputs

# Security: a doc is untrusted text; each line is cut before the regexes run, and the
# words taken from it are short identifiers only.
MAX_LINE = 2000
MAX_FINDINGS = 4
MAX_SHOWN = 3
_WORD = r"([A-Za-z][A-Za-z0-9]{0,30})"
# "only … from X … to Y" within one sentence, and "only X -> Y" / "X -> Y only".
_FROM_TO = re.compile(r"(?i)\bonly\b[^.]{0,60}?\bfrom\s+(?:the\s+|a\s+)?" + _WORD
                      + r"\b[^.]{0,40}?\bto\s+(?:the\s+|a\s+)?" + _WORD)
_ARROW = re.compile(r"(?i)\bonly\b[^.]{0,40}?\b" + _WORD + r"\s*(?:->|→|=>)\s*" + _WORD
                    + r"|\b" + _WORD + r"\s*(?:->|→|=>)\s*" + _WORD + r"\b[^.]{0,30}?\bonly\b")


def aliases(word: str) -> set[str]:
    """The names a format word goes by in code: itself lowercased, and for a CamelCase
    word its capitals (``HuggingFace`` → ``hf``)."""
    caps = "".join(c for c in word if c.isupper())
    out = {word.lower()}
    if len(caps) >= 2 and caps != word:
        out.add(caps.lower())
    return out


def claims(text: str) -> list[tuple[int, str, str, str]]:
    """(line, from-word, to-word, the claim as said) of the doc's one-direction limits,
    outside code blocks."""
    out = []
    for n, raw, in_code in docclaims.lines(text):
        if in_code:
            continue
        line = raw[:MAX_LINE]
        m = _FROM_TO.search(line)
        pair = (m.group(1), m.group(2)) if m else None
        if pair is None and (a := _ARROW.search(line)):
            pair = (a.group(1), a.group(2)) if a.group(1) else (a.group(3), a.group(4))
        if pair is None or aliases(pair[0]) & aliases(pair[1]):
            continue
        hit = m or a
        said = re.sub(r"[`*_\[\]<>]", "", line[hit.start():hit.end()]).strip()  # type: ignore[union-attr]
        out.append((n, pair[0], pair[1], said))
    return out


def _reverse_name(src: str, dst: str) -> re.Pattern[str]:
    """A name for converting ``dst`` back into ``src``: ending in ``to_src``,
    ``dst_to_src`` or ``dst2src`` (any alias of each word) after a snake-case break; a
    helper that only maps part of the way (``_map_to_src_key``) is no converter."""
    s = "|".join(sorted(aliases(src)))
    d = "|".join(sorted(aliases(dst)))
    return re.compile(rf"(?:^|_)(?:(?:{d})_)?to_(?:{s})$|(?:^|_)(?:{d})2(?:{s})$", re.I)


def _refuses(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A body that only documents, passes or raises: not an implementation."""
    body = [st for st in func.body if not (isinstance(st, ast.Expr)
                                          and isinstance(st.value, ast.Constant))]
    return all(isinstance(st, ast.Pass | ast.Raise) or (
        isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant)) for st in body)


def _implementations(inp: Inputs, pattern: re.Pattern[str]) -> list[tuple[str, int, str]]:
    sub = inp.target.subproject.rstrip("/") + "/"
    out = []
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")) or "/tests/" in path \
                or posixpath.basename(path).startswith("test_"):
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        for node in ps.walk(mod):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) \
                    and pattern.search(node.name) and not _refuses(node):
                out.append((path, node.lineno, node.name))
    return out


def _scripts(inp: Inputs, pattern: re.Pattern[str]) -> list[str]:
    return sorted(p for p in inp.head.paths if p.endswith((".py", ".sh"))
                  and "test" not in p.lower()
                  and pattern.search(posixpath.basename(p).rsplit(".", 1)[0]))


def analyse(inp: Inputs) -> list[DocProblem]:
    out: list[DocProblem] = []
    for doc in inp.target.docs:
        for n, src, dst, said in claims(inp.head.text(doc) or ""):
            pattern = _reverse_name(src, dst)
            impl = _implementations(inp, pattern)
            if not impl:
                continue  # the code shows no other direction: the limit may hold
            shown = ", ".join(f"`{name}` ({path}:{line})" for path, line, name
                              in impl[:MAX_SHOWN])
            scripts = _scripts(inp, pattern)
            runs = (f"; {', '.join(f'`{s}`' for s in scripts[:MAX_SHOWN])} runs it"
                    if scripts else "")
            out.append(DocProblem(
                doc, n, f'says only conversion from {src} to {dst} is supported ("{said}"), '
                f"but the sub-project also converts {dst} to {src}: {shown}{runs}; possibly "
                "stale: drop the limit or say what the other direction lacks"))
            if len(out) >= MAX_FINDINGS:
                return out
    return out


def settled(problems: list[DocProblem], found: list[DocProblem]) -> list[DocProblem]:
    """``problems`` without the unverified support claims at a line ``found`` judged:
    the report lists them as checked, not as "not checked against the code"."""
    judged = {(p.file, p.line) for p in found}
    return [p for p in problems if not (p.kind == "unverified" and (p.file, p.line) in judged
                                        and p.problem.startswith("support claim"))]
