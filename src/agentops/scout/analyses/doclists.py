"""S-5, a doc's TODO and feature lists against what the code now does (#22 defect 7):
an item marked not done (a TODO / further-work / roadmap section, or a 🚧 / ❌ /
``[ ]`` / "not yet" / "to be added" mark) that names one capability the sub-project's
code now wires, and a supported-features list that names several parallelisms but
not one the code wires. Conservative: a finding only with code evidence (the call
that wires it, ``file:line``), only for an item that names that capability and
nothing else (``PP for MoE`` is left alone: the evidence could be another path's).

Pure: loaded texts in, ``ListProblem`` records out.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs


@dataclass(frozen=True)
class ListProblem:
    file: str
    line: int
    problem: str
    kind: str = "stale-list"


@dataclass(frozen=True)
class Capability:
    name: str
    words: re.Pattern[str]  # how a doc names it
    calls: re.Pattern[str]  # the calls (callee's last name) that wire it in the code
    parallelism: bool = True


CAPABILITIES = (
    Capability("pipeline parallelism",
               re.compile(r"(?i)\bPP\b|\bpipeline[- ]parallel\w*"),
               re.compile(r"^(pipeline_llm|pipeline_module_split|build_pipeline_schedule|"
                          r"apply_pp|pipeline_model|PipelineStage)$")),
    Capability("context parallelism",
               re.compile(r"(?i)\bCP\b|\bcontext[- ]parallel\w*"),
               re.compile(r"^(apply_cp|apply_cp_to_attention_module|context_parallel|"
                          r"create_context_parallel_ctx)$")),
    Capability("tensor parallelism",
               re.compile(r"(?i)\bTP\b|\btensor[- ]parallel\w*"),
               re.compile(r"^(apply_tp|apply_non_moe_tp|parallelize_module)$")),
    Capability("expert parallelism",
               re.compile(r"(?i)\bEP\b|\bexpert[- ]parallel\w*"),
               re.compile(r"^(apply_moe_ep_tp|apply_moe_ep|apply_ep)$")),
    Capability("FSDP", re.compile(r"(?i)\b(FSDP2?|HSDP|fully[- ]shard\w*)\b"),
               re.compile(r"^(fully_shard|apply_fsdp)$")),
    Capability("LoRA", re.compile(r"(?i)\blora\b"),
               re.compile(r"(?i)^(apply_lora|\w*lora\w*)$"), parallelism=False),
    Capability("activation checkpointing",
               re.compile(r"(?i)\bactivation[- ]checkpoint\w*|\bAC\b"),
               re.compile(r"^(apply_ac|checkpoint_wrapper)$"), parallelism=False),
)
# Words that say what is to be done, not what it is about.
_STOP = {"add", "adding", "added", "support", "supports", "supported", "supporting",
         "missing", "enable", "enabling", "enabled", "implement", "wire", "wired", "the",
         "for", "and", "with", "yet", "not", "todo", "tbd", "wip", "training", "to", "be",
         "of", "a", "an", "in", "is", "are", "feature", "features", "coming", "soon",
         "parallelism", "parallel", "full", "fully", "proper", "basic", "no", "x"}
_PENDING_HEAD = re.compile(r"(?i)^\s{0,3}#{1,6}\s.*\b(todo|to be added|roadmap|road map|"
                           r"further work|future work|next steps|planned|coming soon|"
                           r"not (yet )?supported|work in progress|wip)\b")
# A heading that announces what is supported (not one that merely mentions a
# parallelism, such as "Training with 2D parallelism (FSDP and TP)": an example).
_FEATURE_HEAD = re.compile(r"(?i)^\s{0,3}#{1,6}\s.*\b(features?|supported|support|"
                           r"composability)\b")
_PENDING_MARK = re.compile(r"(?i)🚧|❌|\[ \]|\bTODO\b|\bto be added\b|\bnot yet\b|"
                           r"\bcoming soon\b|\bWIP\b|\bplanned\b")
_DONE_MARK = re.compile(r"(?i)✅|✔|\[x\]|\|\s*(yes|done)\s*\|")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$|^\s*\|(.+)\|\s*$")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s")


def item_text(item: re.Match[str]) -> str:
    """The text of an ``_ITEM`` match: a list item's after its marker, a table row's
    between its outer pipes; "" for an empty item ("- "), which matched the list form
    with nothing after the marker (and the table group is then None)."""
    return item.group(1) or item.group(2) or ""


def is_fence(line: str) -> bool:
    """Whether a line opens or closes a fenced block: a line that also closes its own
    fence (```cmd```, a one-line command) toggles nothing."""
    text = line.strip()
    return text.startswith("```") and not (
        len(text) > 6 and text.endswith("```") and bool(text.strip("`").strip()))


def wired(inp: Inputs, caps: tuple[Capability, ...] = CAPABILITIES
          ) -> dict[str, tuple[str, int, str]]:
    """Capability -> (file, line, callee) of the first call in the sub-project's own
    code (tests left out) that wires it: calls the function, or passes it to a call."""
    sub = inp.target.subproject.rstrip("/") + "/"
    tests = inp.target.tests_dir.rstrip("/") + "/"
    out: dict[str, tuple[str, int, str]] = {}
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")) or path.startswith(tests) \
                or path.rsplit("/", 1)[-1].startswith("test_") or "/tests/" in path:
            continue
        mod = ps.parse(text)
        for node in ps.walk(mod) if mod is not None else ():
            if not isinstance(node, ast.Call):
                continue
            # Wired = called, or handed over to be called (a model spec's
            # `pipelining_fn=pipeline_llm`): an argument naming the function counts too.
            handed = [*node.args, *(k.value for k in node.keywords)]
            for ref in (node.func, *handed):
                name = ref.attr if isinstance(ref, ast.Attribute) else (
                    ref.id if isinstance(ref, ast.Name) else "")
                for cap in caps:
                    if cap.name not in out and name and cap.calls.match(name):
                        out[cap.name] = (path, node.lineno, name)
    return out


def wires(text: str, cap: Capability) -> bool:
    """Whether a module's code calls a function that wires ``cap``, or hands one over
    to a call (the same reading as ``wired``, for one file)."""
    mod = ps.parse(text)
    for node in ps.walk(mod) if mod is not None else ():
        if not isinstance(node, ast.Call):
            continue
        for ref in (node.func, *node.args, *(k.value for k in node.keywords)):
            name = ref.attr if isinstance(ref, ast.Attribute) else (
                ref.id if isinstance(ref, ast.Name) else "")
            if name and cap.calls.match(name):
                return True
    return False


# A reason given for a limit ("… because of the RoPE layout", "due to …") says why, not
# what for: the claim's scope ends where it starts. "currently"/"now" date the claim.
_REASON = re.compile(r"(?i)[,;(]?\s*\b(?:because|due\s+to|owing\s+to)\b.*$")
_WHEN = re.compile(r"(?i)\b(?:currently|for\s+now|right\s+now|at\s+the\s+moment)\b")


def _only(text: str, cap: Capability) -> bool:
    """Whether the item names ``cap`` and nothing else (beyond to-do words, a reason
    clause and a word dating the claim)."""
    text = _WHEN.sub(" ", _REASON.sub("", text))
    if not cap.words.search(text):
        return False
    rest = cap.words.sub(" ", re.sub(r"`[^`]*`|\([^)]*\)|<[^>]*>", " ", text))
    words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9+]*", rest)]
    return not [w for w in words if w not in _STOP and len(w) > 1]


def _sections(lines: list[str]) -> list[tuple[int, int, str]]:
    """(first line, end line, heading) of each heading's section (to the next heading
    of the same or a higher level), 1-based, end exclusive."""
    heads: list[tuple[int, int, str]] = []  # (line, level, heading)
    ends: list[int] = []
    # The sections still open (indexes into heads), levels rising: a heading closes each
    # one of its level or deeper. One pass; a search of the later headings for each
    # heading, over a copy of the rest, was quadratic in a doc of many headings.
    still_open: list[int] = []
    for n, line in enumerate(lines, 1):
        if (m := _HEADING.match(line)) is None:
            continue
        level = len(m.group(1))
        while still_open and heads[still_open[-1]][1] >= level:
            ends[still_open.pop()] = n
        still_open.append(len(heads))
        heads.append((n, level, line))
        ends.append(len(lines) + 1)
    return [(n, end, line) for (n, _level, line), end in zip(heads, ends, strict=True)]


def pending_items(lines: list[str], sections: list[tuple[int, int, str]],
                  ) -> Iterator[tuple[int, str]]:
    """(line number, item text) of each list item still to do: inside a to-do section
    (``sections`` as ``_sections`` gives them) or carrying a to-do mark, outside code
    fences, and not marked done."""
    pending_lines = {n for start, end, head in sections if _PENDING_HEAD.match(head)
                     for n in range(start + 1, end)}
    in_code = False
    for n, line in enumerate(lines, 1):
        if is_fence(line):
            in_code = not in_code
            continue
        item = _ITEM.match(line)
        if in_code or item is None:
            continue
        if (n not in pending_lines and not _PENDING_MARK.search(line)) or \
                _DONE_MARK.search(line):
            continue  # not marked as to do, or marked done
        yield n, item_text(item)


def check(inp: Inputs, docs: list[str] | None = None) -> list[ListProblem]:
    """Stale items of the configured docs' TODO and feature lists."""
    found: dict[str, tuple[str, int, str]] | None = None
    out: list[ListProblem] = []
    for doc in docs if docs is not None else inp.target.docs:
        text = inp.head.text(doc)
        if text is None:
            continue
        lines = text.splitlines()
        sections = _sections(lines)
        for n, body in pending_items(lines, sections):
            for cap in CAPABILITIES:
                if not _only(body.replace("|", " "), cap):
                    continue
                if found is None:
                    found = wired(inp)
                if cap.name in found:
                    path, ln, callee = found[cap.name]
                    out.append(ListProblem(doc, n, (
                        f"`{body.strip(' |')[:80]}` is listed as not done, but the "
                        f"sub-project now wires {cap.name}: `{callee}(…)` at {path}:{ln}; "
                        "possibly stale: update the list if it is done")))
        for start, end, head in sections:
            if not _FEATURE_HEAD.match(head) or _PENDING_HEAD.match(head):
                continue
            # What its list items and table rows name (commands and prose aside).
            fence = False
            listed = []
            for line in lines[start:end - 1]:
                if is_fence(line):
                    fence = not fence
                elif not fence and _ITEM.match(line):
                    listed.append(line)
            body = "\n".join(listed)
            named = [c for c in CAPABILITIES if c.parallelism and c.words.search(body)]
            if len(named) < 2:
                continue  # not a list of parallelisms
            if found is None:
                found = wired(inp)
            for cap in CAPABILITIES:
                if cap.parallelism and cap not in named and cap.name in found:
                    path, ln, callee = found[cap.name]
                    out.append(ListProblem(doc, start, (
                        f"the {head.strip('# ').strip()[:60]} section names "
                        f"{', '.join(c.name for c in named)} but not {cap.name}, which the "
                        f"sub-project wires (`{callee}(…)` at {path}:{ln}); possibly "
                        "stale: add it if it is supported")))
    return out
