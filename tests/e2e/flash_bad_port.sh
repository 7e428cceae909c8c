#!/usr/bin/env bash
# Port trouble gives one clear line and exit code 3, never a hang: port
# absent / busy / permission denied, no sync, the port gone in mid-write.
# (Image and protocol errors: flash_bad_image.sh.)
source "$(dirname "$0")/lib/flash_helpers.sh"

start_vboard b esp32c3 --no-baud-timing
mkimage esp32c3 "$T/app.bin" 100000
P="$T/b.tty"

expect_fail 3 "port /dev/ttyNOSUCH0: no such device; check the cable, or list ports with 'espbench ports'" \
    "$ESPBENCH" flash --port /dev/ttyNOSUCH0 "$T/app.bin@0x10000"

# Busy: another process holds the port's lock (as a monitor or esptool would).
# (one process holds it, so killing it releases the lock and leaves nothing behind)
python3 -c 'import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
time.sleep(30)' "$(readlink -f "$P")" >"$T/lock" 2>&1 &
LOCK=$!
PIDS+=($LOCK)
for _ in $(seq 600); do [ -s "$T/lock" ] && break; sleep 0.05; done
expect_fail 3 "is busy: another program" "$ESPBENCH" detect --port "$P"
kill $LOCK; wait $LOCK 2>/dev/null || true

# Permission denied: an unprivileged user on root's pty (only testable as root).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    chmod 0600 "$(readlink -f "$P")"
    expect_fail 3 "permission denied; add yourself to the dialout group" \
        setpriv --reuid=nobody --regid=nogroup --clear-groups "$ESPBENCH" detect --port "$(readlink -f "$P")"
fi

# No sync: a pty with nobody answering.
python3 -c 'import pty,os,time,sys; m,s=pty.openpty(); print(os.ttyname(s), flush=True); time.sleep(60)' >"$T/silent" &
PIDS+=($!)
for _ in $(seq 300); do [ -s "$T/silent" ] && break; sleep 0.05; done
# (espbench's own deadline ends it; expect_fail's `timeout 240` only stops a hang, as exit 124.)
expect_fail 3 "no reply to SYNC from the ROM loader; hold BOOT (IO0) while pressing RESET, or check that this is the board's port" \
    "$ESPBENCH" flash --port "$(cat "$T/silent")" "$T/app.bin@0x10000"

# Port gone in the middle of a write: 3 MB of incompressible data takes a few
# seconds to send; the board vanishes part-way.
{ printf '\0'; head -c 3000000 /dev/urandom; } >"$T/big.bin"
start_vboard f esp32c3 --no-baud-timing
timeout 240 "$ESPBENCH" flash --port "$T/f.tty" "$T/big.bin@0x100000" >"$T/out" 2>"$T/err" &
FL=$!
# Wait until the first 512 KiB have landed in the board's flash, then pull it.
for _ in $(seq 1000); do
    cmp -s -n 64 -i $((0x80000)):$((0x180000)) "$T/big.bin" "$T/f.flash" && break
    sleep 0.01
done
kill "$VB_PID_f"
rc=0; wait $FL || rc=$?
[ "$rc" = 3 ] || { cat "$T/out" "$T/err"; fail "port gone: exit $rc"; }
grep -qE "^espbench: writing $T/big.bin at 0x100000: port $T/f.tty: device gone" "$T/err" ||
    { cat "$T/err"; fail "port gone message"; }
[ "$(grep -v 'cannot set DTR/RTS' "$T/err" | grep -vc 'no flasher stub for the')" = 1 ] || { cat "$T/err"; fail "port gone: more than one error line"; }
echo ok
