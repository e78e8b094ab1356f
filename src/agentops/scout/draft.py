"""``scout.py init``: a draft target for a folder, by analysis of the checkout (#22).

What the folder builds on is read from its code, never guessed from its name: the
upstream classes its classes subclass (and the methods they override), the upstream
functions it calls, functions it copies from upstream (same name, similar body), its
private imports and monkey-patches, the tests that import it and the workflows that run
them, its docs. Every entry carries a comment saying why it is there, so a maintainer
can review the draft line by line; ``report`` runs on the draft unedited.

Pure: a loaded tree in, a ``Draft`` (and its YAML text) out.
"""

from __future__ import annotations

import ast
import fnmatch
import json
import posixpath
import re
from collections import Counter
from dataclasses import dataclass, field

import yaml

from agentops import untrusted_yaml
from agentops.scout.analyses import bodydrift, direction, duplicates, testowner
from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.workflows import invocations
from agentops.scout.gitrepo import Tree

MAX_FUNCTIONS = 12  # called upstream functions listed as fragile surfaces
MAX_DOCS = 10
_MD_LINK = re.compile(r"\]\(([^)\s#]{1,200})(?:#[^)\s]*)?\)")
MIN_COPY_STATEMENTS = 4  # a copy shorter than this is a coincidence of names


@dataclass
class Entry:
    """One value of the draft and why it is there."""

    value: object
    why: str


@dataclass
class Draft:
    name: str
    repo: str
    subproject: str
    tests_dir: Entry
    test_glob: Entry | None = None
    watched: list[Entry] = field(default_factory=list)
    classes: list[Entry] = field(default_factory=list)
    functions: list[Entry] = field(default_factory=list)
    patches: list[Entry] = field(default_factory=list)
    subclasses: list[Entry] = field(default_factory=list)
    private_roots: list[Entry] = field(default_factory=list)
    duplicates: list[Entry] = field(default_factory=list)
    workflows: list[Entry] = field(default_factory=list)
    docs: list[Entry] = field(default_factory=list)
    doc_roots: list[Entry] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Import:
    file: str  # sub-project file
    line: int
    local: str
    module: str
    name: str
    target: str  # repository file the import resolves to ("" outside the repository)


def _py(tree: Tree, prefix: str) -> dict[str, ast.Module]:
    out = {}
    for path, text in sorted(tree.files.items()):
        if path.startswith(prefix) and path.endswith(".py"):
            mod = ps.parse(text)
            if mod is not None:
                out[path] = mod
    return out


def _resolve(tree: Tree, module: str, name: str) -> str:
    for cand in ((f"{module}.{name}" if name else ""), module):
        if cand:
            found = ps.module_path(cand, tree.paths)
            if found:
                return found
    return ""


def _imports(tree: Tree, mods: dict[str, ast.Module], sub: str) -> list[_Import]:
    out = []
    for path, mod in mods.items():
        lines: dict[tuple[str, str], int] = {}
        for u in ps.import_uses(mod):
            lines.setdefault((u.module, u.name), u.line)
        for local, (module, name) in ps.imports(mod).items():
            target = _resolve(tree, module, name)
            if target.startswith(sub):
                target = ""
            line = lines.get((module, name), lines.get((module, ""), 1))
            out.append(_Import(path, line, local, module, name, target))
    return out


def _class_in(tree: Tree, path: str, dotted: str) -> tuple[str, ast.ClassDef] | None:
    """``dotted`` (``Trainer`` or ``Trainer.Config``) defined in ``path``, or in a module
    of the package ``path`` is the ``__init__`` of."""
    cands = [path]
    if path.endswith("/__init__.py"):
        folder = path[:-len("__init__.py")]
        head = dotted.split(".", maxsplit=1)[0]
        cands += sorted(p for p in tree.files if p.startswith(folder) and p.endswith(".py")
                        and p.count("/") == folder.count("/")
                        and f"class {head}" in tree.files[p])
    for cand in cands:
        node = ps.find(ps.parse(tree.text(cand) or ""), dotted)
        if isinstance(node, ast.ClassDef):
            return cand, node
    return None


