"""CI that does not watch the code it tests (#22): for each workflow that runs the
sub-project's tests, its ``on.push`` / ``on.pull_request`` ``paths`` and
``paths-ignore`` filters, evaluated with GitHub's pattern rules against the
sub-project's own files and the core files it subclasses, copies or imports. A file
that no push or pull-request event of the workflow would trigger on is a change whose
breakage that workflow never sees before merge. A workflow without a paths filter
watches everything: no finding.

Pure: workflow text and the loaded tree in, frozen records out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

import yaml

from agentops import untrusted_yaml
from agentops.scout.analyses import ci as ci_analysis
from agentops.scout.analyses import coreindex
from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs

EVENTS = ("push", "pull_request", "pull_request_target")
MAX_PATTERNS = 500  # patterns read per filter (someone else's workflow)
MAX_PATTERN_CHARS = 300


@dataclass(frozen=True)
class PathGap:
    """One workflow whose path filters miss files its tests depend on."""

    workflow: str
    line: int  # the filter's line in the workflow
    filters: str  # "paths" | "paths-ignore" (of the events that have one)
    events: tuple[str, ...]  # the push/pull-request events it has
    own: tuple[str, ...]  # sub-project files no event triggers on (sorted)
    core: tuple[tuple[str, str], ...]  # (core file, why it matters) not triggering
    scheduled: bool = False  # a schedule still runs it (after merge)


def pattern_regex(pattern: str) -> re.Pattern[str]:
    """GitHub's filter pattern as a regex: ``*`` any characters but ``/``, ``**`` any
    characters, ``?`` zero or one of the preceding character, ``+`` one or more of
    it, ``[…]`` a character class; everything else literal."""
    out: list[str] = []
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                if pattern.startswith("**/", i):
                    out.append("(?:.*/)?")
                    i += 3
                    continue
                out.append(".*")
                i += 2
                continue
            out.append("[^/]*")
        elif c in "?+" and out:
            out.append(c)
        elif c == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1:end].replace("\\", "\\\\")
                out.append(f"[{body}]")
                i = end
        else:
            out.append(re.escape(c))
        i += 1
    try:
        return re.compile("".join(out))
    except re.error:
        return re.compile(re.escape(pattern))


# Security: the workflow is someone else's; a pattern with many wildcards
# (``**a**a**a…``) would backtrack for a long time against one path. Such a pattern is
# not evaluated: the event counts as triggering (no finding from a filter never read).
MAX_WILDCARDS = 12


class TooComplex(ValueError):
    """A pattern with more wildcards than ``MAX_WILDCARDS``."""


def matches(patterns: list[str], path: str) -> bool:
    """Whether ``path`` is selected by a list of patterns, ``!`` negating (the last
    matching pattern decides, as GitHub evaluates them in order). Raises
    ``TooComplex`` for a pattern past ``MAX_WILDCARDS``."""
    hit = False
    for p in patterns:
        neg = p.startswith("!")
        body = p[1:] if neg else p
        if sum(body.count(c) for c in "*?+") > MAX_WILDCARDS:
            raise TooComplex(body[:60])
        if pattern_regex(body).fullmatch(path):
            hit = not neg
    return hit


def _patterns(value: object) -> list[str] | None:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return None
    return [str(v)[:MAX_PATTERN_CHARS] for v in value[:MAX_PATTERNS]
            if isinstance(v, (str, int, float))]


def triggers(event_cfg: object, path: str) -> bool:
    """Whether a push/pull-request event with this configuration fires for a change
    to ``path`` (branch filters aside)."""
    if not isinstance(event_cfg, dict):
        return True
    try:
        paths = _patterns(event_cfg.get("paths"))
        if paths is not None:
            return matches(paths, path)
        ignore = _patterns(event_cfg.get("paths-ignore"))
        if ignore is not None:
            return not matches(ignore, path)
    except TooComplex:
        return True
    return True


def events_of(doc: object) -> tuple[dict[str, object], bool]:
    """({event: configuration} of the push/pull-request events, scheduled?)."""
    if not isinstance(doc, dict):
        return {}, False
    on = doc.get("on", doc.get(True))  # YAML 1.1 reads the bare key `on` as true
    if isinstance(on, str):
        on = [on]
    if isinstance(on, list):
        return {e: None for e in on if e in EVENTS}, "schedule" in on
    if isinstance(on, dict):
        return {e: on[e] for e in EVENTS if e in on}, "schedule" in on
    return {}, False


def _filter_line(text: str) -> int:
    """The line of the first ``paths:`` / ``paths-ignore:`` key (else of ``on:``)."""
    on_line = 0
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not on_line and re.match(r"^['\"]?on['\"]?\s*:", line):
            on_line = n
        if on_line and re.match(r"paths(-ignore)?\s*:", stripped):
            return n
    return on_line or 1


def _workflows_running_tests(inp: Inputs, res_ci: ci_analysis.CiResult) -> list[str]:
    """Configured workflows that run the sub-project's code: a test file of its scope
    they reach, a pytest step selecting its tests, or a module or script of its folder
    they execute (``python -m sub.runner``, ``python sub/run.py``): a runner that is not
    a pytest file is what such a workflow runs, and its imports are what a core change
    can break (#22, set 19 t19-ci-misses-core)."""
    own_tests = set(ci_analysis.own_tests(inp))
    out = {c.workflow for c in res_ci.covered if c.file in own_tests}
    out |= {inv.workflow for inv in res_ci.invocations
            if inv.kind == "pytest" and ci_analysis.step_is_ours(inv, inp)
            and any(t for t in inv.targets)}
    sub = inp.target.subproject.rstrip("/") + "/"
    for inv in res_ci.invocations:
        if inv.kind == "pytest" or not inv.targets:
            continue
        path = ci_analysis.runner_path(inv, inp)
        if path is not None and (path in own_tests or (
                path.startswith(sub) and _reaches_repository(inp, path))):
            out.add(inv.workflow)
    return sorted(w for w in out if w in inp.head.files)


def _reaches_repository(inp: Inputs, path: str) -> bool:
    """Whether a runner runs code of the repository beyond itself: a Python file
    importing a repository module (absolute, or relative: its own package). A
    standalone tool of the folder (one importing only the standard library) breaks by
    its own change alone, so its workflow need not watch the rest; a runner that is no
    Python file, or does not parse, is kept (what it runs is not read)."""
    if not path.endswith(".py"):
        return True
    mod = ps.parse(inp.head.text(path))
    if mod is None:
        return True
    paths = inp.head.paths
    for node in ps.statements(mod):
        if isinstance(node, ast.ImportFrom):
            if node.level or (node.module and (
                    ps.module_path(node.module, paths) is not None or any(
                        ps.module_path(f"{node.module}.{a.name}", paths) is not None
                        for a in node.names))):
                return True
        elif isinstance(node, ast.Import) and any(
                ps.module_path(a.name, paths) is not None for a in node.names):
            return True
    return False


def core_files(inp: Inputs) -> list[tuple[str, str]]:
    """(core file, why) the sub-project depends on: copied (``duplicate_logic``),
    subclassed (a base of one of its classes), imported; most binding first."""
    sub = inp.target.subproject.rstrip("/") + "/"
    idx = coreindex.for_tree(inp.head)
    why: dict[str, str] = {}
    for pair in inp.target.raw.get("duplicate_logic", []) or []:
        for f in pair.get("upstream", []) or []:
            if f in inp.head.paths and not f.startswith(sub):
                why.setdefault(f, "copied")
    subclassed: dict[str, str] = {}
    imported: dict[str, str] = {}
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")):
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        for node in ps.statements(mod):
            if isinstance(node, ast.ClassDef):
                for b in node.bases:
                    src = ast.unparse(b.value if isinstance(b, ast.Subscript) else b)
                    found = idx.resolve(path, src)
                    if found is not None and found.path and not found.path.startswith(sub):
                        subclassed.setdefault(found.path, f"subclassed ({src})")
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    found = idx.lookup(node.module, a.name) if idx.in_repo(node.module) \
                        else None
                    if found is not None and found.path and not found.path.startswith(sub):
                        imported.setdefault(found.path, f"imported ({a.name})")
    for table in (subclassed, imported):
        for f, w in table.items():
            why.setdefault(f, w)
    return list(why.items())


def analyse(inp: Inputs, res_ci: ci_analysis.CiResult) -> list[PathGap]:
    sub = inp.target.subproject.rstrip("/") + "/"
    own = sorted(p for p in inp.head.paths if p.startswith(sub) and p.endswith(".py"))
    tests_dir = inp.target.tests_dir.rstrip("/") + "/"
    own += [t for t in ci_analysis.own_tests(inp) if not t.startswith(sub)]
    core = None
    out: list[PathGap] = []
    for wf in _workflows_running_tests(inp, res_ci):
        text = inp.head.text(wf) or ""
        try:
            doc = untrusted_yaml.load(text)
        except (untrusted_yaml.UnsafeYAML, yaml.YAMLError):
            continue  # the CI analysis already says it was not checked
        events, scheduled = events_of(doc)
        if not events or not any(isinstance(c, dict) and ("paths" in c or "paths-ignore" in c)
                                 for c in events.values()):
            continue

        def watched(path: str, events: dict[str, object] = events) -> bool:
            return any(triggers(cfg, path) for cfg in events.values())

        own_gaps = tuple(p for p in own if not watched(p))
        if core is None:
            core = core_files(inp)
        core_gaps = tuple((f, w) for f, w in core if not watched(f)
                          and not f.startswith(tests_dir))
        if not own_gaps and not core_gaps:
            continue
        kinds = sorted({k for c in events.values() if isinstance(c, dict)
                        for k in ("paths", "paths-ignore") if k in c})
        out.append(PathGap(wf, _filter_line(text), "/".join(kinds), tuple(events),
                           own_gaps, core_gaps, scheduled))
    return out
