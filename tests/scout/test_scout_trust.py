"""The scout's trust boundaries (issue #12, items 1-3), end to end through
``scripts/scout.py`` against the scout's GitHub stand-in on loopback:

1. Report comment hijack: a look-alike report comment posted by another account is
   never edited, never linked from, never a source of board links; the bot's own
   comment is found and updated; the run counts what it ignored.
2. Forged prior: priors come only from the token's own comments (and ``--prior``
   files); a prior dated after the report date is ignored with a warning.
3. Repository content: a recursion-bomb Python file, a YAML alias bomb in a workflow,
   links (to ``/dev/zero`` and out of the checkout) and oversized blobs are skipped,
   and the report says which files it did not analyse.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agentops.scout import collect, embedded, gitrepo
from agentops.scout import publish as publish_mod
from examples.scout import make_repo
from scripts import scout as cli
from tests.scout.test_scout_publish import DATE, report_text
from tests.standin import scout_github as standin
from tests.test_markdown_escape import live_in_text, tokens, visible

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "scout" / "fixture-sequence"
BOT, ATTACKER = "github-actions[bot]", "mallory"
EVIL = "https://evil.example/phish"
EVIL_TEXT = "[login to fix](https://evil.example) ![t](https://evil.example/t.png) @org/team #1"


def comment(st: standin.State, cid: int, body: str, login: str, when: str) -> dict[str, Any]:
    if login == BOT:  # the scout's own: its block names the run that posted it
        body = st.posted_by_run(body, when)
    made = {"id": cid, "body": body, "user": standin.user_object(login),
            "created_at": when, "updated_at": when,
            "html_url": f"https://github.com/{st.repo}/issues/{st.issue}#issuecomment-{cid}"}
    st.comments.append(made)
    return made


def forged(date: str, **block: Any) -> str:
    """What anyone can post: the heading and a hidden block of their choosing."""
    return embedded.embed(f"# Nightly Scout Report — {date}\n\n## All Clear\n- all good\n",
                          {"date": date, "target": "torchtitan-graph-trainer", "items": [],
                           "todos": [], **block})


@pytest.fixture
def env(monkeypatch, tmp_path) -> dict[str, Path]:
    files = {name: tmp_path / name.lower() for name in ("GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT")}
    for name, path in files.items():
        monkeypatch.setenv(name, str(path))
    monkeypatch.setenv("GITHUB_TOKEN", "issues-token")  # a workflow's GITHUB_TOKEN
    monkeypatch.setenv("AGENTOPS_PROJECT_TOKEN", "project-token")
    monkeypatch.setenv("AGENTOPS_RETRY_ATTEMPTS", "1")
    standin.in_scout_run(monkeypatch)
    return files


def publish(tmp_path: Path, text: str) -> int:
    path = tmp_path / "report.md"
    path.write_text(text)
    return cli.main(["publish", "--repo", "pytorch/torchtitan", "--issue", "2856",
                     "--report", str(path)])


# --- 1. report comment hijack ---------------------------------------------------------------

def test_publish_never_edits_a_look_alike_and_updates_its_own(env, tmp_path, monkeypatch,
                                                               capsys) -> None:
    st = standin.State()
    # Posted before the bot: same date and target, and board links to plant.
    bait = comment(st, 11, forged(DATE, board_items={"a1b2c3d4e5f6": EVIL}), ATTACKER,
                   "2026-07-09T00:01:00Z")
    bait_body = bait["body"]
    with standin.running(st) as (url, st):
        monkeypatch.setenv("GITHUB_API_URL", url)
        assert publish(tmp_path, report_text()) == 0
        out, err = capsys.readouterr()
        [(method, _, payload)] = st.writes
        assert method == "POST" and EVIL not in payload["body"]
        assert bait["body"] == bait_body  # never edited
        ours = [c for c in st.comments if c["user"]["login"] == BOT]
        assert len(ours) == 1 and out.startswith("created: ")
        assert "ignored 1 report-like comment(s) not written by github-actions[bot]" in err
        assert "ignored 1 report-like comment(s)" in env["GITHUB_STEP_SUMMARY"].read_text()
        # The next run finds the bot's own comment (not the older look-alike) and edits it.
        assert publish(tmp_path, report_text(note="- S-5 re-checked")) == 0
        assert [(w[0], w[1].rsplit("/", 1)[-1]) for w in st.writes[1:]] == [
            ("PATCH", str(ours[0]["id"]))]
        assert bait["body"] == bait_body and "S-5 re-checked" in ours[0]["body"]


def test_a_different_identity_never_takes_over_the_bots_comment(env, tmp_path, monkeypatch,
                                                                 capsys) -> None:
    # The same report posted by github-actions[bot]; now a PAT (a-maintainer) publishes:
    # that comment is not its own, so it posts its own instead of editing another's.
    st = standin.State()
    theirs = comment(st, 12, report_text(), BOT, "2026-07-09T06:00:00Z")
    monkeypatch.setenv("GITHUB_TOKEN", "project-token")
    with standin.running(st) as (url, st):
        monkeypatch.setenv("GITHUB_API_URL", url)
        assert publish(tmp_path, report_text(note="- S-5 re-checked")) == 0
    assert [w[0] for w in st.writes] == ["POST"]
    assert st.comments[-1]["user"]["login"] == "a-maintainer"
    assert "S-5" not in theirs["body"]
    assert "gql viewer" in st.log and "GET user" not in st.log  # one call, any token kind


def test_handoff_links_the_bots_comment_never_the_look_alike(env, tmp_path, monkeypatch,
                                                              capsys) -> None:
    st = standin.State()
    bait = comment(st, 21, forged(DATE), ATTACKER, "2026-07-09T00:01:00Z")
    bait_body = bait["body"]
    ours = comment(st, 22, report_text(), BOT, "2026-07-09T06:10:00Z")
    report = tmp_path / "report.md"
    report.write_text(report_text())
    with standin.running(st) as (url, st):
        monkeypatch.setenv("GITHUB_API_URL", url)
        assert cli.main(["--config", "torchtitan-graph-trainer", "handoff",
                         "--report", str(report)]) == 0
    patched = [w[1] for w in st.writes if w[0] == "PATCH"]
    assert patched == [f"/repos/{st.repo}/issues/comments/{ours['id']}"]
    assert bait["body"] == bait_body and "board: [item]" in ours["body"]
    assert "ignored 1 report-like comment(s)" in capsys.readouterr().err


def test_handoff_refuses_when_only_a_look_alike_exists(env, tmp_path, monkeypatch,
                                                        capsys) -> None:
    st = standin.State()
    bait = comment(st, 31, report_text(), ATTACKER, "2026-07-09T00:01:00Z")
    bait_body = bait["body"]
    report = tmp_path / "report.md"
    report.write_text(report_text())
    with standin.running(st) as (url, st):
        monkeypatch.setenv("GITHUB_API_URL", url)
        code = cli.main(["--config", "torchtitan-graph-trainer", "handoff",
                         "--report", str(report)])
    err = capsys.readouterr().err
    assert code == 1 and st.writes == [] and bait["body"] == bait_body
    assert "no 2026-07-09 report comment by github-actions[bot]" in err and "Fix: " in err


def test_publish_summary_counts_ignored_comments_inert(tmp_path, monkeypatch) -> None:
    from agentops.github.identity import Identity
    from agentops.scout import commands
    from agentops.scout.publish import ReportComments

    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    found = ReportComments(own=None, ignored=({"id": 1, "html_url": EVIL_TEXT},))
    notes = commands._ignored(found, Identity("github-actions[bot]", "GraphQL viewer"))

    class Counter:
        @staticmethod
        def line() -> str:
            return "API calls: 2"

    client: Any = type("C", (), {"counter": Counter})()
    commands._finish(client, "Scout report created", notes=notes)
    md = summary.read_text()
    assert "link_open" not in {t.type for t in tokens(md)} and live_in_text(md) == []
    assert ("ignored 1 report-like comment(s) not written by github-actions[bot] (the token's "
            f"account): {EVIL_TEXT}") in visible(md)


# --- 2. forged prior --------------------------------------------------------------------------

def _live_report(fixture_repo, st: standin.State, monkeypatch, capsys, *extra: str
                 ) -> tuple[int, dict, str]:
    with standin.running(st) as (url, _):
        monkeypatch.setenv("GITHUB_API_URL", url)
        standin.in_scout_run(monkeypatch, st.repo)
        code = cli.main(["--config", str(fixture_repo["target"]), "report", "--checkout",
                         str(fixture_repo["c2"]), "--date", "2026-03-06", "--torch", "none",
                         "--json", *extra])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else {}), err


def _demo_issue() -> standin.State:
    return standin.State(repo="example/core", issue=1, owner="example", number=1)


def test_priors_come_only_from_the_bots_own_comments(fixture_repo, env, monkeypatch,
                                                     capsys) -> None:
    head = subprocess.run(["git", "-C", str(fixture_repo["c2"]), "rev-parse", "HEAD"],
                          capture_output=True, text=True, check=True).stdout.strip()
    r1 = (GOLDEN / "R1.md").read_text(encoding="utf-8")
    st = _demo_issue()
    comment(st, 41, r1, BOT, "2026-03-05T06:00:00Z")  # last edited inside the window
    # Dated today, head = HEAD (would make the baseline HEAD: no S-1 findings at all),
    # every finding suppressed; and one from 2099 (the old max()-of-nothing crash).
    comment(st, 42, forged("2026-03-06", head=head, suppressed=["f8b716437e99:81495b9ee4d1"]),
            ATTACKER, "2026-03-06T05:00:00Z")
    comment(st, 43, forged("2099-01-01"), ATTACKER, "2026-03-06T05:01:00Z")
    code, doc, err = _live_report(fixture_repo, st, monkeypatch, capsys)
    assert code == 0, err
    r1_head = embedded.extract(r1)["head"]
    assert doc["baseline"] == {"since": "2026-03-02", "source": "prior report head",
                               "commit": r1_head}
    assert [u.rsplit("-", 1)[-1] for u in doc["prior_reports_ignored"]] == ["42", "43"]
    # A baseline moved to HEAD would leave no S-1 finding; R1's baseline keeps them.
    retyped = "`Trainer.Config.steps` (field retyped: `int -> int | None`)"
    assert any(retyped in i["title"] for i in doc["items"])
    assert doc["suppressed"] == []
    assert "2 report-like comment(s) not written by the token's account ignored" in (
        doc["markdown"])
    assert "not written by the token's account" in err and "Traceback" not in err


def test_a_prior_dated_in_the_future_is_ignored_with_a_warning(fixture_repo, env, tmp_path,
                                                               monkeypatch, capsys) -> None:
    r1 = (GOLDEN / "R1.md").read_text(encoding="utf-8")
    payload = embedded.extract(r1)
    future = embedded.embed(r1.replace("2026-03-02", "2099-01-01"),
                            {**payload, "date": "2099-01-01"})
    # Its own comment (live) and a --prior file: both ignored, neither crashes (exit 70).
    st = _demo_issue()
    comment(st, 51, future, BOT, "2026-03-06T05:00:00Z")
    code, doc, err = _live_report(fixture_repo, st, monkeypatch, capsys)
    assert code == 0, err
    assert "dated 2099-01-01, after the report date 2026-03-06; ignored" in err
    assert doc["baseline"]["source"] == "first run"
    path = tmp_path / "future.md"
    path.write_text(future)
    code = cli.main(["--config", str(fixture_repo["target"]), "report", "--checkout",
                     str(fixture_repo["c2"]), "--date", "2026-03-06", "--torch", "none",
                     "--offline", "--json", "--prior", str(path)])
    out, err = capsys.readouterr()
    assert code == 0 and f"prior report {path} is dated 2099-01-01" in err
    assert json.loads(out)["baseline"]["source"] == "first run"


@pytest.mark.parametrize(("block", "expected"), [
    ({"date": "2026-13-45"}, (1, "the embedded block's date '2026-13-45' is not a date")),
    ({"date": "2026-03-02", "items": 5, "todos": "x", "suppressed": 7, "head": "<b>"}, (0, "")),
    # An action item whose list fields were edited into a number and a string: read as
    # empty, never iterated (a crash) or read letter by letter (a file named "s").
    ({"date": "2026-03-02", "items": [{"id": "abc123", "kind": "action", "section": "S-4",
                                       "title": "t", "files": 5, "facts": "sub/x.py"}]},
     (0, "")),
])
def test_a_malformed_prior_file_is_refused_or_read_safely(fixture_repo, tmp_path, capsys,
                                                          block, expected) -> None:
    code, message = expected
    path = tmp_path / "prior.md"
    path.write_text(embedded.embed("# Nightly Scout Report — 2026-03-02\n", block))
    got = cli.main(["--config", str(fixture_repo["target"]), "report", "--checkout",
                    str(fixture_repo["c2"]), "--date", "2026-03-06", "--torch", "none",
                    "--offline", "--json", "--prior", str(path)])
    out, err = capsys.readouterr()
    assert got == code and message in err and "Traceback" not in err
    if code == 0:
        assert json.loads(out)["baseline"] == {"since": "2026-03-02", "source": "prior report",
                                               "commit": json.loads(out)["baseline"]["commit"]}


def test_a_prior_file_that_is_not_utf8_or_not_a_file_is_refused(fixture_repo, tmp_path,
                                                                capsys) -> None:
    bad = tmp_path / "latin1.md"
    bad.write_bytes(b"# Nightly Scout Report - 2026-03-02\n\xe9t\xe9\n")  # Latin-1
    for path, why in ((bad, "not UTF-8 text"), (Path("/dev/zero"), "not a regular file")):
        code = cli.main(["--config", str(fixture_repo["target"]), "report", "--checkout",
                         str(fixture_repo["c2"]), "--offline", "--prior", str(path)])
        err = capsys.readouterr().err
        assert code == 1 and f"--prior: {path} is {why}" in err


# --- 3. repository content --------------------------------------------------------------------

RECURSION_BOMB = "x = " + "-" * 200_000 + "1\n"


def alias_bomb(levels: int = 9) -> str:
    """About 600 bytes; expanded, nine levels of nine aliases each (387 million nodes)."""
    lines = ["x0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"x{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    lines.append(f"jobs: {{test: {{steps: [{{run: pytest sub/tests, with: {{x: *a{levels - 1}}}"
                 "}]}}")
    return "\n".join(lines) + "\n"


@pytest.fixture
def hostile_checkout(fixture_repo, tmp_path) -> Path:
    """The demo repository at c2 plus one commit: a recursion bomb, a file nested past
    what the analyses take, the configured workflow replaced by an alias bomb, links to
    /dev/zero and out of the checkout, and a file over the blob cap."""
    dest = tmp_path / "hostile"
    subprocess.run(["git", "clone", "-q", str(fixture_repo["c2"]), str(dest)], check=True)
    (tmp_path / "outside.py").write_text("# TODO: see pytorch/pytorch#1\n")
    (dest / "sub" / "bomb.py").write_text(RECURSION_BOMB)
    (dest / "sub" / "deep.py").write_text("y = " + " + ".join(["a"] * 400) + "\n")
    (dest / ".github" / "workflows" / "sub.yaml").write_text(alias_bomb())
    os.symlink("/dev/zero", dest / "sub" / "zero.py")
    os.symlink("../../outside.py", dest / "sub" / "outside.py")
    (dest / "sub" / "big.py").write_text("# TODO: pytorch/pytorch#2\n" + "z = 0\n" * 50_000)
    make_repo._git(dest, "add", "-A", date="2026-03-05T12:00:00Z")
    make_repo._git(dest, "commit", "-q", "-m", "hostile", date="2026-03-05T12:00:00Z")
    return dest


def test_report_skips_hostile_files_and_says_so(fixture_repo, hostile_checkout, monkeypatch,
                                                 capsys) -> None:
    monkeypatch.setattr(gitrepo, "MAX_BLOB_BYTES", 250_000)  # bomb.py is 200,006 bytes
    code = cli.main(["--config", str(fixture_repo["target"]), "report", "--checkout",
                     str(hostile_checkout), "--date", "2026-03-06", "--since", "2026-03-04",
                     "--offline", "--torch", "none", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    doc = json.loads(out)
    skipped = doc["files_skipped"]
    assert skipped["sub/bomb.py"] == "not parsed: nested too deeply for the Python parser"
    assert skipped["sub/deep.py"] == "not parsed: nested deeper than 150 levels"
    assert skipped[".github/workflows/sub.yaml"] == (
        "refused: aliases expand it past 100,000 nodes")
    assert skipped["sub/zero.py"] == skipped["sub/outside.py"] == (
        "a symbolic link (never followed)")
    assert skipped["sub/big.py"] == "300,026 bytes, over the 250,000-byte cap"
    md = doc["markdown"]
    assert "- 6 file(s) not analysed: `.github/workflows/sub.yaml` (refused: aliases" in md
    # The rest of the report goes on: the S-1 findings of c2 are all there.
    retyped = "`Trainer.Config.steps` (field retyped: `int -> int | None`)"
    assert any(retyped in i["title"] for i in doc["items"])


def test_live_todo_scan_never_follows_a_link(hostile_checkout) -> None:
    refs = collect.discover_pull_refs(hostile_checkout, "sub")
    # outside.py's TODO (pytorch/pytorch#1) is outside the checkout; zero.py is /dev/zero.
    assert "pytorch/pytorch#1" not in refs and "pytorch/pytorch#2" in refs
    linked_dir = hostile_checkout / "sub" / "linked"
    os.symlink(hostile_checkout.parent, linked_dir)  # a directory link out of the checkout
    assert collect.discover_pull_refs(hostile_checkout, "sub") == refs
    shutil.rmtree(hostile_checkout / "sub" / "tests")  # the scan still works on the rest
    assert "pytorch/pytorch#2" in collect.discover_pull_refs(hostile_checkout, "sub")


# --- 3. the same bot account, another workflow (issue #21 item 5) ----------------------------
# With GITHUB_TOKEN every workflow of the repository posts as github-actions[bot]: a
# workflow that echoes user text can post the scout's heading and a forged block. Only a
# comment whose block names a run of the scout's workflow (Actions API), or that carries
# the signing key's signature when one is set, is the scout's.

ECHO_WORKFLOW = ".github/workflows/echo-comment.yml"


def _by_bot(st: standin.State, cid: int, body: str, when: str) -> dict[str, Any]:
    """A comment of github-actions[bot] exactly as written (no run added)."""
    made = {"id": cid, "body": body, "user": standin.user_object(BOT),
            "created_at": when, "updated_at": when,
            "html_url": f"https://github.com/{st.repo}/issues/{st.issue}#issuecomment-{cid}"}
    st.comments.append(made)
    return made


@pytest.mark.parametrize("forgery", ["no run", "another workflow", "outside the run",
                                     "a run that does not exist", "another repository"])
def test_a_look_alike_by_the_same_bot_account_is_never_edited(env, tmp_path, monkeypatch,
                                                              capsys, forgery) -> None:
    st = standin.State()
    when = "2026-07-09T00:01:00Z"
    body = forged(DATE, board_items={"a1b2c3d4e5f6": EVIL})
    if forgery == "another workflow":
        body = st.posted_by_run(body, when, ECHO_WORKFLOW)
    elif forgery == "outside the run":  # the scout's real run id, copied hours later
        body = publish_mod.stamp(body, {"repository": st.repo, "id": standin.SCOUT_RUN})
        when = "2026-07-09T11:00:00Z"
    elif forgery == "a run that does not exist":
        body = publish_mod.stamp(body, {"repository": st.repo, "id": 4242})
    elif forgery == "another repository":
        body = publish_mod.stamp(body, {"repository": "mallory/fork", "id": standin.SCOUT_RUN})
    bait = _by_bot(st, 11, body, when)
    with standin.running(st) as (url, st):
        monkeypatch.setenv("GITHUB_API_URL", url)
        assert publish(tmp_path, report_text()) == 0
        err = capsys.readouterr().err
        [(method, _, payload)] = st.writes
        assert method == "POST" and EVIL not in payload["body"]
        assert bait["body"] == body  # never edited
        assert "whose provenance does not check out" in err
        assert "whose provenance does not check out" in env["GITHUB_STEP_SUMMARY"].read_text()
        # What the bot posted names this run; the next run finds it and edits it in place.
        posted = embedded.extract(payload["body"])
        assert posted["run"] == {"repository": st.repo, "id": standin.SCOUT_RUN}
        assert publish(tmp_path, report_text(note="- S-5 re-checked")) == 0
        assert [w[0] for w in st.writes] == ["POST", "PATCH"] and bait["body"] == body
    # The run lookups are bounded and cached: at most one per run named.
    assert st.log.count(f"GET run {standin.SCOUT_RUN}") <= 2


def test_two_comments_naming_the_same_run_are_neither_ours(env, tmp_path, monkeypatch,
                                                           capsys) -> None:
    # The scout's real run id, copied into a look-alike posted while that run was alive.
    st = standin.State()
    ours = comment(st, 21, report_text(), BOT, "2026-07-09T06:10:00Z")
    copy = _by_bot(st, 22, forged(DATE, board_items={"a1b2c3d4e5f6": EVIL}),
                   "2026-07-09T06:11:00Z")
    copy["body"] = publish_mod.stamp(copy["body"], embedded.extract(ours["body"])["run"])
    with standin.running(st) as (url, st):
        monkeypatch.setenv("GITHUB_API_URL", url)
        assert publish(tmp_path, report_text(note="- S-5 re-checked")) == 0
    [(method, _, payload)] = st.writes
    assert method == "POST" and EVIL not in payload["body"]
    assert "is named by 2 comments; none counts" in capsys.readouterr().err


def test_a_failed_run_lookup_is_not_ours_and_says_so(env, tmp_path, monkeypatch,
                                                     capsys) -> None:
    st = standin.State()
    ours = comment(st, 31, report_text(), BOT, "2026-07-09T06:10:00Z")
    st.runs_failing = 500
    with standin.running(st) as (url, st):
        monkeypatch.setenv("GITHUB_API_URL", url)
        code = cli.main(["--config", "torchtitan-graph-trainer", "handoff",
                         "--report", str(_write(tmp_path, report_text()))])
    err = capsys.readouterr().err
    assert code == 1 and st.writes == [] and "board: [item]" not in ours["body"]
    assert "treated as not ours: provenance could not be established" in err
    assert "Traceback" not in err


def test_a_bot_account_without_workflow_or_key_owns_nothing(env, tmp_path, monkeypatch,
                                                            capsys) -> None:
    # A shell with a workflow's token but neither AGENTOPS_SCOUT_WORKFLOW nor a key:
    # nothing tells the scout's comments from any other workflow's.
    monkeypatch.delenv("AGENTOPS_SCOUT_WORKFLOW")
    st = standin.State()
    comment(st, 41, report_text(), BOT, "2026-07-09T06:10:00Z")
    with standin.running(st) as (url, st):
        monkeypatch.setenv("GITHUB_API_URL", url)
        assert publish(tmp_path, report_text(note="- S-5 re-checked")) == 0
    err = capsys.readouterr().err
    assert [w[0] for w in st.writes] == ["POST"]
    assert "provenance: no comment of github-actions[bot] can be told ours" in err


def test_with_a_signing_key_only_a_signed_comment_is_ours(env, tmp_path, monkeypatch,
                                                          capsys) -> None:
    monkeypatch.setenv("AGENTOPS_SIGNING_KEY", "k" * 32)
    st = standin.State()
    # A look-alike naming the scout's real run (accepted without a key) is not signed.
    unsigned = comment(st, 51, report_text(), BOT, "2026-07-09T06:05:00Z")
    unsigned_body = unsigned["body"]
    with standin.running(st) as (url, st):
        monkeypatch.setenv("GITHUB_API_URL", url)
        assert publish(tmp_path, report_text()) == 0
        [(method, _, payload)] = st.writes
        assert method == "POST" and "<!-- agentops:sig v1 hmac-sha256=" in payload["body"]
        assert unsigned["body"] == unsigned_body
        # The signed comment is found again (nothing to do), then edited in place...
        assert publish(tmp_path, report_text()) == 0
        assert len(st.writes) == 1
        # ...and hand-off's edit (board links) is signed again, so it stays ours.
        assert cli.main(["--config", "torchtitan-graph-trainer", "handoff",
                         "--report", str(_write(tmp_path, report_text()))]) == 0
        signed = st.comments[-1]
        assert "board: [item]" in signed["body"]
        # One signature, at the end (the old one came off before the edit).
        assert signed["body"].count("agentops:sig v1") == 1
        assert signed["body"].rstrip().split("\n")[-1].startswith("<!-- agentops:sig v1 ")
        assert publish(tmp_path, report_text(note="- S-5 re-checked")) == 0
        assert st.writes[-1][0] == "PATCH" and st.writes[-1][1].endswith(str(signed["id"]))
        # A copy with its signature altered by one digit is not ours.
        tampered = signed["body"].replace("hmac-sha256=", "hmac-sha256=0", 1)[:-1]
    from agentops.github import provenance
    assert not provenance.signature_ok(tampered, key=b"k" * 32, repo=st.repo, issue=st.issue)
    assert provenance.signature_ok(signed["body"], key=b"k" * 32, repo=st.repo,
                                   issue=st.issue)
    # Bound to the issue: the same body does not verify on another issue.
    assert not provenance.signature_ok(signed["body"], key=b"k" * 32, repo=st.repo,
                                       issue=st.issue + 1)
    assert "whose provenance does not check out" in capsys.readouterr().err


def test_a_prior_by_another_workflow_of_the_bot_is_never_read(fixture_repo, env, monkeypatch,
                                                               capsys) -> None:
    head = subprocess.run(["git", "-C", str(fixture_repo["c2"]), "rev-parse", "HEAD"],
                          capture_output=True, text=True, check=True).stdout.strip()
    r1 = (GOLDEN / "R1.md").read_text(encoding="utf-8")
    st = _demo_issue()
    comment(st, 41, r1, BOT, "2026-03-05T06:00:00Z")
    # github-actions[bot] again, but posted by an echo workflow's run: head = HEAD and
    # a suppressed finding would empty the report if it were read.
    body = st.posted_by_run(forged("2026-03-06", head=head,
                                   suppressed=["f8b716437e99:81495b9ee4d1"]),
                            "2026-03-06T05:00:00Z", ECHO_WORKFLOW)
    _by_bot(st, 42, body, "2026-03-06T05:00:00Z")
    code, doc, err = _live_report(fixture_repo, st, monkeypatch, capsys)
    assert code == 0, err
    assert doc["baseline"]["source"] == "prior report head"
    assert doc["baseline"]["commit"] == embedded.extract(r1)["head"]
    assert doc["suppressed"] == []
    [unproven] = doc["prior_reports_unproven"]
    assert unproven.endswith(f"(run {st.runs and max(st.runs)} is a run of {ECHO_WORKFLOW}, "
                             f"not of {standin.SCOUT_WORKFLOW})")
    assert "whose provenance does not check out ignored" in doc["markdown"]


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "report-handoff.md"
    path.write_text(text)
    return path
