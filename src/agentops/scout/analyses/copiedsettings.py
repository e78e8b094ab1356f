"""Settings a copied function never reads (#22 defect 4, copies that lag; S-4): a
module-level function of the sub-project's library code that has the name of a
module-level function of a repository module outside the folder that the same file imports
from (the original it was copied from: ``parallelize_llama`` beside ``from
core.parallelize import apply_tp``), and that does not call that original (a wrapper runs
its code), is compared with it setting by setting. A setting is a read of a config
parameter (annotated with a ``*Config`` class) down to a field: ``job_config.parallelism.
fsdp_reshard_after_forward`` or ``parallelism.fsdp_reshard_after_forward`` alike, keyed by
its last two names. One the original reads that the copy never reads is ignored by the
copy: a run setting it gets the original's behaviour nowhere and no warning.

Not judged: a setting whose field name the folder's library code reads anywhere (the copy
may honour it elsewhere), and one whose section, or whose whole config, the copy hands to a
call the original does not hand the same to (that callee may read it). Reads that stop at
a section (``job_config.training`` handed on, where the same parameter is read three
names deep elsewhere, or a chain the function reads further) are sections, not settings.
Only pairs where the copy reads at least one setting of its own (a copy of the configured
code, not an unrelated function of the same name).

Pure: the HEAD tree in, ``CopiedSettings`` records out.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs


@dataclass(frozen=True)
class CopiedSettings:
    file: str  # the copy's module
    line: int  # the copy's ``def``
    function: str
    original: str  # the original's module file
    original_line: int
    import_line: int  # where the copy's file imports from the original's module
    # (setting, the original's line reading it), sorted by setting
    missing: tuple[tuple[str, int], ...]


def _config_params(func: ps.FuncDef) -> set[str]:
    """Parameters annotated with a config class (``JobConfig``, ``X.Config``,
    ``ParallelismConfig | None``)."""
    out = set()
    for p in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs):
        if p.annotation is None:
            continue
        for n in ps.walk(p.annotation):
            name = n.id if isinstance(n, ast.Name) else (
                n.attr if isinstance(n, ast.Attribute) else "")
            if name.endswith("Config"):
                out.add(p.arg)
                break
    return out


def _chain(node: ast.Attribute, params: set[str]) -> tuple[str, ...] | None:
    """``p.a.b`` -> (p, a, b) when rooted at one of ``params``."""
    parts = ps.name_chain(node)
    return tuple(parts) if parts and parts[0] in params else None


@dataclass(frozen=True)
class _Reads:
    settings: dict[str, int]  # "section.field" -> first line
    # (callee, handed chain's last name) for each section or whole config handed to a call
    handed: frozenset[tuple[str, str]]


def _reads(func: ps.FuncDef) -> _Reads:
    params = _config_params(func)
    chains: dict[tuple[str, ...], int] = {}
    parents: dict[int, ast.AST] = {}
    for node in ps.walk(func):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    handed: set[tuple[str, str]] = set()
    for node in ps.walk(func):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and not \
                isinstance(parents.get(id(node)), ast.Attribute):
            chain = _chain(node, params)
            if chain is not None:
                chains.setdefault(chain, node.lineno)
        if isinstance(node, ast.Call):
            callee = ast.unparse(node.func)
            for arg in (*node.args, *(k.value for k in node.keywords)):
                if isinstance(arg, ast.Name) and arg.id in params:
                    handed.add((callee, arg.id))
                elif isinstance(arg, ast.Attribute) and (c := _chain(arg, params)):
                    handed.add((callee, c[-1]))
    # A chain another chain extends is a section, not a setting; so is a two-name chain
    # of a parameter read three names deep elsewhere (a whole config's section).
    sections = {c[:i] for c in chains for i in range(1, len(c))}
    depth: dict[str, int] = {}
    for c in chains:
        depth[c[0]] = max(depth.get(c[0], 0), len(c))
    settings: dict[str, int] = {}
    for chain, line in sorted(chains.items(), key=lambda kv: kv[1]):
        if chain in sections or len(chain) < 2 or (len(chain) == 2 and depth[chain[0]] > 2):
            sections.add(chain)
            continue
        settings.setdefault(".".join(chain[-2:]), line)
    handed = {(callee, name) for callee, name in handed
              if name in params or any(c[-1] == name for c in sections)}
    return _Reads(settings, frozenset(handed))


def _functions(module: ast.Module) -> dict[str, ps.FuncDef]:
    return {n.name: n for n in module.body if isinstance(n, ps.FuncDef.__args__)}


def _calls_names(func: ps.FuncDef) -> set[str]:
    return {n.func.id for n in ps.walk(func)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def _folder_attributes(inp: Inputs, sub: str) -> set[str]:
    """Every attribute name the folder's library code reads."""
    out: set[str] = set()
    for path in inp.head.files:
        if path.endswith(".py") and path.startswith(sub) and not inp.target.is_test(path):
            tree = ps.parse(inp.head.text(path) or "")
            if tree is not None:
                out |= {n.attr for n in ps.walk(tree) if isinstance(n, ast.Attribute)
                        and isinstance(n.ctx, ast.Load)}
    return out


def analyse(inp: Inputs) -> list[CopiedSettings]:
    sub = inp.target.subproject.rstrip("/") + "/"
    out: list[CopiedSettings] = []
    read_here: set[str] | None = None
    for path in sorted(inp.head.files):
        if not path.endswith(".py") or not path.startswith(sub) or inp.target.is_test(path):
            continue
        tree = ps.parse(inp.head.text(path) or "")
        if tree is None:
            continue
        own = {name: f for name, f in _functions(tree).items() if _config_params(f)}
        if not own:
            continue
        # The modules outside the folder this file imports from, with the first line.
        sources: dict[str, int] = {}
        aliases: dict[tuple[str, str], set[str]] = {}
        for local, (module, name, line) in ps.from_imports(path, tree).items():
            target = ps.module_path(module, inp.head.paths)
            if target is None or target.startswith(sub):
                continue
            sources[target] = min(line, sources.get(target, line))
            aliases.setdefault((target, name), set()).add(local)
        for target, import_line in sorted(sources.items()):
            theirs_tree = ps.parse(inp.head.text(target) or "")
            if theirs_tree is None:
                continue
            theirs_all = _functions(theirs_tree)
            for name, mine in sorted(own.items()):
                theirs = theirs_all.get(name)
                if theirs is None or _calls_names(mine) & aliases.get((target, name), set()):
                    continue
                ours_r, theirs_r = _reads(mine), _reads(theirs)
                if not ours_r.settings:
                    continue
                extra = ours_r.handed - theirs_r.handed
                covered = {h for _c, h in extra}
                if read_here is None:
                    read_here = _folder_attributes(inp, sub)
                missing = []
                for setting, line in sorted(theirs_r.settings.items()):
                    section, field = setting.split(".")
                    if setting in ours_r.settings or field in read_here:
                        continue
                    if section in covered or covered & _config_params(mine):
                        continue
                    missing.append((setting, line))
                if missing:
                    out.append(CopiedSettings(path, mine.lineno, name, target,
                                              theirs.lineno, import_line, tuple(missing)))
    return out
