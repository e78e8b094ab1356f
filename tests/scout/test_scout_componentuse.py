"""#22 group D (``componentuse``): what upstream does to its components in a function a
copied engine re-implements. Match: a method upstream calls on a component the copy uses
but never calls it on (``skipped``), a keyword every upstream call of a component's
method passes that the copy's call leaves out (``dropped``). No-match: a function the
copy does not re-implement (it inherits or lacks it), a method the copy calls in another
function, a constant keyword (it may be the default), a keyword handing over a component
the copy never has, one reading a setting the sub-project never names, a call whose
result becomes another component (a build, not a use), a component the copy never
uses."""

from __future__ import annotations

from agentops.scout.analyses import componentuse
from agentops.scout.itemize import componentuse as items_of
from tests.scout import minirepo

UPSTREAM = '''\
class Runner:
    def __init__(self, cfg):
        self.rates = cfg.rates
        self.board = cfg.board
        self.spec = cfg.spec
        self.keeper = cfg.keeper
        self.pipe = self.spec.make_pipe(cfg)

    def step(self, x):
        self.rates.advance()
        extras = {"seen": x}
        self.rates.snapshot()
        self.board.write(x, extras=extras, verbose=False, keeper=self.keeper,
                         fast=self.cfg.train.fast_mode)
        self.pipe.run(x, scale=extras)
        self.saver.store(x)

    def close(self):
        self.board.flush()
'''

OURS = '''\
class Engine:
    def __init__(self, cfg):
        self.rates = cfg.rates
        self.board = cfg.board
        self.spec = cfg.spec
        self.pipe = self.spec.make_pipe(cfg)

    def step(self, x):
        self.rates.advance()
        self.board.write(x)
        self.pipe.run(x, scale=2)

    def report(self):
        self.pipe.run(0, scale=1)
'''

TARGET = ("duplicate_logic:\n  - {ours: [sub/engine.py], upstream: [core/runner.py], "
          "why: copy}\n")


def _run(tmp_path, ours: str = OURS, upstream: str = UPSTREAM):
    inp = minirepo.build(tmp_path, head={
        "core/__init__.py": "", "core/runner.py": upstream, "sub/__init__.py": "",
        "sub/engine.py": ours}, target=TARGET)
    return inp, componentuse.analyse(inp)


def test_a_skipped_method_and_a_dropped_keyword_are_found(tmp_path) -> None:
    inp, found = _run(tmp_path)
    got = {(g.how, g.component, g.method, g.keyword) for g in found}
    # rates.snapshot is skipped; board.write loses `extras` (a value upstream builds).
    # Not: verbose (a constant), keeper (a component the copy lacks), fast (a setting
    # the sub-project never names), board.flush (close is not re-implemented),
    # saver.store (the copy never uses a saver), spec.make_pipe (a build).
    assert got == {("skipped", "rates", "snapshot", ""),
                   ("dropped", "board", "write", "extras")}
    skipped = next(g for g in found if g.how == "skipped")
    assert (skipped.file, skipped.line, skipped.upstream) == (
        "sub/engine.py", 8, "core/runner.py:12")
    dropped = next(g for g in found if g.how == "dropped")
    assert (dropped.line, dropped.upstream) == (10, "core/runner.py:13")
    out = items_of.items(inp, {"component_use": found})
    assert [i.kind for i in out] == ["opportunity", "opportunity"]
    titles = " ".join(i.title for i in out)
    assert "never calls `snapshot` on its `rates`" in titles
    assert "`self.board.write(…)` at engine.py:10 omits `extras`" in titles


def test_a_method_the_copy_calls_elsewhere_is_not_skipped(tmp_path) -> None:
    ours = OURS + "\n    def later(self):\n        self.rates.snapshot()\n"
    _inp, found = _run(tmp_path, ours=ours)
    assert ("skipped", "rates", "snapshot") not in {(g.how, g.component, g.method)
                                                     for g in found}


def test_a_function_the_copy_does_not_reimplement_is_not_judged(tmp_path) -> None:
    ours = OURS.replace("    def step(self, x):", "    def tick(self, x):")
    _inp, found = _run(tmp_path, ours=ours)
    assert found == []


def test_a_keyword_the_copy_passes_is_no_gap(tmp_path) -> None:
    ours = OURS.replace("self.board.write(x)", "self.board.write(x, extras={})")
    _inp, found = _run(tmp_path, ours=ours)
    assert "dropped" not in {g.how for g in found}


UP_LOOP = '''\
def make_tools(cfg):
    return cfg


class Runner:
    def __init__(self, cfg):
        self.opt = cfg.opt
        self.net = cfg.net
        tools = make_tools(cfg)
        self.opt.on_step(lambda *a: tools.after(self.net))
        head = self.net.head
        self.opt.attach(head)

    def step(self, batch, labels):
        feats = {k: v for k, v in batch.items() if k != "x"}
        opts = {}
        self.net(batch["x"], **feats, **opts)
        self.opt.apply(batch, **opts)
'''

OUR_LOOP = '''\
class Engine:
    def __init__(self, cfg):
        self.opt = cfg.opt
        self.net = cfg.net
        self.opt.zero()

    def step(self, batch, labels):
        opts = {}
        self.net(batch["x"], **opts)
        self.opt.apply(batch, **opts)
'''


def test_a_dict_upstream_builds_and_spreads_that_the_copy_drops(tmp_path) -> None:
    inp, found = _run(tmp_path, ours=OUR_LOOP, upstream=UP_LOOP)
    got = {(g.how, g.component, g.method or g.keyword, g.line) for g in found}
    # `feats` is built in upstream's step and spread into the model call; `opts` the
    # copy spreads too. `on_step`'s hook needs `make_tools`, which the copy never
    # names: not judged; `attach` needs only `net`, which the copy has.
    assert got == {("spread", "self.net", "**feats", 9), ("skipped", "opt", "attach", 2)}
    [item] = [i for i in items_of.items(inp, {"component_use": found})
              if "feats" in i.title]
    assert item.kind == "opportunity" and "core/runner.py:17" in item.title


def test_a_spread_the_copy_passes_or_a_parameter_spread_is_no_gap(tmp_path) -> None:
    ours = OUR_LOOP.replace('**opts)\n        self.opt.apply', '**opts, **extra)\n'
                            '        self.opt.apply').replace(
        "opts = {}", "opts = {}\n        extra = {}")
    _inp, found = _run(tmp_path / "a", ours=ours, upstream=UP_LOOP.replace(
        "self.net(batch[\"x\"], **feats", "self.net(batch[\"x\"], **extra"))
    assert "spread" not in {g.how for g in found}
    # A spread of the function's own parameter (not a dict it builds) is not judged.
    up = UP_LOOP.replace("def step(self, batch, labels):", "def step(self, batch, labels, "
                         "**feats):").replace(
        '        feats = {k: v for k, v in batch.items() if k != "x"}\n', "")
    _inp, found = _run(tmp_path / "b", ours=OUR_LOOP, upstream=up)
    assert "spread" not in {g.how for g in found}
