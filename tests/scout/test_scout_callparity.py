"""#22 defect 4 (``callparity``): a module of the sub-project that calls many of the same
repository functions as an upstream module is compared with it call by call.
Match: a component pinned to ``None`` where upstream hands one over, a keyword left out
whose upstream value is not the callee's default (through a module-qualified call), a
returned value thrown away while the copy computes the same name another way, an engine
paired with a configured copy's upstream outside the watched paths, a call of a
component's method with fewer positional arguments than upstream's. No-match: the same
calls written like upstream's, a value equal to the default, a component the copy does
not have, a section its own trimmed config class lacks, a ``None`` upstream passes too,
a bare call with no rival binding, a module that shares too few callees with upstream to
be a copy of it, an upstream outside the watched paths that no pair names, and a missing
positional argument passed by keyword or upstream's bare local."""

from __future__ import annotations

import dataclasses

from agentops.scout.analyses import callparity
from agentops.scout.itemize import parity
from tests.scout import minirepo

PARTS = '''\
def build_tokens(cfg):
    return cfg


def build_batches(cfg, tokens):
    return tokens


def build_steps(cfg):
    return 1


def build_clock(cfg):
    return 0


def start_cluster(cfg, dump_to="", verbose=False):
    return 8


class Saver:
    def __init__(self, batches=None, folder="", keeper=None):
        self.batches = batches
'''

UPSTREAM = '''\
from core import parts
from core.parts import Saver, build_batches, build_clock, build_steps, build_tokens


class Runner:
    def __init__(self, cfg):
        size = parts.start_cluster(cfg, dump_to=cfg.dump, verbose=False)
        self.tokens = build_tokens(cfg)
        self.batches = build_batches(cfg, self.tokens)
        self.steps = build_steps(cfg)
        self.clock = build_clock(cfg)
        self.keeper = cfg.keeper
        self.saver = Saver(batches=self.batches, folder=cfg.dump, keeper=self.keeper)
        self.size = size
'''

OURS = '''\
import os

from core import parts
from core.parts import Saver, build_batches, build_clock, build_steps, build_tokens


class Engine:
    def __init__(self, cfg):
        parts.start_cluster(cfg)
        size = int(os.environ["NODES"])
        self.tokens = build_tokens(cfg)
        self.steps = build_steps(cfg)
        self.clock = build_clock(cfg)
        self.saver = Saver(batches=None, folder=cfg.dump)
        self.size = size

    def loader(self, cfg):
        return build_batches(cfg, self.tokens)
'''


def _files(ours: str = OURS, upstream: str = UPSTREAM) -> dict[str, str]:
    return {"core/__init__.py": "", "core/parts.py": PARTS, "core/runner.py": upstream,
            "sub/__init__.py": "", "sub/engine.py": ours}


def _run(tmp_path, files):
    return callparity.analyse(minirepo.build(tmp_path, head=files))


def test_a_copied_engine_that_pins_omits_and_discards_what_upstream_hands_over(
        tmp_path) -> None:
    inp = minirepo.build(tmp_path, head=_files())
    found = {(f.how, f.keyword): f for f in callparity.analyse(inp)}
    assert set(found) == {("pinned", "batches"), ("omitted", "dump_to"),
                          ("discarded", "size")}
    pinned = found["pinned", "batches"]
    assert (pinned.file, pinned.line, pinned.callee) == ("sub/engine.py", 14, "Saver")
    assert pinned.upstream == "core/runner.py:13"
    assert pinned.upstream_value == "self.batches"
    omitted = found["omitted", "dump_to"]
    assert omitted.callee == "parts.start_cluster" and omitted.upstream_value == "cfg.dump"
    discarded = found["discarded", "size"]
    assert discarded.line == 9 and discarded.ours_instead.startswith("sub/engine.py:10 ")
    assert "os.environ" in discarded.ours_instead
    items = parity.call_items(inp, {"call_parity": list(found.values())})
    titles = sorted(i.title for i in items)
    assert all(i.kind == "opportunity" for i in items)
    assert any("`batches=None`" in t and "core/runner.py:13" in t for t in titles)
    assert any("omits `dump_to`" in t and "`cfg.dump`" in t for t in titles)
    assert any("discards the value it returns" in t and "`size`" in t for t in titles)


