#!/usr/bin/env bash
# One rule for an entry's figures: `espbench parse` of the logs a `run --sim`
# wrote (the console transcript and the PC's iperf2 logs) gives the same
# steady mean, peak 1-s, UDP loss and jitter, and both sides' statistics, as
# the run itself (eb_entry_figures, src/lib/formats/stats.c).
source "$(dirname "$0")/lib/run_helpers.sh"

OUT="$T/out"
expect_rc 0 timeout 240 "$ESPBENCH" run --chip esp32 --tier iperf --sim --duration 3 --interval 1 \
    --warmup 1 --out "$OUT"
has "4 tests done, 0 skipped, 0 failed of 4"
# The sim's own pty has no modem lines by design: no DTR/RTS warning about it (make demo).
! grep -q "DTR/RTS" "$T/last.out" || { cat "$T/last.out"; fail "a DTR/RTS warning about the vboard's pty"; }
cd "$OUT"
expect_rc 0 "$ESPBENCH" parse --warmup 1 console-sim-esp32.log iperf-sim-esp32-iperf-tcp_tx-r0.log \
    iperf-sim-esp32-iperf-tcp_rx-r0.log iperf-sim-esp32-iperf-udp_tx-r0.log iperf-sim-esp32-iperf-udp_rx-r0.log -o "$T/parsed.json"
python3 - "$OUT/results.json" "$T/parsed.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["entries"]
parsed = json.load(open(sys.argv[2]))["entries"]
assert len(run) == 4 and len(parsed) == 4, (len(run), len(parsed))
keys = ["mean_mbps", "peak_mbps", "loss_pct", "interval_loss_pct", "jitter_ms"]
for a in run:
    b = [x for x in parsed if x["test"] == a["test"]]
    assert len(b) == 1, a["test"]
    b = b[0]
    for k in keys:
        assert a.get(k) == b.get(k), (a["test"], k, a.get(k), b.get(k))
    for side in ("rx_stats", "tx_stats"):
        if side in a or side in b:
            assert a.get(side) == b.get(side), (a["test"], side, a.get(side), b.get(side))
    assert a["intervals"] == b["intervals"], a["test"]
print("run and parse agree on", len(run), "entries")
PY
