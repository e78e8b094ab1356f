"""The one HTTP transport of agentops for every call that is not PyGithub's own request
building: a ``requests.Session`` with a policy (retries, backoff, server-asked waits,
a per-read timeout and a total deadline per request), a body-size cap the caller
states per call, its own redirect rules, credential redaction, a request counter and
one error type. The GitHub client keeps PyGithub but runs its requests through this
transport too (``agentops.github.client``), so every retry and bound is described by
one table: ``docs/http.md``.

Adapter side of the I/O line: it moves bytes and decides only whether to try again.

Why the redirects are followed here rather than by ``requests``: a redirect may only
go to http(s) (never ``file://``), at most ``MAX_REDIRECTS`` times, and the
``Authorization`` header never travels to another host; ``requests`` raises on a loop
(a traceback for the caller) and leaves the scheme to its adapters.

Why the body is read with ``read1``: urllib3's ``read(n)`` blocks until ``n`` bytes
arrived, so a server sending one byte a second would never let the deadline be
checked; ``read1`` returns whatever one receive brought.

Where each part lives (this package re-exports them, so callers write ``http.X``):
``retry`` (the knobs and defaults per service, server-asked waits, the one retry loop,
the call counter), ``urls`` (credentials redacted from what is shown, userinfo,
origin and scheme checks) and ``transport`` (the session, bounded bodies, redirects,
``TransportError``).
"""

from __future__ import annotations

import random  # the retry jitter's source (tests pin it through `http.random`)

from agentops.http.retry import (
    _ALL,
    _API,
    DEFAULTS,
    ERROR_BODY_BYTES,
    KNOBS,
    MAX_REDIRECTS,
    READ_CHUNK,
    RETRY_STATUS,
    SERVICES,
    USER_AGENT,
    CallCounter,
    Knob,
    Policy,
    RetryLater,
    T,
    _header,
    retry,
    server_wait,
)
from agentops.http.transport import (
    STATUS_FIXES,
    Response,
    Transport,
    TransportError,
    _check_url,
    _classify,
    _read_some,
    loads_bounded,
    status_error,
)
from agentops.http.urls import (
    _QUERY_IN_TEXT,
    _SECRET_PARAM,
    _USERINFO_IN_TEXT,
    MESSAGE_LIMIT,
    REDACTED,
    _origin,
    _route_of,
    _same_origin,
    check_http_url,
    mask_credentials,
    redact,
    redact_text,
    short,
    size_text,
    strip_userinfo,
    with_credentials_of,
)

__all__ = [
    "DEFAULTS",
    "ERROR_BODY_BYTES",
    "KNOBS",
    "MAX_REDIRECTS",
    "MESSAGE_LIMIT",
    "READ_CHUNK",
    "REDACTED",
    "RETRY_STATUS",
    "SERVICES",
    "STATUS_FIXES",
    "USER_AGENT",
    "_ALL",
    "_API",
    "_QUERY_IN_TEXT",
    "_SECRET_PARAM",
    "_USERINFO_IN_TEXT",
    "CallCounter",
    "Knob",
    "Policy",
    "Response",
    "RetryLater",
    "T",
    "Transport",
    "TransportError",
    "_check_url",
    "_classify",
    "_header",
    "_origin",
    "_read_some",
    "_route_of",
    "_same_origin",
    "check_http_url",
    "loads_bounded",
    "mask_credentials",
    "random",
    "redact",
    "redact_text",
    "retry",
    "server_wait",
    "short",
    "size_text",
    "status_error",
    "strip_userinfo",
    "with_credentials_of",
]
