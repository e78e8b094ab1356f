"""The one HTTP transport (``agentops.http``, issue #14) against a scripted server on
loopback: the total deadline, the size cap, slow and endless bodies, a 200 answer to
a Range request, redirect loops and non-HTTP redirects, credentials never carried to
another host, retries with server-asked waits, redaction and masking."""

from __future__ import annotations

import io
import time

import pytest

from agentops import http
from agentops.errors import ApiError, ExitStatus, InputError
from tests.standin.scripted import (
    Scripted,
    body,
    drip,
    endless,
    gzip_bomb,
    redirect,
    sequence,
    stall,
    stream,
    two_hosts,
)

KIB = 1024


def _transport(**policy: float) -> tuple[http.Transport, list[float]]:
    waits: list[float] = []
    base = http.Policy(attempts=3, base_delay=0.01, timeout=2.0, deadline=5.0)
    return http.Transport(base.replace(**policy), sleep=waits.append), waits


def _fail(fn, *args, **kwargs) -> http.TransportError:  # type: ignore[no-untyped-def]
    with pytest.raises(http.TransportError) as info:
        fn(*args, **kwargs)
    assert info.value.status == ExitStatus.API  # one error type, one exit code
    return info.value


# --- bounds ---------------------------------------------------------------------------------

def test_a_slow_body_ends_at_the_deadline_not_at_the_read_timeout() -> None:
    t, _ = _transport(deadline=1.0, timeout=5.0)
    with Scripted() as srv:
        srv.route("/slow", drip(10_000, every=0.1))  # each read gets a byte: no timeout
        started = time.monotonic()
        err = _fail(t.request, "GET", srv.url + "/slow", max_bytes=10_000)
        took = time.monotonic() - started
    assert err.kind == "deadline" and "1 s deadline" in err.message
    assert "AGENTOPS_HTTP_DEADLINE" in (err.fix or "")
    assert took < 4  # the deadline, not the 1000 s the body would take
    assert len(srv.seen) == 1  # a deadline is not retried: the next try would drip too


def test_a_stalled_answer_is_a_timeout_and_is_retried() -> None:
    t, waits = _transport(timeout=0.3, attempts=2)
    with Scripted() as srv:
        srv.route("/stall", stall(seconds=2))
        err = _fail(t.request, "GET", srv.url + "/stall", max_bytes=100)
    assert err.kind == "timeout" and "failed after 2 attempt(s)" in err.message
    assert len(waits) == 1 and t.counter.retries == 1


def test_an_endless_body_stops_at_the_size_the_caller_asked_for() -> None:
    t, _ = _transport()
    with Scripted() as srv:
        srv.route("/endless", stream(endless, status=206))  # no Content-Length
        err = _fail(t.request, "GET", srv.url + "/endless", max_bytes=100 * KIB)
    assert err.kind == "too-large" and "100.0 KiB" in err.message
    assert t.counter.body_bytes <= 100 * KIB  # never more than asked, in memory or counted


def test_a_declared_huge_body_is_refused_before_reading() -> None:
    t, _ = _transport()
    with Scripted() as srv:
        srv.route("/huge", stream(endless, length=3 << 30))
        err = _fail(t.request, "GET", srv.url + "/huge", max_bytes=1 << 20)
    assert err.kind == "too-large" and "3.0 GiB" in err.message
    assert t.counter.body_bytes == 0


def test_truncate_keeps_the_head() -> None:
    t, _ = _transport()
    with Scripted() as srv:
        srv.route("/log", stream(endless))
        resp = t.request("GET", srv.url + "/log", max_bytes=300 * KIB, truncate=True)
    assert resp.body == b"\0" * (300 * KIB)


def test_a_gzip_bomb_is_bounded_after_decoding() -> None:
    t, _ = _transport()
    with Scripted() as srv:
        srv.route("/page", gzip_bomb(64 << 20))  # 64 MiB of zeros, ~64 KiB on the wire
        err = _fail(t.request, "GET", srv.url + "/page", max_bytes=1 << 20)
    assert err.kind == "too-large"


