"""#22 sibling parity (``siblinghooks``): a hook slot the sub-project builds as ``None``
while the sibling folders with the same feature register a repository function there.
Match: two MoE siblings pass the expert-bias hook, the MoE sub-project passes None (an
Opportunity naming the call, the function and the siblings). No-match: a dense
sub-project (its marker is absent), the sub-project registering the hook, one
sibling only, a value the repository does not define, and a marker that the siblings
passing None spell as well (it marks no feature)."""

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