def _methods(cls: ast.ClassDef) -> dict[str, ps.FuncDef]:
    return {n.name: n for n in cls.body if isinstance(n, ps.FuncDef.__args__)}


def _git_repo_name(remote: str) -> str:
    m = re.search(r"github\.com[:/]+([\w.-]+)/([\w.-]+?)(?:\.git)?/?$", remote)
    return f"{m.group(1)}/{m.group(2)}" if m else ""


def build(tree: Tree, subproject: str, *, repo: str) -> Draft:
    """The draft target for ``subproject`` at ``tree``."""
    sub = subproject.strip("/") + "/"
    dotted = sub.rstrip("/").replace("/", ".")
    mods = _py(tree, sub)
    imports = _imports(tree, mods, sub)
    folder = sub.rstrip("/").rsplit("/", 1)[-1]
    repo_name = repo.rsplit("/", 1)[-1]
    name = re.sub(r"[^a-z0-9]+", "-", f"{repo_name}-{folder}".lower()).strip("-")
    draft = Draft(name=name, repo=repo, subproject=sub.rstrip("/"),
                  tests_dir=Entry(sub + "tests", ""))
    watched: dict[str, list[str]] = {}
    by_local: dict[tuple[str, str], _Import] = {(i.file, i.local): i for i in imports}
    for imp in imports:
        # What the tests import is the test harness, not what the folder builds on.
        if imp.target and "/tests/" not in imp.file and "/test_" not in imp.file:
            watched.setdefault(imp.target, []).append(f"{imp.file}:{imp.line}")
    _classes(draft, tree, mods, by_local)
    _functions(draft, tree, mods, by_local)
    _patches(draft, mods, by_local)
    _private(draft, imports, dotted)
    _duplicates(draft, tree, mods, sub, {i.target for i in imports if i.target})
    _tests(draft, tree, sub, dotted)
    _workflows(draft, tree, sub, dotted)
    _docs(draft, tree, sub)
    draft.watched = _watched(watched, draft)
    return draft


def _classes(draft: Draft, tree: Tree, mods: dict[str, ast.Module],
             by_local: dict[tuple[str, str], _Import]) -> None:
    seen_cls: set[str] = set()
    seen_fn: set[str] = set()
    for path, mod in mods.items():
        for cls in (n for n in ps.statements(mod) if isinstance(n, ast.ClassDef)):
            for base in cls.bases:
                text = ast.unparse(base).split("[")[0]
                head, _, rest = text.partition(".")
                imp = by_local.get((path, head))
                if imp is None or not imp.target:
                    continue
                dotted_name = ".".join(p for p in (imp.name or "", rest) if p) or head
                found = _class_in(tree, imp.target, dotted_name)
                if found is None:
                    continue
                up_file, up_cls = found
                theirs = _methods(up_cls)
                overridden = [m for m in _methods(cls) if m in theirs]
                where = f"{path}:{cls.lineno}"
                if dotted_name not in seen_cls:
                    seen_cls.add(dotted_name)
                    extra = f"; overrides {', '.join(overridden[:6])}" if overridden else ""
                    draft.classes.append(Entry(
                        {"name": dotted_name, "file": up_file},
                        f"subclassed by {cls.name} at {where}{extra}"))
                if ps.class_fields(up_cls) and ps.class_fields(cls) and _dataclass(up_cls):
                    draft.subclasses.append(Entry(
                        {"base": {"name": dotted_name, "file": up_file},
                         "subclass": {"name": _qual(mod, cls), "file": path}},
                        f"{cls.name} extends the fields of {dotted_name}"))
                for m in overridden:
                    key = f"{dotted_name}.{m}"
                    if key in seen_fn or (m.startswith("__") and m != "__init__"):
                        continue
                    seen_fn.add(key)
                    draft.functions.append(Entry(
                            {"name": key, "file": up_file},
                            f"overridden by {cls.name}.{m} at "
                            f"{path}:{_methods(cls)[m].lineno}"))


def _dataclass(cls: ast.ClassDef) -> bool:
    return any("dataclass" in ast.unparse(d) for d in cls.decorator_list)


