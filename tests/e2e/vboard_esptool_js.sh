#!/bin/bash
# esptool-js 0.7.0 (npm) under Node drives espbench-vboard over its pty: chip
# detection, stub upload, baud change to 921600, compressed flash of a 1 MiB
# image with MD5 verified; the board then boots the flashed app.
set -euo pipefail
: "${VBOARD:?}" "${SOURCE_DIR:?}" "${BUILD_DIR:?}"
command -v node >/dev/null || { echo "FAIL: node is not installed (scripts/install-deps.sh --test)"; exit 1; }

# Node packages: npm ci into a cache under the build directory, reused while the lockfile is unchanged.
cache="$BUILD_DIR/node-esptool-js"
mkdir -p "$cache"
(
    flock 9 # the flash tests install the same package (flash_helpers.sh esptool_js_modules)
    if ! cmp -s "$SOURCE_DIR/tests/node/package-lock.json" "$cache/package-lock.json" \
        || [ ! -f "$cache/node_modules/esptool-js/package.json" ]; then
        cp "$SOURCE_DIR/tests/node/package.json" "$SOURCE_DIR/tests/node/package-lock.json" "$cache/"
        (cd "$cache" && timeout 240 npm ci --no-audit --no-fund --loglevel=error)
    fi
) 9>"$cache.lock"
cp "$SOURCE_DIR/tests/node/esptool_js_flash.mjs" "$cache/"

work=$(mktemp -d "${BUILD_DIR}/vboard_esptool_js.XXXXXX")
pid=
cleanup() {
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

"$VBOARD" mkimage --chip esp32s3 --project esptooljs-app --idf v5.2.1 --size 1048576 -o "$work/app.bin"
"$VBOARD" --chip esp32s3 --flash "$work/flash.bin" --link "$work/tty" --control "$work/ctl" \
    >"$work/stdout" 2>"$work/stderr" &
pid=$!
for _ in $(seq 600); do [ -S "$work/ctl" ] && [ -s "$work/stdout" ] && break; sleep 0.05; done

# The board is strict (a SYNC does not reset a running app; flash timing on):
# esptool-js's own DTR/RTS sequences reach its reset circuit through the
# control socket, so its classic reset is what enters the loader.
export VBOARD_CONTROL="$work/ctl"
timeout 240 node "$cache/esptool_js_flash.mjs" "$work/tty" "$work/app.bin" 0x10000 ESP32-S3

# esptool-js 0.7.0's HardReset only releases RTS (lib/reset.js: sleep, setRTS(false)),
# never asserting it, so on a board with the usual reset circuit the stub keeps
# running - the strict board agrees. A reset (EN) then boots the flashed app.
python3 - "$work/ctl" "$work/flash.bin" "$work/app.bin" <<'PY'
import socket, sys, time
def ctl(cmd):
    s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(sys.argv[1])
    s.sendall(cmd.encode() + b"\n"); r = s.recv(256).decode().strip(); s.close(); return r
st = ctl("status")
assert "mode=stub" in st, st
assert ctl("reset") == "ok reset"
st = ctl("status")
assert "mode=app" in st and "project=esptooljs-app" in st and "idf=v5.2.1" in st, st
flash = open(sys.argv[2], "rb").read(); app = open(sys.argv[3], "rb").read()
assert flash[0x10000:0x10000 + len(app)] == app, "flash content differs from the image"
print("ok app boots:", st)
PY
kill -TERM "$pid"; wait "$pid"; pid=

# the chips whose ROM lacks GET_SECURITY_INFO (magic fallback), ESP8266 with 2 status bytes
for pair in esp32:ESP32 esp8266:ESP8266; do
    chip=${pair%%:*} name=${pair#*:}
    rm -f "$work/flash.bin" "$work/ctl"
    "$VBOARD" mkimage --chip "$chip" --project esptooljs-app --idf v4.4.7 --size 200000 -o "$work/app.bin"
    "$VBOARD" --chip "$chip" --flash "$work/flash.bin" --link "$work/tty" --control "$work/ctl" \
        >"$work/stdout" 2>"$work/stderr" &
    pid=$!
    for _ in $(seq 600); do [ -S "$work/ctl" ] && [ -s "$work/stdout" ] && break; sleep 0.05; done
    timeout 240 node "$cache/esptool_js_flash.mjs" "$work/tty" "$work/app.bin" 0x10000 "$name" | grep -E '^(Chip is|PASS)'
    kill -TERM "$pid"; wait "$pid"; pid=
done
echo PASS
