"""benchmarks/triage_platform_tests.py (issue #23, round tr-fit16b): CI test reports are
classified by kind (a platform's header alone, the platform named as the cause, no
platform), by distributed evidence beyond the test id, by whether the test id names a
component, and by what humans did; still-blind sets are never loaded. Made-up records
only."""

from __future__ import annotations

from agentops.triage.evaluate import Record
from agentops.triage.queue import load_queue
from benchmarks import triage_platform_tests as pt

Q = load_queue("distributed")


def _rec(number: int, title: str, text: str, *, kept: bool) -> Record:
    return Record(number=number, title=title, text=text, human_labels=(),
                  modules=frozenset(), suboncall=None, is_distributed=kept, url="",
                  type=None, state="")


def _body(platform: str = "rocm", why: str = "it kept failing in the nightly jobs",
          extra: str = "") -> str:
    return (f"Platforms: {platform}\n\nThis test was disabled because {why}.\n\n"
            f"{extra}cc @alice @bob\n")


SHARD = "DISABLED test_fully_shard_uneven_split (__main__.TestUnevenSplit)"


def test_a_header_alone_on_a_component_test_is_the_contested_cell() -> None:
    row = pt.classify(_rec(120_000, SHARD, _body(), kept=False), Q)
    assert row is not None
    assert (row.kind, row.beyond, row.names, row.kept) == ("header only", "none", True, False)
    assert row.verdict == "contested" and row.band == "2024"


def test_the_test_id_restated_in_the_body_is_no_evidence_beyond_it() -> None:
    # The disable bot's file path repeats the suite's component ("fsdp" of the title).
    body = _body(extra="Test file path: `distributed/fsdp/test_fsdp_all_gather.py`\n\n")
    row = pt.classify(_rec(150_000, "DISABLED test_all_gather (__main__.TestFSDPAllGather)",
                           body, kept=True), Q)
    assert row is not None and row.beyond == "none" and row.band == "2025+"


def test_a_distributed_frame_in_a_trace_is_evidence_beyond_the_test_id() -> None:
    trace = ("Traceback (most recent call last):\n"
             '  File "torch/distributed/distributed_c10d.py", line 2100, in all_reduce\n'
             "    work = group.allreduce([tensor], opts)\n"
             "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970\n\n")
    row = pt.classify(_rec(100_000, SHARD, _body(extra=trace), kept=True), Q)
    assert row is not None and row.beyond == "trace" and row.verdict == "distributed"


def test_the_platform_named_as_the_cause_is_its_own_kind() -> None:
    row = pt.classify(_rec(90_000, SHARD, _body(why="it is failing in ROCm6.1"), kept=False), Q)
    assert row is not None and row.kind == "header + platform named"
    assert row.verdict == "not distributed" and row.band == "<=2022"


def test_a_test_id_without_a_platform_and_a_person_report() -> None:
    row = pt.classify(_rec(130_000, SHARD, "This test was disabled because it is flaky.\n",
                           kept=True), Q)
    assert row is not None and row.kind == "test id, no platform" and row.names
    assert pt.classify(_rec(5, "FSDP2 loses gradients on the second step",
                            "fully_shard(model) then two steps.", kept=True), Q) is None


def test_the_table_counts_kept_and_away_per_cell_and_band() -> None:
    rows = pt.rows_of([_rec(120_000, SHARD, _body(), kept=False),
                       _rec(121_000, SHARD, _body(), kept=True),
                       _rec(150_000, SHARD, _body(), kept=False)], Q)
    (cell,) = pt.table(rows)
    assert (cell["kept"], cell["away"]) == (1, 2)
    assert cell["bands"] == {"2024": [1, 1], "2025+": [0, 1]}
    assert cell["verdicts"] == {"contested": 3}


def test_still_blind_sets_are_never_loaded() -> None:
    blind = [n for n, runs in pt.tk.SEPARATE_SETS.items() if runs is None]
    assert blind and not set(blind) & set(pt.RELEASED)
