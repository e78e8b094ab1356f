"""S-3d at the level pytest sees it (issue #9, finding 1): test classes no invocation
selects (own or imported), ``-k`` and ``-m`` evaluated as pytest does, runner modules
no workflow calls, commented-out invocations with their reason. Each on a small
fixture repository (match and no-match)."""

from __future__ import annotations

import dataclasses
import textwrap

import pytest

from agentops.scout.analyses import ci, testsel
from tests.scout import minirepo

WF = ".github/workflows/ci.yaml"


def _wf(*commands: str) -> str:
    body = "\n".join(f"          {c}" for c in commands)
    return f"jobs:\n  j:\n    steps:\n      - run: |\n{body}\n"


TRACE = """\
    import unittest
    class TestSmall(unittest.TestCase):
        def test_a(self):
            pass
    class TestLarge(unittest.TestCase):
        def test_b(self):
            pass
    class FsdpChecks(unittest.TestCase):  # no Test prefix: unittest collects it anyway
        def test_c(self):
            pass
"""


def test_k_filter_leaves_classes_out(tmp_path) -> None:
    inp = minirepo.build(tmp_path, head={
        "sub/tests/test_trace.py": TRACE,
        WF: _wf('pytest sub/tests/test_trace.py -v -k "TestSmall"')})
    res = ci.analyse(inp)
    [gap] = res.class_gaps
    assert gap.file == "sub/tests/test_trace.py"
    assert gap.classes == ("FsdpChecks", "TestLarge") and gap.selected == ("TestSmall",)
    assert gap.filters == (f"{WF}:5 -k 'TestSmall'",)
    assert res.missing == ()


def test_no_gap_when_every_class_is_selected_somewhere(tmp_path) -> None:
    inp = minirepo.build(tmp_path, head={
        "sub/tests/test_trace.py": TRACE,
        WF: _wf('pytest sub/tests/test_trace.py -k "TestSmall or Large"',
                "torchrun --nproc-per-node=2 -m pytest sub/tests/test_trace.py::FsdpChecks")})
    assert ci.analyse(inp).class_gaps == ()


def test_k_matches_directory_and_file_names_like_pytest(tmp_path) -> None:
    # "tests" is a parent directory name of every case: `-k "not tests"` selects nothing.
    cases = testsel.test_cases("sub/tests/test_trace.py", textwrap.dedent(TRACE))
    assert testsel.select(cases, node=[], keyword="not tests") == []
    assert {c.cls for c in testsel.select(cases, node=[], keyword="trace and Large")} == {
        "TestLarge"}


def test_marker_expression_selects_by_mark(tmp_path) -> None:
    src = """\
        import pytest
        class TestGpu:
            @pytest.mark.gpu
            def test_a(self):
                pass
        class TestCpu:
            def test_b(self):
                pass
    """
    inp = minirepo.build(tmp_path, head={"sub/tests/test_m.py": src,
                                         WF: _wf('pytest sub/tests/test_m.py -m "gpu"')})
    [gap] = ci.analyse(inp).class_gaps
    assert gap.classes == ("TestCpu",) and gap.filters == (f"{WF}:5 -m 'gpu'",)


def test_imported_class_never_selected_is_a_gap_not_coverage(tmp_path) -> None:
    host = """\
        from sub.tests.test_offload import TestOffload  # noqa: F401
        class TestSac:
            def test_s(self):
                pass
    """
    off = "class TestOffload:\n    def test_o(self):\n        pass\n"
    inp = minirepo.build(tmp_path, head={
        "sub/__init__.py": "", "sub/tests/__init__.py": "",
        "sub/tests/test_passes.py": host, "sub/tests/test_offload.py": off,
        WF: _wf("pytest sub/tests/test_passes.py::TestSac")})
    res = ci.analyse(inp)
    [gap] = res.class_gaps
    assert (gap.file, gap.classes, gap.hosts) == ("sub/tests/test_offload.py", ("TestOffload",),
                                                  ("sub/tests/test_passes.py",))
    # Selecting the imported class through its host covers it.
    inp2 = minirepo.build(tmp_path / "b", head={
        "sub/__init__.py": "", "sub/tests/__init__.py": "",
        "sub/tests/test_passes.py": host, "sub/tests/test_offload.py": off,
        WF: _wf("pytest sub/tests/test_passes.py")})
    res2 = ci.analyse(inp2)
    assert res2.class_gaps == () and res2.missing == ()


