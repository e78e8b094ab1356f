"""Copied bodies drift (#22 defect 4): for each function the sub-project copies from
upstream (``duplicate_logic`` pairs, matched by name or content) or overrides (a
method of an upstream base class it re-implements without ``super()``), upstream's
version at the baseline and at HEAD are compared; every guard (``if`` test),
assertion, ``raise``, call statement or keyword argument upstream added in the window
that the copy lacks is a finding naming both sides (``file:line``) and the commit
that added it. A third source of pairs: a top-level function of a sub-project module
with the same name as one of a repository module outside the folder that this module
imports from (its twin: the folder re-does core's entry point beside the helpers it
takes from core's module), when it repeats at least a third of core's statements.

Pure: parsed sources in, frozen records out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout.analyses import attribution, duplicates
from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs

MAX_UNITS = 12  # more added units than this: upstream rewrote the function (one line)
_LOG = re.compile(r"^(logger|logging|log|warnings|print|warn|_log)\b|\.(debug|info|warning|"
                  r"error|exception)\(")


@dataclass(frozen=True)
class BodyDrift:
    """Units upstream added to a function the sub-project copies, that the copy lacks."""

    ours: str  # file:line of the copy
    upstream: str  # file:line of upstream's function at HEAD
    function: str  # upstream's (qualified) name
    units: tuple[str, ...]  # "guard `if x is None`", "kwarg `f(strict=)`", …
    commits: tuple[str, ...]  # commit per unit (same order)
    how: str  # "copy" | "override"
    rewritten: bool = False  # too many units: a rewrite, reported as one line


def _norm(text: str) -> str:
    return re.sub(r"\bself\.", "", re.sub(r"\s+", " ", text)).strip()


def units(func: ps.FuncDef, tests: dict[str, ast.expr] | None = None,
          skip: set[int] | None = None, at: dict[str, list[ast.AST]] | None = None
          ) -> dict[str, str]:
    """Key -> label of the guards, assertions, raises, call statements and keyword
    arguments in ``func`` (logging left out: it changes no behaviour); ``tests``
    collects each guard's condition by key, ``at`` the nodes each key comes from."""
    out: dict[str, str] = {}
    for node in ps.walk(func):
        if node is func or (skip and id(node) in skip):
            continue
        found: dict[str, str] = {}
        if isinstance(node, ast.If | ast.While):
            test = _norm(ast.unparse(node.test))
            callee = _guarded_call(node)
            found[f"if:{test}"] = f"guard `if {test[:80]}`" + (
                f" (calls `{callee}`)" if callee else "")
            if tests is not None:
                tests[f"if:{test}"] = node.test
        elif isinstance(node, ast.Assert):
            test = _norm(ast.unparse(node.test))
            found[f"assert:{test}"] = f"assertion `assert {test[:80]}`"
        elif isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            name = ast.unparse(exc)
            found[f"raise:{name}"] = f"`raise {name}`"
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            text = _norm(ast.unparse(node.value.func))
            if not _LOG.search(text + "("):
                found[f"call:{text}"] = f"call `{text[:80]}(…)`"
        if isinstance(node, ast.Call):
            callee = _norm(ast.unparse(node.func)).rsplit(".", 1)[-1]
            if not _LOG.search(_norm(ast.unparse(node.func)) + "("):
                for k in node.keywords:
                    if k.arg:
                        found[f"kw:{callee}:{k.arg}"] = f"keyword `{callee}({k.arg}=…)`"
        out.update(found)
        if at is not None:
            for key in found:
                at.setdefault(key, []).append(node)
    return out


def _guarded_call(node: ast.If | ast.While) -> str:
    """The callee whose result the first assignment of a guard's body takes (``x =
    f(…)``): a condition alone does not say what the copy skips (``if backend ==
    "typed"`` guarding ``inputs = annotate_inputs(…)``). A bare call statement is a unit
    of its own and is named there."""
    for st in node.body:
        value = st.value if isinstance(st, ast.Assign | ast.AnnAssign) else None
        if isinstance(value, ast.Call):
            text = _norm(ast.unparse(value.func))
            if not _LOG.search(text + "("):
                return text[:60]
    return ""


def _conditions(func: ps.FuncDef) -> set[str]:
    """Conditions ``func`` tests in conditional expressions (``a if c else b``), as the
    guard keys of ``units`` spell them."""
    return {_norm(ast.unparse(n.test)) for n in ps.walk(func) if isinstance(n, ast.IfExp)}


_NARROWING = re.compile(r"^assert:[A-Za-z_][A-Za-z0-9_]* is not None$")


def _narrowing(key: str) -> bool:
    """``assert name is not None`` on a local: a hint for the type checker; a copy
    without it does the same, a None only fails one line later (#22, precision)."""
    return bool(_NARROWING.match(key))


def _has(mine: dict[str, str], key: str) -> bool:
    if key in mine:
        return True
    if key.startswith("kw:"):  # the same keyword to a renamed/wrapped callee still counts
        return any(k.startswith("kw:") and k.rsplit(":", 1)[1] == key.rsplit(":", 1)[1]
                   and k.split(":")[1].endswith(key.split(":")[1]) for k in mine)
    return False


def pair_count(inp: Inputs) -> int:
    """How many (copy or override, upstream function) pairs ``analyse`` compares: what
    an all-clear on the upstream delta may say was compared (#22)."""
    return len(distinct_pairs(inp))


def _pairs(inp: Inputs) -> list[tuple[ps.FuncDef, str, str, str]]:
    """(our function, its file, upstream file, upstream qualname); computed once per
    tree (the all-clear line counts them too)."""
    key = "bodydrift-pairs"
    cached = inp.head.cache.get(key)
    if cached is None or cached[0] is not inp.target:  # a tree read with another target
        cached = inp.head.cache[key] = (inp.target, _find_pairs(inp))
    return cached[1]


def distinct_pairs(inp: Inputs) -> list[tuple[ps.FuncDef, str, str, str]]:
    """``_pairs`` with each (our function's place, upstream function) once, first
    occurrence kept, in order."""
    seen: set[tuple[str, str]] = set()
    out: list[tuple[ps.FuncDef, str, str, str]] = []
    for pair in _pairs(inp):
        mine, ours_file, up_file, qual = pair
        key = (f"{ours_file}:{mine.lineno}", f"{up_file}:{qual}")
        if key not in seen:
            seen.add(key)
            out.append(pair)
    return out


def no_op(func: ps.FuncDef) -> bool:
    """A body that does nothing (a docstring, ``pass``, ``...``, a bare ``return`` or
    ``return None``): the function switches the behaviour it replaces off on purpose;
    it copies no body, so upstream's body has nothing for it to follow (#22, set 22
    kind c: two methods left empty because another library initialises and checks)."""
    return all(isinstance(st, ast.Pass)
               or (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))
               or (isinstance(st, ast.Return) and (st.value is None or (
                   isinstance(st.value, ast.Constant) and st.value.value is None)))
               for st in func.body)


def _find_pairs(inp: Inputs) -> list[tuple[ps.FuncDef, str, str, str]]:
    out: list[tuple[ps.FuncDef, str, str, str]] = []
    for ours, up, _why in duplicates._pairs(inp):
        o_text, u_text = inp.head.text(ours), inp.head.text(up)
        o_mod = ps.parse(o_text or "")
        imported = {local for local, (_m, name) in ps.imports(o_mod).items() if name}
        for mine, theirs in duplicates._match_functions(
                duplicates._function_defs(o_text), duplicates._function_defs(u_text),
                imported):
            if not duplicates.calls_super(mine) and not no_op(mine):
                out.append((mine, ours, up, _qualname(ps.parse(u_text or ""), theirs)))
    return out + _overrides(inp)


MIN_TWIN = 1 / 3  # share of core's statements a same-named twin must repeat
MIN_TWIN_STATEMENTS = 4  # a function shorter than this is a coincidence of names


def _beside(inp: Inputs) -> tuple[str, ...]:
    """Folders beside the sub-project in its parent (``models/llama3/`` for
    ``models/deepseek_v3``): a same-named function or list there is a fellow copy of a
    common pattern, not the core code the folder copies (as ``init``'s drafts read it)."""
    sub = inp.target.subproject.rstrip("/") + "/"
    if "/" not in sub.rstrip("/"):
        return ()
    parent = sub.rstrip("/").rsplit("/", 1)[0] + "/"
    return tuple(sorted({parent + p[len(parent):].split("/", 1)[0] + "/"
                         for p in inp.head.paths if p.startswith(parent)
                         and not p.startswith(sub) and p.count("/") > parent.count("/")}))


