"""#22 defect 6: a subclass constructor out of step with its base's. Skipping the
base's ``__init__`` while missing one of its steps is an item (an action naming the
commit when the base gained that step in the window); calling it and then taking one
of its steps again is work done twice (an opportunity). Made-up fixture trees, match
and no-match each."""

from __future__ import annotations

from agentops.scout.analyses import bodydrift
from agentops.scout.itemize import delta
from tests.scout import minirepo

BASE_OLD = '''\
class Widget:
    def __init__(self, size):
        self.size = size
        self.reset()

    def reset(self):
        self.count = 0
'''
BASE_NEW = '''\
class Widget:
    def __init__(self, size):
        self.size = size
        self.lookup = {}
        self.reset()

    def reset(self):
        self.count = 0
'''


def _inp(tmp_path, sub: str, *, old: str = BASE_OLD, new: str = BASE_NEW):
    return minirepo.build(tmp_path, base={"core/__init__.py": "", "core/widget.py": old},
                          head={"sub/__init__.py": "", "core/widget.py": new,
                                "sub/w.py": sub})


def _items(inp):
    res = {"fragile_surface_changes": [], "config_drift": [], "stale_patches": [],
           "listed_patches": [], "new_apis": [], "new_models": [],
           "init_gaps": bodydrift.init_gaps(inp)}
    return [i for i in delta.items(inp, res) if i.id.startswith(("init-",))
            or "__init__" in i.title]


def test_super_called_and_nothing_repeated_gives_nothing(tmp_path) -> None:
    sub = '''\
from core.widget import Widget


class Gadget(Widget):
    def __init__(self, size, colour):
        super().__init__(size)
        self.colour = colour
'''
    assert bodydrift.init_gaps(_inp(tmp_path, sub)) == []


def test_super_skipped_and_every_base_step_redone_gives_nothing(tmp_path) -> None:
    sub = '''\
from core.widget import Widget


class Gadget(Widget):
    def __init__(self, size):
        self.size = size * 2
        self.lookup = {"a": 1}
        self.reset()
'''
    assert bodydrift.init_gaps(_inp(tmp_path, sub)) == []


def test_super_skipped_and_a_step_the_base_gained_missing_is_an_action(tmp_path) -> None:
    sub = '''\
from core.widget import Widget


class Gadget(Widget):
    def __init__(self, size):
        self.size = size
        self.reset()
'''
    inp = _inp(tmp_path, sub)
    [g] = bodydrift.init_gaps(inp)
    assert (g.ours, g.upstream, g.base, g.skipped) == ("sub/w.py:5", "core/widget.py:2",
                                                       "Widget", ("`self.lookup`",))
    assert g.gained and g.commit == inp.commits[0].sha
    [it] = _items(inp)
    assert it.kind == "action" and inp.commits[0].sha[:9] in it.title


def test_super_skipped_and_an_old_step_missing_is_an_opportunity(tmp_path) -> None:
    sub = '''\
from core.widget import Widget


class Gadget(Widget):
    def __init__(self, size):
        self.size = size
        self.lookup = {}
'''
    inp = _inp(tmp_path, sub)
    [g] = bodydrift.init_gaps(inp)
    assert g.skipped == ("`self.reset()`",) and not g.gained
    [it] = _items(inp)
    assert it.kind == "opportunity"


def test_super_called_then_a_base_step_repeated_is_work_done_twice(tmp_path) -> None:
    sub = '''\
from core.widget import Widget


class Gadget(Widget):
    def __init__(self, size):
        super().__init__(size)
        self.reset()
'''
    inp = _inp(tmp_path, sub)
    [g] = bodydrift.init_gaps(inp)
    assert g.repeated == ("`self.reset()`",) and g.skipped == ()
    [it] = _items(inp)
    assert it.kind == "opportunity" and "twice" in it.title


def test_a_step_before_super_is_not_repeated_work(tmp_path) -> None:
    sub = '''\
from core.widget import Widget


class Gadget(Widget):
    def __init__(self, size):
        self.prepare()
        super().__init__(size)

    def prepare(self):
        self.colour = "red"
'''
    assert bodydrift.init_gaps(_inp(tmp_path, sub)) == []
