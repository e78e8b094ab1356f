"""Model calls in the shared code that skip what the trainer does first for one of the
sub-project's settings (#22 defect 8, a second caller lagging the first): a function
outside the folder calls an element of a sequence of modules (``parts[0](inputs)``,
``parts: list[nn.Module]``) and, before it, under an ``if`` that reads a field of the
folder's own dataclasses (``if getattr(self.args, "use_flex", False):``, or a local set
from it and tested against constants), calls something on the same input
(``build_mask(inputs, ...)``, ``parts[0].masks_for(batch=inputs)``); a method the same
class calls itself on ``self`` is read too (a helper that prepares the batch). The class
then hands the same sequence to a method of another object (``self.checker.run(
self.parts, ...)``), and a function of that name elsewhere that calls the parts as well
neither makes that call nor tests that field. When a value the folder sets for the field
(a keyword of a flavor, an assignment of a constant) makes the condition hold, the
folder's model is called there without the preparation: a mask left from the last
training batch, or an assertion on the missing argument.

The second object is judged reachable unless it is built from a registration field
(``self.checker = spec.build_checker(...)``) that the folder's registration call leaves
out while other calls of the same registration pass it: the folder never builds it.

Resolved from the ASTs (annotations, conditions, call arguments), never from names of a
list. Pure: the HEAD tree in, ``SkippedPrep`` records out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout.analyses import partreads
from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.commentrefs import own_sources
from agentops.scout.model import Inputs

MAX_FINDINGS = 4
MAX_CALLER_FILES = 400  # files outside the folder parsed per run (bounded work)
_UNKNOWN = object()


@dataclass(frozen=True)
class SkippedPrep:
    file: str  # the lagging caller's model call
    line: int
    caller: str  # Class.method of the lagging caller
    prep_file: str  # where the first caller prepares
    prep_line: int
    first: str  # Class.method of the first caller
    prep: str  # the preparing call, unparsed and shortened
    field: str  # the folder's field the preparation depends on
    values: tuple[str, ...]  # values the folder sets that make the condition hold
    flavors: tuple[str, ...]  # table keys (flavors) setting them, when known


def _const(node: ast.expr | None) -> object:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        vals = [_const(e) for e in node.elts]
        return _UNKNOWN if any(v is _UNKNOWN for v in vals) else vals
    return _UNKNOWN


def _folder_fields(own: list[tuple[str, ast.Module]]
                   ) -> tuple[dict[str, list[object]], dict[tuple[str, str], set[str]]]:
    """Fields the folder's classes declare (``name: T = default``) with the constants the
    folder gives them (defaults, keywords of a call of a class declaring the field,
    ``x.name = c``), and the table keys (flavors) that set each (field, repr(value)). A
    computed value is not a value: the condition is judged on the constants alone."""
    declared: dict[str, list[object]] = {}
    owners: dict[str, set[str]] = {}  # class -> its declared fields
    for _p, mod in own:
        for node in ps.walk(mod):
            if isinstance(node, ast.ClassDef):
                for st in node.body:
                    if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                        v = _const(st.value) if st.value is not None else _UNKNOWN
                        declared.setdefault(st.target.id, [])
                        owners.setdefault(node.name, set()).add(st.target.id)
                        if v is not _UNKNOWN:
                            declared[st.target.id].append(v)
    flavors: dict[tuple[str, str], set[str]] = {}
    for _p, mod in own:
        keyed: dict[int, str] = {}
        for node in ps.walk(mod):
            if isinstance(node, ast.Dict):
                for k, v in zip(node.keys, node.values, strict=False):
                    if isinstance(k, ast.Constant) and isinstance(k.value, str):
                        keyed[id(v)] = k.value
        for node in ps.walk(mod):
            pairs: list[tuple[str, ast.expr]] = []
            if isinstance(node, ast.Call):
                mine = owners.get(_call_name(node), set())
                pairs = [(k.arg, k.value) for k in node.keywords if k.arg in mine]
            elif isinstance(node, ast.Assign):
                pairs = [(t.attr, node.value) for t in node.targets
                         if isinstance(t, ast.Attribute) and t.attr in declared]
            for name, value in pairs:
                v = _const(value)
                if v is _UNKNOWN:
                    continue
                declared[name].append(v)
                if id(node) in keyed:
                    flavors.setdefault((name, repr(v)), set()).add(keyed[id(node)])
    return declared, flavors


def _field_read(node: ast.AST) -> str:
    """The field a ``getattr(x, "f", d)`` or ``x.f`` read names, else ''."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id == "getattr" and len(node.args) >= 2 \
            and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
        return node.args[1].value
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        return node.attr
    return ""


def _aliases(fn: ast.AST) -> dict[str, str]:
    """Locals a function sets once from a field read (``kind = getattr(a, "kind", d)``)."""
    out: dict[str, str] = {}
    for node in ps.walk(fn):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name) \
                    and node.value is not None and (f := _field_read(node.value)):
                out[targets[0].id] = f
    return out


