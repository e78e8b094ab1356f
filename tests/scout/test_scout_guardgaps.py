"""#22 defect 6 (``guardgaps``): a setting no refusal covers as it should. Match: a check
reads a shared property whose comment gives a switchable feature as the reason and
never reads the switch; a refusal the folder reached through a shared builder at the
baseline is gone at HEAD; a catch-all arm runs a path for a value other code dispatches
on. No-match: the check tests the switch, the folder never reads the switch, the comment
names no switch; HEAD still refuses the pair or still calls the builder; the folder
refuses the rest in another dispatch, or no other code names another value."""

from __future__ import annotations

import dataclasses

from agentops.scout.analyses import guardgaps
from agentops.scout.itemize import guardgaps as items_of
from tests.scout import minirepo

DIMS = '''\
class Dims:
    width: int = 1
    rounds: int = 1

    @property
    def block_divisor(self):
        # Split mode needs the length to be a multiple of the width.
        return self.width * self.rounds
'''

OPTS = '''\
from dataclasses import dataclass


@dataclass
class Opts:
    enable_split_mode: bool = True
    length: int = 64
'''

CHECK = '''\
def setup(opts, dims, model):
    assert opts.length % dims.block_divisor == 0, "length must divide evenly"
    if opts.enable_split_mode:
        model.split()
    return model
'''


def _inp(tmp_path, head: dict[str, str], base: dict[str, str] | None = None):
    common = {"core/__init__.py": "", "proj/__init__.py": "", "proj/ours/__init__.py": ""}
    inp = minirepo.build(tmp_path, base={**common, **(base or {})}, head=head)
    return dataclasses.replace(inp, target=dataclasses.replace(inp.target,
                                                               subproject="proj/ours"))


def _reason_files(check: str = CHECK, dims: str = DIMS) -> dict[str, str]:
    return {"core/dims.py": dims, "core/opts.py": OPTS, "proj/ours/setup.py": check}


def test_a_check_stricter_than_the_reason_its_property_gives(tmp_path) -> None:
    inp = _inp(tmp_path, _reason_files())
    [g] = guardgaps.analyse(inp)
    assert (g.form, g.file, g.line) == ("reason", "proj/ours/setup.py", 2)
    assert (g.setting, g.detail, g.elsewhere) == ("enable_split_mode", "block_divisor",
                                                  ("core/dims.py:6",))
    [item] = items_of.items(inp, {"guard_gaps": [g]})
    assert item.kind == "opportunity" and item.where == "proj/ours/setup.py:2"
    assert "`block_divisor`" in item.title and "`enable_split_mode`" in item.title


def test_no_reason_gap_when_the_switch_is_tested_unread_or_unnamed(tmp_path) -> None:
    guarded = CHECK.replace("    assert", "    if opts.enable_split_mode:\n        assert")
    assert guardgaps.analyse(_inp(tmp_path / "a", _reason_files(guarded))) == []
    # The folder never reads the switch: the feature is always on here.
    always = CHECK.replace("if opts.enable_split_mode:", "if opts.length:")
    assert guardgaps.analyse(_inp(tmp_path / "b", _reason_files(always))) == []
    # Another module of the folder reads the switch, the check's own module never does.
    files = _reason_files(always)
    files["proj/ours/other.py"] = "def pick(opts):\n    return opts.enable_split_mode\n"
    assert guardgaps.analyse(_inp(tmp_path / "d", files)) == []
    # The property's comment names no switchable feature.
    plain = DIMS.replace("Split mode needs", "The kernel needs")
    assert guardgaps.analyse(_inp(tmp_path / "c", _reason_files(dims=plain))) == []


BUILDER = '''\
def make_mixer(fast, kind, block=None):
    if fast:
        return "fast"
    else:
        if block is not None:
            raise ValueError("no block size on the slow path")
        if kind != "plain":
            raise ValueError("the slow path mixes plainly only")
        return "slow"
'''

USES_BUILDER = '''\
from core.mixers import make_mixer


class Mixer:
    def __init__(self, args):
        self.inner = make_mixer(args.fast, args.kind)
'''

BUILDS_ITSELF = '''\
class Mixer:
    def __init__(self, args):
        self.inner = "fast" if args.fast else "slow"
'''


def test_a_refusal_lost_with_the_shared_builder(tmp_path) -> None:
    base = {"core/mixers.py": BUILDER, "proj/ours/mix.py": USES_BUILDER}
    inp = _inp(tmp_path, {"core/mixers.py": None, "proj/ours/mix.py": BUILDS_ITSELF}, base)
    [g] = guardgaps.analyse(inp)
    assert (g.form, g.file, g.line, g.path) == ("lost", "proj/ours/mix.py", 6, "make_mixer")
    assert g.setting == "fast, kind"
    assert g.detail == "kind != 'plain' and not fast"
    assert g.elsewhere == ("core/mixers.py:7",)
    [item] = items_of.items(inp, {"guard_gaps": [g]})
    assert "`make_mixer`" in item.title and "`kind`, `fast`" not in item.title
    assert "`fast`, `kind` together" in item.title


