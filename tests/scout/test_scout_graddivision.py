"""#22 gradient reductions divided otherwise than the code around them assumes
(``graddivision``). Match: one function of the folder wrapping through a helper that
keeps the averaging and one that switches the division off (sibling); the folder's own
wraps over two meshes with the default division while the repository sets a divide
factor (mesh); the folder's own backward on a model built by a division-off parallelize
function, borrowed by name or through a spec's ``parallelize_fn``, with no cross-rank
reduction (borrowed). No-match: both paths switch it off; a later division-off call on
the module holding the earlier wrap; a wrapper not imported from torch; one mesh; a
factor the folder passes itself; no factor anywhere; a reduction in the folder; no
backward; registered functions mostly averaging; test files. All trees are made up."""

from __future__ import annotations

from agentops.scout.analyses import graddivision as gd
from agentops.scout.itemize import graddivision as items
from tests.scout import minirepo

DP = '''\
from torch.distributed.fsdp import fully_shard
from torch.distributed._composable.replicate import replicate


def quiet_division(net):
    for part in net.modules():
        if hasattr(part, "set_gradient_divide_factor"):
            part.set_gradient_divide_factor(1.0)


def shard_net(net, mesh):
    for block in net.blocks:
        fully_shard(block, mesh=mesh)
    fully_shard(net, mesh=mesh)
    quiet_division(net)


def mirror_net(net, mesh):
    replicate(net, device_mesh=mesh)
'''

SETUP = '''\
from core.dp import mirror_net, shard_net


def setup(net, mesh, sharded):
    if sharded:
        shard_net(net, mesh)
    else:
        mirror_net(net, mesh)
    return net
'''


def _find(files: dict[str, str], base: dict[str, str] | None = None):
    head = {"core/__init__.py": "", "core/dp.py": DP, **files}
    return gd.analyse_trees(head, base, "sub")


def test_an_averaging_path_beside_a_division_off_path_is_found() -> None:
    [g] = _find({"sub/setup.py": SETUP})
    assert (g.form, g.file, g.line, g.function) == ("sibling", "sub/setup.py", 8, "setup")
    assert g.callee == "mirror_net" and g.through == "core/dp.py:18"
    assert (g.other_name, g.off_line, g.helper, g.kind) == ("shard_net", 6,
                                                           "quiet_division", "off")
    assert g.other == "core/dp.py:8"


def test_the_division_is_named_where_it_is_switched_off() -> None:
    # The call passes a factor of 1 itself: the call is the place, no helper.
    own = SETUP.replace("shard_net(net, mesh)", "shard_net(net, mesh, gradient_divide_factor=1.0)")
    dp = DP.replace("    fully_shard(net, mesh=mesh)\n    quiet_division(net)\n",
                    "    fully_shard(net, mesh=mesh)\n")
    [g] = gd.analyse_trees({"core/__init__.py": "", "core/dp.py": dp, "sub/setup.py": own},
                           None, "sub")
    assert (g.other, g.helper) == ("sub/setup.py:6", "")
    # A factor passed to a helper that switches the division off: the helper's line.
    other = SETUP.replace("shard_net(net, mesh)",
                          "shard_net(net, mesh, gradient_divide_factor=dims.f)")
    [h] = _find({"sub/setup.py": other})
    assert (h.other, h.helper) == ("core/dp.py:8", "quiet_division")


def test_a_relative_import_through_a_package_reexport_resolves() -> None:
    setup = SETUP.replace("from core.dp import mirror_net, shard_net",
                          "from ..core import mirror_net, shard_net")
    files = {"pkg/__init__.py": "", "pkg/core/__init__.py":
             "from pkg.core.dp import mirror_net, shard_net\n",
             "pkg/core/dp.py": DP, "pkg/sub/setup.py": setup}
    [g] = gd.analyse_trees(files, None, "pkg/sub")
    assert (g.form, g.callee, g.other_name) == ("sibling", "mirror_net", "shard_net")


