"""#22 defect 7 (S-5): a comment pinning a definition to the commit it follows
(``docpins``), while a repository class it is built from changed after the pin; and the
no-match cases (a pin written in the window, a hash inside a link, a change to a name the
definition does not use, a definition that uses nothing from the repository, an
unchanged tree)."""

from __future__ import annotations

from agentops.scout.analyses import docpins
from agentops.scout.itemize import docs as doc_items
from tests.scout import minirepo

CORE_OLD = '''\
from dataclasses import dataclass


@dataclass
class Section:
    size: int = 1


def helper():
    return 1
'''

CORE_NEW = '''\
from dataclasses import dataclass


@dataclass
class Section:
    size: int = 1
    depth: int = 2


@dataclass
class Extra:
    flag: bool = False


def helper():
    return 2
'''

MIRROR = '''\
from dataclasses import dataclass, field

from core.settings import Extra, Section, helper


# Kept in step with the main tree at 4f1e9a27c0
@dataclass
class MirrorConf:
    section: Section = field(default_factory=Section)
    extra: Extra = field(default_factory=Extra)


def local_only():
    """Rewritten after a1b2c3d4e5 to need no helper."""
    return 3


# see https://example.com/blob/9c8b7a6d5e4f/file.py for the original
class Linked:
    section: Section
'''

MIRROR_OLD = MIRROR.replace("Extra, ", "").replace(
    "    extra: Extra = field(default_factory=Extra)\n", "")


def test_a_pin_older_than_a_change_of_what_the_definition_uses(tmp_path) -> None:
    inp = minirepo.build(tmp_path, base={"core/settings.py": CORE_OLD,
                                         "sub/__init__.py": "", "sub/conf.py": MIRROR_OLD},
                         head={"core/settings.py": CORE_NEW, "sub/conf.py": MIRROR})
    got = docpins.analyse(inp)
    assert [(p.file, p.line) for p in got] == [("sub/conf.py", 6)]
    text = got[0].problem
    assert "`MirrorConf`" in text and "4f1e9a27c0" in text
    assert "`Extra` (new since)" in text and "`Section` (+depth)" in text
    assert "`core/settings.py`" in text
    # `helper` changed too, but the pinned class does not use it; the pin in the link
    # and the one of the function that uses nothing of the repository are not judged.
    assert "helper" not in text
    items = doc_items.items(inp, {"doc_inaccuracies": got})
    assert [i.kind for i in items] == ["docs"]
    assert items[0].title.startswith("`sub/conf.py:6`")


def test_a_pin_written_in_the_window_is_not_judged(tmp_path) -> None:
    plain = MIRROR_OLD.replace("# Kept in step with the main tree at 4f1e9a27c0\n", "")
    inp = minirepo.build(tmp_path, base={"core/settings.py": CORE_OLD,
                                         "sub/__init__.py": "", "sub/conf.py": plain},
                         head={"core/settings.py": CORE_NEW, "sub/conf.py": MIRROR})
    assert docpins.analyse(inp) == []


def test_no_change_to_the_names_used_is_no_finding(tmp_path) -> None:
    only_helper = CORE_OLD.replace("return 1", "return 5")
    inp = minirepo.build(tmp_path, base={"core/settings.py": CORE_OLD,
                                         "sub/__init__.py": "", "sub/conf.py": MIRROR_OLD},
                         head={"core/settings.py": only_helper})
    assert docpins.analyse(inp) == []


def test_an_unchanged_tree_has_no_finding(tmp_path) -> None:
    files = {"core/settings.py": CORE_NEW, "sub/__init__.py": "", "sub/conf.py": MIRROR}
    inp = minirepo.build(tmp_path, base=files, head={})
    assert docpins.analyse(inp) == []


def test_pins_are_hex_with_letters_and_digits_outside_links() -> None:
    assert docpins._pins("# in step with 4f1e9a27c0") == ["4f1e9a27c0"]
    assert docpins._pins("# rope_theta 1000000 and deadbeefcafe") == []
    assert docpins._pins("# https://example.com/blob/4f1e9a27c0/x.py") == []


def test_a_file_that_does_not_parse_hides_no_other_files_pin(tmp_path) -> None:
    # Repository content is untrusted (docs/security.md): a file of the folder that does
    # not parse, or is nested past the parser's bound, is skipped on its own; the pins of
    # the files after it (path order) are still judged.
    broken = "# Kept in step with the main tree at 4f1e9a27c0\ndef half(:\n"
    deep = "# Kept in step with the main tree at 4f1e9a27c0\nx = " + "(" * 400 + ")" * 400 + "\n"
    for bad in (broken, deep):
        inp = minirepo.build(tmp_path / str(len(bad)),
                             base={"core/settings.py": CORE_OLD, "sub/__init__.py": "",
                                   "sub/a_first.py": bad, "sub/conf.py": MIRROR_OLD},
                             head={"core/settings.py": CORE_NEW, "sub/conf.py": MIRROR})
        got = docpins.analyse(inp)
        assert [(p.file, p.line) for p in got] == [("sub/conf.py", 6)]