def test_runner_module_no_workflow_calls(tmp_path) -> None:
    runner = ("def check():\n    assert 1\n\ndef main():\n    check()\n\n"
              "if __name__ == '__main__':\n    main()\n")
    helper = "def util():\n    return 1\n"  # no __main__ block: not a runner
    inp = minirepo.build(tmp_path, head={
        "sub/tests/run_extra.py": runner, "sub/tests/helpers.py": helper,
        "sub/tests/run_main.py": runner,
        WF: _wf("python -m sub.tests.run_main --ngpu 8", "python -m pip install x")})
    res = ci.analyse(inp)
    assert [r.file for r in res.runner_gaps] == ["sub/tests/run_extra.py"]
    assert res.runner_gaps[0].module == "sub.tests.run_extra"
    # `python -m pip` is not an invocation of the project's code.
    assert [i.targets for i in res.invocations] == [("sub.tests.run_main",)]


def test_a_runner_an_unlisted_workflow_runs_is_no_gap(tmp_path) -> None:
    """#22 (set 17 kind c): the folder's own workflow, written after the target was
    drafted (not in its ``workflows``), runs one runner as a module and another through
    a shell script a step calls: both run in CI. A runner nothing reaches stays a gap."""
    runner = ("def check():\n    assert 1\n\ndef main():\n    check()\n\n"
              "if __name__ == '__main__':\n    main()\n")
    own = ".github/workflows/sub_gpu.yaml"
    inp = minirepo.build(tmp_path, head={
        "sub/tests/run_a.py": runner, "sub/tests/run_b.py": runner,
        "sub/tests/run_c.py": runner, "sub/tests/run_main.py": runner,
        "sub/tests/go.sh": "set -e\npython sub/tests/run_b.py --fast\n",
        WF: _wf("python -m sub.tests.run_main"),
        own: _wf("python -m sub.tests.run_a out --ngpu 8", "bash sub/tests/go.sh")})
    res = ci.analyse(inp)
    assert [r.file for r in res.runner_gaps] == ["sub/tests/run_c.py"]


def test_runners_run_anywhere_reads_past_pytest_steps_and_only_workflows(tmp_path) -> None:
    """rev42b (mutation): in the unlisted workflow a pytest step or a script that is not
    there before the runner's does not end the reading (the runner is reached: no gap);
    a YAML file outside .github/workflows shaped like a workflow runs nothing in CI (its
    runner stays a gap). A Python runner's own text is not read as shell commands
    (its usage line names another runner, which stays a gap)."""
    runner = "def main():\n    assert 1\n\nif __name__ == '__main__':\n    main()\n"
    usage = '"""Usage:\npython sub/tests/run_b.py\n"""\n' + runner
    inp = minirepo.build(tmp_path, head={
        "sub/tests/run_a.py": usage, "sub/tests/run_b.py": runner,
        "sub/tests/test_x.py": "def test_x():\n    assert 1\n",
        WF: _wf("pytest sub/tests/test_x.py"),
        ".github/workflows/sub_nightly.yml": _wf("pytest sub/tests/test_x.py",
                                                 "python sub/tests/gone.py",
                                                 "python sub/tests/run_a.py"),
        "sub/ci_template.yaml": _wf("python sub/tests/run_b.py")})
    assert [r.file for r in ci.analyse(inp).runner_gaps] == ["sub/tests/run_b.py"]


def test_a_bare_pytest_of_another_workflow_collects_the_folders_tests(tmp_path) -> None:
    """rev42b (mutation): a bare ``pytest`` (no path) in a workflow the target does not
    list collects from the rootdir, so the folder's test file runs in CI; with no such
    step it is missing."""
    test = "def test_x():\n    assert 1\n"
    head = {"sub/tests/test_x.py": test, WF: _wf("echo start")}
    inp = minirepo.build(tmp_path, head={**head, ".github/workflows/all.yml": _wf("pytest")})
    assert "sub/tests/test_x.py" not in ci.analyse(inp).missing
    (tmp_path / "b").mkdir()
    inp = minirepo.build(tmp_path / "b", head=head)
    assert "sub/tests/test_x.py" in ci.analyse(inp).missing


