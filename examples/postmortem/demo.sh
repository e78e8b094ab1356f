#!/usr/bin/env bash
# Post-mortem drafts, offline: the gate (a refusal and a pass), the Markdown and ADF
# drafts of the seed's Tada example, lint (clean and a deliberately hedged draft), and
# publishing to a JIRA stand-in on loopback: refused without approval, posted with it.
set -uo pipefail
cd "$(dirname "$0")/../.."
PY=${PYTHON:-python}
[ -x .venv/bin/python ] && PY=.venv/bin/python
pm() { "$PY" scripts/postmortem.py "$@"; }
ex=examples/postmortem
tmp=$(mktemp -d)
standin_pid=""
cleanup() { [ -n "$standin_pid" ] && kill "$standin_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
say() { printf '\n--- %s\n' "$*"; }
expect() {  # expect CODE command...: run it, show the exit code, fail the demo on surprise
  local want=$1; shift
  "$@"; local got=$?
  echo "(exit $got)"
  if [ "$got" != "$want" ]; then echo "demo: expected exit $want, got $got" >&2; exit 1; fi
}

say "check: a hypothesis is not a post-mortem (exit 3, each missing input named)"
expect 3 pm check $ex/hypothesis.facts.yml

say "check: the Tada hang facts are complete (exit 0)"
expect 0 pm check $ex/tada-hang.facts.yml

say "draft --format md (the nine sections of the seed, in its order)"
expect 0 pm draft $ex/tada-hang.facts.yml --out "$tmp/postmortem.md"
cat "$tmp/postmortem.md"

say "draft --format adf (the JIRA comment body; size and structural validity)"
expect 0 pm draft $ex/tada-hang.facts.yml --format adf --out "$tmp/postmortem.adf.json"
"$PY" - "$tmp/postmortem.adf.json" <<'PYEOF'
import json, sys
sys.path.insert(0, "src")
from agentops.postmortem.render import validate_adf
raw = open(sys.argv[1], "rb").read()
doc = json.loads(raw)
problems = validate_adf(doc)
kinds = sorted({n["type"] for n in doc["content"]})
print(f"{len(raw)} bytes, {len(doc['content'])} top-level nodes {kinds}; "
      f"ADF structurally valid: {not problems}")
PYEOF
echo "recorded: $(cat "$tmp/postmortem.adf.json.sha256")"

say "lint: the draft is clean (checked against its facts)"
expect 0 pm lint "$tmp/postmortem.md" --facts $ex/tada-hang.facts.yml

say "lint: a deliberately hedged, blaming draft (exit 6, file:line: rule: message)"
expect 6 pm lint $ex/hedged-draft.md

say "publish: start a JIRA stand-in on loopback"
export JIRA_EMAIL=demo@example.com JIRA_API_TOKEN=demo-token
"$PY" $ex/jira_standin.py --email "$JIRA_EMAIL" --token "$JIRA_API_TOKEN" \
  --url-file "$tmp/jira.url" --dump-dir "$tmp" 2>"$tmp/standin.log" &
standin_pid=$!
for _ in $(seq 50); do [ -s "$tmp/jira.url" ] && break; sleep 0.1; done
jira=$(cat "$tmp/jira.url")
echo "JIRA stand-in at $jira"

say "publish without approval: refused, nothing posted (exit 3)"
expect 3 pm publish --draft "$tmp/postmortem.adf.json" --jira-url "$jira" --ticket JIRA-12345

say "publish with an approval naming another hash: refused (exit 3)"
expect 3 pm publish --draft "$tmp/postmortem.adf.json" --jira-url "$jira" --ticket JIRA-12345 \
  --approved-by maria --approved-sha256 "$(printf '0%.0s' $(seq 64))"

say "publish with the approved sha256: one POST, byte for byte (exit 0)"
sha=$(cut -d' ' -f1 "$tmp/postmortem.adf.json.sha256")
expect 0 pm publish --draft "$tmp/postmortem.adf.json" --jira-url "$jira" --ticket JIRA-12345 \
  --approved-by maria --approved-sha256 "$sha"
echo "stand-in log:"; sed 's/^/  /' "$tmp/standin.log"
"$PY" - "$tmp/postmortem.adf.json" "$tmp"/comment-*.request.json <<'PYEOF'
import sys
artifact = open(sys.argv[1], "rb").read()
posted = [open(p, "rb").read() for p in sys.argv[2:]]
same = posted == [b'{"body": ' + artifact + b"}"]
print(f"JIRA received {len(posted)} comment(s); body byte-equal to the approved artifact: {same}")
sys.exit(0 if same else 1)
PYEOF
