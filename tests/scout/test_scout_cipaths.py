"""#22: CI that does not watch the code it tests — a workflow that runs the
sub-project's tests but whose push/pull-request ``paths`` / ``paths-ignore`` filters
would not trigger on the sub-project's own files (an action) or on core files it
copies, subclasses or imports (an opportunity), naming the workflow file:line and an
example file; no finding without a paths filter. And no false all-clear on CI: a
sub-project with no tests of its own gets an opportunity, never "every test is
reached". Synthetic fixture repositories, match and no-match each."""

from __future__ import annotations

from agentops.scout.analyses import ci, cipaths, run_all
from agentops.scout.itemize import build
from tests.scout import minirepo

CORE = {"core/__init__.py": "", "core/base.py": "class Base:\n    def run(self):\n"
        "        return 1\n", "core/util.py": "def helper():\n    return 1\n"}
SUB = {"sub/__init__.py": "",
       "sub/model.py": "from core.base import Base\nfrom core.util import helper\n\n\n"
                       "class Mine(Base):\n    def run(self):\n        return helper()\n",
       "sub/tests/__init__.py": "",
       "sub/tests/test_model.py": "from sub.model import Mine\n\n\n"
                                  "def test_run():\n    assert Mine().run() == 1\n"}


def _wf(on: str, run: str = "pytest sub/tests") -> str:
    return f"name: ci\n{on}jobs:\n  t:\n    runs-on: x\n    steps:\n      - run: {run}\n"


def _inp(tmp_path, workflow: str, *, files: dict[str, str] | None = None):
    head = {**CORE, **(SUB if files is None else files),
            ".github/workflows/ci.yaml": workflow}
    return minirepo.build(tmp_path, base=CORE, head=head)


def _gaps(inp):
    return cipaths.analyse(inp, ci.analyse(inp))


def test_github_pattern_rules() -> None:
    assert cipaths.matches(["sub/**"], "sub/a/b.py")
    assert not cipaths.matches(["sub/*"], "sub/a/b.py")
    assert cipaths.matches(["**.py"], "x/y.py")
    assert cipaths.matches(["**/base.py"], "base.py")
    assert not cipaths.matches(["sub/**", "!sub/tests/**"], "sub/tests/t.py")
    assert cipaths.matches(["docs/file?.md"], "docs/file.md")  # ? : zero or one of "e"
    assert cipaths.triggers({"paths-ignore": ["docs/**"]}, "core/a.py")
    assert not cipaths.triggers({"paths-ignore": ["core/**"]}, "core/a.py")
    assert cipaths.triggers(None, "anything")


def test_core_files_the_sub_project_subclasses_are_not_watched(tmp_path) -> None:
    on = ("on:\n  push:\n    paths:\n      - 'sub/**'\n  pull_request:\n    paths:\n"
          "      - 'sub/**'\n")
    inp = _inp(tmp_path, _wf(on))
    [gap] = _gaps(inp)
    assert (gap.workflow, gap.line, gap.own) == (".github/workflows/ci.yaml", 4, ())
    assert gap.core == (("core/base.py", "subclassed (Base)"),
                        ("core/util.py", "imported (helper)"))
    [item] = [i for i in build(inp, run_all(inp)) if i.id.startswith("") and
              "does not trigger" in i.title]
    assert item.kind == "opportunity" and "ci.yaml:4" in item.title
    assert "`core/base.py` (subclassed (Base))" in item.title


def test_the_sub_projects_own_files_not_watched_is_an_action(tmp_path) -> None:
    on = "on:\n  pull_request:\n    paths-ignore:\n      - 'sub/**'\n"
    inp = _inp(tmp_path, _wf(on))
    [gap] = _gaps(inp)
    assert gap.own[0] == "sub/__init__.py" and gap.filters == "paths-ignore"
    [item] = [i for i in build(inp, run_all(inp)) if "does not trigger" in i.title]
    assert item.kind == "action" and item.priority == "P1"
    assert item.where == ".github/workflows/ci.yaml:4"


