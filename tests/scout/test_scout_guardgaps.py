"""#22 defect 6 (``guardgaps``): a setting no refusal covers as it should. Match: a check
reads a shared property whose comment gives a switchable feature as the reason and
never reads the switch; a refusal the folder reached through a shared builder at the
baseline is gone at HEAD; a catch-all arm runs a path for a value other code dispatches
on. No-match: the check tests the switch, the folder never reads the switch, the comment
names no switch; HEAD still refuses the pair or still calls the builder; the folder
refuses the rest in another dispatch, or no other code names another value."""

from __future__ import annotations

import ast
import dataclasses

from agentops.scout import gitrepo
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
    # The check's module names the switch only in a comment and a string: no read.
    mentioned = always.replace("def setup(opts, dims, model):\n",
                               "def setup(opts, dims, model):\n    # see enable_split_mode\n"
                               "    note = 'enable_split_mode is always on'\n")
    assert "enable_split_mode" in mentioned
    assert guardgaps.analyse(_inp(tmp_path / "e", _reason_files(mentioned))) == []
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
    huge = BUILDER + "#" * gitrepo.MAX_PYTHON_CHARS + "\n"
    base = {"core/mixers.py": huge, "proj/ours/mix.py": USES_BUILDER}
    assert guardgaps.analyse(_inp(tmp_path / "b", {"core/mixers.py": None,
                                                   "proj/ours/mix.py": BUILDS_ITSELF},
                                  base)) == []


def test_no_reason_gap_for_a_switch_that_is_not_a_bool(tmp_path) -> None:
    # ``enable_split_mode: int`` is a count, not the feature's on/off switch (beside
    # a bool field of another name).
    counted = {**_reason_files(), "core/opts.py": OPTS.replace(
        "mode: bool = True", "mode: int = 1\n    strict: bool = True")}
    assert guardgaps.analyse(_inp(tmp_path, counted)) == []


KEYWORDS = USES_BUILDER.replace("make_mixer(args.fast, args.kind)",
                                "make_mixer(kind=args.kind, fast=args.fast)")


def test_a_lost_refusal_through_keywords_and_beside_method_calls(tmp_path) -> None:
    # Keyword arguments bind as positional ones do; a method call in the same module
    # (``self.inner.reset()``) is no call of an imported function.
    uses = KEYWORDS + "\n    def reset(self):\n        self.inner.reset()\n"
    base = {"core/mixers.py": BUILDER, "proj/ours/mix.py": uses}
    [g] = guardgaps.analyse(_inp(tmp_path, {"core/mixers.py": None,
                                            "proj/ours/mix.py": BUILDS_ITSELF}, base))
    assert (g.form, g.setting, g.path) == ("lost", "fast, kind", "make_mixer")


def test_a_lost_refusal_is_not_read_into_a_match_that_runs_both_ways(tmp_path) -> None:
    # HEAD matches on the pair but every arm runs: no refusal reads them together.
    matches = BUILDS_ITSELF + ('\n\ndef pick(args):\n    match (args.fast, args.kind):\n'
                               '        case (True, _):\n            return 1\n'
                               '        case _:\n            return 2\n')
    base = {"core/mixers.py": BUILDER, "proj/ours/mix.py": USES_BUILDER}
    [g] = guardgaps.analyse(_inp(tmp_path, {"proj/ours/mix.py": matches}, base))
    assert g.form == "lost"


def test_a_builder_of_the_folder_itself_is_no_shared_refusal(tmp_path) -> None:
    own = USES_BUILDER.replace("from core.mixers", "from proj.ours.mixers")
    base = {"proj/ours/mixers.py": BUILDER, "proj/ours/mix.py": own}
    assert guardgaps.analyse(_inp(tmp_path, {"proj/ours/mixers.py": None,
                                             "proj/ours/mix.py": BUILDS_ITSELF},
                                  base)) == []


