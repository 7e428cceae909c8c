#!/bin/bash
# espbench-vboard boot paths: an app already in the flash file boots on power-up
# (when the host opens the port), the slow-boot and garbage faults, an app built
# for another chip falls into the invalid-header loop, bad options fail cleanly.
set -euo pipefail
: "${VBOARD:?}" "${BUILD_DIR:?}"
work=$(mktemp -d "${BUILD_DIR}/vboard_boot.XXXXXX")
pid=
cleanup() {
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# usage errors: exit 2 with one line naming the problem
set +e
"$VBOARD" --chip esp32s3 --fault explode:1 >/dev/null 2>"$work/err"; rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q '^espbench-vboard: fault "explode:1": unknown kind "explode"' "$work/err" \
    || { echo "FAIL: bad --fault: rc=$rc $(cat "$work/err")"; exit 1; }
[ "$(wc -l <"$work/err")" -eq 1 ] || { echo "FAIL: bad --fault: not one line: $(cat "$work/err")"; exit 1; }
set +e
"$VBOARD" --chip esp99 >/dev/null 2>"$work/err"; rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q '^espbench-vboard: --chip esp99: no such chip in the profiles (known: ' "$work/err" \
    || { echo "FAIL: unknown chip: rc=$rc $(cat "$work/err")"; exit 1; }
[ "$(wc -l <"$work/err")" -eq 1 ] || { echo "FAIL: unknown chip: not one line: $(cat "$work/err")"; exit 1; }
set +e
"$VBOARD" mkimage --chip esp32c3 --bogus >/dev/null 2>"$work/err"; rc=$?
set -e
[ "$rc" -eq 2 ] && [ "$(cat "$work/err")" = "espbench-vboard mkimage: unknown option --bogus; see 'espbench-vboard --help'" ] \
    || { echo "FAIL: mkimage --bogus: rc=$rc $(cat "$work/err")"; exit 1; }

# a flash file holding an ESP32-C3 app at 0x10000
"$VBOARD" mkimage --chip esp32c3 --project boot-app --idf v5.0.4 --size 50000 -o "$work/app.bin"
python3 - "$work/app.bin" "$work/flash.bin" <<'PY'
import sys
app = open(sys.argv[1], "rb").read()
flash = bytearray(b"\xff" * (4 << 20))
flash[0x10000:0x10000 + len(app)] = app
open(sys.argv[2], "wb").write(flash)
PY

run_board() { # chip, extra args...
    local chip=$1; shift
    "$VBOARD" --chip "$chip" --flash "$work/flash.bin" --control "$work/ctl" "$@" >"$work/stdout" 2>"$work/stderr" &
    pid=$!
    for _ in $(seq 600); do [ -S "$work/ctl" ] && [ -s "$work/stdout" ] && break; sleep 0.05; done
}
stop_board() { kill -TERM "$pid"; wait "$pid"; pid=; }

cat >"$work/watch.py" <<'PY'
# usage: watch.py PTY CONTROL EXPECT_TEXT SECONDS -> prints what the board wrote, checks status lines
import os, select, socket, sys, termios, time, tty
pty, ctl, expect, secs = sys.argv[1], sys.argv[2], sys.argv[3].encode(), float(sys.argv[4])
def status():
    s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(ctl); s.sendall(b"status\n")
    r = s.recv(256).decode().strip(); s.close(); return r
assert status().startswith("ok mode=off "), status()  # powered up only when a host opens the port
fd = os.open(pty, os.O_RDWR | os.O_NOCTTY)
tty.setraw(fd, termios.TCSANOW)
buf, end, states = b"", time.monotonic() + secs, set()
while time.monotonic() < end and expect not in buf:
    if select.select([fd], [], [], 0.05)[0]:
        buf += os.read(fd, 65536)
    states.add(status().split()[1])
drain_end = time.monotonic() + 0.3  # bounded: the invalid-header loop never stops talking
while time.monotonic() < drain_end:
    if select.select([fd], [], [], 0.05)[0]:
        buf += os.read(fd, 65536)
sys.stdout.buffer.write(buf)
print("\nSTATES " + " ".join(sorted(states)))
print("STATUS " + status())
PY

# 1. esp32c3: slow-boot and garbage faults, then the app
run_board esp32c3 --fault slow-boot:400 --fault garbage:32
python3 "$work/watch.py" "$(head -n1 "$work/stdout")" "$work/ctl" "entry 0x403c9880" 10 >"$work/out1"
stop_board
grep -q "rst:0x1 (POWERON),boot:0x8 (SPI_FAST_FLASH_BOOT)" "$work/out1" || { echo "FAIL: no banner"; cat "$work/out1"; exit 1; }
grep -q "^STATES .*mode=booting" "$work/out1" || { echo "FAIL: slow-boot not seen"; cat "$work/out1"; exit 1; }
grep -q "^STATUS ok mode=app .* project=boot-app idf=v5.0.4 .*faults=0" "$work/out1" || { echo "FAIL: status"; tail -2 "$work/out1"; exit 1; }
grep -q "invalid header" "$work/out1" && { echo "FAIL: invalid header with a valid app"; exit 1; }
# the 32 garbage bytes sit between the ROM's entry line and whatever the app prints
python3 - "$work/out1" <<'PY'
import sys
out = open(sys.argv[1], "rb").read()
tail = out.split(b"entry 0x403c9880\r\n", 1)[1]
assert len(tail) >= 32, tail
PY
echo "ok slow-boot, garbage, app boots"

# 2. the same flash on an esp32s3: another chip's app -> invalid-header loop
run_board esp32s3
python3 "$work/watch.py" "$(head -n1 "$work/stdout")" "$work/ctl" "TG0WDT_SYS_RST" 10 >"$work/out2"
stop_board
first=$(python3 -c "import struct,sys; print('0x%08x' % struct.unpack('<I', open(sys.argv[1],'rb').read()[:4])[0])" "$work/app.bin")
grep -q "invalid header: $first" "$work/out2" || { echo "FAIL: no invalid-header loop with $first"; cat "$work/out2"; exit 1; }
grep -q "^STATUS ok mode=no-app " "$work/out2" || { echo "FAIL: status"; tail -1 "$work/out2"; exit 1; }
echo "ok wrong chip: invalid header: $first"
echo PASS
