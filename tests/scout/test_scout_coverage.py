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
