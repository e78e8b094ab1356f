"""#22: general analyses for model folders — parameters every caller pins to their
default (``pinnedparams``) and comments naming files or modules that do not exist
(``commentrefs``). Match and no-match for each."""

from __future__ import annotations

from agentops.scout.analyses import commentrefs, pinnedparams
from tests.scout import minirepo

BUILDER = '''\
def _build_layers(n, *, fuse_qkv: bool = True, norm: str = "rms", dim: int = 8):
    out = []
    for _ in range(n):
        out.append(("fused" if fuse_qkv else "split", norm, dim))
    return out


def small():
    return _build_layers(2, fuse_qkv=True, dim=4)


def large():
    return _build_layers(8, fuse_qkv=True, norm="rms", dim=16)
'''


def test_pinned_parameter_every_call_passes_the_default(tmp_path) -> None:
    """#22 defect 8: every call passes ``fuse_qkv=True`` (the default), so the split
    path is selected by nothing; ``norm`` too (kept or passed as its default). ``dim``
    varies (and is numeric): not pinned. A private builder is checked (its callers are
    all in view)."""
    inp = minirepo.build(tmp_path, head={"sub/__init__.py": "", "sub/m.py": BUILDER})
    found = pinnedparams.analyse(inp)
    assert [(p.function, p.param, p.value, p.line, p.explicit, p.calls) for p in found] == [
        ("_build_layers", "fuse_qkv", "True", 1, 2, 2),
        ("_build_layers", "norm", "'rms'", 1, 1, 2)]


def test_pinned_parameter_not_when_a_caller_or_test_selects_another(tmp_path) -> None:
    """One call passing ``fuse_qkv=False`` (a reverse debug flavour), or a test that
    sets it, makes the other path reachable; a function handed on as a value has
    callers we cannot see."""
    other = BUILDER + "\n\ndef debug_split():\n    return _build_layers(1, fuse_qkv=False)\n"
    inp = minirepo.build(tmp_path / "a", head={"sub/__init__.py": "", "sub/m.py": other})
    assert [p.param for p in pinnedparams.analyse(inp)] == ["norm"]
    inp = minirepo.build(tmp_path / "b", head={
        "sub/__init__.py": "", "sub/m.py": BUILDER,
        "sub/tests/test_m.py": "from sub.m import _build_layers\n\n\ndef test_split():\n"
                               "    _build_layers(1, norm='ln')\n"})
    assert [p.param for p in pinnedparams.analyse(inp)] == ["fuse_qkv"]
    handed = BUILDER + "\n\nREGISTRY = {'layers': _build_layers}\n"
    inp = minirepo.build(tmp_path / "c", head={"sub/__init__.py": "", "sub/m.py": handed})
    assert pinnedparams.analyse(inp) == []


def test_pinned_parameter_never_read_is_not_reported_here(tmp_path) -> None:
    """A parameter the body never reads decides nothing: not a pinned branch."""
    src = ("def f(x, *, flag=True):\n    return x\n\n\ndef a():\n    return f(1, flag=True)\n"
           "\n\ndef b():\n    return f(2, flag=True)\n")
    inp = minirepo.build(tmp_path, head={"sub/__init__.py": "", "sub/m.py": src})
    assert pinnedparams.analyse(inp) == []


ADAPTER = '''\
"""
This script is adapted from sub/old/state_dict_adapter.py.
"""
# See sub/m.py and sub.m.helper for the layout; docs in sub/README.md.
# The loader lives in sub.gone.loader (moved).
import os  # plain comment, os.path.join is not ours
'''


def test_comment_names_a_missing_file_or_module(tmp_path) -> None:
    """#22 defect 7: a docstring pointing at a file that moved, and a comment naming a
    module that is gone, each with file:line; existing files and modules, names in
    another package, and paths not anchored at a repository folder are left alone."""
    inp = minirepo.build(tmp_path, head={
        "sub/__init__.py": "", "sub/m.py": "def helper():\n    return 1\n",
        "sub/README.md": "x\n", "sub/adapter.py": ADAPTER})
    found = [(p.file, p.line, p.problem) for p in commentrefs.analyse(inp)]
    assert found == [
        ("sub/adapter.py", 2, "comment names `sub/old/state_dict_adapter.py`, which does "
                              "not exist (nor does `sub/old/`)"),
        ("sub/adapter.py", 5, "comment names module `sub.gone.loader`, which does not "
                              "exist")]


