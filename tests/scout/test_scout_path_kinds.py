"""The two shared readings of what a file is: test code (`config.is_test_path`) and a
script run as a program (`pysource.has_main_block`). Several analyses leave such files
out; they now ask the same question the same way (#22, S-4)."""
from __future__ import annotations

import pytest

from agentops.scout.analyses import pysource as ps
from agentops.scout.config import is_test_path


@pytest.mark.parametrize("path", [
    "tests/unit/test_widget.py",
    "proj/experiments/zoo/tests/helpers.py",
    "proj/experiments/zoo/test_loader.py",
    "proj/experiments/zoo/loader_test.py",
])
def test_test_code_is_recognised(path: str) -> None:
    assert is_test_path(path)


@pytest.mark.parametrize("path", [
    "proj/experiments/zoo/loader.py",
    "proj/experiments/testing_tools/loader.py",   # a folder merely named like tests
    "proj/experiments/zoo/contest.py",
    "proj/experiments/zoo/latest_test_utils.py",  # "test" inside the name, not its form
])
def test_library_code_is_not_test_code(path: str) -> None:
    assert not is_test_path(path)


@pytest.mark.parametrize("src", [
    'def go():\n    pass\n\nif __name__ == "__main__":\n    go()\n',
    "if '__main__' == __name__:\n    print(1)\n",
])
def test_main_block_found(src: str) -> None:
    assert ps.has_main_block(ps.parse(src))


@pytest.mark.parametrize("src", [
    "def go():\n    pass\n",
    # a main guard nested in a function is no program entry of the module
    'def run():\n    if __name__ == "__main__":\n        pass\n',
    # a comparison with the string alone is not the module's own name test
    'mode = "x"\nif mode == "__main__":\n    pass\n',
])
def test_no_main_block(src: str) -> None:
    assert not ps.has_main_block(ps.parse(src))


def test_unparsable_module_has_no_main_block() -> None:
    assert not ps.has_main_block(None)


@pytest.mark.parametrize(("path", "code", "path_only"), [
    ("proj/experiments/zoo/test/helpers.py", True, False),   # a test/ folder
    ("proj/experiments/zoo/conftest.py", True, False),       # pytest's fixture module
    ("proj/experiments/zoo/tests/helpers.py", True, True),
    ("proj/experiments/zoo/attest/helpers.py", False, False),
    ("proj/experiments/zoo/conftest_utils.py", False, False),
])
def test_test_code_widens_test_path_by_test_folders_and_conftest(
        path: str, code: bool, path_only: bool) -> None:
    from agentops.scout.config import is_test_code
    assert is_test_code(path) is code
    assert is_test_path(path) is path_only


@pytest.mark.parametrize(("path", "dotted"), [
    ("proj/zoo/loader.py", "proj.zoo.loader"),
    ("proj/zoo/__init__.py", "proj.zoo"),
    ("setup.py", "setup"),
])
def test_module_name_is_the_inverse_of_module_path(path: str, dotted: str) -> None:
    assert ps.module_name(path) == dotted
    assert ps.module_path(dotted, {path}) == path


def test_comments_are_tokens_with_their_line_and_whether_they_stand_alone() -> None:
    # One reader of a file's comments (pysource.comments) for docmembers and
    # commentconds: a '#' inside a string is no comment; a trailing comment is not alone.
    text = ('URL = "http://host/#frag"  # trailing note\n'
            "\n"
            "    # indented, alone\n"
            "x = 1\n")
    got = [(c.line, c.text, c.alone) for c in ps.comments(text)]
    assert got == [(1, "# trailing note", False), (3, "# indented, alone", True)]


def test_text_that_does_not_tokenize_has_no_comments() -> None:
    assert ps.comments('s = """never closed\n# inside the string\n') == []
