"""#22: references from the sub-project to core that are broken at HEAD — an attribute
read on an object whose type resolves to a core class that no longer has it, a keyword
a core callable no longer accepts, a name a core module no longer defines — with the
commit that removed it when the window shows it, else "before the window". Types only
from what the code states; a class whose members cannot all be known is "not checked
(why)", counted. Synthetic fixture repositories, match and no-match each."""

from __future__ import annotations

from agentops.scout.analyses import corerefs, usecheck
from agentops.scout.analyses import pysource as ps
from agentops.scout.itemize import corerefs as corerefs_items
from tests.scout import minirepo

SPEC = '''\
from dataclasses import dataclass


@dataclass
class Spec:
    name: str
    model: "Model"
{extra}

class Model:
    def __init__(self, dim: int = 1):
        self.dim = dim

    @property
    def width(self) -> int:
        return self.dim


def get_spec(name: str) -> Spec:
    return Spec(name, Model())


def build(model, *, fast=False{kw}):
    return model
'''


def _core(extra: str = "", kw: str = "") -> dict[str, str]:
    return {"core/__init__.py": "", "core/spec.py": SPEC.format(extra=extra, kw=kw)}


def _run(tmp_path, sub: dict[str, str], *, base_extra: str = "", head_extra: str = "",
         base_kw: str = "", head_kw: str = "", more: dict[str, str] | None = None):
    inp = minirepo.build(tmp_path, base=_core(base_extra, base_kw),
                         head={**_core(head_extra, head_kw), "sub/__init__.py": "",
                               **(more or {}), **sub})
    return inp, corerefs.analyse(inp, usecheck.discover(inp))


ENGINE = '''\
from core.spec import Spec


class Engine:
    spec: Spec

    def __init__(self, cfg):
        self.spec = cfg.spec
        self.fn = self.spec.loss.build()
'''


def test_an_attribute_removed_before_the_window_is_found_through_a_class_annotation(
        tmp_path) -> None:
    _inp, got = _run(tmp_path, {"sub/engine.py": ENGINE})
    [ref] = got.broken
    assert (ref.kind, ref.owner, ref.name, ref.loc) == ("attribute", "Spec", "loss",
                                                        "sub/engine.py:9")
    assert ref.severity == "blocking" and ref.when == "before the window"
    assert ref.owner_file == "core/spec.py"


def test_an_attribute_the_window_removed_names_the_commit(tmp_path) -> None:
    inp, got = _run(tmp_path, {"sub/engine.py": ENGINE}, base_extra="    loss: object = None")
    [ref] = got.broken
    assert ref.when == "in the window" and ref.commit == inp.head.commit
    [item] = [i for i in corerefs_items.items(inp, {"core_refs": got}) if i.kind == "action"]
    assert item.priority == "P0" and item.where == "sub/engine.py:9"
    assert "`Spec`" in item.title and "`loss`" in item.title
    assert inp.head.commit[:9] in item.why


def test_an_attribute_the_class_still_has_is_no_finding(tmp_path) -> None:
    _inp, got = _run(tmp_path, {"sub/engine.py": ENGINE},
                     head_extra="    loss: object = None")
    assert got.broken == () and got.checked["attribute"] >= 1


