"""#22 defect 8 (``partreads``): a member the shared code reads on every element of a
sequence of modules, unguarded, that the folder's registered module class lacks while a
class another folder registers under the same keyword has it. Match: the renamed buffer,
stated with the folder's own test of the read's condition. No-match: a read under
``hasattr``, a class that has the member, a member no sibling has, a method call, and a
folder that refuses the read's condition outright."""

from __future__ import annotations

from agentops.scout.analyses import partreads
from agentops.scout.itemize import partreads as items_of
from tests.scout import minirepo

RUNNER = '''\
import torch.nn as nn


class Runner:
    nets: list[nn.Module]

    def step(self, dims, batch):
        nets = self.nets
        bufs = [batch] + [n.angle_table for n in nets] if dims.split_on else None
        for n in nets:
            n.reset_state()
        return bufs
'''

SPEC = '''\
class Spec:
    def __init__(self, net_cls=None):
        self.net_cls = net_cls
'''

OTHER = '''\
import torch.nn as nn

from core.spec import Spec


class OtherNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("angle_table", None)

    def forward(self, x):
        return x


SPEC = Spec(net_cls=OtherNet)
'''

OURS = '''\
import torch.nn as nn

from core.spec import Spec


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("turn_cache", None)

    def reset_state(self):
        pass

    def forward(self, x):
        return x


SPEC = Spec(net_cls=TinyNet)
'''

SETUP = '''\
def place(net, dims):
    if dims.split_on:
        net.spread()
    return net
'''


def _files(runner: str = RUNNER, ours: str = OURS, other: str = OTHER,
           setup: str = SETUP) -> dict[str, str]:
    return {"core/__init__.py": "", "core/spec.py": SPEC, "core/runner.py": runner,
            "zoo/__init__.py": "", "zoo/other.py": other,
            "sub/__init__.py": "", "sub/net.py": ours, "sub/setup.py": setup}


def _run(tmp_path, files):
    inp = minirepo.build(tmp_path, head=files)
    return inp, partreads.analyse(inp)


def test_a_member_the_folder_renamed_is_reported_with_where_the_path_runs(tmp_path) -> None:
    inp, found = _run(tmp_path, _files())
    [m] = found
    assert (m.cls, m.member, m.keyword, m.sibling) == (
        "TinyNet", "angle_table", "net_cls", "OtherNet")
    assert m.reads == ("core/runner.py:9",) and m.reach == "sub/setup.py:2"
    assert (m.file, m.line) == ("sub/net.py", 6)
    [item] = items_of.items(inp, {"part_member_reads": found})
    assert item.kind == "opportunity"
    assert "core/runner.py:9 read `.angle_table`" in item.title
    assert "`TinyNet` (net.py:6" in item.title and "`OtherNet`" in item.title
    assert "setup.py:2 tests the same condition" in item.title


def test_guarded_reads_own_members_and_members_no_sibling_has_are_no_finding(tmp_path) -> None:
    guarded = RUNNER.replace("        nets = self.nets\n",
                             "        nets = self.nets\n"
                             "        assert hasattr(nets[0], 'angle_table')\n")
    assert _run(tmp_path / "a", _files(runner=guarded))[1] == []
    has = OURS.replace('"turn_cache"', '"angle_table"')
    assert _run(tmp_path / "b", _files(ours=has))[1] == []
    lonely = OTHER.replace('"angle_table"', '"spin_table"')
    assert _run(tmp_path / "c", _files(other=lonely))[1] == []


def test_method_calls_and_a_refused_condition_are_no_finding(tmp_path) -> None:
    # `reset_state` is called, not read: our class lacking a method a sibling has is
    # another matter. A folder that raises on the condition never reaches the read.
    calls = RUNNER.replace("[n.angle_table for n in nets]", "[n.angle_table() for n in nets]")
    assert _run(tmp_path / "a", _files(runner=calls))[1] == []
    refused = "def place(net, dims):\n    if dims.split_on:\n        raise ValueError('no')\n" \
              "    return net\n"
    assert _run(tmp_path / "b", _files(setup=refused))[1] == []
