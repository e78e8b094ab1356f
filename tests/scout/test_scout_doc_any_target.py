"""Docs, for any target (#15, S-5): settings the docs name are checked against the
config dataclasses, values included (Literal, type aliases, Enum, bool); each wrong
setting names its fix; environment variables count only when the script reads them;
folder#section links; settings that cannot be resolved are "not checked", never
"current". Fixture repositories written here, match and no-match per claim kind."""

from __future__ import annotations

import json

from agentops.scout.analyses import docclaims, docs
from scripts import scout as cli
from tests.scout import minirepo

TARGET = """\
docs: [sub/README.md]
doc_config_roots: [{name: Root, file: sub/cfg.py}]
"""
CFG = """\
    from dataclasses import dataclass, field
    from enum import Enum
    from typing import Literal

    import sub.netcfg as nc

    Precision = Literal["bf16", "fp32"]


    class Backend(Enum):
        NCCL = "nccl"
        GLOO = "gloo"


    @dataclass
    class Loop:
        steps: int = 10
        prompts: int = 4
        lag: int = 1
        window: float | None = 0.5
        backend: Backend = Backend.NCCL
        precision: Precision = "bf16"
        verbose: bool = False

        @property
        def buffer(self) -> int:
            return (self.lag + 1) * self.prompts

        @property
        def staleness(self) -> int:
            return self.buffer // self.prompts + (1 if self.window else 0)


    @dataclass
    class Comm:
        async_tp: bool = False


    @dataclass
    class Root:
        loop: Loop = field(default_factory=Loop)
        comm: Comm = field(default_factory=Comm)
        net: nc.Net.Config = field(default_factory=nc.Net.Config)
        dump_folder: str = "out"
"""
NETCFG = """\
    from dataclasses import dataclass


    class Net:
        @dataclass
        class Config:
            port: int = 29500
"""
RUN_SH = """\
    #!/bin/bash
    # FAST=1 once made this quicker; nothing reads it now.
    MODE=${MODE:-train}
    python -m sub.train --mode "$MODE" "$@"
"""
TRAIN_PY = """\
    import os

    SEED = int(os.environ.get("SEED", "0"))
"""


def _refs(tmp_path, readme: str, *, target: str = TARGET, extra: dict | None = None
          ) -> list[str]:
    files = {"sub/cfg.py": CFG, "sub/netcfg.py": NETCFG, "sub/README.md": readme,
             "sub/run.sh": RUN_SH, "sub/train.py": TRAIN_PY, **(extra or {})}
    inp = minirepo.build(tmp_path, head=files, target=target)
    return [p.problem for p in docs.references(inp) if p.kind != "unchecked"]


# --- values: Literal through an alias, Enum, bool ------------------------------------------

def test_enum_value_must_be_a_member(tmp_path) -> None:
    assert _refs(tmp_path, "Use `--loop.backend mpi`.\n") == [
        "flag --loop.backend mpi: not a member of the enum; use one of NCCL, GLOO"]
    # Member names and values are both accepted.
    assert _refs(tmp_path / "ok", "Use `--loop.backend gloo` or `--loop.backend NCCL`.\n") == []


def test_literal_through_a_type_alias(tmp_path) -> None:
    assert _refs(tmp_path, "Use `--loop.precision fp16`.\n") == [
        "flag --loop.precision fp16: not one of 'bf16', 'fp32'; use one of them"]
    assert _refs(tmp_path / "ok", "Use `--loop.precision fp32`.\n") == []


def test_bool_value_is_checked_only_when_attached(tmp_path) -> None:
    assert _refs(tmp_path, "Use `--loop.verbose=maybe`.\n") == [
        "flag --loop.verbose maybe: not a boolean (the field is a bool)"]
    # A word after a bare boolean flag is the next argument, not its value.
    ok = "```bash\n./sub/run.sh --loop.verbose --loop.verbose=false extra\n```\n"
    assert _refs(tmp_path / "ok", ok) == []


def test_name_value_settings_with_a_wrong_value(tmp_path) -> None:
    got = _refs(tmp_path, "Set `precision=fp16`, `backend=mpi` and `verbose=true`.\n")
    assert got == [
        "`precision=fp16`: 'fp16' is not one of 'bf16', 'fp32'; use one of them "
        "(precision at Loop in sub/cfg.py:22)",
        "`backend=mpi`: 'mpi' is not a member of the enum; use one of NCCL, GLOO "
        "(backend at Loop in sub/cfg.py:21)"]
    assert _refs(tmp_path / "ok", "Set `precision=\"fp32\"` and `backend=gloo`.\n") == []


