"""``nightly_bisect.py probe``: one matrix cell. Install one nightly into a fresh venv
made from the ``--python`` interpreter, run the repro command (trusted configuration:
the workflow's input, never text from a log; docs/security.md) with no token, and write
the result file (S-10d)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from agentops import console, files, ghactions
from agentops.bisect import index as idx
from agentops.bisect import ranges as rg
from agentops.bisect import wheels
from agentops.bisect.session import Session
from agentops.bisect.verbs.output import emit, slug
from agentops.errors import AgentopsError, ExitStatus, InputError
from agentops.http import redact, redact_text


def probe_command(args: argparse.Namespace) -> int:
    """Install one nightly into a fresh venv, run the repro command, write the result."""
    if not args.repro_command:
        raise InputError("--repro-command", "the repro command is required (env "
                         "AGENTOPS_REPRO_COMMAND)",
                         fix="actions/nightly-bisect: the `repro-command` input; the root "
                             "action (no such input): `AGENTOPS_REPRO_COMMAND` in the step's "
                             "env; a shell: --repro-command. It exits 0 when the nightly is "
                             "good")
    if not args.results:
        raise InputError("--results", "where to write the result file is required",
                         fix="give a folder (env AGENTOPS_RESULTS_DIR, the input results-dir)")
    # Everything that can be checked is checked before the install and the repro run.
    files.check_folder(args.results, field="--results")
    interpreter = probe_interpreter(args.interpreter, args.python)
    session = Session(args)
    n = session.given_wheel()
    if n is None:
        ns = session.nightlies()
        n = ns[session.find(args.version or "")]
    version = str(n.version)
    path = Path(args.results) / f"{slug(version)}.json"
    files.check_writable(path, field="--results")
    started = time.monotonic()
    # A torch venv weighs gigabytes: a temporary one goes away after the run.
    with (contextlib.nullcontext(args.venv) if args.venv
          else tempfile.TemporaryDirectory(prefix="nightly-probe-")) as where:
        venv = Path(where) / "venv"
        with ghactions.group(f"install {version}"):
            ok, log = _install(venv, n, args, interpreter=interpreter)
        git_version = None
        if ok:
            git_version = _installed_git_version(venv)
            with ghactions.group(f"repro on {version}"):
                code, out = _run_repro(venv, args.repro_command, version=version,
                                       timeout=args.timeout * 60)
            status = "pass" if code == 0 else "fail"
        else:
            code, out, status = None, log, "skip"
    result = rg.ProbeResult(version=version, status=status,  # type: ignore[arg-type]
                            # Security: pip's log names the index URL.
                            log_tail=console.inert_line(redact_text(out[-rg.LOG_TAIL_LIMIT:]),
                                                        limit=rg.LOG_TAIL_LIMIT),
                            git_version=git_version, wheel_url=redact(n.wheel.url))
    obj = {**result.to_json(), "exit_code": code,
           "seconds": round(time.monotonic() - started, 1)}
    files.write_atomic(path, json.dumps(obj, indent=2) + "\n", field="--results")
    emit(console.json_text(obj, indent=2))
    ghactions.set_output("status", status)
    ghactions.set_output("result-path", str(path))
    ghactions.append_summary(f"Probe `{version}`: **{status}**"
                             + (f" (exit {code})" if code is not None else " (install failed)"))
    session.finish()
    return ExitStatus.OK


def _venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def probe_interpreter(interpreter: str | None, python: str) -> str:
    """The interpreter the probe's venv is made from, refused up front unless it is the
    CPython ``--python`` names: pip would reject every wheel of another version, and
    the probe would record a skip that is never probed again (issue #13)."""
    exe = interpreter or sys.executable
    want = idx.python_tag(python)
    try:
        proc = subprocess.run([exe, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                              capture_output=True, text=True, check=False, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InputError("--interpreter", f"cannot run {exe}",
                         fix="give the path of a CPython interpreter (env "
                             "AGENTOPS_INTERPRETER)") from exc
    got = proc.stdout.strip()
    if proc.returncode != 0 or not re.fullmatch(r"\d+\.\d+", got):
        raise InputError("--interpreter", f"{exe} did not report a Python version",
                         fix="give the path of a CPython interpreter (env "
                             "AGENTOPS_INTERPRETER)")
    if idx.python_tag(got) != want:
        wanted = f"{want[2]}.{want[3:]}"
        found = shutil.which(f"python{wanted}")
        raise InputError("--python", f"the wheels are for CPython {wanted}, but the probe's "
                         f"interpreter {exe} is {got}; every wheel would fail to install and "
                         "be recorded as skip",
                         fix=(f"pass --interpreter {found}" if found else
                              f"pass --interpreter /path/to/python{wanted}")
                         + f", or --python {got}")
    return exe


def _install(venv: Path, n: idx.Nightly, args: argparse.Namespace, *,
             interpreter: str) -> tuple[bool, str]:
    steps = [[interpreter, "-m", "venv", str(venv)],
             [str(_venv_python(venv)), "-m", "pip", "install", "--quiet",
              "--disable-pip-version-check", "--pre", "--index-url", args.index_url,
              *(["--extra-index-url", args.extra_index_url] if args.extra_index_url else []),
              n.wheel.url]]
    # Sanity: a venv made from inside the agentops venv must be based on the real
    # interpreter, not inherit the agentops packages.
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    log = []
    for cmd in steps:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False,
                              timeout=3600)
        log.append(proc.stdout + proc.stderr)
        if proc.returncode != 0:
            return False, "".join(log)
    return True, "".join(log)


def _installed_git_version(venv: Path) -> str | None:
    code = ("import sysconfig, pathlib; p = pathlib.Path(sysconfig.get_paths()['platlib']) / "
            "'torch' / 'version.py'; print(p.read_text() if p.exists() else '')")
    proc = subprocess.run([str(_venv_python(venv)), "-c", code], capture_output=True,
                          text=True, check=False, timeout=120)
    if proc.returncode != 0 or not proc.stdout.strip():
        return None
    try:
        return wheels.parse_version_py(proc.stdout, source="installed torch")["git_version"]
    except AgentopsError:
        return None


# A variable whose name says it holds a credential. The repro imports a wheel built by a
# server we do not control, so a job's other secrets (a JIRA token, a signing key, a cloud
# key) must not reach it any more than the GitHub token; a name list would miss the next one.
_SECRET_NAME = re.compile(
    r"TOKEN|SECRET|PASSW|CREDENTIAL|PRIVATE|AUTH(?!OR)|(?:^|_)(?:API_?|ACCESS_?|SIGNING_?)?KEY(?:$|_)"
    r"|^ACTIONS_|^JIRA_", re.IGNORECASE)


def repro_env(environ: Mapping[str, str], venv: Path, version: str) -> dict[str, str]:
    """The repro's environment: the job's, less every credential-named variable and
    PYTHONPATH, with the probe's venv first on PATH and the nightly under test named."""
    env = {k: v for k, v in environ.items()
           if k != "PYTHONPATH" and not _SECRET_NAME.search(k)}
    env["VIRTUAL_ENV"] = str(venv)
    env["PATH"] = str(_venv_python(venv).parent) + os.pathsep + env.get("PATH", "")
    env["AGENTOPS_NIGHTLY_VERSION"] = version
    return env


def _run_repro(venv: Path, command: str, *, version: str, timeout: float) -> tuple[int, str]:
    # Security: the repro is the caller's code at an untested nightly; it gets no secret.
    env = repro_env(os.environ, venv, version)
    try:
        # Security: the command is the caller's own repro text; it reaches us through
        # env (never a workflow expression) and runs as one bash argument.
        proc = subprocess.run(["bash", "-c", command], env=env, capture_output=True,
                              text=True, check=False, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout
                                                                                or "")
        return 124, out + f"\n[agentops] the repro timed out after {timeout:g} s\n"
    out = proc.stdout + proc.stderr
    ghactions.notice(console.inert_line(redact_text(out[-2000:]), limit=2000))
    return proc.returncode, out