def test_a_field_an_extension_module_the_folder_names_adds_is_no_finding(tmp_path) -> None:
    """#22 (set 17 kind b): the folder's config names an extension module whose
    dataclass of the same name as core's (``Spec``) declares ``loss``; the loader merges
    it into the configuration, so ``spec.loss`` resolves. No match: the same module
    present but named by no file of the folder, or declaring other fields."""
    ext = ("from dataclasses import dataclass\n\n\n@dataclass\nclass Spec:\n"
           "    loss: object = None\n")
    cfg = '[extra]\nextension_module = "sub.ext_args"\n'
    _inp, got = _run(tmp_path, {"sub/engine.py": ENGINE, "sub/ext_args.py": ext,
                                "sub/run.toml": cfg})
    assert got.broken == ()
    (tmp_path / "b").mkdir()
    _inp, got = _run(tmp_path / "b", {"sub/engine.py": ENGINE, "sub/ext_args.py": ext})
    assert [r.name for r in got.broken] == ["loss"]
    (tmp_path / "c").mkdir()
    _inp, got = _run(tmp_path / "c", {"sub/engine.py": ENGINE, "sub/run.toml": cfg,
                                      "sub/ext_args.py": ext.replace("loss", "gain")})
    assert [r.name for r in got.broken] == ["loss"]
    # No match (rev42b): a class under a decorator whose name only contains "dataclass"
    # (a registry hook, not a dataclass) declares no configuration field.
    (tmp_path / "d").mkdir()
    hook = ext.replace("@dataclass\n", "@register_dataclass_hook\n")
    _inp, got = _run(tmp_path / "d", {"sub/engine.py": ENGINE, "sub/run.toml": cfg,
                                      "sub/ext_args.py": hook})
    assert [r.name for r in got.broken] == ["loss"]
    # rev42b (mutation): named modules that are absent or do not parse are passed over,
    # the one that declares the field still counts.
    (tmp_path / "e").mkdir()
    names = cfg + 'extra = ["sub.not_here", "sub.half_written"]\n'
    _inp, got = _run(tmp_path / "e", {"sub/engine.py": ENGINE, "sub/run.toml": names,
                                      "sub/half_written.py": "class Spec(:\n",
                                      "sub/ext_args.py": ext})
    assert got.broken == ()
    # rev42b (mutation): a module named in single quotes (a Python string) counts too,
    # and the reference is counted as skipped with its reason, not silently dropped.
    (tmp_path / "f").mkdir()
    _inp, got = _run(tmp_path / "f", {"sub/engine.py": ENGINE, "sub/ext_args.py": ext,
                                      "sub/launch.py": "EXTRA = 'sub.ext_args'\n"})
    assert got.broken == ()
    assert got.unchecked.get("declared by an extension module the folder names") == 1
    # rev42b (mutation): a module part with a leading underscore is a module name too.
    (tmp_path / "g").mkdir()
    _inp, got = _run(tmp_path / "g", {"sub/engine.py": ENGINE, "sub/_ext_args.py": ext,
                                      "sub/launch.py": "EXTRA = 'sub._ext_args'\n"})
    assert got.broken == ()


def test_a_plain_class_attribute_set_from_outside_is_skipped_a_dataclass_field_not(
        tmp_path) -> None:
    """rev42b (mutation): ``Model`` is no dataclass; an attribute another module sets
    on its instances (``m.scale = 2``) exists at run time: skipped, not broken. Without
    that assignment it is broken."""
    engine = ("from core.spec import Model\n\n\nclass Engine:\n    model: Model\n\n"
              "    def go(self):\n        return self.model.scale\n")
    setter = {"sub/prime.py": "def prime(m):\n    m.scale = 2\n"}
    _inp, got = _run(tmp_path, {"sub/engine.py": engine, **setter})
    assert got.broken == ()
    assert got.unchecked.get("assigned on instances from outside the class") == 1
    (tmp_path / "b").mkdir()
    _inp, got = _run(tmp_path / "b", {"sub/engine.py": engine})
    assert [r.name for r in got.broken] == ["scale"]


def test_types_from_parameters_constructors_factories_fields_and_properties(
        tmp_path) -> None:
    code = '''\
    from core.spec import Model, Spec, get_spec


    def by_param(s: Spec):
        return s.model.depth            # field annotation -> Model, no `depth`


    def by_factory():
        spec = get_spec("x")
        return spec.gone                # factory return annotation -> Spec


    def by_constructor():
        m = Model(2)
        return m.width, m.dim, m.height  # property and self.dim exist; height does not


    class Holder:
        def __init__(self):
            self.model: Model = Model()

        def use(self):
            return self.model.breadth
    '''
    _inp, got = _run(tmp_path, {"sub/uses.py": code})
    found = sorted((r.owner, r.name, r.loc) for r in got.broken)
    assert found == [("Model", "breadth", "sub/uses.py:23"),
                     ("Model", "depth", "sub/uses.py:5"),
                     ("Model", "height", "sub/uses.py:15"),
                     ("Spec", "gone", "sub/uses.py:10")]


