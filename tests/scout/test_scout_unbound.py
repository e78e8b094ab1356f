"""#22 defect 5 (``unbound``): a name the sub-project's code reads that nothing binds
raises NameError whenever the line runs. Match: a helper a copied function calls but the
module never imports (the item names the core module that defines it), a read at module
level and in a class body. No-match: imported, defined, assigned, builtin, a parameter or
a local of an enclosing function, a name a function binds through ``global``, a name only
in annotations, a module that may bind names dynamically (``import *``). Test files the
folder owns are read as a P1 (a fixture, a conftest.py name, pytest's own fixtures bound)."""

from __future__ import annotations

import dataclasses

from agentops.scout.analyses import unbound
from agentops.scout.itemize import unbound as unbound_items
from tests.scout import minirepo

CORE = '''\
def build_mask(batch):
    return batch
'''

COPY = '''\
from core.steps import run_step


class Loop:
    def step(self, batch):
        mask = build_mask(batch)
        return run_step(batch, mask)
'''


def _inp(tmp_path, ours: str, extra: dict[str, str] | None = None):
    files = {"core/__init__.py": "", "core/masks.py": CORE,
             "core/steps.py": "def run_step(b, m):\n    return b\n",
             "sub/__init__.py": "", "sub/loop.py": ours,
             # The loop's caller: a method nothing calls reads its names only if called.
             "sub/train.py": "from sub.loop import Loop\n\nLoop().step([])\n",
             **(extra or {})}
    return minirepo.build(tmp_path, head=files)


def test_a_helper_the_copy_calls_but_never_imports_is_a_p0_action(tmp_path) -> None:
    inp = _inp(tmp_path, COPY)
    [found] = unbound.analyse(inp)
    assert (found.file, found.line, found.name, found.scope) == (
        "sub/loop.py", 6, "build_mask", "step")
    [item] = unbound_items.items(inp, {"unbound_names": [found]})
    assert item.kind == "action" and item.priority == "P0"
    assert item.where == "sub/loop.py:6" and "`build_mask`" in item.title
    assert "core.masks" in item.fix


def test_reads_at_module_level_and_in_a_class_body_count(tmp_path) -> None:
    text = "LIMIT = default_limit()\n\n\nclass Box:\n    size = box_size\n"
    assert [(u.name, u.line, u.scope) for u in unbound.unbound("sub/box.py", text)] == [
        ("box_size", 5, "Box"), ("default_limit", 1, "")]


def test_every_way_of_binding_a_name_is_respected(tmp_path) -> None:
    text = '''\
from __future__ import annotations

import dataclasses

import os
from core.masks import build_mask

COUNT = 3


def outer(width):
    scale = 2

    def inner():
        return width * scale + COUNT + len(os.sep)
    return inner


def setup():
    global CACHE, fmt, joiner
    CACHE = {}
    import string as fmt
    from os.path import join as joiner


def use(x: NeverImported) -> AlsoNot:
    return build_mask(x), CACHE, [y for y in range(3)], print, fmt, joiner
'''
    assert unbound.unbound("sub/ok.py", text) == []


def test_a_global_declaration_that_only_reads_binds_nothing() -> None:
    # ``limit`` is declared global and read, but no scope ever assigns it: NameError.
    text = "def grow(step):\n    global limit\n    return step < limit\n"
    assert [(u.name, u.line, u.scope) for u in unbound.unbound("sub/g.py", text)] == [
        ("limit", 3, "grow")]
    # Another function assigning it through its own declaration binds it for both.
    assert unbound.unbound("sub/g.py", text + "\n\ndef reset():\n    global limit\n"
                           "    limit = 8\n") == []
    # And so does an assignment at module level.
    assert unbound.unbound("sub/g.py", "limit = 4\n" + text) == []


def test_a_local_annotation_is_no_read(tmp_path) -> None:
    # Without the future import too: a local variable's annotation is never evaluated.
    assert unbound.unbound("sub/ann.py", "def f():\n    size: Width = 3\n    return size\n"
                           ) == []


def test_a_module_that_may_bind_names_dynamically_is_not_judged(tmp_path) -> None:
    assert unbound.unbound("sub/star.py", "from core.masks import *\n\n"
                           "def f(b):\n    return build_mask(b)\n") == []
    inp = _inp(tmp_path, COPY.replace("build_mask(batch)", "batch"),
               extra={"sub/tests/test_loop.py": "from core.masks import *\n\n\n"
                      "def test_x():\n    assert helper()\n"})
    assert unbound.analyse(inp) == []


