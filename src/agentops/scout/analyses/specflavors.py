"""Flavors of a registered table that no test case runs (#22 defect 10, untested
configuration): the sub-project hands a module-level table keyed by name to a
registration call (``Spec(name="m", model_args=table)``) and code outside the folder
picks one entry by a configuration field (``spec.model_args[config.model.flavor]``).
A test case runs an entry when its command line selects this model and that key
(``--model.name m --model.flavor k``), or selects the model and leaves the key at the
test configuration's default (``[model] name/flavor`` of a TOML in a test folder), or
runs a config file of the folder that sets the key, or a test indexes the table with
the key. An entry no case runs is trained only from a command line or a config file
nobody runs: it breaks first on a cluster.

The selecting field is read from the code that indexes the registered attribute, not
assumed; the model's name is the registration's ``name=`` constant, else the folder's
name, and the command-line switch for it is ``name`` in the selector's section. Judged
only when some test runs at least one entry of the table (a table no test reaches at
all is the folder's missing test suite, reported elsewhere). A table the folder looks
up itself by a parameter is ``flavors``' form, not judged here.

Pure: the HEAD tree in, ``UnrunFlavor`` records out.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from dataclasses import dataclass

from agentops.scout.analyses import flavors, testowner, tomldoc
from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs


@dataclass(frozen=True)
class UnrunFlavor:
    file: str
    table: str  # the table's name in the folder
    selector: str  # "model.flavor": the configuration field picking an entry
    model: str  # the name a command line selects this folder's model by
    keys: tuple[str, ...]  # the keys no test case runs
    lines: tuple[int, ...]  # each key's line
    configs: tuple[tuple[str, str], ...]  # (key, folder config file setting it) no test runs
    run: int  # how many keys some test case runs


def _registered(mod: ast.Module, tables: set[str]) -> dict[str, tuple[str, str | None]]:
    """Table → (the keyword it is handed over as, the same call's ``name=`` constant)."""
    out: dict[str, tuple[str, str | None]] = {}
    for node in ps.nodes(mod):
        if not isinstance(node, ast.Call):
            continue
        name = next((k.value.value for k in node.keywords if k.arg == "name"
                     and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)),
                    None)
        for kw in node.keywords:
            if kw.arg and isinstance(kw.value, ast.Name) and kw.value.id in tables:
                out.setdefault(kw.value.id, (kw.arg, name))
    return out


def _selector(inp: Inputs, attr: str, sub: str) -> tuple[str, str] | None:
    """(section, field) of ``….<attr>[<….section.field>]`` in code outside the folder,
    the most frequent one."""
    needle = f".{attr}["
    seen: Counter[tuple[str, str]] = Counter()
    for path, text in inp.head.files.items():
        if not path.endswith(".py") or path.startswith(sub) or needle not in text:
            continue
        mod = ps.parse(text)
        for node in ps.nodes(mod) if mod is not None else ():
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
                    and node.value.attr == attr and isinstance(node.slice, ast.Attribute) \
                    and isinstance(node.slice.value, ast.Attribute):
                seen[(node.slice.value.attr, node.slice.attr)] += 1
    return seen.most_common(1)[0][0] if seen else None


def _toml_pair(text: str, section: str, field: str) -> tuple[str | None, str | None]:
    data = tomldoc.parse(text)
    if data is None:
        return None, None
    part = data.get(section)
    if not isinstance(part, dict):
        return None, None
    name, key = part.get("name"), part.get(field)
    return (name if isinstance(name, str) else None, key if isinstance(key, str) else None)


def _commands(inp: Inputs) -> list[str]:
    """One text per command a test or workflow runs: the innermost list of string
    constants of a test file (one command's arguments), a lone argument string, a
    workflow line."""
    out: list[str] = []
    for path, text in inp.head.files.items():
        if path in inp.target.workflows or (path.startswith(".github/workflows/")
                                            and path.endswith((".yml", ".yaml"))):
            out += [ln for ln in text.splitlines() if "--" in ln]
            continue
        if not (path.endswith(".py") and testowner.in_test_folder(path)) or "--" not in text:
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        inside: set[int] = set()
        for node in ps.nodes(mod):
            if isinstance(node, ast.List | ast.Tuple) and node.elts and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
                words = [e.value for e in node.elts]  # type: ignore[attr-defined]
                if any("--" in w for w in words):
                    out.append(" ".join(words))
                    inside.update(id(e) for e in node.elts)
        out += [n.value for n in ps.nodes(mod) if isinstance(n, ast.Constant)
                and isinstance(n.value, str) and "--" in n.value and id(n) not in inside]
    return out