def _core_modules(inp: Inputs, mod: ast.Module) -> list[str]:
    """Repository modules outside the folder, and outside the folders beside it, that
    ``mod`` imports names from."""
    sub = inp.target.subproject.rstrip("/") + "/"
    beside = _beside(inp)  # str.startswith(()) is False: no folder beside, none skipped
    return sorted({p for m, name in ps.imports(mod).values() if name
                   for p in [ps.module_path(m, inp.head.paths)]
                   if p and not p.startswith(sub) and not p.startswith(beside)})


def _twins(inp: Inputs) -> list[tuple[ps.FuncDef, str, str, str]]:
    """(our function, its file, upstream file, name) for each top-level function of a
    sub-project module (tests aside) that a repository module outside the folder, from
    which this module imports names, defines under the same name, repeating at least
    ``MIN_TWIN`` of that function's statements (at the baseline when it existed there;
    never a folder beside the sub-project's); pairs neither the configured copies nor
    the overrides already hold. A module that takes core's helpers and re-defines the
    function core's module builds from them is a copy of it, even where it rewrote a part
    (the whole-body bar of a copy is a half)."""
    key = "bodydrift-twins"
    cached = inp.head.cache.get(key)
    if cached is not None and cached[0] is inp.target:
        return cached[1]
    sub = inp.target.subproject + "/"
    have = {(f, fn.lineno) for fn, f, _u, _q in _pairs(inp)}
    out: list[tuple[ps.FuncDef, str, str, str]] = []
    # Every folder module importing a core module compares with the same functions of
    # it: their statement lines are made once per (module, name).
    lines_of: dict[tuple[str, str], list[str]] = {}
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")) or inp.target.is_test(path) \
                or "def " not in text:
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        imported = ps.imports(mod)
        ups = _core_modules(inp, mod)
        mine = {n.name: n for n in mod.body if isinstance(n, ps.FuncDef.__args__)}
        # Two core modules may define the name: the twin is the one the function repeats
        # most of, not the first in path order that clears the bar.
        best: dict[str, tuple[float, str]] = {}
        mine_lines: dict[str, list[str]] = {}
        for up in ups:
            theirs = duplicates._function_defs(inp.head.text(up))
            for name in sorted(set(mine) & set(theirs)):
                fn = mine[name]
                if name.startswith("__") or name in imported or (path, fn.lineno) in have \
                        or duplicates.calls_super(fn):
                    continue
                if (up, name) not in lines_of:
                    ref = _find(inp.base.text(up), name) if inp.base is not None else None
                    lines_of[up, name] = _lines(ref or theirs[name])
                ref_lines = lines_of[up, name]
                if len(ref_lines) < MIN_TWIN_STATEMENTS:
                    continue
                if name not in mine_lines:
                    mine_lines[name] = _lines(fn)
                share = _share(ref_lines, mine_lines[name])
                if share >= MIN_TWIN and share > best.get(name, (0.0, ""))[0]:
                    best[name] = (share, up)
        for name, (_s, up) in sorted(best.items()):
            out.append((mine[name], path, up, name))
            have.add((path, mine[name].lineno))
    inp.head.cache[key] = (inp.target, out)
    return out


def _qualname(mod: ast.Module | None, func: ps.FuncDef) -> str:
    for node in mod.body if mod is not None else ():
        if isinstance(node, ast.ClassDef) and func in node.body:
            return f"{node.name}.{func.name}"
    return func.name


def _overrides(inp: Inputs) -> list[tuple[ps.FuncDef, str, str, str]]:
    """Methods of the sub-project's classes that re-implement a method of the upstream
    class they derive from (imported from the repository), without ``super()`` (and not
    with an empty body: ``no_op``)."""
    out = []
    for path, cls, up_file, up_cls in _subclasses(inp):
        theirs = {n.name for n in up_cls.body if isinstance(n, ps.FuncDef.__args__)}
        for fn in cls.body:
            if isinstance(fn, ps.FuncDef.__args__) and fn.name in theirs \
                    and not duplicates.calls_super(fn) and not no_op(fn):
                out.append((fn, path, up_file, f"{up_cls.name}.{fn.name}"))
    return out


def _subclasses(inp: Inputs, follow: int = 0
                ) -> list[tuple[str, ast.ClassDef, str, ast.ClassDef]]:
    """(file, class) of the sub-project deriving from a repository class outside it,
    with that class's file and definition at HEAD (``follow``: as ``_upstream_class``)."""
    sub = inp.target.subproject + "/"
    out = []
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")) or "class " not in text:
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        imported = ps.imports(mod)
        for cls in (n for n in ps.statements(mod) if isinstance(n, ast.ClassDef)):
            for base in cls.bases:
                local = ast.unparse(base).split("[")[0].split(".")[-1]
                module, name = imported.get(local, ("", ""))
                found = _upstream_class(inp, module, name, follow) if name else None
                if found is not None:
                    out.append((path, cls, *found))
    return out


def _upstream_class(inp: Inputs, module: str, name: str, follow: int = 0
                    ) -> tuple[str, ast.ClassDef] | None:
    """The repository class ``module.name`` outside the folder; with ``follow``, through
    that many re-exports of a package's ``__init__.py`` (``from .model.model import X``)."""
    path = ps.module_path(module, inp.head.paths)
    sub = inp.target.subproject + "/"
    if not path or path.startswith(sub):
        return None
    candidates = [path]
    if path.endswith("/__init__.py"):  # a package re-exporting it: its modules
        folder = path[:-len("__init__.py")]
        candidates += sorted(p for p in inp.head.files if p.startswith(folder)
                             and p.endswith(".py") and p.count("/") == folder.count("/")
                             and f"class {name}" in inp.head.files[p])
    for cand in candidates:
        node = ps.find(ps.parse(inp.head.text(cand) or ""), name)
        if isinstance(node, ast.ClassDef):
            return cand, node
    if follow and path.endswith("/__init__.py"):
        for node in ps.statements(ps.parse(inp.head.text(path) or "") or ast.Module([], [])):
            if isinstance(node, ast.ImportFrom) \
                    and any((a.asname or a.name) == name and a.name == name
                            for a in node.names):
                source = ps.from_module(path, node.level, node.module)
                if source:
                    return _upstream_class(inp, source, name, follow - 1)
    return None


def _moved_from(inp: Inputs, qual: str) -> str | None:
    """The baseline text of the one file, gone at HEAD, that defined ``qual`` (a module
    turned package in the window: ``optimizer.py`` -> ``optimizer/optimizer.py``)."""
    if inp.base is None:
        return None
    needle = f"def {qual.rsplit('.', 1)[-1]}("
    found = [text for path, text in inp.base.files.items()
             if path.endswith(".py") and path not in inp.head.paths and needle in text
             and _find(text, qual) is not None]
    return found[0] if len(found) == 1 else None


def _find(text: str | None, qualname: str) -> ps.FuncDef | None:
    node = ps.find(ps.parse(text), qualname) if text is not None else None
    return node if isinstance(node, ps.FuncDef.__args__) else None