def test_classes_another_workflows_pytest_selects_are_run(tmp_path) -> None:
    """#22 (set 22 kind b): a file counted as run because a workflow the target does not
    list collects it has the classes that invocation selects run; only those it leaves
    out are a class gap."""
    head = {"sub/tests/test_trace.py": TRACE, WF: _wf("echo start")}
    other = ".github/workflows/renamed.yml"
    whole = ci.analyse(minirepo.build(tmp_path / "a", head={
        **head, other: _wf("pytest sub/tests/test_trace.py -v")}))
    assert "sub/tests/test_trace.py" not in whole.missing and whole.class_gaps == ()
    some = ci.analyse(minirepo.build(tmp_path / "b", head={
        **head, other: _wf("pytest sub/tests/test_trace.py -k TestSmall")}))
    [gap] = some.class_gaps
    assert gap.classes == ("FsdpChecks", "TestLarge")


def test_commented_out_invocation_is_named_with_its_reason(tmp_path) -> None:
    wf = _wf("# TODO: re-enable once the numerics fix lands",
             "# pytest sub/tests/test_num.py::TestNum -v",
             "pytest sub/tests/test_ok.py")
    ok = "def test_ok():\n    pass\n"
    num = "class TestNum:\n    def test_n(self):\n        pass\n"
    inp = minirepo.build(tmp_path, head={"sub/tests/test_num.py": num,
                                         "sub/tests/test_ok.py": ok, WF: wf})
    res = ci.analyse(inp)
    [missing] = res.missing_detail
    assert missing.file == "sub/tests/test_num.py" and missing.line == 1
    assert missing.disabled == (f"{WF}:6 (TODO: re-enable once the numerics fix lands)",)


def test_a_workflow_that_does_not_parse_is_not_an_all_clear(tmp_path) -> None:
    from agentops.scout.itemize import clear

    inp = minirepo.build(tmp_path, head={"sub/tests/test_a.py": "def test_a():\n  pass\n",
                                         WF: "jobs: [unclosed\n"})
    res = ci.analyse(inp)
    assert res.workflows_read == 0 and res.parse_errors
    texts = [t for _s, t in clear._ci(inp, {"ci": res})]
    assert texts and all("not checked" in t for t in texts)


_MAIN = "\n\nif __name__ == '__main__':\n    main()\n"


def test_a_runner_is_a_script_whose_tests_pytest_would_not_collect(tmp_path) -> None:
    """#22 defect 1: a module with a ``__main__`` block is a runner only when it defines
    tests and pytest would not collect it by name; a data script is no runner."""
    checks = "def compare_losses():\n    assert 1\n\ndef main():\n    compare_losses()" + _MAIN
    data = "def pack_dataset(dst):\n    open(dst, 'w')\n\ndef main():\n    pack_dataset('x')" \
        + _MAIN
    pytest_named = "def test_a():\n    assert 1\n\ndef main():\n    test_a()" + _MAIN
    inp = minirepo.build(tmp_path, head={
        "sub/tests/numerics_runner.py": checks,       # match: defines checks, not collected
        "sub/tests/assets/pack_data.py": data,         # no tests: no runner
        "sub/tests/test_main_block.py": pytest_named,  # pytest's name: a test file
        WF: _wf("pytest sub/tests/test_main_block.py")},
        target="test_glob: 'test_only_this*.py'\n")
    res = ci.analyse(inp)
    assert [r.file for r in res.runner_gaps] == ["sub/tests/numerics_runner.py"]


