"""agentops.github.identity at its edges (#26 item 5): which GraphQL failures fall back
to ``GET /user`` (the endpoint is missing) and which stand (a server error or an auth
failure REST would share), answers that name no account, and how ``wrote`` compares."""

from __future__ import annotations

from typing import Any

import pytest

from agentops.errors import ApiError
from agentops.github.identity import Identity, token_identity


class _Client:
    def __init__(self, graphql: Any = None, *, status: int | None = None,
                 user: Any = None) -> None:
        self.answer, self.status, self.user = graphql, status, user
        self.reads: list[str] = []

    def graphql(self, query: str, variables: Any = None, **_: Any) -> Any:
        if self.status is not None:
            raise ApiError("graphql failed", status_code=self.status)
        return self.answer

    def read(self, path: str, params: Any = None) -> Any:
        self.reads.append(path)
        return self.user


@pytest.mark.parametrize("status", [404, 405, 501])
def test_no_graphql_endpoint_falls_back_to_get_user(status: int) -> None:
    client = _Client(status=status, user={"login": " octo-bot "})
    assert token_identity(client) == Identity("octo-bot", "GET /user")  # type: ignore[arg-type]
    assert client.reads == ["/user"]


@pytest.mark.parametrize("status", [400, 401, 403, 500, 502])
def test_other_graphql_failures_stand(status: int) -> None:
    client = _Client(status=status, user={"login": "octo-bot"})
    with pytest.raises(ApiError) as err:
        token_identity(client)  # type: ignore[arg-type]
    assert err.value.status_code == status and client.reads == []


@pytest.mark.parametrize("answer", [None, [], "x", {}, {"viewer": None}, {"viewer": []},
                                    {"viewer": {"login": ""}}, {"viewer": {"login": "  "}},
                                    {"viewer": {"login": 7}}])
def test_an_answer_naming_no_account_is_an_api_error(answer: Any) -> None:
    with pytest.raises(ApiError, match="GraphQL viewer did not name the token's account"):
        token_identity(_Client(answer))  # type: ignore[arg-type]


@pytest.mark.parametrize("user", [None, [], {"login": None}, {"login": " "}])
def test_get_user_naming_no_account_is_an_api_error(user: Any) -> None:
    with pytest.raises(ApiError, match="GET /user did not name the token's account"):
        token_identity(_Client(status=404, user=user))  # type: ignore[arg-type]


def test_viewer_login_is_the_identity() -> None:
    got = token_identity(_Client({"viewer": {"login": "github-actions[bot]"}}))  # type: ignore[arg-type]
    assert got == Identity("github-actions[bot]", "GraphQL viewer")


@pytest.mark.parametrize(("item", "wrote"), [
    ({"user": {"login": "Octo-Bot"}}, True),
    ({"user": {"login": "octo-bot"}}, True),
    ({"user": {"login": "octo-bot2"}}, False),
    ({"user": {"login": "octo"}}, False),
    ({"user": None}, False), ({"user": "octo-bot"}, False), ({}, False),
    ({"user": {"login": None}}, False),
])
def test_wrote_compares_logins_case_insensitively(item: dict, wrote: bool) -> None:
    assert Identity("octo-bot", "GET /user").wrote(item) is wrote
