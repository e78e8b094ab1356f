"""S-3e coverage gaps: parallelism combinations the core integration tests exercise
and the sub-project's do not; graph passes without a test; registered configs no test
or workflow uses; public code added since the baseline that no test mentions.

Pure: reads the loaded trees; returns frozen records.
"""

from __future__ import annotations

import ast
import re
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


def _test_names(text: str) -> list[str]:
    """``test_name`` strings of ``OverrideDefinitions(...)`` calls (keyword, or the third
    positional argument as in torchtitan's integration lists)."""
    mod = ps.parse(text)
    out: list[str] = []
    if mod is None:
        return out
    for node in ast.walk(mod):
        if not (isinstance(node, ast.Call) and ast.unparse(node.func).endswith(
                "OverrideDefinitions")):
            continue
        value = next((k.value for k in node.keywords if k.arg == "test_name"), None)
        if value is None and len(node.args) >= 3:
            value = node.args[2]
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            out.append(value.value)
    return out


def _combo(name: str, keywords: list[str]) -> frozenset[str]:
    words = set(re.split(r"[^a-z0-9]+", name.lower()))
    return frozenset(k for k in keywords if k in words)


def parallelism_gaps(inp: Inputs) -> list[Gap]:
    """Combinations of >= 2 parallelism keywords in core test names that no
    sub-project test name covers."""
    cov = inp.target.section("coverage")
    keywords = [k.lower() for k in cov.get("parallelism_keywords", [])]
    if not keywords:
        return []
    core: dict[frozenset[str], list[str]] = {}
    for path in cov.get("core_integration_tests", []):
        for name in _test_names(inp.head.text(path) or ""):
            combo = _combo(name, keywords)
            if len(combo) >= 2:
                core.setdefault(combo, []).append(name)
    ours = [_combo(n, keywords) for p in cov.get("subproject_integration_tests", [])
            for n in _test_names(inp.head.text(p) or "")]
    files = tuple(cov.get("core_integration_tests", []) + cov.get(
        "subproject_integration_tests", []))
    gaps = []
    for combo, names in sorted(core.items(), key=lambda kv: sorted(kv[0])):
        if not any(combo <= mine for mine in ours):
            label = "+".join(k for k in keywords if k in combo)
            gaps.append(Gap("parallelism", label,
                            f"core tests {', '.join(sorted(names)[:3])} combine {label}; no "
                            "sub-project integration test does", files))
    return gaps


def passes_without_tests(inp: Inputs) -> list[Unused]:
    """Graph passes in the passes file whose name no pass-test file mentions."""
    cov = inp.target.section("coverage")
    path = cov.get("passes_file")
    text = inp.head.text(path) if path else None
    if text is None:
        return []
    rx = re.compile(cov.get("pass_name_regex", r"_pass(es)?$"))
    tests = " ".join(inp.head.text(t) or "" for t in cov.get("pass_tests", []))
    out = []
    for name, line in ps.top_level_names(ps.parse(text)).items():
        if rx.search(name) and not re.search(rf"\b{re.escape(name)}\b", tests):
            out.append(Unused(name, path, line))
    return sorted(out, key=lambda u: u.line)


def configs_without_tests(inp: Inputs) -> list[Unused]:
    """Config functions in the sub-project's config registries that no test file and
    no configured workflow names."""
    name = inp.target.section("coverage").get("config_registry_name", "config_registry.py")
    sub = inp.target.subproject + "/"
    users = " ".join(text for p, text in inp.head.files.items()
                     if p.startswith(inp.target.tests_dir + "/") or "/tests/" in p
                     or p.startswith("tests/") or p in inp.target.workflows)
    out = []
    for path in sorted(p for p in inp.head.files if p.startswith(sub)
                       and p.rsplit("/", 1)[-1] == name):
        for fn, line in ps.top_level_names(ps.parse(inp.head.files[path])).items():
            # Substring first: the word-boundary regex over every test file is the slow part.
            if fn not in users or not re.search(rf"\b{re.escape(fn)}\b", users):
                out.append(Unused(fn, path, line))
    return out


def untested_new_code(inp: Inputs) -> list[Gap]:
    """Public functions/classes added to the sub-project since the baseline whose name
    appears in no test file."""
    if inp.base is None:
        return []
    sub, tests = inp.target.subproject + "/", inp.target.tests_dir + "/"
    test_text = " ".join(t for p, t in inp.head.files.items() if p.startswith(tests))
    out = []
    for path in sorted(inp.head.files):
        if not path.startswith(sub) or path.startswith(tests) or not path.endswith(".py"):
            continue
        old = inp.base.text(path)
        if old == inp.head.files[path]:
            continue
        now = ps.top_level_names(ps.parse(inp.head.files[path]))
        before = ps.top_level_names(ps.parse(old)) if old is not None else {}
        if path.rsplit("/", 1)[-1] == inp.target.section("coverage").get(
                "config_registry_name", "config_registry.py"):
            continue  # configs are checked by configs_without_tests
        for name in sorted(now.keys() - before.keys()):
            if not re.search(rf"\b{re.escape(name)}\b", test_text):
                out.append(Gap("untested_new_code", name,
                               f"{name} ({path}:{now[name]}) was added since the baseline "
                               "and no test mentions it", (path,)))
    return out
