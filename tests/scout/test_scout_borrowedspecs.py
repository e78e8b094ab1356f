"""#22 borrowed registration (``borrowedspecs``): a folder's registration built from
another folder's parts (its flavor table, its model class, or only its helpers) compared
field by field with that folder's own registration. Match: a copy built on the same model
that leaves out the other folder's checker builder (a shared component) and its adapter
(a part of that folder's own); a copy borrowing only a helper function leaves out the
shared checker. No-match: the helper-only copy is not told about the other folder's own
adapter; a slot set explicitly (``None``); a call spreading ``**kwargs``; a folder with
two registrations (an umbrella, no reference); a copy that fills every slot; a slot the
sibling-hooks reading already reports. All trees are made up."""

from __future__ import annotations

import dataclasses

from agentops.scout.analyses import borrowedspecs, siblinghooks
from agentops.scout.itemize import debt
from tests.scout import minirepo

SPEC = "class Spec:\n    def __init__(self, **kw):\n        self.kw = kw\n"
CHECKS = "def build_checker(cfg):\n    return cfg\n"

ALPHA = '''\
from core.checks import build_checker
from core.spec import Spec

from .adapter import AlphaAdapter
from .helpers import pipe_alpha
from .model import AlphaModel

alpha_configs = {"small": 1}


def get_spec():
    return Spec(
        model_cls=AlphaModel,
        configs=alpha_configs,
        pipe_fn=pipe_alpha,
        checker_fn=build_checker,
        adapter=AlphaAdapter,
    )
'''

ALPHA_FILES = {
    "core/__init__.py": "", "core/spec.py": SPEC, "core/checks.py": CHECKS,
    "models/__init__.py": "", "models/alpha/__init__.py": ALPHA,
    "models/alpha/model.py": "class AlphaModel:\n    pass\n",
    "models/alpha/adapter.py": "class AlphaAdapter:\n    pass\n",
    "models/alpha/helpers.py": "def pipe_alpha(model):\n    return model\n",
}

SAME_MODEL = '''\
from core.spec import Spec
from models.alpha import alpha_configs, pipe_alpha

from .model import BetaModel


def get_spec():
    return Spec(
        model_cls=BetaModel,
        configs=alpha_configs,
        pipe_fn=pipe_alpha,{extra}
    )
'''

HELPER_ONLY = '''\
from core.spec import Spec
from models.alpha.helpers import pipe_alpha

from .model import BetaModel, beta_configs


def get_spec():
    return Spec(model_cls=BetaModel, configs=beta_configs, pipe_fn=pipe_alpha)
'''


def _inp(tmp_path, beta: str, extra: dict[str, str] | None = None):
    files = {**ALPHA_FILES, "exp/__init__.py": "", "exp/beta/__init__.py": beta,
             "exp/beta/model.py": "class BetaModel:\n    pass\n\n\nbeta_configs = {}\n",
             **(extra or {})}
    inp = minirepo.build(tmp_path, head=files)
    return dataclasses.replace(inp, target=dataclasses.replace(inp.target,
                                                               subproject="exp/beta"))


def test_a_copy_on_the_same_model_leaving_out_the_checker_and_the_adapter(tmp_path) -> None:
    inp = _inp(tmp_path, SAME_MODEL.format(extra=""))
    [d] = borrowedspecs.analyse(inp)
    assert (d.file, d.line, d.callee, d.source) == ("exp/beta/__init__.py", 8, "Spec",
                                                    "models/alpha")
    assert d.borrowed == ("configs=alpha_configs", "pipe_fn=pipe_alpha")
    assert d.reference == "models/alpha/__init__.py:12"
    assert d.dropped == (("adapter", "AlphaAdapter"), ("checker_fn", "build_checker"))
    assert d.same_model
    [item] = debt._borrowed_specs(inp, {"borrowed_specs": [d]})
    assert item.kind == "opportunity" and item.section == "S-4"
    assert "`adapter` (`AlphaAdapter`)" in item.title
    assert "`checker_fn` (`build_checker`)" in item.title
    assert "models/alpha/__init__.py:12" in item.title
    assert item.files == ("exp/beta/__init__.py", "models/alpha/__init__.py")


def test_a_copy_borrowing_only_a_helper_is_told_only_about_shared_parts(tmp_path) -> None:
    [d] = borrowedspecs.analyse(_inp(tmp_path, HELPER_ONLY))
    assert d.borrowed == ("pipe_fn=pipe_alpha",)
    assert d.dropped == (("checker_fn", "build_checker"),)  # not alpha's own adapter
    assert not d.same_model


