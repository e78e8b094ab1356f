"""Prose that names one value of a condition the code writes over several (#22 defect
7, S-5), resolved against the sub-project's own comparisons:

- an error message under ``if x != "a": raise …`` (or ``x not in (…)``) that names
  some of the values the condition refuses but not all of them, where the values are
  those the repository's code compares ``x`` with (``"CP support for FlexAttention is
  in progress"`` under ``attn_type != "sdpa"``, while ``varlen`` is refused too);
- a sentence of a configured doc (outside code blocks: a command sets a value, a
  sentence states a condition) naming ``--section.field value`` where every
  comparison of ``field`` in the sub-project's code that includes the value groups it
  with others (``spmd_backend in ("full_dtensor", "spmd_types")``): the rule is stated
  for one value, the code applies it to all of them.

Pure: file texts in, ``DocProblem`` records out.
"""

from __future__ import annotations

import ast
import re

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.commentrefs import MAX_FILE_CHARS
from agentops.scout.analyses.docs import DocProblem
from agentops.scout.model import Inputs

_FLAG = re.compile(r"--([a-z_]{1,60})\.([a-z_]{1,60})[ =]`?([A-Za-z_][\w-]{0,60})")
_WORD = re.compile(r"[A-Za-z_]\w{0,80}")
MAX_LINE = 2000
MAX_FINDINGS = 20
MIN_VALUE = 3  # a value shorter than this is no word a message could be said to name


def _compared(mod: ast.Module) -> list[tuple[str, ast.Compare, frozenset[str]]]:
    """(compared name, node, string values) of each one-operator comparison."""
    out: list[tuple[str, ast.Compare, frozenset[str]]] = []
    for node in ps.walk(mod):
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
            continue
        left = node.left
        name = left.attr if isinstance(left, ast.Attribute) else (
            left.id if isinstance(left, ast.Name) else None)
        if name is None:
            continue
        vals = frozenset(e.value for e in ast.walk(node.comparators[0])
                         if isinstance(e, ast.Constant) and isinstance(e.value, str))
        if vals:
            out.append((name, node, vals))
    return out


def _values_by_name(inp: Inputs, names: set[str]) -> dict[str, set[str]]:
    """Every string value the repository's Python compares one of ``names`` with
    (``x == "v"``, ``x != "v"``, ``x in ("v", …)``), read with bounded regexes rather
    than a parse of every file."""
    out: dict[str, set[str]] = {}
    pats = {n: (re.compile(rf"\b{re.escape(n)}\s*[!=]=\s*[\"']([\w-]{{1,60}})[\"']"),
                re.compile(rf"\b{re.escape(n)}\s+(?:not\s+)?in\s*[(\[{{]([^)\]}}]{{0,300}})"))
            for n in names}
    for path, text in inp.head.files.items():
        if not path.endswith(".py") or len(text) > MAX_FILE_CHARS:
            continue
        for name, (eq, member) in pats.items():
            if name not in text:
                continue
            found = out.setdefault(name, set())
            found.update(m.group(1) for m in eq.finditer(text))
            for m in member.finditer(text):
                found.update(re.findall(r"[\"']([\w-]{1,60})[\"']", m.group(1)))
    return out


def _named(message: str, values: set[str]) -> set[str]:
    words = [w.lower() for w in _WORD.findall(message[:MAX_LINE])]
    return {v for v in values if len(v) >= MIN_VALUE
            and any(w == v.lower() or w.startswith(v.lower()) for w in words)}


def _message(node: ast.Raise) -> str:
    return " ".join(e.value for e in ast.walk(node) if isinstance(e, ast.Constant)
                    and isinstance(e.value, str))


def _messages(path: str, mod: ast.Module, values: dict[str, set[str]]) -> list[DocProblem]:
    out: list[DocProblem] = []
    for node in ps.walk(mod):
        if not isinstance(node, ast.If):
            continue
        raise_ = next((s for s in node.body if isinstance(s, ast.Raise)), None)
        if raise_ is None:
            continue
        for cmp in ast.walk(node.test):
            if not (isinstance(cmp, ast.Compare) and len(cmp.ops) == 1
                    and isinstance(cmp.ops[0], ast.NotEq | ast.NotIn)):
                continue
            left = cmp.left
            name = left.attr if isinstance(left, ast.Attribute) else getattr(left, "id", None)
            allowed = {e.value for e in ast.walk(cmp.comparators[0])
                       if isinstance(e, ast.Constant) and isinstance(e.value, str)}
            if not name or not allowed:
                continue
            refused = values.get(name, set()) - allowed
            named = _named(_message(raise_), refused)
            if named and named != refused:
                left_out = ", ".join(f"`{v}`" for v in sorted(refused - named))
                said = ", ".join(f"`{v}`" for v in sorted(named))
                out.append(DocProblem(
                    path, raise_.lineno,
                    f"the error message names {said} as the reason, but the condition "
                    f"refuses every `{name}` other than "
                    f"{', '.join(f'`{v}`' for v in sorted(allowed))}: also {left_out}, "
                    f"which the code compares `{name}` with elsewhere; say so in the "
                    f"message, or narrow the condition", kind="reference"))
    return out


def _doc_conditions(inp: Inputs, groups: dict[str, list[tuple[frozenset[str], str]]]
                    ) -> list[DocProblem]:
    out: list[DocProblem] = []
    for doc in inp.target.docs:
        fence = False
        for n, raw in enumerate((inp.head.text(doc) or "").splitlines(), 1):
            if raw.strip().startswith(("```", "~~~")):
                fence = not fence
                continue
            if fence:
                continue
            for m in _FLAG.finditer(raw[:MAX_LINE]):
                field, value = m.group(2), m.group(3)
                tests = [(vals, where) for vals, where in groups.get(field, [])
                         if value in vals]
                if not tests or any(len(vals) < 2 for vals, _w in tests):
                    continue
                others = sorted(set().union(*(vals for vals, _w in tests)) - {value})
                sites = ", ".join(dict.fromkeys(w for _v, w in tests))
                out.append(DocProblem(
                    doc, n,
                    f"states this for `--{m.group(1)}.{field} {value}` only, but every test "
                    f"of `{field}` in the sub-project's code that includes `{value}` also "
                    f"includes {', '.join(f'`{v}`' for v in others)} ({sites}): name them "
                    f"too, or say why they differ", kind="reference"))
                if len(out) >= MAX_FINDINGS:
                    return out
    return out


def analyse(inp: Inputs) -> list[DocProblem]:
    sub = inp.target.subproject.rstrip("/") + "/"
    mine: list[tuple[str, ast.Module]] = []
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")) or len(text) > MAX_FILE_CHARS:
            continue
        if "/tests/" in path or path.rsplit("/", 1)[-1].startswith("test_"):
            continue
        mod = ps.parse(text)
        if mod is not None:
            mine.append((path, mod))
    groups: dict[str, list[tuple[frozenset[str], str]]] = {}
    refusing: set[str] = set()  # names a `!=` / `not in` comparison tests
    for path, mod in mine:
        for name, node, vals in _compared(mod):
            groups.setdefault(name, []).append((vals, f"{path}:{node.lineno}"))
            if isinstance(node.ops[0], ast.NotEq | ast.NotIn):
                refusing.add(name)
    out = _doc_conditions(inp, groups)
    if refusing:
        values = _values_by_name(inp, refusing)
        for path, mod in mine:
            out += _messages(path, mod, values)
    return out[:MAX_FINDINGS]
