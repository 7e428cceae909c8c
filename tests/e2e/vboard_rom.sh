#!/bin/bash
# espbench-vboard's ROM loader over its pty, driven by a small python3 client:
# invalid-header loop, SYNC, chip detection, errors, flash id, baud change,
# compressed flash with a checksum fault, MD5, control-socket reset, stub.
set -euo pipefail
: "${VBOARD:?}" "${SOURCE_DIR:?}" "${BUILD_DIR:?}"
work=$(mktemp -d "${BUILD_DIR}/vboard_rom.XXXXXX")
pid=
cleanup() {
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

"$VBOARD" mkimage --chip esp32s3 --project vbrom-app --idf v5.1.2 --size 120000 -o "$work/app.bin"

"$VBOARD" --chip esp32s3 --flash "$work/flash.bin" --link "$work/tty" --control "$work/ctl" \
    >"$work/stdout" 2>"$work/stderr" &
pid=$!
for _ in $(seq 600); do [ -S "$work/ctl" ] && [ -s "$work/stdout" ] && break; sleep 0.05; done
pty=$(head -n1 "$work/stdout")
[ "$(readlink "$work/tty")" = "$pty" ] || { echo "FAIL: --link does not point at $pty"; exit 1; }

timeout 240 python3 "$SOURCE_DIR/tests/e2e/vboard_rom.py" "$work/tty" "$work/ctl" "$work/app.bin"

# quit is a clean exit that removes the link and the socket
for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
wait "$pid"; rc=$?; pid=
[ "$rc" -eq 0 ] || { echo "FAIL: exit code $rc"; cat "$work/stderr"; exit 1; }
[ ! -e "$work/tty" ] && [ ! -e "$work/ctl" ] || { echo "FAIL: link or socket left behind"; exit 1; }

# flash survives a restart: the app boots from the same flash file
"$VBOARD" --chip esp32s3 --flash "$work/flash.bin" --control "$work/ctl" >"$work/stdout2" 2>"$work/stderr" &
pid=$!
for _ in $(seq 600); do [ -S "$work/ctl" ] && [ -s "$work/stdout2" ] && break; sleep 0.05; done
pty=$(head -n1 "$work/stdout2")
python3 - "$pty" "$work/ctl" <<'PY'
import os, select, socket, sys, termios, time, tty
fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)
tty.setraw(fd, termios.TCSANOW)
buf, end = b"", time.monotonic() + 10
while b"entry 0x403c9880" not in buf and time.monotonic() < end:
    if select.select([fd], [], [], 0.2)[0]:
        buf += os.read(fd, 4096)
assert b"entry 0x403c9880" in buf and b"invalid header" not in buf, buf
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[2]); s.sendall(b"status\n")
st = s.recv(256).decode()
assert "mode=app" in st and "project=vbrom-app" in st, st
print("ok flash kept across restart:", st.strip())
PY
kill -TERM "$pid"; wait "$pid"; rc=$?; pid=
[ "$rc" -eq 0 ] || { echo "FAIL: SIGTERM exit code $rc"; exit 1; }
echo PASS
