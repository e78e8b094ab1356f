"""#22: a copy that lags upstream from before the window. For each function the
sub-project copies (``duplicate_logic``) or overrides without ``super()``, what
upstream's HEAD version does that the copy lacks and that upstream already did at the
baseline (a guard, raise, assertion, setup call, keyword argument, environment read)
is ONE quiet opportunity per copy, never an action; what upstream added in the
window is left to the body-drift action; logging/metrics units, modes the copy
refuses and settings it pins are nothing it lacks. Fixture trees, match and no-match."""

from __future__ import annotations

import dataclasses

from agentops.scout.analyses import bodydrift
from agentops.scout.itemize import debt
from tests.scout import minirepo

CORE_BASE = '''\
import os

from core import dist
from core.observability import structured_logger as sl


def init_pg(world, timeout=None):
    return world


class Trainer:
    def __init__(self, config):
        if config.seq_len % config.tp != 0:
            raise ValueError("uneven")
        dist.set_backend(config.backend)
        world = int(os.environ.get("LOCAL_WORLD", "1"))
        self.pg = init_pg(world, timeout=config.timeout)
        record_metrics(config)
        sl.set_step(0, relative=True)
        with config.profiler.build(folder=config.dump):
            self.warm = True
        if config.mode == "b":
            self.setup_b(config)
        self.model = config.build()
        self.step = 0
'''
# In the window upstream added an assertion: the body-drift action's business.
CORE_HEAD = CORE_BASE.replace("    def __init__(self, config):\n",
                              "    def __init__(self, config):\n"
                              "        assert config.steps > 0\n")
COPY = '''\
import os

from core import dist


class Trainer:
    def __init__(self, config):
        world = 1
        self.pg = init_pg(world)
        if config.mode == "b":
            self.setup_b(config)
        self.model = config.build()
        self.step = 0

    def setup_b(self, config):
        self.b = config.b
'''
TARGET = "duplicate_logic:\n  - {ours: [sub/train.py], upstream: [core/train.py]}\n"


def _inp(tmp_path, copy: str, target: str = TARGET, extra: dict[str, str] | None = None):
    return minirepo.build(
        tmp_path, base={"core/__init__.py": "", "core/dist.py": "", "core/train.py": CORE_BASE},
        head={"sub/__init__.py": "", "core/train.py": CORE_HEAD, "sub/train.py": copy,
              **(extra or {})}, target=target)


def _res(inp) -> dict:
    drifts = bodydrift.analyse(inp)
    return {"body_drift": drifts, "copy_lag": bodydrift.lags(inp, drifts, [])}


def test_a_copy_lacking_what_upstream_long_had_is_one_quiet_opportunity(tmp_path) -> None:
    inp = _inp(tmp_path, COPY)
    res = _res(inp)
    [lag] = res["copy_lag"]
    assert (lag.ours, lag.upstream, lag.function, lag.how) == (
        "sub/train.py:7", "core/train.py:12", "Trainer.__init__", "copy")
    # Unconditional units first (calls, env reads, guards, keywords), then what is
    # nested (the raise under the guard); logging/metrics left out.
    assert lag.units == ("call `dist.set_backend(…)`", "env var `LOCAL_WORLD` read",
                         "guard `if config.seq_len % config.tp != 0`",
                         "keyword `init_pg(timeout=…)`", "`raise ValueError`")
    # The assertion upstream added in the window is the body-drift action's, not this.
    [drift] = res["body_drift"]
    assert drift.units == ("assertion `assert config.steps > 0`",)
    assert not any("assert" in u for u in lag.units)
    # Left out as in the window even when no drift finding names it.
    assert bodydrift.lags(inp, [], []) == res["copy_lag"]
    [item] = [i for i in debt._lags(res)]
    assert item.kind == "opportunity" and not item.priority and item.section == "S-4"
    assert "sub/train.py:7" in item.title and "core/train.py:12" in item.title
    assert "dist.set_backend" in item.title and "and 1 more" in item.title
    assert "raise ValueError" not in item.title  # capped: the fifth is counted


def test_the_fingerprint_does_not_depend_on_the_window(tmp_path) -> None:
    """Night 2 on an unchanged tree has an empty window: the in-window assertion is now
    shown too, but the finding is the same one, so it decays like other opportunities."""
    inp = _inp(tmp_path, COPY)
    night1 = debt._lags(_res(inp))
    unchanged = dataclasses.replace(inp, base=inp.head)
    night2 = debt._lags(_res(unchanged))
    assert [i.id for i in night1] == [i.id for i in night2]
    assert [i.fingerprint for i in night1] == [i.fingerprint for i in night2]
    assert "assert config.steps" in night2[0].title and \
        "assert config.steps" not in night1[0].title


