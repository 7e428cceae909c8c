#!/usr/bin/env bash
# Bad-input sweep: every command and option with a wrong value (the table in
# bad_input_sweep.table). Each must end within 30 s with the documented exit
# code and exactly one error line on stderr holding the expected text, never
# a crash or sanitizer report, and leave no results/report file behind (each
# row runs in an empty folder, and -o targets must not exist afterwards).
source "$(dirname "$0")/lib/run_helpers.sh"
export ESPBENCH_WIFI_PASSWORD=espbench-sim-wpa2
TABLE="$(dirname "$0")/bad_input_sweep.table"
R="$FIXTURES_DIR/results/esp32-sim-all-tiers.json"
P="$FIXTURES_DIR/profiles/broken"
L="$T/alias-lab.yaml"
printf 'ap: &a {ssid: lab, password_env: X}\npc: {address: 127.0.0.1}\nboards:\n  - *a\n' >"$L"
printf '{"schema": "espbench-results", "entries": [' >"$T/garbage.json"

n=0 bad=0
while IFS='|' read -r want text args; do
    case $want in ''|'#'*) continue ;; esac
    want=$(echo $want) text=$(echo "$text" | sed 's/^ *//; s/ *$//')
    n=$((n + 1))
    cwd="$T/cwd$n"
    mkdir -p "$cwd"
    eval "set -- $args"
    rc=0
    (cd "$cwd" && exec timeout 240 "$ESPBENCH" "$@") >"$T/out$n" 2>"$T/err$n" || rc=$?
    why=""
    [ "$rc" = "$want" ] || why="exit $rc, wanted $want"
    errs=$(grep -v -e '^starting a virtual' -e '^espbench: warning' -e 'cannot set DTR/RTS' "$T/err$n" | grep -c . || true)
    [ -n "$why" ] || [ "$errs" = 1 ] || why="$errs error lines on stderr, wanted 1"
    [ -n "$why" ] || grep -qF -- "$text" "$T/err$n" || why="stderr lacks: $text"
    ! grep -q -e AddressSanitizer -e 'runtime error:' "$T/err$n" || why="sanitizer report"
    left=$(cd "$cwd" && find . -name 'results.json' -o -name '*.csv' -o -name '*.html' -o -name '*.xml' | head -3)
    [ -z "$left" ] || why="left files behind: $left"
    for f in "$T/m.json" /nonexistent/dir/out.csv; do [ ! -e "$f" ] || why="left $f behind"; done
    [ ! -e "$T/simfault/results.json" ] || why="left $T/simfault/results.json behind"
    if [ -n "$why" ]; then
        echo "FAIL: espbench $args: $why" >&2
        sed 's/^/    /' "$T/err$n" >&2
        bad=$((bad + 1))
    fi
done <"$TABLE"
[ "$n" -ge 60 ] || fail "only $n rows in $TABLE"
[ "$bad" = 0 ] || fail "$bad of $n bad inputs were not handled as documented"
echo "ok: $n bad inputs, each one line and its documented exit code"