def _blend(tmp_path, blend: str, other: str = OTHER, **more: str):
    return guardgaps.analyse(_inp(tmp_path, {"proj/ours/args.py": ARGS,
                                             "proj/ours/blend.py": blend,
                                             "proj/theirs/run.py": other, **more}))


def test_fallback_values_from_tuples_elif_chains_capped_places(tmp_path) -> None:
    many = ('def run(args):\n    if args.blend in ("packed", "sparse"):\n        return 1\n'
            '    if args.blend == "woven":\n        return 2\n'
            '    if args.blend == "zoned":\n        return 3\n')
    [g] = _blend(tmp_path / "a", CATCH_ALL, many)
    assert g.detail == "packed, sparse, woven, zoned"
    # One place per value, at most three of them.
    assert g.elsewhere == ("proj/theirs/run.py:2", "proj/theirs/run.py:2",
                           "proj/theirs/run.py:4")
    # An if/elif chain on the field whose ``else`` runs a path (a local holder of the
    # setting is no field read, and does not stop the reading).
    chain = ('class Blender:\n    def __init__(self, args):\n        blend = args.blend\n'
             '        if blend == "flat":\n            pass\n'
             '        if args.blend == "tiled":\n            self.inner = 1\n'
             '        elif args.blend == "dotted":\n            self.inner = 2\n'
             '        else:\n            self.inner = plain_blend()\n')
    [g] = _blend(tmp_path / "b", chain)
    assert (g.line, g.detail, g.path) == (11, "packed", "plain_blend")


def test_no_fallback_when_a_chain_refuses_compares_to_no_value_or_only_tests_name(
        tmp_path) -> None:
    # The folder's other dispatch, an if/else chain ending in a raise, refuses the rest.
    chain = ('\n\ndef check(args):\n    if args.blend == "tiled":\n        return 1\n'
             '    else:\n        raise ValueError("unknown")\n')
    assert _blend(tmp_path / "a", CATCH_ALL + chain) == []
    # A comparison with no literal value names nothing: its else is not judged.
    named = ('TILED = "tiled"\n\n\nclass Blender:\n    def __init__(self, args):\n'
             '        if args.blend == TILED:\n            self.inner = 1\n'
             '        else:\n            self.inner = plain_blend()\n')
    assert _blend(tmp_path / "b", named) == []
    # Values dispatched on in another model's tests, or in a file that is not Python
    # (even one whose text parses as Python), are no dispatch of the code.
    assert _blend(tmp_path / "c", CATCH_ALL, "x = 1\n", **{
        "proj/theirs/test_run.py": OTHER, "proj/theirs/notes.md": 'run(args.blend == "packed")\n'}
    ) == []


def test_items_say_each_form_with_its_places(tmp_path) -> None:
    inp = _inp(tmp_path, {"proj/ours/a.py": "x = 1\n"})
    assert items_of.items(inp, {"guard_gaps": None}) == []
    spots = ("core/a.py:1", "core/b.py:2", "core/c.py:3", "core/d.py:4")
    long_name = "s" * 70
    reason, fallback, bare = items_of.items(inp, {"guard_gaps": [
        guardgaps.GuardGap("reason", "proj/ours/a.py", 5, "enable_x_y", "div", spots[:1]),
        guardgaps.GuardGap("fallback", "proj/ours/a.py", 9, long_name, "p, q", spots,
                           "plain_path"),
        guardgaps.GuardGap("fallback", "proj/ours/b.py", 2, "mode", "p", spots[:1])]})
    assert "with the switch off" in reason.title and "a.py:5" in reason.title
    # At most three places, then how many more; each file once, without its line.
    assert "core/c.py:3 and 1 more" in fallback.title and "core/d.py" not in fallback.title
    assert fallback.files == ("proj/ours/a.py", "core/a.py", "core/b.py", "core/c.py",
                              "core/d.py")
    assert fallback.facts == ("fallback", "s" * 60)
    assert ", which calls `plain_path`" in fallback.title
    assert "which calls" not in bare.title and "`mode` values `p`" in bare.title


