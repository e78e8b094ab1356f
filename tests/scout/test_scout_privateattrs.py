"""#22 private attributes of imported packages read in code (``privateattrs``). Match: a
``_`` attribute reached through a public import (a module, an aliased submodule, an
imported class), named by its path up to the first private part, in a library module and
in a test. No-match: the same path read by code outside the category folder; a private
import (the import reading's); the standard library; the sub-project's own package; an
operator registry; a dunder; an instance's private attribute. All trees are made up."""

from __future__ import annotations

from agentops.scout.analyses import privateattrs
from agentops.scout.itemize import debt
from tests.scout import minirepo

USES = '''\
import numpy
import numpy.linalg as la
from numpy.random import Generator


def spread(x):
    table = numpy.core._registry.lookup(x)
    la._umath_linalg.inv(x)
    return Generator._seed_state, table
'''


def _run(tmp_path, files: dict[str, str], target: str = ""):
    inp = minirepo.build(tmp_path, head=files, target=target)
    return inp, privateattrs.analyse(inp)


def test_private_attributes_through_public_imports_are_found(tmp_path) -> None:
    inp, found = _run(tmp_path, {"sub/spread.py": USES,
                                 "sub/tests/test_spread.py": "import numpy\n"
                                 "def test_it():\n    assert numpy._pinned\n"
                                 "    numpy._pinned.clear()\n"})
    assert [(f.file, f.line, f.dotted) for f in found] == [
        ("sub/spread.py", 7, "numpy.core._registry"),
        ("sub/spread.py", 8, "numpy.linalg._umath_linalg"),
        ("sub/spread.py", 9, "numpy.random.Generator._seed_state"),
        ("sub/tests/test_spread.py", 3, "numpy._pinned"),
        ("sub/tests/test_spread.py", 4, "numpy._pinned")]
    [item] = debt._private_attrs(inp, {"private_attributes": found})
    assert item.kind == "fyi" and item.section == "S-4" and item.severity == "nice-to-have"
    assert item.title == ("4 private (`_`-prefixed) numpy attributes read in code through a "
                          "public import (5 places), which no code outside `sub/` reads: "
                          "`numpy.core._registry` (spread.py:7); `numpy.linalg._umath_linalg` "
                          "(spread.py:8); `numpy.random.Generator._seed_state` (spread.py:9); "
                          "`numpy._pinned` (tests/test_spread.py:3, :4)")
    assert len(item.facts) == 4
    assert item.facts[0] == "sub/spread.py:numpy.core._registry"


def test_a_path_core_reads_too_is_not_the_folders_risk(tmp_path) -> None:
    core = "import numpy.linalg\n\ndef inv(x):\n    return numpy.linalg._umath_linalg.inv(x)\n"
    _inp, found = _run(tmp_path, {"sub/spread.py": USES, "core/inv.py": core})
    assert [f.dotted for f in found] == ["numpy.core._registry",
                                         "numpy.random.Generator._seed_state"]


def test_a_sibling_of_the_category_folder_is_not_core(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(minirepo, "TARGET", minirepo.TARGET.replace(
        "subproject: sub\n", "subproject: pkg/exp/sub\n"))
    sibling = "import numpy\n\nX = numpy.core._registry\n"
    files = {"pkg/exp/sub/spread.py": USES, "pkg/exp/other/x.py": sibling}
    _inp, found = _run(tmp_path, files)
    assert "numpy.core._registry" in {f.dotted for f in found}
    files["pkg/core/x.py"] = sibling
    _inp, found = _run(tmp_path / "2", files)
    assert "numpy.core._registry" not in {f.dotted for f in found}


def test_imports_stdlib_own_registry_dunders_and_instances_are_not(tmp_path) -> None:
    text = '''\
import os
import sys
import numpy
import numpy._core as npc
import torch
from sub import helpers


class Box:
    def __init__(self, arr):
        self._arr = arr
        self.shape = arr.__array_interface__

    def grab(self):
        os._exit(sys._getframe().f_lineno)
        op = torch.ops.aten._softmax.default
        return npc._multiarray, helpers._cache, self._arr, numpy.ndarray.__len__, op
'''
    _inp, found = _run(tmp_path, {"sub/box.py": text, "sub/helpers.py": "_cache = {}\n"})
    assert found == []

