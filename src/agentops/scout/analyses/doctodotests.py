"""S-5, a doc's to-do item that asks for tests or CI the repository already has (#22
defect 7, "a doc's TODO list against what the code and its tests now do"): an item
marked not done (a to-do / to-be-added / roadmap section, or a pending mark) that names
testing and nothing else ("CI integration", "unit tests"), while a test file of a
shared test tree (outside the folder's own tests) imports the sub-project or launches
it by name and a workflow runs that test file. Both file:line are the evidence.

Conservative: an item naming anything besides testing ("test against published
benchmarks") is left alone; a test only in a commented-out line does not count (a
case disabled "temporarily" runs nowhere), nor a workflow line that is a comment;
without a workflow that runs the test, nothing is said.

Pure: loaded texts in, ``doclists.ListProblem`` records out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agentops.scout.analyses import doclists, testowner
from agentops.scout.model import Inputs

# How a to-do item names testing; the words left once these are taken out must be
# to-do words (doclists' list) or this short list of test-kind words.
_TESTING = re.compile(r"(?i)\bCI\b|\bcontinuous[- ]integration\b|\b(?:unit|integration|"
                      r"e2e|end[- ]to[- ]end|regression|smoke)[- ]tests?\b|\btests?\b|"
                      r"\btesting\b")
_TEST_KIND = {"integration", "coverage", "e2e", "unit", "more"}
_COMMENT = re.compile(r"^[ \t]*#")
MAX_TEST_FILES = 400
MAX_LINE = 2_000  # a test case or a workflow step; longer lines are data, not read


@dataclass(frozen=True)
class Exercised:
    test: str  # the shared test file
    line: int
    how: str  # "imports …" / "launches it with …"
    workflow: str
    workflow_line: int


_OPENERS = re.compile(r"[`(<]")
_CLOSERS = {"`": "`", "(": ")", "<": ">"}


def _without_asides(text: str) -> str:
    """``text`` with each code span, parenthesis and angle-bracketed part blanked, left
    to right, each to the first closer after it. Linear: a regex of the same reading
    (``\\([^)]*\\)``) rescans to the line's end from every unclosed opener, quadratic
    on a run of them (20,000 "(": 2 s; a 4 MB doc line: hours)."""
    kept: list[str] = []
    unclosed: set[str] = set()  # no closer of this kind is left: stop looking for one
    last = 0
    for m in _OPENERS.finditer(text):
        if m.start() < last or m.group(0) in unclosed:
            continue
        end = text.find(_CLOSERS[m.group(0)], m.start() + 1)
        if end < 0:
            unclosed.add(m.group(0))
            continue
        kept += [text[last:m.start()], " "]
        last = end + 1
    return "".join(kept) + text[last:]


def _names_only_testing(text: str) -> bool:
    if not _TESTING.search(text):
        return False
    rest = _TESTING.sub(" ", _without_asides(text))
    words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9+]*", rest)]
    return not [w for w in words if len(w) > 1 and w not in doclists._STOP
                and w not in _TEST_KIND]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _is_group_label(lines: list[str], n: int) -> bool:
    """Whether list item ``n`` (1-based) heads a nested list ("- Testing" over its
    items): a label, not a to-do of its own; its items are judged one by one."""
    # By index, not ``lines[n:]``: a copy of the rest for every item was quadratic in
    # a doc of many to-do items.
    following = next((lines[i] for i in range(n, len(lines)) if lines[i].strip()), "")
    return bool(doclists._ITEM.match(following)) and \
        _indent(following) > _indent(lines[n - 1])


def _use(text: str, dotted: str, launch: re.Pattern[str]) -> tuple[int, str] | None:
    """(line, how) of the first uncommented line that imports or launches the folder."""
    for n, line in enumerate(text.splitlines(), 1):
        if _COMMENT.match(line) or len(line) > MAX_LINE:
            continue
        if re.search(rf"\b(?:from|import)[ \t]+{re.escape(dotted)}\b", line):
            return n, f"imports `{dotted}`"
        m = launch.search(line)
        if m:
            return n, f"launches it with `{m.group(0)}`"
    return None


def _runner(inp: Inputs, test: str) -> tuple[str, int] | None:
    """(workflow, line) of the first workflow line that runs ``test``: names its path
    or its dotted module, or names its package's runner with the file's stem as an
    argument (``python -m pkg.run_tests --suite models`` for ``pkg/models.py``)."""
    module = test.removesuffix(".py").replace("/", ".")
    package = module.rsplit(".", 1)[0] if "." in module else ""
    stem = module.rsplit(".", 1)[-1]
    folder = test.rsplit("/", 1)[0] + "/" if "/" in test else ""
    stem_word = re.compile(rf"(?<![\w./-]){re.escape(stem)}(?![\w/-])")
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(".github/workflows/") and path.endswith((".yml", ".yaml"))):
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if _COMMENT.match(line) or len(line) > MAX_LINE:
                continue
            if test in line or re.search(rf"\b{re.escape(module)}\b(?![\w.])", line):
                return path, n
            if package and (f"{package}." in line or (folder and folder in line)) \
                    and stem_word.search(line):
                return path, n
    return None


def exercised(inp: Inputs) -> Exercised | None:
    """The first shared test file that uses the sub-project and that a workflow runs."""
    sub = inp.target.subproject.rstrip("/")
    dotted = sub.replace("/", ".")
    launch = testowner.launch_pattern(sub.rsplit("/", 1)[-1])
    seen = 0
    for path, text in sorted(inp.head.files.items()):
        if not path.endswith(".py") or path.startswith(sub + "/") \
                or not testowner.in_test_folder(path) \
                or testowner.relation(path, sub) != testowner.SHARED:
            continue
        seen += 1
        if seen > MAX_TEST_FILES:
            break
        use = _use(text, dotted, launch)
        if use is None:
            continue
        run = _runner(inp, path)
        if run is not None:
            return Exercised(path, use[0], use[1], run[0], run[1])
    return None


def check(inp: Inputs, docs: list[str] | None = None) -> list[doclists.ListProblem]:
    """To-do items of the configured docs that ask for the tests a workflow runs."""
    out: list[doclists.ListProblem] = []
    evidence: Exercised | None = None
    looked = False
    for doc in docs if docs is not None else inp.target.docs:
        text = inp.head.text(doc)
        if text is None:
            continue
        lines = text.splitlines()
        for n, item in doclists.pending_items(lines, doclists._sections(lines)):
            body = item.replace("|", " ")
            if not _names_only_testing(body) or _is_group_label(lines, n):
                continue
            if not looked:
                evidence, looked = exercised(inp), True
            if evidence is None:
                return out
            e = evidence
            out.append(doclists.ListProblem(doc, n, (
                f"`{body.strip()[:80]}` is listed as not done, but "
                f"{e.test}:{e.line} {e.how} and {e.workflow}:{e.workflow_line} runs that "
                "test in CI; possibly stale: update the list if it is done")))
    return out
