"""S-5 docs freshness: file paths, test commands and CLI flags in the configured docs
that no longer exist or parse. A ``--section.field`` flag is resolved through the
configured config classes (``GraphTrainer.Config`` → ``compile`` →
``GraphTrainerCompileConfig`` → fields, bases, subclasses); ``Literal`` values are
checked too. Anything that cannot be resolved statically is left alone rather than
guessed at.

Pure: reads the loaded tree; returns frozen records.
"""

from __future__ import annotations

import ast
import difflib
import posixpath
import re
import shlex
from dataclasses import dataclass
from typing import Any

from agentops.scout.analyses import (
    ci,
    classindex,
    docclaims,
    docfeatures,
    doclaunch,
    doclists,
    docnames,
    doctested,
    doctodotests,
    fielddocs,
    testsel,
)
from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.classindex import ClassIndex
from agentops.scout.gitrepo import python_over_cap
from agentops.scout.model import Inputs

_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_PATHLIKE = re.compile(r"^[\w.{}<>*~-]*[/\w.-]*[\w-]+(\.(py|md|sh|ya?ml|toml|json|txt|cfg))"
                       r"(::[\w:\[\]-]+)?$|^[\w.-]+(/[\w.-]+)+/?$")
_FLAG = re.compile(r"(?<![\w-])(--[A-Za-z][\w-]*(?:\.[A-Za-z][\w-]*)*)"
                   r"(?:(=|[= ]+)([^\s\\`-][^\s\\`]*))?")


@dataclass(frozen=True)
class DocProblem:
    file: str
    line: int
    problem: str
    # reference | attribute | count | table | undocumented | absent | command | anchor
    kind: str = "reference"


_BOOL_WORDS = {"true", "false", "1", "0", "yes", "no", "on", "off"}


def _literal_values(field: ast.AnnAssign, index: ClassIndex | None = None
                    ) -> list[object] | None:
    """The values of a field's ``Literal``, also through a module-level alias
    (``Mode = Literal["a", "b"]``; ``mode: Mode``)."""
    nodes = list(ast.walk(field.annotation))
    if index is not None:
        nodes += [n for name in nodes if isinstance(name, ast.Name)
                  and (alias := index.alias(name.id)) is not None for n in ast.walk(alias)]
    for node in nodes:
        if isinstance(node, ast.Subscript) and ast.unparse(node.value).endswith("Literal"):
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return [e.value for e in elts if isinstance(e, ast.Constant)]
    return None


def _enum_members(field: ast.AnnAssign, index: ClassIndex
                  ) -> tuple[list[str], list[str]] | None:
    """(member names, string values) of the ``Enum`` a field's annotation names;
    None when the annotation names no enum the checkout defines."""
    classes = index.types_of(field) or []
    enums = [c for c in classes if any(re.search(r"(^|\.)(Str|Int)?Enum$",
                                                 ast.unparse(b)) for b in c.bases)]
    if not enums or len(enums) != len(classes):
        return None
    names: list[str] = []
    values: list[str] = []
    for cls in enums:
        for node in cls.body:
            if isinstance(node, ast.Assign):
                names += [t.id for t in node.targets if isinstance(t, ast.Name)]
                if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                    values.append(node.value.value)
    return (names, values) if names else None


def value_problem(field: ast.AnnAssign, value: str, index: ClassIndex, *,
                  explicit: bool) -> str | None:
    """Why ``value`` cannot be given to this field: not one of its ``Literal``
    values, not a member of its ``Enum``, or (given with ``=``) not a boolean for a
    ``bool`` field. ``explicit``: the value was attached with ``=`` (a word after a
    bare boolean flag is the next argument, not its value)."""
    if value.startswith(("-", "$", "<", "{")) or not value:
        return None
    allowed = _literal_values(field, index)
    if allowed:
        shown = [str(a) for a in allowed if a is not None]
        if value not in shown and not (value == "None" and None in allowed):
            return f"not one of {', '.join(repr(a) for a in shown)}; use one of them"
        return None
    members = _enum_members(field, index)
    if members:
        names, values = members
        if value not in names and value not in values and value.upper() not in names:
            return f"not a member of the enum; use one of {', '.join(names[:8])}"
        return None
    ann = ast.unparse(field.annotation).replace(" ", "")
    if explicit and ann in ("bool", "bool|None", "Optional[bool]") \
            and value.lower() not in _BOOL_WORDS:
        return "not a boolean (the field is a bool)"
    return None


