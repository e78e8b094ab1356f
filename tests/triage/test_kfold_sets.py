"""The triage benchmark's labelled-set files (issue #23 item 1): benchmarks/data/
triage_extra.yaml and triage_blind2-14.yaml validate, errors name the file
and the key, the blind sets stay separate from the first held-out set and from each other,
and a missing text cache is a skip with a message, never a crash (no network, no real cache
needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentops.errors import DataError
from agentops.triage.queue import load_queue
from benchmarks import triage_kfold as kf


def _write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return path


def test_shipped_sets_validate_and_do_not_overlap() -> None:
    extra = kf.load_labelled(kf.EXTRA)
    blind2 = kf.load_labelled(kf.BLIND2)
    assert extra and blind2
    numbers2 = [i["number"] for i in blind2]
    assert len(numbers2) == len(set(numbers2))
    assert not {i["number"] for i in extra} & set(numbers2)
    # Both kinds of truth are present: issues humans kept in the distributed queue and
    # issues they routed away although a distributed word appears.
    trigger = load_queue("distributed").trigger_label
    assert any(trigger in i["labels"] for i in blind2)
    assert any(trigger not in i["labels"] for i in blind2)
    assert all(i["note"].strip() for i in blind2)


# The blind sets in the order they were gathered: each must repeat no issue of the extra set
# or of an earlier blind set (an earlier set may have been read to write rules, so a shared
# issue would not be blind), and must hold both truths.
_GATHERED = ("EXTRA", "BLIND2", "BLIND3", "BLIND4", "BLIND5", "BLIND6", "BLIND7",
             "BLIND8", "BLIND9", "BLIND10", "BLIND11", "BLIND12", "BLIND13", "BLIND14",
             "BLIND15", "BLIND16")


@pytest.mark.parametrize("name", _GATHERED[2:])
def test_each_later_blind_set_is_disjoint_from_the_earlier_and_has_both_truths(
        name: str) -> None:
    later = kf.load_labelled(getattr(kf, name))
    numbers = {i["number"] for i in later}
    assert len(numbers) == len(later)
    for earlier in _GATHERED[:_GATHERED.index(name)]:
        assert not numbers & {i["number"] for i in kf.load_labelled(getattr(kf, earlier))}, \
            f"{name} repeats an issue of {earlier}"
    trigger = load_queue("distributed").trigger_label
    kept = [i for i in later if trigger in i["labels"]]
    assert kept and len(kept) < len(later)
    assert all(i["note"].strip() for i in later)


@pytest.fixture(autouse=True)
def _no_real_blind4_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runs below never read a real fourth- or fifth-set cache (a local one may
    exist)."""
    monkeypatch.setattr(kf, "BLIND4_CACHE", tmp_path / "absent4.jsonl")
    monkeypatch.setattr(kf, "BLIND5_CACHE", tmp_path / "absent5.jsonl")
    monkeypatch.setattr(kf, "BLIND6_CACHE", tmp_path / "absent6.jsonl")
    monkeypatch.setattr(kf, "BLIND7_CACHE", tmp_path / "absent7.jsonl")
    monkeypatch.setattr(kf, "BLIND8_CACHE", tmp_path / "absent8.jsonl")
    monkeypatch.setattr(kf, "BLIND9_CACHE", tmp_path / "absent9.jsonl")
    monkeypatch.setattr(kf, "BLIND10_CACHE", tmp_path / "absent10.jsonl")
    monkeypatch.setattr(kf, "BLIND11_CACHE", tmp_path / "absent11.jsonl")
    monkeypatch.setattr(kf, "BLIND12_CACHE", tmp_path / "absent12.jsonl")
    monkeypatch.setattr(kf, "BLIND13_CACHE", tmp_path / "absent13.jsonl")
    monkeypatch.setattr(kf, "BLIND14_CACHE", tmp_path / "absent14.jsonl")
    monkeypatch.setattr(kf, "BLIND15_CACHE", tmp_path / "absent15.jsonl")
    monkeypatch.setattr(kf, "BLIND16_CACHE", tmp_path / "absent16.jsonl")


