"""#22 sibling parity (``siblingsettings``), made-up folders under ``zoo/``.

Keyword rule. Match: two sibling folders call the shared ``spread`` helper with
``fast_path=`` read from ``--wiring.channel`` (directly, or through a local set under a
condition on it); the sub-project calls ``spread`` without it and never reads
``channel``. No-match: the sub-project passes the keyword; it reads ``channel``
elsewhere; a third sibling calls ``spread`` without the keyword (the keyword serves a
feature some folders lack); the value is runtime state, not a configuration field;
only one sibling passes it.

Fallback rule. Match: two siblings' ``adjust`` switch ``self.parts.turbo`` off under a
condition; the sub-project's ``adjust`` reaches ``self.parts`` and nothing of it sets
``turbo``. No-match: the sub-project's method never reaches ``self.parts``; it sets
``turbo`` somewhere; the siblings raise there instead (a refusal, not a fallback)."""

from __future__ import annotations

import dataclasses

from agentops.scout.analyses import siblingsettings
from agentops.scout.itemize import siblingsettings as items_of
from tests.scout import minirepo

HELPER = '''\
def spread(net, *, mesh=None, fast_path=False):
    return net
'''

SIB_DIRECT = '''\
from kit.helpers import spread


def wire(net, dims: MeshState, settings: WiringConfig):
    spread(net, mesh=dims.mesh, fast_path=settings.channel)
'''

SIB_LOCAL = '''\
from kit.helpers import spread


def wire_other(net, dims, job: "JobConfig"):
    wiring = job.wiring
    if wiring.channel == "express":
        quick = True
    else:
        quick = False
    spread(net, mesh=dims.mesh, fast_path=quick)
'''

OURS = '''\
from kit.helpers import spread


def wire_mine(net, dims, settings: WiringConfig):
    spread(net, mesh=dims.mesh)
'''

SIB_ADJUST = '''\
class Options:
    def adjust(self, job):
        self.depth = job.depth
        if self.parts.turbo and not job.hardware_ok():
            print("turbo off")
            self.parts.turbo = False
'''

OUR_ADJUST = '''\
class Options:
    def adjust(self, job):
        self.depth = job.depth
        self.parts.verbose = job.verbose
'''


def _inp(tmp_path, files):
    base = {"kit/__init__.py": "", "kit/helpers.py": HELPER, "zoo/__init__.py": ""}
    inp = minirepo.build(tmp_path, head={**base, **files})
    return dataclasses.replace(inp, target=dataclasses.replace(inp.target,
                                                               subproject="zoo/mine"))


def _wiring(ours: str = OURS, **extra: str) -> dict[str, str]:
    return {"zoo/mine/wire.py": ours, "zoo/owl/wire.py": SIB_DIRECT,
            "zoo/elk/wire.py": SIB_LOCAL, **extra}


def test_a_setting_every_sibling_hands_to_the_shared_helper_is_left_out(tmp_path) -> None:
    inp = _inp(tmp_path, _wiring())
    [s] = siblingsettings.analyse(inp)
    assert (s.file, s.line, s.rule, s.names, s.setting) == (
        "zoo/mine/wire.py", 5, "keyword", ("fast_path",), "channel")
    assert s.place == "kit.helpers:spread"
    assert s.siblings == ("zoo/elk/wire.py:10", "zoo/owl/wire.py:5")
    [item] = items_of.items(inp, {"sibling_settings": [s]})
    assert item.kind == "opportunity" and item.where == "zoo/mine/wire.py:5"
    assert "fast_path" in item.title and "zoo/owl/wire.py:5" in item.title


def test_no_keyword_finding_where_the_folder_chose_or_the_evidence_is_weak(
        tmp_path) -> None:
    # It passes the keyword.
    passes = OURS.replace("mesh=dims.mesh)", "mesh=dims.mesh, fast_path=True)")
    assert siblingsettings.analyse(_inp(tmp_path / "a", _wiring(passes))) == []
    # It reads the setting elsewhere (its own choice of what to do with it).
    reads = OURS + "\n\ndef check(settings: WiringConfig):\n    return settings.channel\n"
    assert siblingsettings.analyse(_inp(tmp_path / "b", _wiring(reads))) == []
    # A third sibling calls the helper without it: a feature some folders lack.
    plain = OURS.replace("wire_mine", "wire_plain")
    assert siblingsettings.analyse(_inp(tmp_path / "c", _wiring(
        **{"zoo/ant/wire.py": plain}))) == []
    # Runtime state, not a configuration field: no setting a user chose.
    state = {"zoo/owl/wire.py": SIB_DIRECT.replace("settings.channel", "dims.channel"),
             "zoo/elk/wire.py": SIB_DIRECT.replace("settings.channel", "dims.channel")}
    assert siblingsettings.analyse(_inp(tmp_path / "d", _wiring(**state))) == []
    # One sibling is no agreement.
    one = {"zoo/mine/wire.py": OURS, "zoo/owl/wire.py": SIB_DIRECT,
           "zoo/elk/other.py": "X = 1\n"}
    assert siblingsettings.analyse(_inp(tmp_path / "e", one)) == []


def _adjust(ours: str = OUR_ADJUST, sib: str = SIB_ADJUST) -> dict[str, str]:
    return {"zoo/mine/opts.py": ours, "zoo/owl/opts.py": sib, "zoo/elk/opts.py": sib}


def test_a_fallback_the_siblings_apply_to_the_same_sub_config_is_missing(tmp_path) -> None:
    inp = _inp(tmp_path, _adjust())
    [s] = siblingsettings.analyse(inp)
    assert (s.file, s.line, s.rule, s.place, s.names) == (
        "zoo/mine/opts.py", 2, "fallback", "adjust", ("turbo",))
    assert s.setting == "self.parts.turbo and (not job.hardware_ok())"
    assert s.siblings == ("zoo/elk/opts.py:4", "zoo/owl/opts.py:4")
    [item] = items_of.items(inp, {"sibling_settings": [s]})
    assert item.kind == "opportunity" and "turbo" in item.title
    assert "zoo/elk/opts.py:4" in item.title


def test_no_fallback_finding_off_the_sub_config_when_set_or_for_a_refusal(tmp_path) -> None:
    # Its method never reaches `self.parts` (a model without that sub-config).
    other = OUR_ADJUST.replace("self.parts.verbose", "self.verbose")
    assert siblingsettings.analyse(_inp(tmp_path / "a", _adjust(other))) == []
    # It sets `turbo` somewhere of its own.
    sets = OUR_ADJUST + "\n\ndef tune(o):\n    o.parts.turbo = False\n"
    assert siblingsettings.analyse(_inp(tmp_path / "b", _adjust(sets))) == []
    # The siblings refuse there instead: a guard, which `siblingguards` compares.
    refuse = SIB_ADJUST.replace('print("turbo off")', 'raise ValueError("no turbo")')
    assert siblingsettings.analyse(_inp(tmp_path / "c", _adjust(sib=refuse))) == []