def flag_verdict(flag: str, value: str | None, index: ClassIndex, roots: list[str], *,
                 explicit: bool = True) -> tuple[str | None, str | None]:
    """(problem, why not checked) for ``--a.b``: at most one is set; both None when
    the flag names a settable field and its value fits."""
    parts = flag[2:].split(".")
    parts[-1] = re.sub(r"^no[-_]", "", parts[-1])
    classes = [c for r in roots for c in index.resolve(r)]
    if not classes:
        return None, ("no doc_config_roots configured" if not roots else
                      f"config class {', '.join(roots)} not in the checkout")
    for i, part in enumerate(parts):
        fields = index.fields(classes)
        where = ".".join(parts[:i]) or "the config"
        if fields is None:
            return None, f"a base class of {where} is not in the checkout"
        name = part.replace("-", "_")
        prefix = "--" + ".".join(parts[:i]) + ("." if i else "")
        if name not in fields and part not in fields:
            why = docclaims.not_settable(classes, name, index)
            if why:
                return (f"flag {flag}: {where}.{name} is {why}, not a settable field; "
                        + docclaims.settable_fix(classes, name, index, prefix)), None
            # A removed field (expert_tensor_parallel_degree) is no typo of a kept one
            # whose words it merely extends (tensor_parallel_degree).
            close = [c for c in difflib.get_close_matches(name, list(fields), n=3,
                                                          cutoff=0.85)
                     if not set(c.split("_")) < set(name.split("_"))][:1]
            hint = f"; use {prefix}{close[0]}" if close else ""
            if not close and i == len(parts) - 1:
                moved = [p for p, _f in docclaims.reachable_fields(index, roots, 3)
                         if p.rsplit(".", 1)[-1] == name]
                hint = (f"; the field is --{moved[0]}" if len(moved) == 1 else
                        "; no config field has that name: drop the flag" if not moved
                        else "")
            return f"flag {flag}: {where} has no field {part!r}{hint}", None
        why = docclaims.not_settable(classes, name, index)
        if why:
            return (f"flag {flag}: {where}.{name} is {why}, not a settable field; "
                    + docclaims.settable_fix(classes, name, index, prefix)), None
        field = fields.get(name) or fields[part]
        if i == len(parts) - 1:
            bad = value_problem(field, value, index, explicit=explicit) \
                if value is not None else None
            return (f"flag {flag} {value}: {bad}" if bad else None), None
        nxt = index.types_of(field)
        if nxt is None:
            return None, (f"the type of {'.'.join(parts[:i + 1])} "
                          f"({ast.unparse(field.annotation)}) is not in the checkout")
        classes = nxt
    return None, None


def flag_field(flag: str, index: ClassIndex, roots: list[str]) -> ast.AnnAssign | None:
    """The config field ``--a.b`` sets, or None when it cannot be resolved."""
    parts = flag[2:].split(".")
    classes = [c for r in roots for c in index.resolve(r)]
    field = None
    for i, part in enumerate(parts):
        fields = index.fields(classes) if classes else None
        if not fields:
            return None
        field = fields.get(part.replace("-", "_")) or fields.get(part)
        if field is None:
            return None
        if i < len(parts) - 1:
            classes = index.types_of(field) or []
    return field


def list_flags(inp: Inputs) -> set[str]:
    """Flags the sub-project's integration tests pass whose config field holds a list
    (``--compile.passes a,b``): they select features, one value each."""
    roots = [s["name"] for s in inp.target.raw.get("doc_config_roots", [])]
    if not roots:
        return set()
    index = classindex.for_tree(inp.head)
    out: set[str] = set()
    for path in inp.target.section("coverage").get("subproject_integration_tests", []):
        for flag in set(re.findall(r"[\"'](--[\w.]+\.[\w.]+)", inp.head.text(path) or "")):
            field = flag_field(flag, index, roots)
            if field is not None and re.match(r"^(list|tuple|set|Sequence)\[",
                                              ast.unparse(field.annotation)):
                out.add(flag)
    return out


def misplaced_flag(flag: str, inp: Inputs, index: ClassIndex, roots: list[str]
                   ) -> str | None:
    """A bare ``--name`` that is no top-level config field but is (or nearly is) a
    nested one: the docs left out its section (``--data_parallel_shard_degree`` for
    ``--parallelism.data_parallel_shard_degree``). Flags of other tools are left alone:
    only names the config knows, or nearly knows, are judged."""
    name = flag[2:].replace("-", "_")
    top = index.fields([c for r in roots for c in index.resolve(r)]) or {}
    if name in top:
        return None
    # Every add_argument of the checkout, once per tree (asked for each bare flag).
    known = inp.head.cache.get("argparse-flags")
    if known is None:
        known = inp.head.cache["argparse-flags"] = argparse_flags(inp.head.files)
    if flag in known:
        return None
    paths = field_paths(inp)
    exact = [p for p in paths if p.rsplit(".", 1)[-1] == name]
    if exact:
        return (f"flag {flag} is not a top-level option; the field is "
                f"--{exact[0]}")
    lasts = {p.rsplit(".", 1)[-1]: p for p in paths if "." in p}
    close = difflib.get_close_matches(name, list(lasts), n=1, cutoff=0.9)
    if close:
        return f"flag {flag}: no such field; the config has --{lasts[close[0]]}"
    return None


# ``config.training.steps = 10`` / ``cfg.x = …`` in a doc's code: an attribute path on
# the config object (a name that is, or ends in, config/cfg/conf), set to something.
_CONFIG_ASSIGN = re.compile(r"^\s*((?:\w+_)?(?:config|cfg|conf))((?:\.[A-Za-z_]\w*)+)"
                            r"\s*=(?!=)\s*\S")
