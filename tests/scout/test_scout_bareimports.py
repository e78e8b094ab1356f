"""#22 sibling modules imported by bare name (``bareimports``): a module of a folder the
repository imports by package path, itself imported by other code, that imports a
module beside it as a top-level name. Match: a library module with a module-level and a
function-level bare sibling import, the folder reached through a relative import of its
``__init__``; the same with the package path used from outside the folder. No-match: a
leaf script nothing imports; a folder nobody imports by package path; a module putting
its own folder on ``sys.path``; a name that is also a module at the repository's root;
a test file; the package-path form itself. All trees are made up."""

from __future__ import annotations

from agentops.scout.analyses import bareimports
from agentops.scout.itemize import debt
from tests.scout import minirepo

ENGINE = '''\
import math

from gears import spin
from sub.shapes import square


def run(x):
    from pulleys import lift

    return lift(spin(square(math.floor(x))))
'''

FILES = {
    "sub/__init__.py": "from .engine import run\n",
    "sub/engine.py": ENGINE,
    "sub/gears.py": "def spin(x):\n    return x\n",
    "sub/pulleys.py": "def lift(x):\n    return x\n",
    "sub/shapes.py": "def square(x):\n    return x * x\n",
}


def _inp(tmp_path, files: dict[str, str]):
    return minirepo.build(tmp_path, head=files)


def test_a_package_module_importing_siblings_by_bare_name_is_found(tmp_path) -> None:
    inp = _inp(tmp_path, FILES)
    [f] = bareimports.analyse(inp)
    assert f.folder == "sub" and f.package_import == "sub/__init__.py:1"
    assert f.package_name == "sub.engine"
    [m] = f.modules
    assert m.file == "sub/engine.py" and m.imported_by == "sub/__init__.py:1"
    assert [(i.line, i.name) for i in m.imports] == [(3, "gears"), (8, "pulleys")]
    [item] = debt._bare_imports(inp, {"bare_imports": [f]})
    assert item.kind == "opportunity" and item.section == "S-4"
    assert item.title.startswith("1 module of `sub/` imports the modules beside it by bare")
    assert "`engine.py` (`gears` :3, `pulleys` :8)" in item.title
    assert "`sub.engine` at sub/__init__.py:1" in item.why
    assert "the module is imported by other code (engine.py by __init__.py:1)" in item.why
    assert item.where == "sub/engine.py:3" and item.facts == ("gears", "pulleys")


def test_a_package_path_from_outside_the_folder_counts_too(tmp_path) -> None:
    files = {**FILES, "sub/__init__.py": "",
             "sub/deep/__init__.py": "",
             "sub/deep/wheel.py": "import axle\n\n\ndef turn():\n    return axle.ROT\n",
             "sub/deep/axle.py": "ROT = 1\n",
             "core/use.py": "from sub.deep.axle import ROT\nfrom sub.deep import wheel\n"}
    del files["sub/engine.py"]
    [f] = bareimports.analyse(_inp(tmp_path, files))
    assert f.folder == "sub/deep" and f.package_import.startswith("core/use.py:")
    [m] = f.modules
    assert m.file == "sub/deep/wheel.py" and m.imported_by == "core/use.py:2"
    assert [(i.line, i.name) for i in m.imports] == [(1, "axle")]


def test_a_leaf_script_and_a_folder_of_scripts_are_left_alone(tmp_path) -> None:
    script = "from gears import spin\n\nif __name__ == '__main__':\n    spin(1)\n"
    # a script in a package folder nothing imports: run from its folder by design
    assert bareimports.analyse(_inp(tmp_path / "a", {**FILES, "sub/bench.py": script})
                               )[0].modules[0].file == "sub/engine.py"
    # nobody imports the folder by package path: one root, no disagreement
    files = {k: v for k, v in FILES.items() if k != "sub/__init__.py"}
    files["sub/engine.py"] = ENGINE.replace("from sub.shapes", "from shapes")
    files["sub/main.py"] = "from engine import run\n\nrun(2)\n"
    assert bareimports.analyse(_inp(tmp_path / "b", files)) == []


def test_own_folder_on_sys_path_root_modules_and_tests_are_not_counted(tmp_path) -> None:
    on_path = "import os\nimport sys\n\nsys.path.append(os.path.dirname(__file__))\n" + ENGINE
    assert bareimports.analyse(_inp(tmp_path / "a", {**FILES, "sub/engine.py": on_path})) == []
    # ``gears`` and ``pulleys`` are also modules at the repository's root
    rooted = {**FILES, "gears.py": "def spin(x):\n    return x\n",
              "pulleys/__init__.py": "def lift(x):\n    return x\n"}
    assert bareimports.analyse(_inp(tmp_path / "b", rooted)) == []
    tests = {**FILES, "sub/__init__.py": "from .engine import run\nfrom .test_engine import f\n",
             "sub/test_engine.py": ENGINE}
    [f] = bareimports.analyse(_inp(tmp_path / "c", tests))
    assert [m.file for m in f.modules] == ["sub/engine.py"]  # the test file is not judged
    del tests["sub/engine.py"]
    assert bareimports.analyse(_inp(tmp_path / "d", tests)) == []


def test_package_path_and_relative_imports_are_the_fix(tmp_path) -> None:
    fixed = ENGINE.replace("from gears", "from .gears").replace(
        "from pulleys", "from sub.pulleys")
    assert bareimports.analyse(_inp(tmp_path, {**FILES, "sub/engine.py": fixed})) == []


def test_a_standard_library_name_beside_the_module_is_no_sibling_import(tmp_path) -> None:
    # ``math`` beside the module: ``import math`` still means the standard library's
    files = {**FILES, "sub/math.py": "X = 1\n",
             "sub/engine.py": ENGINE.replace("from gears import spin\n", "").replace(
                 "    from pulleys import lift\n\n", "").replace("lift(spin(", "((")}
    assert bareimports.analyse(_inp(tmp_path, files)) == []


def test_a_sibling_named_after_another_import_on_the_line_is_read(tmp_path) -> None:
    # the text filter that spares parsing must not hide ``import a, b as c``
    engine = "import math as m, gears as g\n\n\ndef run(x):\n    return g.spin(m.floor(x))\n"
    [f] = bareimports.analyse(_inp(tmp_path, {**FILES, "sub/engine.py": engine}))
    assert [(i.line, i.name) for i in f.modules[0].imports] == [(1, "gears")]
