"""#22 defect 7, S-5: the guide one folder up that points at the sub-project's folder as
the example its sibling folders follow is checked with the configured docs, also when a
target drafted before ``init`` added such guides does not list it. Each case with its
no-match: a guide that links the folder without calling it the example, or that points
at a sibling folder, is not taken in."""

from __future__ import annotations

from agentops.scout.analyses import docparts
from agentops.scout.config import load_target
from agentops.scout.gitrepo import Tree
from agentops.scout.report import _wanted, _with_guides

TARGET = """\
name: nested
repo: o/r
subproject: pkg/kinds/alpha
tests_dir: tests
watched_paths: [pkg/core/]
workflows: [.github/workflows/ci.yaml]
"""
GUIDE = ("Adding a kind\n\nSee the [Alpha kind](alpha) as an example of the layout.\n\n"
         "The folder should contain\n- `shape.py`\n- `wiring.py`\n")


def _target(tmp_path, extra: str = ""):
    path = tmp_path / "target.yaml"
    path.write_text(TARGET + extra, encoding="utf-8")
    return load_target(str(path))


def _tree(files: dict[str, str]) -> Tree:
    paths = {"pkg/kinds/alpha/shape.py", "pkg/kinds/beta/shape.py", *files}
    return Tree(commit="c", paths=frozenset(paths), files=dict(files))


def test_the_example_guide_one_folder_up_is_found() -> None:
    tree = _tree({"pkg/kinds/GUIDE.md": GUIDE, "pkg/kinds/NOTES.md": "nothing here\n"})
    assert docparts.example_guides(tree.paths, tree.text, "pkg/kinds/alpha") == [
        "pkg/kinds/GUIDE.md"]


def test_a_guide_about_another_folder_or_a_plain_link_is_not() -> None:
    plain = "The [Alpha kind](alpha) is one of several.\n"
    tree = _tree({"pkg/kinds/GUIDE.md": GUIDE, "pkg/kinds/LIST.md": plain,
                  "pkg/GUIDE.md": GUIDE})
    # Pointing at alpha: nothing for beta; a plain link is no example; a guide two
    # folders up resolves its link elsewhere.
    assert docparts.example_guides(tree.paths, tree.text, "pkg/kinds/beta") == []
    assert docparts.example_guides(tree.paths, tree.text, "pkg/kinds/alpha") == [
        "pkg/kinds/GUIDE.md"]


def test_the_report_adds_the_guide_once_and_loads_markdown_one_folder_up(tmp_path) -> None:
    tree = _tree({"pkg/kinds/GUIDE.md": GUIDE})
    bare = _target(tmp_path)
    assert _with_guides(bare, tree).docs == ("pkg/kinds/GUIDE.md",)
    listed = _target(tmp_path, "docs: [pkg/kinds/GUIDE.md]\n")
    assert _with_guides(listed, tree) is listed
    want = _wanted(bare)
    assert want("pkg/kinds/GUIDE.md")
    assert not want("pkg/OTHER.md") and not want("pkg/kinds/beta/x.md")


def test_example_guides_read_only_markdown_one_folder_up_once_each(tmp_path) -> None:
    twice = GUIDE + "\nThe [Alpha kind](/pkg/kinds/alpha/) is again the example.\n"
    tree = _tree({"pkg/kinds/GUIDE.md": twice, "pkg/kinds/GUIDE.txt": GUIDE,
                  "pkg/kinds/ABS.md": "Copy the [kind](/pkg/kinds/alpha) as an example.\n"})
    # An absolute link resolves from the repository's root; a guide naming the example
    # twice is listed once; a text file is no guide; a path not loaded reads as empty.
    tree = Tree(commit="c", paths=tree.paths | {"pkg/kinds/UNLOADED.md"}, files=tree.files)
    assert docparts.example_guides(tree.paths, tree.text, "pkg/kinds/alpha") == [
        "pkg/kinds/ABS.md", "pkg/kinds/GUIDE.md"]
    # A folder at the repository's root has no folder one up: its guides are the docs.
    root = Tree(commit="c", paths=frozenset({"alpha/x.py", "README.md"}),
                files={"README.md": "See the [Alpha kind](alpha) as an example.\n"})
    assert docparts.example_guides(root.paths, root.text, "alpha") == []


def test_the_report_loads_code_scripts_workflows_docs_and_the_folders_configs(
        tmp_path) -> None:
    want = _wanted(_target(tmp_path, "docs: [notes/guide.txt]\n"))
    assert all(want(p) for p in (
        "lib/a.py", "lib/run.sh", "notes/guide.txt", ".github/workflows/other.yml",
        "pkg/kinds/alpha/NOTES.md", "README.md", "pkg/kinds/GUIDE.md",
        "pkg/kinds/alpha/cfg.toml"))
    assert not any(want(p) for p in (
        "notes/other.txt", ".github/workflows/notes.txt", "conf/ci.yml", "pkg/OTHER.md",
        "pkg/kinds/alpha.txt", "pkg/cfg.toml", "pkg/kinds/alpha/cfg.json"))
