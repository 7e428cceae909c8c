#!/usr/bin/env bash
# Flashes a vboard of every chip in profiles/ through its pty: a bootloader-sized
# image at the chip's bootloader offset and an app at 0x10000 in one session,
# checked by the flasher's MD5 verify and by reading the vboard's flash file;
# the second run writes nothing (MD5 skip).
source "$(dirname "$0")/lib/flash_helpers.sh"

flash_chip() {
    local chip=$1 boot
    start_vboard "$chip" "$chip" --no-baud-timing
    boot=$(boot_offset "$chip")
    mkimage "$chip" "$T/$chip.boot.bin" 20000 boot
    mkimage "$chip" "$T/$chip.app.bin" 150000 app
    timeout 240 "$ESPBENCH" flash --port "$T/$chip.tty" --chip "$chip" \
        "$T/$chip.boot.bin@$boot" "$T/$chip.app.bin@0x10000" >"$T/$chip.out1" 2>"$T/$chip.err1" ||
        { cat "$T/$chip.out1" "$T/$chip.err1" >&2; fail "$chip: flash failed"; }
    grep -q "MD5 verified" "$T/$chip.out1" || fail "$chip: no MD5 verify line"
    grep -q "flashed 2 regions (2 written, 0 unchanged)" "$T/$chip.out1" || { cat "$T/$chip.out1"; fail "$chip: summary"; }
    flash_matches "$T/$chip.flash" $((boot)) "$T/$chip.boot.bin"
    flash_matches "$T/$chip.flash" $((0x10000)) "$T/$chip.app.bin"

    timeout 240 "$ESPBENCH" flash --port "$T/$chip.tty" "$T/$chip.boot.bin@$boot" "$T/$chip.app.bin@0x10000" \
        >"$T/$chip.out2" 2>"$T/$chip.err2" || { cat "$T/$chip.out2" "$T/$chip.err2" >&2; fail "$chip: re-flash failed"; }
    grep -q "flashed 2 regions (0 written, 2 unchanged)" "$T/$chip.out2" || { cat "$T/$chip.out2"; fail "$chip: not skipped"; }
    [ "$(grep -c 'unchanged (MD5 matches), skipped' "$T/$chip.out2")" = 2 ] || fail "$chip: skip lines"
}
for_each_chip flash_chip
