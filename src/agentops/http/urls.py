"""URLs and the text around them: credentials redacted from anything shown,
userinfo stripped or carried to a same-host link, and the scheme and origin checks a
redirect or a configured URL must pass."""

from __future__ import annotations

import re
import urllib.parse

from agentops import ghactions
from agentops.errors import InputError

# --- credentials in URLs ------------------------------------------------------------------

MESSAGE_LIMIT = 300  # characters of any remote text echoed in a message
REDACTED = "***"
_SECRET_PARAM = re.compile(r"(?i)^(?:.*token.*|.*secret.*|.*password.*|.*passwd.*|sig|"
                           r"signature|x-amz-signature|x-amz-credential|x-amz-security-token|"
                           r"key|api[-_]?key|access[-_]?key|auth|code)$")
_USERINFO_IN_TEXT = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@:]*(?::[^/\s@]*)?@")


def redact(url: str) -> str:
    """``url`` with any ``user:password@`` and credential-like query values (``token``,
    ``sig``, ``X-Amz-Signature``, …) replaced by ``***``: safe for a message, a log
    line or a summary."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return _USERINFO_IN_TEXT.sub(rf"\1{REDACTED}@", url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{netloc.rsplit('@', 1)[1]}"
    query = parts.query
    if query:
        pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
        if any(_SECRET_PARAM.match(k) for k, _ in pairs):
            query = "&".join(f"{urllib.parse.quote(k, safe='')}="
                             f"{REDACTED if _SECRET_PARAM.match(k) else urllib.parse.quote(v)}"
                             for k, v in pairs)
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def strip_userinfo(url: str) -> str:
    """``url`` without ``user:password@`` (for storing it)."""
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[-1]))


def with_credentials_of(url: str, like: str) -> str:
    """``url`` (any userinfo dropped) with the ``user:password@`` of ``like`` when both
    are on the same host and port, as pip reuses an index's credentials for its files."""
    a = urllib.parse.urlsplit(strip_userinfo(url))
    b = urllib.parse.urlsplit(like)
    if "@" not in b.netloc or a.netloc.lower() != b.netloc.rsplit("@", 1)[-1].lower():
        return urllib.parse.urlunsplit(a)
    return urllib.parse.urlunsplit(a._replace(netloc=b.netloc))


_QUERY_IN_TEXT = re.compile(r"([?&])([^=&\s'\"]+)=([^&\s'\"]*)")


def redact_text(text: str) -> str:
    """Free text (an exception's message) with every ``scheme://user:password@`` and
    every credential-like query value replaced by ``***``."""
    text = _USERINFO_IN_TEXT.sub(rf"\1{REDACTED}@", text)
    return _QUERY_IN_TEXT.sub(lambda m: f"{m.group(1)}{m.group(2)}={REDACTED}"
                              if _SECRET_PARAM.match(m.group(2)) else m.group(0), text)


def mask_credentials(url: str) -> None:
    """Ask the runner to mask the userinfo and credential-like query values of ``url``
    in every later log line, and scrub the password and those values (and their
    encoded forms) from every later output (the messages are redacted as well)."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return
    if parts.username:
        ghactions.mask(urllib.parse.unquote(parts.username))
    if parts.password:
        # Scrubbed too, with its base64 ``user:password`` (the Basic header a server
        # may echo).
        ghactions.secret(parts.password, user=parts.username)
    elif parts.username:
        ghactions.secret(parts.username)  # a token given as the user name
    for key, value in urllib.parse.parse_qsl(parts.query, keep_blank_values=True):
        if value and _SECRET_PARAM.match(key):
            ghactions.secret(value)


def short(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """Remote or user text cut for a one-line message."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "…"


def size_text(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"




def _origin(url: str) -> tuple[str, str, int | None]:
    p = urllib.parse.urlsplit(url)
    scheme = p.scheme.lower()
    port = p.port or {"http": 80, "https": 443}.get(scheme)
    return scheme, (p.hostname or "").lower(), port


def _same_origin(a: str, b: str) -> bool:
    sa, ha, pa = _origin(a)
    sb, hb, pb = _origin(b)
    if ha != hb:
        return False
    # An upgrade to https on the standard ports keeps the credential (as requests does).
    return (sa, pa) == (sb, pb) or (sa, pa, sb, pb) == ("http", 80, "https", 443)


def _route_of(url: str) -> str:
    return urllib.parse.urlsplit(url).path or "/"


def check_http_url(value: str, *, field_name: str, example: str) -> str:
    """A user-given base URL: http(s) with a host, else InputError naming the field
    (its credentials redacted in the message)."""
    try:
        parts = urllib.parse.urlsplit(value)
        ok = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:
        ok = False
    if not ok:
        raise InputError(field_name, f"not an http(s) URL: {short(redact(value), 200)!r}",
                         fix=f"give e.g. {example}")
    return value
