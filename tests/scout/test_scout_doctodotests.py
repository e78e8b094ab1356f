"""#22 defect 7 (S-5): a doc's to-do item that asks for tests or CI, while a shared test
launches the sub-project and a workflow runs that test, is possibly stale; the item and
both file:line are named. Nothing without the workflow, for a commented-out test case,
for an item naming more than testing, or for an item not marked as to do. Also the
list scans' fence rule (a one-line ```cmd``` opens no block) and the "To be added"
heading as a to-do section. Fixture repositories, match and no-match."""

from __future__ import annotations

from agentops.scout import gitrepo
from agentops.scout.analyses import doclists, doctodotests, testowner
from tests import watchdog
from tests.scout import minirepo

README = """\
# Sub

## Download
```python scripts/download.py --repo x```

## To be added
- Modeling
    - CP is not supported because of the RoPE layout.
- Testing
    - Verify the learning rate against published runs
    - CI integration
"""
CASES = """\
CASES = [
    ("--module sub --config sub_debug", "sub_fsdp"),
]
"""
WORKFLOW = """\
jobs:
  run:
    steps:
      - run: |
          python -m tests.integration_tests.run_tests --test_suite models out --ngpu 8
"""


def _build(tmp_path, readme=README, cases=CASES, workflow=WORKFLOW):
    head = {"sub/__init__.py": "", "sub/parallelize.py": "def p(m):\n    return m\n",
            "sub/README.md": readme, "tests/__init__.py": "",
            "tests/integration_tests/__init__.py": "",
            "tests/integration_tests/models.py": cases,
            "tests/integration_tests/run_tests.py": "import sys\n",
            ".github/workflows/models.yaml": workflow}
    return minirepo.build(tmp_path, head=head, target="docs: [sub/README.md]\n")


def _check(tmp_path, readme=README, cases=CASES, workflow=WORKFLOW):
    inp = _build(tmp_path, readme, cases, workflow)
    return [(p.file, p.line, p.problem) for p in doctodotests.check(inp)]


def test_a_ci_todo_is_stale_when_a_workflow_runs_a_test_that_launches_the_folder(
        tmp_path) -> None:
    assert _check(tmp_path) == [(
        "sub/README.md", 11,
        "`CI integration` is listed as not done, but tests/integration_tests/models.py:2 "
        "launches it with `--module sub` and .github/workflows/models.yaml:5 runs that "
        "test in CI; possibly stale: update the list if it is done")]


def test_an_import_by_a_test_the_workflow_names_by_path_is_evidence_too(tmp_path) -> None:
    got = _check(tmp_path, cases="from sub.parallelize import p\n\np(1)\n",
                 workflow="jobs:\n  t:\n    steps:\n      - run: python "
                          "tests/integration_tests/models.py\n")
    assert [(line, "imports `sub`" in text and "models.yaml:4" in text)
            for _f, line, text in got] == [(11, True)]


def test_no_workflow_running_the_test_means_nothing_is_said(tmp_path) -> None:
    assert _check(tmp_path, workflow="jobs:\n  t:\n    steps:\n      - run: pytest "
                                     "tests/unit_tests\n") == []
    # A workflow line that is a comment runs nothing.
    assert _check(tmp_path / "c", workflow="jobs:\n  t:\n    steps:\n      # - run: python "
                                           "-m tests.integration_tests.run_tests models\n"
                                           "      - run: echo\n") == []


def test_a_commented_out_case_is_no_evidence(tmp_path) -> None:
    assert _check(tmp_path, cases='CASES = [\n    # ("--module sub --config d", "x"),\n]\n'
                  ) == []


def test_items_naming_more_than_testing_or_not_pending_are_left_alone(tmp_path) -> None:
    assert _check(tmp_path, readme="# Sub\n\n## To be added\n- Test against published "
                                   "benchmarks\n- CI for the MoE flavors\n") == []
    assert _check(tmp_path / "b", readme="# Sub\n\n## Status\n- CI integration\n") == []
    assert _check(tmp_path / "c", readme="# Sub\n\n## Roadmap\n- [x] CI integration\n") == []


def test_pending_mark_outside_a_todo_section_counts(tmp_path) -> None:
    got = _check(tmp_path, readme="# Sub\n\n| What | Status |\n|---|---|\n"
                                  "| Unit tests | 🚧 |\n")
    assert [(line, text.startswith("`Unit tests   🚧` is listed as not done"))
            for _f, line, text in got] == [(5, True)]