# A binding's start: the name, then ``=`` or the ``:`` of an annotation. Security: the
# indent is ``[ \t]*`` (``\s*`` crosses newlines, quadratic in blank lines), and the
# annotation up to its ``=`` is found by ``_bound_names``, not by the pattern: as
# ``(?::[^=]+)?=`` every ``config:`` line read on to the next ``=``, quadratic in a doc
# of such lines (10,000 of them: 13 s).
_BINDING_START = re.compile(r"^[ \t]*((?:\w+_)?(?:config|cfg|conf))\s*([:=])", re.M)


def _bound_names(text: str) -> set[str]:
    """Config-like names the doc binds itself (``cfg = ParallelismConfig()``,
    ``cfg: JobConfig = …``): their class is the doc's choice, not necessarily the
    configured root. A ``==`` is a comparison, not a binding."""
    names: set[str] = set()
    pos = 0
    next_eq = -1  # the first "=" after the annotation being read; -2: none is left
    while (m := _BINDING_START.search(text, pos)) is not None:
        end = m.end()
        if m.group(2) == ":":
            if next_eq != -2 and next_eq < end:
                found = text.find("=", end)
                next_eq = found if found >= 0 else -2
            if next_eq <= end:  # no "=" after it, or an empty annotation
                pos = m.start() + 1
                continue
            end = next_eq + 1
        if text.startswith("=", end):
            pos = m.start() + 1
            continue
        names.add(m.group(1))
        pos = end  # what a binding spans is not searched again
    return names


def config_assignment_problem(var: str, path: str, index: ClassIndex, roots: list[str]
                              ) -> tuple[str | None, str | None]:
    """(problem, why not checked) for ``var.a.b = …`` resolved through the config
    dataclasses, with the near field as the fix (the attribute spelling of the flag
    check)."""
    flag = "--" + path.lstrip(".")
    problem, unchecked = flag_verdict(flag, None, index, roots)
    if not problem:
        return None, unchecked
    said = problem.replace(f"flag {flag}", f"`{var}{path} = …`", 1).replace(
        "drop the flag", "drop the assignment")
    return re.sub(r"(?<![\w-])--(?=[A-Za-z_])", var + ".", said), None


def field_paths(inp: Inputs) -> list[str]:
    """Every settable config path reachable from the doc config roots."""
    roots = [s["name"] for s in inp.target.raw.get("doc_config_roots", [])]
    if not roots:
        return []
    return [p for p, _f in docclaims.reachable_fields(classindex.for_tree(inp.head), roots)]


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=True)
    except ValueError:
        return text.split()


# ``[`train.py`](../train.py)``: the label of a link is what the reader sees; the link
# target is the reference, resolved from the doc's folder. Bounded: untrusted text.
_LINK_LABEL = re.compile(r"\[[^\]\n]{0,300}\]\([^)\s]{1,300}\)")


_ASSIGN_WORD = re.compile(r"^[A-Za-z_]\w*=")
_LAUNCHER_MODULES = ("torchrun", "torch.distributed.run")


def past_launcher(command: str) -> str:
    """The part of a command line the launched program reads. A launcher's own options
    (``torchrun --standalone --nproc-per-node 8``, also ``python -m torchrun`` and
    ``python -m torch.distributed.run``) stand between it and the script or module it
    launches and are the launcher's, not the script's: they are dropped, and so is the
    whole line when it names no script (a launcher line continued on the next one). Any
    other command comes back as it is (#22, set 20 kind c1; sets 16-18 alike)."""
    words = _words(command)
    while words and _ASSIGN_WORD.match(words[0]):
        words = words[1:]
    if words[:1] == ["torchrun"]:
        rest = words[1:]
    elif words and re.match(r"^python[\d.]*$", words[0]) and words[1:2] == ["-m"] \
            and words[2:3] and words[2] in _LAUNCHER_MODULES:
        rest = words[3:]
    else:
        return command
    for i, word in enumerate(rest):
        if word == "-m" or (word.endswith(".py") and not word.startswith("-")):
            return " ".join(rest[i:])
    return ""


def _candidates(line: str, in_code: bool) -> list[str]:
    spans = _LINK.findall(line)
    for span in _CODE_SPAN.findall(_LINK_LABEL.sub(" ", line)):
        spans += [span, *_words(span)] if " " in span else [span]
    if in_code:
        spans += _words(line)
    return spans