def test_no_paths_filter_or_a_filter_covering_everything_is_no_finding(tmp_path) -> None:
    assert _gaps(_inp(tmp_path / "a", _wf("on: [push, pull_request]\n"))) == []
    on = ("on:\n  pull_request:\n    paths:\n      - 'sub/**'\n      - 'core/**'\n"
          "  schedule:\n    - cron: '0 0 * * *'\n")
    assert _gaps(_inp(tmp_path / "b", _wf(on))) == []


def test_a_workflow_that_does_not_run_the_sub_projects_tests_is_not_asked(tmp_path) -> None:
    on = "on:\n  pull_request:\n    paths:\n      - 'docs/**'\n"
    inp = _inp(tmp_path, _wf(on, run="pytest other_tests"),
               files={**SUB, "other_tests/test_x.py": "def test_x():\n    pass\n"})
    assert _gaps(inp) == []


def test_no_tests_of_its_own_is_an_opportunity_never_an_all_clear(tmp_path) -> None:
    files = {k: v for k, v in SUB.items() if "/tests/" not in k}
    # The configured workflow runs core's tests: they are not the sub-project's.
    inp = _inp(tmp_path, _wf("on: [push]\n", run="pytest core_tests"),
               files={**files, "core_tests/test_core.py": "def test_c():\n    assert 1\n"})
    items = build(inp, run_all(inp))
    titles = [i.title for i in items]
    assert not [t for t in titles if t.startswith(("Tests in CI: every", "CI steps: all"))]
    [item] = [i for i in items if "no tests of its own" in i.title]
    assert item.kind == "opportunity" and item.section == "S-3"


def test_the_ci_all_clear_counts_only_the_sub_projects_own_files(tmp_path) -> None:
    inp = _inp(tmp_path, _wf("on: [push]\n"))
    titles = [i.title for i in build(inp, run_all(inp)) if i.kind == "all_clear"]
    assert "Tests in CI: every test class and runner of the sub-project is reached (1 of "\
           "its file(s) run)" in titles
    assert "CI steps: all 1 invocation(s) of the sub-project's tests collect tests" in titles
    assert not [i for i in build(inp, run_all(inp)) if "no tests of its own" in i.title]


def test_an_upstream_delta_without_commits_says_so(tmp_path) -> None:
    inp = minirepo.build(tmp_path, base={**CORE, **SUB}, head={"sub/x.py": "X = 1\n"})
    titles = [i.title for i in build(inp, run_all(inp)) if i.kind == "all_clear"]
    assert "Upstream delta: no commit on the watched paths since 2026-03-03" in titles
    assert not [t for t in titles if "no action in what was compared" in t]


def test_a_pattern_built_to_backtrack_is_not_evaluated_and_makes_no_finding() -> None:
    # Security: someone else's workflow; ``**a**a…`` against a long path would take
    # very long to reject. It counts as triggering (no finding), and returns at once.
    evil = "**a" * 40 + "b"
    assert cipaths.triggers({"paths": [evil]}, "a" * 200)
    assert cipaths.triggers({"paths-ignore": [evil]}, "a" * 200)
    assert not cipaths.triggers({"paths": ["**a**b"]}, "x/a/c")


def test_test_files_outside_the_scope_are_tests_no_workflow_runs(tmp_path) -> None:
    # The folder keeps its checks beside the scope (sub/checks/, not sub/tests/): it has
    # tests, so "no tests of its own" would be wrong; no workflow names them.
    files = {k: v for k, v in SUB.items() if "/tests/" not in k}
    files["sub/checks/test_kernel.py"] = "def test_k():\n    assert 1\n"
    files["sub/checks/helpers.py"] = "X = 1\n"
    files["sub/unit_testing/kernel_checks.py"] = "def run():\n    return 1\n"
    files["sub/contest/entry.py"] = "X = 1\n"  # "contest" is no test folder
    inp = _inp(tmp_path, _wf("on: [push]\n", run="pytest core_tests"), files=files)
    items = build(inp, run_all(inp))
    assert not [i for i in items if "no tests of its own" in i.title]
    [item] = [i for i in items if "outside its test scope" in i.title]
    assert item.kind == "opportunity" and "checks/test_kernel.py" in item.title
    assert "unit_testing/kernel_checks.py" in item.title and "2 test files" in item.title
    assert "run by no workflow" in item.title and "helpers" not in item.title
    assert "contest" not in item.title
    # A workflow that names their folder: an FYI to point the scope at them, no claim.
    inp = _inp(tmp_path / "w", _wf("on: [push]\n", run="pytest sub/checks/ -x"), files=files)
    [item] = [i for i in build(inp, run_all(inp)) if "outside its test scope" in i.title]
    assert item.kind == "fyi" and "a workflow names" in item.title