@pytest.mark.parametrize(("body", "key", "words"), [
    ("issues:\n  - number: 5\n    lables: [a]\n    note: x\n", "issues[0]", "unknown key"),
    ("issues:\n  - number: 5\n    note: x\n", "issues[0]", "labels"),
    ("issues:\n  - number: five\n    labels: []\n    note: x\n", "issues[0].number",
     "integer"),
    ("issues:\n  - number: 5\n    labels: [\"\"]\n    note: x\n", "issues[0].labels[0]",
     "non-empty"),
    ("issues:\n  - {number: 5, labels: [], note: x}\n  - {number: 5, labels: [], note: y}\n",
     "issues[1].number", "listed twice"),
    ("issue:\n  - {number: 5, labels: [], note: x}\n", "(root)", "issues"),
])
def test_a_bad_set_file_names_the_file_and_the_key(tmp_path: Path, body: str, key: str,
                                                    words: str) -> None:
    path = _write(tmp_path, "set.yaml", body)
    with pytest.raises(DataError) as err:
        kf.load_labelled(path)
    assert err.value.file == str(path)
    assert err.value.key.startswith(key), err.value.key
    assert words in str(err.value)


def test_without_a_cache_the_set_is_skipped_with_the_env_var_named(tmp_path: Path) -> None:
    path = _write(tmp_path, "set.yaml", "issues:\n  - {number: 7, labels: [], note: x}\n")
    recs, note = kf.labelled_records(path, tmp_path / "absent.jsonl", load_queue("distributed"),
                                     name="blind2", env="AGENTOPS_TRIAGE_BLIND2_CACHE")
    assert recs == []
    assert "blind2 set skipped" in note and "AGENTOPS_TRIAGE_BLIND2_CACHE" in note


def test_records_take_their_truth_from_the_labels_not_the_text(tmp_path: Path) -> None:
    queue = load_queue("distributed")
    path = _write(tmp_path, "set.yaml", (
        "issues:\n"
        "  - {number: 7, labels: ['oncall: distributed', 'module: fsdp'], note: a}\n"
        "  - {number: 8, labels: ['oncall: pt2', 'module: fsdp'], note: b}\n"
        "  - {number: 9, labels: ['module: rocm'], note: c}\n"))
    cache = _write(tmp_path, "texts.jsonl", "\n".join(json.dumps(x) for x in [
        {"number": 7, "title": "t7", "text": "nothing distributed here"},
        {"number": 8, "title": "t8", "text": "FSDP all_reduce NCCL process group hang"},
    ]) + "\n")
    recs, note = kf.labelled_records(path, cache, queue, name="blind2", env="X")
    by = {r.number: r for r in recs}
    assert sorted(by) == [7, 8] and "1 without cached text" in note
    assert by[7].is_distributed and by[7].modules == {"module: fsdp"}
    assert by[7].suboncall == "parallelisms"
    # The compiler team kept #8: not distributed, whatever its text says.
    assert not by[8].is_distributed and by[8].text.startswith("FSDP")


@pytest.mark.parametrize(("line", "words"), [
    ("{not json", "not valid JSON"),
    ('{"number": "7", "title": "", "text": ""}', "integer number"),
    ('{"number": 7, "title": 3, "text": ""}', "string"),
    ('[1, 2]', "integer number"),
])
def test_a_bad_cache_line_names_the_file_and_the_line(tmp_path: Path, line: str,
                                                       words: str) -> None:
    cache = _write(tmp_path, "texts.jsonl",
                   json.dumps({"number": 1, "title": "", "text": ""}) + "\n\n" + line + "\n")
    with pytest.raises(DataError) as err:
        kf.load_texts(cache)
    assert err.value.file == str(cache) and err.value.key == "line 3"
    assert words in str(err.value)