def _path_problem(token: str, doc: str, inp: Inputs) -> str | None:
    tok = token.strip().rstrip(".,:;").removeprefix("./")
    if not tok or "://" in tok or tok.startswith(("/", "~", "$", "-", "#")) \
            or any(ch in tok for ch in "{}<>*$=") or "..." in tok:
        return None
    if not _PATHLIKE.match(tok):
        return None
    path, _, node = tok.partition("::")
    path = path.rstrip("/")
    doc_dir = posixpath.dirname(doc)
    tops = {p.split("/", 1)[0] for p in inp.head.paths}
    if "/" not in path and not node and _named_below(path, doc_dir, inp):
        return None
    bases = ["", doc_dir, inp.target.subproject]
    for base in bases:
        cand = posixpath.normpath(posixpath.join(base, path)) if base else posixpath.normpath(path)
        if cand in inp.head.paths or any(p.startswith(cand + "/") for p in inp.head.paths):
            if node and cand in inp.head.paths:
                cases = testsel.test_cases(cand, inp.head.text(cand) or "")
                if not testsel.select(cases, node=node.split("::"), keyword=None):
                    return f"test {cand}::{node} does not exist"
            return None
    # Only paths that would live in this repository are checked: `torch/...` or
    # `outputs/...` name other trees or generated files.
    rel_doc = posixpath.normpath(posixpath.join(doc_dir, path))
    first = path.split("/", 1)[0]
    if first in tops or (path.startswith("..") and rel_doc.split("/", 1)[0] in tops) \
            or (("/" not in path) and path.endswith(".py")):
        return f"path {token.strip()} does not exist"
    return None


def _packages(inp: Inputs) -> list[str]:
    """The repository's top-level Python packages (a top folder with ``__init__.py``)."""
    found = inp.head.cache.get("doc-packages")
    if found is None:
        found = inp.head.cache["doc-packages"] = sorted(
            {p.split("/", 1)[0] for p in inp.head.paths
             if p.count("/") == 1 and p.endswith("/__init__.py")})
    return found


def _named_below(name: str, doc_dir: str, inp: Inputs) -> bool:
    """A bare file name (``args.py``) names a file without saying where: it resolves
    when a file of that name sits anywhere beneath the doc's folder or the
    sub-project, or at the top of a package (a shared guide's ``args.py`` is every
    model folder's, nested as they nest it)."""
    roots = [r.rstrip("/") + "/" for r in (doc_dir, inp.target.subproject) if r]
    tops = {f"{p}/{name}" for p in _packages(inp)}
    return any(p in tops or (posixpath.basename(p) == name and any(
        p.startswith(r) for r in roots)) for p in inp.head.paths)


def _module_problem(line: str, inp: Inputs) -> str | None:
    m = re.search(r"python[\d.]*\s+-m\s+([\w.]+)", line)
    if not m or m.group(1) in ("pytest", "pip", "torch.distributed.run", "torchrun", "venv"):
        return None
    mod = m.group(1)
    top = mod.split(".")[0]
    if not any(p.startswith(top + "/") or p == f"{top}.py" for p in inp.head.paths):
        return None  # an installed package, not this repo's code
    if ps.module_path(mod, inp.head.paths) is None:
        return f"module {mod} (python -m) does not exist"
    return None


def argparse_flags(files: dict[str, str]) -> set[str]:
    """Every ``add_argument("--x")`` option string in the loaded sources."""
    out: set[str] = set()
    for text in files.values():
        if "add_argument" not in text or python_over_cap(".py", text):
            continue  # a text that is not a ``.py`` file (a doc, a script) read as Python
            # keeps the cap the tree keeps for Python files: not read at all
        mod = ps.parse(text)
        if mod is None:  # unparsable: the option strings that open each call
            for m in re.finditer(r"add_argument\(\s*((?:[\"']-[^\"']+[\"']\s*,?\s*)+)",
                                 text):
                out.update(re.findall(r"[\"'](-[^\"']+)[\"']", m.group(1)))
            continue
        for node in ps.walk(mod):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "add_argument":
                out.update(a.value for a in node.args if isinstance(a, ast.Constant)
                           and isinstance(a.value, str) and a.value.startswith("-"))
    return out


def analyse(inp: Inputs, done: dict[str, Any] | None = None) -> list[DocProblem]:
    """S-5 over the configured docs: references that do not resolve, then the claims
    checked against the code (``docclaims``) with what the other analyses found."""
    out = references(inp)
    done = done or {}
    claims = docclaims.check(inp, gaps=feature_gaps(done),
                             passes=[(u.name, u.file, u.line)
                                     for u in done.get("graph_passes", [])],
                             runners=ci.runner_files(inp))
    names = docnames.check(inp)
    stale = [*doclists.check(inp), *doctodotests.check(inp), *docfeatures.check(inp),
             *doctested.check(inp)]
    fields = [*fielddocs.check(inp), *doclaunch.check(inp)]
    return out + [DocProblem(c.file, c.line, c.problem, c.kind) for c in claims] + [
        DocProblem(c.file, c.line, c.problem, c.kind) for c in names] + [
        DocProblem(c.file, c.line, c.problem, c.kind) for c in stale] + [
        DocProblem(c.file, c.line, c.problem, c.kind) for c in fields]


