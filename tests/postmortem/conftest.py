"""Fixtures of the post-mortem tests. ``--update-golden`` rewrites tests/golden/postmortem/
(review the diff); otherwise golden files are only compared. The option is registered
here, so name this folder on the command line:
``python -m pytest tests/postmortem --update-golden``."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentops.postmortem import datafiles
from tests.standin.jira import JiraStandIn

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "postmortem"
GOLDEN = ROOT / "tests" / "golden" / "postmortem"
TADA = EXAMPLES / "tada-hang.facts.yml"



@pytest.fixture
def broken_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                ) -> Iterator[Callable[[str, Callable[[], Any], str], None]]:
    """``broken_data("SECTIONS", datafiles.sections, text)``: the loader reads ``text``
    from a file of the same name in ``tmp_path`` instead of the shipped data file (its
    cache cleared, so the next call loads it); every loader used is cleared again after
    the test, before the path is restored, so no later test sees the made-up data."""
    used: list[Any] = []

    def swap(attr: str, loader: Callable[[], Any], text: str) -> None:
        bad = tmp_path / getattr(datafiles, attr).name
        bad.write_text(text, encoding="utf-8")
        monkeypatch.setattr(datafiles, attr, bad)
        loader.cache_clear()  # type: ignore[attr-defined]
        used.append(loader)

    yield swap
    for loader in used:
        loader.cache_clear()


JIRA_EMAIL, JIRA_TOKEN = "bot@example.com", "s3cret-token"


@pytest.fixture
def jira(monkeypatch: pytest.MonkeyPatch) -> Iterator[JiraStandIn]:
    """A JIRA stand-in on loopback whose account is JIRA_EMAIL / JIRA_TOKEN, with the
    environment publish reads set to it and short retries."""
    server = JiraStandIn(email=JIRA_EMAIL, token=JIRA_TOKEN).start()
    monkeypatch.setenv("JIRA_EMAIL", JIRA_EMAIL)
    monkeypatch.setenv("JIRA_API_TOKEN", JIRA_TOKEN)
    monkeypatch.setenv("AGENTOPS_RETRY_BASE_DELAY", "0.01")
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    try:
        return bool(request.config.getoption("--update-golden"))
    except ValueError:  # option not registered (run from another conftest root)
        return False


@pytest.fixture(scope="session")
def tada_content() -> dict[str, Any]:
    return datafiles.load_facts(TADA).content


@pytest.fixture
def tada(tada_content: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of the golden case's facts, free to mutate."""
    return copy.deepcopy(tada_content)


@pytest.fixture(scope="session")
def rules():  # type: ignore[no-untyped-def]
    return datafiles.lint_rules()