def test_the_same_calls_written_like_upstreams_are_not_reported(tmp_path) -> None:
    ours = OURS.replace("        parts.start_cluster(cfg)\n        size = int("
                        "os.environ[\"NODES\"])\n",
                        "        size = parts.start_cluster(cfg, dump_to=cfg.dump)\n")
    ours = ours.replace("Saver(batches=None, folder=cfg.dump)",
                        "Saver(batches=self.loader(cfg), folder=cfg.dump)")
    assert _run(tmp_path, _files(ours=ours)) == []


def test_defaults_absent_components_and_shared_nones_are_no_drift(tmp_path) -> None:
    # Upstream passes a local for `verbose`, its own `self.keeper` the engine never
    # has, and `batches=None` in a second call: none is a lag.
    upstream = UPSTREAM + "        self.spare = Saver(batches=None, folder=cfg.dump, " \
                          "keeper=self.keeper)\n"
    # A bare local of upstream's may hold the default: not judged.
    upstream = upstream.replace("parts.start_cluster(cfg, dump_to=cfg.dump, verbose=False)",
                                "parts.start_cluster(cfg, dump_to=cfg.dump, verbose=loud)")
    found = {(f.how, f.keyword) for f in _run(tmp_path, _files(upstream=upstream))}
    assert ("pinned", "batches") not in found
    assert ("omitted", "verbose") not in found and ("omitted", "keeper") not in found
    assert ("omitted", "dump_to") in found


def test_a_bare_call_without_a_rival_binding_is_not_a_discarded_result(tmp_path) -> None:
    ours = OURS.replace("        size = int(os.environ[\"NODES\"])\n", "").replace(
        "        self.size = size\n", "")
    found = {(f.how, f.keyword) for f in _run(tmp_path, _files(ours=ours))}
    assert ("discarded", "size") not in found and ("pinned", "batches") in found


def test_a_module_sharing_too_few_callees_is_not_paired_unless_configured(tmp_path) -> None:
    few = OURS.replace("        self.steps = build_steps(cfg)\n", "").replace(
        "        self.clock = build_clock(cfg)\n", "")
    assert _run(tmp_path / "a", _files(ours=few)) == []
    inp = minirepo.build(tmp_path / "b", head=_files(ours=few), target=(
        "duplicate_logic:\n  - {ours: [sub/engine.py], upstream: [core/runner.py], "
        "why: copy}\n"))
    assert {f.how for f in callparity.analyse(inp)} == {"pinned", "omitted", "discarded"}


def test_an_omission_call_drift_already_reports_is_not_repeated(tmp_path) -> None:
    inp = minirepo.build(tmp_path, head=_files())
    found = callparity.analyse(inp)
    omitted = next(f for f in found if f.how == "omitted")
    drift = dataclasses.make_dataclass("D", ["ours", "missing"])(
        f"{omitted.file}:{omitted.line}", (omitted.keyword,))
    items = parity.call_items(inp, {"call_parity": found, "call_drift": [drift]})
    assert len(items) == len(found) - 1
    assert not any("omits" in i.title for i in items)


def test_a_binding_stale_copies_already_names_is_not_repeated(tmp_path) -> None:
    inp = minirepo.build(tmp_path, head=_files())
    found = callparity.analyse(inp)
    discarded = next(f for f in found if f.how == "discarded")
    env = dataclasses.make_dataclass("E", ["ours"])(discarded.ours_instead.split(" ")[0])
    stale = dataclasses.make_dataclass("S", ["envs"])((env,))
    items = parity.call_items(inp, {"call_parity": found, "stale_copies": stale})
    assert len(items) == len(found) - 1
    assert not any("discards" in i.title for i in items)


