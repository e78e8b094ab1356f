"""#22 defect 5 (S-1, set 23 ds23-paralleldims-no-etp, set 25 sf25-numerics-paralleldims-etp):
a dataclass has no ``__init__`` in its source, so a field core adds without a default
changes a constructor no ``def`` shows. ``geninit`` builds the constructor Python
generates; usecheck binds the sub-project's calls to it at the baseline and at HEAD.
Match and no-match each: a new required field, a removed field still passed, defaults
(``= x``, ``field(default=...)``, ``default_factory``), ``kw_only``, ``init=False``,
``InitVar`` / ``ClassVar``, inherited fields, ``**kwargs`` calls, a class with its own
``__init__``, a NamedTuple, a class re-exported by a watched package."""

from __future__ import annotations

import ast
import dataclasses
import textwrap

from agentops.scout.analyses import geninit, usecheck
from agentops.scout.analyses import pysource as ps
from agentops.scout.itemize import delta
from tests.scout import minirepo
from tests.scout.test_scout_usecheck import _empty


def _sig(src: str, name: str = "C") -> str | None:
    mod = ast.parse(textwrap.dedent(src))
    cls = ps.find(mod, name)
    assert isinstance(cls, ast.ClassDef)
    made = geninit.generated_init(cls, "m.py", geninit.same_module(mod))
    return None if made is None else ps.signature(made)


def test_the_generated_signature_follows_the_dataclass_rules() -> None:
    src = '''
    from dataclasses import dataclass, field, InitVar, KW_ONLY
    from typing import ClassVar

    @dataclass
    class Base:
        a: int
        b: str = "x"

    @dataclass
    class C(Base):
        kind: ClassVar[str] = "c"
        b: str = "y"
        c: list = field(default_factory=list)
        d: int = field(default=3)
        cache: dict = field(init=False, default_factory=dict)
        seed: InitVar[int] = 0
        _: KW_ONLY
        e: bool
        f: int = field(default=1, kw_only=False)
    '''
    # Inherited fields first, a redeclared one in its old place with its new default,
    # ClassVar and init=False out, InitVar in, KW_ONLY makes what follows keyword-only
    # unless the field says otherwise.
    assert _sig(src) == ("(self, a: int, b: str='y', c: list=list(), d: int=3, "
                         "seed: InitVar[int]=0, f: int=1, *, e: bool)")
    assert _sig(src, "Base") == "(self, a: int, b: str='x')"
    kw = "@dataclasses.dataclass(frozen=True, kw_only=True)\nclass C:\n    a: int = 1\n" \
         "    b: int\n"
    assert _sig(kw) == "(self, *, a: int=1, b: int)"
    assert _sig("class C(NamedTuple):\n    x: int\n    y: int = 2\n") == \
        "(self, x: int, y: int=2)"


def test_no_generated_constructor_where_python_makes_none_or_it_is_unknown() -> None:
    assert _sig("@dataclass\nclass C:\n    a: int\n    def __init__(self, a):\n"
                "        self.a = a\n") is None  # its own def: the existing path
    assert _sig("@dataclass(init=False)\nclass C:\n    a: int\n") is None
    assert _sig("class C:\n    a: int\n") is None  # not a dataclass
    assert _sig("@dataclass\nclass C(Outside):\n    a: int\n") is None  # unread base
    assert _sig("@dataclass\nclass C:\n    a: int = 0\n    b: int\n") is None  # refused
    # A plain (non-dataclass) base of the module adds no field.
    assert _sig("class B:\n    z: int\n@dataclass\nclass C(B):\n    a: int\n") == \
        "(self, a: int)"


DIMS_OLD = '''\
from dataclasses import dataclass, field


@dataclass
class Dims:
    dp: int
    tp: int
    legacy: bool = False
    world: int = 1
'''


def _run(tmp_path, core_new: str, user: str, *, base_user: str | None = None,
         extra: dict[str, str] | None = None):
    base = {"core/__init__.py": "", "core/dims.py": DIMS_OLD, "sub/__init__.py": "",
            "sub/a.py": base_user if base_user is not None else user, **(extra or {})}
    inp = minirepo.build(tmp_path, base=base, head={"core/dims.py": core_new,
                                                    "sub/a.py": user})
    return inp, {u.symbol: u for u in usecheck.discover(inp)}


