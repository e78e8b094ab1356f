#!/usr/bin/env bash
# The one way agentops builds its venv: every composite action (runtime requirements,
# under $RUNNER_TEMP) and .ci/setup (.venv, runtime + dev requirements).
#
# In:  AGENTOPS_SETUP_PYTHON  the interpreter to build it with (default python3); 3.11+
#                             whatever Python a caller probes or tests with
#      AGENTOPS_SETUP_VENV    the venv folder (default $RUNNER_TEMP/agentops-venv)
#      arguments              requirement files (default requirements/runtime.txt)
# Out: step output `python` (the venv's interpreter) in a runner; the path on stdout
#      elsewhere.
#
# The venv is stamped with the sha256 of the requirement files and the interpreter's
# version, written only after pip succeeded: a venv with another stamp, or none (a build
# that stopped half-way), is deleted and built again, never reused.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
py="${AGENTOPS_SETUP_PYTHON:-python3}"
venv="${AGENTOPS_SETUP_VENV:-${RUNNER_TEMP:-/tmp}/agentops-venv}"
reqs=("$@")
if [ "${#reqs[@]}" -eq 0 ]; then reqs=("$here/requirements/runtime.txt"); fi

in_actions() { [ "${GITHUB_ACTIONS:-}" = "true" ]; }
fail() {
  if in_actions; then echo "::error title=agentops setup::$1" >&2; else echo "error: $1" >&2; fi
  exit 1
}

version="$("$py" -c 'import sys; print(sys.version.split()[0])' 2>/dev/null)" \
  || fail "cannot run $py; set AGENTOPS_SETUP_PYTHON (or PYTHON for .ci/setup) to a Python 3.11+"
if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  fail "agentops needs Python 3.11 or newer; $py is $version. Set AGENTOPS_SETUP_PYTHON (or PYTHON for .ci/setup) to /path/to/python3.11."
fi
for r in "${reqs[@]}"; do
  [ -f "$r" ] || fail "requirement file $r does not exist"
done

stamp="$venv/.agentops-stamp"
want="$({ cat "${reqs[@]}"; echo "python $version"; } | sha256sum | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$venv/bin/python" ]; then
  :
else
  if [ -e "$venv" ]; then
    # Sanity: delete only what is a venv (or empty), never a folder named by mistake.
    if [ -f "$venv/pyvenv.cfg" ] || [ -z "$(ls -A "$venv")" ]; then
      rm -rf "$venv"
    else
      fail "$venv exists and is not a venv; refusing to delete it (set AGENTOPS_SETUP_VENV to another folder)"
    fi
  fi
  if in_actions; then
    echo "::group::agentops: building $venv (Python $version, pinned and hashed requirements)" >&2
  else
    echo "agentops: building $venv (Python $version, pinned and hashed requirements)" >&2
  fi
  "$py" -m venv "$venv"
  pip_args=()
  for r in "${reqs[@]}"; do pip_args+=(-r "$r"); done
  if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes \
      --no-deps "${pip_args[@]}" >"$venv/pip.log" 2>&1; then
    tail -n 30 "$venv/pip.log" >&2
    fail "pip could not install the pinned requirements (full log: $venv/pip.log); the venv has no stamp and will be rebuilt on the next run"
  fi
  echo "$want" >"$stamp"
  if in_actions; then echo "::endgroup::" >&2; fi
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "python=$venv/bin/python" >>"$GITHUB_OUTPUT"
else
  echo "$venv/bin/python"
fi
