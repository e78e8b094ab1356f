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
