"""Pure core of the bisection: splitting, rounds, narrowing, result records, table."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentops.bisect import ranges as rg
from agentops.errors import DataError, InputError


def _res(version: str, status: str) -> rg.ProbeResult:
    return rg.ProbeResult(version=version, status=status)  # type: ignore[arg-type]


def _simulate(n: int, width: int, first_bad: int) -> tuple[int, int, int]:
    """Bisect positions 0..n-1 (0 good, n-1 bad) where every position >= first_bad
    fails; returns (good, bad, rounds)."""
    good, bad, rounds = 0, n - 1, 0
    probes = rg.split(good, bad, width)
    while probes:
        rounds += 1
        assert len(probes) <= width
        results = {p: _res(f"v{p}", "fail" if p >= first_bad else "pass") for p in probes}
        nar = rg.narrow(good, bad, results, width=width)
        assert not nar.contradictions
        good, bad, probes = nar.good, nar.bad, list(nar.next_probes)
    return good, bad, rounds


def test_sixty_nightlies_width_eight_takes_two_rounds() -> None:
    # 60 nightlies = 59 steps; ceil(log_9 59) = 2, and the simulation agrees for
    # every possible position of the regression.
    assert rg.rounds_needed(59, 8) == 2
    assert rg.rounds_needed(60, 8) == 2
    worst = 0
    for first_bad in range(1, 60):
        good, bad, rounds = _simulate(60, 8, first_bad)
        assert (good, bad) == (first_bad - 1, first_bad)
        worst = max(worst, rounds)
    assert worst == 2


@pytest.mark.parametrize(("steps", "width", "want"), [
    (1, 8, 0), (2, 8, 1), (9, 8, 1), (10, 8, 2), (81, 8, 2), (82, 8, 3),
    (2, 1, 1), (3, 1, 2), (4, 1, 2), (5, 1, 3), (1024, 1, 10), (729, 8, 3),
])
def test_rounds_needed_is_ceil_log(steps: int, width: int, want: int) -> None:
    assert rg.rounds_needed(steps, width) == want
    assert want == math.ceil(math.log(steps, width + 1) - 1e-12)


@settings(max_examples=150, deadline=None)
@given(n=st.integers(2, 200), width=st.integers(1, 12), data=st.data())
def test_bisection_finds_the_first_bad_within_rounds_needed(n: int, width: int,
                                                            data: st.DataObject) -> None:
    first_bad = data.draw(st.integers(1, n - 1))
    good, bad, rounds = _simulate(n, width, first_bad)
    assert (good, bad) == (first_bad - 1, first_bad)
    assert rounds <= rg.rounds_needed(n - 1, width)


def test_split_spreads_probes_evenly() -> None:
    probes = rg.split(0, 59, 8)
    assert probes == [6, 13, 19, 26, 32, 39, 45, 52]
    gaps = [b - a for a, b in zip([0, *probes], [*probes, 59], strict=True)]
    assert max(gaps) == 7 == math.ceil(59 / 9) and min(gaps) == 6
    assert rg.split(10, 14, 8) == [11, 12, 13]  # fewer candidates than width: all
    assert rg.split(0, 10, 3, exclude=frozenset({2, 5})) == [3, 6, 8]


def test_ranges_of_zero_one_and_two_steps() -> None:
    with pytest.raises(InputError, match="same nightly"):
        rg.check_pair(4, 4, good_text="a", bad_text="a")
    with pytest.raises(InputError, match="newer than the bad"):
        rg.check_pair(5, 4, good_text="a", bad_text="b")
    assert rg.split(3, 4, 8) == []  # one step: nothing to probe
    nar = rg.narrow(3, 4, {}, width=8)
    assert nar.done and (nar.good, nar.bad) == (3, 4)
    assert rg.split(3, 5, 8) == [4]  # two steps: one probe, one round
    assert rg.rounds_needed(2, 8) == 1
    assert rg.narrow(3, 5, {4: _res("v4", "pass")}, width=8).good == 4
    assert rg.narrow(3, 5, {4: _res("v4", "fail")}, width=8).bad == 4


def test_contradictions_are_reported_and_the_first_failure_kept() -> None:
    labels = [f"v{i}" for i in range(20)]
    results = {3: _res("v3", "pass"), 6: _res("v6", "fail"), 9: _res("v9", "pass"),
               12: _res("v12", "fail")}
    nar = rg.narrow(0, 19, results, width=2, labels=labels)
    assert (nar.good, nar.bad) == (3, 6)
    assert len(nar.contradictions) == 1
    assert "v9 passed after v6 failed" in nar.contradictions[0]
    assert nar.next_probes == (4, 5)


def test_endpoints_that_disagree_are_contradictions() -> None:
    nar = rg.narrow(0, 5, {0: _res("v0", "fail"), 5: _res("v5", "pass")}, width=2,
                    labels=[f"v{i}" for i in range(6)])
    assert any("good end but its probe failed" in c for c in nar.contradictions)
    assert any("bad end but its probe passed" in c for c in nar.contradictions)


def test_skipped_nightlies_are_not_probed_again_and_can_end_the_search() -> None:
    nar = rg.narrow(0, 4, {1: _res("v1", "pass"), 2: _res("v2", "skip"),
                           3: _res("v3", "skip")}, width=8)
    assert (nar.good, nar.bad) == (1, 4)
    assert nar.done and nar.skipped == (2, 3)
    nar = rg.narrow(0, 6, {2: _res("v2", "skip")}, width=8)
    assert nar.next_probes == (1, 3, 4, 5)


def test_results_outside_the_range_are_ignored_with_a_reason() -> None:
    nar = rg.narrow(5, 9, {2: _res("v2", "pass"), 7: _res("v7", "fail")}, width=8,
                    labels=[f"v{i}" for i in range(10)])
    assert nar.bad == 7 and nar.ignored == ("v2 (pass) is outside v5…v9",)


def test_width_is_bounded_by_the_matrix_limit() -> None:
    with pytest.raises(InputError, match="at most 256"):
        rg.split(0, 1000, 257)
    with pytest.raises(InputError):
        rg.rounds_needed(10, 0)


def test_probe_result_records_are_strict() -> None:
    ok = rg.ProbeResult.from_json({"version": "v", "status": "pass", "log_tail": "x" * 9000},
                                  source="r.json")
    assert len(ok.log_tail) == rg.LOG_TAIL_LIMIT
    with pytest.raises(DataError, match=r"r.json: status: expected one of pass, fail, skip"):
        rg.ProbeResult.from_json({"version": "v", "status": "flaky"}, source="r.json")
    with pytest.raises(DataError, match=r"r.json: colour: unknown key"):
        rg.ProbeResult.from_json({"version": "v", "status": "pass", "colour": 1},
                                 source="r.json")
    with pytest.raises(DataError, match=r"r.json: version: required"):
        rg.ProbeResult.from_json({"status": "pass"}, source="r.json")
    with pytest.raises(DataError, match="not a commit sha"):
        rg.ProbeResult.from_json({"version": "v", "status": "pass", "git_version": "HEAD"},
                                 source="r.json")


@pytest.mark.parametrize(("key", "value", "said"), [
    ("git_version", 5, "git_version: expected text or null, got int"),
    ("wheel_url", ["u"], "wheel_url: expected text or null, got list"),
    ("log_tail", {"a": 1}, "log_tail: expected text or null, got dict"),
    ("exit_code", "0", "exit_code: expected a number or null, got str"),
    ("seconds", True, "seconds: expected a number or null, got bool"),
])
def test_a_result_value_of_the_wrong_type_is_a_data_error(key, value, said) -> None:
    """A made-up result artifact with one value of the wrong type: a DataError naming
    the file and key (exit 1); a number as git_version used to raise TypeError (70)."""
    with pytest.raises(DataError) as exc:
        rg.ProbeResult.from_json({"version": "v", "status": "pass", key: value},
                                 source="r.json")
    assert str(exc.value) == f"r.json: {said}"


def test_table_and_compare_link() -> None:
    good = rg.Row("2.10.0.dev20260701+cpu", "good", "a" * 40)
    bad = rg.Row("2.10.0.dev20260702+cpu", "bad", "b" * 40, note="<b>@team</b> | x")
    md = rg.render_markdown(rg.RegressionRange(repo="pytorch/pytorch", rows=(good, bad),
                                               good=good, bad=bad))
    lines = md.splitlines()
    assert lines[0] == "| Nightly | Status | PyTorch Commit |"
    assert lines[2].startswith("| `2.10.0.dev20260701+cpu` | ✅ good | [`aaaaaaaaaaaa`]"
                               "(https://github.com/pytorch/pytorch/commit/" + "a" * 40)
    assert "<b>" not in md and "@team" not in md and "\\|" in lines[3]
    assert f"Compare: https://github.com/pytorch/pytorch/compare/{'a' * 40}...{'b' * 40}" in md
    unknown = rg.Row("v", "bad")
    md = rg.render_markdown(rg.RegressionRange(repo="o/r", rows=(good, unknown), good=good,
                                               bad=unknown))
    assert "Compare: not available" in md


def test_the_first_column_says_what_the_rows_are_and_notes_keep_their_code() -> None:
    # Issue #25 item 7: a release table was headed "Nightly", and `range` printed our own
    # backtick spans escaped (\\`plan\\`), so they showed as literal text.
    def header(*versions: str) -> str:
        rows = tuple(rg.Row(v, "good" if i == 0 else "bad", c * 40)
                     for i, (v, c) in enumerate(zip(versions, "ab", strict=True)))
        md = rg.render_markdown(rg.RegressionRange(repo="o/r", rows=rows, good=rows[0],
                                                   bad=rows[-1]))
        return md.splitlines()[0]

    assert header("2.9.0", "2.10.0") == "| Release | Status | PyTorch Commit |"
    assert header("2.9.0", "2.10.0.dev20260702") == "| Version | Status | PyTorch Commit |"
    assert header("dev20260701", "2.10.0.dev20260702+cpu") == \
        "| Nightly | Status | PyTorch Commit |"
    good = rg.Row("2.9.0", "good", "a" * 40)
    bad = rg.Row("2.10.0", "bad", "b" * 40, note="the wheel says `abc` <b>@team</b>")
    md = rg.render_markdown(rg.RegressionRange(
        repo="o/r", rows=(good, bad), good=good, bad=bad,
        notes=("2 releases between them were not tested (run `plan` to bisect)",
               "`<img src=x>` @team")))
    assert "(run `plan` to bisect)" in md and "\\`" not in md
    assert "says `abc`" in md
    # Inert still: HTML only inside a code span (shown, never rendered), mentions broken.
    assert "<b>" not in md and "@team" not in md
    assert "- `<img src=x>` @\u200bteam" in md


def test_log_tail_cannot_break_out_of_its_fence() -> None:
    text = "\n".join(f"line {i}" for i in range(30)) + "\n```\n# injected\n::error::x"
    block = rg.render_log_tail("v1", text, lines=5)
    body = block.split("````text\n", 1)[1].split("\n````\n", 1)[0]
    assert body.splitlines()[0] == "line 28" and "```" in body  # kept, but inside
    assert "::error::" not in block and block.startswith("<details>")
