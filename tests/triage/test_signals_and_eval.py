"""Text splitting, the root-cause frame, and the evaluation arithmetic (T-13, T-32)."""

from __future__ import annotations

import pytest

from agentops.triage.evaluate import (
    Record,
    first_level_labels,
    keyword_planner,
    score,
    snapshot_of,
    suboncall_label,
)
from agentops.triage.model import Plan
from agentops.triage.signals import keyword_regex, pattern_needles, root_cause_frame, split_issue

PY_TRACE = """Traceback (most recent call last):
  File "train.py", line 3, in <module>
  File "/v/torch/distributed/fsdp/_runtime_utils.py", line 10, in _pre_forward
  File "/v/torch/distributed/distributed_c10d.py", line 20, in all_gather_into_tensor
RuntimeError: bad size"""


def test_split_places(queue):
    body = ("Intro prose with FSDP.\n```python\nimport torch\nx = 1\n```\n" + PY_TRACE
            + "\n\nMore prose.\n\n### Versions\nPyTorch version: 2.5\nNCCL 2.21\n\n### Other\nend")
    t = split_issue("Title here", body, ["comment prose\n```\ncode in comment\n```"],
                    queue.rubric)
    assert t.places["title"] == "Title here"
    assert "Intro prose" in t.places["body"] and "More prose" in t.places["body"]
    assert "NCCL 2.21" not in t.places["body"]  # the environment dump is dropped
    assert "end" in t.places["body"]  # … up to the next heading only
    assert t.places["code"] == "import torch\nx = 1\ncode in comment"
    assert t.places["traceback"].startswith("Traceback") and "bad size" in t.places["traceback"]
    assert "Traceback" not in t.places["body"]
    assert t.places["comment"] == "comment prose"
    assert t.frame == "/v/torch/distributed/fsdp/_runtime_utils.py"


def test_lone_error_line_is_traceback_material(queue):
    t = split_issue("t", "It fails:\nRuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1\nok",
                    [], queue.rubric)
    assert t.places["traceback"] == "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1"


def test_root_cause_frame_rules(queue):
    r = queue.rubric
    only_c10d = ('Traceback (most recent call last):\n  File "/v/torch/distributed/'
                 'distributed_c10d.py", line 1, in barrier\nRuntimeError: x')
    assert root_cause_frame([only_c10d], r) == "/v/torch/distributed/distributed_c10d.py"
    launcher = ('Traceback (most recent call last):\n  File "/v/torch/distributed/run.py", '
                'line 1, in main\n  File "/v/torch/distributed/launcher/api.py", line 2\n'
                'torch.distributed.elastic.multiprocessing.errors.ChildFailedError:')
    assert root_cause_frame([PY_TRACE, launcher], r).endswith("fsdp/_runtime_utils.py")
    assert root_cause_frame([launcher], r) == ""
    cpp = ("Exception raised from run at /src/torch/csrc/distributed/c10d/ProcessGroupNCCL"
           ".cpp:1 (most recent call first):\nframe #0: at /src/torch/csrc/distributed/c10d/"
           "ProcessGroupNCCL.cpp:1\nframe #1: at /src/torch/csrc/distributed/c10d/Work.cpp:9")
    assert root_cause_frame([cpp], r) == "/src/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"


def test_keyword_regex_respects_word_edges():
    import re
    rx = re.compile(keyword_regex("DDP"), re.I)
    assert rx.search("use DDP here") and not rx.search("pytorchddp")
    assert re.search(keyword_regex("process group"), "the process_group arg")


@pytest.mark.parametrize(("pattern", "needles"), [
    (r"torch\.distributed\.checkpoint\b", {"torch.distributed.checkpoint"}),
    (r"\b(?:Shard|Replicate)\(\d\)", {"shard", "replicate"}),
    (r"\w+\s*=\s*\w+\(", None),
    (r"(?:ab|xyz)", None),  # a branch too short to prefilter on
])
def test_pattern_needles(pattern, needles):
    got = pattern_needles(pattern)
    assert (set(got) if got else None) == needles


def rec(n, modules, sub, dist, labels=()):  # type: ignore[no-untyped-def]
    return Record(number=n, title=f"t{n}", text="", human_labels=tuple(labels),
                  modules=frozenset(modules), suboncall=sub, is_distributed=dist,
                  url=f"https://github.com/acme/w/issues/{n}")


