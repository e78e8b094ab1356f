"""scripts/setup_venv.sh, the one way every action (and .ci/setup) builds agentops' venv
(issue #13 item 4): refused on a Python below 3.11 with the fix, stamped with the
requirements and the Python version, rebuilt when the stamp differs or is missing (a
build that stopped half-way), never deleting a folder that is not a venv. Offline: the
requirement is a wheel built here, pinned by its hash."""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "setup_venv.sh"


def _wheel(directory: Path) -> Path:
    path = directory / "tinypkg-0.1-py3-none-any.whl"
    files = {"tinypkg/__init__.py": "VALUE = 42\n",
             "tinypkg-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinypkg\n"
                                               "Version: 0.1\n",
             "tinypkg-0.1.dist-info/WHEEL": "Wheel-Version: 1.0\nRoot-Is-Purelib: true\n"
                                            "Tag: py3-none-any\n"}
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
        zf.writestr("tinypkg-0.1.dist-info/RECORD",
                    "".join(f"{n},,\n" for n in [*files, "tinypkg-0.1.dist-info/RECORD"]))
    return path


@pytest.fixture
def reqs(tmp_path: Path) -> Path:
    wheel = _wheel(tmp_path)
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    req = tmp_path / "reqs.txt"
    req.write_text(f"tinypkg @ {wheel.as_uri()} --hash=sha256:{digest}\n")
    return req


def _run(venv: Path, *reqs: Path, python: str = sys.executable,
         actions: bool = False) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("GITHUB_OUTPUT", "GITHUB_ACTIONS", "VIRTUAL_ENV", "PYTHONPATH")}
    env.update({"AGENTOPS_SETUP_PYTHON": python, "AGENTOPS_SETUP_VENV": str(venv),
                "PIP_NO_INDEX": "1"})  # Sanity: offline, whatever pip.conf says
    if actions:
        env["GITHUB_ACTIONS"] = "true"
    return subprocess.run(["bash", str(SCRIPT), *map(str, reqs)], capture_output=True,
                          text=True, env=env, timeout=300, check=False)


def test_builds_stamps_reuses_and_rebuilds_on_a_changed_stamp(tmp_path: Path,
                                                              reqs: Path) -> None:
    venv = tmp_path / "venv"
    first = _run(venv, reqs)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == str(venv / "bin" / "python")
    assert "building" in first.stderr and "::" not in first.stderr  # a shell: plain lines
    check = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import tinypkg; print(tinypkg.VALUE)"],
                           capture_output=True, text=True, check=True)
    assert check.stdout.strip() == "42"
    version = sys.version.split()[0]
    want = hashlib.sha256(reqs.read_bytes() + f"python {version}\n".encode()).hexdigest()
    assert (venv / ".agentops-stamp").read_text().strip() == want

    marker = venv / "kept"
    marker.write_text("")
    again = _run(venv, reqs)
    assert again.returncode == 0 and "building" not in again.stderr and marker.exists()

    reqs.write_text(reqs.read_text() + "# a changed pin file\n")
    changed = _run(venv, reqs)
    assert changed.returncode == 0 and "building" in changed.stderr
    assert not marker.exists()  # rebuilt from scratch, not patched over

    (venv / ".agentops-stamp").unlink()  # as if pip had died half-way
    marker.write_text("")
    half = _run(venv, reqs)
    assert half.returncode == 0 and "building" in half.stderr and not marker.exists()


def _fake_python(tmp_path: Path, version: str) -> str:
    exe = tmp_path / "python-old"
    exe.write_text("#!/bin/sh\ncase \"$2\" in *exit*) exit 1;; *) echo " + version + ";; esac\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return str(exe)


def test_an_old_python_is_refused_with_the_fix(tmp_path: Path, reqs: Path) -> None:
    old = _fake_python(tmp_path, "3.9.18")
    shell = _run(tmp_path / "venv", reqs, python=old)
    assert shell.returncode == 1
    assert shell.stderr.startswith("error: agentops needs Python 3.11 or newer; "
                                   f"{old} is 3.9.18.")
    assert not (tmp_path / "venv").exists()
    runner = _run(tmp_path / "venv", reqs, python=old, actions=True)
    assert runner.returncode == 1
    assert runner.stderr.startswith("::error title=agentops setup::agentops needs Python 3.11")


def test_a_folder_that_is_not_a_venv_is_never_deleted(tmp_path: Path, reqs: Path) -> None:
    precious = tmp_path / "work"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    res = _run(precious, reqs)
    assert res.returncode == 1
    assert "exists and is not a venv; refusing to delete it" in res.stderr
    assert (precious / "notes.txt").read_text() == "keep me"