def test_a_copy_with_everything_or_refusing_the_mode_lags_nothing(tmp_path) -> None:
    full = COPY.replace(
        "        world = 1\n        self.pg = init_pg(world)\n",
        "        if config.seq_len % config.tp != 0:\n            raise ValueError('odd')\n"
        "        dist.set_backend(config.backend)\n"
        "        world = int(os.environ['LOCAL_WORLD'])\n"
        "        self.pg = init_pg(world, timeout=config.timeout)\n")
    assert _res(_inp(tmp_path / "a", full))["copy_lag"] == []
    # It refuses mode "b" and lacks the guard on it: upstream's branch never runs there.
    refusing = full.replace("        if config.mode == \"b\":\n"
                            "            self.setup_b(config)\n",
                            "        if config.mode != \"a\":\n"
                            "            raise NotImplementedError(config.mode)\n")
    assert _res(_inp(tmp_path / "b", refusing))["copy_lag"] == []
    # What it lacks only in the branch it refuses is not counted either.
    assert "setup_b" not in str(_res(_inp(tmp_path / "c", refusing.replace(
        "        dist.set_backend(config.backend)\n", "")))["copy_lag"])


def test_only_in_window_additions_or_logging_give_no_lag(tmp_path) -> None:
    full = COPY.replace(
        "        world = 1\n        self.pg = init_pg(world)\n",
        "        if config.seq_len % config.tp != 0:\n            raise ValueError('odd')\n"
        "        dist.set_backend(config.backend)\n"
        "        world = int(os.getenv('LOCAL_WORLD'))\n"
        "        self.pg = init_pg(world, timeout=config.timeout)\n")
    res = _res(_inp(tmp_path, full))
    # record_metrics (metrics only) is lacking, the assertion is in the window: no lag,
    # while the drift action still names the assertion.
    assert res["copy_lag"] == [] and len(res["body_drift"]) == 1


def test_an_override_calling_super_or_unrelated_lags_nothing(tmp_path) -> None:
    sub = '''\
from core.train import Trainer


class FT(Trainer):
    def __init__(self, config):
        super().__init__(config)
        self.extra = 1


class Other(Trainer):
    def __init__(self, config):
        self.x = config.x
        self.y = config.y
'''
    inp = _inp(tmp_path, COPY, target="", extra={"sub/ft.py": sub})
    assert bodydrift.lags(inp, bodydrift.analyse(inp), []) == []


def test_an_override_repeating_the_body_lags_too(tmp_path) -> None:
    over = COPY.replace("class Trainer:", "class FT(Trainer):").replace(
        "import os\n", "import os\n\nfrom core.train import Trainer\n").replace(
        "        world = 1\n        self.pg = init_pg(world)\n",
        "        if config.seq_len % config.tp != 0:\n            raise ValueError('odd')\n"
        "        world = int(os.environ.get('LOCAL_WORLD', '1'))\n"
        "        self.pg = init_pg(world, timeout=config.timeout)\n"
        "        record_metrics(config)\n        sl.set_step(0, relative=True)\n")
    inp = _inp(tmp_path, COPY, target="", extra={"sub/ft.py": over})
    [lag] = bodydrift.lags(inp, bodydrift.analyse(inp), [])
    assert lag.how == "override" and lag.ours.startswith("sub/ft.py:")
    assert lag.units == ("call `dist.set_backend(…)`",)


def test_the_same_value_positionally_or_the_same_guard_elsewhere_is_had(tmp_path) -> None:
    """The copy passes ``config.timeout`` positionally and checks the same condition on
    the config it keeps (``self.cfg``): neither is lacking; a divergence item that
    already names ``set_backend`` takes that unit (no second report)."""
    other = COPY.replace(
        "        world = 1\n        self.pg = init_pg(world)\n",
        "        self.cfg = config\n"
        "        if self.cfg.seq_len % self.cfg.tp != 0:\n            raise ValueError('odd')\n"
        "        world = int(os.environ['LOCAL_WORLD'])\n"
        "        self.pg = init_pg(world, config.timeout)\n")
    inp = _inp(tmp_path, other)
    [lag] = bodydrift.lags(inp, [], [])
    assert lag.units == ("call `dist.set_backend(…)`",)
    div = dataclasses.replace(_divergence(), ours=lag.ours, calls=("set_backend",))
    assert bodydrift.lags(inp, [], [div]) == []
    # A call-drift action that already names the omitted keyword takes that unit.
    from agentops.scout.analyses.duplicates import CallDrift

    wrong = other.replace("init_pg(world, config.timeout)", "init_pg(world)")
    inp = _inp(tmp_path / "cd", wrong)
    [lag] = bodydrift.lags(inp, [], [])
    assert "keyword `init_pg(timeout=…)`" in lag.units
    cd = CallDrift("init_pg", lag.ours.rsplit(":", 1)[0] + ":9", "core/train.py:17",
                   ("timeout",))
    assert bodydrift.lags(inp, [], [], [cd])[0].units == ("call `dist.set_backend(…)`",)
    # Another value positionally is no stand-in for the keyword.
    wrong = other.replace("init_pg(world, config.timeout)", "init_pg(world, 5)")
    [lag] = bodydrift.lags(_inp(tmp_path / "w", wrong), [], [])
    assert "keyword `init_pg(timeout=…)`" in lag.units


