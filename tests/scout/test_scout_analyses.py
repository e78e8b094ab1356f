"""Pure analyses on in-memory trees and on the built fixture repository: fragile
surfaces, stale patches, config drift, TODOs, CI invocations and selections, coverage,
private API, docs."""

from __future__ import annotations

import ast
import itertools
import textwrap

import pytest

from agentops.scout.analyses import (
    ci,
    coverage,
    debt,
    docs,
    patches,
    pysource,
    testsel,
    todos,
    upstream,
)
from agentops.scout.config import load_target
from agentops.scout.gitrepo import Commit, GitRepo, Tree
from agentops.scout.livedata import LiveData
from agentops.scout.model import Baseline, Inputs


def inputs(target_path, head: dict[str, str], base: dict[str, str] | None = None,
           commits: tuple[Commit, ...] = ()) -> Inputs:
    def tree(files: dict[str, str], name: str) -> Tree:
        return Tree(name, frozenset(files), {k: textwrap.dedent(v) for k, v in files.items()})

    return Inputs(target=load_target(str(target_path)), date="2026-03-10",
                  baseline=Baseline("2026-03-09", "--since", "base" if base else None),
                  head=tree(head, "head"), base=tree(base, "base") if base is not None else None,
                  commits=commits, live=LiveData())


def repo_inputs(fixture_repo, commit: str, since: str) -> Inputs:
    repo = GitRepo(fixture_repo[commit])
    base_sha = repo.commit_before(since)
    return Inputs(target=load_target(str(fixture_repo["target"])), date="2026-03-10",
                  baseline=Baseline(since, "--since", base_sha),
                  head=repo.tree(repo.head(), lambda p: True),
                  base=repo.tree(base_sha, lambda p: p.endswith(".py")) if base_sha else None,
                  commits=tuple(repo.log(since, ["core/"])), live=LiveData())


# --- S-1 fragile surfaces, stale patches, drift (fixture repo: c1 -> c2 -> c3) ----------

def test_fragile_surface_changes_parsed_at_both_ends(fixture_repo) -> None:
    inp = repo_inputs(fixture_repo, "c2", "2026-03-02")
    changes = {(c.surface, c.symbol): c for c in upstream.fragile_changes(inp)}
    assert changes[("fields", "CompileConfig.fullgraph")].change == \
        "field added: fullgraph: bool"
    assert changes[("fields", "Trainer.Config.steps")].change == \
        "field retyped: int -> int | None"
    sig = changes[("signature", "Trainer.post_dataloading_process")]
    # griffe's breakage kinds decide severity: a new required parameter breaks callers.
    assert sig.change.startswith("signature changed (`extra` added as required)")
    # ... but nothing in the sub-project calls or overrides it: severity from use, so no
    # priority at all (#22 defect 5).
    assert (sig.severity, sig.uses) == ("nice-to-have", ())
    ret = changes[("return tuple", "Trainer.post_dataloading_process")]
    assert ret.change == "returns a 3-tuple at the baseline, a 4-tuple now"
    # Nothing in the fixture's sub-project calls or overrides it: FYI at most (#9).
    assert (ret.severity, ret.uses) == ("should-fix", ())
    assert ret.commit == inp.commits[0].sha and inp.commits[0].subject.startswith("c2")


def test_no_baseline_commit_means_no_delta(fixture_repo) -> None:
    inp = repo_inputs(fixture_repo, "c1", "2026-03-01")
    assert inp.base is None
    assert upstream.fragile_changes(inp) == []


def test_monkey_patches_are_discovered_and_wrappers_stay_valid(fixture_repo) -> None:
    inp = repo_inputs(fixture_repo, "c3", "2026-03-02")  # baseline c1, MoE.forward changed
    sites = patches.patch_sites(inp)
    assert [(s.file, s.target, s.upstream_file, s.how) for s in sites] == [
        ("sub/patches.py", "MoE.forward", "core/moe.py", "wrapper")]
    [change] = patches.patch_changes(inp, sites)
    assert change.site.target == "MoE.forward" and "`scores` added" in change.change
    # A wrapper built from the original passes the new argument through (S-4, #9).
    assert (change.verdict, change.severity) == ("still valid", "nice-to-have")
    # With c2 as the baseline the signature did not change: nothing to say.
    assert patches.patch_changes(repo_inputs(fixture_repo, "c3", "2026-03-06"), sites) == []


def test_patch_sites_setattr_replacement_and_instance_attributes() -> None:
    mod = pysource.parse(textwrap.dedent("""
        from core.moe import MoE
        import torch
        def install(module):
            from core.attn import Attention
            setattr(Attention, "forward", my_forward)
            module.forward = wrap(module.forward)   # a local object, not an upstream class
            MoE.forward = wrap(MoE.forward)
    """))
    sites = pysource.patch_sites(mod)
    assert [(s.owner, s.attr, s.wraps) for s in sites] == [
        ("Attention", "forward", False), ("MoE", "forward", True)]


def test_replacement_patch_that_no_longer_takes_what_callers_pass_is_stale(tmp_path) -> None:
    target = _target(tmp_path)
    head = {"core/moe.py": "class MoE:\n    def forward(self, x, y):\n        return x\n",
            "sub/p.py": "from core.moe import MoE\ndef f(self, x):\n    return x\n"
                        "MoE.forward = f\n"}
    base = {**head, "core/moe.py": "class MoE:\n    def forward(self, x):\n        return x\n"}
    inp = inputs(target, head, base)
    [stale] = patches.patch_changes(inp, patches.patch_sites(inp))
    assert stale.verdict == "stale" and stale.severity == "blocking"
    assert stale.change.endswith("the replacement at sub/p.py:2 does not take `y`")
    assert stale.sites == ("sub/p.py:4",)


def _target(tmp_path, extra: str = "") -> str:
    path = tmp_path / "t.yaml"
    path.write_text(textwrap.dedent("""\
        name: t
        repo: o/r
        subproject: sub
        tests_dir: sub/tests
        watched_paths: [core/]
        workflows: [.github/workflows/ci.yaml]
    """) + textwrap.dedent(extra), encoding="utf-8")
    return str(path)


DRIFT = """\
config_drift:
  copies:
    - source: {name: Base.Config, file: core/base.py}
      copy_function: {name: convert, file: sub/conv.py}
  subclasses:
    - base: {name: Compile, file: core/base.py}
      subclass: {name: MyCompile, file: sub/conv.py}
"""


def test_config_drift_explicit_copy_and_subclass(tmp_path) -> None:
    target = _target(tmp_path, DRIFT)
    core_old = """\
        class Base:
            class Config:
                a: int = 1
                b: int = 2
                gone: int = 3
        class Compile:
            mode: str = "x"
            old_flag: bool = False
    """
    core_new = """\
        class Base:
            class Config:
                a: int = 1
                b: int = 2
                c: str = ""
        class Compile:
            mode: int = 0
            fresh: bool = True
    """
    sub = """\
        def convert(cfg):
            d = {}
            d["a"] = cfg.a
            d["gone"] = cfg.gone
            return Other(b=cfg.b, **d)
        class MyCompile(Compile):
            mode: str = "y"
            old_flag: bool = True
    """
    inp = inputs(target, {"core/base.py": core_new, "sub/conv.py": sub},
                 {"core/base.py": core_old, "sub/conv.py": sub})
    found = {(d.kind, d.field): d for d in upstream.config_drift(inp)}
    assert found[("copy", "c")].problem == "Base.Config.c is not copied by convert"
    assert found[("copy", "c")].severity == "should-fix"
    assert found[("copy", "gone")].severity == "blocking"
    assert ("copy", "a") not in found and ("copy", "b") not in found
    assert "changed type upstream (str -> int) but MyCompile overrides it as str" in \
        found[("subclass", "mode")].problem
    assert found[("subclass", "fresh")].severity == "nice-to-have"
    assert "Compile no longer has" in found[("subclass", "old_flag")].problem


def test_config_drift_an_override_already_of_the_new_type_is_adapted(tmp_path) -> None:
    # #22 precision: the override is compared with upstream's type after the window,
    # resolved through each file's imports (an alias or a module prefix is the same
    # type); only an override still of another type drifts.
    target = _target(tmp_path, DRIFT)
    core_old = """\
        class Module:
            class Config:
                pass
        class Inner(Module):
            pass
        class Compile:
            inner: Inner.Config = None
            mode: str = "x"
    """
    core_new = core_old.replace("inner: Inner.Config", "inner: Module.Config").replace(
        'mode: str = "x"', "mode: int = 0")
    sub = """\
        from core.base import Module as M
        from core import base
        class MyCompile(Compile):
            inner: M.Config = None
            mode: base.Inner = None
    """
    inp = inputs(target, {"core/base.py": core_new, "sub/conv.py": sub},
                 {"core/base.py": core_old, "sub/conv.py": sub})
    found = {(d.kind, d.field): d for d in upstream.config_drift(inp)}
    assert ("subclass", "inner") not in found
    assert "changed type upstream (str -> int)" in found[("subclass", "mode")].problem
    stale = sub.replace("M.Config = None", "base.Inner.Config = None")
    inp = inputs(target, {"core/base.py": core_new, "sub/conv.py": stale},
                 {"core/base.py": core_old, "sub/conv.py": stale})
    found = {(d.kind, d.field): d for d in upstream.config_drift(inp)}
    assert "(Inner.Config -> Module.Config)" in found[("subclass", "inner")].problem


def test_config_drift_dict_spread_copies_new_fields(fixture_repo) -> None:
    inp = repo_inputs(fixture_repo, "c2", "2026-03-02")
    drift = upstream.config_drift(inp)
    assert [(d.kind, d.field, d.severity) for d in drift] == [
        ("subclass", "fullgraph", "nice-to-have")]


# --- S-2 TODOs -----------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "refs"), [
    ("see pytorch/pytorch#123", ["pytorch/pytorch#123"]),
    ("https://github.com/pytorch/pytorch/pull/99 first", ["pytorch/pytorch#99"]),
    ("waits for pytorch/pytorch/pull/77", ["pytorch/pytorch#77"]),
    ("blocked by PyTorch #5 and #6", ["pytorch/pytorch#5", "o/r#6"]),
    ("design at https://example.com/x.", ["https://example.com/x"]),
    ("nothing here", []),
])
def test_todo_references(text, refs) -> None:
    assert list(todos.refs_in(text, "o/r", {"PyTorch": "pytorch/pytorch"})) == refs


