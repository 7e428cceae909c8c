#!/usr/bin/env bash
# Flashes a vboard of every chip in profiles/ through a real ser2net 4.3
# (rfc2217://127.0.0.1:PORT?ign_set_control) at the default 921600 baud (the
# baud change travels as SET-BAUDRATE to the pty), verifies by MD5 and by the
# vboard's flash file, and re-flashes to check the MD5 skip.
source "$(dirname "$0")/lib/flash_helpers.sh"
source "$(dirname "$0")/lib/skip.sh"
command -v ser2net >/dev/null || skip_test "ser2net not installed"

flash_chip() {
    local chip=$1 port url
    start_vboard "$chip" "$chip" --no-baud-timing
    port=$(free_port)
    start_ser2net "$chip" "$port"
    url="rfc2217://127.0.0.1:$port?ign_set_control"
    mkimage "$chip" "$T/$chip.app.bin" 120000 app
    timeout 240 "$ESPBENCH" flash --port "$url" --stub off "$T/$chip.app.bin@0x10000" >"$T/$chip.out1" 2>"$T/$chip.err1" ||
        { cat "$T/$chip.out1" "$T/$chip.err1" "$T/$chip.ser2net.log" >&2; fail "$chip: flash through ser2net failed"; }
    # the ROM loader (--stub off): the ESP8266 ROM has no CHANGE_BAUDRATE
    local want=921600
    [ "$chip" = esp8266 ] && want=115200
    grep -q ", $want baud" "$T/$chip.out1" || { cat "$T/$chip.out1"; fail "$chip: not at $want baud"; }
    grep -q "MD5 verified" "$T/$chip.out1" || fail "$chip: no MD5 verify"
    flash_matches "$T/$chip.flash" $((0x10000)) "$T/$chip.app.bin"
    timeout 240 "$ESPBENCH" flash --port "$url" "$T/$chip.app.bin@0x10000" >"$T/$chip.out2" 2>"$T/$chip.err2" ||
        { cat "$T/$chip.out2" "$T/$chip.err2" >&2; fail "$chip: re-flash through ser2net failed"; }
    grep -q "(0 written, 1 unchanged)" "$T/$chip.out2" || { cat "$T/$chip.out2"; fail "$chip: not skipped"; }
}
for_each_chip flash_chip
