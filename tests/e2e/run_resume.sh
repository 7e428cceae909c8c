#!/usr/bin/env bash
# A run killed with SIGKILL keeps a valid results.json at every moment, its
# virtual board dies with it, and `--resume` finishes the plan without redoing
# the tests that were done.
source "$(dirname "$0")/lib/run_helpers.sh"

OUT="$T/out"
ARGS=(run --chip esp32 --tier iperf,minimum --tests tcp_tx,udp_rx --sim --duration 2 --interval 1 --warmup 0 --out "$OUT")
"$ESPBENCH" "${ARGS[@]}" >"$T/first.out" 2>&1 &
RUN=$!
BG+=($RUN)

# While it runs, results.json is always complete JSON (atomic replace); kill
# it once two tests are in.
n=0
for _ in $(seq 1200); do
    kill -0 $RUN 2>/dev/null || { cat "$T/first.out"; fail "the run ended before it was killed"; }
    if [ -e "$OUT/results.json" ]; then
        n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["entries"]))' "$OUT/results.json") ||
            fail "results.json not valid while the run writes it"
        [ "$n" -ge 2 ] && break
    fi
    sleep 0.1
done
[ "$n" -ge 2 ] || { cat "$T/first.out"; fail "no two results within 120 s"; }
kill -KILL $RUN
wait $RUN 2>/dev/null || true
json_check "$OUT" 'len(r["entries"]) in (2, 3) and all(e["status"] == "ok" for e in r["entries"])'
# finished [N]: "tier/test started" of the first N entries (all without N).
# Python takes N itself: `| head -n N` under pipefail fails whenever head
# exits before python has written everything (SIGPIPE).
finished() {
    python3 - "$OUT/results.json" "$@" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
n = int(sys.argv[2]) if len(sys.argv) > 2 else None
for e in r["entries"][:n]:
    print(e["tier"] + "/" + e["test"] + " " + e["started"])
PY
}
finished >"$T/before.txt"

# The board was killed with its parent (no orphan holding the address).
pid=$(cat "$OUT/sim-vboard.pid")
for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
! kill -0 "$pid" 2>/dev/null || fail "vboard $pid outlived the killed run"

expect_rc 0 timeout 240 "$ESPBENCH" "${ARGS[@]}" --resume
done_before=$(wc -l <"$T/before.txt")
has "$((4 - done_before)) tests done, $done_before skipped, 0 failed of 4"
has "[1/4] sim esp32/iperf tcp_tx: done before, skipped"
json_check "$OUT" 'len(r["entries"]) == 4 and all(e["status"] == "ok" for e in r["entries"])'
# The finished tests were kept as they were.
finished "$done_before" >"$T/after.txt"
diff "$T/after.txt" "$T/before.txt" || fail "finished tests were redone"
# Everything done: a third --resume runs nothing.
expect_rc 0 timeout 240 "$ESPBENCH" "${ARGS[@]}" --resume
has "0 tests done, 4 skipped, 0 failed of 4"
# A resume that asks for another point of a dimension (the radio's, an iperf
# option's) would mix results: refused, each difference named, exit 2.
expect_rc 2 "$ESPBENCH" "${ARGS[@]}" --resume --power-save min-modem --len 512
has "espbench: --resume: $OUT was made by another request (--power-save: (none) then, min_modem now; --len: (none) then, 512 now); resume with the same options, or choose another --out"
echo ok
