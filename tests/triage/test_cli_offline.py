"""scripts/triage.py plan / evaluate: exit codes, stdout and the stderr line (style §11)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from agentops.triage.queue import QUEUES_DIR
from scripts.triage import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "triage" / "issues" / "route-infra.json"


def run(capsys, *argv: str) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_plan_prints_the_plan(capsys):
    code, out, err = run(capsys, "plan", str(EXAMPLE))
    assert code == 0, err
    plan = json.loads(out)
    for key in ("issue", "decision", "add_labels", "comments", "confidence", "evidence",
                "reasoning", "repo", "queue", "data"):
        assert key in plan
    assert plan["issue"] == 104
    assert plan["repo"] == "example-org/example-ml"
    assert plan["decision"] == "route"
    assert plan["add_labels"][0] == "oncall: distributed infra"
    assert all(set(e) >= {"label", "signal", "where"} for e in plan["evidence"])
    assert [d["path"] for d in plan["data"]] == ["labels.json", "rubric.yml", "templates.json"]


def test_plan_repo_flag_wins(capsys, tmp_path):
    obj = json.loads(EXAMPLE.read_text())
    del obj["repository_url"]
    f = tmp_path / "i.json"
    f.write_text(json.dumps(obj))
    code, out, _ = run(capsys, "plan", str(f), "--repo", "acme/widgets")
    assert code == 0
    assert json.loads(out)["repo"] == "acme/widgets"


def test_plan_missing_file(capsys, tmp_path):
    code, out, err = run(capsys, "plan", str(tmp_path / "nope.json"))
    assert code == 1
    assert out == ""
    assert f"ISSUE.json: {tmp_path}/nope.json: no such file" in err


def test_plan_malformed_json_names_the_line(capsys, tmp_path):
    f = tmp_path / "bad.json"
    f.write_text('{\n  "number": 5,\n  "title": "x",,\n}\n')
    code, _, err = run(capsys, "plan", str(f))
    assert code == 1
    assert f"ISSUE.json: {f}: not valid JSON at line 3" in err


def test_plan_not_an_issue_names_the_missing_field(capsys, tmp_path):
    f = tmp_path / "comment.json"
    f.write_text(json.dumps({"id": 1, "body": "a comment, not an issue", "labels": []}))
    code, _, err = run(capsys, "plan", str(f))
    assert code == 1
    assert "not a GitHub issue object: missing field 'number'" in err


def test_plan_a_json_list_is_not_an_issue(capsys, tmp_path):
    f = tmp_path / "list.json"
    f.write_text("[]")
    code, _, err = run(capsys, "plan", str(f))
    assert code == 1
    assert "not a GitHub issue object (a JSON list, expected an object)" in err


def test_plan_comment_count_instead_of_objects_warns(capsys, tmp_path):
    obj = json.loads(EXAMPLE.read_text())
    obj["comments"] = 3
    f = tmp_path / "i.json"
    f.write_text(json.dumps(obj))
    code, out, err = run(capsys, "plan", str(f))
    assert code == 0
    assert "'comments' is a count (3)" in err
    assert json.loads(out)["decision"] == "route"


def test_plan_unknown_label_in_queue_data(capsys, tmp_path):
    q = tmp_path / "q"
    shutil.copytree(QUEUES_DIR / "distributed", q)
    raw = yaml.safe_load((q / "rubric.yml").read_text())
    raw["signals"][3]["label"] = "module: imaginary"
    (q / "rubric.yml").write_text(yaml.safe_dump(raw, allow_unicode=True, sort_keys=False))
    code, out, err = run(capsys, "--queue", str(q), "plan", str(EXAMPLE))
    assert code == 1
    assert out == ""
    assert f"{q}/rubric.yml: signals[3].label: not in labels.json" in err


def test_plan_unknown_queue_is_a_usage_of_input(capsys):
    code, _, err = run(capsys, "--queue", "nonesuch", "plan", str(EXAMPLE))
    assert code == 1
    assert "--queue: 'nonesuch' is neither a built-in queue" in err


def _record(number, title, text, labels, *, modules, sub, dist, type_=None):  # type: ignore[no-untyped-def]
    return {"url": f"https://github.com/acme/widgets/issues/{number}", "number": number,
            "title": title, "state": "open", "labels": labels, "text": text,
            "expected": {"modules": modules, "suboncall": sub, "is_distributed": dist,
                         "type": type_}}


FSDP = "```python\nfrom torch.distributed.fsdp import fully_shard\nfully_shard(model)\n```"


def test_evaluate_json_line(capsys, tmp_path):
    f = tmp_path / "set.jsonl"
    rows = [
        _record(1, "fully_shard fails in backward", FSDP, ["oncall: distributed", "module: fsdp"],
                modules=["module: fsdp"], sub="parallelisms", dist=True),
        _record(2, "undefined symbol: ncclCommRegister at import torch",
                "ImportError: libtorch_cuda.so: undefined symbol: ncclCommRegister",
                ["module: build"], modules=[], sub=None, dist=False),
        _record(3, "RRef.to_here times out", "rpc_sync and RRef hang", ["module: rpc"],
                modules=["module: rpc", "module: c10d"], sub="infra", dist=True),
    ]
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    code, out, err = run(capsys, "evaluate", str(f), "--json", "--errors")
    assert code == 0, err
    last = json.loads(out.strip().splitlines()[-1])
    assert set(last) == {"n", "module_precision", "module_recall", "module_f1",
                         "suboncall_accuracy", "triaged_precision", "triaged_coverage",
                         "triaged_off_queue", "not_distributed_precision",
                         "not_distributed_recall", "violations", "baseline",
                         "precision_at_coverage"}
    assert set(last["baseline"]) == set(last) - {"n", "baseline", "precision_at_coverage"}
    # Selective triage: coverage = triaged share of the distributed issues (#1 of #1, #3).
    assert last["triaged_coverage"] == 0.5
    points = {p["scale"]: p for p in last["precision_at_coverage"]}
    assert points[1.0]["coverage"] == last["triaged_coverage"]
    assert points[0.0]["triaged"] >= points[2.0]["triaged"]
    assert "precision at coverage" in out
    assert last["n"] == 3
    assert last["module_precision"] == 1.0
    # the infra route proposes module: rpc (modules_after_route); the human also had c10d
    assert last["module_recall"] == pytest.approx(2 / 3, abs=1e-4)
    assert last["triaged_precision"] == 1.0  # #1 only: the proposal is not marked triaged
    assert last["suboncall_accuracy"] == 1.0
    assert last["not_distributed_precision"] == 1.0
    assert last["not_distributed_recall"] == 1.0
    assert last["violations"] == 0
    assert "module: fsdp" in out  # per-module lines
    assert "#3 'RRef.to_here times out'" in out  # --errors lists the module miss


def test_evaluate_missing_field_names_the_line(capsys, tmp_path):
    f = tmp_path / "set.jsonl"
    f.write_text(json.dumps({"number": 1, "title": "x"}) + "\n")
    code, _, err = run(capsys, "evaluate", str(f))
    assert code == 1
    assert f"FILE.jsonl: {f}: line 1: missing field 'expected'" in err


def test_evaluate_malformed_line(capsys, tmp_path):
    f = tmp_path / "set.jsonl"
    f.write_text('{"number": 1}\n{not json\n')
    code, _, err = run(capsys, "evaluate", str(f))
    assert code == 1
    assert f"{f}: line 1: missing field 'title'" in err


@pytest.mark.parametrize("verb", ["plan", "evaluate"])
def test_help_teaches(capsys, verb):
    code, out, _ = run(capsys, verb, "--help")
    assert code == 0
    assert "example" in out


@pytest.mark.parametrize(("record", "said"), [
    ({"number": "7", "title": "x", "expected": {"is_distributed": True}},
     'number: expected integer, got "7"'),
    ({"number": 7, "title": "x", "expected": {"is_distributed": "yes"}},
     'expected.is_distributed: expected boolean, got "yes"'),
    ({"number": 7, "title": "x", "labels": "module: fsdp", "expected": {"is_distributed": True}},
     'labels: expected array or null, got "module: fsdp"'),
    ({"number": 7, "title": "x", "expected": {"is_distributed": True, "modules": [3]}},
     "expected.modules[0]: expected string, got 3"),
    ({"number": 7, "title": "x", "expected": 5}, "missing field 'expected.is_distributed'"),
])
def test_evaluate_a_field_of_the_wrong_type_is_bad_input_not_a_crash(capsys, tmp_path,
                                                                       record, said):
    """A made-up labelled line with one field of the wrong type: exit 1 naming the line
    and the key, with the format to follow; before, a traceback (70) or a silent misread
    ("yes" taken as true, a label string taken letter by letter)."""
    f = tmp_path / "set.jsonl"
    f.write_text(json.dumps(record) + "\n")
    code, _, err = run(capsys, "evaluate", str(f))
    assert code == 1, err
    assert f"FILE.jsonl: {f}: line 1: {said}" in err
    assert "Fix: one JSON object per line" in err and "Traceback" not in err


@pytest.mark.parametrize(("patch", "said"), [
    ({"user": 5}, "user is a JSON number, not a REST user object"),
    ({"user": {"login": ["a"]}}, "user.login is a JSON list, not text"),
    ({"comments": [{"body": "same here", "user": "someone"}]},
     "comments[0].user is a JSON string, not a REST user object"),
    ({"comments": [{"body": "same here", "user": {"login": "someone", "type": 1}}]},
     "comments[0].user.type is a JSON number, not text"),
    ({"comments": [{"body": "same here", "id": "c-1"}]},
     "comments[0].id is a JSON string, not the comment's number"),
])
def test_plan_a_user_or_comment_id_of_the_wrong_shape_is_bad_input(capsys, tmp_path, patch,
                                                                   said):
    """Made-up issue objects whose author or a comment's author/id has the wrong shape:
    exit 1 naming the field, nothing on stdout; before, a traceback (exit 70)."""
    issue = {"number": 9, "title": "allreduce hangs with two process groups", "body": "x",
             "labels": [{"name": "oncall: distributed"}], "comments": [],
             "user": {"login": "someone", "type": "User"}}
    issue.update(patch)
    f = tmp_path / "issue.json"
    f.write_text(json.dumps(issue))
    code, out, err = run(capsys, "plan", str(f))
    assert code == 1, err
    assert f"ISSUE.json: {f}: {said}" in err and "Fix: " in err
    assert out == "" and "Traceback" not in err
