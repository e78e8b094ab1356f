"""The fixture guard (#26 item 4): a missing CI fixture skips on a developer's machine
with the command that installs it, and fails under CI, where the skip would hide a
check; a present one lets the test run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ci_fixtures import require


@pytest.mark.parametrize("ci", ["true", "TRUE", "1"])
def test_missing_fixture_fails_under_ci_with_the_install_command(monkeypatch, tmp_path, ci):
    monkeypatch.setenv("CI", ci)
    with pytest.raises(pytest.fail.Exception) as exc:
        require(tmp_path / "absent.json", "Atlassian's ADF schema")
    msg = str(exc.value)
    assert "Atlassian's ADF schema is not installed" in msg
    assert "run `bash .ci/npm-fixtures`" in msg and str(tmp_path / "absent.json") in msg


@pytest.mark.parametrize("ci", [None, "", "false", "0"])
def test_missing_fixture_skips_elsewhere_naming_the_command(monkeypatch, tmp_path, ci):
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    with pytest.raises(pytest.skip.Exception, match=r"run `bash \.ci/npm-fixtures`"):
        require(tmp_path / "absent.json", "x")


def test_present_fixture_lets_the_test_run(monkeypatch, tmp_path: Path, require_fixture):
    monkeypatch.setenv("CI", "true")
    there = tmp_path / "schema.json"
    there.write_text("{}")
    assert require_fixture(there, "schema") is None
    assert require(True, "flag") is None
    with pytest.raises(pytest.fail.Exception, match="flag is not installed: run `make x`"):
        require(False, "flag", install="make x")
