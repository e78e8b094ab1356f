"""#22 defect 8: key maps and module-name filters that lag a rename of the model's
modules (``fqnnames``). Match (renamed in the window: action, no all-clear on the
delta), no-match (names the model still defines, the HF side of a key map), and a name
defined at neither commit (an opportunity, never an action)."""

from __future__ import annotations

import re

from agentops.scout import render
from agentops.scout.analyses import fqnnames
from agentops.scout.analyses.ci import CiResult
from agentops.scout.itemize import clear, delta
from tests.scout import minirepo

MODEL_BASE = '''\
class Experts:
    def __init__(self):
        self.w1 = Param()
        self.w2 = Param()


class Dense:
    def __init__(self):
        self.w1 = Linear()


class MoE:
    def __init__(self):
        self.experts = Experts()


class Block:
    def __init__(self):
        self.moe = MoE()
        self.feed_forward = Dense()


class Model:
    def __init__(self):
        self.layers = [Block()]
        self.tok_embeddings = Embedding()
        self.output = Linear()
'''

MODEL_HEAD = (MODEL_BASE.replace("self.w1 = Param()", "self.w1_EFD = Param()")
              .replace("self.w2 = Param()", "self.w2_EDF = Param()")
              .replace("self.output = Linear()", "self.lm_head = Linear()"))

ADAPTER = '''\
class SubStateDictAdapter:
    def __init__(self):
        self.from_hf_map = {
            "model.layers.{}.mlp.experts.{}.gate_proj.weight": "layers.{}.moe.experts.w1",
            "model.layers.{}.mlp.gate_proj.weight": "layers.{}.feed_forward.w1.weight",
            "model.embed_tokens.weight": "tok_embeddings.weight",
        }
'''

CONFIGS = '''\
def big():
    return Config(filter_fqns=["output"], targets=1)


def groups():
    return Group(pattern=r"(?:tok_embeddings|output)\\.", lr=1.0)


def lora():
    return LoRA(target_modules=["w1", "wqkv_fused"])


def muon(kw):
    compute_sharding_by_fqn = kw["not_a_module_name"]
    return compute_sharding_by_fqn
'''


def _inp(tmp_path, head_files: dict[str, str]):
    base = {"sub/__init__.py": "", "sub/model.py": MODEL_BASE,
            "sub/state_dict_adapter.py": ADAPTER, "sub/configs.py": CONFIGS}
    return minirepo.build(tmp_path, base=base, head=head_files)


def _res(inp, found):
    return {"upstream_commits": list(inp.commits) or ["x"], "monkey_patches": [],
            "stale_patches": [], "config_drift": [], "lossy_config_copies": [],
            "graph_passes": [], "passes_without_tests": [], "doc_inaccuracies": [],
            "ci": CiResult((), (), (), ()), "fragile_surface_changes": [],
            "listed_patches": [], "new_apis": [], "new_models": [], "fqn_names": found}