def test_a_method_reached_through_the_same_config_chain_is_compared(tmp_path) -> None:
    # `cfg.store.build(…)`: no import resolves it, the chain as written pairs the calls;
    # a keyword the copy leaves out there is not judged (no known default), nor is a
    # two-part chain (`cfg.make(…)`), too generic to pair two calls.
    upstream = UPSTREAM + ("        self.store = cfg.store.build(batches=self.batches, "
                           "folder=cfg.dump)\n"
                           "        self.made = cfg.make(batches=self.batches)\n")
    ours = OURS.replace("        self.size = size\n", "        self.size = size\n"
                        "        self.store = cfg.store.build(batches=None)\n"
                        "        self.made = cfg.make(batches=None)\n")
    found = [f for f in _run(tmp_path, _files(ours=ours, upstream=upstream))
             if f.callee.startswith("cfg.")]
    assert [(f.callee, f.how, f.keyword, f.upstream_value) for f in found] == [
        ("cfg.store.build", "pinned", "batches", "self.batches")]


# A copied engine beside a copied loop: the loop is the configured copy of a trainer that
# sits outside the watched paths; the engine holds the trainer's constructor.
LOOP = '''\
from core.parts import build_steps


def run(cfg):
    return build_steps(cfg)
'''


def _outside(tmp_path, *, configured: bool, ours: str = OURS, trimmed: str = ""):
    files = {"core/__init__.py": "", "core/parts.py": PARTS, "runner.py": UPSTREAM,
             "sub/__init__.py": "", "sub/engine.py": ours, "sub/loop.py": LOOP}
    if trimmed:
        files["sub/settings.py"] = trimmed
    target = ("duplicate_logic:\n  - {ours: [sub/loop.py], upstream: [runner.py], "
              "why: copy}\n") if configured else ""
    return callparity.analyse(minirepo.build(tmp_path, head=files, target=target))


def test_an_engine_is_paired_with_the_configured_copys_upstream_outside_the_watched_paths(
        tmp_path) -> None:
    found = {(f.file, f.how, f.keyword, f.upstream.split(":")[0])
             for f in _outside(tmp_path, configured=True)}
    assert ("sub/engine.py", "pinned", "batches", "runner.py") in found
    assert ("sub/engine.py", "omitted", "dump_to", "runner.py") in found


def test_an_upstream_outside_the_watched_paths_that_no_pair_names_is_not_paired(
        tmp_path) -> None:
    assert _outside(tmp_path, configured=False) == []


TRIMMED = '''\
from dataclasses import dataclass, field


@dataclass
class Settings:
    keeper: object = None
    steps: int = field(default=1)
'''


def test_a_section_the_copys_own_config_class_lacks_is_no_omission(tmp_path) -> None:
    # Upstream passes `cfg.dump`; the engine's `cfg` is the folder's trimmed Settings,
    # which has no `dump`: the copy has nothing to hand over.
    ours = OURS.replace("import os\n", "import os\n\nfrom sub.settings import Settings\n"
                        ).replace("def __init__(self, cfg):", "def __init__(self, cfg: Settings):")
    found = {(f.how, f.keyword) for f in _outside(tmp_path / "a", configured=True, ours=ours,
                                                  trimmed=TRIMMED)}
    assert ("omitted", "dump_to") not in found and ("pinned", "batches") in found
    # The same class with the section: the omission is reported.
    with_dump = TRIMMED + "    dump: str = \"\"\n"
    found = {(f.how, f.keyword) for f in _outside(tmp_path / "b", configured=True, ours=ours,
                                                  trimmed=with_dump)}
    assert ("omitted", "dump_to") in found


def _recorder(ours_call: str, up_call: str = "self.saver.record(self.tokens, self.steps)"):
    upstream = UPSTREAM + f"\n    def log(self, cfg):\n        {up_call}\n"
    ours = OURS + f"\n    def log(self, cfg):\n        {ours_call}\n"
    return _files(ours=ours, upstream=upstream)


def test_a_component_method_called_with_fewer_positional_arguments_is_short(
        tmp_path) -> None:
    inp = minirepo.build(tmp_path, head=_recorder("self.saver.record(self.tokens)"))
    short = [f for f in callparity.analyse(inp) if f.how == "short"]
    assert [(f.callee, f.keyword, f.upstream_value, f.upstream) for f in short] == [
        ("self.saver.record", "argument 2", "self.steps", "core/runner.py:17")]
    [item] = [i for i in parity.call_items(inp, {"call_parity": short})]
    assert "fewer positional arguments" in item.title and "`self.steps`" in item.title