def test_builtins_of_a_newer_python_and_a_class_bodys_own_names_are_bound() -> None:
    # The target may run a newer Python than the scout; a class body reads its module
    # and qualified name from its own namespace.
    text = ("def close(pending):\n    if pending:\n        raise PythonFinalizationError\n"
            "    return anext, ExceptionGroup\n\n\nclass Probe:\n"
            "    origin = (__module__, __qualname__)\n")
    assert unbound.unbound("sub/newer.py", text) == []
    # Outside a class body the same names are module globals nothing binds.
    assert [u.name for u in unbound.unbound("sub/mod.py", "where = __qualname__\n")] == [
        "__qualname__"]


def test_every_spelling_of_a_dynamic_binding_makes_a_module_unjudged() -> None:
    # Each of these binds ``counter`` at run time; symtable cannot see it.
    ways = ["from core.masks import  *\n", "g = globals\ng()['counter'] = 0\n",
            "globals ()['counter'] = 0\n", "vars()['counter'] = 0\n",
            "locals()['counter'] = 0\n", "import inspect\n"
            "inspect.currentframe().f_globals['counter'] = 0\n",
            "def hook():\n    pass\nhook.__globals__['counter'] = 0\n",
            "import sys as system\nsetattr(system.modules[__name__], 'counter', 0)\n",
            "from sys import modules\nsetattr(modules[__name__], 'counter', 0)\n",
            "import importlib\nsetattr(importlib.import_module(__name__), 'counter', 0)\n",
            "import builtins\nbuiltins.counter = 0\n",
            "exec ('counter = 0')\n",
            # The builtins reached through an importer: its exec is the builtin one.
            "__import__('builtins').exec('counter = 0')\n",
            "import importlib\nimportlib.import_module('builtins').exec('counter = 0')\n"]
    for way in ways:
        assert unbound.unbound("sub/dyn.py", way + "total = counter + 1\n") == [], way
    # A method that happens to be called eval or exec binds nothing: the module is judged.
    for method in ["net.eval()\n", "runner.exec(plan)\n", "net.eval(); runner.exec(x)\n"]:
        assert "counter" in [u.name for u in unbound.unbound("sub/m.py", method
                                                             + "total = counter\n")], method
    assert unbound.unbound("sub/m.py", "eval('counter = 0')\ntotal = counter\n") == []
    # Importing another module by name is no such handle, nor is its exec.
    for other in ["import importlib\nimportlib.import_module('jobs').exec(plan)\n",
                  "__import__('jobs').exec(plan)\n",
                  "import importlib\nimportlib.import_module(plan).run()\n"]:
        assert [u.name for u in unbound.unbound("sub/m.py", other + "total = counter\n")
                ] == ["counter", "plan"], other
    # Neither a call of vars on an object nor a component's modules() is such a handle.
    for plain in ["settings = vars(options)\n", "parts = list(net.modules())\n"]:
        assert [u.name for u in unbound.unbound("sub/plain.py", plain + "total = counter\n")
                ] == ["counter"] + (["options"] if "options" in plain else ["net"]), plain


def test_reads_that_never_raise_are_no_finding_and_the_rest_still_are() -> None:
    text = '''\
from typing import TYPE_CHECKING
import typing

if TYPE_CHECKING:
    Shape = tuple[Width, Height]
if typing.TYPE_CHECKING:
    Other = Depth
if False:
    debug_dump(state)

try:
    shell = get_shell()
except NameError:
    shell = None
try:
    probe = host_flag
except (ImportError, Exception):
    probe = False
try:
    probe = host_level
except:  # noqa: E722
    probe = 0
else:
    after = host_after
try:
    def later():
        return deferred_helper()
except NameError:
    pass
try:
    value = lookup_table
except KeyError:
    value = None
'''
    # The body of a function defined in the try runs later, outside the handler; an
    # else clause and a handler that cannot catch NameError do not guard.
    assert [(u.name, u.line) for u in unbound.unbound("sub/guarded.py", text)] == [
        ("deferred_helper", 27), ("host_after", 24), ("lookup_table", 31)]