def feature_gaps(done: dict[str, Any]) -> dict[str, list[str]]:
    """Token (``cp``) → sub-project call sites that leave that feature out: keywords a
    call omits, shared calls never made (from the duplicated-logic analyses)."""
    out: dict[str, list[str]] = {}
    for d in done.get("call_drift", []):
        for kw in d.missing:
            for tok in docclaims_tokens(kw):
                out.setdefault(tok, []).append(f"{d.ours} calls `{d.callee}` without `{kw}`")
    for d in done.get("divergences", []):
        for call in d.calls:
            for tok in docclaims_tokens(call):
                out.setdefault(tok, []).append(f"{d.ours} never calls `{call}`")
    return out


def docclaims_tokens(name: str) -> set[str]:
    """Short tokens of an identifier that may stand for a feature (``enable_cp`` → cp)."""
    return {t for t in name.lower().split("_") if 1 < len(t) <= 4
            and t not in ("to", "of", "get", "set", "and", "the")}


# An option whose value is a place a command writes to (--local_dir, --output, -o, …).
_OUTPUT_OPT = re.compile(r"(?<![\w-])(?:--[\w-]*(?:dir|folder|out|output|dest|dump|save|"
                         r"target)[\w-]*|-o)(?:=|\s+)([^\s`'\"]+)", re.I)


def produced_paths(text: str) -> set[str]:
    """Paths a doc's own commands create (values of output options): the doc may name
    them before they exist."""
    return {m.group(1).removeprefix("./").rstrip("/") for m in _OUTPUT_OPT.finditer(text)}


def references(inp: Inputs) -> list[DocProblem]:
    """Paths, test ids, ``python -m`` modules and flags in the configured docs that do
    not exist or parse."""
    from agentops.scout.analyses import docparts  # it builds on this module's records
    roots = [s["name"] for s in inp.target.raw.get("doc_config_roots", [])]
    known = set(inp.target.raw.get("known_flags", []))
    index: ClassIndex | None = None
    parsers: set[str] | None = None
    out: list[DocProblem] = []
    for doc in inp.target.docs:
        text = inp.head.text(doc)
        if text is None:
            out.append(DocProblem(doc, 0, "not at HEAD", "absent"))
            continue
        made = produced_paths(text)
        # A folder layout's bullets name files a folder should have, not files that
        # exist: the layout check (``docparts``) judges them against its example.
        planned = {(e.line, e.name) for e in docparts.layout_entries(
            [ln[:docparts.MAX_LINE] for ln in text.splitlines()])}
        in_code = False
        bound = _bound_names(text)
        for n, raw in enumerate(text.splitlines(), 1):
            if raw.lstrip().startswith("```"):
                in_code = not in_code
                continue
            seen: set[str] = set()
            assigned = _CONFIG_ASSIGN.match(raw) if in_code else None
            if assigned and assigned.group(1) not in bound:
                var, path = assigned.group(1), assigned.group(2)
                if not roots:
                    # Never "docs are current" with a config claim nobody resolved.
                    out.append(DocProblem(doc, n, f"{var}{path}: no doc_config_roots "
                                                   "configured", "unchecked"))
                    continue
                if index is None:
                    index = classindex.for_tree(inp.head)
                problem, unchecked = config_assignment_problem(var, path, index, roots)
                if problem:
                    out.append(DocProblem(doc, n, problem, "setting"))
                elif unchecked:
                    out.append(DocProblem(doc, n, f"{var}{path}: {unchecked}", "unchecked"))
            for tok in _candidates(raw, in_code):
                bare = tok.strip().rstrip(".,:;").removeprefix("./").rstrip("/")
                if any(bare == p or bare.startswith(p + "/") for p in made):
                    continue  # created by a command of this doc
                if (n, bare) in planned:
                    continue
                problem = _path_problem(tok, doc, inp)
                if problem and problem not in seen:
                    seen.add(problem)
                    out.append(DocProblem(doc, n, problem))
            mod_problem = _module_problem(raw, inp)
            if mod_problem:
                out.append(DocProblem(doc, n, mod_problem))
            if not in_code:
                for span in _CODE_SPAN.findall(raw):
                    problem = setting_problem(span, inp)
                    if problem and problem not in seen:
                        seen.add(problem)
                        out.append(DocProblem(doc, n, problem, "setting"))
            commands = [raw] if in_code else [s for s in _CODE_SPAN.findall(raw) if " " in s]
            for command in commands:
                for problem in command_problems(command, doc, inp):
                    if problem not in seen:
                        seen.add(problem)
                        out.append(DocProblem(doc, n, problem, "command"))
            for flag, sep, value in _FLAG.findall(past_launcher(raw) if in_code else " ".join(
                    past_launcher(s) for s in _CODE_SPAN.findall(raw))):
                if flag in known:
                    continue
                if "." in flag:
                    if index is None:
                        index = classindex.for_tree(inp.head)
                    problem, unchecked = flag_verdict(flag, value or None, index, roots,
                                                      explicit=sep == "=")
                    if unchecked:
                        out.append(DocProblem(doc, n, f"flag {flag}: {unchecked}",
                                              "unchecked"))
                elif in_code and _runs_repo_code(raw, inp):
                    if parsers is None:
                        parsers = argparse_flags(inp.head.files)
                        if index is None:
                            index = classindex.for_tree(inp.head)
                        top = index.fields([c for r in roots for c in index.resolve(r)])
                        parsers |= {f"--{name}" for name in (top or {})}
                    problem = None if _spelled(flag) & parsers else (
                        f"flag {flag} is not a config field, a known flag, or an argparse "
                        "option in the repo")
                elif roots:
                    if index is None:
                        index = classindex.for_tree(inp.head)
                    problem = misplaced_flag(flag, inp, index, roots)
                else:
                    problem = None
                if problem and problem not in seen and not (
                        problem.startswith(f"flag {flag} is not a config field") and any(
                            p.startswith(f"flag {flag} is not an option") for p in seen)):
                    seen.add(problem)
                    out.append(DocProblem(doc, n, problem))
        out += anchor_problems(doc, text, inp)
    return out


