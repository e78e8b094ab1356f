"""#22 writes into state outside the folder (``outsidewrites``): library code of the
folder assigning into a module or class it imports from elsewhere, so the change holds
for the whole process. Match: a function of the file put in place of a library
module's function; a private compiler switch set to a constant inside a builder; a
class's method rebound to a wrapper of itself after a function-level import; an item
written into a class's private mapping; ``setattr`` with a lambda. No-match: a public
flag set to a value; an environment variable; the folder's own modules; a patch put
back from its saved original; test files; an entry-point script; a write through a
local object. All trees are made up."""

from __future__ import annotations

import ast

from agentops.scout.analyses import outsidewrites
from agentops.scout.itemize import debt
from tests.scout import minirepo

LIBRARY = '''\
import os

import torch
import zoo.engine.config as engine_config
from shelf.tools import helpers as _helpers
from shelf.models import Widget

from sub.local import knobs

_kept = _helpers.scale


def _safe_scale(x):
    return _kept(abs(x))


_helpers.scale = _safe_scale


def build(model, fast):
    if fast:
        torch._compiler_cfg.reuse_buffers = False
    torch.backends.fastmath.enabled = True
    os.environ["ZOO_THREADS"] = "4"
    knobs.level = 3
    engine_config.verbose = True
    return model


def annotate():
    from shelf.layers import Block

    Block.forward = tag("block")(Block.forward)
    Widget._registry["sub"] = build
    setattr(Widget, "describe", lambda self: "sub")


def tag(name):
    return lambda fn: fn


def scoped(x):
    original = Widget.render
    Widget.render = _safe_scale
    try:
        return x
    finally:
        Widget.render = original


def local_object(model):
    model.layer = _safe_scale
    return model
'''


def _inp(tmp_path, files: dict[str, str]):
    return minirepo.build(tmp_path, head={"sub/__init__.py": "", "sub/local.py": "", **files})


