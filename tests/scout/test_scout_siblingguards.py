"""#22: a rejection the sibling folders' same method makes and the sub-project's lacks
(``siblingguards``): match (two model folders beside it reject CP with varlen attention
in ``update_from_config``, this one does not: an Opportunity naming both), and the
no-match cases (the sub-project makes the check under other local names, the base
method it inherits already makes it, only one sibling makes it, a check reading the
sibling's own names, a type-narrowing ``assert``)."""

from __future__ import annotations

import dataclasses

from agentops.scout.analyses import siblingguards
from agentops.scout.itemize import debt
from tests.scout import minirepo

BASE = '''\
class Decoder:
    class Config:
        def update_from_config(self, *, config):
            self.seq_len = config.seq_len
'''

GUARDED = '''\
from core.decoder import Decoder
from core.attention import VarlenAttention


class {name}Model(Decoder):
    class Config(Decoder.Config):
        def update_from_config(self, *, config):
            Decoder.Config.update_from_config(self, config=config)
            parallelism = config.parallelism
            assert isinstance(self.layers[0].attention, GQAttention.Config)
            if parallelism.context_parallel_degree > 1 and isinstance(
                self.layers[0].attention.inner_attention, VarlenAttention.Config
            ):
                raise NotImplementedError("CP does not support varlen")
            if parallelism.pipeline_parallel_degree > 1 and isinstance(
                self.layers[0].moe, {name}Experts.Config
            ):
                raise NotImplementedError("our own experts cannot be pipelined")
'''

BARE = '''\
from core.decoder import Decoder


class DeepModel(Decoder):
    class Config(Decoder.Config):
        def update_from_config(self, *, config):
            Decoder.Config.update_from_config(self, config=config)
            self.inner_attention = config.inner_attention
            self.dim = config.dim
'''

SAME_CHECK = BARE.replace(
    "            self.dim = config.dim\n",
    "            par = config.parallelism\n"
    "            if par.context_parallel_degree > 1 and isinstance(\n"
    "                    self.layers[0].attention.inner_attention, VarlenAttention.Config):\n"
    "                raise ValueError('no CP with varlen')\n")


def _files(deep: str, siblings=("llama", "qwen"), base: str = BASE) -> dict[str, str]:
    files = {"core/__init__.py": "", "core/decoder.py": base, "models/__init__.py": "",
             "models/deep/__init__.py": "", "models/deep/model.py": deep}
    for s in siblings:
        files[f"models/{s}/__init__.py"] = ""
        files[f"models/{s}/model.py"] = GUARDED.format(name=s.title())
        files[f"models/{s}/experts.py"] = f"class {s.title()}Experts:\n    pass\n"
    return files


def _inp(tmp_path, files):
    inp = minirepo.build(tmp_path, head=files)
    return dataclasses.replace(inp, target=dataclasses.replace(inp.target,
                                                               subproject="models/deep"))


def test_a_rejection_both_siblings_make_is_missing(tmp_path) -> None:
    inp = _inp(tmp_path, _files(BARE))
    [g] = siblingguards.analyse(inp)
    assert (g.file, g.line, g.method) == ("models/deep/model.py", 6,
                                          "DeepModel.Config.update_from_config")
    assert "VarlenAttention" in g.guard
    assert g.siblings == ("models/llama/model.py:11", "models/qwen/model.py:11")
    [item] = debt._sibling_guards(inp, {"sibling_guards": [g]})
    assert item.kind == "opportunity" and "models/qwen/model.py:11" in item.title


def test_checks_present_inherited_or_not_shared_are_fine(tmp_path) -> None:
    # The same check under another local name.
    assert siblingguards.analyse(_inp(tmp_path / "a", _files(SAME_CHECK))) == []
    # The base method the sub-project calls already rejects it (nested under CP).
    base = BASE + ("            if config.parallelism.context_parallel_degree > 1:\n"
                   "                if any(self.traverse(VarlenAttention.Config)):\n"
                   "                    raise NotImplementedError('no')\n")
    assert siblingguards.analyse(_inp(tmp_path / "b", _files(BARE, base=base))) == []
    # One sibling is no agreement.
    assert siblingguards.analyse(_inp(tmp_path / "c", _files(BARE, ("llama",)))) == []


NESTED = '''\
from core.decoder import Decoder


class {name}Model(Decoder):
    class Config(Decoder.Config):
        def update_from_config(self, *, config):
            tp = config.parallelism.tensor_parallel_degree
            if tp > 1:
                for layer in self.layers:
                    if layer.n_heads % tp != 0:
                        raise ValueError("n_heads must divide by the TP degree")
'''

HEADS = '''\
from core.decoder import Decoder


class DeepModel(Decoder):
    class Config(Decoder.Config):
        def update_from_config(self, *, config):
            self.dim = config.dim
            self.n_heads = config.n_heads
'''


def _nested(deep: str, siblings=("llama", "qwen")) -> dict[str, str]:
    files = {"core/__init__.py": "", "core/decoder.py": BASE, "models/__init__.py": "",
             "models/deep/__init__.py": "", "models/deep/model.py": deep}
    for s in siblings:
        files[f"models/{s}/__init__.py"] = ""
        files[f"models/{s}/model.py"] = NESTED.format(name=s.title())
    return files


