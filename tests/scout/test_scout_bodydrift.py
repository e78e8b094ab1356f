"""#22 defect 4: a function the sub-project copies (``duplicate_logic``) or overrides
without ``super()`` drifts when upstream adds a guard, an assertion, a raise, a call
statement or a keyword argument since the baseline that the copy lacks: one action
item naming both sides and the commit; the upstream delta is then never "nothing
actionable". Fixture repositories, match and no-match each."""

from __future__ import annotations

from agentops.scout.analyses import bodydrift
from agentops.scout.itemize import clear, delta
from tests.scout import minirepo

CORE_OLD = '''\
class Loader:
    def load(self, state, strict=False):
        model = self.build(state)
        return model.apply(state)
'''
CORE_NEW = '''\
class Loader:
    def load(self, state, strict=False):
        if state is None:
            raise ValueError("no state")
        model = self.build(state)
        return model.apply(state, assign=True)
'''
OVERRIDE = '''\
from core.load import Loader


class MyLoader(Loader):
    def load(self, state, strict=False):
        model = self.build(state)
        return model.apply(state)
'''


def _inp(tmp_path, sub: dict[str, str], target: str = ""):
    return minirepo.build(tmp_path, base={"core/__init__.py": "", "core/load.py": CORE_OLD},
                          head={"sub/__init__.py": "", "core/load.py": CORE_NEW, **sub},
                          target=target)


