"""The shared foundation: exit codes, the data loader's errors, the runner I/O module."""

from __future__ import annotations

import json

import pytest

from agentops import cli, console, ghactions
from agentops.data import load
from agentops.errors import DataError, ExitStatus, InputError

SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["labels"],
    "properties": {"labels": {"type": "array", "items": {
        "type": "object", "additionalProperties": False, "required": ["name"],
        "properties": {"name": {"type": "string", "minLength": 1}, "kind": {"enum": ["a", "b"]}},
    }}},
}


def test_loader_names_file_and_key_for_unknown_key(tmp_path):
    f = tmp_path / "labels.json"
    f.write_text(json.dumps({"labels": [{"name": "x"}, {"name": "y", "colour": "red"}]}))
    with pytest.raises(DataError) as err:
        load(f, SCHEMA, display="labels.json")
    assert str(err.value).startswith("labels.json: labels[1].colour: unknown key")


def test_loader_names_enum_and_duplicate_yaml_keys(tmp_path):
    f = tmp_path / "r.yaml"
    f.write_text("labels:\n  - name: x\n    kind: c\n")
    with pytest.raises(DataError, match=r"r.yaml: labels\[0\].kind: expected one of 'a', 'b'"):
        load(f, SCHEMA, display="r.yaml")
    f.write_text("labels: []\nlabels: []\n")
    with pytest.raises(DataError, match="duplicate key 'labels'"):
        load(f, SCHEMA, display="r.yaml")


def test_trusted_data_takes_libyaml_with_the_duplicate_key_check_untrusted_does_not(
        tmp_path, monkeypatch):
    # Issue #25 item 11: the shipped data parsed with the pure-Python loader (10x slower).
    import yaml

    from agentops import data
    from agentops.postmortem import datafiles

    assert yaml.__with_libyaml__  # the pinned PyYAML wheel ships libyaml
    fast, slow = data.yaml_loader(trusted=True), data.yaml_loader(trusted=False)
    assert issubclass(fast, yaml.CSafeLoader) and not issubclass(slow, yaml.cyaml.CParser)
    for loader in (fast, slow):
        with pytest.raises(yaml.constructor.ConstructorError, match="duplicate key 'a'") as e:
            yaml.load("x: 1\na: 1\na: 2\n", Loader=loader)
        assert e.value.problem_mark.line == 2  # the line of the second key, for DataError
    used = []
    real = yaml.load

    def spy(text, Loader):
        used.append(Loader)
        return real(text, Loader=Loader)

    monkeypatch.setattr(yaml, "load", spy)
    f = tmp_path / "r.yaml"
    f.write_text("labels: []\nlabels: []\n")
    with pytest.raises(DataError, match=r"r\.yaml: line 2: not valid YAML: duplicate key"):
        load(f, SCHEMA, display="r.yaml")
    assert used == [fast]
    facts = tmp_path / "f.yml"
    facts.write_text("ticket: A-1\nticket: A-2\n")
    used.clear()
    with pytest.raises(DataError, match="duplicate key 'ticket'"):
        datafiles.load_facts(facts)  # someone else's text: bounded, then pure Python
    assert used == [slow]


def test_loader_records_provenance(tmp_path):
    f = tmp_path / "ok.json"
    f.write_text('{"labels": []}')
    loaded = load(f, SCHEMA)
    assert loaded.content == {"labels": []}
    assert len(loaded.sha256) == 64 and loaded.provenance()["path"] == str(f)


def test_cli_maps_errors_to_exit_codes(capsys):
    def build():
        p = cli.parser("demo", "demo", "example")
        p.add_argument("--fail", choices=["input", "bug"])
        return p

    def dispatch(args):
        if args.fail == "input":
            raise InputError("--fail", "was asked to fail", fix="do not pass --fail")
        if args.fail == "bug":
            raise RuntimeError("boom")
        return 0

    assert cli.run(build, dispatch, []) == ExitStatus.OK
    assert cli.run(build, dispatch, ["--fail", "input"]) == ExitStatus.INPUT
    assert "error: --fail: was asked to fail Fix: do not pass --fail" in capsys.readouterr().err
    assert cli.run(build, dispatch, ["--fail", "bug"]) == ExitStatus.BUG
    assert cli.run(build, dispatch, ["--nope"]) == ExitStatus.USAGE


def test_outputs_and_summary_in_runner(tmp_path, monkeypatch, capsys):
    out, summary = tmp_path / "out", tmp_path / "summary"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    ghactions.set_output("labels", "a\nb")
    ghactions.append_summary("| x |")
    ghactions.error("line one\nline two", title="t")
    text = out.read_text()
    assert text.startswith("labels<<ghadelimiter_") and "\na\nb\n" in text
    assert summary.read_text() == "| x |\n"
    assert capsys.readouterr().err.strip() == "::error title=t::line one%0Aline two"


def test_untrusted_text_is_inert():
    hostile = "::set-output name=x::y @org/team </table><script>\u202e\x00"
    log = console.inert_line(hostile)
    assert log == ":\u200b:set-output name=x::y @org/team </table><script>"
    md = ghactions.inert_markdown(hostile, cell=True)
    assert "<script>" not in md and "@org" not in md and "\u202e" not in md
    # The runner reads a workflow command only at the start of a line (after spaces);
    # newlines are folded, so the start of the text is the only place to defuse.
    assert md.startswith(":\u200b:set-output") and "\n" not in md