def test_an_oversized_cached_text_is_refused(tmp_path: Path) -> None:
    cache = _write(tmp_path, "texts.jsonl", json.dumps(
        {"number": 1, "title": "", "text": "x" * (kf.MAX_CACHED_TEXT + 1)}) + "\n")
    with pytest.raises(DataError, match="longer than"):
        kf.load_texts(cache)


def _dev_line(number: int, text: str) -> str:
    """A dev-set line of an FSDP issue humans kept in the distributed queue."""
    return json.dumps({"url": f"https://github.com/pytorch/pytorch/issues/{number}",
                       "number": number, "title": "FSDP hang", "text": text,
                       "labels": ["oncall: distributed", "module: fsdp"],
                       "expected": {"is_distributed": True, "modules": ["module: fsdp"],
                                    "suboncall": "parallelisms", "type": None}})


_FSDP = "FSDP fully_shard hangs in all_gather on 8 GPUs\n```python\nfully_shard(m)\n```"
_ROCM_DISABLED = ("DISABLED test_fsdp_x (__main__.T)",
                  "Platforms: rocm\n\nThis test was disabled because it is failing.")


def _fsdp_dev(tmp: Path) -> Path:
    """Seven FSDP dev issues: 1, 3, 4 fall in the held-out quarter, 2, 5, 6, 7 in the fit
    part."""
    return _write(tmp, "dev.jsonl", "\n".join(
        _dev_line(n, _FSDP) for n in (1, 2, 3, 4, 5, 6, 7)) + "\n")


def _labelled_set(tmp: Path, name: str,
                  rows: list[tuple[int, list[str], str, str]]) -> tuple[Path, Path]:
    """A labelled-set file and its text cache for rows of (number, labels, title, text)."""
    labels = _write(tmp, f"{name}.yaml", "issues:\n" + "".join(
        f"  - {{number: {n}, labels: {lab!r}, note: x}}\n" for n, lab, _t, _x in rows))
    cache = _write(tmp, f"{name}.jsonl", "".join(
        json.dumps({"number": n, "title": t, "text": x}) + "\n" for n, _l, t, x in rows))
    return labels, cache


@pytest.mark.parametrize("flag", [False, True])
def test_fit_blind2_moves_the_second_set_into_the_fit_part(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        flag: bool) -> None:
    """Issue #23: once blind2 was read to write rules it is fit material; --fit-blind2
    fits thresholds and k-fold on it and drops its blind column, and says so."""
    dev = _fsdp_dev(tmp_path)
    b2, cache = _labelled_set(tmp_path, "b2", [
        (n, ["oncall: distributed", "module: fsdp"], "FSDP hang", _FSDP) for n in (101, 102, 103)])
    monkeypatch.setattr(kf, "BLIND2", b2)
    monkeypatch.setattr(kf, "BLIND2_CACHE", cache)
    monkeypatch.setattr(kf, "BLIND3_CACHE", tmp_path / "absent3.jsonl")
    args = [str(dev), "--no-extra", "--k", "2", "--json"] + (["--fit-blind2"] if flag else [])
    assert kf.main(args) == 0
    out = capsys.readouterr().out
    result = json.loads(out.strip().splitlines()[-1])
    if flag:
        assert "3 issues added to the fit part (--fit-blind2)" in out
        assert "== fit part: 7 issues (3 of them blind2, --fit-blind2)" in out
        assert "== blind2:" not in out and "blind2" not in result["held_out"]
        assert result["fit_blind2"] == 3
    else:
        assert "== fit part: 4 issues, k=2" in out
        assert "== blind2: 3 issues" in out and "read to write rules" in out
        assert result["held_out"]["blind2"]["n"] == 3 and result["fit_blind2"] == 0
        # Issue #23 (stop 39): the judgeable `triaged` pair beside the present one.
        assert result["held_out"]["blind2"]["judgeable_triaged"]["distributed"] == 3
        assert "judgeable triaged (blind2)" in out
    assert set(result["kfold_judgeable"]) >= {"precision", "judged", "coverage", "distributed"}
    assert "judgeable triaged (k-fold)" in out


