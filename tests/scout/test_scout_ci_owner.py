"""#22 (S-3, S-0 init): whose CI a workflow is. A workflow or step is the target's CI
when the tests it selects are the target's own — under its folder, or its files in a
shared tree — never because another sub-project's tests import the target. Fixture: a
repository with two sub-projects, ``models/alpha`` (a model folder, tested by the
shared ``tests/unit``) and ``experiments/beta`` (whose own tests import alpha, with a
skipped test and a disabled runner case in its workflow, a runner no workflow calls,
and a ``paths`` filter that misses beta's code). Each finding is checked on beta's own
target (the real gaps, still found: match) and on alpha's (none, at most one FYI line
naming beta's workflow: no match)."""

from __future__ import annotations

import dataclasses
import textwrap

import yaml

from agentops.scout import draft
from agentops.scout.analyses import ci, cipaths, run_all, testowner
from agentops.scout.config import load_target
from agentops.scout.itemize import build
from tests.scout import minirepo

CORE = {"core/__init__.py": "",
        "core/base.py": "class Base:\n    def run(self):\n        return 1\n"}
ALPHA = {"models/__init__.py": "", "models/alpha/__init__.py": "",
         "models/alpha/model.py": "from core.base import Base\n\n\n"
                                  "class Alpha(Base):\n    def run(self):\n"
                                  "        return 2\n"}
BETA = {
    "experiments/__init__.py": "", "experiments/beta/__init__.py": "",
    "experiments/beta/trace.py": "from models.alpha.model import Alpha\n\n\n"
                                 "def trace(m):\n    return Alpha().run() + m\n",
    "experiments/beta/tests/__init__.py": "",
    "experiments/beta/tests/test_trace.py": textwrap.dedent("""\
        import pytest

        from models.alpha.model import Alpha


        class TestTrace:
            def test_core(self):
                assert Alpha

            @pytest.mark.skip(reason="not yet")
            def test_alpha(self):
                assert Alpha().run() == 2
        """),
    "experiments/beta/tests/run_cases.py": textwrap.dedent("""\
        from models.alpha.model import Alpha


        def Case(name, disabled=False):
            return (name, disabled)


        CASES = [Case("alpha_case", disabled=True), Case("core_case")]


        def check_case(name):
            assert Alpha().run() == 2


        if __name__ == "__main__":
            for c in CASES:
                check_case(c[0])
        """),
    "experiments/beta/tests/run_more.py": textwrap.dedent("""\
        from models.alpha.model import Alpha


        def check_more():
            assert Alpha().run() == 2


        if __name__ == "__main__":
            check_more()
        """),
}
SHARED_TEST = {"tests/__init__.py": "", "tests/unit/__init__.py": "",
               "tests/unit/test_alpha_shapes.py": "from models.alpha.model import Alpha\n\n\n"
                                                  "def test_shape():\n    assert Alpha\n"}
BETA_WF = """\
name: beta
on:
  pull_request:
    paths:
      - 'experiments/beta/tests/**'
jobs:
  t:
    runs-on: x
    steps:
      - run: pytest experiments/beta/tests/test_trace.py::TestTrace::test_alpha
      - run: python -m experiments.beta.tests.run_cases --test_name alpha_case
"""
UNIT_WF = """\
name: unit
on: [push, pull_request]
jobs:
  t:
    runs-on: x
    steps:
      - run: pytest tests/unit -v
"""
SCRIPT_WF = UNIT_WF.replace("name: unit", "name: gpu").replace(
    "pytest tests/unit -v", "bash .github/scripts/run_gpu_tests.sh")
WORKFLOWS = {".github/workflows/beta.yaml": BETA_WF, ".github/workflows/unit.yaml": UNIT_WF,
             ".github/workflows/gpu.yaml": SCRIPT_WF,
             ".github/scripts/run_gpu_tests.sh": "python -m pytest tests/unit\n"}


def _repo(tmp_path, *, shared: bool = True):
    head = {**CORE, **ALPHA, **BETA, **WORKFLOWS, **(SHARED_TEST if shared else {})}
    return minirepo.build(tmp_path, base=CORE, head=head)


def _target(tmp_path, inp, name: str, text: str):
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\nrepo: o/r\nwatched_paths: [core/]\n" + text,
                    encoding="utf-8")
    return dataclasses.replace(inp, target=load_target(str(path)))