def _divergence():
    from agentops.scout.analyses.duplicates import Divergence

    return Divergence("x:1", "core/train.py:12", "__init__", "__init__")


def test_a_call_to_what_an_upstream_method_wraps_is_had(tmp_path) -> None:
    """Upstream calls ``cast(BaseModel, m).init_weights(buffer_device=…)``, an alias
    method of a repository class around ``init_states``; the copy calls
    ``m.init_states(buffer_device=…)``: nothing lacking. A copy calling neither lags."""
    model = ("class BaseModel:\n    \"\"\"A model.\"\"\"\n\n    size: int = 0\n\n"
             "    def init_weights(self, **kw):\n"
             "        self.init_states(buffer_device=kw.get('buffer_device'))\n\n"
             "    def verify(self):\n        for m in self.children():\n"
             "            m.to_empty(device='meta')\n")
    up = ("from typing import cast\n\nfrom core.model import BaseModel\n\n\n"
          "def build(m, dev):\n    m.to_empty(device=dev)\n"
          "    cast(BaseModel, m).init_weights(buffer_device=dev)\n    return m\n")
    copy = up.replace("cast(BaseModel, m).init_weights", "m.init_states")
    target = "duplicate_logic:\n  - {ours: [sub/b.py], upstream: [core/b.py]}\n"

    def run(path, text):
        # BaseModel is re-exported by its package, as upstream imports it.
        files = {"core/__init__.py": "", "core/proto/__init__.py":
                 "from .model import BaseModel\n", "core/proto/model.py": model,
                 "core/b.py": up.replace("core.model", "core.proto")}
        inp = minirepo.build(path, base=files, head={**files, "sub/__init__.py": "",
                                                     "sub/b.py": text}, target=target)
        return bodydrift.lags(inp, [], [])

    assert run(tmp_path / "a", copy) == []
    [lag] = run(tmp_path / "b", copy.replace("    m.init_states(buffer_device=dev)\n", ""))
    assert "call `cast(BaseModel, m).init_weights(…)`" in lag.units
    # A method doing work of its own (a loop) is no alias of what it calls: the copy
    # calling to_empty does not have upstream's verify().
    up = up.replace("    return m\n", "    cast(BaseModel, m).verify()\n    return m\n")
    [lag] = run(tmp_path / "c", copy)
    assert lag.units == ("call `cast(BaseModel, m).verify(…)`",)


def test_a_one_line_method_tested_inline_is_had(tmp_path) -> None:
    """Upstream loops ``while self.should_continue_training()``, a method returning
    ``self.step < self.config.steps``; the copy tests that inline."""
    up = ("class Trainer:\n    def train(self):\n"
          "        while self.should_continue_training():\n            self.step += 1\n"
          "            self.run()\n\n"
          "    def should_continue_training(self):\n"
          "        return self.step < self.config.steps\n")
    copy = up.replace("while self.should_continue_training():",
                      "while self.step < config.steps:")
    target = "duplicate_logic:\n  - {ours: [sub/t.py], upstream: [core/t.py]}\n"

    def run(path, text):
        files = {"core/__init__.py": "", "core/t.py": up}
        inp = minirepo.build(path, base=files, head={**files, "sub/__init__.py": "",
                                                     "sub/t.py": text}, target=target)
        return [lag for lag in bodydrift.lags(inp, [], []) if lag.function == "Trainer.train"]

    assert run(tmp_path / "a", copy) == []
    [lag] = run(tmp_path / "b", copy.replace("self.step < config.steps", "self.more()"))
    assert lag.units == ("guard `if should_continue_training()`",)