# Environment variables every tool reads (CUDA, NCCL, torch, HF, Python itself): a
# command may set them for the programs it starts, not for the script.
_TOOL_ENV = re.compile(r"^(CUDA|NCCL|TORCH|PYTORCH|TORCHINDUCTOR|TRITON|HF|HUGGINGFACE|"
                       r"TRANSFORMERS|TOKENIZERS|OMP|MKL|PYTHON|LD|NVTE|NVIDIA|CUBLAS|XLA|"
                       r"VLLM|WANDB|GLOO|UCX|FI|MASTER|WORLD|RANK|LOCAL|KMP|PJRT|TF|JAX|"
                       r"DYLD|PATH|HOME|USER|TMPDIR|LANG|LC)(_|$)")
_ENV_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*)$")
_HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=[\"']([^\"']+)[\"']", re.I)


def slugs(markdown: str) -> set[str]:
    """The anchors GitHub gives a Markdown file's headings (lowercase; punctuation
    other than ``-`` and ``_`` dropped; spaces to ``-``; repeats get ``-1``, ``-2``),
    plus explicit ``<a name=…>`` anchors. Headings inside code fences do not count."""
    out: set[str] = set()
    seen: dict[str, int] = {}
    in_code = False
    for raw in markdown.splitlines():
        if raw.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
            continue
        if in_code:
            continue
        out |= {a.lower() for a in _HTML_ANCHOR.findall(raw)}
        m = _HEADING.match(raw)
        if not m:
            continue
        # Closing #s and spaces stripped in Python, not by a lazy pattern.
        text = m.group(2).rstrip().rstrip("#").rstrip()
        text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links: their text
        text = re.sub(r"<[^>]+>", "", text)
        slug = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def anchor_problems(doc: str, text: str, inp: Inputs) -> list[DocProblem]:
    """``[x](FILE.md#section)`` / ``[x](#section)`` whose section no heading of that
    file has (the file itself is checked with the other paths)."""
    out: list[DocProblem] = []
    cache: dict[str, set[str] | None] = {}
    for n, raw, in_code in docclaims.lines(text):
        if in_code:
            continue
        for target in _LINK.findall(raw):
            path, sep, anchor = target.partition("#")
            if not sep or not anchor or "://" in path:
                continue
            file = doc if path == "" else posixpath.normpath(
                posixpath.join(posixpath.dirname(doc), path))
            if path and not path.endswith(".md"):
                # A folder link shows the folder's README, whose headings are the anchors.
                if not any(p.startswith(file + "/") for p in inp.head.paths):
                    continue
                file = posixpath.join(file, "README.md")
            if file not in cache:
                body = inp.head.text(file)
                cache[file] = slugs(body) if body is not None else None
            known = cache[file]
            if known is not None and anchor.lower() not in known:
                out.append(DocProblem(doc, n, f"link {target}: {file} has no section "
                                              f"#{anchor}", "anchor"))
    return out


_SETTING = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*=\s*[^=\s][^\s]*$")


def setting_problem(span: str, inp: Inputs) -> str | None:
    """A backticked ``name=value`` (or ``section.name=value``) the docs tell readers to
    set: a problem when the sub-project's classes define ``name`` only as a read-only
    property or a derived ``field(init=False)``, never as a field one can set; or when
    every config field of that name (the sub-project's dataclasses and those reachable
    from ``doc_config_roots``) rejects the value (``Literal``, ``Enum``, ``bool``)."""
    m = _SETTING.match(span.strip())
    if not m or " " in span.strip().split("=", 1)[0].strip():
        return None
    dotted = m.group(1)
    name = dotted.rsplit(".", 1)[-1]
    value = span.strip().split("=", 1)[1].strip().strip("\"'")
    idx = classindex.for_tree(inp.head)
    found = _members_named(inp, name)
    if found and all(why is not None for why, _w, _c in found):
        why, where, cls = found[0]
        return (f"`{span.strip()}`: {name} is {why} ({where}), not a setting one can give;"
                f" {docclaims.settable_fix([cls], name, idx)}")
    fields = [(where, node) for why, where, cls in found if why is None
              for node in cls.body if isinstance(node, ast.AnnAssign)
              and isinstance(node.target, ast.Name) and node.target.id == name]
    roots = [s["name"] for s in inp.target.raw.get("doc_config_roots", [])]
    if roots:
        fields += [(f"--{p}", f) for p, f in docclaims.reachable_fields(idx, roots)
                   if p == dotted or p.endswith("." + dotted) or (
                       "." not in dotted and p.rsplit(".", 1)[-1] == name)]
    if not fields:
        return None
    bad = [(where, value_problem(f, value, idx, explicit=True)) for where, f in fields]
    if all(why for _w, why in bad):
        where, why = bad[0]
        return f"`{span.strip()}`: {value!r} is {why} ({name} at {where})"
    return None


