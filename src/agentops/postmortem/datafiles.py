"""Load and validate the post-mortem skill's data: the facts JSON Schema and the lint
rules (with their examples); ``validate_all`` is what scripts/validate_data.py runs.

Adapter side (reads files); never writes.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import jsonschema

from agentops import data
from agentops.errors import DataError
from agentops.postmortem.lint import Rule, compile_rules

HERE = Path(__file__).resolve().parent
SCHEMA = HERE / "schema.yaml"
LINT_RULES = HERE / "lint_rules.yaml"
EXAMPLES = HERE.parent.parent.parent / "examples" / "postmortem"

_EXAMPLE = {"oneOf": [
    {"type": "object", "additionalProperties": False, "required": ["text"],
     "properties": {"text": {"type": "string", "minLength": 1},
                    "section": {"type": "string"}}},
    {"type": "object", "additionalProperties": False, "required": ["draft"],
     "properties": {"draft": {"type": "string", "minLength": 1},
                    "facts": {"type": "object"}}},
]}
LINT_RULES_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["version", "rules"],
    "properties": {
        "version": {"const": 1},
        "rules": {"type": "array", "minItems": 1, "items": {
            "type": "object", "additionalProperties": False,
            "required": ["id", "kind", "message", "match", "no_match"],
            "properties": {
                "id": {"type": "string", "pattern": "^[a-z][a-z-]*$"},
                "kind": {"enum": ["lexicon", "check"]},
                "scope": {"type": "string",
                          "pattern": "^(all|(outside|section):[a-z_]+)$"},
                "check": {"enum": ["required_sections", "identifiers",
                                   "verification_scope"]},
                "message": {"type": "string", "minLength": 1},
                "patterns": {"type": "array", "items": {"type": "string", "minLength": 1}},
                "unless": {"type": "array", "items": {"type": "string", "minLength": 1}},
                # Sanity: every rule proves itself both ways (style §12.6).
                "match": {"type": "array", "minItems": 1, "items": _EXAMPLE},
                "no_match": {"type": "array", "minItems": 1, "items": _EXAMPLE},
            }}},
    },
}


@functools.cache
def facts_schema() -> dict[str, Any]:
    """The facts JSON Schema (itself checked against the 2020-12 meta-schema)."""
    schema = data.load(SCHEMA, display="postmortem/schema.yaml").content
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise DataError("postmortem/schema.yaml", data.key_path(exc.absolute_path),
                        exc.message) from exc
    return schema


def load_facts(path: str | Path) -> data.Loaded:
    """A facts file, validated; errors name the file and the key (exit 1)."""
    return data.load(path, facts_schema())


@functools.cache
def lint_rules() -> tuple[Rule, ...]:
    """The lint rules, validated and compiled; a bad regex names its rule."""
    loaded = data.load(LINT_RULES, LINT_RULES_SCHEMA, display="postmortem/lint_rules.yaml")
    for i, rule in enumerate(loaded.content["rules"]):
        for j, pattern in enumerate(rule.get("patterns", [])):
            try:
                re.compile(pattern)
            except re.error as exc:
                raise DataError("postmortem/lint_rules.yaml", f"rules[{i}].patterns[{j}]",
                                f"not a valid regex: {exc}") from exc
        if rule["kind"] == "check" and not rule.get("check"):
            raise DataError("postmortem/lint_rules.yaml", f"rules[{i}]",
                            "a check rule names its check")
    ids = [r["id"] for r in loaded.content["rules"]]
    if len(set(ids)) != len(ids):
        raise DataError("postmortem/lint_rules.yaml", "rules", "rule ids repeat")
    return compile_rules(loaded.content)


def hedges() -> tuple[re.Pattern[str], ...]:
    """The hedging lexicon, shared by the gate (a hedged root cause is a hypothesis)."""
    return next(r.patterns for r in lint_rules() if r.id == "hedging")


def validate_all() -> list[str]:
    """Validate the shipped data and the bundled example facts files."""
    facts_schema()
    lint_rules()
    checked = ["postmortem/schema.yaml", "postmortem/lint_rules.yaml"]
    if EXAMPLES.is_dir():
        for path in sorted(EXAMPLES.glob("*.facts.yml")):
            load_facts(path)
            checked.append(f"examples/postmortem/{path.name}")
    return checked
