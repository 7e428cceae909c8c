#!/usr/bin/env bash
# The emulated ESP32-C3 with its genuine ROM (QEMU, ../shared/tools/qemu-esp32c3 or $ESPBENCH_QEMU;
# docs/emulator.md): `espbench detect` and `espbench flash` over socket:// against the ROM's
# serial loader, started with the download strap (and -icount, as espbench starts it: a busy host
# must not make the emulated UART outrun the ROM). The flash file starts as random bytes, so a
# byte changed anywhere outside the sectors written shows; the images are there after, MD5
# verified; the same images again are skipped as unchanged and leave the file as it was; a changed
# app is written alone.
source "$(dirname "$0")/lib/flash_helpers.sh"
source "$(dirname "$0")/lib/skip.sh"
QEMU=${ESPBENCH_QEMU:-$SOURCE_DIR/../shared/tools/qemu-esp32c3/qemu-system-riscv32}
[ -x "$QEMU" ] || skip_test "no QEMU for the ESP32-C3 at $QEMU (set ESPBENCH_QEMU)"
ROM_DIR=$(dirname "$QEMU")
L=()
[ -e "$ROM_DIR/esp32c3-rom.bin" ] && L=(-L "$ROM_DIR")

head -c $((4 << 20)) /dev/urandom >"$T/canary.bin"
cp "$T/canary.bin" "$T/flash.bin"
port=$(free_port)
"$QEMU" -M esp32c3 "${L[@]}" -display none -monitor none -drive "file=$T/flash.bin,if=mtd,format=raw" \
    -global driver=esp32c3.gpio,property=strap_mode,value=0x02 -icount shift=auto \
    -serial "tcp:127.0.0.1:$port,server=on,wait=off" -nic user,model=open_eth >"$T/qemu.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 200); do
    python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $port), 0.2).close()" 2>/dev/null && break
    sleep 0.05
done
url="socket://127.0.0.1:$port"

timeout 120 "$ESPBENCH" detect --port "$url" >"$T/d.out" 2>"$T/d.err" || { cat "$T/d.err" "$T/qemu.log"; fail "detect"; }
grep -q "^chip:    ESP32-C3 (esp32c3, " "$T/d.out" || { cat "$T/d.out"; fail "detect: chip"; }
grep -qx "loader:  ROM" "$T/d.out" || { cat "$T/d.out"; fail "detect: loader"; }
grep -q "^flash:   4 MB" "$T/d.out" || { cat "$T/d.out"; fail "detect: flash size"; }

# Sizes that end inside a sector; the bootloader at the chip's offset (0x0 on the C3).
mkimage esp32c3 "$T/boot.bin" 9001 boot
mkimage esp32c3 "$T/app.bin" 30001
flash() { timeout 240 "$ESPBENCH" flash --port "$url" --stub off --after no-reset "$@" >"$T/f.out" 2>"$T/f.err" ||
    { cat "$T/f.out" "$T/f.err" "$T/qemu.log"; fail "flash $*"; }; }
flash "$T/boot.bin@0x0" "$T/app.bin@0x10000"
[ "$(grep -c "MD5 verified" "$T/f.out")" = 2 ] || { cat "$T/f.out"; fail "two regions MD5 verified"; }
grep -q "loader: ROM" "$T/f.out" || { cat "$T/f.out"; fail "ROM loader"; }
grep -qx "flashed 2 regions (2 written, 0 unchanged) in .*; left in the ROM loader" "$T/f.out" ||
    { cat "$T/f.out"; fail "summary"; }
flash_matches "$T/flash.bin" 0 "$T/boot.bin"
flash_matches "$T/flash.bin" $((0x10000)) "$T/app.bin"

# Outside [0, 12 KiB) and [0x10000, 0x10000 + 32 KiB) (the sectors written) every byte is the canary's.
outside() { python3 - "$1" "$2" <<'PY'
import sys
a, b = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read()
assert len(a) == len(b) == 4 << 20, (len(a), len(b))
keep = [(0, 0x3000), (0x10000, 0x18000)]
bad = [i for i in range(len(a)) if a[i] != b[i] and not any(s <= i < e for s, e in keep)]
if bad:
    print(f"{len(bad)} bytes changed outside the sectors written, first at 0x{bad[0]:x}")
    sys.exit(1)
PY
}
outside "$T/canary.bin" "$T/flash.bin" || fail "bytes changed outside the written sectors"

# The same images again: both skipped, not a byte of the file changed.
cp "$T/flash.bin" "$T/after1.bin"
flash "$T/boot.bin@0x0" "$T/app.bin@0x10000"
[ "$(grep -c "unchanged (MD5 matches), skipped" "$T/f.out")" = 2 ] || { cat "$T/f.out"; fail "re-flash skipped"; }
grep -qx "flashed 2 regions (0 written, 2 unchanged) in .*; left in the ROM loader" "$T/f.out" ||
    { cat "$T/f.out"; fail "re-flash summary"; }
cmp -s "$T/after1.bin" "$T/flash.bin" || fail "a skipped re-flash changed the flash file"

# A changed app: written alone, the bootloader skipped; still nothing outside.
mkimage esp32c3 "$T/app2.bin" 20001 other
flash "$T/boot.bin@0x0" "$T/app2.bin@0x10000"
grep -qx "flashed 2 regions (1 written, 1 unchanged) in .*; left in the ROM loader" "$T/f.out" ||
    { cat "$T/f.out"; fail "changed app summary"; }
flash_matches "$T/flash.bin" $((0x10000)) "$T/app2.bin"
outside "$T/canary.bin" "$T/flash.bin" || fail "bytes changed outside the written sectors (second app)"
echo ok
