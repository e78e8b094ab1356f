"""Settings the sibling folders honour at a shared place and the sub-project ignores
(#22, copies that lag; S-4): a model folder that calls a repository helper without the
keyword through which its siblings hand over a job setting (``apply_moe_ep_tp(...,
use_deepep=...)`` computed from ``--parallelism.expert_parallel_comm_backend``), or whose
``update_from_config`` lacks the fallback its siblings apply to the same sub-config
(``if self.moe_args.use_grouped_mm and not has_cuda_capability(9, 0): ... = False``).

Two rules, both anchored on code the sub-project shares with the siblings, never on a
name alone:

- keyword: the sub-project calls a function (by name) that at least two sibling folders
  call with a keyword the sub-project's calls never pass, each sibling's value read from
  a setting (an attribute chain not rooted at ``self`` or at an imported module, directly
  or through a local assigned from it or under a condition testing it), every sibling
  calling the function passes it, and the sub-project's code never names that setting
  (a folder that names it has made its own choice);
- fallback: a method the sub-project defines (by name, in a class) in which at least two
  siblings set an attribute of a sub-config to a constant under a condition and raise
  nothing there, when the sub-project's method reaches the same sub-config
  (``self.moe_args`` / ``self.layer.moe``) and no code of the sub-project assigns that
  attribute.

An Opportunity, never an action: the sibling's reason may not apply. Pure: the HEAD tree
in, ``IgnoredSetting`` records out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.commentrefs import own_sources
from agentops.scout.analyses.siblingguards import MIN_SIBLINGS, sibling_folders
from agentops.scout.model import Inputs

MAX_FINDINGS = 10
MAX_TEXT = 120
_WORD = re.compile(r"[A-Za-z_]\w*")
_FuncDef = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class IgnoredSetting:
    file: str  # the sub-project's call, or its method
    line: int
    rule: str  # "keyword" | "fallback"
    place: str  # ``module:callee`` or the method (``update_from_config``)
    names: tuple[str, ...]  # the keywords left out, or the attribute the fallback sets
    setting: str  # the settings the siblings read, or the fallback's condition
    siblings: tuple[str, ...]  # file:line of each sibling's call or fallback


def _callee(call: ast.Call, imported: dict[str, tuple[str, str]]) -> str:
    """The called function as ``module:name`` through the file's imports and its own
    top-level definitions (``apply_moe_ep_tp`` imported from, or defined in,
    ``torchtitan.models.llama4.infra.parallelize``; ``Attention.Config`` with
    ``Attention``'s module); a method called on a value gives ``""``."""
    chain = ps.name_chain(call.func) if isinstance(call.func, ast.Attribute) else \
        [call.func.id] if isinstance(call.func, ast.Name) else []
    if not chain or chain[0] not in imported:
        return ""
    module, orig = imported[chain[0]]
    return f"{module}:{'.'.join([orig or chain[0], *chain[1:]])}"


def _functions(mod: ast.Module) -> list[tuple[str, ast.AST, bool]]:
    """(name, def, is_method) of every function and method, nested classes included;
    a function nested in another is read as part of it."""
    out: list[tuple[str, ast.AST, bool]] = []

    def visit(body: list[ast.stmt], in_class: bool) -> None:
        for st in body:
            if isinstance(st, _FuncDef):
                out.append((st.name, st, in_class))
            elif isinstance(st, ast.ClassDef):
                visit(st.body, True)

    visit(mod.body, False)
    return out


def _own_nodes(fn: ast.AST) -> list[ast.AST]:
    return ps.walk(fn)


def _chain(node: ast.expr) -> list[str]:
    return ps.name_chain(node) if isinstance(node, ast.Attribute) else []


def _config_roots(fn: ast.AST) -> set[str]:
    """The names in ``fn`` that hold a configuration: parameters annotated with a
    ``...Config`` class (``job_config: JobConfig``, ``parallelism: ParallelismConfig``)
    and locals assigned from one (``parallelism = job_config.parallelism``). Runtime
    state (``parallel_dims.ep``) is no setting a user chose."""
    args = getattr(fn, "args", None)
    roots = set()
    for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if args else ():
        if a.annotation is not None and \
                ast.unparse(a.annotation).strip("'\"").endswith("Config"):
            roots.add(a.arg)
    if not roots:
        return roots
    for st in ps.statements(fn):
        if isinstance(st, ast.Assign) and len(st.targets) == 1 \
                and isinstance(st.targets[0], ast.Name):
            chain = _chain(st.value)
            if len(chain) >= 2 and chain[0] in roots:
                roots.add(st.targets[0].id)
    return roots


def _setting_chain(node: ast.AST, roots: set[str]) -> str | None:
    """The leaf of the first attribute chain in ``node`` read from a configuration
    (``job_config.parallelism.x`` -> ``x``); a method called on it is no setting."""
    called = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and id(n) not in called:
            chain = _chain(n)
            if len(chain) >= 2 and chain[0] in roots:
                return chain[-1]
    return None


def _local_setting(fn: ast.AST, local: str, roots: set[str]) -> str | None:
    """The setting a local of ``fn`` is read from: assigned from a chain, or assigned
    under an ``if`` whose condition tests one."""

    def visit(body: list[ast.stmt], test: ast.expr | None) -> str | None:
        for st in body:
            if isinstance(st, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == local for t in st.targets):
                got = _setting_chain(st.value, roots)
                if got is None and test is not None:
                    got = _setting_chain(test, roots)
                if got:
                    return got
            elif isinstance(st, ast.If):
                got = visit(st.body, st.test) or visit(st.orelse, st.test)
                if got:
                    return got
            elif isinstance(st, (ast.For, ast.While, ast.With, ast.Try)):
                got = visit(getattr(st, "body", []), test)
                if got:
                    return got
        return None

    return visit(getattr(fn, "body", []), None)


def _value_setting(fn: ast.AST, value: ast.expr, roots: set[str]) -> str | None:
    if not roots or isinstance(value, ast.Constant):
        return None
    if isinstance(value, ast.Name):
        return _local_setting(fn, value.id, roots)
    return _setting_chain(value, roots)


def _parsed(files: dict[str, str], folder: str,
            wanted: tuple[str, ...] | None = None) -> list[tuple[str, ast.Module]]:
    """The folder's own parsed sources; with ``wanted``, only files whose text names
    one of those (a sibling file that never calls our helpers nor defines our methods
    cannot hold a finding, and folders beside an experiment can be many)."""
    out = []
    for path, text in own_sources(files, folder):
        if wanted is not None and not any(w in text for w in wanted):
            continue
        mod = ps.parse(text)
        if mod is not None:
            out.append((path, mod))
    return out


def _names(path: str, mod: ast.Module) -> dict[str, tuple[str, str]]:
    """The file's imports, and its own top-level functions and classes as defined in
    its module: a sibling calling the helper it defines is a caller like the folders
    that import it."""
    here = path[:-3].replace("/", ".")
    own = {n: (here, n) for n in ps.top_level_names(mod)}
    return {**own, **ps.imports(mod)}


def _our_calls(mods: list[tuple[str, ast.Module]], paths: frozenset[str]
               ) -> dict[str, tuple[str, int, set[str]]]:
    """callee -> (file, line of the first call, keywords any call passes), for the
    functions the repository defines; a call with ``**kwargs`` passes everything, so
    its callee is left out."""
    out: dict[str, tuple[str, int, set[str]]] = {}
    opaque: set[str] = set()
    for path, mod in mods:
        imported = _names(path, mod)
        for node in ps.nodes(mod):
            name = _callee(node, imported) if isinstance(node, ast.Call) else ""
            if not name or ps.module_path(name.split(":", 1)[0], paths) is None:
                continue
            kws = {k.arg for k in node.keywords if k.arg}
            if any(k.arg is None for k in node.keywords):
                opaque.add(name)
            if name in out:
                out[name][2].update(kws)
            else:
                out[name] = (path, node.lineno, kws)
    return {k: v for k, v in out.items() if k not in opaque}


def _keyword_rule(ours: dict[str, tuple[str, int, set[str]]], words: set[str],
                  theirs: dict[str, list[tuple[str, ast.Module]]]) -> list[IgnoredSetting]:
    # (callee, keyword) -> [(sibling, file:line, setting)]; callee -> siblings calling it
    passes: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
    callers: dict[str, set[str]] = {}
    for sib, mods in theirs.items():
        for path, mod in mods:
            imports = _names(path, mod)
            for _name, fn, _m in _functions(mod):
                roots: set[str] | None = None
                for node in _own_nodes(fn):
                    name = _callee(node, imports) if isinstance(node, ast.Call) else ""
                    if name not in ours:
                        continue
                    callers.setdefault(name, set()).add(sib)
                    for k in node.keywords:
                        if not k.arg or k.arg in ours[name][2]:
                            continue
                        if roots is None:
                            roots = _config_roots(fn)
                        setting = _value_setting(fn, k.value, roots)
                        if setting:
                            passes.setdefault((name, k.arg), []).append(
                                (sib, f"{path}:{node.lineno}", setting))
    # One finding per call of ours: the keywords it leaves out of the same call.
    grouped: dict[str, tuple[list[str], list[str], set[str]]] = {}
    for (name, kw), held in sorted(passes.items()):
        folders = {s for s, _at, _v in held}
        # Every sibling that calls the function passes the setting: one that calls it
        # without (a dense model calling a helper MoE models feed an EP degree) shows
        # the keyword serves a feature some models lack.
        if len(folders) < MIN_SIBLINGS or folders != callers[name]:
            continue
        settings = [v for _s, _at, v in held]
        setting = max(sorted(set(settings)), key=settings.count)
        if setting in words:
            continue
        firsts: dict[str, str] = {}
        for s, at, v in held:
            if v == setting:
                firsts.setdefault(s, at)
        if len(firsts) < MIN_SIBLINGS:
            continue
        kws, sets, ats = grouped.setdefault(name, ([], [], set()))
        kws.append(kw)
        if setting not in sets:
            sets.append(setting)
        ats.update(firsts.values())
    out = []
    for name, (kws, sets, ats) in grouped.items():
        path, line, _kws = ours[name]
        out.append(IgnoredSetting(path, line, "keyword", name, tuple(kws), ", ".join(sets),
                                  tuple(sorted(ats))))
    return out


def _self_prefixes(fn: ast.AST) -> set[str]:
    """``self.a`` and ``self.a.b`` for every ``self.a.b.c`` the method reads or writes:
    the sub-configs it reaches."""
    out = set()
    for n in _own_nodes(fn):
        if isinstance(n, ast.Attribute):
            chain = _chain(n)
            if len(chain) >= 3 and chain[0] == "self":
                out.update(".".join(chain[:i]) for i in range(2, len(chain)))
    return out


def _fallbacks(fn: ast.AST) -> list[tuple[ast.If, str, str]]:
    """(if, object prefix, attribute) of each ``if cond: ... self.a.b = <constant>``
    that raises nothing: a setting switched off or to a safe value."""
    out = []
    for n in _own_nodes(fn):
        if not isinstance(n, ast.If) or any(isinstance(s, ast.Raise) for s in n.body):
            continue
        for st in n.body:
            if isinstance(st, ast.Assign) and isinstance(st.value, ast.Constant):
                for t in st.targets:
                    chain = _chain(t) if isinstance(t, ast.Attribute) else []
                    if len(chain) >= 3 and chain[0] == "self":
                        out.append((n, ".".join(chain[:-1]), chain[-1]))
    return out


def _assigned(mods: list[tuple[str, ast.Module]]) -> set[str]:
    out = set()
    for _p, mod in mods:
        for n in ps.nodes(mod):
            targets = n.targets if isinstance(n, ast.Assign) else \
                [n.target] if isinstance(n, (ast.AugAssign, ast.AnnAssign)) else []
            out.update(t.attr for t in targets if isinstance(t, ast.Attribute))
    return out


def _fallback_rule(sub_mods: list[tuple[str, ast.Module]],
                   theirs: dict[str, list[tuple[str, ast.Module]]]) -> list[IgnoredSetting]:
    methods = {}
    for path, mod in sub_mods:
        for name, fn, is_method in _functions(mod):
            if is_method and not name.startswith("__"):
                methods.setdefault(name, (path, fn))
    if not methods:
        return []
    assigned = _assigned(sub_mods)
    # (method, attribute) -> [(sibling, file:line, condition, sub-config set)]
    found: dict[tuple[str, str], list[tuple[str, str, str, str]]] = {}
    for sib, mods in theirs.items():
        for path, mod in mods:
            for name, fn, is_method in _functions(mod):
                if not is_method or name not in methods:
                    continue
                for node, prefix, attr in _fallbacks(fn):
                    found.setdefault((name, attr), []).append(
                        (sib, f"{path}:{node.lineno}", ast.unparse(node.test)[:MAX_TEXT],
                         prefix))
    out = []
    for (name, attr), held in sorted(found.items()):
        if len({h[0] for h in held}) < MIN_SIBLINGS or attr in assigned:
            continue
        path, fn = methods[name]
        # The sub-project's method must reach the sub-config the siblings' fallback sets.
        if not {h[3] for h in held} & _self_prefixes(fn):
            continue
        firsts: dict[str, tuple[str, str]] = {}
        for sib, at, test, _prefix in held:
            firsts.setdefault(sib, (at, test))
        out.append(IgnoredSetting(path, fn.lineno, "fallback", name, (attr,),
                                  next(iter(firsts.values()))[1],
                                  tuple(sorted(at for at, _t in firsts.values()))))
    return out


def analyse(inp: Inputs) -> list[IgnoredSetting]:
    sub = inp.target.subproject.rstrip("/")
    parent, siblings = sibling_folders(inp)
    if not siblings:
        return []
    files = inp.head.files
    sub_mods = _parsed(files, sub + "/")
    if not sub_mods:
        return []
    words = {w for _p, t in own_sources(files, sub + "/") for w in _WORD.findall(t)}
    ours = _our_calls(sub_mods, inp.head.paths)
    methods = {name for _p, mod in sub_mods for name, _f, is_method in _functions(mod)
               if is_method and not name.startswith("__")}
    wanted = tuple(sorted({c.rsplit(".", 1)[-1].rsplit(":", 1)[-1] for c in ours} | methods))
    theirs = {s: _parsed(files, f"{parent}/{s}/", wanted) for s in siblings}
    out = _keyword_rule(ours, words, theirs) + _fallback_rule(sub_mods, theirs)
    return out[:MAX_FINDINGS]
