"""The reviewer benchmark's data file (benchmarks/data/scout_reviewer.yaml) is valid
data, and its scoring rules do what they say (no torchtitan checkout needed)."""

from __future__ import annotations

import re

import pytest

from benchmarks import scout_vs_reviewer as bench


def test_data_file_validates_and_every_checkable_finding_can_be_matched() -> None:
    spec = bench.load()
    assert [r["name"] for r in spec["runs"]] == ["2026-04-02", "2026-04-03", "2026-04-06"]
    for run in spec["runs"]:
        for f in run["findings"]:
            assert f["offline"] == bool(f.get("match")), f["id"]
            assert f["evidence"], f["id"]
    ids = [j["id"] for j in spec["judgements"]]
    assert len(ids) == len(set(ids))


def test_matching_needs_every_word_in_one_item_of_an_allowed_kind() -> None:
    finding = {"match": ["apply_tp", "enable_cp"], "kinds": ["action", "carried"]}
    items = [{"id": "a", "kind": "action", "title": "`apply_tp` omits `enable_cp`"},
             {"id": "b", "kind": "docs", "title": "apply_tp enable_cp"},
             {"id": "c", "kind": "action", "title": "apply_tp", "why": "other"}]
    assert bench.matched(finding, items) == ["a"]


def test_rules_catch_a_p1_without_code_and_a_false_all_clear() -> None:
    doc = {"items": [
        {"kind": "action", "priority": "P1", "title": "upstream field removed",
         "where": "core/config.py", "why": "", "section": "S-1"},
        {"kind": "action", "priority": "P1", "title": "`sub/tests/t.py` runs in no CI workflow",
         "where": "torchtitan/experiments/graph_trainer/tests/t.py:3", "why": "",
         "section": "S-3"},
        {"kind": "docs", "priority": "", "title": "x", "where": "", "section": "S-5"}],
        "markdown": "- Tests in CI: every test class ...\n- docs are current\n",
        "stale_patches": [], "doc_inaccuracies": []}
    broken = bench.rules(doc, "torchtitan/experiments/graph_trainer")
    assert broken == ["P0/P1 without sub-project file:line: upstream field removed",
                      "false all-clear: tests in CI", "false all-clear: docs are current"]


# --- benchmarks/data/scout_doc_claims_judged.yaml (#15, S-5) ------------------------------

def test_doc_claims_data_validates_with_a_reason_per_verdict() -> None:
    from benchmarks import scout_doc_claims as docbench

    spec = docbench.load()
    assert len(spec["commits"]) >= 3
    assert all(j["reason"].strip() for j in spec["judgements"])
    assert all(k["match"] for k in spec["known"])


def test_doc_claims_scoring_needs_the_file_and_every_match_word() -> None:
    from benchmarks import scout_doc_claims as docbench

    findings = {
        "a": {"file": "x/README.md", "kind": "command", "problem": "MODEL=… is never read; "
              "it reads MODULE"},
        "b": {"file": "y/README.md", "kind": "command", "problem": "MODEL=… MODULE"},
        "c": {"file": "x/README.md", "kind": "reference", "problem": "MODEL= only"}}
    known = {"file": "x/README.md", "claim": "c", "why": "w", "match": ["MODEL=", "MODULE"]}
    assert docbench.found_by(known, findings) == ["a"]
    score = docbench.precision(findings, {"a": "right", "b": "wrong"})
    assert (score["right"], score["wrong"], score["unjudged"], score["precision"]) == (
        1, 1, ["c"], 0.5)
    assert docbench.finding_id(findings["a"]) != docbench.finding_id(findings["c"])


# --- benchmarks/data/scout_unseen.yaml (#22) -------------------------------------------

def test_unseen_truth_validates_and_every_target_file_loads() -> None:
    from agentops.scout import config
    from benchmarks import scout_unseen as unseen

    spec = unseen.load()
    assert len(spec["runs"]) >= 5
    ids = [e["id"] for r in spec["runs"] for e in r["truth"] + r["negatives"]]
    assert len(ids) == len(set(ids))
    for run in spec["runs"]:
        assert all(e.get("kind") for e in run["truth"]), run["target"]
        assert config.load_target(str(unseen.ROOT / run["target"])).subproject
    assert all(j["note"].strip() for j in spec["judgements"])


