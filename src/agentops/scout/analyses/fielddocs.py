"""S-5, the docstrings of the sub-project's config fields against the code (#22 defect
7). A field's docstring is what ``--help`` prints for it, so it is a doc like the
README: every ``--section.field`` flag it names must resolve through the target's
``doc_config_roots``, and when it lists the values the field takes (two or more quoted
values, each one the code branches on), a value the code also accepts
(``if cfg.process_group == "mccl":`` whose branch does not raise) is missing from it.

Pure: loaded texts in, ``FieldDocProblem`` records out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout.analyses import classindex, docs
from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs

_QUOTED = re.compile(r"[\"'`]([A-Za-z0-9][\w.-]{0,40})[\"'`]")


@dataclass(frozen=True)
class FieldDocProblem:
    file: str
    line: int
    problem: str
    kind: str = "field-doc"


def _field_docs(mod: ast.Module) -> list[tuple[str, str, int]]:
    """(field name, docstring, docstring's first line) of every class field followed by
    a string literal (an attribute docstring)."""
    out = []
    classes: list[ast.ClassDef] = []
    todo: list[ast.stmt] = list(mod.body)
    while todo:  # classes at module level and nested in classes (``X.Config``)
        node = todo.pop()
        if isinstance(node, ast.ClassDef):
            classes.append(node)
            todo.extend(node.body)
    for cls in sorted(classes, key=lambda c: c.lineno):
        for prev, stmt in zip(cls.body, cls.body[1:], strict=False):
            if isinstance(prev, ast.AnnAssign) and isinstance(prev.target, ast.Name) \
                    and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
                    and isinstance(stmt.value.value, str):
                out.append((prev.target.id, stmt.value.value, stmt.lineno))
    return out


def _compared_attr(node: ast.expr) -> str | None:
    """``x.field`` or ``x.field.lower()`` -> ``field``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in ("lower", "upper", "strip") and not node.args:
        node = node.func.value
    return node.attr if isinstance(node, ast.Attribute) else None


def accepted_values(inp: Inputs, files: list[str]) -> dict[str, dict[str, str]]:
    """Field name -> string value -> ``file:line`` of an ``if x.field == "v"`` whose
    branch goes on (does not end in ``raise``)."""
    out: dict[str, dict[str, str]] = {}
    for path in files:
        mod = ps.parse(inp.head.text(path) or "")
        for node in ps.walk(mod) if mod is not None else ():
            if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare) \
                    or not node.body or isinstance(node.body[-1], ast.Raise):
                continue
            test = node.test
            attr = _compared_attr(test.left)
            if attr is None or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq | ast.In):
                continue
            right = test.comparators[0]
            values = right.elts if isinstance(right, ast.Tuple | ast.List | ast.Set) else [right]
            for v in values:
                if isinstance(v, ast.Constant) and isinstance(v.value, str):
                    out.setdefault(attr, {}).setdefault(v.value, f"{path}:{node.lineno}")
    return out


def check(inp: Inputs) -> list[FieldDocProblem]:
    sub = inp.target.subproject + "/"
    files = [p for p in sorted(inp.head.files) if p.startswith(sub) and p.endswith(".py")
             and not inp.target.is_test(p)]
    roots = [s["name"] for s in inp.target.raw.get("doc_config_roots", [])]
    known = set(inp.target.raw.get("known_flags", []))
    index = None
    accepted: dict[str, dict[str, str]] | None = None
    out: list[FieldDocProblem] = []
    for path in files:
        text = inp.head.text(path) or ""
        if '"""' not in text and "'''" not in text:
            continue
        mod = ps.parse(text)
        for field, doc, line in _field_docs(mod) if mod is not None else ():
            for offset, raw in enumerate(doc.splitlines()):
                for flag, _sep, _value in docs._FLAG.findall(raw):
                    if "." not in flag or flag in known or not roots:
                        continue
                    if index is None:
                        index = classindex.for_tree(inp.head)
                    problem, _unchecked = docs.flag_verdict(flag, None, index, roots)
                    if problem:
                        out.append(FieldDocProblem(
                            path, line + offset,
                            f"the docstring of `{field}` (what --help prints) names "
                            f"{problem}"))
            listed = set(_QUOTED.findall(doc))
            if len(listed) < 2:
                continue
            if accepted is None:
                accepted = accepted_values(inp, files)
            code = accepted.get(field, {})
            if listed <= code.keys() and code.keys() - listed:
                extra = sorted(code.keys() - listed)
                # The docstring line that holds the list, quoted (as --help prints it).
                at, said = next(((i, ln.strip()) for i, ln in enumerate(doc.splitlines())
                                 if len(set(_QUOTED.findall(ln)) & listed) >= 2),
                                (0, ""))
                quote = f" (\"{said[:100].replace('`', chr(39))}\")" if said else ""
                out.append(FieldDocProblem(
                    path, line + at,
                    f"the docstring of `{field}`{quote} lists "
                    + ", ".join(f"'{v}'" for v in sorted(listed))
                    + " as the values it takes; the code also accepts "
                    + ", ".join(f"'{v}' ({code[v]})" for v in extra)
                    + ": add it to the docstring", "field-values"))
    return out
