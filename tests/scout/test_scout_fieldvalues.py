"""#22 defect 10 (untested configuration), S-3: branches on a value of the folder's own
args dataclass (``mode: str = "plain"``; ``match self.mode: case "fancy"``) that no
flavor, config or test of the folder sets. Made-up widget code throughout.
"""

from __future__ import annotations

from agentops.scout.analyses import fieldvalues as fv
from agentops.scout.itemize import settings as setting_items
from tests.scout import minirepo

ARGS = '''\
from dataclasses import dataclass


@dataclass
class WidgetArgs:
    mode: str = "plain"
    shape: str = "round"
    size: int = 3
'''

MODEL = '''\
class Widget:
    def __init__(self, args):
        self.mode = args.mode
        match self.mode:
            case "fancy" | "gaudy":
                self.paint = 1
            case "plain":
                self.paint = 0
            case "broken":
                raise ValueError("broken widgets are refused")

    def forward(self, args):
        if self.mode == "fancy":
            return 2
        if args.shape == "square":
            return 3
        if getattr(args, "mode", "plain") in ("gaudy",):
            return 4
        return 0
'''

# The same field name read through a setting object of a class the folder does not
# define is another class's setting, judged elsewhere.
PARALLELIZE = '''\
def parallelize(model, job_config: JobConfig):
    if job_config.backend.mode == "fancy":
        return 1
    return 0
'''

FLAVORS = '''\
from sub.args import WidgetArgs

flavors = {"small": WidgetArgs(), "square": WidgetArgs(shape="square")}
'''


def _case(*flags: str) -> str:
    quoted = ", ".join(repr(f) for f in flags)
    return ("from runner import OverrideDefinitions\n\n"
            f"tests = [OverrideDefinitions([[{quoted}]], 'd', 'n')]\n")


def _inp(tmp_path, **extra: str):
    head = {"sub/args.py": ARGS, "sub/model.py": MODEL, "sub/parallelize.py": PARALLELIZE,
            "sub/__init__.py": FLAVORS,
            "tests/integration_tests/models.py": _case("--module sub", "--training.steps 2"),
            **extra}
    return minirepo.build(tmp_path, head=head)


def _found(inp, reported=frozenset()) -> list[tuple[str, int, str, str]]:
    return [(v.file, v.line, v.field, v.value) for v in fv.analyse(inp, reported)]


def test_branches_on_values_no_flavor_or_test_sets_are_found(tmp_path) -> None:
    inp = _inp(tmp_path)
    # "plain" is the default, "broken" only raises, "square" is set by a flavor, and the
    # job config's `mode` is not the widget's.
    assert _found(inp) == [("sub/model.py", 5, "mode", "fancy"),
                           ("sub/model.py", 5, "mode", "gaudy"),
                           ("sub/model.py", 13, "mode", "fancy"),
                           ("sub/model.py", 17, "mode", "gaudy")]
    [item] = setting_items.value_items(inp, {"unselected_values": fv.analyse(inp)})
    assert item.kind == "opportunity" and item.section == "S-3"
    assert "4 branches on `mode`" in item.title
    assert "`mode == 'fancy'` (model.py:5, model.py:13)" in item.title
    assert "args.py:6 with default 'plain'" in item.why
    assert item.files == ("sub/model.py",)
    # A branch another analysis already lists is not listed twice.
    assert ("sub/model.py", 13, "mode", "fancy") not in _found(
        inp, frozenset({("sub/model.py", 13)}))


def test_a_value_a_flavor_a_test_case_or_a_test_sets_is_no_finding(tmp_path) -> None:
    # A flavor of the folder selects "fancy": that branch is reachable, "gaudy" is not.
    flavor = FLAVORS.replace('WidgetArgs(shape="square")',
                             'WidgetArgs(shape="square", mode="fancy")')
    assert {f[3] for f in _found(_inp(tmp_path / "a", **{"sub/__init__.py": flavor}))} \
        == {"gaudy"}
    # The folder's integration case sets both on the command line.
    cases = _case("--module sub", "--model.mode fancy")
    cases = cases.replace("'--model.mode fancy'", "'--model.mode fancy', '--model.mode=gaudy'")
    assert _found(_inp(tmp_path / "b", **{"tests/integration_tests/models.py": cases})) == []
    # A test that imports the folder builds a gaudy and a fancy widget.
    test = ("from sub.args import WidgetArgs\n\n\ndef test_w():\n"
            "    assert WidgetArgs(mode='gaudy')\n    w = WidgetArgs()\n"
            "    w.mode = 'fancy'\n")
    assert _found(_inp(tmp_path / "c", **{"tests/unit_tests/test_widget.py": test})) == []


def test_a_field_set_from_a_computed_value_or_declared_twice_is_not_judged(tmp_path) -> None:
    # A registry passes a value it was given: any value is possible.
    registry = "from sub.args import WidgetArgs\n\n\ndef build(choice):\n" \
               "    return WidgetArgs(mode=choice)\n"
    assert _found(_inp(tmp_path / "a", **{"sub/registry.py": registry})) == []
    # A second dataclass of the folder declares `mode` too: which one a branch reads is
    # not known by the name alone.
    other = "from dataclasses import dataclass\n\n\n@dataclass\nclass Other:\n" \
            "    mode: str = 'plain'\n"
    assert _found(_inp(tmp_path / "b", **{"sub/other.py": other})) == []
