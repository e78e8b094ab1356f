"""S-3e coverage gaps: parallelism combinations the core integration tests exercise
and the sub-project's do not; graph passes without a test; registered configs no test
or workflow uses; public code added since the baseline that no test mentions.

Pure: reads the loaded trees; returns frozen records.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs


@dataclass(frozen=True)
class Gap:
    kind: str  # "parallelism" | "untested_new_code"
    subject: str  # "tp+cp" | function name
    detail: str
    files: tuple[str, ...]


@dataclass(frozen=True)
class Unused:
    name: str
    file: str
    line: int


def _definitions(text: str) -> Iterator[tuple[ast.Call, str | None]]:
    """``OverrideDefinitions(...)`` calls of a test list, each with its ``test_name``
    string (keyword, or the third positional argument as in torchtitan's integration
    lists; None when that is not a string literal)."""
    mod = ps.parse(text)
    for node in ps.nodes(mod) if mod is not None else ():
        if not (isinstance(node, ast.Call) and ast.unparse(node.func).endswith(
                "OverrideDefinitions")):
            continue
        value = next((k.value for k in node.keywords if k.arg == "test_name"), None)
        if value is None and len(node.args) >= 3:
            value = node.args[2]
        yield node, (value.value if isinstance(value, ast.Constant)
                     and isinstance(value.value, str) else None)


def _test_names(text: str) -> list[str]:
    """``test_name`` strings of ``OverrideDefinitions(...)`` calls."""
    return [name for _call, name in _definitions(text) if name is not None]


@dataclass(frozen=True)
class TestDef:
    """One integration test definition: its flag lists, name and whether disabled."""

    name: str
    flags: tuple[str, ...]  # every "--x value" string of every run, in order
    disabled: bool
    line: int


def test_defs(text: str) -> list[TestDef]:
    """``OverrideDefinitions([[flags...], ...], description, test_name, disabled=...)``
    calls of an integration test list."""
    out: list[TestDef] = []
    for node, name in _definitions(text):
        first = node.args[0] if node.args else next(
            (k.value for k in node.keywords if k.arg == "override_args"), None)
        flags = tuple(n.value for n in ps.walk(first) if isinstance(n, ast.Constant)
                      and isinstance(n.value, str)) if first is not None else ()
        disabled = any(k.arg == "disabled" and isinstance(k.value, ast.Constant)
                       and k.value.value is True for k in node.keywords)
        out.append(TestDef(name or "", flags, disabled, node.lineno))
    return out


def _flag_values(flags: tuple[str, ...]) -> dict[str, set[str]]:
    """``"--compile.passes a,b"`` / ``"--compile.passes=a,b"`` → {"--compile.passes":
    {"a", "b"}}."""
    out: dict[str, set[str]] = {}
    for f in flags:
        m = re.match(r"^(--[\w.-]+)(?:[= ]\s*(.*))?$", f.strip())
        if m:
            vals = {v.strip() for v in (m.group(2) or "").split(",") if v.strip()}
            out.setdefault(m.group(1), set()).update(vals)
    return out


@dataclass(frozen=True)
class Parity:
    """Values of a list-valued setting one model is tested with and another never is."""

    model: str  # the model that lacks them
    other: str  # the model that has them
    missing: tuple[str, ...]  # "--compile.passes cudagraph"
    files: tuple[str, ...]


def model_parity(inp: Inputs, list_flags: set[str]) -> list[Parity]:
    """Per supported model (``coverage.model_flag`` value, default ``--module``), the
    values of list-valued settings (``list_flags``) its enabled integration tests use;
    each model that never uses values another model is tested with."""
    cov = inp.target.section("coverage")
    model_flag = str(cov.get("model_flag", "--module"))
    files = tuple(cov.get("subproject_integration_tests", []))
    per_model: dict[str, dict[str, set[str]]] = {}
    for path in files:
        for t in test_defs(inp.head.text(path) or ""):
            if t.disabled:
                continue
            values = _flag_values(t.flags)
            for model in values.get(model_flag, set()):
                got = per_model.setdefault(model.rsplit(".", 1)[-1], {})
                for flag in list_flags & set(values):
                    got.setdefault(flag, set()).update(values[flag])
    registered = _registry_keys(inp)
    out = []
    models = sorted(per_model)
    for model in models:
        for other in models:
            if other == model:
                continue
            # Only values that select something the sub-project registers (a pass, a
            # policy): ``--checkpoint.exclude_from_loading optimizer`` is not a feature.
            missing = sorted(f"{flag} {v}" for flag, vals in per_model[other].items()
                             for v in vals - per_model[model].get(flag, set())
                             if v in registered)
            if missing:
                out.append(Parity(model, other, tuple(missing), files))
    return out


def _registry_keys(inp: Inputs) -> set[str]:
    """String keys of dict literals in the sub-project's non-test code (registries of
    passes, policies, backends)."""
    sub, tests = inp.target.subproject + "/", inp.target.tests_dir + "/"
    out: set[str] = set()
    for path, text in inp.head.files.items():
        if path.startswith(sub) and not path.startswith(tests) and path.endswith(".py") \
                and "{" in text:
            mod = ps.parse(text)
            for node in ps.nodes(mod) if mod is not None else ():
                if isinstance(node, ast.Dict):
                    out |= {k.value for k in node.keys if isinstance(k, ast.Constant)
                            and isinstance(k.value, str)}
    return out


@dataclass(frozen=True)
class UntestedSetting:
    """A setting core's integration tests exercise, that the sub-project's own code
    reads, and that none of the sub-project's tests sets."""

    flag: str  # --parallelism.fsdp_reshard_after_forward
    core_tests: tuple[str, ...]  # core test names that set it
    reads: tuple[str, ...]  # sub-project file:line that read the field