def test_a_module_some_workflow_collects_is_run(tmp_path) -> None:
    """#22 defect 1: a workflow the target does not list that collects the module with
    pytest runs it; neither a runner gap nor a missing test file."""
    checks = "def test_x():\n    assert 1\n\ndef main():\n    test_x()" + _MAIN
    other = ("name: unit\non: [push]\njobs:\n  t:\n    runs-on: ubuntu-latest\n"
             "    steps:\n      - run: pytest sub/tests/run_checks.py sub/tests/test_u.py\n")
    head = {"sub/tests/run_checks.py": checks, "sub/tests/test_u.py": "def test_u():\n    pass\n",
            WF: _wf("python -m other.thing")}
    no_match = ci.analyse(minirepo.build(tmp_path / "a", head=head))
    assert [r.file for r in no_match.runner_gaps] == ["sub/tests/run_checks.py"]
    assert no_match.missing == ("sub/tests/test_u.py",)
    res = ci.analyse(minirepo.build(tmp_path / "b", head={
        **head, ".github/workflows/unit.yaml": other}))
    assert res.runner_gaps == () and res.missing == ()
    assert [c.workflow for c in res.covered if c.file == "sub/tests/test_u.py"] == [
        ".github/workflows/unit.yaml"]


def test_runner_scan_honours_a_shared_tests_folder(tmp_path) -> None:
    """#22 defect 1: in a tests folder shared with core, a runner is the sub-project's
    only when it refers to it."""
    mine = "from sub import model\n\ndef check():\n    assert model\n\ndef main():\n    check()" \
        + _MAIN
    core = "import core\n\ndef check():\n    assert core\n\ndef main():\n    check()" + _MAIN
    inp = minirepo.build(tmp_path, head={
        "sub/__init__.py": "", "sub/model.py": "", "tests/run_sub.py": mine,
        "tests/run_core.py": core, WF: _wf("python -m other.thing")})
    inp = dataclasses.replace(inp, target=dataclasses.replace(inp.target, tests_dir="tests"))
    assert [r.file for r in ci.analyse(inp).runner_gaps] == ["tests/run_sub.py"]


@pytest.mark.parametrize(("expr", "why"), [
    ("not " * 5000 + "TestSmall", "more than 512 words"),
    ("(" * 5000 + "TestSmall" + ")" * 5000, "more than 512 words"),
    ("not " * 40 + "TestSmall", "deeper than 32 levels"),
    ("(" * 40 + "TestSmall" + ")" * 40, "deeper than 32 levels"),
    ("not (" * 20 + "TestSmall" + ")" * 20, "deeper than 32 levels"),
])
def test_a_k_expression_past_the_bounds_is_not_checked_never_a_recursion_error(
        tmp_path, expr, why) -> None:
    # Issue #21 item 7: the checkout's workflow is someone else's text; the evaluator
    # is recursive, so depth and size are bounded and the step is reported "not checked".
    from agentops.scout.itemize import clear

    inp = minirepo.build(tmp_path, head={
        "sub/tests/test_trace.py": TRACE,
        WF: _wf(f"pytest sub/tests/test_trace.py -k '{expr}'",
                f"# pytest sub/tests/test_trace.py -m '{expr}'")})
    res = ci.analyse(inp)
    [error] = res.parse_errors
    assert error.startswith(f"{WF}: -k of the pytest command at line 5 not checked (")
    assert why in error
    # Nothing is claimed from a selection that was never evaluated.
    assert res.empty_steps == () and res.class_gaps == () and res.missing == ()
    assert [c.how for c in res.covered] == ["not checked"]
    texts = [t for _s, t in clear._ci(inp, {"ci": res})]
    assert any("not checked" in t and why in t for t in texts)
    with pytest.raises(testsel.UncheckedExpression, match=why.split()[-1]):
        testsel.evaluate(expr, lambda _w: True)


def test_expressions_within_the_bounds_still_evaluate_like_pytest() -> None:
    assert testsel.evaluate("not " * 32 + "a", lambda w: w == "a") is True
    assert testsel.evaluate("(" * 32 + "a" + ")" * 32, lambda w: w == "a") is True
    assert testsel.evaluate("not (a or b) and c", {"c"}.__contains__) is True
    assert testsel.evaluate(" or ".join(f"w{i}" for i in range(256)), {"w255"}.__contains__)


SKIPPED = """\
    import pytest
    @pytest.mark.skip(reason="broken")
    def test_x():
        pass
"""