def plan(n, labels, decision="classify"):  # type: ignore[no-untyped-def]
    return Plan(repo="acme/w", issue=n, decision=decision, add_labels=tuple(labels))


PAR = "oncall: distributed parallelisms"
INFRA = "oncall: distributed infra"


def test_score_arithmetic(queue):
    records = [
        rec(1, ["module: fsdp"], "parallelisms", True),
        rec(2, ["module: rpc"], "infra", True),
        rec(3, ["module: fsdp", "module: dtensor"], "parallelisms", True),
        rec(4, [], "infra", True),
        rec(5, [], None, False),
        rec(6, [], None, True),
    ]
    plans = [
        plan(1, [PAR, "module: fsdp", "bot-triaged", "triaged"]),          # right, triaged ok
        plan(2, [INFRA, "bot-triaged", "triaged"], "route"),                # fn rpc, triaged ok
        plan(3, [PAR, "module: fsdp", "module: ddp", "bot-triaged", "triaged"]),  # fp ddp
        plan(4, [PAR, "triage review", "bot-triaged"], "low_confidence"),  # wrong sub-oncall
        plan(5, ["triage review", "bot-triaged"], "not_distributed"),      # nd tp
        plan(6, ["triage review", "bot-triaged"], "not_distributed"),      # nd fp
    ]
    s = score(records, plans, queue)
    f = s.figures()
    assert (s.tp, s.fp, s.fn) == (2, 1, 2)
    assert f["module_precision"] == round(2 / 3, 4)
    assert f["module_recall"] == 0.5
    assert f["module_f1"] == round(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5), 4)
    assert f["suboncall_accuracy"] == 0.75
    assert f["triaged_precision"] == round(2 / 3, 4)
    assert f["not_distributed_precision"] == 0.5
    assert f["not_distributed_recall"] == 1.0
    assert f["violations"] == 0
    assert s.per_module["module: ddp"] == [0, 1, 0]
    assert s.per_module["module: rpc"] == [0, 0, 1]


def test_violations_are_counted(queue):
    bad = plan(1, ["module: fsdp", PAR, "triaged", "triage review"])  # T-23, T-24, T-25
    s = score([rec(1, ["module: fsdp"], "parallelisms", True)], [bad], queue)
    assert s.violations == 3


def test_first_level_labels_never_leak_human_classification(queue):
    r = rec(1, ["module: fsdp"], "parallelisms", True,
            labels=["oncall: distributed", "module: fsdp", PAR, "oncall: pt2", "triaged"])
    assert first_level_labels(r, queue) == ("oncall: distributed", "oncall: pt2")
    snap = snapshot_of(r, queue)
    assert snap.repo == "acme/w" and snap.labels == ("oncall: distributed", "oncall: pt2")
    not_dist = rec(2, [], None, False, labels=["module: build"])
    assert first_level_labels(not_dist, queue) == ()


def test_suboncall_short_names(queue):
    assert suboncall_label("infra", queue) == INFRA
    assert suboncall_label("checkpointing", queue) == "oncall: distributed checkpointing"
    assert suboncall_label(None, queue) is None


def test_keyword_baseline(queue):
    base = keyword_planner(queue)
    p = base(snapshot_of(rec(1, [], None, True), queue))
    assert p.decision == "not_distributed"
    r = Record(number=2, title="FSDP and NCCL", text="", human_labels=(), modules=frozenset(),
               suboncall=None, is_distributed=True)
    p = base(snapshot_of(r, queue))
    assert p.add_labels[0] == INFRA  # precedence over parallelisms
    assert {"module: fsdp", "module: nccl", "triaged"} <= set(p.add_labels)


