"""joblog: failing tests, root cause, sub-project frames, torch version, repro (S-3a-c)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentops.scout import joblog

LOGS = Path(__file__).parent / "fixtures" / "joblogs"
SRC = "torchtitan/experiments/graph_trainer"


def _parse(name: str) -> joblog.JobLogSummary:
    return joblog.parse((LOGS / name).read_text(), source_dir=SRC)


def test_integration_summary_names_each_failed_test_with_its_own_cause():
    summary = _parse("integration_failed.log")
    assert [t.name for t in summary.failed_tests] == ["fsdp_tp_aot", "fsdp_aot_ac"]
    tp, ac = summary.failed_tests
    assert tp.exception == "ValueError: too many values to unpack (expected 3)"
    assert tp.source_lines == (f"{SRC}/trainer.py:188 in forward_backward_step",
                               f"{SRC}/passes.py:341 in apply_tp_pass")
    assert ac.exception == ("torch._dynamo.exc.UserError: Dynamic control flow is not "
                            "supported at the moment")
    assert ac.source_lines == (f"{SRC}/simple_fsdp.py:77 in replicate_compute",)
    # fsdp_default passed: its Command line must not make it a failure.
    assert "fsdp_default" not in {t.name for t in summary.failed_tests}


def test_root_cause_skips_wrappers_and_the_runner_summary():
    summary = _parse("integration_failed.log")
    assert summary.root_cause == "ValueError: too many values to unpack (expected 3)"
    assert "ChildFailedError" not in summary.root_cause


def test_the_logged_command_is_kept_as_text_and_never_made_a_command():
    # Issue #21: the log's Command: line is outside text; trusted_repro alone may turn
    # it into a proposal, from the target's template.
    tp, ac = _parse("integration_failed.log").failed_tests
    assert tp.logged_command == (
        'TORCH_TRACE="artifacts-to-be-uploaded/fsdp_tp_aot/compile_trace" '
        "CUDA_VISIBLE_DEVICES=0,1,2,3 NGPU=4 LOG_RANK=0,1,2,3 MODULE=graph_trainer.llama3 "
        "CONFIG=graph_trainer_llama3_debugmodel ./run_train.sh --dump_folder "
        "artifacts-to-be-uploaded/fsdp_tp_aot --parallelism.tensor_parallel_degree 2 "
        "--compile.mode aot")
    assert ac.logged_command.startswith('TORCH_TRACE="artifacts-to-be-uploaded/fsdp_aot_ac')
    assert tp.command == ac.command == ""


def test_torch_version_ignores_triton_and_vision_and_takes_the_torch_wheel():
    assert _parse("integration_failed.log").torch_version == "2.9.0.dev20260709+cu126"
    assert _parse("passing.log").torch_version == "2.9.0.dev20260707+cu126"
    # A later pip line without torch (torchao) must not override or be mistaken for it.
    assert _parse("pytest_failed.log").torch_version == "2.9.0.dev20260708+cpu"
    assert joblog.torch_version("Successfully installed pytorch-triton-3.4.0 "
                                "torchvision-0.24.0") is None


def test_pytest_failed_lines_with_their_traceback_section():
    summary = _parse("pytest_failed.log")
    first, second = summary.failed_tests
    assert first.name == f"{SRC}/tests/test_passes.py::TestPasses::test_reshard_after_forward"
    assert first.exception == "AssertionError: assert 3 == 2"
    assert first.source_lines == (
        f"{SRC}/tests/test_passes.py:58 in test_reshard_after_forward",
        f"{SRC}/passes.py:212 in reshard_after_forward_pass")
    assert second.exception == "RuntimeError: expected a single all_gather"
    assert second.source_lines == () and second.logged_command == ""


def test_passing_log_has_no_failures():
    summary = _parse("passing.log")
    assert summary.failed_tests == () and summary.root_cause == ""


@pytest.mark.parametrize(("raw", "test", "text"), [
    ("2026-07-09T12:34:56.1234567Z [rank3]:boom", None, "boom"),
    ("2026-07-09T12:34:56Z [t1] Command: NGPU=2 ./run_train.sh", "t1",
     "Command: NGPU=2 ./run_train.sh"),
    ("[titan] 2026-07-09 12:00:00 INFO x", None, "[titan] 2026-07-09 12:00:00 INFO x"),
    ("[default1]:[rank1]:Traceback (most recent call last):", None,
     "Traceback (most recent call last):"),
])
def test_clean_line_prefix_rules(raw, test, text):
    assert joblog.clean_line(raw) == (test, text)


def test_summary_on_one_line_and_old_runner_command_form():
    log = "\n".join([
        "2026-07-09T01:00:00.0000000Z =====Integration test, flavor : TP, command : "
        "CONFIG_FILE=./c.toml NGPU=4 LOG_RANK=0,1,2,3 ./run_train.sh --dump_folder o/tp=====",
        "2026-07-09T01:00:01.0000000Z Exception: Integration test failed, flavor : TP, command : x",
        "2026-07-09T01:00:02.0000000Z RuntimeError: 2 integration test(s) failed: tp_only, cp",
    ])
    summary = joblog.parse(log, source_dir=SRC)
    assert [t.name for t in summary.failed_tests] == ["tp_only", "cp"]
    assert summary.root_cause == ""
