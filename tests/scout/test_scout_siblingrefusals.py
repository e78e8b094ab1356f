"""#22 sibling parity (``siblingrefusals``): a refusal the sub-project raises word for word
like a sibling folder, under a condition that shares no name with the sibling's.
Match: the sub-project tests a mesh's rank count where the sibling compares sizes (an
Opportunity naming both sides). No-match: the same test spelt through a local or
``self.``, a condition sharing a name with the sibling's, a different or too short
message, and a sub-project that also has the sibling's form of the check."""

from __future__ import annotations

import dataclasses

from agentops.scout.analyses import siblingrefusals
from agentops.scout.itemize import parity
from tests.scout import minirepo

OURS = '''\
def wrap_replicas(model, dims, mesh):
    if mesh.ndim > 1:
        raise RuntimeError("Replicas cannot be combined with other splits")
    return model
'''

SIBLING = '''\
def wrap_replicas(model, dims, mesh):
    if dims.world_size != mesh.size():
        raise RuntimeError(
            "Replicas cannot be combined with "
            "other splits"
        )
    return model
'''


def _inp(tmp_path, ours: str, sibling: str = SIBLING):
    files = {"models/__init__.py": "", "models/deep/__init__.py": "",
             "models/deep/wrap.py": ours, "models/alpha/__init__.py": "",
             "models/alpha/wrap.py": sibling, "models/beta/__init__.py": "",
             "models/beta/wrap.py": "def wrap_replicas(model):\n    return model\n"}
    inp = minirepo.build(tmp_path, head=files)
    return dataclasses.replace(inp, target=dataclasses.replace(inp.target,
                                                               subproject="models/deep"))


def test_the_same_refusal_under_an_unrelated_condition_is_reported(tmp_path) -> None:
    inp = _inp(tmp_path, OURS)
    [split] = siblingrefusals.analyse(inp)
    assert (split.file, split.line, split.condition) == ("models/deep/wrap.py", 2,
                                                         "mesh.ndim > 1")
    assert split.message == "Replicas cannot be combined with other splits"
    assert split.siblings == ("models/alpha/wrap.py:2 `dims.world_size != mesh.size()`",)
    [item] = parity.refusal_items(inp, {"sibling_refusals": [split]})
    assert item.kind == "opportunity" and item.where == "models/deep/wrap.py:2"
    assert "shares no name" in item.title and "models/alpha/wrap.py:2" in item.title
    assert "models/alpha/wrap.py" in item.files


def test_a_related_condition_or_another_message_is_not_a_split(tmp_path) -> None:
    # The same test through `self.` and a local alias of the same setting.
    aliased = SIBLING.replace("dims.world_size != mesh.size()", "self.world_size != size")
    ours = OURS.replace("mesh.ndim > 1", "world_size > 1")
    assert siblingrefusals.analyse(_inp(tmp_path / "a", ours, aliased)) == []
    # Another message.
    other = SIBLING.replace("other splits", "anything else at all")
    assert siblingrefusals.analyse(_inp(tmp_path / "b", OURS, other)) == []
    # A message too short to tell two checks mean the same thing.
    short = OURS.replace("Replicas cannot be combined with other splits", "bad mesh")
    short_sib = SIBLING.replace('"Replicas cannot be combined with "\n', '"bad "\n').replace(
        '"other splits"', '"mesh"')
    assert siblingrefusals.analyse(_inp(tmp_path / "c", short, short_sib)) == []


def test_a_sub_project_that_also_checks_the_siblings_way_is_not_reported(tmp_path) -> None:
    both = OURS.replace("    return model\n", "    if dims.world_size != mesh.size():\n"
                        "        raise RuntimeError(\"Replicas cannot be combined with "
                        "other splits\")\n    return model\n")
    assert siblingrefusals.analyse(_inp(tmp_path, both)) == []