def test_calibration_judges_modules_the_way_triaged_precision_does(queue):
    """Issue #23: a module the plan proposes where the humans routed the issue and set
    no module makes a `triaged` plan wrong in evaluate; the thresholds are fitted on the
    same judgement, so that mistake is seen. With no human route and no module the
    labels cannot judge the module (an issue routed away from the queue is judged apart:
    test_calibration_judges_a_triaged_plan_off_the_queue_wrong)."""
    from agentops.triage.calibrate import judged_labels
    records = [
        rec(1, [], "infra", True),                 # routed, no module: module judged wrong
        rec(2, ["module: c10d"], "infra", True),   # module set: judged right
        rec(3, [], None, True),                    # neither: the module is not judged
    ]
    plans = [Plan(repo="acme/w", issue=r.number, decision="route",
                  add_labels=(INFRA, "module: c10d", "bot-triaged", "triaged"),
                  scores={INFRA: 9.0, "module: c10d": 6.0}) for r in records]
    judged = {(j.label, j.score, j.right) for j in judged_labels(records, plans, queue)}
    points = judged_labels(records, plans, queue)
    assert len(points) == 4  # issue 1: sub + module; issue 2: sub + module
    assert ("module: c10d", 6.0, False) in judged and ("module: c10d", 6.0, True) in judged
    assert sorted(j.right for j in points if j.label == INFRA) == [True, True]
    # The same plan on issue 1 is a wrong `triaged` in evaluate: the two agree.
    assert score(records[:1], plans[:1], queue).figures()["triaged_precision"] == 0.0


def test_calibration_judges_a_triaged_plan_off_the_queue_wrong(queue):
    """Issue #23: evaluate counts a `triaged` plan on an issue the humans routed away from
    the queue as a wrong `triaged`; the thresholds are fitted on the same judgement. The
    labels the claim rests on are judged wrong: the modules it adds, or its sub-oncall
    when it adds none. A plan left for review there is not counted by the figure and
    judges nothing. Made-up records and plans."""
    from agentops.triage.calibrate import judged_labels
    records = [rec(1, [], None, False), rec(2, [], None, False), rec(3, [], None, False)]
    plans = [
        Plan(repo="acme/w", issue=1, decision="classify",
             add_labels=(PAR, "module: ddp", "bot-triaged", "triaged"),
             scores={PAR: 4.5, "module: ddp": 4.5}),
        Plan(repo="acme/w", issue=2, decision="route",
             add_labels=(INFRA, "bot-triaged", "triaged"), scores={INFRA: 6.0}),
        Plan(repo="acme/w", issue=3, decision="classify",
             add_labels=(PAR, "module: ddp", "bot-triaged", "triage review"),
             scores={PAR: 4.5, "module: ddp": 4.5}),
    ]
    judged = sorted((j.label, j.score, j.right) for j in judged_labels(records, plans, queue))
    assert judged == [("module: ddp", 4.5, False), (INFRA, 6.0, False)]
    # The figure the thresholds are fitted for judges the same two plans wrong.
    s = score(records, plans, queue)
    assert (s.triaged_total, s.triaged_right, s.triaged_off_queue) == (2, 0, 2)
    # A module added with no score has no point to judge: the claim rests on the
    # scored sub-oncall alone.
    unscored = Plan(repo="acme/w", issue=4, decision="classify",
                    add_labels=(PAR, "module: ddp", "bot-triaged", "triaged"),
                    scores={PAR: 3.5})
    assert [(j.label, j.score, j.right) for j in
            judged_labels([rec(4, [], None, False)], [unscored], queue)] == [(PAR, 3.5, False)]


def test_triaged_on_an_issue_routed_away_is_a_wrong_triaged(queue):
    """Issue #23: a `triaged` plan on an issue the humans did not keep in the queue is
    the worst error (no human looks again): `triaged` precision judges it wrong, the
    figures count it apart, --errors names it; coverage stays the share of the
    distributed issues. Made-up records."""
    records = [rec(1, ["module: fsdp"], "parallelisms", True),   # right triaged
               rec(2, [], None, False),                          # routed away
               rec(3, [], None, False)]                          # routed away, not triaged
    plans = [plan(1, [PAR, "module: fsdp", "bot-triaged", "triaged"]),
             plan(2, [INFRA, "module: c10d", "bot-triaged", "triaged"], "route"),
             plan(3, [INFRA, "module: c10d", "bot-triaged", "triage review"], "route")]
    s = score(records, plans, queue)
    f = s.figures()
    assert f["triaged_precision"] == 0.5
    assert f["triaged_off_queue"] == 1
    assert f["triaged_coverage"] == 1.0  # 1 of the 1 distributed issue
    off = [e for e in s.errors if e.startswith("#2 ")]
    assert len(off) == 1 and "marked triaged off the queue" in off[0]
    assert not any("triaged off the queue" in e for e in s.errors if not e.startswith("#2 "))
    # Alone, the routed-away plan is judged (precision 0), not left out (None).
    alone = score(records[1:2], plans[1:2], queue).figures()
    assert alone["triaged_precision"] == 0.0 and alone["triaged_off_queue"] == 1