def test_todo_scan_owner_forms_and_continuations() -> None:
    src = textwrap.dedent("""\
        x = 1  # TODO(alice): first line
        # continues here
        # [TODO](bob) bracket form
        # TODO(#42): an issue, not an owner
        s = "not a todo"
        def f():
            '''FIXME docstring line'''
    """)
    found = todos.scan("sub/a.py", src, "o/r")
    assert [(t.tag, t.owner, t.line) for t in found] == [
        ("TODO", "alice", 1), ("TODO", "bob", 3), ("TODO", "", 4)]
    assert found[0].text == "first line continues here"
    assert found[2].refs == ("o/r#42",)
    moved = todos.scan("sub/a.py", "\n\n\n" + src, "o/r")
    assert [t.id for t in moved] == [t.id for t in found]


def test_todo_tag_is_not_an_owner(tmp_path) -> None:
    # (#15) TODO(perf) names a topic; TODO(tianyu) names a person; a target adds tags.
    src = "# TODO(perf): fuse the two copies\n# TODO(tianyu): drop after 2.6\n" \
          "# TODO(Numerics): check bf16\n# TODO(graph): rewrite as a pass\n"
    found = todos.scan("sub/a.py", src, "o/r")
    assert [t.owner for t in found] == ["", "tianyu", "", "graph"]
    assert found[0].text == "(perf) fuse the two copies"
    target = _target(tmp_path, "todo_tags: [graph]\n")
    collected, _ = todos.collect(inputs(target, {"sub/a.py": src}))
    assert [t.owner for t in collected] == ["", "tianyu", "", ""]


# --- S-3d CI ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("command", "kind", "targets", "keyword"), [
    ("pytest a/test_x.py::TestA::test_b -v", "pytest", ("a/test_x.py::TestA::test_b",), None),
    ("python -m pytest tests/ -k 'fast and not slow' -x", "pytest", ("tests/",),
     "fast and not slow"),
    ("NCCL_X=0 CUDA=1 python3 -m pytest --pyargs pkg.tests.test_y", "pytest",
     ("pyargs:pkg.tests.test_y",), None),
    ("torchrun --nproc_per_node 4 --local-ranks-filter 0 -m pytest t/test_d.py -kfoo",
     "pytest", ("t/test_d.py",), "foo"),
    ("python -m pkg.tests.integration --test_suite x --ngpu 8", "module",
     ("pkg.tests.integration",), None),
    ("timeout 600 python scripts/run.py --a 1", "script", ("scripts/run.py",), None),
    ("pytest --junitxml=out.xml --maxfail 2 t/test_e.py", "pytest", ("t/test_e.py",), None),
])
def test_parse_command_forms(command, kind, targets, keyword) -> None:
    inv = ci.parse_command("wf.yaml", "step", command)
    assert (inv.kind, inv.targets, inv.keyword) == (kind, targets, keyword)


def test_non_python_commands_are_ignored() -> None:
    for cmd in ("pip install torch", "echo pytest", "sudo mkdir -p x", "conda activate e"):
        assert ci.parse_command("wf", "s", cmd) is None


def test_scripts_of_reads_run_and_reusable_workflow_script() -> None:
    doc = {"jobs": {"a": {"steps": [{"name": "s1", "run": "pytest x"}]},
                    "b": {"uses": "org/r/.github/workflows/j.yml@main",
                          "with": {"script": "set -eux\npytest y \\\n  -v"}}}}
    scripts = ci.scripts_of(doc)
    assert scripts[0] == ("s1", "pytest x")
    assert scripts[1][0] == "b"
    assert ci.commands(scripts[1][1]) == ["set -eux", "pytest y    -v"]


def test_ci_gaps_on_fixture(fixture_repo) -> None:
    res = ci.analyse(repo_inputs(fixture_repo, "c3", "2026-03-06"))
    assert res.missing == ("sub/tests/test_new.py",)
    how = {c.file: c.how for c in res.covered}
    assert how["sub/tests/test_helpers.py"] == "via import into sub/tests/test_runner_all.py"
    assert how["sub/tests/test_skipped.py"] == "node ids"
    [empty] = res.empty_steps
    assert empty.step == "skipped only"
    assert "every selected test is skipped unconditionally" in empty.reason


def test_selection_skips_and_keywords() -> None:
    src = textwrap.dedent("""\
        import pytest, unittest
        if False:
            def test_dead():
                pass
        def test_alive():
            pass
        @pytest.mark.skip(reason="x")
        def test_marked():
            pass
        @unittest.skipIf(True, "runtime condition: may still run")
        def test_conditional():
            pass
        class Base:
            def test_inherited(self):
                pass
        class TestK(Base):
            def test_own(self):
                pass
    """)
    cases = testsel.test_cases("t/test_m.py", src)
    assert {(c.cls, c.name, c.skipped) for c in cases} == {
        ("", "test_alive", False), ("", "test_marked", True),
        ("", "test_conditional", False), ("TestK", "test_inherited", False),
        ("TestK", "test_own", False)}
    sel = testsel.select(cases, node=[], keyword="TestK and not own")
    assert [c.name for c in sel] == ["test_inherited"]
    assert testsel.select(cases, node=["TestK", "test_own[param-1]"], keyword=None)
    assert testsel.select(cases, node=["test_dead"], keyword=None) == []
    assert [c.name for c in testsel.select(cases, node=[], keyword="(alive or marked)")] \
        == ["test_alive", "test_marked"]


def test_module_level_skip() -> None:
    src = "import pytest\npytest.skip('no gpu', allow_module_level=True)\ndef test_a():\n  pass\n"
    assert [c.skipped for c in testsel.test_cases("t/test_s.py", src)] == [True]
    src2 = "import pytest\npytestmark = pytest.mark.skip\ndef test_a():\n  pass\n"
    assert [c.skipped for c in testsel.test_cases("t/test_s.py", src2)] == [True]


def test_step_naming_a_missing_file_or_disabled_runner_test(tmp_path) -> None:
    target = _target(tmp_path)
    wf = """\
        jobs:
          j:
            steps:
              - run: |
                  pytest sub/tests/test_gone.py
                  python -m pytest sub.tests.test_mod -v
                  python -m sub.tests.runner --test_name off_test
                  python -m sub.tests.runner --test_name on_test
    """
    runner = """\
        _OFF = True
        TESTS = [Def(["x"], "d", "off_test", disabled=_OFF), Def(["y"], "d", "on_test")]
    """
    inp = inputs(target, {".github/workflows/ci.yaml": wf, "sub/tests/runner.py": runner,
                          "sub/tests/test_real.py": "def test_a():\n    pass\n",
                          "sub/tests/test_mod.py": "def test_m():\n    pass\n"})
    res = ci.analyse(inp)
    assert "sub/tests/test_mod.py" in {c.file for c in res.covered}  # module form
    reasons = [e.reason for e in res.empty_steps]
    assert reasons == ["sub/tests/test_gone.py does not exist",
                       "--test_name off_test is disabled in the runner"]
    assert res.missing == ("sub/tests/test_real.py",)


# --- S-3e coverage, S-4 debt, S-5 docs on the fixture ----------------------------------------

def test_coverage_on_fixture(fixture_repo) -> None:
    inp = repo_inputs(fixture_repo, "c3", "2026-03-06")
    gaps = coverage.parallelism_gaps(inp)
    assert [g.subject for g in gaps] == ["tp+cp"]
    assert [u.name for u in coverage.passes_without_tests(inp)] == ["bucket_pass"]
    assert [u.name for u in coverage.configs_without_tests(inp)] == ["sub_big"]
    assert [g.subject for g in coverage.untested_new_code(inp)] == ["annotate"]


def test_private_api_and_duplicates(fixture_repo) -> None:
    inp = repo_inputs(fixture_repo, "c2", "2026-03-02")
    uses = debt.private_api_uses(inp)
    assert [(u.file, u.name, u.reason) for u in uses] == [
        ("sub/passes.py", "_private_helper", "configured private API")]
    [dup] = debt.duplicate_changes(inp)
    assert dup.upstream == ("core/checkpointing.py",) and dup.ours == ("sub/passes.py",)


def test_private_module_and_name_rules(tmp_path) -> None:
    target = _target(tmp_path, "private_api: {names: [DTensorSpec], "
                               "private_import_roots: [torch]}\n")
    src = """\
        from torch._dynamo import graph
        from torch.fx import _symbolic_trace
        from torch.distributed.tensor import DTensorSpec
        from torch.nn import Linear
        from torch.distributed import __version__
    """
    uses = debt.private_api_uses(inputs(target, {"sub/x.py": src}))
    assert [(u.line, u.reason) for u in uses] == [
        (1, "private module"), (2, "private name"), (3, "configured private API")]


def test_docs_on_fixture(fixture_repo) -> None:
    # The references of the c2 README resolve; its counted claim does not.
    assert docs.references(repo_inputs(fixture_repo, "c2", "2026-03-02")) == []
    problems = [(p.line, p.problem) for p in docs.references(
        repo_inputs(fixture_repo, "c3", "2026-03-06"))]
    assert problems == [
        (4, "path sub/tests/test_gone.py does not exist"),
        (7, "flag --compile.mode aot_fx: not one of 'jit', 'aot'; use one of them"),
        (7, "flag --max_steps is not a config field, a known flag, or an argparse option in "
            "the repo"),
        (10, "path sub/missing_dir/notes.md does not exist")]


def test_docs_flags_through_nested_config_and_node_ids(tmp_path) -> None:
    target = _target(tmp_path, "docs: [sub/README.md]\n"
                               "doc_config_roots: [{name: Root, file: sub/cfg.py}]\n")
    cfg = """\
        from dataclasses import dataclass, field
        @dataclass
        class Par:
            tp: int = 1
        @dataclass
        class Root:
            parallelism: Par = field(default_factory=Par)
            enable_thing: bool = False
    """
    readme = """\
        Use `--parallelism.tp 2` and `--parallelism.async_tp` and `--no-enable_thing`.
        Run `pytest sub/tests/test_a.py::TestA::test_x` or
        `pytest sub/tests/test_a.py::TestA::test_gone`; outputs go to `outputs/x.json`.
        See [guide](../docs/guide.md) and `torch/utils/thing.py`.
    """
    test = "class TestA:\n    def test_x(self):\n        pass\n"
    inp = inputs(target, {"sub/cfg.py": cfg, "sub/README.md": readme,
                          "sub/tests/test_a.py": test, "docs/guide.md": "# g\n"})
    assert [(p.line, p.problem) for p in docs.analyse(inp)] == [
        (1, "flag --parallelism.async_tp: parallelism has no field 'async_tp'; no config "
            "field has that name: drop the flag"),
        (3, "test sub/tests/test_a.py::TestA::test_gone does not exist")]


