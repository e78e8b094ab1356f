"""#22 sibling parity (``siblinghooks``): a hook slot the sub-project builds as ``None``
while the sibling folders with the same feature register a repository function there.
Match: two MoE siblings pass the expert-bias hook, the MoE sub-project passes None (an
Opportunity naming the call, the function and the siblings). No-match: a dense
sub-project (its marker is absent), the sub-project registering the hook, one
sibling only, a value the repository does not define, and a marker that the siblings
passing None spell as well (it marks no feature). Also the slot filled with another
function (a plain optimizer builder where the MoE siblings register the balancing one)
and the slot left out that most siblings fill (a checker builder), with their no-match
cases (a dense model, a minority of siblings, a call spreading ``**kwargs``)."""

from __future__ import annotations

import dataclasses

from agentops.scout.analyses import siblinghooks
from agentops.scout.itemize import debt
from tests.scout import minirepo

HOOKS = '''\
class Spec:
    def __init__(self, name, post_build=None):
        self.name = name


def register_balancing(optimizers, model_parts):
    for part in model_parts:
        for block in part.layers:
            if block.moe_enabled:
                block.moe.expert_bias.add_(1)
'''

MOE_SPEC = '''\
from core.hooks import Spec, register_balancing


def model_registry(flavor):
    return Spec(name="{name}", post_build=register_balancing)
'''

DENSE_SPEC = '''\
from core.hooks import Spec


def model_registry(flavor):
    return Spec(name="{name}", post_build=None)
'''

MOE_MODEL = "class Block:\n    def __init__(self):\n        self.moe_enabled = True\n"
DENSE_MODEL = "class Block:\n    def __init__(self):\n        self.dim = 4\n"


def _files(deep_spec: str, deep_model: str, moe=("llama4", "dsv3"), dense=("llama3",),
           hooks: str = HOOKS) -> dict[str, str]:
    files = {"core/__init__.py": "", "core/hooks.py": hooks, "models/__init__.py": "",
             "models/deep/__init__.py": deep_spec.format(name="deep"),
             "models/deep/model.py": deep_model}
    for s in moe:
        files[f"models/{s}/__init__.py"] = MOE_SPEC.format(name=s)
        files[f"models/{s}/model.py"] = MOE_MODEL
    for s in dense:
        files[f"models/{s}/__init__.py"] = DENSE_SPEC.format(name=s)
        files[f"models/{s}/model.py"] = DENSE_MODEL
    return files


def _inp(tmp_path, files):
    inp = minirepo.build(tmp_path, head=files)
    return dataclasses.replace(inp, target=dataclasses.replace(inp.target,
                                                               subproject="models/deep"))


def test_an_moe_model_leaving_the_hook_its_moe_siblings_register_empty(tmp_path) -> None:
    inp = _inp(tmp_path, _files(DENSE_SPEC, MOE_MODEL))
    [h] = siblinghooks.analyse(inp)
    assert (h.file, h.line, h.callee, h.keyword) == ("models/deep/__init__.py", 5, "Spec",
                                                     "post_build")
    assert (h.value, h.defined) == ("register_balancing", "core/hooks.py:6")
    assert h.markers == ("moe_enabled",)
    assert h.siblings == ("models/dsv3/__init__.py:5", "models/llama4/__init__.py:5")
    [item] = debt._sibling_hooks(inp, {"sibling_hooks": [h]})
    assert item.kind == "opportunity" and item.where == "models/deep/__init__.py:5"
    assert "register_balancing" in item.title and "models/llama4/__init__.py:5" in item.title


def test_no_hook_asked_of_a_dense_model_a_registering_one_or_on_weak_evidence(
        tmp_path) -> None:
    # A dense model: nothing the hook reads is in it.
    assert siblinghooks.analyse(_inp(tmp_path / "a", _files(DENSE_SPEC, DENSE_MODEL))) == []
    # The sub-project registers it.
    assert siblinghooks.analyse(_inp(tmp_path / "b", _files(MOE_SPEC, MOE_MODEL))) == []
    # One sibling is no agreement.
    assert siblinghooks.analyse(_inp(tmp_path / "c", _files(DENSE_SPEC, MOE_MODEL,
                                                            moe=("llama4",)))) == []
    # The value is not a function the repository defines.
    no_def = HOOKS.replace("def register_balancing", "def other_name")
    assert siblinghooks.analyse(_inp(tmp_path / "d", _files(DENSE_SPEC, MOE_MODEL,
                                                            hooks=no_def))) == []


