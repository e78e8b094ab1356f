"""Scout targets as data: one YAML file per target under ``targets/`` (or any path),
validated against a JSON Schema on load; errors name the file and the key.

Reads the target file only; never touches the checkout or the network.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentops import data
from agentops.errors import DataError, InputError
from agentops.scout import trusted_repro

TARGETS_DIR = Path(__file__).resolve().parent / "targets"
# The target of every verb when --config is not given (report, publish and handoff
# must agree, or publish looks for another tracking issue than the report's).
DEFAULT_TARGET = "torchtitan-graph-trainer"

_SYMBOL = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "file"],
    "properties": {
        "name": {"type": "string", "pattern": r"^[A-Za-z_][\w]*(\.[A-Za-z_]\w*)*$"},
        "file": {"type": "string", "minLength": 1},
        "why": {"type": "string"},
        # The file is in this configured upstream's source, not in the repository.
        "upstream": {"type": "string", "minLength": 1},
    },
}
_PATHS = {"type": "array", "items": {"type": "string", "minLength": 1}}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "repo", "subproject", "tests_dir", "watched_paths", "workflows"],
    "properties": {
        "name": {"type": "string", "pattern": r"^[a-z0-9][a-z0-9-]*$"},
        "description": {"type": "string"},
        "repo": {"type": "string", "pattern": r"^[\w.-]+/[\w.-]+$"},
        "subproject": {"type": "string", "minLength": 1},
        "tests_dir": {"type": "string", "minLength": 1},
        "test_glob": {"type": "string", "minLength": 1},
        "watched_paths": {**_PATHS, "minItems": 1},
        "models_dir": {"type": "string"},
        # new_models ("core added a model: consider supporting it") only for a
        # sub-project with one folder per model.
        "per_model_folders": {"type": "boolean"},
        # Packages outside the repository the sub-project builds on (vLLM, transformers,
        # torch): source read from a given directory or the installed distribution.
        "upstreams": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["name"],
            "properties": {
                "name": {"type": "string", "pattern": r"^[A-Za-z_]\w*$"},
                "distribution": {"type": "string", "minLength": 1},
                "path": {"type": "string", "minLength": 1},
                "why": {"type": "string"}}}},
        # S-2: names in TODO(...) that are tags, not owners (added to the built-in ones).
        "todo_tags": _PATHS,
        # S-3: what CI should run, beyond test_*.py files found in tests_dir.
        "ci": {
            "type": "object", "additionalProperties": False,
            "properties": {
                # file -> the test classes CI must select (others in it are not asked).
                "test_classes": {"type": "object", "additionalProperties": {
                    "type": "array", "minItems": 1,
                    "items": {"type": "string", "pattern": r"^[A-Za-z_]\w*$"}}},
                # Runner scripts that are not test_*.py: shell scripts or modules run
                # with `python -m` / `python path`.
                "runners": _PATHS,
            },
        },
        "todo_ref_aliases": {"type": "object",
                             "additionalProperties": {"type": "string",
                                                      "pattern": r"^[\w.-]+/[\w.-]+$"}},
        "fragile_surfaces": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "classes": {"type": "array", "items": _SYMBOL},
                "functions": {"type": "array", "items": _SYMBOL},
                "return_tuples": {"type": "array", "items": _SYMBOL},
                "discover_monkey_patches": {"type": "boolean"},
                "monkey_patch_exclude": _PATHS,
                # Patch targets a maintainer expects (Class.method in a file): the report
                # says which no longer exist upstream or are no longer patched.
                "monkey_patches": {"type": "array", "items": _SYMBOL},
            },
        },
        "config_drift": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "copies": {"type": "array", "items": {
                    "type": "object", "additionalProperties": False,
                    "required": ["source", "copy_function"],
                    "properties": {"source": _SYMBOL, "copy_function": _SYMBOL}}},
                "subclasses": {"type": "array", "items": {
                    "type": "object", "additionalProperties": False,
                    "required": ["base", "subclass"],
                    "properties": {"base": _SYMBOL, "subclass": _SYMBOL}}},
            },
        },
        "private_api": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "names": {"type": "array", "items": {"type": "string", "minLength": 1}},
                "private_import_roots": {"type": "array",
                                         "items": {"type": "string", "minLength": 1}},
                # The sub-project's own packages: their `_names` are never private API.
                "own_packages": {"type": "array",
                                 "items": {"type": "string", "minLength": 1}},
            },
        },
        "duplicate_logic": {"type": "array", "items": {
            "type": "object", "additionalProperties": False,
            "required": ["ours", "upstream"],
            "properties": {
                "ours": _PATHS, "upstream": _PATHS, "why": {"type": "string"},
                # Corresponding functions, when names and contents do not say it.
                "functions": {"type": "array", "items": {
                    "type": "object", "additionalProperties": False,
                    "required": ["ours", "upstream"],
                    "properties": {"ours": {"type": "string", "minLength": 1},
                                   "upstream": {"type": "string", "minLength": 1}}}}}}},
        "workflows": {**_PATHS, "minItems": 1},
        "docs": _PATHS,
        "doc_config_roots": {"type": "array", "items": _SYMBOL},
        "known_flags": _PATHS,
        "coverage": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "core_integration_tests": _PATHS,
                "subproject_integration_tests": _PATHS,
                "parallelism_keywords": _PATHS,
                # The parallelisms the sub-project supports: gaps only for these.
                "parallelisms": _PATHS,
                # How a test name encodes one parallelism, degree included: a regex
                # with a `kind` group (and optionally `degree`), e.g.
                # "(?P<kind>fsdp|tp|pp)(?P<degree>\\d*)" for test_fsdp2_tp4.
                "test_name_pattern": {"type": "string", "minLength": 1},
                "passes_file": {"oneOf": [{"type": "string", "minLength": 1}, _PATHS]},
                "pass_first_param": {"type": "string", "minLength": 1},
                # The flag naming the model in integration-test definitions (per-model
                # test parity); default --module.
                "model_flag": {"type": "string", "pattern": "^--[A-Za-z][\\w.-]*$"},
                "pass_tests": _PATHS,
                "pass_name_regex": {"type": "string", "minLength": 1},
                "config_registry_name": {"type": "string", "minLength": 1},
            },
        },
        # S-3c: the only command the scout may propose for a failing test; values come
        # from the CI log only after trusted_repro checks them against the checkout.
        "repro": trusted_repro.SCHEMA,
        "tracking_issue": {
            "type": "object", "additionalProperties": False, "required": ["repo", "number"],
            "properties": {"repo": {"type": "string", "pattern": r"^[\w.-]+/[\w.-]+$"},
                           "number": {"type": "integer", "minimum": 1},
                           "report_days": {"type": "integer", "minimum": 1}}},
        "board": {
            "type": "object", "additionalProperties": False,
            "required": ["owner", "number"],
            "properties": {"owner": {"type": "string", "minLength": 1},
                           "number": {"type": "integer", "minimum": 1},
                           "project_id": {"type": "string"}}},
        "open_work": {
            "type": "object", "additionalProperties": False,
            "properties": {"search": {"type": "string"},
                           "review_wait_days": {"type": "integer", "minimum": 0},
                           "merged_hours": {"type": "integer", "minimum": 0},
                           "stale_issue_days": {"type": "integer", "minimum": 0}}},
    },
}


@dataclass(frozen=True)
class Symbol:
    """A dotted name (``Trainer.Config``) defined in a repo-relative file."""

    name: str
    file: str
    why: str = ""
    upstream: str = ""


def is_test_name(name: str) -> bool:
    """A file name pytest's default discovery takes for a test module (``test_*.py``,
    ``*_test.py``): what says a file is a test where no folder sets the tests apart."""
    return name.startswith("test_") or name.endswith("_test.py")


def is_test_path(path: str) -> bool:
    """A file under a ``tests/`` folder or named as a test module: the repository's
    test code, which analyses of library code leave out."""
    return "/tests/" in f"/{path}" or is_test_name(path.rsplit("/", 1)[-1])


def is_test_code(path: str) -> bool:
    """``is_test_path`` widened to what pytest runs as test code: a ``test/`` folder too,
    and ``conftest.py`` (its fixtures patch and import for the test session). For the
    analyses that judge what library code does to the process or to imports."""
    return is_test_path(path) or "/test/" in f"/{path}" \
        or path.rsplit("/", 1)[-1] == "conftest.py"


@dataclass(frozen=True)
class Target:
    """One scout target, as validated data. Paths are relative to the repository root."""

    name: str
    repo: str
    subproject: str
    tests_dir: str
    watched_paths: tuple[str, ...]
    workflows: tuple[str, ...]
    raw: dict[str, Any]
    source: data.Loaded

    def section(self, key: str) -> dict[str, Any]:
        """An optional mapping section (``{}`` when absent)."""
        value = self.raw.get(key) or {}
        return value if isinstance(value, dict) else {}

    def symbols(self, section: str, key: str) -> list[Symbol]:
        """``Symbol`` records of ``section.key``."""
        return [_symbol(s) for s in self.section(section).get(key, [])]

    @property
    def test_glob(self) -> str:
        return str(self.raw.get("test_glob", "test_*.py"))

    @property
    def docs(self) -> tuple[str, ...]:
        return tuple(self.raw.get("docs", ()))

    @property
    def per_model_folders(self) -> bool:
        return bool(self.raw.get("per_model_folders", False))

    @property
    def upstreams(self) -> tuple[dict[str, Any], ...]:
        return tuple(self.raw.get("upstreams", ()))

    @property
    def own_packages(self) -> tuple[str, ...]:
        """Dotted packages that are the sub-project's own (its path, and any configured)."""
        own = self.section("private_api").get("own_packages", [])
        return tuple(dict.fromkeys([self.subproject.replace("/", "."), *own]))

    def is_test(self, path: str) -> bool:
        """Whether a file is test code of this target, not the folder's own code: under
        ``tests_dir`` when that is a folder of its own, or in a ``tests/`` folder of the
        sub-project (or anywhere, for a path outside it). A ``tests_dir`` that is the
        sub-project itself or a folder above it (a draft that found the folder's test
        modules among its own code) sets no folder apart, or every module would count as
        a test and no analysis read one; there the file's own name says it
        (``test_*.py``, ``*_test.py``)."""
        sub = self.subproject.rstrip("/") + "/"
        tests = self.tests_dir.rstrip("/") + "/"
        inner = path[len(sub):] if path.startswith(sub) else path
        if "/tests/" in f"/{inner}":
            return True
        if not sub.startswith(tests):
            return path.startswith(tests)
        return is_test_name(path.rsplit("/", 1)[-1])

    @property
    def test_name_pattern(self) -> re.Pattern[str] | None:
        pattern = self.section("coverage").get("test_name_pattern")
        return re.compile(pattern) if pattern else None

    @property
    def repro(self) -> trusted_repro.Template | None:
        """The ``repro:`` template (checked on load), or None when the target has none."""
        return trusted_repro.load_template(self.raw.get("repro"), self.source.path)

    @property
    def tracking_issue(self) -> dict[str, Any]:
        return self.section("tracking_issue")

    @property
    def board(self) -> dict[str, Any]:
        return self.section("board")


