"""TODO references to PRs come from the checkout, someone else's text: a reference
whose repository part is no GitHub OWNER/NAME (``o/..#5``) is never turned into an
API path; a well-formed one is read (#22, S-2)."""

from __future__ import annotations

from typing import Any

from agentops.scout.collect import collect_pulls


class _Reads:
    def __init__(self) -> None:
        self.paths: list[str] = []

    def read(self, path: str, **_: Any) -> dict[str, Any]:
        self.paths.append(path)
        return {"number": int(path.rsplit("/", 1)[1]), "state": "open", "title": "t"}


def test_only_well_formed_repositories_become_api_paths() -> None:
    client = _Reads()
    got = collect_pulls(client, None, ["o/..#5", "../x#6", "o/.#7", "my-org/my.repo#8"])  # type: ignore[arg-type]
    assert client.paths == ["/repos/my-org/my.repo/pulls/8"]
    assert list(got) == ["my-org/my.repo#8"]