def test_inherited_members_count_and_unknowable_classes_are_counted_not_checked(
        tmp_path) -> None:
    more = {"core/base.py": '''\
    import torch.nn as nn


    class Base:
        def __init__(self):
            self.kept = 1

        def method(self):
            return 1


    class Child(Base):
        pass


    class Dynamic:
        def __getattr__(self, name):
            return name


    class External(nn.Module):
        pass
    '''}
    code = '''\
    from core.base import Child, Dynamic, External


    def f(c: Child, d: Dynamic, e: External):
        return c.kept, c.method, d.anything, e.parameters
    '''
    _inp, got = _run(tmp_path, {"sub/f.py": code}, more=more)
    assert got.broken == ()
    assert got.unchecked == {"the class defines __getattr__": 1,
                             "base `nn.Module` is outside the repository": 1}


def test_an_attribute_type_declared_on_a_base_class_is_followed_through_the_subclass(
        tmp_path) -> None:
    """The declared class of ``c.part`` comes from the base (generic or plain) of
    ``c``'s class: a member that class lacks is found; one it has is not."""
    more = {"core/holder.py": '''\
    from typing import Generic, TypeVar

    from core.spec import Model

    T = TypeVar("T")


    class Shelf(Generic[T]):
        part: Model


    class Crate(Shelf[int]):
        pass


    class Box(Crate):
        pass
    '''}
    code = '''\
    from core.holder import Box, Crate


    def f(b: Box, c: Crate):
        return b.part.breadth, c.part.width
    '''
    _inp, got = _run(tmp_path, {"sub/f.py": code}, more=more)
    assert [(r.owner, r.name, r.loc) for r in got.broken] == [("Model", "breadth",
                                                               "sub/f.py:5")]


def test_an_attribute_a_subclass_defines_or_read_under_isinstance_is_no_finding(
        tmp_path) -> None:
    more = {"core/kinds.py": '''\
    class Config:
        name: str = "x"


    class Special(Config):
        extra: int = 0
    '''}
    code = '''\
    from core.kinds import Config


    def f(c: Config):
        a = c.extra                     # the object may be a Special
        if isinstance(c.name, str):
            return a
    '''
    _inp, got = _run(tmp_path, {"sub/f.py": code}, more=more)
    assert got.broken == ()
    assert got.unchecked == {"defined on a subclass of the annotated class": 1}


def test_a_keyword_the_core_callable_no_longer_accepts(tmp_path) -> None:
    code = '''\
    from core.spec import Model, Spec, build


    def f(m):
        build(m, fast=True, legacy=1)
        Spec(name="a", model=m, flavor="b")
        Model(dim=3)
    '''
    _inp, got = _run(tmp_path, {"sub/f.py": code})
    found = sorted((r.kind, r.owner, r.name, r.loc) for r in got.broken)
    assert found == [("keyword", "Spec", "flavor", "sub/f.py:6"),
                     ("keyword", "build", "legacy", "sub/f.py:5")]


def test_keywords_a_callable_takes_through_kwargs_or_a_decorator_are_no_finding(
        tmp_path) -> None:
    more = {"core/calls.py": '''\
    import functools


    def takes_all(x, **kwargs):
        return x


    def wrapped(f):
        @functools.wraps(f)
        def inner(*a, **k):
            return f(*a, **k)
        return inner


    @wrapped
    def decorated(x):
        return x
    '''}
    code = '''\
    from core.calls import decorated, takes_all


    def f():
        takes_all(1, anything=2)
        decorated(1, other=2)
    '''
    _inp, got = _run(tmp_path, {"sub/f.py": code}, more=more)
    assert got.broken == ()
    assert got.unchecked == {"decorator `wrapped` may change the signature": 1}


def test_a_keyword_usecheck_already_reports_is_not_reported_twice(tmp_path) -> None:
    code = "from core.spec import build\n\n\ndef f(m):\n    return build(m, legacy=1)\n"
    inp, got = _run(tmp_path, {"sub/f.py": code}, base_kw=", legacy=None")
    assert [s.verdict for u in usecheck.discover(inp) for s in u.sites] == ["breaks"]
    assert got.broken == ()
    # Without the use check's report it would have been found (at HEAD).
    assert [r.name for r in corerefs.analyse(inp, []).broken] == ["legacy"]


