#!/usr/bin/env bash
# The folder `espbench run` wrote stands for its results.json wherever one is
# accepted (report, compare, merge), and an unreadable path says which and why.
set -euo pipefail
: "${ESPBENCH:?}" "${FIXTURES_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir -p "$T/run1" "$T/empty"
cp "$FIXTURES_DIR/results/esp32-sim-all-tiers.json" "$T/run1/results.json"

"$ESPBENCH" report "$T/run1" --format md >"$T/dir.md"
"$ESPBENCH" report "$T/run1/results.json" --format md >"$T/file.md"
cmp -s "$T/dir.md" "$T/file.md" || fail "report of the folder differs from report of its results.json"
"$ESPBENCH" compare "$T/run1" "$T/run1/" >"$T/cmp.txt" || fail "compare of run folders: exit $?"
"$ESPBENCH" merge "$T/run1" "$T/run1" -o "$T/merged.json" >/dev/null 2>&1 || fail "merge of run folders"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); assert len(a["entries"]) == len(b["entries"])' \
    "$T/merged.json" "$T/run1/results.json"

rc=0
"$ESPBENCH" report "$T/empty" 2>"$T/err" >/dev/null || rc=$?
[ "$rc" = 2 ] || fail "folder without results.json: exit $rc"
want="espbench: $T/empty: a folder without results.json (not one \`espbench run\` wrote?): pass a results.json or a run's --out folder"
[ "$(cat "$T/err")" = "$want" ] || { cat "$T/err"; fail "message"; }
rc=0
"$ESPBENCH" report "$T/none.json" 2>"$T/err" >/dev/null || rc=$?
[ "$rc" = 2 ] || fail "missing file: exit $rc"
[ "$(cat "$T/err")" = "espbench: $T/none.json: cannot read: No such file or directory" ] || { cat "$T/err"; fail "message"; }
echo ok