def test_a_packages_init_reads_its_own_submodules_as_bound(tmp_path) -> None:
    # Importing sub.loop (here through the relative import) sets ``loop`` in sub's
    # namespace, and any import of sub.parts.grid sets ``parts``; another module of the
    # package reading the same names still reads globals nothing binds.
    init = "from .loop import Loop\n\nSTEP = loop.Loop\nGRID = parts\n"
    inp = _inp(tmp_path, COPY.replace("build_mask(batch)", "batch"), extra={
        "sub/__init__.py": init, "sub/parts/__init__.py": "", "sub/parts/grid.py": "",
        "sub/other.py": "STEP = loop.Loop\n"})
    assert [(u.file, u.name) for u in unbound.analyse(inp)] == [("sub/other.py", "loop")]


def test_only_the_reads_that_resolve_to_the_globals_are_listed() -> None:
    # ``width`` is a local of ``a`` (line 3) and an unbound global in ``b`` (line 7). A
    # default, a decorator and a comprehension's first iterable run in the enclosing
    # scope (here the module's, where ``rows`` and ``mark`` are unbound), the bodies in
    # their own (where ``rows`` is a parameter).
    text = '''\
def a():
    width = 1
    return width


def b():
    return width


@mark
def c(rows, pick=lambda r=rows: r):
    return [r for r in rows], (lambda: rows), pick


TOTAL = [r for r in rows]
'''
    assert [(u.name, u.line, u.scope, u.lines) for u in unbound.unbound("sub/s.py", text)
            ] == [("mark", 10, "", (10,)), ("rows", 11, "", (11, 15)),
                  ("width", 7, "b", (7,))]


def test_only_the_folders_python_modules_are_read_its_tests_marked(tmp_path) -> None:
    ok = COPY.replace("build_mask(batch)", "batch")
    inp = _inp(tmp_path, ok, extra={
        "core/broken.py": "X = not_here\n", "sub/notes.txt": "see_docs\n",
        "tests/sub/test_top.py": "T = top_helper\n",
        "sub/parts/tests/test_grid.py": "G = grid_helper\n",
        "sub/checks/test_loop.py": "L = loop_helper\n", "sub/real.py": "R = real_gap\n"})
    inp = dataclasses.replace(inp, target=dataclasses.replace(inp.target,
                                                              tests_dir="sub/checks"))
    assert [(u.name, u.test) for u in unbound.analyse(inp)] == [
        ("loop_helper", True), ("grid_helper", True), ("real_gap", False)]


def test_a_tests_dir_that_is_the_folder_itself_leaves_its_modules_read(tmp_path) -> None:
    # A draft that found the folder's one test module among its own code names the folder
    # as ``tests_dir``: its modules are still code, its test-named files still tests.
    ok = COPY.replace("build_mask(batch)", "batch")
    extra = {"sub/runner.py": "def go():\n    return StageBuilder()\n",
             "sub/checks/test_grid.py": "G = grid_helper\n",
             "sub/grid_test.py": "H = other_helper\n",
             "sub/parts/tests/case.py": "C = case_helper\n"}
    inp = _inp(tmp_path / "own", ok, extra=extra)
    inp = dataclasses.replace(inp, target=dataclasses.replace(inp.target, tests_dir="sub"))
    assert [u.name for u in unbound.analyse(inp) if not u.test] == ["StageBuilder"]
    # A tests_dir of its own inside the folder keeps setting its files apart by place,
    # whatever their names; one outside the folder sets none of the folder's apart.
    for tests_dir, names in (("sub/checks", ["StageBuilder", "other_helper"]),
                             ("tests/sub", ["StageBuilder", "grid_helper", "other_helper"])):
        inp = _inp(tmp_path / tests_dir.replace("/", "-"), ok, extra=extra)
        inp = dataclasses.replace(inp, target=dataclasses.replace(inp.target,
                                                                  tests_dir=tests_dir))
        assert sorted(u.name for u in unbound.analyse(inp) if not u.test) == sorted(names), \
            tests_dir
        # Every test file the folder owns is read too, marked as a test.
        assert sorted(u.name for u in unbound.analyse(inp)) == sorted(
            {"StageBuilder", "grid_helper", "other_helper", "case_helper"}), tests_dir