# --- settable fields and their fixes -------------------------------------------------------

def test_property_fix_names_the_fields_it_is_computed_from(tmp_path) -> None:
    # staleness reads buffer (a property of lag and prompts) and window.
    assert _refs(tmp_path, "For a synchronous run set `staleness=0`.\n") == [
        "`staleness=0`: staleness is a read-only property (Loop in sub/cfg.py:30), not a "
        "setting one can give; set what it is computed from instead: `prompts`, `window`, "
        "`lag`"]
    assert _refs(tmp_path / "ok", "For a synchronous run set `lag=0`.\n") == []


def test_field_in_another_section_or_in_none(tmp_path) -> None:
    got = _refs(tmp_path, "Use `--loop.async_tp`, `--loop.max_steps 5` and "
                          "`--comm.async_tp`.\n")
    # max_steps only extends `steps`: a removed field, not a typo of a kept one.
    assert got == [
        "flag --loop.async_tp: loop has no field 'async_tp'; the field is --comm.async_tp",
        "flag --loop.max_steps: loop has no field 'max_steps'; no config field has that "
        "name: drop the flag"]


def test_config_type_behind_a_module_alias_resolves(tmp_path) -> None:
    # `net: nc.Net.Config`: the class is found behind the module alias.
    assert _refs(tmp_path, "Use `--net.ports 1`.\n") == [
        "flag --net.ports: net has no field 'ports'; use --net.port"]
    assert _refs(tmp_path / "ok", "Use `--net.port 1`.\n") == []


def test_backticked_config_member_with_a_near_name(tmp_path) -> None:
    inp = minirepo.build(tmp_path, head={"sub/cfg.py": CFG, "sub/netcfg.py": NETCFG,
                                         "sub/README.md": "See `Net.Config.ports`.\n"},
                         target=TARGET)
    claims = [c.problem for c in docclaims.check(inp, gaps={}, passes=[], runners=[])]
    assert claims == ["`Net.Config.ports`: Net.Config has no attribute 'ports'; use "
                      "`Net.Config.port`"]


# --- commands: environment variables read by the script -----------------------------------

def test_env_var_named_only_in_a_comment_is_not_read(tmp_path) -> None:
    got = _refs(tmp_path, "```bash\nFAST=1 ./sub/run.sh\nMOD=eval ./sub/run.sh\n"
                          "MODE=eval SEED=3 ./sub/run.sh\n```\n")
    # FAST: only in a comment; MOD: a near miss of MODE, which the fix names; MODE is
    # read by run.sh and SEED by the module it hands over to.
    assert got == [
        "FAST=… is set for sub/run.sh, which never reads FAST (nor sub/train.py)",
        "MOD=… is set for sub/run.sh, which never reads MOD (nor sub/train.py); it reads "
        "MODE: set MODE=…"]


def test_env_reads_in_shell_and_python() -> None:
    text = 'A=${B:-1}\necho "$C"\nx = os.environ["D"]\ny = os.getenv("E")\n# F=1\n'
    assert docs.env_reads(text) == {"B", "C", "D", "E"}


# --- section links into a folder's README --------------------------------------------------

def test_folder_link_with_a_section(tmp_path) -> None:
    guide = "# Guide\n\n## Setup\n"
    readme = "See [setup](./guide#setup), [install](./guide#install) and [x](./bare#y).\n"
    got = _refs(tmp_path, readme, extra={"sub/guide/README.md": guide,
                                         "sub/bare/notes.txt": "x\n"})
    # A folder without a README has no headings to check against: left alone.
    assert got == ["link ./guide#install: sub/guide/README.md has no section #install"]


# --- settings that cannot be resolved: "not checked", never "current" ----------------------

