"""The one cap on the length of a Python file any analysis reads (#22, docs/security.md):
``gitrepo.MAX_PYTHON_CHARS``, kept by the tree loader. A longer file is left out of the
tree and listed as skipped with the reason -- never cut short and parsed in part -- so
every analysis passes it over alike; one at the cap is read like any other."""

from __future__ import annotations

import dataclasses

from agentops.scout import gitrepo, report
from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses import run_all
from agentops.scout.gitrepo import GitRepo, Tree
from tests.scout import minirepo

# Made up: a config class with a field nothing reads, a TODO, a monkey-patch of a core
# module and a name bound nowhere, so several analyses each have something to say.
BODY = '''\
from dataclasses import dataclass
import core.mod as cm


@dataclass
class WidgetConfig:
    size: int = 3
    unused_knob: bool = False


def build(cfg: WidgetConfig):
    # TODO(someone): drop this once core grows a real hook
    cm.helper = lambda: 1
    return missing_name + cfg.size
'''
CORE = {"core/__init__.py": "", "core/mod.py": "def helper():\n    return 0\n"}
CAP = 4_000  # the tests lower the cap so the files stay small
DEEP = 400  # past pysource.MAX_AST_DEPTH, within the parser's own guard


def _padded(text: str, length: int) -> str:
    """``text`` made exactly ``length`` characters long with a trailing comment."""
    pad = length - len(text) - 2
    return text + "#" + "x" * pad + "\n"


def _inp(tmp_path, monkeypatch, **extra: str):
    monkeypatch.setattr(gitrepo, "MAX_PYTHON_CHARS", CAP)
    files = {**CORE, "sub/__init__.py": "",
             "sub/over.py": _padded(BODY, CAP + 1),
             "sub/at.py": _padded(BODY.replace("Widget", "Gadget"), CAP), **extra}
    return minirepo.build(tmp_path, head=files, base=dict(CORE))


def test_the_cap_is_the_documented_figure() -> None:
    assert gitrepo.MAX_PYTHON_CHARS == 400_000  # docs/security.md states it


def test_the_padding_is_exact() -> None:
    assert len(_padded(BODY, CAP)) == CAP and len(_padded(BODY, CAP + 1)) == CAP + 1


def test_a_file_over_the_cap_is_skipped_and_counted_one_at_the_cap_is_read(
        tmp_path, monkeypatch) -> None:
    inp = _inp(tmp_path, monkeypatch)
    assert "sub/over.py" in inp.head.paths and "sub/over.py" not in inp.head.files
    assert inp.head.text("sub/at.py") is not None
    why = inp.head.skipped["sub/over.py"]
    assert f"{CAP + 1:,} characters" in why and f"{CAP:,}-character cap" in why
    assert report.files_skipped(inp.head, ())["sub/over.py"] == why
    assert "sub/at.py" not in report.files_skipped(inp.head, ())


def test_every_analysis_that_reads_python_passes_the_long_file_over(
        tmp_path, monkeypatch) -> None:
    inp = _inp(tmp_path, monkeypatch)
    done = run_all(inp)
    saw_at = {name for name, out in done.items() if "sub/at.py" in repr(out)}
    saw_over = {name for name, out in done.items() if "sub/over.py" in repr(out)}
    # The file at the cap is read by several analyses (the TODO, the unread field,
    # the unbound name, the untested class); the longer one by none.
    assert {"todos", "config_fields", "unbound_names", "coverage_gaps"} <= saw_at
    assert saw_over == set()


def test_history_keeps_the_cap(tmp_path, monkeypatch) -> None:
    inp = _inp(tmp_path, monkeypatch)
    git = GitRepo(tmp_path / "repo")
    texts = git.history(list(inp.commits) or [gitrepo.Commit(
        inp.head.commit, "2026-03-05", "head", ("sub/over.py", "sub/at.py"))],
        {"sub/over.py", "sub/at.py"})
    assert "sub/over.py" not in texts and [t for _, t in texts["sub/at.py"]]


def test_a_tree_built_by_hand_keeps_the_cap_and_leaves_other_files_whole(
        monkeypatch) -> None:
    monkeypatch.setattr(gitrepo, "MAX_PYTHON_CHARS", 10)
    given = {"a.py": "x = 1\n" * 3, "b.py": "x = 1\n", "notes.md": "words " * 10}
    tree = Tree("c0", frozenset(given), given, {"link.py": "a symbolic link"})
    assert set(tree.files) == {"b.py", "notes.md"}
    assert set(tree.skipped) == {"a.py", "link.py"}
    assert set(given) == {"a.py", "b.py", "notes.md"}  # the caller's dict is its own
    # One at the cap stays.
    at = Tree("c0", frozenset({"c.py"}), {"c.py": "y = 22\n# x"})
    assert len(at.files["c.py"]) == 10 and at.skipped == {}
    assert dataclasses.replace(tree).files == tree.files


def test_depth_bounds_still_hold_under_the_cap_and_nothing_raises(
        tmp_path, monkeypatch) -> None:
    deep = f"z = {'-' * DEEP}1\n"
    nested = "v = " + "[" * 160 + "]" * 160 + "\n"
    inp = _inp(tmp_path, monkeypatch, **{"sub/deep.py": deep, "sub/nested.py": nested})
    assert inp.head.text("sub/deep.py") == deep
    assert ps.parse(deep) is None and ps.parse(nested) is None
    skipped = report.files_skipped(inp.head, ())
    assert skipped["sub/deep.py"].startswith("not parsed: ")
    assert f"{ps.MAX_AST_DEPTH} levels" in skipped["sub/nested.py"]
    run_all(inp)


def test_parse_of_no_text_is_none_and_of_empty_text_a_module() -> None:
    assert ps.parse(None) is None
    assert ps.parse("") is not None


def _chain(depth: int) -> str:
    """A module whose tree is exactly ``depth`` levels deep: Module > Expr > a chain of
    unary minus (``UnaryOp`` > ``USub`` is the deepest leaf) ending in a constant."""
    return "-" * (depth - 3) + "1\n"


def _depth(node) -> int:
    import ast
    return 1 + max((_depth(c) for c in ast.iter_child_nodes(node)), default=0)


def test_the_depth_bound_is_exact_and_the_walk_it_takes_is_shared() -> None:
    """The depth check and the shared node walk are one pass: a tree exactly at
    ``MAX_AST_DEPTH`` parses, one level more does not, and ``nodes`` of a parsed module
    is the walk taken while checking it (the same nodes, in ``walk``'s order)."""
    import ast
    at, past = _chain(ps.MAX_AST_DEPTH), _chain(ps.MAX_AST_DEPTH + 1)
    assert _depth(ast.parse(at)) == ps.MAX_AST_DEPTH
    assert _depth(ast.parse(past)) == ps.MAX_AST_DEPTH + 1
    assert ps.parse(at) is not None
    assert ps.parse(past) is None
    assert ps.unparsed(past) == f"nested deeper than {ps.MAX_AST_DEPTH} levels"
    module = ps.parse(BODY + "\nclass Made:\n    def up(self, a=[1, (2, 3)]):\n"
                      "        return {k: v for k, v in a if k > -v}\n")
    assert module is not None
    shared = ps.nodes(module)
    assert shared is ps._NODES[id(module)][1]  # kept by parse: no second walk
    assert [id(n) for n in shared] == [id(n) for n in ps.walk(module)]
    assert ps._walk_within(module, 4) is None
    assert ps._walk_within(module, _depth(module)) is not None
