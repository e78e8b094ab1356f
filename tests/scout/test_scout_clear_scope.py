"""#22 item 7, no false all-clear: the upstream delta with no action says what was
compared (changed signatures of what the sub-project calls or overrides, the bodies
it copies) and what was not (changes of behaviour with no signature change), naming
the window's commits that also edited the sub-project for a reader to check. It never
claims a comparison that did not run. Fixture repositories, match and no-match each."""

from __future__ import annotations

import dataclasses

from agentops.scout.analyses import bodydrift, upstream, usecheck
from agentops.scout.analyses.ci import CiResult
from agentops.scout.gitrepo import GitRepo
from agentops.scout.itemize import clear
from agentops.scout.model import Item
from tests.scout import minirepo

CORE_OLD = '''\
class Loader:
    def load(self, state, strict=False):
        model = self.build(state)
        return model.apply(state)


def build(model, *, fast=False):
    return model
'''
# A guard the override below already has, and a keyword-only parameter added.
CORE_NEW = '''\
class Loader:
    def load(self, state, strict=False):
        if state is None:
            raise ValueError("no state")
        model = self.build(state)
        return model.apply(state)


def build(model, *, fast=False, seed=0):
    return model
'''
OVERRIDE = '''\
from core.load import Loader


class MyLoader(Loader):
    def load(self, state, strict=False):
        if state is None:
            raise ValueError("no state")
        model = self.build(state)
        return model.apply(state)
'''
CALLER = "from core.load import build\n\n\ndef go(m):\n    return build(m, fast=True)\n"


def _res(inp) -> dict:
    return {"upstream_commits": upstream.commits(inp), "use_checks": usecheck.discover(inp),
            "body_drift": bodydrift.analyse(inp), "fragile_surface_changes": [],
            "monkey_patches": [], "stale_patches": [], "config_drift": [],
            "lossy_config_copies": [], "graph_passes": [], "passes_without_tests": [],
            "doc_inaccuracies": [], "ci": CiResult((), (), (), ())}


def _delta_line(inp) -> str:
    res = _res(inp)
    assert res["body_drift"] == []  # nothing found: the all-clear path
    [line] = [c.title for c in clear.items(inp, res, []) if c.title.startswith("Upstream")]
    return line


def test_delta_all_clear_says_what_was_compared_and_names_migrated_commits(tmp_path) -> None:
    """The head commit changes core and the sub-project together: the line counts the
    override compared and the changed signature checked at its call, says what no check
    saw, and names that commit (from every file it changed) for a reader."""
    inp = minirepo.build(
        tmp_path, base={"core/__init__.py": "", "core/load.py": CORE_OLD},
        head={"core/load.py": CORE_NEW, "sub/__init__.py": "", "sub/l.py": OVERRIDE,
              "sub/a.py": CALLER})
    git = GitRepo(tmp_path / "repo")
    inp = dataclasses.replace(inp, commit_files=git.files_of([c.sha for c in inp.commits]))
    line = _delta_line(inp)
    assert "nothing actionable" not in line
    assert "1 copied/overriding body" in line
    assert "1 changed signature it uses, each use checked" in line
    assert "not checked: behaviour changed with no signature change" in line
    assert f"`{inp.commits[0].sha[:9]}` head" in line and "also edited the sub-project" in line
    assert len(line) <= 400  # the title is shown with 400 characters at most


def test_delta_all_clear_claims_no_comparison_that_did_not_run(tmp_path) -> None:
    """No match: the sub-project copies, overrides and calls nothing that changed, and
    the window's commit edits core only: the line claims neither a body compared nor a
    signature checked, and names no commit as editing the sub-project."""
    plain = "def go(m):\n    return m\n"
    inp = minirepo.build(
        tmp_path, base={"core/__init__.py": "", "core/load.py": CORE_OLD,
                        "sub/__init__.py": "", "sub/a.py": plain},
        head={"core/load.py": CORE_NEW})
    git = GitRepo(tmp_path / "repo")
    inp = dataclasses.replace(inp, commit_files=git.files_of([c.sha for c in inp.commits]))
    line = _delta_line(inp)
    assert "body" not in line and "bodies" not in line
    assert "no changed signature it uses" in line
    assert "each use checked" not in line
    assert "none of them edited the sub-project" in line and inp.commits[0].sha[:9] not in line
    assert "not checked:" in line


def _window(tmp_path):
    """core/load.py changes in the window; core/old.py does not."""
    plain = "def go(m):\n    return m\n"
    inp = minirepo.build(
        tmp_path, base={"core/__init__.py": "", "core/load.py": CORE_OLD,
                        "core/old.py": "def f():\n    pass\n",
                        "sub/__init__.py": "", "sub/a.py": plain},
        head={"core/load.py": CORE_NEW})
    git = GitRepo(tmp_path / "repo")
    return dataclasses.replace(inp, commit_files=git.files_of([c.sha for c in inp.commits]))


def _action(files: tuple[str, ...], title: str = "our copy lacks a guard") -> Item:
    return Item(id="a1", section="S-4", kind="action", title=title, where="sub/a.py:2",
                files=files)


def _line(inp, built) -> str:
    [line] = [c.title for c in clear.items(inp, _res(inp), built)
              if c.title.startswith("Upstream")]
    return line


def test_no_all_clear_on_a_delta_an_action_item_is_about(tmp_path) -> None:
    """#22 (false all-clear): an action item of another area on a core file the window
    changed (or naming a window commit) is an action on the delta: the S-1 line says
    it is listed, never "no action"."""
    inp = _window(tmp_path)
    line = _line(inp, [_action(("sub/a.py", "core/load.py"))])
    assert "no action" not in line and "nothing actionable" not in line
    assert "not all clear: 1 action item on code it changed listed above (sub/a.py:2)" in line
    assert "not checked: behaviour changed with no signature change" in line
    sha = inp.commits[0].sha[:9]
    line = _line(inp, [_action(("sub/a.py",), f"core changed `x` in `{sha}`; ours lags")])
    assert "no action" not in line and "not all clear" in line


def test_an_action_on_code_the_window_left_alone_keeps_the_all_clear(tmp_path) -> None:
    # The action's core file did not change in the window, an opportunity is no
    # action, and the sub-project's own file is not the delta: "no action" stands.
    inp = _window(tmp_path)
    built = [_action(("sub/a.py", "core/old.py")),
             dataclasses.replace(_action(("core/load.py",)), id="o1", kind="opportunity")]
    line = _line(inp, built)
    assert "no action in what was compared" in line and "not all clear" not in line
