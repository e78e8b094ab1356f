"""A comment stating a condition for the code under it that the code does not test (#22,
census row sc-fit22a: sets 12, 21 and 22): the comment says when the next statement
applies, the statement applies always. Either the code misses the condition (it runs in
the case the comment excludes) or the comment is stale; both mislead the next reader.

Two forms, read from the comment block directly above a statement of the folder's
library code (tests aside):

- *guard*: a block opening with a condition (``# If <clause>, ...``, also ``When`` and
  ``Unless``) over an ``if``/``elif`` whose clause names a setting the folder's code
  spells: an identifier of two or more ``_`` parts whose last two parts stand in the
  clause as consecutive words (``weight tying`` for ``enable_weight_tying``), while the
  ``if`` test spells no identifier sharing a part with it or with a word of the clause
  (``if self.head is not None:`` under "# If shared heads are on, ...", the folder's
  setting ``use_shared_heads``). A test
  reading the setting, or anything the clause names, is the condition written out.
- *constant*: a line of the block limiting the next value with ``only when`` /
  ``only if`` (``# Use x only when launched under a launcher``) over an assignment or a
  keyword argument whose value is a constant other than ``None`` (a placeholder later
  code fills): no expression there can depend on the condition.

A comment's clause is the text after the condition word up to the first comma,
semicolon, colon, period or parenthesis; words are compared lower-case. Comments are
read with ``tokenize`` (a ``#`` inside a string is no comment), from files of at most
``gitrepo.MAX_PYTHON_CHARS`` characters; at most ``MAX_FINDINGS`` records. Pure: the
HEAD tree in, ``CommentCondition`` records out.
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass

from agentops.scout import gitrepo
from agentops.scout.analyses import pysource as ps
from agentops.scout.config import is_test_path
from agentops.scout.model import Inputs

MAX_FINDINGS = 10
MAX_CLAUSE = 80  # characters of the comment's clause kept for the report
GUARD, CONSTANT = "guard", "constant"
# A block opening with a condition: "If ..., ...", "When ...", "Unless ...".
_OPENS = re.compile(r"#\s*(if|when|unless)\s+([^,;:.()]+)", re.I)
# A condition limiting what follows: "... only when ...", "... only if ...".
_ONLY = re.compile(r"\bonly\s+(?:when|if)\s+([^,;:.()]+)", re.I)
# A file is tokenized only when some line could hold either form (speed).
_CANDIDATE = re.compile(r"#\s*(?:if|when|unless)\s|\bonly\s+(?:when|if)\s", re.I)
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class CommentCondition:
    file: str
    line: int  # the comment line stating the condition
    code_line: int  # the statement it sits over
    form: str  # GUARD | CONSTANT
    clause: str  # the condition as the comment words it (bounded, quoted as text)
    setting: str = ""  # GUARD: the folder's identifier the clause names
    tested: tuple[str, ...] = ()  # GUARD: what the ``if`` test spells instead
    target: str = ""  # CONSTANT: the assigned name or keyword
    value: str = ""  # CONSTANT: the constant, when it is a short identifier-like string


def _starts(module: ast.Module) -> dict[int, ast.AST]:
    """Line -> the outermost statement, or keyword argument, starting there."""
    out: dict[int, ast.AST] = {}
    for node in ps.nodes(module):
        if isinstance(node, (ast.stmt, ast.keyword)) and getattr(node, "lineno", None):
            out.setdefault(node.lineno, node)
    return out


def _parts(name: str) -> list[str]:
    return [p for p in name.lower().split("_") if p]


def _setting(clause_words: list[str], spelled: set[str]) -> str:
    """The folder's identifier whose last two parts stand consecutively in the clause."""
    pairs = set(itertools.pairwise(clause_words))
    named = sorted(n for n in spelled if len(_parts(n)) >= 2 and tuple(_parts(n)[-2:]) in pairs)
    # The longest name wins: ``enable_weight_tying`` over ``weight_tying`` (same words).
    return max(named, key=len) if named else ""


def _guard(block: list[tuple[int, str]], node: ast.AST, spelled: set[str],
           path: str) -> CommentCondition | None:
    if not isinstance(node, ast.If):
        return None
    line, comment = block[0]
    m = _OPENS.match(comment.strip())
    if m is None:
        return None
    clause = m.group(2).strip()
    setting = _setting(_WORD.findall(clause.lower()), spelled)
    if not setting:
        return None
    tested = sorted(ps.spelled(node.test))
    # The test speaks of the setting or of anything else the clause names (``if
    # len(parts) == n_parts`` under "If we have all the parts"): the condition is there.
    said = set(_parts(setting)) | set(_WORD.findall(clause.lower()))
    if any(set(_parts(t)) & said for t in tested):
        return None
    return CommentCondition(path, line, node.lineno, GUARD, clause[:MAX_CLAUSE], setting,
                            tuple(tested[:4]))


def _constant(block: list[tuple[int, str]], node: ast.AST,
              path: str) -> CommentCondition | None:
    if isinstance(node, ast.keyword) and node.arg:
        target, value = node.arg, node.value
    elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        names = [ps.name_chain(t) for t in targets]
        if len(names) != 1 or not names[0]:
            return None
        target, value = ".".join(names[0]), node.value
    else:
        return None
    if not isinstance(value, ast.Constant) or value.value is None:
        return None  # an expression may follow the condition; ``None`` is a placeholder
    for line, comment in block:
        m = _ONLY.search(comment)
        if m:
            shown = value.value if isinstance(value.value, str) and re.fullmatch(
                r"[\w.\-]{1,40}", value.value) else ""
            return CommentCondition(path, line, node.lineno, CONSTANT,
                                    m.group(1).strip()[:MAX_CLAUSE], target=target,
                                    value=shown)
    return None


def _file(path: str, text: str, module: ast.Module, spelled: Callable[[], set[str]]
          ) -> list[CommentCondition]:
    # Line -> comment, for comments alone on their line.
    comments = {c.line: c.text for c in ps.comments(text) if c.alone}
    if not comments:
        return []
    starts = _starts(module)
    out = []
    lines = sorted(comments)
    i = 0
    while i < len(lines):
        j = i
        while j + 1 < len(lines) and lines[j + 1] == lines[j] + 1:
            j += 1
        block = [(n, comments[n]) for n in lines[i:j + 1]]
        node = starts.get(lines[j] + 1)
        if node is not None:
            found = (_guard(block, node, spelled(), path) if isinstance(node, ast.If)
                     else None) or _constant(block, node, path)
            if found is not None:
                out.append(found)
        i = j + 1
    return out


def analyse(inp: Inputs) -> list[CommentCondition]:
    sub = inp.target.subproject.rstrip("/") + "/"
    modules: list[tuple[str, str, ast.Module]] = []
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")) or is_test_path(path):
            continue
        if not text or len(text) > gitrepo.MAX_PYTHON_CHARS:
            continue
        module = ps.parse(text)
        if module is not None:
            modules.append((path, text, module))
    settings: list[set[str]] = []

    def spelled() -> set[str]:
        # The folder's settings: identifiers of two or more parts its library code
        # spells (read once, when a guard comment asks).
        if not settings:
            settings.append({n for _p, _t, m in modules for n in ps.spelled(m)
                             if "_" in n.strip("_")})
        return settings[0]

    out: list[CommentCondition] = []
    for path, text, module in modules:
        if _CANDIDATE.search(text):
            out += _file(path, text, module, spelled)
        if len(out) >= MAX_FINDINGS:
            return out[:MAX_FINDINGS]
    return out
