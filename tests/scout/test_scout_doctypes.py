"""#22 item 7 (docs resolved against the code), ``doctypes``: a doc giving a mapping's
type in a code span (`[str: Model.Config]`) while the folder's string-keyed dict maps
names to builder functions. Match: the builders' dict (doc line, dict `file:line`).
No-match: a dict that builds the type (even beside a builders' dict), a dict of
anything else (partials, attributes), and a doc with no type claim."""

from __future__ import annotations

from agentops.scout.analyses import doctypes
from tests.scout import minirepo

GUIDE = """\
# Adding a model

- `__init__.py`
  - A dictionary of the model configurations, of the type `[str: Model.Config]`.
"""

BUILDERS = '''\
from functools import partial


def _small(backend="sdpa"):
    return Model.Config(dim=1, backend=backend)


def _big(backend="sdpa"):
    return Model.Config(dim=8, backend=backend)


_INIT = {"weight": partial(print, 1), "bias": print}
sub_configs = {
    "small": _small,
    "big": _big,
}
'''

BUILT = BUILDERS + '''
sub_flavors = {
    "small": Model.Config(dim=1),
    "big": Model.Config(dim=8),
}
'''


def _inp(tmp_path, code: str, guide: str = GUIDE):
    return minirepo.build(tmp_path, head={"sub/__init__.py": code, "sub/README.md": guide},
                          target="docs: [sub/README.md]\n")


def test_a_stated_mapping_type_the_folder_keeps_as_builders(tmp_path) -> None:
    [p] = doctypes.analyse(_inp(tmp_path, BUILDERS))
    assert (p.file, p.line) == ("sub/README.md", 4)
    assert "`sub_configs` (sub/__init__.py:13)" in p.problem
    assert "`_small`, `_big`" in p.problem and "`Model.Config`" in p.problem


def test_a_mapping_of_the_type_or_no_claim_is_fine(tmp_path) -> None:
    assert doctypes.analyse(_inp(tmp_path / "a", BUILT)) == []
    assert doctypes.analyse(_inp(tmp_path / "b", BUILDERS,
                                 GUIDE.replace("`[str: Model.Config]`", "a dict"))) == []
    # A mapping to builders is one to callables.
    assert doctypes.analyse(_inp(tmp_path / "d", BUILDERS, GUIDE.replace(
        "Model.Config", "typing.Callable"))) == []
    only_partials = BUILDERS.split("sub_configs", maxsplit=1)[0]
    assert doctypes.analyse(_inp(tmp_path / "c", only_partials)) == []
