"""#22 third-party packages a folder imports that no requirements list declares
(``declareddeps``, S-5; census row sc-fit24c). Match: a package imported at module level
that neither the folder's requirements file (one holding only a comment) nor the
project's lists name; the same without a folder file, anchored on the first import.
No-match: standard library, the repository's own modules, optional imports (``try``
with ``ImportError``, functions, ``TYPE_CHECKING``), a known import/distribution pair,
the framework the root README has the reader install, a nested requirements file for
its own subtree, a name a declared distribution contains ("not checked"), and a project
declaring nothing at all. All trees are made up."""

from __future__ import annotations

from agentops.scout import report
from agentops.scout.analyses import declareddeps as dd
from agentops.scout.config import load_target
from agentops.scout.itemize import docs
from tests.scout import minirepo

PYPROJECT = """\
[project]
name = "core"
dependencies = ["tomli>=1.1", "PyYAML", "tokenizers"]

[project.optional-dependencies]
dev = ["pytest", "pytest-cov"]
"""
README = """\
# core

> [Install PyTorch](https://example.org/start) before proceeding.

```sh
pip install -r requirements.txt
```
"""
COMMS = """\
import os
from typing import TYPE_CHECKING

import torch
import commslib
from commslib.mesh import init_mesh

if TYPE_CHECKING:
    import typingonly
"""


def _project(**extra: str) -> dict[str, str]:
    return {"pyproject.toml": PYPROJECT, "README.md": README,
            "core/__init__.py": "", "core/util.py": "X = 1\n", **extra}


def _one(inp) -> dd.DocProblem:
    [problem] = dd.analyse(inp)
    return problem


def test_an_import_no_list_names_is_found_at_the_folders_empty_requirements(tmp_path) -> None:
    inp = minirepo.build(tmp_path, head=_project(**{
        "sub/requirements.txt": "# TODO: add the comms library once it is released.\n",
        "sub/README.md": "Install:\n\n```\npip install --pre torch commslib --index-url "
                         "https://example.org/nightly\n```\n",
        "sub/comms.py": COMMS,
        "sub/train.py": "import commslib\nfrom sub.comms import init_mesh\n"}))
    p = _one(inp)
    assert (p.file, p.line, p.kind) == ("sub/requirements.txt", 1, "requirements")
    assert p.problem.startswith("third-party package imported at module level that no "
                                "requirements list names: `commslib` (sub/comms.py:5 and "
                                "1 more file); the folder's requirements.txt lists no "
                                "package at all, nor do the project's (pyproject.toml, "
                                "nor the root guide's install steps)")
    assert "the folder's docs pip-install `commslib` by hand" in p.problem
    assert "torch" not in p.problem.split(";")[0] and "typingonly" not in p.problem
    [item] = docs.items(inp, {"doc_inaccuracies": [p]})
    assert item.kind == "docs" and item.section == "S-5"
    assert item.title.startswith("`sub/requirements.txt:1`: third-party package")


BENCH = """\
import argparse
import matplotlib.pyplot as plt
import numpy as np
import triton
import yaml
from . import local
from helpers import helper
from core.util import X

try:
    import fastpath
except ImportError:
    fastpath = None


def plot():
    import seaborn
    return seaborn
"""


def test_without_a_folder_file_the_first_import_anchors_and_optional_ones_are_left(
        tmp_path) -> None:
    inp = minirepo.build(tmp_path, head=_project(**{
        "sub/bench/run.py": BENCH, "sub/bench/helpers.py": "def helper():\n    pass\n",
        "sub/bench/local.py": "", "sub/tests/test_idx.py": "import numpy\nimport pytest\n"}))
    p = _one(inp)
    assert (p.file, p.line) == ("sub/bench/run.py", 2)
    assert "`matplotlib` (sub/bench/run.py:2), `numpy` (sub/bench/run.py:3 and 1 more " \
           "file); the folder has no requirements file" in p.problem
    for left in ("triton", "yaml", "helpers", "core", "fastpath", "seaborn", "pytest",
                 "argparse", "not checked"):
        assert f"`{left}`" not in p.problem and left + " (" not in p.problem