def _symbol(raw: dict[str, Any]) -> Symbol:
    return Symbol(name=raw["name"], file=raw["file"], why=raw.get("why", ""),
                  upstream=raw.get("upstream", ""))


def builtin_names() -> list[str]:
    """Names of the targets shipped with agentops."""
    return sorted(p.stem for p in TARGETS_DIR.glob("*.yaml"))


def load_target(name_or_path: str) -> Target:
    """Load a built-in target by name, or a target file by path; validate it."""
    path = Path(name_or_path)
    if not (name_or_path.endswith((".yaml", ".yml", ".json")) or path.exists()):
        path = TARGETS_DIR / f"{name_or_path}.yaml"
        if not path.exists():
            raise InputError("--config", f"no built-in target {name_or_path!r}",
                             fix=f"use one of {', '.join(builtin_names())} or a path to a "
                                 "target YAML file")
        display = f"targets/{path.name}"
    else:
        display = str(name_or_path)
    loaded = data.load(path, SCHEMA, display=display,
                       fix="the keys are listed in docs/scout.md (Targets as data); "
                           "`scout.py init --subproject PATH --checkout DIR` drafts a "
                           "valid target")
    raw = loaded.content
    _check(raw, display)
    return Target(name=raw["name"], repo=raw["repo"], subproject=raw["subproject"].rstrip("/"),
                  tests_dir=raw["tests_dir"].rstrip("/"),
                  watched_paths=tuple(raw["watched_paths"]), workflows=tuple(raw["workflows"]),
                  raw=raw, source=loaded)


