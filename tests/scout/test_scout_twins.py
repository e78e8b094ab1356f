"""#22 defect 4, copies no configured pair names: a sub-project module that imports from a
core module and re-defines a function (a twin) or a collection of names under the same
name there is a copy of it. A twin function is compared like a configured copy (what
core added in the window that it lacks) once it repeats a third of core's statements; a
twin collection reports core's entries new in the window that it lacks and its entries
that stop at the prefix of one of core's. Made-up trees, match and no-match each."""

from __future__ import annotations

import dataclasses

from agentops.scout.analyses import bodydrift
from agentops.scout.itemize import delta
from tests.scout import minirepo

PLAN_OLD = '''\
def helper(m):
    return m


def plan_model(model, cfg, dims):
    if dims.tp:
        helper(model)
        shard(model, mesh=dims.mesh)
    if cfg.check:
        verify(model)
    wrap(model, cfg)
    finish(model)
    tidy(model)
    return model
'''
PLAN_NEW = PLAN_OLD.replace("shard(model, mesh=dims.mesh)",
                            "shard(model, mesh=dims.mesh, overlap=dims.overlap)")
TWIN = '''\
from core.plan import helper


def plan_model(model, cfg, dims):
    if dims.tp:
        helper(model)
        shard(model, mesh=dims.mesh)
    my_wrap(model)
    return model
'''

KEEP_OLD = '''\
from x import ops

KEEP = {
    ops.alpha.run.default,
    ops.beta.run.default,
    ops.gamma.run.default,
}


def pick(op):
    return op in KEEP
'''
KEEP_NEW = KEEP_OLD.replace("    ops.gamma.run.default,\n", "    ops.gamma.run.default,\n"
                            "    ops.delta.run.default,\n    ops.omega.run.default,\n")
KEEP_COPY = '''\
from x import ops

from core.keep import pick

KEEP = {
    ops.alpha.run.default,
    ops.beta.run.default,
    ops.gamma.run.default,
    ops.omega.run,
}
'''


def _inp(tmp_path, sub: dict[str, str]):
    base = {"core/__init__.py": "", "core/plan.py": PLAN_OLD, "core/keep.py": KEEP_OLD}
    head = {"sub/__init__.py": "", "core/plan.py": PLAN_NEW, "core/keep.py": KEEP_NEW, **sub}
    return minirepo.build(tmp_path, base=base, head=head)


