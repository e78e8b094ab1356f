#!/usr/bin/env bash
# Scout report, offline: build a small three-commit repository (a core project and a
# sub-project that tracks it), report on the second commit, then on the third with the
# first report as --prior, so "new" and "carried forward" are decided exactly.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
py="${PYTHON:-python3}"
[ -x "$root/.venv/bin/python" ] && py="$root/.venv/bin/python"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$py" "$here/make_repo.py" "$work/repo" > /dev/null
git -C "$work/repo" checkout -q --detach main~1
scout() {
  "$py" "$root/scripts/scout.py" --config "$work/repo-target.yaml" report \
    --checkout "$work/repo" --offline "$@"
}

echo "== report 1 (2026-03-06, commit c2, --since 2026-03-02: baseline commit c1) =="
scout --date 2026-03-06 --since 2026-03-02 --out "$work/first.md" > /dev/null
sed '/<!-- agentops:scout-report/,$d' "$work/first.md"

git -C "$work/repo" checkout -q main
echo
echo "== report 2 (2026-03-10, commit c3, --prior report 1: baseline = its date) =="
scout --date 2026-03-10 --prior "$work/first.md" --out "$work/second.md" > /dev/null
sed '/<!-- agentops:scout-report/,$d' "$work/second.md"
echo
echo "(each posted report ends with a hidden <!-- agentops:scout-report v1 ... --> block:"
echo " item ids, TODO ids, suppressed FYIs — what the next run reads back with --prior)"