def test_imports_of_names_core_no_longer_defines(tmp_path) -> None:
    more = {"core/pkg/__init__.py": "from core.pkg.impl import Thing\n",
            "core/pkg/impl.py": "class Thing:\n    pass\n",
            "core/star.py": "from core.spec import *\n"}
    code = '''\
    from typing import TYPE_CHECKING

    from core.pkg import Thing
    from core.spec import Gone, Spec
    from core.vanished import Anything
    from core.star import Whatever

    if TYPE_CHECKING:
        from core.spec import TypeOnly

    try:
        from core.spec import Optional1
    except ImportError:
        Optional1 = None
    '''
    _inp, got = _run(tmp_path, {"sub/f.py": code}, more=more)
    found = sorted((r.owner, r.name, r.loc, r.detail) for r in got.broken)
    assert found == [("core.spec", "Gone", "sub/f.py:4", ""),
                     ("core.vanished", "Anything", "sub/f.py:5", "the module is gone")]
    assert got.unchecked == {"the module's names cannot all be known": 1}


def test_a_test_file_breaking_is_should_fix_and_the_all_clear_needs_checked_refs(
        tmp_path) -> None:
    inp, got = _run(tmp_path, {"sub/tests/test_e.py": ENGINE})
    [ref] = got.broken
    assert ref.severity == "should-fix"
    [item] = corerefs_items.items(inp, {"core_refs": got})
    assert item.priority == "P1"
    assert corerefs_items.clear_line({"core_refs": got}) == ""
    ok = corerefs.CoreRefs((), {"attribute": 3}, {"the class defines __getattr__": 1})
    line = corerefs_items.clear_line({"core_refs": ok})
    assert line.startswith("References to core: 3 attribute reference(s) resolve at HEAD")
    assert "1 (the class defines __getattr__)" in line
    assert corerefs_items.clear_line({"core_refs": corerefs.CoreRefs()}) == ""


TRAINER_OLD = '''\
class Trainer:
    def __init__(self):
        self.step_count = 0
        self.kept = 1
'''
MINE = '''\
from core.trainer import Trainer


class Mine(Trainer):
    def __init__(self):
        super().__init__()
        self.own = 2

    def go(self):
        return self.step_count + self.kept + self.own
'''


def test_a_member_a_core_base_dropped_in_the_window_breaks_the_subclass(tmp_path) -> None:
    inp = minirepo.build(
        tmp_path, base={"core/__init__.py": "", "core/trainer.py": TRAINER_OLD},
        head={"core/trainer.py": TRAINER_OLD.replace("step_count", "steps"),
              "sub/__init__.py": "", "sub/mine.py": MINE})
    [ref] = corerefs.analyse(inp, []).broken
    assert (ref.owner, ref.name, ref.loc, ref.when) == ("Trainer", "step_count",
                                                        "sub/mine.py:10", "in the window")


def test_a_subclass_member_core_never_had_is_not_blamed_on_core(tmp_path) -> None:
    # ``own`` is the sub-project's own; ``missing`` was never core's: no core finding.
    inp = minirepo.build(
        tmp_path, base={"core/__init__.py": "", "core/trainer.py": TRAINER_OLD},
        head={"core/trainer.py": TRAINER_OLD, "sub/__init__.py": "",
              "sub/mine.py": MINE.replace("self.step_count", "self.missing")})
    assert corerefs.analyse(inp, []).broken == ()


def test_a_class_writing_its_dict_is_not_checked_one_reading_it_is(tmp_path) -> None:
    more = {"core/bags.py": '''\
    class Bag:
        def __init__(self, **kw):
            self.__dict__.update(kw)


    class Plain:
        def __init__(self):
            self.a = 1

        def as_dict(self):
            return dict(self.__dict__)
    '''}
    code = '''\
    from core.bags import Bag, Plain


    def f(b: Bag, p: Plain):
        return b.anything, p.b
    '''
    _inp, got = _run(tmp_path, {"sub/f.py": code}, more=more)
    assert [(r.owner, r.name) for r in got.broken] == [("Plain", "b")]
    assert got.unchecked == {"it writes its __dict__": 1}