def _qual(mod: ast.Module, cls: ast.ClassDef) -> str:
    for node in mod.body:
        if node is cls:
            return cls.name
        if isinstance(node, ast.ClassDef) and cls in node.body:
            return f"{node.name}.{cls.name}"
    return cls.name


def _functions(draft: Draft, tree: Tree, mods: dict[str, ast.Module],
               by_local: dict[tuple[str, str], _Import]) -> None:
    """Upstream functions the sub-project imports by name and calls, most called first."""
    calls: dict[tuple[str, str], list[str]] = {}
    for path, mod in mods.items():
        for node in ps.walk(mod):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and "/tests/" not in path:
                imp = by_local.get((path, node.func.id))
                if imp is None or not imp.target or not imp.name or not isinstance(
                        ps.find(ps.parse(tree.text(imp.target) or ""), imp.name),
                        ps.FuncDef.__args__):
                    continue  # a class: its __init__ is checked where it is constructed
                calls.setdefault((imp.name, imp.target), []).append(f"{path}:{node.lineno}")
    ranked = sorted(calls.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    known = {e.value["name"] for e in draft.functions}  # type: ignore[index]
    for (name, target), sites in ranked:
        if len(draft.functions) >= MAX_FUNCTIONS + len(known) or name in known:
            continue
        draft.functions.append(Entry({"name": name, "file": target},
                                     f"called at {sites[0]}"
                                     + (f" and {len(sites) - 1} more" if len(sites) > 1
                                        else "")))


def _patches(draft: Draft, mods: dict[str, ast.Module],
             by_local: dict[tuple[str, str], _Import]) -> None:
    for path, mod in mods.items():
        for site in ps.patch_sites(mod):
            imp = by_local.get((path, site.owner))
            if imp is None or not imp.target:
                continue
            draft.patches.append(Entry({"name": f"{imp.name}.{site.attr}", "file": imp.target},
                                       f"replaced at {path}:{site.line}"))


def _private(draft: Draft, imports: list[_Import], dotted: str) -> None:
    roots: dict[str, list[str]] = {}
    for imp in imports:
        if imp.module.startswith(dotted) or imp.module == "__future__":
            continue
        parts = [*imp.module.split("."), imp.name]
        if any(p.startswith("_") and not p.startswith("__") for p in parts if p):
            roots.setdefault(imp.module.split(".")[0], []).append(
                f"{imp.module}{'.' + imp.name if imp.name else ''} at {imp.file}:{imp.line}")
    for root, uses in sorted(roots.items()):
        draft.private_roots.append(Entry(root, f"{len(uses)} private import(s), e.g. "
                                               f"{uses[0]}"))


def _duplicates(draft: Draft, tree: Tree, mods: dict[str, ast.Module], sub: str,
                imported: set[str]) -> None:
    """Functions the sub-project copies from upstream: the same name defined outside the
    folder, with at least half of upstream's statements repeated; per function the best
    match, a file the folder imports first, never a folder beside it (a fellow copy)."""
    parent = sub.rstrip("/").rsplit("/", 1)[0] + "/" if "/" in sub.rstrip("/") else ""
    siblings = tuple(f"{parent}{p[len(parent):].split('/', 1)[0]}/" for p in tree.paths
                     if parent and p.startswith(parent) and not p.startswith(sub)
                     and p.count("/") > parent.count("/")) or ("\0",)
    index: dict[str, list[str]] = {}
    def_re = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)", re.M)
    for path, text in tree.files.items():
        if path.endswith(".py") and not path.startswith(sub) and "/test" not in path:
            for m in def_re.finditer(text):
                index.setdefault(m.group(1), []).append(path)
    pairs: dict[tuple[str, str], list[str]] = {}
    defs: dict[str, dict[str, ps.FuncDef]] = {}  # upstream file -> its functions, parsed once
    downstream: dict[str, str] = {}  # folder -> an import of ours in it ("" none)
    for path, mod in mods.items():
        if "/tests/" in path:
            continue
        for fn in (n for n in ps.statements(mod) if isinstance(n, ps.FuncDef.__args__)):
            if fn.name.startswith("__") or len(bodydrift._lines(fn)) < MIN_COPY_STATEMENTS:
                continue
            if duplicates.calls_super(fn):
                continue
            found: list[tuple[bool, float, str]] = []
            for up in sorted(set(index.get(fn.name, ())))[:20]:
                if up.startswith(siblings):
                    continue  # another folder beside this one: a fellow copy, not core
                if direction.built_on(tree.files, up, sub, downstream):
                    continue  # code built on the folder: a copy of ours, not its source
                if up not in defs:
                    defs[up] = {}
                    for n in ps.statements(ps.parse(tree.text(up) or "") or ast.Module([], [])):
                        if isinstance(n, ps.FuncDef.__args__):
                            defs[up].setdefault(n.name, n)
                theirs = defs[up].get(fn.name)
                if theirs is None or len(bodydrift._lines(theirs)) < MIN_COPY_STATEMENTS:
                    continue
                score = bodydrift.similarity(theirs, fn)
                if score >= bodydrift.MIN_SIMILAR:
                    found.append((up in imported, score, up))
            if found:
                _in, score, up = max(found)
                pairs.setdefault((path, up), []).append(f"{fn.name} ({score:.0%})")
    for (ours, up), fns in sorted(pairs.items()):
        draft.duplicates.append(Entry({"ours": [ours], "upstream": [up],
                                       "why": f"copies {', '.join(fns[:4])}"},
                                      f"{', '.join(fns[:4])} repeat most of upstream's "
                                      "statements (share shown)"))


