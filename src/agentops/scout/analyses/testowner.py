"""Whose CI a test or a CI step is (#22): the ownership rule every CI finding and
``init``'s workflow/test selection share.

A test file, runner or pytest target belongs to the folder its tests live in: the part
of its path before its first test folder (``tests``, ``test``, ``*_tests``), else the
folder holding it. Against a target sub-project that folder is

- ``own``: the sub-project's folder or one inside it;
- ``shared``: the repository root or a folder that holds the sub-project (``tests/`` at
  the root, ``torchtitan/`` for ``torchtitan/models/x``) — such a tree holds tests of
  many folders, and which of them are the sub-project's is the target's ``tests_dir`` /
  ``test_glob`` (``init`` drafts the files that import the package);
- ``foreign``: any other folder (``experiments/<other>/``, ``models/<other>/``): another
  sub-project's tests, even when they import this one. A workflow step that selects
  only such tests is that sub-project's CI; its gaps belong in that sub-project's
  report, and here at most in one FYI line naming the workflow.

A file elsewhere that is no test (not named like one, not in a test folder: a
``.github/scripts/*.sh`` launcher, a training module) is nobody's tests: ``shared``.

Also how a test names the folder it runs (``launch_pattern``), which the no-own-tests
FYI and the to-do check (``doctodotests``) share.

Pure: paths in, a word out.
"""

from __future__ import annotations

import re

OWN = "own"
SHARED = "shared"
FOREIGN = "foreign"


def launch_pattern(name: str) -> re.Pattern[str]:
    """``--module NAME`` / ``--module=NAME`` / ``"--module", "NAME"`` on one line: a test
    that runs the folder by its name (an integration test definition, a config test).
    The flag starts after a non-dash and is at most 81 characters: ``--[\\w.-]+``
    backtracked quadratically on a run of dashes in a test file (16,000: 36 s)."""
    return re.compile(r"(?<!-)--\w[\w.-]{0,80}(?:[ \t]+|=|[\"'],[ \t]*[\"'])" + re.escape(name)
                      + r"(?![\w.])")


def _is_test_folder(name: str) -> bool:
    return name in ("tests", "test") or name.endswith("_tests")


def home(path: str, *, is_dir: bool = False) -> str:
    """The folder a test file (or a folder of tests) belongs to: the path before its
    first test folder, else the file's folder (the folder itself for ``is_dir``); ""
    for the repository root."""
    parts = [p for p in path.strip("/").split("/") if p and p != "."]
    folders = parts if is_dir else parts[:-1]
    for i, name in enumerate(folders):
        if _is_test_folder(name):
            return "/".join(parts[:i])
    return "/".join(folders)


def in_test_folder(path: str) -> bool:
    """Whether a file lies in a test folder (not merely in a folder holding tests)."""
    return any(_is_test_folder(p) for p in path.strip("/").split("/")[:-1])


def relation(path: str, subproject: str, *, is_dir: bool = False) -> str:
    """``own`` / ``shared`` / ``foreign`` of a test path for ``subproject``."""
    sub = subproject.strip("/")
    p = path.strip("/").removeprefix("./")
    if p == sub or p.startswith(sub + "/"):
        return OWN
    if is_dir and (not p or sub.startswith(p + "/")):
        return SHARED  # a folder holding the sub-project: pytest there collects its tests
    folder = home(p, is_dir=is_dir)
    if not folder or sub.startswith(folder + "/"):
        return SHARED
    if not is_dir and not (in_test_folder(p) or _test_named(p)):
        return SHARED  # a script or module, not a test: no sub-project's tests
    return FOREIGN


def _test_named(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name.startswith("test_") or name.removesuffix(".py").endswith("_test")


def module_path(target: str) -> str:
    """A dotted module (``a.b.tests.run``) as the path it names (``a/b/tests/run``);
    a path stays as it is."""
    t = target.removeprefix("pyargs:").split("::")[0].removeprefix("./")
    if "/" not in t and not t.endswith(".py") and "." in t:
        return t.replace(".", "/")
    return t


def owner_of(path: str, *, is_dir: bool = False) -> str:
    """The folder named in a foreign finding ("the repository root" for "")."""
    return home(path, is_dir=is_dir) or "the repository root"
