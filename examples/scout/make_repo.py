#!/usr/bin/env python3
"""Build a small git repository that looks like a core project with a sub-project
tracking it, over three dated commits, for the scout demo and tests:

  c1 2026-03-01  core Trainer.Config/CompileConfig/MoE; sub-project with configs, passes,
                 TODOs, tests, a CI workflow (one step names only skipped tests), docs; a
                 copy of core's parallelize that drops a keyword and a CP call, a config
                 copy that rebuilds a nested config from defaults, a -k filter that leaves
                 a test class out, a runner no workflow calls, a wrong counted claim
  c2 2026-03-05  TODOs move down (same ids), CompileConfig gains a field, Trainer.Config
                 retypes one, post_dataloading_process takes an extra argument and returns
                 a 4-tuple, MoE.forward changes its signature
  c3 2026-03-09  a new test file no workflow runs, a doc path that breaks, a monkey-patch
                 of MoE.forward, a TODO resolved and a new one added, core gains a
                 ParallelDims.from_config factory the sub-project builds by hand (leaving
                 out a field it fills)

  python examples/scout/make_repo.py DEST      # prints the three commit shas

Writes only under DEST (a new directory).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TARGET_YAML = """\
name: demo-sub
repo: example/core
subproject: sub
tests_dir: sub/tests
watched_paths: [core/]
models_dir: core/models
todo_ref_aliases: {PyTorch: pytorch/pytorch}
fragile_surfaces:
  classes:
    - {name: Trainer.Config, file: core/trainer.py, why: "copied in sub/configs.py"}
    - {name: CompileConfig, file: core/config.py, why: "extended by SubCompileConfig"}
  functions:
    - {name: Trainer.post_dataloading_process, file: core/trainer.py}
  return_tuples:
    - {name: Trainer.post_dataloading_process, file: core/trainer.py,
       why: "unpacked in sub/trainer.py"}
  discover_monkey_patches: true
  monkey_patch_exclude: [sub/tests/]
config_drift:
  copies:
    - source: {name: Trainer.Config, file: core/trainer.py}
      copy_function: {name: to_sub_config, file: sub/configs.py}
  subclasses:
    - base: {name: CompileConfig, file: core/config.py}
      subclass: {name: SubCompileConfig, file: sub/configs.py}
private_api:
  names: [_private_helper]
  private_import_roots: [core]
duplicate_logic:
  - {ours: [sub/passes.py], upstream: [core/checkpointing.py], why: activation checkpointing}
  - {ours: [sub/parallelize.py], upstream: [core/parallelize.py], why: parallelization}
workflows: [.github/workflows/sub.yaml]
docs: [sub/README.md]
doc_config_roots:
  - {name: SubTrainer.Config, file: sub/trainer.py}
known_flags: [--module, --config]
coverage:
  core_integration_tests: [core/integration_tests.py]
  subproject_integration_tests: [sub/tests/integration_tests.py]
  parallelism_keywords: [fsdp, tp, pp, cp]
  passes_file: sub/passes.py
  pass_tests: [sub/tests/test_passes.py]
  config_registry_name: config_registry.py
