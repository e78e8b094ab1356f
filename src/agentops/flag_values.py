"""The format every flag value must have, checked while the command line is parsed.

Each check is an argparse ``type=``: a value that fails its own format check is a bad
command line (exit 2, argparse's message naming the flag), whatever the script, and an
``AGENTOPS_*`` default goes through the same check (argparse converts string defaults).
The checks return the text unchanged (or the number), so the code behind a flag keeps
taking what it took; what a value *means* (is that nightly on the index?) is checked
later and is exit 1.

``issue_refs`` resolves ``--issue``/``--pr`` in either form every script accepts:
``N`` (with ``--repo``) or ``OWNER/NAME#N``.

Pure: no I/O.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agentops.errors import UsageError

# GitHub's own limits: an owner is 1-39 alphanumerics or single hyphens, a name up to 100
# of [A-Za-z0-9._-]; "." and ".." are not repositories.
REPO_RE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}")
_REF_RE = re.compile(rf"(?:({REPO_RE.pattern}))?#?([0-9]+)")
_ISO_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
_NIGHTLY_DATE_RE = re.compile(r"(?:dev)?(\d{4})-?(\d{2})-?(\d{2})", re.I)
_PYTHON_RE = re.compile(r"3\.?\d{1,2}")
_SHA256_RE = re.compile(r"[0-9a-fA-F]{64}")
_TICKET_RE = re.compile(r"[A-Z][A-Z0-9_]*-[0-9]+")
MAX_WIDTH = 256


@dataclass(frozen=True)
class FlagValue:
    """An argparse ``type=`` that says what it expects; ``bad`` is a value it refuses and
    ``good`` one it takes (the CLI-surface test tries both on every flag using it)."""

    name: str
    check: Callable[[str], object]
    good: str
    bad: str

    @property
    def __name__(self) -> str:  # argparse names a type by it in some messages
        return self.name

    def __call__(self, text: str) -> object:
        return self.check(text)


def _fail(text: str, expected: str) -> argparse.ArgumentTypeError:
    shown = text if len(text) <= 80 else text[:77] + "..."
    return argparse.ArgumentTypeError(f"expected {expected}, got {shown!r}")


def is_repo(text: str) -> bool:
    """Whether ``text`` is a GitHub OWNER/NAME: the one rule every flag, API path and
    provenance check uses (a looser copy would let ``../x`` into a request path)."""
    return bool(REPO_RE.fullmatch(text)) and text.split("/", 1)[1] not in (".", "..")


def check_repo(text: str) -> str:
    value = text.strip()
    if not is_repo(value):
        raise _fail(text, "OWNER/NAME, e.g. pytorch/pytorch")
    return value


def check_date(text: str) -> str:
    value = text.strip()
    if not _ISO_DATE_RE.fullmatch(value):
        raise _fail(text, "a date YYYY-MM-DD, e.g. 2026-03-10")
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        raise _fail(text, "a calendar date YYYY-MM-DD (that day does not exist)") from None
    return value


def nightly_date(text: str) -> dt.date | None:
    """``dev20260709`` / ``20260709`` / ``2026-07-09`` → the date; None if not one."""
    m = _NIGHTLY_DATE_RE.fullmatch(text.strip())
    if not m:
        return None
    try:
        return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def check_nightly_date(text: str) -> str:
    if nightly_date(text) is None:
        raise _fail(text, "a date: 20260709, dev20260709 or 2026-07-09")
    return text.strip()


def check_nightly(text: str) -> str:
    """A nightly given as a version (2.10.0.dev20260709+cpu) or a date."""
    from packaging.version import InvalidVersion, Version

    value = text.strip()
    if nightly_date(value) is not None:
        return value
    try:
        Version(value)
    except InvalidVersion:
        raise _fail(text, "a version or a date: 2.10.0.dev20260709+cpu, dev20260709 or "
                          "2026-07-09") from None
    return value


def check_width(text: str) -> int:
    try:
        width = int(text.strip())
    except ValueError:
        raise _fail(text, f"a whole number of probes 1-{MAX_WIDTH}") from None
    if not 1 <= width <= MAX_WIDTH:
        raise argparse.ArgumentTypeError(f"must be 1-{MAX_WIDTH} (a matrix holds at most "
                                         f"{MAX_WIDTH} jobs), got {width}")
    return width


def check_count(text: str) -> int:
    try:
        n = int(text.strip())
    except ValueError:
        raise _fail(text, "a whole number, 1 or more") from None
    if n < 1:
        raise _fail(text, "a whole number, 1 or more")
    return n


def check_minutes(text: str) -> float:
    try:
        minutes = float(text.strip())
    except ValueError:
        raise _fail(text, "minutes, e.g. 30 or 2.5") from None
    if not 0 < minutes < float("inf"):  # NaN fails both
        raise _fail(text, "a positive number of minutes, e.g. 30")
    return minutes


def check_python(text: str) -> str:
    if not _PYTHON_RE.fullmatch(text.strip()):
        raise _fail(text, "a CPython version such as 3.12")
    return text.strip()


def check_url(text: str) -> str:
    value = text.strip()
    if not re.fullmatch(r"https?://[^\s/?#]+(?:[/?#]\S*)?", value):
        # Shared by --index-url and --jira-url: an example of neither kind.
        raise _fail(text, "an http(s) URL: https://HOST/PATH")
    return value


def check_sha256(text: str) -> str:
    if not _SHA256_RE.fullmatch(text.strip()):
        raise _fail(text, "a sha256: 64 hex digits (the draft's FILE.sha256)")
    return text.strip().lower()


def check_ticket(text: str) -> str:
    if not _TICKET_RE.fullmatch(text.strip()):
        raise _fail(text, "a JIRA key such as JIRA-12345")
    return text.strip()


def check_issue_ref(text: str) -> str:
    """One issue: ``N``, ``#N`` or ``OWNER/NAME#N``."""
    value = text.strip()
    m = _REF_RE.fullmatch(value)
    if not m or int(m.group(2)) < 1 or (m.group(1) and "#" not in value):
        raise _fail(text, "an issue number (123) or OWNER/NAME#123")
    return value


