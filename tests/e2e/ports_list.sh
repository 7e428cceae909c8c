#!/usr/bin/env bash
# espbench ports: a header and one line per local port (whatever this machine
# has; USB kinds are unit-tested in test_port.c), exit 0; extra arguments are
# a usage error, as is an unknown option (in this and the other device commands).
source "$(dirname "$0")/lib/flash_helpers.sh"
"$ESPBENCH" ports >"$T/out" 2>"$T/err" || { cat "$T/err"; fail "ports failed"; }
if [ -s "$T/out" ]; then
    head -1 "$T/out" | grep -qE "^PORT +VID:PID +SERIAL +KIND +DESCRIPTION$" || { cat "$T/out"; fail "header"; }
    tail -n +2 "$T/out" | grep -qvE "^/" && { cat "$T/out"; fail "a line that is not a port"; }
else
    grep -qx "espbench: no local serial ports found (is the board plugged in?)" "$T/err" || fail "empty list message"
fi
expect_fail 2 "unexpected argument 'extra'" "$ESPBENCH" ports extra
# An unknown option (or one missing its argument): one line, ours, naming it.
for cmd in ports detect flash profiles; do
    expect_fail 2 "espbench $cmd: unknown option '--bogus'; see 'espbench help $cmd'" "$ESPBENCH" $cmd --bogus
    [ "$(wc -l <"$T/err")" -eq 1 ] || { cat "$T/err"; fail "$cmd --bogus: not one line"; }
done
expect_fail 2 "espbench detect: -p needs a value" "$ESPBENCH" detect -p
[ "$(wc -l <"$T/err")" -eq 1 ] || { cat "$T/err"; fail "detect -p: not one line"; }
echo ok
