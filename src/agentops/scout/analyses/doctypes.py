"""A doc's stated mapping type against the folder's dicts (#22 item 7, docs resolved
against the code): a doc line that gives a mapping's type in a code span
(`[str: Model.Config]`, `dict[str, Model.Config]`, `{str: Model.Config}`) claims the
sub-project keeps such a mapping. When none of the sub-project's module-level dicts
keyed by strings holds values of that type (calls building it), but one maps its
names to functions of its own module (builders called later, e.g. with a backend
argument), the doc describes a shape the code left: one finding per dict, with the
doc line and the dict's ``file:line``.

Pure: doc texts and parsed sources in, ``DocProblem`` records out.
"""

from __future__ import annotations

import ast
import re

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.docs import DocProblem
from agentops.scout.model import Inputs

# Security: a doc is untrusted text; each line is cut before the regex runs.
MAX_LINE = 2000
MAX_FINDINGS = 4
_TYPE = re.compile(r"`\s*(?:[Dd]ict\[\s*str\s*,|\[\s*str\s*:|\{\s*str\s*:)\s*"
                   r"([A-Za-z_]\w{0,60}(?:\.[A-Za-z_]\w{0,60}){0,4})\s*[\]}]\s*`")


# Types a function is a value of: a mapping to builders matches them.
_FUNCTION_TYPES = frozenset({"Callable", "callable", "function", "FunctionType", "Any",
                             "object"})


def _str_dicts(mod: ast.Module) -> list[tuple[str, int, ast.Dict]]:
    """(name, line, dict) of module-level ``NAME = {"a": …, "b": …}``."""
    out = []
    for st in mod.body:
        value = st.value if isinstance(st, ast.Assign | ast.AnnAssign) else None
        target = (st.targets[0] if isinstance(st, ast.Assign) and len(st.targets) == 1
                  else st.target if isinstance(st, ast.AnnAssign) else None)
        if isinstance(value, ast.Dict) and isinstance(target, ast.Name) \
                and len(value.keys) >= 2 and all(
                isinstance(k, ast.Constant) and isinstance(k.value, str) for k in value.keys):
            out.append((target.id, st.lineno, value))
    return out


def _builds(value: ast.expr, typ: str) -> bool:
    """Whether ``value`` constructs ``typ`` (``Llama3Model.Config(…)`` for
    ``Model.Config``: the same last part, from any holder)."""
    if not isinstance(value, ast.Call):
        return False
    func = ast.unparse(value.func)
    last = typ.rsplit(".", 1)[-1]
    return func in (typ, last) or func.endswith("." + last)


def analyse(inp: Inputs) -> list[DocProblem]:
    claims: list[tuple[str, int, str]] = []
    for doc in inp.target.docs:
        for n, raw in enumerate((inp.head.text(doc) or "").splitlines(), 1):
            m = _TYPE.search(raw[:MAX_LINE])
            if m:
                claims.append((doc, n, m.group(1)))
    if not claims:
        return []
    sub = inp.target.subproject.rstrip("/") + "/"
    dicts: list[tuple[str, str, int, ast.Dict, set[str]]] = []
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")) or "/tests/" in path:
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        funcs = {st.name for st in mod.body
                 if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef)}
        for name, line, d in _str_dicts(mod):
            dicts.append((path, name, line, d, funcs))
    out: list[DocProblem] = []
    for doc, n, typ in claims:
        if typ.rsplit(".", 1)[-1] in _FUNCTION_TYPES:
            continue
        if any(all(_builds(v, typ) for v in d.values) for _p, _n, _l, d, _f in dicts):
            continue  # the mapping the doc describes is there
        for path, name, line, d, funcs in dicts:
            if not all(isinstance(v, ast.Name) and v.id in funcs for v in d.values):
                continue
            shown = ", ".join(f"`{v.id}`" for v in d.values[:3])  # type: ignore[attr-defined]
            out.append(DocProblem(
                doc, n, f"gives the mapping type `[str: {typ}]`, but `{name}` "
                f"({path}:{line}) maps names to functions of its module ({shown}"
                f"{', …' if len(d.values) > 3 else ''}), not to `{typ}` values, and no "
                f"dict of the folder holds `{typ}` values"))
            if len(out) >= MAX_FINDINGS:
                return out
    return out
