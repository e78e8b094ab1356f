"""#22 item 7 (docs resolved against the code), ``docparity``: a README line claiming
the sub-project does the same as an upstream file, while copies of upstream functions
in the sub-project lag upstream's. Match: the claim naming `core/train.py` with a
lagging copy (file:line, the claim quoted inert, the copy named). No-match: no lag, a
lag of another folder, a claim naming no upstream file (or a file of the folder
itself), and a line naming the file without a parity claim."""

from __future__ import annotations

import dataclasses

from agentops.scout.analyses import docparity
from agentops.scout.analyses.bodydrift import BodyDrift, Lag
from agentops.scout.itemize import docs as doc_items
from tests.scout import minirepo

README = """\
# Sub

The example in [train.py](./train.py) shows how to use the engine for pretraining, \
with the same functionality as [core/train.py](/core/train.py) (except for <b>quantization</b>).
It is built on core/train.py too.
The helper is identical to sub/train.py in spirit.
"""

LAG = Lag(ours="sub/train.py:12", upstream="core/train.py:40", function="Trainer.step",
          how="copy", units=("keyword `step(return_outputs=…)`",),
          lacking=("keyword `step(return_outputs=…)`",))
DRIFT = BodyDrift(ours="sub/train.py:30", upstream="core/train.py:80",
                  function="Trainer.train", units=("guard `if not finite`",),
                  commits=("abc1234",), how="copy")


def _inp(tmp_path, readme: str = README):
    return minirepo.build(tmp_path, head={"core/__init__.py": "", "core/train.py": "X = 1\n",
                                          "sub/__init__.py": "", "sub/train.py": "Y = 2\n",
                                          "sub/README.md": readme},
                          target="docs: [sub/README.md]\n")


def test_a_parity_claim_while_copies_lag_upstream(tmp_path) -> None:
    inp = _inp(tmp_path)
    [p] = docparity.analyse(inp, [DRIFT], [LAG])
    assert (p.file, p.line) == ("sub/README.md", 3)
    assert "parity with `core/train.py`" in p.problem
    # The claim is quoted from just before it to the end of its sentence, its
    # exception included, markup removed (inert).
    quoted = p.problem.split('("', 1)[1].split('")', 1)[0]
    assert quoted.startswith("…") and "same functionality as core/train.py" in quoted
    assert "except for b quantization /b" in quoted
    assert not set("[]()<>`") & set(quoted)
    assert "`Trainer.train` (guard if not finite)" in p.problem
    assert "`Trainer.step` (keyword step(return_outputs=…))" in p.problem
    [item] = doc_items.items(inp, {"doc_inaccuracies": [p]})
    assert item.kind == "docs" and item.title.startswith("`sub/README.md:3`")


def test_no_claim_without_lag_or_upstream_file(tmp_path) -> None:
    inp = _inp(tmp_path)
    assert docparity.analyse(inp, [], []) == []
    other = dataclasses.replace(LAG, ours="elsewhere/train.py:3")
    assert docparity.analyse(inp, [], [other]) == []
    # The claim compares with nothing upstream: prose, or the folder's own file.
    plain = "# Sub\n\nIt has the same functionality as before.\nSee core/train.py.\n" \
            "The helper is identical to sub/train.py.\n"
    assert docparity.analyse(_inp(tmp_path / "b", plain), [DRIFT], [LAG]) == []
