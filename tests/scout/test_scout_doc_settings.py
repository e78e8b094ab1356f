"""Settings named in docs must be settable (#15, "Docs, for any target"): a
``--section.field`` flag or a backticked ``Config.field`` that names a read-only
property or a derived ``field(init=False)`` is an error; a real field, a property with
a setter, and a method are not. Fixture repositories, match and no-match."""

from __future__ import annotations

from agentops.scout.analyses import docclaims, docs
from tests.scout import minirepo

TARGET = """\
docs: [sub/README.md]
doc_config_roots: [{name: Root, file: sub/cfg.py}]
"""
CFG = """\
    from dataclasses import dataclass, field


    @dataclass
    class Base:
        folder: str = "out"

        @property
        def log_dir(self) -> str:
            return self.folder + "/logs"


    @dataclass
    class Job(Base):
        steps: int = 1
        world: int = field(init=False, default=0)

        @property
        def total(self) -> int:
            return self.steps * 2

        @property
        def seed(self) -> int:
            return self._seed

        @seed.setter
        def seed(self, value: int) -> None:
            self._seed = value

        def build(self):
            return 1


    @dataclass
    class Root:
        job: Job = field(default_factory=Job)
"""


def _problems(tmp_path, readme: str) -> list[str]:
    inp = minirepo.build(tmp_path, head={"sub/cfg.py": CFG, "sub/README.md": readme},
                         target=TARGET)
    refs = [p.problem for p in docs.references(inp)]
    claims = [c.problem for c in docclaims.check(inp, gaps={}, passes=[], runners=[])]
    return refs + claims


def test_flag_naming_a_property_or_a_derived_field(tmp_path) -> None:
    got = _problems(tmp_path, "```bash\n./run.sh --job.total 4 --job.world 2 "
                              "--job.log_dir x\n```\n")
    # The fix names the fields a property reads (through the base class for log_dir).
    assert got == [
        "flag --job.total: job.total is a read-only property, not a settable field; set "
        "what it is computed from instead: `--job.steps`",
        "flag --job.world: job.world is derived (field(init=False)), not an input, not a "
        "settable field; drop it, or set the fields it is derived from",
        "flag --job.log_dir: job.log_dir is a read-only property, not a settable field; "
        "set what it is computed from instead: `--job.folder`"]


def test_flag_naming_a_field_is_fine(tmp_path) -> None:
    assert _problems(tmp_path, "Run with `--job.steps 10` or `--job.folder x`.\n") == []


def test_property_with_a_setter_is_settable_in_code_but_not_a_flag(tmp_path) -> None:
    assert _problems(tmp_path, "Assign `Job.seed` in your script.\n") == []
    assert _problems(tmp_path / "f", "Run with `--job.seed 3`.\n") == [
        "flag --job.seed: job has no field 'seed'; no config field has that name: drop the "
        "flag"]


def test_backticked_config_member(tmp_path) -> None:
    got = _problems(tmp_path, "Set `Job.total` to double the steps; `Job.steps` and "
                              "`Job.build()` are fine.\n")
    assert got == ["`Job.total` is a read-only property of Job, not a setting one can give; "
                   "set what it is computed from instead: `Job.steps`"]


# --- commands: environment variables and options; section links -----------------------

RUN_SH = """\
    #!/bin/bash
    NGPU=${NGPU:-8}
    torchrun --nproc_per_node=$NGPU -m sub.train "$@"
"""
TRAIN_PY = """\
    import os

    LOG_RANK = os.environ.get("LOG_RANK", "0")
"""
TOOL_PY = """\
    import argparse

    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int)
    p.add_argument("-o", "--out-dir")
"""


def _doc_problems(tmp_path, readme: str, extra: dict | None = None) -> list[tuple[str, str]]:
    files = {"sub/cfg.py": CFG, "sub/README.md": readme, "sub/run.sh": RUN_SH,
             "sub/train.py": TRAIN_PY, "sub/tool.py": TOOL_PY, **(extra or {})}
    inp = minirepo.build(tmp_path, head=files, target=TARGET)
    return [(p.kind, p.problem) for p in docs.references(inp)]


