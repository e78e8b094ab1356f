"""#22 defect 7: a config field's docstring (what --help prints) is a doc too. A
``--section.field`` flag it names that does not resolve through ``doc_config_roots``,
and a list of values it says the field takes that leaves out one the code accepts,
are Docs findings with ``file:line``; a docstring that is right, a value the code
refuses, or a list the code does not branch on are not. Fixture trees, match and
no-match."""

from __future__ import annotations

from agentops.scout.analyses import docs, fielddocs
from tests.scout import minirepo

CONFIG = '''\
from dataclasses import dataclass, field


@dataclass
class Parallelism:
    replicate_degree: int = 1
    """How many replicas."""


@dataclass
class Manager:
    enable: bool = False
    """Turn it on; --manager.replicate_degree must then be 1 (the replicas are dynamic)."""

    group: str = "gloo"
    """The group to use. Only "gloo" and "nccl" are supported."""

    mode: str = "a"
    """One of "a" or "b"."""


@dataclass
class Config:
    parallelism: Parallelism = field(default_factory=Parallelism)
    manager: Manager = field(default_factory=Manager)
'''
CODE = '''\
def build(cfg):
    if cfg.group == "gloo":
        return 1
    elif cfg.group == "nccl":
        return 2
    elif cfg.group == "mccl":
        return 3
    if cfg.mode == "c":
        raise ValueError("no c")
    return 0
'''
TARGET = "doc_config_roots:\n  - {name: Config, file: sub/config.py}\n"


def _check(tmp_path, config=CONFIG, code=CODE):
    inp = minirepo.build(tmp_path, head={"sub/__init__.py": "", "sub/config.py": config,
                                         "sub/manager.py": code}, target=TARGET)
    return inp, fielddocs.check(inp)


def test_a_flag_that_does_not_resolve_and_a_value_left_out_are_found(tmp_path) -> None:
    inp, found = _check(tmp_path)
    assert [(p.file, p.line) for p in found] == [("sub/config.py", 13), ("sub/config.py", 16)]
    flag, values = found
    assert "--manager.replicate_degree" in flag.problem and "`enable`" in flag.problem
    assert "--parallelism.replicate_degree" in flag.problem  # where the field is
    assert 'Only "gloo" and "nccl" are supported.' in values.problem  # the doc's words
    assert "'gloo', 'nccl'" in values.problem and "'mccl' (sub/manager.py:6)" in values.problem
    # They reach the Docs section through the S-5 analysis.
    assert {p.line for p in docs.analyse(inp) if p.file == "sub/config.py"} == {13, 16}


def test_a_docstring_in_step_with_the_code_is_no_finding(tmp_path) -> None:
    right = CONFIG.replace("--manager.replicate_degree", "--parallelism.replicate_degree") \
        .replace('Only "gloo" and "nccl" are supported.', '"gloo", "nccl" or "mccl".')
    assert _check(tmp_path, right)[1] == []


def test_a_refused_value_or_a_list_the_code_does_not_branch_on_is_no_finding(tmp_path) -> None:
    # "c" is compared but refused (the branch raises): not a value the field takes; a
    # docstring naming values the code never compares says nothing checkable.
    _inp, found = _check(tmp_path, code=CODE.replace(
        '    elif cfg.group == "mccl":\n        return 3\n', ""))
    assert [p.line for p in found] == [13]
    other = CONFIG.replace('Only "gloo" and "nccl" are supported.',
                           'Like "ucc" and "gloo" in other stacks.')
    assert [p.line for p in _check(tmp_path / "b", other)[1]] == [13]