def _only_this_set(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str,
                   labels: Path) -> None:
    """Point set ``name`` at ``labels`` and every other blind set's cache at nothing."""
    for other in ("blind2", *kf.SEPARATE_SETS):
        if other != name:
            monkeypatch.setattr(kf, f"{other.upper()}_CACHE", tmp_path / f"absent-{other}.jsonl")
    monkeypatch.setattr(kf, name.upper(), labels)
    monkeypatch.setattr(kf, f"{name.upper()}_CACHE", tmp_path / f"absent-{name}.jsonl")


@pytest.mark.parametrize("name", ["blind3", "blind4", "blind5", "blind6", "blind7",
                                  "blind8", "blind9", "blind10", "blind11", "blind12",
                                  "blind13", "blind14", "blind15", "blind16"])
def test_a_released_set_is_its_own_column_fits_on_request_and_can_be_left_out(
        name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue #23: a blind set released as fit material is reported on its own (table and
    JSON), with the fitted thresholds, never in the fit part nor in held-all; without its
    cache the run says it skipped it and names the variable to set; --fit-NAME fits on it
    and still prints its block; --no-NAME leaves it out."""
    dev = _fsdp_dev(tmp_path)
    first = 100 * int(name.removeprefix("blind"))
    labels, cache = _labelled_set(tmp_path, name, [
        (first + 1, ["oncall: distributed", "module: fsdp"], "FSDP hang", _FSDP),
        (first + 2, ["module: rocm", "skipped"], *_ROCM_DISABLED)])
    _only_this_set(monkeypatch, tmp_path, name, labels)
    base = [str(dev), "--no-extra", "--k", "2", "--json"]

    assert kf.main(base) == 0
    out = capsys.readouterr().out
    assert f"{name} set skipped" in out and f"AGENTOPS_TRIAGE_{name.upper()}_CACHE" in out
    assert f"== {name}:" not in out
    assert name not in json.loads(out.strip().splitlines()[-1])["held_out"]

    monkeypatch.setattr(kf, f"{name.upper()}_CACHE", cache)
    assert kf.main(base) == 0
    out = capsys.readouterr().out
    result = json.loads(out.strip().splitlines()[-1])
    assert f"== {name}: 2 issues (1 distributed, 1 not), same thresholds, not in the fit " \
        f"part; fit material since its blind runs ended (--fit-{name}" in out
    assert result["held_out"][name]["n"] == 2
    # Separate: the fit part is the dev split alone, and held-all does not absorb the set.
    assert "== fit part: 4 issues, k=2" in out
    assert result["held_out"]["held-all"]["n"] == 3 and result[f"fit_{name}"] == 0

    # Released as fit material: --fit-NAME fits on it and still prints its block, marked
    # as in the fit part; held-all never absorbs it.
    assert kf.main([*base, f"--fit-{name}", "--errors"]) == 0
    out = capsys.readouterr().out
    result = json.loads(out.strip().splitlines()[-1])
    assert f"2 issues added to the fit part (--fit-{name})" in out
    assert f"== fit part: 6 issues (2 of them {name}, --fit-{name}), k=2" in out
    assert f"== {name}: 2 issues (1 distributed, 1 not), same thresholds, in the fit part" in out
    assert result[f"fit_{name}"] == 2 and result["fit_blind2"] == 0
    assert result["held_out"][name]["n"] == 2 and result["held_out"]["held-all"]["n"] == 3
    # --errors lists fit-part issues only: the held-out dev issues (1, 3, 4) never appear.
    errors = out.split("== fit part's errors", 1)[1]
    assert "of 6 issues" in errors
    assert not any(f"#{n} " in errors for n in (1, 3, 4))

    assert kf.main([*base, f"--no-{name}"]) == 0
    out = capsys.readouterr().out
    assert f"{name} set left out (--no-{name})" in out and f"== {name}:" not in out


_STILL_BLIND = {
    "blind17": [
        (1701, ["oncall: distributed", "module: dtensor"], "placement lost after view",
         "A Shard(1) tensor viewed to a flat shape comes back marked Replicate on rank 2."),
        (1702, ["module: xpu", "skipped", "triaged"], "DISABLED test_mesh_walk_xpu (__main__.M)",
         "Platforms: xpu\n\nTurned off after the nightly pool went red twice in a row."),
        (1703, ["module: docs", "triaged"], "spawn page example order",
         "The spawn page example joins the workers before it starts them.")]}


@pytest.mark.parametrize(("name", "counts"), [("blind17", "3 issues (1 distributed, 2 not)")])
def test_a_still_blind_set_is_its_own_column_has_no_fit_flag_and_can_be_left_out(
        name: str, counts: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue #23: a set still blind is reported on its own with the fitted thresholds,
    marked blind, never in the fit part nor in held-all, and has no --fit flag; without
    its cache it is skipped with the variable named; --no-NAME leaves it out, and no other
    set's block appears with it."""
    dev = _fsdp_dev(tmp_path)
    rows = _STILL_BLIND[name]
    labels, cache = _labelled_set(tmp_path, name, rows)
    _only_this_set(monkeypatch, tmp_path, name, labels)
    base = [str(dev), "--no-extra", "--k", "2", "--json"]

    assert kf.main(base) == 0
    out = capsys.readouterr().out
    assert f"{name} set skipped" in out and f"AGENTOPS_TRIAGE_{name.upper()}_CACHE" in out
    assert f"== {name}:" not in out

    monkeypatch.setattr(kf, f"{name.upper()}_CACHE", cache)
    assert kf.main(base) == 0
    out = capsys.readouterr().out
    result = json.loads(out.strip().splitlines()[-1])
    assert f"== {name}: {counts}, same thresholds, not in the fit " \
        "part; blind: never read to write rules ==" in out
    assert result["held_out"][name]["n"] == len(rows)
    assert f"fit_{name}" not in result
    assert "== fit part: 4 issues, k=2" in out
    assert result["held_out"]["held-all"]["n"] == 3
    assert set(result["held_out"]) == {"dev-held", "held-all", name}

    with pytest.raises(SystemExit):
        kf.main([*base, f"--fit-{name}"])
    capsys.readouterr()

    assert kf.main([*base, f"--no-{name}"]) == 0
    out = capsys.readouterr().out
    assert f"{name} set left out (--no-{name})" in out and f"== {name}:" not in out