tracking_issue: {repo: example/core, number: 1}
board: {owner: example, number: 1}
"""

C1 = {
    "core/__init__.py": "",
    "core/config.py": '''from dataclasses import dataclass


@dataclass
class CompileConfig:
    enable: bool = False
    backend: str = "inductor"


@dataclass
class CheckpointConfig:
    mode: str = "none"
    interval: int = 500
    keep_latest: int = 0
''',
    "core/trainer.py": '''from dataclasses import dataclass, field

from core.config import CheckpointConfig, CompileConfig


class Trainer:
    @dataclass(kw_only=True)
    class Config:
        steps: int = 10
        dump_folder: str = "./out"
        compile: CompileConfig = field(default_factory=CompileConfig)
        checkpoint: CheckpointConfig = field(default_factory=CheckpointConfig)

    def post_dataloading_process(self, batch, labels):
        return batch, labels, {}
''',
    "core/parallelize.py": '''from core.cp import apply_cp


def apply_tp(model, mesh, *, enable_cp=False, enable_sp=True):
    return model


def parallelize(model, dims, par):
    apply_tp(model, dims.mesh, enable_cp=dims.cp_enabled, enable_sp=par.sequence_parallel)
    if dims.cp_enabled:
        apply_cp(model)
    return model
''',
    "core/cp.py": '''def apply_cp(model):
    return model
''',
    "core/dims.py": '''from dataclasses import dataclass


@dataclass
class ParallelDims:
    dp: int
    tp: int
''',
    "core/moe.py": '''class MoE:
    def forward(self, x):
        return x
''',
    "core/checkpointing.py": '''def checkpoint_policy(x):
    return x
''',
    "core/util.py": '''def _private_helper():
    return 1
''',
    "core/integration_tests.py": '''from core.defs import OverrideDefinitions

TESTS = [
    OverrideDefinitions([["--parallelism.tp 2"]], "tp", "tp_only"),
    OverrideDefinitions([["--x"]], "fsdp+tp", "fsdp_tp"),
    OverrideDefinitions([["--x"]], "tp+cp", test_name="tp_cp"),
]
''',
    "sub/__init__.py": "",
    "sub/configs.py": '''from dataclasses import dataclass, fields
from typing import Literal

from core.config import CheckpointConfig, CompileConfig


@dataclass
class SubCompileConfig(CompileConfig):
    mode: Literal["jit", "aot"] = "aot"
    backend: str = "aot_eager"


def to_sub_config(base):
    d = {f.name: getattr(base, f.name) for f in fields(base)}
    d.pop("compile")
    d["dump_folder"] = base.dump_folder + "/sub"
    ckpt = d.get("checkpoint")
    if ckpt is not None and ckpt.mode != "none":
        d["checkpoint"] = CheckpointConfig(mode="full")
    return d
''',
    "sub/parallelize.py": '''from core.parallelize import apply_tp


def data_parallel(model, mode):
    return model


def parallelize(model, dims, par):
    apply_tp(model, dims.mesh)
    if dims.dp_enabled or dims.cp_enabled:
        model = data_parallel(model, "fully_shard")
    return model
''',
    "sub/launch.py": '''from core.dims import ParallelDims


def dims_for(par, world):
    return ParallelDims(dp=par.dp_degree, tp=par.tp_degree)
''',
    "sub/tests/test_trace.py": '''import unittest


class TestTraceSmall(unittest.TestCase):
    def test_small(self):
        pass


class TestTraceLarge(unittest.TestCase):
    def test_large(self):
        pass
''',
    "sub/tests/run_extra.py": '''def check_extra():
    assert sum([1, 1]) == 2


def main():
    check_extra()
    return 0


if __name__ == "__main__":
    main()
''',
    "sub/trainer.py": '''from dataclasses import dataclass, field

from core.trainer import Trainer
from sub.configs import SubCompileConfig


class SubTrainer(Trainer):
    @dataclass(kw_only=True)
    class Config(Trainer.Config):
        compile: SubCompileConfig = field(default_factory=SubCompileConfig)
''',
    "sub/passes.py": '''from core.util import _private_helper


def fuse_pass(gm):
    return gm


def bucket_pass(gm):
    return _private_helper() and gm
''',
    "sub/work.py": '''def step():
    # TODO(alice): drop this copy once PyTorch #123 lands
    # (needs the new stream API).
    x = 1
    # FIXME: remove the hack below
    return x


def other():
    # HACK: see pytorch/pytorch/pull/456 before removing
    return 2
''',
    "sub/registry/config_registry.py": '''def sub_debug():
    return {}


def sub_big():
    return {}
''',
    "sub/tests/__init__.py": "",
    "sub/tests/test_passes.py": '''from sub.passes import fuse_pass


def test_fuse_pass():
    assert fuse_pass(1) == 1


def test_debug_config():
    from sub.registry.config_registry import sub_debug
    assert sub_debug() == {}
''',
    "sub/tests/test_skipped.py": '''import unittest


@unittest.skip("broken upstream")
class TestSkipped(unittest.TestCase):
    def test_a(self):
        pass


class TestLive(unittest.TestCase):
    def test_b(self):
        pass
''',
    "sub/tests/test_helpers.py": '''def test_helper():
    assert True
''',
    "sub/tests/test_runner_all.py": '''from sub.tests.test_helpers import test_helper  # noqa: F401


def test_runner():
    assert True
''',
    "sub/tests/integration_tests.py": '''from core.defs import OverrideDefinitions

TESTS = [
    OverrideDefinitions([["--x"]], "fsdp+tp", "sub_fsdp_tp"),
]
''',
    ".github/workflows/sub.yaml": '''name: sub
on: {schedule: [{cron: "0 0 * * *"}]}
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - name: unit
        run: |
          pytest sub/tests/test_passes.py -v
          python -m pytest sub/tests/test_runner_all.py
      - name: skipped only
        run: >
          pytest sub/tests/test_skipped.py::TestSkipped -v
      - name: keyword
        run: |
          NCCL=0 pytest sub/tests/test_skipped.py -k "Live and not test_a"
          pytest sub/tests/test_trace.py -k "Small"
''',
    "sub/README.md": '''# Sub

Three compilation modes are supported. Run the pass tests with
`pytest sub/tests/test_passes.py -x`.

```bash
./run.sh --module sub --config sub_debug --compile.mode aot --steps 5
```

Select a backend with `--compile.backend`.
''',
    "run.sh": "#!/bin/sh\necho run\n",
}

C2 = {
    "sub/work.py": '''"""Work."""


def step():
    # TODO(alice): drop this copy once PyTorch #123 lands
    # (needs the new stream API).
    x = 1
    # FIXME: remove the hack below
    return x


def other():
    # HACK: see pytorch/pytorch/pull/456 before removing
    return 2
''',
    "core/config.py": '''from dataclasses import dataclass


@dataclass
class CompileConfig:
    enable: bool = False
    backend: str = "inductor"
    fullgraph: bool = True


@dataclass
class CheckpointConfig:
    mode: str = "none"
    interval: int = 500
    keep_latest: int = 0
''',
    "core/trainer.py": '''from dataclasses import dataclass, field

from core.config import CheckpointConfig, CompileConfig


class Trainer:
    @dataclass(kw_only=True)
    class Config:
        steps: int | None = 10
        dump_folder: str = "./out"
        compile: CompileConfig = field(default_factory=CompileConfig)
        checkpoint: CheckpointConfig = field(default_factory=CheckpointConfig)

    def post_dataloading_process(self, batch, labels, extra):
        return batch, labels, extra, {}
''',
    "core/moe.py": '''class MoE:
    def forward(self, x, scores=None):
        return x
''',
    "core/checkpointing.py": '''def checkpoint_policy(x, mode="full"):
    return x


def new_policy(x):
    return x
''',
}

C2["core/dims.py"] = '''from dataclasses import dataclass


@dataclass
class ParallelDims:
    dp: int
    tp: int
    world: int = 1

    @classmethod
    def from_config(cls, par, world):
        return cls(dp=par.dp_degree, tp=par.tp_degree, world=world)
'''

C3 = {
    "sub/tests/test_new.py": '''def test_new():
    assert True
''',
    "sub/patches.py": '''from core.moe import MoE


def annotate(fn):
    return fn


MoE.forward = annotate(MoE.forward)
''',
    "sub/work.py": '''"""Work."""


def step():
    # TODO(alice): drop this copy once PyTorch #123 lands
    # (needs the new stream API).
    x = 1
    return x


def other():
    # HACK: see pytorch/pytorch/pull/456 before removing
    # XXX(bob): new helper needed, see https://example.com/design
    return 2
''',
    "sub/README.md": '''# Sub

Three compilation modes are supported. Run the pass tests with
`pytest sub/tests/test_gone.py -x`.

```bash
./run.sh --module sub --config sub_debug --compile.mode aot_fx --max_steps 5
```

Select a backend with `--compile.backend`; see `sub/missing_dir/notes.md`.
''',
}

COMMITS = (("2026-03-01T10:00:00Z", "c1: core and sub-project", C1),
           ("2026-03-05T10:00:00Z", "c2: upstream changes, TODOs move", C2),
           ("2026-03-09T10:00:00Z", "c3: new test, patch, doc drift", C3))


def _git(dest: Path, *args: str, date: str = "2026-03-01T10:00:00Z") -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Fixture", "GIT_AUTHOR_EMAIL": "f@example.com",
           "GIT_COMMITTER_NAME": "Fixture", "GIT_COMMITTER_EMAIL": "f@example.com",
           "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date, "GIT_CONFIG_NOSYSTEM": "1",
           "HOME": str(dest)}
    return subprocess.run(["git", "-C", str(dest), *args], env=env, check=True,
                          capture_output=True, text=True).stdout.strip()


def build(dest: Path) -> list[str]:
    """Create the repository at ``dest``; return the three commit shas (oldest first)."""
    dest.mkdir(parents=True, exist_ok=False)
    _git(dest, "init", "-q", "-b", "main")
    shas = []
    for date, message, files in COMMITS:
        for rel, text in files.items():
            path = dest / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        _git(dest, "add", "-A", date=date)
        _git(dest, "commit", "-q", "-m", message, date=date)
        shas.append(_git(dest, "rev-parse", "HEAD", date=date))
    (dest.parent / f"{dest.name}-target.yaml").write_text(TARGET_YAML, encoding="utf-8")
    return shas


def checkout(dest: Path, sha: str) -> None:
    """Put the work tree (and HEAD) at ``sha``."""
    _git(dest, "checkout", "-q", "--detach", sha)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        raise SystemExit(2)
    for sha in build(Path(sys.argv[1])):
        print(sha)
