"""The JIRA stand-in of ``examples/postmortem/jira_standin.py`` with GitHub stand-in
faults (``tests/standin/github.py``'s ``Fault``) injected per method and attempt: any
status with its headers, a reset after the request was read, a timeout, each either
before or after JIRA stored the comment (``apply_first``).

    with JiraStandIn(email=..., token=...) as jira:
        jira.inject("POST", Fault.status_code(502, apply_first=True), attempts=[1])
        ... --jira-url jira.url ...
        assert len(jira.comments_on("JIRA-12345")) == 1

Attempts are counted per method over the server's life (the first POST is 1, whatever
run sends it), so a rule for attempts 1..4 spans one run's whole retry budget and the
rerun's first POST passes. The example's own ``faults`` queue still works.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from typing import Any

from examples.postmortem.jira_standin import Standin, _Handler
from tests.standin.github import Fault, drop_connection


class _FaultHandler(_Handler):
    server: JiraStandIn
    disable_nagle_algorithm = True

    def log_message(self, fmt: str, *args: Any) -> None:  # quiet: the log is server.requests
        return None

    def do_GET(self) -> None:
        self._maybe_fault(super().do_GET)

    def do_POST(self) -> None:
        self._maybe_fault(super().do_POST)

    def _maybe_fault(self, serve: Any) -> None:
        fault = self.server.fault_for(self.command)
        if fault is None:
            serve()
            return
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if fault.apply_first:
            # Serve it for real (stored, logged), but swallow the answer.
            self.rfile = io.BytesIO(raw)
            self._send = lambda *a, **k: None  # type: ignore[method-assign]
            try:
                serve()
            finally:
                del self._send
        else:
            with self.server.lock:
                self.server.requests.append((self.command, self.path, raw))
        if fault.kind in ("status", "graphql"):
            self._send(fault.status, {"errorMessages": [fault.message], "errors": {}},
                       dict(fault.headers))
        else:
            drop_connection(self, fault.delay if fault.kind == "timeout" else 0.0)


class JiraStandIn(Standin):
    """``Standin`` plus ``inject``; a context manager that starts and stops it."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.RequestHandlerClass = _FaultHandler
        self._rules: list[tuple[str, frozenset[int], Fault]] = []
        self._attempts: dict[str, int] = {}

    def inject(self, method: str, fault: Fault, attempts: Iterable[int] = (1,)) -> None:
        """Fail the n-th request (1-based, per method) with ``fault``."""
        self._rules.append((method.upper(), frozenset(attempts), fault))

    def fault_for(self, method: str) -> Fault | None:
        with self.lock:
            n = self._attempts[method] = self._attempts.get(method, 0) + 1
            return next((f for m, at, f in self._rules if m == method and n in at), None)

    def clear_faults(self) -> None:
        with self.lock:
            self._rules.clear()

    def comments_on(self, key: str) -> list[dict[str, Any]]:
        return list(self.comments.get(key, []))

    def bodies_on(self, key: str) -> list[bytes]:
        """Each stored comment's ADF body, serialised the way the artifact is."""
        return [json.dumps(c["body"], ensure_ascii=False).encode()
                for c in self.comments.get(key, [])]

    def stop(self) -> None:
        self.shutdown()
        self.server_close()

    def __enter__(self) -> JiraStandIn:
        return self.start()  # type: ignore[return-value]

    def __exit__(self, *exc: Any) -> None:
        self.stop()