def test_docs_launcher_options_are_not_the_scripts(tmp_path) -> None:
    # The options between a launcher and the script it starts are the launcher's; only
    # what follows the script is read against the script's options (#22, set 20 c1).
    target = _target(tmp_path, "docs: [sub/README.md]\n")
    script = """\
        import argparse
        p = argparse.ArgumentParser()
        p.add_argument("--rounds", type=int)
    """
    readme = """\
        ```bash
        torchrun --standalone --nproc-per-node 4 sub/go.py --rounds 3
        python -m torch.distributed.run --nnodes=1 sub/go.py --rounds 2
        torchrun --nproc_per_node=2 \\
            sub/go.py --laps 5
        ```
    """
    inp = inputs(target, {"sub/go.py": script, "sub/README.md": readme})
    assert [(p.line, p.problem) for p in docs.analyse(inp)] == [
        (5, "flag --laps is not a config field, a known flag, or an argparse option in the "
            "repo")]
    assert docs.past_launcher("torchrun --standalone -m pkg.run --x 1") == "-m pkg.run --x 1"
    assert docs.past_launcher("CUDA_VISIBLE_DEVICES=0 torchrun --nnodes 1 \\") == ""
    assert docs.past_launcher("python sub/go.py --rounds 1") == "python sub/go.py --rounds 1"


def test_change_is_attributed_to_the_commit_that_made_it(tmp_path) -> None:
    target = _target(tmp_path, "fragile_surfaces: {classes: [{name: Cfg, file: core/c.py}]}\n")
    v0 = "class Cfg:\n    a: int = 1\n"
    v1 = "# comment only\nclass Cfg:\n    a: int = 1\n"
    v2 = "class Cfg:\n    a: str = ''\n"
    v3 = "# later touch\nclass Cfg:\n    a: str = ''\n"
    commits = (Commit("sha3", "2026-03-04", "touch", ("core/c.py",)),
               Commit("sha2", "2026-03-03", "retype", ("core/c.py",)),
               Commit("sha1", "2026-03-02", "comment", ("core/c.py",)))
    inp = inputs(target, {"core/c.py": v3}, {"core/c.py": v0}, commits)
    [naive] = upstream.fragile_changes(inp)
    assert naive.commit == "sha3"  # without history: the newest commit touching the file
    import dataclasses

    inp = dataclasses.replace(inp, history={"core/c.py": (("sha1", v1), ("sha2", v2),
                                                          ("sha3", v3))})
    [change] = upstream.fragile_changes(inp)
    assert (change.change, change.commit) == ("field retyped: int -> str", "sha2")


def test_removed_field_is_blocking_only_when_the_sub_project_uses_it(tmp_path) -> None:
    target = _target(tmp_path, "fragile_surfaces: {classes: [{name: Cfg, file: core/c.py}]}\n")
    base = {"core/c.py": "class Cfg:\n    seq_len: int = 1\n    steps: int = 2\n"}
    head = {"core/c.py": "class Cfg:\n    pass\n",
            "sub/a.py": "def f(cfg):\n    seq_len = 3  # a local, not the field\n"
                        "    return cfg.training.steps\n"}
    changes = {c.symbol: c for c in upstream.fragile_changes(inputs(target, head, base))}
    assert changes["Cfg.steps"].severity == "blocking"
    assert changes["Cfg.steps"].uses == ("sub/a.py:3",)
    # The sub-project only has a local of that name: not a reference (FYI at most).
    assert changes["Cfg.seq_len"].uses == ()



def test_a_retyped_literal_needs_only_the_values_it_no_longer_allows(tmp_path) -> None:
    """#22: ``Literal['default', 'full', 'typed'] -> Literal['partial', 'typed']``: a
    sub-project that pins ``'partial'`` and passes the field on has adapted; only a
    constant the new Literal drops (``== 'full'``, ``backend='default'``) is a use."""
    frag = "fragile_surfaces: {classes: [{name: Cfg, file: core/c.py}]}\n"
    target = _target(tmp_path, frag)
    base = {"core/c.py": "from typing import Literal\nclass Cfg:\n"
                         "    backend: Literal['default', 'full', 'typed'] = 'default'\n"}
    head = {"core/c.py": "from typing import Literal\nclass Cfg:\n"
                         "    backend: Literal['partial', 'typed'] = 'typed'\n",
            "sub/a.py": "def f(cfg):\n    cfg = replace(cfg, backend='partial')\n"
                        "    set_backend(cfg.backend)\n    return Dims(backend=cfg.backend)\n"}
    [change] = upstream.fragile_changes(inputs(target, head, base))
    assert change.change.startswith("field retyped") and change.uses == ()
    # No match: a value the new Literal dropped, compared and passed.
    head["sub/b.py"] = ("def g(cfg):\n    if cfg.backend == 'full':\n        return 1\n"
                        "    return Dims(backend='default')\n")
    (tmp_path / "b").mkdir()
    target = _target(tmp_path / "b", frag)
    [change] = upstream.fragile_changes(inputs(target, head, base))
    assert change.uses == ("sub/b.py:2", "sub/b.py:4")



def test_a_function_whose_module_became_a_package_moved_not_vanished(tmp_path) -> None:
    """#22: ``core/opt.py`` became the package ``core/opt/`` (``__init__`` re-exports
    ``default_adamw`` from ``.impl``); the sub-project's ``from core.opt import
    default_adamw`` still resolves: moved, same signature, no P0."""
    frag = "fragile_surfaces: {functions: [{name: default_adamw, file: core/opt.py}]}\n"
    fn = "def default_adamw(lr=1e-3, **kw):\n    return lr\n"
    base = {"core/__init__.py": "", "core/opt.py": fn}
    user = "from core.opt import default_adamw\n\nCFG = default_adamw(lr=3e-4)\n"
    head = {"core/__init__.py": "", "core/opt/__init__.py": "from .impl import default_adamw\n",
            "core/opt/impl.py": fn, "sub/reg.py": user}
    [change] = upstream.fragile_changes(inputs(_target(tmp_path, frag), head, base))
    assert change.change.startswith("default_adamw moved to core/opt/impl.py")
    assert (change.severity, change.uses) == ("nice-to-have", ())
    # No match: gone for good (the import resolves nowhere): blocking where it is used.
    gone = {"core/__init__.py": "", "core/opt/__init__.py": "", "sub/reg.py": user}
    (tmp_path / "b").mkdir()
    [change] = upstream.fragile_changes(inputs(_target(tmp_path / "b", frag), gone, base))
    assert "no longer found" in change.change and change.severity == "blocking"



def test_a_method_of_a_class_re_exported_by_its_new_package_is_found_there(tmp_path) -> None:
    """#22 (set 17 kind a): ``core/net.py`` became ``core/net/body.py`` and the package
    ``core/__init__.py`` re-exports ``Body``; a configured method ``Body.setup`` is found
    in the class the sub-project's import resolves to: moved, same signature, no P0."""
    frag = "fragile_surfaces: {functions: [{name: Body.setup, file: core/net.py}]}\n"
    cls = "class Body:\n    def setup(self, device=None):\n        return device\n"
    base = {"core/__init__.py": "", "core/net.py": cls}
    user = ("from core import Body\n\nclass Mine(Body):\n"
            "    def setup(self, device=None):\n        super().setup(device)\n")
    head = {"core/__init__.py": "from core.net.body import Body\n", "core/net/__init__.py": "",
            "core/net/body.py": cls, "sub/m.py": user}
    [change] = upstream.fragile_changes(inputs(_target(tmp_path, frag), head, base))
    assert change.change.startswith("Body.setup moved to core/net/body.py")
    assert (change.severity, change.uses) == ("nice-to-have", ())
    # No match: the class is still found but lost the method: gone, blocking at the override.
    head["core/net/body.py"] = "class Body:\n    pass\n"
    (tmp_path / "b").mkdir()
    [change] = upstream.fragile_changes(inputs(_target(tmp_path / "b", frag), head, base))
    assert "no longer found" in change.change



def test_an_override_counts_only_where_its_class_still_derives_from_the_gone_base(
        tmp_path) -> None:
    """#22 (set 20 kind a): ``Shape.area`` went with its class; the folder's ``area`` now
    sits in a class whose base is a new core class declaring the same method, so it
    overrides nothing that is gone: the change is no use of the folder's (no action).
    No match: a class that still derives from the gone base (through an alias and a
    class of its own) keeps its override as a blocking use."""
    frag = "fragile_surfaces: {functions: [{name: Shape.area, file: core/geo.py}]}\n"
    base = {"core/__init__.py": "",
            "core/geo.py": "class Shape:\n    def area(self, unit=1):\n        return unit\n"}
    new_core = "class Figure:\n    def area(self, unit=1, exact=False):\n        return unit\n"
    moved_on = ("from core.fig import Figure\n\nclass Square(Figure):\n"
                "    def area(self, unit=1, exact=False):\n        return unit\n")
    head = {"core/__init__.py": "", "core/fig.py": new_core, "sub/sq.py": moved_on}
    [change] = upstream.fragile_changes(inputs(_target(tmp_path, frag), head, base))
    assert "no longer found" in change.change
    assert (change.severity, change.uses) == ("should-fix", ())
    stuck = ("from core.geo import Shape as Old\n\nclass Mid(Old):\n    pass\n\n"
             "class Square(Mid):\n    def area(self, unit=1):\n        return unit\n")
    head_stuck = {"core/__init__.py": "", "core/geo.py": "class Shape:\n    pass\n",
                  "sub/sq.py": stuck}
    (tmp_path / "b").mkdir()
    [change] = upstream.fragile_changes(inputs(_target(tmp_path / "b", frag), head_stuck,
                                               base))
    assert (change.severity, change.uses) == ("blocking", ("sub/sq.py:7",))


def test_a_method_of_a_class_re_exported_under_another_name_is_found_there(tmp_path) -> None:
    """#22 (rev42b): the package re-exports the class under the configured name
    (``from .shape import Frame as Panel``); the method is read in the class the alias
    resolves to, whatever that class is called: moved, no P0. No match: the renamed class
    lacks the method."""
    frag = "fragile_surfaces: {functions: [{name: Panel.draw, file: ui/panel.py}]}\n"
    cls = "class {}:\n    def draw(self, scale=1):\n        return scale\n"
    base = {"ui/__init__.py": "", "ui/panel.py": cls.format("Panel")}
    user = "from ui import Panel\n\nP = Panel().draw(scale=2)\n"
    head = {"ui/__init__.py": "from ui.shape import Frame as Panel\n",
            "ui/shape.py": cls.format("Frame"), "sub/p.py": user}
    [change] = upstream.fragile_changes(inputs(_target(tmp_path, frag), head, base))
    assert change.change.startswith("Panel.draw moved to ui/shape.py")
    head["ui/shape.py"] = "class Frame:\n    pass\n"
    (tmp_path / "b").mkdir()
    [change] = upstream.fragile_changes(inputs(_target(tmp_path / "b", frag), head, base))
    assert "no longer found" in change.change



