"""Issue #12, triage items: the step-0 self-check cannot be made to re-plan an issue
hundreds of times (item 8), and a thread longer than the comment-read cap gets no
comment, because the same request may be among the comments not read (item 9).

Hostile shapes are generated here; nothing big is stored in the repository. Timing is
the benchmark's job (benchmarks/triage_planner.py prints the hostile-shape figure);
these tests check the bounds that make it fast: the text is read once, the candidate
earlier states are few, and what is read of each text is capped."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from agentops.triage import collect, live, plan, signals
from agentops.triage.apply import apply_plan, preview
from agentops.triage.model import Comment, IssueSnapshot
from scripts import triage as cli
from tests.standin.github import GitHubStandIn
from tests.triage import livekit
from tests.triage.livekit import PAR, REPO_LABELS, TRIGGER
from tests.triage.plankit import INFRA, QUEUE_LABEL, fence, make_issue, plan_ok

REPO = "o/r"
WORDS = ("ProcessGroupNCCL ncclSystemError init_device_mesh rpc_sync torchrun rendezvous "
         "ProcessGroupMPI MultiThreadedTestCase symm_mem TORCH_DISTRIBUTED_DEBUG c10d "
         "all_reduce the rank hangs on fails").split()


def hostile_issue(queue, *, comments: int = 50, chars: int = 60_000) -> IssueSnapshot:  # type: ignore[no-untyped-def]
    """An infra-routed, marked issue carrying every infra module label and long comments
    that name all of them: the shape that made the step-0 self-check re-plan hundreds
    of times (each re-plan re-reading megabytes)."""
    rnd = random.Random(12)
    infra_modules = [m for m in queue.modules if queue.module_suboncall[m] == INFRA]
    assert len(infra_modules) >= 9

    def text() -> str:
        out: list[str] = []
        size = 0
        while size < chars:
            w = " ".join(rnd.choice(WORDS) for _ in range(12))
            out.append(w)
            size += len(w) + 1
        return "\n".join(out)

    return IssueSnapshot(
        repo="example-org/example-ml", number=12, title="c10d and NCCL hang on every rank",
        body=text()[:2000], labels=(QUEUE_LABEL, INFRA, "bot-triaged", *infra_modules),
        comments=tuple(Comment(id=i, author=f"user{i}", body=text()) for i in range(comments)))


def test_hostile_self_check_reads_the_text_once_and_tries_few_states(queue, monkeypatch):
    snap = hostile_issue(queue)
    reads: list[int] = []
    plans: list[int] = []
    real_read, real_plan = plan.read, plan._plan

    def counting_read(s, q):  # type: ignore[no-untyped-def]
        reads.append(s.number)
        return real_read(s, q)

    def counting_plan(*a, **k):  # type: ignore[no-untyped-def]
        plans.append(1)
        return real_plan(*a, **k)

    monkeypatch.setattr(plan, "read", counting_read)
    monkeypatch.setattr(plan, "_plan", counting_plan)
    result = plan_ok(snap, queue)
    assert reads == [12]  # once, however many earlier states are tried
    # 9 infra modules: at most C(9,1) + C(9,2) + C(9,3) = 129 states, plus the plan itself.
    assert len(plans) <= 1 + 129 + 1
    assert len(plans) <= plan.MAX_OWN_CANDIDATES
    # Step 0 either way (the bot's proposal next to earlier modules, or a human's
    # classification): nothing but `triaged` could be added.
    assert result.decision == "already_classified"
    assert set(result.add_labels) <= {"triaged"}


def test_what_the_planner_reads_of_an_issue_is_capped(queue):
    snap = hostile_issue(queue, comments=50, chars=70_000)
    reading = plan.read(snap, queue)
    read_chars = sum(len(v) for k, v in reading.text.places.items() if k != "frame")
    assert read_chars <= (signals.MAX_TITLE_CHARS + signals.MAX_BODY_CHARS
                          + signals.MAX_COMMENTS_CHARS)
    title, body, comments = signals.bounded("t" * 5000, "b" * 100_000,
                                            ["c" * 40_000] * 20)
    assert len(title) == signals.MAX_TITLE_CHARS and len(body) == signals.MAX_BODY_CHARS
    assert all(len(c) <= signals.MAX_COMMENT_CHARS for c in comments)
    assert sum(map(len, comments)) == signals.MAX_COMMENTS_CHARS


def test_own_route_proposal_with_long_comments_is_still_recognised(queue):
    # T-27 must hold for the bounded self-check: the bot's own proposal on a long thread
    # plans nothing on a rerun.
    body = ("rpc_sync to a remote worker returns a stale RRef value.\n"
            + fence("rpc.init_rpc('w0', rank=0, world_size=2)\n"
                    "ref = rpc.remote('w1', torch.add, args=(t, 1))"))
    chatter = tuple(Comment(id=i, author=f"u{i}", body="same here " * 3000) for i in range(40))
    snap = replace(make_issue("RRef.to_here returns a stale value", body), comments=chatter)
    first = plan_ok(snap, queue)
    assert first.decision == "route" and "module: rpc" in first.add_labels
    again = plan_ok(replace(snap, labels=snap.labels + first.add_labels), queue)
    assert again.add_labels == () and again.comments == ()


# ------------------------------------------------------------------ item 9: the read cap

def test_planner_posts_nothing_on_a_cut_thread_but_still_labels(queue):
    snap = make_issue("FSDP2 hangs sometimes", "fully_shard hangs for me, no idea why.")
    full = plan_ok(snap, queue)
    assert full.comments == ("needs_distributed_reproduction",)
    cut = plan_ok(replace(snap, comments_truncated=True), queue)
    assert cut.comments == ()
    assert cut.add_labels == full.add_labels
    assert "comment-read cap" in cut.reasoning


def test_applier_posts_nothing_on_a_cut_thread():
    queue = livekit.make_queue()
    snap = replace(livekit.issue(title="[repro] FSDP hangs"), comments_truncated=True)
    the_plan = livekit.fake_plan(snap, queue)
    assert the_plan.comments  # the plan asks; the applier refuses on the cut thread
    client = livekit.RecordingClient()
    result = apply_plan(client, the_plan, snap, queue)  # type: ignore[arg-type]
    assert result.comment is None and "comment-read cap" in result.comment_skipped
    assert [m[1].rsplit("/", 1)[-1] for m in client.mutations] == ["labels"]
    assert "comment-read cap" in preview(the_plan, snap, queue).comment_skipped


@pytest.fixture
def small_cap(monkeypatch):
    # The same code path as 10,000 comments (100 pages), with a cap of 2 pages.
    monkeypatch.setattr(collect, "MAX_COMMENT_PAGES", 2)
    monkeypatch.setattr(live, "load_queue", lambda name: livekit.make_queue())
    monkeypatch.setattr(live, "plan_issue", livekit.fake_plan)
    with GitHubStandIn() as server:
        server.add_repo(REPO, labels=REPO_LABELS)
        monkeypatch.setenv("GITHUB_TOKEN", server.token)
        monkeypatch.setenv("GITHUB_API_URL", server.url)
        monkeypatch.setenv("AGENTOPS_SECONDS_BETWEEN_WRITES", "0")
        yield server


def _thread(n: int, *, asked_last: bool) -> list[dict[str, str]]:
    request = livekit.make_queue().templates["needs_distributed_reproduction"]
    out = [{"body": f"+1, seen it too ({i})"} for i in range(n - 1)]
    last = (f"{request.body}\n\n{request.marker()}" if asked_last else "any news?")
    return [*out, {"body": last, "login": "triage-bot[bot]", "type": "Bot"}]


def test_read_comments_says_when_the_cap_cut_the_thread(small_cap):
    small_cap.add_issue(REPO, 1, title="x", labels=[TRIGGER],
                        comments=_thread(200, asked_last=False))
    small_cap.add_issue(REPO, 2, title="x", labels=[TRIGGER],
                        comments=_thread(201, asked_last=False))
    client = live.GitHubClient.from_env()
    exact, cut_exact = collect.read_comments(client, REPO, 1)
    over, cut_over = collect.read_comments(client, REPO, 2)
    assert (len(exact), cut_exact) == (200, False)
    assert (len(over), cut_over) == (200, True)
    raw = collect.read_issue(client, REPO, 2)
    assert raw[collect.TRUNCATED_KEY] is True
    assert IssueSnapshot.from_rest(raw, raw["comments"], repo=REPO).comments_truncated


def test_a_request_beyond_the_cap_is_not_asked_again(small_cap, tmp_path, monkeypatch):
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    small_cap.add_issue(REPO, 9, title="[repro] FSDP hangs", labels=[TRIGGER],
                        comments=_thread(250, asked_last=True))
    assert cli.main(["run", "--repo", REPO, "--issue", "9"]) == 0
    posts = [r.path for r in small_cap.writes()]
    assert posts == [f"/repos/{REPO}/issues/9/labels"]  # labels, and no second request
    assert {PAR, "needs reproduction"} <= set(small_cap.issue_labels(REPO, 9))
    assert "comment-read cap" in summary.read_text()


def test_a_long_thread_under_the_cap_still_finds_the_request(small_cap):
    small_cap.add_issue(REPO, 10, title="[repro] FSDP hangs", labels=[TRIGGER],
                        comments=_thread(200, asked_last=True))
    small_cap.add_issue(REPO, 11, title="[repro] FSDP hangs", labels=[TRIGGER],
                        comments=_thread(200, asked_last=False))
    assert cli.main(["run", "--repo", REPO, "--issue", "10,11"]) == 0
    posted = [r.path for r in small_cap.writes() if r.path.endswith("/comments")]
    assert posted == [f"/repos/{REPO}/issues/11/comments"]  # #10 was asked already


def test_sweep_marks_a_cut_thread_from_its_graphql_and_rest_pages(small_cap, tmp_path):
    small_cap.add_issue(REPO, 20, title="[repro] FSDP hangs", labels=[TRIGGER],
                        comments=_thread(350, asked_last=True))
    args = cli.build().parse_args(["sweep", "--repo", REPO, "--state-file",
                                   str(tmp_path / "s.json")])
    assert live.sweep_command(args) == 0
    assert not [r for r in small_cap.writes() if r.path.endswith("/comments")]
