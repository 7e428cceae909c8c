#!/usr/bin/env bash
# Ctrl-C (SIGINT), SIGTERM (a CI runner, systemd, timeout) and SIGHUP (the
# terminal closed) each stop a run cleanly: exit 4, finished tests kept, no
# iperf or virtual board left behind. tests/e2e/run_hangup_tty.sh closes a
# real terminal; tests/e2e/tune_interrupt.sh does the same for tune.
source "$(dirname "$0")/lib/run_helpers.sh"

for sig in ${SIGNALS:-INT TERM HUP}; do
    OUT="$T/$sig"
    "$ESPBENCH" run --chip esp32 --tier iperf --sim --duration 3 --interval 1 --out "$OUT" >"$T/$sig.out" 2>&1 &
    RUNPID=$!
    BG+=($RUNPID)
    for _ in $(seq 1200); do grep -q "\[2/4\].*started" "$T/$sig.out" 2>/dev/null && break; sleep 0.1; done
    kill -$sig $RUNPID
    rc=0
    wait $RUNPID || rc=$?
    [ $rc = 4 ] || { cat "$T/$sig.out"; fail "SIG$sig: exit $rc, wanted 4"; }
    grep -qF "espbench: interrupted; finished tests are kept in $OUT (continue with --resume)" "$T/$sig.out" ||
        { cat "$T/$sig.out"; fail "SIG$sig message"; }
    json_check "$OUT" 'len(r["entries"]) == 1 and r["entries"][0]["status"] == "ok"'
    # the tests left are said as not run: the counts add up to the plan
    grep -q "^1 tests done, 0 skipped, 0 failed, 3 not run of 4; " "$T/$sig.out" || { cat "$T/$sig.out"; fail "SIG$sig counts"; }
    grep -q "^\[4/4\] .*: not run: interrupted$" "$T/$sig.out" || { cat "$T/$sig.out"; fail "SIG$sig not-run line"; }
    pid=$(cat "$OUT/sim-vboard.pid")
    ! kill -0 "$pid" 2>/dev/null || fail "vboard $pid still running after SIG$sig"
    # No PC iperf of this run is left (they bound this run's own address).
    ip=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["boards"][0]["pc_ip"])' "$OUT/results.json")
    ! pgrep -f "iperf -s.* -B $ip " >/dev/null || fail "PC iperf left running after SIG$sig"
done
echo ok
