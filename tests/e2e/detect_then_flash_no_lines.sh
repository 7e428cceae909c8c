#!/usr/bin/env bash
# Ports without reset lines (socket:// through ser2net's raw TCP, rfc2217 with ?ign_set_control):
# `detect` leaves the board in the ROM loader, so the `flash` a user types next finds it there;
# `flash` then tells the loader to run the application (its default --after hard-reset), and a
# command after that gets a SYNC error that names --after. The before and after steps each
# explain themselves once.
source "$(dirname "$0")/lib/flash_helpers.sh"
VB_STRICT=1 # the loader is entered through the control socket, as BOOT+EN would
source "$(dirname "$0")/lib/skip.sh"
command -v ser2net >/dev/null || skip_test "ser2net not installed"

check() { # NAME CHIP URL-SCHEME ACCEPTER
    local name=$1 chip=$2 scheme=$3 acc=$4 port url
    start_vboard "$name" "$chip" --no-baud-timing --control "$T/$name.ctl"
    port=$(free_port)
    start_ser2net "$name" "$port" "$acc"
    url="$scheme://127.0.0.1:$port"
    [ "$scheme" = rfc2217 ] && url="$url?ign_set_control"
    vb_ctl "$name" download >/dev/null
    mkimage "$chip" "$T/$name.app" 70000

    timeout 240 "$ESPBENCH" detect --port "$url" >"$T/$name.d.out" 2>"$T/$name.d.err" ||
        { cat "$T/$name.d.err" >&2; fail "$scheme: detect"; }
    grep -qx "after:   left in the ROM loader" "$T/$name.d.out" || { cat "$T/$name.d.out"; fail "$scheme: detect left the loader"; }
    # socket:// has no lines at all: the before step says so too. (rfc2217 sends them unconfirmed.)
    if [ "$scheme" = socket ]; then
        grep -qF "so the board was not reset into download mode (--before" "$T/$name.d.err" ||
            { cat "$T/$name.d.err"; fail "$scheme: no before note"; }
    fi
    grep -qF "so the board stays in the ROM loader for the next command" "$T/$name.d.err" ||
        { cat "$T/$name.d.err"; fail "$scheme: no after note"; }

    timeout 240 "$ESPBENCH" flash --port "$url" "$T/$name.app@0x10000" >"$T/$name.f.out" 2>"$T/$name.f.err" ||
        { cat "$T/$name.f.out" "$T/$name.f.err" >&2; fail "$scheme: flash after detect"; }
    grep -q "reset into the application" "$T/$name.f.out" || { cat "$T/$name.f.out"; fail "$scheme: flash summary"; }
    grep -qF "so the ROM loader is told to run the application (--after hard-reset)" "$T/$name.f.err" ||
        { cat "$T/$name.f.err"; fail "$scheme: no after note on flash"; }
    flash_matches "$T/$name.flash" $((0x10000)) "$T/$name.app"
    kill "$(cat "$T/$name.ser2net.pid")" 2>/dev/null || true
}
check s esp32c3 socket tcp
check r esp32 rfc2217 "telnet(rfc2217),tcp"

# The board now runs its application and nothing on this port can reset it: the error says why
# and names --after. (A real board ignores SYNC while its app runs; so does the strict vboard.)
port=$(free_port)
start_ser2net s "$port" tcp
expect_fail 3 "use --after no-reset to keep it in the loader" \
    "$ESPBENCH" detect --port "socket://127.0.0.1:$port"
echo ok