USER = "from core.dims import Dims\n\n\ndef go():\n    return Dims({args})\n"


def test_a_new_required_field_breaks_a_call_that_does_not_pass_it(tmp_path) -> None:
    new = DIMS_OLD.replace("    tp: int\n", "    tp: int\n    etp: int\n")
    inp, found = _run(tmp_path, new, USER.format(args="dp=2, tp=1"))
    uc = found["Dims.__init__"]
    assert uc.generated
    [site] = uc.sites
    assert (site.loc, site.verdict, site.severity) == ("sub/a.py:5", "breaks", "blocking")
    assert site.detail == "does not pass required `etp`"
    [act] = [i for i in delta.items(inp, {**_empty(), "use_checks": [uc]})
             if i.kind == "action"]
    assert act.priority == "P0" and act.where == "sub/a.py:5"
    assert act.title.startswith("`Dims`'s fields changed upstream")
    assert "`Dims(dp: int, tp: int, etp: int," in act.fix
    # No match: the call passes the new field (by keyword, or by position).
    for i, args in enumerate(("dp=2, tp=1, etp=1", "2, 1, 1")):
        (tmp_path / str(i)).mkdir()
        _inp, found = _run(tmp_path / str(i), new, USER.format(args=args))
        assert [s.verdict for s in found["Dims.__init__"].sites] == ["adapted"], args


def test_a_removed_field_still_passed_by_keyword_breaks(tmp_path) -> None:
    new = DIMS_OLD.replace("    legacy: bool = False\n", "")
    _inp, found = _run(tmp_path, new, USER.format(args="dp=2, tp=1, legacy=True"))
    [site] = found["Dims.__init__"].sites
    assert site.verdict == "breaks" and "passes `legacy=`" in site.detail
    (tmp_path / "b").mkdir()
    _inp, found = _run(tmp_path / "b", new, USER.format(args="dp=2, tp=1"))
    assert [s.verdict for s in found["Dims.__init__"].sites] == ["adapted"]


def test_new_fields_with_a_default_of_any_form_break_nothing(tmp_path) -> None:
    for i, line in enumerate(("    etp: int = 1\n", "    etp: int = field(default=1)\n",
                              "    etp: list = field(default_factory=list)\n",
                              "    etp: int = field(init=False)\n",
                              "    etp: ClassVar[int] = 0\n")):
        new = DIMS_OLD.replace("    world: int = 1\n", "    world: int = 1\n" + line)
        (tmp_path / str(i)).mkdir()
        _inp, found = _run(tmp_path / str(i), new, USER.format(args="dp=2, tp=1"))
        verdicts = [s.verdict for u in found.values() for s in u.sites]
        assert "breaks" not in verdicts, line
        if "ClassVar" in line:  # the constructor did not change at all
            assert "Dims.__init__" not in found


def test_keyword_only_fields_and_a_spread_call(tmp_path) -> None:
    new = DIMS_OLD.replace("@dataclass\n", "@dataclass(kw_only=True)\n").replace(
        "    tp: int\n", "    tp: int\n    etp: int\n")
    _inp, found = _run(tmp_path, new, USER.format(args="2, 1"))
    [site] = found["Dims.__init__"].sites
    assert site.verdict == "breaks"
    assert "passes 2 positional arguments (0 accepted)" in site.detail
    assert "does not pass required `etp`" in site.detail
    # A call spreading **kwargs cannot be checked for a missing field: no finding.
    (tmp_path / "b").mkdir()
    _inp, found = _run(tmp_path / "b", new, USER.format(args="**cfg"))
    assert [s.verdict for s in found["Dims.__init__"].sites] == ["adapted"]