def test_a_moved_method_is_looked_for_only_when_the_baseline_had_it_in_a_class(
        tmp_path) -> None:
    """#22 (rev42b, mutation): no move is looked for when the configured method did not
    exist at the baseline (nothing to compare with: no change), and a function that only
    shares the class's name holds no method, even with a nested def of the method's
    name: gone, not moved."""
    frag = "fragile_surfaces: {functions: [{name: Panel.draw, file: ui/panel.py}]}\n"
    cls = "class Panel:\n    def draw(self, scale=1):\n        return scale\n"
    user = "from ui.shape import Panel\n\nP = Panel().draw(scale=2)\n"
    head = {"ui/__init__.py": "", "ui/shape.py": cls, "sub/p.py": user}
    assert upstream.fragile_changes(inputs(_target(tmp_path, frag), head,
                                           {"ui/__init__.py": ""})) == []
    fake = "def Panel():\n    def draw(self, scale=1):\n        return scale\n    return draw\n"
    (tmp_path / "b").mkdir()
    [change] = upstream.fragile_changes(inputs(
        _target(tmp_path / "b", frag), {**head, "ui/shape.py": fake},
        {"ui/__init__.py": "", "ui/panel.py": cls}))
    assert "no longer found" in change.change


def test_a_package_that_re_exports_under_another_name_is_followed_by_that_name(
        tmp_path) -> None:
    """#22: ``core/opt/__init__.py`` says ``from .impl import make_adamw as default_adamw``;
    the sub-project's ``from core.opt import default_adamw`` resolves to ``make_adamw``,
    and a package that re-exports another function under the old name's own spelling
    (``from .impl import default_adamw as legacy``) does not provide it."""
    frag = "fragile_surfaces: {functions: [{name: default_adamw, file: core/opt.py}]}\n"
    fn = "def default_adamw(lr=1e-3, **kw):\n    return lr\n"
    base = {"core/__init__.py": "", "core/opt.py": fn}
    user = "from core.opt import default_adamw\n\nCFG = default_adamw(lr=3e-4)\n"
    head = {"core/__init__.py": "",
            "core/opt/__init__.py": "from .impl import make_adamw as default_adamw\n",
            "core/opt/impl.py": fn.replace("default_adamw", "make_adamw"), "sub/reg.py": user}
    [change] = upstream.fragile_changes(inputs(_target(tmp_path, frag), head, base))
    assert change.change.startswith("default_adamw moved to core/opt/impl.py")
    head["core/opt/__init__.py"] = "from .impl import default_adamw as legacy\n"
    head["core/opt/impl.py"] = fn
    (tmp_path / "b").mkdir()
    [change] = upstream.fragile_changes(inputs(_target(tmp_path / "b", frag), head, base))
    assert "no longer found" in change.change and change.severity == "blocking"


def test_a_class_whose_module_became_a_package_is_compared_where_it_went(tmp_path) -> None:
    frag = "fragile_surfaces: {classes: [{name: Cfg.Config, file: core/opt.py}]}\n"
    cls = "class Cfg:\n    class Config:\n        lr: float = 1e-3\n"
    base = {"core/__init__.py": "", "core/opt.py": cls}
    user = "from core.opt import Cfg\n\nC = Cfg.Config(lr=3e-4)\n"
    head = {"core/__init__.py": "", "core/opt/__init__.py": "from .impl import Cfg\n",
            "core/opt/impl.py": cls.replace("lr: float = 1e-3", "lr: float = 1e-3\n"
                                            "        eps: float = 1e-8"),
            "sub/reg.py": user}
    changes = upstream.fragile_changes(inputs(_target(tmp_path, frag), head, base))
    assert [c.change for c in changes] == ["field added: eps: float"]
    # No match: gone for good: the class is no longer found, blocking (it is imported).
    gone = {"core/__init__.py": "", "core/opt/__init__.py": "", "sub/reg.py": user}
    (tmp_path / "b").mkdir()
    [change] = upstream.fragile_changes(inputs(_target(tmp_path / "b", frag), gone, base))
    assert "no longer found" in change.change and change.severity == "blocking"


def test_a_symbol_its_file_now_imports_from_a_sibling_module_is_still_provided(
        tmp_path) -> None:
    """#22 ("when a configured symbol moves"): the configured file no longer defines
    ``Spec`` but imports it from a sibling (``from .shapes import Spec``), so every
    importer of the file still gets it. The scout compares with the definition it now
    resolves to: a field added there is reported, the class and its method are not
    "no longer found"."""
    frag = ("fragile_surfaces:\n  classes: [{name: Spec, file: core/proto.py}]\n"
            "  functions: [{name: Spec.resize, file: core/proto.py}]\n")
    cls = "class Spec:\n    width: int = 4\n    def resize(self, n: int) -> int:\n" \
          "        return n\n"
    base = {"core/__init__.py": "", "core/proto.py": cls}
    user = "from core.proto import Spec\n\nS = Spec().resize(2)\n"
    head = {"core/__init__.py": "", "core/proto.py": "from .shapes import Spec as Spec\n",
            "core/shapes.py": cls.replace("width: int = 4", "width: int = 4\n"
                                          "    depth: int = 1"),
            "sub/use.py": user}
    changes = upstream.fragile_changes(inputs(_target(tmp_path, frag), head, base))
    assert [c.change for c in changes] == ["field added: depth: int"]
    # An absolute import of a renamed name resolves as well.
    head["core/proto.py"] = "from core.shapes import Shape as Spec\n"
    head["core/shapes.py"] = cls.replace("class Spec", "class Shape")
    (tmp_path / "a").mkdir()
    assert upstream.fragile_changes(inputs(_target(tmp_path / "a", frag), head, base)) == []
    # No match: the file neither defines nor imports it any more: gone, blocking (used).
    head["core/proto.py"] = "from .shapes import Other\n"
    (tmp_path / "b").mkdir()
    changes = upstream.fragile_changes(inputs(_target(tmp_path / "b", frag), head, base))
    assert {c.symbol for c in changes} == {"Spec", "Spec.resize"}
    assert all("no longer found" in c.change and c.severity == "blocking" for c in changes)
    # Two modules importing the name from each other: bounded, still "no longer found".
    head["core/proto.py"] = "from .shapes import Spec\n"
    head["core/shapes.py"] = "from .proto import Spec\n"
    (tmp_path / "c").mkdir()
    changes = upstream.fragile_changes(inputs(_target(tmp_path / "c", frag), head, base))
    assert {c.symbol for c in changes} == {"Spec", "Spec.resize"}


def test_a_relative_import_above_the_top_package_provides_nothing(tmp_path) -> None:
    """#22: ``from ....shapes import Spec`` in core/sub/proto.py climbs above ``core``;
    Python raises ImportError there, so the name is not provided and the configured
    class is "no longer found". A slice of the package path with a negative end would
    have read it as ``from core.shapes import Spec`` and found the sibling's class."""
    frag = "fragile_surfaces:\n  classes: [{name: Spec, file: core/sub/proto.py}]\n"
    cls = "class Spec:\n    width: int = 4\n"
    base = {"core/__init__.py": "", "core/sub/__init__.py": "", "core/sub/proto.py": cls}
    head = {**base, "core/sub/proto.py": "from ....shapes import Spec\n",
            "core/shapes.py": cls}
    changes = upstream.fragile_changes(inputs(_target(tmp_path, frag), head, base))
    assert [c.symbol for c in changes] == ["Spec"]
    assert "no longer found" in changes[0].change
    # No match: one level up less is inside ``core``, and the class is provided there.
    head["core/sub/proto.py"] = "from ..shapes import Spec\n"
    (tmp_path / "a").mkdir()
    assert upstream.fragile_changes(inputs(_target(tmp_path / "a", frag), head, base)) == []


def test_a_package_init_and_a_module_past_other_statements_re_export(tmp_path) -> None:
    """#22: a package's ``__init__.py`` resolves ``from .shapes import Spec`` inside the
    package itself, and the import of the name is found after other names and
    statements of the file (a docstring, a plain import, an import of another name)."""
    cls = "class Spec:\n    width: int = 4\n\n\nclass Other:\n    pass\n"
    for k, (file, text) in enumerate([
            ("core/__init__.py", "from .shapes import Other, Spec\n"),
            ("core/proto.py", '"""Shapes."""\nimport os\n\nfrom .util import grow\n'
                              "from .shapes import Spec\n"),
            # The package itself as the module: ``from . import Spec``.
            ("core/sub/proto.py", "from . import Spec\n")]):
        frag = f"fragile_surfaces:\n  classes: [{{name: Spec, file: {file}}}]\n"
        base = {"core/__init__.py": "", file: cls}
        head = {"core/__init__.py": "", "core/shapes.py": cls, "core/sub/__init__.py": cls,
                "core/util.py": "def grow(n):\n    return n\n", file: text}
        (tmp_path / str(k)).mkdir()
        assert upstream.fragile_changes(inputs(_target(tmp_path / str(k), frag), head,
                                               base)) == [], file


def test_a_chain_of_re_exports_is_followed_three_hops_and_no_further(tmp_path) -> None:
    """#22: the lookup follows ``from .x import Spec`` from module to module, but a
    bounded number of times (``_MAX_REEXPORTS``): three hops reach the class, a fourth
    is not taken and the configured class is "no longer found"."""
    frag = "fragile_surfaces:\n  classes: [{name: Spec, file: core/proto.py}]\n"
    cls = "class Spec:\n    width: int = 4\n"
    base = {"core/__init__.py": "", "core/proto.py": cls}

    def chain(hops: int) -> dict[str, str]:
        names = ["proto", *(f"hop{k}" for k in range(1, hops + 1))]
        files = {f"core/{a}.py": f"from .{b} import Spec\n"
                 for a, b in itertools.pairwise(names)}
        return {"core/__init__.py": "", **files, f"core/{names[-1]}.py": cls}

    assert upstream.fragile_changes(inputs(_target(tmp_path, frag), chain(3), base)) == []
    (tmp_path / "a").mkdir()
    changes = upstream.fragile_changes(inputs(_target(tmp_path / "a", frag), chain(4), base))
    assert [c.symbol for c in changes] == ["Spec"] and "no longer found" in changes[0].change


def _provides(tmp_path, name: str, proto: str, **others: str) -> bool:
    """Whether core/proto.py, reading ``proto``, still provides the configured ``name``
    (no "no longer found" change) with the sibling modules ``others`` beside it."""
    frag = f"fragile_surfaces:\n  classes: [{{name: {name}, file: core/proto.py}}]\n"
    cls = f"class {name}:\n    width: int = 4\n"
    base = {"core/__init__.py": "", "core/proto.py": cls}
    head = {"core/__init__.py": "", "core/proto.py": proto,
            **{f"core/{k}.py": v for k, v in others.items()}}
    folder = tmp_path / str(len(list(tmp_path.iterdir())))
    folder.mkdir()
    return upstream.fragile_changes(inputs(_target(folder, frag), head, base)) == []


