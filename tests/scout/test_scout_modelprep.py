"""#22 defect 8 (``modelprep``): the shared runner prepares the model's input with a call
under a condition on a field of the folder, then hands its module parts to another
object whose method calls them without that call. Match: a flavor of the folder turns
the field on (a boolean, and a string tested through a local against a list, with the
preparation in a helper the runner calls on ``self``). No-match: no flavor sets the
value, the second caller makes the same call or tests the field, the preparation does
not touch the model's input, and an object the folder's registration never builds."""

from __future__ import annotations

from agentops.scout.analyses import modelprep
from agentops.scout.itemize import modelprep as items_of
from tests.scout import minirepo

SPEC = '''\
class Spec:
    def __init__(self, net_cls=None, table=None, build_judge=None):
        self.net_cls = net_cls
        self.table = table
        self.build_judge = build_judge
'''

RUNNER = '''\
import torch.nn as nn

from core.cache import prime_cache


class Runner:
    parts: list[nn.Module]

    def __init__(self, spec, args):
        self.args = args
        self.parts = [spec.net_cls(args)]
        self.judge = spec.build_judge(args)

    def step(self, batch):
        if getattr(self.args, "sparse_mode", False):
            prime_cache(batch, self.args)
        out = self.parts[0](batch)
        return out

    def loop(self, batches):
        for b in batches:
            self.step(b)
            self.judge.score(self.parts, len(batches))
'''

JUDGE = '''\
import torch.nn as nn


class Judge:
    def score(self, parts: list[nn.Module], count: int):
        total = 0
        for batch in range(count):
            total += parts[0](batch)
        return total
'''

OURS = '''\
from dataclasses import dataclass

import torch.nn as nn

from core.spec import Spec
from core.judge import Judge


@dataclass
class NetArgs:
    width: int = 8
    sparse_mode: bool = False


class TinyNet(nn.Module):
    def forward(self, x):
        return x


TABLE = {
    "tiny": NetArgs(),
    "tiny_sparse": NetArgs(width=4, sparse_mode=True),
}

SPEC = Spec(net_cls=TinyNet, table=TABLE, build_judge=Judge)
'''

OTHER = '''\
import torch.nn as nn

from core.spec import Spec
from core.judge import Judge


class OtherNet(nn.Module):
    def forward(self, x):
        return x


SPEC = Spec(net_cls=OtherNet, build_judge=Judge)
'''


def _files(runner: str = RUNNER, judge: str = JUDGE, ours: str = OURS) -> dict[str, str]:
    return {"core/__init__.py": "", "core/spec.py": SPEC, "core/runner.py": runner,
            "core/judge.py": judge, "core/cache.py": "def prime_cache(batch, args):\n    pass\n",
            "zoo/__init__.py": "", "zoo/other.py": OTHER,
            "sub/__init__.py": "", "sub/net.py": ours}


def _run(tmp_path, files):
    inp = minirepo.build(tmp_path, head=files)
    return inp, modelprep.analyse(inp)


def test_a_second_caller_without_the_runners_preparation_is_reported(tmp_path) -> None:
    inp, found = _run(tmp_path, _files())
    [s] = found
    assert (s.file, s.line, s.caller) == ("core/judge.py", 8, "Judge.score")
    assert (s.prep_file, s.prep_line, s.first) == ("core/runner.py", 16, "Runner.step")
    assert (s.field, s.values, s.flavors) == ("sparse_mode", ("True",), ("tiny_sparse",))
    assert s.prep == "prime_cache(batch, self.args)"
    [item] = items_of.items(inp, {"skipped_preparations": found})
    assert item.kind == "opportunity" and item.where == "core/judge.py:8"
    assert "core/judge.py:8 (`Judge.score`) calls the model parts without " \
           "`prime_cache(batch, self.args)`" in item.title
    assert "`Runner.step` (core/runner.py:16)" in item.title
    assert "`sparse_mode` is True; flavor tiny_sparse sets it so" in item.title


def test_a_string_field_tested_through_a_local_in_a_self_helper_is_reported(tmp_path) -> None:
    runner = RUNNER.replace(
        '''        if getattr(self.args, "sparse_mode", False):
            prime_cache(batch, self.args)
        out''', '''        extra = self.prepare(batch)
        out''').replace('''    def loop(''', '''    def prepare(self, batch):
        kind = getattr(self.args, "mask_kind", "plain")
        if kind in ["blocks", "ragged"]:
            return self.parts[0].masks_for(source=batch)
        return None

    def loop(''')
    ours = OURS.replace("    sparse_mode: bool = False\n", '    mask_kind: str = "plain"\n') \
        .replace("sparse_mode=True", 'mask_kind="ragged"')
    _inp, [s] = _run(tmp_path, _files(runner=runner, ours=ours))
    assert (s.caller, s.field, s.values, s.flavors) == (
        "Judge.score", "mask_kind", ("'ragged'",), ("tiny_sparse",))
    assert s.prep.startswith("self.parts[0].masks_for(source=batch)")
    # the folder's values never reach the tested list: no finding
    plain = ours.replace('mask_kind="ragged"', 'mask_kind="plain"')
    assert _run(tmp_path / "b", _files(runner=runner, ours=plain))[1] == []