def check_issue_list(text: str) -> str:
    """Issues, comma or space separated, each ``N``, ``#N`` or ``OWNER/NAME#N``."""
    parts = [p for p in re.split(r"[\s,]+", text.strip()) if p]
    if not parts:
        raise _fail(text, "issue numbers (123, or 123,124) or OWNER/NAME#123")
    for part in parts:
        try:
            check_issue_ref(part)
        except argparse.ArgumentTypeError:
            raise argparse.ArgumentTypeError(
                f"expected issue numbers (123, or 123,124) or OWNER/NAME#123, "
                f"got {part!r}") from None
    return text.strip()


def check_name_dir(text: str) -> str:
    """``NAME=DIR`` (which names are configured is the target's to say, later)."""
    name, sep, path = text.partition("=")
    if not sep or not name.strip() or not path.strip():
        raise _fail(text, "NAME=DIR, e.g. torchtitan=../torchtitan")
    return text


def check_logins(text: str) -> str:
    """Logins as a JSON list of strings (a repository variable) or comma/space separated."""
    import json

    value = text.strip()
    if value.startswith("["):
        try:
            logins = json.loads(value)
        except ValueError:
            logins = None
        if not isinstance(logins, list) or not all(isinstance(v, str) for v in logins):
            raise _fail(text, 'a JSON list of login strings (["pytorch-bot[bot]"]) or '
                              "logins separated by commas")
    return value