def test_unseen_matching_needs_a_file_and_an_identifier() -> None:
    from benchmarks import scout_unseen as unseen

    entry = {"match": {"files": ["parallelize.py"], "any": ["enable_symm_mem"]}}
    assert unseen.names(entry, "`parallelize.py` omits `enable_symm_mem`".lower())
    assert not unseen.names(entry, "`model.py` omits `enable_symm_mem`".lower())
    assert not unseen.names(entry, "`parallelize.py` omits `dp_mesh_dims`".lower())


def test_unseen_scoring_counts_repeats_resolved_lines_and_false_all_clears() -> None:
    from benchmarks import scout_unseen as unseen

    run = {"target": "x/t.yaml",
           "truth": [{"id": "t1", "kind": "docs", "where": "a", "what": "b",
                      "match": {"files": ["README.md"], "any": ["stale"]}},
                     {"id": "t2", "kind": "action", "where": "a", "what": "b",
                      "match": {"files": ["p.py"], "any": ["kwarg"]}}],
           "negatives": [{"id": "n1", "where": "a", "what": "b",
                          "match": {"files": ["q.py"], "any": ["fine"]}}]}
    act = {"id": "A", "kind": "action", "title": "`q.py` fine thing"}
    night1 = {"items": [act], "markdown": "- `q.py` fine thing\n"
              "- Resolved since 2026-01-01: `p.py` kwarg\n- docs are current\n",
              "upstream_commits": []}
    later = {"items": [act], "markdown": "- `q.py` fine thing\n", "upstream_commits": ["c"]}
    s = unseen.score_run(run, [night1, night1, later, later, later], {}, {}, show=False)
    assert (s.found, s.truth) == (0, 2)  # a "Resolved" line finds nothing
    assert (s.valid, s.noise, s.unjudged) == (0, 1, 0)
    assert s.false_clears == ["docs are current"]
    assert s.delta_unchanged == 1
    assert s.max_action_listings == 5  # written out on every night, 0 to 4
    changed = {**act, "fingerprint": "new"}
    later2 = {**later, "items": [changed]}
    s = unseen.score_run(run, [night1, night1, later2, later2, later2], {}, {}, show=False)
    assert s.max_action_listings == 3  # a changed finding starts counting again


def _truth_file(tmp_path, runs: str, judgements: str = "[]"):
    p = tmp_path / "truth.yaml"
    p.write_text(f"runs:\n{runs}\njudgements: {judgements}\n")
    return p


_RUN = """- target: benchmarks/data/scout_unseen_targets/forge.yaml
  prior: {{head: {sha}, date: '2026-07-31'}}
  head: {{head: {sha}, date: '2026-08-22'}}
  truth:
  - {{id: t1, kind: action, where: a.py:1, what: w, match: {{files: [a.py], any: [x]}}}}
  negatives:
  - {{id: {neg}, where: b.py:2, what: w, match: {{files: [b.py], any: [y]}}}}
"""


def test_unseen_loader_takes_another_truth_file_and_names_file_and_key(tmp_path) -> None:
    import pytest

    from agentops.errors import DataError
    from benchmarks import scout_unseen as unseen

    sha = "a" * 40
    good = _truth_file(tmp_path, _RUN.format(sha=sha, neg="n1"))
    assert [e["id"] for e in unseen.load(good)["runs"][0]["negatives"]] == ["n1"]
    late = _truth_file(tmp_path, _RUN.format(sha=sha, neg="n1").replace(
        "kind: action,", "kind: action, late: true,"))
    assert unseen.load(late)["runs"][0]["truth"][0]["late"] is True
    cases = {
        "runs[0].negatives[0].id": _RUN.format(sha=sha, neg="t1"),  # duplicate id
        "runs[0].prior.head": _RUN.format(sha=sha, neg="n1").replace(
            f"prior: {{head: {sha}", "prior: {head: abc", 1),
        "runs[0].target": _RUN.format(sha=sha, neg="n1").replace("forge.yaml", "gone.yaml"),
        "runs[0].truth[0]": _RUN.format(sha=sha, neg="n1").replace("kind: action, ", ""),
        "runs[0].truth[0].late": _RUN.format(sha=sha, neg="n1").replace(
            "kind: action,", "kind: action, late: maybe,"),
    }
    for key, runs in cases.items():
        bad = _truth_file(tmp_path, runs)
        with pytest.raises(DataError) as err:
            unseen.load(bad)
        assert err.value.file.endswith("truth.yaml"), key
        assert err.value.key == key, (key, str(err.value))
    judged = _truth_file(tmp_path, _RUN.format(sha=sha, neg="n1"),
                         "[{id: i1, verdict: noise, note: ' '}]")
    with pytest.raises(DataError) as err:
        unseen.load(judged)
    assert err.value.key == "judgements[0].note"


