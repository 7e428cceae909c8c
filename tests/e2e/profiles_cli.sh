#!/usr/bin/env bash
# espbench profiles: list, show (table and JSON), unknown chip/tier, overlays, a broken profile dir.
set -euo pipefail
: "${ESPBENCH:?}" "${FIXTURES_DIR:?}"
unset ESPBENCH_PROFILES
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# list: every shipped chip, one line each (plus the header), then the ESP-Hosted pairs.
"$ESPBENCH" profiles list > "$tmp/list"
[ "$(sed '/^$/q' "$tmp/list" | grep -c .)" -eq 11 ] || fail "list: expected 11 chip lines"
for chip in esp32 esp32s2 esp32s3 esp32c2 esp32c3 esp32c5 esp32c6 esp32c61 esp32p4 esp8266; do
    grep -q "^$chip " "$tmp/list" || fail "list: no $chip"
done
grep -q '^esp8266 *ESP8266 *default, ampdu-off, cpu-80m, cache-off, all-off$' "$tmp/list" || fail "list: esp8266 tiers"

# show --json: the 7 esp32 tiers with the docs' figures.
"$ESPBENCH" profiles show esp32 --json > "$tmp/esp32.json"
python3 - "$tmp/esp32.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["chip"] == "esp32" and d["display"] == "ESP32", d["chip"]
assert d["magic"] == ["0x00F01D83"] and d["chip_id"] == 0 and d["bootloader_offset"] == 4096
plain = [t for t in d["tiers"] if not t["psram"]]
assert [t["name"] for t in plain] == ["iperf", "tx-prior", "high-performance", "rx-prior",
                                      "default", "memory-saving", "minimum"], [t["name"] for t in plain]
assert len(d["tiers"]) == 11
it = plain[0]
s = it["settings"]
assert (s["static_rx"], s["dynamic_rx"], s["dynamic_tx"]) == (16, 64, 64), s
assert s["rx_ba_win"] == 32 and s["tcp_snd_buf_kb"] == 65 and s["tcp_wnd_kb"] == 65, s
assert "static_tx" not in s
assert it["runtime"]["static_rx"] is True and it["runtime"]["tcp_wnd_kb"] is False
r = it["reference"]
assert r == {"avail_kb": 37.1, "tcp_tx_mbps": 74.6, "tcp_rx_mbps": 63.6,
             "udp_tx_mbps": 76.2, "udp_rx_mbps": 83.1}, r
mn = plain[6]
assert mn["settings"]["rx_ba_win"] == 0 and mn["label"] == "Minimum" and mn["label_zh"] == "最小"
PY

# One tier, JSON and table.
"$ESPBENCH" profiles show esp32s3 psram-quad-iperf --json > "$tmp/s3.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t=d["tiers"]; assert len(t)==1 and t[0]["reference"]["tcp_tx_mbps"]==93.1 and t[0]["psram"], t' "$tmp/s3.json"
"$ESPBENCH" profiles show esp32 minimum > "$tmp/min.txt"
grep -q '^WIFI_RX_BA_WIN  *Disable$' "$tmp/min.txt" || fail "table: Disable row"
grep -q '^TCP TX throughput (Mbit/s)  *25.6$' "$tmp/min.txt" || fail "table: TCP TX row"
"$ESPBENCH" profiles show esp32c61 --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["tiers"][0]["reference"]["avail_kb"] is None'
# Every reference row the profile holds: the C5's 5 GHz row (reference_5g) beside the default one,
# in JSON and in the table; a chip without one shows none.
"$ESPBENCH" profiles show esp32c5 iperf --json | python3 -c '
import json, sys
t = json.load(sys.stdin)["tiers"][0]
assert t["reference"] == {"avail_kb": None, "tcp_tx_mbps": 49, "tcp_rx_mbps": 59, "udp_tx_mbps": 63, "udp_rx_mbps": 68}, t
assert t["reference_5g"] == {"tcp_tx_mbps": 50, "tcp_rx_mbps": 61, "udp_tx_mbps": 64, "udp_rx_mbps": 71}, t' \
    || fail "esp32c5 --json: reference_5g"
"$ESPBENCH" profiles show esp32c5 iperf > "$tmp/c5.txt"
grep -q '^5 GHz UDP RX throughput (Mbit/s)  *71$' "$tmp/c5.txt" || fail "esp32c5 table: 5 GHz row: $(cat "$tmp/c5.txt")"
grep -q '^UDP RX throughput (Mbit/s)  *68$' "$tmp/c5.txt" || fail "esp32c5 table: default row"
"$ESPBENCH" profiles show esp32c3 --json | python3 -c 'import json,sys; assert "reference_5g" not in json.load(sys.stdin)["tiers"][0]' \
    || fail "esp32c3 --json: a 5 GHz row it does not have"
! "$ESPBENCH" profiles show esp32c3 | grep -q '5 GHz' || fail "esp32c3 table: a 5 GHz row it does not have"

