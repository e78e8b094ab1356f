"""Branches on a model-args value that no flavor selects (#22 defect 10, untested
configuration): a dataclass of the sub-project declares a string field with a default
(``attn_type: str = "sdpa"``), the folder's code branches on its value
(``match self.attn_type: case "flex": …``, ``if args.attn_type == "varlen"``), and no
flavor, config or test of the folder ever sets that value — so the branch runs only for
someone who edits a flavor by hand, and a change to it (a scale fix, a new mask) is never
exercised.

"Sets the value": a keyword ``attn_type="flex"`` or an assignment of that constant
anywhere in the folder (its flavor tables and config registries are what a command
line can pick), in a test file that imports the folder, in the config files and flags of
the integration cases that launch it (``settingbranches.runs``), or the field's default.
A field the folder also sets from a computed value (``attn_type=backend``, an
assignment from a setting) can take any value and is never judged; a branch whose body
only raises is a refusal, not a path. Resolved by the field's name, declared once in the
folder: a name two of its dataclasses declare is skipped.

An Opportunity: the value may be picked on a command line CI never runs.

Pure: the HEAD tree in, ``UnselectedValue`` records out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses import settingbranches, testowner
from agentops.scout.model import Inputs

MAX_FINDINGS = 12


@dataclass(frozen=True)
class UnselectedValue:
    file: str  # the branch
    line: int
    field: str  # attn_type
    value: str  # 'flex'
    default: str  # 'sdpa'
    declared: str  # file:line of the field


def _is_dataclass(cls: ast.ClassDef) -> bool:
    return any(ast.unparse(d).split("(")[0].rsplit(".", 1)[-1] == "dataclass"
               for d in cls.decorator_list)


def _string_fields(sub: str, files: dict[str, str]
                   ) -> tuple[dict[str, tuple[str, str]], set[str]]:
    """Field name → (default, file:line) for ``name: str = "v"`` in the folder's
    dataclasses (a name declared twice is dropped: which class a branch reads is not
    known by name), and the names of every class the folder defines."""
    seen: dict[str, list[tuple[str, str]]] = {}
    classes: set[str] = set()
    for path, text in files.items():
        if not (path.startswith(sub) and path.endswith(".py")) or "class " not in text:
            continue
        mod = ps.parse(text)
        for node in ps.nodes(mod) if mod is not None else ():
            if not isinstance(node, ast.ClassDef):
                continue
            classes.add(node.name)
            if not _is_dataclass(node):
                continue
            for st in node.body:
                if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) \
                        and ast.unparse(st.annotation) == "str" \
                        and isinstance(st.value, ast.Constant) \
                        and isinstance(st.value.value, str):
                    seen.setdefault(st.target.id, []).append(
                        (st.value.value, f"{path}:{st.lineno}"))
    return {k: v[0] for k, v in seen.items() if len(v) == 1}, classes


def _foreign_params(fn: ps.FuncDef, classes: set[str]) -> set[str]:
    """Parameters annotated with a class the folder does not define (``job_config:
    JobConfig``): a field of the same name read through one is another class's setting
    (``settingbranches`` judges those), not the folder's model args."""
    args = fn.args
    out: set[str] = set()
    for a in args.posonlyargs + args.args + args.kwonlyargs:
        if a.annotation is None:
            continue
        name = ast.unparse(a.annotation).split("|")[0].split("[")[0].strip().rsplit(".", 1)[-1]
        if re.fullmatch(r"[A-Z]\w*", name) and name not in classes:
            out.add(a.arg)
    return out


def _field_of(expr: ast.expr, fields: dict[str, tuple[str, str]]) -> str:
    """``x.attn_type`` or ``getattr(x, "attn_type", …)`` → the field read, else ''."""
    if isinstance(expr, ast.Attribute) and expr.attr in fields:
        return expr.attr
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) \
            and expr.func.id == "getattr" and len(expr.args) >= 2 \
            and isinstance(expr.args[1], ast.Constant) and expr.args[1].value in fields:
        return str(expr.args[1].value)
    return ""


