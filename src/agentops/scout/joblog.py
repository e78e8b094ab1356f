"""Read a GitHub Actions job log of a failed integration/unit test run (S-3a, S-3b, S-3c).

Pure: text in, a frozen ``JobLogSummary`` out. It never fetches a log (``collect.py``
does) and never decides what goes into the report (the analyses do).

What a log looks like, and what is stripped before matching:
  ``2026-07-09T12:34:56.1234567Z ``  runner timestamp at line start
  ``[fsdp_tp_compile] ``              test-name prefix the integration runner adds
  ``[rank0]:`` / ``[default0]:``      torchrun rank prefixes
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from agentops.scout.livedata import FailedTest

_TIMESTAMP_RE = re.compile(r"^\ufeff?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?")
_RANK_RE = re.compile(r"^\s*\[(?:rank|default)\d+\]:\s?")
_BRACKET_RE = re.compile(r"^\[(?P<name>[A-Za-z0-9_.:/\-]+)\]\s?")
_COMMAND_RE = re.compile(r"(?:^|\s)Command:\s*(?P<cmd>\S.*)$")
# The older torchtitan runner logged "=====Integration test, flavor : X, command : CMD====="
_OLD_COMMAND_RE = re.compile(r"Integration test, flavor\s*:\s*(?P<descr>.*?),\s*command\s*:\s*"
                             r"(?P<cmd>\S.*?)=+\s*$")
_SUMMARY_RE = re.compile(r"(?:^|\s)(?:[\w.]+\.)?\w*(?:Error|Exception):\s*(?P<n>\d+) integration "
                         r"test\(s\) failed:?(?P<rest>.*)$")
_PYTEST_FAILED_RE = re.compile(r"^(?:FAILED|ERROR) (?P<name>\S+::\S+?)(?: - (?P<msg>.*))?$")
_TORCH_RE = re.compile(r"(?:^|\s)torch-(?P<v>\d[^\s]*)")
_FRAME_RE = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)')
# pytest's long traceback names a frame as "path/to/file.py:123: in func"
_PYTEST_FRAME_RE = re.compile(r"^(?P<path>[\w./\-]+\.py):(?P<line>\d+):(?: in (?P<func>\S+))?")
_EXC_RE = re.compile(r"^(?P<type>[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Unsupported|"
                     r"Failed|Failure|UserError))(?::\s*(?P<msg>.*))?$")
_PYTEST_SECTION_RE = re.compile(r"^_{3,} (?P<title>\S+) _{3,}$")
_NAME_RE = re.compile(r"^\s*(?:[-*]\s+)?(?P<name>[A-Za-z0-9_.:/\[\]\-]+)\s*,?$")

# Sanity: these wrap the real failure (the runner's summary, torchrun's child failure,
# subprocess) and must never be reported as the root cause.
_WRAPPERS = ("ChildFailedError", "CalledProcessError", "integration test(s) failed",
             "Integration test failed")
# One character past trusted_repro's bound, so an over-long command is seen as such.
LOGGED_LIMIT = 4001


@dataclass(frozen=True)
class JobLogSummary:
    """What one job log says about its failure."""

    failed_tests: tuple[FailedTest, ...] = ()
    torch_version: str | None = None  # from the last "Successfully installed … torch-V"
    root_cause: str = ""  # "Type: message" of the first non-wrapper exception
    source_lines: tuple[str, ...] = ()  # frames pointing into the sub-project


def _split(raw: str) -> tuple[str | None, str, str]:
    """``(bracket name or None, text with the bracket, text without it)``, timestamp and
    rank prefixes stripped: one pass of the prefix rules per line, shared by both uses."""
    line = raw.rstrip("\r\n")
    if line[:1].isdigit() or line[:1] == "\ufeff":
        stamp = _TIMESTAMP_RE.match(line)
        if stamp:
            line = line[stamp.end():]
    if line[:1] == "[":
        match = _BRACKET_RE.match(line)
        if match and not _RANK_RE.match(line):
            return match.group("name"), _strip_rank(line), _strip_rank(line[match.end():])
    line = _strip_rank(line)
    return None, line, line


def _strip_rank(text: str) -> str:
    # "[rank0]:[rank0]:" happens when output is re-teed, hence up to twice.
    for _ in range(2):
        if text[:1] not in ("[", " ", "\t") or not text:
            return text
        match = _RANK_RE.match(text)
        if not match:
            return text
        text = text[match.end():]
    return text


def _heads_command(text: str) -> bool:
    return "Command:" in text and _COMMAND_RE.search(text) is not None


def clean_line(raw: str, known_tests: Iterable[str] = ()) -> tuple[str | None, str]:
    """``(test_name or None, text)`` of one raw log line, prefixes stripped."""
    name, with_bracket, without = _split(raw)
    # A bracket is a test prefix when it names a known test or heads a Command line;
    # "[titan]" in torchtitan's own log format is neither.
    if name is not None and (name in set(known_tests) or _heads_command(without)):
        return name, without
    return None, with_bracket


def torch_version(text: str) -> str | None:
    """The torch version of the last ``Successfully installed`` line that names one
    (``torch-V``, never ``pytorch-triton-…`` or ``torchvision-…``)."""
    found: str | None = None
    for raw in text.splitlines():
        if "Successfully installed" not in raw:
            continue
        _, line = clean_line(raw)
        match = _TORCH_RE.search(line.split("Successfully installed", 1)[1])
        if match:
            found = match.group("v")
    return found


def parse(text: str, *, source_dir: str) -> JobLogSummary:
    """Failed tests, root cause, sub-project frames and torch version of one job log.
    ``source_dir`` is the sub-project path (``torchtitan/experiments/graph_trainer``)."""
    split = [_split(r) for r in text.splitlines()]
    # Pass 1: which names are tests (Command lines and the failure summaries), so that
    # pass 2 can attribute "[name] ..." lines to them.
    known: set[str] = set()
    first: list[str] = []
    for name, with_bracket, without in split:
        if name is not None and _heads_command(without):
            known.add(name)
            first.append(without)
        else:
            first.append(with_bracket)
    failed: list[str] = []
    pytest_msgs: dict[str, str] = {}
    for idx, line in enumerate(first):
        if "integration test" in line:
            summary = _SUMMARY_RE.search(line)
            if summary:
                for name in _names_after(summary.group("rest"), first[idx + 1: idx + 201]):
                    if name not in failed:
                        failed.append(name)
                continue
        if "FAILED " in line or "ERROR " in line:
            pytest_failed = _PYTEST_FAILED_RE.match(line.strip())
            if pytest_failed:
                name = pytest_failed.group("name")
                if name not in failed:
                    failed.append(name)
                pytest_msgs[name] = (pytest_failed.group("msg") or "").strip()
    known.update(failed)
    wanted = set(failed)

    commands: dict[str, str] = {}
    by_test: dict[str, list[str]] = {}
    all_text: list[str] = []
    section: str | None = None
    for name, with_bracket, without in split:
        prefixed = name if name is not None and name in known else None
        line = without if prefixed else with_bracket
        all_text.append(line)
        # pytest's FAILURES part: "____ TestClass.test_x ____" heads each test's traceback.
        if line[:3] == "___":
            header = _PYTEST_SECTION_RE.match(line.strip())
            if header:
                suffix = header.group("title").replace(".", "::")
                section = next((n for n in failed if n.endswith("::" + suffix)), None)
                continue
        if line.startswith(("=====", "FAILED ", "ERROR ")):
            section = None
        test = prefixed or section
        if not test:
            continue
        if "ommand" in line:
            cmd = _COMMAND_RE.search(line) or _OLD_COMMAND_RE.search(line)
            if cmd:
                commands.setdefault(test, cmd.group("cmd").strip())
        if test in wanted:  # Sanity: passing tests' output is most of the log; not kept
            by_test.setdefault(test, []).append(line)

    tests: list[FailedTest] = []
    for name in failed:
        own = by_test.get(name, [])
        exc, frames = _root_cause(own, source_dir) if own else ("", ())
        if not exc and name in pytest_msgs:
            exc = pytest_msgs[name]
        # Security: the logged command is kept as text only; trusted_repro decides
        # whether the target's template can be filled from it.
        logged = commands.get(name, "")[:LOGGED_LIMIT]
        tests.append(FailedTest(name=name, exception=exc, source_lines=frames,
                                logged_command=logged))

    root, frames = _root_cause(all_text, source_dir)
    if not root and tests:
        root = next((t.exception for t in tests if t.exception), "")
    return JobLogSummary(failed_tests=tuple(tests), torch_version=torch_version(text),
                         root_cause=root, source_lines=frames)


def _names_after(rest: str, following: list[str]) -> list[str]:
    names = [n.strip() for n in re.split(r"[,\s]+", rest.strip()) if n.strip()]
    if names:
        return names
    out: list[str] = []
    for line in following:
        if not line.strip():
            if out:
                break
            continue
        match = _NAME_RE.match(line)
        if not match:
            break
        out.append(match.group("name"))
    return out


def _root_cause(lines: list[str], source_dir: str) -> tuple[str, tuple[str, ...]]:
    """The first exception that is not a wrapper, with the sub-project frames of its
    traceback (Python tracebacks and pytest's long form)."""
    marker = source_dir.strip("/") + "/"
    frames: list[str] = []
    in_tb = False
    fallback = ""
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("Traceback (most recent call last)"):
            in_tb, frames = True, []
            continue
        frame = _FRAME_RE.match(line) or _PYTEST_FRAME_RE.match(stripped)
        if frame:
            path = frame.group("path")
            if marker in path or path.startswith(marker):
                rel = path[path.index(marker):]
                func = frame.groupdict().get("func")
                text = f"{rel}:{frame.group('line')}" + (f" in {func}" if func else "")
                if text not in frames:
                    frames.append(text)
            continue
        if in_tb and line[:1] in (" ", "\t"):
            continue  # source line under a frame
        exc = _EXC_RE.match(stripped.removeprefix("E").strip() if stripped.startswith("E ")
                            else stripped)
        if exc:
            found = stripped.removeprefix("E").strip() if stripped.startswith("E ") else stripped
            if any(w in found for w in _WRAPPERS):
                in_tb = False
                continue
            if in_tb or frames:
                return found, tuple(frames[-5:])
            fallback = fallback or found
        in_tb = False
    return fallback, tuple(frames[-5:])