def _beta(tmp_path, inp):
    return _target(tmp_path, inp, "beta", "subproject: experiments/beta\n"
                   "tests_dir: experiments/beta/tests\n"
                   "workflows: [.github/workflows/beta.yaml]\n")


def _alpha(tmp_path, inp, tests_dir: str = "tests/unit"):
    return _target(tmp_path, inp, "alpha", f"subproject: models/alpha\ntests_dir: {tests_dir}\n"
                   "workflows: [.github/workflows/beta.yaml, .github/workflows/unit.yaml, "
                   ".github/workflows/gpu.yaml]\n")


def _ci_items(inp):
    return [i for i in build(inp, run_all(inp)) if i.section == "S-3"]


def test_the_rule_on_paths() -> None:
    sub = "models/alpha"
    assert testowner.relation("models/alpha/tests/test_x.py", sub) == "own"
    assert testowner.relation("tests/unit/test_alpha.py", sub) == "shared"
    assert testowner.relation("models/tests/test_alpha.py", sub) == "shared"  # holds it
    assert testowner.relation("experiments/beta/tests/test_trace.py", sub) == "foreign"
    assert testowner.relation("models/gamma/test_alpha.py", sub) == "foreign"
    assert testowner.relation("experiments/beta/tests", sub, is_dir=True) == "foreign"
    assert testowner.relation("models", sub, is_dir=True) == "shared"
    assert testowner.relation("experiments", sub, is_dir=True) == "foreign"
    # Not tests: a repository script, another folder's training module.
    assert testowner.relation(".github/scripts/run_gpu_tests.sh", sub) == "shared"
    assert testowner.relation("experiments/beta/train.py", sub) == "shared"
    assert testowner.owner_of("experiments/beta/tests/test_trace.py") == "experiments/beta"
    assert testowner.module_path("experiments.beta.tests.run_cases") == \
        "experiments/beta/tests/run_cases"


def test_another_sub_projects_steps_are_its_own_gaps_not_the_importers(tmp_path) -> None:
    """Beta's own target keeps its real gaps (the skipped test's step, the disabled
    runner case, the uncalled runner, the paths filter missing its code); alpha's target
    listing beta's workflow gets none of them as actions, only one FYI line."""
    inp = _repo(tmp_path)
    beta = _beta(tmp_path, inp)
    res = ci.analyse(beta)
    assert sorted(s.line for s in res.empty_steps) == [10, 11]
    assert [r.file for r in res.runner_gaps] == ["experiments/beta/tests/run_more.py"]
    [gap] = cipaths.analyse(beta, res)
    assert gap.workflow == ".github/workflows/beta.yaml"
    assert "experiments/beta/trace.py" in gap.own
    actions = [i for i in _ci_items(beta) if i.kind == "action"]
    assert {i.where for i in actions} >= {".github/workflows/beta.yaml:10",
                                          ".github/workflows/beta.yaml:11",
                                          ".github/workflows/beta.yaml:4"}
    assert not [i for i in _ci_items(beta) if "run only tests of"
                in i.title]

    alpha = _alpha(tmp_path, inp)
    res = ci.analyse(alpha)
    assert res.empty_steps == () and res.runner_gaps == ()
    assert [(f.workflow, f.owners) for f in res.foreign] == [
        (".github/workflows/beta.yaml", ("experiments/beta",))]
    assert cipaths.analyse(alpha, res) == []
    items = _ci_items(alpha)
    assert not [i for i in items if i.kind == "action"
                and "beta.yaml" in " ".join((i.where or "", *i.files))]
    [fyi] = [i for i in items if "run only tests of" in i.title]
    assert fyi.kind == "fyi" and "`beta.yaml`" in fyi.title
    assert "gpu.yaml" not in fyi.title  # a repository script is nobody's tests
    assert "`experiments/beta`" in fyi.title
    # Its own shared test still runs in CI (unit.yaml is its CI): an all-clear stays.
    assert "tests/unit/test_alpha_shapes.py" in [c.file for c in res.covered]