def test_a_star_import_provides_what_its_module_exports(tmp_path) -> None:
    """#22: ``from .shapes import *`` binds every name ``shapes`` exports: those its
    literal ``__all__`` lists, or without one every name not starting with ``_``."""
    cls = "class Spec:\n    width: int = 4\n"
    assert _provides(tmp_path, "Spec", "from .shapes import *\n", shapes=cls)
    assert _provides(tmp_path, "Spec", "from .shapes import *\n",
                     shapes="__all__ = ['Spec']\n" + cls)
    # No match: __all__ leaves it out, or the name is private and there is no __all__.
    assert not _provides(tmp_path, "Spec", "from .shapes import *\n",
                         shapes="__all__ = ('Other',)\n" + cls)
    private = "class _Spec:\n    width: int = 4\n"
    assert not _provides(tmp_path, "_Spec", "from .shapes import *\n", shapes=private)
    assert _provides(tmp_path, "_Spec", "from .shapes import _Spec\n", shapes=private)


def test_all_built_in_steps_is_read_as_the_module_builds_it(tmp_path) -> None:
    """#22: ``__all__`` grown by ``+=``, ``.extend`` or ``.append`` of literals exports
    what it adds, and a later assignment replaces an earlier one, as ``import *`` reads
    the list the module ends with."""
    cls = "class Spec:\n    width: int = 4\n"
    for grown in ("__all__ = ['Other']\n__all__ += ['Spec']\n",
                  "__all__ = ['Other']\n__all__.extend(('Spec',))\n",
                  "__all__ = ['Other']\n__all__.append('Spec')\n",
                  "__all__ = ['Other']\n__all__ = ['Other', 'Spec']\n"):
        assert _provides(tmp_path, "Spec", "from .shapes import *\n", shapes=grown + cls), grown
    # No match: the name was listed, then the list was replaced without it.
    assert not _provides(tmp_path, "Spec", "from .shapes import *\n",
                         shapes="__all__ = ['Spec']\n__all__ = ['Other']\n" + cls)
    # Grown by something that cannot be read: a public name counts as exported.
    assert _provides(tmp_path, "Spec", "from .shapes import *\n",
                     shapes="__all__ = ['Other']\n__all__ += make()\n" + cls)
    # Changed where the module's top level cannot be read in order: under an if or a
    # try, by another method, in a function: the same.
    for elsewhere in ("if FLAG:\n    __all__.append('Spec')\n",
                      "try:\n    __all__ += ['Spec']\nexcept ValueError:\n    pass\n",
                      "__all__.insert(0, 'Spec')\n",
                      "def grow():\n    __all__.append('Spec')\n\n\ngrow()\n"):
        assert _provides(tmp_path, "Spec", "from .shapes import *\n",
                         shapes="FLAG = 1\n__all__ = ['Other']\n" + elsewhere + cls), elsewhere
    # A private name stays unexported, and a read of __all__ changes nothing.
    assert not _provides(tmp_path, "_Spec", "from .shapes import *\n",
                         shapes="__all__ = ['Other']\nif FLAG:\n    __all__ += ['x']\n"
                         "class _Spec:\n    width: int = 4\n")
    assert not _provides(tmp_path, "Spec", "from .shapes import *\n",
                         shapes="__all__ = ['Other']\nNAMES = len(__all__)\n" + cls)


def test_of_two_aliases_binding_the_name_the_last_is_kept(tmp_path) -> None:
    """#22: ``from .shapes import Other as Spec, Spec`` binds ``Spec`` twice, left to
    right; Python keeps the last, so the class is the one named ``Spec``."""
    cls = "class Spec:\n    width: int = 4\n\n\nclass Other:\n    pass\n"
    assert _provides(tmp_path, "Spec", "from .shapes import Other as Spec, Spec\n",
                     shapes=cls)
    # No match: reversed, the module keeps ``Other`` under the name.
    assert not _provides(tmp_path, "Spec", "from .shapes import Spec, Other as Spec\n",
                         shapes=cls)


def test_the_last_import_binding_the_name_is_the_one_python_keeps(tmp_path) -> None:
    """#22: two imports bind the name; Python keeps the later one, so the lookup
    follows that one (here, only the later module defines the class)."""
    cls = "class Spec:\n    width: int = 4\n"
    gone = "class Other:\n    pass\n"
    assert _provides(tmp_path, "Spec",
                     "from .old import Spec\nfrom .shapes import Spec\n",
                     old=gone, shapes=cls)
    # No match: reversed, the later import leads where the class is not.
    assert not _provides(tmp_path, "Spec",
                         "from .shapes import Spec\nfrom .old import Spec\n",
                         old=gone, shapes=cls)
    # A later star import that does not export the name leaves the earlier binding.
    assert _provides(tmp_path, "Spec",
                     "from .shapes import Spec\nfrom .old import *\n", old=gone, shapes=cls)


def test_an_import_under_a_condition_counts_and_one_for_type_checkers_does_not(
        tmp_path) -> None:
    """#22: ``try: from .fast import Spec`` / ``except ImportError: from .shapes import
    Spec`` provides the class through whichever branch resolves; an import under
    ``if TYPE_CHECKING:`` never runs, so it provides nothing."""
    cls = "class Spec:\n    width: int = 4\n"
    fallback = ("try:\n    from .fast import Spec\nexcept ImportError:\n"
                "    from .shapes import Spec\n")
    assert _provides(tmp_path, "Spec", fallback, shapes=cls)
    assert _provides(tmp_path, "Spec", "import sys\nif sys.version_info >= (3, 11):\n"
                     "    from .shapes import Spec\n", shapes=cls)
    checking = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n" \
               "    from .shapes import Spec\n"
    assert not _provides(tmp_path, "Spec", checking, shapes=cls)
    assert not _provides(tmp_path, "Spec", checking.replace("if TYPE_CHECKING",
                                                            "if typing.TYPE_CHECKING"),
                         shapes=cls)
    # Its else branch does run.
    assert _provides(tmp_path, "Spec", checking + "else:\n    from .shapes import Spec\n",
                     shapes=cls)


def _found_in(files: dict[str, str], name: str = "Spec", *,
              unloaded: tuple[str, ...] = ()) -> bool:
    """Whether pkg/proto.py provides ``name`` among ``files`` (``unloaded``: paths in the
    tree whose text was not loaded, as a blob over the size cap)."""
    paths = frozenset({"pkg/__init__.py", *files, *unloaded})
    tree = Tree(commit="c" * 40, paths=paths, files={"pkg/__init__.py": "", **files})
    return upstream.provided(tree, "pkg/proto.py", name) is not None


def test_a_chain_of_star_imports_counts_toward_the_bound_and_a_cycle_ends() -> None:
    """#22: star imports are followed as far as named ones (three hops, not four), and
    two modules star-importing each other end the lookup instead of recursing."""
    cls = "class Spec:\n    width: int = 4\n"

    def chain(hops: int) -> dict[str, str]:
        names = ["proto", *(f"hop{k}" for k in range(1, hops + 1))]
        files = {f"pkg/{a}.py": f"from .{b} import *\n" for a, b in itertools.pairwise(names)}
        return {**files, f"pkg/{names[-1]}.py": cls}

    assert _found_in(chain(3)) and not _found_in(chain(4))
    assert not _found_in({"pkg/proto.py": "from .loop import *\n",
                          "pkg/loop.py": "from .proto import *\n"})


def test_an_import_under_any_other_condition_counts() -> None:
    """#22: only a test of ``TYPE_CHECKING`` itself hides an import; a flag by another
    name, bare or as an attribute, is a run-time condition like any other."""
    cls = "class Spec:\n    width: int = 4\n"
    for test in ("HAVE_FAST", "flags.HAVE_FAST"):
        proto = ("import types\nHAVE_FAST = True\n"
                 "flags = types.SimpleNamespace(HAVE_FAST=True)\n"
                 f"if {test}:\n    from .shapes import Spec\n")
        assert _found_in({"pkg/proto.py": proto, "pkg/shapes.py": cls}), test


def test_what_a_star_import_exports_is_read_from_assignments_to_all_only() -> None:
    """#22: ``__all__`` decides, however it is assigned (annotated too); other module
    names holding lists, attribute assignments, and entries that are not strings do not
    stand for it; a computed ``__all__`` is not evaluated and the public names are
    assumed; a module that does not parse or was not loaded exports nothing."""
    cls = "class Spec:\n    width: int = 4\n"
    star = {"pkg/proto.py": "from .shapes import *\n"}
    assert _found_in({**star, "pkg/shapes.py": "__all__: list[str] = ['Spec']\n" + cls})
    assert not _found_in({**star, "pkg/shapes.py": "__all__: list[str] = ['Other']\n" + cls})
    assert _found_in({**star, "pkg/shapes.py": "NAMES = ['a', 'b']\n" + cls})
    assert _found_in({**star, "pkg/shapes.py": cls + "Spec.height = 2\n"})
    assert _found_in({**star, "pkg/shapes.py": "NAME = 'Spec'\n__all__ = [NAME, 'Spec']\n"
                      + cls})
    computed = "EXTRA: list[str] = []\n__all__ = ['Spec'] + EXTRA\n"
    assert _found_in({**star, "pkg/shapes.py": computed + cls})
    # No match: nothing to read.
    assert not _found_in({**star, "pkg/shapes.py": "class (\n"})
    assert not _found_in(star, unloaded=("pkg/shapes.py",))


def _width_of(files: dict[str, str]) -> object:
    """The default of ``width`` in the Spec that pkg/proto.py provides (None: none)."""
    paths = frozenset({"pkg/__init__.py", *files})
    tree = Tree(commit="c" * 40, paths=paths, files={"pkg/__init__.py": "", **files})
    found = upstream.provided(tree, "pkg/proto.py", "Spec")
    if found is None:
        return None
    return next(ast.literal_eval(st.value) for st in found.body
                if isinstance(st, ast.AnnAssign) and st.value is not None)