def _value(node: ast.expr, field: str, v: object, aliases: dict[str, str]) -> object:
    """The test's value with ``field`` set to ``v`` (``_UNKNOWN`` where it depends on
    anything else)."""
    if _field_read(node) == field or (isinstance(node, ast.Name)
                                      and aliases.get(node.id) == field):
        return v
    if isinstance(node, (ast.Constant, ast.List, ast.Tuple, ast.Set)):
        return _const(node)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _value(node.operand, field, v, aliases)
        return _UNKNOWN if inner is _UNKNOWN else not inner
    if isinstance(node, ast.BoolOp):
        vals = [_value(e, field, v, aliases) for e in node.values]
        known = [bool(x) for x in vals if x is not _UNKNOWN]
        if isinstance(node.op, ast.And):
            return False if not all(known) else (True if len(known) == len(vals) else _UNKNOWN)
        return True if any(known) else (False if len(known) == len(vals) else _UNKNOWN)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        a = _value(node.left, field, v, aliases)
        b = _value(node.comparators[0], field, v, aliases)
        if a is _UNKNOWN or b is _UNKNOWN:
            return _UNKNOWN
        op = node.ops[0]
        try:
            if isinstance(op, ast.Eq):
                return a == b
            if isinstance(op, ast.NotEq):
                return a != b
            if isinstance(op, ast.In):
                return a in b  # type: ignore[operator]
            if isinstance(op, ast.NotIn):
                return a not in b  # type: ignore[operator]
        except TypeError:
            return _UNKNOWN
    return _UNKNOWN


def _tested_fields(test: ast.expr, aliases: dict[str, str]) -> set[str]:
    out = {f for n in ast.walk(test) if (f := _field_read(n))}
    out |= {aliases[n.id] for n in ast.walk(test) if isinstance(n, ast.Name) and n.id in aliases}
    return out


def _call_name(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _model_calls(fn: ast.AST, names: set[str], attrs: set[str]) -> list[ast.Call]:
    """Calls of an element of a module sequence (``parts[0](x)``, ``for p in parts: p(x)``)."""
    elems = {n.target.id for n in ps.walk(fn) if isinstance(n, ast.For)
             and isinstance(n.target, ast.Name) and partreads._is_seq(n.iter, names, attrs)}
    out = []
    for node in ps.walk(fn):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        f = node.func
        if (isinstance(f, ast.Subscript) and partreads._is_seq(f.value, names, attrs)) \
                or (isinstance(f, ast.Name) and f.id in elems):
            out.append(node)
    return out


def _helpers(fn: ast.AST, methods: dict[str, ast.AST]) -> list[ast.AST]:
    """The function and the methods of its class it calls on ``self`` (one level)."""
    out = [fn]
    for node in ps.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "self" \
                and node.func.attr in methods and methods[node.func.attr] is not fn:
            out.append(methods[node.func.attr])
    return list({id(f): f for f in out}.values())


def _preps(fn: ast.AST, methods: dict[str, ast.AST], arg: str, fields: set[str]
           ) -> list[tuple[ast.If, ast.Call, str, dict[str, str]]]:
    """(if, call, field, aliases): a call on the model's input ``arg`` under an ``if``
    that reads a field of the folder, in the function or a ``self`` helper of it."""
    out = []
    for f in _helpers(fn, methods):
        aliases = _aliases(f)
        for node in ps.walk(f):
            if not isinstance(node, ast.If) or all(isinstance(s, ast.Raise) for s in node.body):
                continue
            tested = _tested_fields(node.test, aliases) & fields
            if not tested:
                continue
            for call in (n for s in node.body for n in ast.walk(s) if isinstance(n, ast.Call)):
                vals = [*call.args, *(k.value for k in call.keywords)]
                if any(isinstance(a, ast.Name) and a.id == arg for a in vals) and _call_name(call):
                    out.extend((node, call, fld, aliases) for fld in sorted(tested))
                    break
    return out


def _lacks(fn: ast.AST, methods: dict[str, ast.AST], prep: str, field: str) -> bool:
    for f in _helpers(fn, methods):
        aliases = _aliases(f)
        for node in ps.walk(f):
            if isinstance(node, ast.Call) and _call_name(node) == prep:
                return False
            if isinstance(node, (ast.If, ast.IfExp)) \
                    and field in _tested_fields(node.test, aliases):
                return False
    return True


def _registration(own: list[tuple[str, ast.Module]], files: dict[str, str], sub: str
                  ) -> tuple[set[str], set[str]]:
    """(keywords of the folder's registration calls, keywords every other call of the
    same callees passes somewhere): a call handing a module class of the folder by
    keyword (``Spec(net_cls=OurNet)``)."""
    ours = {name for kw, name, _p in partreads._registered(files, sub, True)}
    callees: set[str] = set()
    kws: set[str] = set()
    for _p, mod in own:
        for node in ps.walk(mod):
            if isinstance(node, ast.Call) and any(
                    isinstance(k.value, ast.Name) and k.value.id in ours for k in node.keywords):
                callees.add(_call_name(node))
                kws |= {k.arg for k in node.keywords if k.arg}
    known: set[str] = set()
    if not callees:
        return kws, known
    alts = "|".join(map(re.escape, sorted(callees)))
    pattern = re.compile(rf"\b(?:{alts})\(")
    for path, text in files.items():
        if not path.endswith(".py") or path.startswith(sub) or not pattern.search(text):
            continue
        mod = ps.parse(text)
        for node in ps.walk(mod) if mod is not None else ():
            if isinstance(node, ast.Call) and _call_name(node) in callees:
                known |= {k.arg for k in node.keywords if k.arg}
    return kws, known


def _built_from(cls: ast.ClassDef, attr: str) -> str:
    """The attribute name of the call building ``self.attr`` (``x.build_checker(...)``)."""
    for node in ps.walk(cls):
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Attribute) and t.attr == attr
                and isinstance(t.value, ast.Name) and t.value.id == "self" for t in node.targets) \
                and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute):
            return node.value.func.attr
    return ""


