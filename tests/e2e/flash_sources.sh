#!/usr/bin/env bash
# Image sources other than IMAGE@OFFSET: an ESP-IDF build directory
# (flasher_args.json; its chip is enforced) and a firmware manifest with a
# per-tier stock build (ESP8266).
source "$(dirname "$0")/lib/flash_helpers.sh"

mkdir -p "$T/build/bootloader" "$T/build/partition_table"
mkimage esp32c6 "$T/build/bootloader/bootloader.bin" 20000 bootloader
mkimage esp32c6 "$T/build/demo.bin" 90000 demo
printf '\xaa\x50partition table bytes' >"$T/build/partition_table/partition-table.bin"
cat >"$T/build/flasher_args.json" <<'JSON'
{
    "write_flash_args" : [ "--flash_mode", "dio", "--flash_size", "2MB", "--flash_freq", "80m" ],
    "flash_files" : {
        "0x0" : "bootloader/bootloader.bin",
        "0x10000" : "demo.bin",
        "0x8000" : "partition_table/partition-table.bin"
    },
    "extra_esptool_args" : { "after" : "hard_reset", "before" : "default_reset", "stub" : true, "chip" : "esp32c6" }
}
JSON
start_vboard c6 esp32c6 --no-baud-timing
timeout 240 "$ESPBENCH" flash --port "$T/c6.tty" --build-dir "$T" >"$T/out" 2>"$T/err" ||
    { cat "$T/out" "$T/err"; fail "--build-dir (parent of build/)"; }
grep -q "flashed 3 regions (3 written, 0 unchanged)" "$T/out" || { cat "$T/out"; fail "build dir summary"; }
flash_matches "$T/c6.flash" 0 "$T/build/bootloader/bootloader.bin"
flash_matches "$T/c6.flash" $((0x8000)) "$T/build/partition_table/partition-table.bin"
flash_matches "$T/c6.flash" $((0x10000)) "$T/build/demo.bin"

# The build names its chip: another board is refused before anything is written.
start_vboard c3 esp32c3 --no-baud-timing
expect_fail 3 "wrong chip: expected ESP32-C6 (--chip esp32c6) but $T/c3.tty has an ESP32-C3" \
    "$ESPBENCH" flash --port "$T/c3.tty" --build-dir "$T/build"

# Manifest: stock ESP8266 firmware built per tier.
mkdir -p "$T/fw"
mkimage esp8266 "$T/fw/default.bin" 50000 default
mkimage esp8266 "$T/fw/iperf.bin" 50000 iperf
cat >"$T/fw/manifest.json" <<JSON
{"schema": 1, "firmware": {"iperf-example": {"chips": {"esp8266": {"tiers": {
  "default": {"images": [{"offset": "0x0", "file": "default.bin", "sha256": "$(sha256sum "$T/fw/default.bin" | cut -d' ' -f1)"}]},
  "iperf": {"images": [{"offset": "0x0", "file": "iperf.bin", "sha256": "$(sha256sum "$T/fw/iperf.bin" | cut -d' ' -f1)"}]}
}}}}}}
JSON
start_vboard e esp8266 --no-baud-timing
expect_fail 2 "firmware 'iperf-example' for esp8266 is built per tier; choose one with --tier (default, iperf)" \
    "$ESPBENCH" flash --port "$T/e.tty" --manifest "$T/fw/manifest.json" --firmware iperf-example
timeout 240 "$ESPBENCH" flash --port "$T/e.tty" --manifest "$T/fw/manifest.json" --firmware iperf-example --tier iperf \
    >"$T/out" 2>"$T/err" || { cat "$T/out" "$T/err"; fail "esp8266 tier build"; }
flash_matches "$T/e.flash" 0 "$T/fw/iperf.bin"
expect_fail 2 "give exactly one of IMAGE@OFFSET..., --build-dir DIR or --firmware NAME" \
    "$ESPBENCH" flash --port "$T/e.tty" --firmware x --build-dir "$T/build"
echo ok
