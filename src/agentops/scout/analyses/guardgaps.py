"""Settings no refusal covers as it should (#22 defect 6, duplicated logic that diverges):
a check stricter than the reason it states, a refusal lost with the shared builder that
held it, or a setting value that silently takes a default path. Each is a place where
the code's guard and the limitation it protects have come apart.

- reason: a refusal (``assert`` or an ``if`` that only raises) of the folder reads a
  property defined outside the folder whose comments name a feature as the reason
  (``# the split mode requires …``), and the repository has a boolean switch for that
  feature (a dataclass field ``enable_split_mode: bool``) that the check's own module
  reads elsewhere, yet neither the refusal nor the ``if`` tests around it read the
  switch: with the feature off the check still refuses what only the feature needs. A
  module that never reads the switch has the feature always on, and its check is not
  judged (a sub-project holding several model folders honours it per module).
- lost: at the baseline the folder called a function defined outside it (by import),
  passing its settings (``build(args.fast, args.kind)``), and that function refused a
  combination of them (``if not fast: if kind != "plain": raise``); at HEAD the folder no
  longer calls it and no refusal of the folder (nor of a function it calls) reads those
  settings together: the combination now runs unchecked.
- fallback: a ``match`` (or ``if``/``elif`` chain) of the folder on one of its own string
  fields (``kind: str = "plain"`` in a dataclass of the folder) whose catch-all arm runs a
  path instead of raising, while code outside the folder dispatches on values of that
  field the folder never names, and nothing in the folder refuses them: such a value runs
  the catch-all path silently.

Names only, never text: a property's comment is matched against field names and never
quoted. An Opportunity, never an action: the refusal may be deliberate.

Pure: the HEAD and baseline trees in, ``GuardGap`` records out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.fieldvalues import _string_fields
from agentops.scout.model import Inputs

MAX_FINDINGS = 6
MAX_ELSEWHERE = 3
_SWITCH_PREFIXES = ("enable_", "use_")
_NOT_NAMES = {"len", "getattr", "hasattr", "isinstance", "int", "str", "bool", "float",
              "None", "True", "False", "self", "any", "all", "not", "and", "or", "in", "is"}


@dataclass(frozen=True)
class GuardGap:
    form: str  # "reason" | "lost" | "fallback"
    file: str  # the folder's refusal (reason), its old call (lost), the catch-all (fallback)
    line: int
    setting: str  # the switch not read / the settings no longer refused / the field
    detail: str  # reason: the property; lost: the condition; fallback: the values
    elsewhere: tuple[str, ...]  # file:line of the property / old refusal / other dispatch
    path: str = ""  # fallback: what the catch-all arm calls first; lost: the function


def _py(files: dict[str, str], inside: str | None = None, outside: str | None = None
        ) -> list[tuple[str, str]]:
    return [(p, t) for p, t in sorted(files.items())
            if p.endswith(".py")
            and (inside is None or p.startswith(inside))
            and (outside is None or not p.startswith(outside))
            and "/tests/" not in p and not p.startswith("tests/")
            and not p.rsplit("/", 1)[-1].startswith("test_")]


def _parsed(files: dict[str, str], path: str) -> ast.Module | None:
    """A module outside the folder (a callee's), parsed (the tree holds no Python file
    past the size cap)."""
    return ps.parse(files.get(path))


def _leaves(expr: ast.AST) -> set[str]:
    """The attribute leaves and plain names an expression reads (``a.b.c`` → c)."""
    out: set[str] = set()
    for n in ps.walk(expr):
        if isinstance(n, ast.Attribute):
            out.add(n.attr)
        elif isinstance(n, ast.Name) and n.id not in _NOT_NAMES:
            out.add(n.id)
        elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
              and n.func.id == "getattr" and len(n.args) >= 2
              and isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str)):
            out.add(n.args[1].value)
    return out


def _only_raises(body: list[ast.stmt]) -> bool:
    rest = [s for s in body if not (isinstance(s, ast.Expr)
                                    and isinstance(s.value, ast.Constant | ast.Call))]
    return bool(rest) and all(isinstance(s, ast.Raise) for s in rest)


@dataclass(frozen=True)
class _Refusal:
    line: int
    cond: tuple[ast.expr, ...]  # own test first, then the enclosing tests (negated for else)


def _refusals(stmts: list[ast.stmt], outer: tuple[ast.expr, ...], out: list[_Refusal]
              ) -> None:
    """Every ``assert`` (its test negated is the refused case) and every ``if`` whose
    body only raises, with the tests of the ``if`` statements around it in its function
    (an ``else`` adds the negated test)."""
    for s in stmts:
        if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            _refusals(s.body, (), out)
        elif isinstance(s, ast.Assert):
            out.append(_Refusal(s.lineno, (ast.UnaryOp(op=ast.Not(), operand=s.test), *outer)))
        elif isinstance(s, ast.If):
            if _only_raises(s.body):
                out.append(_Refusal(s.lineno, (s.test, *outer)))
            else:
                _refusals(s.body, (s.test, *outer), out)
            _refusals(s.orelse, (ast.UnaryOp(op=ast.Not(), operand=s.test), *outer), out)
        elif isinstance(s, ast.For | ast.AsyncFor | ast.While | ast.With | ast.AsyncWith):
            _refusals(s.body, outer, out)
            _refusals(getattr(s, "orelse", []), outer, out)
        elif isinstance(s, ast.Try):
            for block in (s.body, s.orelse, s.finalbody, *(h.body for h in s.handlers)):
                _refusals(block, outer, out)
        elif isinstance(s, ast.Match):
            for case in s.cases:
                if _only_raises(case.body):
                    # The subject is what a case refuses (which values: ``_fallback``).
                    out.append(_Refusal(case.pattern.lineno, (s.subject, *outer)))
                else:
                    _refusals(case.body, outer, out)


def _refusal_names(refusal: _Refusal) -> set[str]:
    return {n for c in refusal.cond for n in _leaves(c)}


def _module_refusals(text: str) -> list[_Refusal]:
    mod = ps.parse(text)
    out: list[_Refusal] = []
    if mod is not None:
        _refusals(mod.body, (), out)
    return out


def _loaded(text: str) -> frozenset[str]:
    """The names and attributes the module's code reads. Only code counts: a comment or
    a string that mentions a switch does not let the feature be off."""
    mod = ps.parse(text)
    if mod is None:
        return frozenset()
    return frozenset({n.attr for n in ps.nodes(mod)
                      if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)}
                     | {n.id for n in ps.nodes(mod)
                        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)})


def _fn_refusals(fn: ps.FuncDef) -> list[_Refusal]:
    out: list[_Refusal] = []
    _refusals(fn.body, (), out)
    return out


# ---- reason: a check stricter than the reason its property's comments give ----------


def _switches(files: dict[str, str]) -> dict[str, tuple[str, str]]:
    """Boolean switch field → (its words as a phrase, file:line): ``enable_split_mode:
    bool`` → "split mode". Fields of two words or more only: one word is too common
    to stand for a feature in a comment."""
    out: dict[str, tuple[str, str]] = {}
    for path, text in _py(files):
        if ": bool" not in text or not any(p in text for p in _SWITCH_PREFIXES):
            continue
        mod = ps.parse(text)
        for node in ps.statements(mod) if mod is not None else ():
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                    and ast.unparse(node.annotation) == "bool":
                name = node.target.id
                prefix = next((p for p in _SWITCH_PREFIXES if name.startswith(p)), "")
                words = name[len(prefix):].split("_")
                if prefix and len(words) >= 2 and all(words):
                    out.setdefault(name, (" ".join(words), f"{path}:{node.lineno}"))
    return out


def _properties(files: dict[str, str], outside: str
                ) -> dict[str, list[tuple[str, int, str]]]:
    """Property name → (file, line, its comment and docstring text) for each
    ``@property`` defined outside the folder."""
    out: dict[str, list[tuple[str, int, str]]] = {}
    for path, text in _py(files, outside=outside):
        if "@property" not in text:
            continue
        mod = ps.parse(text)
        lines = text.splitlines()
        for node in ps.statements(mod) if mod is not None else ():
            if not isinstance(node, ast.FunctionDef) or not any(
                    ast.unparse(d) == "property" for d in node.decorator_list):
                continue
            end = node.end_lineno or node.lineno
            said = [ln.split("#", 1)[1] for ln in lines[node.lineno - 1:end] if "#" in ln]
            doc = ast.get_docstring(node) or ""
            out.setdefault(node.name, []).append((path, node.lineno, " ".join([*said, doc])))
    return out


def _phrase_in(phrase: str, text: str) -> bool:
    words = phrase.split()
    return re.search(r"\b" + r"[\s_-]+".join(map(re.escape, words)) + r"\b", text,
                     re.IGNORECASE) is not None


def _reason(inp: Inputs, sub: str) -> list[GuardGap]:
    files = inp.head.files
    mine = _py(files, inside=sub)
    if not mine:
        return []
    props: dict[str, list[tuple[str, int, str]]] | None = None
    switches: dict[str, tuple[str, str]] | None = None
    out: list[GuardGap] = []
    for path, text in mine:
        loaded: frozenset[str] | None = None  # parsed once per module, when first asked
        for ref in _module_refusals(text):
            read = _refusal_names(ref)
            if props is None:
                props = _properties(files, sub)
                switches = _switches(files)
            assert switches is not None
            for prop in sorted(read & props.keys()):
                defs = props[prop]
                if len(defs) != 1:
                    continue  # which class's property is read is not known by name
                ppath, pline, said = defs[0]
                for switch, (phrase, _declared) in sorted(switches.items()):
                    if switch in read or not _phrase_in(phrase, said):
                        continue
                    if loaded is None:
                        loaded = _loaded(text)
                    if switch not in loaded:
                        continue  # the check's module never lets the feature be off
                    out.append(GuardGap("reason", path, ref.line, switch, prop,
                                        (f"{ppath}:{pline}",)))
    return out


# ---- lost: a refusal the folder reached through a shared function, gone at HEAD -----


def _callee_paths(mod: ast.Module, paths: frozenset[str], sub: str
                  ) -> dict[str, tuple[str, str]]:
    """Local name → (file, function) for every ``from m import f`` whose module is a
    file of the repository outside the folder."""
    out: dict[str, tuple[str, str]] = {}
    for local, (modname, name) in ps.imports(mod).items():
        if not name:
            continue
        path = ps.module_path(modname, paths)
        if path is not None and not path.startswith(sub):
            out[local] = (path, name)
    return out


def _calls(files: dict[str, str], paths: frozenset[str], sub: str
           ) -> list[tuple[str, int, str, str, ast.Call]]:
    """(file, line, callee file, callee name, call) for each call of the folder's
    non-test code to a function imported from outside the folder."""
    out: list[tuple[str, int, str, str, ast.Call]] = []
    for path, text in _py(files, inside=sub):
        mod = ps.parse(text)
        if mod is None:
            continue
        callees = _callee_paths(mod, paths, sub)
        if not callees:
            continue
        for n in ps.nodes(mod):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) \
                    and n.func.id in callees:
                cpath, cname = callees[n.func.id]
                out.append((path, n.lineno, cpath, cname, n))
    return out


def _bound_settings(fn: ps.FuncDef, call: ast.Call) -> dict[str, str]:
    """Parameter → the setting the call passes it (an attribute read: ``args.kind`` →
    kind); parameters given anything else, or left to their default, are absent."""
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    # After a ``*xs`` the positions are unknown: only the arguments before it bind.
    before = []
    for a in call.args:
        if isinstance(a, ast.Starred):
            break
        before.append(a)
    given: dict[str, ast.expr] = dict(zip(params, before, strict=False))
    given.update({k.arg: k.value for k in call.keywords if k.arg})
    return {p: v.attr for p, v in given.items() if isinstance(v, ast.Attribute)}


def _translated(ref: _Refusal, bound: dict[str, str]) -> tuple[str, frozenset[str]] | None:
    """The refusal's condition in the caller's settings, when every name it reads is a
    parameter the call bound to a setting (and it reads two or more of them)."""
    read = _refusal_names(ref)
    if len(read) < 2 or not read <= bound.keys():
        return None

    class _Rename(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            return ast.copy_location(ast.Name(id=bound.get(node.id, node.id),
                                              ctx=ast.Load()), node)

    shown = " and ".join(ast.unparse(_Rename().visit(ast.parse(ast.unparse(c), mode="eval")
                                                     .body)) for c in ref.cond)
    return shown, frozenset(bound[n] for n in read)


def _head_refused(inp: Inputs, sub: str) -> list[set[str]]:
    """The names each refusal reachable at HEAD reads: the folder's own, and those of
    the functions outside it the folder calls (their parameters renamed to the
    settings the call binds)."""
    files = inp.head.files
    out = [_refusal_names(r) for _p, t in _py(files, inside=sub) for r in _module_refusals(t)]
    for _p, _l, cpath, cname, call in _calls(files, inp.head.paths, sub):
        fn = ps.find(_parsed(files, cpath), cname)
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        bound = _bound_settings(fn, call)
        for r in _fn_refusals(fn):
            out.append({bound.get(n, n) for n in _refusal_names(r)})
    return out


def _lost(inp: Inputs, sub: str) -> list[GuardGap]:
    base = inp.base
    if base is None or base.commit == inp.head.commit:
        return []
    old_calls = _calls(base.files, base.paths, sub)
    if not old_calls:
        return []
    head_calls = {(cpath, cname) for _p, _l, cpath, cname, _c
                  in _calls(inp.head.files, inp.head.paths, sub)}
    refused: list[set[str]] | None = None
    out: list[GuardGap] = []
    seen: set[frozenset[str]] = set()
    for path, line, cpath, cname, call in old_calls:
        if (cpath, cname) in head_calls:
            continue
        fn = ps.find(_parsed(base.files, cpath), cname)
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        bound = _bound_settings(fn, call)
        if len(bound) < 2:
            continue
        for r in _fn_refusals(fn):
            got = _translated(r, bound)
            if got is None or got[1] in seen:
                continue
            if refused is None:
                refused = _head_refused(inp, sub)
            if any(names >= got[1] for names in refused):
                continue
            seen.add(got[1])
            out.append(GuardGap("lost", path, line, ", ".join(sorted(got[1])), got[0],
                                (f"{cpath}:{r.line}",), cname))
    return out


# ---- fallback: a catch-all arm that runs a path for values the folder never names ---


def _subject_field(expr: ast.expr, fields: dict[str, tuple[str, str]]) -> str:
    if isinstance(expr, ast.Attribute) and expr.attr in fields:
        return expr.attr
    return ""


_VALUE = re.compile(r"[\w.-]{1,40}")


def _strs(node: ast.AST) -> set[str]:
    """The string constants of a value or a tuple of them; a value that is not a short
    identifier-like word (the repository chose it) is never carried into a title."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        vals = {node.value}
    elif isinstance(node, ast.Tuple | ast.List | ast.Set):
        vals = {e.value for e in node.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    else:
        return set()
    return {v for v in vals if _VALUE.fullmatch(v)}


def _pattern_strs(pat: ast.pattern) -> set[str]:
    if isinstance(pat, ast.MatchValue):
        return _strs(pat.value)
    if isinstance(pat, ast.MatchOr):
        return {s for p in pat.patterns for s in _pattern_strs(p)}
    return set()


def _first_call(body: list[ast.stmt]) -> str:
    for s in body:
        for n in ps.walk(s):
            if isinstance(n, ast.Call):
                return ast.unparse(n.func).rsplit(".", 1)[-1]
    return ""


@dataclass(frozen=True)
class _Dispatch:
    path: str
    line: int  # the catch-all arm
    field: str
    runs: str  # what the arm calls first


def _folder_dispatches(mod: ast.Module, path: str, fields: dict[str, tuple[str, str]]
                       ) -> tuple[list[_Dispatch], dict[str, set[str]], dict[str, bool]]:
    """The folder's dispatches on a field with a catch-all arm that runs a path; every
    value the file compares each field with; and, per field, whether some refusal
    covers every value it does not name (a catch-all that raises, or ``if f not in …:
    raise``)."""
    found: list[_Dispatch] = []
    named: dict[str, set[str]] = {}
    catch_all_refused: dict[str, bool] = {}
    for node in ps.nodes(mod):
        if isinstance(node, ast.Match):
            field = _subject_field(node.subject, fields)
            if not field:
                continue
            vals: set[str] = set()
            for case in node.cases:
                pat = case.pattern
                vals |= _pattern_strs(pat)
                if isinstance(pat, ast.MatchAs) and pat.pattern is None and case.guard is None:
                    if _only_raises(case.body):
                        catch_all_refused[field] = True
                    else:
                        found.append(_Dispatch(path, pat.lineno, field,
                                               _first_call(case.body)))
            named.setdefault(field, set()).update(vals)
        elif isinstance(node, ast.If):
            test = node.test
            if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
                continue
            field = _subject_field(test.left, fields)
            vals = _strs(test.comparators[0])
            if not field or not vals:
                continue
            named.setdefault(field, set()).update(vals)
            if isinstance(test.ops[0], ast.NotIn | ast.NotEq) and _only_raises(node.body):
                catch_all_refused[field] = True
            elif isinstance(test.ops[0], ast.Eq | ast.In):
                # An ``if``/``elif`` chain on the field ending in an ``else`` that runs
                # (each ``elif`` is a node of its own: its values are named there).
                cur = node
                while len(cur.orelse) == 1 and isinstance(cur.orelse[0], ast.If):
                    nxt = cur.orelse[0].test
                    if not (isinstance(nxt, ast.Compare) and len(nxt.ops) == 1
                            and isinstance(nxt.ops[0], ast.Eq | ast.In)
                            and _subject_field(nxt.left, fields) == field):
                        break
                    cur = cur.orelse[0]
                else:
                    if cur.orelse and not _only_raises(cur.orelse):
                        found.append(_Dispatch(path, cur.orelse[0].lineno, field,
                                               _first_call(cur.orelse)))
                    elif cur.orelse:
                        catch_all_refused[field] = True
    return found, named, catch_all_refused


_TYPE_WORDS = {"Optional", "Union", "None", "Any", "Type", "type"}


def _type_names(annotation: ast.expr) -> set[str]:
    """The class names an annotation states (``X``, ``m.X``, ``X | None``,
    ``Optional["X"]``: their last dotted part), without the typing words around them."""
    out: set[str] = set()
    for n in ps.walk(annotation):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            out |= set(re.findall(r"[A-Za-z_]\w*", n.value.rsplit(".", 1)[-1]))
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
        elif isinstance(n, ast.Name):
            out.add(n.id)
    return out - _TYPE_WORDS


def _stated_types(name: str, fn: ps.FuncDef | None, mod: ast.Module) -> set[str]:
    """The types ``name`` is annotated with where the comparison is read: a parameter
    of its function, or an annotated assignment of that function (of the module when
    the comparison is at top level)."""
    out: set[str] = set()
    scope: ast.AST = fn if fn is not None else mod
    if fn is not None:
        a = fn.args
        for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs):
            if arg.arg == name and arg.annotation is not None:
                out |= _type_names(arg.annotation)
    for st in ps.statements(scope):
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) \
                and st.target.id == name:
            out |= _type_names(st.annotation)
    return out


