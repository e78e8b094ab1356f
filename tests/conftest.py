"""Test-wide guards: no network but loopback, no tokens from the developer's shell,
and vcrpy cassettes replayed from ``cassettes/<skill>/`` only (never recorded in CI),
with every recorded interaction required to be played."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ci_fixtures import require

ROOT = Path(__file__).resolve().parent.parent
CASSETTES = ROOT / "cassettes"

_LOOPBACK = ("127.", "::1", "localhost")
_real_connect = socket.socket.connect


def _guarded_connect(self: socket.socket, address, *args, **kwargs):  # type: ignore[no-untyped-def]
    host = address[0] if isinstance(address, tuple) else str(address)
    if self.family == socket.AF_UNIX or str(host).startswith(_LOOPBACK):
        return _real_connect(self, address, *args, **kwargs)
    raise OSError(f"tests may not reach the network (tried {host}); use a cassette or loopback")


def pytest_addoption(parser: pytest.Parser) -> None:
    # One switch for every skill's goldens (tests/golden/<skill>/); each skill's conftest
    # offers an ``update_golden`` fixture that reads it.
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/* from the current output instead of comparing")


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    for name in list(os.environ):
        if name in {"GITHUB_TOKEN", "GH_TOKEN", "JIRA_API_TOKEN", "JIRA_EMAIL", "GITHUB_ACTIONS",
                    "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_API_URL", "GITHUB_EVENT_PATH",
                    "GITHUB_EVENT_NAME"}:
            monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _no_secrets_carried_over() -> Iterator[None]:
    # The scrubber's registry is process-wide: a token one test registered must not
    # change what the next test prints.
    from agentops import redaction

    redaction.forget_all()
    yield
    redaction.forget_all()


@pytest.fixture
def require_fixture():  # type: ignore[no-untyped-def]
    """``require(present, what)``: skip with the install command on a developer's
    machine, fail under CI (tests/ci_fixtures.py, #26)."""
    return require


@pytest.fixture(scope="module")
def vcr_config() -> dict:
    return {
        "record_mode": os.environ.get("AGENTOPS_RECORD_MODE", "none") if not os.environ.get("CI")
        else "none",
        "filter_headers": ["authorization", "cookie", "set-cookie", "x-github-request-id"],
        "decode_compressed_response": True,
        "allow_playback_repeats": False,
        "match_on": ["method", "scheme", "host", "port", "path", "query", "body"],
    }


@pytest.fixture(scope="module")
def vcr_cassette_dir(request: pytest.FixtureRequest) -> str:
    # A module that replays cassettes names its skill folder: CASSETTE_SKILL = "triage".
    skill = getattr(request.module, "CASSETTE_SKILL", "unnamed")
    return str(CASSETTES / skill)


@pytest.fixture
def all_played(vcr):  # type: ignore[no-untyped-def]
    """Use in cassette tests: fails if any recorded interaction was not replayed."""
    yield vcr
    assert vcr.all_played, (
        f"cassette {vcr._path} has {len(vcr.data) - vcr.play_count} unplayed interaction(s)")
