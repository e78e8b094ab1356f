"""#22 defect 5: a call of the folder's own function that cannot bind at HEAD
(``ownbinds``) -- direct, imported from a module of the folder, or through a parameter
that falls back to the function -- is an action naming both ``file:line``s. Made-up
trees, match and no-match each."""

from __future__ import annotations

from agentops.scout.analyses import ownbinds
from agentops.scout.itemize import ownbinds as ownbinds_items
from tests.scout import minirepo

SCORE_OLD = "def score(texts, answers, size):\n    return len(texts) * size\n"
SCORE_NEW = "def score(texts, answer=''):\n    return len(texts)\n"
STEP = '''\
from sub.scoring import score


def step(batch, answers, size, score_fn=None):
    if score_fn is None:
        score_fn = score
    return score_fn(batch, answers, size)
'''


def _inp(tmp_path, head: dict[str, str], base: dict[str, str] | None = None):
    return minirepo.build(tmp_path, base={"sub/__init__.py": "", **(base or {})},
                          head={"sub/__init__.py": "", **head})


def test_a_call_through_a_fallback_parameter_that_no_longer_binds(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/scoring.py": SCORE_NEW, "sub/loop.py": STEP},
               base={"sub/scoring.py": SCORE_OLD, "sub/loop.py": STEP})
    [b] = ownbinds.analyse(inp)
    assert (b.file, b.line, b.callee, b.via) == ("sub/loop.py", 7, "score", "score_fn")
    assert b.problems == ("passes 3 positional arguments (2 accepted)",) and b.changed
    [item] = ownbinds_items.items(inp, {"own_binds": [b]})
    assert item.kind == "action" and item.priority == "P1" and item.where == "sub/loop.py:7"
    assert "through `score_fn` (set to it when no `score_fn` is given)" in item.title
    assert "scoring.py:1" in item.title and "signature changed in the window" in item.why
    # No match: the fallback still fits what the call passes.
    fits = STEP.replace("score_fn(batch, answers, size)", "score_fn(batch, answers[0])")
    assert ownbinds.analyse(_inp(tmp_path / "b", {"sub/scoring.py": SCORE_NEW,
                                                  "sub/loop.py": fits})) == []
    # No match: a parameter the function rebinds to something else is not the fallback.
    other = STEP.replace("    return score_fn", "    score_fn = make()\n    return score_fn")
    assert ownbinds.analyse(_inp(tmp_path / "c", {"sub/scoring.py": SCORE_NEW,
                                                  "sub/loop.py": other})) == []


def test_a_direct_call_of_a_folder_function_missing_a_required_argument(tmp_path) -> None:
    code = ("def build(model, mesh):\n    return model\n\n\n"
            "def run(m):\n    return build(m)\n")
    inp = _inp(tmp_path, {"sub/par.py": code})
    [b] = ownbinds.analyse(inp)
    assert (b.line, b.via, b.problems) == (6, "", ("does not pass required `mesh`",))
    [item] = ownbinds_items.items(inp, {"own_binds": [b]})
    assert item.priority == "P0" and "changed in the window" not in item.why
    # No match: a local of the same name shadows the module's function; a spread call is
    # not judged; a decorated function may take other arguments; a test file aside.
    for name, text in (
            ("shadow", code.replace("def run(m):\n", "def run(m, build=print):\n")),
            ("spread", code.replace("build(m)", "build(*m)")),
            ("decorated", "@register\n" + code)):
        assert ownbinds.analyse(_inp(tmp_path / name, {"sub/par.py": text})) == [], name
    assert ownbinds.analyse(_inp(tmp_path / "t", {"sub/tests/test_par.py": code})) == []
