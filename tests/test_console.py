"""Every printed line goes through one gate (issue #21 item 2, issue #26; docs/security.md,
"Inert text"): no workflow command someone else wrote reaches the runner, in the
``::name::`` form after any leading white space, or in the legacy ``##[name]`` form
anywhere in a line, after any of the runner's line breaks (``\\n``, ``\\r\\n``, a lone
``\\r``).

The expected inert forms are written out by hand here (``Z`` is the zero-width space,
U+200B), not built with the module's own patterns."""

from __future__ import annotations

import ast
import json
import logging
from pathlib import Path

import pytest

from agentops import cli, console, ghactions, redaction
from agentops.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
Z = "\u200b"

CASES = [
    # (what someone else wrote, what the log line must read)
    ("::add-mask::x", f":{Z}:add-mask::x"),
    ("  ::add-mask::x", f"  :{Z}:add-mask::x"),
    ("\t::error::x", f"\t:{Z}:error::x"),
    ("\u00a0\u3000::warning::x", f"\u00a0\u3000:{Z}:warning::x"),
    ("title ##[add-mask]secret", f"title ##{Z}[add-mask]secret"),
    ("##[stop-commands]tok", f"##{Z}[stop-commands]tok"),
    ("a ###[error]b", f"a ###{Z}[error]b"),
    ("one\n::set-output name=x::y", f"one\n:{Z}:set-output name=x::y"),
    ("one\r::stop-commands::tok", f"one\r:{Z}:stop-commands::tok"),
    ("one\r\n   ::error::b", f"one\r\n   :{Z}:error::b"),
    ("one\n\n##[group]x", f"one\n\n##{Z}[group]x"),
    # Plain text stays as it is: pytest ids, a "[name]" prefix, an IPv6 host.
    ("pytest tests/a.py::TestX::test_y", "pytest tests/a.py::TestX::test_y"),
    ("[fsdp] Command: ./run_train.sh", "[fsdp] Command: ./run_train.sh"),
    ("http://[::1]:8080/simple/ #[not-a-command]",
     f"http://[::1]:8080/simple/ #{Z}[not-a-command]"),
    # Control and bidi characters are dropped (a NUL, an escape, RLO, FSI...PDI, LRM).
    ("x\u202eevil\u2066y\u2069 \x00\x1b[31mz\u200e", "xevily [31mz"),
]


@pytest.mark.parametrize(("raw", "inert"), CASES)
def test_inert_line_by_hand(raw: str, inert: str) -> None:
    assert console.inert_line(raw) == inert


def test_inert_line_cuts_before_it_defuses() -> None:
    assert console.inert_line("##[add-mask]" + "x" * 50, limit=12) == f"##{Z}[add-mask]…"
    assert console.inert_line("abcdef", limit=3) == "abc…"


@pytest.mark.parametrize(("raw", "inert"), CASES)
def test_say_prints_through_the_gate(raw: str, inert: str, capsys) -> None:
    console.say(raw)
    console.say(raw, err=True)
    out, err = capsys.readouterr()
    assert out == inert + "\n" and err == inert + "\n"


def test_json_stays_the_same_data_and_is_inert(capsys) -> None:
    doc = {"title": "##[add-mask]x \u202e\x7f", "n": 1, "list": ["::error::y"]}
    text = console.json_text(doc)
    assert text == ('{"title": "#\\u0023[add-mask]x \\u202e\\u007f", "n": 1, '
                    '"list": ["::error::y"]}')
    assert json.loads(text) == doc
    wide = console.json_text(doc, ensure_ascii=False, indent=2)
    assert "##[" not in wide and "\u202e" not in wide and json.loads(wide) == doc
    console.say_json(doc, indent=1)
    printed = capsys.readouterr().out
    assert "##[" not in printed and json.loads(printed) == doc


def test_annotations_and_groups_carry_no_command(monkeypatch, capsys) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    ghactions.error("bad ##[add-mask]x", title="t ##[error]y")
    ghactions.warning("w\n::add-mask::x")
    with ghactions.group("g ##[endgroup]"):
        ghactions.notice("  ::stop-commands::tok")
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"::error title=t ##{Z}[error]y::bad ##{Z}[add-mask]x",
        f"::warning::w%0A:{Z}:add-mask::x",
        f"::group::g ##{Z}[endgroup]",
        f"  :{Z}:stop-commands::tok",
        "::endgroup::",
    ]


def test_plain_mode_messages_cannot_start_a_line_with_a_command(monkeypatch, capsys) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    ghactions.error("x\n::add-mask::s")
    ghactions.warning("y\r##[add-mask]s")
    assert capsys.readouterr().err == (f"error: x\n:{Z}:add-mask::s\n"
                                       f"warning: y\r##{Z}[add-mask]s\n")


def test_a_masked_value_reaches_the_runner_exactly(monkeypatch, capsys) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    ghactions.mask("pa##[ss")
    assert capsys.readouterr().err == "::add-mask::pa##[ss\n"