def _not_config(recv: ast.expr, fn: ps.FuncDef | None, cls: ast.ClassDef | None,
                mod: ast.Module, related: set[str]) -> bool:
    """Whether the object a field is read on certainly is no config of the folder: the
    rule ``fieldvalues`` and ``configfields`` type reads by. ``self`` in a class that is
    neither one of the folder's classes nor derives from one, or a name whose stated
    type names none of them (nor a base of one); an unstated type (an attribute chain,
    an unannotated name) may be the folder's config."""
    if not isinstance(recv, ast.Name):
        return False
    if recv.id in ("self", "cls") and cls is not None and fn is not None:
        own = {cls.name} | {ast.unparse(b).split("[")[0].rsplit(".", 1)[-1]
                            for b in cls.bases}
        return not own & related
    stated = _stated_types(recv.id, fn, mod)
    return bool(stated) and not stated & related


def _contexts(mod: ast.Module) -> dict[int, tuple[ps.FuncDef | None, ast.ClassDef | None]]:
    """id of each ``match`` and comparison node → the function and the class it is
    read in (a function nested in a method keeps the method's class)."""
    out: dict[int, tuple[ps.FuncDef | None, ast.ClassDef | None]] = {}
    stack: list[tuple[ast.AST, ps.FuncDef | None, ast.ClassDef | None]] = [(mod, None, None)]
    while stack:
        node, fn, cls = stack.pop()
        if isinstance(node, ast.Match | ast.Compare):
            out[id(node)] = (fn, cls)
        if isinstance(node, ast.ClassDef):
            fn, cls = None, node
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            fn = node
        stack.extend((child, fn, cls) for child in ast.iter_child_nodes(node))
    return out