def test_both_paths_switching_the_division_off_is_no_finding() -> None:
    dp = DP.replace("    replicate(net, device_mesh=mesh)\n",
                    "    replicate(net, device_mesh=mesh)\n    quiet_division(net)\n")
    assert gd.analyse_trees({"core/__init__.py": "", "core/dp.py": dp,
                             "sub/setup.py": SETUP}, None, "sub") == []
    setup = SETUP.replace("mirror_net(net, mesh)",
                          "mirror_net(net, mesh, gradient_divide_factor=1)")
    assert _find({"sub/setup.py": setup}) == []


def test_a_later_division_off_call_on_the_holding_module_covers_the_wrap() -> None:
    body = '''\
from core.dp import mirror_net, shard_net


def setup(net, mesh):
    mirror_net(net.head, mesh)
    shard_net(net, mesh)
'''
    assert _find({"sub/setup.py": body}) == []
    # The other way round the averaging wrap comes after the division was switched off.
    [g] = _find({"sub/setup.py": body.replace(
        "    mirror_net(net.head, mesh)\n    shard_net(net, mesh)\n",
        "    shard_net(net, mesh)\n    mirror_net(net.head, mesh)\n")})
    assert (g.form, g.line) == ("sibling", 6)


def test_a_wrapper_not_imported_from_torch_is_no_wrap() -> None:
    dp = DP.replace("from torch.distributed._composable.replicate import replicate",
                    "from core.copies import replicate")
    files = {"core/__init__.py": "", "core/dp.py": dp, "sub/setup.py": SETUP,
             "core/copies.py": "def replicate(net, device_mesh=None):\n    return net\n"}
    assert gd.analyse_trees(files, None, "sub") == []


def test_a_test_file_is_not_read() -> None:
    assert _find({"sub/tests/test_setup.py": SETUP}) == []


EXPERT_CORE = '''\
from core.dp import shard_net


def build_moe(net, mesh, dims):
    shard_net(net, mesh, gradient_divide_factor=dims.divide_factor)
'''

TWO_MESHES = '''\
from torch.distributed.fsdp import fully_shard


def wrap(net, world):
    inner = world["inner"]
    outer = world["outer", "inner"]
    for block in net.blocks:
        fully_shard(block.routed, mesh=inner)
        fully_shard(block, mesh=outer)
    fully_shard(net, mesh=outer)
'''


def test_wraps_over_two_meshes_while_the_repository_sets_a_factor_are_found() -> None:
    [g] = _find({"core/moe.py": EXPERT_CORE, "sub/wrap.py": TWO_MESHES},
                base={"core/__init__.py": "", "core/dp.py": DP, "sub/wrap.py": TWO_MESHES})
    assert (g.form, g.file, g.line, g.function, g.callee) == ("mesh", "sub/wrap.py", 8,
                                                              "wrap", "fully_shard")
    assert g.meshes == ("inner", "outer") and g.kind == "factor"
    assert (g.other, g.other_name, g.new) == ("core/moe.py:5", "build_moe", True)
    # The factor already there at the baseline: found, not said to be new.
    [old] = _find({"core/moe.py": EXPERT_CORE, "sub/wrap.py": TWO_MESHES},
                  base={"core/moe.py": EXPERT_CORE})
    assert old.new is False


def test_a_namesake_folders_factor_is_named_first() -> None:
    [g] = gd.analyse_trees({"core/__init__.py": "", "core/dp.py": DP,
                            "core/a_first.py": EXPERT_CORE,
                            "core/wrap/moe.py": EXPERT_CORE,
                            "exp/wrap/wrap.py": TWO_MESHES}, None, "exp/wrap")
    assert g.other == "core/wrap/moe.py:5"


