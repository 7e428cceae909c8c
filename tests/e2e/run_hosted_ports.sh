#!/usr/bin/env bash
# An ESP-Hosted pair's two ports: the host image over --port, the
# co-processor's slave firmware over --coprocessor-port, each refused on a
# port with another chip. The second port is a virtual board in the ROM
# loader (an ESP32-C6, then an ESP32-C3).
source "$(dirname "$0")/lib/run_helpers.sh"

# vboard CHIP: a virtual board with no application on $T/CHIP.tty.
vboard() {
    "$VBOARD" --chip "$1" --link "$T/$1.tty" --flash "$T/$1-flash.bin" --no-baud-timing --no-flash-timing \
        --sync-resets >"$T/$1.out" 2>"$T/$1.err" &
    BG+=($!)
    for _ in $(seq 300); do [ -e "$T/$1.tty" ] && return; sleep 0.1; done
    fail "vboard $1 did not start"
}
vboard esp32c6
vboard esp32c3

# The right chip: the slave image is written, then the pair runs.
expect_rc 0 timeout 240 "$ESPBENCH" run --chip esp32p4 --coprocessor esp32c6 --sim --coprocessor-port "$T/esp32c6.tty" \
    --tier guide --tests raw_rx --duration 2 --out "$T/ok"
has "flashing the esp-hosted-slave image for the esp32c6 co-processor on $T/esp32c6.tty"
has "1 tests done, 0 skipped, 0 failed of 1"
python3 - "$T/esp32c6-flash.bin" "$T/ok/hosted-fw/esp32c6.bin" <<'PY' || fail "slave image not in the co-processor's flash"
import sys
flash, img = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
assert flash[0x10000:0x10000 + len(img)] == img
PY

# Another chip on the co-processor's port: refused before anything runs (exit 3).
expect_rc 3 timeout 240 "$ESPBENCH" run --chip esp32p4 --coprocessor esp32c6 --sim --coprocessor-port "$T/esp32c3.tty" \
    --tier guide --tests raw_rx --duration 2 --out "$T/cp-wrong"
has "espbench: --coprocessor-port $T/esp32c3.tty has an ESP32-C3, not the co-processor (--coprocessor esp32c6); check the port"
has "[1/1] sim esp32p4/guide raw_rx: not run: --coprocessor-port $T/esp32c3.tty has an ESP32-C3"
has "0 tests done, 0 skipped, 0 failed, 1 not run of 1"

# Another chip on the host's port: the host image is refused by the flasher.
"$VBOARD" mkimage --chip esp32c3 --project iperf --idf v5.5 -o "$T/c3app.bin" >/dev/null
expect_rc 0 timeout 240 "$ESPBENCH" flash --port "$T/esp32c3.tty" --chip esp32c3 --before no-reset "$T/c3app.bin@0x10000"
expect_rc 3 timeout 240 "$ESPBENCH" run --chip esp32p4 --coprocessor esp32c6 --port "$T/esp32c3.tty" --pc-address "$(loopback_ip)" \
    --ssid lab --tier guide --tests tcp_tx --duration 2 --manifest "$T/ok/hosted-fw/manifest.json" --out "$T/host-wrong"
has "FAILED: wrong chip: expected ESP32-P4 (--chip esp32p4) but $T/esp32c3.tty has an ESP32-C3"
! grep -q -e AddressSanitizer -e 'runtime error:' "$T/last.out" || fail "sanitizer report"
echo ok
