#!/usr/bin/env bash
# An ESP-Hosted pair under --sim: the virtual board is an ESP32-P4 running the
# stock iperf example (iperf-cmd-0.1) with an ESP32-C6 co-processor over SDIO;
# the run flashes each tier's image and the raw-throughput images, measures
# the raw transport both ways and the four iperf tests, and records the
# co-processor and the transport in every entry.
source "$(dirname "$0")/lib/run_helpers.sh"

# An SPI co-processor runs alongside (its own virtual board and loopback addresses).
"$ESPBENCH" run --chip esp32p4 --coprocessor esp32c3 --sim --tier guide --duration 2 --interval 1 --warmup 0 \
    --out "$T/c3" >"$T/c3.out" 2>&1 &
C3=$!
OUT="$T/c6"
expect_rc 0 timeout 240 "$ESPBENCH" run --chip esp32p4 --coprocessor esp32c6 --transport sdio --sim --tier guide \
    --duration 2 --interval 1 --warmup 0 --out "$OUT"
has "speaks iperf-cmd-0.1"
has "flashing the esp-hosted-raw-tp image for raw_tx"
has "flashing the iperf-example image for tier guide"
has "6 tests done, 0 skipped, 0 failed of 6"
json_check "$OUT" 'sorted(e["test"] for e in r["entries"]) == ["raw_rx", "raw_tx", "tcp_rx", "tcp_tx", "udp_rx", "udp_tx"]'
json_check "$OUT" 'all(e["provenance"]["coprocessor"] == "esp32c6" and e["provenance"]["transport"] == "sdio"
                      and e["provenance"]["transport_width"] == 4 and e["provenance"]["transport_clock_mhz"] == 40
                      for e in r["entries"])'
# The transport runs at its published raw rate (the host's report: kbit of 1024 bits).
json_check "$OUT" '({e["test"]: round(e["mean_mbps"], 3) for e in r["entries"] if e["test"][:3] == "raw"} ==
                   {"raw_tx": 72.0, "raw_rx": 80.0})'
json_check "$OUT" 'all(e["figure_source"] == ("published" if e["test"][:3] == "raw" else "model 1") for e in r["entries"])'
# The iperf figures are the pair model's, not the guide's table: under the
# transport's payload rate, and not equal to the published figure.
shaped_check "$OUT" 'ok=0 < v < 80 * 1470 / 1512 and abs(v - e["ref_mbps"]) > 0.05'
grep -q "^I ([0-9]*) stats: 0-1 sec Tx:70312.50 Rx:0.00 kbps" "$OUT/console-sim-esp32p4.log" || fail "raw report lines"
json_check "$OUT" 'r["boards"][0]["dialect"] == "iperf-cmd-0.1"'
! grep -q -e AddressSanitizer -e 'runtime error:' "$T/last.out" || fail "sanitizer report"
# parse of the run's own console log gives the run's raw figures.
expect_rc 0 "$ESPBENCH" parse --warmup 0 "$OUT/console-sim-esp32p4.log" -o "$T/parsed.json"
python3 - "$OUT/results.json" "$T/parsed.json" <<'PY' || fail "parse of the console log"
import json, sys
run, parsed = (json.load(open(f))["entries"] for f in sys.argv[1:])
fig = lambda es: {e["test"]: round(e["mean_mbps"], 6) for e in es if e["test"][:3] == "raw"}
assert fig(run) == fig(parsed) and len(fig(run)) == 2, (fig(run), fig(parsed))
PY

# The performance guide's table, from the measured entries: its rows in its
# order, the raw rows at the transport's rate, the iperf rows the model's.
expect_rc 0 "$ESPBENCH" report --format md "$OUT"
has "## ESP32-P4 + ESP32-C6 as co-processor, tier guide"
has "Using SDIO Transport, 4-bits, running at 40MHz."
grep '^|' "$T/last.out" | cut -d'|' -f2,3 >"$T/rows"
diff - "$T/rows" <<'ROWS' || fail "guide table rows"
 Type       | Direction     
------------|---------------
 Raw        | P4 to C6      
 Raw        | C6 to P4      
 iPerf, TCP | P4 to Test PC 
 iPerf, UDP | P4 to Test PC 
 iPerf, TCP | Test PC to P4 
 iPerf, UDP | Test PC to P4 
ROWS
has "| Raw        | P4 to C6      |      72 |"
has "| Raw        | C6 to P4      |      80 |"
tcp_tx=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); v=[e["mean_mbps"] for e in r["entries"] if e["test"] == "tcp_tx"][0]
print("%.0f" % v if abs(v - round(v)) < 0.05 else "%.1f" % v)' "$OUT/results.json")
has "| iPerf, TCP | P4 to Test PC | $(printf '%7s' "$tcp_tx") |"
! grep -q "^## ESP32-P4$" "$T/last.out" || fail "a pair's chip also got the single-board tables"

# The same table in RST and HTML.
expect_rc 0 "$ESPBENCH" report --format rst "$OUT"
has ".. list-table:: ESP32-P4 + ESP32-C6 as co-processor, tier guide"
tr -d '\n' <"$T/last.out" | grep -q -- '   \* - Raw     - P4 to C6     - 72' || fail "RST guide table row"
expect_rc 0 "$ESPBENCH" report --format html "$OUT"
has "<h2>ESP32-P4 + ESP32-C6 as co-processor, tier guide</h2>"
has "Using SDIO Transport, 4-bits, running at 40MHz."

# compare keeps the transport's cells beside the iperf ones.
expect_rc 0 "$ESPBENCH" compare "$OUT" "$OUT"
grep -q "^esp32p4 *guide *raw_tx *72.00 *72.00 " "$T/last.out" || { cat "$T/last.out" >&2; fail "compare raw_tx"; }

# The SPI co-processor: the same layout with the guide's figures beside.
wait "$C3" || { cat "$T/c3.out" >&2; fail "esp32c3 pair run"; }
grep -qF "6 tests done, 0 skipped, 0 failed of 6" "$T/c3.out" || { cat "$T/c3.out" >&2; fail "esp32c3 pair run"; }
expect_rc 0 "$ESPBENCH" report --format md --vs-docs "$T/c3"
has "## ESP32-P4 + ESP32-C3 as co-processor, tier guide"
has "Using SPI-FD Transport, running at 40MHz."
has "| Type       | Direction     | MBits/s | Guide MBits/s | Diff % |"
has "| Raw        | P4 to C3      |      26 |            26 |    0.0 |"
grep -q "^| iPerf, UDP | Test PC to P4 | *[0-9.]* | *20 | *[-+][0-9.]* |$" "$T/last.out" || fail "C3 UDP RX row"
json_check "$T/c3" 'all(e["provenance"]["transport"] == "spi" and e["provenance"]["transport_width"] == 1
                       for e in r["entries"])'
echo ok
