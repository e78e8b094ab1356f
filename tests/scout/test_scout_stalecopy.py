"""#22: a copy that still does something the way upstream used to. In a copied
(``duplicate_logic``) or overriding function: a local the copy reads from the
environment where upstream (or a helper method of its class) now takes it from a call,
and a guard around the same calls whose condition upstream narrowed with a name the
copy's lacks. Each a quiet opportunity (S-4), naming both sides' ``file:line``.
Fixture trees, match and no-match."""

from __future__ import annotations

from agentops.scout.analyses import stalecopy
from agentops.scout.itemize import debt
from tests.scout import minirepo

CORE = '''\
import os

from core import dist


class Trainer:
    def __init__(self, config):
        self.config = config
        self.dims = self.init_distributed()
        self.step = 0

    def init_distributed(self):
        world_size = dist.init(self.config.comm)
        return world_size * 1

    def train(self):
        loaded_step = self.step
        while self.step < 10:
            self.step += 1
            if self.step - loaded_step == 1:
                dist.set_timeouts(self.config.timeout)
'''
COPY = '''\
import os

from core import dist


class Engine:
    def __init__(self, config):
        self.config = config
        dist.init(config.comm)
        world_size = int(os.environ["WORLD_SIZE"])
        self.dims = world_size
        self.step = 0

    def train(self):
        while self.step < 10:
            self.step += 1
            if self.step == 1:
                dist.set_timeouts(self.config.timeout)
'''
TARGET = "duplicate_logic:\n  - {ours: [sub/engine.py], upstream: [core/train.py]}\n"


def _inp(tmp_path, copy: str, core: str = CORE):
    return minirepo.build(
        tmp_path, base={"core/__init__.py": "", "core/dist.py": "", "core/train.py": core},
        head={"sub/__init__.py": "", "sub/engine.py": copy}, target=TARGET)


def test_env_read_where_upstream_calls_and_a_lagging_guard_are_found(tmp_path) -> None:
    res = stalecopy.analyse(_inp(tmp_path, COPY))
    # The env read is compared with the helper upstream's __init__ calls on self.
    [env] = res.envs
    assert (env.ours, env.upstream, env.function, env.local, env.env) == (
        "sub/engine.py:10", "core/train.py:13", "Trainer.__init__", "world_size",
        "WORLD_SIZE")
    assert env.source.startswith("dist.init(")
    [guard] = res.guards
    assert (guard.ours, guard.upstream, guard.function) == (
        "sub/engine.py:17", "core/train.py:20", "Trainer.train")
    assert (guard.mine, guard.theirs, guard.names) == (
        "step == 1", "step - loaded_step == 1", ("loaded_step",))
    assert guard.calls == ("dist.set_timeouts",)
    items = debt._stale({"stale_copies": res})
    assert [i.kind for i in items] == ["opportunity", "opportunity"]
    assert all(not i.priority and i.section == "S-4" for i in items)
    assert "WORLD_SIZE" in items[0].title and "sub/engine.py:10" in items[0].title
    assert "core/train.py:13" in items[0].title
    assert "loaded_step" in items[1].why and "sub/engine.py:17" in items[1].title


def test_a_copy_in_step_with_upstream_is_not_stale(tmp_path) -> None:
    current = COPY.replace(
        "        dist.init(config.comm)\n        world_size = int(os.environ[\"WORLD_SIZE\"])\n",
        "        world_size = dist.init(config.comm)\n").replace(
        "        while self.step < 10:\n",
        "        loaded_step = self.step\n        while self.step < 10:\n").replace(
        "if self.step == 1:", "if self.step - loaded_step == 1:")
    res = stalecopy.analyse(_inp(tmp_path, current))
    assert res.envs == () and res.guards == ()
    assert debt._stale({"stale_copies": res}) == []


def test_upstream_reading_the_same_env_or_guarding_other_calls_is_no_finding(tmp_path) -> None:
    # Upstream reads the variable too: the copy is not behind.
    core = CORE.replace("world_size = dist.init(self.config.comm)",
                        "world_size = int(os.environ['WORLD_SIZE'])")
    # Upstream's narrower condition guards another call: a different guard, not the copy's.
    core = core.replace("dist.set_timeouts(self.config.timeout)", "dist.barrier()")
    res = stalecopy.analyse(_inp(tmp_path, COPY, core))
    assert res.envs == () and res.guards == ()


def test_a_copys_own_wider_condition_is_not_a_lag(tmp_path) -> None:
    # The copy's condition reads a name upstream's does not: its own design, not an
    # older form of upstream's.
    own = COPY.replace("if self.step == 1:", "if self.step == 1 or self.config.eager:")
    assert stalecopy.analyse(_inp(tmp_path, own)).guards == ()


def test_an_override_of_its_own_design_is_not_compared(tmp_path) -> None:
    sub = '''\
import os

from core.train import Trainer


class FT(Trainer):
    def init_distributed(self):
        replicas = int(os.environ["REPLICAS"])
        world_size = int(os.environ["WORLD_SIZE"]) * replicas
        self.extra = replicas
        return world_size
'''
    inp = minirepo.build(
        tmp_path, base={"core/__init__.py": "", "core/dist.py": "", "core/train.py": CORE},
        head={"sub/__init__.py": "", "sub/ft.py": sub})
    # Repeats too little of upstream's body (an override, not a copy): nothing compared.
    assert stalecopy.analyse(inp).envs == ()
    close = sub.replace("        replicas = int(os.environ[\"REPLICAS\"])\n", "").replace(
        " * replicas", "").replace("        self.extra = replicas\n", "").replace(
        "return world_size\n", "return world_size * 1\n")
    inp = minirepo.build(
        tmp_path / "b", base={"core/__init__.py": "", "core/dist.py": "",
                              "core/train.py": CORE},
        head={"sub/__init__.py": "", "sub/ft.py": close})
    [env] = stalecopy.analyse(inp).envs
    assert env.ours == "sub/ft.py:8" and env.function == "Trainer.init_distributed"
