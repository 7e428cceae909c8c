#!/usr/bin/env bash
# Board to board under --sim, the other ways in: a peer that reboots mid-test
# (retried like any board), a lab board's peer named and tiered in the lab
# file, and two boards running Espressif's stock iperf example (each tier an
# image of its own, flashed on each side). The main path is run_pair_sim.sh.
source "$(dirname "$0")/lib/run_helpers.sh"

# The peer reboots mid-test (its own test is the server's side of tcp_tx, tcp_rx to the vboard):
# seen on its console, classified as a reboot, both boards set up again, the test retried.
# No iperf2 on the PC either: board to board does without it.
ESPBENCH_IPERF=/nonexistent/iperf expect_rc 0 timeout 240 "$ESPBENCH" run --sim --chip esp32 --peer-chip esp32c3 \
    --tier iperf --tests tcp_tx --duration 3 --interval 1 --warmup 1 --sim-fault reboot@tcp_rx --out "$T/reboot"
has "sim-peer: the board rebooted during tcp_tx"
has "retrying (1 of 2)"
has "1 tests done, 0 skipped, 0 failed of 1"
grep -q "Guru Meditation Error" "$T/reboot/console-sim-peer-esp32c3.log" || fail "the peer's panic is not in its console log"

# A lab board's peer: the same, named and tiered in the lab file (a C6 on its default tier).
ESPBENCH_WIFI_PASSWORD=espbench-sim-wpa2 expect_rc 0 timeout 240 "$ESPBENCH" run --lab "$FIXTURES_DIR/lab/pair-sims.yaml" \
    --sim --tier iperf --tests udp_rx --duration 3 --interval 1 --warmup 1 --out "$T/lab"
has "board to board with c6-b (esp32c6/default)"
json_check "$T/lab" '(len(r["entries"]) == 1 and r["entries"][0]["provenance"]["peer_board"] == "c6-b" and
                      r["entries"][0]["provenance"]["peer_tier"] == "default" and r["entries"][0]["board"] == "s3-a")'
[ -s "$T/lab/console-c6-b-esp32c6.log" ] || fail "no console log of the lab peer"

# Stock firmware on both sides (ESP-IDF v5.1's example): each board gets its chip's image of the
# tier from the manifest over its own port, each console speaks the stock dialect.
mkdir -p "$T/fw"
for c in esp32s3 esp32c6; do
    "$VBOARD" mkimage --chip "$c" --project iperf --idf v5.1 --version default -o "$T/fw/$c.bin" >/dev/null
done
python3 - "$T/fw" <<'PY'
import hashlib, json, sys
d = sys.argv[1]
def img(c):
    return {"offset": "0x10000", "file": c + ".bin", "sha256": hashlib.sha256(open(d + "/" + c + ".bin", "rb").read()).hexdigest()}
json.dump({"schema": 1, "firmware": {"iperf-example": {"chips": {
    c: {"tiers": {"default": {"images": [img(c)]}}} for c in ("esp32s3", "esp32c6")}}}}, open(d + "/manifest.json", "w"))
PY
expect_rc 0 timeout 240 "$ESPBENCH" run --sim --sim-project iperf --sim-idf v5.1 --manifest "$T/fw/manifest.json" \
    --chip esp32s3 --peer-chip esp32c6 --tier default --tests udp_tx --duration 3 --interval 1 --warmup 1 \
    --out "$T/stock"
has "sim-peer: esp32c6 on"
has "sim-peer: flashing the iperf-example image for tier default"
has "1 tests done, 0 skipped, 0 failed of 1"
json_check "$T/stock" '(r["entries"][0]["provenance"]["peer_dialect"] == "idf-v5.1" and
                        sorted(b["dialect"] for b in r["boards"]) == ["idf-v5.1", "idf-v5.1"])'
echo "PASS"
