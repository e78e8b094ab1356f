"""#22 defect 6 (``refusaldrift``): a refusal the sibling folders rewrote or added in the
window that the sub-project did not follow. Match: a sibling narrows a refusal all three
folders shared, ours keeps the old form (read through another holder and a local); two
siblings add a nested refusal about settings ours tests and never refuses. No-match: ours
followed, a sibling dropped its refusal with no rewrite, ours wrote its copy only in the
window, one sibling adding is no agreement, ours never spells a name of it, ours refuses
the broader case already, no baseline."""

from __future__ import annotations

import dataclasses

from agentops.scout.analyses import refusaldrift
from agentops.scout.itemize import refusaldrift as items_of
from tests.scout import minirepo

OLD = '''\
def setup(job, args):
    if job.run.split_degree > 1 and args.kernel != "plain":
        raise NotImplementedError("splitting needs the plain kernel")
    return args
'''

# Ours reads the same check through a local and getattr: the same condition.
OLD_LOCAL = '''\
def prepare(job, model):
    kernel = getattr(model.args, "kernel", "plain")
    if job.run.split_degree > 1 and kernel != "plain":
        raise NotImplementedError("splitting is for the plain kernel only")
    return model
'''

NEW = '''\
def setup(job, args):
    if job.run.split_degree > 1 and args.kernel == "packed":
        raise NotImplementedError("splitting works with plain and tiled kernels")
    return args
'''

PLAIN = "def setup(job, args):\n    return args\n"

ADDED = '''\
def build(opts, model):
    if opts.split_enabled:
        if opts.shard_enabled:
            raise NotImplementedError("split with shard is not supported yet")
        model.split()
    return model
'''

OURS_NO_REFUSAL = '''\
def build(opts, model):
    if opts.split_enabled:
        model.split()
    if opts.shard_enabled:
        model.shard()
    return model
'''


def _inp(tmp_path, base: dict[str, str], head: dict[str, str]):
    common = {"models/__init__.py": "", "models/gamma/__init__.py": "",
              "models/gamma/model.py": PLAIN}
    inp = minirepo.build(tmp_path, base={**common, **base}, head=head)
    return dataclasses.replace(inp, target=dataclasses.replace(inp.target,
                                                               subproject="models/ours"))


def _shared(ours: str = OLD_LOCAL) -> dict[str, str]:
    return {"models/ours/setup.py": ours, "models/alpha/setup.py": OLD,
            "models/beta/setup.py": OLD}


def test_a_refusal_a_sibling_narrowed_that_ours_still_makes(tmp_path) -> None:
    inp = _inp(tmp_path, _shared(), {"models/alpha/setup.py": NEW})
    [d] = refusaldrift.analyse(inp)
    assert (d.change, d.file, d.line) == ("rewritten", "models/ours/setup.py", 3)
    assert d.condition == "kernel != 'plain' and split_degree > 1"
    assert d.now == "kernel == 'packed' and split_degree > 1"
    assert d.siblings == ("models/alpha/setup.py:2",)
    assert "plain and tiled" in d.message
    [item] = items_of.items(inp, {"refusal_drift": [d]})
    assert item.kind == "opportunity" and item.where == "models/ours/setup.py:3"
    assert item.title.startswith("this folder still refuses")
    assert "models/alpha/setup.py:2" in item.title


def test_no_rewrite_reported_when_ours_followed_or_nothing_was_rewritten(tmp_path) -> None:
    # Ours followed the sibling.
    assert refusaldrift.analyse(_inp(tmp_path / "a", _shared(), {
        "models/alpha/setup.py": NEW, "models/ours/setup.py": NEW})) == []
    # The sibling dropped the refusal altogether (a feature removed, no rewrite).
    assert refusaldrift.analyse(_inp(tmp_path / "b", _shared(),
                                     {"models/alpha/setup.py": PLAIN})) == []
    # Ours wrote its copy only in the window: not a copy left behind.
    base = _shared(PLAIN)
    assert refusaldrift.analyse(_inp(tmp_path / "c", base, {
        "models/alpha/setup.py": NEW, "models/ours/setup.py": OLD_LOCAL})) == []
    # No baseline to compare with.
    inp = _inp(tmp_path / "d", _shared(), {"models/alpha/setup.py": NEW})
    assert refusaldrift.analyse(dataclasses.replace(inp, base=None)) == []