def _short(call: ast.Call) -> str:
    text = ast.unparse(call)
    return text if len(text) <= 70 else text[:67] + "..."


def _qual(cls: ast.ClassDef | None, fn: ast.AST) -> str:
    name = getattr(fn, "name", "?")
    return f"{cls.name}.{name}" if cls is not None else name


def _calls_or_loops(text: str, alts: str) -> bool:
    """Whether ``text`` calls an indexed element of, or loops over, a sequence ``alts``
    names (the cheap test before a file is parsed)."""
    return re.search(rf"\b(?:self\.)?(?:{alts})\[\w+\]\(", text) is not None \
        or re.search(rf"\bin\s+(?:self\.)?(?:{alts})\b", text) is not None


def analyse(inp: Inputs) -> list[SkippedPrep]:
    files = inp.head.files
    sub = inp.target.subproject.rstrip("/") + "/"
    own = [(p, m) for p, t in own_sources(files, sub) if (m := ps.parse(t)) is not None]
    declared, flavors = _folder_fields(own)
    fields = {f for f, vals in declared.items() if vals}
    if not fields:
        return []
    # callers: (path, class, function, model calls, names, attrs, methods)
    callers = []
    for path, cls, fn, methods, names, attrs in partreads.sequence_functions(
            files, sub, _calls_or_loops, MAX_CALLER_FILES):
        if methods.get(fn.name) is not fn:
            continue  # a def its holder redefines later under the same name
        calls = _model_calls(fn, names, attrs)
        if calls:
            callers.append((path, cls, fn, calls, names, attrs, methods))
    if len(callers) < 2:
        return []
    kws, known = _registration(own, files, sub)
    out: list[SkippedPrep] = []
    seen: set[tuple[str, int, str]] = set()
    for path, cls, fn, calls, names, attrs, methods in callers:
        arg = calls[0].args[0]
        if cls is None or not isinstance(arg, ast.Name):
            continue
        preps = _preps(fn, methods, arg.id, fields)
        if not preps:
            continue
        # the methods of other objects this class hands its module sequence to
        handed: dict[str, str] = {}
        for node in ps.walk(cls):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and not (isinstance(node.func.value, ast.Name)
                             and node.func.value.id == "self") \
                    and any(partreads._is_seq(a, names, attrs)
                            or (isinstance(a, ast.Attribute) and a.attr in attrs)
                            for a in node.args):
                holder = node.func.value
                built = _built_from(cls, holder.attr) if isinstance(holder, ast.Attribute) \
                    and isinstance(holder.value, ast.Name) and holder.value.id == "self" else ""
                handed[node.func.attr] = built
        for o_path, o_cls, o_fn, o_calls, _n, _a, o_methods in callers:
            name = getattr(o_fn, "name", "")
            if o_fn is fn or name not in handed:
                continue
            built = handed[name]
            if built and built in known and built not in kws:
                continue  # the folder's registration never builds that object
            for node, call, fld, aliases in preps:
                prep = _call_name(call)
                if not _lacks(o_fn, o_methods, prep, fld):
                    continue
                uniq: dict[str, object] = {}
                for v in declared[fld]:
                    uniq.setdefault(repr(v), v)
                holds = [r for r, v in uniq.items()
                         if _value(node.test, fld, v, aliases) is True]
                if not holds:
                    continue
                key = (o_path, o_calls[0].lineno, fld)
                if key in seen:
                    continue
                seen.add(key)
                out.append(SkippedPrep(
                    file=o_path, line=o_calls[0].lineno, caller=_qual(o_cls, o_fn),
                    prep_file=path, prep_line=call.lineno, first=_qual(cls, fn),
                    prep=_short(call), field=fld, values=tuple(holds),
                    flavors=tuple(sorted(set().union(
                        *(flavors.get((fld, v), set()) for v in holds))))))
                if len(out) >= MAX_FINDINGS:
                    return out
    return out
