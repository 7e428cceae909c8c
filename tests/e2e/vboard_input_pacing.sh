#!/usr/bin/env bash
# With baud timing the vboard takes host bytes no faster than the line rate. Only that lower
# bound is asserted (a busy machine makes the board slower, never faster); how fast the unpaced
# board takes them is printed, not asserted -- a rate is the bench's (flash.wire_ratio).
set -euo pipefail
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

# Writes 256 KiB (2.8 s of line time at 921600 baud) of non-SLIP bytes and prints the seconds until
# the board has taken all but what the pty can buffer (up to 64 KiB).
measure() {
  python3 - "$1" <<'PY'
import os, sys, termios, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)
attrs = termios.tcgetattr(fd)
attrs[4] = attrs[5] = termios.B921600
attrs[3] &= ~(termios.ICANON | termios.ECHO)
termios.tcsetattr(fd, termios.TCSANOW, attrs)
time.sleep(0.3)
termios.tcflush(fd, termios.TCIFLUSH)
data = b"\x55" * 262144
t0 = time.monotonic()
off = 0
while off < len(data):
    off += os.write(fd, data[off:off + 4096])
print("%.3f" % (time.monotonic() - t0))
PY
}

for mode in --baud-timing --no-baud-timing; do
  "$VBOARD" --chip esp32 --link "$work/pty$mode" --control "$work/ctl$mode" $mode > "$work/out$mode" 2>&1 &
  pids+=($!)
done
for mode in --baud-timing --no-baud-timing; do
  for _ in $(seq 300); do [ -e "$work/pty$mode" ] && break; sleep 0.1; done
done
paced=$(measure "$work/pty--baud-timing")
free=$(measure "$work/pty--no-baud-timing")
echo "256 KiB at 921600 baud: paced ${paced}s, unpaced ${free}s"
# Even with 64 KiB buffered, at least 2.1 s of the 2.8 s wire time must be spent waiting.
python3 -c "import sys; sys.exit(0 if float('$paced') >= 1.8 else 1)" \
  || { echo "FAIL: input not paced at the line rate"; exit 1; }
echo "input pacing: ok"