def test_an_import_of_a_moved_name_says_where_core_defines_it_now(tmp_path) -> None:
    more = {"core/newhome.py": "class Moved:\n    pass\n"}
    inp, got = _run(tmp_path, {"sub/f.py": "from core.spec import Moved\n"}, more=more)
    [item] = corerefs_items.items(inp, {"core_refs": got})
    assert item.kind == "action" and item.priority == "P0"
    assert "`core.newhome`" in item.fix
    inp2, got2 = _run(tmp_path / "b", {"sub/f.py": "from core.spec import Nowhere\n"})
    [item2] = corerefs_items.items(inp2, {"core_refs": got2})
    assert "defined nowhere in core" in item2.fix


SEED = '''\
import torch


def seed_all(mesh, device, debug{extra}):
    return mesh


class Helper:
    def run(self, a, b{extra}):
        return a
'''


def _seed_run(tmp_path, code: str, *, base_extra: str, head_extra: str,
              more: dict[str, str] | None = None):
    inp = minirepo.build(
        tmp_path, base={**_core(), "core/seeding.py": SEED.format(extra=base_extra)},
        head={**_core(), "core/seeding.py": SEED.format(extra=head_extra),
              "sub/__init__.py": "", "sub/engine.py": code, **(more or {})})
    return inp, corerefs.analyse(inp, usecheck.discover(inp))


ENGINE_SEED = '''\
from core import seeding as seed_utils
from core.seeding import Helper


class Engine:
    def __init__(self, mesh, helper: Helper):
        seed_utils.seed_all(
            mesh,
            "cpu",
            None,
        )
        helper.run(1, 2)
'''


def test_a_call_through_a_module_alias_missing_a_now_required_parameter_breaks(
        tmp_path) -> None:
    inp, got = _seed_run(tmp_path, ENGINE_SEED, base_extra=", dims=None",
                         head_extra=", dims")
    found = sorted((r.kind, r.owner, r.name, r.loc, r.when) for r in got.broken)
    assert found == [
        ("argument", "Helper.run", "dims", "sub/engine.py:12", "in the window"),
        ("argument", "seed_all", "dims", "sub/engine.py:7", "in the window")]
    assert all(r.commit == inp.head.commit for r in got.broken)
    [item] = [i for i in corerefs_items.items(inp, {"core_refs": got})
              if "seed_all" in i.title]
    assert item.kind == "action" and item.priority == "P0"
    # Both sides of the break: the call and the callee's definition, and the commit.
    assert "core/seeding.py:4" in item.title and "sub/engine.py:7" in item.title
    assert "core/seeding.py" in item.files and inp.head.commit[:9] in item.why


def test_a_call_that_binds_at_head_or_broke_before_the_window(tmp_path) -> None:
    _inp, got = _seed_run(tmp_path / "a", ENGINE_SEED, base_extra="",
                          head_extra=", dims=None")
    assert got.broken == ()
    # Required at the baseline already: a break, but not the window's.
    _inp, got = _seed_run(tmp_path / "b", ENGINE_SEED, base_extra=", dims",
                          head_extra=", dims")
    assert {r.when for r in got.broken} == {"before the window"}


def test_too_many_positional_arguments_break_and_spread_calls_are_not_judged(
        tmp_path) -> None:
    code = '''\
    from core import seeding


    def f(mesh, args, kw):
        seeding.seed_all(mesh, "cpu", None, 4)
        seeding.seed_all(*args)
        seeding.seed_all(mesh, **kw)
    '''
    _inp, got = _seed_run(tmp_path, code, base_extra=", dims=None", head_extra="")
    assert [(r.name, r.loc) for r in got.broken] == [("4 positional", "sub/engine.py:5")]