def test_the_binding_python_keeps_is_the_one_followed() -> None:
    """#22: the name is resolved as the module binds it, in source order: a later
    import rebinds the module's own class; a later import under a condition rebinds
    an earlier one when it leads to a definition; a class under a condition counts;
    a ``with`` body always runs, a loop or ``match`` body only maybe."""
    own = "class Spec:\n    width: int = 1\n"
    shapes = {"pkg/shapes.py": "class Spec:\n    width: int = 2\n",
              "pkg/fast.py": "class Spec:\n    width: int = 3\n"}
    assert _width_of({"pkg/proto.py": own + "from .shapes import Spec\n", **shapes}) == 2
    assert _width_of({"pkg/proto.py": "from .shapes import Spec\n" + own, **shapes}) == 1
    try_fast = "try:\n    from .fast import Spec\nexcept ImportError:\n    pass\n"
    assert _width_of({"pkg/proto.py": "from .shapes import Spec\n" + try_fast,
                      **shapes}) == 3
    # No match: a conditional binding before the last one that always runs is rebound.
    assert _width_of({"pkg/proto.py": try_fast + "from .shapes import Spec\n",
                      **shapes}) == 2
    # With none that always runs, the first conditional one that resolves wins, not the
    # last: the fallback of a ``try`` is passed over when the first import resolves.
    assert _width_of({"pkg/proto.py": try_fast.replace(
        "pass", "from .absent import Spec"), **shapes}) == 3
    # A conditional import that leads nowhere leaves the earlier binding in place.
    assert _width_of({"pkg/proto.py": own + try_fast.replace(".fast", ".absent"),
                      **shapes}) == 1
    assert _width_of({"pkg/proto.py": "import os\nif os.sep:\n" + own.replace(
        "\n    ", "\n        ").replace("class", "    class"), **shapes}) == 1
    ctx = "import contextlib\nwith contextlib.suppress(ImportError):\n"
    assert _width_of({"pkg/proto.py": "from .fast import Spec\n" + ctx
                      + "    from .shapes import Spec\n", **shapes}) == 2
    loop = "for _ in range(1):\n    from .shapes import Spec\n"
    assert _width_of({"pkg/proto.py": loop, **shapes}) == 2
    assert _width_of({"pkg/proto.py": own + loop.replace(".shapes", ".absent"),
                      **shapes}) == 1
    match = "import sys\nmatch sys.platform:\n    case _:\n        from .fast import Spec\n"
    assert _width_of({"pkg/proto.py": match, **shapes}) == 3
    # Nothing binds the name: not provided.
    assert _width_of({"pkg/proto.py": "from .shapes import Other\n", **shapes}) is None


def test_a_finally_body_and_the_else_of_type_checking_always_run() -> None:
    """#22: an import in a ``finally`` body, or in the ``else`` of ``if TYPE_CHECKING:``,
    runs whenever the module is imported: it rebinds a name an earlier conditional
    import bound, as an import at top level would."""
    shapes = {"pkg/shapes.py": "class Spec:\n    width: int = 2\n",
              "pkg/fast.py": "class Spec:\n    width: int = 3\n"}
    try_fast = "try:\n    from .fast import Spec\nexcept ImportError:\n    pass\n"
    final = "try:\n    import os\nfinally:\n    from .shapes import Spec\n"
    checking = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    pass\n"
                "else:\n    from .shapes import Spec\n")
    assert _width_of({"pkg/proto.py": try_fast + final, **shapes}) == 2
    assert _width_of({"pkg/proto.py": try_fast + checking, **shapes}) == 2
    # No match: a conditional import after them rebinds them in turn; the body of
    # ``if TYPE_CHECKING:`` never runs.
    assert _width_of({"pkg/proto.py": final + try_fast, **shapes}) == 3
    assert _width_of({"pkg/proto.py": checking + try_fast, **shapes}) == 3
    # A block that always runs inside one that runs under a condition stays conditional:
    # the ``with`` inside the ``try`` may not run, so the handler's import may rebind.
    inner = ("import contextlib\ntry:\n    with contextlib.suppress(KeyError):\n"
             "        from .fast import Spec\nexcept ImportError:\n    from .shapes import Spec\n")
    assert _width_of({"pkg/proto.py": inner, **shapes}) == 3
    assert _width_of({"pkg/proto.py": inner.replace(".fast", ".absent"), **shapes}) == 2
    assert _width_of({"pkg/proto.py": checking.replace("pass", "from .fast import Spec")
                      .replace("else:\n    from .shapes import Spec\n", "else:\n"
                               "    import os\n"), **shapes}) is None


def test_a_conditional_class_without_the_member_asked_leads_nowhere() -> None:
    """#22: of the bindings under a condition the first that leads to a definition of
    the dotted name is followed: an own class under ``if`` that lacks the member asked
    (``Spec.Knobs``) is passed over for a later conditional import whose class has it."""
    files = {"pkg/__init__.py": "",
             "pkg/shapes.py": "class Spec:\n    class Knobs:\n        width: int = 2\n",
             "pkg/proto.py": "import os\nif os.sep:\n    class Spec:\n        pass\n"
                             "else:\n    from .shapes import Spec\n"}
    tree = Tree(commit="c" * 40, paths=frozenset(files), files=files)
    found = upstream.provided(tree, "pkg/proto.py", "Spec.Knobs")
    assert isinstance(found, ast.ClassDef) and found.body and isinstance(
        found.body[0], ast.AnnAssign)
    # No match: with the member in the own class, that class is the first and is kept.
    files["pkg/proto.py"] = files["pkg/proto.py"].replace(
        "        pass\n", "        class Knobs:\n            pass\n")
    tree = Tree(commit="c" * 40, paths=frozenset(files), files=files)
    found = upstream.provided(tree, "pkg/proto.py", "Spec.Knobs")
    assert isinstance(found, ast.ClassDef) and isinstance(found.body[0], ast.Pass)


def test_an_import_past_the_chain_limit_still_rebinds_the_own_class() -> None:
    """#22: the fourth module of a re-export chain is not followed further, but an import
    there that names the class still binds it after the module's own class: Python keeps
    the imported one, so the own class is not what is provided (not checked instead)."""
    chain = {"pkg/proto.py": "from .hop1 import Spec\n", "pkg/hop1.py": "from .hop2 import Spec\n",
             "pkg/hop2.py": "from .hop3 import Spec\n",
             "pkg/shapes.py": "class Spec:\n    width: int = 2\n"}
    own = "class Spec:\n    width: int = 7\n"
    assert _width_of({**chain, "pkg/hop3.py": own + "from .shapes import Spec\n"}) is None
    # No match: the own class defined after the import is the one Python keeps.
    assert _width_of({**chain, "pkg/hop3.py": "from .shapes import Spec\n" + own}) == 7
    # One step shorter the import is followed to its class.
    short = {**chain, "pkg/proto.py": "from .hop2 import Spec\n"}
    assert _width_of({**short, "pkg/hop3.py": own + "from .shapes import Spec\n"}) == 2


def test_star_imports_between_many_modules_are_each_followed_once(monkeypatch) -> None:
    """#22: twelve modules that all star-import each other, none defining the name. Each
    (module, depth) is resolved once, so the modules asked what they export stay in
    proportion to modules times imports (3 depths x 12 x 12), not imports to the power
    of the depth (12 + 144 + 1,728 without the memo)."""
    body = "".join(f"from .m{i} import *\n" for i in range(12))
    files = {"pkg/__init__.py": "", "pkg/proto.py": body,
             **{f"pkg/m{i}.py": body + "x = 1\n" for i in range(12)}}
    asked: list[str] = []
    exports = upstream._exports

    def counting(tree: Tree, file: str, name: str) -> bool:
        asked.append(file)
        return exports(tree, file, name)

    monkeypatch.setattr(upstream, "_exports", counting)
    tree = Tree(commit="c" * 40, paths=frozenset(files), files=files)
    assert upstream.provided(tree, "pkg/proto.py", "Spec") is None
    assert 12 <= len(asked) <= 3 * 12 * 12
    # The memo changes nothing found: one module defining it is reached the same way.
    files["pkg/m7.py"] += "class Spec:\n    pass\n"
    tree = Tree(commit="c" * 40, paths=frozenset(files), files=files)
    found = upstream.provided(tree, "pkg/proto.py", "Spec")
    assert isinstance(found, ast.ClassDef) and found.name == "Spec"


# --- the installed torch (S-2 named APIs, S-4 public alternatives) ----------------------------

def _fake_torch(tmp_path):
    from agentops.scout import installed

    root = tmp_path / "site" / "torch"
    (root / "distributed" / "tensor").mkdir(parents=True)
    (root / "_inductor").mkdir()
    (root / "version.py").write_text("__version__ = '2.99.0.dev20260301'\n", "utf-8")
    (root / "__init__.py").write_text("", "utf-8")
    (root / "distributed" / "tensor" / "__init__.py").write_text(
        "class StridedShard:\n    pass\n", "utf-8")
    (root / "distributed" / "tensor" / "_dtensor_spec.py").write_text(
        "class DTensorSpec:\n    pass\n", "utf-8")
    (root / "_inductor" / "sched.py").write_text("def _move_overlap_nodes(g):\n    pass\n",
                                                 "utf-8")
    return installed.index(root, "torch")


def test_installed_torch_index(tmp_path) -> None:
    idx = _fake_torch(tmp_path)
    assert idx.version == "2.99.0.dev20260301"
    assert idx.defs["StridedShard"] == ("torch.distributed.tensor",)
    assert idx.public_modules("DTensorSpec") == ()  # only in a private module
    assert idx.public_modules("_move_overlap_nodes") == ()


def test_waiting_todo_names_an_api_the_installed_torch_has(tmp_path) -> None:
    import dataclasses

    target = _target(tmp_path)
    src = ("# TODO: remove this fallback once the nightly includes _move_overlap_nodes.\n"
           "# TODO: use `FancyThing` someday\n"  # waits for nothing: not looked up
           "x = 1\n")
    inp = dataclasses.replace(inputs(target, {"sub/f.py": src}), torch=_fake_torch(tmp_path))
    found, _ = todos.collect(inp)
    assert [t.api_hits for t in found] == [
        (("_move_overlap_nodes", "torch._inductor.sched"),), ()]
    assert todos.api_names("blocked until `torch.foo.BarBaz` and _qux_x land") == [
        "BarBaz", "_qux_x"]


def test_private_api_public_alternative(tmp_path) -> None:
    import dataclasses

    target = _target(tmp_path, "private_api: {names: [_StridedShard, DTensorSpec], "
                               "private_import_roots: [torch]}\n")
    src = ("from torch.distributed.tensor.placement_types import _StridedShard\n"
           "from torch.distributed.tensor._dtensor_spec import DTensorSpec\n")
    inp = dataclasses.replace(inputs(target, {"sub/x.py": src}), torch=_fake_torch(tmp_path))
    uses = {u.name: u.public_alternative for u in debt.private_api_uses(inp)}
    assert uses == {"_StridedShard": "torch.distributed.tensor.StridedShard",
                    "DTensorSpec": ""}


