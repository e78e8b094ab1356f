"""#22 sibling parity (``siblingimports``): a function the sub-project registers calls
helpers imported from another model's folder while other siblings make them their own
way. Match: the registered wiring function calls two helpers of the ``alpha`` folder and
the ``beta`` folder defines one itself (an Opportunity naming the import line, the
module and beta's definition). No-match: the helpers imported from shared code, no other
sibling making them otherwise, an unregistered function importing them, and a sibling
class (not a helper function)."""

from __future__ import annotations

import dataclasses

from agentops.scout import gitrepo
from agentops.scout.analyses import siblingimports
from agentops.scout.itemize import debt
from tests.scout import minirepo

ALPHA_WIRING = '''\
def wire_alpha(model):
    shard_all(model)
    split_experts(model)


def shard_all(model):
    return model


def split_experts(model):
    return model
'''

BETA_WIRING = '''\
def wire_beta(model):
    shard_all(model)


def shard_all(model):
    return model
'''

SPEC = '''\
from core.spec import Recipe

from .wiring import {fn}


def recipe():
    return Recipe(name="{name}", wire_fn={fn})
'''

DEEP_WIRING = '''\
from pkg.models.alpha.wiring import shard_all, split_experts


def wire_deep(model):
    shard_all(model)
    split_experts(model)
'''


def _files(deep_wiring: str = DEEP_WIRING, beta: str = BETA_WIRING,
           deep_spec: str = SPEC) -> dict[str, str]:
    return {"core/__init__.py": "", "core/spec.py": "class Recipe:\n    pass\n",
            "core/sharding.py": "def shard_all(model):\n    return model\n",
            "pkg/__init__.py": "", "pkg/models/__init__.py": "",
            "pkg/models/deep/__init__.py": deep_spec.format(fn="wire_deep", name="deep"),
            "pkg/models/deep/wiring.py": deep_wiring,
            "pkg/models/alpha/__init__.py": SPEC.format(fn="wire_alpha", name="alpha"),
            "pkg/models/alpha/wiring.py": ALPHA_WIRING,
            "pkg/models/beta/__init__.py": SPEC.format(fn="wire_beta", name="beta"),
            "pkg/models/beta/wiring.py": beta}


def _inp(tmp_path, files):
    inp = minirepo.build(tmp_path, head=files)
    return dataclasses.replace(inp, target=dataclasses.replace(
        inp.target, subproject="pkg/models/deep"))


def test_registered_wiring_calling_another_models_helpers(tmp_path) -> None:
    inp = _inp(tmp_path, _files())
    [b] = siblingimports.analyse(inp)
    assert (b.file, b.line, b.registered, b.keyword) == (
        "pkg/models/deep/wiring.py", 1, "wire_deep", "wire_fn")
    assert b.registered_at == "pkg/models/deep/__init__.py:7"
    assert b.module == "pkg.models.alpha.wiring"
    assert b.functions == ("shard_all", "split_experts")
    assert b.otherwise == ("pkg/models/beta/wiring.py:5",)
    [item] = debt._sibling_imports(inp, {"sibling_imports": [b]})
    assert item.kind == "opportunity" and item.where == "pkg/models/deep/wiring.py:1"
    assert "pkg.models.alpha.wiring" in item.title and "beta/wiring.py:5" in item.title


def test_a_sibling_importing_the_helper_from_shared_code_makes_it_otherwise(
        tmp_path) -> None:
    beta = ("from core.sharding import shard_all\n\n\n"
            + BETA_WIRING.split("\n\n\n", maxsplit=1)[0] + "\n")
    [b] = siblingimports.analyse(_inp(tmp_path, _files(beta=beta)))
    assert b.otherwise == ("pkg/models/beta/wiring.py:1",)