def test_a_method_a_subclass_overrides_or_a_decorated_function_is_not_judged(
        tmp_path) -> None:
    more = {"core/other.py": '''\
    import functools

    from core.seeding import Helper


    class Wider(Helper):
        def run(self, a, b, dims=None):
            return a


    def deco(f):
        @functools.wraps(f)
        def inner(*a, **k):
            return f(*a, **k)
        return inner


    @deco
    def wrapped(a, b):
        return a
    '''}
    code = '''\
    from core.other import wrapped
    from core.seeding import Helper


    def f(helper: Helper):
        helper.run(1, 2)
        wrapped(1)
    '''
    _inp, got = _seed_run(tmp_path, code, base_extra=", dims=None", head_extra=", dims",
                          more=more)
    assert got.broken == ()


# -- ``m.X`` on an imported core module (#22 defect 5, S-4) ----------------------------
HELPERS = '''\
from core.spec import Spec as Spec


def make_runner(cfg):
    return cfg
{extra}
'''
MODULE_USER = '''\
import core.helpers as hp
from core import helpers
import core.helpers


def start(cfg):
    hp.make_runner(cfg)
    helpers.make_watcher(cfg)
    return core.helpers.make_watcher(cfg)
'''


def _mod_run(tmp_path, code: str, *, base_extra: str = "", head_extra: str = "",
             more: dict[str, str] | None = None):
    inp = minirepo.build(
        tmp_path, base={**_core(), "core/helpers.py": HELPERS.format(extra=base_extra)},
        head={**_core(), "core/helpers.py": HELPERS.format(extra=head_extra),
              "sub/__init__.py": "", "sub/run.py": code, **(more or {})})
    return inp, corerefs.analyse(inp, usecheck.discover(inp))


def test_a_core_module_attribute_the_window_removed_breaks_each_import_form(
        tmp_path) -> None:
    gone = "\n\ndef make_watcher(cfg):\n    return cfg\n"
    inp, got = _mod_run(tmp_path, MODULE_USER, base_extra=gone)
    found = sorted((r.kind, r.owner, r.name, r.loc, r.detail, r.when) for r in got.broken)
    assert found == [
        ("module", "core.helpers", "make_watcher", "sub/run.py:8", "helpers.make_watcher",
         "in the window"),
        ("module", "core.helpers", "make_watcher", "sub/run.py:9",
         "core.helpers.make_watcher", "in the window")]
    assert all(r.commit == inp.head.commit and r.severity == "blocking"
               for r in got.broken)
    [item] = [i for i in corerefs_items.items(inp, {"core_refs": got})
              if i.kind == "action"]
    assert item.priority == "P0" and "`make_watcher`" in item.title
    assert "`core.helpers`" in item.title and "AttributeError" in item.why
    assert item.where == "sub/run.py:8, sub/run.py:9" and "core/helpers.py" in item.files
    assert inp.head.commit[:9] in item.why and "defined nowhere in core" in item.fix


def test_a_module_attribute_still_provided_is_no_finding(tmp_path) -> None:
    """Defined, re-exported, a submodule, defined under a conditional: all resolve."""
    head = "\n\nif True:\n    def make_watcher(cfg):\n        return cfg\n"
    code = ("import core.helpers as hp\nfrom core import helpers\nfrom core import extra\n"
            "\n\ndef start(cfg):\n    hp.make_runner(cfg)\n    hp.Spec(cfg, None)\n"
            "    extra.run(cfg)\n    return helpers.make_watcher(cfg)\n")
    _inp, got = _mod_run(tmp_path, code, head_extra=head,
                         more={"core/extra.py": "def run(cfg):\n    return cfg\n"})
    assert got.broken == () and got.checked["module attribute"] == 4


def test_a_module_whose_names_cannot_all_be_known_is_counted_not_checked(
        tmp_path) -> None:
    more = {"core/lazy.py": "def __getattr__(name):\n    return name\n",
            "core/starry.py": "from core.helpers import *\n"}
    code = ("import core.lazy as lazy\nimport core.starry as starry\n\n\n"
            "def start(cfg):\n    lazy.anything(cfg)\n    return starry.whatever(cfg)\n")
    _inp, got = _mod_run(tmp_path, code, more=more)
    assert got.broken == ()
    assert got.unchecked == {"the module's names cannot all be known": 2}