def test_only_python_modules_set_names_on_others(tmp_path) -> None:
    """rev42b (mutation): a module that imports ``sub.real`` and sets ``real_gap`` on it
    binds the name (never reported); the same lines in a text file that is no module
    (notes, a template) run nowhere and bind nothing."""
    ok = COPY.replace("build_mask(batch)", "batch")
    setter = "import sub.real as r\nr.real_gap = 1\n"
    for name, reported in (("sub/boot.py", False), ("sub/boot.txt", True)):
        inp = _inp(tmp_path / name.replace("/", "-"), ok,
                   extra={"sub/real.py": "R = real_gap\n", name: setter})
        assert ("real_gap" in [u.name for u in unbound.analyse(inp)]) is reported, name


def test_a_sub_package_whose_text_was_not_loaded_is_still_a_submodule(tmp_path) -> None:
    inp = _inp(tmp_path, COPY.replace("build_mask(batch)", "batch"), extra={
        "sub/__init__.py": "GRID = parts\n", "sub/parts/__init__.py": ""})
    head = dataclasses.replace(inp.head, files={
        p: t for p, t in inp.head.files.items() if not p.startswith("sub/parts/")})
    assert unbound.analyse(dataclasses.replace(inp, head=head)) == []


def test_annotations_are_no_reads_and_an_unparsed_module_gives_nothing() -> None:
    # Parameter and return annotations without the future import: Python 3.14
    # evaluates them only when asked.
    assert unbound.unbound("sub/sig.py", "def f(x: Width) -> Height:\n    return x\n") == []
    # Nested past the parser's depth bound (symtable would still read it).
    deep = "VALUE = " + "[" * 160 + "missing_leaf" + "]" * 160 + "\n"
    assert unbound.unbound("sub/deep.py", deep) == []
    assert unbound.unbound("sub/broken.py", "def f(:\n    return gone\n") == []


def test_a_name_another_module_sets_on_the_builtins_is_bound(tmp_path) -> None:
    # core/boot.py makes ``trace_step`` and ``log_rank`` builtins for every module.
    boot = ("import builtins as _b\n\n\ndef install():\n    _b.trace_step = print\n"
            "    setattr(_b, 'log_rank', print)\n")
    ours = "def run(x):\n    trace_step(x)\n    log_rank(x)\n    return other_gap(x)\n"
    inp = _inp(tmp_path, ours, extra={"core/boot.py": boot})
    assert [u.name for u in unbound.analyse(inp)] == ["other_gap"]


def test_the_item_names_the_scope_the_reads_and_every_home_of_the_name(tmp_path) -> None:
    # Five reads at module level (four listed, then a count), and the fix for a name
    # defined in no core module, in one, in two, and in four (three named).
    homes = {"core/a.py": "def pad(x):\n    return x\n", "core/b.py": "def pad():\n    pass\n",
             "core/c.py": "class pad:\n    pass\n", "core/d.py": "def pad():\n    pass\n"}
    reads = unbound.Unbound("sub/loop.py", 2, "pad", "", (2, 3, 4, 5, 6))
    fixes = []
    for n in (0, 1, 2, 4):
        inp = _inp(tmp_path / str(n), COPY, extra=dict(list(homes.items())[:n]))
        [item] = unbound_items.items(inp, {"unbound_names": [reads]})
        fixes.append(item.fix)
        assert item.title.startswith("`pad` is read at `loop.py:2`, `loop.py:3`, "
                                     "`loop.py:4`, `loop.py:5`")
        assert "loop.py:6" not in item.title and " (in " not in item.title
    assert fixes == ["define or import `pad`", "import `pad` from `core.a`",
                     "import `pad` from the module that defines it (`core.a`, `core.b`)",
                     "import `pad` from the module that defines it (`core.a`, `core.b`, "
                     "`core.c`)"]
    inp = _inp(tmp_path / "s", COPY)
    [item] = unbound_items.items(inp, {"unbound_names": [
        unbound.Unbound("sub/loop.py", 6, "pad", "step", (6,))]})
    assert "`loop.py:6` (in `step`), but loop.py never imports" in item.title
    assert unbound_items.items(inp, {"unbound_names": None}) == []


