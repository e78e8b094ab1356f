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
