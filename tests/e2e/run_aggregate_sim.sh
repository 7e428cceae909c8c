#!/usr/bin/env bash
# run --aggregate: the lab's boards start each test together into one AP.
# Three virtual ESP32-C3s share the simulated AP's medium (the model's
# 802.11 DCF share: uplink contended, downlink split), so each carries less
# than one board alone while their sum carries more; every entry records how
# many started together, and the report sums them.
source "$(dirname "$0")/lib/run_helpers.sh"
export ESPBENCH_WIFI_PASSWORD=espbench-sim-wpa2   # the virtual AP's password (docs/run.md)
LAB="$FIXTURES_DIR/lab/three-c3-sims.yaml"

OUT="$T/agg"
expect_rc 0 timeout 90 "$ESPBENCH" run --lab "$LAB" --sim --aggregate --tier iperf --tests tcp_tx,udp_rx \
    --duration 3 --interval 1 --warmup 1 --out "$OUT"
has "6 tests done, 0 skipped, 0 failed of 6"
json_check "$OUT" 'len(r["entries"]) == 6 and all(e["provenance"]["concurrent_boards"] == 3 for e in r["entries"])'
# Started together: the same test's start times on the three boards within 2 s.
json_check "$OUT" '
all(max(ts) - min(ts) <= 2 for ts in [
    [int(e["started"][11:13]) * 3600 + int(e["started"][14:16]) * 60 + int(e["started"][17:19])
     for e in r["entries"] if e["test"] == t] for t in ("tcp_tx", "udp_rx")])'
# Sharing the medium: each board below one alone (the docs figure the vboard
# gives a lone C3 on the published bench), the three together above it.
json_check "$OUT" 'all(e["mean_mbps"] < 0.9 * e["ref_mbps"] for e in r["entries"])'
json_check "$OUT" 'all(1.0 < sum(e["mean_mbps"] for e in r["entries"] if e["test"] == t) / 38.1 < 3.0 for t in ["tcp_tx"])'
json_check "$OUT" 'all(e["figure_source"].startswith("model") for e in r["entries"])'
python3 "$SOURCE_DIR/tests/e2e/report_schema_check.py" "$SOURCE_DIR/docs/results-schema.json" "$OUT/results.json"
"$ESPBENCH" report "$OUT/results.json" --format md >"$T/report.md"
grep -q "^## Boards together" "$T/report.md" || fail "report lacks the aggregate table"
grep -Eq '^\|iperf\|TCP TX\|1\|[0-9.]+\|[0-9.]+\|[0-9.]+\|3\|[0-9.]+\|38\.1 \(docs\)\|[12]\.[0-9]{2}\|$' "$T/report.md" ||
    { cat "$T/report.md"; fail "aggregate row"; }

# --resume redoes a test on every board unless all finished it: here all did.
expect_rc 0 timeout 90 "$ESPBENCH" run --lab "$LAB" --sim --aggregate --tier iperf --tests tcp_tx,udp_rx \
    --duration 3 --interval 1 --warmup 1 --out "$OUT" --resume
has "0 tests done, 6 skipped"

# Bad input: one board, or boards whose plans differ: one line, exit 2.
expect_rc 2 timeout 60 "$ESPBENCH" run --chip esp32 --sim --aggregate --tests tcp_tx --duration 2 --out "$T/one"
has "--aggregate needs two or more boards: give a lab file (--lab) with them"
expect_rc 2 timeout 60 "$ESPBENCH" run --lab "$FIXTURES_DIR/lab/two-sims.yaml" --sim --aggregate --tests tcp_tx \
    --duration 2 --out "$T/differ"
has "--aggregate needs the same tests on every board: bench-esp32 has"
echo "PASS"
