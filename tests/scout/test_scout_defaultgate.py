"""#22 item 5 (S-4): an argument a copy omits whose upstream value equals the callee's
default unless a feature the sub-project never refers to is on is no drift: one FYI line,
no action. Match and no-match on small fixture repositories; every name here is made up."""

from __future__ import annotations

from agentops.scout.analyses import bodydrift, duplicates
from agentops.scout.itemize import debt
from tests.scout import minirepo

PAIR = "duplicate_logic:\n  - {ours: [sub/runner.py], upstream: [core/runner.py], why: loop}\n"

CORE_TOOLS = """\
    def open_trace(cfg, *, step: int = 0, folder: str = "", tag: str = ""):
        return None
"""

# Upstream decides `tag` in a local: "" unless its mirroring subsystem is on.
CORE_RUNNER = """\
    from core.tools import open_trace


    class Runner:
        def run(self, cfg):
            tag = "" if not self.mirror.active else f"copy_{self.mirror.index}"
            open_trace(cfg, step=self.step, folder=cfg.out, tag=tag)
"""

OURS = """\
    from core.tools import open_trace


    class Engine:
        def __init__(self, cfg):
            self.step = 0
            self.cfg = cfg


    class MyRunner(Engine):
        def run(self, cfg):
            open_trace(cfg, step=self.step, folder=cfg.out)
"""


def _drift(tmp_path, core_runner: str = CORE_RUNNER, ours: str = OURS,
           extra: dict[str, str] | None = None):
    files = {"core/tools.py": CORE_TOOLS, "core/runner.py": core_runner,
             "sub/runner.py": ours, **(extra or {})}
    return duplicates.call_drift(minirepo.build(tmp_path, head=files, target=PAIR))


def test_omitted_argument_default_unless_an_unreferenced_feature_is_no_action(tmp_path) -> None:
    [d] = _drift(tmp_path)
    assert d.missing == ()
    assert d.gated == ("tag",)
    assert d.gated_by == ("self.mirror.active",)
    items = debt._calls({"call_drift": [d]}, "sub")
    assert [i.kind for i in items] == ["fyi"]
    assert "`tag` to `open_trace` at runner.py:12 (unless `self.mirror.active`)" \
        in items[0].title


def test_same_omission_stays_an_action_when_the_sub_project_uses_the_feature(tmp_path) -> None:
    # The sub-project sets up the mirroring subsystem itself: the non-default value is
    # reachable, so leaving `tag` out changes what it does.
    ours = OURS.replace("self.cfg = cfg", "self.cfg = cfg\n        self.mirror = None")
    [d] = _drift(tmp_path, ours=ours)
    assert (d.missing, d.gated) == (("tag",), ())
    [item] = debt._calls({"call_drift": [d]}, "sub")
    assert item.kind == "action" and "omits `tag`" in item.title


def test_a_config_file_of_the_sub_project_that_names_the_feature_makes_it_reachable(
        tmp_path) -> None:
    [d] = _drift(tmp_path, extra={"sub/configs/run.toml": "[mirror]\nactive = true\n"})
    assert (d.missing, d.gated) == (("tag",), ())


def test_a_comment_naming_the_feature_does_not_make_it_reachable(tmp_path) -> None:
    ours = OURS.replace("self.cfg = cfg", "self.cfg = cfg  # self.mirror: not supported")
    [d] = _drift(tmp_path, ours=ours)
    assert (d.missing, d.gated) == ((), ("tag",))


def test_negative_test_keeps_the_action(tmp_path) -> None:
    # The non-default value is what upstream passes when the feature is OFF, which is
    # where the sub-project is.
    core = CORE_RUNNER.replace('"" if not self.mirror.active else f"copy_{self.mirror.index}"',
                               'f"copy_{self.step}" if not self.mirror.active else ""')
    [d] = _drift(tmp_path, core_runner=core)
    assert (d.missing, d.gated) == (("tag",), ())