def test_comment_refs_all_resolve(tmp_path) -> None:
    inp = minirepo.build(tmp_path, head={
        "sub/__init__.py": "", "sub/m.py": "def helper():\n    return 1\n",
        "sub/old/__init__.py": "", "sub/old/state_dict_adapter.py": "",
        "sub/gone/__init__.py": "", "sub/gone/loader.py": "", "sub/README.md": "x\n",
        "sub/adapter.py": ADAPTER})
    assert commentrefs.analyse(inp) == []


def test_pinned_parameter_reachable_through_a_sibling_builder(tmp_path) -> None:
    """The MoE builder pins ``fuse_qkv`` but only forwards it to ``Attn``; the dense
    builder forwards a value one caller sets to False, so the split ``Attn`` path runs
    (no report for either). Without that reverse caller both are pinned. A public
    builder (callers may live outside the folder) is never judged."""
    src = '''\
def Attn(*, fuse_qkv=True):
    return fuse_qkv


def _dense(n, *, fuse_qkv: bool = True):
    return [Attn(fuse_qkv=fuse_qkv) for _ in range(n)]


def _moe(n, *, fuse_qkv: bool = True):
    return [Attn(fuse_qkv=fuse_qkv) for _ in range(n)]


def public(n, *, fuse_qkv: bool = True):
    return fuse_qkv


def flavours():
    public(1, fuse_qkv=True)
    public(2, fuse_qkv=True)
    _moe(1, fuse_qkv=True)
    _moe(2, fuse_qkv=True)
    _dense(1, fuse_qkv=True)
    return _dense(2, fuse_qkv=%s)
'''
    inp = minirepo.build(tmp_path / "a", head={"sub/__init__.py": "",
                                               "sub/m.py": src % "False"})
    assert pinnedparams.analyse(inp) == []
    inp = minirepo.build(tmp_path / "b", head={"sub/__init__.py": "",
                                               "sub/m.py": src % "True"})
    assert [(p.function, p.param) for p in pinnedparams.analyse(inp)] == [
        ("_dense", "fuse_qkv"), ("_moe", "fuse_qkv")]


SPEC = '''\
from dataclasses import dataclass


@dataclass
class Spec:
    name: str
    flavor: str
    parallelize_fn: object
    post_optimizer_build_fn: object
    state_dict_adapter: object
'''

GUIDE = '''\
# Adding a model
- `__init__.py`
  - Define `registry(flavor)` to return a [`Spec`](/sub/spec.py), consisting of
    - model name and flavor
    - parallelizing function
    - %s
    - state dict adapter (optional)
  - Read more on `Spec`.
'''


def test_doc_list_of_class_parts_names_a_missing_field(tmp_path) -> None:
    """#22 defect 7: a doc's "consisting of" list under a linked class names a part no
    field corresponds to (the loss builder left the spec class); generic words
    ("function", "builder") do not make a part match."""
    from agentops.scout.analyses import docparts

    inp = minirepo.build(tmp_path, head={"sub/__init__.py": "", "sub/spec.py": SPEC,
                                         "sub/GUIDE.md": GUIDE % "loss function builder"},
                         target="docs: [sub/GUIDE.md]")
    assert [(p.line, p.problem.split(",")[0]) for p in docparts.analyse(inp)] == [
        (6, 'lists "loss function builder" as part of `Spec`')]


def test_doc_list_of_class_parts_all_fields_exist(tmp_path) -> None:
    from agentops.scout.analyses import docparts

    inp = minirepo.build(tmp_path, head={"sub/__init__.py": "", "sub/spec.py": SPEC,
                                         "sub/GUIDE.md": GUIDE % "post-optimizer hook"},
                         target="docs: [sub/GUIDE.md]")
    assert docparts.analyse(inp) == []


AC_BASE = '''\
from typing import Literal


class ACConfig:
    mode: Literal["none", "full", "selective"] = "selective"
'''
AC_HEAD = '''\
class ACConfig:
    early_stop: bool = False
'''
PAR = '''\
def parallelize(model, ac_config, skip_dp):
    if ac_config is not None:
        model = ac_config.apply(model)
    # For inference AC is disabled via config (mode="none", enable=False).
    # Reduction stays reduction="sum" here.
    if skip_dp:
        return model
    return model
'''