def test_field_moved_between_fragile_classes_and_supported_models(tmp_path) -> None:
    target = _target(tmp_path, "models_dir: core/models\nper_model_folders: true\n"
                               "fragile_surfaces: {classes: [{name: Par, file: core/c.py}, "
                               "{name: Comp, file: core/c.py}]}\n")
    base = {"core/c.py": "class Par:\n    async_tp: bool = False\nclass Comp:\n    x: int = 0\n",
            "core/models/a/m.py": ""}
    head = {"core/c.py": "class Par:\n    pass\nclass Comp:\n    x: int = 0\n"
                         "    async_tp: bool = False\n",
            "core/models/a/m.py": "", "core/models/b/m.py": "", "core/models/c/m.py": "",
            "sub/c/model.py": "def f(cfg):\n    return cfg.compile.async_tp\n"}
    inp = inputs(target, head, base)
    changes = {c.symbol: c for c in upstream.fragile_changes(inp)}
    moved = changes["Par.async_tp"]
    assert (moved.change, moved.uses) == ("field moved to Comp.async_tp",
                                          ("sub/c/model.py:2",))
    assert moved.severity == "should-fix"
    assert "Comp.async_tp" not in changes  # a move is one change, not an add and a remove
    assert upstream.new_models(inp) == ["b"]  # "c" already has sub/c/


CKPT_BASE = """\
class BaseManager:
    class Config:
        folder: str = ""


class Manager(BaseManager):
    class Config(BaseManager.Config):
        async_mode: bool = False


class Other:
    class Config:
        folder: str = ""


class Trainer:
    class Config:
        checkpoint: Manager.Config = None
"""


def _retyped(tmp_path, new_type: str):
    target = _target(tmp_path, "fragile_surfaces: {classes: "
                               "[{name: Trainer.Config, file: core/t.py}]}\n")
    head = {"core/t.py": CKPT_BASE.replace("checkpoint: Manager.Config",
                                           f"checkpoint: {new_type}"),
            "sub/cfg.py": "from core.t import Manager, Trainer\n\n"
                          "CFG = Trainer.Config(checkpoint=Manager.Config(folder='x'))\n"}
    return {c.symbol: c for c in upstream.fragile_changes(
        inputs(target, head, {"core/t.py": CKPT_BASE}))}


def test_field_widened_to_a_base_class_is_not_an_action(tmp_path) -> None:
    # (#15) The sub-project passes Manager.Config; the field now takes its base's Config
    # (or that, or None), which still accepts it: no use to update, FYI at most.
    for n, new in enumerate(("BaseManager.Config", "BaseManager.Config | None")):
        (tmp_path / str(n)).mkdir()
        ch = _retyped(tmp_path / str(n), new)["Trainer.Config.checkpoint"]
        assert ch.change == f"field retyped: Manager.Config -> {new}" and ch.uses == ()


def _widened_with_a_read(tmp_path, member: str):
    """Trainer.Config.checkpoint widened to BaseManager.Config; the sub-project reads
    ``cfg.checkpoint.<member>``."""
    target = _target(tmp_path, "fragile_surfaces: {classes: "
                               "[{name: Trainer.Config, file: core/t.py}]}\n")
    head = {"core/t.py": CKPT_BASE.replace("checkpoint: Manager.Config",
                                           "checkpoint: BaseManager.Config"),
            "sub/run.py": f"def run(cfg):\n    return cfg.checkpoint.{member}\n"}
    [ch] = upstream.fragile_changes(inputs(target, head, {"core/t.py": CKPT_BASE}))
    return ch


def test_widened_field_the_sub_project_reads_is_still_an_action(tmp_path) -> None:
    # A read of a member only Manager.Config has may now meet a plain BaseManager.Config.
    assert _widened_with_a_read(tmp_path, "async_mode").uses == ("sub/run.py:2",)


def test_field_retyped_to_an_unrelated_class_is_still_an_action(tmp_path) -> None:
    ch = _retyped(tmp_path, "Other.Config")["Trainer.Config.checkpoint"]
    assert ch.change == "field retyped: Manager.Config -> Other.Config"
    assert ch.uses == ("sub/cfg.py:3",) and ch.severity == "should-fix"


def test_widened_recognises_bases_and_optional_only() -> None:
    from agentops.scout.analyses import classindex

    idx = classindex.ClassIndex({"core/t.py": CKPT_BASE})
    assert upstream.widened("Manager.Config", "BaseManager.Config", idx)
    assert upstream.widened("int", "int | None", idx)
    assert upstream.widened("list[Manager.Config]", "list[BaseManager.Config]", idx)
    assert not upstream.widened("BaseManager.Config", "Manager.Config", idx)  # narrower
    assert not upstream.widened("int | None", "int", idx)
    assert not upstream.widened("Manager.Config", "Other.Config", idx)
    assert not upstream.widened("int", "str", idx)


def test_private_api_of_another_upstream_is_not_checked_against_torch(tmp_path) -> None:
    # (#15) A vLLM private name is never given a torch "public alternative", and the
    # report names the package it did not check, not "torch".
    import dataclasses

    from agentops.scout.itemize import debt as debt_items

    target = _target(tmp_path, "private_api: {names: [_StridedShard], "
                               "private_import_roots: [vllm, torch]}\n")
    src = "from vllm.distributed._shard import _StridedShard\n"
    inp = dataclasses.replace(inputs(target, {"sub/x.py": src}), torch=_fake_torch(tmp_path))
    [use] = debt.private_api_uses(inp)
    assert use.public_alternative == ""  # torch has StridedShard, but this is vLLM's
    [item] = debt_items._private(inp, {"private_api_uses": [use]})
    assert item.title.endswith("public alternative not checked (no installed vllm was "
                               "indexed)")
    assert "torch" not in item.title


def test_widened_field_read_only_through_members_the_base_has(tmp_path) -> None:
    # (#15) `cfg.checkpoint.folder` exists on BaseManager.Config too: not at risk; a read
    # of `async_mode`, which only Manager.Config has, is.
    assert _widened_with_a_read(tmp_path, "folder").uses == ()


def test_a_configured_drift_class_that_is_gone_is_not_checked_not_an_action(tmp_path) -> None:
    """#22 (S-7): a `config_drift` pair naming a class that is not there at HEAD (moved,
    renamed, or a draft written at a later commit) says "not checked (why)" in the All
    Clear section; it is no P0 action (no code breaks)."""
    from agentops.scout.itemize import clear, debt

    target = _target(tmp_path, DRIFT)
    core = ("class Base:\n    class Config:\n        a: int = 1\n"
            "class Compile:\n    mode: str = 'x'\n")
    sub = "def convert(cfg):\n    return dict(a=cfg.a)\n"  # MyCompile is gone
    inp = inputs(target, {"core/base.py": core, "sub/conv.py": sub},
                 {"core/base.py": core, "sub/conv.py": sub})
    res = {"config_drift": upstream.config_drift(inp), "lossy_config_copies": []}
    assert [d.severity for d in res["config_drift"]] == ["not checked"]
    assert debt._drift(res) == []
    [line] = clear._drift(inp, res)
    assert line[1].startswith("Config drift: not checked: `MyCompile` (sub/conv.py)")
    # No match: with the class there, nothing is "not checked" and all is clear.
    sub_ok = sub + "class MyCompile(Compile):\n    mode: str = 'x'\n"
    (tmp_path / "b").mkdir()
    inp = inputs(_target(tmp_path / "b", DRIFT), {"core/base.py": core, "sub/conv.py": sub_ok},
                 {"core/base.py": core, "sub/conv.py": sub_ok})
    res = {"config_drift": upstream.config_drift(inp), "lossy_config_copies": []}
    [line] = clear._drift(inp, res)
    assert "handle every field" in line[1]


def test_from_module_resolves_relative_imports_as_python_does() -> None:
    """One reading of ``from <dots><module> import`` for every analysis: the dots count
    from the importer's package (a package's ``__init__`` is its own package), and dots
    above the repository's top name nothing."""
    from agentops.scout.analyses import pysource as ps

    assert ps.from_module("a/b/m.py", 0, "x.y") == "x.y"
    assert ps.from_module("a/b/m.py", 1, "c") == "a.b.c"
    assert ps.from_module("a/b/m.py", 1, None) == "a.b"
    assert ps.from_module("a/b/__init__.py", 1, "c") == "a.b.c"
    assert ps.from_module("a/b/m.py", 2, "c") == "a.c"
    assert ps.from_module("a/b/m.py", 3, "c") == "c"
    assert ps.from_module("m.py", 1, None) == ""
    assert ps.from_module("a/b/m.py", 4, "c") is None
    assert ps.from_module("m.py", 2, "c") is None


def test_relative_imports_above_the_top_name_nothing_in_every_reader() -> None:
    """coreindex, ci and bodydrift read relative imports through ``from_module``: an
    import whose dots climb above the repository's top binds nothing (Python raises
    ImportError), where their own copies used to read a prefix of the package."""
    from types import SimpleNamespace

    from agentops.scout.analyses import bodydrift, ci, coreindex
    from agentops.scout.analyses import pysource as ps

    files = {"pkg/sub/m.py": "from ..util import Helper\nfrom ....util import Other\n",
             "pkg/util.py": "class Helper:\n    pass\nclass Other:\n    pass\n"}
    idx = coreindex.CoreIndex(files, set(files))
    assert idx.module("pkg/sub/m.py").imports == {"Helper": ("pkg.util", "Helper")}

    assert ci._absolute("..helpers", "tests/unit/test_a.py") == "tests.helpers"
    assert ci._absolute("...helpers", "tests/unit/test_a.py") == "helpers"
    assert ci._absolute("....helpers", "tests/unit/test_a.py") is None

    head = SimpleNamespace(paths=set(files), text=files.get)
    inp = SimpleNamespace(head=head)
    mod = ps.parse(files["pkg/sub/m.py"])
    found = bodydrift._relative_class(inp, mod, "pkg/sub/m.py", "Helper")
    assert found is not None and found.name == "Helper"
    assert bodydrift._relative_class(inp, mod, "pkg/sub/m.py", "Other") is None


def test_place_file_and_line_split_at_the_last_colon() -> None:
    """Item builders read the file and the line of a ``file:line`` place with one pair of
    helpers; only the last colon starts the line."""
    from agentops.scout.itemize.common import place_file, place_line

    assert place_file("pkg/mod.py:41") == "pkg/mod.py"
    assert place_line("pkg/mod.py:41") == "41"
    assert place_file("odd:dir/mod.py:7") == "odd:dir/mod.py"
    assert place_line("odd:dir/mod.py:7") == "7"


