"""Fill the fields a hand-written cassette left out, so it looks like the real API.

    python -m tests.contract.complete_cassettes cassettes/triage/*.yaml          # rewrite
    python -m tests.contract.complete_cassettes --check cassettes/**/*.yaml      # report

A maintenance tool (test side, never run by CI): for every REST response that lacks
properties GitHub's OpenAPI description marks required, it adds them, using the
description's own ``example`` values where it has one and a typed placeholder
otherwise (``null`` for nullable fields). Nothing already recorded is changed, so a
test that reads a field still reads the value it was written with. Then run
``tests/contract/test_openapi_cassettes.py``: what is left (a wrong type, an
undocumented path) needs a human.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import urllib.parse
from pathlib import Path
from typing import Any

import yaml

from tests.contract import openapi

_PLACEHOLDER = {"string": "", "integer": 0, "number": 0, "boolean": False}


def example(schema: Any) -> Any:
    """A value that validates against a (converted) schema: its example, else typed."""
    if not isinstance(schema, dict):
        return None
    if "example" in schema and schema["example"] is not None:
        return copy.deepcopy(schema["example"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = schema[key]
            if any(o.get("type") == "null" for o in options if isinstance(o, dict)):
                return None  # nullable: null is the honest placeholder
            return example(options[0])
    if "allOf" in schema:
        out: dict[str, Any] = {}
        for part in schema["allOf"]:
            value = example(part)
            if isinstance(value, dict):
                out.update(value)
        return out
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        return {name: example(props.get(name, {})) for name in schema.get("required") or ()}
    if kind == "array":
        return []
    if kind == "string":
        fmt = schema.get("format")
        return {"date-time": "2026-01-01T00:00:00Z", "uri": "https://api.github.com/",
                "date": "2026-01-01"}.get(fmt, "")
    return _PLACEHOLDER.get(str(kind))


def _at(document: Any, path: list[Any]) -> Any:
    for part in path:
        document = document[part]
    return document


def complete_body(schema: Any, body: Any, *, passes: int = 8) -> tuple[Any, int]:
    """``body`` with every missing required property added; (body, number added)."""
    validator = openapi._validator(schema)
    body = copy.deepcopy(body)
    added = 0
    for _ in range(passes):
        changed = False
        for err in validator.iter_errors(body):
            leaf = openapi._deepest(err)
            if leaf.validator != "required" or not isinstance(leaf.instance, dict):
                continue
            target = _at(body, list(leaf.absolute_path))
            props = (leaf.schema or {}).get("properties") or {}
            for name in leaf.validator_value:
                if name not in target:
                    target[name] = example(props.get(name, {}))
                    added += 1
                    changed = True
        if not changed:
            break
    return body, added


def complete_cassette(path: Path, index: openapi.OpenAPIIndex, *, write: bool) -> int:
    """Fill one cassette; returns how many properties were (or would be) added."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    total = 0
    for inter in data.get("interactions") or []:
        req, resp = inter.get("request") or {}, inter.get("response") or {}
        url = urllib.parse.urlsplit(str(req.get("uri") or ""))
        if not openapi.is_github_api(url):
            continue
        hit = index.match(str(req.get("method") or ""), openapi.api_path(url.path))
        body_holder = resp.get("body")
        if hit is None or not isinstance(body_holder, dict):
            continue
        spec = (hit[0].raw.get("responses") or {}).get(str((resp.get("status") or {}).get("code")))
        media = openapi._json_content((spec or {}).get("content"))
        raw = body_holder.get("string")
        if not media or not media.get("schema") or not isinstance(raw, str) or not raw:
            continue
        try:
            body = json.loads(raw)
        except ValueError:
            continue
        new, added = complete_body(media["schema"], body)
        if added:
            total += added
            body_holder["string"] = json.dumps(new)
    if write and total:
        path.write_text(yaml.dump(data, Dumper=_NoAlias, sort_keys=False, allow_unicode=True,
                                  width=100), encoding="utf-8")
    return total


class _NoAlias(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("cassettes", nargs="+", type=Path)
    p.add_argument("--check", action="store_true", help="report, change nothing")
    args = p.parse_args(argv)
    index = openapi.load_index()
    grand = 0
    for path in args.cassettes:
        n = complete_cassette(path, index, write=not args.check)
        grand += n
        if n:
            print(f"{path}: {'would add' if args.check else 'added'} {n} missing field(s)")
    print(f"{grand} field(s) {'missing' if args.check else 'added'} in "
          f"{len(args.cassettes)} cassette(s)")
    return 1 if args.check and grand else 0


if __name__ == "__main__":
    sys.exit(main())
