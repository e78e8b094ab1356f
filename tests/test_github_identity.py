"""Who the token is (issue #12 items 1, 2): the bot acts only on comments its own
account wrote, so it must know that account for every kind of token — a workflow's
GITHUB_TOKEN (an App installation token: ``github-actions[bot]``), another App's
installation token (``<slug>[bot]``), a personal access token (the user)."""

from __future__ import annotations

from typing import Any

import pytest

from agentops.errors import ApiError
from agentops.github.identity import VIEWER, Identity, token_identity


class _Client:
    """Answers the two identity calls as GitHub would for one kind of token."""

    def __init__(self, graphql: Any, user: Any = None) -> None:
        self._graphql, self._user, self.calls = graphql, user, []

    def graphql(self, query: str, variables: Any = None) -> Any:
        self.calls.append(("graphql", query))
        if isinstance(self._graphql, Exception):
            raise self._graphql
        return self._graphql

    def read(self, path: str) -> Any:
        self.calls.append(("GET", path))
        if isinstance(self._user, Exception):
            raise self._user
        return self._user


def test_identity_of_an_installation_token_is_its_bot_login() -> None:
    client = _Client({"viewer": {"login": "github-actions[bot]"}})
    me = token_identity(client)  # type: ignore[arg-type]
    assert me == Identity("github-actions[bot]", "GraphQL viewer")
    assert client.calls == [("graphql", VIEWER)]
    assert me.wrote({"user": {"login": "GitHub-Actions[bot]"}})
    assert not me.wrote({"user": {"login": "github-actions"}})
    assert not me.wrote({"user": None}) and not me.wrote({})


def test_identity_falls_back_to_get_user_where_graphql_is_not_served() -> None:
    client = _Client(ApiError("POST /graphql failed: HTTP 404", status_code=404),
                     {"login": "a-maintainer"})
    assert token_identity(client) == Identity("a-maintainer", "GET /user")  # type: ignore[arg-type]


@pytest.mark.parametrize("answer", [ApiError("bad credentials", status_code=401),
                                    {"viewer": None}, {"viewer": {"login": ""}}])
def test_no_identity_is_an_api_error_not_a_guess(answer: Any) -> None:
    with pytest.raises(ApiError):
        token_identity(_Client(answer, {"login": "x"}))  # type: ignore[arg-type]
