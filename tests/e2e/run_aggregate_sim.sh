#!/usr/bin/env bash
# run --aggregate: the lab's boards start each test together into one AP.
# Three virtual ESP32-C3s share the simulated AP's medium (the model's
# 802.11 DCF share: uplink contended, downlink split), so each is shaped to
# less than one board alone while their sum is more; every entry records how
# many started together, and the report sums them. (How close the traffic
# comes to those figures on a busy machine is the bench's to measure.)
source "$(dirname "$0")/lib/run_helpers.sh"
export ESPBENCH_WIFI_PASSWORD=espbench-sim-wpa2   # the virtual AP's password (docs/run.md)
LAB="$FIXTURES_DIR/lab/three-c3-sims.yaml"

OUT="$T/agg"
expect_rc 0 timeout 240 "$ESPBENCH" run --lab "$LAB" --sim --aggregate --tier iperf --tests tcp_tx,udp_rx \
    --duration 3 --interval 1 --warmup 1 --out "$OUT"
has "6 tests done, 0 skipped, 0 failed of 6"
json_check "$OUT" 'len(r["entries"]) == 6 and all(e["provenance"]["concurrent_boards"] == 3 for e in r["entries"])'
# Started together: the same test ran on the three boards at once (each started before any
# other's 3 s were over).
json_check "$OUT" '
all(max(ts) - min(ts) < 3 for ts in [
    [int(e["started"][11:13]) * 3600 + int(e["started"][14:16]) * 60 + int(e["started"][17:19])
     for e in r["entries"] if e["test"] == t] for t in ("tcp_tx", "udp_rx")])'
# Sharing the medium: each board shaped below one alone (the docs figure the vboard
# gives a lone C3 on the published bench), the three together above it.
shaped_check "$OUT" 'ok=v < 0.9 * e["ref_mbps"]'
python3 - "$OUT" <<'PY' || fail "the three boards' TCP TX figures do not sum above one board's (38.1)"
import glob, re, sys
v = [float(x) for f in glob.glob(sys.argv[1] + "/*-vboard.log")
     for x in re.findall(r"^vboard: iperf tcp_tx shaped to (\S+) Mbit/s$", open(f).read(), re.M)]
assert len(v) == 3 and 38.1 < sum(v) < 3 * 38.1, v
PY
json_check "$OUT" 'all(e["figure_source"].startswith("model") for e in r["entries"])'
python3 "$SOURCE_DIR/tests/e2e/report_schema_check.py" "$SOURCE_DIR/docs/results-schema.json" "$OUT/results.json"
"$ESPBENCH" report "$OUT/results.json" --format md >"$T/report.md"
grep -q "^## Boards together" "$T/report.md" || fail "report lacks the aggregate table"
grep -Eq '^\|iperf\|TCP TX\|1\|[0-9.]+\|[0-9.]+\|[0-9.]+\|3\|[0-9.]+\|38\.1 \(docs\)\|[0-9]+\.[0-9]{2}\|$' "$T/report.md" ||
    { cat "$T/report.md"; fail "aggregate row"; }

# --resume redoes a test on every board unless all finished it: here all did.
expect_rc 0 timeout 240 "$ESPBENCH" run --lab "$LAB" --sim --aggregate --tier iperf --tests tcp_tx,udp_rx \
    --duration 3 --interval 1 --warmup 1 --out "$OUT" --resume
has "0 tests done, 6 skipped"

# Bad input: one board, or boards whose plans differ: one line, exit 2.
expect_rc 2 timeout 240 "$ESPBENCH" run --chip esp32 --sim --aggregate --tests tcp_tx --duration 2 --out "$T/one"
has "--aggregate needs two or more boards: give a lab file (--lab) with them"
expect_rc 2 timeout 240 "$ESPBENCH" run --lab "$FIXTURES_DIR/lab/two-sims.yaml" --sim --aggregate --tests tcp_tx \
    --duration 2 --out "$T/differ"
has "--aggregate needs the same tests on every board: bench-esp32 has"
echo "PASS"
