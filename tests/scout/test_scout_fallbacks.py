"""#22: a derivation (``dim // n_heads``) computed where other code of the sub-project
prefers an explicit setting first (``attn.head_dim or dim // n_heads``): match (a FLOP
count reading the config ignores ``head_dim``) and no-match (a flavor function's own
locals, a function that reads the setting, no code preferring a setting at all)."""

from __future__ import annotations

from agentops.scout.analyses import fallbacks
from agentops.scout.itemize import debt
from tests.scout import minirepo

ADAPTER = '''\
class Adapter:
    def to_hf(self, sd):
        attn = self.config.attention
        dim = self.config.dim
        head_dim = attn.head_dim or dim // attn.n_heads
        return head_dim

    def from_hf(self, sd):
        attn = self.config.attention
        hd = attn.head_dim if attn.head_dim is not None else self.config.dim // attn.n_heads
        return hd
'''

MODEL = '''\
class Config:
    def flops(self, seq_len):
        return 6 * seq_len * 2 * (self.dim // self.attention.n_heads)

    def shapes(self):
        if self.attention.head_dim:
            return self.attention.head_dim
        return self.dim // self.attention.n_heads


def flavor(dim, n_heads):
    return Rope(dim=dim // n_heads)
'''


def _inp(tmp_path, files):
    return minirepo.build(tmp_path, head={"sub/__init__.py": "", **files})


def test_a_derivation_that_ignores_a_preferred_setting(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/adapter.py": ADAPTER, "sub/model.py": MODEL})
    [s] = fallbacks.analyse(inp)
    assert (s.file, s.line, s.function, s.field) == ("sub/model.py", 3, "Config.flops",
                                                     "head_dim")
    assert s.honoured == ("sub/adapter.py:10", "sub/adapter.py:5")
    [item] = debt._ignored_settings(inp, {"ignored_settings": [s]})
    assert item.kind == "opportunity" and "`head_dim`" in item.title


def test_without_a_preferred_setting_nothing_is_said(tmp_path) -> None:
    plain = ADAPTER.replace("attn.head_dim or ", "").replace(
        "attn.head_dim if attn.head_dim is not None else ", "")
    assert fallbacks.analyse(_inp(tmp_path, {"sub/adapter.py": plain,
                                             "sub/model.py": MODEL})) == []


ARGS = '''\
from dataclasses import dataclass


@dataclass
class GizmoArgs:
    dim: int = 512
    n_heads: int = 8
    head_dim: int = 96
    hidden_dim: int = 1024

    def count_flops(self, seq_len):
        l, h, q = 4, self.n_heads, self.dim // self.n_heads
        return 12 * l * h * q * seq_len
'''


def test_a_declared_share_the_derivation_ignores_is_found(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/args.py": ARGS})
    [s] = fallbacks.analyse(inp)
    assert (s.file, s.line, s.function, s.field) == ("sub/args.py", 12,
                                                     "GizmoArgs.count_flops", "head_dim")
    assert s.declared and s.honoured == ("sub/args.py:8",)
    [item] = debt._ignored_settings(inp, {"ignored_settings": [s]})
    assert item.title == ("`GizmoArgs.count_flops` (args.py:12) derives `self.dim // "
                          "self.n_heads` and never reads `head_dim`, which the module "
                          "declares with a value of its own (sub/args.py:8)")
    assert "MFU" in item.why and "fallback" not in item.why
    # latent-attention shares of another class, set on self in a method, count too
    latent = ARGS.replace("    head_dim: int = 96\n", "") + '''

class Latent:
    def __init__(self, cfg):
        self.rope_head_dim = cfg.rope
        self.value_head_dim = 64
'''
    [s] = fallbacks.analyse(_inp(tmp_path / "b", {"sub/args.py": latent}))
    assert s.field == "rope_head_dim" and s.honoured == ("sub/args.py:17", "sub/args.py:18")


def test_a_declared_field_read_derived_or_unrelated_says_nothing(tmp_path) -> None:
    reads = ARGS.replace("self.dim // self.n_heads", "self.head_dim or self.dim // self.n_heads")
    assert fallbacks.analyse(_inp(tmp_path / "a", {"sub/args.py": reads})) == []
    checked = ARGS.replace("        l, h, q", "        assert self.head_dim\n        l, h, q")
    assert fallbacks.analyse(_inp(tmp_path / "f", {"sub/args.py": checked})) == []
    derived = ARGS.replace("    head_dim: int = 96\n", "") + '''

class Attention:
    def __init__(self, cfg):
        self.head_dim = cfg.dim // cfg.n_heads
'''
    assert fallbacks.analyse(_inp(tmp_path / "b", {"sub/args.py": derived})) == []
    # ``hidden_dim`` is no share of ``dim // n_heads``; a field of another module is not read
    other = ARGS.replace("    head_dim: int = 96\n", "")
    assert fallbacks.analyse(_inp(tmp_path / "c", {"sub/args.py": other,
                                                   "sub/sizes.py": ARGS})) == [
        fallbacks.analyse(_inp(tmp_path / "d", {"sub/sizes.py": ARGS}))[0]]
    # a multiplication is no share either
    times = ARGS.replace("self.dim // self.n_heads", "self.dim * self.n_heads").replace(
        "        return 12", "        seq_len = seq_len // 1\n        return 12")
    assert fallbacks.analyse(_inp(tmp_path / "e", {"sub/args.py": times})) == []
