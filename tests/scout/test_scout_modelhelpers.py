"""#22 one model's helper used for other models (``modelhelpers``). Made-up tree: models
``kite`` and ``wren`` under ``pkg/models`` (each registers with a keyword call), shared
parts under ``pkg/models/parts`` (re-exports only: no model). ``kite``'s stage splitter
reads ``kite``'s layer names off its parameter, through a same-module helper.

Match: ``wren`` registers ``kite``'s splitter through ``kite``'s package re-export (run
from ``kite``'s folder and from ``wren``'s); a shared module of an experiment folder
holding per-model subfolders imports a helper of that experiment's ``kite`` subfolder
inside a function (a function-level import), the helper reading layer names ``kite``
defines in core. No-match: the helper reads nothing of ``kite``'s classes; the user is
``kite``'s own variant in the experiment (a folder of the same name); ``kite``'s package
re-exporting it; a test importing it; a helper of the shared parts folder; a user that
only imports the name."""

from __future__ import annotations

import dataclasses

from agentops.scout.analyses import modelhelpers
from agentops.scout.itemize import debt
from tests.scout import minirepo

SPEC = '''\
from pkg.core import Recipe
from .net import Net
from .split import {fn}


def recipe():
    return Recipe(name="{name}", model_cls=Net, split_fn={fn})
'''

KITE_NET = '''\
class KiteArgs:
    depth: int = 4


class Net:
    def __init__(self, args):
        self.stem = object()
        self.blocks = [object()] * args.depth
        self.head = object()
'''

KITE_SPLIT = '''\
def split_kite(net, args):
    return _cut(net, args.depth)


def _cut(net, depth):
    return [net.stem, net.blocks[:depth], net.head]
'''

WREN_NET = '''\
class Net:
    def __init__(self):
        self.trunk = object()
'''

WREN_SPEC = '''\
from pkg.core import Recipe
from pkg.models.kite import split_kite
from .net import Net


def recipe():
    return Recipe(name="wren", model_cls=Net, split_fn=split_kite)
'''

KITE_INIT = SPEC.format(fn="split_kite", name="kite") + "\n__all__ = ['split_kite']\n"

EXP_KITE = '''\
def plan_for(model):
    return [model.stem, model.head] + list(model.blocks)
'''

EXP_SHARED = '''\
def passes_for(model, names):
    from pkg.exp.kite.plan import plan_for

    return [plan_for(model)] if "plan" in names else []
'''


def _files(**over: str) -> dict[str, str]:
    files = {
        "pkg/__init__.py": "", "pkg/core.py": "class Recipe:\n    pass\n",
        "pkg/models/__init__.py": "",
        "pkg/models/parts/__init__.py": "from .cut import trim\n",
        "pkg/models/parts/cut.py": "def trim(net):\n    return net.stem\n",
        "pkg/models/kite/__init__.py": KITE_INIT,
        "pkg/models/kite/net.py": KITE_NET,
        "pkg/models/kite/split.py": KITE_SPLIT,
        "pkg/models/wren/__init__.py": WREN_SPEC,
        "pkg/models/wren/net.py": WREN_NET,
        "pkg/exp/__init__.py": "",
        "pkg/exp/shared.py": EXP_SHARED,
        "pkg/exp/kite/__init__.py": "",
        "pkg/exp/kite/plan.py": EXP_KITE,
        "pkg/exp/kite/wire.py": "from pkg.exp.kite.plan import plan_for\n\nUSE = plan_for\n",
        "pkg/exp/wren/__init__.py": "",
        "pkg/exp/wren/wire.py": "from pkg.exp.shared import passes_for\n\nUSE = passes_for\n",
        "tests/test_split.py": "from pkg.models.kite.split import split_kite\n\n"
                               "def test_it():\n    assert split_kite\n",
    }
    files.update(over)
    return {k: v for k, v in files.items() if v is not None}


def _inp(tmp_path, files, sub):
    inp = minirepo.build(tmp_path, head=files)
    return dataclasses.replace(inp, target=dataclasses.replace(inp.target, subproject=sub))


def test_models_are_the_folders_that_register_one(tmp_path) -> None:
    inp = _inp(tmp_path, _files(), "pkg/models/kite")
    assert modelhelpers.model_names(inp.head.files, inp.head.paths) == {"kite", "wren"}
    assert modelhelpers.model_of("pkg/exp/kite/plan.py", frozenset({"kite"})) == (
        "kite", "pkg/exp/kite")
    assert modelhelpers.model_of("pkg/exp/shared.py", frozenset({"kite"})) is None


def test_another_model_registering_the_helper_from_the_owners_folder(tmp_path) -> None:
    inp = _inp(tmp_path, _files(), "pkg/models/kite")
    [h] = modelhelpers.analyse(inp)
    assert (h.file, h.line, h.names, h.model) == (
        "pkg/models/kite/split.py", 1, ("split_kite",), "kite")
    assert h.reads == ("blocks", "depth", "head", "stem")
    assert h.users == ("pkg/models/wren/__init__.py:2",)
    [item] = debt._model_helpers(inp, {"model_helpers": [h]})
    assert item.kind == "opportunity" and item.section == "S-4"
    assert item.where == "pkg/models/kite/split.py:1"
    assert "`split_kite`" in item.title and "pkg/models/wren/__init__.py:2" in item.title
    assert item.files == ("pkg/models/kite/split.py", "pkg/models/wren/__init__.py")