def _strings(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [e.value for e in node.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _pattern_strings(pat: ast.pattern) -> list[str]:
    if isinstance(pat, ast.MatchValue):
        return _strings(pat.value)
    if isinstance(pat, ast.MatchOr):
        return [s for p in pat.patterns for s in _pattern_strings(p)]
    return []


def _only_raises(body: list[ast.stmt]) -> bool:
    rest = [s for s in body if not (isinstance(s, ast.Expr)
                                    and isinstance(s.value, ast.Constant))]
    return bool(rest) and all(isinstance(s, ast.Raise) for s in rest)


def _branches(mod: ast.Module, fields: dict[str, tuple[str, str]], classes: set[str]
              ) -> list[tuple[int, str, tuple[str, ...]]]:
    """(line, field, values any of which selects the branch) for each ``if`` / ``case``
    on a field's value whose body does more than raise."""
    foreign: dict[int, set[str]] = {}  # id of a branch node → roots read elsewhere
    for fn in ps.nodes(mod):
        if isinstance(fn, ps.FuncDef.__args__):
            roots = _foreign_params(fn, classes)
            for n in ps.walk(fn):
                foreign.setdefault(id(n), set()).update(roots)

    def field_read(node: ast.AST, expr: ast.expr) -> str:
        field = _field_of(expr, fields)
        if not field:
            return ""
        chain = ps.name_chain(expr.args[0] if isinstance(expr, ast.Call) else expr)
        return "" if chain and chain[0] in foreign.get(id(node), ()) else field

    out: set[tuple[int, str, tuple[str, ...]]] = set()
    for node in ps.nodes(mod):
        if isinstance(node, ast.Match):
            field = field_read(node, node.subject)
            if not field:
                continue
            for case in node.cases:
                vals = _pattern_strings(case.pattern)
                if vals and case.guard is None and not _only_raises(case.body):
                    out.add((case.pattern.lineno, field, tuple(vals)))
        elif isinstance(node, ast.If | ast.IfExp):
            test = node.test
            if isinstance(test, ast.Compare) and len(test.ops) == 1 \
                    and isinstance(test.ops[0], ast.Eq | ast.In):
                field = field_read(node, test.left)
                vals = _strings(test.comparators[0])
                body = node.body if isinstance(node, ast.If) else []
                if field and vals and not (body and _only_raises(body)):
                    out.add((node.lineno, field, tuple(vals)))
    return sorted(out)


def _set_values(texts: list[str], fields: set[str]) -> tuple[dict[str, set[str]], set[str]]:
    """Field → constants some keyword or assignment gives it; and the fields some
    keyword or assignment gives a computed value (any value: never judged). A plain copy
    of the same field (``self.attn_type = args.attn_type``) gives nothing new."""
    consts: dict[str, set[str]] = {}
    computed: set[str] = set()

    def give(name: str, value: ast.expr) -> None:
        if name not in fields:
            return
        vals = _strings(value) if isinstance(value, ast.Constant) else []
        if vals:
            consts.setdefault(name, set()).update(vals)
        elif not _field_of(value, {name: ("", "")}):
            computed.add(name)

    for text in texts:
        if not any(f in text for f in fields):
            continue
        mod = ps.parse(text)
        for node in ps.nodes(mod) if mod is not None else ():
            if isinstance(node, ast.Call):
                for k in node.keywords:
                    if k.arg:
                        give(k.arg, k.value)
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Attribute):
                        give(t.attr, node.value)
    return consts, computed


def analyse(inp: Inputs, reported: frozenset[tuple[str, int]] = frozenset()
            ) -> list[UnselectedValue]:
    """``reported``: (file, line) of branches another untested-branch analysis already
    lists, which are not listed twice."""
    sub = inp.target.subproject.rstrip("/") + "/"
    files = inp.head.files
    fields, classes = _string_fields(sub, files)
    if not fields:
        return []
    branches: list[tuple[str, int, str, tuple[str, ...]]] = []
    for path in sorted(files):
        if not (path.startswith(sub) and path.endswith(".py")) or testowner.in_test_folder(path):
            continue
        text = files[path]
        if not any(f in text for f in fields):
            continue
        mod = ps.parse(text)
        if mod is not None:
            branches += [(path, line, f, vals) for line, f, vals in _branches(mod, fields, classes)]
    if not branches:
        return []
    dotted = sub.rstrip("/").replace("/", ".")
    texts = [t for p, t in files.items() if p.endswith(".py") and (
        p.startswith(sub) or (testowner.in_test_folder(p)
                              and (f"import {dotted}" in t or f"from {dotted}" in t)))]
    consts, computed = _set_values(texts, {f for _p, _l, f, _v in branches})
    run = settingbranches.runs(inp)
    # The folder's own config files (a flavor's TOML) are what a command line picks too.
    configs = "\n".join(t for p, t in files.items()
                        if p.startswith(sub) and p.endswith((".toml", ".yaml", ".yml")))
    out: list[UnselectedValue] = []
    for path, line, field, vals in branches:
        default, declared = fields[field]
        if field in computed or default in vals or (path, line) in reported:
            continue
        chosen = consts.get(field, set()) | run.flags.get(field, set())
        if any(v in chosen or re.search(
                rf"\b{re.escape(field)}\b[\"']?\s*[=:]\s*[\"']{re.escape(v)}[\"']", text)
               for v in vals for text in (run.text, configs)):
            continue
        out += [UnselectedValue(path, line, field, v, default, declared) for v in vals]
    return out[:MAX_FINDINGS]