def test_a_nested_file_declares_for_its_own_folder_only(tmp_path) -> None:
    head = _project(**{"sub/examples/math/requirements.txt": "mathy==0.9.0\n",
                       "sub/examples/math/run.py": "import mathy\n"})
    assert dd.analyse(minirepo.build(tmp_path / "a", head=head)) == []
    head["sub/engine.py"] = "import mathy\n"
    p = _one(minirepo.build(tmp_path / "b", head=head))
    assert "`mathy` (sub/engine.py:1)" in p.problem and p.file == "sub/engine.py"


def test_a_name_inside_a_declared_distribution_is_not_checked(tmp_path) -> None:
    head = _project(**{"requirements-extra.txt": "pyfrobnic>=2\n",
                       "sub/a.py": "import frobnic\n"})
    assert dd.analyse(minirepo.build(tmp_path / "a", head=head)) == []
    head["sub/b.py"] = "import widgets\n"
    p = _one(minirepo.build(tmp_path / "b", head=head))
    assert "`widgets` (sub/b.py:1)" in p.problem
    assert p.problem.endswith("not checked (a declared distribution may provide it): "
                              "`frobnic` (~pyfrobnic)")
    assert "requirements-extra.txt" in p.problem


def test_a_project_declaring_nothing_is_not_judged(tmp_path) -> None:
    inp = minirepo.build(tmp_path, head={"README.md": "# x\n", "sub/a.py": "import widgets\n"})
    assert dd.analyse(inp) == []


def test_the_list_readers() -> None:
    text = ("# comment\n-r base.txt\n--index-url https://example.org\n./local\n"
            "git+https://example.org/x.git\nTorch_Data >= 0.8 ; python_version < '3.11'\n"
            "accelerate[extra]\n\n")
    assert dd.requirement_names(text) == {"torch_data", "accelerate"}
    assert dd.pip_names("pip install --pre torch torchcomms --index-url https://x/y\n"
                        "pip3 install -r requirements.txt -e . 'numpy<2'\n") == {
        "torch", "torchcomms", "numpy"}
    assert dd.pyproject_names(PYPROJECT) == {"tomli", "pyyaml", "tokenizers", "pytest",
                                             "pytest_cov"}
    assert dd.pyproject_names("[project\n") is None
    assert dd.install_words("Please install PyTorch first.\nUse numpy.\n") >= {"pytorch"}
    assert "numpy" not in dd.install_words("Please install PyTorch first.\nUse numpy.\n")


def test_the_report_loads_the_lists(tmp_path) -> None:
    want = report._wanted(load_target(str(minirepo.target_file(tmp_path))))
    for path in ("sub/requirements.txt", "sub/x/requirements-dev.txt", "requirements.txt",
                 "requirements-dev.txt", ".ci/docker/requirements.txt", "pyproject.toml"):
        assert want(path), path
    for path in ("other/requirements.txt", "other/pyproject.toml", "notes.txt"):
        assert not want(path), path


def test_a_package_named_like_the_folder_is_not_its_own_module() -> None:
    files = {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", "tool.py": "",
             "pkg/exp/comms/train.py": "import comms\nimport helpers\nimport tool\n",
             "pkg/exp/comms/helpers/__init__.py": ""}
    paths = frozenset(files)
    assert dd._own_names(paths, "pkg/exp/comms") == {"pkg", "tool", "train", "helpers",
                                                     "__init__"}
    found = dd.analyse_tree("pkg/exp/comms", paths, files.get)
    assert found is not None and [(u.name, u.line) for u in found.uses] == [("comms", 1)]


def test_names_compare_normalised() -> None:
    files = {"requirements.txt": "PyQt5>=5\nzope.interface\n",
             "sub/a.py": "import PyQt5\nimport zope_interface\nimport Widgets\n"}
    found = dd.analyse_tree("sub", frozenset(files), files.get)
    assert found is not None and [u.name for u in found.uses] == ["Widgets"]
    assert found.not_checked == ()


def test_ci_lists_declare_and_are_counted_not_named() -> None:
    files = {"pyproject.toml": PYPROJECT, ".ci/docker/requirements.txt": "numpy\n",
             "other/requirements.txt": "widgets\n",
             "sub/a.py": "import numpy\nimport widgets\n"}
    found = dd.analyse_tree("sub", frozenset(files), files.get)
    assert found is not None and [u.name for u in found.uses] == ["widgets"]
    problem = dd._problem(found).problem
    assert "nor do the project's (pyproject.toml and 1 requirements file beside them)" \
        in problem and ".ci" not in problem