def test_one_line_fence_opens_no_block_and_to_be_added_is_a_todo_heading(tmp_path) -> None:
    readme = "# Sub\n\n```bash run.sh```\n\n## To be added\n- CP support\n"
    inp = minirepo.build(tmp_path, head={
        "sub/parallelize.py": "from core.dist import apply_cp\n\n\ndef p(m):\n"
                              "    apply_cp(m)\n",
        "core/__init__.py": "", "core/dist.py": "def apply_cp(m):\n    return m\n",
        "sub/README.md": readme}, target="docs: [sub/README.md]\n")
    assert [(p.line, p.problem.split(",")[0]) for p in doclists.check(inp)] == [
        (6, "`CP support` is listed as not done")]
    assert doclists.is_fence("```") and doclists.is_fence("```python")
    assert not doclists.is_fence("```python scripts/x.py```")


def test_hostile_lines_are_read_in_bounded_time(tmp_path) -> None:
    """A test file or workflow of dash runs and flag-like repeats, long single lines and
    many short ones: each launch pattern search stays linear (``--[\\w.-]+`` before
    the name backtracked quadratically on a run of dashes: 16,000 took 36 s)."""
    hostile = "\n".join(["-" * 200_000, "--a" * 600, *(["--a" * 600] * 100)]) + "\n"
    # Within the cap on a Python file (a longer test file is not read at all).
    assert len(hostile + CASES) <= gitrepo.MAX_PYTHON_CHARS
    got = watchdog.within(watchdog.SECONDS, lambda: _check(
        tmp_path, cases=hostile + CASES, workflow=WORKFLOW + "# " + "-" * 200_000 + "\n"))
    assert [line for _f, line, _t in got] == [11]
    launch = testowner.launch_pattern("sub")
    assert watchdog.within(watchdog.SECONDS, lambda: launch.search("-" * 200_000)) is None
    assert launch.search('"--module", "sub"') and not launch.search("---module sub")
    assert launch.search("--module=sub") and not launch.search("--module subx")


def test_the_no_own_tests_fyi_reads_a_dash_run_in_bounded_time(tmp_path) -> None:
    """The FYI "a shared test launches it by name" (itemize/tests) searches whole test
    files with the shared launch pattern: a dash run must not make it backtrack, and
    the launching file is still named."""
    from agentops.scout.itemize import tests as itemize_tests

    inp = minirepo.build(tmp_path, head={
        "sub/__init__.py": "", "sub/train.py": "def main():\n    return 0\n",
        "tests/integration_tests/models.py": "-" * 200_000 + "\n" + CASES},
        target="docs: [sub/README.md]\n")
    items = watchdog.within(watchdog.SECONDS, lambda: itemize_tests._no_tests(inp))
    assert any("tests/integration_tests/models.py" in str(i) for i in items)


def test_a_run_of_unclosed_openers_in_a_todo_item_is_read_in_linear_time(tmp_path) -> None:
    """An item's code spans and asides are blanked before its words are judged; the
    regex that did it rescanned to the line's end from every unclosed "(" or "<"
    (20,000: 2 s, quadratic). The item is judged the same way after the run."""
    for n, opener in enumerate("(<`"):
        readme = README.replace("- CI integration", "- CI integration " + opener * 200_000)
        where = tmp_path / str(n)
        got = watchdog.within(watchdog.SECONDS, lambda readme=readme, where=where: _check(
            where, readme=readme))
        assert [line for _f, line, _t in got] == [11], opener
    assert doctodotests._without_asides("CI (see `x)` y) <a> z ((") == "CI  ` y)   z (("


def test_a_doc_of_many_todo_items_and_headings_is_read_in_linear_time(tmp_path) -> None:
    """Each item looked for the next line over a copy of the rest of the doc, and each
    heading for its section's end over a copy of the later headings: both quadratic
    (200,000 items of a 4 MB doc: 40 s for the item scan alone). Every item is still
    judged, and a group label still tells its items apart."""
    lines = ["- [ ] CI integration"] * 200_000
    labels = watchdog.within(watchdog.SECONDS, lambda: [
        doctodotests._is_group_label(lines, n) for n in range(1, len(lines) + 1)])
    assert not any(labels)
    assert doctodotests._is_group_label(["- Testing", "", "    - CI"], 1)
    heads = ["## TODO", "- unit tests"] * 200_000
    sections = watchdog.within(watchdog.SECONDS, lambda: doclists._sections(heads))
    assert sections[:2] == [(1, 3, "## TODO"), (3, 5, "## TODO")] and len(sections) == 200_000
    headed = "## TODO\n- unit tests\n" * 20_000
    got = watchdog.within(watchdog.SECONDS, lambda: _check(tmp_path, readme=headed))
    assert [line for _f, line, _t in got][:2] == [2, 4] and len(got) == 20_000


