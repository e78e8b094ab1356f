"""#22 defect 10 (untested configuration), S-3: entries of a table the folder registers
with core that no test case runs for this model (``specflavors``)."""

from __future__ import annotations

from agentops.scout.analyses import specflavors
from agentops.scout.itemize import settings as setting_items
from agentops.scout.report import _wanted
from tests.scout import minirepo

INIT = '''\
shapes = {
    "tiny": Shape(width=8),
    "tiny_sparse": Shape(width=8, sparse=True),
    "wide": Shape(width=2048),
    "huge": Shape(width=9000),
}


def register():
    return Recipe(model_table=shapes, build_fn=build)
'''
# Core picks an entry by a configuration field.
CORE = '''\
def start(recipe, cfg):
    return recipe.model_table[cfg.arch.variant]
'''
BASE_TOML = '''\
[arch]
name = "other"
variant = "tiny"
'''
WIDE_TOML = '''\
[arch]
name = "sub"
variant = "wide"
'''
# One command selects this model at the default entry, one another model's entry of
# the same name, one this model's sparse entry only under another model's name.
CASES = '''\
CASES = [
    [["--arch.name sub", "--steps 2"]],
    [["--arch.variant=tiny_sparse", "--steps 2"]],
    [["--arch.name other", "--arch.variant huge"]],
]
'''


def _inp(tmp_path, **extra: str):
    head = {"sub/__init__.py": INIT, "core/run.py": CORE,
            "tests/integration/base.toml": BASE_TOML, "tests/integration/cases.py": CASES,
            "sub/configs/wide.toml": WIDE_TOML, **extra}
    return minirepo.build(tmp_path, head=head)


def test_entries_no_case_runs_for_the_model_are_found(tmp_path) -> None:
    inp = _inp(tmp_path)
    [found] = specflavors.analyse(inp)
    assert (found.file, found.table, found.selector, found.model, found.keys, found.lines,
            found.run) == ("sub/__init__.py", "shapes", "arch.variant", "sub",
                           ("tiny_sparse", "wide", "huge"), (3, 4, 5), 1)
    assert found.configs == (("wide", "sub/configs/wide.toml"),)
    [item] = setting_items.unrun_flavor_items(inp, {"unrun_flavors": [found]})
    assert item.kind == "opportunity"
    assert "`--arch.name sub`" in item.title
    assert "`wide` (:4; set only by `configs/wide.toml`, which no test runs)" in item.title
    assert "`huge` (:5)" in item.title
    assert item.files == ("sub/__init__.py", "sub/configs/wide.toml")


def test_entries_a_case_a_config_or_a_unit_test_runs_are_reached(tmp_path) -> None:
    cases = CASES.replace("--steps 2\"]],\n    [[\"--arch.variant=tiny_sparse",
                          "--steps 2\"]],\n    [[\"--arch.name=sub\", \"--arch.variant=tiny_sparse")
    unit = "from sub import shapes\n\n\ndef test_huge():\n    assert shapes['huge']\n"
    ci = "jobs:\n  run:\n    steps:\n      - run: CONFIG=sub/configs/wide.toml ./go.sh --x 1\n"
    inp = _inp(tmp_path, **{"tests/integration/cases.py": cases,
                            "tests/unit/test_shapes.py": unit,
                            ".github/workflows/ci.yaml": ci})
    assert specflavors.analyse(inp) == []


def test_a_table_no_test_reaches_or_no_code_indexes_is_not_judged(tmp_path) -> None:
    # No case selects this model at all: nothing to compare with.
    inp = _inp(tmp_path, **{"tests/integration/cases.py": "CASES = [['--arch.name other']]\n"})
    assert specflavors.analyse(inp) == []
    # Core never indexes the registered attribute by a configuration field.
    inp = _inp(tmp_path / "b", **{"core/run.py": "def start(recipe):\n    return recipe\n"})
    assert specflavors.analyse(inp) == []


def test_a_table_the_folder_looks_up_itself_is_left_to_flavors(tmp_path) -> None:
    init = INIT + "\n\ndef pick(variant):\n    return shapes[variant]\n"
    inp = _inp(tmp_path, **{"sub/__init__.py": init})
    assert specflavors.analyse(inp) == []


def test_the_report_loads_toml_configs_of_the_folder_and_the_test_folders(tmp_path) -> None:
    want = _wanted(minirepo.load_target(str(minirepo.target_file(tmp_path))))
    assert want("sub/configs/wide.toml") and want("tests/integration/base.toml")
    assert not want("other/configs/x.toml")