def analyse(inp: Inputs) -> list[BodyDrift]:
    """Per copied/overridden function: the units upstream added since the baseline that
    the copy lacks (none when upstream's version did not change)."""
    if inp.base is None:
        return []
    out: list[BodyDrift] = []
    seen: set[tuple[str, str]] = set()
    twins = _twins(inp)
    for n, (mine, ours_file, up_file, qual) in enumerate([*_pairs(inp), *twins]):
        key = (f"{ours_file}:{mine.lineno}", f"{up_file}:{qual}")
        if key in seen:
            continue
        seen.add(key)
        how = "copy" if n >= len(_pairs(inp)) else _how(inp, ours_file, mine, qual)
        old_text, new_text = inp.base.text(up_file), inp.head.text(up_file)
        if old_text is None:  # upstream's file is new: the function may have moved there
            old_text = _moved_from(inp, qual)
        if old_text is None or old_text == new_text:
            continue
        old, new = _find(old_text, qual), _find(new_text, qual)
        if old is None or new is None or ast.dump(old) == ast.dump(new):
            continue
        if how == "override" and similarity(old, mine) < MIN_SIMILAR:
            continue  # an override of its own design, not a copy of upstream's body
        before_tests: dict[str, ast.expr] = {}
        before = units(old, before_tests)
        refused, dead = _by_effect(inp, mine, ours_file, up_file, qual, new=new,
                                   before=before, before_tests=before_tests)
        tests: dict[str, ast.expr] = {}
        mine_tests: dict[str, ast.expr] = {}
        at: dict[str, list[ast.AST]] = {}
        after, copy = units(new, tests, dead, at), units(mine, mine_tests)
        # Instrumentation upstream added (structured logging, metrics, tracing,
        # profiling) changes no behaviour: a copy need not adopt it (#22, precision).
        up_imports = ps.imports(ps.parse(new_text or ""))
        asks = _capability_kws(inp, new, up_imports, inp.head.text(ours_file) or "")
        observing = {k for k, nodes in at.items() if k.startswith(("call:", "kw:"))
                     and all(_observes(n, up_imports) for n in nodes)}
        # Upstream rewrote a conditional expression as an ``if`` (a typing or style
        # change): the condition was tested before, in upstream's or the copy's body.
        tested = _conditions(old) | _conditions(mine)
        added = [k for k in after if k not in before and not _has(copy, k)
                 and (k in asks or not (_quiet(k) or k in observing))
                 and not (k.startswith("if:") and k[3:] in tested)
                 and not _narrowing(k)
                 and not (k in tests and (_unreachable(tests[k], refused)
                                          or _renamed(tests[k], mine_tests.values())
                                          # upstream renamed a local in its own guard
                                          or _renamed(tests[k], before_tests.values())))]
        # Upstream now calls a wrapper (``apply_x_to_mtp(…)``) around what the copy calls
        # (``apply_x(…)``): the copy's call, and the keywords it passes, are there.
        wraps = _wrapped(inp, up_file, new_text, {k.split(":")[1].rsplit(".", 1)[-1]
                                                   for k in added if k.startswith(("call:",
                                                                                   "kw:"))})
        made = {_callee(n) for n in ps.walk(mine) if isinstance(n, ast.Call)}
        # … or around a call upstream already made at the baseline that the copy had
        # left out then: the copy does that part its own way (apply_simple_fsdp for
        # apply_fsdp_to_decoder), nothing new to port.
        dropped = {_callee(n) for n in ps.walk(old) if isinstance(n, ast.Call)} - made
        added = [k for k in added if not _via_wrapper(k, wraps, made, copy)
                 and not _via_wrapper(k, wraps, dropped, None)
                 and not _kw_of_dropped_call(k, dropped)
                 and not _default_unless_unreached(inp, k, at.get(k, []), up_file,
                                                   ours_file=ours_file, mine=mine, how=how)]
        if not added:
            continue
        if len(added) > MAX_UNITS:
            out.append(BodyDrift(key[0], f"{up_file}:{new.lineno}", qual, (), (),
                                 how, rewritten=True))
            continue
        commits = tuple(_introduced(inp, up_file, qual, k) for k in added)
        out.append(BodyDrift(key[0], f"{up_file}:{new.lineno}", qual,
                             tuple(after[k] for k in added), commits, how))
    return out


def _kw_of_dropped_call(key: str, dropped: set[str]) -> bool:
    """A keyword upstream added to a call it already made at the baseline, which the copy
    never makes (``dropped``): the copy left the whole call out before the window (a
    feature it does without), so a keyword of that call is nothing the copy lacks; only
    where the copy makes the call is a keyword added to it drift (#22, S-1)."""
    kind, _, rest = key.partition(":")
    return kind == "kw" and rest.split(":")[0].rsplit(".", 1)[-1] in dropped


def _default_unless_unreached(inp: Inputs, key: str, nodes: list[ast.AST], up_file: str,
                              *, ours_file: str, mine: ps.FuncDef, how: str) -> bool:
    """A keyword upstream added whose value, at every call that passes it, is the
    callee's default unless a feature the sub-project never refers to is on: the copy
    leaving it out changes nothing it can reach (#22 item 5)."""
    if not key.startswith("kw:") or not nodes:
        return False
    keyword = key.rsplit(":", 1)[1]
    calls = [n for n in nodes if isinstance(n, ast.Call)]
    inherited = how == "override"
    return bool(calls) and all(
        duplicates.omission_gated(inp, up_file, c, keyword, ours_file=ours_file,
                                  ours_at=mine, inherited=inherited) for c in calls)


def _by_effect(inp: Inputs, mine: ps.FuncDef, ours_file: str, up_file: str, qual: str,
               *, new: ps.FuncDef, before: dict[str, str], before_tests: dict[str, ast.expr]
               ) -> tuple[dict[str, frozenset[object]], set[int]]:
    """(refused modes, ids of upstream's nodes that cannot matter to the copy): what
    upstream does only under a mode the copy refuses or a pinned setting never runs in
    the copy; a statement about a resource the copy's class never has, and a guard
    (not in ``before``) around a call the copy already guards its own way, are nothing
    the copy lacks. Compared by effect, not by text."""
    refused = {**pins(inp), **refusals(mine)}
    raising = [g for g in ps.walk(mine) if isinstance(g, ast.If)]
    dead = {id(n) for node in ps.walk(new) if isinstance(node, ast.If)
            and (_unreachable(node.test, refused) or duplicates.refuses(node.test, raising))
            for stmt in node.body for n in ps.walk(stmt)}
    own = _Own.of(inp, ours_file, mine, up_file, qual)
    guarded, unguarded = _guarded_calls(mine, before_tests)
    for node in ps.walk(new):
        if isinstance(node, ast.Expr | ast.If | ast.Assign) and id(node) not in dead and (
                _foreign(node, own) or (
                    isinstance(node, ast.If)
                    and f"if:{_norm(ast.unparse(node.test))}" not in before
                    and _handled(node, guarded, unguarded))):
            dead.update(id(n) for n in ps.walk(node))
    return refused, dead


_TEARDOWN = re.compile(r"close|teardown|cleanup|clean_up|shutdown|destroy|release|finali[sz]e"
                       r"|terminate|stop", re.I)
_HANDLES = {"Exception", "BaseException", "TypeError", "AttributeError", "NotImplementedError",
            "ValueError", "RuntimeError", "KeyError", "ImportError", "ModuleNotFoundError"}


@dataclass(frozen=True)
class _Own:
    """What the copy has to work with: the attributes its class (and, for an override,
    upstream's class) sets or declares (``None`` for a module-level function), the
    names its module and function bind, and its module's text (lower case, no ``_``)."""

    attrs: frozenset[str] | None
    names: frozenset[str]
    text: str

    @staticmethod
    def of(inp: Inputs, ours_file: str, mine: ps.FuncDef, up_file: str, qual: str) -> _Own:
        text = inp.head.text(ours_file) or ""
        mod = ps.parse(text)
        cls = _enclosing_class(mod, mine)
        attrs: set[str] | None = None
        if cls is not None:
            attrs = _class_attrs(cls)
            local = {n.name: n for n in ps.statements(mod) if isinstance(n, ast.ClassDef)} \
                if mod is not None else {}
            for base in ps.class_bases(cls):  # bases in the module or the repository
                found = local.get(base.split(".")[-1]) or _repo_class(inp, mod, base) \
                    or _relative_class(inp, mod, ours_file, base)
                if found is not None:
                    attrs |= _class_attrs(found)
            up_mod = ps.parse(inp.head.text(up_file) or "") if "." in qual else None
            up = ps.find(up_mod, qual.rsplit(".", 1)[0]) if up_mod is not None else None
            if isinstance(up, ast.ClassDef) and _is_subclass(cls, up.name):
                # an override inherits what upstream's class (and its bases there) set up
                attrs |= _class_attrs(up)
                theirs = {n.name: n for n in ps.statements(up_mod)
                          if isinstance(n, ast.ClassDef)}
                for base in ps.class_bases(up):
                    if base.split(".")[-1] in theirs:
                        attrs |= _class_attrs(theirs[base.split(".")[-1]])
        names = set(ps.imports(mod)) | {n.id for n in ast.walk(mine) if isinstance(n, ast.Name)
                                        and isinstance(n.ctx, ast.Store)}
        names |= set(ps.param_names(mine)) | {a.arg for a in ast.walk(mine.args)
                                              if isinstance(a, ast.arg)}
        if mod is not None:
            for node in mod.body:
                if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                    names.add(node.name)
                for t in getattr(node, "targets", [getattr(node, "target", None)]):
                    names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name)) \
                        if t is not None else None
        return _Own(frozenset(attrs) if attrs is not None else None, frozenset(names),
                    text.lower().replace("_", ""))


