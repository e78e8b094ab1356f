"""GitHub Projects (v2) board access for the scout: the GraphQL documents, and the
read helpers both ``collect`` (S-0b) and ``publish.handoff_command`` (S-8) use.

Adapter side of the I/O line, reads only: the mutation documents live in ``publish.py``,
the scout's only writer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentops.errors import ApiError, ConfigError
from agentops.github.client import GitHubClient
from agentops.scout.livedata import BoardItem

_ITEMS = """
      id
      title
      url
      fields(first: 50) {
        nodes {
          ... on ProjectV2SingleSelectField { id name options { id name } }
        }
      }
      items(first: 100, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id
          databaseId
          fieldValueByName(name: "Status") {
            ... on ProjectV2ItemFieldSingleSelectValue { name }
          }
          content {
            __typename
            ... on DraftIssue { id title body }
            ... on Issue { title body url }
            ... on PullRequest { title body url }
          }
        }
      }
"""

BY_ID = ("query($id: ID!, $cursor: String) {\n  node(id: $id) {\n    ... on ProjectV2 {"
         + _ITEMS + "    }\n  }\n}")
BY_ORG = ("query($owner: String!, $number: Int!, $cursor: String) {\n"
          "  organization(login: $owner) {\n    projectV2(number: $number) {"
          + _ITEMS + "    }\n  }\n}")
BY_USER = BY_ORG.replace("organization(login: $owner)", "user(login: $owner)")


ITEM_STATUS = """query($item: ID!) {
  node(id: $item) {
    ... on ProjectV2Item {
      id
      fieldValueByName(name: "Status") {
        ... on ProjectV2ItemFieldSingleSelectValue { name }
      }
    }
  }
}"""


@dataclass(frozen=True)
class Board:
    """Coordinates of a board (config ``board``): owner login, number, optional node id."""

    owner: str
    number: int
    project_id: str = ""


@dataclass(frozen=True)
class Snapshot:
    """One full read of a board: its id, url, Status field/options and ALL items."""

    project_id: str
    url: str
    status_field_id: str
    status_options: dict[str, str]  # option name -> option id
    items: tuple[BoardItem, ...]


def read_board(client: GitHubClient, board: Board, *, max_pages: int = 50) -> Snapshot:
    """Every item of the board (paginated), with the Status single-select field."""
    cursor: str | None = None
    items: list[BoardItem] = []
    project: dict[str, Any] = {}
    query, variables, data = _first_page(client, board)
    for page_no in range(max_pages):
        if page_no:
            data = client.graphql(query, {**variables, "cursor": cursor})
        project = _project_of(data, board)
        page = project.get("items") or {}
        for node in page.get("nodes") or []:
            if node:
                items.append(_item(node, project.get("url", "")))
        info = page.get("pageInfo") or {}
        if not info.get("hasNextPage"):
            break
        cursor = info.get("endCursor")
    field_id, options = "", {}
    for field in (project.get("fields") or {}).get("nodes") or []:
        if field and str(field.get("name", "")).lower() == "status":
            field_id = field.get("id", "")
            options = {o["name"]: o["id"] for o in field.get("options") or []}
    return Snapshot(project_id=project.get("id", ""), url=project.get("url", ""),
                    status_field_id=field_id, status_options=options, items=tuple(items))


def item_url(project_url: str, database_id: Any) -> str:
    """The web link of a board item (drafts have no page of their own)."""
    if not project_url or not database_id:
        return ""
    return f"{project_url}?pane=issue&itemId={database_id}"


def _first_page(client: GitHubClient, board: Board) -> tuple[str, dict[str, Any], dict]:
    if board.project_id:
        variables = {"id": board.project_id, "cursor": None}
        return BY_ID, variables, client.graphql(BY_ID, variables)
    variables = {"owner": board.owner, "number": board.number, "cursor": None}
    # Sanity: an organization login and a user login never collide, so asking as an
    # organization first and as a user second finds the one board that exists.
    try:
        return BY_ORG, variables, client.graphql(BY_ORG, variables)
    except ApiError as exc:
        if "resolve to an organization" not in exc.message.lower():
            raise
    return BY_USER, variables, client.graphql(BY_USER, variables)


def _project_of(data: dict[str, Any], board: Board) -> dict[str, Any]:
    if "node" in data:
        project = data.get("node")
    else:
        owner = data.get("organization") or data.get("user") or {}
        project = owner.get("projectV2")
    if not project:
        raise ConfigError(
            f"board: no Projects (v2) board {board.owner}#{board.number}"
            + (f" (id {board.project_id})" if board.project_id else ""),
            fix="check board.owner/number/project_id in the target config, and that the "
                "project token can see the board")
    return project


def _item(node: dict[str, Any], project_url: str) -> BoardItem:
    content = node.get("content") or {}
    status = (node.get("fieldValueByName") or {}).get("name") or ""
    return BoardItem(item_id=node.get("id", ""), title=content.get("title") or "",
                     body=content.get("body") or "", status=status,
                     url=content.get("url") or item_url(project_url, node.get("databaseId")),
                     content_type=content.get("__typename") or "",
                     content_id=content.get("id") or "")
