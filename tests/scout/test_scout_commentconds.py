"""#22 a comment stating a condition for the code under it that the code does not test
(``commentconds``). Match: a comment opening with a condition that names a setting of the
folder over an ``if`` testing no part of it; a comment limiting the next keyword value
with "only when" over a constant. No-match: the ``if`` tests the setting or a word of the
clause;
the clause names no setting the folder spells; the value depends on the condition or is
``None``; no "only"; a test file; a ``#`` inside a string. All trees and comments are made up."""

from __future__ import annotations

from agentops.scout.analyses import commentconds
from agentops.scout.itemize import commentconds as items
from tests.scout import minirepo

CONFIG = '''\
from dataclasses import dataclass


@dataclass
class Knobs:
    enable_mirror_cache: bool = False
    spawned_by_scheduler: bool = False
'''


def _store(guard: str) -> str:
    return f'''\
class Store:
    def __init__(self, knobs, buffer):
        self.knobs = knobs
        self.buffer = buffer

    def fill(self):
        # If mirror cache is on, the loader fills the buffer for us
        {guard}
            self.buffer.clear()
'''


def _link(value: str, comment: str = "# Choose the relay transport only when spawned by "
          "the scheduler; local runs keep the default") -> str:
    return f'''\
def connect(open_link, spawned):
    return open_link(
        host="box",
        {comment}
        transport={value},
    )
'''


def _run(tmp_path, files: dict[str, str]):
    inp = minirepo.build(tmp_path, head={"sub/knobs.py": CONFIG, **files})
    return inp, commentconds.analyse(inp)


def test_a_guard_testing_nothing_the_comment_names_is_found(tmp_path) -> None:
    inp, [c] = _run(tmp_path, {"sub/store.py": _store("if self.buffer is not None:")})
    assert (c.file, c.line, c.code_line, c.form) == ("sub/store.py", 7, 8, "guard")
    assert c.setting == "enable_mirror_cache" and c.clause == "mirror cache is on"
    assert c.tested == ("buffer", "self")
    [item] = items.items(inp, {"comment_conditions": [c]})
    assert item.kind == "opportunity" and item.section == "S-4"
    assert item.title == ("The comment at store.py:7 makes the code under it depend on "
                          "`enable_mirror_cache` (\"mirror cache is on\"), but the `if` at :8 "
                          "tests `buffer`, `self`: its branch runs whether "
                          "`enable_mirror_cache` is on or off")
    assert item.where == "sub/store.py:7" and item.facts == ("enable_mirror_cache",)


def test_a_guard_reading_the_setting_or_a_word_of_the_clause_is_not(tmp_path) -> None:
    guards = ("if self.knobs.enable_mirror_cache:", "if not self.mirror_ready:",
              "if self.loader_on:")
    for n, guard in enumerate(guards):
        _inp, found = _run(tmp_path / str(n), {"sub/store.py": _store(guard)})
        assert found == [], guard


def test_a_clause_naming_no_setting_of_the_folder_is_not_judged(tmp_path) -> None:
    text = _store("if self.buffer is not None:").replace("mirror cache is on", "disk is slow")
    assert _run(tmp_path, {"sub/store.py": text})[1] == []


def test_a_constant_the_comment_limits_with_only_when_is_found(tmp_path) -> None:
    inp, [c] = _run(tmp_path, {"sub/link.py": _link('("relay")')})
    assert (c.file, c.line, c.code_line, c.form) == ("sub/link.py", 4, 5, "constant")
    assert (c.target, c.value, c.clause) == ("transport", "relay", "spawned by the scheduler")
    [item] = items.items(inp, {"comment_conditions": [c]})
    assert item.title == ("The comment at link.py:4 limits `transport` = `relay` to a "
                          "condition (\"spawned by the scheduler\"), but the value at :5 is "
                          "a constant: it applies in every run")
    assert item.facts == ("transport", "relay")


def test_a_value_depending_on_the_condition_or_no_only_is_not(tmp_path) -> None:
    cases = (_link('"relay" if spawned else "local"'), _link("None"),
             _link('"relay"', comment="# Choose the relay transport when spawned"))
    for n, text in enumerate(cases):
        assert _run(tmp_path / str(n), {"sub/link.py": text})[1] == [], text


def test_tests_and_hash_signs_inside_strings_are_not_comments(tmp_path) -> None:
    # A line opening with ``#`` inside a string, right above a statement.
    inside = 'NOTE = """\n# Pick x only when asked"""\nmode = "x"\n'
    files = {"sub/tests/test_link.py": _link('"relay"'), "sub/notes.py": inside}
    assert _run(tmp_path, files)[1] == []