def test_no_lost_refusal_when_head_refuses_the_pair_or_still_calls_the_builder(
        tmp_path) -> None:
    base = {"core/mixers.py": BUILDER, "proj/ours/mix.py": USES_BUILDER}
    refuses = BUILDS_ITSELF + ('\n\ndef check(args):\n    if not args.fast and '
                               'args.kind != "plain":\n        raise ValueError("no")\n')
    assert guardgaps.analyse(_inp(tmp_path / "a", {"proj/ours/mix.py": refuses}, base)) == []
    kept = USES_BUILDER + "\n\ndef other():\n    return 1\n"
    assert guardgaps.analyse(_inp(tmp_path / "b", {"proj/ours/mix.py": kept}, base)) == []
    # No baseline: nothing to compare with.
    inp = _inp(tmp_path / "c", {"proj/ours/mix.py": BUILDS_ITSELF}, base)
    assert guardgaps.analyse(dataclasses.replace(inp, base=None)) == []


ARGS = '''\
from dataclasses import dataclass


@dataclass
class MixArgs:
    blend: str = "plain"
'''

CATCH_ALL = '''\
class Blender:
    def __init__(self, args):
        self.blend = args.blend
        match self.blend:
            case "tiled":
                self.inner = TiledBlend()
            case _:
                self.inner = PlainBlend()
'''

OTHER = '''\
def run(args):
    if args.blend == "packed":
        return pack()
    return None
'''


def test_a_value_other_code_dispatches_on_falls_to_the_catch_all(tmp_path) -> None:
    inp = _inp(tmp_path, {"proj/ours/args.py": ARGS, "proj/ours/blend.py": CATCH_ALL,
                          "proj/theirs/run.py": OTHER})
    [g] = guardgaps.analyse(inp)
    assert (g.form, g.file, g.line) == ("fallback", "proj/ours/blend.py", 7)
    assert (g.setting, g.detail, g.path) == ("blend", "packed", "PlainBlend")
    assert g.elsewhere == ("proj/theirs/run.py:2",)
    [item] = items_of.items(inp, {"guard_gaps": [g]})
    assert "`packed`" in item.title and "catch-all" in item.title


def test_no_fallback_when_refused_elsewhere_or_no_other_value_is_known(tmp_path) -> None:
    refused = CATCH_ALL + ('\n    def forward(self, x):\n        match self.blend:\n'
                           '            case "tiled":\n                return x\n'
                           '            case _:\n                raise ValueError("unknown")\n')
    assert guardgaps.analyse(_inp(tmp_path / "a", {
        "proj/ours/args.py": ARGS, "proj/ours/blend.py": refused,
        "proj/theirs/run.py": OTHER})) == []
    # Other code names only values the folder handles (or the default).
    same = OTHER.replace('"packed"', '"tiled"')
    assert guardgaps.analyse(_inp(tmp_path / "b", {
        "proj/ours/args.py": ARGS, "proj/ours/blend.py": CATCH_ALL,
        "proj/theirs/run.py": same})) == []
    # An if/elif chain ending in a raise refuses the rest.
    chain = ('class Blender:\n    def __init__(self, args):\n'
             '        if args.blend == "tiled":\n            self.inner = 1\n'
             '        else:\n            raise ValueError("unknown")\n')
    assert guardgaps.analyse(_inp(tmp_path / "c", {
        "proj/ours/args.py": ARGS, "proj/ours/blend.py": chain,
        "proj/theirs/run.py": OTHER})) == []


def test_no_lost_refusal_read_past_a_star_or_in_a_builder_over_the_cap(tmp_path) -> None:
    # ``make_mixer(args.fast, *rest, args.kind)``: which parameter ``kind`` reaches
    # depends on how many values ``rest`` holds (read as the third, ``block``, it would
    # be refused as "not None"), so nothing binds after the star.
    starred = USES_BUILDER.replace("args.fast, args.kind", "args.fast, *args.rest, args.kind")
    base = {"core/mixers.py": BUILDER, "proj/ours/mix.py": starred}
    assert guardgaps.analyse(_inp(tmp_path / "a", {"core/mixers.py": None,
                                                   "proj/ours/mix.py": BUILDS_ITSELF},
                                  base)) == []
    # A builder past the size cap is never parsed (its refusals are not read).
    huge = BUILDER + "#" * guardgaps.MAX_FILE_CHARS + "\n"
    base = {"core/mixers.py": huge, "proj/ours/mix.py": USES_BUILDER}
    assert guardgaps.analyse(_inp(tmp_path / "b", {"core/mixers.py": None,
                                                   "proj/ours/mix.py": BUILDS_ITSELF},
                                  base)) == []