def test_a_twin_function_lacking_what_core_added_is_drift(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/plan.py": TWIN})
    # under the whole-body bar of an override: only the twin pairing compares it
    old = bodydrift._find(PLAN_OLD, "plan_model")
    mine = bodydrift._find(TWIN, "plan_model")
    assert bodydrift.MIN_TWIN <= bodydrift.similarity(old, mine) < bodydrift.MIN_SIMILAR
    [d] = bodydrift.analyse(inp)
    assert (d.ours, d.upstream, d.function, d.how) == ("sub/plan.py:4", "core/plan.py:5",
                                                       "plan_model", "copy")
    assert d.units == ("keyword `shard(overlap=…)`",)


def test_no_twin_without_the_import_or_the_shared_statements(tmp_path) -> None:
    # the module takes nothing from core's: a function of the same name is its own
    alone = TWIN.replace("from core.plan import helper\n", "from sub.util import helper\n")
    assert bodydrift.analyse(_inp(tmp_path / "a", {"sub/plan.py": alone,
                                                   "sub/util.py": "def helper(m):\n"
                                                                  "    return m\n"})) == []
    # it imports from core's module but repeats under a third of the function
    own = TWIN.replace("        helper(model)\n", "        my_helper(model)\n").replace(
        "    return model\n", "    return model.done()\n")
    assert bodydrift.analyse(_inp(tmp_path / "b", {"sub/plan.py": own})) == []
    # it follows core's change
    assert bodydrift.analyse(_inp(tmp_path / "c", {"sub/plan.py": TWIN.replace(
        "mesh=dims.mesh)", "mesh=dims.mesh, overlap=dims.overlap)")})) == []


def test_a_twin_collection_with_a_prefix_entry_and_a_lacking_one(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/keep.py": KEEP_COPY})
    [d] = bodydrift.list_drift(inp)
    assert (d.ours, d.upstream, d.name) == ("sub/keep.py:5", "core/keep.py:3", "KEEP")
    assert d.coarse == (("ops.omega.run", "ops.omega.run.default"),)
    assert d.lacking == ("ops.delta.run.default",)
    assert d.commits == (inp.commits[0].sha,)
    [act] = [i for i in delta.items(inp, {**_empty(), "list_drift": [d]})
             if i.kind == "action"]
    assert act.where == "sub/keep.py:5 (upstream core/keep.py:3)"
    assert "`ops.omega.run` where core's names `ops.omega.run.default`" in act.title
    assert "`ops.delta.run.default`" in act.title and inp.commits[0].sha[:9] in act.title


def test_no_collection_drift_when_in_step_unrelated_or_not_imported(tmp_path) -> None:
    in_step = KEEP_COPY.replace("    ops.omega.run,\n", "    ops.delta.run.default,\n"
                                "    ops.omega.run.default,\n")
    assert bodydrift.list_drift(_inp(tmp_path / "a", {"sub/keep.py": in_step})) == []
    # same name, a list of its own (under half of core's entries)
    own = "from x import ops\n\nfrom core.keep import pick\n\n" \
          "KEEP = [ops.zeta.run.default, ops.eta.run.default, ops.alpha.run]\n"
    assert bodydrift.list_drift(_inp(tmp_path / "b", {"sub/keep.py": own})) == []
    # nothing imported from core's module: no twin
    alone = KEEP_COPY.replace("from core.keep import pick\n", "")
    assert bodydrift.list_drift(_inp(tmp_path / "c", {"sub/keep.py": alone})) == []


def _empty() -> dict:
    return {"fragile_surface_changes": [], "config_drift": [], "stale_patches": [],
            "listed_patches": [], "new_apis": [], "new_models": []}


GRID_OLD = '''\
class Grid:
    def build(self):
        names = []
        for size, name in zip([self.a, self.b, self.c, self.d],
                              ["alpha", "beta", "gamma", "delta"]):
            if size > 1:
                names.append(name)
        return make_grid(names)
'''
GRID_NEW = GRID_OLD.replace("make_grid(names)", "make_grid(tuple(names))")
GRID_OVERRIDE = '''\
from core.grid import Grid


class MyGrid(Grid):
    def build(self):
        """Builds the grid with our own transport."""
        shape = (self.a, self.b, self.c, self.d)
        labels = ["alpha", "beta", "gamma", "delta"]
        handle = transport_grid(shape, labels)
        return handle.grid
'''


def _grid(tmp_path, override: str, new: str = GRID_NEW):
    return minirepo.build(tmp_path, base={"core/__init__.py": "", "core/grid.py": GRID_OLD},
                          head={"sub/__init__.py": "", "core/grid.py": new,
                                "sub/grid.py": override})


def test_an_override_spelling_all_of_cores_names_is_a_name_copy(tmp_path) -> None:
    inp = _grid(tmp_path, GRID_OVERRIDE)
    assert bodydrift.analyse(inp) == []  # under the statement bar: not compared by unit
    [c] = bodydrift.name_copies(inp)
    assert (c.ours, c.upstream, c.function) == ("sub/grid.py:5", "core/grid.py:2",
                                                "Grid.build")
    assert c.names == ("alpha", "beta", "delta", "gamma")
    assert c.commit == inp.commits[0].sha
    [opp] = [i for i in delta.items(inp, {**_empty(), "name_copies": [c]})
             if i.kind == "opportunity"]
    assert "re-implements `Grid.build` without super()" in opp.title


def test_no_name_copy_when_names_differ_core_is_unchanged_or_super_runs(tmp_path) -> None:
    # one of core's names is not the override's: its own design
    assert bodydrift.name_copies(_grid(tmp_path / "a", GRID_OVERRIDE.replace(
        '"delta"', '"epsilon"'))) == []
    # core's method did not change in the window
    assert bodydrift.name_copies(_grid(tmp_path / "b", GRID_OVERRIDE, GRID_OLD)) == []
    # the override builds on core's
    assert bodydrift.name_copies(_grid(tmp_path / "c", GRID_OVERRIDE.replace(
        "        return handle.grid\n", "        return super().build()\n"))) == []


def test_a_folder_beside_the_sub_project_is_no_twin(tmp_path) -> None:
    def run(where: str, module: str):
        base = {"core/__init__.py": "", "core/keep.py": KEEP_OLD, "pkg/__init__.py": "",
                "pkg/other/__init__.py": "", "pkg/other/keep.py": KEEP_OLD}
        head = {**base, "core/keep.py": KEEP_NEW, "pkg/other/keep.py": KEEP_NEW,
                "pkg/sub/__init__.py": "",
                "pkg/sub/keep.py": KEEP_COPY.replace("core.keep", module)}
        inp = minirepo.build(where, base=base, head=head)
        return bodydrift.list_drift(dataclasses.replace(
            inp, target=dataclasses.replace(inp.target, subproject="pkg/sub")))
    # a sibling folder's list of the same name is a fellow copy, not the source
    assert run(tmp_path / "a", "pkg.other.keep") == []
    [d] = run(tmp_path / "b", "core.keep")
    assert d.ours == "pkg/sub/keep.py:5"


SHORT_OLD = '''\
def helper(m):
    return m


def place(model, cfg):
    helper(model)
    shard(model, mesh=cfg.mesh)
    wrap(model)
    return model
'''


def test_the_statement_bar_of_a_twin_and_upstream_files_reading_the_cache(tmp_path) -> None:
    """Review rev44a (mutation): core's function of four statements (the bar) has a twin,
    one of three has none; ``upstream_files`` (called after ``analyse`` on the same
    inputs, from the cache) names the twin's core module."""
    new = SHORT_OLD.replace("mesh=cfg.mesh)", "mesh=cfg.mesh, overlap=True)")
    twin = "from core.place import helper\n\n\n" + SHORT_OLD.split("\n\n\n", 1)[1]
    for n, drop, found in [(0, "", True), (1, "    wrap(model)\n", False)]:
        inp = minirepo.build(tmp_path / str(n),
                             base={"core/__init__.py": "",
                                   "core/place.py": SHORT_OLD.replace(drop, "")},
                             head={"sub/__init__.py": "", "core/place.py": new.replace(drop, ""),
                                   "sub/place.py": twin.replace(drop, "")})
        got = bodydrift.analyse(inp)
        assert [(d.function, d.how) for d in got] == ([("place", "copy")] if found else [])
        assert ("core/place.py" in bodydrift.upstream_files(inp)) == found


def test_tests_and_modules_outside_the_sub_project_are_no_twins(tmp_path) -> None:
    """Review rev44a (mutation): a test module of the sub-project, or a module outside
    it, that repeats core's function or collection is not read as the folder's copy."""
    for n, path in enumerate(["sub/tests/test_plan.py", "other/plan.py"]):
        inp = _inp(tmp_path / str(n), {path: TWIN, path.replace("plan", "keep"): KEEP_COPY,
                                       "other/__init__.py": ""})
        assert bodydrift.analyse(inp) == [] and bodydrift.list_drift(inp) == [], path


def test_a_core_function_new_in_the_window_is_paired_as_it_is_at_head(tmp_path) -> None:
    """Review rev44a (mutation): core's function absent at the baseline is compared with
    the twin as it stands at HEAD (the pair then lets a function moved between core's
    modules be followed)."""
    inp = minirepo.build(tmp_path, base={"core/__init__.py": "",
                                         "core/plan.py": "def helper(m):\n    return m\n"},
                         head={"sub/__init__.py": "", "core/plan.py": PLAN_NEW,
                               "sub/plan.py": TWIN.replace("mesh=dims.mesh)", "mesh=dims.mesh, "
                                                           "overlap=dims.overlap)")})
    assert [(fn.name, f, up) for fn, f, up, _q in bodydrift._twins(inp)] == [
        ("plan_model", "sub/plan.py", "core/plan.py")]


def test_a_twin_collection_only_lacking_what_core_added(tmp_path) -> None:
    """Review rev44a (mutation): no prefix entry, only core's new entries missing."""
    copy = KEEP_COPY.replace("    ops.omega.run,\n", "")
    [d] = bodydrift.list_drift(_inp(tmp_path, {"sub/keep.py": copy}))
    assert (d.coarse, d.lacking) == ((), ("ops.delta.run.default", "ops.omega.run.default"))


def test_name_copies_past_a_failing_override_a_leading_call_and_no_baseline(tmp_path) -> None:
    """Review rev44a (mutation): an override whose names differ does not stop the scan of
    the next; a first statement that is a call (not a docstring) counts its names; with
    no baseline there is no window and no finding."""
    other = GRID_OVERRIDE.replace('"delta"', '"epsilon"').replace("MyGrid", "OtherGrid")
    inp = minirepo.build(tmp_path / "a", base={"core/__init__.py": "",
                                               "core/grid.py": GRID_OLD},
                         head={"sub/__init__.py": "", "core/grid.py": GRID_NEW,
                               "sub/a_grid.py": other, "sub/grid.py": GRID_OVERRIDE})
    assert [c.ours for c in bodydrift.name_copies(inp)] == ["sub/grid.py:5"]
    leading = GRID_OVERRIDE.replace('        """Builds the grid with our own transport."""\n',
                                    '        check_first("alpha")\n').replace(
        '["alpha", "beta"', '["beta"')
    [c] = bodydrift.name_copies(_grid(tmp_path / "b", leading))
    assert c.names == ("alpha", "beta", "delta", "gamma")
    bare = minirepo.build(tmp_path / "c", head={"core/__init__.py": "", "core/grid.py": GRID_NEW,
                                                "sub/__init__.py": "",
                                                "sub/grid.py": GRID_OVERRIDE})
    assert bare.base is None and bodydrift.name_copies(bare) == []


def test_of_two_core_modules_defining_the_name_the_twin_is_the_closer(tmp_path) -> None:
    """Review rev44a (#22, S-4): the folder module imports from two core modules that
    both define the function; it repeats a third of the first (in path order) and most
    of the second, which changed in the window: the second is its twin."""
    other = ("def x(m):\n    return m\n\n\ndef plan_model(model, cfg, dims):\n"
             "    helper(model)\n    x(model)\n    y(model)\n    z(model)\n    w(model)\n"
             "    return model\n")
    twin = "from core.aaa import x\n" + TWIN
    inp = minirepo.build(tmp_path, base={"core/__init__.py": "", "core/plan.py": PLAN_OLD,
                                         "core/aaa.py": other},
                         head={"sub/__init__.py": "", "core/plan.py": PLAN_NEW,
                               "core/aaa.py": other, "sub/plan.py": twin})
    old, mine = bodydrift._find(other, "plan_model"), bodydrift._find(twin, "plan_model")
    assert bodydrift.similarity(old, mine) >= bodydrift.MIN_TWIN
    [d] = bodydrift.analyse(inp)
    assert (d.upstream, d.units) == ("core/plan.py:5", ("keyword `shard(overlap=…)`",))
