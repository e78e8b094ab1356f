"""Secrets a server reflects never leave the process (issue #21 item 4; docs/security.md
"Secrets"): a loopback stand-in echoes the ``Authorization`` header and the secret in
its error bodies, on retried answers and on the final one; the public CLIs run against
it as in a workflow step (runner mode: annotations, job summary, step outputs), and no
output holds the token, the index password, their base64 or their header forms."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentops import console, files, ghactions, redaction
from tests.standin.scripted import Scripted, send

ROOT = Path(__file__).resolve().parents[1]


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def echo_credentials(secret: str, *, status: int = 502, final: int = 401,
                     retried: int = 2) -> object:
    """Answer ``status`` ``retried`` times, then ``final``; every body quotes the
    Authorization header it got and the secret in plain, base64 and header forms."""
    count = {"n": 0}

    def script(h) -> None:  # type: ignore[no-untyped-def]
        count["n"] += 1
        got = h.headers.get("Authorization", "")
        message = (f"you sent Authorization: {got}; token {secret}; Bearer {secret}; "
                   f"Basic {b64(secret)}; b64 {b64(secret)}")
        body = json.dumps({"message": message}).encode()
        send(h, status if count["n"] <= retried else final, body,
             content_type="application/json")
    return script


def run_script(script: str, args: list[str], env: dict[str, str], tmp_path: Path
               ) -> tuple[int, str]:
    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs.txt"
    summary.write_text("")
    outputs.write_text("")
    full = {"PATH": os.environ.get("PATH", ""), "GITHUB_ACTIONS": "true",
            "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(outputs),
            "AGENTOPS_RETRY_BASE_DELAY": "0.01", "AGENTOPS_HTTP_BACKOFF": "0.01",
            "AGENTOPS_RETRY_ATTEMPTS": "3", "AGENTOPS_HTTP_ATTEMPTS": "3",
            "NO_PROXY": "*", **env}
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / script), *args],
                          env=full, capture_output=True, text=True, timeout=120, check=False)
    written = "".join(p.read_text() for p in sorted(tmp_path.rglob("*")) if p.is_file())
    # ``::add-mask::`` lines carry the secret to the runner on purpose (it hides them and
    # every later occurrence in the log); everything else is output.
    lines = [ln for ln in (proc.stdout + proc.stderr).splitlines()
             if not ln.startswith("::add-mask::")]
    return proc.returncode, "\n".join(lines) + "\n" + written


@pytest.mark.parametrize("token", ["s3cr3t-t0ken-4f2a9c7e1b", "ghp_" + "Ab1" * 12])
def test_github_token_echoed_by_the_api_reaches_no_output(tmp_path: Path, token: str) -> None:
    with Scripted() as srv:
        srv.route_prefix("/", echo_credentials(token))
        code, everything = run_script(
            "triage.py", ["run", "--repo", "o/r", "--issue", "1", "--dry-run"],
            {"GITHUB_TOKEN": token, "GITHUB_API_URL": srv.url}, tmp_path)
        sent = {s.headers.get("Authorization", "") for s in srv.seen}
    assert code == 5, everything
    assert sent and all(token in h for h in sent)  # the server did get the token
    assert "retry 1/2" in everything and "you sent Authorization: " in everything
    for form in (token, b64(token), b64(f"x-access-token:{token}")):
        assert form not in everything
    assert "token ***" in everything and "Basic ***" in everything


def test_index_password_echoed_by_the_index_reaches_no_output(tmp_path: Path) -> None:
    password = "pa55-w0rd-Zq8"
    with Scripted() as srv:
        srv.route_prefix("/", echo_credentials(password, status=503, final=500,
                                               retried=5))
        host = srv.url.removeprefix("http://")
        code, everything = run_script(
            "nightly_bisect.py", ["versions", "--index-url",
                                  f"http://alice:{password}@{host}/whl/nightly/cpu",
                                  "--python", "3.12", "--json"], {}, tmp_path)
        sent = {s.headers.get("Authorization", "") for s in srv.seen}
    assert code == 5, everything
    assert f"Basic {b64('alice:' + password)}" in sent
    assert "retry 1/2" in everything and "you sent Authorization: Basic ***" in everything
    for form in (password, b64(password), b64(f"alice:{password}"),
                 b64(f"alice:{password}").rstrip("=")):
        assert form not in everything


# --- the scrubber at each boundary, by hand -------------------------------------------------

SECRET = "hunter2/Secret+77"


def test_every_boundary_scrubs_a_registered_secret(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out"))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary"))
    ghactions.secret(SECRET, user="bob")
    masks = capsys.readouterr().err.splitlines()
    # The runner is told every form, so its own log masking covers them too.
    assert masks[0] == f"::add-mask::{SECRET}"
    assert f"::add-mask::{b64('bob:' + SECRET)}" in masks
    leak = (f"x {SECRET} y {b64(SECRET)} z Basic {b64('bob:' + SECRET)} "
            f"q {b64('x-access-token:' + SECRET)} u hunter2%2FSecret%2B77")
    console.say(leak)
    console.say(leak, err=True)
    console.say_json({"m": leak})
    ghactions.error(leak, title=leak)
    ghactions.notice(leak)
    ghactions.set_output("o", leak)
    ghactions.append_summary(leak)
    files.write_atomic(tmp_path / "file.txt", leak, field="--out")
    files.write_atomic(tmp_path / "file.bin", leak.encode(), field="--out")
    out, err = capsys.readouterr()
    written = "".join((tmp_path / n).read_text() for n in
                      ("out", "summary", "file.txt", "file.bin"))
    everything = out + err + written
    # stdout, stderr, JSON, the annotation's message and title, a notice, the step
    # output, the summary, a text file and a bytes file
    assert everything.count("x *** y *** z Basic *** q *** u ***") == 10
    assert "hunter2" not in everything and b64(SECRET) not in everything


def test_shapes_are_scrubbed_without_registration() -> None:
    gh = "ghp_" + "x1Y" * 12
    assert redaction.scrub(f"a {gh} b github_pat_{'A1_' * 12} c") == "a *** b *** c"
    assert redaction.scrub("Authorization: Basic YWxpY2U6cGFzcw==") == "Authorization: Basic ***"
    assert redaction.scrub("bearer eyJhbGciOi.J9x-y_z~") == "bearer ***"
    assert redaction.scrub('{"authorization": "token short.one", "x": 1}') == \
        '{"authorization": "token ***", "x": 1}'
    # Words after Basic/Bearer are not credentials.
    for plain in ("the server wants Basic authentication", "Bearer tokens only",
                  "Basic Authentication required", "Basic TransformerBlock",
                  "the Authorization header is dropped on a redirect"):
        assert redaction.scrub(plain) == plain



@pytest.mark.parametrize("prefix", ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"])
def test_every_github_token_prefix_is_a_shape(prefix: str) -> None:
    # Lower case, upper case and digits mixed: the token is one run only with all three.
    assert redaction.scrub(f"a {prefix}{'aB3' * 12} b") == "a *** b"
    assert redaction.scrub(f"a github_pat_{'aB3_' * 9} b") == "a *** b"


@pytest.mark.parametrize(("scheme", "signs"), [
    ("Basic", "0+/="), ("token", "0+/="), ("Bearer", "0+/=._~-")])
def test_a_credential_after_its_scheme_is_one_run_of_its_alphabet(scheme: str,
                                                                  signs: str) -> None:
    # Every character of the scheme's alphabet inside one value: the whole value goes.
    mixed = "aZ9" + "".join(c + "aZ9" for c in signs.replace("0", "")) + "aZ9qQ7"
    assert redaction.scrub(f"x {scheme} {mixed} y") == f"x {scheme} *** y"
    # A value with a single digit or sign in it is a credential, whichever it is.
    for c in signs:
        assert redaction.scrub(f"x {scheme} abcdefgh{c}ijklmnop y") == f"x {scheme} *** y", c


@pytest.mark.parametrize("end", [" ", "'", '"', ",", ";", "}"])
def test_an_authorization_value_ends_at_a_quote_separator_or_brace(end: str) -> None:
    assert redaction.scrub(f"Authorization: abc{end}keep") == f"Authorization: ***{end}keep"


@pytest.mark.parametrize(("header", "kept"), [
    ('"Authorization": "x1"', '"Authorization": "'),
    ("'authorization'='x1'", "'authorization'='"),
    ("AUTHORIZATION = token x1", "AUTHORIZATION = token "),
    ("authorization:bearer x1", "authorization:bearer "),
])
def test_an_authorization_header_in_any_quoting_keeps_its_name(header: str, kept: str) -> None:
    assert redaction.scrub(header).startswith(kept + "***")
    assert "x1" not in redaction.scrub(header)


def test_short_secrets_are_masked_but_not_scrubbed(monkeypatch, capsys) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    ghactions.secret("abc")
    assert capsys.readouterr().err == "::add-mask::abc\n"
    assert redaction.scrub("abc abcdef") == "abc abcdef"


@pytest.mark.parametrize("secret", ['qu"ote\\slash-77', "p\u00e4ssw\u00f6rt-9"])
def test_a_secret_in_json_text_goes_whole_and_its_quotes_stay(secret: str) -> None:
    # The JSON-escaped form is the secret between its quotes, exactly: one character
    # short leaves it showing, one long eats the quote that closes the JSON string.
    escaped = json.dumps(secret)[1:-1]
    assert escaped != secret  # the escaped form is a form of its own
    assert escaped in redaction.register(secret)
    text = json.dumps({"token": secret, "next": 1})
    assert redaction.scrub(text) == '{"token": "***", "next": 1}'


def test_forgetting_the_registry_stops_scrubbing_a_secret() -> None:
    redaction.register("made-up-secret-31")
    assert redaction.scrub("a made-up-secret-31 b") == "a *** b"
    redaction.forget_all()
    assert redaction.scrub("a made-up-secret-31 b") == "a made-up-secret-31 b"
