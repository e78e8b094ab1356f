#!/usr/bin/env bash
# Offline demo of the triage planner: plan every bundled example issue (no token, no
# network), print a compact table, then one full plan; then measure the planner on the
# small labelled set the queue ships (selective triage's precision at coverage
# included), and on the labelled dev set when it is checked out next to this repository.
# On a repository's own history the same report comes from
#   python scripts/triage.py evaluate --repo OWNER/NAME --since 2025-01-01 --save h.jsonl
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=python3
if [ -x .venv/bin/python ]; then PY=.venv/bin/python; fi

printf '%-38s %-19s %-31s %s\n' "issue file" "decision" "comment" "labels added"
for f in examples/triage/issues/*.json; do
  "$PY" scripts/triage.py plan "$f" | "$PY" -c '
import json, sys
p = json.load(sys.stdin)
name = sys.argv[1].rsplit("/", 1)[-1]
comment = ",".join(p["comments"]) or "-"
labels = ", ".join(p["add_labels"])
print("%-38s %-19s %-31s %s" % (name, p["decision"], comment, labels))
' "$f"
done

echo
echo "== full plan: examples/triage/issues/classify-fsdp2-dtensor.json =="
"$PY" scripts/triage.py plan examples/triage/issues/classify-fsdp2-dtensor.json

echo
echo "== evaluate on the queue's own labelled set (planner vs keyword baseline) =="
# Exit 3 would mean a constraint violation: show it, do not hide it.
"$PY" scripts/triage.py evaluate

for dev in ../shared/eval/triage-dev.jsonl ../../shared/eval/triage-dev.jsonl; do
  if [ -f "$dev" ]; then
    echo
    echo "== evaluate on $dev (planner vs keyword baseline) =="
    # Exit 3 would mean a constraint violation: show it, do not hide it.
    "$PY" scripts/triage.py evaluate "$dev"
    break
  fi
done
