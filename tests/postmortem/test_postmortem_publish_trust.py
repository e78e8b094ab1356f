"""#12 item 11 (P-6): the draft id is public (it is in the job summary), so anyone can
paste it into a JIRA comment. Publish treats a comment as the one an earlier run posted
only when the API user itself wrote it (``GET /rest/api/3/myself``) and its text is the
approved artifact's; look-alikes are ignored, counted, and never stop the post. Through
`postmortem.py publish`: agentops.postmortem.publish.Jira and the summary
agentops.postmortem.commands.publish_command writes."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentops.postmortem import publish
from scripts import postmortem as script
from tests.standin.github import Fault
from tests.standin.jira import JiraStandIn

ROOT = Path(__file__).resolve().parents[2]
TADA = ROOT / "examples" / "postmortem" / "tada-hang.facts.yml"
KEY = "JIRA-12345"
EMAIL, TOKEN = "bot@example.com", "s3cret-token"
MALLORY = "5b10ac8d82e05b22cc7d4ef5"


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    monkeypatch.setenv("JIRA_EMAIL", EMAIL)
    monkeypatch.setenv("JIRA_API_TOKEN", TOKEN)
    monkeypatch.setenv("AGENTOPS_RETRY_BASE_DELAY", "0.01")
    return tmp_path


@pytest.fixture
def jira() -> Iterator[JiraStandIn]:
    with JiraStandIn(email=EMAIL, token=TOKEN) as server:
        yield server


@pytest.fixture
def draft(tmp_path: Path) -> tuple[Path, str, dict[str, Any]]:
    out = tmp_path / "draft.adf.json"
    assert script.main(["draft", str(TADA), "--format", "adf", "--out", str(out)]) == 0
    data = out.read_bytes()
    return out, hashlib.sha256(data).hexdigest(), json.loads(data)


def _run(jira: JiraStandIn, draft: tuple[Path, str, Any]) -> int:
    return script.main(["publish", "--draft", str(draft[0]), "--jira-url", jira.url,
                        "--ticket", KEY, "--approved-by", "maria",
                        "--approved-sha256", draft[1]])


def _output(env: Path, name: str) -> str:
    text = (env / "github_output").read_text(encoding="utf-8")
    m = re.search(rf"^{name}<<(\S+)\n(.*?)\n\1$", text, re.M | re.S)
    assert m, text
    return m.group(2)


def _normalised_by_jira(doc: Any) -> Any:
    """What JIRA gives back is not byte-equal to what was posted: it adds attributes
    (``localId``) and serialises keys in its own order."""
    doc = copy.deepcopy(doc)

    def walk(node: Any, n: list[int]) -> Any:
        if isinstance(node, dict):
            if node.get("type") in ("paragraph", "table", "heading"):
                n[0] += 1
                node.setdefault("attrs", {})["localId"] = f"id-{n[0]}"
            return {k: walk(node[k], n) for k in sorted(node, reverse=True)}
        if isinstance(node, list):
            return [walk(x, n) for x in node]
        return node

    return walk(doc, [0])


def test_a_look_alike_from_another_account_does_not_stop_the_post(jira, draft, env,
                                                                    capsys) -> None:
    # The attacker copies the whole approved draft, draft id included, word for word.
    forged = jira.add_comment(KEY, draft[2], account_id=MALLORY, name="mallory")
    assert _run(jira, draft) == 0
    err = capsys.readouterr().err
    comments = jira.comments_on(KEY)
    assert len(comments) == 2 and len(jira.posts()) == 1
    assert comments[-1]["author"]["accountId"] != MALLORY
    assert _output(env, "operation") == "created"
    assert f"ignored: {forged['id']}" in err
    summary = (env / "github_step_summary").read_text(encoding="utf-8")
    assert "1 comment(s)" in summary and forged["id"] in summary
    # The rerun finds the bot's own comment, still ignoring the look-alike.
    assert _run(jira, draft) == 0
    assert len(jira.posts()) == 1 and "already has this draft's comment" in \
        capsys.readouterr().err


def test_own_comment_with_other_text_under_the_same_id_is_not_the_post(jira, draft, env,
                                                                        capsys) -> None:
    # E.g. an earlier approval of different wording that kept the draft id, edited by
    # hand in JIRA: it is not the approved artifact, so the artifact is still posted.
    edited = copy.deepcopy(draft[2])
    edited["content"].insert(0, {"type": "paragraph",
                                 "content": [{"type": "text", "text": "Edited in JIRA."}]})
    jira.add_comment(KEY, edited)
    assert _run(jira, draft) == 0
    assert len(jira.posts()) == 1 and _output(env, "operation") == "created"
    assert "do not hold the approved text" in capsys.readouterr().err


def test_own_comment_as_jira_re_serialised_it_is_found(jira, draft, env, capsys) -> None:
    jira.add_comment(KEY, _normalised_by_jira(draft[2]))
    assert _run(jira, draft) == 0
    assert jira.posts() == [] and _output(env, "operation") == "noop"
    err = capsys.readouterr().err
    assert "already has this draft's comment" in err and "ignored" not in err


def test_no_comment_carries_the_id_then_the_account_is_not_asked(jira, draft, env) -> None:
    jira.add_comment(KEY, {"type": "doc", "version": 1, "content": [
        {"type": "paragraph", "content": [{"type": "text", "text": "LGTM"}]}]},
        account_id=MALLORY)
    assert _run(jira, draft) == 0
    assert not any("/myself" in path for _, path, _ in jira.requests)


def test_the_account_cannot_be_read_then_nothing_is_posted(jira, draft, env,
                                                            capsys) -> None:
    jira.add_comment(KEY, draft[2], account_id=MALLORY)
    # GET 1 is the comment read; every read of /myself after it fails.
    jira.inject("GET", Fault.status_code(503), attempts=range(2, 2 + 4))
    assert _run(jira, draft) == 5
    err = capsys.readouterr().err
    assert "GET /rest/api/3/myself failed" in err and "Traceback" not in err
    assert jira.posts() == []  # not knowing who wrote it is never "not there"


@pytest.mark.parametrize("doc", [
    None, "text", [], {"type": "doc", "content": "x"},
    {"type": "doc", "content": [{"type": "text", "text": 5}]},
])
def test_text_digest_refuses_what_is_not_adf(doc: Any) -> None:
    assert publish.adf_text_digest(doc) is None


def test_text_digest_is_bounded_on_a_hostile_body() -> None:
    deep: dict[str, Any] = {"type": "text", "text": "x"}
    for _ in range(10_000):
        deep = {"type": "paragraph", "content": [deep]}
    assert publish.adf_text_digest({"type": "doc", "content": [deep]}) is None
    wide = {"type": "doc", "content": [{"type": "text", "text": "x"}] * 300_000}
    assert publish.adf_text_digest(wide) is None


def test_text_digest_sees_wording_and_block_boundaries() -> None:
    def doc(*paras: str) -> dict[str, Any]:
        return {"type": "doc", "version": 1, "content": [
            {"type": "paragraph", "content": [{"type": "text", "text": p}]} for p in paras]}

    assert publish.adf_text_digest(doc("a", "b")) == publish.adf_text_digest(doc("a", "b"))
    assert publish.adf_text_digest(doc("a", "b")) != publish.adf_text_digest(doc("ab"))
    assert publish.adf_text_digest(doc("a", "b")) != publish.adf_text_digest(doc("a", "c"))


def test_the_comment_url_output_names_the_posted_comment_and_no_look_alike_is_counted(
        jira, draft, env) -> None:
    # actions/postmortem/action.yml: `comment-url` is the URL of the JIRA comment; a
    # rerun that finds it posts nothing and names the same comment. With no comment
    # carrying the id, the summary counts no ignored ones (docs/postmortem.md).
    assert _run(jira, draft) == 0
    posted = jira.comments_on(KEY)[-1]["id"]
    url = f"{jira.url}/browse/{KEY}?focusedCommentId={posted}"
    assert _output(env, "comment-url") == url
    summary = (env / "github_step_summary").read_text(encoding="utf-8")
    assert url in summary and "ignored" not in summary
    (env / "github_output").write_text("")
    assert _run(jira, draft) == 0
    assert _output(env, "operation") == "noop" and _output(env, "comment-url") == url
