"""S-5 items: each doc inaccuracy (lines grouped per file and problem).

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.model import Inputs, Item, stable_id


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    lines: dict[tuple[str, str], list[int]] = {}
    for p in res["doc_inaccuracies"]:
        if p.kind not in ("absent", "unchecked", "unverified"):  # in the Docs status line
            lines.setdefault((p.file, p.problem), []).append(p.line)
    out = []
    for (file, problem), at in sorted(lines.items(), key=lambda kv: (kv[0][0] not in (
            inp.target.docs), kv[0][0], min(kv[1]) or 10**9)):
        # Line 0: a claim about the docs as a whole (something none of them mentions).
        where = (f"`{file}:{', '.join(map(str, at))}`" if any(at) else
                 " + ".join(f"`{d.rsplit('/', 1)[-1]}`" for d in inp.target.docs))
        out.append(Item(id=stable_id("doc", file, problem), section="S-5", kind="docs",
                        title=f"{where}: {problem}", files=(file,),
                        fingerprint=stable_id(problem)))
    return out