def test_a_name_the_siblings_passing_none_spell_too_marks_no_feature(tmp_path) -> None:
    # Every dense sibling also spells `moe_enabled` (set False): it does not tell the
    # MoE siblings apart, so it is no reason to ask the sub-project for the hook.
    files = _files(DENSE_SPEC, MOE_MODEL, dense=("llama3", "flux"))
    for s in ("llama3", "flux"):
        files[f"models/{s}/model.py"] = DENSE_MODEL + "        self.moe_enabled = False\n"
    assert siblinghooks.analyse(_inp(tmp_path, files)) == []


# A registration call with function slots: the siblings register a checker builder and
# an optimizer builder; the MoE siblings pick the balancing variant.
BUILDERS = '''\
class Recipe:
    def __init__(self, name, make_opt=None, make_checker=None):
        self.name = name


def plain_opt(parts):
    return [p.weights for p in parts]


def balancing_opt(parts):
    for part in parts:
        for block in part.layers:
            if block.moe_enabled:
                block.moe.expert_bias.add_(1)
    return plain_opt(parts)


def make_checker(loader, loss):
    return (loader, loss)
'''

RECIPE = '''\
from core.builders import Recipe, {opt}{checker_import}


def recipe():
    return Recipe(name="{{name}}", make_opt={opt}{checker})
'''


def _recipe(opt: str, checker: bool) -> str:
    return RECIPE.format(opt=opt, checker_import=", make_checker" if checker else "",
                         checker=", make_checker=make_checker" if checker else "")


def _recipes(deep: str, deep_model: str, siblings: dict[str, tuple[str, str]]
             ) -> dict[str, str]:
    files = {"core/__init__.py": "", "core/builders.py": BUILDERS, "models/__init__.py": "",
             "models/deep/__init__.py": deep.format(name="deep"),
             "models/deep/model.py": deep_model}
    for s, (spec, model) in siblings.items():
        files[f"models/{s}/__init__.py"] = spec.format(name=s)
        files[f"models/{s}/model.py"] = model
    return files


MOE_CHECKED = (_recipe("balancing_opt", True), MOE_MODEL)
DENSE_CHECKED = (_recipe("plain_opt", True), DENSE_MODEL)


def test_another_function_in_a_slot_the_feature_siblings_fill_alike(tmp_path) -> None:
    # The MoE sub-project registers the plain optimizer builder; both MoE siblings
    # register the balancing one, the dense sibling the plain one.
    files = _recipes(_recipe("plain_opt", True), MOE_MODEL,
                     {"alpha": MOE_CHECKED, "beta": MOE_CHECKED, "gamma": DENSE_CHECKED})
    [h] = siblinghooks.analyse(_inp(tmp_path, files))
    assert (h.form, h.keyword, h.value, h.ours) == (siblinghooks.OTHER, "make_opt",
                                                    "balancing_opt", "plain_opt")
    assert h.markers == ("moe_enabled",) and h.calling == 3
    [item] = debt._sibling_hooks(_inp(tmp_path / "i", files), {"sibling_hooks": [h]})
    assert "Recipe(make_opt=plain_opt)" in item.title and "balancing_opt" in item.title


def test_no_other_function_asked_of_a_dense_model_or_one_registering_it(tmp_path) -> None:
    sibs = {"alpha": MOE_CHECKED, "beta": MOE_CHECKED, "gamma": DENSE_CHECKED}
    # A dense sub-project choosing the plain builder: nothing marks the MoE feature.
    assert siblinghooks.analyse(_inp(tmp_path / "a", _recipes(
        _recipe("plain_opt", True), DENSE_MODEL, sibs))) == []
    # The MoE sub-project registering the balancing builder.
    assert siblinghooks.analyse(_inp(tmp_path / "b", _recipes(
        _recipe("balancing_opt", True), MOE_MODEL, sibs))) == []


