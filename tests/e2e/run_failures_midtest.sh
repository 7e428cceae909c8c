#!/usr/bin/env bash
# Documented outcomes during traffic: a port that disappears mid-test ends the
# run with exit 3, the finished results kept and the tests after it said as
# not run. A board that reboots
# mid-test (retried, and reported once the retries are spent while the other
# tests still run) is the run loop's logic: tests/unit/test_run_loop.c drives
# it through fake:// and the fake PC; the vboard's reboot itself is a cell of
# the fault matrix (fault_matrix.sh).
source "$(dirname "$0")/lib/run_helpers.sh"

RUN=(run --chip esp32 --tier iperf --sim --duration 2 --interval 1 --warmup 0)

# The port goes away during the second test.
"$ESPBENCH" "${RUN[@]}" --duration 3 --out "$T/c" >"$T/c.out" 2>&1 &
RUNPID=$!
BG+=($RUNPID)
for _ in $(seq 1200); do grep -q "\[2/4\].*started" "$T/c.out" 2>/dev/null && break; sleep 0.1; done
sleep 0.5
kill -KILL "$(cat "$T/c/sim-vboard.pid")"
rc=0
wait $RUNPID || rc=$?
[ $rc = 3 ] || { cat "$T/c.out"; fail "port gone: exit $rc, wanted 3"; }
grep -q "^espbench: console /dev/pts/[0-9]*: port /dev/pts/[0-9]*: device gone" "$T/c.out" || { cat "$T/c.out"; fail "port gone message"; }
json_check "$T/c" '[e["status"] for e in r["entries"]] == ["ok", "failed"]'
# the tests after it are said as not run, and the counts add up to the plan
grep -Eq "^\[3/4\] .*: not run: console /dev/pts/[0-9]*: port /dev/pts/[0-9]*: device gone" "$T/c.out" || { cat "$T/c.out"; fail "no not-run line"; }
grep -q "^1 tests done, 0 skipped, 1 failed, 2 not run of 4; " "$T/c.out" || { cat "$T/c.out"; fail "the counts do not add up"; }
echo ok