def test_unconditional_value_or_parameter_keeps_the_action(tmp_path) -> None:
    core = CORE_RUNNER.replace('"" if not self.mirror.active else f"copy_{self.mirror.index}"',
                               'f"copy_{self.step}"')
    [d] = _drift(tmp_path, core_runner=core)
    assert d.missing == ("tag",)
    # A parameter of upstream's function: its caller decides, nothing says it is "".
    core = CORE_RUNNER.replace("def run(self, cfg):", "def run(self, cfg, tag):").replace(
        '            tag = "" if not self.mirror.active else f"copy_{self.mirror.index}"\n', "")
    (tmp_path / "p").mkdir()
    [d] = _drift(tmp_path / "p", core_runner=core)
    assert d.missing == ("tag",)


def test_if_statement_form(tmp_path) -> None:
    gated = CORE_RUNNER.replace(
        '            tag = "" if not self.mirror.active else f"copy_{self.mirror.index}"\n',
        '            tag = ""\n            if self.mirror.active:\n'
        '                tag = f"copy_{self.mirror.index}"\n')
    [d] = _drift(tmp_path, core_runner=gated)
    assert (d.missing, d.gated) == ((), ("tag",))
    # The non-default value on the else side of the feature test: reachable.
    ungated = gated.replace("if self.mirror.active:", "if self.mirror.active:\n"
                            "                pass\n            else:")
    (tmp_path / "u").mkdir()
    [d] = _drift(tmp_path / "u", core_runner=ungated)
    assert (d.missing, d.gated) == (("tag",), ())


def test_a_config_subsystem_the_sub_project_never_names(tmp_path) -> None:
    core = CORE_RUNNER.replace('"" if not self.mirror.active else f"copy_{self.mirror.index}"',
                               '"x" if cfg.replication.enable else ""')
    [d] = _drift(tmp_path, core_runner=core)
    assert d.gated_by == ("cfg.replication.enable",)
    # Only the last name (a property of an object the sub-project holds) is unknown:
    # that object may reach it through its own config, so it stays an action.
    core = CORE_RUNNER.replace('"" if not self.mirror.active else f"copy_{self.mirror.index}"',
                               '"x" if cfg.replication_on else ""')
    (tmp_path / "c").mkdir()
    [d] = _drift(tmp_path / "c", core_runner=core)
    assert (d.missing, d.gated) == (("tag",), ())


def test_self_test_is_reachable_when_our_class_inherits_from_core(tmp_path) -> None:
    # Our class inherits upstream's class: `self.mirror` may come with it.
    core = CORE_RUNNER + "\n\n    class Base:\n        mirror = None\n"
    ours = OURS.replace("from core.tools import open_trace",
                        "from core.tools import open_trace\n    from core.runner import Base"
                        ).replace("class Engine:", "class Engine(Base):")
    [d] = _drift(tmp_path, core_runner=core, ours=ours)
    assert (d.missing, d.gated) == (("tag",), ())


# The same kind in a copied body: upstream added the keyword in the window.
RUNNER_BEFORE = """\
    from core.tools import open_trace


    class Runner:
        def run(self, cfg):
            open_trace(cfg, step=self.step, folder=cfg.out)
"""


def _body(tmp_path, ours: str = OURS, core_runner: str = CORE_RUNNER):
    return bodydrift.analyse(minirepo.build(
        tmp_path, base={"core/tools.py": CORE_TOOLS, "core/runner.py": RUNNER_BEFORE,
                        "sub/runner.py": ours},
        head={"core/tools.py": CORE_TOOLS, "core/runner.py": core_runner,
              "sub/runner.py": ours}, target=PAIR))


def test_keyword_added_in_the_window_default_unless_unreferenced_feature(tmp_path) -> None:
    assert _body(tmp_path) == []


def test_keyword_added_in_the_window_stays_when_the_feature_is_reachable(tmp_path) -> None:
    ours = OURS.replace("self.cfg = cfg", "self.cfg = cfg\n        self.mirror = None")
    [d] = _body(tmp_path, ours=ours)
    assert "keyword `open_trace(tag=…)`" in d.units
    # ... and when upstream's value differs with no condition at all.
    core = CORE_RUNNER.replace('"" if not self.mirror.active else f"copy_{self.mirror.index}"',
                               'f"copy_{self.step}"')
    (tmp_path / "u").mkdir()
    [d] = _body(tmp_path / "u", core_runner=core)
    assert "keyword `open_trace(tag=…)`" in d.units