def test_a_hostile_todo_item_is_rendered_inert(tmp_path) -> None:
    """Security (untrusted doc text): the finding quotes the to-do item, whose asides may
    carry a mention, a link, HTML or a backtick that ends the quote's code span early;
    the report line shows them as inert text."""
    import re

    from agentops.scout import render
    from agentops.scout.analyses.docs import DocProblem
    from agentops.scout.itemize import docs as itemize_docs

    readme = README.replace("- CI integration", "- CI integration (` @evil "
                            "<img src=x> [y](https://evil.example) #12 `)")
    inp = _build(tmp_path, readme)
    problems = doctodotests.check(inp)
    assert [p.line for p in problems] == [11]
    items = itemize_docs.items(inp, {"doc_inaccuracies": [
        DocProblem(p.file, p.line, p.problem) for p in problems]})
    line = render._plain(items[0])
    shown = re.sub(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", "", line)
    assert "CI integration" in line and "evil" in shown
    for live in ("@evil", "[y](", "https://", "<img", " #12"):
        assert live not in shown, live


def _todo(item: str) -> str:
    return f"# Sub\n\n## To be added\n- {item}\n"


def test_a_testing_item_with_to_do_words_or_spelled_out_kinds_is_only_testing(
        tmp_path) -> None:
    # To-do words ("add", "more", "for") and "end to end" written with spaces leave
    # nothing but testing: each item is named.
    for k, item in enumerate(("Add unit tests", "Add more end to end tests",
                              "More regression tests")):
        got = _check(tmp_path / str(k), readme=_todo(item))
        assert [(line, text.split(" is listed")[0]) for _f, line, text in got] == [
            (4, f"`{item}`")], item


def test_a_workflow_running_the_package_runner_by_its_path_runs_the_test(tmp_path) -> None:
    # The runner named by its file path with the test file's stem as its argument.
    got = _check(tmp_path, workflow="jobs:\n  t:\n    steps:\n      - run: python "
                                    "tests/integration_tests/run_tests.py --test_suite "
                                    "models out\n")
    assert [(line, "models.yaml:4 runs that test" in text) for _f, line, text in got] == [
        (11, True)]
    # The same folder with another stem runs another suite.
    assert _check(tmp_path / "b", workflow="jobs:\n  t:\n    steps:\n      - run: python "
                                           "tests/integration_tests/run_tests.py "
                                           "--test_suite features out\n") == []


def test_lines_longer_than_2000_characters_are_not_read(tmp_path) -> None:
    limit = 2_000  # the bound, written out: a test line or a workflow step, not data
    line = "from sub.parallelize import p  # "
    for k, size in enumerate((limit, limit + 1)):
        cases = line + "x" * (size - len(line)) + "\n"
        got = _check(tmp_path / str(k), cases=cases)
        assert len(got) == (1 if size <= limit else 0), size


def test_at_most_400_shared_test_files_are_read(tmp_path) -> None:
    # The folder is used only by the last shared test file in path order: found when it
    # is the 400th (the bound, written out), not when one more file comes before it.
    limit = 400
    head = {"sub/__init__.py": "", "sub/README.md": README,
            ".github/workflows/t.yaml": "jobs:\n  t:\n    steps:\n      - run: pytest "
                                        "tests/test_z.py\n"}
    head |= {f"tests/test_a{i:04d}.py": "import os\n" for i in range(limit - 1)}
    head["tests/test_z.py"] = "import os\nfrom sub import p\n"
    inp = minirepo.build(tmp_path / "at", head=head, target="docs: [sub/README.md]\n")
    found = doctodotests.exercised(inp)
    assert found is not None and (found.test, found.line) == ("tests/test_z.py", 2)
    head["tests/test_b.py"] = "import os\n"
    inp = minirepo.build(tmp_path / "over", head=head, target="docs: [sub/README.md]\n")
    assert doctodotests.exercised(inp) is None


def test_a_workflow_running_the_test_by_its_dotted_module_runs_the_test(tmp_path) -> None:
    # `python -m pkg.mod` runs pkg/mod.py as surely as its path does.
    got = _check(tmp_path, workflow="jobs:\n  t:\n    steps:\n      - run: python -m "
                                    "tests.integration_tests.models --ngpu 8\n")
    assert [(line, "models.yaml:4 runs that test" in text) for _f, line, text in got] == [
        (11, True)]
    # A longer dotted name that only starts like it is another module.
    for k, other in enumerate(("tests.integration_tests.models_fast",
                               "tests.integration_tests.models.extra")):
        assert _check(tmp_path / str(k), workflow="jobs:\n  t:\n    steps:\n      - run: "
                                                  f"python -m {other}\n") == [], other
