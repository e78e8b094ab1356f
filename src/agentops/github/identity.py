"""Who the token is: the login GitHub shows as the author of what this token writes.

The bot acts only on comments its own identity wrote (docs/security.md): a comment that
merely *looks* like the bot's (its heading, its hidden block) may have been posted by
anyone who can comment on the issue.

How to ask, for every kind of token: GraphQL's ``viewer`` answers for a personal
access token (classic or fine-grained), a GitHub App user token, and an App
*installation* token — which is what a workflow's ``GITHUB_TOKEN`` is — with the bot
account that authors its comments, ``<app-slug>[bot]`` (``github-actions[bot]`` for
``GITHUB_TOKEN``). REST has no single call for that: ``GET /user`` answers an
installation token with 403 "Resource not accessible by integration", and ``GET /app``
needs the App's JWT. So: one GraphQL call; ``GET /user`` only when GraphQL itself is
unavailable (a proxy or server that does not serve ``/graphql``).

Adapter side: one or two reads through the client; never writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agentops.errors import ApiError
from agentops.github.client import GitHubClient

VIEWER = "query AgentopsViewer { viewer { login } }"


@dataclass(frozen=True)
class Identity:
    """The account a token acts as."""

    login: str
    source: str  # "GET /user" | "GraphQL viewer"

    def wrote(self, item: Mapping[str, Any]) -> bool:
        """True if a REST comment (or any object with a ``user``) was authored by this
        identity. Logins are compared case-insensitively, as GitHub does."""
        user = item.get("user")
        login = user.get("login") if isinstance(user, Mapping) else None
        return isinstance(login, str) and login.casefold() == self.login.casefold()


def token_identity(client: GitHubClient) -> Identity:
    """The identity of ``client``'s token (GraphQL ``viewer``; ``GET /user`` where
    GraphQL is not served)."""
    try:
        data = client.graphql(VIEWER)
    except ApiError as exc:
        if exc.status_code not in (404, 405, 501):
            raise
        user = client.read("/user")
        return _checked(user.get("login") if isinstance(user, Mapping) else None,
                        "GET /user")
    viewer = data.get("viewer") if isinstance(data, Mapping) else None
    return _checked(viewer.get("login") if isinstance(viewer, Mapping) else None,
                    "GraphQL viewer")


def _checked(login: object, source: str) -> Identity:
    if not isinstance(login, str) or not login.strip():
        raise ApiError(f"{source} did not name the token's account",
                       fix="check the token (GITHUB_TOKEN); the bot only edits and reads "
                           "comments that its own account wrote")
    return Identity(login=login.strip(), source=source)
