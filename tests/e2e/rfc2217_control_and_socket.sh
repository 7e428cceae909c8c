#!/usr/bin/env bash
# RFC 2217 without ?ign_set_control: ser2net on a pty never acknowledges
# DTR/RTS, so espbench says so once and carries on. socket:// through a raw
# ser2net TCP port: no baud change, no lines, detection and flashing still work.
source "$(dirname "$0")/lib/flash_helpers.sh"
source "$(dirname "$0")/lib/skip.sh"
command -v ser2net >/dev/null || skip_test "ser2net not installed"

start_vboard b esp32s3 --no-baud-timing
port=$(free_port)
start_ser2net b "$port"
timeout 240 "$ESPBENCH" detect --port "rfc2217://127.0.0.1:$port" >"$T/out" 2>"$T/err" ||
    { cat "$T/out" "$T/err" >&2; fail "detect without ign_set_control failed"; }
grep -q "^chip:    ESP32-S3 (esp32s3, chip id 9, found by GET_SECURITY_INFO)$" "$T/out" || { cat "$T/out"; fail "chip line"; }
grep -qF "the RFC 2217 server does not acknowledge DTR/RTS changes; add ?ign_set_control to the URL" "$T/err" ||
    { cat "$T/err"; fail "no DTR/RTS warning"; }
[ "$(grep -c 'does not acknowledge' "$T/err")" = 1 ] || fail "warning said more than once"

# An unknown URL option is a usage error.
expect_fail 2 "unknown option 'bogus'" "$ESPBENCH" detect --port "rfc2217://127.0.0.1:$port?bogus"
kill "$(cat "$T/b.ser2net.pid")"

start_vboard c esp32c6 --no-baud-timing
port=$(free_port)
start_ser2net c "$port" tcp
mkimage esp32c6 "$T/app.bin" 60000
timeout 240 "$ESPBENCH" flash --port "socket://127.0.0.1:$port" "$T/app.bin@0x10000" >"$T/out" 2>"$T/err" ||
    { cat "$T/out" "$T/err" >&2; fail "flash over socket:// failed"; }
grep -q ", 115200 baud" "$T/out" || { cat "$T/out"; fail "socket:// should stay at 115200"; }
flash_matches "$T/c.flash" $((0x10000)) "$T/app.bin"

# rfc2217:// against a raw TCP port: the server never offers COM-PORT-OPTION.
expect_fail 3 "the server does not speak RFC 2217 (no COM-PORT-OPTION)" \
    "$ESPBENCH" detect --port "rfc2217://127.0.0.1:$port?ign_set_control"

# Nothing listening: a clear error, exit 3.
dead=$(free_port)
expect_fail 3 "cannot connect to 127.0.0.1:$dead" "$ESPBENCH" detect --port "socket://127.0.0.1:$dead"
echo ok
