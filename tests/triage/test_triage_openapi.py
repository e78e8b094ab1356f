"""The triage cassettes against GitHub's OpenAPI description (style practice 9): every
REST interaction's method + path is a documented operation, its status is a documented
response, and request/response bodies have the schema's required fields and types.

The description is not vendored (it is ~10 MB): point AGENTOPS_GITHUB_OPENAPI at
``api.github.com.deref.json`` of the ``@octokit/openapi`` npm package to run this, e.g.
``npm pack @octokit/openapi && tar xzf octokit-openapi-*.tgz`` then
``AGENTOPS_GITHUB_OPENAPI=package/generated/api.github.com.deref.json pytest …``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = sorted((ROOT / "cassettes" / "triage").glob("*.yaml"))


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    path = os.environ.get("AGENTOPS_GITHUB_OPENAPI")
    if not path or not Path(path).is_file():
        pytest.skip("AGENTOPS_GITHUB_OPENAPI not set (GitHub's OpenAPI description)")
    return json.loads(Path(path).read_text())


def _operation(spec: dict[str, Any], method: str, path: str) -> dict[str, Any] | None:
    for template, ops in spec["paths"].items():
        if re.fullmatch(re.sub(r"\{[^}]+\}", "[^/]+", template), path) and method in ops:
            return ops[method]
    return None


def _conforms(schema: dict[str, Any] | None, value: Any, where: str) -> list[str]:
    if not schema:
        return []
    for key in ("anyOf", "oneOf"):
        if key in schema:
            tries = [_conforms(s, value, where) for s in schema[key]]
            return [] if any(not t for t in tries) else tries[0]
    if "allOf" in schema:
        return [e for s in schema["allOf"] for e in _conforms(s, value, where)]
    if value is None:
        kind = schema.get("type")
        ok = schema.get("nullable") or (isinstance(kind, list) and "null" in kind)
        return [] if ok else [f"{where}: null"]
    if schema.get("type") == "array":
        if not isinstance(value, list):
            return [f"{where}: not an array"]
        return [e for i, v in enumerate(value) for e in _conforms(schema.get("items"), v,
                                                                   f"{where}[{i}]")]
    if schema.get("type") == "object" or "properties" in schema:
        if not isinstance(value, dict):
            return [f"{where}: not an object"]
        errs = [f"{where}: missing {r}" for r in schema.get("required", []) if r not in value]
        props = schema.get("properties", {})
        return errs + [e for k, v in value.items() if k in props
                       for e in _conforms(props[k], v, f"{where}.{k}")]
    return []


@pytest.mark.parametrize("cassette", CASSETTES, ids=lambda p: p.name)
def test_cassette_matches_github_openapi(spec, cassette):
    for it in yaml.safe_load(cassette.read_text())["interactions"]:
        req, resp = it["request"], it["response"]
        assert "authorization" not in {k.lower() for k in req["headers"]}
        path = req["uri"].removeprefix("https://api.github.com").split("?")[0]
        if path == "/graphql":
            continue  # GraphQL is checked by its own schema, not this description
        op = _operation(spec, req["method"].lower(), path)
        assert op, f"{req['method']} {path} is not a GitHub REST operation"
        response = op["responses"].get(str(resp["status"]["code"]))
        assert response, f"{path}: status {resp['status']['code']} is not documented"
        body = json.loads(resp["body"]["string"] or "null")
        schema = response.get("content", {}).get("application/json", {}).get("schema")
        assert _conforms(schema, body, "response") == []
        if req.get("body"):
            rschema = op["requestBody"]["content"]["application/json"]["schema"]
            assert _conforms(rschema, json.loads(req["body"]), "request") == []


def test_graphql_documents_match_github_schema():
    """The sweep's and the applier's GraphQL documents against GitHub's public schema
    (opt-in: AGENTOPS_GITHUB_GRAPHQL_SCHEMA = schema.graphql of ``@octokit/graphql-schema``,
    and the graphql-core package)."""
    path = os.environ.get("AGENTOPS_GITHUB_GRAPHQL_SCHEMA")
    if not path or not Path(path).is_file():
        pytest.skip("AGENTOPS_GITHUB_GRAPHQL_SCHEMA not set")
    graphql = pytest.importorskip("graphql")
    from agentops.triage import apply, collect

    schema = graphql.build_schema(Path(path).read_text(), assume_valid_sdl=True)
    schema._validation_errors = []  # GitHub's SDL has deprecation quirks graphql-core rejects
    docs: dict[str, str] = {"search": collect.search_document(["fresh", "marked"], 50)}

    class Capture:
        def __init__(self, key: str) -> None:
            self.key = key

        def graphql(self, query: str, variables: Any = None) -> dict[str, Any]:
            docs[self.key] = query
            return {"repository": {}}

    apply.LabelChecker(Capture("labels"), "o/r")._query(["a", "b"])  # type: ignore[arg-type]
    collect.refresh_issues(Capture("issues"), "o/r", [1, 2])  # type: ignore[arg-type]
    for name, doc in docs.items():
        errors = graphql.validate(schema, graphql.parse(doc))
        assert [e.message for e in errors] == [], name
