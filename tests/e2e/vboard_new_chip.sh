#!/bin/bash
# A chip added from data alone: tests/fixtures/profiles/newchip/esp32t9.yaml
# (chip-level base: esp32c6) passed with --profiles, no C touched. `profiles
# show` lists its own and inherited facts; mkimage lays out an image in the
# inherited memory map; the vboard runs it (ROM banner, magic, chip id, the
# inherited SPI registers for the flash id) and boots that image; espbench
# detect and flash talk to it.
set -euo pipefail
: "${ESPBENCH:?}" "${VBOARD:?}" "${BUILD_DIR:?}" "${FIXTURES_DIR:?}"
unset ESPBENCH_PROFILES
dir="$FIXTURES_DIR/profiles/newchip"
work=$(mktemp -d "${BUILD_DIR}/vboard_new_chip.XXXXXX")
pid=
cleanup() {
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$ESPBENCH" --profiles "$dir" profiles show esp32t9 --json >"$work/show.json"
python3 - "$work/show.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["chip"] == "esp32t9" and d["base"] == "esp32c6" and d["chip_id"] == 99, d
assert d["magic"] == ["0x7E57C0DE"] and d["flash_size"] == 2 << 20, d          # its own
assert d["arch"] == "riscv" and d["cores"] == 1 and d["rom_security_info"], d   # from esp32c6
assert d["spi_regs"]["w0"] == "0x00000058" and d["memory_map"]["drom"] == "0x42800000", d
assert [t["name"] for t in d["tiers"]] == ["iperf"], d["tiers"]                  # tiers are not inherited
print("ok profiles show: own and inherited facts")
PY
"$ESPBENCH" --profiles "$dir" profiles list | grep -q '^esp32t9 ' || fail "profiles list lacks esp32t9"

"$VBOARD" mkimage --profiles "$dir" --chip esp32t9 --project newchip --idf v5.4 --size 100000 -o "$work/app.bin"
"$VBOARD" --profiles "$dir" --chip esp32t9 --flash "$work/flash.bin" --link "$work/tty" --control "$work/ctl" \
    --sync-resets >"$work/stdout" 2>"$work/stderr" &
pid=$!
for _ in $(seq 600); do [ -S "$work/ctl" ] && [ -e "$work/tty" ] && break; sleep 0.05; done
[ -e "$work/tty" ] || fail "vboard did not come up: $(cat "$work/stderr")"

"$ESPBENCH" --profiles "$dir" detect --port "$work/tty" >"$work/detect" 2>&1 || fail "detect: $(cat "$work/detect")"
grep -q "ESP32-T9" "$work/detect" || fail "detect did not name ESP32-T9: $(cat "$work/detect")"
grep -qi "2 *MB\|2MB" "$work/detect" || fail "detect did not read the 2 MB flash id: $(cat "$work/detect")"
"$ESPBENCH" --profiles "$dir" flash --port "$work/tty" --chip esp32t9 "$work/app.bin@0x10000" >"$work/flash" 2>&1 \
    || fail "flash: $(cat "$work/flash")"
python3 - "$work/ctl" <<'PY'
import socket, sys, time
def ctl(cmd):
    s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(sys.argv[1])
    s.sendall(cmd.encode() + b"\n"); r = s.recv(256).decode().strip(); s.close(); return r
ctl("reset")
end = time.monotonic() + 5
while "mode=app" not in ctl("status") and time.monotonic() < end:
    time.sleep(0.05)
st = ctl("status")
assert "mode=app" in st and "chip=esp32t9" in st and "project=newchip" in st, st
print("ok the vboard boots the new chip's image:", st)
PY
echo PASS