def test_unseen_late_entries_stay_out_of_the_blind_recall() -> None:
    from benchmarks import scout_unseen as unseen

    entry = {"id": "t1", "kind": "action", "where": "a", "what": "b",
             "match": {"files": ["p.py"], "any": ["kwarg"]}}
    run = {"target": "x/t.yaml", "negatives": [],
           "truth": [entry, {**entry, "id": "t2", "late": True}]}
    night = {"items": [], "markdown": "- `p.py` kwarg\n", "upstream_commits": []}
    s = unseen.score_run(run, [night] * 5, {}, {}, show=False)
    assert (s.found, s.truth, s.late_found, s.late) == (1, 1, 1, 1)


def test_second_unseen_truth_validates_and_every_target_file_loads() -> None:
    from agentops.scout import config
    from benchmarks import scout_unseen as unseen

    spec = unseen.load(unseen.ROOT / "benchmarks" / "data" / "scout_unseen2.yaml")
    assert len(spec["runs"]) >= 2
    for run in spec["runs"]:
        assert run["truth"] and run["negatives"], run["target"]
        # a late addition says so in its own words, after the scout's output was read
        for entry in run["truth"] + run["negatives"]:
            if entry.get("late"):
                assert entry["what"].lower().startswith("late"), entry["id"]
        assert config.load_target(str(unseen.ROOT / run["target"])).subproject


def test_third_unseen_truth_validates_and_every_target_file_loads() -> None:
    """The third blind set (#22): four runs in a window no earlier set used, each target
    loads at its run, and an entry restating a set-2 finding says so in its own words."""
    from agentops.scout import config
    from benchmarks import scout_unseen as unseen

    spec = unseen.load(unseen.ROOT / "benchmarks" / "data" / "scout_unseen3.yaml")
    assert len(spec["runs"]) >= 4
    earlier = set()
    for name in ("scout_unseen.yaml", "scout_unseen2.yaml"):
        for run in unseen.load(unseen.ROOT / "benchmarks" / "data" / name)["runs"]:
            earlier.add((run["target"], run["prior"]["head"], run["head"]["head"]))
    for run in spec["runs"]:
        assert (run["target"], run["prior"]["head"], run["head"]["head"]) not in earlier
        assert run["truth"] and run["negatives"], run["target"]
        for entry in run["truth"] + run["negatives"]:
            if entry.get("late"):
                assert entry["what"].lower().startswith("late"), entry["id"]
        assert config.load_target(str(unseen.ROOT / run["target"])).subproject
    assert sum(len(r["truth"]) for r in spec["runs"]) >= 30


# The blind truth sets in the order they were written; a later set must not reuse, for a
# folder, a window an earlier set already measured (that window's code was read to fit).
_UNSEEN = ("scout_unseen.yaml", "scout_unseen2.yaml", "scout_unseen3.yaml", "scout_unseen4.yaml",
           "scout_unseen5.yaml", "scout_unseen6.yaml", "scout_unseen7.yaml", "scout_unseen8.yaml",
           "scout_unseen9.yaml", "scout_unseen10.yaml", "scout_unseen11.yaml",
           "scout_unseen12.yaml", "scout_unseen13.yaml", "scout_unseen14.yaml",
           "scout_unseen15.yaml", "scout_unseen16.yaml", "scout_unseen17.yaml",
           "scout_unseen18.yaml", "scout_unseen19.yaml", "scout_unseen20.yaml",
           "scout_unseen21.yaml", "scout_unseen22.yaml", "scout_unseen23.yaml")


def _load_set(number: int) -> dict:
    from benchmarks import scout_unseen as unseen
    return unseen.load(unseen.ROOT / "benchmarks" / "data" / _UNSEEN[number - 1])