def _repo_class(inp: Inputs, mod: ast.Module | None, base: str) -> ast.ClassDef | None:
    """A base class imported from the repository (what it sets up, the subclass has)."""
    head = re.split(r"[.\[]", base, maxsplit=1)[0]
    module, name = ps.imports(mod).get(head, ("", ""))
    path = ps.module_path(module, inp.head.paths) if module and name else None
    found = ps.find(ps.parse(inp.head.text(path) or ""), name) if path else None
    return found if isinstance(found, ast.ClassDef) else None


def _relative_class(inp: Inputs, mod: ast.Module | None, path: str, base: str
                    ) -> ast.ClassDef | None:
    """A base class imported relatively (``from .engine import ForgeEngine`` in the
    sub-project's own package): what it sets up, the subclass has too."""
    head = re.split(r"[.\[]", base, maxsplit=1)[0]
    for node in ps.statements(mod) if mod is not None else ():
        if not (isinstance(node, ast.ImportFrom) and node.level > 0):
            continue
        for alias in node.names:
            if (alias.asname or alias.name) != head:
                continue
            module = ps.from_module(path, node.level, node.module)
            if not module:  # above the repository's top, or the top itself
                continue
            cand = ps.module_path(module, inp.head.paths)
            found = ps.find(ps.parse(inp.head.text(cand) or ""), alias.name) \
                if cand else None
            if isinstance(found, ast.ClassDef):
                return found
    return None


def _is_subclass(cls: ast.ClassDef, name: str) -> bool:
    return any(b.split("[")[0].split(".")[-1] == name for b in ps.class_bases(cls))


def _enclosing_class(mod: ast.Module | None, func: ps.FuncDef) -> ast.ClassDef | None:
    for node in ps.statements(mod) if mod is not None else ():
        if isinstance(node, ast.ClassDef) and any(
                isinstance(f, ps.FuncDef.__args__) and f.name == func.name
                and f.lineno == func.lineno for f in node.body):
            return node
    return None


def _class_attrs(cls: ast.ClassDef) -> set[str]:
    """Names the class body binds (fields, methods) and ``self.x`` it assigns anywhere."""
    out: set[str] = set()
    for node in cls.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            out.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
        elif isinstance(node, ast.Assign):
            out.update(t.id for t in node.targets if isinstance(t, ast.Name))
    for node in ast.walk(cls):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name) and node.value.id == "self":
            out.add(node.attr)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "setattr" and len(node.args) >= 2 \
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            out.add(node.args[1].value)
    return out


def _self_data(node: ast.AST) -> set[str]:
    """Attributes of ``self`` used as data (``self.x.close()``, ``if self.x``,
    ``hasattr(self, "x")``), not the methods it calls (``self.m()``)."""
    called = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
    out = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
           and isinstance(n.value, ast.Name) and n.value.id == "self" and id(n) not in called}
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) \
                and n.func.id in ("hasattr", "getattr") and len(n.args) >= 2 \
                and isinstance(n.args[0], ast.Name) and n.args[0].id == "self" \
                and isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str):
            out.add(n.args[1].value)
    return out


def _foreign(stmt: ast.AST, own: _Own) -> bool:
    """A statement about a resource the copy never has: it uses ``self.x`` that the
    copy's class never sets, sets up such an ``self.x``, or it tears down
    (``close``/``teardown``…) something the copy's module never names; a guard is
    foreign when its test or all its body is."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        data = _self_data(call.func)
        if own.attrs is not None and data and not data & own.attrs:
            return True
        name = call.func.attr if isinstance(call.func, ast.Attribute) else \
            call.func.id if isinstance(call.func, ast.Name) else ""
        if not _TEARDOWN.search(name):
            return False
        if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name):
            return call.func.value.id not in own.names | {"self", "super"}
        stem = _TEARDOWN.sub("", name).replace("_", "").lower()
        return isinstance(call.func, ast.Name) and len(stem) >= 3 and stem not in own.text
    if isinstance(stmt, ast.Assign) and own.attrs is not None:
        # Setting up a component the copy's class never has (``self.dataloader = …``):
        # what it passes to build it concerns that component, not the copy.
        mine = [t for t in stmt.targets if isinstance(t, ast.Attribute)
                and isinstance(t.value, ast.Name) and t.value.id == "self"]
        return bool(mine) and len(mine) == len(stmt.targets) and not (
            {t.attr for t in mine} & own.attrs)
    if isinstance(stmt, ast.If) and not stmt.orelse:
        data = _self_data(stmt.test)
        if own.attrs is not None and data and not data & own.attrs:
            return True
        body = [s for s in stmt.body if not (isinstance(s, ast.Expr) and isinstance(
            s.value, ast.Call) and _LOG.search(_norm(ast.unparse(s.value.func)) + "("))]
        return bool(body) and all(_foreign(s, own) for s in body)
    return False


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _guarded_calls(func: ps.FuncDef, theirs: dict[str, ast.expr]
                   ) -> tuple[set[str], set[str]]:
    """Callees the copy calls only under a guard of its own (inside an ``if`` that is
    not one of upstream's baseline guards ``theirs``, or a ``try`` whose handler catches
    a failure of the call), and those it calls bare."""
    inside: set[int] = set()
    for node in ps.walk(func):
        if (isinstance(node, ast.If) and f"if:{_norm(ast.unparse(node.test))}" not in theirs
                and not _renamed(node.test, theirs.values())) or (
                isinstance(node, ast.Try) and any(
                h.type is None or _HANDLES & {ast.unparse(e).split(".")[-1] for e in (
                    h.type.elts if isinstance(h.type, ast.Tuple) else [h.type])}
                for h in node.handlers)):
            inside.update(id(n) for s in node.body for n in ps.walk(s))
    guarded: set[str] = set()
    bare: set[str] = set()
    for node in ps.walk(func):
        if isinstance(node, ast.Call) and _callee(node):
            (guarded if id(node) in inside else bare).add(_callee(node))
    return guarded - bare, bare


def _handled(guard: ast.If, guarded: set[str], bare: set[str]) -> bool:
    """A guard upstream put around calls that the copy makes only under a guard of its
    own (``try: m.masks() except TypeError`` for ``if isinstance(b, Flex): m.masks()``):
    the copy checks the same thing differently."""
    raised = {id(n) for r in ps.walk(guard) if isinstance(r, ast.Raise) for n in ps.walk(r)}
    calls = {_callee(n) for s in guard.body for n in ps.walk(s)
             if isinstance(n, ast.Call) and id(n) not in raised}
    calls.discard("")
    return bool(calls & guarded) and not calls & bare


def _wrapped(inp: Inputs, up_file: str, up_text: str | None, callees: set[str]
             ) -> dict[str, set[str]]:
    """Callee -> the functions it calls itself, for the callees defined in upstream's
    file or imported into it from the repository."""
    mod = ps.parse(up_text or "")
    if mod is None:
        return {}
    imported = ps.imports(mod)
    out: dict[str, set[str]] = {}
    for name in callees:
        module, orig = imported.get(name, ("", ""))
        path = ps.module_path(module, inp.head.paths) if module and orig else up_file
        func = _find(inp.head.text(path) if path else None, orig or name)
        if func is not None:
            out[name] = {_callee(n) for n in ps.walk(func) if isinstance(n, ast.Call)} - {""}
    return out


def _via_wrapper(key: str, wraps: dict[str, set[str]], calls: set[str],
                 copy: dict[str, str] | None) -> bool:
    """The call or keyword unit ``key`` is to a wrapper around one of ``calls``: with
    ``copy``, a keyword counts only when the copy passes it to that call; without, every
    keyword of the wrapper goes with it."""
    kind, _, rest = key.partition(":")
    callee = rest.split(":")[0].rsplit(".", 1)[-1]
    inner = wraps.get(callee, set()) & calls
    if kind == "call" or (kind == "kw" and copy is None):
        return bool(inner)
    if kind == "kw":
        arg = rest.rsplit(":", 1)[-1]
        return any(f"kw:{x}:{arg}" in copy for x in inner)
    return False


MIN_SIMILAR = 0.5  # share of upstream's (baseline) statements an override must repeat


def _lines(func: ps.FuncDef) -> list[str]:
    return [_norm(ast.unparse(stmt)) for stmt in ps.statements(func)
            if not isinstance(stmt, ast.Expr | ast.Pass) or isinstance(
                getattr(stmt, "value", None), ast.Call)]


def similarity(upstream: ps.FuncDef, mine: ps.FuncDef) -> float:
    """Share of upstream's simple statements (and compound heads) the copy repeats."""
    return _share(_lines(upstream), _lines(mine))


