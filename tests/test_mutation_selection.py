"""benchmarks/mutation.py (#26, #23): which test files run against a module's mutants.

A test file reaches a module by naming it, by importing it, or through a test helper
module (tests/**/*.py that is not a test file) that imports it; the triage plan tests
reach agentops.triage.plan only through tests/triage/plankit.py, and were never run
against its mutants before helpers were followed. The trees below are made up."""

from __future__ import annotations

import _thread
import os
import signal
import threading
import time
from pathlib import Path
from queue import Queue

import pytest

from benchmarks.mutation import Runner
from benchmarks.mutation import tests_for as select_tests

MODULE = "agentops.widget.gate"


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def test_a_test_file_reached_through_a_helper_module_is_selected(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "tests/widget/kit.py": "from agentops.widget.gate import check\n",
        "tests/widget/test_by_helper.py": "from tests.widget.kit import check\n",
        "tests/widget/test_by_helper_module.py": "from tests.widget import kit\n",
        "tests/widget/test_by_plain_import.py": "import tests.widget.kit\n",
        "tests/widget/test_direct.py": "from agentops.widget import gate\n",
        "tests/widget/test_named.py": "# pins agentops.widget.gate's rule\n",
        "tests/widget/test_unrelated.py": "from agentops.widget.other import check\n",
    })
    assert sorted(select_tests(MODULE, root)) == [
        "tests/widget/test_by_helper.py",
        "tests/widget/test_by_helper_module.py",
        "tests/widget/test_by_plain_import.py",
        "tests/widget/test_direct.py",
        "tests/widget/test_named.py",
    ]


def test_helpers_are_followed_one_level_and_only_helpers_that_reach_the_module(
        tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "tests/kit.py": "from agentops.widget.gate import check\n",
        "tests/outer.py": "from tests.kit import check\n",
        "tests/other_kit.py": "from agentops.widget.other import check\n",
        "tests/test_two_levels.py": "from tests.outer import check\n",
        "tests/test_other_helper.py": "from tests.other_kit import check\n",
        # A test file imported by another is not a helper: its importers are not picked.
        "tests/test_source.py": "import agentops.widget.gate\n",
        "tests/test_imports_a_test.py": "from tests.test_source import x\n",
        # A relative import is not followed (tests here import helpers absolutely).
        "tests/test_relative.py": "from .kit import check\n",
    })
    # tests/outer.py is itself a helper that mentions the module by dotted helper name
    # only ("tests.kit"), not agentops.widget.gate: two levels away, not selected.
    assert select_tests(MODULE, root) == ["tests/test_source.py"]


def test_the_plan_tests_that_use_plankit_run_against_plan_mutants() -> None:
    picked = select_tests("agentops.triage.plan")
    # These name no agentops module themselves; they reach the planner via plankit.
    for name in ("test_plan_issue23_module_round3.py", "test_step1_owner.py"):
        text = (Path(__file__).parent / "triage" / name).read_text(encoding="utf-8")
        assert "agentops.triage.plan" not in text
        assert f"tests/triage/{name}" in picked
    # The module's own test files first (shortest run to the first failure under -x).
    own = [t for t in picked if "plan" in Path(t).name]
    assert picked[:len(own)] == own


def test_an_interrupted_run_leaves_no_pytest_behind(tmp_path: Path) -> None:
    # Ctrl-C must end the pytest a run started (the --help: copies are cleaned up on
    # Ctrl-C too): the clean run of agentops.triage.plan's tests was left running, on
    # a machine others share, when the benchmark was interrupted during it.
    tree = tmp_path / "tree"
    tree.mkdir()
    pid_file = tree / "pid"
    (tree / "test_slow.py").write_text(
        "import os, time\n\n\ndef test_slow():\n"
        f"    open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n    time.sleep(120)\n")
    runner = Runner.__new__(Runner)  # one tree of our own instead of a copy of the repo
    runner.tmp, runner.free, runner.procs = tmp_path, Queue(), set()
    runner.free.put(tree)

    def interrupt_once_started() -> None:
        deadline = time.monotonic() + 60
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)
        _thread.interrupt_main()

    # main() installs Python's Ctrl-C handler (a job started in the background inherits
    # SIGINT ignored, and then interrupt_main() does nothing); this test skips main(), so
    # it installs the handler itself for the length of the run.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    threading.Thread(target=interrupt_once_started, daemon=True).start()
    try:
        with pytest.raises(KeyboardInterrupt):
            runner.run(["test_slow.py"], None, timeout=300)
    finally:
        signal.signal(signal.SIGINT, previous)
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