def _tests(draft: Draft, tree: Tree, sub: str, dotted: str) -> None:
    own = sub + "tests"
    if any(p.startswith(own + "/") for p in tree.paths):
        draft.tests_dir = Entry(own, "the folder's own tests")
        return
    inside = sorted(p for p in tree.paths if p.startswith(sub)
                    and re.fullmatch(r"test_.*\.py", p.rsplit("/", 1)[-1]))
    if inside:
        draft.tests_dir = Entry(sub.rstrip("/"), f"{len(inside)} test file(s) in the folder")
        return
    # Tests that live in a shared folder: those that import the folder's package. A test
    # under another sub-project's folder that imports it is that sub-project's test (its
    # workflows are that sub-project's CI), never this folder's (``testowner``).
    importing = sorted(p for p, t in tree.files.items()
                       if re.fullmatch(r"test_.*\.py", p.rsplit("/", 1)[-1])
                       and not p.startswith(sub) and dotted in t)
    foreign = [p for p in importing if testowner.relation(p, sub) == testowner.FOREIGN]
    if foreign:
        owners = sorted({testowner.owner_of(p) for p in foreign})
        draft.notes.append(f"tests of {', '.join(owners)} import it ({foreign[0]}"
                           + (f" and {len(foreign) - 1} more" if len(foreign) > 1 else "")
                           + "): that sub-project's tests and CI, not this folder's")
        importing = [p for p in importing if p not in foreign]
    if not importing:
        draft.tests_dir = Entry(own, "no test imports the folder (nothing to check: the "
                                     "report says no test file is found)")
        draft.notes.append(f"no test file imports {dotted}" if not foreign else
                           f"no test file of its own or of a shared tests folder imports "
                           f"{dotted}")
        return
    common = posixpath.commonpath([p.rsplit("/", 1)[0] for p in importing])
    if not common:
        # Importers in unrelated trees (core's tests/ and another experiment's tests/):
        # the target takes one tests_dir, so keep the folder holding most of them.
        by_dir = Counter(p.rsplit("/", 1)[0] for p in importing)
        common = max(by_dir, key=lambda d: (by_dir[d], -len(d)))
        kept = [p for p in importing if p.rsplit("/", 1)[0] == common]
        draft.notes.append(f"{len(importing) - len(kept)} more test file(s) outside "
                           f"{common} import {dotted}; the report does not check them")
        importing = kept
    names = [p.rsplit("/", 1)[-1].removesuffix(".py") for p in importing]
    prefix = _common_prefix(names)
    draft.tests_dir = Entry(common, f"shared tests folder: {len(importing)} test file(s) "
                                    f"import {dotted} (e.g. {importing[0]})")
    if len(prefix) > len("test_"):
        draft.test_glob = Entry(prefix + "*.py", "the shared folder's files about this "
                                                 "folder share this prefix")