def _share(upstream: list[str], mine: list[str]) -> float:
    """``similarity`` of two functions' ``_lines``."""
    theirs = [ln.split("\n", 1)[0] for ln in upstream]
    ours = {ln.split("\n", 1)[0] for ln in mine}
    return sum(1 for ln in theirs if ln in ours) / len(theirs) if theirs else 0.0


def refusals(func: ps.FuncDef) -> dict[str, frozenset[object]]:
    """``if x.attr != C: raise`` (or ``not in``): attribute -> the values the copy
    accepts; every other value is refused before any branch could need it."""
    out: dict[str, frozenset[object]] = {}
    for node in ps.walk(func):
        if isinstance(node, ast.If) and node.body and isinstance(node.body[-1], ast.Raise):
            found = duplicates._compared(node.test)
            if found is not None and not found[1]:
                out[found[0]] = found[2]
    return out


def pins(inp: Inputs) -> dict[str, frozenset[object]]:
    """Config fields the sub-project's own code (tests aside) only ever sets to
    constants (``replace(cfg, backend="x")``, ``X.Config(backend="x")``,
    ``cfg.backend = "x"``): attribute -> those
    values. Upstream's branches on another value never run there, as with a mode the
    copy refuses. A field it also sets from anything but itself is not pinned."""
    key = "bodydrift-pins"
    if key in inp.head.cache:
        return inp.head.cache[key]
    sub = inp.target.subproject + "/"
    found: dict[str, set[object]] = {}
    free: set[str] = set()
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")) or inp.target.is_test(path):
            continue
        for node in ps.walk(ps.parse(text) or ast.Module(body=[], type_ignores=[])):
            if isinstance(node, ast.Call) and _callee(node).endswith(("replace", "Config")):
                pairs = [(k.arg, k.value) for k in node.keywords if k.arg]
            elif isinstance(node, ast.Assign):
                pairs = [(t.attr, node.value) for t in node.targets
                         if isinstance(t, ast.Attribute) and not (
                             isinstance(t.value, ast.Name) and t.value.id == "self")]
            else:
                continue
            for attr, value in pairs:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    found.setdefault(attr, set()).add(value.value)
                elif not (isinstance(value, ast.Attribute) and value.attr == attr):
                    free.add(attr)  # set from something else: any value may come
    out = {attr: frozenset(vals) for attr, vals in found.items() if attr not in free}
    inp.head.cache[key] = out
    return out


def _shape(test: ast.expr) -> tuple[str, list[str]]:
    """A condition with its variable names abstracted, and those names."""
    names = [n.id for n in ast.walk(test) if isinstance(n, ast.Name)]
    return re.sub(r"\b(" + "|".join(map(re.escape, sorted(set(names), key=len,
                                                          reverse=True))) + r")\b", "_",
                  ast.unparse(test)) if names else ast.unparse(test), names


def _renamed(test: ast.expr, mine: object) -> bool:
    """The copy has the same guard over renamed local variables (``batch_degree`` for
    ``dp_degree``): same shape, and most of the names the same."""
    shape, names = _shape(test)
    for other in mine:  # type: ignore[attr-defined]
        o_shape, o_names = _shape(other)
        if o_shape == shape and len(o_names) == len(names) and names and \
                sum(a == b for a, b in zip(names, o_names, strict=True)) * 2 >= len(names):
            return True
    return False


def _unreachable(test: ast.expr, refused: dict[str, frozenset[object]]) -> bool:
    """A guard on a mode the copy refuses (``spmd_backend == "x"`` where the copy raises
    unless it is ``"y"``): under the copy it never holds (or reduces to what it has)."""
    for node in ast.walk(test):
        if isinstance(node, ast.Compare):
            found = duplicates._compared(node)
            if found is not None and found[1] and found[0] in refused \
                    and not (found[2] & refused[found[0]]):
                return True
    return False


def _how(inp: Inputs, ours_file: str, mine: ps.FuncDef, qual: str) -> str:
    configured = {f for pair in inp.target.raw.get("duplicate_logic", []) for f in pair["ours"]}
    return "copy" if ours_file in configured else "override"


def _introduced(inp: Inputs, path: str, qual: str, key: str) -> str:
    def state(text: str | None) -> object:
        fn = _find(text, qual)
        return fn is not None and key in units(fn)
    return attribution.introduced(inp, path, state)


def upstream_files(inp: Inputs) -> set[str]:
    """Upstream files whose history the attribution needs: configured copies' sources,
    the repository modules the sub-project imports classes from, twins' modules."""
    out = {f for pair in inp.target.raw.get("duplicate_logic", []) for f in pair["upstream"]}
    sub = inp.target.subproject + "/"
    for path, text in inp.head.files.items():
        if path.startswith(sub) and path.endswith(".py") and "class " in text:
            for module, _name in ps.imports(ps.parse(text)).values():
                found = ps.module_path(module, inp.head.paths)
                if found and not found.startswith(sub):
                    out.add(found)
    return out | {up for _fn, _f, up, _q in _twins(inp)} \
        | {up for _f, _m, up, _n in _list_twins(inp)}


@dataclass(frozen=True)
class Lag:
    """What upstream's current version of a copied/overridden function has that the
    copy lacks and that upstream had before the window (a quieter finding than
    ``BodyDrift``: nothing changed recently, the copy simply never had it)."""

    ours: str  # file:line of the copy
    upstream: str  # file:line of upstream's function at HEAD
    function: str  # upstream's (qualified) name
    how: str  # "copy" | "override"
    units: tuple[str, ...]  # labels to show: lacking, not added in the window
    lacking: tuple[str, ...]  # labels of everything lacking (window-independent)


# Units about observing a run (logging, metrics, printing, profiling) change no result:
# a copy without them lags nothing a reviewer would port.
_QUIET_WORDS = frozenset({
    "log", "logs", "logger", "logging", "metric", "metrics", "print", "pprint", "profile",
    "profiler", "profiling", "wandb", "tensorboard", "tb", "timer", "warn", "warning",
    "warnings", "color", "colors", "monitor", "mfu", "tflops", "verbose", "observability",
    "tracer", "tracing"})
_ORDER = ("call", "env", "raise", "assert", "if", "kw")


def _quiet(key: str) -> bool:
    text = key.split(":", 1)[1].lower()
    return "record_function" in text or bool(
        _QUIET_WORDS & set(re.split(r"[^a-z0-9]+", text)))


def _observes(node: ast.AST, imports: dict[str, tuple[str, str]]) -> bool:
    """A call whose full callee, with the module its head name is imported from
    (``sl.set_step`` from ``observability.structured_logger``,
    ``config.profiler.build``), is about observing the run."""
    call = node.value if isinstance(node, ast.Expr) else node
    if not isinstance(call, ast.Call):
        return False
    text = _norm(ast.unparse(call.func))
    module, name = imports.get(text.split(".", 1)[0], ("", ""))
    return _quiet(f"call:{text} {module}.{name}")


def env_reads(func: ps.FuncDef, skip: set[int] | None = None,
              at: dict[str, list[ast.AST]] | None = None) -> dict[str, str]:
    """Key -> label of the environment variables ``func`` reads by a constant name
    (``os.environ["X"]``, ``os.environ.get("X")``, ``os.getenv("X")``)."""
    out: dict[str, str] = {}
    for node in ps.walk(func):
        if skip and id(node) in skip:
            continue
        name: ast.expr | None = None
        if isinstance(node, ast.Subscript) and ast.unparse(node.value).endswith("environ"):
            name = node.slice
        elif isinstance(node, ast.Call) and node.args and (
                ast.unparse(node.func).endswith(("environ.get", "getenv"))):
            name = node.args[0]
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            out[f"env:{name.value}"] = f"env var `{name.value[:60]}` read"
            if at is not None:
                at.setdefault(f"env:{name.value}", []).append(node)
    return out