def _check(raw: dict[str, Any], display: str) -> None:
    """What the schema cannot say: a pattern that compiles with the groups it needs,
    keys that only make sense together, upstream names given once."""
    trusted_repro.load_template(raw.get("repro"), display)
    cov = raw.get("coverage") or {}
    pattern = cov.get("test_name_pattern")
    if pattern is not None:
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise DataError(display, "coverage.test_name_pattern",
                            f"not a regular expression ({exc})",
                            fix="e.g. '(?P<kind>fsdp|tp|pp|cp|ep)(?P<degree>\\d*)'") from exc
        if "kind" not in compiled.groupindex:
            raise DataError(display, "coverage.test_name_pattern",
                            "has no (?P<kind>...) group naming the parallelism",
                            fix="e.g. '(?P<kind>fsdp|tp|pp|cp|ep)(?P<degree>\\d*)'")
    if raw.get("per_model_folders") and not raw.get("models_dir"):
        raise DataError(display, "per_model_folders",
                        "true, but no models_dir says where core's model folders are",
                        fix="add models_dir: (e.g. torchtitan/models), or drop the key")
    seen: set[str] = set()
    for n, up in enumerate(raw.get("upstreams", [])):
        if up["name"] in seen:
            raise DataError(display, f"upstreams[{n}].name",
                            f"{up['name']!r} is listed twice", fix="list each upstream once")
        seen.add(up["name"])
    known = {u["name"] for u in raw.get("upstreams", [])}
    for key in ("classes", "functions", "return_tuples", "monkey_patches"):
        for n, sym in enumerate((raw.get("fragile_surfaces") or {}).get(key, [])):
            if sym.get("upstream") and sym["upstream"] not in known:
                raise DataError(display, f"fragile_surfaces.{key}[{n}].upstream",
                                f"{sym['upstream']!r} is not one of upstreams: "
                                f"{sorted(known) or 'none configured'}",
                                fix="add it under upstreams:, or drop the key")
