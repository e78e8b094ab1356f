"""#22 defects 3 and 5: a changed upstream signature is checked against each use the
sub-project has — the arguments a call passes, the parameters an override declares —
and is an action only where that use no longer fits (P0 only where it breaks now);
a use already fitting is "adapted" in one line; a changed default a call relies on
is FYI; a use that passes nothing the change touches is no finding. Fixture
repositories, match and no-match each."""

from __future__ import annotations

import ast
import dataclasses

from agentops.scout.analyses import upstream, usecheck
from agentops.scout.itemize import delta
from tests.scout import minirepo

CORE_OLD = '''\
def build(model, *, fast=False, seed=0, legacy=None):
    return model


class Engine:
    def step(self, batch, scale=1.0):
        return batch

    def run(self, batch):
        return batch
'''
CORE_NEW = '''\
def build(model, *, fast=False, seed=1):
    return model


class Engine:
    def step(self, batch, scale=1.0, *, dropout):
        return batch

    def run(self, batch, *, trace=False):
        return batch
'''


def _inp(tmp_path, sub: dict[str, str], target: str = ""):
    return minirepo.build(tmp_path, base={"core/__init__.py": "", "core/lib.py": CORE_OLD},
                          head={"sub/__init__.py": "", "core/lib.py": CORE_NEW, **sub},
                          target=target)


def _by_symbol(inp) -> dict[str, usecheck.UseCheck]:
    return {u.symbol: u for u in usecheck.discover(inp)}


def test_a_call_passing_a_removed_parameter_breaks_now(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/a.py": "from core.lib import build\n\n"
                                      "def go(m):\n    return build(m, legacy=1)\n"})
    [site] = _by_symbol(inp)["build"].sites
    assert (site.loc, site.verdict, site.severity) == ("sub/a.py:4", "breaks", "blocking")
    assert "legacy=" in site.detail
    items = delta.items(inp, {**_empty(), "use_checks": usecheck.discover(inp)})
    [act] = [i for i in items if i.kind == "action"]
    assert act.priority == "P0" and act.where == "sub/a.py:4"


def test_a_call_passing_none_of_the_removed_parameters_is_no_action(tmp_path) -> None:
    """The transformers-backend case: 'signature changed' for a call passing none of
    the removed parameters is not P0; it is checked and said in one line."""
    inp = _inp(tmp_path, {"sub/a.py": "from core.lib import build\n\n"
                                      "def go(m):\n    return build(m, fast=True, seed=3)\n"})
    [site] = _by_symbol(inp)["build"].sites
    assert site.verdict == "adapted"
    items = delta.items(inp, {**_empty(), "use_checks": usecheck.discover(inp)})
    assert not [i for i in items if i.kind == "action"]
    [fyi] = [i for i in items if "already fits" in i.title]
    assert "`build` (sub/a.py:4)" in fyi.title


POS_OLD = "def pack(rows, width, limit, pad, on_host=False):\n    return rows\n"
POS_NEW = "def pack(rows, width, pad, on_host=False):\n    return rows\n"


def test_a_kept_call_filling_a_removed_slot_by_position_is_an_action(tmp_path) -> None:
    """#22 (set 17 kind d): ``limit`` left the signature; a call unchanged since the
    baseline still passes four positionals, so its ``limit`` lands in ``pad`` and its pad
    in ``on_host``: no TypeError, wrong binding. An action naming the call, not the
    "already fits" line. No match: the call rewritten for the new signature (three
    positionals and ``on_host``), and a call passing the removed slot's neighbours only."""
    user = "from core.pk import pack\n\ndef go(r):\n    return pack(r, 8, 64, 16)\n"
    inp = minirepo.build(tmp_path, base={"core/__init__.py": "", "core/pk.py": POS_OLD,
                                         "sub/__init__.py": "", "sub/a.py": user},
                         head={"core/pk.py": POS_NEW})
    [site] = _by_symbol(inp)["pack"].sites
    assert (site.loc, site.verdict, site.severity) == ("sub/a.py:4", "breaks", "should-fix")
    assert "`limit`" in site.detail and "`pad`" in site.detail
    items = delta.items(inp, {**_empty(), "use_checks": usecheck.discover(inp)})
    [act] = [i for i in items if i.kind == "action"]
    assert act.where == "sub/a.py:4"
    assert not [i for i in items if "already fits" in i.title]
    # No match: the same four positionals written after the change (not at the baseline).
    fixed = user.replace("pack(r, 8, 64, 16)", "pack(r, 8, 16, True)")
    (tmp_path / "b").mkdir()
    inp = minirepo.build(tmp_path / "b", base={"core/__init__.py": "", "core/pk.py": POS_OLD,
                                               "sub/__init__.py": "", "sub/a.py": user},
                         head={"core/pk.py": POS_NEW, "sub/a.py": fixed})
    [site] = _by_symbol(inp)["pack"].sites
    assert site.verdict == "adapted"
    # No match: a kept call that stops before the removed slot.
    short = user.replace("pack(r, 8, 64, 16)", "pack(r, 8)")
    (tmp_path / "c").mkdir()
    inp = minirepo.build(tmp_path / "c", base={"core/__init__.py": "", "core/pk.py": POS_OLD,
                                               "sub/__init__.py": "", "sub/a.py": short},
                         head={"core/pk.py": POS_NEW})
    [site] = _by_symbol(inp)["pack"].sites
    assert site.verdict != "breaks"


