"""#22: a copy of an upstream function that is new in the window. Body drift needs a
baseline version to diff and copy lag looks only at what upstream had before the
window, so a call the copy makes without keywords upstream's new function passes went
unseen; it is an action (S-1) naming both call sites and the commit. Fixture trees,
match and no-match."""

from __future__ import annotations

from agentops.scout.analyses import newcopy
from agentops.scout.itemize import delta
from tests.scout import minirepo

CORE_BASE = '''\
class Trainer:
    def step(self, batch):
        return self.model(batch)
'''
CORE_HEAD = CORE_BASE + '''
    def pp_step(self, batch, tokens):
        kwargs = {"tokens": tokens}
        self.schedule.step(batch, loss_kwargs=kwargs, return_outputs=False)
        logger.info("pp step", extra=kwargs)
        return self.model(batch)
'''
COPY = '''\
class Example:
    def pp_step(self, batch, tokens):
        kwargs = {"tokens": tokens}
        self.schedule.step(batch)
        return self.model(batch)
'''
TARGET = "duplicate_logic:\n  - {ours: [sub/example.py], upstream: [core/train.py]}\n"


def _inp(tmp_path, copy: str = COPY, base: str = CORE_BASE):
    return minirepo.build(
        tmp_path, base={"core/__init__.py": "", "core/train.py": base},
        head={"sub/__init__.py": "", "core/train.py": CORE_HEAD, "sub/example.py": copy},
        target=TARGET)


def test_a_call_of_a_new_function_copied_without_its_keywords_is_an_action(tmp_path) -> None:
    inp = _inp(tmp_path)
    [found] = newcopy.analyse(inp)
    assert (found.ours, found.upstream, found.function, found.callee, found.missing) == (
        "sub/example.py:4", "core/train.py:7", "Trainer.pp_step", "schedule.step",
        ("loss_kwargs", "return_outputs"))
    assert found.commit == inp.commits[0].sha  # the commit that added the function
    [item] = delta._new_copy(inp, {"new_copy_keywords": [found]})
    assert item.kind == "action" and item.priority == "P1" and item.section == "S-1"
    assert "sub/example.py:4" in item.title and "core/train.py:7" in item.title
    assert "`loss_kwargs`" in item.title and "`return_outputs`" in item.title


def test_a_copy_passing_them_or_passing_kwargs_through_is_no_finding(tmp_path) -> None:
    full = COPY.replace("self.schedule.step(batch)",
                        "self.schedule.step(batch, loss_kwargs=kwargs, return_outputs=False)")
    assert newcopy.analyse(_inp(tmp_path / "a", full)) == []
    forwarding = COPY.replace("self.schedule.step(batch)",
                              "self.schedule.step(batch, **self.step_kwargs)")
    assert newcopy.analyse(_inp(tmp_path / "b", forwarding)) == []


def test_a_function_upstream_had_at_the_baseline_is_left_to_body_drift(tmp_path) -> None:
    # pp_step existed at the baseline unchanged: nothing new in the window to compare.
    assert newcopy.analyse(_inp(tmp_path, base=CORE_HEAD)) == []
