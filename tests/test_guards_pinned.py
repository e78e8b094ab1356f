"""Boundaries and guards of the trust code pinned by behaviour (#26 item 5): survivors of
a fresh-seed mutation run over the console gate, the scrubber, comment provenance, step
outputs, the post-mortem draft reader and the comment-approval event. Each expectation is
written from the rule (docs/security.md), not from the code under test.

Modules: agentops.redaction, agentops.github.provenance, agentops.ghactions, agentops.files,
agentops.scout.trusted_repro, agentops.triage.apply,
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


# --- a third fresh-seed run's survivors (agentops.redaction, agentops.scout.trusted_repro,
# agentops.triage.apply, agentops.files, agentops.github.provenance) -----------------------

def test_a_quoted_authorization_value_is_scrubbed_and_its_quote_kept() -> None:
    assert redaction.scrub("Authorization: 'abcdefghijklmnopqrst12', next") == \
        "Authorization: '***', next"


def test_a_bearer_token_of_letters_and_dashes_is_scrubbed() -> None:
    assert redaction.scrub("Bearer abcdefghij-klmnopqrst ok") == "Bearer *** ok"


def test_a_secret_with_json_escapes_is_scrubbed_from_json_text() -> None:
    secret = 'pa"ss\\word-42'
    redaction.register(secret)
    out = redaction.scrub(json.dumps({"token": secret}))
    assert "pa" not in out and "word-42" not in out and "***" in out


def test_registering_nothing_registers_nothing() -> None:
    assert redaction.register(None) == set()
    assert redaction.register("   ") == set()
    assert redaction.scrub("plain text") == "plain text"


def test_a_missing_signature_is_false_not_merely_falsy() -> None:
    key = b"k" * 20
    assert provenance.signature_ok("# report\n", key=key, repo=REPO, issue=1) is False


def test_variables_with_digits_are_read_as_variables_and_values_may_hold_equals() -> None:
    from agentops.scout import trusted_repro
    from tests.scout.test_repro_trust import REGS, TEMPLATE

    # A variable name with a digit is still an assignment (refused by its name, not taken
    # for the program).
    p = trusted_repro.propose("NCCL_P2P_DISABLE=1 NGPU=2 MODULE=llama3 "
                              "CONFIG=llama3_debugmodel ./run_train.sh", TEMPLATE, REGS)
    assert "sets NCCL_P2P_DISABLE" in p.refused and not p.command
    p = trusted_repro.propose("NGPU=2 MODULE=llama3 CONFIG=llama3_debugmodel ./run_train.sh "
                              "--compile.passes a=b", TEMPLATE, REGS)
    assert p.refused == "", p.refused
    assert p.command == ("NGPU=2 ./run_train.sh --module llama3 --config llama3_debugmodel "
                         "--compile.passes a=b")


def test_a_module_named_with_a_capital_is_checked_like_any_other() -> None:
    from agentops.scout import trusted_repro
    from tests.scout.test_repro_trust import TEMPLATE

    regs = trusted_repro.registries(
        {"pkg/models/Llama3/config_registry.py": "def llama3_debugmodel():\n    return 1\n"})
    p = trusted_repro.propose("MODULE=Llama3 CONFIG=llama3_debugmodel ./run_train.sh",
                              TEMPLATE, regs)
    assert p.command == "./run_train.sh --module Llama3 --config llama3_debugmodel", p.refused


def test_triaged_is_dropped_on_the_high_priority_path_without_blockers() -> None:
    from agentops.triage.apply import plan_label_changes
    from agentops.triage.model import Plan
    from tests.triage.livekit import INFRA, TRIGGER, make_queue

    q = make_queue()
    p = Plan(repo="o/r", issue=7, decision="high_priority",
             add_labels=(INFRA, q.triaged_label), confidence="high", queue="distributed")
    changes = plan_label_changes(p, [TRIGGER], q)
    assert q.triaged_label not in changes.add


def test_preview_refuses_a_plan_for_another_issue_like_apply() -> None:
    from agentops.triage.apply import preview
    from agentops.triage.model import Plan
    from tests.triage.livekit import PAR, issue, make_queue

    p = Plan(repo="o/r", issue=8, decision="needs_reproduction", add_labels=(PAR,),
             confidence="high", queue="distributed")
    with pytest.raises(AgentopsError):
        preview(p, issue(), make_queue())


def test_an_output_whose_folder_cannot_be_made_is_refused_by_name(tmp_path) -> None:
    from agentops import files

    blocker = tmp_path / "afile"
    blocker.write_text("x")
    with pytest.raises(AgentopsError, match="cannot write"):
        files.write_atomic(str(blocker / "sub" / "out.md"), "data", field="--out")
