"""benchmarks/triage_setsplit.py (issue #23, round tr-fit14): groups of sets are planned
together and give module F1 with its counts, sub-oncall accuracy and not-distributed P/R;
a still-blind set is refused, and per-issue errors are never listed for validation or
check sets. Made-up records only."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agentops.triage.evaluate import Record
from agentops.triage.queue import load_queue
from benchmarks import triage_setsplit as ss

Q = load_queue("distributed")
FSDP = "module: fsdp"


def _rec(number: int, title: str, text: str, *, dist: bool = True,
         modules: tuple[str, ...] = (), sub: str | None = None) -> Record:
    return Record(number=number, title=title, text=text, human_labels=(),
                  modules=frozenset(modules), suboncall=sub, is_distributed=dist, url="",
                  type=None, state="")


_SHARDED = _rec(1, "FSDP2 fully_shard loses gradients on the second step",
                "from torch.distributed.fsdp import fully_shard\nmodel = fully_shard(m)",
                modules=(FSDP,), sub="parallelisms")
_OFF = _rec(2, "Tokenizer returns the wrong padding side", "Nothing parallel here.",
            dist=False)


def test_group_scores_count_a_right_module_and_the_routed_away_issue() -> None:
    s, errs, sub_errs = ss.group_scores([_SHARDED, _OFF], Q)
    m = ss.measures(s)
    assert m["module_counts"] == [1, 0, 0] and m["module_f1"] == 1.0
    assert m["per_module"] == {FSDP: [1, 0, 0]}
    # The routed-away issue is counted once by the not-distributed figures (flagged or
    # missed), never as a false flag, and never as a module error.
    assert sum(m["not_distributed_counts"]) == 1 and m["not_distributed_counts"][1] == 0
    assert m["suboncall_counts"] == [1, 1]
    assert errs == [] and sub_errs == []


def test_group_scores_list_a_missed_module() -> None:
    # The humans set a module the text gives no evidence of: a miss, listed.
    wrong = _rec(3, "FSDP2 fully_shard loses gradients on the second step",
                 "from torch.distributed.fsdp import fully_shard",
                 modules=("module: rpc",), sub="parallelisms")
    s, errs, _ = ss.group_scores([wrong], Q)
    assert s.fn == 1 and s.fp == 1
    assert len(errs) == 1 and "missed ['module: rpc']" in errs[0] and "#3" in errs[0]


def test_a_distributed_issue_without_a_human_module_is_no_module_error() -> None:
    unjudged = _rec(4, _SHARDED.title, _SHARDED.text, sub="parallelisms")
    s, errs, _ = ss.group_scores([unjudged], Q)
    assert errs == [] and (s.tp, s.fp, s.fn) == (0, 0, 0)
    # No match: the same issue with a human module the plan misses is listed.
    _, errs, _ = ss.group_scores([_rec(4, _SHARDED.title, _SHARDED.text, sub="parallelisms",
                                    modules=("module: rpc",))], Q)
    assert len(errs) == 1
    # Issues passed over do not stop the listing of a later one; an issue not
    # distributed is passed over even with a module set on it.
    stray = _rec(6, _OFF.title, _OFF.text, dist=False, modules=("module: rpc",))
    _, errs, _ = ss.group_scores([unjudged, stray, _OFF, _rec(
        7, _SHARDED.title, _SHARDED.text, sub="parallelisms", modules=("module: rpc",))], Q)
    assert len(errs) == 1 and errs[0].startswith("#7:")


def test_group_scores_list_a_wrong_or_missing_suboncall() -> None:
    # The humans gave infra to a report the planner routes to parallelisms: listed, and
    # the figure counts it wrong.
    other = _rec(9, _SHARDED.title, _SHARDED.text, modules=(FSDP,), sub="infra")
    s, errs, sub_errs = ss.group_scores([other], Q)
    assert (s.sub_right, s.sub_total) == (0, 1) and errs == []
    assert sub_errs == ["#9: oncall: distributed parallelisms for oncall: distributed infra"
                        f" (plan {sub_errs[0].rsplit('(plan ', 1)[1][:-1]})"]
    # None where the humans gave one (the planner sends it away): listed as "none".
    off = _rec(10, "MPS backend returns wrong values for interpolate",
               "On the MPS device interpolate gives wrong output; CPU is fine. Single "
               "process, no distributed code.", sub="infra")
    _, _, sub_errs = ss.group_scores([off], Q)
    assert sub_errs == ["#10: none for oncall: distributed infra (plan not_distributed)"]
    # No match: the right sub-oncall, none given by the humans, or an issue routed away
    # with a sub-oncall noted on it are not listed (the figure does not judge them).
    free = _rec(11, _SHARDED.title, _SHARDED.text, modules=(FSDP,))
    gone = _rec(12, _OFF.title, _OFF.text, dist=False, sub="infra")
    s, _, sub_errs = ss.group_scores([_SHARDED, free, gone], Q)
    assert sub_errs == [] and s.sub_total == 1


@pytest.mark.parametrize("spec", ["g=blind17", "g=dev-fit,blind17", "g=nosuch", "g=", "g",
                                  "=blind5", " =blind5"])
def test_parse_group_refuses_blind_unknown_and_empty(spec: str) -> None:
    with pytest.raises(ValueError):
        ss.parse_group(spec)


def test_parse_group_reads_released_sets() -> None:
    assert ss.parse_group("a=dev-fit, blind8") == ("a", ("dev-fit", "blind8"))
    assert ss.parse_group("a=blind5,,blind6,") == ("a", ("blind5", "blind6"))
    with pytest.raises(ValueError, match="blind17 is still blind"):
        ss.parse_group("a=blind5,blind17")
    # blind16, released at stop 43, is read; it is a check set, blind8 a write set.
    assert ss.parse_group("a=blind16") == ("a", ("blind16",))
    assert "blind16" in ss.DEFAULT_GROUPS["check"] and "blind8" in ss.DEFAULT_GROUPS["write"]
    assert ss.DEFAULT_GROUPS["check"] == ss.CHECK
    assert not set(ss.STILL_BLIND) & {s for g in ss.DEFAULT_GROUPS.values() for s in g}
    assert not set(ss.DEFAULT_GROUPS["write"]) & set(ss.DEFAULT_GROUPS["check"])
    # write and check together are the k-fold part, every released set in one of them.
    assert set(ss.DEFAULT_GROUPS["write"]) | set(ss.DEFAULT_GROUPS["check"]) == set(
        ss.DEFAULT_GROUPS["fit-all"]) == {"dev-fit", *ss.RELEASED}


@pytest.fixture
def no_reads(monkeypatch: pytest.MonkeyPatch) -> list[set[str]]:
    """load_sets replaced: records the sets asked for and gives made-up records, so a
    refusal is seen to come before any set is read (and without the dev sets too)."""
    asked: list[set[str]] = []

    def fake_load(args: argparse.Namespace, needed: set[str]) -> tuple[object, dict]:
        asked.append(set(needed))
        # blind6 holds one issue whose human module the plan misses.
        missed = _rec(8, _SHARDED.title, _SHARDED.text, modules=("module: rpc",),
                      sub="parallelisms")
        return Q, {name: [_SHARDED, _OFF] + ([missed] if name == "blind6" else [])
                   for name in needed}

    monkeypatch.setattr(ss, "load_sets", fake_load)
    return asked


@pytest.mark.parametrize("group", ["check", "held64"])
def test_errors_are_refused_for_check_and_validation_groups(
        group: str, no_reads: list[set[str]]) -> None:
    assert ss.main(["--errors", group]) == 2
    assert no_reads == []


@pytest.mark.parametrize("barred", ["blind3,blind5", "blind3, blind5", " blind5 "])
def test_errors_are_refused_for_a_set_named_by_no_errors_from(
        barred: str, no_reads: list[set[str]]) -> None:
    # Refused before any set is read, however the list is spaced.
    assert ss.main(["--group", "g=blind5,blind6", "--errors", "g",
                    "--no-errors-from", barred]) == 2
    assert ss.main(["--group", "g=blind5,blind6", "--errors", "h"]) == 2
    assert no_reads == []
    # No match: a group of none of them lists its errors.
    assert ss.main(["--group", "g=blind6", "--errors", "g",
                    "--no-errors-from", barred]) == 0
    assert no_reads == [{"blind6"}]


def test_main_prints_each_group_and_the_errors_of_the_one_asked(
        no_reads: list[set[str]], capsys: pytest.CaptureFixture[str]) -> None:
    assert ss.main(["--group", "g=blind5", "--group", "k=blind6", "--errors", "k",
                    "--json"]) == 0
    out = capsys.readouterr().out
    assert "== g: 2 issues (blind5) ==" in out and "== k: 3 issues (blind6) ==" in out
    assert re.search(r"^ +module: fsdp +tp +1 fp +0 fn +0$", out, re.M)  # a line per module
    assert out.count("module errors (") == 1 and out.count("sub-oncall errors (") == 1
    assert out.index("== k:") < out.index("sub-oncall errors (0):") \
        < out.index("module errors (1):") < out.index("    #8: ")
    got = json.loads(out.strip().splitlines()[-1])
    assert got["g"]["n"] == 2 and got["k"]["sets"] == ["blind6"]
    assert got["g"]["module_counts"] == [1, 0, 0]


def test_main_refusals_say_why(monkeypatch: pytest.MonkeyPatch, no_reads: list[set[str]],
                               capsys: pytest.CaptureFixture[str]) -> None:
    assert ss.main(["--group", "g=blind17"]) == 2
    assert "still blind" in capsys.readouterr().err
    assert ss.main(["--group", "g=blind5", "--errors", "h"]) == 2
    assert "no such group" in capsys.readouterr().err
    assert ss.main(["--group", "g=blind5", "--errors", "g", "--no-errors-from",
                    "blind5"]) == 2
    assert "holds blind5" in capsys.readouterr().err
    # Without the dev sets nothing is measured.
    monkeypatch.setattr(ss, "load_sets", lambda args, needed: None)
    assert ss.main(["--group", "g=blind5"]) == 2


def test_main_measures_the_default_groups_without_json(
        no_reads: list[set[str]], capsys: pytest.CaptureFixture[str]) -> None:
    assert ss.main([]) == 0
    out = capsys.readouterr().out
    assert [line.split(":")[0] for line in out.splitlines() if line.startswith("== ")] == [
        f"== {name}" for name in ss.DEFAULT_GROUPS]
    assert no_reads == [{s for sets in ss.DEFAULT_GROUPS.values() for s in sets}]
    assert "module errors" not in out and "sub-oncall errors" not in out and "{" not in out


def test_load_sets_without_dev_sets_reads_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ss.tk, "read_dev_sets", lambda args: None)

    def no_blind(name: str, queue: object) -> tuple[list[Record], str]:
        raise AssertionError(name)

    assert ss.load_sets(argparse.Namespace(), {"blind9"}, blind=no_blind) is None


def test_load_sets_reads_only_the_sets_a_group_needs(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    asked: list[str] = []

    def fake_blind(name: str, queue: object) -> tuple[list[Record], str]:
        asked.append(name)
        return [_OFF], f"{name}: made up"

    fake_dev = ss.tk.DevSets(paths=[], queue=Q, fit=[_SHARDED], held=[], extra=[],
                          extra_note="")
    monkeypatch.setattr(ss.tk, "read_dev_sets", lambda args: fake_dev)
    got = ss.load_sets(argparse.Namespace(), {"dev-fit", "blind9"}, blind=fake_blind)
    assert got is not None
    assert capsys.readouterr().out == "blind9: made up\n"  # the set's own note
    assert asked == ["blind9"]
    assert got[1]["dev-fit"] == [_SHARDED] and got[1]["blind9"] == [_OFF]


def test_the_script_runs_as_a_command() -> None:
    script = Path(ss.__file__)
    done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True,
                          text=True, check=False, timeout=120)
    assert done.returncode == 0 and "--no-errors-from" in done.stdout
    # The first paragraph of the docstring, and the dev sets' own options.
    assert "Module F1 split by set" in done.stdout and "--no-extra" in done.stdout
