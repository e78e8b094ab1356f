"""S-5, a doc's supported / tested parallelisms against the test cases that run the
folder (#22, census row "README claims not backed"): a features / supported /
composability / tested section of the folder's docs that names parallelisms is a claim
that they work with the folder; its evidence is a test case that turns each one on.
The claim's object is read as the setting that selects it (tensor parallelism: a
``tensor_parallel_degree`` other than 1; async TP: ``enable_async_tensor_parallel``;
HSDP / DDP: a ``data_parallel_replicate_degree`` other than 1; …) and checked against
what runs the folder: the integration cases (``OverrideDefinitions``) of its own files
and of the shared test files that launch it, the configs those cases load, its test
files, its TOMLs and its configured workflows.

- a claimed parallelism that nothing live sets: no case tests it (the one case written
  for it, when it is commented out or marked `disabled=True`, is named);
- a claimed parallelism that live cases do set, while a commented-out or disabled case sets it
  together with another parallelism no live case combines with it (TP with async TP,
  HSDP with TP): the claim hides a combination whose test is disabled.

Conservative: FSDP (on by default in every case) is not judged; a negated item (a 🚧 /
❌ mark, "not", "no") is no claim; a section is judged only when it names two or more
parallelisms and live cases set at least one of those it names (the folder's cases
are read); one finding per section, naming its gaps. Pure: loaded texts in,
``doclists.ListProblem`` records out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agentops.scout.analyses import docfeatures, doclists, testowner
from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses import settingbranches as sb
from agentops.scout.analyses import settingpairs as sp
from agentops.scout.model import Inputs


@dataclass(frozen=True)
class Claimed:
    """A parallelism a doc names, and the setting of a test case that turns it on."""

    name: str
    words: re.Pattern[str]
    setting: str  # the case flag's last part (``tensor_parallel_degree``)
    degree: bool  # a degree (on when other than 1), else a switch (on when named)


# Async TP first: its words also name TP, and are taken out of the item before the
# others are looked for.
CLAIMS = (
    Claimed("async TP", re.compile(r"(?i)\basync(?:hronous)?[- ]?(?:TP\b|tensor[- ]"
                                   r"parallel\w*)"), "enable_async_tensor_parallel", False),
    Claimed("tensor parallelism", re.compile(r"(?i)\bTP\b|\btensor[- ]parallel\w*"),
            "tensor_parallel_degree", True),
    Claimed("pipeline parallelism", re.compile(r"(?i)\bPP\b|\bpipeline[- ]parallel\w*"),
            "pipeline_parallel_degree", True),
    Claimed("context parallelism", re.compile(r"(?i)\bCP\b|\bcontext[- ]parallel\w*"),
            "context_parallel_degree", True),
    Claimed("expert parallelism", re.compile(r"(?i)\bEP\b|\bexpert[- ]parallel\w*"),
            "expert_parallel_degree", True),
    Claimed("HSDP/DDP", re.compile(r"\b(?:HSDP|DDP)\b|(?i:\bdistributed data[- ]parallel"
                                   r"\w*|\bhybrid[- ]sharded?\b)"),
            "data_parallel_replicate_degree", True),
)
_TESTED_HEAD = re.compile(r"(?i)^\s{0,3}#{1,6}\s.*\b(tested|verified|validated)\b")
# A command-line flag and its value. It starts only where a word does not: a long run
# of dashes or word characters (someone else's TOML or workflow) would otherwise be
# re-scanned from each of its characters, quadratic (20,000 dashes: 60 s).
_FLAG = re.compile(r"(?<![\w.-])--(?:[\w-]+\.)*([\w-]+)[ \t]+(?=[^\s-])")
MIN_NAMED = 2
MAX_ITEM = 300  # characters of a list item read (someone else's doc)
MAX_GAPS = 4  # gaps named per section


Case = dict[str, set[str]]


# A switch written out as off (``x = false``, ``--x False``) does not turn it on. This is
# stricter than settingpairs' reading, which asks whether a case chose a value at all.
_OFF = frozenset({"false", "0", "none", "off", "no"})


def value_on(value: str, degree: bool) -> bool:
    """Whether a setting's written value turns it on: a degree other than 1; a switch
    named bare or with any value but an off one."""
    value = value.strip("\"'")
    if degree:
        return value.lower() not in ("1", "", "none")  # None: no degree chosen
    return value.lower() not in _OFF


# A type annotation after ``name:`` (``int``, ``Optional[int]``, ``int | None``), up to
# its ``= value`` on the same line when it has one; bounded so that a long line of
# repeated names stays linear.
_ANNOTATION = re.compile(
    r"(?:Optional|Union|Literal|int|float|bool|str)\b[^=\n]{0,80}?(?:=\s*([^\s,)]+)|$)",
    re.MULTILINE)


def text_on(text: str, setting: str, degree: bool) -> bool:
    """Whether a config or test text turns ``setting`` on (``name = v`` / ``name: v``; a
    declaration ``name: int = 1`` reads its value, not its annotation, and one without a
    value, ``name: int``, sets nothing)."""
    for m in re.finditer(rf"\b{re.escape(setting)}\s*([=:])\s*([^\s,)]+)", text):
        value: str | None = m.group(2)
        if m.group(1) == ":" and (a := _ANNOTATION.match(text, m.start(2))):
            value = a.group(1)
        if value is not None and value_on(value, degree):
            return True
    return False


def _sets(flags: Case, text: str, c: Claimed) -> bool:
    for k, vals in flags.items():
        if k.replace("-", "_") == c.setting and any(
                value_on(v, c.degree) for v in (vals or {""})):
            return True
    return bool(text) and text_on(text, c.setting, c.degree)


def cases(inp: Inputs) -> tuple[list[tuple[Case, str]], list[tuple[str, Case]]]:
    """(live cases as (flags, text of what they load), commented-out or disabled cases
    as (``file:line``, flags)) of the folder: its own files' ``OverrideDefinitions``
    (a runner at the folder's top counts as a test file here) and the shared test
    files' cases that launch it."""
    sub = inp.target.subproject.rstrip("/") + "/"
    live: list[tuple[Case, str]] = []
    off: dict[str, Case] = {}
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")) \
                or "OverrideDefinitions" not in text:
            continue
        for call in sb.override_calls(ps.parse(text)):
            flags = sb.flags_of(sb.case_pairs(call))
            if sb._disabled(call):
                off[f"{path}:{call.lineno}"] = flags
            else:
                live.append((flags, ""))
        for where, call in sp._commented_cases(path, text):
            off[where] = sb.flags_of(sb.case_pairs(call))
    run = sb.runs(inp)
    live += list(run.per_case)
    for where, flags in sp.disabled_cases(inp, run):
        off.setdefault(where, flags)
    return live, sorted(off.items())


def _other_evidence(inp: Inputs) -> str:
    """Text that may turn a parallelism on outside the cases: the folder's test files,
    its TOMLs and its configured workflows (read as ``setting = value`` / ``--x.setting
    value``; bounded by the loaded tree)."""
    sub = inp.target.subproject.rstrip("/") + "/"
    parts = [t for p, t in sorted(inp.head.files.items()) if p.startswith(sub) and (
        p.endswith(".toml") or (p.endswith(".py") and (
            testowner.in_test_folder(p) or p.rsplit("/", 1)[-1].startswith("test_"))))]
    parts += [inp.head.files.get(w) or "" for w in inp.target.workflows]
    # A flag on a command line reads ``--parallelism.x 2``: make it ``x = 2``.
    return _FLAG.sub(r"\1 = ", "\n".join(parts))


def _claims_of(body: str) -> list[Claimed]:
    if docfeatures._NEGATED.search(body):
        return []
    out: list[Claimed] = []
    rest = body[:MAX_ITEM]
    for c in CLAIMS:
        if c.words.search(rest):
            out.append(c)
            rest = c.words.sub(" ", rest)
    return out


def _sections(lines: list[str]) -> dict[str, list[tuple[int, str]]]:
    """Heading -> its claimed items (line, text): the list items and table rows whose
    nearest heading is a features / supported / composability / tested one (a
    performance table under its own heading inside such a section is no claim)."""
    nearest: dict[int, str] = {}
    for start, end, head in doclists._sections(lines):
        for n in range(start + 1, end):
            nearest[n] = head  # later (deeper) sections overwrite their parents
    out: dict[str, list[tuple[int, str]]] = {}
    fence = False
    for n, line in enumerate(lines, 1):
        if doclists.is_fence(line):
            fence = not fence
            continue
        head = nearest.get(n, "")
        if fence or not head or doclists._PENDING_HEAD.match(head) or not (
                doclists._FEATURE_HEAD.match(head) or _TESTED_HEAD.match(head)):
            continue
        if (m := doclists._ITEM.match(line)) and not doclists._HEADING.match(line):
            out.setdefault(head, []).append((n, doclists.item_text(m)))
    return out


def _gaps(claimed: dict[str, tuple[int, Claimed]], live: list[tuple[Case, str]],
          off: list[tuple[str, Case]], other: str) -> tuple[list[tuple[int, str]],
                                                            list[tuple[int, str]]]:
    """(claimed parallelisms nothing live turns on, claimed ones whose combination with
    others has only a commented-out case), each as (doc line, text); a disabled case
    is named once."""
    untested: list[tuple[int, str]] = []
    combos: list[tuple[int, str]] = []
    named: set[str] = set()
    every = {c.name: c for c in CLAIMS}
    for name, (n, c) in claimed.items():
        tested = [case for case in live if _sets(*case, c)]
        if not tested:
            if text_on(other, c.setting, c.degree):
                continue
            disabled = [w for w, flags in off if _sets(flags, "", c)]
            named.update(disabled[:1])
            untested.append((n, f"{name} (`{c.setting}`" + (
                f"; its case at {disabled[0]} is disabled)" if disabled else ")")))
    for name, (n, c) in claimed.items():
        tested = [case for case in live if _sets(*case, c)]
        for where, flags in off:
            if not tested or where in named or not _sets(flags, "", c):
                continue
            with_ = [o for o in every.values() if o is not c and _sets(flags, "", o)]
            if with_ and not any(all(_sets(*case, o) for o in with_) for case in tested):
                named.add(where)
                combos.append((n, f"{name} with " + " + ".join(
                    f"`{o.setting}`" for o in with_) + f" ({where})"))
    return untested, combos


def check(inp: Inputs, docs: list[str] | None = None) -> list[doclists.ListProblem]:
    """Claim sections of the configured docs whose parallelisms no live case tests."""
    read: tuple[list[tuple[Case, str]], list[tuple[str, Case]], str] | None = None
    out: list[doclists.ListProblem] = []
    for doc in docs if docs is not None else inp.target.docs:
        text = inp.head.text(doc)
        if text is None:
            continue
        for head, items in _sections(text.splitlines()).items():
            claimed: dict[str, tuple[int, Claimed]] = {}
            for n, body in items:
                for c in _claims_of(body):
                    claimed.setdefault(c.name, (n, c))
            if len(claimed) < MIN_NAMED:
                continue
            if read is None:
                live, off = cases(inp)
                read = (live, off, _other_evidence(inp))
            live, off, other = read
            if not any(_sets(*case, c) for case in live for _n, c in claimed.values()):
                continue  # the folder's cases were not found: nothing to judge against
            untested, combos = _gaps(claimed, live, off, other)
            if not untested and not combos:
                continue
            # A backtick of the heading would pair with the first of ours and turn the
            # gaps into a code span: the heading is quoted without its backticks.
            title = head.strip("# ").strip()[:60].replace("`", "'")
            said = []
            if untested:
                said.append("no live test case turns on " + "; ".join(
                    g for _n, g in untested[:MAX_GAPS]))
            if combos:
                said.append("the only case combining " + "; ".join(
                    g for _n, g in combos[:MAX_GAPS]) + " is disabled")
            out.append(doclists.ListProblem(doc, (untested or combos)[0][0], (
                f"the {title} section claims {len(claimed)} parallelisms as supported or "
                f"tested, but {', and '.join(said)}: state the gap beside the claim, or "
                "enable a case for it"), kind="untested-claim"))
    return out


__all__ = ["CLAIMS", "Claimed", "cases", "check"]