def test_env_var_the_script_never_reads(tmp_path) -> None:
    got = _doc_problems(tmp_path, "```bash\nNGPU=4 LOG_RANK=0,1 CUDA_VISIBLE_DEVICES=0 "
                                  "FAST_MODE=1 ./sub/run.sh\n```\n")
    # NGPU: read by run.sh; LOG_RANK: by the module it hands over to; CUDA_…: a tool's.
    assert got == [("command", "FAST_MODE=… is set for sub/run.sh, which never reads "
                               "FAST_MODE (nor sub/train.py)")]


def test_option_the_scripts_parser_does_not_define(tmp_path) -> None:
    got = _doc_problems(tmp_path, "Run `python sub/tool.py --steps 3 --out-dir x` or "
                                  "`python -m sub.tool --step 3`.\n")
    assert got == [("command", "flag --step is not an option of sub/tool.py's argument "
                               "parser")]


def test_section_links(tmp_path) -> None:
    readme = ("# Tool\n\n## Usage\n\nSee [usage](#usage), [again](#usage-1), "
              "[setup](other.md#setup-steps) and [install](#install).\n\n## Usage\n\n"
              "```md\n## Install\n```\n")
    got = _doc_problems(tmp_path, readme, {"sub/other.md": "## Setup steps\n"})
    assert got == [("anchor", "link #install: sub/README.md has no section #install")]


def test_slugs_follow_github_rules() -> None:
    assert docs.slugs("## What's new in 1.2?\n## `--flag` & [link](x)\n## A  B\n") == {
        "whats-new-in-12", "--flag--link", "a--b"}


def test_name_value_setting_that_is_a_property(tmp_path) -> None:
    # "Set `total=0`": total is a read-only property of Job; `steps=3` is a field.
    got = _problems(tmp_path, "Set `total=0` for a dry run, or `steps=3` for a short one; "
                              "`x == 1` and `a = b c` are not settings.\n")
    assert got == ["`total=0`: total is a read-only property (Job in sub/cfg.py:19), not a "
                   "setting one can give; set what it is computed from instead: `steps`"]


def test_name_value_setting_defined_as_a_field_somewhere_is_fine(tmp_path) -> None:
    # A property in one class and a field of the same name in another: settable.
    extra = "from dataclasses import dataclass\n\n\n@dataclass\nclass Other:\n    total: int = 0\n"
    inp = minirepo.build(tmp_path, head={"sub/cfg.py": CFG, "sub/other.py": extra,
                                         "sub/README.md": "Set `total=0`.\n"}, target=TARGET)
    assert [p.problem for p in docs.references(inp)] == []


def test_path_a_documented_command_creates_is_not_missing(tmp_path) -> None:
    readme = ("Download the weights to `sub/ckpt` first:\n\n```bash\n"
              "python sub/tool.py --steps 1 --out-dir sub/ckpt\n```\n\n"
              "Then read `sub/ckpt/model.py` and `sub/gone.py`.\n")
    got = _doc_problems(tmp_path, readme)
    assert got == [("reference", "path sub/gone.py does not exist")]


def test_bare_flag_that_lost_its_section(tmp_path) -> None:
    # (#15) `--steps` is no top-level option but job.steps is; `--foldr` nearly names
    # job.folder; `--verbose` is nothing the config knows: another tool's, left alone.
    got = _problems(tmp_path, "Pass `--steps=3` and `--foldr x`, or `--verbose`.\n")
    assert got == ["flag --steps is not a top-level option; the field is --job.steps",
                   "flag --foldr: no such field; the config has --job.folder"]


def test_dotted_flag_with_a_near_miss_says_which(tmp_path) -> None:
    got = _problems(tmp_path, "Pass `--job.step 3`.\n")
    assert got == ["flag --job.step: job has no field 'step'; use --job.steps"]


def test_slugs_of_long_and_closed_headings() -> None:
    # Repository content: a 200,000-space heading line, closing #s, and 7 #s (no heading).
    text = "# " + " " * 200_000 + "x\n## Title ##\n" + "#" * 7 + " not a heading\n"
    assert docs.slugs(text) == {"x", "title"}
