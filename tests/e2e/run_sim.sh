#!/usr/bin/env bash
# `espbench run --sim` end to end: a virtual esp32 is started, flashed with the
# espbench firmware and measured through the hardware code path. Every test
# ends with a figure, and the vboard shaped it to the docs' value (how close
# the traffic comes to that on a busy machine is the bench's fidelity section).
# Two tiers at short durations keep this under the suite's budget; the full
# `--tier all --duration 10` run is the README demo.
source "$(dirname "$0")/lib/run_helpers.sh"

OUT="$T/out"
expect_rc 0 timeout 240 "$ESPBENCH" run --chip esp32 --tier iperf,minimum --sim \
    --duration 2 --interval 1 --warmup 0 --out "$OUT"
has "sim: esp32 on "
has "speaks espbench"
has "8 tests done, 0 skipped, 0 failed of 8"
has "peak 1-s"

# 2 tiers x 4 tests, each shaped to the docs' figure, with both sides'
# intervals, free memory, UDP TX loss (the PC's server numbers the board's datagrams; the
# firmware's UDP server counts bytes only, so UDP RX has none), and the run metadata.
json_check "$OUT" 'len(r["entries"]) == 8'
shaped_check "$OUT"
json_check "$OUT" 'all(len(e["intervals"]["receiver"]) >= 2 and len(e["intervals"]["sender"]) >= 2 for e in r["entries"])'
json_check "$OUT" 'all(e["free_heap"] > 0 and e["min_free_heap"] > 0 for e in r["entries"])'
json_check "$OUT" 'all((e["loss_pct"] is not None) == (e["test"] == "udp_tx") for e in r["entries"])'
json_check "$OUT" '[e["tier"] + "/" + e["test"] for e in r["entries"]][:4] == ["iperf/tcp_tx", "iperf/tcp_rx", "iperf/udp_tx", "iperf/udp_rx"]'
json_check "$OUT" 'r["boards"][0]["dialect"] == "espbench" and r["boards"][0]["fw_project"] == "espbench"'
json_check "$OUT" 'r["boards"][0]["ap_ssid"] == "espbench-sim" and r["boards"][0]["rssi"] == -40'
json_check "$OUT" 'r["boards"][0]["iperf_version"].startswith("iperf version 2.")'
# The board's MAC, as the firmware's `version` reply gives it (the vboard's eFuse MAC).
json_check "$OUT" '__import__("re").fullmatch("([0-9a-f]{2}:){5}[0-9a-f]{2}", r["boards"][0]["mac"])'
# One image serves every tier: the minimum tier's lwIP buffers (8 KB) are build-time, the image
# has the largest (65 KB), and the run says so; the iperf tier runs as given.
has "tier minimum: the firmware's build-time settings differ: tcp_snd_buf_kb=65 (tier 8), tcp_wnd_kb=65 (tier 8)"
json_check "$OUT" 'all(e.get("tier_note", "") == ("" if e["tier"] == "iperf" else "tcp_snd_buf_kb=65 (tier 8), tcp_wnd_kb=65 (tier 8)") for e in r["entries"])'
sha=$(sha256sum "$OUT/sim-espbench-esp32.bin" | cut -d' ' -f1)
json_check "$OUT" "r['boards'][0]['fw_sha256'] == '$sha'"

# CSV: a header and one row per chip x tier x test.
[ "$(wc -l <"$OUT/results.csv")" -eq 9 ] || { cat "$OUT/results.csv"; fail "results.csv rows"; }
# Raw logs: the console transcript and one PC iperf log per test.
grep -q "^#EB:EV iperf.interval" "$OUT/console-sim-esp32.log" || fail "console log lacks board intervals"
[ "$(ls "$OUT"/iperf-sim-esp32-*.log | wc -l)" -eq 8 ] || fail "iperf logs"
grep -q "^\$ iperf -s -u -B 127\." "$OUT/iperf-sim-esp32-iperf-udp_tx-r0.log" || fail "PC server command line"
grep -q "^\$ iperf -c 127\..* -u -b 100m -t 2 -i 1 -f b" "$OUT/iperf-sim-esp32-iperf-udp_rx-r0.log" ||
    { head -1 "$OUT/iperf-sim-esp32-iperf-udp_rx-r0.log"; fail "PC client command line (udp rx rate: the esp32 profile's udp_rx_rate_mbps, 100)"; }
# The simulated AP's password never reaches a log or the results.
! grep -rq "espbench-sim-wpa2" "$OUT" "$T/last.out" || fail "password leaked"
# The virtual board was stopped.
pid=$(cat "$OUT/sim-vboard.pid")
! kill -0 "$pid" 2>/dev/null || fail "vboard $pid still running"

# A second run into the same directory is refused unless --resume.
expect_rc 2 "$ESPBENCH" run --chip esp32 --tier iperf --sim --out "$OUT"
has "results.json exists: pass --resume to continue that run, or choose another --out"
echo ok
