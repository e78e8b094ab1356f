"""The one loader for data files (labels, rubrics, templates, scout targets, lint
lexicons, post-mortem facts): parse YAML/JSON, validate against a JSON Schema, reject
unknown keys, and report errors as ``file: key.sub[2]: message``.

Reads files only; never writes. Every result carries its path and sha256 so plans and
reports can say exactly which data produced them (provenance).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from agentops.errors import DataError


@dataclass(frozen=True)
class Loaded:
    """A validated data file: its content plus provenance."""

    path: str
    sha256: str
    content: Any

    def provenance(self) -> dict[str, str]:
        """``{"path", "sha256"}`` for embedding in a result object."""
        return {"path": self.path, "sha256": self.sha256}


class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate mapping keys (YAML silently keeps the last).
    Pure Python: for text someone else wrote, after ``untrusted_yaml``'s bounded pass."""


# libyaml's parser when PyYAML was built with it (~10x faster on the shipped data: see
# benchmarks/data_loader.py); the same safe constructors and duplicate-key check.
_CSafeLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _FastUniqueKeyLoader(_CSafeLoader):  # type: ignore[misc, valid-type]
    """The loader of the project's own data and the repository's configuration."""


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node)


for _loader in (_UniqueKeyLoader, _FastUniqueKeyLoader):
    _loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def yaml_loader(*, trusted: bool) -> type:
    """The strict loader class: libyaml's for trusted files, pure Python otherwise."""
    return _FastUniqueKeyLoader if trusted else _UniqueKeyLoader


def key_path(parts: Iterable[Any]) -> str:
    """``["a", "b", 2, "c"]`` → ``a.b[2].c`` (``(root)`` when empty)."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(root)"


def parse_text(text: str, *, name: str, trusted: bool = False) -> Any:
    """Parse YAML or JSON text (by the file name's suffix); errors name the file and
    the line. ``trusted``: the project's own data or the repository's configuration
    (libyaml's parser); otherwise the pure-Python one, after the caller bounded the text
    with ``untrusted_yaml``."""
    try:
        if name.endswith(".json"):
            return json.loads(text)
        return yaml.load(text, Loader=yaml_loader(trusted=trusted))  # noqa: S506 - safe loaders
    except json.JSONDecodeError as exc:
        raise DataError(name, f"line {exc.lineno}", f"not valid JSON: {exc.msg}",
                        fix="fix the syntax at that line") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = f"line {mark.line + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise DataError(name, where, f"not valid YAML: {problem}",
                        fix="fix the syntax at that line") from exc


MAX_LISTED = 20  # errors listed in one message; a file with more has a systematic mistake


def validate(content: Any, schema: Mapping[str, Any], *, name: str,
             fix: str | None = None) -> None:
    """Validate against a JSON Schema; every error (deepest path first, up to
    ``MAX_LISTED``) becomes one ``DataError`` naming the file and each key; ``fix``
    says where the file's format is described (a file users write needs one)."""
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(content),
                    key=lambda e: (list(e.absolute_path), e.message))
    if not errors:
        return
    found: list[str] = []
    for err in errors:
        for text in _explain(err):
            if text not in found:
                found.append(text)
    first, rest = found[0], found[1:]
    key, _, message = first.partition(": ")
    if rest:
        shown = "; ".join(rest[:MAX_LISTED - 1])
        hidden = len(rest) - (MAX_LISTED - 1)
        message += (f" (also: {shown}" + (f"; and {hidden} more like these" if hidden > 0
                                          else "") + ")")
    raise DataError(name, key, message, fix=fix)


def _explain(err: jsonschema.ValidationError) -> list[str]:
    """``key.path: what is wrong`` (one per unknown key), in the loader's words."""
    path = list(err.absolute_path)
    message = err.message
    if err.validator == "additionalProperties":
        extra = sorted(set(err.instance) - set(err.schema.get("properties", {})), key=str)
        allowed = ", ".join(sorted(err.schema.get("properties", {})))
        return [f"{key_path([*path, e])}: unknown key (allowed here: {allowed})"
                for e in extra] or [f"{key_path(path)}: {message}"]
    if err.validator == "required":
        message = f"missing required key: {err.message.split(' ')[0]}"
    elif err.validator in ("type", "enum", "pattern", "minItems", "minLength", "const"):
        expected = _describe(err.validator, err.validator_value)
        message = f"expected {expected}, got {_short(err.instance)}"
    return [f"{key_path(path)}: {message}"]


def _describe(kind: str, value: Any) -> str:
    if kind == "type":
        return value if isinstance(value, str) else " or ".join(value)
    if kind == "enum":
        return "one of " + ", ".join(repr(v) for v in value)
    if kind == "pattern":
        return f"text matching /{value}/"
    if kind == "minItems":
        return f"at least {value} item(s)"
    if kind == "minLength":
        return "a non-empty string" if value == 1 else f"at least {value} characters"
    return repr(value)


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def load(path: str | Path, schema: Mapping[str, Any] | None = None, *,
         display: str | None = None, fix: str | None = None) -> Loaded:
    """Read, parse and validate one data file.

    ``display`` is the name used in errors (defaults to the path as given); ``fix``
    goes with a schema error (see ``validate``)."""
    p = Path(path)
    name = display or str(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError as exc:
        raise DataError(name, "", "file not found", fix="check the path") from exc
    except OSError as exc:
        raise DataError(name, "", f"cannot read: {exc.strerror}") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(name, "", "not UTF-8 text") from exc
    content = parse_text(text, name=name if name.endswith((".json", ".yml", ".yaml")) else str(p),
                         trusted=True)
    if schema is not None:
        validate(content, schema, name=name, fix=fix)
    return Loaded(path=name, sha256=hashlib.sha256(raw).hexdigest(), content=content)
