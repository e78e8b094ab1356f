"""Boundaries and guards of the trust code pinned by behaviour (#26 item 5): survivors of
a fresh-seed mutation run over the console gate, the scrubber, comment provenance, step
outputs, the post-mortem draft reader and the comment-approval event. Each expectation is
written from the rule (docs/security.md), not from the code under test.

Modules: agentops.redaction, agentops.github.provenance, agentops.ghactions,
agentops.postmortem.publish, agentops.postmortem.commands."""

from __future__ import annotations

import json

import pytest

from agentops import ghactions, redaction
from agentops.errors import AgentopsError
from agentops.github import provenance
from tests.test_github_provenance import REPO, Runs, comment, prov, run


@pytest.fixture(autouse=True)
def _clean_registry():
    redaction.forget_all()
    yield
    redaction.forget_all()


def test_a_secret_of_exactly_the_minimum_length_is_scrubbed() -> None:
    # Six characters is the documented floor: scrubbed at 6, left alone at 5 (ordinary
    # words would otherwise disappear from every log line).
    redaction.register("s3cr3t")
    assert redaction.scrub("x s3cr3t y") == "x *** y"
    redaction.forget_all()
    redaction.register("s3cr3")
    assert redaction.scrub("x s3cr3 y") == "x s3cr3 y"


@pytest.mark.parametrize("token", [
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",  # a JWT: dots between parts
    "abc_def_ghi_jkl_mno_pqr_0123",  # underscores
])
def test_a_bearer_token_with_dots_or_underscores_is_scrubbed_whole(token: str) -> None:
    assert redaction.scrub(f"Authorization: Bearer {token} end") == \
        "Authorization: Bearer *** end"
    assert redaction.scrub(f"bearer {token}") == "bearer ***"


def test_a_signing_key_of_exactly_the_minimum_length_is_accepted() -> None:
    assert provenance.signing_key({"AGENTOPS_SIGNING_KEY": "k" * 16}) == b"k" * 16
    with pytest.raises(AgentopsError, match="AGENTOPS_SIGNING_KEY"):
        provenance.signing_key({"AGENTOPS_SIGNING_KEY": "k" * 15})


def test_a_timestamp_without_a_zone_is_read_as_utc() -> None:
    # GitHub writes Z; a zone-less time must still compare with the run's window in UTC.
    client = Runs({1: run(1)})
    assert prov(client).judge(*comment(1, "2026-07-09T06:10:00")).ours
    assert not prov(client).judge(*comment(1, "2026-07-09T09:10:00")).ours


@pytest.mark.parametrize("repository", ["acme/trainer", None, ["acme/trainer"], 7])
def test_a_run_whose_repository_is_not_an_object_is_not_ours(repository) -> None:
    client = Runs({1: {**run(1), "repository": repository}})
    verdict = prov(client).judge(*comment(1))
    assert not verdict.ours and f"is not a run of {REPO}" in verdict.why


def test_set_output_without_a_runner_file_writes_nothing(monkeypatch, capsys, tmp_path) -> None:
    monkeypatch.delenv("GITHUB_OUTPUT", raising=False)
    monkeypatch.chdir(tmp_path)
    ghactions.set_output("repro-command", "x")
    assert capsys.readouterr() == ("", "")
    assert list(tmp_path.iterdir()) == []


def test_a_draft_that_looks_like_json_but_does_not_parse_is_refused(tmp_path) -> None:
    # Approved bytes (hash recorded, approved, approver named) that are broken JSON: the
    # publish refuses them as a draft error instead of posting or guessing Markdown.
    import hashlib

    from agentops.postmortem import publish

    bad = tmp_path / "draft.json"
    data = b'{"type": "doc", "content": ['
    bad.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    publish.sidecar(str(bad)).write_text(digest + "\n", encoding="utf-8")
    with pytest.raises(AgentopsError, match="looks like JSON but does not parse"):
        publish.load_approved(str(bad), approved_sha256=digest, approved_by="alice")


def test_authorize_reads_the_event_from_the_runner_when_no_flag_is_given(
        tmp_path, monkeypatch, capsys) -> None:
    from scripts.postmortem import main as pm_main

    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "created", "comment": {"body": "hello"}}))
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    code = pm_main(["authorize"])
    err = capsys.readouterr().err
    # The event was read (its comment is no approval), not "no event file".
    assert "no event file" not in err
    assert code != 0
    monkeypatch.delenv("GITHUB_EVENT_PATH")
    assert pm_main(["authorize"]) != 0
    assert "no event file" in capsys.readouterr().err


@pytest.mark.parametrize("prefix", ["ghp", "gho", "ghu", "ghs", "ghr"])
def test_every_github_token_prefix_is_scrubbed_unregistered(prefix: str) -> None:
    # GitHub's documented token prefixes: personal, OAuth, user-to-server, server-to-
    # server, refresh.
    token = f"{prefix}_" + "a1B2c3" * 6
    assert redaction.scrub(f"echo {token} back") == "echo *** back"