def test_one_mesh_an_own_factor_or_no_factor_is_no_finding() -> None:
    one = TWO_MESHES.replace("mesh=inner", "mesh=outer")
    assert _find({"core/moe.py": EXPERT_CORE, "sub/wrap.py": one}) == []
    own = TWO_MESHES.replace("mesh=inner)", "mesh=inner, gradient_divide_factor=4)")
    assert _find({"core/moe.py": EXPERT_CORE, "sub/wrap.py": own}) == []
    assert _find({"sub/wrap.py": TWO_MESHES}) == []


REGISTRY = '''\
from core.dp import mirror_net, shard_net
from core.spec import Spec


def parallel_a(net, mesh):
    shard_net(net, mesh)
    return net


def parallel_b(net, mesh):
    mirror_net(net, mesh)
    return net


SPECS = [Spec(parallelize_fn=parallel_a), Spec(parallelize_fn=parallel_a)]
'''

LEARNER = '''\
class Learner:
    def __init__(self, spec, net, mesh):
        self.net = spec.parallelize_fn(net, mesh)

    def step(self, batch):
        loss = self.net(batch).mean()
        loss.backward()
        return loss
'''


def test_an_own_backward_on_a_borrowed_division_off_model_is_found() -> None:
    [g] = _find({"core/models.py": REGISTRY, "sub/learner.py": LEARNER})
    assert (g.form, g.file, g.line, g.function) == ("borrowed", "sub/learner.py", 7, "step")
    assert (g.callee, g.through, g.registered) == ("spec.parallelize_fn",
                                                   "sub/learner.py:3", (1, 1))
    assert (g.helper, g.other) == ("quiet_division", "core/dp.py:8")
    # Called by name: the same.
    by_name = LEARNER.replace("spec.parallelize_fn(net, mesh)", "shard_net(net, mesh)")
    [n] = _find({"sub/learner.py": "from core.dp import shard_net\n" + by_name})
    assert (n.form, n.callee, n.registered) == ("borrowed", "shard_net", (0, 0))


def test_a_reduction_no_backward_or_averaging_registrations_is_no_finding() -> None:
    reduced = LEARNER.replace("        loss.backward()\n",
                              "        loss.backward()\n        dist.all_reduce(loss)\n")
    assert _find({"core/models.py": REGISTRY, "sub/learner.py": reduced}) == []
    quiet = LEARNER.replace("        loss.backward()\n", "")
    assert _find({"core/models.py": REGISTRY, "sub/learner.py": quiet}) == []
    averaging = REGISTRY.replace(
        "SPECS = [Spec(parallelize_fn=parallel_a), Spec(parallelize_fn=parallel_a)]",
        "SPECS = [Spec(parallelize_fn=parallel_a), Spec(parallelize_fn=parallel_b),\n"
        "         Spec(parallelize_fn=parallel_b)]")
    assert _find({"core/models.py": averaging, "sub/learner.py": LEARNER}) == []


def test_items_name_the_lines_and_the_division(tmp_path) -> None:
    inp = minirepo.build(tmp_path, head={"core/__init__.py": "", "core/dp.py": DP,
                                         "sub/setup.py": SETUP,
                                         "core/models.py": REGISTRY,
                                         "sub/learner.py": LEARNER})
    found = gd.analyse(inp)
    assert [g.form for g in found] == ["sibling", "borrowed"]
    out = items.items(inp, {"gradient_divisions": found})
    assert [i.kind for i in out] == ["action", "action"]
    assert all(i.priority == "P1" and i.section == "S-4" for i in out)
    sib, bor = out
    assert "`mirror_net` (core/dp.py:18)" in sib.title and "averaging" in sib.title
    assert "`shard_net` at :6" in sib.title and "`quiet_division`" in sib.title
    assert sib.where == "sub/setup.py:8"
    assert "own backward at learner.py:7" in bor.title
    assert "(`quiet_division`, core/dp.py:8; 1 of the 1 parallelize" in bor.title
    assert "summed over the ranks" in bor.title
    assert len({i.id for i in out}) == 2
