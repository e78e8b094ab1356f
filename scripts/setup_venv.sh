#!/usr/bin/env bash
# Used by every composite action: a venv under $RUNNER_TEMP with the pinned, hashed
# runtime requirements, built with the interpreter that actions/setup-python gave
# (update-environment: false, so the caller's Python is left alone).
# In:  AGENTOPS_PYTHON (that interpreter), RUNNER_TEMP.
# Out: step output `python` (the venv's interpreter).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
py="${AGENTOPS_PYTHON:-python3}"
venv="${RUNNER_TEMP:-/tmp}/agentops-venv"
if [ ! -x "$venv/bin/python" ]; then
  "$py" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes \
    --no-deps -r "$here/requirements/runtime.txt"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "python=$venv/bin/python" >> "$GITHUB_OUTPUT"
else
  echo "$venv/bin/python"
fi