def _windows_before(number: int) -> dict[str, set[tuple[str, str]]]:
    """(prior head, head) windows per folder of every set written before set ``number``."""
    from agentops.scout import config
    from benchmarks import scout_unseen as unseen

    earlier: dict[str, set[tuple[str, str]]] = {}
    for n in range(1, number):
        for run in _load_set(n)["runs"]:
            sub = config.load_target(str(unseen.ROOT / run["target"])).subproject
            earlier.setdefault(sub, set()).add((run["prior"]["head"], run["head"]["head"]))
    return earlier


def _check_runs(number: int, *, init_marker: str | None,
                located: bool) -> tuple[list[str], int, int]:
    """Every run of set ``number`` in a new window for its folder, with truth and negatives,
    late entries saying so; with ``init_marker`` its target an unedited init draft, with
    ``located`` every entry at file:line. Returns the folders, blind and late entry counts."""
    from agentops.scout import config
    from benchmarks import scout_unseen as unseen

    earlier = _windows_before(number)
    subprojects, blind, late = [], 0, 0
    for run in _load_set(number)["runs"]:
        path = unseen.ROOT / run["target"]
        if init_marker is not None:
            assert init_marker in path.read_text(), run["target"]
        sub = config.load_target(str(path)).subproject
        subprojects.append(sub)
        window = (run["prior"]["head"], run["head"]["head"])
        assert window not in earlier.get(sub, set()), (sub, window)
        assert run["truth"] and run["negatives"], run["target"]
        for entry in run["truth"] + run["negatives"]:
            if located:
                # file:line, in the folder (its TOML configs too) or the core code it relies on
                assert re.search(r"\.(py|md|sh|yaml|toml):\d+", entry["where"]), entry["id"]
            if entry.get("late"):
                assert entry["what"].lower().startswith("late"), entry["id"]
        for entry in run["truth"]:
            late, blind = (late + 1, blind) if entry.get("late") else (late, blind + 1)
    return subprojects, blind, late


_MODELS = {"torchtitan/models/llama3", "torchtitan/models/qwen3", "torchtitan/models/deepseek_v3"}


def test_fourth_unseen_truth_validates_in_windows_no_earlier_set_used() -> None:
    """The fourth blind set (#22): model-folder runs plus rl, each (folder, prior, head)
    new to sets 1-3, targets load, late entries say so, and every action item without a
    matching entry has a verdict."""
    spec = _load_set(4)
    assert len(spec["runs"]) >= 4
    subprojects, _blind, _late = _check_runs(4, init_marker=None, located=False)
    assert sum(1 for s in subprojects if s.startswith("torchtitan/models/")) >= 3
    assert sum(len(r["truth"]) for r in spec["runs"]) >= 25
    assert all(j["note"].strip() for j in spec["judgements"])


def test_fifth_unseen_truth_uses_init_drafts_in_a_window_no_earlier_set_used() -> None:
    """The fifth blind set (#22): three model folders and forge in a window new to sets 1-4
    for each folder, every target an unedited `scout.py init` draft of that folder, late
    entries say so and stay few, and every unmatched action item has a reasoned verdict."""
    spec = _load_set(5)
    subprojects, blind, late = _check_runs(
        5, init_marker="# Draft scout target written by `scout.py init`", located=False)
    assert sum(1 for s in subprojects if s.startswith("torchtitan/models/")) >= 3
    assert blind >= 24 and late <= blind // 4
    assert spec["judgements"] and all(j["note"].strip() for j in spec["judgements"])


def test_sixth_unseen_truth_validates_with_init_drafts_in_a_new_window() -> None:
    """The sixth blind set (#22): the model folders plus forge in one window no earlier set
    used for the folder, each run's target an unedited `scout.py init` draft that loads and
    names that folder, late entries say so, and at least 25 truth entries in all."""
    spec = _load_set(6)
    subprojects, _blind, _late = _check_runs(6, init_marker="drafted by scout.py init",
                                             located=True)
    assert set(subprojects) >= _MODELS
    assert sum(len(r["truth"]) for r in spec["runs"]) >= 25
    assert all(j["note"].strip() for j in spec["judgements"])


def test_seventh_unseen_truth_validates_with_init_drafts_in_a_new_window() -> None:
    """The seventh blind set (#22): the three model folders plus the transformers backend in a
    window no earlier set used for the folder, each run's target an unedited `scout.py init`
    draft that names that folder, every entry at file:line, late entries say so, every action
    item without an entry judged with a note."""
    spec = _load_set(7)
    subprojects, _blind, _late = _check_runs(7, init_marker="drafted by scout.py init",
                                             located=True)
    assert set(subprojects) >= _MODELS
    assert sum(len(r["truth"]) + len(r["negatives"]) for r in spec["runs"]) >= 25
    assert all(j["note"].strip() for j in spec["judgements"])