def test_an_empty_step_of_another_folder_is_not_this_sub_projects_finding(tmp_path) -> None:
    # (#22) A configured workflow also runs other folders' tests; a step that selects
    # only skipped tests of another folder is theirs to fix. The same step on the
    # sub-project's own tests is still reported.
    inp = minirepo.build(tmp_path, head={
        "sub/tests/test_trace.py": TRACE,
        "sub/tests/test_off.py": SKIPPED,
        "other/tests/test_off.py": SKIPPED,
        WF: _wf("pytest sub/tests/test_trace.py -v",
                "pytest other/tests/test_off.py -v",
                "pytest sub/tests/test_off.py -v")})
    res = ci.analyse(inp)
    assert [e.command for e in res.empty_steps] == ["pytest sub/tests/test_off.py -v"]


def _missing_items(tmp_path, head):
    from agentops.scout.itemize import tests as test_items
    inp = minirepo.build(tmp_path, head=head)
    res = {"ci": ci.analyse(inp), "coverage_gaps": (), "model_parity": (),
           "untested_settings": (), "passes_without_tests": (), "graph_passes": (),
           "configs_without_tests": ()}
    return [i for i in test_items.items(inp, res) if "no CI workflow" in i.title]


def test_uncollected_files_of_one_folder_are_one_action_with_per_file_facts(tmp_path):
    """#22: a folder of uncollected test files is ONE action (one step collects the
    folder), each file with file:line in where/facts; the file CI already runs by
    selected classes is ignored by that step, and a commented-out file keeps its own
    item (its fix is to uncomment it)."""
    t = "import os\n\n\ndef test_x():\n    pass\n"
    cls = "class TestA:\n    def test_a(self):\n        pass\n\nclass TestB:\n" \
          "    def test_b(self):\n        pass\n"
    wf = _wf("pytest sub/tests/test_sel.py -k TestA -v",
             "# TODO: flaky on CPU", "# pytest sub/tests/test_off.py -v",
             "python -m sub.tests.run_checks")
    runner = "def check():\n    assert 1\n\nif __name__ == '__main__':\n    check()\n"
    head = {"sub/tests/test_a.py": t, "sub/tests/test_b.py": t, "sub/tests/test_c.py": t,
            "sub/tests/test_sel.py": cls, "sub/tests/test_off.py": t,
            "sub/tests/run_checks.py": runner, WF: wf}
    items = _missing_items(tmp_path, head)
    [group] = [i for i in items if "test files in" in i.title]
    assert group.title.startswith("3 test files in `sub/tests/` run in no CI workflow")
    assert group.facts == ("test_a.py:4", "test_b.py:4", "test_c.py:4")
    assert group.where == "sub/tests/test_a.py:4, sub/tests/test_b.py:4, sub/tests/test_c.py:4"
    assert group.files == ("sub/tests/test_a.py", "sub/tests/test_b.py", "sub/tests/test_c.py")
    assert "`pytest sub/tests --ignore=sub/tests/test_sel.py " \
           "--ignore=sub/tests/test_off.py -v`" in group.fix
    [off] = [i for i in items if i is not group]
    assert off.title.startswith("`sub/tests/test_off.py` runs in no CI workflow (commented")
    # A later night with one file fixed keeps the id and says which file changed.
    from agentops.scout import items as reconcile_items
    assert reconcile_items._what_changed(group.facts, group.facts[:2]) == \
        ": no longer test_c.py:4"


def test_a_lone_uncollected_file_keeps_its_own_item(tmp_path):
    t = "def test_x():\n    pass\n"
    head = {"sub/tests/test_a.py": t, "sub/other/test_b.py": t,
            "sub/tests/test_run.py": t, WF: _wf("pytest sub/tests/test_run.py -v")}
    import dataclasses as dc
    inp = minirepo.build(tmp_path, head=head)
    inp = dc.replace(inp, target=dc.replace(inp.target, tests_dir="sub"))
    from agentops.scout.itemize import tests as test_items
    res = {"ci": ci.analyse(inp), "coverage_gaps": (), "model_parity": (),
           "untested_settings": (), "passes_without_tests": (), "graph_passes": (),
           "configs_without_tests": ()}
    items = [i for i in test_items.items(inp, res) if "no CI workflow" in i.title]
    assert sorted(i.title for i in items) == [
        "`sub/other/test_b.py` runs in no CI workflow",
        "`sub/tests/test_a.py` runs in no CI workflow"]


