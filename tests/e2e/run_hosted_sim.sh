#!/usr/bin/env bash
# An ESP-Hosted pair under --sim: the virtual board is an ESP32-P4 running the
# stock iperf example (iperf-cmd-0.1) with an ESP32-C6 co-processor over SDIO;
# the run flashes each tier's image and the raw-throughput images, measures
# the raw transport both ways and the four iperf tests, and records the
# co-processor and the transport in every entry.
source "$(dirname "$0")/lib/run_helpers.sh"

OUT="$T/c6"
expect_rc 0 timeout 60 "$ESPBENCH" run --chip esp32p4 --coprocessor esp32c6 --transport sdio --sim --tier guide \
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
json_check "$OUT" 'all(0 < e["mean_mbps"] < 80 * 1470 / 1512 and abs(e["mean_mbps"] - e["ref_mbps"]) > 0.05
                      for e in r["entries"] if e["test"][:3] != "raw")'
grep -q "^I ([0-9]*) stats: 0-1 sec Tx:70312.50 Rx:0.00 kbps" "$OUT/console-sim.log" || fail "raw report lines"
json_check "$OUT" 'r["boards"][0]["dialect"] == "iperf-cmd-0.1"'
echo ok
