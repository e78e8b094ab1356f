"""S-5, the other direction of ``doclists`` (#22 defect 7, "a feature/support list
against what the code now does"): a supported-features list that claims a parallelism
the sub-project's code no longer wires. A section under a features / supported /
composability heading (not a to-do one) whose list items name two or more
parallelisms is a list of them; an item there that names one the code wires by no
call (no ``apply_ddp``/``replicate``, no ``apply_cp``, …; the same calls ``doclists``
takes as evidence) is possibly stale. Typical after core removed a path (a DDP
wrapper) and the model README kept advertising it.

Conservative: an item that negates ("not", "no", "without", a 🚧 / ❌ / ``[ ]`` mark)
is not a claim; a folder whose code parses nothing is not judged.

Pure: loaded texts in, ``doclists.ListProblem`` records out.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from agentops.scout.analyses import doclists
from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.doclists import Capability
from agentops.scout.model import Inputs

# Data parallelism by replication: named in feature lists, wired by a DDP/replicate
# call. Only this analysis asks for it (doclists' "list omits X" check does not).
DDP = Capability("DDP", re.compile(r"\bDDP\b|(?i:\bdistributed data[- ]parallel\w*)"),
                 re.compile(r"^(apply_ddp|apply_replicate|replicate|DistributedDataParallel"
                            r"|data_parallel)$"))
_NEGATED = re.compile(r"(?i)\bnot\b|\bno\b|\bwithout\b|n't\b|\bunsupported\b|🚧|❌|\[ \]")


# What a name of the code must hold, as one of its ``_``-separated parts, to count as
# handling a capability (``apply_cp``, ``cp_enabled``, ``set_cp_mesh``, ``tp_mesh``):
# broader than doclists' wiring calls, so that a folder that handles a parallelism its
# own way is not told it does not. DDP counts by calls only: ``dp_replicate`` meshes
# are HSDP's, not a DDP wrapper.
_TOKENS = {"pipeline parallelism": {"pp", "pipeline", "pipelining"},
           "context parallelism": {"cp"}, "tensor parallelism": {"tp"},
           "expert parallelism": {"ep", "etp"}, "FSDP": {"fsdp", "hsdp", "shard"},
           "DDP": {"ddp", "replicate"}}
# ... or holds one of these spelled out (``context_parallel_degree``).
_SPELLED = {"pipeline parallelism": "pipeline", "context parallelism": "context_parallel",
            "tensor parallelism": "tensor_parallel", "expert parallelism": "expert_parallel",
            "FSDP": "fully_shard"}
# A section is a list of parallelisms when its items name this many of them, and it is
# judged when the code visibly handles this many of those it names.
MIN_LISTED = 2
MIN_HANDLED = 2


def _named_by(name: str, called: bool) -> set[str]:
    """Capabilities a name of the code handles: by one of its ``_``-separated parts or a
    spelled-out form; DDP only by a call, matched case-sensitively, since
    ``Replicate()`` is a tensor placement, not a replicating wrapper."""
    parts = set(name.split("_")) if name else set()
    lowered = {p.lower() for p in parts}
    out = {cap for cap, spelled in _SPELLED.items()
           if lowered & _TOKENS[cap] or spelled in name.lower()}
    if called and (parts & _TOKENS["DDP"] or name == "DistributedDataParallel"):
        out.add("DDP")
    return out


def handled(inp: Inputs) -> set[str]:
    """Capabilities some call (any of them), attribute read, name read or keyword (not
    DDP) of the sub-project's own non-test code names by one of its parts. A function
    handed over by name wires its capability as a call does: a spec that registers
    another module's pipelining function (``pipelining_fn=pipeline_model``) handles
    pipeline parallelism though this folder never calls it."""
    sub = inp.target.subproject.rstrip("/") + "/"
    out: set[str] = set()
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")) or "/tests/" in path \
                or path.rsplit("/", 1)[-1].startswith("test_"):
            continue
        mod = ps.parse(text)
        for node in ps.walk(mod) if mod is not None else ():
            called = isinstance(node, ast.Call)
            ref = node.func if called else node
            if isinstance(node, ast.keyword):
                name = node.arg or ""
            else:
                name = ref.attr if isinstance(ref, ast.Attribute) else (
                    ref.id if isinstance(ref, ast.Name) else "")
            out |= _named_by(name, called)
    return out


def _feature_lists(lines: list[str]) -> Iterator[tuple[str, list[tuple[int, str]]]]:
    """(heading, [(line, item text)]) of each features / supported section that is not
    a to-do one, its list items outside fenced blocks."""
    for start, end, head in doclists._sections(lines):
        if not doclists._FEATURE_HEAD.match(head) or doclists._PENDING_HEAD.match(head):
            continue
        fence = False
        items: list[tuple[int, str]] = []
        for n in range(start + 1, end):
            line = lines[n - 1]
            if doclists.is_fence(line):
                fence = not fence
            elif not fence and (m := doclists._ITEM.match(line)) \
                    and not doclists._HEADING.match(line):
                items.append((n, doclists.item_text(m)))
        yield head, items


def _unhandled_claims(doc: str, head: str, items: list[tuple[int, str]],
                      caps: tuple[Capability, ...], handled_caps: set[str]
                      ) -> list[doclists.ListProblem]:
    """The list's items that claim a capability none of the code handles."""
    out: list[doclists.ListProblem] = []
    # A backtick of the heading would pair with the item's code span below and hide the
    # claim inside a code span: the heading is quoted without its backticks.
    title = head.strip("# ").strip()[:60].replace("`", "'")
    for n, body in items:
        if _NEGATED.search(body):
            continue
        for cap in caps:
            if cap.words.search(body) and cap.name not in handled_caps:
                out.append(doclists.ListProblem(doc, n, (
                    f"the {title} section claims {cap.name} "
                    f"(`{body.strip()[:80]}`), but no code of the sub-project "
                    f"handles it (no call or setting naming "
                    f"{'/'.join(sorted(_TOKENS[cap.name]))}); possibly stale: drop "
                    "it, or say where it is wired")))
    return out


def check(inp: Inputs, docs: list[str] | None = None) -> list[doclists.ListProblem]:
    """Feature-list items of the configured docs that claim an unwired parallelism."""
    caps = (*(c for c in doclists.CAPABILITIES if c.parallelism), DDP)
    found: set[str] | None = None  # read from the code once, when a list needs it
    out: list[doclists.ListProblem] = []
    for doc in docs if docs is not None else inp.target.docs:
        text = inp.head.text(doc)
        if text is None:
            continue
        for head, items in _feature_lists(text.splitlines()):
            named = {c.name for c in caps for _n, body in items if c.words.search(body)}
            if len(named) < MIN_LISTED:
                continue
            if found is None:
                found = handled(inp)
            # Judge only where the code's handling is visible: most of what the list
            # names is found; a folder that parallelizes through another module's
            # plan shows none of it and is not judged.
            if len(named & found) >= MIN_HANDLED:
                out += _unhandled_claims(doc, head, items, caps, found)
    return list({(p.file, p.line, p.problem): p for p in out}.values())