def test_nothing_without_a_borrowed_helper_a_contrast_or_a_registration(tmp_path) -> None:
    # The sub-project takes the helper from shared code.
    shared = DEEP_WIRING.replace("pkg.models.alpha.wiring import shard_all, split_experts",
                                 "core.sharding import shard_all")
    shared = shared.replace("    split_experts(model)\n", "")
    assert siblingimports.analyse(_inp(tmp_path / "a", _files(deep_wiring=shared))) == []
    # No other sibling makes the helpers its own way (beta borrows them too).
    beta = DEEP_WIRING.replace("wire_deep", "wire_beta")
    assert siblingimports.analyse(_inp(tmp_path / "b", _files(beta=beta))) == []
    # The function calling them is registered nowhere.
    unregistered = SPEC.replace(", wire_fn={fn}", "").replace("from .wiring import {fn}\n",
                                                              "")
    assert siblingimports.analyse(_inp(tmp_path / "c", _files(deep_spec=unregistered))) == []
    # A class of the sibling's module is not one of its helpers.
    with_class = DEEP_WIRING.replace("shard_all, split_experts", "Sharder").replace(
        "    shard_all(model)\n    split_experts(model)\n", "    Sharder(model)\n")
    files = _files(deep_wiring=with_class)
    files["pkg/models/alpha/wiring.py"] = ALPHA_WIRING + "\n\nclass Sharder:\n    pass\n"
    files["pkg/models/beta/wiring.py"] = BETA_WIRING + "\n\nclass Sharder:\n    pass\n"
    assert siblingimports.analyse(_inp(tmp_path / "d", files)) == []


def test_a_sibling_module_over_the_size_cap_is_not_read(tmp_path) -> None:
    files = _files()
    files["pkg/models/alpha/wiring.py"] = (ALPHA_WIRING + "#" * gitrepo.MAX_PYTHON_CHARS
                                           + "\n")
    assert siblingimports.analyse(_inp(tmp_path, files)) == []


def test_relative_imports_of_two_levels_and_of_the_package_itself(tmp_path) -> None:
    # ``from ..alpha.wiring import …`` reaches the sibling's module; the wiring
    # function defined in the folder's ``__init__`` and registered by ``from . import``.
    files = _files(deep_wiring=DEEP_WIRING.replace("from pkg.models.alpha.wiring",
                                                   "from ..alpha.wiring"))
    [b] = siblingimports.analyse(_inp(tmp_path / "a", files))
    assert b.module == "pkg.models.alpha.wiring"
    files = _files()
    files["pkg/models/deep/__init__.py"] = DEEP_WIRING
    files["pkg/models/deep/spec.py"] = SPEC.format(fn="wire_deep", name="deep").replace(
        "from .wiring import", "from . import")
    del files["pkg/models/deep/wiring.py"]
    [b] = siblingimports.analyse(_inp(tmp_path / "b", files))
    assert (b.file, b.registered_at) == ("pkg/models/deep/__init__.py",
                                         "pkg/models/deep/spec.py:7")


def test_one_record_per_registered_function_at_most_ten(tmp_path) -> None:
    files = _files()
    # Registered twice: one record.
    files["pkg/models/deep/__init__.py"] += ("\n\ndef again():\n"
                                             "    return Recipe(wire_fn=wire_deep)\n")
    [b] = siblingimports.analyse(_inp(tmp_path / "a", files))
    assert b.registered == "wire_deep"
    many = "".join(f"\n\ndef wire_{k}(model):\n    shard_all(model)\n" for k in range(12))
    files = _files(deep_wiring=DEEP_WIRING + many)
    files["pkg/models/deep/__init__.py"] = (
        "from core.spec import Recipe\n\nfrom .wiring import "
        + ", ".join(f"wire_{k}" for k in range(12)) + "\n\n\n"
        + "".join(f"R{k} = Recipe(wire_fn=wire_{k})\n" for k in range(12)))
    assert len(siblingimports.analyse(_inp(tmp_path / "b", files))) == 10


