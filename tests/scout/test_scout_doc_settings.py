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
    assert got == [
        "flag --job.total: job.total is a read-only property, not a settable field",
        "flag --job.world: job.world is derived (field(init=False)), not an input, not a "
        "settable field",
        "flag --job.log_dir: job.log_dir is a read-only property, not a settable field"]


def test_flag_naming_a_field_is_fine(tmp_path) -> None:
    assert _problems(tmp_path, "Run with `--job.steps 10` or `--job.folder x`.\n") == []


def test_property_with_a_setter_is_settable_in_code_but_not_a_flag(tmp_path) -> None:
    assert _problems(tmp_path, "Assign `Job.seed` in your script.\n") == []
    assert _problems(tmp_path / "f", "Run with `--job.seed 3`.\n") == [
        "flag --job.seed: job has no field 'seed'"]


def test_backticked_config_member(tmp_path) -> None:
    got = _problems(tmp_path, "Set `Job.total` to double the steps; `Job.steps` and "
                              "`Job.build()` are fine.\n")
    assert got == ["`Job.total` is a read-only property of Job, not a setting one can give"]