def test_explicit_values_and_full_copies_are_not_judged(tmp_path) -> None:
    explicit = "\n        checker_fn=None,\n        adapter=None,"
    assert borrowedspecs.analyse(_inp(tmp_path / "a", SAME_MODEL.format(extra=explicit))) == []
    full = "\n        checker_fn=build_checker,\n        adapter=BetaModel,"
    beta = SAME_MODEL.format(extra=full).replace(
        "from core.spec import Spec", "from core.checks import build_checker\n"
        "from core.spec import Spec")
    assert borrowedspecs.analyse(_inp(tmp_path / "b", beta)) == []


def test_a_call_spreading_kwargs_is_not_judged(tmp_path) -> None:
    beta = SAME_MODEL.format(extra="\n        **{}")
    assert borrowedspecs.analyse(_inp(tmp_path, beta)) == []


def test_a_folder_with_two_registrations_is_no_reference(tmp_path) -> None:
    twice = ALPHA + "\n\ndef get_other_spec():\n    return Spec(model_cls=AlphaModel)\n"
    inp = _inp(tmp_path, SAME_MODEL.format(extra=""), {"models/alpha/__init__.py": twice})
    assert borrowedspecs.analyse(inp) == []


def test_a_slot_sibling_hooks_already_reports_is_not_repeated(tmp_path) -> None:
    inp = _inp(tmp_path, SAME_MODEL.format(extra=""))
    hook = siblinghooks.MissingHook("exp/beta/__init__.py", 8, "Spec", "checker_fn",
                                    "build_checker", "core/checks.py:1", (), (),
                                    siblinghooks.LEFT_OUT)
    [d] = borrowedspecs.analyse(inp, [hook])
    assert d.dropped == (("adapter", "AlphaAdapter"),)


def test_two_callees_borrowing_from_one_folder_each_find_that_folders_call(tmp_path) -> None:
    # The folder's calls were cached under the first callee asked, so the second
    # callee found none there and climbed to the parent folder (a wrong reference).
    alpha = ALPHA.replace("from core.spec import Spec", "from core.spec import Spec, Hub") \
        + "\n\ndef hub():\n    return Hub(name_fn=pipe_alpha, hook=build_checker)\n"
    beta = ("from core.spec import Hub, Spec\nfrom models.alpha import alpha_configs, "
            "pipe_alpha\n\nSPEC = Spec(configs=alpha_configs, pipe_fn=pipe_alpha, "
            "model_cls=None, adapter=None)\n\n\ndef get_hub():\n"
            "    return Hub(name_fn=pipe_alpha)\n")
    inp = _inp(tmp_path, beta, {"models/alpha/__init__.py": alpha,
                                "core/spec.py": SPEC + "\n\nclass Hub(Spec):\n    pass\n"})
    found = {d.callee: (d.source, d.reference, d.dropped)
             for d in borrowedspecs.analyse(inp)}
    assert found == {
        "Hub": ("models/alpha", "models/alpha/__init__.py:22", (("hook", "build_checker"),)),
        "Spec": ("models/alpha", "models/alpha/__init__.py:12",
                 (("checker_fn", "build_checker"),))}


def test_the_model_class_alone_makes_it_the_same_model(tmp_path) -> None:
    # Borrowing only the other folder's model class (a class, not a function) is a copy
    # of that model: its own adapter counts too.
    beta = ("from core.spec import Spec\nfrom models.alpha.model import AlphaModel\n\n"
            "SPEC = Spec(model_cls=AlphaModel)\n")
    [d] = borrowedspecs.analyse(_inp(tmp_path, beta))
    assert d.same_model and d.borrowed == ("model_cls=AlphaModel",)
    assert [k for k, _v in d.dropped] == ["adapter", "checker_fn", "configs", "pipe_fn"]


def test_a_registration_through_a_module_alias(tmp_path) -> None:
    # ``cs.Spec(...)``: the callee is looked for by its last name in the other folder.
    alias = "import core.spec as cs\n"
    alpha = ALPHA.replace("from core.spec import Spec\n", alias).replace(
        "return Spec(", "return cs.Spec(")
    beta = alias + HELPER_ONLY.replace("from core.spec import Spec\n", "").replace(
        "return Spec(", "return cs.Spec(")
    [d] = borrowedspecs.analyse(_inp(tmp_path, beta, {"models/alpha/__init__.py": alpha}))
    assert d.callee == "Spec" and d.dropped == (("checker_fn", "build_checker"),)