def test_a_kept_call_that_fills_only_slots_still_there_is_adapted(tmp_path) -> None:
    """rev42b (mutation): a call kept since the baseline whose positionals reach only
    parameters still in place (``rows``, ``width``) binds as written: adapted, not shifted;
    nor is one reaching a parameter renamed in place (``width`` -> ``size``)."""
    old = "def pack(rows, width, limit=0, pad=0, on_host=False):\n    return rows\n"
    for new in ("def pack(rows, width, pad=0, on_host=False):\n    return rows\n",
                "def pack(rows, size, limit=0, pad=0, on_host=False):\n    return rows\n"):
        user = "from core.pk import pack\n\ndef go(r):\n    return pack(r, 8)\n"
        where = tmp_path / str(len(new))
        where.mkdir()
        inp = minirepo.build(where, base={"core/__init__.py": "", "core/pk.py": old,
                                          "sub/__init__.py": "", "sub/a.py": user},
                             head={"core/pk.py": new})
        [site] = usecheck.check_named(inp, "pack", *(ast.parse(src).body[0]
                                                     for src in (old, new)))
        assert site.verdict == "adapted", new


def test_a_kept_positional_reaching_a_slot_renamed_and_retyped_is_an_action(
        tmp_path) -> None:
    """#22 (set 23, ds23-builder-config-sections): ``build_opt(parts, job: Job, dims)``
    became ``build_opt(parts, opt_cfg: OptCfg, dims)``; a call kept since the baseline
    passes the whole job config by position. The rename alone would change nothing for a
    positional argument, but the slot now takes another type: an action naming the call,
    not "already fits". No match: a rename in place keeping the type (through an alias
    and ``| None``), and a slot renamed where either side declares no type."""
    old = "def build_opt(parts, job: Job, dims):\n    return parts\n"
    user = "from core.pk import build_opt\n\ndef go(p, c, d):\n    return build_opt(p, c, d)\n"
    cases = {"def build_opt(parts, opt_cfg: OptCfg, dims):\n    return parts\n": "breaks",
             "def build_opt(parts, cfg: config.Job | None, dims):\n    return parts\n":
             "adapted",
             "def build_opt(parts, opt_cfg, dims):\n    return parts\n": "adapted"}
    for i, (new, verdict) in enumerate(cases.items()):
        where = tmp_path / str(i)
        where.mkdir()
        inp = minirepo.build(where, base={"core/__init__.py": "", "core/pk.py": old,
                                          "sub/__init__.py": "", "sub/a.py": user},
                             head={"core/pk.py": new})
        [site] = _by_symbol(inp)["build_opt"].sites
        assert site.verdict == verdict, new
        [named] = usecheck.check_named(inp, "build_opt", *(ast.parse(src).body[0]
                                                           for src in (old, new)))
        assert named.verdict == verdict, new
        items = delta.items(inp, {**_empty(), "use_checks": usecheck.discover(inp)})
        acts = [a for a in items if a.kind == "action"]
        if verdict == "breaks":
            assert site.severity == "should-fix"
            assert "`job`" in site.detail and "`opt_cfg`" in site.detail
            assert "`Job` -> `OptCfg`" in site.detail
            assert [a.where for a in acts] == ["sub/a.py:4"]
            assert not [a for a in items if "already fits" in a.title]
        else:
            assert not acts
    # No match: the same call written after the change (not kept since the baseline).
    where = tmp_path / "late"
    where.mkdir()
    inp = minirepo.build(where, base={"core/__init__.py": "", "core/pk.py": old,
                                      "sub/__init__.py": "", "sub/a.py": user.replace(
                                          "(p, c, d)", "(p, c.opt, d)")},
                         head={"core/pk.py": next(iter(cases)), "sub/a.py": user})
    [site] = _by_symbol(inp)["build_opt"].sites
    assert site.verdict == "adapted"


