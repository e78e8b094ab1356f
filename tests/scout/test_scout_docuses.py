"""#22 defect 7 (S-5): prose about what a definition stopped doing in the window
(``docuses``): a use of its own object's member or of the folder's own function that the
window removed while an unchanged comment or docstring still names it, and a value the
function no longer hands to the keyword its prose links it with; and the no-match cases
(the name moved to a helper, the prose rewritten in the window, the hand-over kept, an
unchanged tree, a line another check already reports)."""

from __future__ import annotations

from agentops.scout.analyses import docuses
from agentops.scout.itemize import docs as doc_items
from tests.scout import minirepo

PACKER_OLD = '''\
class Packer:
    def __init__(self, width):
        self.width = width
        self.hood = Hood(width)
        self.tray = Tray(width)

    def _shrink(self, crates):
        return [c // 2 for c in crates]

    def pack(self, crates):
        """Fill the tray.

        1. First shrink every crate to half its size.
        2. Stack the crates by width.
        """
        crates = self._shrink(crates)
        return sorted(crates, key=lambda c: c % self.width)

    def seal(self):
        # the tray and hood.hinge move together once sealed
        self.tray.hinge = self.hood.hinge
        return self.tray
'''

PACKER_NEW = '''\
class Packer:
    def __init__(self, width):
        self.width = width
        self.canopy = Canopy(width)
        self.tray = Tray(width)

    def pack(self, crates):
        """Fill the tray.

        1. First shrink every crate to half its size.
        2. Stack the crates by width.
        """
        return sorted(crates, key=lambda c: c % self.width)

    def seal(self):
        # the tray and hood.hinge move together once sealed
        self.tray.hinge = self.canopy.hinge
        return self.tray
'''

SPAWN_OLD = '''\
def start_workers(pool, count, *, extra_vars=None):
    """Start ``count`` workers in ``pool``.

    ``extra_vars`` are set in each worker's setup hook.
    """
    return pool.launch(count, setup=make_setup(count, extra_vars))
'''

SPAWN_NEW = '''\
def start_workers(pool, count, *, setup, extra_vars=None):
    """Start ``count`` workers in ``pool``.

    ``extra_vars`` are set in each worker's setup hook.
    """
    env = make_env(count, extra_vars)
    return pool.launch(count, setup=setup, command=with_env(env))
'''


def _inp(tmp_path, base: dict[str, str], head: dict[str, str | None]):
    return minirepo.build(tmp_path, base={"sub/__init__.py": "", **base}, head=head)


def test_prose_naming_a_use_the_window_removed(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/packer.py": PACKER_OLD}, {"sub/packer.py": PACKER_NEW})
    got = docuses.analyse(inp)
    assert [(p.file, p.line) for p in got] == [("sub/packer.py", 10), ("sub/packer.py", 16)]
    by_line = {p.line: p.problem for p in got}
    # the own method the docstring's step stood for, and the renamed member in a comment
    assert "`Packer.pack`" in by_line[10] and "`self._shrink`" in by_line[10]
    assert "docstring" in by_line[10] and "`shrink`" in by_line[10]
    assert "`Packer.seal`" in by_line[16] and "`hood.hinge`" in by_line[16]
    assert "`self.hood`" in by_line[16]
    items = doc_items.items(inp, {"doc_inaccuracies": got})
    assert [i.kind for i in items] == ["docs", "docs"]
    assert items[0].title.startswith("`sub/packer.py:10`")


def test_a_value_no_longer_handed_to_the_keyword_its_prose_names(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/spawn.py": SPAWN_OLD}, {"sub/spawn.py": SPAWN_NEW})
    got = docuses.analyse(inp)
    assert [(p.file, p.line) for p in got] == [("sub/spawn.py", 4)]
    assert "`extra_vars` handed to `setup=` of `pool.launch`" in got[0].problem


def test_a_hand_over_kept_is_no_finding(tmp_path) -> None:
    kept = SPAWN_NEW.replace("setup=setup", "setup=make_setup(count, extra_vars)")
    inp = _inp(tmp_path, {"sub/spawn.py": SPAWN_OLD}, {"sub/spawn.py": kept})
    assert docuses.analyse(inp) == []


def test_a_name_moved_to_a_helper_is_not_removed(tmp_path) -> None:
    # the folder still spells both names at HEAD (a helper module, another member)
    helper = "def _shrink(crates):\n    return crates\n\n\ndef hood(x):\n    return x\n"
    inp = _inp(tmp_path, {"sub/packer.py": PACKER_OLD},
               {"sub/packer.py": PACKER_NEW, "sub/helpers.py": helper})
    assert docuses.analyse(inp) == []


def test_prose_rewritten_in_the_window_is_the_authors_new_statement(tmp_path) -> None:
    rewritten = PACKER_NEW.replace("shrink every crate", "shrink each crate").replace(
        "and hood.hinge move", "and the hood.hinge now move")
    inp = _inp(tmp_path, {"sub/packer.py": PACKER_OLD}, {"sub/packer.py": rewritten})
    assert docuses.analyse(inp) == []


def test_an_unchanged_tree_and_lines_already_reported(tmp_path) -> None:
    same = _inp(tmp_path / "same", {"sub/packer.py": PACKER_NEW}, {})
    assert docuses.analyse(same) == []
    inp = _inp(tmp_path / "seen", {"sub/packer.py": PACKER_OLD}, {"sub/packer.py": PACKER_NEW})
    got = docuses.analyse(inp, {("sub/packer.py", 10)})
    assert [(p.file, p.line) for p in got] == [("sub/packer.py", 16)]


def test_a_file_that_does_not_parse_is_skipped_alone(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/a_broken.py": "def half(:\n", "sub/packer.py": PACKER_OLD},
               {"sub/packer.py": PACKER_NEW})
    assert [p.line for p in docuses.analyse(inp)] == [10, 16]
