"""Error classes and the one exit-code table shared by every script.

Pure: no I/O. Every error a user can cause carries the field/file/key it is about and
the fix, so the top-level handler in ``agentops.cli`` can print it in one line (for the
``::error::`` annotation) and in full (for the job summary).
"""

from __future__ import annotations

import enum


class ExitStatus(enum.IntEnum):
    """Exit codes of every agentops script (README: "Exit codes")."""

    OK = 0  # done, or nothing to do
    INPUT = 1  # bad input, data or configuration; nothing was written
    USAGE = 2  # bad command line (argparse)
    REFUSED = 3  # a gate refused on purpose (e.g. a post-mortem without a root cause)
    PARTIAL = 4  # some writes landed and some did not; rerun to converge
    API = 5  # GitHub/JIRA/HTTP failed before anything was written
    FINDINGS = 6  # a check read its input and found problems in it (post-mortem lint)
    BUG = 70  # unexpected exception: a bug in agentops (traceback on stderr)
    INTERRUPTED = 130


class AgentopsError(Exception):
    """Base of every expected failure; ``status`` is the exit code it maps to."""

    status: ExitStatus = ExitStatus.INPUT

    def __init__(self, message: str, *, fix: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix

    def one_line(self) -> str:
        """The message and fix on a single line, for logs and annotations."""
        return f"{self.message} Fix: {self.fix}" if self.fix else self.message


class InputError(AgentopsError):
    """A bad argument, input file or environment variable (names the field)."""

    def __init__(self, field: str, message: str, *, fix: str | None = None) -> None:
        super().__init__(f"{field}: {message}", fix=fix)
        self.field = field


class UsageError(InputError):
    """A bad command line found after parsing: a flag that does not apply to what was
    asked, a value of the wrong form (exit 2, as argparse's own errors)."""

    status = ExitStatus.USAGE


class DataError(AgentopsError):
    """A shipped or user-supplied data file is invalid (names file and key)."""

    def __init__(self, file: str, key: str, message: str, *, fix: str | None = None) -> None:
        where = f"{file}: {key}" if key else file
        super().__init__(f"{where}: {message}", fix=fix)
        self.file = file
        self.key = key


class ConfigError(AgentopsError):
    """The data is valid but does not fit the target (e.g. a label missing upstream)."""


class RefusedError(AgentopsError):
    """A gate refused on purpose; the reasons say what is missing."""

    status = ExitStatus.REFUSED

    def __init__(self, message: str, reasons: list[str] | None = None, *,
                 fix: str | None = None) -> None:
        super().__init__(message, fix=fix)
        self.reasons = list(reasons or [])


class ApiError(AgentopsError):
    """A remote API call failed (after retries); names the call and, for 401/403/404,
    the permission or scope that is probably missing."""

    status = ExitStatus.API

    def __init__(self, message: str, *, status_code: int | None = None,
                 fix: str | None = None, ambiguous: bool = False) -> None:
        super().__init__(message, fix=fix)
        self.status_code = status_code
        # Sanity: an ambiguous failure (timeout, reset, 5xx after the body was sent)
        # may have landed; callers must re-read before retrying a non-idempotent write.
        self.ambiguous = ambiguous


class WriteBudgetError(AgentopsError):
    """The per-run write cap would be exceeded; stops before the write."""

    status = ExitStatus.PARTIAL


class PartialApplyError(AgentopsError):
    """Some writes landed and a later one failed; a rerun converges."""

    status = ExitStatus.PARTIAL