def test_200_to_a_range_request_comes_back_unread() -> None:
    t, _ = _transport()
    with Scripted() as srv:
        srv.route("/wheel", stream(endless, length=3 << 30))  # ignores Range
        resp = t.request("GET", srv.url + "/wheel", headers={"Range": "bytes=-16384"},
                         max_bytes=16384, unread={200})
        assert resp.status == 200 and resp.content_length == 3 << 30
        sink = io.BytesIO()
        err = _fail(resp.read_into, sink, 1 << 20)  # the caller's full-download limit
    assert err.kind == "too-large" and sink.getvalue() == b""
    assert srv.seen[0].headers["Range"] == "bytes=-16384"


# --- redirects --------------------------------------------------------------------------------

def test_redirect_loop_is_an_error_not_a_traceback() -> None:
    t, _ = _transport()
    with Scripted() as srv:
        srv.route("/a", redirect("/b"))
        srv.route("/b", redirect("/a"))
        err = _fail(t.request, "GET", srv.url + "/a", max_bytes=100)
    assert err.kind == "redirect" and "redirect loop" in err.message
    assert len(srv.seen) == 2


def test_too_many_redirects() -> None:
    t, _ = _transport()
    with Scripted() as srv:
        for i in range(10):
            srv.route(f"/r{i}", redirect(f"/r{i + 1}"))
        err = _fail(t.request, "GET", srv.url + "/r0", max_bytes=100)
    assert err.kind == "redirect" and f"more than {http.MAX_REDIRECTS}" in err.message


@pytest.mark.parametrize("target", ["file:///etc/passwd", "ftp://127.0.0.1/x",
                                    "gopher://127.0.0.1/"])
def test_redirect_only_to_http(target: str) -> None:
    t, _ = _transport()
    with Scripted() as srv:
        srv.route("/r", redirect(target))
        err = _fail(t.request, "GET", srv.url + "/r", max_bytes=100)
    assert err.kind == "redirect" and "only http(s) redirects" in err.message


def test_authorization_is_not_carried_to_another_host() -> None:
    t, _ = _transport()
    with two_hosts() as (a, b):
        b.route("/file", body(b"the file"))
        a.route("/same", redirect("/final"))
        a.route("/final", body(b"same host"))
        a.route("/cross", redirect(b.url + "/file"))
        auth = {"Authorization": "Basic c2VjcmV0"}
        assert t.request("GET", a.url + "/same", headers=auth, max_bytes=100).body == \
            b"same host"
        assert a.seen[-1].headers.get("Authorization") == "Basic c2VjcmV0"  # same origin
        assert t.request("GET", a.url + "/cross", headers=auth, max_bytes=100).body == \
            b"the file"
    assert a.seen[-1].headers.get("Authorization") == "Basic c2VjcmV0"
    assert "Authorization" not in b.seen[-1].headers


def test_credentials_in_the_url_do_not_follow_a_cross_host_redirect() -> None:
    t, _ = _transport()
    with two_hosts() as (a, b):
        b.route("/file", body(b"ok"))
        a.route("/cross", redirect(b.url + "/file"))
        user_url = a.url.replace("http://", "http://alice:s3cret@") + "/cross"
        assert t.request("GET", user_url, max_bytes=100).body == b"ok"
    assert a.seen[-1].headers.get("Authorization", "").startswith("Basic ")
    assert "Authorization" not in b.seen[-1].headers


# --- retries ----------------------------------------------------------------------------------

def test_5xx_and_429_are_retried_with_the_server_asked_wait() -> None:
    t, waits = _transport(attempts=4)
    with Scripted() as srv:
        srv.route("/x", sequence(body(b"", 503), body(b"", 429, {"Retry-After": "7"}),
                                 body(b"", 502), body(b"done")))
        assert t.request("GET", srv.url + "/x", max_bytes=100).body == b"done"
    assert len(waits) == 3 and waits[1] == 7.0
    assert t.counter.retries == 3 and t.counter.total == 4