def test_the_still_blind_sets_are_also_reported_together(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue #23: with two or more blind sets present their union is one more block
    ("blind-all") whose figures count every issue of each; released sets (blind5 ...
    blind16) never join it, and with one blind set left there is no union block. As the
    table stands blind17 is the only blind set (blind16 was released at stop 43, blind17
    gathered at stop 41), so there is no union; the mechanism is checked with blind16
    marked blind again as it was before its release (two sets; leaving one out leaves no
    union), with blind15 too (three; leaving one out leaves the union of the other two),
    with blind14 too (four), with blind13 too (five), with blind12 too (six) and with
    blind11 too (seven)."""
    dev = _fsdp_dev(tmp_path)
    sets = {
        "BLIND5": [(501, ["oncall: distributed", "module: fsdp"], "FSDP hang", _FSDP)],
        "BLIND6": [(601, ["oncall: distributed", "module: fsdp"], "FSDP hang", _FSDP),
                   (602, ["module: rocm"], *_ROCM_DISABLED)],
        "BLIND7": [(701, ["module: mps"], "MPS matmul gives NaN",
                    "On an M2, torch.mm on mps returns NaN for float16.")],
        "BLIND8": [(801, ["oncall: distributed", "module: fsdp"], "FSDP hang", _FSDP),
                   (802, ["module: xpu", "triaged"], "send/recv hangs on XCCL",
                    "CCL_SEND=direct works around it.")],
        "BLIND9": [(901, ["oncall: distributed", "module: fsdp"], "FSDP hang", _FSDP),
                   (902, ["module: rocm", "skipped"], *_ROCM_DISABLED),
                   (903, ["oncall: pt2"], "compile of all_reduce graph-breaks",
                    "Dynamo graph-breaks on dist.all_reduce with async_op=True.")],
        "BLIND10": [(1001, ["oncall: distributed", "module: c10d"], "gloo all_reduce hangs",
                     "dist.all_reduce on the gloo backend never returns on rank 1."),
                    (1002, ["module: data parallel", "triaged"], "DataParallel replicas",
                     "parameters() on a replicated nn.DataParallel module is empty.")],
        "BLIND11": [(1101, ["oncall: distributed", "module: pipelining"],
                     "pipeline stage shapes",
                     "ScheduleGPipe raises a shape mismatch on the second stage."),
                    (1102, ["module: build", "triaged"], "NCCL submodule build fails",
                     "cmake stops while building nccl_external from a fresh clone."),
                    (1103, ["oncall: quantization"], "QAT under DDP docs",
                     "How do I run quantization aware training with DDP?")],
        "BLIND12": [(1201, ["oncall: distributed", "module: nccl"], "coalesced collectives",
                     "Waiting on the handles of three batched all_reduce calls returns at once."),
                    (1202, ["module: cuda", "triaged"], "stray device-0 context",
                     "With only cuda:3 in use, nvidia-smi still lists a context on device 0.")],
        "BLIND13": [(1301, ["oncall: distributed", "module: DeviceMesh"], "mesh slicing",
                     "Slicing a 3-d mesh by two names returns ranks of the wrong plane."),
                    (1302, ["module: rocm", "skipped"], *_ROCM_DISABLED)],
        "BLIND14": [(1401, ["oncall: distributed", "oncall: distributed checkpointing"],
                     "resharded load drops a shard",
                     "A checkpoint written by 4 ranks and read back on 6 ranks loses a piece."),
                    (1402, ["module: ci", "unstable"], "UNSTABLE nightly / gpu-4 / test (dist)",
                     "The runner pool is being moved, so this job is marked unstable.")],
        "BLIND15": [(1501, ["oncall: distributed", "module: rpc"], "rpc timeout not honoured",
                     "An rpc_async given a two second limit still waits out the minute."),
                    (1502, ["caffe2"], "two-host trainer stops at the store",
                     "The redis handler on the second host never sees the first key.")],
        "BLIND16": [(1601, ["oncall: distributed", "module: c10d"],
                     "store barrier never returns",
                     "Rank 3 names another key prefix, so the store barrier waits forever."),
                    (1602, ["module: docs", "triaged"], "launcher page spelling",
                     "The launcher page spells the rendezvous endpoint flag in two ways.")],
        "BLIND17": [(1701, ["oncall: distributed", "module: dtensor"],
                     "placement lost after view",
                     "A Shard(1) tensor viewed flat comes back marked Replicate on rank 2."),
                    (1702, ["module: xpu", "skipped", "triaged"],
                     "DISABLED test_mesh_walk_xpu (__main__.M)",
                     "Platforms: xpu\n\nTurned off after the nightly pool went red twice.")]}
    for name, rows in sets.items():
        labels, cache = _labelled_set(tmp_path, name, rows)
        monkeypatch.setattr(kf, name, labels)
        monkeypatch.setattr(kf, f"{name}_CACHE", cache)
    for name in ("BLIND2", "BLIND3"):
        monkeypatch.setattr(kf, f"{name}_CACHE", tmp_path / f"absent-{name}.jsonl")
    base = [str(dev), "--no-extra", "--no-blind4", "--k", "2", "--json"]

    # As the table stands, blind17 is the only blind set: no union block, and every
    # released set (blind5 ... blind16) is its own block.
    assert kf.main(base) == 0
    out = capsys.readouterr().out
    held = json.loads(out.strip().splitlines()[-1])["held_out"]
    assert "blind-all" not in held and "== blind-all:" not in out
    assert held["blind17"]["n"] == 2 and held["blind16"]["n"] == 2
    assert held["blind14"]["n"] == 2 and held["blind15"]["n"] == 2
    assert held["blind5"]["n"] == 1 and held["blind6"]["n"] == 2
    assert held["blind7"]["n"] == 1 and held["blind8"]["n"] == 2
    assert held["blind9"]["n"] == 3 and held["blind10"]["n"] == 2
    assert held["blind11"]["n"] == 3 and held["blind12"]["n"] == 2
    assert held["blind13"]["n"] == 2

    # The union mechanism takes every blind set: with blind16 blind again, two sets make
    # one block and no released set joins it; leaving either out leaves no union.
    monkeypatch.setitem(kf.SEPARATE_SETS, "blind16", None)
    assert kf.main(base) == 0
    out = capsys.readouterr().out
    held = json.loads(out.strip().splitlines()[-1])["held_out"]
    assert "== blind-all: 4 issues (2 distributed, 2 not)" in out
    assert "the blind sets blind16 + blind17 together" in out
    assert held["blind-all"]["n"] == held["blind16"]["n"] + held["blind17"]["n"] == 4
    for released in ("--no-blind7", "--no-blind8", "--no-blind9", "--no-blind10",
                     "--no-blind11", "--no-blind12", "--no-blind13", "--no-blind14",
                     "--no-blind15"):
        assert kf.main([*base, released]) == 0
        result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert result["held_out"]["blind-all"]["n"] == 4
        assert released.removeprefix("--no-") not in result["held_out"]
    still = ("blind16", "blind17")
    for kept_one in still:
        assert kf.main([*base, *(f"--no-{n}" for n in still if n != kept_one)]) == 0
        result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert "blind-all" not in result["held_out"] and kept_one in result["held_out"]

    # With blind15 blind again too, three sets (leaving one of them out leaves the union
    # of the other two); with blind14 too, four; with blind13 too, five; with blind12 too,
    # six; with blind11 too, seven.
    monkeypatch.setitem(kf.SEPARATE_SETS, "blind15", None)
    three = ("blind15", "blind16", "blind17")
    assert kf.main(base) == 0
    out = capsys.readouterr().out
    assert "== blind-all: 6 issues (3 distributed, 3 not)" in out
    assert "the blind sets blind15 + blind16 + blind17 together" in out
    for left_out in three:
        assert kf.main([*base, f"--no-{left_out}"]) == 0
        out = capsys.readouterr().out
        held = json.loads(out.strip().splitlines()[-1])["held_out"]
        kept = [n for n in three if n != left_out]
        assert f"the blind sets {' + '.join(kept)} together" in out
        assert held["blind-all"]["n"] == sum(held[n]["n"] for n in kept) == 4
        assert left_out not in held
    blind = list(three)
    for again, issues in (("blind14", "8 issues (4 distributed, 4 not)"),
                          ("blind13", "10 issues (5 distributed, 5 not)"),
                          ("blind12", "12 issues (6 distributed, 6 not)"),
                          ("blind11", "15 issues (7 distributed, 8 not)")):
        monkeypatch.setitem(kf.SEPARATE_SETS, again, None)
        blind.insert(0, again)
        assert kf.main(base) == 0
        out = capsys.readouterr().out
        held = json.loads(out.strip().splitlines()[-1])["held_out"]
        assert f"== blind-all: {issues}" in out
        assert f"the blind sets {' + '.join(blind)} together" in out
        assert held["blind-all"]["n"] == sum(held[n]["n"] for n in blind) \
            == int(issues.split()[0])

def test_both_benchmarks_read_the_dev_sets_through_one_helper(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Review (#23): triage_kfold and triage_calibration share read_dev_sets, so the
    held-out quarter, the fit part and the extra set are the same in both reports."""
    import argparse
    import sys

    from benchmarks import triage_calibration as tc

    dev = _fsdp_dev(tmp_path)
    extra, cache = _labelled_set(tmp_path, "extra", [
        (201, ["oncall: distributed", "module: fsdp"], "FSDP hang", _FSDP),
        (202, ["module: rocm"], *_ROCM_DISABLED)])
    # triage_calibration imports the module as `triage_kfold` (its own folder on the path).
    for module in {kf, sys.modules[tc.read_dev_sets.__module__]}:
        monkeypatch.setattr(module, "EXTRA", extra)
        monkeypatch.setattr(module, "CACHE", cache)
        monkeypatch.setattr(module, "DEFAULT_SETS", [tmp_path / "absent.jsonl"])
    ap = argparse.ArgumentParser()
    kf.add_dev_arguments(ap)
    sets = kf.read_dev_sets(ap.parse_args([str(dev)]))
    assert sets is not None and sets.paths == [dev]
    assert [r.number for r in sets.fit] == [2, 5, 6, 7]
    assert [r.number for r in sets.held] == [1, 3, 4]
    assert [r.number for r in sets.extra] == [201, 202]
    assert sets.extra_note == f"extra set: 2 issues from {cache}"
    left_out = kf.read_dev_sets(ap.parse_args([str(dev), "--no-extra"]))
    assert left_out is not None and left_out.extra == []
    assert left_out.extra_note == "extra set left out (--no-extra)"
    # The calibration report is planned on that split: 4 fit issues, 3 + 2 held out.
    assert tc.main([str(dev), "--k", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"extra set: 2 issues from {cache}\n")
    assert "fit part: 4 issues (dev 4)" in out and "== held out: 5 issues" in out
    # No set given or found: both say so and exit 2.
    assert kf.read_dev_sets(ap.parse_args([])) is None
    assert kf.main([]) == 2 and tc.main([]) == 2
    assert "no labelled sets given" in capsys.readouterr().err


def test_shipped_judges_held_out_and_blind_with_the_stored_thresholds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue #23 (T-23): the held-out and blind figures are of the thresholds fitted on the
    fit part now; --shipped judges them with the thresholds labels.json ships, which is what
    the action does today, and says so (header and JSON). --write with it is refused: one
    stores fitted thresholds, the other judges with the stored ones."""
    from dataclasses import replace

    dev = _fsdp_dev(tmp_path)
    for name in ("blind2", "blind3", *kf.SEPARATE_SETS):
        monkeypatch.setattr(kf, f"{name.upper()}_CACHE", tmp_path / f"absent-{name}.jsonl")
    # Fitted thresholds no plan can reach: nothing is triaged with them, while the shipped
    # FSDP threshold lets the held-out FSDP issues through.
    monkeypatch.setattr(kf, "scaled_selective", lambda sel, _scale: replace(
        sel, default=1e9, thresholds={k: 1e9 for k in sel.thresholds}))
    base = [str(dev), "--no-extra", "--k", "2", "--json"]

    assert kf.main(base) == 0
    out = capsys.readouterr().out
    fitted = json.loads(out.strip().splitlines()[-1])
    assert fitted["thresholds"] == "fitted" and "thresholds fitted on the 4 fit issues" in out
    assert not fitted["held_out"]["dev-held"]["triaged_coverage"]

    assert kf.main([*base, "--shipped"]) == 0
    out = capsys.readouterr().out
    shipped = json.loads(out.strip().splitlines()[-1])
    assert shipped["thresholds"] == "shipped" and "the thresholds labels.json ships" in out
    assert shipped["held_out"]["dev-held"]["triaged_coverage"] > 0
    # The k-fold refits per fold either way: --shipped moves only the judged blocks.
    assert shipped["kfold"] == fitted["kfold"]

    assert kf.main([*base, "--shipped", "--write"]) == 2
    assert "give one of them" in capsys.readouterr().err


def test_shipped_with_write_is_refused_before_any_set_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue #23 (T-23): the two flags contradict each other, which the arguments alone
    show: no set is read and no fold fitted (minutes on the real sets) before saying so."""
    def unread(_args: object) -> None:
        raise AssertionError("a set was read")

    monkeypatch.setattr(kf, "read_dev_sets", unread)
    assert kf.main([str(tmp_path / "dev.jsonl"), "--shipped", "--write"]) == 2
    assert "give one of them" in capsys.readouterr().err