def test_the_same_finding_from_the_users_folder(tmp_path) -> None:
    [h] = modelhelpers.analyse(_inp(tmp_path, _files(), "pkg/models/wren"))
    assert h.names == ("split_kite",) and h.users == ("pkg/models/wren/__init__.py:2",)


def test_shared_code_of_a_folder_calling_one_models_helper(tmp_path) -> None:
    [h] = modelhelpers.analyse(_inp(tmp_path, _files(), "pkg/exp"))
    assert (h.file, h.names, h.model) == ("pkg/exp/kite/plan.py", ("plan_for",), "kite")
    assert h.reads == ("blocks", "head", "stem")  # kite's classes are core's
    assert h.users == ("pkg/exp/shared.py:2",)  # not kite's own wire.py


def test_a_helper_reading_nothing_of_the_models_classes(tmp_path) -> None:
    split = "def split_kite(net, args):\n    return [net, args.count]\n"
    inp = _inp(tmp_path, _files(**{"pkg/models/kite/split.py": split}), "pkg/models/kite")
    assert modelhelpers.analyse(inp) == []


def test_only_the_models_own_code_and_tests_using_it(tmp_path) -> None:
    wren = WREN_SPEC.replace("split_fn=split_kite", "split_fn=None")
    files = _files(**{"pkg/models/wren/__init__.py": wren, "pkg/exp/shared.py": None,
                      "pkg/exp/wren/wire.py": None})
    for sub in ("pkg/models/kite", "pkg/exp"):
        assert modelhelpers.analyse(_inp(tmp_path / sub.replace("/", "_"), files, sub)) == []


def test_a_shared_parts_folder_is_no_model(tmp_path) -> None:
    wren = WREN_SPEC.replace("from pkg.models.kite import split_kite",
                             "from pkg.models.parts import trim as split_kite")
    files = _files(**{"pkg/models/wren/__init__.py": wren, "pkg/exp/shared.py": None})
    assert modelhelpers.analyse(_inp(tmp_path, files, "pkg/models/wren")) == []


WREN_PLAN = "def plan_wren(model):\n    return [model.trunk]\n"


def test_a_dispatch_table_or_branch_picking_each_models_own_helper(tmp_path) -> None:
    """Review rev44a: shared code that picks each model's helper by the model's own name
    (a table keyed by it, an ``if name == ...`` branch) runs the helper for that model
    only, no finding; keyed or tested for another model's name, it is a finding."""
    table = ("from pkg.exp.kite.plan import plan_for\nfrom pkg.exp.wren.plan import plan_wren\n"
             "\nPLANS = {{{key!r}: plan_for, 'wren': plan_wren}}\n")
    branch = ("def passes_for(model, name):\n    from pkg.exp.kite.plan import plan_for\n\n"
              "    if name {op} {key!r}:\n        return plan_for(model)\n    return []\n")
    for n, (shared, found) in enumerate([
            (table.format(key="kite"), False), (table.format(key="wren"), True),
            (branch.format(op="==", key="kite"), False),
            (branch.format(op="!=", key="kite"), True),
            (branch.format(op="==", key="wren"), True)]):
        files = _files(**{"pkg/exp/shared.py": shared, "pkg/exp/wren/plan.py": WREN_PLAN})
        got = modelhelpers.analyse(_inp(tmp_path / str(n), files, "pkg/exp/kite"))
        assert [h.names for h in got] == ([("plan_for",)] if found else []), shared


def _chain(depth: int) -> str:
    """``split_kite`` calling a chain of same-module functions, the last (``depth`` calls
    down) reading ``kite``'s layer names off its parameter."""
    out = ["def split_kite(net):\n    return _c1(net)\n"]
    for k in range(1, depth):
        out.append(f"def _c{k}(net):\n    return _c{k + 1}(net)\n")
    out.append(f"def _c{depth}(net):\n    return [net.stem, net.head]\n")
    return "\n\n".join(out)


def test_the_calls_followed_from_the_helper_stop_at_the_depth_bound(tmp_path) -> None:
    """Review rev44a (mutation): reads three calls down count (``CALL_DEPTH``), four
    do not."""
    depth = 3
    for n, (chain, found) in enumerate([(depth, True), (depth + 1, False)]):
        files = _files(**{"pkg/models/kite/split.py": _chain(chain)})
        got = modelhelpers.analyse(_inp(tmp_path / str(n), files, "pkg/models/kite"))
        assert [h.reads for h in got] == ([("head", "stem")] if found else []), chain