def test_no_value_turning_it_on_or_a_caller_that_prepares_is_no_finding(tmp_path) -> None:
    off = OURS.replace("sparse_mode=True", "sparse_mode=False")
    assert _run(tmp_path / "a", _files(ours=off))[1] == []
    prepares = JUDGE.replace("import torch.nn as nn\n",
                             "import torch.nn as nn\n\nfrom core.cache import prime_cache\n") \
        .replace("            total +=",
                 "            prime_cache(batch, None)\n            total +=")
    assert _run(tmp_path / "b", _files(judge=prepares))[1] == []
    tests = JUDGE.replace("    def score(self, parts: list[nn.Module], count: int):\n",
                          "    def score(self, parts: list[nn.Module], count: int):\n"
                          "        if parts[0].args.sparse_mode:\n"
                          "            raise ValueError('not here')\n")
    assert _run(tmp_path / "c", _files(judge=tests))[1] == []


def test_a_preparation_off_the_input_or_an_object_never_built_is_no_finding(tmp_path) -> None:
    # the call under the condition does not take what the model is called with
    unrelated = RUNNER.replace("prime_cache(batch, self.args)", "prime_cache(None, self.args)")
    assert _run(tmp_path / "a", _files(runner=unrelated))[1] == []
    # the folder registers no judge builder while another folder does: never built
    unbuilt = OURS.replace(", build_judge=Judge)", ")")
    assert _run(tmp_path / "b", _files(ours=unbuilt))[1] == []


def test_the_conditions_and_callers_read_in_every_supported_shape(tmp_path) -> None:
    # getattr without a default, an `and` of two known comparisons through a local, a
    # second caller looping over the parts, a chain of components handing them over.
    runner = RUNNER.replace('if getattr(self.args, "sparse_mode", False):',
                            'mode = getattr(self.args, "sparse_mode")\n'
                            '        if mode != False and mode != "off":') \
        .replace("            self.judge.score(self.parts, len(batches))",
                 "            self.judge.score(self.parts, len(batches))\n"
                 "            self.team.lead.note(self.parts)")
    judge = JUDGE.replace("            total += parts[0](batch)",
                          "            for part in parts:\n                total += part(batch)")
    _inp, [s] = _run(tmp_path, _files(runner=runner, judge=judge))
    assert (s.caller, s.field, s.values) == ("Judge.score", "sparse_mode", ("True",))


def test_an_unknown_name_in_getattr_a_computed_default_and_other_arguments_are_no_finding(
        tmp_path) -> None:
    # The field named by a variable is no field read; a value only computed is no value
    # (a negated test would otherwise hold for it); handing over something other than
    # the parts hands nothing.
    runner = RUNNER.replace('if getattr(self.args, "sparse_mode", False):',
                            'if getattr(self.args, KEY, False) or not getattr('
                            'self.args, "sparse_mode", True):')
    computed = OURS.replace("sparse_mode: bool = False", "sparse_mode: bool = pick()") \
        .replace("sparse_mode=True", "sparse_mode=pick()")
    assert _run(tmp_path / "a", _files(runner=runner, ours=computed))[1] == []
    other = RUNNER.replace("self.judge.score(self.parts, len(batches))",
                           "self.judge.score(self.totals, len(batches))")
    assert _run(tmp_path / "b", _files(runner=other))[1] == []


def test_test_modules_and_unparsed_files_outside_the_folder_are_skipped(tmp_path) -> None:
    files = _files()
    files["core/test_judge.py"] = files.pop("core/judge.py")
    files["core/spec.py"] = SPEC + "\n\nDEFAULT = Spec(net_cls=None)\n"
    files["core/broken.py"] = "import torch.nn as nn\nparts: list[nn.Module]\nparts[0](x\n" \
                              "Spec(\n"
    assert _run(tmp_path, files)[1] == []
    # With both callers in place the unparsed file changes nothing.
    files = {**_files(), "core/broken.py": files["core/broken.py"]}
    assert len(_run(tmp_path / "b", files)[1]) == 1


def test_callers_past_the_file_bound_are_not_read(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(modelprep, "MAX_CALLER_FILES", 1)
    assert _run(tmp_path, _files())[1] == []


def test_at_most_max_findings_are_reported(tmp_path) -> None:
    # Six objects with a `score` method that calls the parts unprepared: four reported.
    files = _files()
    files.update({f"core/judge{n}.py": JUDGE for n in range(5)})
    assert len(_run(tmp_path, files)[1]) == modelprep.MAX_FINDINGS == 4


def test_the_item_says_which_flavors_set_the_value(tmp_path) -> None:
    inp, [s] = _run(tmp_path, _files())
    titles = [items_of.items(inp, {"skipped_preparations": [
        modelprep.SkippedPrep(**{**s.__dict__, "flavors": f})]})[0].title
        for f in ((), ("tiny_sparse",), ("a", "b", "c", "d"))]
    assert "; this folder's code sets it so" in titles[0]
    assert "; flavor tiny_sparse sets it so" in titles[1]
    assert "; flavors a, b, c and 1 more set it so" in titles[2]
    assert items_of.items(inp, {"skipped_preparations": None}) == []