def test_a_package_submodule_is_a_module_attribute(tmp_path) -> None:
    more = {"core/pkg/__init__.py": "", "core/pkg/part.py": "def go():\n    pass\n"}
    code = "from core import pkg\n\n\ndef start():\n    pkg.part.go()\n    pkg.nothere()\n"
    _inp, got = _mod_run(tmp_path, code, more=more)
    assert [(r.owner, r.name, r.loc) for r in got.broken] == [
        ("core.pkg", "nothere", "sub/run.py:6")]


def test_module_reads_that_never_run_or_are_set_elsewhere_are_no_finding(
        tmp_path) -> None:
    code = '''\
from typing import TYPE_CHECKING

import core.helpers as hp

try:
    import core.helpers as opt
except ImportError:
    pass

if TYPE_CHECKING:
    alias = hp.TypeOnly


def start(cfg, hp_local=None):
    # hp.in_a_comment(cfg)
    text = "hp.in_a_string"
    if hasattr(hp, "probe"):
        hp.probe(cfg)
    try:
        hp.attempt(cfg)
    except AttributeError:
        pass
    box: hp.Annotated = cfg
    hp.patched(cfg)
    hp.also_patched(cfg)
    opt.maybe(cfg)
    return text, box


def local(hp):
    return hp.anything
'''
    patcher = ("import core.helpers\n\ncore.helpers.patched = print\n"
               "setattr(core.helpers, 'also_patched', print)\n")
    _inp, got = _mod_run(tmp_path, code, more={"sub/patch.py": patcher})
    assert got.broken == ()
    # The same reads, unguarded: every one is a finding (the guards above are what clear
    # them, not the reading).
    bare = ("import core.helpers as hp\n\n\ndef start(cfg):\n    hp.TypeOnly(cfg)\n"
            "    hp.probe(cfg)\n    hp.attempt(cfg)\n    hp.patched(cfg)\n")
    _inp2, got2 = _mod_run(tmp_path / "b", bare)
    assert sorted(r.name for r in got2.broken) == ["TypeOnly", "attempt", "patched",
                                                   "probe"]


def test_a_module_of_the_folder_itself_or_outside_the_repository_is_not_checked(
        tmp_path) -> None:
    code = ("import os\nfrom sub import own\n\n\ndef start():\n    own.missing()\n"
            "    return os.nothing_here\n")
    _inp, got = _mod_run(tmp_path, code, more={"sub/own.py": "X = 1\n"})
    assert got.broken == () and "module attribute" not in got.checked


def test_a_module_binding_its_own_names_at_run_time_is_not_checked(tmp_path) -> None:
    """``globals()`` written (or its ``sys.modules`` entry reached): its top level does not
    list every name it has; the same read on a plain module is a finding."""
    more = {"core/registry.py": "for _n in ('alpha', 'beta'):\n"
                                "    globals()[_n] = print\n",
            "core/plain.py": "def gamma():\n    pass\n"}
    code = ("import core.registry as reg\nimport core.plain as plain\n\n\n"
            "def start():\n    reg.alpha()\n    plain.alpha()\n")
    _inp, got = _mod_run(tmp_path, code, more=more)
    assert [(r.owner, r.name) for r in got.broken] == [("core.plain", "alpha")]
    assert got.unchecked == {"the module's names cannot all be known": 1}


def test_a_break_on_a_class_new_in_the_window_is_not_dated_before_it(tmp_path) -> None:
    """S-1/S-4 wording: the class a name is read on did not exist at the baseline, so
    the break came with it in the window; only a name absent at the baseline on a class
    that was there is "absent at the baseline too" (when it went is not shown)."""
    inp = minirepo.build(tmp_path / "n", base={"core/__init__.py": "", "core/spec.py": "X = 1\n"},
                         head={**_core(), "sub/__init__.py": "", "sub/engine.py": ENGINE})
    [ref] = corerefs.analyse(inp, usecheck.discover(inp)).broken
    assert ref.when == "owner new in the window" and ref.commit == inp.head.commit
    [item] = [i for i in corerefs_items.items(inp, {"core_refs": corerefs.analyse(inp)})
              if i.kind == "action"]
    assert f"`Spec` itself is new in the window ({inp.head.commit[:9]})" in item.why
    assert "before the window" not in item.why
    # No match: the class was there without the name: absent at the baseline too.
    inp, got = _run(tmp_path / "b", {"sub/engine.py": ENGINE})
    [item] = [i for i in corerefs_items.items(inp, {"core_refs": got}) if i.kind == "action"]
    assert item.why.endswith("(absent at the baseline too)")