def test_an_override_lacking_what_upstream_added_is_an_action(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/l.py": OVERRIDE})
    [d] = bodydrift.analyse(inp)
    assert (d.ours, d.upstream, d.function, d.how) == ("sub/l.py:5", "core/load.py:2",
                                                       "Loader.load", "override")
    assert set(d.units) == {"guard `if state is None`", "`raise ValueError`",
                            "keyword `apply(assign=…)`"}
    assert all(c == inp.commits[0].sha for c in d.commits)
    items = delta.items(inp, {**_empty(), "body_drift": [d]})
    [act] = [i for i in items if i.kind == "action"]
    assert act.where == "sub/l.py:5 (upstream core/load.py:2)"
    assert inp.commits[0].sha[:9] in act.title
    # No false all-clear on the upstream delta while a drift exists.
    res = {**_clear_res(), "body_drift": [d]}
    clears = clear.items(inp, res, items)
    assert not [c for c in clears if "no action in what was compared" in c.title]


def test_a_copy_that_already_has_the_change_is_fine(tmp_path) -> None:
    adapted = OVERRIDE.replace("        model = self.build(state)\n",
                               "        if state is None:\n            raise ValueError('x')\n"
                               "        model = self.build(state)\n").replace(
        "model.apply(state)", "model.apply(state, assign=True)")
    assert bodydrift.analyse(_inp(tmp_path / "a", {"sub/l.py": adapted})) == []
    # super() runs upstream's version: nothing to port.
    inherits = OVERRIDE.replace("        model = self.build(state)\n        return model.apply("
                                "state)\n", "        return super().load(state, strict)\n")
    assert bodydrift.analyse(_inp(tmp_path / "b", {"sub/l.py": inherits})) == []


def test_an_empty_method_switches_the_behaviour_off_and_copies_nothing(tmp_path) -> None:
    # (#22, set 22 kind c) a method left empty on purpose, in a file configured as a copy
    # (no similarity bar) or as an override: no pair, so no drift and no lag.
    target = "duplicate_logic:\n  - {ours: [sub/copy.py], upstream: [core/load.py]}\n"
    for n, body in enumerate(('        """Done by the other library."""\n        pass\n',
                              "        ...\n", "        return None\n")):
        empty = f"class Loader:\n    def load(self, state, strict=False):\n{body}"
        inp = _inp(tmp_path / f"c{n}", {"sub/copy.py": empty}, target)
        assert bodydrift.distinct_pairs(inp) == []
        assert bodydrift.analyse(inp) == [] and bodydrift.lags(inp) == []
        sub = OVERRIDE.split("    def load", 1)[0] + \
            f"    def load(self, state, strict=False):\n{body}"
        assert bodydrift.analyse(_inp(tmp_path / f"o{n}", {"sub/l.py": sub})) == []
    # One statement that does something is a body: still compared.
    busy = "class Loader:\n    def load(self, state, strict=False):\n        return state\n"
    assert bodydrift.distinct_pairs(_inp(tmp_path / "b", {"sub/copy.py": busy}, target))


def test_a_configured_copy_is_compared_too(tmp_path) -> None:
    target = "duplicate_logic:\n  - {ours: [sub/copy.py], upstream: [core/load.py]}\n"
    copy = "class Loader:\n    def load(self, state, strict=False):\n" \
           "        return self.build(state).apply(state)\n"
    [d] = bodydrift.analyse(_inp(tmp_path, {"sub/copy.py": copy}, target))
    assert d.how == "copy" and d.ours == "sub/copy.py:2"


def test_an_unchanged_upstream_function_gives_nothing(tmp_path) -> None:
    inp = minirepo.build(tmp_path, base={"core/__init__.py": "", "core/load.py": CORE_NEW},
                         head={"sub/__init__.py": "", "core/load.py": CORE_NEW + "\n",
                               "sub/l.py": OVERRIDE})
    assert bodydrift.analyse(inp) == []


def test_logging_upstream_added_is_not_drift(tmp_path) -> None:
    new = CORE_OLD.replace("        model = self.build(state)\n",
                           "        logger.info('loading %s', state)\n"
                           "        model = self.build(state)\n")
    inp = minirepo.build(tmp_path, base={"core/__init__.py": "", "core/load.py": CORE_OLD},
                         head={"sub/__init__.py": "", "core/load.py": new,
                               "sub/l.py": OVERRIDE})
    assert bodydrift.analyse(inp) == []


def test_instrumentation_upstream_added_is_not_drift_but_a_guard_beside_it_is(tmp_path) -> None:
    # #22 precision: structured-logging / tracing calls (a module imported from an
    # observability package, under a short alias) change no behaviour; a copy need not
    # adopt them. The guard added in the same commit still is drift.
    new = "from core.observability import structured_logger as sl\n" + CORE_OLD.replace(
        "        model = self.build(state)\n",
        "        sl.log_trace_scalar('load', 1, step=state)\n"
        "        sl.set_step(relative_step=2)\n"
        "        model = self.build(state)\n")
    quiet = minirepo.build(tmp_path / "q", base={"core/__init__.py": "", "core/load.py": CORE_OLD},
                           head={"sub/__init__.py": "", "core/load.py": new,
                                 "sub/l.py": OVERRIDE})
    assert bodydrift.analyse(quiet) == []
    guarded = new.replace("        model = self.build(state)\n",
                          "        if state is None:\n            state = {}\n"
                          "        model = self.build(state)\n")
    inp = minirepo.build(tmp_path / "g", base={"core/__init__.py": "", "core/load.py": CORE_OLD},
                         head={"sub/__init__.py": "", "core/load.py": guarded,
                               "sub/l.py": OVERRIDE})
    [d] = bodydrift.analyse(inp)
    assert d.units == ("guard `if state is None`",)


def _empty() -> dict:
    return {"fragile_surface_changes": [], "config_drift": [], "stale_patches": [],
            "listed_patches": [], "new_apis": [], "new_models": []}


def _clear_res() -> dict:
    from agentops.scout.analyses.ci import CiResult

    return {"upstream_commits": [], "monkey_patches": [], "stale_patches": [],
            "config_drift": [], "lossy_config_copies": [], "graph_passes": [],
            "passes_without_tests": [], "doc_inaccuracies": [],
            "ci": CiResult((), (), (), ())}


def test_an_override_of_its_own_design_is_no_copy(tmp_path) -> None:
    """An override that shares little of upstream's body (another loss's __call__) is
    not a copy: what upstream adds to its own version is not drift."""
    own = '''\
from core.load import Loader


class Other(Loader):
    def load(self, state, strict=False):
        weights = state["w"]
        total = sum(weights)
        self.total = total
        return total / len(weights)
'''
    assert bodydrift.similarity(bodydrift._find(CORE_OLD, "Loader.load"),
                                bodydrift._find(OVERRIDE, "MyLoader.load")) == 1.0
    assert bodydrift.analyse(_inp(tmp_path, {"sub/l.py": own})) == []


def test_a_guard_on_a_mode_the_copy_refuses_is_not_drift(tmp_path) -> None:
    old = "def par(model, cfg):\n    if cfg.tp:\n        model.tp()\n    return model\n"
    new = ("def par(model, cfg):\n    if cfg.backend == 'new' or cfg.tp:\n        model.tp()\n"
           "    if cfg.backend == 'new':\n        model.annotate()\n    return model\n")
    refuses = ("def par(model, cfg):\n    if cfg.backend != 'old':\n"
               "        raise NotImplementedError(cfg.backend)\n    if cfg.tp:\n"
               "        model.tp()\n    return model\n")
    target = "duplicate_logic:\n  - {ours: [sub/par.py], upstream: [core/par.py]}\n"
    inp = minirepo.build(tmp_path / "a", base={"core/par.py": old},
                         head={"core/par.py": new, "sub/par.py": refuses}, target=target)
    assert bodydrift.analyse(inp) == []
    # No match: a copy that accepts the new mode lacks both.
    accepts = refuses.replace("!= 'old'", "not in ('old', 'new')")
    inp = minirepo.build(tmp_path / "b", base={"core/par.py": old},
                         head={"core/par.py": new, "sub/par.py": accepts}, target=target)
    [d] = bodydrift.analyse(inp)
    assert "guard `if cfg.backend == 'new'`" in d.units


def test_the_same_guard_over_renamed_variables_is_there(tmp_path) -> None:
    old = "def step(n, per, dp):\n    return n\n"
    new = "def step(n, per, dp):\n    if n % (per * dp) != 0:\n        raise ValueError(n)\n" \
          "    return n\n"
    mine = "def step(n, per, batch):\n    if n % (per * batch) != 0:\n" \
           "        raise ValueError(n)\n    return n\n"
    target = "duplicate_logic:\n  - {ours: [sub/s.py], upstream: [core/s.py]}\n"
    inp = minirepo.build(tmp_path / "a", base={"core/s.py": old},
                         head={"core/s.py": new, "sub/s.py": mine}, target=target)
    assert bodydrift.analyse(inp) == []
    # No match: a different guard of the same shape over other names is not it.
    other = mine.replace("n % (per * batch)", "m % (q * batch)").replace(
        "def step(n, per, batch)", "def step(n, per, batch, m=1, q=1)")
    inp = minirepo.build(tmp_path / "b", base={"core/s.py": old},
                         head={"core/s.py": new, "sub/s.py": other}, target=target)
    [d] = bodydrift.analyse(inp)
    assert d.units == ("guard `if n % (per * dp) != 0`",)


_COPY_TARGET = "duplicate_logic:\n  - {ours: [sub/eng.py], upstream: [core/eng.py]}\n"


def _copy_inp(path, old: str, new: str, mine: str):
    return minirepo.build(path, base={"core/eng.py": old},
                          head={"core/eng.py": new, "sub/eng.py": mine}, target=_COPY_TARGET)


MASKS_OLD = '''\
class Engine:
    def __init__(self, model, backend):
        self.model, self.backend = model, backend

    def prepare(self, batch):
        extra = {}
        extra["masks"] = self.model.masks(batch)
        return batch, extra
'''
MASKS_NEW = MASKS_OLD.replace('''        extra["masks"] = self.model.masks(batch)
''', '''        if isinstance(self.backend, (Flex, Varlen)):
            extra["masks"] = self.model.masks(batch)
''')


def test_a_guard_around_a_call_the_copy_already_guards_is_no_drift(tmp_path) -> None:
    """#22 item 1a: upstream now calls ``masks`` only for the backends that have it;
    the copy calls it inside ``try … except TypeError`` (which those backends raise):
    the same effect, checked differently. Also a guard the copy makes under ``if``."""
    caught = '''\
class Engine:
    def __init__(self, model, backend):
        self.model, self.backend = model, backend

    def prepare(self, batch):
        extra = {}
        try:
            extra["masks"] = self.model.masks(batch)
        except TypeError:
            pass
        return batch, extra
'''
    assert bodydrift.analyse(_copy_inp(tmp_path / "a", MASKS_OLD, MASKS_NEW, caught)) == []
    checked = caught.replace('''        try:
            extra["masks"] = self.model.masks(batch)
        except TypeError:
            pass
''', '''        if hasattr(self.model, "masks"):
            extra["masks"] = self.model.masks(batch)
''')
    assert bodydrift.analyse(_copy_inp(tmp_path / "b", MASKS_OLD, MASKS_NEW, checked)) == []
    # No match: a copy that calls it bare lacks the guard; one that catches only an
    # unrelated error (OSError) does not handle the call's failure either.
    for name, mine in (("c", MASKS_OLD), ("d", caught.replace("TypeError", "OSError"))):
        [d] = bodydrift.analyse(_copy_inp(tmp_path / name, MASKS_OLD, MASKS_NEW, mine))
        assert d.units == ("guard `if isinstance(backend, (Flex, Varlen))` "
                           "(calls `model.masks`)",), name


def test_a_guard_upstream_only_renamed_is_not_added(tmp_path) -> None:
    """#22 item 1a: upstream renamed the local in a guard it already had
    (``inner`` -> ``backend``): nothing new for the copy to port."""
    old = '''\
def prepare(model, cfg):
    inner = cfg.inner
    if isinstance(inner, (Flex, Varlen)):
        model.masks()
    return model
'''
    new = old.replace("inner = cfg.inner", "backend = cfg.backend").replace(
        "isinstance(inner,", "isinstance(backend,")
    # the copy checks it its own way (and has since before the window)
    mine = old.replace("if isinstance(inner, (Flex, Varlen)):\n        model.masks()",
                       "if inner is not None and isinstance(inner, (Flex, Varlen)):\n"
                       "        model.build_masks()")
    target = "duplicate_logic:\n  - {ours: [sub/p.py], upstream: [core/p.py]}\n"
    inp = minirepo.build(tmp_path / "a", base={"core/p.py": old},
                         head={"core/p.py": new, "sub/p.py": mine}, target=target)
    assert bodydrift.analyse(inp) == []
    # No match: a guard on another condition is new even if it has the same shape.
    narrowed = new.replace("isinstance(backend, (Flex, Varlen))",
                           "isinstance(backend, (Flex, Varlen)) and cfg.masks")
    inp = minirepo.build(tmp_path / "b", base={"core/p.py": old},
                         head={"core/p.py": narrowed, "sub/p.py": mine}, target=target)
    [d] = bodydrift.analyse(inp)
    assert d.units == ("guard `if isinstance(backend, (Flex, Varlen)) and cfg.masks`",)


CLOSE_OLD = '''\
class Engine:
    def close(self):
        if self.ckpt:
            self.ckpt.close()
'''
CLOSE_NEW = '''\
class Engine:
    def close(self):
        if hasattr(self, "loader") and self.loader:
            self.loader.close()
        if not self.cfg.no_graphs:
            graph_teardown()
        if self.ckpt:
            self.ckpt.close()
'''
CLOSE_COPY = '''\
class Engine:
    def __init__(self, cfg):
        self.cfg = cfg
        self.ckpt = open_ckpt(cfg)

    def close(self):
        if self.ckpt:
            self.ckpt.close()
'''


def test_teardown_of_a_resource_the_copy_never_has_is_no_drift(tmp_path) -> None:
    """#22 item 1b: upstream's close() now closes a dataloader and tears down captured
    graphs; the copy's class never sets a loader and its module captures no graph."""
    assert bodydrift.analyse(_copy_inp(tmp_path / "a", CLOSE_OLD, CLOSE_NEW, CLOSE_COPY)) == []
    # No match: the copy's class owns a loader (so it must close it) and its module
    # captures graphs (so it must tear them down).
    owns = CLOSE_COPY.replace("        self.ckpt = open_ckpt(cfg)\n",
                              "        self.ckpt = open_ckpt(cfg)\n"
                              "        self.loader = make_loader(cfg)\n"
                              "        capture_graph(self)\n")
    [d] = bodydrift.analyse(_copy_inp(tmp_path / "b", CLOSE_OLD, CLOSE_NEW, owns))
    assert set(d.units) == {"guard `if hasattr(self, 'loader') and loader`",
                            "call `loader.close(…)`", "guard `if not cfg.no_graphs`",
                            "call `graph_teardown(…)`"}
    # An override inherits what upstream's class sets up: its loader is the copy's too.
    sub = '''\
from core.eng import Engine


class Mine(Engine):
    def close(self):
        if self.ckpt:
            self.ckpt.close()
'''
    base_new = CLOSE_NEW.replace("class Engine:\n",
                                 "class Engine:\n    def __init__(self, cfg):\n"
                                 "        self.loader = make_loader(cfg)\n\n")
    base_old = CLOSE_OLD.replace("class Engine:\n",
                                 "class Engine:\n    def __init__(self, cfg):\n"
                                 "        self.loader = make_loader(cfg)\n\n")
    inp = minirepo.build(tmp_path / "c", base={"core/__init__.py": "", "core/eng.py": base_old},
                         head={"core/__init__.py": "", "core/eng.py": base_new,
                               "sub/__init__.py": "", "sub/m.py": sub})
    [d] = bodydrift.analyse(inp)
    assert "call `loader.close(…)`" in d.units and "call `graph_teardown(…)`" not in d.units


def test_a_copy_upstream_rewrote_is_no_all_clear(tmp_path) -> None:
    """#22 item 2 (every all-clear path): a copied function upstream rewrote (too many
    changes to list) was not compared, so the delta is not "nothing actionable"."""
    inp = _inp(tmp_path, {"sub/l.py": OVERRIDE})
    rewrite = bodydrift.BodyDrift("sub/l.py:5", "core/load.py:2", "Loader.load", (), (),
                                  "override", rewritten=True)
    [line] = [c.title for c in clear.items(inp, {**_clear_res(), "body_drift": [rewrite]}, [])
              if c.title.startswith("Upstream delta")]
    assert "no action in what was compared" not in line and "`Loader.load`" in line
    assert "compare by hand" in line
    # No match: nothing rewritten, nothing found: the delta is clear (here the window
    # holds no commit, which the line says instead of "nothing actionable").
    [line] = [c.title for c in clear.items(inp, {**_clear_res(), "body_drift": []}, [])
              if c.title.startswith("Upstream delta")]
    assert line.startswith("Upstream delta: no commit on the watched paths")
    assert "compare by hand" not in line


def test_a_guard_on_a_mode_the_sub_project_pins_is_not_drift(tmp_path) -> None:
    """#22: upstream's copy gained ``if cfg.backend == 'typed'`` branches; the
    sub-project's config conversion pins ``backend='partial'`` (and never sets it from
    anything else), so those branches never run there."""
    old = "def par(model, cfg):\n    if cfg.tp:\n        model.tp()\n    return model\n"
    new = ("def par(model, cfg):\n    if cfg.backend == 'typed' or cfg.tp:\n"
           "        model.tp()\n    if cfg.backend == 'typed':\n        model.annotate()\n"
           "    return model\n")
    conv = ("def convert(base):\n    return replace(base, backend='partial')\n\n\n"
            "def run(cfg):\n    set_backend(cfg.backend)\n")
    target = "duplicate_logic:\n  - {ours: [sub/par.py], upstream: [core/par.py]}\n"
    inp = minirepo.build(tmp_path / "a", base={"core/par.py": old},
                         head={"core/par.py": new, "sub/par.py": old, "sub/conv.py": conv},
                         target=target)
    assert bodydrift.analyse(inp) == []
    # No match: the sub-project also sets it from the command line (any value may come),
    # or pins the very value upstream branches on.
    for name, other in (("b", conv + "\n\ndef cli(args, cfg):\n    cfg.backend = args.b\n"),
                        ("c", conv.replace("'partial'", "'typed'"))):
        inp = minirepo.build(tmp_path / name, base={"core/par.py": old},
                             head={"core/par.py": new, "sub/par.py": old, "sub/conv.py": other},
                             target=target)
        [d] = bodydrift.analyse(inp)
        assert "guard `if cfg.backend == 'typed'`" in d.units, name


def test_a_change_outside_the_watched_paths_is_not_dated_before_the_window(tmp_path) -> None:
    """What upstream added since the baseline was made in the window, even when no
    watched commit names it: never "before the baseline window"."""
    old, new = CORE_OLD, CORE_NEW
    sub = OVERRIDE.replace("from core.load", "from other.load")
    inp = minirepo.build(tmp_path, base={"other/__init__.py": "", "other/load.py": old},
                         head={"other/__init__.py": "", "other/load.py": new,
                               "sub/__init__.py": "", "sub/l.py": sub})
    [d] = bodydrift.analyse(inp)
    assert set(d.commits) == {""}
    [act] = [i for i in delta.items(inp, {**_empty(), "body_drift": [d]}) if i.kind == "action"]
    assert "before the baseline window" not in act.title + act.fix
    assert "in the window; its file is outside `watched_paths`" in act.title
    # No match: a watched file names its commit.
    [d] = bodydrift.analyse(_inp(tmp_path / "w", {"sub/l.py": OVERRIDE}))
    [act] = [i for i in delta.items(inp, {**_empty(), "body_drift": [d]}) if i.kind == "action"]
    assert "outside `watched_paths`" not in act.title


def test_a_wrapper_upstream_now_calls_around_what_the_copy_calls(tmp_path) -> None:
    """#22: upstream replaced ``shard(m, dtype=…)`` by ``shard_with_extras(m, dtype=…,
    symm=…)``, which itself calls ``shard``: the copy's ``shard`` call and the keywords it
    passes are there; only the keyword it lacks (``symm``) is drift."""
    helpers = ("def shard(m, dtype=None, symm=False):\n    return m\n\n\n"
               "def shard_with_extras(m, dtype=None, symm=False):\n"
               "    extra(m)\n    shard(m, dtype=dtype, symm=symm)\n")
    old = ("from core.helpers import shard\n\n\n"
           "def par(m, cfg):\n    shard(m, dtype=cfg.dtype)\n    return m\n")
    new = ("from core.helpers import shard_with_extras\n\n\n"
           "def par(m, cfg):\n    shard_with_extras(m, dtype=cfg.dtype, symm=cfg.symm)\n"
           "    return m\n")
    target = "duplicate_logic:\n  - {ours: [sub/par.py], upstream: [core/par.py]}\n"
    inp = minirepo.build(tmp_path / "a",
                         base={"core/__init__.py": "", "core/helpers.py": helpers,
                               "core/par.py": old},
                         head={"core/__init__.py": "", "core/helpers.py": helpers,
                               "core/par.py": new, "sub/par.py": old}, target=target)
    [d] = bodydrift.analyse(inp)
    assert d.units == ("keyword `shard_with_extras(symm=…)`",)
    # No match: a new callee that does not wrap what the copy calls is drift in full.
    unrelated = helpers.replace("    shard(m, dtype=dtype, symm=symm)\n", "    return m\n")
    inp = minirepo.build(tmp_path / "b",
                         base={"core/__init__.py": "", "core/helpers.py": unrelated,
                               "core/par.py": old},
                         head={"core/__init__.py": "", "core/helpers.py": unrelated,
                               "core/par.py": new, "sub/par.py": old}, target=target)
    [d] = bodydrift.analyse(inp)
    assert set(d.units) == {"call `shard_with_extras(…)`", "keyword `shard_with_extras(dtype=…)`",
                            "keyword `shard_with_extras(symm=…)`"}


def test_a_wrapper_around_a_call_the_copy_had_already_left_out_is_no_drift(tmp_path) -> None:
    """#22: upstream's ``shard(…)`` became ``shard_with_extras(…)`` (a wrapper around
    it); the copy never called ``shard`` (it shards its own way): nothing new to port."""
    helpers = ("def shard(m, dtype=None, symm=False):\n    return m\n\n\n"
               "def shard_with_extras(m, dtype=None, symm=False):\n"
               "    extra(m)\n    shard(m, dtype=dtype, symm=symm)\n")
    old = ("from core.helpers import shard\n\n\n"
           "def par(m, cfg):\n    shard(m, dtype=cfg.dtype)\n    return m\n")
    new = ("from core.helpers import shard_with_extras\n\n\n"
           "def par(m, cfg):\n    shard_with_extras(m, dtype=cfg.dtype, symm=cfg.symm)\n"
           "    return m\n")
    own = "def par(m, cfg):\n    my_simple_shard(m, cfg)\n    return m\n"
    target = "duplicate_logic:\n  - {ours: [sub/par.py], upstream: [core/par.py]}\n"
    core = {"core/__init__.py": "", "core/helpers.py": helpers}
    inp = minirepo.build(tmp_path / "a", base={**core, "core/par.py": old},
                         head={**core, "core/par.py": new, "sub/par.py": own}, target=target)
    assert bodydrift.analyse(inp) == []
    # No match: upstream's old version did not call what the wrapper wraps (the call
    # is new upstream, not a rename of one the copy dropped).
    old_none = "def par(m, cfg):\n    return m\n"
    inp = minirepo.build(tmp_path / "b", base={**core, "core/par.py": old_none},
                         head={**core, "core/par.py": new, "sub/par.py": own}, target=target)
    [d] = bodydrift.analyse(inp)
    assert "call `shard_with_extras(…)`" in d.units


def test_a_guard_on_a_condition_the_copy_raises_on_is_not_drift(tmp_path) -> None:
    """#22: upstream's copy gained ``if dims.cp_enabled: apply_cp(model)``; the copy
    raises NotImplementedError under that condition before: the branch never runs."""
    old = "def par(model, dims):\n    if dims.tp:\n        model.tp()\n    return model\n"
    new = old.replace("    return model\n",
                      "    if dims.cp_enabled:\n        apply_cp(model)\n    return model\n")
    refuses = old.replace("def par(model, dims):\n",
                          "def par(model, dims):\n    if dims.cp_enabled:\n"
                          "        raise NotImplementedError('no CP')\n")
    target = "duplicate_logic:\n  - {ours: [sub/par.py], upstream: [core/par.py]}\n"
    inp = minirepo.build(tmp_path / "a", base={"core/par.py": old},
                         head={"core/par.py": new, "sub/par.py": refuses}, target=target)
    assert bodydrift.analyse(inp) == []
    # No match: a copy that does not refuse CP lacks the branch.
    inp = minirepo.build(tmp_path / "b", base={"core/par.py": old},
                         head={"core/par.py": new, "sub/par.py": old}, target=target)
    [d] = bodydrift.analyse(inp)
    assert set(d.units) == {"guard `if dims.cp_enabled`", "call `apply_cp(…)`"}


def test_upstream_moved_into_a_package_is_still_compared(tmp_path) -> None:
    """#22: ``core/load.py`` became ``core/load/impl.py`` in the window (a module turned
    package) and gained a guard there: the copy is compared with the moved function,
    not skipped as new (which would let the delta say "nothing actionable")."""
    sub = OVERRIDE.replace("from core.load import Loader", "from core.load.impl import Loader")
    inp = minirepo.build(tmp_path / "a", base={"core/__init__.py": "", "core/load.py": CORE_OLD},
                         head={"core/load.py": None, "core/load/__init__.py": "",
                               "core/load/impl.py": CORE_NEW, "sub/__init__.py": "",
                               "sub/l.py": sub})
    [d] = bodydrift.analyse(inp)
    assert "guard `if state is None`" in d.units and d.upstream == "core/load/impl.py:2"
    # No match: a function that is new upstream (defined nowhere at the baseline) has
    # no earlier version to drift from.
    inp = minirepo.build(tmp_path / "b", base={"core/__init__.py": "", "core/other.py": "X = 1\n"},
                         head={"core/__init__.py": "", "core/load/__init__.py": "",
                               "core/load/impl.py": CORE_NEW, "sub/__init__.py": "",
                               "sub/l.py": sub})
    assert bodydrift.analyse(inp) == []


def test_what_a_repository_base_class_sets_up_the_copy_has(tmp_path) -> None:
    """#22 item 1b: the resource rule looks at the copy's bases in the repository too: a
    loader its base class sets up is the copy's to close."""
    base_cls = "class Owner:\n    def __init__(self, cfg):\n        self.loader = make(cfg)\n"
    copy = ("from core.owner import Owner\n\n\n" + CLOSE_COPY.replace(
        "class Engine:", "class Engine(Owner):"))
    inp = minirepo.build(tmp_path / "a", base={"core/__init__.py": "", "core/owner.py": base_cls,
                                               "core/eng.py": CLOSE_OLD},
                         head={"core/eng.py": CLOSE_NEW, "sub/eng.py": copy},
                         target=_COPY_TARGET)
    [d] = bodydrift.analyse(inp)
    assert "call `loader.close(…)`" in d.units
    # No match: a base that sets no loader leaves the teardown foreign.
    inp = minirepo.build(tmp_path / "b", base={"core/__init__.py": "",
                                               "core/owner.py": base_cls.replace("loader",
                                                                                 "other"),
                                               "core/eng.py": CLOSE_OLD},
                         head={"core/eng.py": CLOSE_NEW, "sub/eng.py": copy},
                         target=_COPY_TARGET)
    assert bodydrift.analyse(inp) == []


def test_setting_up_a_component_the_copy_never_has_is_no_drift(tmp_path) -> None:
    """#22 item 1b: upstream's __init__ now builds its loader with a new keyword and
    wraps its step function for CUDA graphs; the copy's class has neither a loader nor a
    step function: nothing there concerns it."""
    old = ("class Engine:\n    def __init__(self, cfg):\n        self.cfg = cfg\n"
           "        self.loader = cfg.loader.build(rank=0)\n"
           "        self.model = cfg.model.build()\n")
    new = old.replace("build(rank=0)", "build(rank=0, tokens=cfg.tokens)") + (
        "        if not cfg.no_graphs:\n            self.step_fn = wrap(self.step_fn)\n")
    mine = ("class Engine:\n    def __init__(self, cfg):\n        self.cfg = cfg\n"
            "        self.model = cfg.model.build()\n")
    assert bodydrift.analyse(_copy_inp(tmp_path / "a", old, new, mine)) == []
    # No match: a copy that builds a loader too lacks the new keyword.
    owns = mine + "        self.loader = cfg.loader.build(rank=0)\n"
    [d] = bodydrift.analyse(_copy_inp(tmp_path / "b", old, new, owns))
    assert d.units == ("keyword `build(tokens=…)`",)


PP_OLD = '''\
def step(self, losses, ok):
    loss = (sum(losses) / 2) if ok else -1.0
    return loss
'''
PP_NEW = '''\
def step(self, losses, ok):
    if ok:
        assert losses is not None
        loss = sum(losses) / 2
    else:
        loss = -1.0
    return loss
'''


def test_a_conditional_expression_rewritten_as_an_if_is_not_drift(tmp_path) -> None:
    """#22 precision: upstream turned ``a if ok else b`` into ``if ok: … else: …`` with
    an ``assert losses is not None`` for its type checker; the copy, still the
    conditional expression, tests the same condition: nothing to port."""
    target = "duplicate_logic:\n  - {ours: [sub/pp.py], upstream: [core/pp.py]}\n"
    inp = minirepo.build(tmp_path / "a", base={"core/pp.py": PP_OLD},
                         head={"core/pp.py": PP_NEW, "sub/pp.py": PP_OLD}, target=target)
    assert bodydrift.analyse(inp) == []
    # No match: a condition tested nowhere before, and an assertion on something other
    # than a local being None, are what upstream added.
    new = PP_NEW.replace("    if ok:\n", "    if ok and losses:\n").replace(
        "assert losses is not None", "assert len(losses) > 0")
    inp = minirepo.build(tmp_path / "b", base={"core/pp.py": PP_OLD},
                         head={"core/pp.py": new, "sub/pp.py": PP_OLD}, target=target)
    [d] = bodydrift.analyse(inp)
    assert set(d.units) == {"guard `if ok and losses`", "assertion `assert len(losses) > 0`"}


def test_a_lacking_guard_names_the_call_whose_result_it_takes(tmp_path) -> None:
    """#22 defect 4: a lacking guard says what the copy skips. ``x = f(…)`` under it is
    named (an assignment is no unit of its own); a bare call is its own unit and the
    guard around it is not renamed; logging is never what a guard is about."""
    old = "def prep(cfg, x):\n    return x\n"
    new = ("def prep(cfg, x):\n    if cfg.backend == 'typed':\n        logger.info('typed')\n"
           "        x = annotate_inputs(cfg, x)\n    if cfg.trace:\n        record(x)\n"
           "    return x\n")
    target = "duplicate_logic:\n  - {ours: [sub/prep.py], upstream: [core/prep.py]}\n"
    inp = minirepo.build(tmp_path, base={"core/prep.py": old},
                         head={"core/prep.py": new, "sub/prep.py": old}, target=target)
    [d] = bodydrift.analyse(inp)
    assert set(d.units) == {"guard `if cfg.backend == 'typed'` (calls `annotate_inputs`)",
                            "guard `if cfg.trace`", "call `record(…)`"}


def test_a_keyword_added_to_a_call_the_copy_never_makes_is_no_drift(tmp_path) -> None:
    """#22 S-1 (set 24's noise line fcd99cad7725): core's loop already made a
    fault-tolerance call at the baseline and added keywords to it in the window; a copy
    that never makes that call (it does without the feature) lacks none of them. A
    guard core added beside it is still drift."""
    helpers = "def semi_sync(model=None, parts=None, every=1):\n    return model\n"
    old = ("from core.helpers import semi_sync\n\n\n"
           "def train(m, cfg):\n    m.prepare(cfg)\n"
           "    with semi_sync(model=m):\n        m.step()\n    return m\n")
    new = ("from core.helpers import semi_sync\n\n\n"
           "def train(m, cfg):\n    if cfg.check:\n        m.validate()\n    m.prepare(cfg)\n"
           "    with semi_sync(model=m, parts=cfg.parts, every=cfg.every):\n"
           "        m.step()\n    return m\n")
    target = "duplicate_logic:\n  - {ours: [sub/train.py], upstream: [core/train.py]}\n"
    core = {"core/__init__.py": "", "core/helpers.py": helpers}
    no_call = ("def train(m, cfg):\n    m.prepare(cfg)\n    m.step()\n    return m\n")
    inp = minirepo.build(tmp_path / "a", base={**core, "core/train.py": old},
                         head={**core, "core/train.py": new, "sub/train.py": no_call},
                         target=target)
    [d] = bodydrift.analyse(inp)
    assert d.units == ("guard `if cfg.check`", "call `m.validate(…)`")
    # Match: the copy makes the call, without the keywords core added to it.
    with_call = ("from core.helpers import semi_sync\n\n\n"
                 "def train(m, cfg):\n    m.prepare(cfg)\n"
                 "    with semi_sync(model=m):\n        m.step()\n    return m\n")
    inp = minirepo.build(tmp_path / "b", base={**core, "core/train.py": old},
                         head={**core, "core/train.py": new, "sub/train.py": with_call},
                         target=target)
    [d] = bodydrift.analyse(inp)
    assert set(d.units) == {"guard `if cfg.check`", "call `m.validate(…)`",
                            "keyword `semi_sync(parts=…)`", "keyword `semi_sync(every=…)`"}
    # Match: a call core added in the window (not made at the baseline), with keywords,
    # is drift for a copy without it: the keywords are the call's only units here.
    old_none = old.replace("    with semi_sync(model=m):\n        m.step()\n",
                           "    m.step()\n")
    inp = minirepo.build(tmp_path / "c", base={**core, "core/train.py": old_none},
                         head={**core, "core/train.py": new, "sub/train.py": no_call},
                         target=target)
    [d] = bodydrift.analyse(inp)
    assert {"keyword `semi_sync(parts=…)`", "keyword `semi_sync(every=…)`"} <= set(d.units)
