"""#22 defect 10 (untested configuration), S-3: keys of a folder's flavor table that no
config and no test selects through the function that looks the table up."""

from __future__ import annotations

from agentops.scout.analyses import flavors
from agentops.scout.itemize import settings as setting_items
from tests.scout import minirepo

INIT = '''\
table = {
    "debug": Config(dim=8),
    "small": Config(dim=64),
    "small_flex": Config(dim=64, attn="flex"),
    "large": Config(dim=4096),
}


def model_registry(flavor: str):
    return Spec(model=table[flavor])
'''
REGISTRY = '''\
from . import model_registry


def debug():
    return Trainer(model_spec=model_registry("debug"))


def small():
    return Trainer(model_spec=model_registry(flavor="small"))
'''
# Another folder's function of the same name selects its own table.
OTHER = '''\
from other import model_registry

spec = model_registry("large")
'''


def _inp(tmp_path, **extra: str):
    head = {"sub/__init__.py": INIT, "sub/config_registry.py": REGISTRY,
            "other/config_registry.py": OTHER, **extra}
    return minirepo.build(tmp_path, head=head)


def test_keys_no_config_or_test_selects_are_found(tmp_path) -> None:
    inp = _inp(tmp_path)
    [found] = flavors.analyse(inp)
    assert (found.file, found.table, found.lookup, found.keys, found.lines, found.reached) == (
        "sub/__init__.py", "table", "model_registry", ("small_flex", "large"), (4, 5), 2)
    [item] = setting_items.flavor_items(inp, {"unreached_flavors": [found]})
    assert item.kind == "opportunity"
    assert "`small_flex` (:4), `large` (:5)" in item.title
    assert item.files == ("sub/__init__.py",)


def test_a_key_a_test_or_an_importer_of_the_folder_selects_is_reached(tmp_path) -> None:
    user = "from sub import model_registry\n\nspec = model_registry('large')\n"
    case = "CASES = [['--model.flavor small_flex', '--steps 2']]\n"
    inp = _inp(tmp_path, **{"tools/convert.py": user, "tests/integration/cases.py": case})
    assert flavors.analyse(inp) == []


def test_a_table_only_computed_names_select_is_not_judged(tmp_path) -> None:
    registry = ("from . import model_registry\n\n\n"
                "def pick(name):\n    return model_registry(name)\n")
    inp = _inp(tmp_path, **{"sub/config_registry.py": registry})
    assert flavors.analyse(inp) == []