def test_handles_that_are_not_the_modules_namespace_leave_it_judged() -> None:
    # None of these can bind `counter`: the module stays judged.
    plain = ["import nets\nparts = nets.modules()\n",
             "def parts(self):\n    return self.net.modules()\n",
             "import sys as system\nflag = system.argv\n", "from sys import path\n",
             "from helpers import modules\n", "from .builtins import extra\n",
             "import logging\nlog = logging.getLogger(__name__)\nprint(__name__)\n",
             "import importlib\nimportlib.import_module('pkg', __name__)\n",
             "print(__file__)\n"]
    for text in plain:
        assert [u.name for u in unbound.unbound("sub/p.py", text + "total = counter\n")
                ] == ["counter"], text
    assert unbound.unbound("sub/b.py", "from builtins import open as fopen\n"
                           "total = counter\n") == []
    # symtable refuses what the parser accepts: nothing is judged.
    assert unbound.unbound("sub/n.py", "def f():\n    nonlocal q\n    return gone\n") == []


def test_only_never_true_tests_and_handlers_of_name_error_guard_a_read() -> None:
    text = '''\
import errors

if True:
    a = gap_true
if DEBUG:
    b = gap_flag
if cfg.debug:
    c = gap_attr
try:
    d = gap_custom
except errors.Custom:
    pass
try:
    e = guarded
except errors.NameError:
    pass
try:
    def later(*, first, second=guarded_default):
        return first
except NameError:
    pass


def kw(*, first, second=gap_kw_default):
    return first
'''
    assert [u.name for u in unbound.unbound("sub/g.py", text)] == [
        "DEBUG", "cfg", "gap_attr", "gap_custom", "gap_flag", "gap_kw_default", "gap_true"]


def test_reads_in_lambdas_and_comprehensions_are_matched_to_their_scopes() -> None:
    text = '''\
fn = lambda: gap_lambda
pair = (lambda: 0, lambda: gap_second)
a = ([1 for _ in ()],); b = lambda: gap_order
SIZES = [scale * r for r in (1, 2)]
PAIRS = [(x, y) for x in (1,) for y in gap_inner]
'''
    assert [u.name for u in unbound.unbound("sub/l.py", text)] == [
        "gap_inner", "gap_lambda", "gap_order", "gap_second", "scale"]


def test_only_the_packages_own_python_modules_are_its_submodules(tmp_path) -> None:
    inp = _inp(tmp_path, COPY.replace("build_mask(batch)", "batch"), extra={
        "sub/__init__.py": "LOGO = assets\nCORE = core\nLOOP = loop\n",
        "sub/assets/logo.txt": "x\n"})
    assert [u.name for u in unbound.analyse(inp)] == ["assets", "core"]


def test_only_stores_on_the_builtins_module_inject_a_name(tmp_path) -> None:
    # Injected: a plain `import builtins` store and a setattr with a constant value, even
    # after an unparsed file that mentions builtins. Not injected: another module's
    # attribute, a read of builtins, a setattr on another object or with a computed name,
    # a getattr, text outside a Python module.
    boot = ("import builtins\nimport os\n\nbuiltins.gap_plain = 1\nsetattr(builtins, "
            "'gap_set', 0)\nos.gap_os = 1\nvalue = builtins.gap_load\n"
            "setattr(os, 'gap_other', 1)\nsetattr(builtins, NAME, 1)\n"
            "getattr(builtins, 'gap_get')\nos.path.join('a')\ncfg.part.size = 1\n"
            "setattr(builtins)\n")
    ours = ("def run():\n    return (gap_plain, gap_set, gap_os, gap_load, gap_other, "
            "gap_get, gap_text)\n")
    inp = _inp(tmp_path, ours, extra={"core/boot.py": boot,
                                      "core/a_broken.py": "import builtins\nbuiltins.x = (\n",
                                      "core/notes.md": "import builtins\nbuiltins.gap_text = 1\n"})
    assert [u.name for u in unbound.analyse(inp)] == [
        "gap_get", "gap_load", "gap_os", "gap_other", "gap_text"]


def test_import_module_of_the_own_name_in_any_spelling_is_dynamic() -> None:
    assert unbound.unbound("sub/d.py", "from importlib import import_module\n"
                           "me = import_module(__name__, 'pkg')\ntotal = counter\n") == []
    # `.modules` of an alias that is not sys is no handle.
    assert [u.name for u in unbound.unbound(
        "sub/d.py", "import nets as n\nparts = n.modules()\ntotal = counter\n")] == ["counter"]