def test_comment_names_an_option_value_removed_in_the_window(tmp_path) -> None:
    """#22 defect 7: the comment explains the code with ``mode="none"``, which the AC
    config accepted at the baseline and no code accepts at HEAD; a value the code never
    had (``reduction="sum"``) is prose and not reported."""
    from agentops.scout.analyses import staleopts

    inp = minirepo.build(tmp_path, base={"sub/__init__.py": "", "sub/ac.py": AC_BASE,
                                         "sub/par.py": PAR},
                         head={"sub/ac.py": AC_HEAD})
    assert [(p.file, p.line, p.problem.split(",")[0]) for p in staleopts.analyse(inp)] == [
        ("sub/par.py", 4, 'comment names `mode="none"`')]


def test_comment_option_value_still_accepted(tmp_path) -> None:
    from agentops.scout.analyses import staleopts

    inp = minirepo.build(tmp_path, base={"sub/__init__.py": "", "sub/ac.py": AC_BASE,
                                         "sub/par.py": PAR},
                         head={"sub/par.py": PAR + "\n\nX = 1\n"})
    assert staleopts.analyse(inp) == []


LAYOUT_GUIDE = '''\
# Adding a model

Please refer to the [Example folder](ex) as an example.

The folder should be organized as follows
- `model.py`
  - the model
- `pipeline.py` (optional if model size is small)
  - apply PP
- `README.md`
  - status and features
'''


def test_guide_layout_file_missing_from_its_example_folder(tmp_path) -> None:
    """#22 defect 7: the guide names `sub/ex` as its example and says a folder should
    hold `README.md`; the example has none. A file the bullet marks optional is not
    claimed; with the README present nothing is reported."""
    from agentops.scout.analyses import docparts

    head = {"sub/__init__.py": "", "sub/ex/__init__.py": "", "sub/ex/model.py": "",
            "sub/GUIDE.md": LAYOUT_GUIDE}
    inp = minirepo.build(tmp_path / "a", head=head, target="docs: [sub/GUIDE.md]")
    assert [(p.line, p.problem.split(",")[0]) for p in docparts.analyse(inp)] == [
        (10, "the folder layout lists `README.md`")]
    inp = minirepo.build(tmp_path / "b", head={**head, "sub/ex/README.md": "x\n"},
                         target="docs: [sub/GUIDE.md]")
    assert docparts.analyse(inp) == []


def test_comment_path_relative_to_the_subproject_or_deeper_is_not_stale(tmp_path) -> None:
    """A path written from the sub-project (``tests/x.py`` inside ``sub/``) or naming a
    file deeper down (a skill's ``scripts/check.py``) resolves; a script of that form
    that exists nowhere is stale."""
    src = ("# Run: torchrun sub/tests/t.py or tests/t.py\n"
           "# see the skill's scripts/check.py\n"
           "# compared by tests/run_numerics.sh\n")
    inp = minirepo.build(tmp_path, head={
        "sub/__init__.py": "", "sub/m.py": src, "sub/tests/t.py": "",
        "sub/.skills/a/scripts/check.py": "", "tests/__init__.py": "",
        "scripts/run.sh": ""})
    assert [(p.line, p.problem) for p in commentrefs.analyse(inp)] == [
        (3, "comment names `tests/run_numerics.sh`, which does not exist")]


MODEL_BASE = '''\
class Attention:
    def forward(self, x):
        check_shape(x)
        return x
'''
MODEL_HEAD = '''\
class Attention:
    def forward(self, x):
        check_shape(x)
        if backend() == "typed":
            spmd.assert_type(x, {"tp": 0})
        return x
'''
PARALLEL = "def parallelize(model, cfg):\n    apply_compile(model, cfg)\n    return model\n"