def test_a_slot_left_out_that_most_siblings_fill(tmp_path) -> None:
    # Every sibling registers the checker builder; the sub-project's call never names
    # the slot. The builder reads no marker: agreement of a majority is the reason.
    files = _recipes(_recipe("plain_opt", False), DENSE_MODEL,
                     {"alpha": DENSE_CHECKED, "beta": DENSE_CHECKED,
                      "gamma": (_recipe("plain_opt", False), DENSE_MODEL)})
    [h] = siblinghooks.analyse(_inp(tmp_path, files))
    assert (h.form, h.keyword, h.value, h.markers) == (siblinghooks.LEFT_OUT,
                                                       "make_checker", "make_checker", ())
    assert h.siblings == ("models/alpha/__init__.py:5", "models/beta/__init__.py:5")
    [item] = debt._sibling_hooks(_inp(tmp_path / "i", files), {"sibling_hooks": [h]})
    assert "leaves out `make_checker`" in item.title
    assert "2 of the 3 sibling folders calling it" in item.title


def test_no_left_out_slot_reported_without_a_majority_or_with_a_spread(tmp_path) -> None:
    left_out = (_recipe("plain_opt", False), DENSE_MODEL)
    # Two siblings of five fill it, no marker: a minority choice.
    sibs = {"alpha": DENSE_CHECKED, "beta": DENSE_CHECKED, "gamma": left_out,
            "delta": left_out, "eps": left_out}
    assert siblinghooks.analyse(_inp(tmp_path / "a", _recipes(
        _recipe("plain_opt", False), DENSE_MODEL, sibs))) == []
    # The sub-project's call spreads a dict of keywords: the slot may be in it.
    spread = _recipe("plain_opt", False).replace("make_opt=plain_opt",
                                                 "make_opt=plain_opt, **extra")
    sibs = {"alpha": DENSE_CHECKED, "beta": DENSE_CHECKED, "gamma": left_out}
    assert siblinghooks.analyse(_inp(tmp_path / "b", _recipes(spread, DENSE_MODEL,
                                                              sibs))) == []


MOE_SIBS = {"alpha": MOE_CHECKED, "beta": MOE_CHECKED, "gamma": DENSE_CHECKED}


def test_two_slots_of_one_call_and_a_local_function_in_a_slot(tmp_path) -> None:
    # The plain builder where the MoE siblings register the balancing one, and the
    # checker left out that every sibling fills: two records for one call.
    found = siblinghooks.analyse(_inp(tmp_path / "a", _recipes(
        _recipe("plain_opt", False), MOE_MODEL, MOE_SIBS)))
    assert [(h.form, h.keyword) for h in found] == [(siblinghooks.LEFT_OUT, "make_checker"),
                                                    (siblinghooks.OTHER, "make_opt")]
    # A function of the folder's own in the slot is another function too.
    own = _recipe("plain_opt", True).replace("make_opt=plain_opt", "make_opt=own_opt")
    own += "\n\ndef own_opt(parts):\n    return parts\n"
    [h] = siblinghooks.analyse(_inp(tmp_path / "b", _recipes(own, MOE_MODEL, MOE_SIBS)))
    assert (h.form, h.ours, h.value) == (siblinghooks.OTHER, "own_opt", "balancing_opt")


def test_an_expression_in_the_slot_or_a_local_callee_is_not_compared(tmp_path) -> None:
    # ``make_opt=pick_opt(flavor)``: a choice of its own, not a name to compare.
    picked = _recipe("plain_opt", True).replace("make_opt=plain_opt",
                                                "make_opt=pick_opt(0)")
    assert siblinghooks.analyse(_inp(tmp_path / "a", _recipes(picked, MOE_MODEL,
                                                              MOE_SIBS))) == []
    # Every folder calls a ``Recipe`` of its own: a left-out slot of a local callee is
    # each folder's own business.
    local = "class Recipe:\n    def __init__(self, **kw):\n        pass\n\n\n"
    def own(text: str) -> str:
        return local + text.replace("Recipe, ", "")
    sibs = {s: (own(spec), model) for s, (spec, model) in MOE_SIBS.items()}
    assert siblinghooks.analyse(_inp(tmp_path / "b", _recipes(
        own(_recipe("balancing_opt", False)), MOE_MODEL, sibs))) == []


