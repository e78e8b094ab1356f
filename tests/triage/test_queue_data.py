"""The queue loader: shipped data validates; broken fixtures fail with errors that name
file and key (style §5)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from agentops.errors import DataError, InputError
from agentops.triage import datafiles
from agentops.triage.queue import QUEUES_DIR, ROLE_FLAGS, load_queue


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    dst = tmp_path / "q"
    shutil.copytree(QUEUES_DIR / "distributed", dst)
    return dst


def edit_json(path: Path, change) -> None:  # type: ignore[no-untyped-def]
    obj = json.loads(path.read_text())
    change(obj)
    path.write_text(json.dumps(obj))


def edit_yaml(path: Path, change) -> None:  # type: ignore[no-untyped-def]
    obj = yaml.safe_load(path.read_text())
    change(obj)
    path.write_text(yaml.safe_dump(obj, allow_unicode=True, sort_keys=False))


def error_of(folder: Path) -> str:
    with pytest.raises(DataError) as exc:
        load_queue(str(folder))
    return str(exc.value)


def test_shipped_data_validates():
    assert datafiles.validate_all() == [
        "triage/queues/distributed/labels.json", "triage/queues/distributed/rubric.yml",
        "triage/queues/distributed/templates.json", "triage/queues/distributed/labelled.jsonl"]


def test_shipped_queue_shape():
    q = load_queue("distributed")
    assert q.marker_label == "bot-triaged"
    assert q.trigger_label == "oncall: distributed"
    assert len(q.suboncalls) == 3
    assert "high priority" not in q.allowlist  # never added directly (T-15)
    assert {"oncall: pt2", "module: performance", "feature", "enhancement"} <= q.allowlist
    assert set(q.module_suboncall) == set(q.modules)
    assert all(t.earlier for t in q.templates.values())  # T-26 needs older versions
    assert [p["path"] for p in q.provenance] == ["labels.json", "rubric.yml", "templates.json"]


def test_copy_of_the_shipped_folder_loads(folder):
    assert load_queue(str(folder)).name == "distributed"


def test_unknown_label_in_rubric(folder):
    def change(r):
        r["signals"][3]["label"] = "module: nonexistent"
    edit_yaml(folder / "rubric.yml", change)
    assert error_of(folder) == f"{folder}/rubric.yml: signals[3].label: not in labels.json"


def test_signal_without_examples_of_one_kind(folder):
    edit_yaml(folder / "rubric.yml", lambda r: r["signals"][0]["examples"].pop("no_match"))
    assert error_of(folder) == (f"{folder}/rubric.yml: signals[0].examples: missing required "
                                "key: 'no_match'")


def test_unknown_key_in_signal(folder):
    edit_yaml(folder / "rubric.yml", lambda r: r["signals"][2].update(wieght=3))
    assert error_of(folder).startswith(f"{folder}/rubric.yml: signals[2].wieght: unknown key")


def test_bad_where(folder):
    edit_yaml(folder / "rubric.yml", lambda r: r["signals"][1].update(where=["footer"]))
    assert error_of(folder).startswith(f"{folder}/rubric.yml: signals[1].where[0]: expected "
                                       "one of 'title'")


def test_bad_regex_names_the_pattern(folder):
    edit_yaml(folder / "rubric.yml", lambda r: r["signals"][1].update(patterns=["ok", "(open"]))
    assert error_of(folder).startswith(f"{folder}/rubric.yml: signals[1].patterns[1]: not a "
                                       "valid regular expression: missing ), unterminated")


def test_duplicate_signal_id(folder):
    edit_yaml(folder / "rubric.yml", lambda r: r["signals"][1].update(id=r["signals"][0]["id"]))
    assert error_of(folder) == (f"{folder}/rubric.yml: signals[1].id: duplicate signal id "
                                "'fsdp_api'")


def test_suppressing_an_unknown_signal(folder):
    edit_yaml(folder / "rubric.yml", lambda r: r["signals"][0].update(suppresses=["nope"]))
    assert error_of(folder) == f"{folder}/rubric.yml: signals[0].suppresses[0]: no signal 'nope'"


def test_precedence_must_list_every_suboncall(folder):
    edit_yaml(folder / "rubric.yml", lambda r: r["routing"]["precedence"].pop())
    assert error_of(folder) == (f"{folder}/rubric.yml: routing.precedence: missing "
                                "sub-oncall(s): ['oncall: distributed parallelisms']")


def test_module_without_suboncall(folder):
    def change(obj):
        obj["labels"][3].pop("suboncall")
    edit_json(folder / "labels.json", change)
    assert error_of(folder) == (f"{folder}/labels.json: labels[3]: missing required key: "
                                "suboncall (the sub-oncall that owns this module)")


def test_marker_must_be_a_marker_label(folder):
    edit_json(folder / "labels.json", lambda o: o["config"].update(marker_label="triaged"))
    assert error_of(folder) == (f"{folder}/labels.json: config.marker_label: 'triaged' is not "
                                "a label with role 'marker'")


def test_duplicate_label(folder):
    edit_json(folder / "labels.json", lambda o: o["labels"].append(dict(o["labels"][0])))
    assert error_of(folder).startswith(f"{folder}/labels.json: labels[")
    assert "duplicate label 'oncall: distributed parallelisms'" in error_of(folder)


def test_malformed_labels_json_names_the_line(folder):
    (folder / "labels.json").write_text('{\n  "queue": "x",\n  oops\n}')
    assert error_of(folder).startswith(f"{folder}/labels.json: line 3: not valid JSON")


def test_template_missing(folder):
    edit_json(folder / "templates.json", lambda o: o["templates"].pop("not_distributed"))
    assert error_of(folder) == (f"{folder}/rubric.yml: comments.not_distributed: "
                                "'not_distributed' not in templates.json")


def test_template_earlier_version_must_be_older(folder):
    def change(o):
        o["templates"]["not_distributed"]["earlier"][0]["version"] = 9
    edit_json(folder / "templates.json", change)
    assert error_of(folder) == (f"{folder}/templates.json: templates.not_distributed."
                                "earlier[0].version: 9 is not older than the current 2")


def test_missing_file(folder):
    """A folder given as --queue that lacks a file is the flag's error, naming every
    missing file and what a queue folder holds (not the loader's "check the path")."""
    (folder / "rubric.yml").unlink()
    (folder / "templates.json").unlink()
    with pytest.raises(InputError) as exc:
        load_queue(str(folder))
    assert exc.value.message == f"--queue: {folder} lacks rubric.yml, templates.json"
    assert exc.value.fix is not None
    assert "a queue folder holds labels.json, rubric.yml, templates.json" in exc.value.fix


def test_unknown_queue_name():
    with pytest.raises(InputError) as exc:
        load_queue("no-such-queue")
    assert str(exc.value).startswith("--queue: 'no-such-queue' is neither a built-in queue "
                                     "(distributed) nor a folder")


def test_marker_override_must_be_a_marker():
    with pytest.raises(InputError) as exc:
        load_queue("distributed", marker_label="triaged")
    assert "not a marker label" in str(exc.value)


# --- selective triage thresholds (labels.json config.confidence, #10) --------------------

def _confidence(obj):  # type: ignore[no-untyped-def]
    return obj["config"].setdefault("confidence", {"target_precision": 0.95, "default": 3.0,
                                                   "thresholds": {}})


def test_threshold_for_a_label_the_planner_does_not_weigh(folder):
    edit_json(folder / "labels.json",
              lambda o: _confidence(o)["thresholds"].update({"triaged": 2.0}))
    msg = error_of(folder)
    assert "labels.json: config.confidence.thresholds.triaged" in msg
    assert "not a module or sub-oncall" in msg


def test_threshold_that_is_not_a_number(folder):
    edit_json(folder / "labels.json",
              lambda o: _confidence(o)["thresholds"].update({"module: fsdp": "high"}))
    msg = error_of(folder)
    assert "labels.json" in msg and "module: fsdp" in msg


def test_target_precision_out_of_range(folder):
    edit_json(folder / "labels.json", lambda o: _confidence(o).update(target_precision=1.5))
    assert "target_precision" in error_of(folder)


def test_thresholds_load_per_label_with_a_default(folder):
    edit_json(folder / "labels.json", lambda o: o["config"].update(confidence={
        "target_precision": 0.9, "default": 7.0, "thresholds": {"module: fsdp": 3.0}}))
    c = load_queue(str(folder)).confidence
    assert c.threshold("module: fsdp") == 3.0 and c.threshold("module: rpc") == 7.0
    assert c.target_precision == 0.9


# --- the queue's labelled set ---------------------------------------------------------------

def _labelled(folder: Path, change) -> None:  # type: ignore[no-untyped-def]
    path = folder / "labelled.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    change(rows)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_labelled_set_with_a_module_of_no_queue(folder):
    def change(rows):  # type: ignore[no-untyped-def]
        rows[1]["expected"]["modules"] = ["module: vision"]

    _labelled(folder, change)
    with pytest.raises(DataError) as exc:
        datafiles.validate_labelled(folder / "labelled.jsonl", load_queue(str(folder)))
    assert "labelled.jsonl: line 2.expected.modules" in str(exc.value)


def test_labelled_set_with_an_unknown_suboncall_or_a_repeated_issue(folder):
    _labelled(folder, lambda rows: rows[0]["expected"].update(suboncall="storage"))
    with pytest.raises(DataError, match=r"line 1\.expected\.suboncall"):
        datafiles.validate_labelled(folder / "labelled.jsonl", load_queue(str(folder)))
    _labelled(folder, lambda rows: rows.append(rows[-1]))
    _labelled(folder, lambda rows: rows[0]["expected"].update(suboncall="infra"))
    with pytest.raises(DataError, match="appears twice"):
        datafiles.validate_labelled(folder / "labelled.jsonl", load_queue(str(folder)))


@pytest.mark.parametrize(("flag", "value"), [("names_owner", False),
                                             ("in_distributed_code", True),
                                             ("contends", True),
                                             ("fails_build", True)])
def test_a_role_flag_on_a_signal_of_another_role_names_the_key(folder, flag, value):
    """Issue #23: ``names_owner`` belongs to not_distributed signals (step 1), and
    ``in_distributed_code`` to high_priority criteria (step 5); on a module signal the
    loader names the key and the role it belongs to."""
    doc = yaml.safe_load((folder / "rubric.yml").read_text())
    i = next(k for k, s in enumerate(doc["signals"]) if s.get("label"))
    edit_yaml(folder / "rubric.yml", lambda r: r["signals"][i].update({flag: value}))
    error = error_of(folder)
    assert f"signals[{i}].{flag}" in error
    assert ROLE_FLAGS[flag][0] in error


def test_layering_over_an_unknown_signal(folder):
    edit_yaml(folder / "rubric.yml",
              lambda r: r["layering"][0].update(over_signals=["nccl_api_missing"]))
    assert error_of(folder) == (f"{folder}/rubric.yml: layering[0].over_signals[0]: no signal "
                                "'nccl_api_missing'")


def _index(r, sig_id):  # type: ignore[no-untyped-def]
    return next(i for i, s in enumerate(r["signals"]) if s["id"] == sig_id)


def test_a_fragment_is_expanded_where_a_signal_names_it(folder):
    """Both multi-node gates read the shared cluster-vs-single-node fragment: changing it
    once changes both (issue #23)."""
    q = load_queue(str(folder))
    text = "the run hangs on the cluster while a single node finishes"
    assert q.rubric.signal("multi_node_hang").matches(text) is not None

    def change(r):  # type: ignore[no-untyped-def]
        r["fragments"]["cluster_vs_single_node"] = r"\bfarm of boxes\b"
    edit_yaml(folder / "rubric.yml", change)
    q2 = load_queue(str(folder))
    assert q2.rubric.signal("multi_node_hang").matches(text) is None
    assert q2.rubric.signal("multi_node_hang").matches("it hangs on our farm of boxes")
    assert q2.rubric.signal("multi_node_timeout").matches(
        "NCCL timeouts on our farm of boxes") is not None


def test_a_regex_naming_an_unknown_fragment_names_signal_and_fix(folder):
    def change(r):  # type: ignore[no-untyped-def]
        i = _index(r, "multi_node_hang")
        r["signals"][i]["requires"] = ["(?&no_such_part)"]
    edit_yaml(folder / "rubric.yml", change)
    with pytest.raises(DataError) as exc:
        load_queue(str(folder))
    assert ".requires[0]: (?&no_such_part) names no fragment" in str(exc.value)
    assert "add no_such_part under fragments" in exc.value.fix


def test_a_fragment_no_signal_uses_is_refused(folder):
    edit_yaml(folder / "rubric.yml",
              lambda r: r["fragments"].update(spare=r"\bspare\b"))
    assert error_of(folder).startswith(f"{folder}/rubric.yml: fragments.spare: no signal names")


@pytest.mark.parametrize(("pattern", "says"), [
    ("(open", "not a valid regular expression"),
    ("(?&cluster_vs_single_node)", "a fragment may not name another"),
])
def test_a_bad_fragment_names_its_key(folder, pattern, says):
    edit_yaml(folder / "rubric.yml",
              lambda r: r["fragments"].update(cluster_vs_single_node=pattern))
    assert error_of(folder).startswith(
        f"{folder}/rubric.yml: fragments.cluster_vs_single_node: {says}")


def test_a_fragment_name_must_be_an_identifier(folder):
    edit_yaml(folder / "rubric.yml", lambda r: r["fragments"].update({"Bad-Name": "x"}))
    assert "fragments" in error_of(folder)