def test_a_refusal_two_siblings_added_that_ours_lacks(tmp_path) -> None:
    base = {"models/ours/build.py": OURS_NO_REFUSAL, "models/alpha/build.py": PLAIN,
            "models/beta/build.py": PLAIN}
    inp = _inp(tmp_path, base, {"models/alpha/build.py": ADDED,
                                "models/beta/build.py": ADDED})
    [d] = refusaldrift.analyse(inp)
    assert (d.change, d.file, d.line) == ("added", "models/ours/build.py", 2)
    assert d.condition == "shard_enabled and split_enabled"
    assert d.siblings == ("models/alpha/build.py:3", "models/beta/build.py:3")
    [item] = items_of.items(inp, {"refusal_drift": [d]})
    assert item.title.startswith("2 sibling folders added the refusal")


def test_no_addition_reported_on_weak_evidence_or_when_ours_refuses_already(
        tmp_path) -> None:
    base = {"models/ours/build.py": OURS_NO_REFUSAL, "models/alpha/build.py": PLAIN,
            "models/beta/build.py": PLAIN}
    # One sibling is no agreement.
    assert refusaldrift.analyse(_inp(tmp_path / "a", base,
                                     {"models/alpha/build.py": ADDED})) == []
    # Ours never spells one of the settings: not about something it has.
    no_shard = OURS_NO_REFUSAL.replace("shard_enabled", "other_flag")
    assert refusaldrift.analyse(_inp(tmp_path / "b", {**base, "models/ours/build.py": no_shard},
                                     {"models/alpha/build.py": ADDED,
                                      "models/beta/build.py": ADDED})) == []
    # Ours refuses the broader case (split at all), so the narrower one is covered.
    broad = OURS_NO_REFUSAL.replace(
        "        model.split()\n",
        "        raise NotImplementedError('no split here')\n", 1)
    assert refusaldrift.analyse(_inp(tmp_path / "c", {**base, "models/ours/build.py": broad},
                                     {"models/alpha/build.py": ADDED,
                                      "models/beta/build.py": ADDED})) == []
    # Ours refuses the case in a `match` (`case "fast": raise`), the siblings in an `if`.
    by_case = ("def build(opts, model):\n    if opts.split_enabled:\n        model.split()\n"
               "    match opts.mode:\n        case \"fast\":\n"
               "            raise ValueError('no fast mode here')\n    return model\n")
    added = ADDED.replace("if opts.shard_enabled:", "if opts.mode == \"fast\":")
    assert refusaldrift.analyse(_inp(tmp_path / "d", {**base, "models/ours/build.py": by_case},
                                     {"models/alpha/build.py": added,
                                      "models/beta/build.py": added})) == []
    # Without that `match` case, ours lacks it.
    lacking = by_case.replace("raise ValueError('no fast mode here')", "model.fast()")
    [d] = refusaldrift.analyse(_inp(tmp_path / "e", {**base, "models/ours/build.py": lacking},
                                    {"models/alpha/build.py": added,
                                     "models/beta/build.py": added}))
    assert d.condition == "mode == 'fast' and split_enabled"


def test_a_refusal_over_the_same_names_written_otherwise_is_named(tmp_path) -> None:
    # The siblings add `split and kind is packed`; ours refuses `split and kind is not
    # plain` over the same names: not "never refuses", but a copy that differs.
    ours = ("def build(opts, model):\n    if opts.split_enabled and opts.kind != 'plain':\n"
            "        raise NotImplementedError('plain only')\n    return model\n")
    theirs = ("def build(opts, model):\n    if opts.split_enabled and opts.kind == 'packed':\n"
              "        raise NotImplementedError('packed does not split')\n    return model\n")
    base = {"models/ours/build.py": ours, "models/alpha/build.py": PLAIN,
            "models/beta/build.py": PLAIN}
    inp = _inp(tmp_path, base, {"models/alpha/build.py": theirs,
                                "models/beta/build.py": theirs})
    [d] = refusaldrift.analyse(inp)
    assert (d.change, d.file, d.line) == ("differs", "models/ours/build.py", 2)
    assert d.condition == "kind != 'plain' and split_enabled"
    assert d.now == "kind == 'packed' and split_enabled"
    [item] = items_of.items(inp, {"refusal_drift": [d]})
    assert "written otherwise" in item.title
