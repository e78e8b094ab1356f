"""P-6 approval guards no other test pinned down (#26 item 2): an approver that is only
whitespace is no approver, and a draft folder where more than one file records the
approved sha256 is refused (exit 3, documented in docs/postmortem.md), never the first
one taken. Checked on exit codes, on what reached the JIRA stand-in, and on the
``agentops.postmortem.publish`` functions the command
(agentops.postmortem.commands.publish_command) calls."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from agentops.errors import RefusedError
from agentops.postmortem import publish
from scripts import postmortem as script
from tests.standin.jira import JiraStandIn

ROOT = Path(__file__).resolve().parents[2]
TADA = ROOT / "examples" / "postmortem" / "tada-hang.facts.yml"
REFUSED = 3  # docs/postmortem.md, errors.ExitStatus.REFUSED


@pytest.fixture
def adf(tmp_path: Path) -> tuple[Path, str]:
    out = tmp_path / "drafts" / "postmortem.adf.json"
    assert script.main(["draft", str(TADA), "--format", "adf", "--out", str(out)]) == 0
    return out, hashlib.sha256(out.read_bytes()).hexdigest()


def _publish(jira: JiraStandIn, draft: Path, *extra: str) -> int:
    return script.main(["publish", "--draft", str(draft), "--jira-url", jira.url,
                        "--ticket", "JIRA-12345", *extra])


@pytest.mark.parametrize("approver", [" ", "   ", "\t", " \t \n"])
def test_a_whitespace_approver_is_refused(jira, adf, capsys, approver) -> None:
    path, digest = adf
    assert _publish(jira, path, "--approved-by", approver, "--approved-sha256", digest) == REFUSED
    assert jira.requests == []
    err = capsys.readouterr().err
    assert "publish refused" in err and "no approver" in err


def test_a_whitespace_approver_from_the_environment_is_refused(jira, adf, capsys,
                                                                monkeypatch) -> None:
    path, digest = adf
    monkeypatch.setenv("AGENTOPS_APPROVED_BY", "  ")
    monkeypatch.setenv("AGENTOPS_APPROVED_SHA256", digest)
    assert _publish(jira, path) == REFUSED
    assert jira.requests == [] and "no approver" in capsys.readouterr().err


def test_the_approver_is_named_without_its_padding(adf) -> None:
    path, digest = adf
    art = publish.load_approved(str(path), approved_sha256=f" {digest.upper()} ",
                                approved_by="  maria \t")
    assert art.approved_by == "maria" and art.sha256 == digest
    with pytest.raises(RefusedError) as exc:
        publish.load_approved(str(path), approved_sha256=digest, approved_by=" \t ")
    assert exc.value.reasons == [
        "no approver: --approved-by (AGENTOPS_APPROVED_BY) is not set"]


def test_two_drafts_with_the_approved_hash_are_refused(jira, adf, capsys) -> None:
    path, digest = adf
    twin = path.with_name("copy.adf.json")
    shutil.copyfile(path, twin)
    publish.record_hash(twin, twin.read_bytes())
    assert _publish(jira, path.parent, "--approved-by", "maria",
                    "--approved-sha256", digest) == REFUSED
    assert jira.requests == []
    err = capsys.readouterr().err
    assert f"2 drafts in {path.parent} have the approved sha256 {digest}" in err
    # Either file alone is the approved one: the refusal is about the ambiguity.
    twin.unlink()
    publish.sidecar(twin).unlink()
    assert _publish(jira, path.parent, "--approved-by", "maria",
                    "--approved-sha256", digest) == 0
    assert len(jira.posts()) == 1


def test_select_by_hash_takes_exactly_one(tmp_path: Path) -> None:
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.write_text("first\n")
    b.write_text("second\n")
    da, db = publish.record_hash(a, a.read_bytes()), publish.record_hash(b, b.read_bytes())
    assert publish.select_by_hash(tmp_path, db) == str(b)
    assert publish.select_by_hash(tmp_path, f"  {da.upper()}\n") == str(a)
    for wrong in ("", None, "0" * 64, da[:-1]):
        with pytest.raises(RefusedError, match=r"^publish refused: 0 drafts in "):
            publish.select_by_hash(tmp_path, wrong)
    c = tmp_path / "c.md"
    c.write_text("first\n")
    publish.record_hash(c, c.read_bytes())
    with pytest.raises(RefusedError, match=r"^publish refused: 2 drafts in "):
        publish.select_by_hash(tmp_path, da)


@pytest.mark.parametrize(("argv", "flag"), [
    (["--ticket", "JIRA-12345"], "--draft"),
    (["--draft", "{draft}"], "--ticket"),
    (["--draft", "{draft}", "--ticket", "JIRA-12345"], "--jira-url"),
])
def test_missing_inputs_name_the_flag_and_post_nothing(adf, capsys, monkeypatch, argv, flag):
    path, digest = adf
    for name in ("AGENTOPS_TICKET", "AGENTOPS_JIRA_URL", "AGENTOPS_DRAFT"):
        monkeypatch.delenv(name, raising=False)
    args = [a.replace("{draft}", str(path)) for a in argv]
    assert script.main(["publish", *args, "--approved-by", "maria",
                        "--approved-sha256", digest]) == 1
    assert f"{flag}:" in capsys.readouterr().err


def test_outputs_and_summary_say_created_then_noop(jira, adf, monkeypatch, tmp_path) -> None:
    path, digest = adf
    out, summary = tmp_path / "out.txt", tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert _publish(jira, path, "--approved-by", "maria", "--approved-sha256", digest) == 0
    first = out.read_text()
    assert "operation" in first and "created" in first and "noop" not in first
    assert f"Published the approved post-mortem ({digest}) to JIRA-12345, approved by maria" \
        in summary.read_text()
    out.write_text("")
    assert _publish(jira, path, "--approved-by", "maria", "--approved-sha256", digest) == 0
    assert "noop" in out.read_text() and len(jira.posts()) == 1
    assert "Already published the approved post-mortem" in summary.read_text()


def test_an_oversized_approval_event_is_refused_unread(tmp_path, capsys, monkeypatch) -> None:
    event = tmp_path / "event.json"
    event.write_bytes(b" " * (25 * 2**20 + 1))
    monkeypatch.setenv("GITHUB_TOKEN", "t")
    assert script.main(["authorize", "--event", str(event)]) == 1
    assert f"is larger than {25 * 2**20} bytes" in capsys.readouterr().err