def test_what_the_folders_files_are_and_what_counts_as_made_otherwise(tmp_path) -> None:
    # An empty folder has nothing registered; one sibling is no sibling parity.
    files = {p: t for p, t in _files().items() if not p.startswith("pkg/models/deep/")}
    files["pkg/models/deep/README.md"] = "notes\n"
    assert siblingimports.analyse(_inp(tmp_path / "a", files)) == []
    files = {p: t for p, t in _files().items() if not p.startswith("pkg/models/beta/")}
    assert siblingimports.analyse(_inp(tmp_path / "a1", files)) == []
    # A registration in the folder's tests, in a non-Python file, or in a file over
    # the size cap is not the folder's code.
    unregistered = SPEC.replace(", wire_fn={fn}", "").replace("from .wiring import {fn}\n",
                                                              "")
    files = _files(deep_spec=unregistered)
    spec = SPEC.format(fn="wire_deep", name="deep")
    files["pkg/models/deep/tests/spec.py"] = spec.replace("from .wiring", "from ..wiring")
    files["pkg/models/deep/spec.txt"] = spec
    files["pkg/models/deep/big.py"] = spec + "#" * gitrepo.MAX_PYTHON_CHARS + "\n"
    assert siblingimports.analyse(_inp(tmp_path / "b", files)) == []
    # A file that does not parse does not hide the folder's or a sibling's others; a
    # helper of the same name from a module the repository lacks is not made here.
    files = _files()
    files["pkg/models/beta/a_broken.py"] = files["pkg/models/deep/0_broken.py"] = "def (:\n"
    [b] = siblingimports.analyse(_inp(tmp_path / "c", files))
    assert b.otherwise == ("pkg/models/beta/wiring.py:5",)
    beta = "from extlib.sharding import shard_all\n\n\n" + BETA_WIRING.split(
        "\n\n\n", maxsplit=1)[0] + "\n"
    assert siblingimports.analyse(_inp(tmp_path / "d", _files(beta=beta))) == []


def test_the_three_sibling_items_say_their_places_and_cap_their_lists(tmp_path) -> None:
    from agentops.scout.analyses import siblinghooks, siblingwraps

    inp = _inp(tmp_path, _files())
    sibs = tuple(f"pkg/models/s{k}/spec.py:{k + 1}" for k in range(5))
    files = ("pkg/models/s0/spec.py", "pkg/models/s1/spec.py", "pkg/models/s2/spec.py",
             "pkg/models/s3/spec.py", "pkg/models/s4/spec.py")
    marked, plain = debt._sibling_hooks(inp, {"sibling_hooks": [
        siblinghooks.MissingHook("pkg/models/deep/spec.py", 3, "Recipe", "post_fn", "hook_a",
                                 "core/hooks.py:7", ("tiles_on",), sibs, calling=6),
        siblinghooks.MissingHook("pkg/models/deep/spec.py", 4, "Recipe", "make_fn", "make_a",
                                 "core/hooks.py:9", (), sibs,
                                 form=siblinghooks.LEFT_OUT)]})
    assert "`Recipe(post_fn=None)` at spec.py:3" in marked.title
    assert "5 of the 6 sibling folders calling it" in marked.title
    assert "s3/spec.py:4 and 1 more), which reads `tiles_on`" in marked.title
    assert "with the same feature" in marked.why
    assert "5 sibling folders pass" in plain.title and "which reads" not in plain.title
    assert "with the same feature" not in plain.why
    assert marked.files == ("pkg/models/deep/spec.py", "core/hooks.py", *files)
    [borrowed] = debt._sibling_imports(inp, {"sibling_imports": [
        siblingimports.BorrowedWiring("pkg/models/deep/wiring.py", 1, "wire_deep", "wire_fn",
                                      "pkg/models/deep/spec.py:7", "pkg.models.alpha.wiring",
                                      ("shard_all",), sibs)]})
    assert "s3/spec.py:4 and 1 more)" in borrowed.title
    assert borrowed.files == ("pkg/models/deep/wiring.py", "pkg/models/deep/spec.py", *files)
    [wrap] = debt._sibling_wraps(inp, {"sibling_wraps": [
        siblingwraps.NarrowWrap("pkg/models/deep/wiring.py", 9, "wire_deep", "wire_fn",
                                "wrap_blocks", "shard_on", ("experts_on",), sibs)]})
    assert "s3/spec.py:4 and 1 more); this folder reads `experts_on`" in wrap.title
    assert wrap.files == ("pkg/models/deep/wiring.py", *files)