def _docs_section(tmp_path, capsys, target: str, readme: str) -> str:
    minirepo.build(tmp_path, head={"sub/cfg.py": CFG, "sub/netcfg.py": NETCFG,
                                   "sub/README.md": readme}, target=target)
    code = cli.main(["--config", str(tmp_path / "target.yaml"), "report", "--checkout",
                     str(tmp_path / "repo"), "--offline", "--torch", "none", "--date",
                     "2026-03-06", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    md = json.loads(out)["markdown"]
    return md.split("## Docs\n", 1)[1].split("\n## ", 1)[0].strip()


def test_unresolvable_settings_are_not_checked(tmp_path, capsys) -> None:
    readme = "Run with `--loop.steps 3`.\n"
    no_roots = _docs_section(tmp_path / "a", capsys, "docs: [sub/README.md]\n", readme)
    assert no_roots == ("- no inaccuracy in what was checked; not checked: 1 setting(s) "
                        "(`--loop.steps`): no doc_config_roots configured")
    absent = _docs_section(tmp_path / "b", capsys, "docs: [sub/README.md]\n"
                           "doc_config_roots: [{name: Gone, file: sub/gone.py}]\n", readme)
    assert absent.endswith("(`--loop.steps`): config class Gone not in the checkout")
    # Resolved and right: current.
    assert _docs_section(tmp_path / "c", capsys, TARGET, readme) == "- docs are current"


# --- attribute assignments on the config object in a doc's code (#22 defect 7) -------------

def test_config_attribute_assignments_are_checked_against_the_fields(tmp_path) -> None:
    readme = ("```python\nconfig.loop.step = 5\ncfg.comm.async_tp = True\n"
              "job_config.loop.buffer = 3\nconfig.loop.steps == 5\ncfg.loop.rounds = 2\n```\n")
    assert _refs(tmp_path, readme) == [
        "`config.loop.step = …`: loop has no field 'step'; use config.loop.steps",
        "`job_config.loop.buffer = …`: loop.buffer is a read-only property, not a "
        "settable field; set what it is computed from instead: `job_config.loop.prompts`, "
        "`job_config.loop.lag`",
        "`cfg.loop.rounds = …`: loop has no field 'rounds'; no config field has that "
        "name: drop the assignment"]


def test_config_assignments_that_fit_or_bind_their_own_object_are_left_alone(tmp_path
                                                                               ) -> None:
    readme = ("```python\nconfig.loop.steps = 5\nconfig.net.port = 1\n"
              "model_cfg = Other()\nmodel_cfg.heads = 8\n```\n"
              "Outside code: config.loop.stesp = 5\n")
    assert _refs(tmp_path, readme) == []


def test_config_assignments_without_roots_are_not_checked_never_current(tmp_path) -> None:
    inp = minirepo.build(tmp_path, head={"sub/README.md": "```python\ncfg.loop.steps = 5\n```\n",
                                         "sub/cfg.py": CFG}, target="docs: [sub/README.md]\n")
    got = [(p.kind, p.problem) for p in docs.references(inp)]
    assert got == [("unchecked", "cfg.loop.steps: no doc_config_roots configured")]
    inp = minirepo.build(tmp_path / "ok", head={"sub/README.md": "No code here.\n",
                                                "sub/cfg.py": CFG},
                         target="docs: [sub/README.md]\n")
    assert docs.references(inp) == []


# --- commands: a launched script the command cannot reach from where it runs -------------

CORE = {"core/__init__.py": "", "core/launch.py": "print(1)\n"}


def test_launched_script_only_in_another_folder(tmp_path) -> None:
    # A bare name found at a package top passes as a path; run by a command it must be
    # where the command runs.
    got = _refs(tmp_path, "```bash\nNGPU=2 python launch.py\n```\n", extra=CORE)
    assert got == ["runs launch.py, which is not at the repository root, beside the doc or "
                   "in sub (the repository has core/launch.py)"]
    # torchrun's options, with or without a value, come before the script.
    assert docs._launched(["torchrun", "--standalone", "--nnodes", "1", "launch.py", "-x"]) \
        == "launch.py"
    assert docs._launched(["torchrun", "--nnodes", "1", "-m", "core.launch"]) == ""


def test_launched_script_reachable_or_foreign_is_left_alone(tmp_path) -> None:
    # Beside the doc (sub/train.py) or after a `cd` into its folder: nothing to say.
    assert _refs(tmp_path / "a", "```bash\npython train.py\n```\n", extra=CORE) == []
    assert _refs(tmp_path / "b", "```bash\ncd core\npython launch.py\n```\n", extra=CORE) == []