def test_x_ratelimit_reset_epoch_and_iso() -> None:
    now = 1_767_225_600.0
    assert http.server_wait({"X-RateLimit-Reset": str(int(now) + 30)}, now) == 31.0
    assert http.server_wait({"X-RateLimit-Reset": "2026-01-01T00:01Z"}, now) == 61.0
    assert http.server_wait({"Retry-After": "Thu, 01 Jan 2026 00:00:10 GMT"}, now) == 10.0
    assert http.server_wait({"X-RateLimit-Reset": "soon"}, now) is None


def test_a_wait_longer_than_allowed_fails_instead_of_sleeping() -> None:
    t, waits = _transport(max_rate_limit_wait=60)
    with Scripted() as srv:
        srv.route("/x", body(b"", 429, {"Retry-After": "3600"}))
        err = _fail(t.request, "GET", srv.url + "/x", max_bytes=100)
    assert waits == [] and "3600 s" in err.message
    assert "AGENTOPS_MAX_RATE_LIMIT_WAIT" in (err.fix or "")


def test_4xx_is_not_retried_and_names_the_status() -> None:
    t, _ = _transport()
    with Scripted() as srv:
        err = _fail(t.request, "GET", srv.url + "/missing", what="index page", max_bytes=100)
    assert err.kind == "status" and err.status_code == 404 and len(srv.seen) == 1
    assert err.message == f"index page {srv.url}/missing: HTTP 404"


def test_a_refused_connection_is_retried_and_named() -> None:
    t, waits = _transport(attempts=2)
    err = _fail(t.request, "GET", "http://127.0.0.1:9/x", max_bytes=100)
    assert err.kind == "connect" and err.refused and len(waits) == 1


# --- redaction --------------------------------------------------------------------------------