def test_fallback_values_only_from_objects_that_may_be_the_folders_config(tmp_path) -> None:
    # A comparison on an object whose stated type is another class (an annotated
    # parameter or local, ``self`` of an unrelated class) dispatches on that class's
    # field of the same name, not on the folder's setting.
    typed = ('class Other:\n    blend: str = "x"\n\n\n'
             'def run(opts: Other):\n    if opts.blend == "packed":\n        return 1\n\n\n'
             'def walk():\n    cur: "Other | None" = None\n'
             '    if cur.blend == "sparse":\n        return 2\n\n\n'
             'class Painter:\n    def paint(self):\n        if self.blend == "woven":\n'
             '            return 3\n')
    assert _blend(tmp_path / "a", CATCH_ALL, typed) == []
    # Stated as the folder's class, or as a base of it, the object may be its config;
    # so may an object whose type is not stated (``OTHER``'s ``args``).
    based = ARGS.replace("class MixArgs:", "class MixArgs(BaseArgs):")
    mine = ('def run(args: MixArgs):\n    if args.blend == "packed":\n        return 1\n\n\n'
            'def walk(spec: "core.BaseArgs"):\n    if spec.blend == "sparse":\n'
            '        return 2\n')
    [g] = guardgaps.analyse(_inp(tmp_path / "b", {
        "proj/ours/args.py": based, "proj/ours/blend.py": CATCH_ALL,
        "proj/theirs/run.py": mine}))
    assert (g.detail, g.elsewhere) == ("packed, sparse", ("proj/theirs/run.py:2",
                                                          "proj/theirs/run.py:7"))


TYPED = '''\
cfg: TopConf = load()


def f(cfg: ArgConf, other: OtherConf):
    x: XConf = 1
    holder.attr: AttrConf = 0
    return cfg, other, x


def g(self):
    return self


class Other(pkg.Base[int]):
    def m(self, cfg: FolderConf):
        return cfg
'''


def test_fallback_typing_reads_stated_class_names_and_bases() -> None:
    # Names an annotation states (their last dotted part, lower case or underscored
    # ones too, not None); the types a name is stated as in its function or at top
    # level; and which receivers certainly are no config of the folder.
    def ann(src: str) -> ast.expr:
        return ast.parse(src, mode="eval").body

    assert guardgaps._type_names(ann("Optional['pkg._Conf']")) == {"_Conf"}
    assert guardgaps._type_names(ann("'lower_cfg'")) == {"lower_cfg"}
    assert "Conf" in guardgaps._type_names(ann("m.Conf | None"))
    assert "None" not in guardgaps._type_names(ann("m.Conf | None"))
    mod = ast.parse(TYPED)
    f, g, other = mod.body[1], mod.body[2], mod.body[3]
    m = other.body[0]
    assert guardgaps._stated_types("cfg", f, mod) == {"ArgConf"}
    assert guardgaps._stated_types("x", f, mod) == {"XConf"}
    assert guardgaps._stated_types("cfg", None, mod) == {"TopConf"}
    name = ast.Name("cfg")
    attr = ast.parse("a.b", mode="eval").body
    assert guardgaps._not_config(attr, f, None, mod, {"Unrelated"}) is False
    assert guardgaps._not_config(name, m, other, mod, {"FolderConf"}) is False
    assert guardgaps._not_config(name, m, other, mod, {"Unrelated"}) is True
    this = ast.Name("self")
    assert guardgaps._not_config(this, g, None, mod, {"Unrelated"}) is False
    assert guardgaps._not_config(this, None, other, mod, {"Unrelated"}) is False
    assert guardgaps._not_config(this, m, other, mod, {"Base"}) is False
    assert guardgaps._not_config(this, m, other, mod, {"Unrelated"}) is True