def _runs(inp: Inputs, section: str, field: str) -> tuple[set[tuple[str, str]], set[str]]:
    """(model, key) pairs some test or workflow runs, and the config files they name."""
    defaults = [pair for p, t in inp.head.files.items()
                if p.endswith(".toml") and testowner.in_test_folder(p)
                for pair in [_toml_pair(t, section, field)] if pair[0] and pair[1]]
    configs = {p: _toml_pair(t, section, field) for p, t in inp.head.files.items()
               if p.endswith(".toml") and not testowner.in_test_folder(p)}
    name_rx = re.compile(rf"--{re.escape(section)}\.name[= ]+['\"]?([\w.-]+)")
    key_rx = re.compile(rf"--{re.escape(section)}\.{re.escape(field)}[= ]+['\"]?([\w.-]+)")
    runs: set[tuple[str, str]] = set()
    named: set[str] = set()
    commands = _commands(inp)
    for cmd in commands:
        names = name_rx.findall(cmd)
        keys = key_rx.findall(cmd)
        given = [(n, k) for p, (n, k) in configs.items() if p in cmd]
        bases = given or defaults
        models = [names[-1]] if names else [n for n, _k in bases if n]
        for model in models:
            if keys:
                runs.add((model, keys[-1]))
            else:
                runs |= {(model, k) for _n, k in bases if k}
    # A config file of the repository a test or workflow names is run with its own pair.
    texts = "\n".join(commands) + "\n" + "\n".join(
        t for p, t in inp.head.files.items() if p.endswith(".py") and testowner.in_test_folder(p))
    for path, (n, k) in configs.items():
        if k and path in texts:
            named.add(path)
            if n:
                runs.add((n, k))
    return runs, named


def analyse(inp: Inputs) -> list[UnrunFlavor]:
    sub = inp.target.subproject.rstrip("/") + "/"
    out: list[UnrunFlavor] = []
    runs: dict[tuple[str, str], tuple[set[tuple[str, str]], set[str]]] = {}
    for path in sorted(inp.head.files):
        if not (path.startswith(sub) and path.endswith(".py")) or testowner.in_test_folder(path):
            continue
        text = inp.head.files[path]
        if "{" not in text:
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        tables = flavors._tables(mod)
        looked_up = {t for t, _p, _i in flavors._lookups(mod, tables).values()}
        for table, (attr, name) in sorted(_registered(mod, set(tables) - looked_up).items()):
            sel = _selector(inp, attr, sub)
            if sel is None:
                continue
            if sel not in runs:
                runs[sel] = _runs(inp, *sel)
            pairs, named = runs[sel]
            model = name or sub.rstrip("/").rsplit("/", 1)[-1]
            entries = {k.value: k.lineno for k in tables[table].keys
                       if isinstance(k, ast.Constant) and isinstance(k.value, str)}
            test_text = "\n".join(t for p, t in inp.head.files.items()
                                  if p.endswith(".py") and testowner.in_test_folder(p)
                                  and table in t)
            run = {k for k in entries if (model, k) in pairs or re.search(
                rf"\b{re.escape(table)}\[\s*['\"]{re.escape(k)}['\"]\s*\]", test_text)}
            left = [k for k in entries if k not in run]
            if not run or not left:
                continue
            configs = tuple(sorted(
                (k, p) for p, t in inp.head.files.items()
                if p.startswith(sub) and p.endswith(".toml") and p not in named
                for n, k in [_toml_pair(t, *sel)] if k in left and n in (None, model)))
            out.append(UnrunFlavor(path, table, ".".join(sel), model, tuple(left),
                                   tuple(entries[k] for k in left), configs, len(run)))
    return out
