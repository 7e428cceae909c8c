#!/usr/bin/env bash
# A board left running a flasher stub by another tool (esptool-js cannot reset a pty, so its stub
# stays): espbench recognises the stub (SYNC value 0), reads its raw MD5, writes, verifies and
# leaves it with RUN_USER_CODE, instead of misreading the replies as ROM errors.
source "$(dirname "$0")/lib/flash_helpers.sh"
start_vboard b esp32s3 --no-baud-timing --control "$T/b.ctl"
"$VBOARD" mkimage --chip esp32s3 --project after-stub --idf v5.3 --size 200000 -o "$T/app.bin"

# Upload a (dummy) stub over MEM_BEGIN/DATA/END with an entry point, as esptool-js does.
python3 - "$T/b.tty" <<'PY' || fail "could not put the board into stub mode"
import os, struct, sys, termios, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)
a = termios.tcgetattr(fd); a[3] &= ~(termios.ICANON | termios.ECHO); a[4] = a[5] = termios.B115200
termios.tcsetattr(fd, termios.TCSANOW, a)
def slip(p): return b"\xc0" + p.replace(b"\xdb", b"\xdb\xdd").replace(b"\xc0", b"\xdb\xdc") + b"\xc0"
def send(op, data=b"", chk=0): os.write(fd, slip(struct.pack("<BBHI", 0, op, len(data), chk) + data))
def drain(t):
    end, got = time.monotonic() + t, b""
    while time.monotonic() < end:
        try:
            os.set_blocking(fd, False); got += os.read(fd, 4096)
        except BlockingIOError:
            time.sleep(0.02)
    return got
send(0x08, b"\x07\x07\x12\x20" + b"\x55" * 32); drain(0.5)
stub = bytes(range(256)) * 16
send(0x05, struct.pack("<IIII", len(stub), 1, len(stub), 0x40380000)); drain(0.2)
chk = 0xEF
for b in stub: chk ^= b
send(0x07, struct.pack("<IIII", len(stub), 0, 0, 0) + stub, chk); drain(0.2)
send(0x06, struct.pack("<II", 0, 0x40380000))
if b"OHAI" not in drain(0.5):
    sys.exit("no OHAI: the board did not start the stub")
PY

"$ESPBENCH" flash --port "$T/b.tty" --baud 921600 "$T/app.bin@0x10000" >"$T/out" 2>"$T/err" ||
    { cat "$T/out" "$T/err"; fail "flash after a stub"; }
grep -q "a flasher stub answers" "$T/err" || { cat "$T/err"; fail "stub not recognised"; }
grep -q "MD5 verified" "$T/out" || { cat "$T/out"; fail "no MD5 verify"; }
cmp -n "$(stat -c %s "$T/app.bin")" -i 0:65536 "$T/app.bin" "$T/b.flash" || fail "flash content differs"
# Unchanged: only the stub's MD5 is read.
"$ESPBENCH" flash --port "$T/b.tty" "$T/app.bin@0x10000" >"$T/out" 2>"$T/err" || { cat "$T/err"; fail "re-flash"; }
grep -q "unchanged (MD5 matches), skipped" "$T/out" || { cat "$T/out"; fail "no skip"; }
echo ok
