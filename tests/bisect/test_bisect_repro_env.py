"""The repro runs code from a nightly wheel we did not build (docs/security.md): no
credential of the job may reach it, whatever the variable is called, while the rest of
the job's environment (devices, caches) does."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agentops.bisect.verbs import probe

SECRETS = ("GITHUB_TOKEN", "GH_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL", "ACTIONS_RUNTIME_TOKEN",
           "JIRA_EMAIL", "JIRA_API_TOKEN", "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID",
           "RELEASE_SIGNING_KEY", "HF_TOKEN", "NPM_AUTH", "DB_PASSWORD", "SSH_PRIVATE_KEY",
           "OPENAI_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "key")
KEPT = ("CUDA_VISIBLE_DEVICES", "HF_HOME", "GIT_AUTHOR_NAME", "KEYBOARD_LAYOUT", "MONKEY",
        "HOME")


def test_no_credential_named_variable_reaches_the_repro(tmp_path: Path) -> None:
    environ = {name: "x" for name in SECRETS + KEPT}
    environ["PYTHONPATH"] = "/elsewhere"
    environ["PATH"] = "/usr/bin"
    env = probe.repro_env(environ, tmp_path / "venv", "2.10.0.dev20260101")
    assert not set(SECRETS) & set(env), sorted(set(SECRETS) & set(env))
    assert all(env[name] == "x" for name in KEPT)
    assert "PYTHONPATH" not in env
    assert env["AGENTOPS_NIGHTLY_VERSION"] == "2.10.0.dev20260101"
    assert env["VIRTUAL_ENV"] == str(tmp_path / "venv")
    assert env["PATH"].split(":")[0].startswith(str(tmp_path / "venv"))
    assert env["PATH"].endswith("/usr/bin")


@pytest.mark.skipif(sys.platform == "win32", reason="the repro runs under bash")
def test_the_running_repro_sees_no_secret(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JIRA_API_TOKEN", "jira-secret-value")
    monkeypatch.setenv("RELEASE_SIGNING_KEY", "signing-secret-value")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    code, out = probe._run_repro(tmp_path / "venv", "env", version="2.10.0.dev20260101",
                                 timeout=30)
    assert code == 0
    assert "secret-value" not in out
    assert "CUDA_VISIBLE_DEVICES=0,1" in out