def test_parts_from_outside_the_repository_and_unparsed_files(tmp_path) -> None:
    # The reference takes one part from a package outside the repository (shared code:
    # it fits any copy) and one from a module of its own folder that is not in the tree
    # (generated: the folder's own); a file of the folder that does not parse is passed
    # over. The copy takes a value from outside the repository and, sorted before its
    # borrowed helper, one from a folder with no registration: neither stops the reading.
    alpha = ALPHA.replace("        adapter=AlphaAdapter,\n", "        adapter=AlphaAdapter,\n"
                          "        loss_fn=xent,\n        gen_fn=made,\n").replace(
        "from .adapter", "from extlib.losses import xent\nfrom models.alpha.gen import made\n"
        "from .adapter")
    beta = ("from core.checks import build_checker\nfrom core.spec import Spec\n"
            "from extlib.opt import adamw\nfrom models.alpha.helpers import pipe_alpha\n\n"
            "SPEC = Spec(checker_fn=build_checker, opt_fn=adamw, pipe_fn=pipe_alpha)\n")
    inp = _inp(tmp_path, beta, {"models/alpha/__init__.py": alpha,
                                "models/alpha/broken.py": "def pipe_alpha(:\n"})
    [d] = borrowedspecs.analyse(inp)
    assert d.borrowed == ("pipe_fn=pipe_alpha",) and not d.same_model
    assert d.dropped == (("loss_fn", "xent"),)  # not the folder's own gen_fn nor adapter


def test_the_item_words_and_caps(tmp_path) -> None:
    # Made-up records: a helper-only copy leaving out one slot says "helpers" and "this";
    # four borrowed parts show three and one more, five left-out slots four and one more.
    one = borrowedspecs.DroppedParts("exp/beta/__init__.py", 3, "Spec", "models/alpha",
                                     ("pipe_fn=p",), "models/alpha/__init__.py:9",
                                     (("checker_fn", "c"),), False)
    many = dataclasses.replace(
        one, borrowed=tuple(f"k{i}=v{i}" for i in range(4)), same_model=True,
        dropped=tuple((f"s{i}", f"w{i}") for i in range(5)))
    inp = _inp(tmp_path, HELPER_ONLY)
    two = dataclasses.replace(one, dropped=(("a", "x"), ("b", "y")))
    first, second, third = debt._borrowed_specs(inp, {"borrowed_specs": [one, many, two]})
    assert "(helpers) provides this and" in first.why
    assert "provides these and" in third.why
    assert "(the same model) provides these and" in second.why
    assert "`k2=v2` and 1 more)" in second.title and "`k3=v3`" not in second.title
    assert "`s3` (`w3`) and 1 more," in second.title and "`s4`" not in second.title


def test_at_most_six_registrations_are_reported(tmp_path) -> None:
    calls = "".join(f"S{i} = Spec(configs=alpha_configs, pipe_fn=pipe_alpha)\n"
                    for i in range(8))
    beta = ("from core.spec import Spec\nfrom models.alpha import alpha_configs, "
            f"pipe_alpha\n\n{calls}")
    found = borrowedspecs.analyse(_inp(tmp_path, beta))
    assert len(found) == borrowedspecs.MAX_FINDINGS == 6


def test_a_library_helper_is_no_registration(tmp_path) -> None:
    # Two partials of different functions share only the helper: no copy of one another.
    alpha = ALPHA + ("\n\nfrom functools import partial\nfrom extlib import xent\n"
                     "RUN = partial(print, model=AlphaModel, loss=xent)\n")
    beta = ("from functools import partial\nfrom models.alpha.model import AlphaModel\n\n"
            "RUN = partial(repr, model=AlphaModel)\n")
    assert borrowedspecs.analyse(_inp(tmp_path, beta, {"models/alpha/__init__.py": alpha})) \
        == []
    # The same shape through a class of the repository is one.
    alpha, beta = (t.replace("from functools import partial", "from core.spec import Run")
                   .replace("partial(", "Run(") for t in (alpha, beta))
    extra = {"models/alpha/__init__.py": alpha, "core/spec.py": SPEC + "\n\nclass Run:\n"
             "    pass\n"}
    [d] = borrowedspecs.analyse(_inp(tmp_path / "b", beta, extra))
    assert d.callee == "Run" and d.dropped == (("loss", "xent"),)