def untested_settings(inp: Inputs, field_paths: list[str]) -> list[UntestedSetting]:
    """``field_paths``: every settable config path (``parallelism.x``); a field name
    that more than one path ends with (``mode``, ``enable``) is ambiguous and skipped."""
    from agentops.scout.analyses import refs as refindex

    cov = inp.target.section("coverage")
    ours = "\n".join(inp.head.text(p) or "" for p in cov.get("subproject_integration_tests",
                                                              []))
    owners: dict[str, int] = {}
    for path in field_paths:
        owners[path.rsplit(".", 1)[-1]] = owners.get(path.rsplit(".", 1)[-1], 0) + 1
    refs = refindex.index(inp, include_tests=False)
    core: dict[str, list[str]] = {}
    for path in cov.get("core_integration_tests", []):
        for t in test_defs(inp.head.text(path) or ""):
            if t.disabled:
                continue
            for flag in _flag_values(t.flags):
                core.setdefault(flag, []).append(t.name)
    out = []
    for flag, names in sorted(core.items()):
        name = flag.rsplit(".", 1)[-1].removeprefix("--")
        if "." not in flag or owners.get(name) != 1 or flag in ours:
            continue
        section = flag.removeprefix("--").split(".")[0]
        reads = refs.reads(section, name)
        if reads:
            out.append(UntestedSetting(flag, tuple(sorted(set(names))[:3]),
                                       tuple(sorted(set(reads))[:3])))
    return out


def _combo(name: str, keywords: list[str]) -> frozenset[str]:
    words = set(re.split(r"[^a-z0-9]+", name.lower()))
    return frozenset(k for k in keywords if k in words)


def _pattern_combo(name: str, rx: re.Pattern[str] | None, keywords: list[str]
                   ) -> frozenset[str]:
    """The parallelisms a test name encodes by the target's pattern (``test_fsdp2_tp4``
    → fsdp, tp: degrees included), restricted to the keywords when there are any."""
    if rx is None:
        return frozenset()
    kinds = {m.group("kind").lower() for m in rx.finditer(name.lower()) if m.group("kind")}
    return frozenset(k for k in kinds if not keywords or k in keywords)


def _own_test_names(inp: Inputs) -> list[str]:
    """Names of the sub-project's test functions and classes (``def test_fsdp2_tp4``),
    for a target whose test names encode parallelism."""
    tests = inp.target.tests_dir + "/"
    out: list[str] = []
    for path, text in sorted(inp.head.files.items()):
        if path.startswith(tests) and path.endswith(".py"):
            mod = ps.parse(text)
            out += [n.name for n in ps.nodes(mod) if isinstance(n, (ast.ClassDef,
                                                                    *ps.FuncDef.__args__))
                    and n.name.lower().startswith("test")] if mod is not None else []
    return out


def parallelism_gaps(inp: Inputs) -> list[Gap]:
    """Combinations of >= 2 parallelism keywords in core test names that no
    sub-project test name covers; with ``coverage.parallelisms``, only combinations of
    parallelisms the sub-project supports."""
    cov = inp.target.section("coverage")
    keywords = [k.lower() for k in cov.get("parallelism_keywords", [])]
    supported = {k.lower() for k in cov.get("parallelisms", [])}
    rx = inp.target.test_name_pattern
    if not keywords:
        return []
    core: dict[frozenset[str], list[str]] = {}
    for path in cov.get("core_integration_tests", []):
        for name in _test_names(inp.head.text(path) or ""):
            combo = _combo(name, keywords)
            if len(combo) >= 2 and (not supported or combo <= supported):
                core.setdefault(combo, []).append(name)
    names = [n for p in cov.get("subproject_integration_tests", [])
             for n in _test_names(inp.head.text(p) or "")]
    if rx is not None:
        names += _own_test_names(inp)
    ours = [_combo(n, keywords) | _pattern_combo(n, rx, keywords) for n in names]
    files = tuple(cov.get("core_integration_tests", []) + cov.get(
        "subproject_integration_tests", []))
    gaps: list[tuple[frozenset[str], Gap]] = []
    for combo, names in sorted(core.items(), key=lambda kv: sorted(kv[0])):
        if not any(combo <= mine for mine in ours):
            label = "+".join(k for k in keywords if k in combo)
            gaps.append((combo, Gap("parallelism", label,
                                    f"core tests {', '.join(sorted(names)[:3])} combine "
                                    f"{label}; no sub-project integration test does", files)))
    # A combination that contains an untested smaller one says nothing new.
    return [g for combo, g in gaps if not any(other < combo for other, _g in gaps)]


