"""The one scrubber of secrets in what leaves the process (issue #21 item 4,
docs/security.md "Secrets"): every line printed (``agentops.console``), every
annotation, step output and job-summary append (``agentops.ghactions``) and every file
written (``agentops.files``) passes through ``scrub``.

A server may echo what it was sent: the token in an error body, the ``Authorization``
header in a retry message. The runner masks a secret only in the log, and only in the
form it was told; a summary, an output or a file gets it verbatim. So the secrets are
registered where they are read (``GITHUB_TOKEN`` / ``AGENTOPS_PROJECT_TOKEN`` by the
GitHub client, ``JIRA_API_TOKEN`` by the JIRA client, an index URL's ``user:password@``
and credential-like query values by the transport) with every form a request carries
them in: as given, URL-quoted and unquoted, base64 (alone, ``user:secret``,
``x-access-token:secret``) and JSON-escaped. ``Basic``/``Bearer``/``token`` headers
carry one of those forms. Scrubbed even when nobody registered them: GitHub token
shapes (``ghp_…``, ``github_pat_…``), the value after an ``Authorization:`` header
name, and a ``Basic``/``Bearer``/``token`` value that looks like one (16 characters
or more, with a digit or a base64 sign).

Pure (a process-wide registry, no I/O). A secret shorter than ``MIN_LENGTH`` is not
scrubbed (it would erase ordinary words); the runner's mask still covers it in logs.
"""

from __future__ import annotations

import base64
import json
import re
import threading
import urllib.parse

REDACTED = "***"
MIN_LENGTH = 6



class _Registry:
    """The registered forms and one pattern matching any of them, longest first."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.forms: set[str] = set()
        self.pattern: re.Pattern[str] | None = None

    def add(self, new: set[str]) -> None:
        with self.lock:
            if new - self.forms:
                self.forms.update(new)
                self.pattern = re.compile("|".join(
                    re.escape(f) for f in sorted(self.forms, key=len, reverse=True)))

    def clear(self) -> None:
        with self.lock:
            self.forms.clear()
            self.pattern = None


_REGISTRY = _Registry()

# Credentials recognisable by their shape: GitHub's token prefixes; whatever follows
# an ``Authorization:`` header name (and its scheme); and a Basic/Bearer value long
# enough to be one, with a digit or a base64 sign in it (so "Basic authentication"
# and "Bearer tokens" stay words).
_SHAPES = re.compile(
    r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})\b"
    r"|(?P<keep>(?i:authorization[\"']?\s*[:=]\s*[\"']?(?:(?:basic|bearer|token)\s+)?))"
    r"[^\s'\",;}]+"
    r"|(?<=\b(?i:basic|token) )(?=[A-Za-z0-9+/=]*[0-9+/=])[A-Za-z0-9+/=]{16,}"
    r"|(?<=\b(?i:bearer) )(?=[A-Za-z0-9+/=._~-]*[0-9+/=._~-])[A-Za-z0-9+/=._~-]{16,}")


def _shape(match: re.Match[str]) -> str:
    return (match.group("keep") or "") + REDACTED


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def forms(secret: str, *, user: str | None = None) -> set[str]:
    """The forms ``secret`` travels in: itself, URL-quoted and unquoted, JSON-escaped,
    base64 alone, as ``x-access-token:secret`` and as ``user:secret`` (Basic)."""
    values = {secret, urllib.parse.unquote(secret), urllib.parse.quote(secret, safe="")}
    users = {u for u in (user, urllib.parse.unquote(user or "")) if u}
    out: set[str] = set()
    for value in values:
        out |= {value, json.dumps(value)[1:-1], _b64(value), _b64(f"x-access-token:{value}")}
        out |= {_b64(f"{u}:{value}") for u in users}
        # base64 without its padding, as some servers echo it
        out |= {_b64(value).rstrip("=")}
    return {f for f in out if len(f) >= MIN_LENGTH}


def register(secret: str | None, *, user: str | None = None) -> set[str]:
    """Scrub ``secret`` (with ``user``: also its ``user:secret`` Basic form) from every
    later output; returns the forms, for the runner's mask."""
    secret = (secret or "").strip()
    if len(secret) < MIN_LENGTH:
        return set()
    new = forms(secret, user=user)
    _REGISTRY.add(new)
    return new


def forget_all() -> None:
    """Empty the registry (tests: each starts with no secrets)."""
    _REGISTRY.clear()


def scrub(text: str) -> str:
    """``text`` with every registered secret form and every credential shape replaced
    by ``***``."""
    pattern = _REGISTRY.pattern
    if pattern is not None:
        text = pattern.sub(REDACTED, text)
    return _SHAPES.sub(_shape, text)


def scrub_bytes(data: bytes) -> bytes:
    """``scrub`` for bytes (a file's content): UTF-8 text is scrubbed as text; other
    bytes are returned unchanged (no secret is registered as binary)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data
    cleaned = scrub(text)
    return data if cleaned == text else cleaned.encode("utf-8")
