#!/usr/bin/env bash
# compare keys its cells by their point in the dimension table: a run of both
# bands compared with itself has a 2.4 GHz and a 5 GHz cell per test (each
# against its own band), and a 2.4 GHz-only baseline leaves the 5 GHz cells
# new, never averaged into the 2.4 GHz ones. Structure only, no figure.
source "$(dirname "$0")/lib/run_helpers.sh"

OUT="$T/both"
expect_rc 0 timeout 150 "$ESPBENCH" run --chip esp32c5 --sim --band 2.4,5 --tests tcp_rx --duration 1 --interval 0.5 \
    --warmup 0 --out "$OUT"
json_check "$OUT" 'sorted(e["provenance"].get("radio_band", "") for e in r["entries"]) == ["", "5"]'
expect_rc 0 "$ESPBENCH" compare "$OUT/results.json" "$OUT/results.json"
grep -Eq '^esp32c5 +iperf +tcp_rx .* ok$' "$T/last.out" || { cat "$T/last.out"; fail "no 2.4 GHz cell"; }
grep -Eq '^esp32c5 +iperf band=5 +tcp_rx .* ok$' "$T/last.out" || { cat "$T/last.out"; fail "no 5 GHz cell"; }
has "0 of 2 cells failed"

# A baseline of 2.4 GHz only: the 5 GHz cell is new (no baseline of its band).
python3 - "$OUT/results.json" "$T/base.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["entries"] = [e for e in r["entries"] if not e["provenance"].get("radio_band")]
json.dump(r, open(sys.argv[2], "w"))
PY
expect_rc 0 "$ESPBENCH" compare "$T/base.json" "$OUT/results.json"
grep -Eq '^esp32c5 +iperf band=5 +tcp_rx .* new$' "$T/last.out" || { cat "$T/last.out"; fail "5 GHz cell not new"; }
# A 2.4 GHz baseline against a 5 GHz-only run: no cell in common, and the
# message names the band with each side's values and how to compare across it.
python3 - "$OUT/results.json" "$T/only5.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["entries"] = [e for e in r["entries"] if e["provenance"].get("radio_band") == "5"]
json.dump(r, open(sys.argv[2], "w"))
PY
expect_rc 2 "$ESPBENCH" compare "$T/base.json" "$T/only5.json"
[ "$(cat "$T/last.out")" = "espbench: the inputs share no chip x tier x test cell at the same point: they differ in band (baseline: band=2.4 (default); current: band=5); to compare them across it, pass --ignore band (each cell then averages over its values)" ] \
    || fail "no-common message: $(cat "$T/last.out")"
# ... and with --ignore band the two bands' cells compare, labelled without the band.
expect_rc 0 "$ESPBENCH" compare "$T/base.json" "$T/only5.json" --ignore band --max-drop 100%
grep -Eq '^esp32c5 +iperf +tcp_rx .* ok$' "$T/last.out" || { cat "$T/last.out"; fail "--ignore band: no cell"; }
has "left out of the key (--ignore): band; each cell averages over their values"
expect_rc 2 "$ESPBENCH" compare "$T/base.json" "$T/only5.json" --ignore tier
grep -qx "espbench compare: --ignore 'tier': not a dimension a cell is keyed by (pair tiers with --tier-map A=B); one of: udp-rate, tx-power, rssi, loss, rtt, attenuation, channel, bandwidth, band, radio-bandwidth, phy, power-save, coex, len.*; see 'espbench help compare'" "$T/last.out" \
    || fail "--ignore tier: $(cat "$T/last.out")"
echo "PASS"