CHECK = '''\
import os
import sys
from pathlib import Path

{insert}

from tests.numerics_utils import run_check
from core.spec import Gone
'''


def test_a_module_the_scripts_own_sys_path_entry_resolves_is_not_cores(tmp_path) -> None:
    """#22 S-4 (set 24's noise line 3e3ed477cef2): a script putting its folder's parent
    first on ``sys.path`` (built from ``__file__``) imports ``tests.numerics_utils`` from
    the folder's own ``tests/``, not the repository's top-level ``tests`` package; a core
    module the folder does not hold is still checked."""
    more = {"tests/__init__.py": "", "tests/unit.py": "X = 1\n",
            "sub/tests/__init__.py": "", "sub/tests/numerics_utils.py":
            "def run_check():\n    return 1\n"}
    forms = ["sys.path.insert(0, str(Path(__file__).parent.parent))",
             "sys.path.insert(0, str(Path(__file__).resolve().parents[1]))",
             "sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "
             "'..'))",
             "sys.path.insert(0, str(Path(__file__).parent / '..'))"]
    for n, insert in enumerate(forms):
        _inp, got = _run(tmp_path / str(n), {"sub/scripts/check.py": CHECK.format(
            insert=insert)}, more=more)
        assert sorted((r.owner, r.name) for r in got.broken) == [("core.spec", "Gone")], insert
    # Match: no insert, or one of a folder without a ``tests`` package: the absolute
    # import is the repository's top-level package, which lacks the module.
    for n, insert in enumerate(["", "sys.path.insert(0, str(Path(__file__).parent))",
                                "sys.path.insert(0, 'elsewhere')"]):
        _inp, got = _run(tmp_path / f"m{n}", {"sub/scripts/check.py": CHECK.format(
            insert=insert)}, more=more)
        assert sorted((r.owner, r.name) for r in got.broken) == [
            ("core.spec", "Gone"), ("tests.numerics_utils", "run_check")], insert
    # A folder that cannot be told statically (it may hold any package, core's too), or
    # one appended last that holds the package: not checked (why), no P0.
    for n, (insert, why, left) in enumerate([
            ("sys.path.insert(0, find_root(__file__))", "cannot be resolved statically", []),
            ("sys.path.append(str(Path(__file__).parent.parent))", "may resolve it",
             [("core.spec", "Gone")])]):
        _inp, got = _run(tmp_path / f"u{n}", {"sub/scripts/check.py": CHECK.format(
            insert=insert)}, more=more)
        assert [(r.owner, r.name) for r in got.broken] == left, insert
        assert [k for k in got.unchecked if why in k], (insert, got.unchecked)


def test_path_values_built_from_file() -> None:
    import ast

    def value(text: str) -> str | None:
        return ps.path_value(ast.parse(text, mode="eval").body, "a/b/c/s.py")

    assert value("Path(__file__).parent") == "a/b/c"
    assert value("str(Path(__file__).resolve().parent.parent)") == "a/b"
    assert value("Path(__file__).parents[2]") == "a"
    assert value("os.path.dirname(os.path.dirname(os.path.realpath(__file__)))") == "a/b"
    assert value("os.path.join(os.path.dirname(__file__), '..', 'x')") == "a/b/x"
    assert value("Path(__file__).parent / 'lib'") == "a/b/c/lib"
    assert value("Path(__file__).parents[3]") == ""
    # Above the repository's root, or not built from literal parts: not known.
    assert value("Path(__file__).parents[4]") is None
    assert value("os.path.join(os.path.dirname(__file__), name)") is None
    assert value("root_of(__file__)") is None