def test_credentials_are_redacted_in_messages_and_retry_lines(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    t, _ = _transport(attempts=2)
    with Scripted() as srv:
        srv.route("/simple/torch/", body(b"", 503))
        url = srv.url.replace("http://", "http://alice:hunter2@") + "/simple/torch/?token=t0k3n"
        http.mask_credentials(url)
        err = _fail(t.request, "GET", url, max_bytes=100)
    out = capsys.readouterr().err
    masks = {line for line in out.splitlines() if line.startswith("::add-mask::")}
    assert {"::add-mask::hunter2", "::add-mask::t0k3n"} <= masks
    rest = "\n".join(line for line in out.splitlines() if line not in masks)
    assert "retry 1/1" in rest
    for text in (rest, err.message, err.one_line()):
        assert "hunter2" not in text and "t0k3n" not in text and "alice" not in text
    assert "http://***@127.0.0.1" in err.message and "token=***" in err.message


def test_redact() -> None:
    assert http.redact("https://u:p@idx.example/simple/?sig=abc&x=1") == \
        "https://***@idx.example/simple/?sig=***&x=1"
    assert http.redact("https://idx.example/a%2Bb.whl") == "https://idx.example/a%2Bb.whl"
    assert http.redact_text("GET https://u:p@h/x failed; see http://h2/") == \
        "GET https://***@h/x failed; see http://h2/"


# --- JSON, policy ---------------------------------------------------------------------------

def test_deep_json_is_refused_not_a_recursion_error() -> None:
    t, _ = _transport()
    with Scripted() as srv:
        srv.route("/deep", body(b"[" * 200_000 + b"]" * 200_000,
                                content_type="application/json"))
        resp = t.request("GET", srv.url + "/deep", max_bytes=1 << 20)
        err = _fail(resp.json)
    assert err.kind == "encoding" and "nested deeper" in err.message
    with pytest.raises(ValueError, match="deeper than 3"):
        http.loads_bounded('{"a": [[{"b": 1}]]}', max_depth=3)


def test_policy_per_service_and_its_knobs() -> None:
    env = {"AGENTOPS_RETRY_ATTEMPTS": "2", "AGENTOPS_HTTP_ATTEMPTS": "7",
           "AGENTOPS_HTTP_DEADLINE": "9.5"}
    assert http.Policy.from_env({}, service="jira").attempts == 4
    assert http.Policy.from_env({}, service="github").attempts == 5
    assert http.Policy.from_env(env, service="github").attempts == 2
    assert http.Policy.from_env(env, service="jira").attempts == 2
    files = http.Policy.from_env(env, service="files")
    assert files.attempts == 7 and files.deadline == 9.5
    for bad in ("x", "0", "-1", "2.5", "inf"):
        with pytest.raises(InputError, match="AGENTOPS_HTTP_ATTEMPTS"):
            http.Policy.from_env({"AGENTOPS_HTTP_ATTEMPTS": bad}, service="files")


# --- docs/http.md says what the code does ---------------------------------------------------

def _table(doc: str, header: str) -> list[list[str]]:
    lines = doc.split(header, 1)[1].splitlines()[2:]
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


def _seconds(cell: str) -> float:
    return float(cell.removesuffix(" s"))


def test_the_docs_table_is_the_policy() -> None:
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "docs" / "http.md").read_text()
    rows = _table(doc, "| service | used by |")
    assert [r[0].strip("`") for r in rows] == list(http.SERVICES)
    for row in rows:
        service = row[0].strip("`")
        want = http.Policy.from_env({}, service=service)
        got = (int(row[2]), _seconds(row[3]), _seconds(row[4]), _seconds(row[5]),
               _seconds(row[6]), _seconds(row[7]))
        assert got == (want.attempts, want.base_delay, want.max_delay,
                       want.max_rate_limit_wait, want.timeout, want.deadline), service
    knobs = {r[0].strip("`"): r for r in _table(doc, "| variable | services | meaning |")}
    for knob in http.KNOBS:
        row = knobs.pop(knob.name)
        assert {s.strip() for s in row[1].split(",")} == set(knob.services), knob.name
        assert row[2] == knob.meaning, knob.name
    assert set(knobs) == {"AGENTOPS_HTTP_MAX_DOWNLOAD_MB"}  # the wheels' own, documented


# --- the GitHub client takes the same bounds (PyGithub builds, the transport sends) ---------

def _github(url: str, **policy: float):  # type: ignore[no-untyped-def]
    from agentops.github.client import GitHubClient, RetryPolicy

    base = RetryPolicy(attempts=2, base_delay=0.01, timeout=2.0, deadline=5.0)
    return GitHubClient("t0k3n", api_url=url, policy=base.replace(**policy),
                        sleep=lambda s: None)


def test_github_answers_are_bounded_by_the_deadline_and_parsed_within_depth() -> None:
    with Scripted() as srv:
        srv.route("/repos/o/r", drip(10_000, every=0.1, status=200))
        srv.route("/repos/o/deep", body(b"[" * 100_000 + b"]" * 100_000,
                                        content_type="application/json"))
        srv.route("/repos/o/ok", body(b'{"full_name": "o/ok"}', content_type="application/json"))
        client = _github(srv.url, deadline=1.0)
        started = time.monotonic()
        with pytest.raises(ApiError, match="1 s deadline") as info:
            client.read("/repos/o/r")
        assert time.monotonic() - started < 4 and info.value.status == ExitStatus.API
        with pytest.raises(ApiError, match="nested too deep"):
            client.read("/repos/o/deep")
        assert client.read("/repos/o/ok")["full_name"] == "o/ok"
        # the token went with every request, through the transport's session
        assert {s.headers.get("Authorization") for s in srv.seen} == {"token t0k3n"}
    assert client.counter.reads == 3 and client.counter.retries == 0  # neither is retried