def test_writes_into_imported_modules_and_classes_are_found(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/lib.py": LIBRARY})
    [f] = outsidewrites.analyse(inp)
    assert f.file == "sub/lib.py"
    got = {(w.target, w.line, w.replaces, w.private) for w in f.writes}
    assert got == {
        ("shelf.tools.helpers.scale", 17, True, False),
        ("torch._compiler_cfg.reuse_buffers", 22, False, True),
        ("shelf.layers.Block.forward", 33, True, False),
        ("shelf.models.Widget._registry[...]", 34, True, True),
        ("shelf.models.Widget.describe", 35, True, False),
    }
    [item] = debt._outside_writes(inp, {"outside_writes": [f]})
    assert item.kind == "opportunity" and item.section == "S-4"
    assert item.title.startswith("lib.py writes into modules or classes")
    assert "`shelf.tools.helpers.scale` (:17)" in item.title and "and 1 more" in item.title
    assert "4 replace behaviour and 2 reach private" in item.why
    assert item.where == "sub/lib.py:17" and item.files == ("sub/lib.py",)


def test_flags_environment_own_modules_and_scoped_patches_are_not_counted(tmp_path) -> None:
    mod = ast.parse(LIBRARY)
    targets = {w.target for w in outsidewrites.file_writes(mod, "sub")}
    assert "torch.backends.fastmath.enabled" not in targets  # a public flag, set to data
    assert not any("environ" in t for t in targets)
    assert not any(t.startswith("sub.") for t in targets)  # the folder's own module
    assert "shelf.models.Widget.render" not in targets  # put back from its saved original
    assert "zoo.engine.config.verbose" not in targets
    assert not any(t.endswith(".layer") for t in targets)  # a local object, not an import


def test_tests_and_entry_points_are_left_alone(tmp_path) -> None:
    script = LIBRARY + '\n\nif __name__ == "__main__":\n    build(None, True)\n'
    inp = _inp(tmp_path, {"sub/tests/test_lib.py": LIBRARY, "sub/run.py": script,
                          "sub/lib_test.py": LIBRARY, "sub/conftest.py": LIBRARY,
                          "sub/test/helpers.py": LIBRARY})
    assert outsidewrites.analyse(inp) == []


def test_the_folder_module_itself_is_own_state(tmp_path) -> None:
    text = "import sub.local as local\n\n\ndef f():\n    return 1\n\n\nlocal.hook = f\n"
    assert outsidewrites.file_writes(ast.parse(text), "sub") == []
    other = text.replace("sub.local", "other.local")
    [w] = outsidewrites.file_writes(ast.parse(other), "sub")
    assert (w.target, w.line, w.replaces, w.private) == ("other.local.hook", 8, True, False)


def test_a_write_the_repository_makes_outside_the_folder_is_its_convention(tmp_path) -> None:
    core = ("import torch\n\n\ndef enable(model):\n"
            "    torch._compiler_cfg.reuse_buffers = False\n    return model\n")
    inp = _inp(tmp_path, {"sub/lib.py": LIBRARY, "core/__init__.py": "",
                          "core/compiling.py": core, "core/tests/test_x.py": LIBRARY,
                          "test/conftest.py": LIBRARY, "test/shared.py": LIBRARY})
    [f] = outsidewrites.analyse(inp)
    targets = [w.target for w in f.writes]
    assert "torch._compiler_cfg.reuse_buffers" not in targets  # core sets it the same way
    assert "shelf.tools.helpers.scale" in targets  # a test file outside is no convention


def test_one_target_written_twice_is_one_entry_with_both_lines(tmp_path) -> None:
    text = ("import torch\n\n\ndef f(a):\n    if a:\n        torch._cfg.mode = 1\n"
            "    else:\n        torch._cfg.mode = 2\n")
    inp = _inp(tmp_path, {"sub/lib.py": text})
    [f] = outsidewrites.analyse(inp)
    [item] = debt._outside_writes(inp, {"outside_writes": [f]})
    assert "`torch._cfg.mode` (:6, :8)" in item.title
    assert item.why.startswith("1 reaches private") and "later user of it " in item.why


def test_a_saved_original_put_back_under_two_aliases_is_a_scoped_patch() -> None:
    text = '''\
import shelf.engine as engine
import shelf.engine.graph as graph


def traced(run):
    saved = graph._run_all

    def wrapped(*args):
        return saved(*args)

    graph._run_all = wrapped
    engine._run_all = wrapped
    try:
        return run()
    finally:
        graph._run_all = saved
        engine._run_all = saved
'''
    assert outsidewrites.file_writes(ast.parse(text), "sub") == []
    kept = text.split("    try:", 1)[0] + "    return run()\n"
    got = [(w.target, w.line) for w in outsidewrites.file_writes(ast.parse(kept), "sub")]
    assert got == [("shelf.engine.graph._run_all", 11), ("shelf.engine._run_all", 12)]


def test_only_an_original_of_the_same_name_read_from_an_import_is_put_back() -> None:
    text = '''\
import shelf.gears as gears


def tune(opts):
    width = opts.width
    gears._width = width
    kept = gears.spin
    gears._turn = kept
'''
    got = [(w.target, w.line) for w in outsidewrites.file_writes(ast.parse(text), "sub")]
    # a local value and an original of another name are no restore of the written name
    assert got == [("shelf.gears._width", 6), ("shelf.gears._turn", 8)]


def test_an_original_held_on_self_or_read_by_getattr_is_a_scoped_patch() -> None:
    text = '''\
from shelf import gears


class Swap:
    def __enter__(self):
        self._before = gears._spin
        gears._spin = self.quiet

    def quiet(self):
        return 0

    def __exit__(self, *exc):
        gears._spin = self._before


def once(step):
    first = getattr(gears, "_turn")
    gears._turn = step
    try:
        return step()
    finally:
        gears._turn = first
'''
    assert outsidewrites.file_writes(ast.parse(text), "sub") == []
    unscoped = text.replace("gears._spin = self._before", "pass").replace(
        "gears._turn = first", "pass")
    got = [(w.target, w.line) for w in outsidewrites.file_writes(ast.parse(unscoped), "sub")]
    assert got == [("shelf.gears._spin", 7), ("shelf.gears._turn", 18)]


def test_a_parameter_spelled_like_an_import_is_a_local_object() -> None:
    text = ("from shelf import gears\n\n\ndef fit(gears):\n    gears._ratio = 2\n\n\n"
            "def other():\n    gears._ratio = 3\n")
    got = [(w.target, w.line) for w in outsidewrites.file_writes(ast.parse(text), "sub")]
    assert got == [("shelf.gears._ratio", 9)]


def _found(text: str) -> list[tuple[str, int]]:
    return [(w.target, w.line) for w in outsidewrites.file_writes(ast.parse(text), "sub")]


HOOK = "import shelf\n\n\ndef g():\n    return 0\n\n\nshelf._hook = g\n"


def test_statement_forms_that_write_and_that_do_not() -> None:
    text = '''\
import sys

import shelf
from shelf import REGISTRY, make


def g():
    return 0


if sys.version_info >= (3, 10):
    shelf._level += 1
kept = shelf._hook = g
shelf._note: int
shelf = g
make().flag = g
REGISTRY["k"] = make(REGISTRY)
shelf.width = max(sys.maxsize, 1)
setattr(shelf, 3, g)
'''
    # a version check is no entry point; augmented and chained writes count; an
    # annotation alone, a rebound name, an object a call returns, a public mapping or
    # flag set to data and a non-text setattr name do not
    assert _found(text) == [("shelf._level", 12), ("shelf._hook", 13)]


def test_files_are_read_up_to_the_size_cap(tmp_path) -> None:
    pad = outsidewrites._MAX_FILE - len(HOOK) - 1
    at_cap = "#" + "x" * (pad - 1) + "\n" + HOOK
    assert len(at_cap) == outsidewrites._MAX_FILE
    inp = _inp(tmp_path, {"sub/a.py": at_cap, "sub/b.py": at_cap + "#"})
    assert [f.file for f in outsidewrites.analyse(inp)] == ["sub/a.py"]


def test_only_the_folders_python_library_files_are_read(tmp_path) -> None:
    script = HOOK + '\n\nif __name__ == "__main__":\n    g()\n'
    checked = HOOK + "\n\nif shelf.VERSION >= 2:\n    g()\n"  # a comparison, no entry point
    inp = _inp(tmp_path, {"sub/a_run.py": script, "sub/b.py": HOOK, "sub/notes.txt": HOOK,
                          "sub/tests/helpers.py": HOOK, "sub/test_b.py": HOOK,
                          "sub/c.py": checked, "core/other.py": HOOK.replace("_hook", "_other")})
    assert [f.file for f in outsidewrites.analyse(inp)] == ["sub/b.py", "sub/c.py"]


def test_what_outside_the_folder_is_no_convention(tmp_path) -> None:
    script = HOOK + '\n\nif __name__ == "__main__":\n    g()\n'
    big = HOOK + "#" * outsidewrites._MAX_FILE
    inp = _inp(tmp_path, {"sub/b.py": HOOK, "core/notes.txt": HOOK, "core/run.py": script,
                          "core/big.py": big, "core/broken.py": "shelf._hook = (\n"})
    [f] = outsidewrites.analyse(inp)
    assert [w.target for w in f.writes] == ["shelf._hook"]


def test_a_convention_spelled_through_another_alias_is_found(tmp_path) -> None:
    core = "import shelf.gears as cogs\n\n\ndef g():\n    return 0\n\n\ncogs.turn = g\n"
    mine = "from shelf import gears\n\n\ndef h():\n    return 1\n\n\ngears.turn = h\n"
    inp = _inp(tmp_path, {"sub/b.py": mine, "core/c.py": core})
    assert outsidewrites.analyse(inp) == []
    assert outsidewrites.analyse(_inp(tmp_path / "alone", {"sub/b.py": mine})) != []


def test_the_why_counts_in_words(tmp_path) -> None:
    one = "import shelf\n\n\ndef g():\n    return 0\n\n\nshelf.hook = g\n"
    inp = _inp(tmp_path, {"sub/b.py": one})
    [item] = debt._outside_writes(inp, {"outside_writes": outsidewrites.analyse(inp)})
    assert item.why.startswith("1 replaces behaviour; every later user of it ")
    two = one + "shelf._mode = 2\n"
    inp = _inp(tmp_path / "two", {"sub/b.py": two})
    [item] = debt._outside_writes(inp, {"outside_writes": outsidewrites.analyse(inp)})
    assert item.why.startswith("1 replaces behaviour and 1 reaches private (`_`-prefixed)"
                               " state; every later user of them ")


def test_a_convention_written_with_any_augmented_operator_is_found(tmp_path) -> None:
    mine = "import shelf\n\n\ndef f():\n    shelf._level = 8\n"
    for i, op in enumerate(("//=", "**=", "%=", "^=", ">>=", "<<=", "@=")):
        core = f"import shelf\n\n\ndef f():\n    shelf._level {op} 2\n"
        inp = _inp(tmp_path / f"op{i}", {"sub/b.py": mine, "core/c.py": core})
        assert outsidewrites.analyse(inp) == [], op


def test_more_values_and_holders_that_are_and_are_not_writes() -> None:
    text = '''\
import shelf
from shelf import REGISTRY, gears, make, pick
from sub import knobs


def g():
    return 0


shelf._level__ = 1
shelf.mode = REGISTRY
knobs.hook = shelf._hook = g
kept = pick(gears, "_turn")
gears._turn = kept
other = getattr(make(), "_spin")
gears._spin = other
broken = getattr(gears)
'''
    # a name ending in "__" but not starting so is private; a public switch set to an
    # imported name is data; the folder's own target first in a chain hides nothing; a
    # value from another call than getattr, or getattr on a call, is no saved original
    assert _found(text) == [("shelf._level__", 10), ("shelf._hook", 12),
                            ("shelf.gears._turn", 14), ("shelf.gears._spin", 16)]


def test_every_outside_file_is_searched_for_the_convention(tmp_path) -> None:
    script = HOOK + '\n\nif __name__ == "__main__":\n    g()\n'
    unrelated = "import shelf\n\n\ndef f(o):\n    setattr(o, 'x', 1)\n"
    for i, first in enumerate((script, "shelf._hook = (\n", unrelated)):
        inp = _inp(tmp_path / f"f{i}", {"sub/b.py": HOOK, "core/a.py": first,
                                        "core/b.py": HOOK})
        assert outsidewrites.analyse(inp) == [], i