def test_error_exit_line_is_inert(monkeypatch, capsys) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)

    def dispatch(args):
        raise InputError("--title", "got 'a\n  ::add-mask::x ##[error]y'", fix="none")

    assert cli.run(lambda: cli.parser("t.py", "d", "e"), dispatch, []) == 1
    err = capsys.readouterr().err
    assert err == (f"error: --title: got 'a\n  :{Z}:add-mask::x ##{Z}[error]y' Fix: none\n")


def test_a_traceback_is_printed_through_the_gate(monkeypatch, capsys) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)

    def dispatch(args):
        raise RuntimeError("boom\n::add-mask::x")

    assert cli.run(lambda: cli.parser("t.py", "d", "e"), dispatch, []) == 70
    lines = capsys.readouterr().err.splitlines()
    assert f":{Z}:add-mask::x" in lines and "::add-mask::x" not in lines


def test_a_library_warning_goes_through_the_gate(capsys) -> None:
    # What Python uses when a library logs and nobody configured logging (pytest
    # does configure it, so the handler is called as logging would call it).
    record = logging.makeLogRecord({"name": "lib", "levelno": logging.WARNING,
                                    "levelname": "WARNING",
                                    "msg": "file ##[add-mask]x\n::error::y"})
    logging.lastResort.handle(record)
    assert capsys.readouterr().err == f"file ##{Z}[add-mask]x\n:{Z}:error::y\n"



def test_a_library_warning_that_cannot_be_formatted_still_goes_through_the_gate(
        capsys) -> None:
    # A library's format string that does not fit its arguments ("%d" with text):
    # logging's own error report would print the arguments raw (a legacy command, a
    # registered secret) and a traceback on stderr, past the gate.
    secret = "s3cr3t-gate-value-1234"
    redaction.register(secret)
    record = logging.makeLogRecord({"name": "lib", "levelno": logging.WARNING,
                                    "levelname": "WARNING", "msg": "cached %d files",
                                    "args": (f"##[add-mask]x {secret}",)})
    logging.lastResort.handle(record)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a log message could not be printed (TypeError)" in err
    assert "##[" not in err and secret not in err and "Traceback" not in err
    assert f"##{Z}[add-mask]x" in err and redaction.REDACTED in err


def test_a_gate_on_a_closed_stream_does_not_raise(monkeypatch) -> None:
    import io

    closed = io.StringIO()
    closed.close()
    monkeypatch.setattr("sys.stderr", closed)
    record = logging.makeLogRecord({"name": "lib", "levelno": logging.WARNING,
                                    "levelname": "WARNING", "msg": "x"})
    logging.lastResort.handle(record)  # no exception into the caller



@pytest.mark.parametrize(("call", "out"), [
    (lambda: console.say("a"), b"a\n"),
    (lambda: console.say("b", err=True), b"b\n"),
    (lambda: console.say_json({"k": 1}), b'{"k": 1}\n'),
    (lambda: console.say_json([2], err=True), b"[2]\n"),
    (lambda: console.command("::group::x"), b"::group::x\n"),
])
def test_each_line_is_out_before_the_call_returns(call, out, monkeypatch) -> None:
    # Flushed at once: the runner's log keeps stdout and stderr lines in the order they
    # were said, and a step killed at its timeout loses no line already said.
    import io

    raw = io.BytesIO()
    buffered = io.TextIOWrapper(raw, encoding="utf-8")  # holds text until a flush
    monkeypatch.setattr("sys.stdout", buffered)
    monkeypatch.setattr("sys.stderr", buffered)
    call()
    assert raw.getvalue() == out


# --- nothing bypasses the gate -------------------------------------------------------------

def _writers(path: Path) -> list[str]:
    """Calls that write to the standard streams without the gate: ``print``,
    ``sys.stdout``/``sys.stderr`` used at all, ``traceback.print_*``."""
    found = []
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "print":
            found.append(f"{rel}:{node.lineno}: print(")
        if isinstance(node, ast.Attribute) and node.attr in ("stdout", "stderr", "__stdout__",
                                                             "__stderr__") \
                and isinstance(node.value, ast.Name) and node.value.id == "sys":
            found.append(f"{rel}:{node.lineno}: sys.{node.attr}")
        if isinstance(node, ast.Attribute) and node.attr.startswith("print_") \
                and isinstance(node.value, ast.Name) and node.value.id == "traceback":
            found.append(f"{rel}:{node.lineno}: traceback.{node.attr}")
    return found


def test_only_the_gate_writes_to_stdout_and_stderr() -> None:
    sources = [p for p in sorted((ROOT / "src" / "agentops").rglob("*.py"))
               if p.name != "console.py" or p.parent.name != "agentops"]
    sources += sorted((ROOT / "scripts").glob("*.py"))
    # Developer tools that print only this repository's own file names.
    own = {"sync_readme_tables.py", "validate_data.py"}
    found = [w for p in sources if p.name not in own for w in _writers(p)]
    assert len(sources) > 50
    assert found == []


def test_the_scan_finds_a_bypass(tmp_path) -> None:
    bad = tmp_path / "probe.py"
    bad.write_text("import sys, traceback\nprint('x')\nsys.stderr.write('y')\n"
                   "traceback.print_exc()\n")
    assert sorted(_writers(bad)) == ["probe.py:2: print(", "probe.py:3: sys.stderr",
                                     "probe.py:4: traceback.print_exc"]