def test_eighth_unseen_truth_validates_with_init_drafts_in_a_new_window() -> None:
    """The eighth blind set (#22): the three model folders in a window no earlier set used
    for the folder, each run's target an unedited `scout.py init` draft that names that
    folder, every entry at file:line, late entries say so, at least 20 findings and 25
    entries in all, every action item without an entry judged with a note."""
    spec = _load_set(8)
    subprojects, _blind, _late = _check_runs(8, init_marker="drafted by scout.py init",
                                             located=True)
    assert set(subprojects) >= _MODELS
    assert sum(len(r["truth"]) for r in spec["runs"]) >= 20
    assert sum(len(r["truth"]) + len(r["negatives"]) for r in spec["runs"]) >= 25
    assert all(j["note"].strip() for j in spec["judgements"])


@pytest.mark.parametrize(("number", "folders"), [
    (9, _MODELS), (10, _MODELS | {"torchtitan/experiments/forge"}),
    (11, _MODELS | {"torchtitan/experiments/forge"}),
    (12, _MODELS | {"torchtitan/experiments/forge"}),
    # qwen3 joined torchtitan after set 14's start commit, so that set has no qwen3 run
    (14, {"torchtitan/models/llama3", "torchtitan/models/deepseek_v3",
          "torchtitan/experiments/forge"}),
    # the model folder deepseek_v3 joined after set 16's start commit; the experiment it
    # superseded and simple_fsdp are measured instead
    (16, {"torchtitan/models/llama3", "torchtitan/experiments/deepseek_v3",
          "torchtitan/experiments/simple_fsdp"}),
    # the month before set 16, the same folders (experiments/kernels imports no core code,
    # so simple_fsdp stands in for it)
    (17, {"torchtitan/models/llama3", "torchtitan/experiments/deepseek_v3",
          "torchtitan/experiments/simple_fsdp"}),
    # the month before set 17, the same folders
    (18, {"torchtitan/models/llama3", "torchtitan/experiments/deepseek_v3",
          "torchtitan/experiments/simple_fsdp"})])
def test_a_month_window_set_validates_with_init_drafts_before_the_set_after_it(
        number: int, folders: set[str]) -> None:
    """The ninth to twelfth, the fourteenth and sixteenth to eighteenth blind sets (#22): the
    model folders (the tenth on also experiments/forge; the fourteenth without qwen3, which did
    not exist yet; the sixteenth to eighteenth llama3 with experiments/deepseek_v3 and
    simple_fsdp), each
    in a window no earlier set used for the folder (the month before the following set's),
    each run's target an unedited `scout.py init` draft that
    names that folder, every entry at file:line, late entries say so and stay few, at
    least 20 findings and 35 entries in all, every action item without an entry judged
    with a note."""
    spec = _load_set(number)
    subprojects, blind, late = _check_runs(number, init_marker="drafted by scout.py init",
                                           located=True)
    assert set(subprojects) >= folders
    assert blind >= 20 and late <= blind // 4
    assert sum(len(r["truth"]) + len(r["negatives"]) for r in spec["runs"]) >= 35
    # every run of this set measures the same window, and the set before starts where it ends
    windows = {(r["prior"]["head"], r["head"]["head"]) for r in spec["runs"]}
    assert len(windows) == 1
    assert {r["prior"]["head"] for r in _load_set(number - 1)["runs"]} == {w[1] for w in windows}
    assert all(j["note"].strip() for j in spec["judgements"])