def test_the_same_positional_arguments_or_the_missing_one_by_keyword_are_not_short(
        tmp_path) -> None:
    for n, call in enumerate(("self.saver.record(self.tokens, self.steps)",
                              "self.saver.record(self.tokens, count=self.steps)")):
        inp = minirepo.build(tmp_path / str(n), head=_recorder(call))
        assert not [f for f in callparity.analyse(inp) if f.how == "short"], call
    # Upstream's missing value is a bare local of its own (it may hold the default), or a
    # component the copy never has.
    for n, up in enumerate(("self.saver.record(self.tokens, cfg)",
                            "self.saver.record(self.tokens, self.spare)")):
        inp = minirepo.build(tmp_path / f"u{n}", head=_recorder(
            "self.saver.record(self.tokens)", up))
        assert not [f for f in callparity.analyse(inp) if f.how == "short"], up


def test_a_resolved_callee_names_the_parameter_and_skips_its_default(tmp_path) -> None:
    # `parts.start_cluster(cfg)` against upstream's `(cfg, cfg.dump)`: `dump_to` by name;
    # against `(cfg, "")`, the callee's default: nothing.
    up = UPSTREAM.replace("parts.start_cluster(cfg, dump_to=cfg.dump, verbose=False)",
                          "parts.start_cluster(cfg, cfg.dump)")
    found = [f for f in _run(tmp_path / "a", _files(upstream=up)) if f.how == "short"]
    assert [(f.keyword, f.upstream_value) for f in found] == [("dump_to", "cfg.dump")]
    same = up.replace("parts.start_cluster(cfg, cfg.dump)", "parts.start_cluster(cfg, \"\")")
    assert not [f for f in _run(tmp_path / "b", _files(upstream=same)) if f.how == "short"]


def test_a_chain_through_self_matches_the_same_chain_through_a_local(tmp_path) -> None:
    # Upstream reaches the component as `self.job.saver`, the copy through a local `job`:
    # the same three-part chain once `self.` is set aside.
    inp = minirepo.build(tmp_path, head=_recorder(
        "job = cfg\n        job.saver.record(self.tokens)",
        "self.job.saver.record(self.tokens, self.steps)"))
    short = [f for f in callparity.analyse(inp) if f.how == "short"]
    assert [(f.callee, f.keyword) for f in short] == [("job.saver.record", "argument 2")]


def test_only_python_modules_outside_tests_are_upstream_candidates(tmp_path) -> None:
    # The upstream module's text under a name that is no module, or in a tests folder:
    # nothing to pair with (the same text as core/runner.py is paired).
    for n, path in enumerate(("core/runner_notes.txt", "core/tests/test_runner.py")):
        files = _files()
        files[path] = files.pop("core/runner.py")
        assert _run(tmp_path / str(n), files) == [], path
    assert _run(tmp_path / "same", _files())


def test_a_starred_call_is_never_short_and_the_value_named_is_the_named_calls(
        tmp_path) -> None:
    inp = minirepo.build(tmp_path / "a", head=_recorder("self.saver.record(*self.tokens)"))
    assert not [f for f in callparity.analyse(inp) if f.how == "short"]
    two = "self.saver.record(self.tokens, self.steps)\n        " \
          "self.saver.record(self.tokens, self.clock)"
    inp = minirepo.build(tmp_path / "b", head=_recorder("self.saver.record(self.tokens)", two))
    # Upstream calls twice with different values: the value reported is the one the
    # upstream call it names passes.
    [f] = [f for f in callparity.analyse(inp) if f.how == "short"]
    assert (f.upstream_value, f.upstream) in {("self.steps", "core/runner.py:17"),
                                              ("self.clock", "core/runner.py:18")}