def _common_prefix(names: list[str]) -> str:
    out = names[0] if names else ""
    for n in names[1:]:
        while not n.startswith(out):
            out = out[:-1]
    return out


def _runs_own_tests(tree: Tree, target: str, sub: str, tests: str, glob: str) -> bool:
    """Whether a workflow target selects the folder's own tests (``testowner``): one in
    the folder; in a shared tree, the tests folder, a folder holding it or inside it,
    or one of its files the glob names. Never a target under another sub-project's
    folder."""
    t = testowner.module_path(target).rstrip("/")
    if not t:
        return False
    is_dir = any(p.startswith(t + "/") for p in tree.paths)
    rel = testowner.relation(t, sub, is_dir=is_dir)
    if rel != testowner.SHARED:
        return rel == testowner.OWN
    if is_dir:
        return t == tests or tests.startswith(t + "/") or t.startswith(tests + "/")
    name = t.rsplit("/", 1)[-1]
    return t.startswith(tests + "/") and (fnmatch.fnmatch(name, glob)
                                          or fnmatch.fnmatch(name + ".py", glob))


def _workflows(draft: Draft, tree: Tree, sub: str, dotted: str) -> None:
    tests = str(draft.tests_dir.value).rstrip("/")
    glob = str(draft.test_glob.value) if draft.test_glob else "test_*.py"
    wfs = sorted(p for p in tree.files if p.startswith(".github/workflows/")
                 and p.endswith((".yml", ".yaml")))
    pytest_any: list[tuple[int, str]] = []
    for wf in wfs:
        text = tree.files[wf]
        try:
            doc = untrusted_yaml.load(text)
        except (untrusted_yaml.UnsafeYAML, yaml.YAMLError):
            continue
        invs = invocations(wf, doc, text)
        reason = ""
        for inv in invs:
            for target in inv.targets:
                if _runs_own_tests(tree, target, sub, tests, glob):
                    reason = f"runs `{inv.command[:70]}` (line {inv.line})"
                    break
            if reason:
                break
        if reason:
            draft.workflows.append(Entry(wf, reason))
        else:
            # (Not a step of another sub-project: it cannot run this folder's tests.)
            widths = [len(t.split("::")[0]) for i in invs if i.kind == "pytest"
                      for t in (i.targets or ("",))
                      if testowner.relation(testowner.module_path(t), sub)
                      != testowner.FOREIGN]
            if widths:
                pytest_any.append((min(widths), wf))
    if not draft.workflows and pytest_any:
        # Every pytest workflow would bring other folders' CI problems into this
        # report; the broadest one (the repository's own unit tests) is enough for the
        # report to say the folder's tests run nowhere.
        _width, wf = min(pytest_any)
        draft.workflows.append(Entry(wf, "no workflow names the folder or its tests; this "
                                         "one runs the broadest pytest selection"))
        draft.notes.append("no workflow runs the folder's tests")
    if not draft.workflows:
        fallback = wfs[0] if wfs else ".github/workflows/ci.yml"
        draft.workflows.append(Entry(fallback, "no workflow runs Python tests: review"))
        draft.notes.append("no workflow runs the folder's tests")


def _docs(draft: Draft, tree: Tree, sub: str) -> None:
    docs = sorted(p for p in tree.paths if p.startswith(sub) and p.endswith(".md"))
    for d in docs[:MAX_DOCS]:
        draft.docs.append(Entry(d, "documentation in the folder"))
    # A guide one folder up that links this folder (“refer to the [X folder](x) as an
    # example”) makes claims about it: checked with the folder's own docs.
    parent = posixpath.dirname(sub.rstrip("/"))
    for p in sorted(tree.paths):
        if not (p.endswith(".md") and parent and posixpath.dirname(p) == parent):
            continue
        for target in _MD_LINK.findall(tree.text(p) or ""):
            where = target.strip("/") if target.startswith("/") else posixpath.normpath(
                posixpath.join(parent, target))
            if where == sub.rstrip("/"):
                draft.docs.append(Entry(p, f"a guide in the parent folder that links this "
                                           f"folder ({target}); its claims about it count"))
                break
    if not docs:
        return
    best: tuple[int, dict, str] | None = None
    for s in draft.subclasses:
        base = s.value["base"]  # type: ignore[index]
        node = ps.find(ps.parse(tree.text(base["file"]) or ""), base["name"])
        n = len(ps.class_fields(node)) if isinstance(node, ast.ClassDef) else 0
        if best is None or n > best[0]:
            best = (n, dict(s.value["subclass"]), base["name"])  # type: ignore[index]
    if best is not None:
        draft.doc_roots.append(Entry(best[1], f"the folder's config class with the most "
                                              f"fields (extends {best[2]}, {best[0]} "
                                              "fields): flags in the docs resolve through it"))