RUNNER = {"sub/__init__.py": "", "sub/launch.py":
          "from core.util import helper\n\n\nif __name__ == '__main__':\n    helper()\n",
          "other/__init__.py": "", "other/launch.py": "print(1)\n"}
FOLDER_ONLY = "on:\n  pull_request:\n    paths:\n      - 'sub/**'\n"


def test_a_workflow_running_a_module_of_the_folder_is_asked_about_its_imports(tmp_path
                                                                              ) -> None:
    # No pytest file at all: the workflow runs the folder's launcher as a module, so a
    # core file the launcher imports is what a core change breaks unseen.
    inp = _inp(tmp_path, _wf(FOLDER_ONLY, run="python -m sub.launch --steps 2"),
               files=RUNNER)
    [gap] = _gaps(inp)
    assert gap.own == () and gap.core == (("core/util.py", "imported (helper)"),)
    [item] = [i for i in build(inp, run_all(inp)) if "does not trigger" in i.title]
    assert item.kind == "opportunity" and "`core/util.py`" in item.title


def test_a_workflow_running_another_folders_module_is_not_asked(tmp_path) -> None:
    inp = _inp(tmp_path, _wf(FOLDER_ONLY, run="python -m other.launch"), files=RUNNER)
    assert _gaps(inp) == []
    inp = _inp(tmp_path / "b", _wf(FOLDER_ONLY, run="python other/launch.py"), files=RUNNER)
    assert _gaps(inp) == []


def test_a_standalone_script_of_the_folder_is_no_reason_to_watch_the_rest(tmp_path) -> None:
    # The workflow runs a tool of the folder that imports nothing of the repository
    # and watches exactly that tool's folder: nothing else can break what it runs.
    files = {**RUNNER, "sub/tools/__init__.py": "",
             "sub/tools/fmt.py": "import sys\nfrom os import path\n\nprint(sys.argv, path)\n"}
    tools = "on:\n  pull_request:\n    paths:\n      - 'sub/tools/**'\n"
    for run in ("python sub/tools/fmt.py", "python -m sub.tools.fmt"):
        assert _gaps(_inp(tmp_path / run[-3:], _wf(tools, run=run), files=files)) == []
    # A runner importing its own package relatively, or a module of another folder,
    # does reach code beyond itself.
    files["lib/tool.py"] = "def run():\n    return 1\n"  # a folder with no __init__.py
    for i, imp in enumerate(("from .launch import helper", "from core import util",
                             "import core.util", "from lib import tool")):
        files["sub/tools/fmt.py"] = f"{imp}\n"
        [gap] = _gaps(_inp(tmp_path / f"r{i}", _wf(tools, run="python -m sub.tools.fmt"),
                           files=files))
        assert gap.own == ("sub/__init__.py", "sub/launch.py"), imp


def test_a_runner_step_after_a_pytest_step_and_runners_not_read(tmp_path) -> None:
    # A pytest step of another folder first does not end the reading of the steps; a
    # shell script of the folder, or a Python runner that does not parse, is kept (what
    # it runs is not read).
    files = {**RUNNER, "sub/ci.sh": "echo run\n", "sub/odd.py": "def broken(:\n"}
    for i, run in enumerate(("pytest other/ -x\n      - run: pytest\n      - run: python "
                             "$D/x.py\n      - run: python -m sub.launch",
                             "bash sub/ci.sh", "python sub/odd.py")):
        [gap] = _gaps(_inp(tmp_path / str(i), _wf(FOLDER_ONLY, run=run), files=files))
        assert gap.core == (("core/util.py", "imported (helper)"),), run