def lags(inp: Inputs, drifts: list[BodyDrift] | None = None,
         divergences: list[duplicates.Divergence] | None = None,
         call_drifts: list[duplicates.CallDrift] | None = None) -> list[Lag]:
    """Per copied/overridden function: the guards, assertions, raises, call
    statements, keyword arguments and environment reads upstream's HEAD version has
    that the copy lacks, after the same by-effect filters as ``analyse``, leaving out
    what upstream added in the window (``drifts`` reports that), logging/metrics/
    printing/profiling units, and calls a divergence finding already names."""
    out: list[Lag] = []
    drifted = {(d.ours, d.function): set(d.units) for d in drifts or ()}
    diverged: dict[str, set[str]] = {}
    for dv in divergences or ():
        diverged.setdefault(dv.ours, set()).update(dv.calls)
    # keywords a call-drift action already names for a call in that file
    omitted = {(c.ours.rsplit(":", 1)[0], c.callee.rsplit(".", 1)[-1], k)
               for c in call_drifts or () for k in (*c.missing, *c.gated)}
    named_before: dict[str, set[str]] = {}
    for prior in inp.priors:
        for it in prior.items:
            if it.get("kind") in ("action", "carried"):
                for f in it.get("files") or ():
                    named_before.setdefault(str(f), set()).update(
                        str(x) for x in it.get("facts") or ())
    for mine, ours_file, up_file, qual in distinct_pairs(inp):
        place = f"{ours_file}:{mine.lineno}"
        new = _find(inp.head.text(up_file), qual)
        if new is None:
            continue
        how = _how(inp, ours_file, mine, qual)
        if how == "override" and similarity(new, mine) < MIN_SIMILAR:
            continue  # an override of its own design, not a copy of upstream's body
        old = None
        if inp.base is not None:
            old_text = inp.base.text(up_file)
            old = _find(old_text if old_text is not None else _moved_from(inp, qual), qual)
            if old is None:
                continue  # upstream's function is new in the window: all of it is recent
        head_tests: dict[str, ast.expr] = {}
        units(new, head_tests)
        refused, dead = _by_effect(inp, mine, ours_file, up_file, qual, new=new,
                                   before={}, before_tests=head_tests)
        said = _comments(inp.head.text(ours_file) or "", mine)
        branched = {n for g in ps.walk(mine) if isinstance(g, ast.If | ast.While)
                    for n in _settings(g.test)}
        made = {_callee(n) for n in ps.walk(mine) if isinstance(n, ast.Call)}
        for node in ps.walk(new):
            # A guard the copy's comments explain, or on settings the copy branches on
            # itself (its own design for that mode), with all it holds; except, in the
            # latter, the keywords of a call the copy makes too: its own branch for the
            # mode (``if pp_enabled:`` … ``schedule.step(...)``) calling the same thing
            # without upstream's keyword (``return_outputs=False``) lags it.
            if isinstance(node, ast.If) and id(node) not in dead:
                if _explained(node.test, said):
                    dead.update(id(n) for n in ps.walk(node))
                elif _settings(node.test) and _settings(node.test) <= branched:
                    dead.update(id(n) for n in ps.walk(node) if not (
                        isinstance(n, ast.Call) and _callee(n) in made))
        tests: dict[str, ast.expr] = {}
        mine_tests: dict[str, ast.expr] = {}
        at: dict[str, list[ast.AST]] = {}
        theirs = {**units(new, tests, dead, at), **env_reads(new, dead)}
        up_imports = ps.imports(ps.parse(inp.head.text(up_file) or ""))
        observing = {k for k, nodes in at.items() if k.startswith(("call:", "kw:"))
                     and all(_observes(n, up_imports) for n in nodes)}
        copy = _aliased(mine, {**units(mine, mine_tests), **env_reads(mine)})
        asks = _capability_kws(inp, new, up_imports, inp.head.text(ours_file) or "")
        tests.update(_assert_tests(new))
        mine_tests.update(_assert_tests(mine))
        wraps = _wrapped(inp, up_file, inp.head.text(up_file),
                         {k.split(":")[1].rsplit(".", 1)[-1] for k in theirs
                          if k.startswith(("call:", "kw:"))})
        _method_wraps(inp, up_imports, wraps, {k.split(":")[1].rsplit(".", 1)[-1]
                                               for k in theirs if k.startswith(("call:", "kw:"))})
        named = diverged.get(place, set())
        tails = {_tail(t) for t in mine_tests.values()}
        up_mod = ps.parse(inp.head.text(up_file) or "") if "." in qual else None
        up_cls = ps.find(up_mod, qual.rsplit(".", 1)[0]) if up_mod is not None else None
        positional = _positional(mine)
        lacking = [k for k in theirs if not _has(copy, k)
                   and (k in asks or not (_quiet(k) or k in observing))
                   and not (k in tests and (_unreachable(tests[k], refused)
                                            or _renamed(tests[k], mine_tests.values())
                                            or _tail(tests[k]) in tails
                                            or _tail(_inlined(up_cls, tests[k])) in tails))
                   and not _via_wrapper(k, wraps, made, copy)
                   and not (k.startswith(("call:", "kw:"))
                            and k.split(":")[1].rsplit(".", 1)[-1] in named)
                   and not (k.startswith("kw:") and _kw_values(new, k) & positional)
                   # a keyword to a call the copy never makes: that part is done its
                   # own way (or the missing call is its own unit)
                   and not (k.startswith("kw:") and k.split(":")[1] not in made)
                   and not (k.startswith("kw:")
                            and (ours_file, *k.split(":")[1:]) in omitted)]
        if not lacking:
            continue
        before = {**units(old), **env_reads(old)} if old is not None else None
        # What an action of this run or of a prior report already named for this file
        # (a drift or new-copy action the night the window held it): the board tracks
        # it; the lag does not repeat it once the baseline has moved past it.
        reported = drifted.get((place, qual), set()) | named_before.get(ours_file, set())
        shown = [k for k in lacking if (before is None or k in before)
                 and theirs[k] not in reported]
        if not shown:
            continue
        depth = _depths(new)
        shown.sort(key=lambda k: (depth.get(k, 99), _ORDER.index(k.split(":", 1)[0])))
        out.append(Lag(place, f"{up_file}:{new.lineno}", qual, how,
                       tuple(theirs[k] for k in shown),
                       tuple(sorted(theirs[k] for k in lacking))))
    return out


def _capability_kws(inp: Inputs, func: ps.FuncDef, imports: dict[str, tuple[str, str]],
                    copy_text: str) -> set[str]:
    """Keyword units whose value asks a repository function about the run
    (``has_quantization=has_quantization(model_config)``) that the copy's module never
    names: even to an observing call (``metrics.build``), that keyword carries a
    capability the copy does not consider, so it is not left out as logging."""
    out: set[str] = set()
    for node in ps.walk(func):
        if not isinstance(node, ast.Call):
            continue
        for k in node.keywords:
            if not k.arg:
                continue
            for call in (n for n in ast.walk(k.value) if isinstance(n, ast.Call)):
                name = call.func.id if isinstance(call.func, ast.Name) else ""
                module, orig = imports.get(name, ("", ""))
                if orig and not _quiet(f"call:{module}.{orig}") \
                        and ps.module_path(module, inp.head.paths) \
                        and not re.search(rf"\b{re.escape(name)}\b", copy_text):
                    out.add(f"kw:{_callee(node)}:{k.arg}")
    return out


_CHAIN = re.compile(r"\b(?:[A-Za-z_]\w*\.)+([A-Za-z_]\w*)")


def _tail(test: ast.expr) -> str:
    """A condition with each dotted name cut to its last part: the copy's
    ``if not self.train_spec.pipelining_fn`` is upstream's
    ``if not model_spec.pipelining_fn`` read from another holder."""
    return _CHAIN.sub(r"\1", _norm(ast.unparse(test)))


def _positional(func: ps.FuncDef) -> set[tuple[str, str]]:
    """(callee, argument text) of every positional argument the copy passes."""
    return {(_callee(n), _norm(ast.unparse(a))) for n in ps.walk(func)
            if isinstance(n, ast.Call) for a in n.args}