def _folder_types(sub: str, files: dict[str, str]) -> set[str]:
    """The names of the folder's classes and of their bases: the types an object that
    is one of the folder's configs may be stated as."""
    out: set[str] = set()
    for _path, text in _py(files, inside=sub):
        if "class " not in text:
            continue
        mod = ps.parse(text)
        for node in ps.statements(mod) if mod is not None else ():
            if isinstance(node, ast.ClassDef):
                out.add(node.name)
                out |= {ast.unparse(b).split("[")[0].rsplit(".", 1)[-1] for b in node.bases}
    return out


def _elsewhere_values(files: dict[str, str], sub: str, fields: set[str],
                      related: set[str]) -> dict[str, dict[str, str]]:
    """Field → value → file:line where code outside the folder dispatches on it
    (``case "v":`` of a ``match`` on ``….field``, ``….field == "v"``, ``in (…)``), on
    an object that may be the folder's config (``related``: the folder's class names
    and their bases; see ``_not_config``)."""
    out: dict[str, dict[str, str]] = {}
    for path, text in _py(files, outside=sub):
        if not any(f in text for f in fields):
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        where: dict[int, tuple[ps.FuncDef | None, ast.ClassDef | None]] | None = None
        for node in ps.nodes(mod):
            if isinstance(node, ast.Match) and isinstance(node.subject, ast.Attribute) \
                    and node.subject.attr in fields:
                recv = node.subject.value
            elif isinstance(node, ast.Compare) and len(node.ops) == 1 \
                    and isinstance(node.ops[0], ast.Eq | ast.In | ast.NotEq) \
                    and isinstance(node.left, ast.Attribute) and node.left.attr in fields:
                recv = node.left.value
            else:
                continue
            if where is None:
                where = _contexts(mod)
            if _not_config(recv, *where[id(node)], mod, related):
                continue
            if isinstance(node, ast.Match):
                for case in node.cases:
                    for v in _pattern_strs(case.pattern):
                        out.setdefault(node.subject.attr, {}).setdefault(
                            v, f"{path}:{case.pattern.lineno}")
            else:
                for v in _strs(node.comparators[0]):
                    out.setdefault(node.left.attr, {}).setdefault(v, f"{path}:{node.lineno}")
    return out