REPO = FlagValue("OWNER/NAME", check_repo, "octo/repo", "pytorch")
DATE = FlagValue("YYYY-MM-DD", check_date, "2026-03-10", "03/10/2026")
NIGHTLY = FlagValue("version or date", check_nightly, "dev20260701", "2026/05/01")
NIGHTLY_DATE = FlagValue("YYYYMMDD", check_nightly_date, "20260701", "2026/07/01")
WIDTH = FlagValue("width", check_width, "4", "0")
COUNT = FlagValue("count", check_count, "7", "0")
MINUTES = FlagValue("minutes", check_minutes, "2.5", "-1")
PYTHON = FlagValue("CPython version", check_python, "3.10", "python3")
URL = FlagValue("URL", check_url, "https://example.org/simple", "example.org/simple")
SHA256 = FlagValue("sha256", check_sha256, "0" * 64, "abc123")
TICKET = FlagValue("JIRA key", check_ticket, "JIRA-12345", "12345")
ISSUE = FlagValue("issue", check_issue_ref, "octo/repo#12", "pytorch/pytorch")
ISSUES = FlagValue("issues", check_issue_list, "12,13", "twelve")
NAME_DIR = FlagValue("NAME=DIR", check_name_dir, "torchtitan=../tt", "../tt")
LOGINS = FlagValue("logins", check_logins, "a-bot[bot],b", "[1, 2]")


# --- issue references -----------------------------------------------------------------------

@dataclass(frozen=True)
class IssueRefs:
    repo: str | None  # OWNER/NAME the numbers belong to; None when nothing names one
    numbers: tuple[int, ...]

    def ref(self, i: int = 0) -> str:
        """``OWNER/NAME#N`` of the i-th number."""
        return f"{self.repo}#{self.numbers[i]}"


def issue_refs(values: Sequence[str] | str | None, repo: str | None, *,
               field: str = "--issue", repo_field: str = "--repo",
               fallback_repo: str | None = None) -> IssueRefs:
    """``--issue`` values (each ``N``, ``#N`` or ``OWNER/NAME#N``, lists comma or space
    separated) with ``--repo`` → the repository and the numbers, duplicates dropped.

    ``repo`` is the repository the user gave (``--repo`` or its ``AGENTOPS_REPO``);
    ``fallback_repo`` the one assumed otherwise (``GITHUB_REPOSITORY``). A reference
    naming another repository than ``--repo``, or two references naming two
    repositories, is a bad command line naming both flags."""
    if isinstance(values, str):
        values = [values]
    named: str | None = None
    numbers: list[int] = []
    for value in values or ():
        for part in re.split(r"[\s,]+", value.strip()):
            if not part:
                continue
            m = _REF_RE.fullmatch(part)
            if not m or int(m.group(2)) < 1 or (m.group(1) and "#" not in part):
                raise UsageError(field, f"not an issue: {part!r}",
                                 fix="give a number (123, a list 123,124) with --repo "
                                     "OWNER/NAME, or OWNER/NAME#123")
            ref_repo, number = m.group(1), int(m.group(2))
            if ref_repo:
                if named and ref_repo.lower() != named.lower():
                    raise UsageError(field, f"names two repositories: {named} and {ref_repo}",
                                     fix="give the issues of one repository per run")
                named = ref_repo
            if number not in numbers:
                numbers.append(number)
    if named and repo and named.lower() != repo.strip().lower():
        raise UsageError(f"{field} {named}#… and {repo_field} {repo}",
                         "name two different repositories",
                         fix=f"drop {repo_field}, or give {field} as a number of {repo}")
    chosen = named or (repo.strip() if repo else None) or fallback_repo or None
    return IssueRefs(repo=chosen, numbers=tuple(numbers))


def parsed_flags(p: argparse.ArgumentParser) -> list[tuple[argparse.ArgumentParser, str,
                                                           FlagValue]]:
    """Every (parser, flag, FlagValue) of a script's parser and its verbs: what the
    CLI-surface test walks."""
    out: list[tuple[argparse.ArgumentParser, str, FlagValue]] = []
    seen: set[int] = set()

    def walk(parser: argparse.ArgumentParser) -> None:
        if id(parser) in seen:
            return
        seen.add(id(parser))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    walk(sub)
            elif isinstance(action.type, FlagValue) and action.option_strings:
                out.append((parser, action.option_strings[0], action.type))

    walk(p)
    return out
