"""P-6 approval pieces on their own (#26 item 5 survivors): who approved an Environment
(agentops.postmortem.gather.approver_from_reviews), the exact approval comment
(agentops.postmortem.validate.parse_approval_comment), the environment approver's
refusals (agentops.postmortem.commands._environment_approver) and the docs
destination's checks (agentops.postmortem.publish.write_docs). Inputs and outputs only;
the review history is shaped as GitHub's ``actions/runs/{id}/approvals`` answer."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from agentops.errors import InputError, RefusedError
from agentops.postmortem import commands, gather, publish, validate

SHA = "0123456789abcdef" * 4


def review(state: str, login: str | None, *envs: str) -> dict:
    user = {"login": login} if login is not None else None
    return {"state": state, "user": user, "environments": [{"name": e} for e in envs],
            "comment": ""}


@pytest.mark.parametrize(("reviews", "expected"), [
    ([], None),
    ([review("approved", "maria", "postmortem-publish")], "maria"),
    ([review("rejected", "maria", "postmortem-publish")], None),
    ([review("approved", "maria", "staging")], None),
    ([review("approved", "maria", "staging", "postmortem-publish")], "maria"),
    # The last approval of the environment is the one that let the job run.
    ([review("approved", "ann", "postmortem-publish"),
      review("approved", "bob", "postmortem-publish")], "bob"),
    ([review("approved", "ann", "postmortem-publish"),
      review("rejected", "bob", "postmortem-publish")], "ann"),
    ([review("approved", None, "postmortem-publish")], None),
    ([review("approved", "", "postmortem-publish")], None),
    ([{"state": "approved", "environments": [{"name": "postmortem-publish"}]}], None),
    ([{"state": "approved", "user": {"login": "x"}}], None),  # names no environment
])
def test_approver_from_reviews(reviews, expected) -> None:
    assert gather.approver_from_reviews(reviews, "postmortem-publish") == expected


class _Reviews:
    def __init__(self, answer) -> None:
        self.answer = answer
        self.paths: list[str] = []

    def read(self, path: str, params=None):
        self.paths.append(path)
        return self.answer


def test_environment_approver_reads_the_runs_approvals() -> None:
    client = _Reviews([review("approved", "maria", "pm")])
    assert gather.environment_approver(client, repo="o/r", run_id="42",  # type: ignore[arg-type]
                                       environment="pm") == "maria"
    assert client.paths == ["/repos/o/r/actions/runs/42/approvals"]
    assert gather.environment_approver(_Reviews({"message": "x"}), repo="o/r",  # type: ignore[arg-type]
                                       run_id="42", environment="pm") is None


@pytest.mark.parametrize(("body", "expected"), [
    (f"/postmortem approve JIRA-12345 {SHA} 4242", ("JIRA-12345", SHA, "4242")),
    (f"/postmortem approve ML_OPS2-7 {SHA} 1\r\nthanks", ("ML_OPS2-7", SHA, "1")),
    (f"  /postmortem approve A-1 {'9' * 64} 12345678901234567890  ", ("A-1", "9" * 64,
                                                                      "12345678901234567890")),
    (f"/postmortem approve A-1 {'f' * 64} 7", ("A-1", "f" * 64, "7")),
])
def test_the_exact_approval_comment(body, expected) -> None:
    got = validate.parse_approval_comment(body)
    assert got is not None and (got.ticket, got.sha256, got.run_id) == expected


@pytest.mark.parametrize("body", [
    f"/postmortem approve JIRA-12345 {SHA} 123456789012345678901",  # run id over 20 digits
    f"/postmortem approve JIRA-12345 {SHA.upper()} 1",
    f"/postmortem approve 1JIRA-1 {SHA} 1",
    f"/postmortem approve JIRA- {SHA} 1",
    f"/postmortem approve JIRA-1 {SHA}g 1",
    f"/postmortem approve JIRA-1 {SHA} 1 2",
    f"/postmortem  approve JIRA-1 {SHA} 1",
    f"text\n/postmortem approve JIRA-1 {SHA} 1",
    None,
])
def test_anything_else_is_no_approval(body) -> None:
    assert validate.parse_approval_comment(body) is None  # type: ignore[arg-type]


@pytest.fixture
def actions_env(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GITHUB_REPOSITORY", "o/r")
    monkeypatch.setenv("GITHUB_RUN_ID", "4242")
    monkeypatch.setenv("GITHUB_TOKEN", "t")
    monkeypatch.delenv("GITHUB_TRIGGERING_ACTOR", raising=False)
    monkeypatch.delenv("GITHUB_ACTOR", raising=False)
    seen: dict[str, str] = {}

    def approver(client, *, repo, run_id, environment):
        seen.update(repo=repo, run_id=run_id, environment=environment)
        return seen.get("login")

    monkeypatch.setattr(gather, "environment_approver", approver)
    return monkeypatch, seen


@pytest.mark.parametrize("missing", ["GITHUB_REPOSITORY", "GITHUB_RUN_ID"])
def test_environment_approver_needs_the_run(actions_env, missing) -> None:
    monkeypatch, _ = actions_env
    monkeypatch.delenv(missing)
    with pytest.raises(InputError, match="needs GITHUB_REPOSITORY and GITHUB_RUN_ID"):
        commands._environment_approver("pm")


def test_environment_approver_refuses_no_approval_and_self_approval(actions_env) -> None:
    monkeypatch, seen = actions_env
    with pytest.raises(RefusedError, match="no approval of environment 'pm' in run 4242"):
        commands._environment_approver("pm")
    assert seen == {"repo": "o/r", "run_id": "4242", "environment": "pm"}
    seen["login"] = "alex"
    for starter in ("GITHUB_TRIGGERING_ACTOR", "GITHUB_ACTOR"):
        monkeypatch.setenv(starter, "alex")
        with pytest.raises(RefusedError, match="alex approved their own run"):
            commands._environment_approver("pm")
        monkeypatch.delenv(starter)
    assert commands._environment_approver("pm") == "alex"  # nobody known started it
    monkeypatch.setenv("GITHUB_TRIGGERING_ACTOR", "maria")
    monkeypatch.setenv("GITHUB_ACTOR", "alex")  # the triggering actor is the starter
    assert commands._environment_approver("pm") == "alex"


def _artifact(tmp_path: Path, data: bytes, name: str = "d.md") -> publish.Artifact:
    path = tmp_path / name
    path.write_bytes(data)
    publish.record_hash(path, data)
    return publish.load_approved(str(path), approved_sha256=hashlib.sha256(data).hexdigest(),
                                 approved_by="maria")


def test_docs_destination_checks_kind_ticket_and_draft_id(tmp_path: Path) -> None:
    md = _artifact(tmp_path, b"# Post-mortem\n\nDraft id: JIRA-12345 r1 facts:none\n")
    root = tmp_path / "repo"
    with pytest.raises(InputError, match="not a ticket key"):
        publish.write_docs(md, ticket="jira-12345", root=root)
    with pytest.raises(RefusedError, match=r"is the draft of JIRA-12345 .*not of JIRA-9"):
        publish.write_docs(md, ticket="JIRA-9", root=root)
    assert not (root / "docs").exists()
    adf = _artifact(tmp_path, b'{"version": 1, "type": "doc", "content": [{"type": '
                              b'"paragraph", "content": [{"type": "text", "text": "x"}]}]}',
                    "d.adf.json")
    with pytest.raises(InputError, match="docs destination takes the Markdown artifact"):
        publish.write_docs(adf, ticket="JIRA-12345", root=root)
    assert not (root / "docs").exists()
    assert publish.write_docs(md, ticket="JIRA-12345", root=root)[1] == "created"
    assert publish.write_docs(md, ticket="JIRA-12345", root=root)[1] == "noop"


def test_a_draft_without_a_draft_id_is_no_tickets(tmp_path: Path) -> None:
    md = _artifact(tmp_path, b"# Post-mortem\n\nno id here\n")
    assert md.marker is None
    with pytest.raises(RefusedError, match="is the draft of no ticket"):
        md.check_ticket("JIRA-1")


def test_select_by_hash_ignores_an_empty_record(tmp_path: Path) -> None:
    (tmp_path / "empty.md").write_text("x")
    (tmp_path / "empty.md.sha256").write_text("")  # an interrupted copy, say
    md = tmp_path / "d.md"
    md.write_text("body\n")
    digest = publish.record_hash(md, md.read_bytes())
    assert publish.select_by_hash(tmp_path, digest) == str(md)


def test_docs_destination_says_updated_when_the_file_changes(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    first = _artifact(tmp_path, b"# PM\n\nDraft id: JIRA-1 r1 facts:none\n", "a.md")
    second = _artifact(tmp_path, b"# PM\n\nDraft id: JIRA-1 r2 facts:none\n", "b.md")
    assert publish.write_docs(first, ticket="JIRA-1", root=root)[1] == "created"
    path, op = publish.write_docs(second, ticket="JIRA-1", root=root)
    assert op == "updated" and path.read_bytes() == second.data


def test_environment_approver_reports_its_api_calls(actions_env, capsys) -> None:
    _, seen = actions_env
    seen["login"] = "maria"
    assert commands._environment_approver("pm") == "maria"
    assert "API calls: " in capsys.readouterr().err


@pytest.fixture
def authorize(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """``postmortem.py authorize`` on an event file, with the two reads it makes
    (permission, draft run) answered here."""
    from scripts import postmortem as script

    monkeypatch.setenv("GITHUB_TOKEN", "t")
    answers: dict = {"permission": "write", "run": {"path": ".github/workflows/postmortem.yml",
                                                    "triggering_actor": "alex", "event": "x"}}
    monkeypatch.setattr(gather, "collaborator_permission",
                        lambda client, *, repo, login: answers["permission"])
    monkeypatch.setattr(gather, "workflow_run", lambda client, *, repo, run_id: answers["run"])

    def run(login: str, body: str) -> int:
        event = tmp_path / "event.json"
        event.write_text(json.dumps({"comment": {"body": body, "user": {"login": login}},
                                     "repository": {"full_name": "o/r"}}))
        return script.main(["authorize", "--event", str(event)])

    return run, answers


def test_authorize_names_every_reason(authorize, capsys) -> None:
    run, answers = authorize
    ok = f"/postmortem approve JIRA-1 {SHA} 42"
    for permission in ("write", "maintain", "admin"):
        answers["permission"] = permission
        assert run("maria", ok) == 0
    answers["permission"] = "triage"
    answers["run"] = {"path": "", "triggering_actor": "maria", "event": "x"}
    capsys.readouterr()
    assert run("maria", ok) == 3
    err = capsys.readouterr().err
    assert "maria has 'triage' permission on o/r" in err
    assert "run 42 is not a post-mortem draft run (unknown workflow)" in err
    assert "maria started draft run 42: no self-approval" in err


def test_select_by_hash_says_when_no_hash_was_given(tmp_path: Path) -> None:
    with pytest.raises(RefusedError, match=r"have the approved sha256 \(none given\)"):
        publish.select_by_hash(tmp_path, None)


def test_an_approved_json_artifact_that_is_not_adf_is_refused(tmp_path: Path) -> None:
    data = b'{"version": 1, "type": "doc", "content": []}'
    path = tmp_path / "d.adf.json"
    path.write_bytes(data)
    publish.record_hash(path, data)
    with pytest.raises(InputError, match="is not valid ADF: "):
        publish.load_approved(str(path), approved_sha256=hashlib.sha256(data).hexdigest(),
                              approved_by="maria")


def test_authorize_needs_an_issue_comment_event(tmp_path: Path, monkeypatch, capsys) -> None:
    from scripts import postmortem as script

    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    assert script.main(["authorize"]) == 1
    assert "--event: no event file" in capsys.readouterr().err
    event = tmp_path / "push.json"
    event.write_text(json.dumps({"ref": "refs/heads/main", "repository": {"full_name": "o/r"}}))
    assert script.main(["authorize", "--event", str(event)]) == 1
    assert "is not an issue_comment event" in capsys.readouterr().err


def test_docs_destination_sets_the_operation_output(tmp_path: Path, monkeypatch) -> None:
    from scripts import postmortem as script

    md = _artifact(tmp_path, b"# PM\n\nDraft id: JIRA-1 r1 facts:none\n", "a.md")
    out = tmp_path / "out.txt"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    assert script.main(["publish", "--destination", "docs", "--draft", md.path, "--ticket",
                        "JIRA-1", "--root", str(tmp_path / "repo"), "--approved-by", "m",
                        "--approved-sha256", md.sha256]) == 0
    text = out.read_text()
    assert "operation" in text and "created" in text and "path" in text


@pytest.mark.parametrize(("draft_id", "key"), [
    ("ML_OPS-7 r2 facts:none", "ML_OPS-7"), ("ML_OPS-7 r1 facts:0123456789ab", "ML_OPS-7"),
    ("OPS2-7 r1 facts:none", "OPS2-7"), ("OPS2-7 r3 facts:0123456789ab", "OPS2-7")])
def test_a_ticket_key_with_an_underscore_or_digit_is_its_own_draft(tmp_path: Path, draft_id,
                                                                   key) -> None:
    md = _artifact(tmp_path, f"# PM\n\nDraft id: {draft_id}\n".encode())
    assert md.marker == draft_id
    md.check_ticket(key)
    with pytest.raises(RefusedError):
        md.check_ticket("OPS-7")


@pytest.mark.parametrize("approved", ["xyz", "0" * 63, "g" * 64, "0" * 65])
def test_an_approval_that_is_not_a_sha256_is_named(tmp_path: Path, approved: str) -> None:
    path = tmp_path / "d.md"
    path.write_bytes(b"x")
    publish.record_hash(path, b"x")
    with pytest.raises(RefusedError) as err:
        publish.load_approved(str(path), approved_sha256=approved, approved_by="m")
    assert err.value.reasons == [f"--approved-sha256 is not a sha256: {approved!r}"]


@pytest.mark.parametrize("key", ["OPS2-7", "ML_OPS-7", "A9_B-12"])
def test_the_docs_destination_takes_a_ticket_key_with_a_digit_or_underscore(
        tmp_path: Path, key: str) -> None:
    md = _artifact(tmp_path, f"# PM\n\nDraft id: {key} r1 facts:none\n".encode())
    path, op = publish.write_docs(md, ticket=key, root=tmp_path / "repo")
    assert op == "created" and path.name == f"{key}.md" and path.read_bytes() == md.data


def test_an_approved_draft_without_its_recorded_hash_is_refused_for_that_alone(
        tmp_path: Path) -> None:
    # Right bytes, right sha256, a named approver: only the sidecar that `draft --out`
    # writes is missing, and that alone refuses it (P-6: only what the draft run wrote).
    path = tmp_path / "d.md"
    path.write_bytes(b"# PM\n\nDraft id: OPS-3 r1 facts:none\n")
    with pytest.raises(RefusedError) as err:
        publish.load_approved(str(path), approved_sha256=hashlib.sha256(path.read_bytes())
                              .hexdigest(), approved_by="maria")
    assert err.value.reasons == [f"no recorded hash: {path}.sha256 is missing (publish takes "
                                 "only what `draft --out` wrote)"]


def test_authorize_reads_the_runners_event_file_without_the_flag(authorize, monkeypatch,
                                                                  tmp_path: Path) -> None:
    # In the workflow the event is the runner's GITHUB_EVENT_PATH (docs/postmortem.md:
    # the comment path runs `postmortem.py authorize` with no flag); the same approval
    # is admitted from there as from --event.
    from scripts import postmortem as script

    _, answers = authorize
    event = tmp_path / "runner-event.json"
    event.write_text(json.dumps({"comment": {"body": f"/postmortem approve JIRA-1 {SHA} 42",
                                             "user": {"login": "maria"}},
                                 "repository": {"full_name": "o/r"}}))
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    assert script.main(["authorize"]) == 0
    answers["permission"] = "read"  # the same file, now refused: it was read, not skipped
    assert script.main(["authorize"]) == 3


def test_authorize_reports_its_api_calls(authorize, capsys) -> None:
    # docs/http.md "Counting and errors": post-mortem's GitHub reads end with the
    # `API calls: N …` line, the comment path's included (its two reads are answered
    # here, so the count itself is the client's business).
    run, _ = authorize
    assert run("maria", f"/postmortem approve JIRA-1 {SHA} 42") == 0
    assert "API calls: " in capsys.readouterr().err
