#!/usr/bin/env bash
# The tier model under `run --sim` (docs/model.md): custom esp32 tiers from a
# --profiles overlay (one between the published ranks, one below the minimum)
# run on the virtual board at the model's figures: each test shaped to what
# `espbench predict --as-built` prints (the espbench image runs every tier
# with its build-time settings); predictions are ordered lean <= middle <=
# iperf; entries say where their figures came from. How close the traffic
# comes to the figure is measured by the bench (simfigures section).
source "$(dirname "$0")/lib/run_helpers.sh"

OV="$FIXTURES_DIR/profiles/model-overlay"
OUT="$T/out"

# Predictions, as the vboard computes them.
for t in lean middle iperf; do
    expect_rc 0 "$ESPBENCH" --profiles "$OV" predict --chip esp32 --tier "$t" --as-built --json
    cp "$T/last.out" "$T/pred-$t.json"
done
python3 - "$T" <<'PY' || fail "predictions not ordered lean <= middle <= iperf"
import json, sys
p = {t: json.load(open(f"{sys.argv[1]}/pred-{t}.json")) for t in ("lean", "middle", "iperf")}
for k in ("tcp_tx", "tcp_rx", "udp_tx", "udp_rx"):
    a, b, c = (p[t][k + "_mbps"] for t in ("lean", "middle", "iperf"))
    assert a <= b <= c, (k, a, b, c)
PY

expect_rc 0 timeout 240 "$ESPBENCH" --profiles "$OV" run --chip esp32 --tier middle,lean --sim \
    --duration 2 --interval 1 --warmup 0 --out "$OUT"
has "8 tests done, 0 skipped, 0 failed of 8"
shaped_check "$OUT" "want=__import__('json').load(open('$T/pred-' + e['tier'] + '.json'))[e['test'] + '_mbps']" ||
    fail "simulated figures differ from the predictions"
python3 - "$T" "$OUT/results.json" <<'PY' || fail "figure sources or free heap differ from the predictions"
import json, sys
r = json.load(open(sys.argv[2]))
assert len(r["entries"]) == 8
for e in r["entries"]:
    p = json.load(open(f"{sys.argv[1]}/pred-{e['tier']}.json"))
    assert e["figure_source"] == "model 1", e.get("figure_source")
    # The board's free heap is the model's too.
    assert abs(e["free_heap"] / 1024 - p["free_kb"]) < 1, (e["free_heap"], p["free_kb"])
PY

# A published tier under published conditions replays the docs and says so;
# --sim-model and a link condition take the model.
OUT2="$T/out2"
expect_rc 0 timeout 240 "$ESPBENCH" run --chip esp32 --tier iperf --tests tcp_tx --sim \
    --duration 1 --interval 1 --warmup 0 --out "$OUT2"
json_check "$OUT2" 'r["entries"][0]["figure_source"] == "published"'
shaped_check "$OUT2" want=74.6
OUT3="$T/out3"
expect_rc 0 timeout 240 "$ESPBENCH" run --chip esp32 --tier iperf --tests tcp_tx --sim --sim-rtt 20 \
    --duration 1 --interval 1 --warmup 0 --out "$OUT3"
expect_rc 0 "$ESPBENCH" predict --chip esp32 --tier iperf --as-built --rtt 20 --json
want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tcp_tx_mbps"])' "$T/last.out")
json_check "$OUT3" "r['entries'][0]['figure_source'] == 'model 1'"
shaped_check "$OUT3" "want=$want"

# Bad input: one line, exit 2.
expect_rc 2 "$ESPBENCH" predict --chip esp32 --tier iperf --rssi 5
has "rssi 5 dBm is outside -100..-10 dBm"
expect_rc 2 "$ESPBENCH" predict --chip esp32 --set bogus=1
has "unknown setting 'bogus'"
expect_rc 2 "$ESPBENCH" predict --chip esp32 --set static_rx=4 --set dynamic_rx=8 --set rx_ba_win=16
has "fails validation"
expect_rc 2 "$ESPBENCH" run --chip esp32 --sim --sim-loss 80 --out "$T/x"
has "loss 80 % is outside 0..50 %"
echo ok