def test_a_constructor_short_of_an_argument_names_the_parameter_after_self(tmp_path) -> None:
    up = UPSTREAM.replace("Saver(batches=self.batches, folder=cfg.dump, keeper=self.keeper)",
                          "Saver(self.batches, cfg.dump, keeper=self.keeper)")
    ours = OURS.replace("Saver(batches=None, folder=cfg.dump)", "Saver(self.tokens)")
    found = [f for f in _run(tmp_path, _files(ours=ours, upstream=up)) if f.how == "short"]
    assert [(f.callee, f.keyword, f.upstream_value) for f in found] == [
        ("Saver", "folder", "cfg.dump")]


def test_what_a_config_class_has_through_its_methods_and_bases_counts(tmp_path) -> None:
    ours = OURS.replace("import os\n", "import os\n\nfrom sub.settings import Settings\n"
                        ).replace("def __init__(self, cfg):", "def __init__(self, cfg: Settings):")
    # A method sets `self.dump`: the section exists. Another object's `dump` and a
    # nested attribute of self do not give the class one.
    by_method = TRIMMED + ("\n    def load(self, other):\n        self.dump = ''\n"
                           "        other.dump = ''\n        self.cache.dump = ''\n")
    by_other = TRIMMED + "\n    def load(self, other):\n        other.dump = ''\n"
    based = ("from core.parts import Saver\n\n\nclass Settings(Saver):\n"
             "    keeper: object = None\n")
    for n, (trimmed, reported) in enumerate(((by_method, True), (by_other, False),
                                             (based, True))):
        found = {(f.how, f.keyword) for f in _outside(
            tmp_path / str(n), configured=True, ours=ours, trimmed=trimmed)}
        assert (("omitted", "dump_to") in found) is reported, trimmed


def test_a_short_call_whose_missing_value_the_trimmed_config_lacks_is_not_short(
        tmp_path) -> None:
    up = UPSTREAM.replace("parts.start_cluster(cfg, dump_to=cfg.dump, verbose=False)",
                          "parts.start_cluster(cfg, cfg.dump)")
    ours = OURS.replace("import os\n", "import os\n\nfrom sub.settings import Settings\n"
                        ).replace("def __init__(self, cfg):", "def __init__(self, cfg: Settings):")
    files = {"core/__init__.py": "", "core/parts.py": PARTS, "runner.py": up,
             "sub/__init__.py": "", "sub/engine.py": ours, "sub/loop.py": LOOP,
             "sub/settings.py": TRIMMED}
    target = "duplicate_logic:\n  - {ours: [sub/loop.py], upstream: [runner.py], why: copy}\n"
    found = callparity.analyse(minirepo.build(tmp_path / "a", head=files, target=target))
    assert not [f for f in found if f.how == "short"]
    files["sub/settings.py"] = TRIMMED + "    dump: str = \"\"\n"
    found = callparity.analyse(minirepo.build(tmp_path / "b", head=files, target=target))
    assert [(f.how, f.keyword) for f in found if f.how == "short"] == [("short", "dump_to")]


def test_an_upstream_built_on_the_folder_is_never_its_source(tmp_path) -> None:
    # core/runner.py is configured as a pair's upstream but imports the folder's engine:
    # code built on the sub-project, not a module it copies.
    files = {**_files(), "sub/loop.py": LOOP,
             "core/runner.py": "from sub.engine import Engine\n" + UPSTREAM}
    target = "duplicate_logic:\n  - {ours: [sub/loop.py], upstream: [core/runner.py], " \
             "why: copy}\n"
    assert callparity.analyse(minirepo.build(tmp_path, head=files, target=target)) == []


def test_a_short_item_names_the_parameter_in_code_or_the_position_plainly(tmp_path) -> None:
    inp = minirepo.build(tmp_path, head=_files())
    made = [callparity.CallParity("sub/engine.py", 9, "run", "short", k, "cfg.dump",
                                  "core/runner.py:7") for k in ("argument 2", "dump_to")]
    titles = [i.title for i in parity.call_items(inp, {"call_parity": made})]
    assert "passes `cfg.dump` as argument 2" in titles[0]
    assert "passes `cfg.dump` as `dump_to`" in titles[1]