def passes_files(inp: Inputs) -> list[str]:
    """The configured passes file(s) (``coverage.passes_file``: a path or a list)."""
    value = inp.target.section("coverage").get("passes_file") or []
    return [value] if isinstance(value, str) else list(value)


def graph_passes(inp: Inputs) -> list[Unused]:
    """The graph passes: public top-level functions of the passes files whose name
    matches ``pass_name_regex`` and whose first parameter is annotated with the
    configured type (``pass_first_param``, by suffix; any first parameter when unset)."""
    cov = inp.target.section("coverage")
    rx = re.compile(cov.get("pass_name_regex", r"_pass(es)?$"))
    first = str(cov.get("pass_first_param", ""))
    out: list[Unused] = []
    for path in passes_files(inp):
        mod = ps.parse(inp.head.text(path) or "")
        for node in mod.body if mod is not None else []:
            if not isinstance(node, ps.FuncDef.__args__) or node.name.startswith("_") \
                    or not rx.search(node.name):
                continue
            params = [*node.args.posonlyargs, *node.args.args]
            if first:
                ann = ast.unparse(params[0].annotation) if params and \
                    params[0].annotation is not None else ""
                if not (ann == first or ann.endswith("." + first) or (first.endswith(
                        "." + ann) and ann)):
                    continue
            out.append(Unused(node.name, path, node.lineno))
    return out


def _test_identifiers(inp: Inputs) -> set[str]:
    """Names the test files refer to (imports, calls, attributes), by AST."""
    cov = inp.target.section("coverage")
    tests = inp.target.tests_dir + "/"
    paths = {p for p in inp.head.files if p.startswith(tests) and p.endswith(".py")}
    paths |= set(cov.get("pass_tests", []))
    names: set[str] = set()
    for path in paths:
        mod = ps.parse(inp.head.text(path) or "")
        for n in ps.nodes(mod) if mod is not None else ():
            if isinstance(n, ast.Name):
                names.add(n.id)
            elif isinstance(n, ast.Attribute):
                names.add(n.attr)
            elif isinstance(n, ast.alias):
                names.add((n.asname or n.name).rsplit(".", 1)[-1])
                names.add(n.name.rsplit(".", 1)[-1])
    return names


def passes_without_tests(inp: Inputs) -> list[Unused]:
    """Graph passes no test file refers to."""
    passes = graph_passes(inp)
    if not passes:
        return []
    used = _test_identifiers(inp)
    return sorted((p for p in passes if p.name not in used), key=lambda u: (u.file, u.line))


def configs_without_tests(inp: Inputs) -> list[Unused]:
    """Config functions in the sub-project's config registries that no test file and
    no configured workflow names. A name only in a commented-out line (a test case
    disabled "temporarily") runs nowhere, so comment lines are not read."""
    name = inp.target.section("coverage").get("config_registry_name", "config_registry.py")
    sub = inp.target.subproject + "/"
    users = _words_in(_COMMENT_LINE.sub("", text) for p, text in inp.head.files.items()
                      if p.startswith(inp.target.tests_dir + "/") or "/tests/" in p
                      or p.startswith("tests/") or p in inp.target.workflows)
    out = []
    for path in sorted(p for p in inp.head.files if p.startswith(sub)
                       and p.rsplit("/", 1)[-1] == name):
        for fn, line in ps.top_level_names(ps.parse(inp.head.files[path])).items():
            if fn not in users:
                out.append(Unused(fn, path, line))
    return out


def _words_in(texts: Iterable[str]) -> set[str]:
    """Every identifier-like word of the texts (one regex pass, then set lookups)."""
    out: set[str] = set()
    for text in texts:
        out.update(_WORD.findall(text))
    return out


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A whole line that is a comment, in Python and in workflow YAML alike.
_COMMENT_LINE = re.compile(r"^[ \t]*#.*$", re.M)