def _fallback(inp: Inputs, sub: str) -> list[GuardGap]:
    files = inp.head.files
    fields, _classes = _string_fields(sub, files)
    if not fields:
        return []
    found: list[_Dispatch] = []
    named: dict[str, set[str]] = {}
    refused: dict[str, bool] = {}
    for path, text in _py(files, inside=sub):
        if not any(f in text for f in fields):
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        f, n, r = _folder_dispatches(mod, path, fields)
        found += f
        for k, v in n.items():
            named.setdefault(k, set()).update(v)
        refused.update(r)
    found = sorted((d for d in found if not refused.get(d.field)),
                   key=lambda d: (d.path, d.line))
    if not found:
        return []
    others = _elsewhere_values(files, sub, {d.field for d in found},
                               _folder_types(sub, files))
    out: list[GuardGap] = []
    seen: set[str] = set()
    for d in found:
        if d.field in seen:
            continue
        default = fields[d.field][0]
        missing = {v: at for v, at in others.get(d.field, {}).items()
                   if v not in named.get(d.field, set()) and v != default}
        if not missing:
            continue
        seen.add(d.field)
        vals = sorted(missing)
        out.append(GuardGap("fallback", d.path, d.line, d.field, ", ".join(vals),
                            tuple(missing[v] for v in vals[:MAX_ELSEWHERE]), d.runs))
    return out


def analyse(inp: Inputs) -> list[GuardGap]:
    sub = inp.target.subproject.rstrip("/") + "/"
    return (_reason(inp, sub) + _lost(inp, sub) + _fallback(inp, sub))[:MAX_FINDINGS]
