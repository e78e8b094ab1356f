"""#22 defect 7 (S-5): prose about a class's members that the class does not have
(``docmembers``): an ``Attributes:`` entry naming a buffer that was renamed, a comment
naming ``a.b`` while the code it comments reads ``x.b``; and the no-match cases
(members set in ``__init__``, registered buffers, members inherited from a base of the
repository, a base outside it, a holder the file's code still spells, a comment the
code does not echo, tests and other folders)."""

from __future__ import annotations

from agentops.scout.analyses import docargs, docmembers
from agentops.scout.itemize import docs as doc_items
from tests.scout import minirepo

BASE = '''\
import torch.nn as nn


class Trunk(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(2, 2)
        self.embed = nn.Embedding(4, 2)
'''

MODEL = '''\
import torch.nn as nn

from pkg.trunk import Trunk


class Net(Trunk):
    """
    A net.

    Attributes:
        depth (int): How deep.
        angles (Tensor): Precomputed angles.
            note: a nested line, no entry.
        head (nn.Linear): From the base.
    """

    def __init__(self, depth):
        super().__init__()
        self.depth = depth
        self.register_buffer("table", None, persistent=False)

    def tie(self):
        # embed.weight and proj.weight are one tensor after this line.
        self.embed.weight = self.head.weight
'''

FINE = '''\
import torch.nn as nn

from pkg.trunk import Trunk
from elsewhere import Outside


class Kept(Trunk):
    """
    Attributes:
        table: registered below.
        head: inherited from Trunk.
        scale: a class attribute.
    """

    scale = 2

    def __init__(self):
        super().__init__()
        self.register_buffer("table", None)

    def tie(self):
        # embed.weight and head.weight are one tensor (both are members).
        self.embed.weight = self.head.weight
        # proj.weight: `proj` is still spelled by the code of this file.
        proj = self.head
        # out.bias: the code here reads no `bias`.
        return proj


class Foreign(Outside):
    """
    Attributes:
        whatever: may come from the base outside the repository.
    """


class Dynamic(nn.Module):
    """
    Attributes:
        made: set under a computed name.
    """

    def __init__(self, name):
        super().__init__()
        setattr(self, name, 1)
'''


def _inp(tmp_path, files):
    return minirepo.build(tmp_path, head={"sub/__init__.py": "", "pkg/__init__.py": "",
                                          "pkg/trunk.py": BASE, **files})


def test_stale_attribute_entry_and_comment_are_reported(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/net.py": MODEL})
    got = docmembers.analyse(inp)
    assert [(p.file, p.line) for p in got] == [("sub/net.py", 12), ("sub/net.py", 23)]
    entry, comment = got
    assert "class `Net`" in entry.problem and "`angles`" in entry.problem
    assert "`depth`" not in entry.problem.split("which")[0]
    assert "`head`" not in entry.problem.split("which")[0]
    assert "`note`" not in entry.problem
    assert "`table`" in entry.problem.split("which")[1]  # what it sets instead
    assert "`proj.weight`" in comment.problem and "`head.weight`" in comment.problem
    assert "`embed.weight`" not in comment.problem
    items = doc_items.items(inp, {"doc_inaccuracies": got})
    assert [i.kind for i in items] == ["docs", "docs"]
    assert items[0].title.startswith("`sub/net.py:12`")


def test_members_the_class_has_or_may_have_are_fine(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/fine.py": FINE})
    assert docmembers.analyse(inp) == []


def test_tests_and_other_folders_are_not_read(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/tests/test_net.py": MODEL, "core/net.py": MODEL})
    assert docmembers.analyse(inp) == []


def test_members_follow_bases_in_the_repository(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/net.py": MODEL})
    index = docmembers.for_tree(inp.head)
    net = index.resolve("Net")[0]
    have = docmembers.members(net, index)
    assert have is not None and {"depth", "table", "head", "embed", "tie"} <= have
    assert "angles" not in have
    assert docmembers.members(index.resolve("Trunk")[0], index) == {"__init__", "head",
                                                                     "embed"}


def test_attribute_sections_parse_like_argument_sections() -> None:
    doc = "X.\n\n    Attributes:\n        a (int): x\n            b: nested\n        c: y\n" \
          "\n    Args:\n        d: no\n"
    assert docargs.documented(doc, docmembers._ATTRS, sphinx=False) == [(3, "a"), (5, "c")]
    assert docargs.documented(":param e: no", docmembers._ATTRS, sphinx=False) == []


CYCLE = '''\
class Loop(Loop):
    """
    Attributes:
        ghost: a base that is the class itself cannot be resolved.
    """


class Lookup(object):
    """
    Attributes:
        anything: served by __getattr__.
    """

    def __getattr__(self, name):
        return name
'''


def test_cycles_and_computed_members_are_not_judged(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/odd.py": CYCLE})
    assert docmembers.analyse(inp) == []
    index = docmembers.for_tree(inp.head)
    assert docmembers.members(index.resolve("Loop")[0], index) is None
    assert docmembers.members(index.resolve("Lookup")[0], index) is None
