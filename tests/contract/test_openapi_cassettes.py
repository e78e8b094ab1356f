"""Every recorded GitHub interaction under ``cassettes/`` matches the real API contract
(style practice 9): GitHub's OpenAPI description for REST, a documented-mutation
allowlist for GraphQL. The checker itself is proven on fixture cassettes: the valid
ones pass, the broken ones fail with a message naming cassette, interaction, operation
and field."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from tests.ci_fixtures import require
from tests.contract import openapi

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures" / "cassettes"
PROJECT_CASSETTES = sorted((ROOT / "cassettes").rglob("*.yaml"))


@pytest.fixture(scope="session")
def index() -> openapi.OpenAPIIndex:
    require(openapi.OPENAPI_JSON, "@octokit/openapi")
    return openapi.load_index()


def _problems(path: Path, index: openapi.OpenAPIIndex) -> list[str]:
    return [str(p) for p in openapi.check_cassette(path, index,
                                                   display=str(path.relative_to(path.parents[1])))]


# --- the project's cassettes -------------------------------------------------------------

@pytest.mark.parametrize("cassette", PROJECT_CASSETTES or [None],
                         ids=[str(p.relative_to(ROOT)) for p in PROJECT_CASSETTES] or ["none"])
def test_project_cassette_matches_github_api(cassette: Path | None, index) -> None:
    assert cassette is not None, "no cassettes/**/*.yaml: this check would check nothing"
    problems = [str(p) for p in openapi.check_cassette(cassette, index,
                                                       display=str(cassette.relative_to(ROOT)))]
    assert not problems, "\n".join(problems)


# --- the checker, on its own fixtures ----------------------------------------------------

@pytest.mark.parametrize("name", sorted(p.name for p in (FIXTURES / "valid").glob("*.yaml")))
def test_valid_fixture_passes(name: str, index) -> None:
    assert _problems(FIXTURES / "valid" / name, index) == []


def test_altered_path_names_cassette_interaction_and_nearest_operation(index) -> None:
    problems = _problems(FIXTURES / "broken" / "altered_path.yaml", index)
    assert len(problems) == 1
    assert problems[0].startswith(
        "broken/altered_path.yaml: interaction 1: "
        "POST /repos/octo-org/octo-repo/issue/1347/labels: "
        "no operation in GitHub's OpenAPI description")
    # The fix is in the message: the real template is the first suggestion.
    assert "nearest: POST /repos/{owner}/{repo}/issues/{issue_number}/labels" in problems[0]


def test_dropped_response_field_names_operation_and_field(index) -> None:
    assert _problems(FIXTURES / "broken" / "dropped_field.yaml", index) == [
        "broken/dropped_field.yaml: interaction 0: issues/add-labels "
        "(POST /repos/{owner}/{repo}/issues/{issue_number}/labels): "
        "response 200 body[1]: missing required 'name'"]


def test_graphql_missing_and_invented_input_fields(index) -> None:
    assert _problems(FIXTURES / "broken" / "graphql_bad_input.yaml", index) == [
        "broken/graphql_bad_input.yaml: interaction 0: graphql mutation (anonymous) "
        "addProjectV2DraftIssue: input.projectId: required input field missing",
        "broken/graphql_bad_input.yaml: interaction 0: graphql mutation (anonymous) "
        "addProjectV2DraftIssue: input.status: not a field of the addProjectV2DraftIssue input",
    ]


# --- single-interaction mutations of a valid recording -----------------------------------

def _valid(n: int) -> dict:
    data = yaml.safe_load((FIXTURES / "valid" / "triage_apply.yaml").read_text())
    return copy.deepcopy(data["interactions"][n])


def _check(inter: dict, index) -> list[str]:
    return [f"{op}: {msg}" for op, msg in openapi.check_interaction(inter, index)]


def test_url_encoded_label_name_matches_one_segment(index) -> None:
    inter = _valid(2)
    assert inter["request"]["uri"].endswith("/labels/oncall%3A%20distributed%20infra")
    assert _check(inter, index) == []
    hit = index.match("GET", "/repos/o/r/labels/a%2Fb")  # an encoded slash stays in {name}
    assert hit is not None and hit[0].operation_id == "issues/get-label"
    assert hit[1]["name"] == "a%2Fb"


def test_ghes_prefix_is_stripped_but_other_prefixes_are_not(index) -> None:
    inter = _valid(0)
    inter["request"]["uri"] = "https://ghe.example.com/api/v3/repos/o/r/issues/5"
    assert _check(inter, index) == []
    inter["request"]["uri"] = "https://api.github.com/api/v4/repos/o/r/issues/5"
    assert "no operation" in _check(inter, index)[0]


def test_pagination_links_by_repository_id_match(index) -> None:
    inter = _valid(1)
    inter["request"]["uri"] = ("https://api.github.com/repositories/777/issues/1347/comments"
                               "?per_page=100&page=2")
    assert _check(inter, index) == []


def test_every_missing_field_of_an_object_is_named_at_once(index) -> None:
    inter = _valid(0)
    body = json.loads(inter["response"]["body"]["string"])
    for key in ("events_url", "followers_url", "site_admin"):
        del body["user"][key]
    inter["response"]["body"]["string"] = json.dumps(body)
    assert _check(inter, index) == [
        "issues/get (GET /repos/{owner}/{repo}/issues/{issue_number}): response 200 body.user: "
        "missing required 'events_url', 'followers_url', 'site_admin'"]


def test_requests_to_other_hosts_are_not_this_contract(index) -> None:
    inter = _valid(0)
    inter["request"]["uri"] = ("https://results-receiver.blob.core.windows.net/"
                               "actions-results/1/logs/job/job-logs.txt")
    inter["response"]["body"]["string"] = "plain log text"
    assert _check(inter, index) == []
    inter["request"]["uri"] = "http://127.0.0.1:8123/repos/o/r/issue/1"  # a stand-in: checked
    assert "no operation" in _check(inter, index)[0]


def test_path_parameter_type_is_checked(index) -> None:
    inter = _valid(0)
    inter["request"]["uri"] = inter["request"]["uri"].replace("/1347", "/latest")
    problems = _check(inter, index)
    assert len(problems) == 1
    assert problems[0].startswith("issues/get (GET /repos/{owner}/{repo}/issues/{issue_number}): "
                                  "path parameter issue_number='latest' does not fit")


def test_query_parameters_unknown_and_out_of_enum(index) -> None:
    inter = _valid(1)
    inter["request"]["uri"] += "&per_pag=5"
    assert _check(inter, index) == [
        "issues/list-comments (GET /repos/{owner}/{repo}/issues/{issue_number}/comments): "
        "query parameter 'per_pag' is not one this operation takes (page, per_page, since)"]
    listing = _valid(0)
    listing["request"]["uri"] = "https://api.github.com/repos/o/r/issues?state=opened&labels=x"
    listing["response"]["body"]["string"] = "[]"
    problems = _check(listing, index)
    assert len(problems) == 1 and "query parameter state=['opened'] does not fit" in problems[0]


def test_request_body_is_validated(index) -> None:
    inter = _valid(4)  # POST a comment
    inter["request"]["body"] = json.dumps({"text": "hello"})
    problems = _check(inter, index)
    assert problems and all("request body" in p for p in problems)
    assert any("missing required 'body'" in p for p in problems)


def test_wrong_type_and_undocumented_status(index) -> None:
    inter = _valid(3)
    body = json.loads(inter["response"]["body"]["string"])
    body[0]["color"] = 0xededed
    inter["response"]["body"]["string"] = json.dumps(body)
    assert _check(inter, index) == [
        "issues/add-labels (POST /repos/{owner}/{repo}/issues/{issue_number}/labels): "
        "response 200 body[0].color: 15592941 is not of type 'string'"]
    inter = _valid(4)
    inter["response"]["status"] = {"code": 200, "message": "OK"}  # create-comment answers 201
    assert "status 200 is not a documented response" in _check(inter, index)[0]


def test_nullable_fields_accept_null_and_only_null(index) -> None:
    inter = _valid(0)
    body = json.loads(inter["response"]["body"]["string"])
    assert body["milestone"] is None and body["closed_at"] is None  # nullable: accepted
    body["locked"] = None  # not nullable
    inter["response"]["body"]["string"] = json.dumps(body)
    assert _check(inter, index) == [
        "issues/get (GET /repos/{owner}/{repo}/issues/{issue_number}): "
        "response 200 body.locked: None is not of type 'boolean'"]


def test_credentials_in_a_recording_are_reported(index) -> None:
    inter = _valid(0)
    inter["request"]["headers"]["Authorization"] = ["token ghp_x"]
    assert _check(inter, index) == [
        "GET /repos/octo-org/octo-repo/issues/1347: "
        "request header 'Authorization' must be filtered"]


# --- GraphQL without the OpenAPI file ----------------------------------------------------

def _gql(query: str, variables: dict | None = None, data: dict | None = None) -> list[str]:
    return [f"{op}: {msg}" for op, msg in openapi.graphql_problems(
        {"query": query, "variables": variables or {}}, {"data": data or {}})]


def test_graphql_query_roots_and_kinds() -> None:
    assert _gql("{ repository(owner: \"o\", name: \"r\") { id } }",
                data={"repository": {"id": "R_1"}}) == []
    assert _gql("query { repo(owner: \"o\") { id } }", data={"repo": {}})[0].endswith(
        "'repo' is not a Query root field agentops knows (__typename, node, nodes, "
        "organization, rateLimit, repository, search, user, viewer)")
    assert _gql("subscription { x }") == [
        "graphql subscription (anonymous): operation kind 'subscription': only query and "
        "mutation are used"]


def test_graphql_mutation_allowlist_variables_and_response() -> None:
    q = ("mutation Edit($id: ID!, $body: String!) {\n"
         "  updateIssueComment(input: {id: $id, body: $body}) { issueComment { id } }\n}")
    assert _gql(q, {"id": "IC_1", "body": "x"}, {"updateIssueComment": {"issueComment": {}}}) == []
    assert _gql(q, {"id": "IC_1"}, {"updateIssueComment": {}}) == [
        "graphql mutation Edit: variable $body (String!) is required but not provided",
        "graphql mutation Edit updateIssueComment: input.body: required input field missing"]
    assert _gql(q, {"id": "IC_1", "body": "x"}, {}) == [
        "graphql mutation Edit updateIssueComment: response data lacks 'updateIssueComment'"]
    assert _gql("mutation { closeIssue(input: {issueId: \"I_1\"}) { clientMutationId } }",
                data={"closeIssue": {}})[0].startswith(
        "graphql mutation (anonymous) closeIssue: mutation 'closeIssue' is not in the "
        "documented allowlist")
    assert _gql("mutation { addComment(input: {subjectId: $s, body: \"b\"}) { clientMutationId } }",
                data={"addComment": {}}) == [
        "graphql mutation (anonymous): $s is used but not declared",
        "graphql mutation (anonymous) addComment: input.subjectId: required input field missing"]


def test_graphql_input_variable_object_and_field_value_shape() -> None:
    q = ("mutation($input: UpdateProjectV2ItemFieldValueInput!) {\n"
         "  set: updateProjectV2ItemFieldValue(input: $input) { projectV2Item { id } }\n}")
    good = {"projectId": "P", "itemId": "I", "fieldId": "F", "value": {"singleSelectOptionId": "o"}}
    assert _gql(q, {"input": good}, {"set": {"projectV2Item": {"id": "I"}}}) == []
    bad = {**good, "value": {"singleSelectOptionId": "o", "text": "t"}}
    assert _gql(q, {"input": bad}, {"set": {}}) == [
        "graphql mutation (anonymous) updateProjectV2ItemFieldValue: input.value: "
        "ProjectV2FieldValue takes exactly one of ['date', 'iterationId', 'number', "
        "'singleSelectOptionId', 'text'], got ['singleSelectOptionId', 'text']"]


def test_graphql_parser_handles_fragments_strings_and_comments() -> None:
    q = ('# leading comment\nquery Q($n: Int = 3) {\n  viewer { login }\n'
         '  ... on Query { rateLimit { remaining } }\n'
         '  search(query: "label:\\"oncall: distributed\\"", type: ISSUE, first: $n) '
         '{ nodes { ...F } }\n}\nfragment F on Issue { number title }\n')
    ops = openapi.parse_graphql(q)
    assert [(o.kind, o.name) for o in ops] == [("query", "Q")]
    assert [f.name for f in ops[0].fields] == ["viewer", "rateLimit", "search"]
    assert ops[0].fields[2].args["query"] == 'label:"oncall: distributed"'
    assert ops[0].variables == {"n": ("Int", True)}
    with pytest.raises(openapi.GraphQLSyntaxError):
        openapi.parse_graphql("mutation { addComment(input: {subjectId: ")


def test_to_jsonschema_turns_nullable_into_anyof_null() -> None:
    schema = {"type": "object", "properties": {
        "nullable": {"type": "string"},  # a property literally named like the keyword
        "m": {"type": "string", "enum": ["a"], "nullable": True}}}
    out = openapi.to_jsonschema(schema)
    assert out["properties"]["nullable"] == {"type": "string"}
    assert out["properties"]["m"] == {"anyOf": [{"type": "null"},
                                                {"type": "string", "enum": ["a", None]}]}
