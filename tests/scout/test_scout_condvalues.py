"""#22 defect 7 (S-5): prose naming one value of a condition the code writes over
several (``condvalues``): an error message naming one of the values its ``!=``
condition refuses, a doc sentence stating a rule for one value of a setting the code
always tests together with another; and the no-match cases (a message naming every
refused value or none, an ``==`` condition, a command in a code block, a value the code
also tests alone, tests and other folders)."""

from __future__ import annotations

from agentops.scout.analyses import condvalues
from agentops.scout.itemize import docs as doc_items
from tests.scout import minirepo

MODEL = '''\
class Args:
    kernel: str = "plain"

    def check(self, cfg):
        if cfg.degree > 1 and self.kernel != "plain":
            raise NotImplementedError("Degree support for FancyKernel is in progress.")


def pick(args):
    if args.kernel == "fancy":
        return 1
    if args.kernel == "packed":
        return 2
    return 0


def place(parallelism):
    if parallelism.layout in ("wide", "tall"):
        return "ordered"
    return "any"
'''

README = '''\
# Sub

Under `--parallelism.layout wide`, declare the axes outer to inner.

```bash
./run.sh --parallelism.layout wide
```
'''

FINE = '''\
class Args:
    kernel: str = "plain"
    mode: str = "a"

    def check(self, cfg):
        if cfg.degree > 1 and self.kernel != "plain":
            raise NotImplementedError("Degree needs plain: fancy and packed are not ready.")
        if cfg.degree > 2 and self.kernel != "plain":
            raise NotImplementedError("Only the plain kernel takes a degree above 2.")
        if self.kernel == "packed":
            raise ValueError("packed is refused here (an == test).")


def pick(args):
    if args.kernel == "fancy":
        return 1
    if args.kernel == "packed":
        return 2
    return 0


def place(parallelism):
    if parallelism.layout in ("wide", "tall"):
        return "ordered"
    if parallelism.layout == "wide":
        return "wide alone"
    return "any"
'''


def _inp(tmp_path, files, docs=True):
    return minirepo.build(tmp_path, head={"sub/__init__.py": "", **files},
                          target="docs: [sub/README.md]\n" if docs else "")


def test_message_and_doc_naming_one_value_are_reported(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/model.py": MODEL, "sub/README.md": README})
    got = condvalues.analyse(inp)
    assert [(p.file, p.line) for p in got] == [("sub/README.md", 3), ("sub/model.py", 6)]
    doc, message = got
    assert "`--parallelism.layout wide`" in doc.problem and "`tall`" in doc.problem
    assert "sub/model.py:18" in doc.problem
    assert "`fancy`" in message.problem.split("but")[0]
    assert "also `packed`" in message.problem and "`plain`" in message.problem
    items = doc_items.items(inp, {"doc_inaccuracies": got})
    assert [i.kind for i in items] == ["docs", "docs"]
    assert items[0].title.startswith("`sub/README.md:3`")


def test_complete_messages_equal_tests_and_lone_values_are_fine(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/model.py": FINE, "sub/README.md": README})
    assert condvalues.analyse(inp) == []


def test_tests_and_other_folders_are_not_read(tmp_path) -> None:
    inp = _inp(tmp_path, {"sub/tests/test_model.py": MODEL, "core/model.py": MODEL},
               docs=False)
    assert condvalues.analyse(inp) == []


def test_named_values_match_words_and_their_prefixes() -> None:
    assert condvalues._named("CP for FlexAttention soon", {"flex", "varlen"}) == {"flex"}
    assert condvalues._named("no ep here", {"ep", "varlen"}) == set()  # too short to say
    assert condvalues._named("varlen and flex", {"flex", "varlen"}) == {"flex", "varlen"}
