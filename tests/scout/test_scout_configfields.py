"""#22 group I (``configfields``): the sub-project's own config dataclasses against the
attributes code reads. Match: a field nothing reads (a namesake read on another class
does not count), a plain value ``__init__`` keeps and nothing reads, an attribute read
on the dataclass that only a non-constructor method sets, stated together with the dead
field it is set from. No-match: a read through an object of unstated type, a string key
naming the field, a generic read of all fields (``asdict``), an attribute set in
``__post_init__``, a read under ``hasattr``, a submodule built by a call, and a field a
subclass's method reads."""

from __future__ import annotations

from agentops.scout.analyses import configfields
from agentops.scout.itemize import configfields as items_of
from tests.scout import minirepo

CORE_TOKENS = '''\
class Vocab:
    def __init__(self):
        self.stop_token = 2


def stop_of(vocab: Vocab) -> int:
    return vocab.stop_token
'''

CORE_JOB = '''\
from dataclasses import dataclass, field


@dataclass
class Section:
    comm_mode: str = "plain"


@dataclass
class Job:
    width: int = 8
    section: Section = field(default_factory=Section)
'''

ARGS = '''\
from dataclasses import dataclass

from core.job import Job


@dataclass
class BlockArgs:
    width: int = 8
    stop_token: int = 0
    comm_mode: str = "plain"

    def update(self, job: Job) -> None:
        self.width = job.width
        self.engine = job.section.comm_mode
'''

MODEL = '''\
from core.tokens import Vocab
from sub.args import BlockArgs


class Layer:
    def __init__(self, args: BlockArgs):
        self.width = args.width
        self.ratio = self.width // 2
        self.proj = make(args.width)

    def forward(self, vocab: Vocab, x):
        return x[: self.width] + [vocab.stop_token]


class Router:
    def __init__(self, args: BlockArgs):
        self.engine = args.engine


def make(n):
    return n


def build() -> Layer:
    return Layer(BlockArgs())
'''


def _files(args: str = ARGS, model: str = MODEL, extra: dict[str, str] | None = None
           ) -> dict[str, str]:
    files = {"core/__init__.py": "", "core/tokens.py": CORE_TOKENS, "core/job.py": CORE_JOB,
             "sub/__init__.py": "",
             "sub/args.py": args, "sub/model.py": model}
    files.update(extra or {})
    return files


def _run(tmp_path, files):
    inp = minirepo.build(tmp_path, head=files)
    return inp, configfields.analyse(inp)


def test_dead_fields_kept_values_and_a_field_read_under_another_name(tmp_path) -> None:
    inp, found = _run(tmp_path, _files())
    dead = {(d.cls, d.name, d.kind, d.line) for d in found.dead}
    # stop_token is read only on a Vocab (a stated, unrelated type); ratio is kept by
    # __init__ and read by nothing; proj is built by a call (a component, not data).
    assert dead == {("BlockArgs", "stop_token", "field", 9),
                    ("Layer", "ratio", "attribute", 8)}
    [u] = found.undeclared
    assert (u.cls, u.name, u.reads, u.from_field) == (
        "BlockArgs", "engine", ("sub/model.py:17",), "comm_mode")
    assert u.set_in == ("update (sub/args.py:14)",)
    out = items_of.items(inp, {"config_fields": found})
    assert all(i.kind == "opportunity" for i in out)
    titles = " ".join(i.title for i in out)
    assert "`BlockArgs.stop_token` (args.py:9) is a field no code reads" in titles
    assert "`self.ratio` set by `Layer.__init__` (model.py:8) is read by no code" in titles
    assert "`engine` is read on `BlockArgs` (model.py:17)" in titles
    assert "only update (args.py:14) sets it" in titles and "`comm_mode`" in titles
    # The field read under another name is one finding, not also a dead field.
    assert "BlockArgs.comm_mode" not in titles


def test_reads_the_types_cannot_rule_out_keep_a_field_alive(tmp_path) -> None:
    untyped = MODEL + "\n\ndef stop(a):\n    return a.stop_token\n"
    _inp, found = _run(tmp_path / "a", _files(model=untyped))
    assert "stop_token" not in {d.name for d in found.dead}
    keyed = {"sub/keys.py": 'KEYS = {"eos": "stop_token"}\n'}
    _inp, found = _run(tmp_path / "b", _files(extra=keyed))
    assert "stop_token" not in {d.name for d in found.dead}
    generic = {"sub/dump.py": "from dataclasses import asdict\n\n\ndef dump(a):\n"
                              "    return asdict(a)\n"}
    _inp, found = _run(tmp_path / "c", _files(extra=generic))
    assert {d.name for d in found.dead if d.kind == "field"} == set()


def test_a_namesake_class_elsewhere_does_not_read_our_field(tmp_path) -> None:
    # Another folder's class of the same name reads its own `ratio`: not ours.
    other = {"core/layer.py": "class Layer:\n    def __init__(self):\n        self.ratio = 1\n"
                              "\n    def go(self):\n        return self.ratio\n"}
    _inp, found = _run(tmp_path, _files(extra=other))
    assert ("Layer", "ratio") in {(d.cls, d.name) for d in found.dead}


