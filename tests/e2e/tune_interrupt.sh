#!/usr/bin/env bash
# espbench tune stops cleanly on SIGINT, SIGTERM and SIGHUP, each: exit 4 with
# its one line, the probes finished before the signal kept in results.json and
# the journal, no virtual board or PC iperf left; --resume goes on from there.
source "$(dirname "$0")/lib/run_helpers.sh"

for sig in ${SIGNALS:-INT TERM HUP}; do
    OUT="$T/$sig"
    ARGS=(tune --chip esp32 --sim --objective tcp_tx --min-free-kb 130 --budget 22s --out "$OUT")
    "$ESPBENCH" "${ARGS[@]}" >"$T/$sig.out" 2>&1 &
    PID=$!
    BG+=("$PID")
    n=0
    for _ in $(seq 1 1200); do  # a generous deadline: a busy machine is slow to get there
        n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["probes"]))' "$OUT/tune-journal.json" 2>/dev/null || echo 0)
        [ "$n" -ge 2 ] && break
        sleep 0.1
    done
    [ "$n" -ge 2 ] || { cat "$T/$sig.out" >&2; fail "SIG$sig: no probes journalled"; }
    vb=$(cat "$OUT"/sim-vboard.pid 2>/dev/null || find "$OUT" -name 'sim-vboard.pid' -exec cat {} + | head -1)
    [ -n "$vb" ] || fail "SIG$sig: no vboard pid file under $OUT"
    kill -"$sig" "$PID"
    rc=0
    wait "$PID" || rc=$?
    [ $rc = 4 ] || { cat "$T/$sig.out" >&2; fail "SIG$sig: exit $rc, wanted 4"; }
    grep -qF "espbench: interrupted; finished probes are kept in $OUT (continue with --resume)" "$T/$sig.out" ||
        { cat "$T/$sig.out" >&2; fail "SIG$sig: message"; }
    ! kill -0 "$vb" 2>/dev/null || fail "SIG$sig: vboard $vb still running"
    python3 - "$OUT" "$n" <<'PY' || fail "SIG$sig: probes lost"
import json, sys
out, n = sys.argv[1], int(sys.argv[2])
entries = json.load(open(out + "/results.json"))["entries"]
probes = json.load(open(out + "/tune-journal.json"))["probes"]
assert len(entries) >= n and len(probes) >= n, (len(entries), len(probes), n)
assert all(e["status"] == "ok" for e in entries), [e["status"] for e in entries]
PY
    ! pgrep -f "iperf -s.* -B $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["boards"][0]["pc_ip"])' "$OUT/results.json") " >/dev/null ||
        fail "SIG$sig: PC iperf left running"
done
# The last interrupted tune resumes to its end.
expect_rc 0 timeout 240 "$ESPBENCH" "${ARGS[@]}" --resume
has "probes of"
echo ok
