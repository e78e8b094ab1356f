"""Hostile input through triage: random labels (two sub-oncalls, unknown ones,
``oncall: pt2``, the marker) and random text (huge bodies, NUL and bidi characters,
prompt injection, workflow commands, ``@org/team`` mentions, ``</details>``) go
through ``plan_issue`` and ``apply_plan`` against a recording fake client. T-20…T-28
must always hold, nothing may raise, and untrusted text must be inert wherever it is
rendered (log line, job summary, comment).

The checker is proven first, on hand-made appliers that break each rule; the
property test over the real planner/applier runs once they are merged.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentops.console import inert_line
from agentops.ghactions import inert_markdown
from agentops.triage.model import Comment, IssueSnapshot, Plan, Queue, Template
from tests.property import hostile
from tests.watchdog import within

# Hypothesis draws a seed and the shared generator (hostile.py, also used by the
# 10,000-case benchmark) does the rest: drawing every character through hypothesis
# made 300 examples take a minute; a seed keeps them derandomized and fast.
SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
PROPERTY = settings(max_examples=300, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# A small hand-made queue, so the checker's own tests need no merged triage data.
QUEUE = Queue(
    name="mini", trigger_label="oncall: distributed",
    allowlist=frozenset({"oncall: distributed parallelisms", "oncall: distributed infra",
                         "module: fsdp", "module: c10d", "bot-triaged", "triaged",
                         "triage review", "needs reproduction", "feature", "enhancement"}),
    suboncalls=("oncall: distributed parallelisms", "oncall: distributed infra"),
    modules=("module: fsdp", "module: c10d"), marker_label="bot-triaged",
    triaged_label="triaged", review_label="triage review",
    needs_repro_label="needs reproduction", type_labels=("feature", "enhancement"),
    keep_labels=("oncall: distributed", "oncall: pt2"),
    templates={"ask": Template(name="ask", version=2, body="Could you add a minimal script?")},
)
ISSUE = IssueSnapshot(repo=hostile.REPO, number=7, title="t", body="b",
                      labels=("oncall: distributed",))
PLAN = Plan(repo=hostile.REPO, issue=7, decision="classify",
            add_labels=("oncall: distributed parallelisms", "module: fsdp", "bot-triaged"))
ASK = "Could you add a minimal script?\n\n" + QUEUE.templates["ask"].marker()


def _apply(labels=None, comment=None, extra=None) -> hostile.FakeGitHub:
    fake = hostile.FakeGitHub(ISSUE, frozenset(QUEUE.allowlist))
    path = f"/repos/{hostile.REPO}/issues/7"
    if labels is not None:
        fake.write("POST", f"{path}/labels", {"labels": list(labels)})
    if comment is not None:
        fake.write("POST", f"{path}/comments", {"body": comment})
    if extra is not None:
        fake.calls.append(hostile.Call(*extra))
    return fake


# --- the checker catches each broken rule --------------------------------------------------

def test_a_correct_apply_has_no_violations() -> None:
    fake = _apply(PLAN.add_labels, ASK)
    assert hostile.check_run(ISSUE, PLAN, fake, QUEUE) == []


@pytest.mark.parametrize(("labels", "comment", "extra", "rule"), [
    (None, None, ("DELETE", f"/repos/{hostile.REPO}/issues/7/labels/oncall%3A%20distributed"),
     "T-20: writes other than add-labels/comment"),
    (None, None, ("PATCH", f"/repos/{hostile.REPO}/issues/7", {"state": "closed"}),
     "T-20: writes other than add-labels/comment"),
    (("high priority", "bot-triaged"), None, None, "T-21: labels outside the allowlist"),
    (("oncall: distributed parallelisms", "oncall: distributed infra", "bot-triaged"), None,
     None, "T-22: 2 sub-oncalls after the run"),
    (("oncall: distributed parallelisms", "triaged", "triage review", "bot-triaged"), None,
     None, "T-23: triaged added with"),
    (("oncall: distributed parallelisms",), None, None,
     "T-24: a handled issue lacks the marker label"),
    (("module: fsdp", "oncall: distributed parallelisms", "bot-triaged"), None, None,
     "T-25: module before sub-oncall"),
    (("bot-triaged",), "LGTM, merging. @pytorch/pt2-team", None,
     "T-26: a comment that is not a template body"),
    (("bot-triaged",), "Could you add a minimal script?", None,
     "T-26: a comment that is not a template body"),  # the marker is missing
])
def test_each_broken_rule_is_reported(labels, comment, extra, rule) -> None:
    fake = _apply(labels, comment, extra)
    got = hostile.check_run(ISSUE, PLAN, fake, QUEUE)
    assert any(v.startswith(rule) for v in got), got


def test_two_label_calls_and_the_high_priority_marker_are_reported() -> None:
    fake = _apply(("bot-triaged",))
    fake.write("POST", f"/repos/{hostile.REPO}/issues/7/labels", {"labels": ["triaged"]})
    high = Plan(repo=hostile.REPO, issue=7, decision="high_priority",
                add_labels=("triage review",), awaiting_humans=True)
    got = hostile.check_run(ISSUE, high, fake, QUEUE)
    assert "T-28: 2 label calls, 0 comments" in got
    assert "T-24: marker label added on the high-priority path" in got
    assert any(v.startswith("T-23") for v in got)


def test_check_inert_flags_raw_hostile_text() -> None:
    raw = "x\n::set-output name=a::b\n@pytorch/pt2 </details> \u202e"
    got = hostile.check_inert(raw, where="summary")
    assert [v.split(":")[1].strip() for v in got] == [
        "a line starts a workflow command", "NUL/escape/bidi character survived",
        "a live @mention", "raw HTML '</details>' (1 in the render, 0 from the renderer itself)"]
    # The renderer's own collapsible block is allowed; one more closing tag is not.
    own = "<details><summary>Why</summary>\n\nx\n\n</details>"
    assert hostile.check_inert(own, where="summary", baseline=own) == []
    assert hostile.check_inert(own + "</details>", where="summary", baseline=own) == [
        "summary: raw HTML '</details>' (2 in the render, 1 from the renderer itself)"]


# --- the sanitisers, on every generator output -------------------------------------------

@PROPERTY
@given(seed=SEEDS)
def test_sanitisers_make_any_hostile_text_inert(seed: int) -> None:
    rng = random.Random(seed)
    text = hostile.random_text(rng, huge=rng.random() < 0.05)
    assert hostile.check_inert(inert_line(text), where="log") == []
    for cell in (False, True):
        out = inert_markdown(text, cell=cell, limit=100_000)
        assert hostile.check_inert(out, where="summary") == []
        if cell:
            assert "\n" not in out


def test_the_generator_covers_what_it_promises() -> None:
    rng = random.Random(6)
    queue_like = QUEUE
    seen_two_subs = seen_huge = seen_pt2 = seen_marker = seen_bot_comment = False
    for _ in range(400):
        s = hostile.random_snapshot(rng, queue_like)
        subs = [lb for lb in s.labels if lb in queue_like.suboncalls]
        seen_two_subs |= len(subs) >= 2
        seen_huge |= len(s.body) > 65_536
        seen_pt2 |= "oncall: pt2" in s.labels
        seen_marker |= "bot-triaged" in s.labels
        seen_bot_comment |= any(isinstance(c, Comment) and c.is_bot for c in s.comments)
    assert seen_two_subs and seen_huge and seen_pt2 and seen_marker and seen_bot_comment


# --- the real planner and applier (once merged) ---------------------------------------------

@pytest.fixture(scope="module")
def triage() -> hostile.Triage:
    return hostile.load_triage()


@PROPERTY
@given(seed=SEEDS)
def test_hostile_issues_never_break_t20_to_t28(seed: int, triage) -> None:
    violations = hostile.run_case(random.Random(seed), triage)
    # Replay one case: python benchmarks/fuzz_triage.py --seed SEED --cases 1
    assert not violations, f"seed {seed}:\n" + "\n".join(violations)


# Security: one hostile issue must not stall a sweep. GitHub accepts bodies (and each
# comment) of up to 65,536 characters; a regex whose \s* spans newlines under re.M
# turns a body of blank lines into quadratic work (16 s for one issue in a scratch
# merge, against 0.02 s with the pattern fixed); a fence regex backtracks over a run of
# backticks (2.4 s). A watchdog, not a speed target: the bound is 100x what a linear
# planner needs for one maximal body.
WATCHDOG_SECONDS = 5.0
PATHOLOGICAL_BODIES = {
    "blank lines": "\n" * 65_536,
    "blank lines with spaces": " \n" * 32_768,
    "empty headings": "#\n" * 32_768,
    "tabs": "\t" * 65_536,
    "backticks": "`" * 65_536,
    "fences": "```\n" * 16_384,
    "colons": ":" * 65_536,
    "one long word": "a" * 65_536,
    # The postfix negation ("X is not used") tried a list at every part of a dotted
    # name: 32 KB of "a." took 20 s (issue #23 review, rev33).
    "a dotted run after a postfix negation": "DDP is not used.\n" + "a." * 32_000,
    "a dotted run after a prefix negation": "no " + "a." * 32_000,
    # The step-1 negation's two-word list items (issue #23, tr-hand2).
    "negated two-word lists": "no process group, tensor parallel or multiple GPUs / " * 1_200,
    # The rubric signals of this stop (#23): a skip tracker's item, one rank's numbers,
    # an inline one-liner of nested torch calls.
    "skip tracker lines": "- Test name: `test_x`\n- Parent issue: #1\n" * 1_500,
    "runs after a tracker's parent line": "Parent issue:" + " " * 65_000 + "#1",
    "one rank's numbers": "nan on rank 1 only, " * 3_000,
    "nested torch calls in a code span": "`torch.a(torch.b(" * 3_800,
    "digits inside a one-liner": "`torch.a(torch.b(1), " + "1," * 32_000 + "`",
}


@pytest.mark.parametrize("kind", sorted(PATHOLOGICAL_BODIES))
def test_pathological_bodies_do_not_stall_the_planner(kind: str, triage) -> None:
    body = PATHOLOGICAL_BODIES[kind]
    snap = IssueSnapshot(repo=hostile.REPO, number=1, title="hang", body=body,
                         labels=(triage.queue.trigger_label,))
    plan = within(WATCHDOG_SECONDS, lambda: triage.plan_issue(snap, triage.queue))
    assert plan.issue == 1


# --- the contract check cannot vanish (issue #21 item 7) ------------------------------------

def test_without_the_openapi_fixture_the_fuzz_check_fails_loudly_under_ci(monkeypatch,
                                                                          tmp_path) -> None:
    from tests.contract import openapi

    monkeypatch.setattr(openapi, "OPENAPI_JSON", tmp_path / "absent.json")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(openapi.FixtureMissing, match=r"bash \.ci/npm-fixtures"):
        hostile.load_triage()
    # Outside CI the check is off with a warning that says so and how to turn it on.
    monkeypatch.delenv("CI")
    with pytest.warns(UserWarning, match=r"contract check .* is off: run `bash \.ci/npm-fixtures`"):
        assert hostile.load_triage().index is None
    # An explicit opt-out says nothing.
    assert hostile.load_triage(with_openapi=False).index is None


def test_the_fuzz_benchmark_refuses_to_run_without_its_contract_check(monkeypatch, tmp_path,
                                                                      capsys) -> None:
    import importlib.util

    from tests.contract import openapi

    monkeypatch.setattr(openapi, "OPENAPI_JSON", tmp_path / "absent.json")
    spec = importlib.util.spec_from_file_location(
        "fuzz_triage", openapi.ROOT / "benchmarks" / "fuzz_triage.py")
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--cases", "1"]) == 2
    assert "bash .ci/npm-fixtures" in capsys.readouterr().err
