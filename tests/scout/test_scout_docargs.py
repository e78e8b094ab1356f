"""#22 defect 7 (S-5): docstrings that document arguments the signature no longer takes
(``docargs``): a class docstring's ``Args:`` against its ``__init__`` after the
constructor moved to one config object, a ``:param x:`` line; and the no-match cases
(names the signature has, ``**kwargs``, a dataclass without ``__init__``, a nested
description line that looks like an entry, the ``Returns:`` section)."""

from __future__ import annotations

from agentops.scout.analyses import docargs
from agentops.scout.itemize import docs as doc_items
from tests.scout import minirepo

MODEL = '''\
class Block(Base):
    """
    A block.

    Args:
        layer_id (int): Identifier for the layer.
        dim (int): Model dimension.
            note: a nested line that looks like an entry.
        config (Block.Config): Block configuration.

    Returns:
        out: not an argument.
    """

    def __init__(self, config):
        self.config = config


def scale(x, factor):
    """Scale x.

    :param x: the tensor
    :param int factor: the factor
    :param bias: gone
    """
    return x * factor
'''

FINE = '''\
class Loose:
    """Args:
        anything: taken through kwargs.
    """

    def __init__(self, **kwargs):
        self.kw = kwargs


class Config:
    """Args:
        dim: a dataclass field, no __init__ of its own.
    """

    dim: int = 1


def add(a, b=0, *, c=1):
    """Add.

    Args:
        a: first.
        b: second.
        c: third.
    """
    return a + b + c
'''


def _inp(tmp_path, files):
    return minirepo.build(tmp_path, head={"sub/__init__.py": "", **files})


def test_documented_arguments_the_signature_lacks(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/model.py": MODEL})
    got = docargs.analyse(inp)
    assert [(p.file, p.line) for p in got] == [("sub/model.py", 6), ("sub/model.py", 24)]
    block, scale = got
    assert "class `Block`" in block.problem and "`layer_id`, `dim`" in block.problem
    assert "`note`" not in block.problem and "`out`" not in block.problem
    assert "`config`" not in block.problem.split("which")[0]
    assert "`bias`" in scale.problem and "`factor`" not in scale.problem.split("which")[0]
    items = doc_items.items(inp, {"doc_inaccuracies": got})
    assert [i.kind for i in items] == ["docs", "docs"]
    assert items[0].title.startswith("`sub/model.py:6`")


def test_signatures_that_take_the_documented_names_are_fine(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/fine.py": FINE})
    assert docargs.analyse(inp) == []


def test_tests_and_other_folders_are_not_read(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/tests/test_model.py": MODEL, "core/model.py": MODEL})
    assert docargs.analyse(inp) == []


def test_documented_parses_google_and_sphinx_entries() -> None:
    doc = "Do.\n\n    Args:\n        a (int): x\n            b: nested\n        c: y\n\n" \
          "    Raises:\n        d: no\n"
    assert docargs.documented(doc) == [(3, "a"), (5, "c")]
    assert docargs.documented(":param str name: n\n:param other: o") == [
        (0, "name"), (1, "other")]


def test_a_marker_line_under_args_is_a_note_not_a_parameter() -> None:
    doc = "Do.\n\n    Args:\n        a: x\n        TODO: fold b into a\n        c: y\n"
    assert docargs.documented(doc) == [(3, "a"), (5, "c")]
    inp_doc = "Do.\n\n    Args:\n        a: x\n        FIXME: gone\n"
    assert docargs.documented(inp_doc) == [(3, "a")]


def test_a_module_function_taking_self_may_document_it(tmp_path) -> None:
    bound_later = '''\
def fast_forward(self, x):
    """Attached to the block class at import.

    Args:
        self: the block it is bound to.
        x: the input.
        gone: no longer taken.
    """
    return x
'''
    got = docargs.analyse(_inp(tmp_path, {"sub/patch.py": bound_later}))
    assert len(got) == 1
    head, _, takes = got[0].problem.partition("which")
    assert "`gone`" in head and "`self`" not in head
    assert "(it takes x)" in takes
