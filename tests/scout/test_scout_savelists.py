"""#22 defect 4 (``savelists``): an op save list of the sub-project that keeps one op per
kernel of a family the shared code selects from, but lacks the op of another kernel the
same code selects, so a selective checkpoint policy recomputes that kernel's output in
the backward. Match: a kernel added to the selection by ``insert``, and one in the same
literal list. No-match: the list has the op; the selecting code is not imported by the
sub-project; only one kernel of the family is covered; a member of another shape (a
fallback) is never asked for; a list in a test file; a list of other values."""

from __future__ import annotations

from agentops.scout.analyses import savelists
from agentops.scout.itemize import savelists as savelists_items
from tests.scout import minirepo

KERNELS = '''\
import enum


class Kernel(enum.Enum):
    FAST_MATMUL = 1
    TILED_MATMUL = 2
    SPARSE_MATMUL = 3
    REFERENCE = 4


class Runner:
    order = []

    def setup(self, big):
        self.order = [Kernel.FAST_MATMUL, Kernel.TILED_MATMUL, Kernel.REFERENCE]
        if big:
            self.order.insert(0, Kernel.SPARSE_MATMUL)
'''

OURS = '''\
import torch

from core.kernels import Runner

_keep_ops = {
    torch.ops.mylib._fast_matmul_out.default,
    torch.ops.mylib._tiled_matmul_out.default,
    torch.ops.aten.mm.default,
    torch._higher_order_ops.some_op,
}


def build():
    return Runner(), _keep_ops
'''


def _inp(tmp_path, ours: str = OURS, kernels: str = KERNELS, extra=None):
    files = {"core/__init__.py": "", "core/kernels.py": kernels,
             "sub/__init__.py": "", "sub/policy.py": ours, **(extra or {})}
    return minirepo.build(tmp_path, head=files)


def test_a_kernel_the_shared_code_inserts_whose_op_the_list_lacks(tmp_path) -> None:
    inp = _inp(tmp_path)
    [gap] = savelists.analyse(inp)
    assert (gap.file, gap.line, gap.name) == ("sub/policy.py", 5, "_keep_ops")
    assert (gap.member, gap.op, gap.enum) == ("SPARSE_MATMUL", "_sparse_matmul_out", "Kernel")
    assert (gap.select_file, gap.select_line) == ("core/kernels.py", 17)
    assert gap.covered == ("FAST_MATMUL", "TILED_MATMUL")
    [item] = savelists_items.items(inp, {"save_list_gaps": [gap]})
    assert item.kind == "opportunity" and item.where == "sub/policy.py:5"
    assert "`_sparse_matmul_out`" in item.title and "core/kernels.py:17" in item.title
    assert item.files == ("sub/policy.py", "core/kernels.py")


def test_a_kernel_in_the_same_literal_list_counts_and_a_relative_import_reaches_it(
        tmp_path) -> None:
    kernels = KERNELS.replace("Kernel.REFERENCE]", "Kernel.SPARSE_MATMUL]").replace(
        "self.order.insert(0, Kernel.SPARSE_MATMUL)", "pass")
    ours = OURS.replace("from core.kernels import Runner", "from .kernels import Runner")
    inp = minirepo.build(tmp_path, head={"sub/__init__.py": "", "sub/kernels.py": kernels,
                                         "sub/policy.py": ours})
    assert [(g.member, g.select_file, g.select_line) for g in savelists.analyse(inp)] == [
        ("SPARSE_MATMUL", "sub/kernels.py", 15)]


def test_no_gap_when_the_list_has_the_op(tmp_path) -> None:
    ours = OURS.replace("    torch.ops.aten.mm.default,",
                        "    torch.ops.aten.mm.default,\n"
                        "    torch.ops.mylib._sparse_matmul_out.default,")
    assert savelists.analyse(_inp(tmp_path, ours)) == []


def test_no_gap_when_the_sub_project_does_not_import_the_selecting_code(tmp_path) -> None:
    ours = OURS.replace("from core.kernels import Runner", "from core import Runner")
    assert savelists.analyse(_inp(tmp_path, ours)) == []


def test_no_family_from_one_covered_kernel(tmp_path) -> None:
    ours = OURS.replace("    torch.ops.mylib._tiled_matmul_out.default,\n", "")
    assert savelists.analyse(_inp(tmp_path, ours)) == []


def test_a_member_of_another_shape_is_never_asked_for(tmp_path) -> None:
    kernels = KERNELS.replace("self.order.insert(0, Kernel.SPARSE_MATMUL)",
                              "self.order.append(Kernel.REFERENCE)")
    assert savelists.analyse(_inp(tmp_path, kernels=kernels)) == []


def test_lists_in_tests_and_lists_of_other_values_are_not_read(tmp_path) -> None:
    inp = _inp(tmp_path, "import torch\n\nNAMES = {'fast', 'tiled'}\n",
               extra={"sub/tests/__init__.py": "", "sub/tests/test_policy.py": OURS})
    assert savelists.analyse(inp) == []