def test_findings_are_capped_and_a_tree_without_models_gives_none(tmp_path) -> None:
    """Review rev44a (mutation): one finding per defining module, at most
    ``MAX_FINDINGS`` (six); a repository with no model folder gives an empty list."""
    cap = 6
    over = {f"pkg/models/kite/s{k}.py": f"def split{k}(net):\n    return net.stem\n"
            for k in range(cap + 1)}
    over["pkg/models/wren/use.py"] = "".join(
        f"from pkg.models.kite.s{k} import split{k}\n" for k in range(cap + 1)) + \
        "USE = [" + ", ".join(f"split{k}" for k in range(cap + 1)) + "]\n"
    got = modelhelpers.analyse(_inp(tmp_path / "a", _files(**over), "pkg/models/kite"))
    assert [h.file for h in got] == [f"pkg/models/kite/s{k}.py" for k in range(cap)]
    bare = {"pkg/__init__.py": "", "pkg/util.py": "def f(x):\n    return x.a\n"}
    assert modelhelpers.analyse(_inp(tmp_path / "b", bare, "pkg")) == []


def test_a_user_outside_a_sub_project_holding_model_subfolders(tmp_path) -> None:
    """Review rev44a (mutation): the sub-project is an experiment folder with per-model
    subfolders; a module outside it, in another model's folder, runs its helper."""
    files = _files(**{"pkg/exp/shared.py": None, "pkg/exp/wren/wire.py": None,
                      "pkg/models/wren/plan.py": "from pkg.exp.kite.plan import plan_for\n"
                                                 "\nUSE = plan_for\n"})
    [h] = modelhelpers.analyse(_inp(tmp_path, files, "pkg/exp"))
    assert (h.names, h.users) == (("plan_for",), ("pkg/models/wren/plan.py:1",))


def test_a_hostile_user_path_is_rendered_inert(tmp_path) -> None:
    """Security (untrusted repository text, docs/security.md): the finding names its
    users' files, whose names may carry a mention, a link or HTML; the report line shows
    them as inert text (a backtick's own case is test_scout_docfeatures')."""
    import re

    from agentops.scout import render

    hostile = "pkg/models/wren/x @evil [x](https:/evil.example) <b>b</b> #12.py"
    files = _files(**{hostile: "from pkg.models.kite import split_kite\n\nUSE = split_kite\n"})
    [h] = modelhelpers.analyse(_inp(tmp_path, files, "pkg/models/kite"))
    assert hostile + ":1" in h.users
    [item] = debt._model_helpers(_inp(tmp_path / "b", files, "pkg/models/kite"),
                                 {"model_helpers": [h]})
    line = render._plain(item)
    shown = re.sub(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", "", line)
    assert "evil" in line
    for live in ("@evil", "[x](", "<b>", " #12"):
        assert live not in shown, live


def test_a_helper_re_exported_under_another_name(tmp_path) -> None:
    """Review rev44a (#22, S-4): ``kite``'s package re-exports its splitter under a new
    name and ``wren`` imports that name: the same finding as under its own name."""
    kite = KITE_INIT.replace("from .split import split_kite\n",
                             "from .split import split_kite\n"
                             "from .split import split_kite as cut\n")
    wren = WREN_SPEC.replace("from pkg.models.kite import split_kite",
                             "from pkg.models.kite import cut as split_kite")
    files = _files(**{"pkg/models/kite/__init__.py": kite, "pkg/models/wren/__init__.py": wren})
    [h] = modelhelpers.analyse(_inp(tmp_path, files, "pkg/models/kite"))
    assert (h.names, h.users) == (("split_kite",), ("pkg/models/wren/__init__.py:2",))


def test_model_folders_users_and_registries_read_exactly(tmp_path) -> None:
    """Review rev44a (mutation): only a package's ``__init__`` names a model (a shared
    module's keyword call does not); a file deep in a model's folder is that model's; a
    package above the model's folder re-exporting its helper is no user; a module of
    the sub-project naming none of its own functions, with an import that resolves
    nowhere beside the helper's, is still read."""
    parts = "def trim(net):\n    return net.stem\n\n\nX = dict(a=1, b=2, c=3)\n"
    inp = _inp(tmp_path / "a", _files(**{"pkg/models/parts/cut.py": parts}), "pkg/models/kite")
    assert modelhelpers.model_names(inp.head.files, inp.head.paths) == {"kite", "wren"}
    assert modelhelpers.model_of("pkg/models/kite/sub/x.py", frozenset({"kite"})) == (
        "kite", "pkg/models/kite")
    wren = WREN_SPEC.replace("split_fn=split_kite", "split_fn=None")
    above = "from .kite.split import split_kite\n\nHELPERS = [split_kite]\n"
    files = _files(**{"pkg/models/wren/__init__.py": wren, "pkg/models/__init__.py": above,
                      "pkg/exp/shared.py": None, "pkg/exp/wren/wire.py": None})
    assert modelhelpers.analyse(_inp(tmp_path / "b", files, "pkg/models/kite")) == []
    use = ("from ........ import nowhere\nfrom pkg.models.kite import split_kite\n"
           "from ........ import nothing\n\nUSE = split_kite\n")
    files = _files(**{"pkg/models/wren/__init__.py": wren, "pkg/models/wren/use.py": use})
    [h] = modelhelpers.analyse(_inp(tmp_path / "c", files, "pkg/models/wren"))
    assert h.users == ("pkg/models/wren/use.py:2",)
