"""#22 (set 18 kind a): a data file saved with a ``.py`` suffix (an INI or TOML body that
happens to parse as Python) is not read as a module by any analysis: ``pysource.parse``
gives ``None`` and says why, so no analysis reads its section and value words as unbound
names. Match: bracketed headers used as statements with literal assignments (also dotted
headers and keys, arrays of tables, signed numbers, list values). No-match: real modules
that merely hold constants, a list display that is assigned or called on, a module with
one import or call among its assignments, a module with no header at all."""

from __future__ import annotations

import ast

import pytest

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses import unbound
from tests.scout import minirepo

DATA = '''\
# settings for the made-up widget run

[widget]
colour = "teal"
size = 12
verbose = false

[widget.extras]
offsets = [1, -2, 3]
ratio = -0.5

[[stages]]
label = "warmup"
'''


def test_a_config_body_saved_as_py_is_data_and_not_parsed() -> None:
    text = DATA + "\n# variant a\n"
    assert ps.data_not_code(ast.parse(text))
    assert ps.parse(text) is None
    assert ps.unparsed(text).startswith("data, not code")


@pytest.mark.parametrize("text", [
    # constants only, no header: a real constants module
    'NAME = "teal"\nSIZE = 12\nFLAGS = [1, 2]\n',
    # a list display assigned, not thrown away
    'SECTIONS = [widget]\nwidget = "teal"\n',
    # one import among headers and assignments: code
    'import os\n[widget]\ncolour = "teal"\n',
    # one call: code
    '[widget]\ncolour = make_colour()\n',
    # a function: code
    '[widget]\ndef f():\n    return 1\n',
    # a bare list of two values is no header
    '[a, b]\nc = 1\n',
])
def test_code_is_still_code(text: str) -> None:
    assert not ps.data_not_code(ast.parse(text))
    assert ps.parse(text) is not None


def test_unbound_reads_no_name_of_a_data_file_but_does_of_code(tmp_path) -> None:
    code = 'def run():\n    return helper_nobody_binds()\n'
    inp = minirepo.build(tmp_path, head={"sub/__init__.py": "", "sub/conf.py": DATA,
                                         "sub/run.py": code})
    found = unbound.analyse(inp)
    assert [(u.file, u.name) for u in found] == [("sub/run.py", "helper_nobody_binds")]
