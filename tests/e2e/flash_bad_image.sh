#!/usr/bin/env bash
# Bad images and protocol errors give one clear line and exit code 3: wrong
# chip, image for another chip, image larger than flash, corrupt image header,
# checksum-error replies (retried, then failed), a flash write error.
# (Port trouble: flash_bad_port.sh.)
source "$(dirname "$0")/lib/flash_helpers.sh"

start_vboard b esp32c3 --no-baud-timing
mkimage esp32c3 "$T/app.bin" 100000
mkimage esp32s3 "$T/s3.bin" 50000
P="$T/b.tty"

expect_fail 3 "wrong chip: expected ESP32-S3 (--chip esp32s3) but $P has an ESP32-C3; check --port or --chip" \
    "$ESPBENCH" flash --port "$P" --chip esp32s3 "$T/app.bin@0x10000"
expect_fail 3 "s3.bin: image is built for chip id 9, but the board is an ESP32-C3 (chip id 5); use the esp32c3 build" \
    "$ESPBENCH" flash --port "$P" "$T/s3.bin@0x10000"
expect_fail 3 "do not fit in the 4 MB flash of this ESP32-C3" \
    "$ESPBENCH" flash --port "$P" "$T/app.bin@0x3F0000"
{ printf '\xe8'; tail -c +2 "$T/app.bin"; } >"$T/corrupt.bin"
expect_fail 3 "corrupt.bin: corrupt image header at 0x10000: not an ESP image: first byte 0xe8 (expected 0xE9)" \
    "$ESPBENCH" flash --port "$P" "$T/corrupt.bin@0x10000"
expect_fail 2 "expected IMAGE@OFFSET" "$ESPBENCH" flash --port "$P" "$T/app.bin"

# Checksum errors: one is retried and the write succeeds; five fail the block.
start_vboard c esp32c3 --no-baud-timing --fault rom-checksum:1
timeout 240 "$ESPBENCH" flash --port "$T/c.tty" "$T/app.bin@0x10000" >"$T/out" 2>"$T/err" ||
    { cat "$T/err"; fail "one checksum error should be retried"; }
grep -q "checksum error, resending (attempt 2 of 3)" "$T/err" || { cat "$T/err"; fail "no retry warning"; }
flash_matches "$T/c.flash" $((0x10000)) "$T/app.bin"
start_vboard d esp32c3 --no-baud-timing --fault rom-checksum:5
expect_fail 3 "rejected with a checksum error 3 times; check the cable or lower --baud" \
    "$ESPBENCH" flash --port "$T/d.tty" "$T/app.bin@0x10000"
start_vboard e esp32c3 --no-baud-timing --fault flash-write
expect_fail 3 "the ROM answered FLASH_DEFL_DATA with error 0x08 (flash write error); the flash did not take the write: retry, and check the board's flash if it repeats" "$ESPBENCH" flash --port "$T/e.tty" "$T/app.bin@0x10000"

echo ok