def test_a_named_surface_reads_its_kept_calls_by_the_old_signature_too(tmp_path) -> None:
    """rev42b (mutation): ``check_named`` (a configured fragile function) tells a call
    kept since the baseline, which still fills the removed slot by position, from the
    same call written after the change; with no baseline tree no call is kept, and
    none is read as shifted."""
    old, new = (ast.parse(src).body[0] for src in (POS_OLD, POS_NEW))
    user = "from core.pk import pack\n\ndef go(r):\n    return pack(r, 8, 64, 16)\n"
    base = {"core/__init__.py": "", "core/pk.py": POS_OLD, "sub/__init__.py": "",
            "sub/a.py": user}
    inp = minirepo.build(tmp_path, base=base, head={"core/pk.py": POS_NEW})
    [site] = usecheck.check_named(inp, "pack", old, new)
    assert (site.verdict, site.severity) == ("breaks", "should-fix")
    assert "`limit`" in site.detail
    (tmp_path / "b").mkdir()
    inp = minirepo.build(tmp_path / "b", base={**base, "sub/a.py": user.replace(
        "pack(r, 8, 64, 16)", "pack(r, 8, 64, 32)")}, head={"core/pk.py": POS_NEW,
                                                           "sub/a.py": user})
    [site] = usecheck.check_named(inp, "pack", old, new)
    assert site.verdict == "adapted"
    [site] = usecheck.check_named(dataclasses.replace(inp, base=None), "pack", old, new)
    assert site.verdict == "adapted"


def test_a_changed_default_the_call_relies_on_is_fyi(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/a.py": "from core.lib import build\n\n"
                                      "def go(m):\n    return build(m)\n"})
    [site] = _by_symbol(inp)["build"].sites
    assert site.verdict == "default" and "`seed` (0 -> 1)" in site.detail
    items = delta.items(inp, {**_empty(), "use_checks": usecheck.discover(inp)})
    assert not [i for i in items if i.kind == "action"]
    assert [i for i in items if i.kind == "fyi" and "rely on" in i.title]


def test_an_override_is_a_reference_checked_against_the_new_signature(tmp_path) -> None:
    sub = '''\
from core.lib import Engine


class Mine(Engine):
    def step(self, batch, scale=1.0):
        return super().step(batch, scale)

    def run(self, batch, *, trace=False):
        return batch
'''
    inp = _inp(tmp_path, {"sub/m.py": sub})
    found = _by_symbol(inp)
    step = {s.how: s for s in found["Engine.step"].sites}
    # The override lacks the new required `dropout`, and its super() call misses it.
    assert step["override"].verdict == "needs change"
    assert step["override"].severity == "blocking" and "dropout" in step["override"].detail
    assert step["super call"].verdict == "breaks"
    # Already adapted: says so, no action.
    [run] = found["Engine.run"].sites
    assert (run.how, run.verdict) == ("override", "adapted")
    items = delta.items(inp, {**_empty(), "use_checks": usecheck.discover(inp)})
    actions = [i for i in items if i.kind == "action"]
    assert [a.where for a in actions] == ["sub/m.py:5, sub/m.py:6"]
    assert any("`Engine.run` (sub/m.py:8)" in i.title for i in items if i.kind == "fyi")


def test_an_override_declaring_a_removed_parameter_needs_a_change(tmp_path) -> None:
    sub = '''\
from core.lib import Engine


class Mine(Engine):
    def step(self, batch, scale=1.0, *, dropout, legacy=None):
        return batch
'''
    old = CORE_NEW.replace("scale=1.0, *, dropout", "scale=1.0, *, dropout, legacy=None")
    inp = minirepo.build(tmp_path, base={"core/__init__.py": "", "core/lib.py": old},
                         head={"sub/__init__.py": "", "core/lib.py": CORE_NEW, "sub/m.py": sub})
    [site] = _by_symbol(inp)["Engine.step"].sites
    assert site.verdict == "needs change" and site.severity == "should-fix"
    assert "declares `legacy`" in site.detail