# Unknown chip / tier: one line naming what exists, exit 2.
set +e
"$ESPBENCH" profiles show esp99 > /dev/null 2> "$tmp/err"; rc=$?
set -e
[ $rc -eq 2 ] || fail "unknown chip: exit $rc"
[ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "unknown chip: not one line"
grep -q "^espbench profiles: unknown chip 'esp99' (chips: esp32, esp32c2, " "$tmp/err" || fail "unknown chip: $(cat "$tmp/err")"
set +e
"$ESPBENCH" profiles show esp32c3 turbo > /dev/null 2> "$tmp/err"; rc=$?
set -e
[ $rc -eq 2 ] || fail "unknown tier: exit $rc"
grep -qx "espbench profiles: unknown tier 'turbo' for esp32c3 (tiers: iperf, default, minimum)" "$tmp/err" \
    || fail "unknown tier: $(cat "$tmp/err")"

# Overlays: --profiles and $ESPBENCH_PROFILES add tiers / replace chips.
"$ESPBENCH" --profiles "$FIXTURES_DIR/profiles/overlay" profiles show esp32 lab-wide --json \
    | python3 -c 'import json,sys; t=json.load(sys.stdin)["tiers"][0]; assert t["settings"]["rx_ba_win"]==40 and t["base"]=="iperf", t'
ESPBENCH_PROFILES="$FIXTURES_DIR/profiles/replace" "$ESPBENCH" profiles list | grep -q '^esp32c3 *ESP32-C3 (lab) *only$' \
    || fail "ESPBENCH_PROFILES overlay"

# A broken profile directory: one line with file:line:col, exit 2.
set +e
"$ESPBENCH" --profiles "$FIXTURES_DIR/profiles/broken" profiles list > "$tmp/out" 2> "$tmp/err"; rc=$?
set -e
[ $rc -eq 2 ] || fail "broken dir: exit $rc"
[ ! -s "$tmp/out" ] || fail "broken dir: printed a list"
[ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "broken dir: not one line: $(cat "$tmp/err")"
grep -q "^espbench: $FIXTURES_DIR/profiles/broken/esp32.yaml:8:18: tier 'broken': rx_ba_win = 16 exceeds" "$tmp/err" \
    || fail "broken dir: $(cat "$tmp/err")"
# ESP-Hosted pairs: listed with their transport; show gives the guide's table.
grep -q '^esp32p4-esp32c6-sdio *esp32p4 *esp32c6 *SDIO 4-bit 40 MHz, 2.4GHz *guide, default$' "$tmp/list" \
    || fail "list: C6 pair"
[ "$(grep -c '^esp32p4-esp32' "$tmp/list")" -eq 6 ] || fail "list: expected 6 pairs"
"$ESPBENCH" profiles show esp32p4-esp32c61-spi > "$tmp/pair"
grep -q '^Transport: SPI-FD 40 MHz, 2.4GHz (bus spi, 1 data line, 40 MHz)$' "$tmp/pair" || fail "pair transport"
grep -q '^| iPerf, UDP | Test PC to P4 |      23 |$' "$tmp/pair" || fail "pair: guide table row"
grep -q '^| Raw        | C61 to P4     |      26 |$' "$tmp/pair" || fail "pair: raw row"
"$ESPBENCH" profiles show esp32p4-esp32c6-sdio --predict > "$tmp/pairp"
grep -q '^| Raw        | C6 to P4      |       80 / 80.0 |       80 / 80.0 |$' "$tmp/pairp" || fail "pair --predict raw"
grep -q '^| iPerf, TCP | P4 to Test PC |       32 / [0-9.]* |        - / [0-9.]* |$' "$tmp/pairp" || fail "pair --predict tcp"
set +e
"$ESPBENCH" profiles show esp32p4-esp32c6-sdio guide > /dev/null 2> "$tmp/err"; rc=$?
set -e
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "pair with a tier: exit $rc"
# A chip with no published free heap (the ESP32-C5): the model's heap constants are its priors,
# not the chip's (the buffers took them to -64.2 KB), so predict and --predict show it unknown.
"$ESPBENCH" predict --chip esp32c5 --tier iperf > "$tmp/c5"
diff -u - "$tmp/c5" <<'OUT' || fail "predict esp32c5"
esp32c5 tier iperf: model 1 prediction, published conditions (PHY 150.0 Mbit/s, +0 ms RTT, 0 % loss)
TEST           Mbit/s  BOUND
TCP TX          48.99  window
TCP RX          58.99  window
UDP TX          63.00  cpu
UDP RX          68.00  cpu
Free heap     unknown  KB
unmodelled: tcp_mbox tcpip_mbox (no model term; not reflected in the figures)
OUT
"$ESPBENCH" predict --chip esp32c5 --tier iperf --json |
    python3 -c 'import json, sys; sys.exit(json.load(sys.stdin)["free_kb"] is not None)' || fail "predict esp32c5 --json: free_kb not null"
"$ESPBENCH" profiles show esp32c5 --predict | grep -q '^iperf  .*  - / -$' || fail "profiles show esp32c5 --predict: free heap not unknown"
# A chip with published free heaps keeps its figure.
"$ESPBENCH" predict --chip esp32c3 --tier iperf | grep -q '^Free heap  *[0-9][0-9.]*  KB$' || fail "predict esp32c3: no free heap"
echo "profiles_cli: ok"