def test_a_rejection_nested_under_a_condition_and_a_loop_counts(tmp_path) -> None:
    # The siblings' check sits inside `if tp > 1:` and a loop over the layers: the
    # guard is the conditions together, and the sub-project (which has heads) lacks it.
    [g] = siblingguards.analyse(_inp(tmp_path, _nested(HEADS)))
    assert g.guard == "tp > 1 and layer.n_heads % tp != 0"
    assert g.siblings == ("models/llama/model.py:10", "models/qwen/model.py:10")
    # The sub-project making the same nested check is fine.
    same = HEADS + ("            tp = config.parallelism.tensor_parallel_degree\n"
                    "            if tp > 1:\n"
                    "                if self.n_heads % tp:\n"
                    "                    raise ValueError('heads')\n")
    assert siblingguards.analyse(_inp(tmp_path / "b", _nested(same))) == []


def test_a_sibling_check_on_a_setting_the_subproject_never_reads_is_not_its_concern(
        tmp_path) -> None:
    # A model that never spells `n_heads` (no attention heads of that kind) is not
    # asked to reject a head count.
    no_heads = HEADS.replace("            self.n_heads = config.n_heads\n", "")
    assert siblingguards.analyse(_inp(tmp_path, _nested(no_heads))) == []


# The sub-project refuses CP with varlen attention outside the method its siblings use.
ELSEWHERE = {
    "an if-raise in its parallelize function": '''\
from core.attention import VarlenAttention


def parallelize_deep(model, config):
    attn = model.layers[0].attention.inner_attention
    if config.parallelism.context_parallel_degree > 1 and isinstance(
            attn, VarlenAttention.Config):
        raise NotImplementedError("CP does not support varlen")
    return model
''',
    "a helper that returns early, then raises": '''\
from core.attention import VarlenAttention


def _check_cp(parallelism, inner_attention):
    if parallelism.context_parallel_degree <= 1:
        return
    if not isinstance(inner_attention, VarlenAttention.Config):
        return
    raise NotImplementedError("CP does not support varlen")
''',
    "an else branch that raises": '''\
from core.attention import VarlenAttention


def parallelize_deep(model, config):
    attn = model.layers[0].attention.inner_attention
    if config.parallelism.context_parallel_degree == 1 or not isinstance(
            attn, VarlenAttention.Config):
        return model
    else:
        raise NotImplementedError("CP does not support varlen")
''',
    "an assert": '''\
from core.attention import VarlenAttention


def parallelize_deep(model, config):
    inner_attention = model.layers[0].attention.inner_attention
    assert not (config.parallelism.context_parallel_degree > 1 and isinstance(
        inner_attention, VarlenAttention.Config)), "CP does not support varlen"
    return model
''',
}


def test_a_refusal_written_elsewhere_or_otherwise_is_not_missing(tmp_path) -> None:
    """#22 (sibling-guard noise): the siblings reject CP with varlen in
    ``update_from_config``; a sub-project that rejects the same combination in its
    parallelize function, a helper, an ``else`` or an ``assert`` has the guard."""
    for n, (how, text) in enumerate(ELSEWHERE.items()):
        files = {**_files(BARE), "models/deep/parallelize.py": text}
        assert siblingguards.analyse(_inp(tmp_path / str(n), files)) == [], how


def test_a_refusal_of_another_combination_elsewhere_does_not_hide_it(tmp_path) -> None:
    # CP is refused elsewhere, but with another attention (flex, a string compare):
    # the varlen refusal the siblings make is still missing.
    other = '''\
def parallelize_deep(model, config):
    if config.parallelism.context_parallel_degree > 1 and model.attn_type == "flex":
        raise NotImplementedError("CP does not support flex")
    return model
'''
    files = {**_files(BARE), "models/deep/parallelize.py": other}
    [g] = siblingguards.analyse(_inp(tmp_path, files))
    assert g.method == "DeepModel.Config.update_from_config"
    assert "VarlenAttention" in g.guard


STRING_GUARD = '''\
from core.decoder import Decoder


class {name}Model(Decoder):
    class Config(Decoder.Config):
        def update_from_config(self, *, config):
            if (
                config.parallelism.context_parallel_degree > 1
                and self.attn_type != "sdpa"
            ):
                raise NotImplementedError("CP support is only supported for SDPA.")
'''
ATTN = '''\
from core.decoder import Decoder


class DeepModel(Decoder):
    class Config(Decoder.Config):
        def update_from_config(self, *, config):
            self.attn_type = config.attn_type
'''


def test_a_refusal_is_matched_with_the_value_it_compares(tmp_path) -> None:
    """The siblings refuse CP unless attention is 'sdpa'; a parallelize function that
    refuses CP unless it is 'sdpa' has the guard; one refusing CP with 'varlen' only
    does not (the same names, another combination)."""
    def files(par: str) -> dict[str, str]:
        out = {"core/__init__.py": "", "core/decoder.py": BASE, "models/__init__.py": "",
               "models/deep/__init__.py": "", "models/deep/model.py": ATTN,
               "models/deep/parallelize.py": par}
        for s in ("llama", "qwen"):
            out[f"models/{s}/__init__.py"] = ""
            out[f"models/{s}/model.py"] = STRING_GUARD.format(name=s.title())
        return out

    par = ('def parallelize_deep(model, job_config):\n'
           '    attn_type = getattr(model.model_args, "attn_type", "sdpa")\n'
           '    if job_config.parallelism.context_parallel_degree > 1 and attn_type != "sdpa":\n'
           '        raise NotImplementedError("CP support is only supported for SDPA.")\n'
           '    return model\n')
    assert siblingguards.analyse(_inp(tmp_path / "a", files(par))) == []
    varlen = par.replace('attn_type != "sdpa"', 'attn_type == "varlen"')
    [g] = siblingguards.analyse(_inp(tmp_path / "b", files(varlen)))
    assert "'sdpa'" in g.guard and g.siblings == ("models/llama/model.py:7",
                                                  "models/qwen/model.py:7")