def test_a_call_through_a_local_or_an_assertion_on_renamed_locals_is_had(tmp_path) -> None:
    up = ("def par(model, ac, n, dp):\n    assert n % (ac.size * dp) == 0\n"
          "    if ac is not None:\n        ac.build(folder=n).apply(model)\n"
          "    model.compile()\n    return model\n")
    copy = ("def par(model, ac, n, batch):\n    assert n % (ac.size * batch) == 0\n"
            "    if ac is not None:\n        policy = ac.build(folder=n)\n"
            "        policy.apply(model)\n    model.compile()\n    return model\n")
    target = "duplicate_logic:\n  - {ours: [sub/p.py], upstream: [core/p.py]}\n"

    def run(path, text):
        files = {"core/__init__.py": "", "core/p.py": up}
        inp = minirepo.build(path, base=files, head={**files, "sub/__init__.py": "",
                                                     "sub/p.py": text}, target=target)
        return bodydrift.lags(inp, [], [])

    assert run(tmp_path / "a", copy) == []
    [lag] = run(tmp_path / "b", copy.replace("        policy.apply(model)\n", "").replace(
        "n % (ac.size * batch) == 0", "n > 0"))
    assert set(lag.units) == {"call `ac.build(folder=n).apply(…)`",
                              "assertion `assert n % (ac.size * dp) == 0`"}


def test_a_guard_the_copy_says_it_leaves_out_is_not_lacking(tmp_path) -> None:
    up = ("class M:\n    def __init__(self, mode):\n        self.async_mode = mode\n\n"
          "    def wait(self):\n        if self.async_mode == Mode.DISABLED:\n"
          "            raise RuntimeError('x')\n        self.fut.result()\n"
          "        self.fut = None\n")
    sub = ("from core.m import M\n\n\nclass FT(M):\n    def wait(self):\n"
           "        # our saves are always async, even when async_mode is DISABLED, so\n"
           "        # upstream's check would wrongly fail here\n"
           "        self.fut.result()\n        self.fut = None\n")

    def run(path, text):
        files = {"core/__init__.py": "", "core/m.py": up}
        inp = minirepo.build(path, base=files, head={**files, "sub/__init__.py": "",
                                                     "sub/ft.py": text})
        return bodydrift.lags(inp, [], [])

    assert run(tmp_path / "a", sub) == []
    silent = sub.replace("even when async_mode is DISABLED", "whatever the mode")
    [lag] = run(tmp_path / "b", silent)
    assert set(lag.units) == {"guard `if async_mode == Mode.DISABLED`", "`raise RuntimeError`"}


def test_a_mode_the_copy_handles_its_own_way_is_not_lacking(tmp_path) -> None:
    """Upstream shards with apply_fsdp(…, cpu_offload=…) under ``if dims.fsdp_enabled``;
    the copy branches on ``dims.fsdp_enabled`` itself and calls its own sharding: the
    guard, and keywords to a call the copy never makes, are its own design."""
    up = ("def par(model, dims, cfg):\n    if dims.fsdp_enabled:\n"
          "        model = apply_fsdp(model, cpu_offload=cfg.offload)\n"
          "    model.compile(fullgraph=True)\n    return model\n")
    copy = ("def par(model, dims, cfg):\n    if dims.fsdp_enabled and dims.dp > 1:\n"
            "        model = data_parallel(model, mode='fsdp')\n"
            "    model.compile(fullgraph=True)\n    return model\n")
    target = "duplicate_logic:\n  - {ours: [sub/p.py], upstream: [core/p.py]}\n"

    def run(path, text):
        files = {"core/__init__.py": "", "core/p.py": up}
        inp = minirepo.build(path, base=files, head={**files, "sub/__init__.py": "",
                                                     "sub/p.py": text}, target=target)
        return bodydrift.lags(inp, [], [])

    assert run(tmp_path / "a", copy) == []
    # Not branching on it at all: the guard is lacking (the keyword stays the call's).
    [lag] = run(tmp_path / "b", copy.replace("dims.fsdp_enabled and dims.dp > 1",
                                             "dims.dp > 1"))
    assert lag.units == ("guard `if dims.fsdp_enabled` (calls `apply_fsdp`)",)
    # Its own branch for the mode calling the same function without upstream's keyword
    # (forge's ``if pp_enabled:`` … ``schedule.step(...)`` without return_outputs):
    # the keyword is lacking, the guard is not.
    same = copy.replace("dims.fsdp_enabled and dims.dp > 1", "dims.fsdp_enabled")
    [lag] = run(tmp_path / "c", same.replace("data_parallel(model, mode='fsdp')",
                                             "apply_fsdp(model)"))
    assert lag.units == ("keyword `apply_fsdp(cpu_offload=…)`",)