def untested_new_code(inp: Inputs) -> list[Gap]:
    """Public functions/classes added to the sub-project since the baseline whose name
    appears in no test file."""
    if inp.base is None:
        return []
    sub, tests = inp.target.subproject + "/", inp.target.tests_dir + "/"
    test_words = _words_in(t for p, t in inp.head.files.items() if p.startswith(tests))
    out = []
    for path in sorted(inp.head.files):
        if not path.startswith(sub) or path.startswith(tests) or not path.endswith(".py"):
            continue
        old = inp.base.text(path)
        if old == inp.head.files[path]:
            continue
        now = ps.top_level_defs(inp.head.files[path])
        before = ps.top_level_defs(old)
        if path.rsplit("/", 1)[-1] == inp.target.section("coverage").get(
                "config_registry_name", "config_registry.py"):
            continue  # configs are checked by configs_without_tests
        passes = {u.name for u in graph_passes(inp)}
        for name in sorted(now.keys() - before.keys() - passes):
            if name not in test_words:
                out.append(Gap("untested_new_code", name,
                               f"{name} ({path}:{now[name]}) was added since the baseline "
                               "and no test mentions it", (path,)))
    return out


@dataclass(frozen=True)
class UntestedBranch:
    """A branch of the sub-project's code selected by a config value no test sets."""

    file: str
    line: int
    condition: str  # "parallelism.mode == 'x'" or "compile.fuse"
    value: str  # the value or field name the tests never mention


def _config_chain(node: ast.expr) -> str:
    """``config.compile.mode`` / ``self.config.x.y`` -> "compile.mode" (the last two
    parts); "" unless read through something named like a config."""
    parts: list[str] = []
    cur: ast.expr = node
    while isinstance(cur, ast.Attribute):
        parts.append(cur.attr)
        cur = cur.value
    if isinstance(cur, ast.Name):
        parts.append(cur.id)
    parts.reverse()
    if len(parts) == 2 and parts[0] in ("config", "cfg"):
        # A component's own config (``config.process_group`` in the class whose
        # ``Config`` it is): a setting as much as ``config.section.field``.
        return ".".join(parts)
    if len(parts) < 3 or not any("config" in p.lower() or p in ("cfg", "args")
                                 for p in parts[:-2]):
        return ""
    return ".".join(parts[-2:])


def untested_branches(inp: Inputs) -> list[UntestedBranch]:
    """#22 defect 10: ``if <config>.section.field == "value"`` (or ``in``) and
    ``if <config>.section.flag`` in the sub-project's code, where no test of the
    sub-project, no config registry and no configured workflow mentions the value (or
    sets the flag): configuration nothing runs."""
    sub = inp.target.subproject + "/"
    tests = inp.target.tests_dir + "/"
    registry = inp.target.section("coverage").get("config_registry_name",
                                                    "config_registry.py")
    runs = "\n".join(t for p, t in inp.head.files.items()
                     if p.startswith(tests) or (p.startswith(sub) and (
                         "/tests/" in p or p.rsplit("/", 1)[-1] == registry))
                     or p in inp.target.workflows)
    words = _words_in([runs])
    out: list[UntestedBranch] = []
    for path in sorted(inp.head.files):
        if not (path.startswith(sub) and path.endswith(".py")) or path.startswith(tests) \
                or "/tests/" in path or path.rsplit("/", 1)[-1] == registry:
            continue
        text = inp.head.files[path]
        if "if " not in text or not any(w in text for w in ("config", "cfg", "args")):
            continue  # no branch read through a config (the walk is the costly part)
        mod = ps.parse(text)
        for node in ps.statements(mod) if mod is not None else ():
            if not isinstance(node, ast.If):
                continue
            test = node.test
            left = test.left if isinstance(test, ast.Compare) else None
            if isinstance(left, ast.Call) and isinstance(left.func, ast.Attribute) \
                    and left.func.attr in ("lower", "upper", "strip") and not left.args:
                left = left.func.value  # ``cfg.mode.lower() == "x"`` compares cfg.mode
            if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(
                    test.ops[0], ast.Eq | ast.In) and isinstance(left, ast.Attribute):
                chain = _config_chain(left)
                right = test.comparators[0]
                values = [right.value] if isinstance(right, ast.Constant) else [
                    e.value for e in getattr(right, "elts", ()) if isinstance(e, ast.Constant)]
                values = [v for v in values if isinstance(v, str) and v]
                # A word-like value must appear as a word ("aot" is not in "float").
                missing = [v for v in values if (v not in words if _WORD.fullmatch(v)
                                                 else v not in runs)]
                if chain and values and len(missing) == len(values):
                    out.append(UntestedBranch(path, node.lineno,
                                              f"{chain} == {values[0]!r}", values[0]))
            elif isinstance(test, ast.Attribute):
                chain = _config_chain(test)
                if chain and test.attr not in words:
                    out.append(UntestedBranch(path, node.lineno, chain, test.attr))
    return sorted(set(out), key=lambda b: (b.file, b.line))