def test_a_subclass_adding_fields_inherits_its_bases_fields_first(tmp_path) -> None:
    """The base is in another, unchanged core file; the subclass gains a field:
    positionals fill the base's ``dp``, ``tp`` first. No match: a new field with a
    default, a call passing the new required one."""
    base_src = "from dataclasses import dataclass\n\n\n@dataclass\nclass Pair:\n" \
               "    dp: int\n    tp: int\n"
    old = "from core.pair import Pair\nfrom dataclasses import dataclass\n\n\n" \
          "@dataclass\nclass Sub(Pair):\n    note: str = ''\n"
    with_default = old.replace("    note: str = ''\n", "    ep: int = 0\n    note: str = ''\n")
    required = old.replace("    note: str = ''\n", "    ep: int\n    note: str = ''\n")
    user = "from core.sub import Sub\n\n\ndef go():\n    return Sub({args})\n"
    cases = [(with_default, "1, 2", "adapted"), (required, "1, 2", "breaks"),
             (required, "dp=1, tp=2", "breaks"), (required, "1, 2, 3", "adapted")]
    for i, (core, args, verdict) in enumerate(cases):
        where = tmp_path / str(i)
        where.mkdir()
        base = {"core/__init__.py": "", "core/pair.py": base_src, "core/sub.py": old,
                "sub/__init__.py": "", "sub/a.py": user.format(args=args)}
        inp = minirepo.build(where, base=base, head={"core/sub.py": core})
        uc = {u.symbol: u for u in usecheck.discover(inp)}["Sub.__init__"]
        [site] = uc.sites
        assert site.verdict == verdict, (core, args)
        if verdict == "breaks":
            assert site.detail == "does not pass required `ep`"
            assert uc.change.endswith("(self, dp: int, tp: int, ep: int, note: str='')")


def test_a_class_with_its_own_init_keeps_the_existing_check(tmp_path) -> None:
    own = DIMS_OLD + "\n    def __init__(self, dp, tp):\n        self.dp = dp\n"
    new = own.replace("def __init__(self, dp, tp)", "def __init__(self, dp, tp, etp)")
    inp = minirepo.build(tmp_path, base={"core/__init__.py": "", "core/dims.py": own,
                                         "sub/__init__.py": "",
                                         "sub/a.py": USER.format(args="1, 2")},
                         head={"core/dims.py": new})
    [uc] = [u for u in usecheck.discover(inp) if u.symbol == "Dims.__init__"]
    assert not uc.generated
    assert [s.verdict for s in uc.sites] == ["breaks"]


def test_a_subclass_with_its_own_init_is_no_lagging_override(tmp_path) -> None:
    """A sub-project class with its own ``__init__`` need not take its dataclass base's
    fields; its ``super().__init__`` call is still bound."""
    new = DIMS_OLD.replace("    tp: int\n", "    tp: int\n    etp: int\n")
    user = ("from core.dims import Dims\n\n\nclass Mine(Dims):\n    def __init__(self):\n"
            "        super().__init__({args})\n")
    _inp, found = _run(tmp_path, new, user.format(args="1, 2"))
    [site] = found["Dims.__init__"].sites
    assert (site.how, site.verdict) == ("super call", "breaks")
    (tmp_path / "b").mkdir()
    _inp, found = _run(tmp_path / "b", new, user.format(args="1, 2, 3"))
    assert [(s.how, s.verdict) for s in found["Dims.__init__"].sites] == [
        ("super call", "adapted")]


def test_a_namedtuple_and_a_class_re_exported_by_a_watched_package(tmp_path) -> None:
    """The target watches only ``core/__init__.py``, which re-exports ``Pair`` from
    ``core/pair.py``; the sub-project imports it from the package."""
    old = "from typing import NamedTuple\n\n\nclass Pair(NamedTuple):\n    x: int\n"
    new = old + "    y: int\n"
    user = "from core import Pair\n\n\ndef go():\n    return Pair({args})\n"
    for i, (args, verdict) in enumerate((("1", "breaks"), ("1, 2", "adapted"))):
        where = tmp_path / str(i)
        where.mkdir()
        inp = minirepo.build(where, base={"core/__init__.py": "from core.pair import Pair\n",
                                          "core/pair.py": old, "sub/__init__.py": "",
                                          "sub/a.py": user.format(args=args)},
                             head={"core/pair.py": new})
        inp = dataclasses.replace(inp, target=dataclasses.replace(
            inp.target, watched_paths=("core/__init__.py",)))
        [site] = {u.symbol: u for u in usecheck.discover(inp)}["Pair.__init__"].sites
        assert site.verdict == verdict, args
    # No match: a module of the package the sub-project does not import from.
    (tmp_path / "n").mkdir()
    inp = minirepo.build(tmp_path / "n", base={"core/__init__.py": "", "core/pair.py": old,
                                               "sub/__init__.py": "",
                                               "sub/a.py": "def go():\n    return 1\n"},
                         head={"core/pair.py": new})
    assert usecheck.discover(inp) == []