def test_an_unrelated_class_of_the_same_method_name_is_not_a_use(tmp_path) -> None:
    sub = '''\
class Other:
    def step(self, batch):
        return batch


def go(e):
    return e.run(1)
'''
    assert usecheck.discover(_inp(tmp_path, {"sub/m.py": sub})) == []


def test_configured_surface_severity_from_use(tmp_path) -> None:
    """A configured function surface: P0 only where a call passes the removed
    parameter; a call passing none of them makes it no action."""
    target = ("fragile_surfaces:\n  functions:\n"
              "    - {name: build, file: core/lib.py}\n")
    ok = _inp(tmp_path / "ok", {"sub/a.py": "from core import lib\n\n"
                                            "def go(m):\n    return lib.build(m, fast=1)\n"},
              target)
    [ch] = [c for c in upstream.fragile_changes(ok) if c.symbol == "build"]
    assert ch.uses == () and ch.adapted == ("sub/a.py:4",)
    bad = _inp(tmp_path / "bad", {"sub/a.py": "from core import lib\n\n"
                                              "def go(m):\n    return lib.build(m, legacy=2)\n"},
               target)
    [ch] = [c for c in upstream.fragile_changes(bad) if c.symbol == "build"]
    assert ch.uses == ("sub/a.py:4",) and ch.severity == "blocking"


def _empty() -> dict:
    return {"fragile_surface_changes": [], "config_drift": [], "stale_patches": [],
            "listed_patches": [], "new_apis": [], "new_models": []}


def test_a_positional_parameter_renamed_in_place_is_no_break(tmp_path) -> None:
    old = "class MoE:\n    def forward(self, x):\n        return x\n"
    new = "class MoE:\n    def forward(self, x_TD):\n        return x_TD\n"
    sub = "from core.moe import MoE\n\n\nclass Mine(MoE):\n    def forward(self, x):\n" \
          "        return x\n"
    inp = minirepo.build(tmp_path, base={"core/__init__.py": "", "core/moe.py": old},
                         head={"sub/__init__.py": "", "core/moe.py": new, "sub/m.py": sub})
    [site] = _by_symbol(inp)["MoE.forward"].sites
    assert site.verdict == "adapted"
    # The override's own name for it (neither upstream's old nor new) binds the same.
    own = sub.replace("forward(self, x)", "forward(self, hidden)").replace("return x",
                                                                           "return hidden")
    inp = minirepo.build(tmp_path / "c", base={"core/__init__.py": "", "core/moe.py": old},
                         head={"sub/__init__.py": "", "core/moe.py": new, "sub/m.py": own})
    assert [s.verdict for s in _by_symbol(inp)["MoE.forward"].sites] == ["adapted"]
    # No match: an override that drops the parameter altogether does not fit.
    sub2 = sub.replace("def forward(self, x):\n        return x", "def forward(self):\n"
                       "        return 1")
    inp = minirepo.build(tmp_path / "b", base={"core/__init__.py": "", "core/moe.py": old},
                         head={"sub/__init__.py": "", "core/moe.py": new, "sub/m.py": sub2})
    [site] = _by_symbol(inp)["MoE.forward"].sites
    assert site.verdict == "needs change" and "x_TD" in site.detail


def test_private_apis_of_any_imported_package_each_by_file_and_line(tmp_path) -> None:
    """#22 defect 9: private names of any package (not only the configured roots),
    each use named with file:line; the sub-project's own `_names` are not private API."""
    from agentops.scout.analyses import debt
    from agentops.scout.itemize import debt as debt_items

    sub = ("from vllm.worker import _Runner\nfrom core._impl import helper\n"
           "from core.lib import build\nfrom sub.inner import _mine\nfrom . import _rel\n")
    inp = _inp(tmp_path, {"sub/a.py": sub, "sub/inner.py": "_mine = 1\n"},
               "private_api:\n  private_import_roots: [torch]\n")
    uses = debt.private_api_uses(inp)
    assert [(u.file, u.line, u.module, u.name) for u in uses] == [
        ("sub/a.py", 1, "vllm.worker", "_Runner"), ("sub/a.py", 2, "core._impl", "helper")]
    [item] = debt_items._private(inp, {"private_api_uses": uses})
    assert "`vllm.worker._Runner` (a.py:1)" in item.title
    assert "`core._impl.helper` (a.py:2)" in item.title


