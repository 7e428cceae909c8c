#!/usr/bin/env bash
# Documented outcomes during traffic: a board that reboots mid-test is retried
# (and reported once the retries are spent, the other tests still run); a port
# that disappears mid-test ends the run with exit 3 and the finished results kept.
source "$(dirname "$0")/lib/run_helpers.sh"

RUN=(run --chip esp32 --tier iperf --sim --duration 2 --interval 1 --warmup 0)

# One reboot during tcp_tx: retried, then every test passes.
expect_rc 0 timeout 40 "$ESPBENCH" "${RUN[@]}" --tests tcp_tx,tcp_rx --sim-fault reboot@tcp_tx --out "$T/a"
has "the board rebooted during tcp_tx (rst:"
has "retrying (1 of 2)"
has "2 tests done, 0 skipped, 0 failed of 2"
grep -q "^rst:" "$T/a/console-sim.log" || fail "the reboot is not in the console log"

# Three reboots with one retry: reported as failed; tcp_rx still measured.
expect_rc 3 timeout 40 "$ESPBENCH" "${RUN[@]}" --tests tcp_tx,tcp_rx --retries 1 \
    --sim-fault reboot@tcp_tx --sim-fault reboot@tcp_tx --sim-fault reboot@tcp_tx --out "$T/b"
has "retrying (1 of 1)"
has "[1/2] sim esp32/iperf tcp_tx FAILED: sim: the board rebooted during tcp_tx"
has "espbench: 1 of 2 tests failed (see the error column of $T/b/results.csv)"
json_check "$T/b" '[e["status"] for e in r["entries"]] == ["failed", "ok"]'

# The port goes away during the second test.
"$ESPBENCH" "${RUN[@]}" --duration 3 --out "$T/c" >"$T/c.out" 2>&1 &
RUNPID=$!
BG+=($RUNPID)
for _ in $(seq 300); do grep -q "\[2/4\].*started" "$T/c.out" 2>/dev/null && break; sleep 0.1; done
sleep 0.5
kill -KILL "$(cat "$T/c/sim-vboard.pid")"
rc=0
wait $RUNPID || rc=$?
[ $rc = 3 ] || { cat "$T/c.out"; fail "port gone: exit $rc, wanted 3"; }
grep -q "^espbench: console /dev/pts/[0-9]*: port /dev/pts/[0-9]*: device gone" "$T/c.out" || { cat "$T/c.out"; fail "port gone message"; }
json_check "$T/c" '[e["status"] for e in r["entries"]] == ["ok", "failed"]'
echo ok