def test_a_name_another_module_sets_on_this_one_is_never_reported(tmp_path) -> None:
    """``m.x = ...`` or ``setattr(m, "x", ...)`` in any module that imported this one
    binds ``x`` among its globals once that code has run: whichever runs first, the
    read is not a sure NameError. Every import spelling that names the module counts."""
    ours = "def step(batch):\n    return limit + batch\n"
    setters = {
        "alias": "import sub.loop as lp\nlp.limit = 3\n",
        "from": "from sub import loop\nsetattr(loop, 'limit', 3)\n",
        "dotted": "import sub.loop\nsub.loop.limit = 3\n",
        "relative": "from . import loop as lp\nlp.limit = 3\n",
    }
    for how, text in setters.items():
        where = "sub/setup.py" if how == "relative" else "core/setup.py"
        inp = _inp(tmp_path / how, ours, extra={where: text})
        assert unbound.analyse(inp) == [], how
    # No match: the same name set on another module, on an object, on a class the
    # setter imported, or compared rather than assigned; the read still raises.
    others = {
        "other module": "import core.masks as cm\ncm.limit = 3\n",
        "object": "from sub import loop\nholder = object()\nholder.limit = 3\n",
        "class": "from core.steps import run_step\nrun_step.limit = 3\n",
        "comparison": "import sub.loop as lp\nok = lp.limit == 3\n",
        "self": "class Box:\n    def __init__(self):\n        self.limit = 3\n",
    }
    for how, text in others.items():
        inp = _inp(tmp_path / how.replace(" ", "-"), ours, extra={"core/setup.py": text})
        assert [u.name for u in unbound.analyse(inp)] == ["limit"], how


REACH = '''\
import torch


def orphan_kernel(rows):
    return pad_rows(rows)


class Converter(torch.nn.Module):
    @staticmethod
    def _skip_probe(mask):
        return probe_ready(mask)

    def forward(self, x):
        return hook_ready(x)

    def __repr__(self):
        return repr_ready()


def outer_unused():
    def inner():
        return nested_name()
    return inner


def runner(batch):
    return shared_name(batch)


def dead_twin(batch):
    return shared_name(batch)


@torch.library.custom_op("lib::fused", mutates_args=())
def fused(x):
    return op_name(x)


def from_main():
    return main_name()


def in_registry():
    return registry_name()


if __name__ == "__main__":
    from_main()
'''


def test_a_name_only_unreached_functions_read_is_a_should_fix_opportunity(tmp_path) -> None:
    # #22 defect 5: P0 only for code that breaks now. A function no code of the
    # repository calls or names (a kept copy of a helper, a static method nobody calls,
    # a function nested in one) raises NameError only once something calls it.
    inp = _inp(tmp_path, COPY.replace("build_mask(batch)", "batch"), extra={
        "sub/kernels.py": REACH,
        "sub/run.py": "from sub.kernels import runner\n\nrunner([])\n",
        "sub/plugins.toml": "[hooks]\nentry = \"in_registry\"\n"})
    found = {u.name: u for u in unbound.analyse(inp)}
    unreached = {"pad_rows", "probe_ready", "nested_name"}
    reached = {"hook_ready", "repr_ready", "shared_name", "op_name", "main_name",
               "registry_name"}
    assert set(found) == unreached | reached
    assert {n for n, u in found.items() if not u.reached} == unreached
    items = {i.facts[1]: i for i in unbound_items.items(inp, {"unbound_names": list(
        found.values())})}
    for name in unreached:
        assert (items[name].kind, items[name].priority) == ("opportunity", "P1"), name
        assert "no code of the repository calls or names" in items[name].title
    for name in reached:
        assert (items[name].kind, items[name].priority) == ("action", "P0"), name