def test_a_long_fact_list_is_compared_as_it_was_stored():
    """The hidden block keeps MAX_FACTS facts of FACT_CHARS each: the next night
    compares within those bounds, so an unchanged long list is not "changed"."""
    from agentops.scout import items as reconcile_items
    from agentops.scout.model import FACT_CHARS, MAX_FACTS
    facts = tuple(f"test_{n:03d}_{'x' * FACT_CHARS}.py:1" for n in range(MAX_FACTS + 5))
    stored = tuple(f[:FACT_CHARS] for f in facts[:MAX_FACTS])
    assert reconcile_items._what_changed(stored, facts) == ""
    assert reconcile_items._what_changed(stored[1:], facts) == f": now also {stored[0]}"


def test_a_later_night_says_which_files_of_the_folder_item_were_fixed_or_added(tmp_path):
    """The folder item keeps its id while its files change; the carried status names
    the file fixed since and the file added since (from the per-file facts)."""
    from agentops.scout import items as reconcile_items
    from agentops.scout import render
    from agentops.scout.model import Baseline, PriorPayload, Report
    t = "def test_x():\n    pass\n"
    night1 = {"sub/tests/test_a.py": t, "sub/tests/test_b.py": t, "sub/tests/test_c.py": t,
              WF: _wf("pytest sub/other -v")}
    [first] = _missing_items(tmp_path / "n1", night1)
    rep = Report(date="2026-03-06", target="mini", baseline=Baseline("2026-03-03", "x", None),
                 head="h", items=(first,), resolved=(), suppressed=(), analyses={})
    block = render.payload(rep)
    prior = PriorPayload(date="2026-03-06", head="h", items=tuple(block["items"]))
    night2 = {**night1, "sub/tests/test_c.py": None, "sub/tests/test_d.py": t}
    [second] = _missing_items(tmp_path / "n2", night2)
    assert second.id == first.id
    [carried], resolved, _ = reconcile_items.reconcile([second], (prior,), "2026-03-07")
    assert resolved == [] and carried.kind == "carried"
    assert carried.status == ("still open, changed since 2026-03-06: now also test_d.py:1; "
                              "no longer test_c.py:1")


def test_each_command_is_located_on_its_own_line() -> None:
    """#22: two steps sharing a long prefix (``pytest …/test_numerics.py::A`` and
    ``…::B``), or one command inside a longer line, each point at their own line."""
    from agentops.scout.analyses import workflows

    text = ("jobs:\n  t:\n    steps:\n      - run: |\n"
            "          CUDA_HOME=/x NCCL_X=0 python -m pkg.tests.integration --suite a\n"
            "          pytest pkg/tests/test_numerics.py::TestSimple -v\n"
            "          NCCL_X=0 python -m pkg.tests.integration --suite b\n"
            "          pytest pkg/tests/test_numerics.py::TestAutoParallel::test_llama3 -v\n")
    assert workflows.locate(text, "pytest pkg/tests/test_numerics.py::TestAutoParallel::"
                                  "test_llama3 -v") == 8
    assert workflows.locate(text, "NCCL_X=0 python -m pkg.tests.integration --suite b") == 7
    # No match elsewhere: the first command is still found where it is, and a
    # command folded differently falls back to its start.
    assert workflows.locate(text, "pytest pkg/tests/test_numerics.py::TestSimple -v") == 6
    folded = ("jobs:\n  t:\n    steps:\n      - run: >\n"
              "          pytest pkg/tests/test_numerics.py::TestAutoParallel::test_llama3\n"
              "          -v --maxfail 1\n")
    assert workflows.locate(folded, "pytest pkg/tests/test_numerics.py::TestAutoParallel::"
                                    "test_llama3 -v --maxfail 1") == 5