def test_attributes_set_when_built_or_read_under_a_guard_are_no_finding(tmp_path) -> None:
    post = ARGS.replace("    def update(self, job: Job) -> None:",
                        "    def __post_init__(self) -> None:\n        self.engine = "
                        "self.comm_mode\n\n    def update(self, job: Job) -> None:")
    _inp, found = _run(tmp_path / "a", _files(args=post))
    assert found.undeclared == ()
    guarded = MODEL.replace("        self.engine = args.engine",
                            "        if hasattr(args, 'engine'):\n"
                            "            self.engine = args.engine")
    _inp, found = _run(tmp_path / "b", _files(model=guarded))
    assert found.undeclared == ()


def test_a_field_a_subclass_method_reads_is_read(tmp_path) -> None:
    sub = {"sub/more.py": "from sub.args import BlockArgs\n\n\nclass WideArgs(BlockArgs):\n"
                          "    def stop(self):\n        return self.stop_token\n"}
    _inp, found = _run(tmp_path, _files(extra=sub))
    assert "stop_token" not in {d.name for d in found.dead}


# sc-fit12a (#22): an untyped read counts unless its own function shows another type;
# a read that only copies the value into an attribute nothing reads is no use.

def _dead(tmp_path, extra: dict[str, str], model: str = MODEL) -> set[tuple[str, str]]:
    _inp, found = _run(tmp_path, _files(model=model, extra=extra))
    return {(d.cls, d.name) for d in found.dead}


def test_an_untyped_object_used_as_something_else_does_not_read_the_field(tmp_path) -> None:
    feed = {"core/feed.py": "def feed(source, items):\n    source.reset()\n"
                            "    return [source.stop_token, *items]\n"}
    assert ("BlockArgs", "stop_token") in _dead(tmp_path, feed)


def test_an_untyped_object_that_may_be_the_class_still_reads_it(tmp_path) -> None:
    # Only members of the class read on it: it may be one.
    same = {"core/feed.py": "def feed(a):\n    return a.width + a.stop_token\n"}
    assert ("BlockArgs", "stop_token") not in _dead(tmp_path / "a", same)
    # Tested for its type, or rebound in the function: no verdict from its uses.
    tested = {"core/feed.py": "def feed(source):\n    if isinstance(source, int):\n"
                              "        return 0\n    source.reset()\n"
                              "    return source.stop_token\n"}
    assert ("BlockArgs", "stop_token") not in _dead(tmp_path / "b", tested)
    rebound = {"core/feed.py": "def feed(source, other):\n    source.reset()\n"
                               "    source = other\n    return source.stop_token\n"}
    assert ("BlockArgs", "stop_token") not in _dead(tmp_path / "c", rebound)


RUNNER = '''\
from sub.args import BlockArgs


class Runner:
    def __init__(self, cfg: BlockArgs):
        self.stop = cfg.stop_token
'''


def test_a_field_only_copied_into_an_attribute_nothing_reads_is_dead(tmp_path) -> None:
    inp, found = _run(tmp_path, _files(extra={"core/runner.py": RUNNER}))
    [d] = [d for d in found.dead if d.name == "stop_token"]
    assert d.copied_to == (("Runner.stop", "core/runner.py", 6),)
    [item] = [i for i in items_of.items(inp, {"config_fields": found})
              if "stop_token" in i.title]
    assert "its only reads copy it into `Runner.stop` (core/runner.py:6)" in item.title


def test_a_copy_someone_reads_is_a_read(tmp_path) -> None:
    used = RUNNER + "\n    def go(self):\n        return self.stop\n"
    assert ("BlockArgs", "stop_token") not in _dead(tmp_path, {"core/runner.py": used})


def test_a_copy_into_a_dead_attribute_of_the_folder_is_one_finding(tmp_path) -> None:
    head = {"sub/head.py": "from sub.args import BlockArgs\n\n\nclass Head:\n"
                           "    def __init__(self, args: BlockArgs):\n"
                           "        self.stop = args.stop_token\n\n\n"
                           "def make():\n    return Head(BlockArgs())\n"}
    dead = _dead(tmp_path, head)
    assert ("Head", "stop") in dead and ("BlockArgs", "stop_token") not in dead


def test_a_dict_entry_by_name_is_no_generic_read(tmp_path) -> None:
    keyed = {"sub/wrap.py": 'def mark(fn):\n    fn.__dict__.setdefault("count", 0)\n'
                            "    return fn\n"}
    assert ("BlockArgs", "stop_token") in _dead(tmp_path / "a", keyed)
    whole = {"sub/wrap.py": "def dump(a):\n    return a.__dict__\n"}
    assert ("BlockArgs", "stop_token") not in _dead(tmp_path / "b", whole)


def test_the_typing_budget_counts_files_not_names(tmp_path) -> None:
    inp = minirepo.build(tmp_path, head=_files())
    an = configfields._Analysis(inp)
    left = an._typed_left
    assert an.typed_budget("core/job.py", "width") and an.typed_budget("core/job.py", "section")
    assert an._typed_left == left - 1
    assert an.typed_budget("core/tokens.py", "width") and an._typed_left == left - 2