def test_a_tests_dir_in_another_sub_project_gives_no_own_tests(tmp_path) -> None:
    """A target whose ``tests_dir`` points into beta (the shape ``init`` drafted when
    beta's tests were the only ones importing alpha): beta's tests, runners and steps
    are not alpha's — no empty step, no runner gap, no paths action; the no-own-tests
    opportunity says whose folder it is."""
    inp = _repo(tmp_path)
    alpha = _alpha(tmp_path, inp, tests_dir="experiments/beta/tests")
    res = ci.analyse(alpha)
    assert ci.own_tests(alpha) == []
    assert res.empty_steps == () and res.runner_gaps == () and res.missing == ()
    assert cipaths.analyse(alpha, res) == []
    items = _ci_items(alpha)
    assert not [i for i in items if i.kind == "action"]
    # Its shared test exercises it outside its test scope: one FYI line, no claim.
    [none] = [i for i in items if "has no test file in its test scope" in i.title]
    assert none.kind == "fyi" and "`tests/unit/test_alpha_shapes.py`" in none.title
    assert "`tests_dir` is `experiments/beta`'s tests folder" in none.title
    assert "tests of `experiments/beta` import it" in none.title


def test_no_own_tests_names_who_exercises_it(tmp_path) -> None:
    """Only beta's tests import alpha: an opportunity that names them as beta's, not
    alpha's. A shared integration definition launching alpha by name (``--module
    alpha``) makes it one FYI line instead (its shared tests are not checked), and a
    flag value that merely starts with the name does not."""
    inp = _repo(tmp_path / "a", shared=False)
    alpha = _alpha(tmp_path / "a", inp, tests_dir="models/alpha/tests")
    [item] = [i for i in _ci_items(alpha) if "tests of its own" in i.title]
    assert item.kind == "opportunity"
    assert "tests of `experiments/beta` import it" in item.title
    assert "only another sub-project's tests exercise its code" in item.why

    runs = 'CASES = [dict(cmd="--module alpha --config alpha_debug")]\n'
    near = 'CASES = [dict(cmd="--module alpha_v2 --config x")]\n'
    for name, text, kind in (("b", runs, "fyi"), ("c", near, "opportunity")):
        head = {**CORE, **ALPHA, **BETA, **WORKFLOWS, "tests/integration/models.py": text}
        inp = minirepo.build(tmp_path / name, base=CORE, head=head)
        alpha = _alpha(tmp_path / name, inp, tests_dir="models/alpha/tests")
        [item] = [i for i in _ci_items(alpha) if "test scope" in i.title
                  or "tests of its own" in i.title]
        assert item.kind == kind, name
        assert ("`tests/integration/models.py`" in item.title) == (kind == "fyi")


def test_init_drafts_the_folders_own_tests_and_workflows_only(tmp_path) -> None:
    """``init`` for alpha: the shared test importing it and the workflow running it;
    beta's importing test and beta's workflow stay out (named in a note). For beta: its
    own tests folder and workflow (match)."""
    inp = _repo(tmp_path)
    d = draft.build(inp.head, "models/alpha", repo="o/r")
    doc = yaml.safe_load(draft.to_yaml(d))
    assert doc["tests_dir"] == "tests/unit"
    assert doc["workflows"] == [".github/workflows/unit.yaml"]
    assert any("experiments/beta" in n and "not this folder's" in n for n in d.notes)
    d = draft.build(inp.head, "experiments/beta", repo="o/r")
    doc = yaml.safe_load(draft.to_yaml(d))
    assert doc["tests_dir"] == "experiments/beta/tests"
    assert doc["workflows"] == [".github/workflows/beta.yaml"]


def test_init_with_only_another_sub_projects_tests_importing_it(tmp_path) -> None:
    """Only beta's tests import alpha: alpha has no tests of its own, so neither beta's
    folder nor beta's workflow is drafted as alpha's."""
    inp = _repo(tmp_path, shared=False)
    d = draft.build(inp.head, "models/alpha", repo="o/r")
    doc = yaml.safe_load(draft.to_yaml(d))
    assert not doc["tests_dir"].startswith("experiments/beta")
    assert ".github/workflows/beta.yaml" not in doc["workflows"]
    assert "no test file of its own or of a shared tests folder imports models.alpha" \
        in d.notes
    assert any(n.startswith("tests of experiments/beta import it") for n in d.notes)