CAP_CORE = CORE_BASE.replace(
    "from core import dist\n", "from core import dist\nfrom core.quant import has_quant\n"
).replace("        self.step = 0\n",
          "        self.metrics = config.metrics.build(folder=config.dump, "
          "has_quant=has_quant(config), verbose=config.verbose)\n        self.step = 0\n")


def test_a_capability_asked_in_a_keyword_to_a_metrics_call_is_lacking(tmp_path) -> None:
    """Keywords to an observing call are left out, except one whose value asks a
    repository function about the run that the copy's module never names: the copy
    does not consider that capability at all (``has_quantization``)."""
    copy = COPY.replace("        self.step = 0\n",
                        "        self.metrics = config.metrics.build(folder=config.dump)\n"
                        "        self.step = 0\n")
    files = {"core/__init__.py": "", "core/dist.py": "", "core/train.py": CAP_CORE,
             "core/quant.py": "def has_quant(config):\n    return bool(config.quant)\n"}

    def lag(tmp, text):
        inp = minirepo.build(tmp, base=files, head={"sub/__init__.py": "", "sub/train.py": text},
                             target=TARGET)
        return bodydrift.lags(inp, [], [])

    [found] = lag(tmp_path / "a", copy)
    assert "keyword `build(has_quant=…)`" in found.lacking
    # verbose= carries a setting, not a capability asked of the run: still left out
    assert not any("verbose" in u for u in found.lacking)
    # The copy names the capability itself (its own way of asking): not lacking.
    own = "from core.quant import has_quant\n" + copy.replace(
        "        self.step = 0\n", "        self.quant = has_quant(config)\n"
                                  "        self.step = 0\n")
    assert not any("has_quant" in u for lg in lag(tmp_path / "b", own) for u in lg.lacking)


def test_a_base_imported_relatively_lends_its_attributes(tmp_path) -> None:
    """The copy's class derives from the sub-project's own engine through a relative
    import (``from .engine import Engine``): what the engine sets up (``self.config``)
    the copy has, so upstream's guard on ``self.config`` is lacking, not foreign."""
    core = '''\
class Trainer:
    def __init__(self, config):
        self.config = config

    def step(self, batch):
        if self.config.mode == "typed":
            batch = self.annotate(batch)
        return self.model(batch)
'''
    engine = "class Engine:\n    def __init__(self, config):\n        self.config = config\n"
    copy = '''\
from .engine import Engine


class Trainer(Engine):
    def step(self, batch):
        return self.model(batch)
'''
    inp = minirepo.build(
        tmp_path, base={"core/__init__.py": "", "core/train.py": core},
        head={"sub/__init__.py": "", "sub/engine.py": engine, "sub/example.py": copy},
        target="duplicate_logic:\n  - {ours: [sub/example.py], upstream: [core/train.py]}\n")
    [lag] = bodydrift.lags(inp, [], [])
    assert lag.ours == "sub/example.py:5" and lag.function == "Trainer.step"
    assert lag.lacking == ("guard `if config.mode == 'typed'` (calls `annotate`)",)


def test_what_a_prior_action_named_is_not_repeated_as_a_lag(tmp_path) -> None:
    """Night 1 reported upstream's in-window addition as an action; on night 2 the
    baseline has moved past it and it would come back as a lag. A unit a prior report's
    action (or carried item) named for that file is left to the board; the rest stays."""
    from agentops.scout.model import PriorPayload

    inp = _inp(tmp_path, COPY)
    night2 = dataclasses.replace(inp, base=inp.head)
    [lag] = bodydrift.lags(night2, [], [])
    assert "assertion `assert config.steps > 0`" in lag.units
    prior = PriorPayload(date="2026-03-05", items=({
        "id": "abc", "kind": "action", "files": ["sub/train.py", "core/train.py"],
        "facts": ["assertion `assert config.steps > 0`"]},))
    [lag] = bodydrift.lags(dataclasses.replace(night2, priors=(prior,)), [], [])
    assert "assertion `assert config.steps > 0`" not in lag.units
    assert "call `dist.set_backend(…)`" in lag.units
    # an FYI or opportunity naming it is no action: the lag still says it
    fyi = PriorPayload(date="2026-03-05", items=({**prior.items[0], "kind": "opportunity"},))
    [lag] = bodydrift.lags(dataclasses.replace(night2, priors=(fyi,)), [], [])
    assert "assertion `assert config.steps > 0`" in lag.units
