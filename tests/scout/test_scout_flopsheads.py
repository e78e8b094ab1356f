"""#22 a FLOP count taking the head size as width over heads (``flopsheads``) while the
model sizes its heads on its own. Match: a field ``head_dim`` of the args class; latent
attention head fields of another class of the module; a config's ``head_dim`` read by
another file of the folder, the heads reached through an indexed chain. No-match: a
FLOP function reading the head size; no head size of its own; a folder deriving its
``head_dim`` by the same division; a function that counts no FLOPs; test files. All
trees are made up."""

from __future__ import annotations

from agentops.scout.analyses import flopsheads
from agentops.scout.itemize import debt
from tests.scout import minirepo

ARGS = '''\
from dataclasses import dataclass


@dataclass
class GizmoArgs:
    dim: int = 512
    n_heads: int = 8
    head_dim: int = 96
    n_layers: int = 4

    def count_flops(self, seq_len):
        l, h, q = self.n_layers, self.n_heads, self.dim // self.n_heads
        return 12 * l * h * q * seq_len
'''


def _inp(tmp_path, files: dict[str, str]):
    return minirepo.build(tmp_path, head={"sub/__init__.py": "", **files})


def test_a_declared_head_size_the_flop_count_ignores_is_found(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/args.py": ARGS})
    [f] = flopsheads.analyse(inp)
    assert (f.file, f.line, f.function, f.function_line) == ("sub/args.py", 12, "count_flops", 11)
    assert f.derived == "self.dim // self.n_heads"
    assert f.own == ("head_dim",) and f.own_at == "sub/args.py:8"
    [item] = debt._flops_heads(inp, {"flops_heads": [f]})
    assert item.kind == "opportunity" and item.section == "S-4"
    assert item.title == ("`count_flops` (args.py:11) takes the attention head size as "
                          "`self.dim // self.n_heads` (:12) while the model sizes its heads "
                          "on its own: `head_dim` (args.py:8)")
    assert item.where == "sub/args.py:12" and "MFU" in item.why


def test_latent_head_fields_of_another_class_count(tmp_path) -> None:
    text = ARGS.replace("    head_dim: int = 96\n", "").replace(
        "class GizmoArgs:", "class LatentArgs:\n    rope_head_dim: int = 32\n"
        "    value_head_dim: int = 64\n\n\n@dataclass\nclass GizmoArgs:")
    [f] = flopsheads.analyse(_inp(tmp_path, {"sub/args.py": text}))
    assert f.own == ("rope_head_dim", "value_head_dim")


def test_a_config_head_size_read_elsewhere_in_the_folder_counts(tmp_path) -> None:
    model = '''\
class Net:
    def flops(self, seq_len):
        return 6 * 2 * (self.dim // self.layers[0].attention.n_heads) * seq_len
'''
    convert = '''\
def to_hub(cfg, attn):
    size = attn.head_dim or cfg.dim // attn.n_heads
    return size
'''
    [f] = flopsheads.analyse(_inp(tmp_path, {"sub/model.py": model, "sub/convert.py": convert}))
    assert f.derived == "self.dim // self.layers[0].attention.n_heads"
    assert f.own_at == "sub/convert.py:2"


def test_honoured_absent_or_derived_head_sizes_are_left_alone(tmp_path) -> None:
    honoured = ARGS.replace("self.dim // self.n_heads", "self.head_dim or self.dim // self.n_heads")
    assert flopsheads.analyse(_inp(tmp_path / "a", {"sub/args.py": honoured})) == []
    absent = ARGS.replace("    head_dim: int = 96\n", "")
    assert flopsheads.analyse(_inp(tmp_path / "b", {"sub/args.py": absent})) == []
    derived = '''\
class Attention:
    def __init__(self, args):
        self.head_dim = args.dim // args.n_heads


def describe(layer):
    return layer.attn.head_dim
'''
    files = {"sub/args.py": absent, "sub/layers.py": derived}
    assert flopsheads.analyse(_inp(tmp_path / "c", files)) == []
    # an annotated local set by the division is no declared field either
    local = absent + "\n\nclass Helper:\n    def size(self, args):\n" \
        "        head_dim: int = args.dim // args.n_heads\n        return head_dim\n"
    assert flopsheads.analyse(_inp(tmp_path / "e", {"sub/args.py": local})) == []
    # a read on ``self`` is the object's own value, not a size a config carries
    own = "class Block:\n    def size(self):\n        return self.head_dim\n"
    assert flopsheads.analyse(_inp(tmp_path / "f", {"sub/args.py": absent,
                                                     "sub/block.py": own})) == []
    # the same read without the derivation is a head size the config carries
    kept = derived.replace("args.dim // args.n_heads", "args.head_dim")
    [f] = flopsheads.analyse(_inp(tmp_path / "d", {**files, "sub/layers.py": kept}))
    assert f.own == ("head_dim",)


def test_no_flop_function_and_test_files_say_nothing(tmp_path) -> None:
    plain = ARGS.replace("def count_flops", "def count_params")
    assert flopsheads.analyse(_inp(tmp_path / "a", {"sub/args.py": plain})) == []
    assert flopsheads.analyse(_inp(tmp_path / "b", {"sub/tests/test_args.py": ARGS})) == []
