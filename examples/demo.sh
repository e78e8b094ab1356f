#!/usr/bin/env bash
# The README's first Quick start command: set up .venv, then run every skill offline on
# the bundled inputs under examples/<skill>/ (no token, no network).
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/setup
export PATH="$PWD/.venv/bin:$PATH"
for skill in triage nightly-bisect scout postmortem; do
  if [ -x "examples/$skill/demo.sh" ]; then
    printf '\n######## %s ########\n' "$skill"
    bash "examples/$skill/demo.sh"
  fi
done