def _watched(files: dict[str, list[str]], draft: Draft) -> list[Entry]:
    """Upstream files the folder imports; a folder when it imports three or more of
    its files."""
    by_dir: dict[str, list[str]] = {}
    for f in files:
        by_dir.setdefault(f.rsplit("/", 1)[0] if "/" in f else "", []).append(f)
    out: list[Entry] = []
    folders = sorted(d + "/" for d, m in by_dir.items() if d and len(m) >= 3)
    for folder, members in sorted(by_dir.items()):
        if any((folder + "/").startswith(f) and folder + "/" != f for f in folders):
            continue  # inside a folder already watched
        if folder + "/" in folders:
            out.append(Entry(folder + "/", f"{len(members)} of its modules are imported"))
        else:
            for f in sorted(members):
                out.append(Entry(f, f"imported at {files[f][0]}"))
    if not out:
        out.append(Entry(draft.subproject + "/", "it imports nothing else from the "
                                                  "repository: review"))
    return out


def _q(value: object) -> str:
    """A YAML flow value (JSON is YAML)."""
    return json.dumps(value, ensure_ascii=False)


def _comment(text: str) -> str:
    return "# " + re.sub(r"\s+", " ", text)[:200]


def to_yaml(draft: Draft) -> str:
    """The draft as a commented target file."""
    out = ["# Draft scout target written by `scout.py init` from the code at HEAD.",
           "# Every entry says why it is here; review, then run `scout.py report`.", ""]
    for note in draft.notes:
        out.append(_comment(f"NOTE: {note}"))
    out += [f"name: {_q(draft.name)}",
            f"description: {_q(f'{draft.subproject} (drafted by scout.py init)')}",
            f"repo: {_q(draft.repo)}", f"subproject: {_q(draft.subproject)}",
            _comment(draft.tests_dir.why) if draft.tests_dir.why else "",
            f"tests_dir: {_q(draft.tests_dir.value)}"]
    if draft.test_glob:
        out += [_comment(draft.test_glob.why), f"test_glob: {_q(draft.test_glob.value)}"]

    def block(key: str, entries: list[Entry], indent: str = "") -> None:
        if not entries:
            return
        out.append(f"{indent}{key}:")
        for e in entries:
            out.append(f"{indent}  {_comment(e.why)}")
            out.append(f"{indent}  - {_q(e.value)}")

    block("watched_paths", draft.watched)
    if draft.classes or draft.functions or draft.patches:
        out.append("fragile_surfaces:")
        block("classes", draft.classes, "  ")
        block("functions", draft.functions, "  ")
        out.append("  # find every assignment replacing a method of an imported class")
        out.append("  discover_monkey_patches: true")
        if any(p.startswith(draft.subproject + "/tests") or "/tests/" in p
               for p in [str(draft.tests_dir.value)]):
            out.append(f"  monkey_patch_exclude: [{_q(str(draft.tests_dir.value) + '/')}]")
        block("monkey_patches", draft.patches, "  ")
    if draft.subclasses:
        out.append("config_drift:")
        block("subclasses", draft.subclasses, "  ")
    if draft.private_roots:
        out.append("private_api:")
        block("private_import_roots", draft.private_roots, "  ")
    block("duplicate_logic", draft.duplicates)
    block("workflows", draft.workflows)
    block("docs", draft.docs)
    block("doc_config_roots", draft.doc_roots)
    return "\n".join(line for line in out if line != "") + "\n"
