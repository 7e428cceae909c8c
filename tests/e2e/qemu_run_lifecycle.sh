#!/usr/bin/env bash
# `run --qemu` with the emulated ESP32-C3's genuine ROM and images that are no firmware
# (docs/emulator.md): the request's own errors (one line, exit 2; a tier's own image too), the first
# tier's own image written through the ROM loader (request.json: each image's SHA-256, the emulator),
# the chip booted from its flash without the strap (the ROM's first line is the console
# log's first: QEMU waits for espbench), Ctrl-C while the run waits for its console and while it
# flashes (exit 4) — and QEMU stopped by its pid every time.
# The built firmware's run is tests/image/qemu_image_run.sh (label qemu-image).
source "$(dirname "$0")/lib/flash_helpers.sh"
source "$(dirname "$0")/lib/skip.sh"

# Usage errors need no emulator.
expect_fail 2 "espbench run: --qemu needs the firmware: --qemu-image DIR (the ESP-IDF build of firmware/ with Ethernet, or a folder with bootloader.bin, partition-table.bin and espbench.bin) or ESPBENCH_QEMU_IMAGE; see docs/emulator.md" \
    env -u ESPBENCH_QEMU_IMAGE "$ESPBENCH" run --chip esp32c3 --qemu --out "$T/u1"
expect_fail 2 "espbench run: --qemu emulates the ESP32-C3 only: pass --chip esp32c3, not 'esp32s3'" \
    "$ESPBENCH" run --chip esp32s3 --qemu --qemu-image "$T" --out "$T/u2"
expect_fail 2 "espbench run: --qemu is one emulated board: leave out --port, --sim and --lab" \
    "$ESPBENCH" run --chip esp32c3 --qemu --sim --qemu-image "$T" --out "$T/u3"
expect_fail 2 "espbench run: --qemu-bin and --qemu-image are for --qemu (an emulated ESP32-C3)" \
    "$ESPBENCH" run --chip esp32c3 --sim --qemu-bin "$T/q" --out "$T/u4"
expect_fail 2 "espbench: $T/none: no bootloader.bin here, and no flasher_args.json: give the firmware's ESP-IDF build folder or a folder with bootloader.bin, partition-table.bin and espbench.bin" \
    "$ESPBENCH" run --chip esp32c3 --qemu --qemu-image "$T/none" --out "$T/u5"
[ ! -e "$T/u5" ] || fail "a wrong image folder made the output folder"

mkdir -p "$T/img" "$T/img-min"
mkimage esp32c3 "$T/img/bootloader.bin" 9001 boot
head -c 3072 /dev/zero >"$T/img/partition-table.bin"
mkimage esp32c3 "$T/img/espbench.bin" 30001 espbench
cp "$T/img/bootloader.bin" "$T/img/partition-table.bin" "$T/img-min/"
mkimage esp32c3 "$T/img-min/espbench.bin" 20001 espbench-min

# A tier's own image (--qemu-image TIER=DIR): its mistakes, before anything starts.
expect_fail 2 "espbench run: --qemu-image: tier 'minimum' given two images ('minimum=$T/img-min', 'minimum=$T/img')" \
    "$ESPBENCH" run --chip esp32c3 --qemu --qemu-image "minimum=$T/img-min" --qemu-image "minimum=$T/img" --out "$T/u7"
expect_fail 2 "espbench run: --qemu-image DIR given twice ('$T/img', '$T/img-min'): one image for every tier; a tier's own is --qemu-image TIER=DIR" \
    "$ESPBENCH" run --chip esp32c3 --qemu --qemu-image "$T/img" --qemu-image "$T/img-min" --out "$T/u8"
expect_fail 2 "espbench: --qemu-image minimum=$T/none: $T/none: no bootloader.bin here" \
    "$ESPBENCH" run --chip esp32c3 --qemu --qemu-image "$T/img" --qemu-image "minimum=$T/none" --out "$T/u9"
expect_fail 2 "espbench run: --qemu-image maximum=$T/img-min: esp32c3 has no tier 'maximum' (tiers: espbench profiles show esp32c3)" \
    "$ESPBENCH" run --chip esp32c3 --qemu --qemu-image "$T/img" --qemu-image "maximum=$T/img-min" --out "$T/u10"
expect_fail 2 "espbench run: --qemu: tier iperf has no image: give --qemu-image iperf=DIR, or --qemu-image DIR for the tiers without their own" \
    env -u ESPBENCH_QEMU_IMAGE "$ESPBENCH" run --chip esp32c3 --qemu --qemu-image "minimum=$T/img-min" \
    --tier minimum,iperf --out "$T/u11"
expect_fail 2 "espbench run: --qemu-bin and --qemu-image are for --qemu (an emulated ESP32-C3)" \
    "$ESPBENCH" run --chip esp32c3 --sim --qemu-image "minimum=$T/img-min" --out "$T/u12"