def test_a_caller_anywhere_in_the_repository_makes_the_read_break_now(tmp_path) -> None:
    # No match: the same orphan, once a module outside the folder calls it, or a module
    # of the folder names it as a value, is a P0 again.
    for name, caller in (("core", {"core/use.py": "from sub.kernels import orphan_kernel\n"
                                                  "orphan_kernel([])\n"}),
                         ("value", {"sub/table.py": "from sub.kernels import orphan_kernel"
                                                    "\n\nKERNELS = [orphan_kernel]\n"})):
        inp = _inp(tmp_path / name, COPY.replace("build_mask(batch)", "batch"),
                   extra={"sub/kernels.py": REACH, **caller})
        [pad] = [u for u in unbound.analyse(inp) if u.name == "pad_rows"]
        assert pad.reached, name


NUMERICS = """\
from unittest import TestCase as Base

from core.steps import run_step


class TestModes(Base):
    def init_test(self):
        if self.mode == "replicate":
            self.dims = 1
        else:
            raise ValueError(f"Unsupported mode {mode}")


def test_plain(tmp_path):
    assert run_step(tmp_path, checked_value)


def _never_called():
    return later_helper()
"""


def test_a_name_nothing_binds_in_a_test_file_is_a_p1_action(tmp_path) -> None:
    """#22 defect 5 (census sc-fit24a, sets 16, 18, 25): the numerics test's error branch
    formats ``mode`` where the mode lives on ``self``: a NameError in a test, a P1 (the
    test fails on it), read in a method its base may call and in a ``test_*`` function
    pytest collects; a helper nothing calls stays a should-fix opportunity."""
    inp = _inp(tmp_path, COPY.replace("build_mask(batch)", "batch"),
               extra={"sub/tests/test_numerics.py": NUMERICS})
    found = unbound.analyse(inp)
    assert [(u.name, u.line, u.scope, u.test, u.reached) for u in found] == [
        ("checked_value", 15, "test_plain", True, True),
        ("later_helper", 19, "_never_called", True, False),
        ("mode", 11, "init_test", True, True)]
    items = {i.facts[1]: i for i in unbound_items.items(inp, {"unbound_names": found})}
    assert (items["mode"].kind, items["mode"].priority, items["mode"].severity) == (
        "action", "P1", "should-fix")
    assert items["mode"].where == "sub/tests/test_numerics.py:11"
    assert "test" in items["mode"].why
    assert (items["checked_value"].kind, items["checked_value"].priority) == ("action", "P1")
    assert items["later_helper"].kind == "opportunity"


def test_pytest_fixtures_and_conftest_names_are_bound_in_test_files(tmp_path) -> None:
    """A fixture parameter, pytest's own fixtures, and what a conftest.py of the test's
    folder or a folder above binds (its imports, fixtures, assignments) are no unbound
    reads; a conftest.py of a sibling folder binds nothing for it."""
    test = ("def test_a(loop_fixture, tmp_path):\n"
            "    assert loop_fixture(tmp_path, build_mask, LIMIT, shared_fixture)\n\n\n"
            "def test_b():\n    assert request and monkeypatch and capsys\n\n\n"
            "def test_c():\n    assert sibling_only\n")
    conftests = {
        "sub/tests/unit/conftest.py": "import pytest\nfrom core.masks import build_mask\n\n"
                                      "LIMIT = 3\n\n\n@pytest.fixture\n"
                                      "def loop_fixture():\n    return build_mask\n",
        "sub/conftest.py": "import pytest\n\n\n@pytest.fixture\n"
                           "def shared_fixture():\n    return 1\n",
        "sub/tests/other/conftest.py": "sibling_only = 1\n"}
    inp = _inp(tmp_path / "a", COPY.replace("build_mask(batch)", "batch"),
               extra={"sub/tests/unit/test_loop.py": test, **conftests})
    assert [(u.file, u.name) for u in unbound.analyse(inp)] == [
        ("sub/tests/unit/test_loop.py", "sibling_only")]
    # Match: without the conftest files the same reads are unbound (a fixture name read
    # as a global is no fixture); pytest's own fixtures stay bound.
    inp = _inp(tmp_path / "b", COPY.replace("build_mask(batch)", "batch"),
               extra={"sub/tests/unit/test_loop.py": test})
    assert sorted(u.name for u in unbound.analyse(inp)) == [
        "LIMIT", "build_mask", "shared_fixture", "sibling_only"]
    # The same pytest names in library code are unbound there.
    lib = "def f():\n    return request, tmp_path\n\n\nf()\n"
    assert [u.name for u in unbound.unbound("sub/lib.py", lib)] == ["request", "tmp_path"]
