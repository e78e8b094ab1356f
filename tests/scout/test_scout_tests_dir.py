"""#22: a target whose ``tests_dir`` is the folder itself (a draft that found the folder's
test module among its own code) must not make every module of the folder a test. One
reading, ``Target.is_test``, for unbound, callparity, componentuse, bodydrift's pins,
duplicates, savelists, factories and fielddocs. Match: each analysis finds on such a
target what it finds with a tests folder of its own. No-match: test-named files and a
``tests/`` folder stay tests there."""

from __future__ import annotations

import dataclasses

import pytest

from agentops.scout.analyses import (
    bodydrift,
    callparity,
    componentuse,
    duplicates,
    factories,
    fielddocs,
    savelists,
)
from tests.scout import minirepo
from tests.scout import test_scout_callparity as t_callparity
from tests.scout import test_scout_componentuse as t_componentuse
from tests.scout import test_scout_duplicates as t_duplicates
from tests.scout import test_scout_fielddocs as t_fielddocs
from tests.scout import test_scout_savelists as t_savelists


def _as_own_tests(inp):
    """The same inputs with the folder itself named as the tests folder."""
    return dataclasses.replace(inp, target=dataclasses.replace(
        inp.target, tests_dir=inp.target.subproject))


def test_is_test_reads_a_folder_named_as_its_own_tests_by_file_names(tmp_path) -> None:
    inp = minirepo.build(tmp_path, head={"sub/__init__.py": ""})
    own = _as_own_tests(inp).target
    for path in ("sub/test_loop.py", "sub/parts/loop_test.py", "sub/tests/case.py",
                 "sub/parts/tests/case.py"):
        assert own.is_test(path), path
    for path in ("sub/loop.py", "sub/testing_utils.py", "sub/parts/contest.py"):
        assert not own.is_test(path), path
    # A tests folder of its own sets its files apart by place, whatever their names.
    checks = dataclasses.replace(inp.target, tests_dir="sub/checks")
    assert checks.is_test("sub/checks/case.py") and not checks.is_test("sub/loop.py")
    # A tests folder above the folder is the folder itself for this reading.
    above = dataclasses.replace(inp.target, subproject="pkg/sub", tests_dir="pkg")
    assert not above.is_test("pkg/sub/loop.py") and above.is_test("pkg/sub/test_loop.py")


def _cases(tmp_path):
    call = ("from core.par import apply_tp\n\n\n"
            "def parallelize(model, dims, par):\n    apply_tp(model, dims.mesh)\n"
            "    return model\n")
    launch = ("from core.dims import ParallelDims\n\n\ndef dims(par, n):\n"
              "    return ParallelDims(dp=par.dp_degree, tp=par.tp_degree, world=n)\n")
    # Two upstream callers that pass the keyword (no copy pair: the imported-call path).
    other = ("from core.par import apply_tp\n\n\ndef wrap(model, dims, par):\n"
             "    return apply_tp(model, dims.mesh, enable_cp=dims.cp_enabled, "
             "enable_sp=par.sp)\n")
    yield "callparity", callparity.analyse, minirepo.build(
        tmp_path / "cp", head=t_callparity._files())
    yield "componentuse", componentuse.analyse, minirepo.build(
        tmp_path / "cu", head={"core/__init__.py": "", "core/runner.py": t_componentuse.UPSTREAM,
                               "sub/__init__.py": "", "sub/engine.py": t_componentuse.OURS},
        target=t_componentuse.TARGET)
    yield "duplicates", duplicates.call_drift, minirepo.build(
        tmp_path / "du", head={"core/par.py": t_duplicates.CORE_PAR,
                               "core/cp.py": "def apply_cp(model):\n    return model\n",
                               "core/other.py": other, "sub/par.py": call})
    yield "savelists", savelists.analyse, t_savelists._inp(tmp_path / "sl")
    yield "factories", factories.hand_rolled, minirepo.build(
        tmp_path / "fa", base={"core/dims.py": t_duplicates.DIMS, "sub/launch.py": launch},
        head={"core/dims.py": t_duplicates.FACTORY})
    yield "fielddocs", fielddocs.check, minirepo.build(
        tmp_path / "fd", head={"sub/__init__.py": "", "sub/config.py": t_fielddocs.CONFIG,
                               "sub/manager.py": t_fielddocs.CODE}, target=t_fielddocs.TARGET)


@pytest.mark.parametrize("which", ["callparity", "componentuse", "duplicates", "savelists",
                                   "factories", "fielddocs"])
def test_each_analysis_reads_the_folder_named_as_its_own_tests(tmp_path, which) -> None:
    [(name, run, inp)] = [c for c in _cases(tmp_path) if c[0] == which]
    found = run(inp)
    assert found, name
    assert run(_as_own_tests(inp)) == found, name


def test_bodydrift_pins_read_the_folder_named_as_its_own_tests(tmp_path) -> None:
    # The folder's conversion pins the mode upstream's new guards branch on: no drift,
    # also when the folder is its own tests folder (its conversion is still its code).
    old = "def par(model, cfg):\n    if cfg.tp:\n        model.tp()\n    return model\n"
    new = ("def par(model, cfg):\n    if cfg.mode == 'typed' or cfg.tp:\n"
           "        model.tp()\n    if cfg.mode == 'typed':\n        model.annotate()\n"
           "    return model\n")
    conv = "def convert(base):\n    return replace(base, mode='partial')\n"
    target = "duplicate_logic:\n  - {ours: [sub/par.py], upstream: [core/par.py]}\n"
    files = {"core/par.py": new, "sub/par.py": old}
    inp = minirepo.build(tmp_path / "a", base={"core/par.py": old},
                         head={**files, "sub/conv.py": conv}, target=target)
    assert bodydrift.analyse(_as_own_tests(inp)) == []
    # No match: a test-named module's pin is a test's, not the folder's: the drift stays.
    inp = minirepo.build(tmp_path / "b", base={"core/par.py": old},
                         head={**files, "sub/test_conv.py": conv}, target=target)
    [d] = bodydrift.analyse(_as_own_tests(inp))
    assert "guard `if cfg.mode == 'typed'`" in d.units