def _members_named(inp: Inputs, name: str
                   ) -> list[tuple[str | None, str, ast.ClassDef]]:
    """(why not settable, or None for a settable field; where; class) of every class
    member ``name`` in the sub-project's files."""
    cache = inp.head.cache.setdefault("doc-members", {})
    if name in cache:
        return cache[name]
    idx = classindex.for_tree(inp.head)
    sub = inp.target.subproject + "/"
    out: list[tuple[str | None, str, ast.ClassDef]] = []
    for path, text in inp.head.files.items():
        if not (path.startswith(sub) and path.endswith(".py")) or name not in text:
            continue
        mod = ps.parse(text)
        for cls in (n for n in ps.walk(mod) if isinstance(n, ast.ClassDef)) if mod else ():
            for node in cls.body:
                defines = (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                           and node.target.id == name) or (
                    isinstance(node, ps.FuncDef.__args__) and node.name == name and any(
                        ast.unparse(d).split(".")[-1] in ("property", "cached_property")
                        for d in node.decorator_list))
                if defines:
                    why = docclaims.not_settable([cls], name, idx)
                    out.append((why, f"{cls.name} in {path}:{node.lineno}", cls))
                    break
    cache[name] = out
    return out


def _script_of(words: list[str], doc: str, inp: Inputs) -> tuple[str, str] | None:
    """(repo file the command runs, "python" | "shell"), or None."""
    def find(path: str) -> str | None:
        path = path.removeprefix("./")
        for base in ("", posixpath.dirname(doc), inp.target.subproject):
            cand = posixpath.normpath(posixpath.join(base, path)) if base else path
            if cand in inp.head.paths:
                return cand
        return None

    if not words:
        return None
    prog = words[0]
    if prog in ("bash", "sh") and len(words) > 1:
        found = find(words[1])
        return (found, "shell") if found else None
    if prog.endswith(".sh"):
        found = find(prog)
        return (found, "shell") if found else None
    rest = words[1:]
    if prog == "torchrun" or re.match(r"^python[\d.]*$", prog):
        if prog == "torchrun" or rest[:2] == ["-m", "torchrun"]:
            rest = rest[2:] if prog != "torchrun" else rest
            while rest and rest[0].startswith("-") and rest[0] != "-m":
                rest = rest[1:] if "=" in rest[0] else rest[2:]
        if rest[:1] == ["-m"] and len(rest) > 1:
            found = ps.module_path(rest[1], inp.head.paths)
            return (found, "python") if found else None
        if rest and rest[0].endswith(".py"):
            found = find(rest[0])
            return (found, "python") if found else None
    return None


def _called_from(script: str, inp: Inputs) -> list[str]:
    """The repo files a shell script hands over to (``python -m x.y``, ``python a.py``,
    ``torchrun … -m x.y``): one level, where its variables and options may be read."""
    text = inp.head.text(script) or ""
    out = [script]
    for m in re.finditer(r"-m\s+([A-Za-z_][\w.]*)", text):
        found = ps.module_path(m.group(1), inp.head.paths)
        if found:
            out.append(found)
    for m in re.finditer(r"([\w./-]+\.py)\b", text):
        path = m.group(1).removeprefix("./")
        if path in inp.head.paths:
            out.append(path)
    return list(dict.fromkeys(out))


_SHELL_READ = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
_PY_READ = re.compile(r"(?:environ(?:\.get)?|getenv)\s*[(\[]\s*[\"']([A-Za-z_][A-Za-z0-9_]*)")


def env_reads(text: str) -> set[str]:
    """Environment variables a script or module reads: ``$VAR`` / ``${VAR…}`` in
    shell, ``os.environ["VAR"]`` / ``os.environ.get("VAR")`` / ``getenv("VAR")`` in
    Python. A name only in a comment or an example is not a read."""
    return set(_SHELL_READ.findall(text)) | set(_PY_READ.findall(text))


def reads_env(text: str, var: str) -> bool:
    """Whether ``text`` reads ``var``: a shell or Python read as in ``env_reads``, or
    the quoted name in a file that reads the environment at all (a name kept in a
    constant and read through it)."""
    if var in env_reads(text):
        return True
    return ("environ" in text or "getenv" in text) and re.search(
        rf"[\"']{re.escape(var)}[\"']", text) is not None


