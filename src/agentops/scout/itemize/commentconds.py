"""#22 items: a comment stating a condition for the code under it that the code does not
test (``commentconds``): one Opportunity per comment, naming the comment's and the
statement's ``file:line``, the setting (or the constant) and what the code tests instead.
An Opportunity: which side is wrong, the code or the comment, is the maintainers' call.
The comment's clause is quoted as text (the renderer keeps it inert); identifiers are
the code's own names.

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.analyses.commentconds import GUARD
from agentops.scout.itemize.common import code, names, rel
from agentops.scout.model import Inputs, Item, stable_id


def _clause(text: str) -> str:
    # Quoted as the comment words it; backticks would open a code span in the report.
    return '"' + text.replace("`", "'").replace('"', "'") + '"'


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    sub = inp.target.subproject
    out: list[Item] = []
    for c in res.get("comment_conditions") or []:
        at = f"{rel(c.file, sub)}:{c.line}"
        if c.form == GUARD:
            tested = names(c.tested, 4) if c.tested else "nothing of it"
            title = (f"The comment at {at} makes the code under it depend on "
                     f"{code(c.setting)} ({_clause(c.clause)}), but the `if` at :{c.code_line} "
                     f"tests {tested}: its branch runs whether {code(c.setting)} is on or off")
            fix = (f"test {code(c.setting)} in the guard if the comment is right, else say "
                   "what the guard is for")
            key = c.setting
        else:
            value = f" = {code(c.value)}" if c.value else ""
            title = (f"The comment at {at} limits {code(c.target)}{value} to a condition "
                     f"({_clause(c.clause)}), but the value at :{c.code_line} is a constant: "
                     "it applies in every run")
            fix = ("make the value depend on the condition if the comment is right, else "
                   "drop the condition from the comment")
            key = c.target
        out.append(Item(
            id=stable_id("comment-condition", c.file, c.form, key), section="S-4",
            kind="opportunity", title=title, severity="nice-to-have",
            why="the comment and the code disagree: either the code runs in the case the "
                "comment excludes, or the comment is stale and misleads the next change",
            where=f"{c.file}:{c.line}", files=(c.file,), fix=fix,
            facts=tuple(x for x in (key, c.value) if x)))
    return out
