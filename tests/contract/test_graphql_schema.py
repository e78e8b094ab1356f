"""Every GraphQL document agentops sends, validated against GitHub's public GraphQL
schema (npm ``@octokit/graphql-schema``, installed by ``.ci/npm-fixtures``) with
graphql-core: field names, argument names and types, fragments on the right types,
variables declared and used. Recorded cassettes are checked too, including the
variable values they sent (issue #6, "API contract"; S-8 for the Projects v2 calls).

The mutation allowlist in ``test_openapi_cassettes`` works without the schema; this test
is the stricter check where the schema is at hand.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import graphql
import pytest
import yaml

from tests.ci_fixtures import require

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_FILE = (ROOT / ".ci" / "npm" / "node_modules" / "@octokit" / "graphql-schema"
               / "schema.graphql")


@pytest.fixture(scope="module")
def schema() -> Any:
    require(SCHEMA_FILE, "@octokit/graphql-schema")
    # The published SDL repeats a few enterprise fields (a known quirk of GitHub's
    # export); skip schema self-validation, documents are still validated in full.
    return graphql.build_schema(SCHEMA_FILE.read_text(encoding="utf-8"),
                                assume_valid=True, assume_valid_sdl=True)


def _errors(schema: Any, document: str, variables: dict[str, Any] | None = None) -> list[str]:
    try:
        ast = graphql.parse(document)
    except graphql.GraphQLError as exc:
        return [f"syntax: {exc.message}"]
    problems = [e.message for e in graphql.validate(schema, ast)]
    if problems or variables is None:
        return problems
    from graphql.execution.values import get_variable_values

    for op in ast.definitions:
        if isinstance(op, graphql.OperationDefinitionNode):
            coerced = get_variable_values(schema, op.variable_definitions or [], variables)
            if isinstance(coerced, list):  # a list of errors, else the coerced values
                problems += [e.message for e in coerced]
    return problems


class _Capture:
    """A client stand-in that records the documents code would send."""

    def __init__(self, answer: dict[str, Any]) -> None:
        self.answer = answer
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def graphql(self, query: str, variables: dict[str, Any] | None = None,
                **_: Any) -> dict[str, Any]:
        self.sent.append((query, dict(variables or {})))
        return self.answer


def _source_documents() -> Iterator[tuple[str, str, dict[str, Any] | None]]:
    """(name, document, variables or None) for every document the code can send."""
    from agentops.scout import collect as scout_collect
    from agentops.scout import projects, publish
    from agentops.triage import apply, collect

    yield "triage sweep search", collect.search_document(["fresh", "marked"], 50), None
    cap = _Capture({"repository": {}})
    apply.LabelChecker(cap, "o/r")._query(["module: fsdp", "triage review"])  # type: ignore[arg-type]
    collect.refresh_issues(cap, "o/r", [1, 2])  # type: ignore[arg-type]
    for i, (doc, variables) in enumerate(cap.sent):
        yield f"triage captured #{i}", doc, variables
    for name in ("BY_ID", "BY_ORG", "BY_USER", "ITEM_STATUS"):
        yield f"scout projects.{name}", getattr(projects, name), None
    for name in ("ADD_DRAFT", "SET_STATUS", "EDIT_DRAFT"):
        yield f"scout publish.{name}", getattr(publish, name), None
    yield "scout collect._PR_SEARCH", scout_collect._PR_SEARCH, None
    from agentops.github import identity

    yield "github identity.VIEWER", identity.VIEWER, {}


def _cassette_documents() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path in sorted((ROOT / "cassettes").rglob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for i, it in enumerate(data.get("interactions") or []):
            req = it["request"]
            if not str(req["uri"]).split("?")[0].endswith("/graphql"):
                continue
            body = json.loads(req["body"])
            yield f"{path.relative_to(ROOT)}#{i}", body["query"], body.get("variables") or {}


SOURCE = list(_source_documents())
RECORDED = list(_cassette_documents())


@pytest.mark.parametrize(("name", "document", "variables"), SOURCE,
                         ids=[s[0] for s in SOURCE])
def test_source_documents_validate(schema, name, document, variables) -> None:
    assert _errors(schema, document, variables) == [], name


@pytest.mark.parametrize(("name", "document", "variables"), RECORDED,
                         ids=[r[0] for r in RECORDED])
def test_recorded_documents_and_variables_validate(schema, name, document, variables) -> None:
    assert _errors(schema, document, variables) == [], name


def test_there_is_something_to_check() -> None:
    # The Projects v2 mutations and the triage sweep must be among the checked documents.
    names = " ".join(s[0] for s in SOURCE)
    assert "ADD_DRAFT" in names and "triage sweep" in names
    assert any("addProjectV2DraftIssue" in r[1] for r in RECORDED)


def test_the_check_fails_on_a_wrong_field_argument_or_variable(schema) -> None:
    from agentops.scout import publish

    assert _errors(schema, publish.ADD_DRAFT.replace("projectItem", "projectitem"))
    assert _errors(schema, publish.SET_STATUS.replace("singleSelectOptionId", "optionId"))
    assert _errors(schema, publish.EDIT_DRAFT, {"draft": "DI_1"})  # $body missing
    assert _errors(schema, publish.ADD_DRAFT, {"project": 7, "title": "t", "body": "b"}) == []
    assert _errors(schema, publish.ADD_DRAFT, {"project": "P", "title": ["t"], "body": "b"})