def _kw_values(func: ps.FuncDef, key: str) -> set[tuple[str, str]]:
    """(callee, value text) upstream passes as the keyword of ``key``: the copy passing
    the same value positionally to that callee passes it."""
    _kind, callee, arg = key.split(":", 2)
    return {(_callee(n), _norm(ast.unparse(k.value))) for n in ps.walk(func)
            if isinstance(n, ast.Call) and _callee(n) == callee for k in n.keywords
            if k.arg == arg}


_NESTING = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try,
            ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _depths(func: ps.FuncDef) -> dict[str, int]:
    """Unit key -> how shallowly upstream's function nests it (an unconditional setup
    call before one under a branch: what every run needs is named first)."""
    depth: dict[int, int] = {}
    stack: list[tuple[ast.AST, int]] = [(stmt, 0) for stmt in func.body]
    while stack:
        node, d = stack.pop()
        depth[id(node)] = d
        inner = d + 1 if isinstance(node, _NESTING) else d
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))
    at: dict[str, list[ast.AST]] = {}
    units(func, at=at)
    env_reads(func, at=at)
    return {k: min(depth.get(id(n), 99) for n in nodes) for k, nodes in at.items()}


def _method_wraps(inp: Inputs, imports: dict[str, tuple[str, str]],
                  wraps: dict[str, set[str]], callees: set[str]) -> None:
    """Adds to ``wraps`` the methods of repository classes upstream's module imports
    (``cast(BaseModel, m).init_weights``, an alias of ``init_states``): callee -> what
    the method calls, for callees no module function defines."""
    todo = {c for c in callees if c not in wraps}
    if not todo:
        return
    for _local, (module, name) in sorted(imports.items()):
        found = _upstream_class(inp, module, name) if module and name else None
        if found is None:  # not a repository class (re-exports by a package followed)
            continue
        cls = found[1]
        for fn in cls.body:
            # Only an alias (a few plain statements, no loop): a method that does work
            # of its own is no stand-in for what it happens to call.
            body = [b for b in fn.body if not (isinstance(b, ast.Expr)
                                               and isinstance(b.value, ast.Constant))] \
                if isinstance(fn, ps.FuncDef.__args__) else []
            if body and fn.name in todo and len(body) <= 3 and not any(
                    isinstance(n, ast.For | ast.While | ast.If) for b in body
                    for n in ps.walk(b)):
                wraps[fn.name] = {_callee(n) for n in ps.walk(fn)
                                  if isinstance(n, ast.Call)} - {""}
                todo.discard(fn.name)


def _inlined(cls: ast.AST | None, test: ast.expr) -> ast.expr:
    """A guard calling a method of upstream's class that only returns an expression
    (``self.should_continue_training()``) is that expression (``self.step <
    self.config.training.steps``), which the copy may test inline."""
    if isinstance(cls, ast.ClassDef) and isinstance(test, ast.Call) and not test.args \
            and isinstance(test.func, ast.Attribute) and isinstance(test.func.value, ast.Name) \
            and test.func.value.id == "self":
        for fn in cls.body:
            if isinstance(fn, ps.FuncDef.__args__) and fn.name == test.func.attr \
                    and len(fn.body) == 1 and isinstance(fn.body[0], ast.Return) \
                    and fn.body[0].value is not None:
                return fn.body[0].value
    return test


def _assert_tests(func: ps.FuncDef) -> dict[str, ast.expr]:
    """Key -> condition of each assertion (compared like guards: renamed locals, the
    same condition on another holder)."""
    return {f"assert:{_norm(ast.unparse(n.test))}": n.test for n in ps.walk(func)
            if isinstance(n, ast.Assert)}


def _aliased(func: ps.FuncDef, keys: dict[str, str]) -> dict[str, str]:
    """``keys`` plus each call the copy makes through a local it bound to an expression
    (``p = cfg.build(…)``; ``p.apply(…)``) spelled as that expression
    (``cfg.build(…).apply``), which is how upstream may write the same call."""
    bound = {n.targets[0].id: _norm(ast.unparse(n.value)) for n in ps.walk(func)
             if isinstance(n, ast.Assign) and len(n.targets) == 1
             and isinstance(n.targets[0], ast.Name)}
    out = dict(keys)
    for key, label in keys.items():
        if key.startswith("call:"):
            head, dot, rest = key[5:].partition(".")
            if dot and head in bound:
                out.setdefault(f"call:{bound[head]}.{rest}", label)
    return out


def _comments(text: str, func: ps.FuncDef) -> str:
    """The copy's own words: its comments and docstring."""
    lines = text.splitlines()[func.lineno - 1:getattr(func, "end_lineno", func.lineno)]
    out = [ln.split("#", 1)[1] for ln in lines if "#" in ln]
    return " ".join([*out, ast.get_docstring(func) or ""])


def _explained(test: ast.expr, said: str) -> bool:
    """The copy's comments name every name upstream's guard tests (``async_mode``,
    ``DISABLED`` for ``if self.async_mode == AsyncMode.DISABLED``): it left the guard
    out knowingly, and says why."""
    names = set(re.findall(r"[A-Za-z_]\w{3,}", _tail(test))) - {"None", "True", "False",
                                                                  "self", "isinstance"}
    return bool(names) and all(re.search(rf"\b{re.escape(n)}\b", said) for n in names)


def _settings(test: ast.expr) -> frozenset[str]:
    """The dotted settings a condition reads (``parallel_dims.fsdp_enabled``), with
    ``self.`` dropped; plain local names are not settings."""
    out = set()
    for n in ast.walk(test):
        if isinstance(n, ast.Attribute) and not isinstance(n.ctx, ast.Store):
            text = _norm(ast.unparse(n))
            if "(" not in text and "[" not in text:
                out.add(text)
    # keep the longest chains only (``a.b.c``, not also ``a.b``)
    return frozenset(t for t in out if not any(o.startswith(t + ".") for o in out))


@dataclass(frozen=True)
class InitGap:
    """A subclass constructor out of step with its base's (#22 defect 6): it skips the
    base's ``__init__`` and one of the base's steps with it, or calls it and then repeats
    a step the base's already takes (work done twice)."""

    ours: str  # file:line of the subclass's __init__
    upstream: str  # file:line of the base's __init__ at HEAD
    base: str  # the base class's name
    skipped: tuple[str, ...]  # base steps the subclass never takes ("`self.x`", "`self.f()`")
    repeated: tuple[str, ...]  # base steps the subclass takes again after super().__init__
    gained: bool = False  # a skipped step is new in the window (the base changed)
    commit: str = ""  # the commit that added it ("" when outside the watched history)


def _init_steps(func: ps.FuncDef | None) -> tuple[set[str], set[str]]:
    """The attributes ``func`` assigns on ``self`` and the methods it calls on ``self``
    as statements (a step whose result nothing keeps)."""
    attrs: set[str] = set()
    calls: set[str] = set()
    for node in ps.walk(func) if func is not None else ():
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        for t in targets:
            for el in t.elts if isinstance(t, ast.Tuple) else [t]:
                if isinstance(el, ast.Attribute) and isinstance(el.value, ast.Name) \
                        and el.value.id == "self":
                    attrs.add(el.attr)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute) \
                and isinstance(node.value.func.value, ast.Name) \
                and node.value.func.value.id == "self":
            calls.add(node.value.func.attr)
    return attrs, calls


def _calls_base_init(func: ps.FuncDef, base: str) -> bool:
    """``super().__init__(…)``, ``super(C, self).__init__(…)`` or ``Base.__init__(self, …)``."""
    for node in ps.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "__init__":
            owner = node.func.value
            if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) \
                    and owner.func.id == "super":
                return True
            if ast.unparse(owner).split(".")[-1] == base:
                return True
    return False