# --- the one retry loop (issue #25 item 9) --------------------------------------------------

def _loop(failures: list[float | str | None], *, attempts: int = 4, max_wait: float = 30.0
          ) -> tuple[object, list[float], list[int], http.CallCounter]:
    """Run ``http.retry`` over attempts that fail as ``failures`` says (a server wait,
    None for none, "stop" for a failure not worth retrying), then succeed."""
    policy = http.Policy(attempts=attempts, base_delay=2.0, max_delay=60.0,
                         max_rate_limit_wait=max_wait)
    slept: list[float] = []
    called: list[int] = []
    counter = http.CallCounter()

    def attempt(n: int) -> str:
        called.append(n)
        if n > len(failures):
            return f"ok after {n}"
        what = failures[n - 1]
        if what == "stop":
            raise ValueError(f"fatal {n}")
        raise http.RetryLater(RuntimeError(f"gave up at {n}"), message=f"HTTP 503 #{n}",
                              wait=what if isinstance(what, float) else None)

    def too_long(failure: http.RetryLater, wait: float) -> Exception:
        return TimeoutError(f"{failure.message}: {wait:g} s is too long")

    try:
        result: object = http.retry(policy, attempt, what="GET /x", counter=counter,
                                    sleep=slept.append, too_long=too_long)
    except Exception as exc:
        result = exc
    return result, slept, called, counter


def test_retry_waits_what_the_server_asked_else_backs_off(monkeypatch, capsys) -> None:
    monkeypatch.setattr(http.random, "random", lambda: 0.5)  # jitter factor 1.0
    result, slept, called, counter = _loop([7.0, None, None])
    assert result == "ok after 4" and called == [1, 2, 3, 4]
    assert slept == [7.0, 4.0, 8.0]  # the server's 7 s, then 2 s doubling per attempt
    assert counter.retries == 3
    assert capsys.readouterr().err.splitlines() == [
        "  retry 1/3 of GET /x in 7.0 s: HTTP 503 #1",
        "  retry 2/3 of GET /x in 4.0 s: HTTP 503 #2",
        "  retry 3/3 of GET /x in 8.0 s: HTTP 503 #3"]


def test_retry_raises_the_last_failure_after_the_last_attempt(capsys) -> None:
    result, slept, called, counter = _loop([None] * 9, attempts=3)
    assert isinstance(result, RuntimeError) and str(result) == "gave up at 3"
    assert called == [1, 2, 3] and len(slept) == 2 and counter.retries == 2


def test_retry_stops_at_a_failure_not_worth_retrying() -> None:
    result, slept, called, counter = _loop([None, "stop"])
    assert isinstance(result, ValueError) and str(result) == "fatal 2"
    assert called == [1, 2] and len(slept) == 1 and counter.retries == 1


def test_retry_refuses_a_server_wait_past_the_limit_without_sleeping() -> None:
    result, slept, called, counter = _loop([31.0], max_wait=30.0)
    assert isinstance(result, TimeoutError) and str(result) == "HTTP 503 #1: 31 s is too long"
    assert slept == [] and called == [1] and counter.retries == 0
    result, slept, _, _ = _loop([30.0], max_wait=30.0)  # at the limit: waited
    assert result == "ok after 2" and slept == [30.0]


def test_the_retry_loop_exists_once() -> None:
    """GitHub REST/GraphQL, JIRA and the file transport all go through ``http.retry``:
    no other module counts a retry or prints a retry line."""
    import re
    from pathlib import Path

    src = Path(http.__file__).parent.parent  # agentops/
    found = {str(p.relative_to(src)): len(re.findall(r"retries \+= 1|retry \{", p.read_text()))
             for p in src.rglob("*.py")}
    assert {k: v for k, v in found.items() if v} == {"http/retry.py": 2}