def test_the_doc_analyses_parse_no_file_past_the_parse_cap() -> None:
    """A text read as Python that is not a ``.py`` file of the tree (a doc, a script)
    keeps the cap the tree keeps for Python files, ``gitrepo.MAX_PYTHON_CHARS``."""
    from agentops.scout import gitrepo
    from agentops.scout.analyses import docs

    small = 'import argparse\np = argparse.ArgumentParser()\np.add_argument("--zest")\n'
    big = small.replace("zest", "gusto") + "#" * gitrepo.MAX_PYTHON_CHARS + "\n"
    assert docs.argparse_flags({"a.md": small, "b.md": big}) == {"--zest"}
    assert docs.argparse_flags({0: small, 1: big}) == {"--zest"}
    at = big[:gitrepo.MAX_PYTHON_CHARS - 1] + "\n"  # at the cap: read
    assert "--gusto" in docs.argparse_flags({"b.md": at})


def test_assignments_imports_and_del_rebind_the_name_as_python_does() -> None:
    """#22: the module's binding of the name is read from every statement that binds it
    at import time, not only imports, classes and functions: ``del`` and ``import m as
    Spec`` take the class away, a plain value does too, an alias of another name leads
    where that name does, and a value made from the class itself keeps it."""
    own = "class Spec:\n    width: int = 1\n"
    shapes = {"pkg/shapes.py": "class Spec:\n    width: int = 2\n",
              "pkg/fast.py": "class Spec:\n    width: int = 3\n"}
    assert _width_of({"pkg/proto.py": own + "del Spec\n", **shapes}) is None
    assert _width_of({"pkg/proto.py": own + "import pkg.fast as Spec\n", **shapes}) is None
    assert _width_of({"pkg/proto.py": own + "Spec = None\n", **shapes}) is None
    assert _width_of({"pkg/proto.py": own + "Spec: type = make()\n", **shapes}) is None
    alias = "from .fast import Spec as Quick\n"
    assert _width_of({"pkg/proto.py": own + alias + "Spec = Quick\n", **shapes}) == 3
    # The module a name is bound to still provides its classes (``Spec.Spec``).
    paths = frozenset({"pkg/__init__.py", "pkg/proto.py", *shapes})
    files = {"pkg/__init__.py": "", "pkg/proto.py": own + "import pkg.fast as Spec\n",
             **shapes}
    found = upstream.provided(Tree(commit="c" * 40, paths=paths, files=files),
                              "pkg/proto.py", "Spec.Spec")
    assert isinstance(found, ast.ClassDef)
    # No match: a value made from the class (a wrapper, ``+=``), a ``del`` or an
    # assignment of another name, one before the class, or under a condition that
    # leads nowhere leave the class in place.
    for after in ("Spec = register(Spec)\n", "Spec += ()\n", "del Other\n",
                  "Other = None\n", "try:\n    Spec = None\nexcept NameError:\n    pass\n"):
        assert _width_of({"pkg/proto.py": own + after, **shapes}) == 1, after
    assert _width_of({"pkg/proto.py": "Spec = None\n" + own, **shapes}) == 1
    for after in ("Spec.width = 5\n", "del Spec.width\n", "Spec.extra: int = 2\n"):
        assert _width_of({"pkg/proto.py": own + after, **shapes}) == 1, after
    assert _width_of({"pkg/proto.py": own + "Spec, Other = None, None\n", **shapes}) is None


def test_find_returns_the_definition_python_keeps() -> None:
    """``find`` reads a dotted name as Python binds it: of two definitions of a part in
    one body the later one, at every level; a property's setter is no new member."""
    from agentops.scout.analyses import pysource as ps

    mod = ps.parse(
        "from typing import overload\n\n\n"
        "class Box:\n    class Lid:\n        def shut(self): ...\n"
        "    class Lid:\n        def shut(self, hard): ...\n\n"
        "    @overload\n    def fill(self, n: int) -> int: ...\n"
        "    def fill(self, n, m=0):\n        return n\n\n"
        "    @property\n    def size(self):\n        return 1\n\n"
        "    @size.setter\n    def size(self, value):\n        pass\n\n\n"
        "def pack(a):\n    pass\n\n\ndef pack(a, b):\n    pass\n")

    def params(dotted: str) -> list[str]:
        node = ps.find(mod, dotted)
        assert isinstance(node, ast.FunctionDef), dotted
        return [a.arg for a in node.args.args]

    assert params("pack") == ["a", "b"]
    assert params("Box.Lid.shut") == ["self", "hard"]
    assert params("Box.fill") == ["self", "n", "m"]
    assert params("Box.size") == ["self"]
    assert ps.find(mod, "Box.absent") is None and ps.find(None, "Box") is None


def test_find_passes_over_accessors_of_the_same_name_only() -> None:
    """pysource.find (review rev41b): a ``@x.setter``/``.deleter`` def of ``x`` adds to
    the getter and is passed over; a decorator on another name, a plain call decorator
    or a class of the same name after it is a redefinition, the last one kept."""
    from agentops.scout.analyses import pysource

    src = textwrap.dedent('''\
        class C:
            @property
            def x(self):
                return 1

            @x.setter
            def x(self, v):
                pass

            @x.deleter
            def x(self):
                pass

            @y.setter
            def y(self, v):
                pass

            @other.setter
            def y(self, v):
                return 2

            @wrap
            def z(self):
                pass

            @wrap.setter
            def z(self, v):
                return 3

            def w(self):
                pass

            @w.register
            def w(self):
                return 4

            def v(self):
                pass

            @ns.v.setter
            def v(self):
                return 5
        ''')
    mod = ast.parse(src)
    assert pysource.find(mod, "C.x").lineno == 3
    assert pysource.find(mod, "C.y").lineno == 19
    assert pysource.find(mod, "C.z").lineno == 27
    assert pysource.find(mod, "C.w").lineno == 34
    assert pysource.find(mod, "C.v").lineno == 41
    first = ast.parse("@x.setter\ndef x(v):\n    pass\n")
    assert pysource.find(first, "x").lineno == 2
    # A plain decorator on a later def of the name: a redefinition.
    later = ast.parse("def q():\n    pass\n\n\n@wrap\ndef q():\n    return 1\n")
    assert pysource.find(later, "q").lineno == 6


def test_the_python_cap_takes_the_cap_and_not_one_more() -> None:
    from agentops.scout import gitrepo

    at = "x = 1" + " " * (gitrepo.MAX_PYTHON_CHARS - 5)
    assert gitrepo.python_over_cap("m.py", at) is None
    assert gitrepo.python_over_cap("m.py", at + " ") is not None
    assert gitrepo.python_over_cap("m.md", at + " ") is None  # other files: the byte cap




def _provided_width(files: dict[str, str], dotted: str) -> object:
    """The default of ``width`` in the class ``dotted`` that pkg/proto.py provides."""
    files = {"pkg/__init__.py": "", **files}
    tree = Tree(commit="c" * 40, paths=frozenset(files), files=files)
    found = upstream.provided(tree, "pkg/proto.py", dotted)
    if found is None:
        return None
    return next(ast.literal_eval(st.value) for st in found.body
                if isinstance(st, ast.AnnAssign) and st.value is not None)


def test_a_dotted_import_binds_its_first_part_and_an_alias_the_whole_module() -> None:
    """upstream (review rev41b): ``import pkg.fast`` binds ``pkg`` (the package, whose
    own classes ``pkg.Spec`` reaches), not ``fast``; ``import pkg.fast as F`` binds ``F``
    to the submodule itself."""
    shapes = {"pkg/__init__.py": "class Spec:\n    width: int = 1\n",
              "pkg/fast.py": "class Spec:\n    width: int = 3\n"}
    plain = {**shapes, "pkg/proto.py": "import pkg.fast\n"}
    assert _provided_width(plain, "pkg.Spec") == 1
    assert _provided_width({**shapes, "pkg/proto.py": "import pkg.fast as F\n"}, "F.Spec") == 3
    # ``fast`` is not bound by the plain import: a class of that name before it stays.
    own = "class fast:\n    class Spec:\n        width: int = 7\n\n\nimport pkg.fast\n"
    assert _provided_width({**shapes, "pkg/proto.py": own}, "fast.Spec") == 7


def test_an_alias_chain_is_followed_three_names_deep_and_not_four() -> None:
    """upstream (review rev41b): ``Spec = B``, ``B = C`` ... leads where the last name
    does, read again for each alias (chained alias reads), up to ``_MAX_REEXPORTS``."""
    base = "class Real:\n    width: int = 4\n\n\n"
    three = base + "C = Real\nB = C\nSpec = B\n"
    four = base + "D = Real\nC = D\nB = C\nSpec = B\n"
    assert _provided_width({"pkg/proto.py": three}, "Spec") == 4
    assert _provided_width({"pkg/proto.py": four}, "Spec") is None
    # Unpacking into several names is no alias of the one named.
    assert _provided_width({"pkg/proto.py": base + "Spec, Other = Real\n"}, "Spec") is None
    # A chain that leads to a name bound to no class leads nowhere.
    assert _provided_width({"pkg/proto.py": base + "C = 5\nB = C\nSpec = B\n"}, "Spec") is None
    assert upstream._MAX_REEXPORTS == 3


def test_find_passes_over_a_getter_of_the_same_name_and_keeps_a_decorated_class() -> None:
    """pysource.find (review rev41b): ``@x.getter`` adds to the property as ``.setter``
    does, so the plain ``x`` asked for is the first def; a class is never an accessor,
    whatever decorates it."""
    from agentops.scout.analyses import pysource

    getter = ast.parse("class C:\n    @property\n    def x(self):\n        return 1\n\n"
                       "    @x.getter\n    def x(self):\n        return 2\n")
    assert pysource.find(getter, "C.x").lineno == 3
    cls = ast.parse("def x():\n    pass\n\n\n@x.setter\nclass x:\n    pass\n")
    found = pysource.find(cls, "x")
    assert isinstance(found, ast.ClassDef) and found.lineno == 6


def test_module_imports_keep_the_last_alias_and_the_depth_bound() -> None:
    """upstream (review rev41b): of ``import a as F, b as F`` the last binds ``F``; a
    chain of module imports (``M.N.O.Spec``) is followed three modules deep, not four."""
    shapes = {"pkg/fast.py": "class Spec:\n    width: int = 3\n",
              "pkg/slow.py": "class Spec:\n    width: int = 5\n"}
    both = {**shapes, "pkg/proto.py": "import pkg.fast as F, pkg.slow as F\n"}
    assert _provided_width(both, "F.Spec") == 5
    chain = {"pkg/proto.py": "import pkg.m1 as M\n", "pkg/m1.py": "import pkg.m2 as N\n",
             "pkg/m2.py": "import pkg.m3 as O\n",
             "pkg/m3.py": "import pkg.m4 as P\n\n\nclass Spec:\n    width: int = 6\n",
             "pkg/m4.py": "class Spec:\n    width: int = 8\n"}
    assert _provided_width(chain, "M.N.O.Spec") == 6
    assert _provided_width(chain, "M.N.O.P.Spec") is None
