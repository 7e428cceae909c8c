#!/usr/bin/env bash
# espbench detect on vboards: chip (by GET_SECURITY_INFO, or by the magic
# register on ESP32, ESP32-S2 and ESP8266), MAC from eFuse, flash size from the
# RDID id, ROM loader; a board that answers in application mode is reset into
# download mode by the SYNC.
source "$(dirname "$0")/lib/flash_helpers.sh"

check() { # chip display id how flash_mb
    start_vboard "$1" "$1" --no-baud-timing
    timeout 240 "$ESPBENCH" detect --port "$T/$1.tty" >"$T/$1.out" 2>"$T/$1.err" ||
        { cat "$T/$1.err" >&2; fail "detect $1"; }
    grep -qx "chip:    $2 ($1, chip id $3, found by $4)" "$T/$1.out" || { cat "$T/$1.out"; fail "$1: chip line"; }
    grep -qE "^mac:     ([0-9a-f]{2}:){5}[0-9a-f]{2}$" "$T/$1.out" || { cat "$T/$1.out"; fail "$1: mac line"; }
    grep -qE "^flash:   $5 MB \(JEDEC id [0-9a-f]{2}40(1[2-9a-f]|2[0-2])\)$" "$T/$1.out" || { cat "$T/$1.out"; fail "$1: flash line"; }
    grep -qx "loader:  ROM" "$T/$1.out" || fail "$1: loader line"
}
check esp32c3 ESP32-C3 5 GET_SECURITY_INFO 4
check esp32s3 ESP32-S3 9 GET_SECURITY_INFO "[0-9]+"
check esp32 ESP32 0 "magic register" 4
check esp32s2 ESP32-S2 2 "magic register" "[0-9]+"
check esp8266 ESP8266 -1 "magic register" "[0-9]+"
# ESP8266 MACs carry an Espressif OUI derived from eFuse.
grep -q "^mac:     18:fe:34:" "$T/esp8266.out" || { cat "$T/esp8266.out"; fail "esp8266 OUI"; }

# Detect again: the board stayed in the loader (a pty has no DTR/RTS, so detect leaves it there)
# and the same MAC comes out.
timeout 240 "$ESPBENCH" detect --port "$T/esp32c3.tty" >"$T/again.out" 2>/dev/null || fail "second detect"
[ "$(grep '^mac:' "$T/again.out")" = "$(grep '^mac:' "$T/esp32c3.out")" ] || fail "MAC differs between runs"

expect_fail 2 "unknown --before 'sideways'" "$ESPBENCH" detect --port "$T/esp32c3.tty" --before sideways
echo ok