def test_check_added_to_a_compiled_forward(tmp_path) -> None:
    """#22: the window added ``spmd.assert_type`` to ``Attention.forward`` and the
    sub-project compiles its model: reported with file:line; the check the forward
    already had is not. Without compile, or with an is_compiling guard, nothing."""
    from agentops.scout.analyses import compilechecks

    base = {"sub/__init__.py": "", "sub/model.py": MODEL_BASE, "sub/par.py": PARALLEL}
    inp = minirepo.build(tmp_path / "a", base=base, head={"sub/model.py": MODEL_HEAD})
    assert [(c.file, c.line, c.cls, c.call) for c in compilechecks.analyse(inp)] == [
        ("sub/model.py", 5, "Attention", "spmd.assert_type")]
    inp = minirepo.build(tmp_path / "b", base=base, head={
        "sub/model.py": MODEL_HEAD, "sub/par.py": "def parallelize(m):\n    return m\n"})
    assert compilechecks.analyse(inp) == []
    guarded = MODEL_HEAD.replace('if backend() == "typed":',
                                 'if not torch.compiler.is_compiling():')
    inp = minirepo.build(tmp_path / "c", base=base, head={"sub/model.py": guarded})
    assert compilechecks.analyse(inp) == []
    # Under an opt-in type-checking mode the check runs only when the user asks for it.
    opt_in = MODEL_HEAD.replace('if backend() == "typed":', "if spmd.is_type_checking():")
    inp = minirepo.build(tmp_path / "d", base=base, head={"sub/model.py": opt_in})
    assert compilechecks.analyse(inp) == []


def test_guide_layout_example_the_window_removed(tmp_path) -> None:
    """#22 defect 7: the layout's `configs.py` bullet offers `flex_attn` and
    `fused_qkv` variants as examples; the example folder's configs.py named both at the
    baseline and only `fused_qkv` at HEAD. An example never there (`my_variant`, the
    reader's) is not claimed; without a baseline nothing is said."""
    from agentops.scout.analyses import docparts

    guide = LAYOUT_GUIDE.replace(
        "- `README.md`\n",
        "- `configs.py`\n  - one function per config\n"
        "  - variants derive by mutation (e.g. flex_attn, fused_qkv, my_variant, float8)\n"
        "- `README.md`\n")
    then = "def debug():\n    pass\n\n\ndef debug_flex_attn():\n    pass\n\n\n" \
           "def debug_fused_qkv():\n    pass\n"
    now = "def debug():\n    pass\n\n\ndef debug_fused_qkv():\n    pass\n"
    files = {"sub/__init__.py": "", "sub/ex/__init__.py": "", "sub/ex/model.py": "",
             "sub/ex/README.md": "x\n", "sub/GUIDE.md": guide}
    inp = minirepo.build(tmp_path / "a", base={**files, "sub/ex/configs.py": then},
                         head={"sub/ex/configs.py": now}, target="docs: [sub/GUIDE.md]")
    assert [(p.line, p.problem.split(",")[0]) for p in docparts.analyse(inp)] == [
        (12, "gives `flex_attn` as an example for `sub/ex/configs.py`")]
    inp = minirepo.build(tmp_path / "b", head={**files, "sub/ex/configs.py": now},
                         target="docs: [sub/GUIDE.md]")
    assert docparts.analyse(inp) == []


def test_comment_path_anchored_at_a_sibling_folder(tmp_path) -> None:
    """#22 comment claims: "adapted from other/infra/par.py" written in a folder next to
    `other/` names a sibling's file; `other/infra/` is gone, so the pointer is stale.
    The same pointer to a file that exists, and a path whose first folder is no folder
    near the file (could mean anything), are left alone."""
    import dataclasses

    par = ("# Adapted from other/infra/par.py\n# Shares other/par.py; see vendor/x/y.py\n"
           "def f():\n    return 1\n")
    inp = minirepo.build(tmp_path, head={
        "pkg/__init__.py": "", "pkg/models/__init__.py": "",
        "pkg/models/other/__init__.py": "", "pkg/models/other/par.py": "X = 1\n",
        "pkg/models/deep/__init__.py": "", "pkg/models/deep/par.py": par})
    inp = dataclasses.replace(inp, target=dataclasses.replace(inp.target,
                                                              subproject="pkg/models/deep"))
    found = [(p.file, p.line, p.problem) for p in commentrefs.analyse(inp)]
    assert found == [("pkg/models/deep/par.py", 1, "comment names `other/infra/par.py`, "
                      "which does not exist (nor does `other/infra/`)")]