def test_names_renamed_in_the_window_are_actions(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/model.py": MODEL_HEAD})
    found = fqnnames.analyse(inp)
    got = sorted((f.file, f.line, f.name, f.use, f.how, f.now) for f in found)
    assert got == [
        # The dense FFN still defines w1, yet the experts' w1 was renamed: the segment
        # before it (experts) says which module is meant.
        ("sub/configs.py", 2, "output", "filters", "lagged", ""),
        ("sub/configs.py", 6, "output", "filters", "lagged", ""),
        ("sub/configs.py", 10, "wqkv_fused", "filters", "unknown", ""),
        ("sub/state_dict_adapter.py", 4, "w1", "keys", "lagged", "w1_EFD"),
    ]
    items = delta.items(inp, _res(inp, found))
    acts = [i for i in items if i.kind == "action"]
    assert {(i.section, i.priority, i.where) for i in acts} == {
        ("S-1", "P1", "sub/configs.py:2"), ("S-1", "P1", "sub/state_dict_adapter.py:4")}
    [keys] = [i for i in acts if "adapter" in i.where]
    assert "`w1_EFD`" in keys.title
    [opp] = [i for i in items if i.kind == "opportunity"]
    assert "`wqkv_fused`" in opp.title and opp.section == "S-4"
    clears = clear.items(inp, _res(inp, found), items)
    assert not [c for c in clears if "no action in what was compared" in c.title]


def test_names_the_model_still_defines_are_fine(tmp_path) -> None:
    """Adapter and filters follow the rename; the HF side (gate_proj, embed_tokens) is
    never read; the all-clear stands."""
    adapter = ADAPTER.replace("moe.experts.w1\"", "moe.experts.w1_EFD\"")
    configs = (CONFIGS.replace("output", "lm_head")
               .replace('"wqkv_fused"', '"w2_EDF"'))
    inp = _inp(tmp_path, {"sub/model.py": MODEL_HEAD, "sub/state_dict_adapter.py": adapter,
                          "sub/configs.py": configs})
    assert fqnnames.analyse(inp) == []
    items = delta.items(inp, _res(inp, []))
    clears = clear.items(inp, _res(inp, []), items)
    assert [c for c in clears if "no action in what was compared" in c.title]


def test_unchanged_model_reports_no_lag(tmp_path) -> None:
    """Without a rename in the window the same literals are not lagging: ``output`` is
    still a module, and a name defined nowhere stays an opportunity."""
    inp = _inp(tmp_path, {"sub/other.py": "X = 1\n"})
    assert [(f.name, f.how) for f in fqnnames.analyse(inp)] == [("wqkv_fused", "unknown")]


def test_regex_patterns_are_judged_by_their_literal_words() -> None:
    assert fqnnames.segments(r"(?:tok_embeddings|output)\.", pattern=True) == [
        "tok_embeddings", "output"]
    # w[qk] and \d+ are parts of names, not names.
    assert fqnnames.segments(r"layers\.\d+\.(?P<n>attention)\.w[qk]\.weight", pattern=True
                             ) == ["attention"]
    assert fqnnames.segments(r"(?:feed_forward|moe\.shared)\.w[123]$", pattern=True) == [
        "feed_forward", "moe", "shared"]
    assert fqnnames.segments("layers.{}.moe.experts.w1", pattern=False) == [
        "moe", "experts", "w1"]


ATTENTION = '''\
class QKV:
    class Config:
        wq: Linear.Config
        wkv: Linear.Config

    def __init__(self, config):
        self.wq = config.wq.build()
        self.wk = config.wkv.build()
        self.wv = config.wkv.build()


def qkv_config(dim):
    return QKV.Config(wq=Linear.Config(dim), wkv=Linear.Config(dim))
'''


def test_a_config_field_name_is_a_name_the_model_defines(tmp_path) -> None:
    """No match: ``wkv`` is the config field that builds ``wk`` and ``wv``. Converters
    such as LoRA walk the model's config tree, whose paths carry the field names, so a
    target list naming ``wkv`` does match (read at torchtitan's components/lora.py:
    ``traverse(Linear.Config)`` yields ``…attention.qkv_linear.wkv``); it is neither an
    action nor an opportunity, and the delta's all-clear stands."""
    lora = 'def lora():\n    return LoRA(target_modules=["wq", "wkv", "wo"])\n'
    base = {"sub/__init__.py": "", "sub/attention.py": ATTENTION,
            "sub/model.py": "class M:\n    def __init__(self):\n        self.wo = L()\n",
            "sub/configs.py": lora}
    inp = minirepo.build(tmp_path, base=base, head={"sub/other.py": "X = 1\n"})
    assert fqnnames.analyse(inp) == []
    items = delta.items(inp, _res(inp, []))
    assert [c for c in clear.items(inp, _res(inp, []), items)
            if "no action in what was compared" in c.title]


def test_a_name_no_model_code_defines_is_no_all_clear(tmp_path) -> None:
    """A filter name defined at neither commit stays an opportunity, and the delta line
    says it is not settled instead of "nothing actionable"."""
    inp = _inp(tmp_path, {"sub/other.py": "X = 1\n"})
    found = fqnnames.analyse(inp)
    items = delta.items(inp, _res(inp, found))
    assert not [i for i in items if i.kind == "action"]
    [line] = [c.title for c in clear.items(inp, _res(inp, found), items)
              if c.title.startswith("Upstream delta")]
    assert "no action in what was compared" not in line
    assert "not settled" in line and "`wqkv_fused`" in line


def test_a_lagging_name_says_which_use_breaks(tmp_path) -> None:
    """Stated, not only located (#22 defect 8): the action's reason names the keyword that
    holds the literal, its file:line and what goes wrong for that use (a filter selects
    nothing; a key map mis-keys a checkpoint weight), and only for the uses it has. The
    opportunity for a name defined at neither commit keeps its own reason."""
    inp = _inp(tmp_path, {"sub/model.py": MODEL_HEAD})
    items = delta.items(inp, _res(inp, fqnnames.analyse(inp)))
    acts = {i.where: i for i in items if i.kind == "action"}
    flt = acts["sub/configs.py:2"].why
    assert "`filter_fqns` at configs.py:2 names `output`" in flt
    assert "the filter matches nothing" in flt and "checkpoint" not in flt
    keys = acts["sub/state_dict_adapter.py:4"].why
    assert "`from_hf_map` at state_dict_adapter.py:4 maps a checkpoint weight to `w1`" in keys
    assert "mis-keys" in keys and "filter" not in keys
    [opp] = [i for i in items if i.kind == "opportunity"]
    assert opp.why == ("a filter or key naming no module matches nothing; check the name "
                       "against the model's module tree")


def test_a_hostile_holder_name_renders_inert(tmp_path) -> None:
    """The holder and the name come from the sub-project's code: the reason that now
    carries them goes through the renderer's escaping like every other reason."""
    inp = _inp(tmp_path, {"sub/model.py": MODEL_HEAD})
    hostile = [fqnnames.FqnName(f.file, f.line, "<img src=x>", f.literal, f.use, f.how,
                                f.now, "@team") for f in fqnnames.analyse(inp)
               if f.how == "lagged"]
    [act, *_] = [i for i in delta.items(inp, _res(inp, hostile)) if i.kind == "action"]
    assert "@team" in act.why and "<img src=x>" in act.why
    # Inside a code span Markdown shows the text as it is: no tag, no mention; outside
    # one neither may appear.
    outside = re.sub(r"`[^`]*`", "", render._action(act).split(" — ", 1)[1])
    assert "<img" not in outside and "@team" not in outside
    assert "`@team`" in render._action(act)


def test_only_strings_shaped_like_module_paths_are_read_as_module_names(tmp_path) -> None:
    """#22 (set 20 kind b): a holder named ``*patterns`` may hold a prose regex (words
    between blanks, ``\\s``) or a download's file globs (``*.ext``, no regex); neither
    names modules, so neither is an opportunity nor a "not settled" name. No match: a
    module-path regex and a dotted filter beside them under the same kind of holder are
    still read, and their unknown names still reported."""
    extra = '''\
def pick(text):
    reply_patterns = [r"(?:final value|value is)\\s*(\\d+)", r"total:\\s*(\\d+)"]
    return reply_patterns


def fetch(repo):
    return download(repo, allow_patterns=["*.bin", "*.cfg", "vocab.list"])


def groups2():
    return Group(pattern=r"layers\\.\\d+\\.(?:gatekeeper)\\.", fqns=["mixer.gatekeeper"])
'''
    inp = _inp(tmp_path, {"sub/other.py": "X = 1\n", "sub/extra.py": extra})
    found = sorted((f.file, f.line, f.name) for f in fqnnames.analyse(inp)
                   if f.file == "sub/extra.py")
    assert found == [("sub/extra.py", 11, "gatekeeper")] * 2 + [("sub/extra.py", 11, "mixer")]
    assert not fqnnames.module_like(r"(?:final value|value is)\s*(\d+)", pattern=True)
    assert not fqnnames.module_like(r"total:\s*(\d+)", pattern=True)
    assert not fqnnames.module_like("*.bin", pattern=True)
    assert not fqnnames.module_like("*.bin", pattern=False)
    assert fqnnames.module_like(r"layers\.\d+\.(?:gatekeeper)\.", pattern=True)
    assert fqnnames.module_like("layers.{}.mixer.w1", pattern=False)
