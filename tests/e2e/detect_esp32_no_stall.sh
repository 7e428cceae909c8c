#!/usr/bin/env bash
# The ESP32 ROM has no GET_SECURITY_INFO: it answers with frames under the previous command's opcode
# (SYNC's), status 1, error 0x05. espbench must take that as "unsupported" at once (as esptool's
# loader.py does) and read the magic register, not wait out its 3 s command deadline: detect on an
# ESP32 takes about as long as on an ESP32-C3. Compared in one run on the same machine, with a
# generous margin (the stall it guards against is 3 s).
source "$(dirname "$0")/lib/flash_helpers.sh"
VB_STRICT=1 # the loader is entered through the control socket, as BOOT+EN would
start_vboard e esp32 --no-baud-timing --control "$T/e.ctl"
start_vboard c esp32c3 --no-baud-timing --control "$T/c.ctl"

detect_ms() { # NAME: best of two detects, in ms; the board stays in the loader in between
    local best=999999 t0 ms
    vb_ctl "$1" download >/dev/null
    for _ in 1 2; do
        t0=$(date +%s%N)
        timeout 40 "$ESPBENCH" detect --port "$T/$1.tty" --after no-reset >"$T/$1.out" 2>"$T/$1.err" ||
            { cat "$T/$1.err" >&2; fail "detect $1"; }
        ms=$(ms_since "$t0")
        [ "$ms" -lt "$best" ] && best=$ms
    done
    echo "$best"
}
esp32=$(detect_ms e)
c3=$(detect_ms c)
echo "detect: esp32 ${esp32} ms, esp32c3 ${c3} ms"
grep -qx "chip:    ESP32 (esp32, chip id 0, found by magic register)" "$T/e.out" || { cat "$T/e.out"; fail "esp32 chip line"; }
grep -q "found by GET_SECURITY_INFO" "$T/c.out" || { cat "$T/c.out"; fail "esp32c3 chip line"; }
[ "$esp32" -lt $((c3 + 1500)) ] || fail "detect on ESP32 took ${esp32} ms against ${c3} ms on ESP32-C3: waiting for a timeout?"
echo ok
