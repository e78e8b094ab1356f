"""Issue #25 item 1: a verb offers only the flags it uses. ``versions`` and ``plan`` used
to accept (and list in --help) ``--commit-source`` and ``--repo``, then ignore them.

Which flags a verb *uses* is read from the code, not listed by hand: every attribute
of the parsed arguments that the verb's function reads, directly or through the
functions and ``Session`` methods it calls (transitively, across agentops.bisect).
Each flag its ``--help`` shows must be among them.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
from pathlib import Path

import pytest

from scripts import nightly_bisect

PACKAGE = Path(nightly_bisect.__file__).resolve().parents[1] / "src" / "agentops" / "bisect"
ARGS_NAMES = {"args", "a"}  # how the verbs name the parsed arguments


def _functions() -> tuple[dict[str, list[ast.AST]], dict[str, list[ast.AST]]]:
    """Module-level functions and class methods of agentops.bisect, each by name."""
    funcs: dict[str, list[ast.AST]] = {}
    methods: dict[str, list[ast.AST]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for top in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)):
                funcs.setdefault(top.name, []).append(top)
            elif isinstance(top, ast.ClassDef):
                for node in top.body:
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        methods.setdefault(node.name, []).append(node)
                methods.setdefault(top.name, []).extend(
                    n for n in top.body if isinstance(n, ast.FunctionDef)
                    and n.name == "__init__")
    return funcs, methods


def _is_args(node: ast.AST) -> bool:
    """``args``, ``a``, ``self.args`` or ``session.args``."""
    if isinstance(node, ast.Name):
        return node.id in ARGS_NAMES
    return isinstance(node, ast.Attribute) and node.attr == "args"


def _on_session(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "session")


def _reads(entry: str) -> set[str]:
    """Attributes of the parsed arguments read by ``entry`` and what it calls:
    ``f()`` and ``module.f()`` reach module-level functions, ``session.m``/``self.m``
    (a call or a property) reach methods, ``Session(...)`` its ``__init__``."""
    funcs, methods = _functions()
    seen: set[int] = set()
    todo = list(funcs.get(entry, []))
    reads: set[str] = set()
    while todo:
        fn = todo.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        for node in ast.walk(fn):
            if isinstance(node, ast.Attribute):
                if _is_args(node.value):
                    reads.add(node.attr)
                elif _on_session(node.value):
                    todo += methods.get(node.attr, [])
                elif isinstance(node.value, ast.Name):
                    todo += funcs.get(node.attr, [])  # idx.find(...), rg.split(...)
            elif isinstance(node, ast.Name):
                todo += funcs.get(node.id, []) + (methods.get(node.id, [])
                                                  if node.id == "Session" else [])
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id == "getattr" and len(node.args) >= 2
                  and _is_args(node.args[0]) and isinstance(node.args[1], ast.Constant)):
                reads.add(str(node.args[1].value))
    return reads


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = nightly_bisect.build()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _shown_flags(sub: argparse.ArgumentParser) -> dict[str, str]:
    """Flag -> dest of every option --help lists."""
    return {a.option_strings[-1]: a.dest for a in sub._actions
            if a.option_strings and a.help != argparse.SUPPRESS and a.dest != "help"}


VERBS = sorted(_subparsers())


@pytest.mark.parametrize("verb", VERBS)
def test_every_flag_a_verb_lists_is_one_it_reads(verb):
    sub = _subparsers()[verb]
    reads = _reads(f"{verb}_command")
    unused = sorted(flag for flag, dest in _shown_flags(sub).items() if dest not in reads)
    assert unused == [], f"{verb} --help lists flags it never reads: {unused}"
    # And --help itself shows exactly those flags.
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), pytest.raises(SystemExit):
        sub.parse_args(["--help"])
    for flag in _shown_flags(sub):
        assert flag in buf.getvalue()


@pytest.mark.parametrize("verb", ["versions", "plan", "probe"])
def test_verbs_that_read_no_commit_do_not_offer_the_commit_flags(verb, capsys):
    sub = _subparsers()[verb]
    assert not {"--commit-source", "--repo"} & set(_shown_flags(sub))
    assert nightly_bisect.main([verb, "--commit-source", "branch"]) == 2
    assert "unrecognized arguments: --commit-source branch" in capsys.readouterr().err


@pytest.mark.parametrize("verb", ["resolve", "range", "narrow", "auto"])
def test_verbs_that_read_a_commit_offer_and_read_the_commit_flags(verb):
    assert {"--commit-source", "--repo"} <= set(_shown_flags(_subparsers()[verb]))
    assert {"commit_source", "repo"} <= _reads(f"{verb}_command")


def test_the_reader_sees_a_flag_only_a_callee_reads():
    # Sanity of the analysis itself: plan reads --width directly, --variant only inside
    # Session.nightlies and --page-cache only in Session.__init__.
    assert {"width", "variant", "page_cache", "index_url"} <= _reads("plan_command")
    assert "commit_source" not in _reads("plan_command")