def test_a_configured_surface_that_moved_is_not_checked_never_silent(tmp_path) -> None:
    """#22: a symbol the target lists that is not where it says at HEAD is named as
    "not checked (why)" in All Clear; one that is there is not."""
    from agentops.scout.itemize import clear

    target = ("fragile_surfaces:\n  functions:\n"
              "    - {name: build, file: core/lib.py}\n"
              "    - {name: Engine.gone, file: core/lib.py}\n"
              "    - {name: Moved, file: core/old.py}\n")
    inp = _inp(tmp_path, {}, target)
    lines = [t for s, t in clear._lost_symbols(inp)]
    assert len(lines) == 1
    assert "`Engine.gone` (not defined in core/lib.py)" in lines[0]
    assert "`Moved` (core/old.py is not at HEAD)" in lines[0]
    assert "`build`" not in lines[0]


def test_a_configured_surface_its_file_imports_from_elsewhere_is_checked(tmp_path) -> None:
    """#22: a listed class the file now imports from a sibling module (``from .shapes
    import Shape``) is still provided there and compared where it resolves, so All Clear
    does not call it "not checked"; a name the file neither defines nor imports is."""
    from agentops.scout.itemize import clear

    target = ("fragile_surfaces:\n  classes:\n"
              "    - {name: Shape, file: core/proto.py}\n"
              "    - {name: Shape.grow, file: core/proto.py}\n"
              "    - {name: Missing, file: core/proto.py}\n")
    inp = _inp(tmp_path, {"core/proto.py": "from .shapes import Shape\n",
                          "core/shapes.py": "class Shape:\n    def grow(self):\n"
                                            "        return 1\n"}, target)
    [line] = [t for s, t in clear._lost_symbols(inp)]
    assert "`Missing` (not defined in core/proto.py)" in line
    assert "`Shape" not in line


def test_a_keyword_that_lags_a_parameter_rename_names_the_new_name(tmp_path) -> None:
    """#22 defect 8: a call still passing a parameter by its old name breaks, and the
    finding names the new one; a call passing it by position does not."""
    old = "def attn(q, n_heads=8):\n    return q\n"
    new = "def attn(q, num_heads=8):\n    return q\n"
    by_kw = "from core.a import attn\n\n\ndef f(q):\n    return attn(q, n_heads=4)\n"
    inp = minirepo.build(tmp_path, base={"core/__init__.py": "", "core/a.py": old},
                         head={"sub/__init__.py": "", "core/a.py": new, "sub/m.py": by_kw})
    [site] = _by_symbol(inp)["attn"].sites
    assert site.verdict == "breaks" and "(renamed to `num_heads`)" in site.detail
    by_pos = by_kw.replace("n_heads=4", "4")
    inp = minirepo.build(tmp_path / "b", base={"core/__init__.py": "", "core/a.py": old},
                         head={"sub/__init__.py": "", "core/a.py": new, "sub/m.py": by_pos})
    assert [s.verdict for s in _by_symbol(inp)["attn"].sites] == ["adapted"]


def test_a_field_renamed_upstream_that_the_sub_project_still_reads(tmp_path) -> None:
    """#22 defect 8: a field removed and a same-typed, similar one added to the same
    class is a rename; the sub-project's reads of the old name (also as a string key)
    are where it lags."""
    old = "class Cfg:\n    n_heads: int = 8\n    dim: int = 4\n"
    new = "class Cfg:\n    num_heads: int = 8\n    dim: int = 4\n    depth: int = 2\n"
    sub = "def f(cfg, sd):\n    return cfg.n_heads, sd['n_heads']\n"
    target = "fragile_surfaces:\n  classes:\n    - {name: Cfg, file: core/c.py}\n"
    inp = minirepo.build(tmp_path, base={"core/c.py": old},
                         head={"core/c.py": new, "sub/m.py": sub}, target=target)
    changes = {c.symbol: c for c in upstream.fragile_changes(inp)}
    ren = changes["Cfg.n_heads"]
    assert ren.change == "field renamed: n_heads -> num_heads"
    assert ren.uses == ("sub/m.py:2",) and ren.severity == "blocking"
    assert "Cfg.num_heads" not in changes  # said once, as the rename
    # No match: an unrelated new field is an addition, not a rename.
    assert changes["Cfg.depth"].change.startswith("field added")