def command_problems(line: str, doc: str, inp: Inputs) -> list[str]:
    """A documented command line: environment variables it sets that the script it runs
    (or the file that script hands over to) never reads, and options a Python script
    with an argument parser does not define."""
    words = _words(line)
    env: list[str] = []
    while words and (m := _ENV_ASSIGN.match(words[0])):
        env.append(m.group(1))
        words = words[1:]
    found = _script_of(words, doc, inp)
    if found is None:
        missing = _misplaced_script(words, doc, inp)
        return [missing] if missing else []
    script, kind = found
    files = _called_from(script, inp) if kind == "shell" else [script]
    if inp.head.text(script) is None:
        return []  # not read (too large, a link): nothing can be said
    texts = [inp.head.text(f) or "" for f in files]
    out = []
    for var in env:
        if _TOOL_ENV.match(var):
            continue
        if not any(reads_env(t, var) for t in texts):
            read = sorted({v for t in texts for v in env_reads(t)})
            close = difflib.get_close_matches(var, read, n=1, cutoff=0.7)
            out.append(f"{var}=… is set for {script}, which never reads {var}"
                       + (f" (nor {', '.join(files[1:])})" if len(files) > 1 else "")
                       + (f"; it reads {close[0]}: set {close[0]}=…" if close else ""))
    parsers = [t for t in texts if "add_argument(" in t]
    if parsers:
        options = argparse_flags(dict(enumerate(parsers)))
        for flag in re.findall(r"(?<![\w-])(--[A-Za-z][\w-]*)(?![\w.-])", " ".join(words[1:])):
            if flag not in options and flag.replace("_", "-") not in options \
                    and flag.replace("-", "_") not in options:
                out.append(f"flag {flag} is not an option of {script}'s argument parser"
                           + (f" (nor {', '.join(files[1:])})" if len(files) > 1 else ""))
    return out


_CD = re.compile(r"(?:^|[;&|]\s*|^\s*)cd\s+([\w./-]+)", re.M)


def _launched(words: list[str]) -> str:
    """The script a launcher command runs (``python a.py``, ``torchrun --x 8 a.py``,
    ``bash a.sh``, ``./a.sh``), or "": the first ``.py`` word after the program, before
    any ``-m``; a launcher's option values are never ``.py`` words."""
    if not words:
        return ""
    prog, rest = words[0], words[1:]
    if prog in ("bash", "sh"):
        return rest[0] if rest and rest[0].endswith(".sh") else ""
    if prog.endswith(".sh"):
        return prog
    if prog == "torchrun" or re.match(r"^python[\d.]*$", prog):
        for w in rest:
            if w == "-m":
                return ""
            if w.endswith(".py") and not w.startswith("-"):
                return w
    return ""


def _misplaced_script(words: list[str], doc: str, inp: Inputs) -> str | None:
    """A command running a script of this repository by a path that resolves from none
    of the places a command runs from (the repository root, the doc's folder, the
    sub-project, a folder the doc ``cd``s into), while the repository has a file of that
    name elsewhere: the command runs nothing, or another folder's script. A name the
    repository never has (an installer's ``setup.py``, another project's script) is not
    this repository's, and is left alone."""
    script = _launched(words)
    if not script or any(ch in script for ch in "$<>{}*~") or script.startswith("/"):
        return None
    if _path_problem(script, doc, inp):
        return None  # said as a path that does not exist
    path = script.removeprefix("./")
    text = inp.head.text(doc) or ""
    bases = ["", posixpath.dirname(doc), inp.target.subproject,
             *(m.group(1) for m in _CD.finditer(text))]
    for base in bases:
        cand = posixpath.normpath(posixpath.join(base, path)) if base else posixpath.normpath(path)
        if cand in inp.head.paths:
            return None
    name = posixpath.basename(path)
    elsewhere = sorted(p for p in inp.head.paths if posixpath.basename(p) == name)
    if not elsewhere:
        return None
    return (f"runs {script}, which is not at the repository root, beside the doc or in "
            f"{inp.target.subproject} (the repository has {', '.join(elsewhere[:2])}"
            + (", …" if len(elsewhere) > 2 else "") + ")")


def _spelled(flag: str) -> set[str]:
    """A flag as argparse or tyro may spell it: ``--dump-folder`` = ``--dump_folder``."""
    return {flag, flag.replace("-", "_").replace("__", "--", 1),
            "--" + flag[2:].replace("_", "-")}


def _runs_repo_code(line: str, inp: Inputs) -> bool:
    """Whether a command line runs this repository's code: a script in the repo
    (``./run_train.sh``), ``python -m <repo package>``, or ``python <repo file>``."""
    words = [w for w in _words(line) if not re.match(r"^[A-Za-z_]\w*=", w)]
    if not words:
        return False
    if words[0].removeprefix("./") in inp.head.paths:
        return True
    if re.match(r"^python[\d.]*$", words[0]) and len(words) > 1:
        if words[1] == "-m" and len(words) > 2:
            top = words[2].split(".")[0]
            return any(p.startswith(top + "/") for p in inp.head.paths)
        return words[1] in inp.head.paths
    return words[0] == "torchrun"