def init_gaps(inp: Inputs) -> list[InitGap]:
    """Subclasses of the sub-project whose ``__init__`` is out of step with the
    ``__init__`` of the repository class they derive from (outside the folder)."""
    out: list[InitGap] = []
    for path, cls, up_file, up_cls in _subclasses(inp, follow=2):
        mine = next((f for f in cls.body if isinstance(f, ps.FuncDef.__args__)
                     and f.name == "__init__"), None)
        theirs = next((f for f in up_cls.body if isinstance(f, ps.FuncDef.__args__)
                       and f.name == "__init__"), None)
        if mine is None or theirs is None:
            continue
        b_attrs, b_calls = _init_steps(theirs)
        where = (f"{path}:{mine.lineno}", f"{up_file}:{theirs.lineno}")
        if _calls_base_init(mine, up_cls.name):
            again = sorted(b_calls & _repeated_calls(mine))
            if again:
                out.append(InitGap(*where, up_cls.name, (),
                                   tuple(f"`self.{c}()`" for c in again)))
            continue
        own_attrs = set().union(*(_init_steps(f)[0] for f in cls.body
                                  if isinstance(f, ps.FuncDef.__args__)))
        own_calls = _init_steps(mine)[1]
        skipped = sorted(f"`self.{a}`" for a in b_attrs - own_attrs) \
            + sorted(f"`self.{c}()`" for c in b_calls - own_calls)
        if not skipped:
            continue
        qual = f"{up_cls.name}.__init__"
        if inp.base is None:
            continue
        old_text = inp.base.text(up_file)
        if old_text is None:  # the base's module is new: it may have moved there
            old_text = _moved_from(inp, qual)
        o_attrs, o_calls = _init_steps(_find(old_text, qual))
        new_steps = {f"`self.{a}`" for a in b_attrs - o_attrs} \
            | {f"`self.{c}()`" for c in b_calls - o_calls}
        commit = ""
        if new_steps & set(skipped):
            gained = new_steps & set(skipped)
            commit = attribution.introduced(
                inp, up_file, lambda text, q=qual, g=gained: frozenset(
                    g & {f"`self.{a}`" for a in _init_steps(_find(text, q))[0]}
                    | g & {f"`self.{c}()`" for c in _init_steps(_find(text, q))[1]}))
        out.append(InitGap(*where, up_cls.name, tuple(skipped), (),
                           bool(new_steps & set(skipped)), commit))
    return out


def _repeated_calls(func: ps.FuncDef) -> set[str]:
    """Methods called on ``self`` as statements after the base ``__init__`` call."""
    out: set[str] = set()
    seen = False
    for stmt in func.body:
        if seen:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                    and isinstance(stmt.value.func, ast.Attribute) \
                    and isinstance(stmt.value.func.value, ast.Name) \
                    and stmt.value.func.value.id == "self":
                out.add(stmt.value.func.attr)
            continue
        seen = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                   and n.func.attr == "__init__" for n in ast.walk(stmt))
    return out


@dataclass(frozen=True)
class ListDrift:
    """A module-level collection of names (``_save_list = {torch.ops.a.b.default, …}``)
    the sub-project module repeats from its twin, a same-named collection of a core
    module it imports from: the entries core added in the window the copy lacks, and the
    copy's entries that name only the prefix of one of core's (an op packet where core
    names the overload: a different object, so a membership test never matches)."""

    ours: str  # file:line of the copy's collection
    upstream: str  # file:line of core's at HEAD
    name: str
    lacking: tuple[str, ...]  # core's entries, new in the window, the copy lacks
    commits: tuple[str, ...]  # per lacking entry
    coarse: tuple[tuple[str, str], ...]  # (the copy's entry, core's longer entry)


MIN_LIST = 3  # a collection shorter than this is too small to call a copy


def _collections(mod: ast.Module | None) -> dict[str, tuple[int, tuple[str, ...]]]:
    """Top-level ``NAME = {…}`` / ``[…]`` / ``(…)`` whose entries are all dotted names:
    name -> (line, entries as written)."""
    out: dict[str, tuple[int, tuple[str, ...]]] = {}
    for node in mod.body if mod is not None else ():
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 \
            else node.target if isinstance(node, ast.AnnAssign) else None
        value = getattr(node, "value", None)
        if not isinstance(target, ast.Name) or not isinstance(value, ast.Set | ast.List
                                                                | ast.Tuple):
            continue
        chains = [ps.name_chain(e) for e in value.elts]
        if chains and all(chains):
            out[target.id] = (node.lineno, tuple(".".join(c) for c in chains))
    return out


def _list_twins(inp: Inputs) -> list[tuple[str, tuple[int, tuple[str, ...]], str, str]]:
    """(our file, (line, entries), core's file, name) per collection a sub-project module
    (tests aside) shares by name with a core module it imports names from (never one of
    a folder beside the sub-project's)."""
    sub = inp.target.subproject + "/"
    out = []
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")) or inp.target.is_test(path):
            continue
        mod = ps.parse(text)
        mine = _collections(mod)
        if not mine:
            continue
        for up in _core_modules(inp, mod):
            theirs = _collections(ps.parse(inp.head.text(up) or ""))
            out += [(path, mine[name], up, name) for name in sorted(set(mine) & set(theirs))]
    return out


def list_drift(inp: Inputs) -> list[ListDrift]:
    """Per collection a sub-project module shares by name with a core module it imports
    names from, repeating at least half of core's entries (at the baseline when core had
    it then): what core added since the baseline that the copy lacks, and entries of the
    copy that stop at the prefix of an entry of core's."""
    out: list[ListDrift] = []
    for path, (line, ours), up, name in _list_twins(inp):
        up_line, now = _collections(ps.parse(inp.head.text(up) or ""))[name]
        then = _collections(ps.parse(inp.base.text(up) or "")).get(name, (0, ()))[1] \
            if inp.base is not None else ()
        ref = then or now
        if len(ref) < MIN_LIST or 2 * len(set(ref) & set(ours)) < len(set(ref)):
            continue  # not a copy of core's collection
        coarse = tuple((e, c) for e in ours if e not in now
                       for c in now if c.startswith(e + ".") and c not in ours)
        longer = {c for _e, c in coarse}
        lacking = tuple(c for c in now if then and c not in then and c not in ours
                        and c not in longer)
        if not (coarse or lacking):
            continue
        commits = tuple(attribution.introduced(
            inp, up, lambda t, c=c, n=name: c in _collections(
                ps.parse(t or "")).get(n, (0, ()))[1]) for c in lacking)
        out.append(ListDrift(f"{path}:{line}", f"{up}:{up_line}", name, lacking,
                             commits, coarse))
    return out


@dataclass(frozen=True)
class NameCopy:
    """An override (no ``super()``) that repeats too few of core's statements to be
    compared unit by unit, yet spells every name core's version does (the keys,
    dimension or option names it enumerates): a re-implementation of core's method
    while core's version changed in the window, so each later change (a new name, a
    changed step) has to be made twice."""

    ours: str  # file:line of the override
    upstream: str  # file:line of core's method at HEAD
    function: str  # core's qualified name
    names: tuple[str, ...]  # the string names both spell
    commit: str  # the window's commit that changed core's method


MIN_NAMES = 4  # fewer shared names than this: a coincidence of a few keys


def _names(func: ps.FuncDef) -> set[str]:
    """String constants of the body, docstrings, f-string parts and logging aside."""
    skip = {id(n) for j in ps.walk(func) if isinstance(j, ast.JoinedStr)
            or (isinstance(j, ast.Call) and _LOG.search(_norm(ast.unparse(j.func)) + "("))
            for n in ast.walk(j)}
    body = func.body[1:] if func.body and isinstance(func.body[0], ast.Expr) \
        and isinstance(func.body[0].value, ast.Constant) else func.body
    return {n.value for st in body for n in ast.walk(st) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and id(n) not in skip}


def name_copies(inp: Inputs) -> list[NameCopy]:
    """Overrides under the statement bar whose names are all core's (at least
    ``MIN_NAMES``, every one core's version spells), where core's method changed in the
    window."""
    if inp.base is None:
        return []
    out: list[NameCopy] = []
    for mine, ours_file, up_file, qual in _overrides(inp):
        old, new = _find(inp.base.text(up_file), qual), _find(inp.head.text(up_file), qual)
        if old is None or new is None or ast.dump(old) == ast.dump(new) \
                or similarity(old, mine) >= MIN_SIMILAR:
            continue  # compared unit by unit (``analyse``), or nothing changed
        theirs = _names(new)
        if len(theirs) < MIN_NAMES or not theirs <= _names(mine):
            continue
        commit = attribution.introduced(inp, up_file, lambda t, q=qual: ast.dump(
            _find(t, q) or ast.Pass()))
        out.append(NameCopy(f"{ours_file}:{mine.lineno}", f"{up_file}:{new.lineno}", qual,
                            tuple(sorted(theirs)), commit))
    return out
