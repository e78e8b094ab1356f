"""#22 defect 8: a public class of the sub-project that nothing in the repository
refers to, other than the import lines and ``__all__`` that re-export it, is one
opportunity with ``file:line``; a class used anywhere (a call, annotation, base, test,
string, doc), private, or registered by a decorator is not. Fixture trees, match and
no-match."""

from __future__ import annotations

from agentops.scout.analyses import deadclasses
from agentops.scout.itemize import debt
from tests.scout import minirepo

CONFIG = '''\
from dataclasses import dataclass, field


@dataclass
class Tolerance:
    enable: bool = False


@dataclass
class JobConfig:
    tolerance: Tolerance = field(default_factory=Tolerance)


class _Helper:
    pass


@register("x")
class Plugin:
    pass


class Loader:
    pass
'''
INIT = '''\
from sub.config import (
    JobConfig,
    Tolerance,
)

__all__ = [
    "JobConfig",
    "Tolerance",
]
'''
USER = "from sub.config import Tolerance\n\n\ndef build(t: Tolerance):\n    return t\n"


def _inp(tmp_path, extra=None):
    files = {"sub/__init__.py": INIT, "sub/config.py": CONFIG, "sub/user.py": USER,
             "sub/tests/test_l.py": "from sub.config import Loader\nLoader()\n"}
    return minirepo.build(tmp_path, head={**files, **(extra or {})})


def test_a_class_only_re_exported_is_dead(tmp_path) -> None:
    inp = _inp(tmp_path)
    [dead] = deadclasses.analyse(inp)
    assert (dead.file, dead.line, dead.name, dead.exported_by) == (
        "sub/config.py", 10, "JobConfig", ("sub/__init__.py",))
    [item] = debt._dead_classes(inp, {"dead_classes": [dead]})
    assert item.kind == "opportunity" and "`JobConfig` (config.py:10, re-exported by " \
        "__init__.py)" in item.title


def test_a_use_anywhere_keeps_a_class_alive(tmp_path) -> None:
    # an annotation in core, a string key in a script, a doc: each is a use
    for i, (path, text) in enumerate([
            ("core/run.py", "from sub import JobConfig\n\ncfg: JobConfig | None = None\n"),
            ("scripts/go.py", "CLASSES = {'job': 'JobConfig'}\n"),
            ("sub/README.md", "Set the `JobConfig` fields.\n")]):
        assert deadclasses.analyse(_inp(tmp_path / str(i), {path: text})) == []
