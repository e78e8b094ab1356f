#!/usr/bin/env bash
# Nightly bisection, offline: a loopback simple index over 30 generated nightly wheels
# (built now into a temp dir), then versions -> resolve -> range -> plan -> narrow x2
# with the probe results bundled under results/ (a regression that landed 2026-05-15).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
py="${PYTHON:-$root/.venv/bin/python}"
[ -x "$py" ] || py=python3
tmp="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

"$py" "$root/tests/bisect/server.py" "$tmp/wheels" 30 >"$tmp/url" 2>"$tmp/server.log" &
server_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/url" ] && break; sleep 0.1; done
[ -s "$tmp/url" ] || { cat "$tmp/server.log" >&2; echo "demo: the server did not start" >&2; exit 1; }
index="$(cat "$tmp/url")"
bisect() { "$py" "$root/scripts/nightly_bisect.py" "$@" --index-url "$index" --python 3.12; }
say() { printf '\n$ nightly_bisect.py %s\n' "$*"; }

say "versions --since 20260525"
bisect versions --since 20260525

say "resolve --version dev20260515      # torch/version.py through range requests"
bisect resolve --version dev20260515

say "range --good dev20260501 --bad dev20260530"
bisect range --good dev20260501 --bad dev20260530

say "plan --good dev20260501 --bad dev20260530 --width 8"
bisect plan --good dev20260501 --bad dev20260530 --width 8 | "$py" -m json.tool --indent 1 \
  | grep '"version"'

mkdir -p "$tmp/results"
cp "$here"/results/r1-*.json "$tmp/results/"
say "narrow ... --results <round 1: 8 probes>"
bisect narrow --good dev20260501 --bad dev20260530 --width 8 --results "$tmp/results" \
  | cut -c1-160

cp "$here"/results/r2-*.json "$tmp/results/"
say "narrow ... --results <rounds 1+2: 11 probes>   # 2 rounds: ceil(log9 29)"
bisect narrow --good dev20260501 --bad dev20260530 --width 8 --results "$tmp/results"
