"""#22 S-4 (``configkeys``): a train-config TOML of the sub-project against the job
config's dataclass fields. Match: a key whose field was renamed in the window (an
action), a key that never named a field (an opportunity, with the closest field), a key
of a nested section. No-match: a field an extension module (named in a string) adds, a
commented-out key, a TOML that is no config of this job, a tree where every key is a
field."""

from __future__ import annotations

from agentops.scout.analyses import configkeys
from agentops.scout.itemize import configkeys as items_of
from tests.scout import minirepo

JOB = '''\
from dataclasses import dataclass, field


@dataclass
class Meta:
    ext_module: str = ""


@dataclass
class Engine:
    width: int = 8
    rate_schedule: str = "flat"


@dataclass
class Fp8:
    targets: list[str] = field(default_factory=list)


@dataclass
class Mixing:
    fp8: Fp8 = field(default_factory=Fp8)


@dataclass
class Store:
    {store_field}: bool = False


@dataclass
class Job:
    job: Meta = field(default_factory=Meta)
    engine: Engine = field(default_factory=Engine)
    mixing: Mixing = field(default_factory=Mixing)
    store: Store = field(default_factory=Store)
'''

EXT = '''\
from dataclasses import dataclass, field


@dataclass
class Engine:
    warmup_steps: int = 3


@dataclass
class Job:
    engine: Engine = field(default_factory=Engine)
'''

RUN = '''\
[job]
ext_module = "sub.ext"

[engine]
width = 4
rate_sched = "cosine"
warmup_steps = 10
# retired_knob = 1

[mixing.fp8]
targets = ["blocks"]
target_names = ["heads"]

[store]
full_copy = true
'''

LINT = '''\
[project]
name = "demo"

[tool.lint]
line = 100
'''


def _files(store_field: str, run: str = RUN) -> dict[str, str]:
    return {"core/__init__.py": "", "core/job.py": JOB.replace("{store_field}", store_field),
            "sub/__init__.py": "", "sub/ext.py": EXT, "sub/configs/run.toml": run,
            "sub/pyproject.toml": LINT}


def test_renamed_unknown_and_nested_keys(tmp_path) -> None:
    inp = minirepo.build(tmp_path, base=_files("full_copy"), head=_files("keep_full_copy"))
    found = configkeys.analyse(inp)
    got = {(k.key, k.line, k.was_field, k.near) for k in found}
    assert got == {
        ("store.full_copy", 15, True, "keep_full_copy"),
        ("engine.rate_sched", 6, False, "rate_schedule"),
        ("mixing.fp8.target_names", 12, False, "targets"),
    }
    out = {i.facts[0]: i for i in items_of.items(inp, {"config_keys": found})}
    assert out["store.full_copy"].kind == "action"
    assert "renamed or removed in the window" in out["store.full_copy"].title
    assert out["engine.rate_sched"].kind == "opportunity"
    assert "read by nothing" in out["engine.rate_sched"].title
    assert "`Fp8`" in out["mixing.fp8.target_names"].title


def test_no_finding_when_every_key_is_a_field(tmp_path) -> None:
    clean = RUN.replace('rate_sched = "cosine"\n', "").replace(
        'target_names = ["heads"]\n', "")
    inp = minirepo.build(tmp_path, base=_files("full_copy"),
                         head=_files("full_copy", clean))
    # The extension's field (warmup_steps), the commented-out key and the lint TOML's
    # keys are no findings.
    assert configkeys.analyse(inp) == []


def test_an_extension_not_named_leaves_its_key_unread(tmp_path) -> None:
    unnamed = RUN.replace('ext_module = "sub.ext"', 'ext_module = ""')
    inp = minirepo.build(tmp_path, base=_files("full_copy"),
                         head=_files("full_copy", unnamed))
    keys = {k.key for k in configkeys.analyse(inp)}
    assert "engine.warmup_steps" in keys
