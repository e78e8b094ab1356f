"""P-6: publish against a JIRA stand-in on loopback. No approval → nothing posted
(exit 3); approval → exactly one POST whose body is valid ADF and byte-equal to the
approved artifact; wrong hash refused; 401 clear; 5xx then success; 429 honours
Retry-After; 413 is not retried; docs destination writes the approved Markdown. (Every
fault at the POST, and reruns: tests/contract/test_fault_matrix_postmortem.py.) Through
`postmortem.py publish`: agentops.postmortem.commands.publish_command."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from agentops.errors import ApiError, InputError, RefusedError
from agentops.postmortem import publish, render
from examples.postmortem.jira_standin import Standin
from scripts import postmortem as script
from tests.postmortem.conftest import JIRA_EMAIL, JIRA_TOKEN
from tests.standin.github import Fault
from tests.standin.jira import JiraStandIn

ROOT = Path(__file__).resolve().parents[2]
TADA = ROOT / "examples" / "postmortem" / "tada-hang.facts.yml"
EMAIL, TOKEN = JIRA_EMAIL, JIRA_TOKEN  # the conftest `jira` stand-in's account


@pytest.fixture
def adf(tmp_path: Path) -> tuple[Path, str]:
    out = tmp_path / "draft.adf.json"
    assert script.main(["draft", str(TADA), "--format", "adf", "--out", str(out)]) == 0
    return out, hashlib.sha256(out.read_bytes()).hexdigest()


def _publish(jira: Standin, path: Path, *extra: str) -> int:
    return script.main(["publish", "--draft", str(path), "--jira-url", jira.url,
                        "--ticket", "JIRA-12345", *extra])


def _body_of(post: bytes) -> bytes:
    prefix = b'{"body": '
    assert post.startswith(prefix) and post.endswith(b"}")
    return post[len(prefix):-1]


def test_recorded_hash_is_sha256sum_format(adf: tuple[Path, str]) -> None:
    path, digest = adf
    assert publish.sidecar(path).read_text() == f"{digest}  draft.adf.json\n"


@pytest.mark.parametrize("extra", [
    [],  # no approval at all
    ["--approved-by", "maria"],  # an approver without a hash
])
def test_no_approval_posts_nothing(jira: Standin, adf, capsys, extra: list[str]) -> None:
    assert _publish(jira, adf[0], *extra) == 3
    assert jira.requests == []
    err = capsys.readouterr().err
    assert "publish refused" in err and "no approval" in err


def test_approval_without_approver_refused(jira: Standin, adf, capsys) -> None:
    assert _publish(jira, adf[0], "--approved-sha256", adf[1]) == 3
    assert jira.requests == [] and "no approver" in capsys.readouterr().err


def test_approved_artifact_posted_once_byte_for_byte(jira: Standin, adf, capsys) -> None:
    path, digest = adf
    assert _publish(jira, path, "--approved-by", "maria", "--approved-sha256", digest) == 0
    posts = jira.posts()
    # One look for a comment an earlier run posted, then the one POST.
    assert len(posts) == 1 and [m for m, _, _ in jira.requests] == ["GET", "POST"]
    body = _body_of(posts[0])
    assert body == path.read_bytes()
    assert hashlib.sha256(body).hexdigest() == digest
    assert render.validate_adf(json.loads(posts[0])["body"]) == []
    out = capsys.readouterr().out
    assert f"published: {jira.url}/browse/JIRA-12345?focusedCommentId=10000" in out


def test_rerun_posts_nothing_and_says_noop(jira: Standin, adf, capsys, monkeypatch,
                                          tmp_path: Path) -> None:
    from tests.contract.runner import parse_file_commands

    path, digest = adf
    outputs = tmp_path / "github_output"
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    approve = ["--approved-by", "maria", "--approved-sha256", digest]
    assert _publish(jira, path, *approve) == 0
    assert parse_file_commands(outputs.read_text())["operation"] == "created"
    outputs.write_text("")
    assert _publish(jira, path, *approve) == 0  # a re-run job, or a rerun after a fault
    assert len(jira.posts()) == 1
    assert parse_file_commands(outputs.read_text())["operation"] == "noop"
    assert "already published:" in capsys.readouterr().out


def test_approval_from_env(jira: Standin, adf, monkeypatch) -> None:
    monkeypatch.setenv("AGENTOPS_APPROVED_SHA256", adf[1])
    monkeypatch.setenv("AGENTOPS_APPROVED_BY", "maria")
    assert _publish(jira, adf[0]) == 0
    assert len(jira.posts()) == 1


def test_wrong_hash_refused(jira: Standin, adf, capsys) -> None:
    assert _publish(jira, adf[0], "--approved-by", "maria", "--approved-sha256", "0" * 64) == 3
    assert jira.requests == []
    assert "is not this artifact's" in capsys.readouterr().err


def test_artifact_edited_after_drafting_refused(jira: Standin, adf, capsys) -> None:
    path, _ = adf
    doc = json.loads(path.read_bytes())
    doc["content"][0]["content"][0]["text"] = "Post-mortem: edited"
    path.write_bytes(render.adf_bytes(doc))
    new = hashlib.sha256(path.read_bytes()).hexdigest()
    # Even an approval naming the edited bytes is refused: they are not what was drafted.
    assert _publish(jira, path, "--approved-by", "maria", "--approved-sha256", new) == 3
    assert jira.requests == []
    assert "changed after drafting" in capsys.readouterr().err


def test_401_is_a_clear_error(jira: Standin, adf, monkeypatch, capsys) -> None:
    monkeypatch.setenv("JIRA_API_TOKEN", "wrong")
    # A configuration error (exit 1), refused at the first read: nothing is posted.
    assert _publish(jira, adf[0], "--approved-by", "maria", "--approved-sha256", adf[1]) == 1
    err = capsys.readouterr().err
    assert "HTTP 401" in err and "JIRA_API_TOKEN an API token" in err
    assert "wrong" not in err.replace("wrong.", "")  # the token is never printed
    assert jira.posts() == []


def test_5xx_then_success_retries(jira: JiraStandIn, adf) -> None:
    jira.inject("POST", Fault.status_code(502), attempts=[1])
    jira.inject("POST", Fault.status_code(503), attempts=[2])
    # Each 5xx is followed by a GET (did it land?) before the resend.
    assert _publish(jira, adf[0], "--approved-by", "maria", "--approved-sha256", adf[1]) == 0
    methods = [m for m, _, _ in jira.requests]
    assert methods == ["GET", "POST", "GET", "POST", "GET", "POST"]
    assert len(jira.comments["JIRA-12345"]) == 1
    assert _body_of(jira.posts()[-1]) == adf[0].read_bytes()


def test_5xx_that_landed_is_not_posted_twice(adf, tmp_path: Path) -> None:
    server = JiraStandIn(email=EMAIL, token=TOKEN).start()
    try:
        artifact = publish.load_approved(str(adf[0]), approved_sha256=adf[1],
                                         approved_by="maria")
        # The comment landed, but the response was lost behind a 502.
        server.inject("POST", Fault.status_code(502, apply_first=True))
        jira = publish.Jira(server.url, email=EMAIL, token=TOKEN, sleep=lambda s: None)
        assert jira.post_comment("JIRA-12345", artifact)["id"] == "10000"
        assert [(m, path.split("?")[0]) for m, path, _ in server.requests] == [
            ("GET", "/rest/api/3/issue/JIRA-12345/comment"),
            ("POST", "/rest/api/3/issue/JIRA-12345/comment"),
            ("GET", "/rest/api/3/issue/JIRA-12345/comment"),
            ("GET", "/rest/api/3/myself")]  # asked only once a comment carries the id
        assert len(server.comments["JIRA-12345"]) == 1
        # A rerun finds it before posting.
        again = publish.Jira(server.url, email=EMAIL, token=TOKEN, sleep=lambda s: None)
        assert again.post_comment("JIRA-12345", artifact)["id"] == "10000" and again.reused
        assert len(server.posts()) == 1
    finally:
        server.shutdown()
        server.server_close()


def test_429_honours_retry_after(adf) -> None:
    server = JiraStandIn(email=EMAIL, token=TOKEN).start()
    server.inject("POST", Fault("status", 429, (("Retry-After", "7"),), "Too Many Requests"))
    waits: list[float] = []
    try:
        artifact = publish.load_approved(str(adf[0]), approved_sha256=adf[1],
                                         approved_by="maria")
        jira = publish.Jira(server.url, email=EMAIL, token=TOKEN, sleep=waits.append)
        jira.post_comment("JIRA-12345", artifact)
        assert waits == [7.0]
        assert [m for m, _, _ in server.requests] == ["GET", "POST", "POST"]
    finally:
        server.shutdown()
        server.server_close()


def test_413_not_retried(adf) -> None:
    server = Standin(email=EMAIL, token=TOKEN, max_body=1000).start()
    try:
        artifact = publish.load_approved(str(adf[0]), approved_sha256=adf[1],
                                         approved_by="maria")
        jira = publish.Jira(server.url, email=EMAIL, token=TOKEN, sleep=lambda s: None)
        with pytest.raises(ApiError, match="comment too large") as info:
            jira.post_comment("JIRA-12345", artifact)
        assert info.value.status_code == 413
        assert "shorten" in (info.value.fix or "")
        assert len(server.posts()) == 1
    finally:
        server.shutdown()
        server.server_close()


def test_draft_of_another_ticket_refused(jira: Standin, adf, capsys) -> None:
    assert script.main(["publish", "--draft", str(adf[0]), "--jira-url", jira.url,
                        "--ticket", "JIRA-9", "--approved-by", "m",
                        "--approved-sha256", adf[1]]) == 3
    assert jira.requests == []
    assert "is the draft of JIRA-12345 (its Draft id), not of JIRA-9" in capsys.readouterr().err


def test_issue_unknown_to_jira_404(adf, monkeypatch, capsys) -> None:
    server = Standin(email=EMAIL, token=TOKEN, issues=("OTHER-1",)).start()
    monkeypatch.setenv("JIRA_EMAIL", EMAIL)
    monkeypatch.setenv("JIRA_API_TOKEN", TOKEN)
    try:
        assert _publish(server, adf[0], "--approved-by", "m", "--approved-sha256", adf[1]) == 5
        assert "no issue JIRA-12345 visible" in capsys.readouterr().err
        assert server.posts() == []  # the first read already answers 404
    finally:
        server.shutdown()
        server.server_close()


def test_token_is_masked_in_a_runner(jira: Standin, adf, monkeypatch, capsys) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert _publish(jira, adf[0], "--approved-by", "m", "--approved-sha256", adf[1]) == 0
    err = capsys.readouterr().err
    basic = __import__("base64").b64encode(f"{EMAIL}:{TOKEN}".encode()).decode()
    assert f"::add-mask::{TOKEN}" in err and f"::add-mask::{basic}" in err


def test_markdown_artifact_is_not_posted_to_jira(jira: Standin, tmp_path: Path, capsys) -> None:
    md = tmp_path / "draft.md"
    assert script.main(["draft", str(TADA), "--out", str(md)]) == 0
    digest = hashlib.sha256(md.read_bytes()).hexdigest()
    assert _publish(jira, md, "--approved-by", "m", "--approved-sha256", digest) == 1
    assert jira.requests == [] and "JIRA takes the ADF artifact" in capsys.readouterr().err


def test_docs_destination_writes_the_approved_markdown(tmp_path: Path, capsys) -> None:
    md = tmp_path / "draft.md"
    assert script.main(["draft", str(TADA), "--destination", "docs", "--out", str(md)]) == 0
    digest = hashlib.sha256(md.read_bytes()).hexdigest()
    args = ["publish", "--destination", "docs", "--draft", str(md), "--ticket", "JIRA-12345",
            "--root", str(tmp_path / "repo")]
    assert script.main(args) == 3
    assert not (tmp_path / "repo" / "docs").exists()
    assert script.main([*args, "--approved-by", "m", "--approved-sha256", digest]) == 0
    target = tmp_path / "repo" / "docs" / "postmortems" / "JIRA-12345.md"
    assert target.read_bytes() == md.read_bytes()
    assert "created:" in capsys.readouterr().out
    assert script.main([*args, "--approved-by", "m", "--approved-sha256", digest]) == 0
    assert "noop:" in capsys.readouterr().out


def test_dispatch_fallback_selects_the_artifact_by_hash(jira: Standin, tmp_path: Path) -> None:
    folder = tmp_path / "postmortem-out"
    md, adf = folder / "postmortem.md", folder / "postmortem.adf.json"
    assert script.main(["draft", str(TADA), "--out", str(md)]) == 0
    assert script.main(["draft", str(TADA), "--format", "adf", "--out", str(adf)]) == 0
    digest = hashlib.sha256(adf.read_bytes()).hexdigest()
    assert _publish(jira, folder, "--approved-by", "maria", "--approved-sha256", "f" * 64) == 3
    assert jira.requests == []
    assert _publish(jira, folder, "--approved-by", "maria", "--approved-sha256", digest) == 0
    assert _body_of(jira.posts()[0]) == adf.read_bytes()


def test_read_timeout_looks_before_resending(adf, monkeypatch) -> None:
    import requests as rq

    server = Standin(email=EMAIL, token=TOKEN).start()
    try:
        artifact = publish.load_approved(str(adf[0]), approved_sha256=adf[1],
                                         approved_by="maria")
        jira = publish.Jira(server.url, email=EMAIL, token=TOKEN, sleep=lambda s: None)
        real_request = jira.session.request
        calls = []

        def flaky_post(method, *args, **kwargs):  # the first POST lands, its answer is lost
            if method != "POST":
                return real_request(method, *args, **kwargs)
            calls.append(1)
            resp = real_request(method, *args, **kwargs)
            if len(calls) == 1:
                raise rq.exceptions.ReadTimeout("read timed out")
            return resp

        monkeypatch.setattr(jira.session, "request", flaky_post)
        comment = jira.post_comment("JIRA-12345", artifact)
        assert comment["id"] == "10000"
        assert len(calls) == 1 and len(server.comments["JIRA-12345"]) == 1
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(("key", "error", "says"), [
    ("jira-12345", InputError, "not a ticket key"),  # not the key form: nothing is asked
    ("JIRA-9", RefusedError, "is the draft of JIRA-12345"),  # a key, not this draft's
])
def test_jira_checks_the_key_before_any_request(adf, key: str, error: type[Exception],
                                                 says: str) -> None:
    server = JiraStandIn(email=EMAIL, token=TOKEN).start()
    try:
        artifact = publish.load_approved(str(adf[0]), approved_sha256=adf[1],
                                         approved_by="maria")
        jira = publish.Jira(server.url, email=EMAIL, token=TOKEN, sleep=lambda s: None)
        with pytest.raises(error, match=says):
            jira.post_comment(key, artifact)
        assert server.requests == [] and jira.calls == 0
    finally:
        server.shutdown()
        server.server_close()
