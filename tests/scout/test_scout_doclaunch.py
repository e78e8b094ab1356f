"""#22 defect 7: a doc command that runs the launcher without the variable every other
command of the doc sets for it (``MODULE=sub.model``) runs the launcher's default
(``${MODULE:-"core"}``): a Docs finding with the command and ``file:line``. A doc whose
commands all set it, or whose commands disagree or keep the default, says nothing
checkable. Fixture trees, match and no-match."""

from __future__ import annotations

from agentops.scout.analyses import docclaims, doclaunch, docs
from tests import watchdog
from tests.scout import minirepo

LAUNCHER = '''\
#!/usr/bin/bash
NGPU=${NGPU:-"8"}
MODULE=${MODULE:-"core"}
CONFIG=${CONFIG:-"core_debug"}
torchrun --nproc_per_node=${NGPU} -m core.train --module ${MODULE} --config ${CONFIG} "$@"
'''
README = '''\
# Sub

```bash
MODULE=sub.model CONFIG=sub_debug NGPU=4 ./run_train.sh --sub.enable
```

```bash
MODULE=sub.model CONFIG=sub_debug NGPU=4 ./run_train.sh --sub.replica=1
```

For every option, run `NGPU=1 ./run_train.sh --help`.
'''


def _check(tmp_path, readme=README):
    inp = minirepo.build(tmp_path, head={"run_train.sh": LAUNCHER, "sub/README.md": readme,
                                         "sub/__init__.py": "", "core/train.py": ""},
                         target="docs: [sub/README.md]\n")
    return inp, doclaunch.check(inp)


def test_a_command_left_on_the_launchers_default_is_found(tmp_path) -> None:
    inp, [found] = _check(tmp_path)
    assert (found.file, found.line) == ("sub/README.md", 11)
    assert "`NGPU=1 ./run_train.sh --help`" in found.problem
    assert "MODULE=sub.model (default 'core')" in found.problem
    assert "CONFIG=sub_debug (default 'core_debug')" in found.problem
    assert "NGPU" not in found.problem.split("set", 1)[1]  # NGPU differs: not a selector
    assert any(p.line == 11 and "run_train.sh" in p.problem for p in docs.analyse(inp))


def test_commands_all_set_or_disagreeing_say_nothing(tmp_path) -> None:
    fixed = README.replace("`NGPU=1 ./run_train.sh --help`",
                           "`MODULE=sub.model CONFIG=sub_debug NGPU=1 ./run_train.sh --help`")
    assert _check(tmp_path / "a", fixed)[1] == []
    # One command runs core on purpose (MODULE=core, the default): no single value.
    mixed = README.replace("MODULE=sub.model CONFIG=sub_debug NGPU=4 ./run_train.sh "
                           "--sub.replica=1", "MODULE=core NGPU=4 ./run_train.sh")
    assert _check(tmp_path / "b", mixed)[1] == []


def test_a_launcher_of_blank_lines_is_read_in_linear_time(tmp_path) -> None:
    # Security: the defaults are still read after 100,000 blank lines that no line start
    # rescans (a watchdog, not a speed target: minutes with the old ``^\s*``).
    launcher = LAUNCHER + "\n" * 100_000 + "exit 0\n"
    inp = minirepo.build(tmp_path, head={"run_train.sh": launcher, "sub/README.md": README,
                                         "sub/__init__.py": "", "core/train.py": ""},
                         target="docs: [sub/README.md]\n")
    [found] = watchdog.within(watchdog.SECONDS, lambda: doclaunch.check(inp))
    assert "MODULE=sub.model (default 'core')" in found.problem


def test_the_doc_is_walked_by_the_fence_aware_iterator_the_doc_checks_share(
        tmp_path, monkeypatch) -> None:
    """Review (#22): one reader of fences for every doc check (docclaims.lines, as
    docdirection), so a doc's code blocks are the same blocks for all of them; a
    private copy of the fence toggle drifts when the shared one learns a new fence."""
    walked = []
    shared = docclaims.lines

    def spy(text):
        walked.append(text)
        yield from shared(text)

    monkeypatch.setattr(docclaims, "lines", spy)
    _inp, [found] = _check(tmp_path)
    assert walked == [README] and found.line == 11