for u in u7 u8 u9 u10 u11 u12; do [ ! -e "$T/$u" ] || fail "a refused --qemu-image made the output folder $u"; done
expect_fail 2 "qemu: '$T/no-qemu' not found or not executable; install Espressif's QEMU (idf_tools.py install qemu-riscv32), give --qemu-bin PATH or set ESPBENCH_QEMU (docs/emulator.md)" \
    "$ESPBENCH" run --chip esp32c3 --qemu --qemu-bin "$T/no-qemu" --qemu-image "$T/img" --out "$T/u6"

QEMU=${ESPBENCH_QEMU:-$SOURCE_DIR/../shared/tools/qemu-esp32c3/qemu-system-riscv32}
[ -x "$QEMU" ] || skip_test "no QEMU for the ESP32-C3 at $QEMU (set ESPBENCH_QEMU)"
qemu_left() { pgrep -f "qemu-system-riscv32 .*file=$1/qemu-flash.bin" >/dev/null; }

# The first tier's own image written (not the default), the chip booted from it (the ROM's lines on the console), then
# Ctrl-C while the run waits for a console that never comes (these images are no firmware): exit 4, QEMU stopped.
"$ESPBENCH" run --chip esp32c3 --qemu --qemu-bin "$QEMU" --qemu-image "$T/img" --qemu-image "minimum=$T/img-min" \
    --out "$T/r1" --tier minimum,iperf --tests tcp_tx --duration 2 >"$T/r1.out" 2>"$T/r1.err" &
pid=$!
log=$T/r1/console-qemu-esp32c3.log
for _ in $(seq 2400); do grep -qs "SPI_FAST_FLASH_BOOT" "$log" && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
grep -qs "SPI_FAST_FLASH_BOOT" "$log" || { cat "$T/r1.out" "$T/r1.err"; fail "the chip did not boot from its flash"; }
kill -INT $pid
rc=0
wait $pid || rc=$?
[ $rc = 4 ] || { cat "$T/r1.out" "$T/r1.err"; fail "Ctrl-C while waiting for the console: exit $rc, not 4"; }
grep -qx "emulated esp32c3: 3 image(s) written, 0 unchanged; booted from its flash, UART0 on socket://127.0.0.1:[0-9]*" \
    "$T/r1.out" || { cat "$T/r1.out"; fail "flash summary"; }
flash_matches "$T/r1/qemu-flash.bin" 0 "$T/img/bootloader.bin"
flash_matches "$T/r1/qemu-flash.bin" $((0x8000)) "$T/img/partition-table.bin"
flash_matches "$T/r1/qemu-flash.bin" $((0x10000)) "$T/img-min/espbench.bin"
grep -qxF "starting an emulated esp32c3 (QEMU), flashing minimum=$T/img-min through its ROM loader..." "$T/r1.out" ||
    { cat "$T/r1.out"; fail "the first tier's image not named"; }
# request.json names the emulator and each image's app by its SHA-256.
python3 - "$T/r1/request.json" "$T/img/espbench.bin" "$T/img-min/espbench.bin" "$QEMU" <<'PY' || fail "request.json"
import hashlib, json, sys
r = json.load(open(sys.argv[1]))
sha = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest()
want = "*=%s,minimum=%s" % (sha(sys.argv[2]), sha(sys.argv[3]))
assert r["tier_images"] == want, (r["tier_images"], want)
assert r["emulator"].startswith("QEMU emulator version "), r["emulator"]
assert r["emulator"].endswith(", %s -M esp32c3" % sys.argv[4]), r["emulator"]
assert r["firmware_sha256"] == [sha(sys.argv[3])], r["firmware_sha256"]
PY
# The genuine ROM's boot, from its first line (QEMU started the chip when espbench connected).
first=$(grep -m1 -v '^[> ]*$' "$log")
[ "$first" = "ESP-ROM:esp32c3-api1-20210207" ] || { head -5 "$log"; fail "first console line: '$first'"; }
! qemu_left "$T/r1" || fail "QEMU left running after the run ended"

# Ctrl-C while the images are written: exit 4, QEMU stopped.
mkimage esp32c3 "$T/img/espbench.bin" 200001 espbench
"$ESPBENCH" run --chip esp32c3 --qemu --qemu-bin "$QEMU" --qemu-image "$T/img" --out "$T/r2" --tier iperf \
    --tests tcp_tx --duration 2 >"$T/r2.out" 2>"$T/r2.err" &
pid=$!
for _ in $(seq 600); do qemu_left "$T/r2" && grep -q "through its ROM loader" "$T/r2.out" && break; sleep 0.05; done
qemu_left "$T/r2" || { cat "$T/r2.out" "$T/r2.err"; fail "QEMU did not start"; }
sleep 1
kill -INT $pid
rc=0
wait $pid || rc=$?
[ $rc = 4 ] || { cat "$T/r2.out" "$T/r2.err"; fail "Ctrl-C while flashing: exit $rc, not 4"; }
grep -q "interrupted" "$T/r2.err" || { cat "$T/r2.err"; fail "no interrupted line"; }
! qemu_left "$T/r2" || fail "QEMU left running after Ctrl-C"
echo ok
