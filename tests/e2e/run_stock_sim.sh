#!/usr/bin/env bash
# Stock firmware through the same run: a virtual board running Espressif's
# iperf example (ESP-IDF v5.3: iperf-cmd 0.1, "Mbits" of 2^20 bits) cannot
# switch tiers, so each tier's image is flashed from a manifest; the console
# is the stock REPL; the board shapes each test to the docs' figure, and its
# "Mbits" (2^20 bits) become decimal Mbit/s in the results.
source "$(dirname "$0")/lib/run_helpers.sh"

mkdir -p "$T/fw"
for tier in iperf minimum; do
    # The app version names the tier the image was built for (docs/vboard.md).
    "$VBOARD" mkimage --chip esp32 --project iperf --idf v5.3 --version "$tier" -o "$T/fw/$tier.bin" >/dev/null
done
python3 - "$T/fw" <<'PY'
import hashlib, json, sys
d = sys.argv[1]
def img(f):
    return {"offset": "0x10000", "file": f, "sha256": hashlib.sha256(open(d + "/" + f, "rb").read()).hexdigest()}
m = {"schema": 1, "firmware": {"iperf-example": {"chips": {"esp32": {"tiers": {
    t: {"images": [img(t + ".bin")]} for t in ("iperf", "minimum")}}}}}}
json.dump(m, open(d + "/manifest.json", "w"))
PY

OUT="$T/out"
expect_rc 0 timeout 240 "$ESPBENCH" run --chip esp32 --sim --sim-project iperf --sim-idf v5.3 \
    --manifest "$T/fw/manifest.json" --tier iperf,minimum --tests tcp_rx,udp_tx \
    --duration 2 --interval 1 --warmup 0 --out "$OUT"
has "speaks iperf-cmd-0.1"
has "flashing the iperf-example image for tier minimum"
has "4 tests done, 0 skipped, 0 failed of 4"
# The firmware is named whether or not the console saw its boot log (it may
# go by while the flasher still holds the port): `version` gives the IDF, the
# image just flashed its project and version (the last tier's).
json_check "$OUT" 'r["boards"][0]["dialect"] == "iperf-cmd-0.1" and r["boards"][0]["idf_version"] == "v5.3"'
json_check "$OUT" 'r["boards"][0]["fw_project"] == "iperf" and r["boards"][0]["fw_version"] == "minimum"'
shaped_check "$OUT"
json_check "$OUT" 'all(e["free_heap"] > 0 and e["min_free_heap"] > 0 for e in r["entries"])'
# The tier image the run flashed says which loader wrote it (no stub in the test environment: the ROM).
json_check "$OUT" 'all(e["provenance"]["flash_loader"] == "ROM" for e in r["entries"] if e["tier"] == "minimum")'
# The stock console takes the password on the command line: the log has it masked.
grep -q "^> sta_connect espbench-sim \*\*\*\*$" "$OUT/console-sim-esp32.log" || fail "masked connect line"
! grep -q "espbench-sim-wpa2" "$OUT/console-sim-esp32.log" || fail "password in the console log"
# The board's "Mbits" are 2^20 bits: each tcp_rx interval the board printed (the receiver's)
# is in the results times 1.048576, to the two decimals the board prints.
python3 - "$OUT/console-sim-esp32.log" "$OUT/results.json" <<'PY' || fail "stock interval lines"
import json, re, sys
board = [float(v) for v in re.findall(r"^ *1\.0- 2\.0 sec +([\d.]+) Mbits/sec", open(sys.argv[1], errors="replace").read(), re.M)]
assert board, "no ' 1.0- 2.0 sec ... Mbits/sec' line in the console log"
for e in json.load(open(sys.argv[2]))["entries"]:
    if e["test"] == "tcp_rx":
        got = [i["mbps"] for i in e["intervals"]["receiver"] if i["start_s"] == 1.0]
        assert got and any(abs(got[0] - b * 1.048576) <= 0.0051 * 1.048576 for b in board), (got, board)
PY

# A tier image that cannot be flashed (built for another chip) fails that
# board's tests with the flasher's reason; the console it closed is not used.
mkdir -p "$T/bad"
"$VBOARD" mkimage --chip esp32s3 --project iperf --idf v5.3 --version iperf -o "$T/bad/iperf.bin" >/dev/null
python3 - "$T/bad" <<'PY'
import hashlib, json, sys
d = sys.argv[1]
img = {"offset": "0x10000", "file": "iperf.bin", "sha256": hashlib.sha256(open(d + "/iperf.bin", "rb").read()).hexdigest()}
json.dump({"schema": 1, "firmware": {"iperf-example": {"chips": {"esp32": {"tiers": {"iperf": {"images": [img]}}}}}}},
          open(d + "/manifest.json", "w"))
PY
expect_rc 3 timeout 240 "$ESPBENCH" run --chip esp32 --sim --sim-project iperf --sim-idf v5.3 \
    --manifest "$T/bad/manifest.json" --tier iperf --tests tcp_rx --duration 2 --warmup 0 --out "$T/bad/out"
has "[1/1] sim esp32/iperf tcp_rx FAILED: $T/bad/iperf.bin: image is built for chip id 9, but the board is an ESP32"
! grep -q "runtime error" "$T/last.out" || { cat "$T/last.out" >&2; fail "sanitizer error"; }
json_check "$T/bad/out" '[e["status"] for e in r["entries"]] == ["failed"]'
echo ok