def test_module_qualified_and_spread_calls_of_the_siblings_count(tmp_path) -> None:
    # ``hooks.Spec(**common, post_build=...)``: the callee is the attribute, and the
    # keyword after a spread is still read; a subscripted call is no callee.
    spec = ('from core import hooks\nfrom core.hooks import register_balancing\n\n\n'
            'def model_registry(flavor, common):\n'
            '    return hooks.Spec(**common, name="{name}", post_build=register_balancing)\n')
    deep = ('from core import hooks\n\nMAKERS = [hooks.Spec]\n\n\n'
            'def model_registry(flavor):\n    MAKERS[0](post_build=None)\n'
            '    return hooks.Spec(name="deep", post_build=None)\n')
    files = _files(deep, MOE_MODEL)
    for s in ("llama4", "dsv3"):
        files[f"models/{s}/__init__.py"] = spec.format(name=s)
    [h] = siblinghooks.analyse(_inp(tmp_path, files))
    assert (h.callee, h.line, h.value) == ("Spec", 8, "register_balancing")


# A slot filled with the folder's own function whose parameters the slot's caller, written
# for the siblings' function, cannot satisfy.
READERS = '''\
class Setup:
    pass


class Recipe:
    def __init__(self, name, make_reader=None):
        self.name = name


def make_reader(setup: Setup):
    return setup
'''

READER_RECIPE = '''\
from core.readers import Recipe, make_reader


def recipe():
    return Recipe(name="{name}", make_reader=make_reader)
'''

OWN_READER = '''\
from core.readers import Recipe
from models.deep.reading import {fn}


def recipe():
    return Recipe(name="deep", make_reader={fn})
'''


def _readers(own: str) -> dict[str, str]:
    files = {"core/__init__.py": "", "core/readers.py": READERS, "models/__init__.py": "",
             "models/deep/__init__.py": OWN_READER.format(fn="open_reader"),
             "models/deep/reading.py": own}
    for s in ("alpha", "beta", "gamma"):
        files[f"models/{s}/__init__.py"] = READER_RECIPE.format(name=s)
    return files


def test_another_function_the_slot_cannot_call_as_the_siblings_do(tmp_path) -> None:
    files = _readers("def open_reader(source: str):\n    return source\n")
    [h] = siblinghooks.analyse(_inp(tmp_path, files))
    assert (h.form, h.keyword, h.value, h.ours, h.markers) == (
        siblinghooks.OTHER, "make_reader", "make_reader", "open_reader", ())
    assert h.differs == "takes `source: str` where `make_reader` takes `setup: Setup`"
    [item] = debt._sibling_hooks(_inp(tmp_path / "i", files), {"sibling_hooks": [h]})
    assert "`open_reader` takes `source: str`" in item.title and "cannot call" in item.why
    # More required arguments than the siblings' function has.
    two = _readers("def open_reader(setup, extra):\n    return setup, extra\n")
    [h2] = siblinghooks.analyse(_inp(tmp_path / "b", two))
    assert h2.differs == "requires 2 arguments where `make_reader` takes 1"


def test_another_function_the_slot_calls_alike_is_a_choice(tmp_path) -> None:
    # Same annotated type, an unannotated parameter, or another name only: no finding.
    for n, own in enumerate(("def open_reader(cfg: Setup):\n    return cfg\n",
                             "def open_reader(source):\n    return source\n",
                             "def open_reader(setup, extra=None):\n    return setup\n")):
        assert siblinghooks.analyse(_inp(tmp_path / str(n), _readers(own))) == []
