#!/usr/bin/env bash
# The ESP32 ROM has no GET_SECURITY_INFO: it answers with frames under the previous command's opcode
# (SYNC's), status 1, error 0x05. espbench must take that as "unsupported" at once (as esptool's
# loader.py does) and read the magic register, not wait out its 3 s command deadline. Against the
# vboard's ROM: the ESP32 is found by the magic register, the C3 by GET_SECURITY_INFO. That no
# wait on the line is longer than a drain is asserted where it can be counted, not timed:
# tests/unit/test_rom_client.c (test_esp32_unknown_command_answer_taken_at_once).
source "$(dirname "$0")/lib/flash_helpers.sh"
VB_STRICT=1 # the loader is entered through the control socket, as BOOT+EN would
start_vboard e esp32 --no-baud-timing --control "$T/e.ctl"
start_vboard c esp32c3 --no-baud-timing --control "$T/c.ctl"

detect() { # NAME: the board stays in the loader
    vb_ctl "$1" download >/dev/null
    timeout 240 "$ESPBENCH" detect --port "$T/$1.tty" --after no-reset >"$T/$1.out" 2>"$T/$1.err" ||
        { cat "$T/$1.err" >&2; fail "detect $1"; }
}
detect e
detect c
grep -qx "chip:    ESP32 (esp32, chip id 0, found by magic register)" "$T/e.out" || { cat "$T/e.out"; fail "esp32 chip line"; }
grep -q "found by GET_SECURITY_INFO" "$T/c.out" || { cat "$T/c.out"; fail "esp32c3 chip line"; }
echo ok
