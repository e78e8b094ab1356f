"""S-3e coverage on small fixture repositories: settings one model is tested with and
another never is; settings core's tests exercise that the sub-project reads and never
tests (issue #9: the reviewer's pass-parity and untested-setting findings)."""

from __future__ import annotations

from agentops.scout.analyses import coverage, docs
from tests.scout import minirepo

TARGET = """\
doc_config_roots: [{name: Root, file: sub/cfg.py}]
coverage:
  core_integration_tests: [core/it.py]
  subproject_integration_tests: [sub/tests/it.py]
"""
CFG = """\
    from dataclasses import dataclass, field


    @dataclass
    class Compile:
        passes: list[str] = field(default_factory=list)
        backend: str = "x"


    @dataclass
    class Par:
        reshard: str = "default"
        name: str = ""


    @dataclass
    class Root:
        compile: Compile = field(default_factory=Compile)
        parallelism: Par = field(default_factory=Par)
"""
REGISTRY = "PASSES = {'bucket': 1, 'graph': 2, 'fuse': 3}\n"


def _defs(*tests: tuple[str, list[str], bool]) -> str:
    rows = [f"    OverrideDefinitions([{flags!r}], 'd', {name!r}, disabled={off}),"
            for name, flags, off in tests]
    return "TESTS = [\n" + "\n".join(rows) + "\n]\n"


def test_setting_one_model_is_tested_with_and_another_never_is(tmp_path) -> None:
    ours = _defs(("a1", ["--module sub.llama", "--compile.passes bucket,graph"], False),
                 ("a2", ["--module sub.llama", "--compile.backend y"], False),
                 ("b1", ["--module sub.dsv3", "--compile.passes bucket"], False),
                 ("b2", ["--module sub.dsv3", "--compile.passes fuse"], True))  # disabled
    inp = minirepo.build(tmp_path, target=TARGET, head={
        "sub/cfg.py": CFG, "sub/passes.py": REGISTRY, "sub/tests/it.py": ours,
        "core/it.py": ""})
    flags = docs.list_flags(inp)
    assert flags == {"--compile.passes"}  # list-valued; --compile.backend is not
    [p] = coverage.model_parity(inp, flags)
    assert (p.model, p.other, p.missing) == ("dsv3", "llama", ("--compile.passes graph",))


def test_setting_core_tests_and_the_sub_project_reads_but_never_tests(tmp_path) -> None:
    core = _defs(("reshard_always", ["--parallelism.reshard always"], False),
                 ("named", ["--parallelism.name x"], False))
    use = ("def f(cfg, parallelism, obj):\n    a = parallelism.reshard\n"
           "    return obj.name  # a `name` read through something else is not the setting\n")
    inp = minirepo.build(tmp_path, target=TARGET, head={
        "sub/cfg.py": CFG, "sub/use.py": use, "core/it.py": core,
        "sub/tests/it.py": _defs(("t", ["--compile.backend y"], False))})
    [u] = coverage.untested_settings(inp, docs.field_paths(inp))
    assert (u.flag, u.core_tests, u.reads) == ("--parallelism.reshard", ("reshard_always",),
                                                ("sub/use.py:2",))
    # Once a sub-project test sets it, nothing to say.
    inp2 = minirepo.build(tmp_path / "b", target=TARGET, head={
        "sub/cfg.py": CFG, "sub/use.py": use, "core/it.py": core,
        "sub/tests/it.py": _defs(("t", ["--parallelism.reshard always"], False))})
    assert coverage.untested_settings(inp2, docs.field_paths(inp2)) == []


def test_branches_selected_by_a_config_value_no_test_sets(tmp_path) -> None:
    """#22 defect 10: a branch on a config value (or flag) no test, registry or workflow
    of the sub-project sets is an Opportunity with file:line; one a test sets is not."""
    from agentops.scout.analyses import coverage as cov
    from agentops.scout.itemize import tests as test_items
    from tests.scout import minirepo

    code = '''\
def build(config, model):
    if config.compile.mode == "aot":
        model = 1
    if config.compile.mode == "jit":
        model = 2
    if config.training.fuse_heads:
        model = 3
    if config.training.offload:
        model = 4
    if model.ready:
        model = 5
    return model
'''
    test = ("def test_jit():\n    run('--compile.mode jit --training.offload')\n")
    inp = minirepo.build(tmp_path, head={"sub/build.py": code, "sub/tests/test_b.py": test})
    found = cov.untested_branches(inp)
    assert [(b.line, b.condition) for b in found] == [
        (2, "compile.mode == 'aot'"), (6, "training.fuse_heads")]
    res = {"coverage_gaps": [], "model_parity": [], "untested_settings": [],
           "passes_without_tests": [], "graph_passes": [], "configs_without_tests": [],
           "untested_branches": found}
    [item] = test_items._coverage(inp, res)
    assert item.kind == "opportunity"
    assert "`compile.mode == 'aot'` (build.py:2)" in item.title
    assert "`training.fuse_heads` (build.py:6)" in item.title


def test_a_components_own_config_branch_no_test_selects_is_found(tmp_path) -> None:
    """#22 defect 10: a component reads its own ``Config`` as ``config.x`` (two parts),
    and may normalise the value first (``.lower()``); a value no test, registry or
    workflow names is untested all the same. A plain object's attribute is no setting."""
    from agentops.scout.analyses import coverage as cov
    from tests.scout import minirepo

    code = '''\
class Manager:
    def __init__(self, config, model):
        if config.group == "gloo":
            self.pg = 1
        elif config.group == "mccl":
            self.pg = 2
        if config.method.lower() == "local_sgd":
            self.m = 3
        if model.kind == "fancy":
            self.k = 4
'''
    registry = "def ft():\n    return Manager.Config(group='gloo')\n"
    inp = minirepo.build(tmp_path, head={"sub/manager.py": code,
                                         "sub/config_registry.py": registry})
    assert [(b.line, b.condition) for b in cov.untested_branches(inp)] == [
        (5, "config.group == 'mccl'"), (7, "config.method == 'local_sgd'")]


def test_a_config_named_only_in_a_commented_out_test_case_runs_nowhere(tmp_path) -> None:
    # #22 untested configuration: a registry entry whose only test case was commented
    # out ("hanging in CI") is run by no test; a live case, or a trailing comment on a
    # live line, still counts as a use.
    registry = ("def sub_debug():\n    return 1\n\n\ndef sub_opt_in():\n    return 2\n\n\n"
                "def sub_flex():\n    return 3\n")
    tests = ("CASES = [\n"
             "    Case('sub_debug'),  # the default\n"
             "    # disabled: hangs in CI\n"
             "    # Case('sub_opt_in'),\n"
             "    Case('sub_flex'),\n"
             "]\n")
    inp = minirepo.build(tmp_path, head={"sub/config_registry.py": registry,
                                         "sub/tests/test_cases.py": tests})
    assert [(u.name, u.line) for u in coverage.configs_without_tests(inp)] == [
        ("sub_opt_in", 5)]