@pytest.mark.parametrize(("number", "folders", "window"), [
    # compiler_toolkit, simple_fsdp and torchcomms over the window of set 11
    (19, {"torchtitan/experiments/compiler_toolkit", "torchtitan/experiments/simple_fsdp",
          "torchtitan/experiments/torchcomms"},
     ("028a455c1e3c0ea5aeb34e04f6ae25401b900bfc", "c283a848742198c5f610bc5842322f53e9f02c36")),
    # rl and transformers_modeling_backend over the window of set 8
    (20, {"torchtitan/experiments/rl", "torchtitan/experiments/transformers_modeling_backend"},
     ("e38d7abe0fa09c2ec7ccac1729f77cf72faddfc5", "0691f514f292d4b7b7a226396cded1920432daad")),
    # experiments/qwen3 and experiments/kernels, never targets before
    (21, {"torchtitan/experiments/qwen3", "torchtitan/experiments/kernels"},
     ("e4847c8054ad5f878add8a4ef990d311f1a08602", "8d20f02515cd91cef7a95ae281fef2a03930bbde")),
    # rl and transformers_modeling_backend again, between their windows of sets 7/20 and 4
    (22, {"torchtitan/experiments/rl", "torchtitan/experiments/transformers_modeling_backend"},
     ("526c7de279534c6df2f38740b7f5ceef0609dc9b", "d4a3c63499dbeb7442a29e2bc5a0a3590af3bbdb")),
])
def test_a_set_validates_with_init_drafts_in_a_window_new_to_its_folders(
        number: int, folders: set[str], window: tuple[str, str]) -> None:
    """The nineteenth to twenty-second blind sets (#22): exactly the named folders over one
    window no earlier set used for them, each run's target an unedited `scout.py init`
    draft, every entry at file:line, late entries say so and stay few, at least 20 findings
    and 35 entries in all, every judgement with a note (nothing of the entries is printed:
    a set may still be blind)."""
    spec = _load_set(number)
    subprojects, blind, late = _check_runs(number, init_marker="drafted by scout.py init",
                                           located=True)
    assert set(subprojects) == folders
    assert blind >= 20 and late <= blind // 4
    assert sum(len(r["truth"]) + len(r["negatives"]) for r in spec["runs"]) >= 35
    assert {(r["prior"]["head"], r["head"]["head"]) for r in spec["runs"]} == {window}
    assert all(j["note"].strip() for j in spec["judgements"])


def test_twenty_third_set_measures_each_folder_over_its_own_new_window() -> None:
    """The twenty-third blind set (#22): experiments/deepseek_v3 and experiments/torchcomms,
    each over its own window (the only set whose runs differ in window) that no earlier set
    used for the folder, each target an unedited `scout.py init` draft, late entries say so
    and stay few, at least 20 findings and 35 entries in all, every judgement with a note.
    Not `located`: two negatives point at a licence file and a requirements file, which
    have no code suffix (nothing of the entries is printed: the set is blind)."""
    spec = _load_set(23)
    subprojects, blind, late = _check_runs(23, init_marker="drafted by scout.py init",
                                           located=False)
    assert sorted(subprojects) == ["torchtitan/experiments/deepseek_v3",
                                   "torchtitan/experiments/torchcomms"]
    assert blind >= 20 and late <= blind // 4
    assert sum(len(r["truth"]) + len(r["negatives"]) for r in spec["runs"]) >= 35
    windows = {r["target"].rsplit("/", 1)[-1]: (r["prior"]["head"][:9], r["head"]["head"][:9])
               for r in spec["runs"]}
    assert windows == {"deepseek_v3-exp-init-0716.yaml": ("d69a7378c", "a59abeac9"),
                       "torchcomms-init-1014.yaml": ("d0e25450b", "028a455c1")}
    assert all(j["note"].strip() for j in spec["judgements"])


def test_fifteenth_unseen_set_loads_in_windows_no_earlier_set_used() -> None:
    """The fifteenth blind set (#22) loads, and each of its runs measures a window no earlier
    set used for that folder, with an unedited `scout.py init` draft as target, truth and
    negatives (only the runs' shape is checked here; nothing of its entries is read out)."""
    from agentops.scout import config
    from benchmarks import scout_unseen as unseen

    earlier = _windows_before(15)
    subprojects = []
    for run in _load_set(15)["runs"]:
        path = unseen.ROOT / run["target"]
        assert "drafted by scout.py init" in path.read_text(), run["target"]
        sub = config.load_target(str(path)).subproject
        subprojects.append(sub)
        assert (run["prior"]["head"], run["head"]["head"]) not in earlier.get(sub, set()), sub
        assert run["truth"] and run["negatives"], run["target"]
        # late entries say so (their ids are not printed: the set is blind)
        assert all(e["what"].lower().startswith("late")
                   for e in run["truth"] + run["negatives"] if e.get("late"))
    assert set(subprojects) >= {"torchtitan/models/llama3", "torchtitan/models/deepseek_v3"}