def test_dead_parameters_no_caller_sets(tmp_path) -> None:
    """#22 defect 8: a defaulted parameter of a called function that no call sets (by
    keyword or position) is dead; one a call sets, or a function handed around as a
    value (unknown callers), is not."""
    from agentops.scout.analyses import deadparams

    sub = '''\
def build(model, *, fused=False, legacy_mode="x", seed=0):
    return model


def hook(x, scale=1.0):
    return x


def run(m):
    build(m, seed=3)
    build(m)
    register(hook)
    return hook(m)
'''
    inp = minirepo.build(tmp_path, head={"sub/__init__.py": "", "sub/b.py": sub})
    found = deadparams.analyse(inp)
    assert [(d.function, d.params, d.line) for d in found] == [
        ("build", ("fused", "legacy_mode"), 1)]
    # A test that sets one by keyword makes it settable.
    inp = minirepo.build(tmp_path / "b", head={
        "sub/__init__.py": "", "sub/b.py": sub,
        "sub/tests/test_b.py": "from sub.b import build\n\n\ndef test_b():\n"
                               "    build(1, fused=True)\n"})
    assert [(d.function, d.params) for d in deadparams.analyse(inp)] == [
        ("build", ("legacy_mode",))]


def test_dead_parameters_of_private_helpers(tmp_path) -> None:
    """#22 defect 8: a private helper whose callers (all in the sub-project) never set a
    defaulted parameter has a dead one (a capacity factor forwarded to the experts but
    passed by no flavor: the helper's own forward sets nothing); a private helper
    handed around as a value is not judged."""
    from agentops.scout.analyses import deadparams

    sub = '''\
def _build_layers(n, dim, capacity_factor=None, bias=False):
    return [Experts(n, dim, capacity_factor=capacity_factor), bias]


def _hook(x, scale=1.0):
    return x


def _small():
    return _build_layers(2, 8, bias=True)


def _large():
    register(_hook)
    return _build_layers(8, 64)
'''
    inp = minirepo.build(tmp_path, head={"sub/__init__.py": "", "sub/flavors.py": sub})
    assert [(d.function, d.params, d.line) for d in deadparams.analyse(inp)] == [
        ("_build_layers", ("capacity_factor",), 1)]
    # No match: once a flavor passes it, the parameter is live.
    live = sub.replace("_build_layers(8, 64)", "_build_layers(8, 64, capacity_factor=1.5)")
    inp = minirepo.build(tmp_path / "b", head={"sub/__init__.py": "", "sub/flavors.py": live})
    assert deadparams.analyse(inp) == []


def test_a_change_with_no_commit_to_name_is_dated_in_the_window(tmp_path) -> None:
    """S-1 wording: both trees were compared, so a surface or use-check change with no
    window commit to name was still made in the window; the title says why no commit is
    named (its file is outside `watched_paths`, or their log does not touch it), never
    "before the baseline window"."""
    target = ("fragile_surfaces:\n  functions:\n"
              "    - {name: build, file: other/lib.py}\n")
    user = "from other import lib\n\ndef go(m):\n    return lib.build(m, legacy=2)\n"
    inp = minirepo.build(tmp_path / "out", base={"other/__init__.py": "", "other/lib.py": CORE_OLD},
                         head={"sub/__init__.py": "", "other/lib.py": CORE_NEW, "sub/a.py": user},
                         target=target)
    changes = [c for c in upstream.fragile_changes(inp) if c.symbol == "build"]
    assert changes[0].commit == ""
    [act] = [i for i in delta.items(inp, {**_empty(), "fragile_surface_changes": changes})
             if i.kind == "action"]
    assert "before the baseline window" not in act.title + act.fix
    assert "(in the window; its file is outside `watched_paths`)" in act.title
    assert act.fix.endswith("(see other/lib.py at HEAD)")
    # A watched file whose change the log does not show (moved there): the same date.
    inp = _inp(tmp_path / "w", {"sub/a.py": "from core.lib import build\n\n"
                                             "def go(m):\n    return build(m, legacy=1)\n"})
    checks = [dataclasses.replace(u, commit="") for u in usecheck.discover(inp)]
    [act] = [i for i in delta.items(inp, {**_empty(), "use_checks": checks})
             if i.kind == "action"]
    assert "(in the window; no commit of `watched_paths` names its file)" in act.title
    assert "before the baseline window" not in act.title + act.fix
    # No match: a commit the log names is the date.
    checks = usecheck.discover(inp)
    [act] = [i for i in delta.items(inp, {**_empty(), "use_checks": checks})
             if i.kind == "action"]
    assert f"({checks[0].commit[:9]})" in act.title and "in the window" not in act.title
