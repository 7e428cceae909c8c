#!/usr/bin/env bash
# Flashing between pre-filled canaries, on every chip, through the ROM loader, through Espressif's
# flasher stub uploaded by espbench (esptool-js's stub files, --stub FILE) and through a stub left
# running by another tool, compressed and plain: inside each region the image, from its end to the end of
# its last 4 KiB sector erased flash (any loader erases whole sectors), and past that nothing may
# change. At the end of a compressed stream the ESP32 ROM programs its whole 32 KiB inflate buffer,
# unerased, at the window holding the end — the window after it when the end is on a boundary
# (measured on the chip's ROM in Espressif's QEMU; the vboard does the same: docs/flashing.md) — so
# this guards espbench's way around it, with one image ending inside a window (70001 bytes) and one
# ending on a boundary (65536). The vboard's flash file is a plain file: it is pre-filled in place
# while the board waits in download mode.
source "$(dirname "$0")/lib/flash_helpers.sh"
VB_STRICT=1 # the loader is entered through the control socket, as BOOT+EN would
JS="$(esptool_js_modules)/esptool-js/lib/targets/stub_flasher"

# make_expected CANARY EXPECTED SIZE IMAGE@OFF...: a canary pattern of SIZE bytes that differs from
# its neighbours 32 KiB away (stale copies show), and what the flash must hold after writing the
# images: each image, 0xFF to the end of its last sector, the canary everywhere else.
make_expected() {
    python3 - "$@" <<'PY'
import sys
canary, expected, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
pat = bytes(((i * 7) ^ (i >> 15) ^ 0x5A) & 0xFF for i in range(65536))
data = bytearray((pat * (size // len(pat) + 1))[:size])
open(canary, "wb").write(data)
for arg in sys.argv[4:]:
    path, off = arg.rsplit("@", 1)
    off, img = int(off, 0), open(path, "rb").read()
    end = (off + len(img) + 0xFFF) & ~0xFFF
    data[off:end] = img + b"\xff" * (end - off - len(img))
open(expected, "wb").write(data)
PY
}

# check_flash FLASH EXPECTED IMAGE@OFF...: equal but for the slack between an image's end and its
# last sector's end (erased by every loader; the ESP32-C3 ROM pads a compressed stream's end to 4
# bytes there from its inflate buffer: docs/flashing.md), or one line on where they differ.
check_flash() {
    cmp -s "$1" "$2" && return 0
    python3 - "$@" <<'PY'
import os, sys
a, b = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
slack = []
for arg in sys.argv[3:]:
    path, off = arg.rsplit("@", 1)
    end = int(off, 0) + os.path.getsize(path)
    slack.append((end, (end + 0xFFF) & ~0xFFF))
bad = [i for i in range(len(b)) if a[i] != b[i] and not any(lo <= i < hi for lo, hi in slack)]
if bad:
    sys.exit("%d bytes differ, first at 0x%x (0x%02x, want 0x%02x), last at 0x%x" % (len(bad), bad[0], a[bad[0]], b[bad[0]], bad[-1]))
PY
}

one_chip() {
    local chip=$1
    start_vboard "$chip" "$chip" --no-baud-timing --control "$T/$chip.ctl"
    mkimage "$chip" "$T/$chip.app" 70001 canary   # ESP32 ROM: 60 KiB compressed, the tail plain
    mkimage "$chip" "$T/$chip.app2" 65536 canary2 # ends on a window boundary: 60 KiB compressed, 4 KiB plain
    head -c 5001 /dev/urandom >"$T/$chip.blob"    # one region that is not an image, mid-sector end
    [ "$(head -c 1 "$T/$chip.blob" | od -An -tx1 | tr -d ' ')" = e9 ] && printf '\x00' | dd of="$T/$chip.blob" conv=notrunc 2>/dev/null
    local regions=("$T/$chip.blob@0x9000" "$T/$chip.app@0x10000" "$T/$chip.app2@0x30000")
    make_expected "$T/$chip.canary" "$T/$chip.expected" "$(stat -c %s "$T/$chip.flash")" "${regions[@]}"
    # The board stays in its loader (--after no-reset) from case to case; an uploaded stub is left
    # the default way (back to the ROM loader, then the ROM runs the application: the board is put
    # into download mode again), and so is the last case's stub.
    vb_ctl "$chip" download >/dev/null
    for loader in rom upload stub; do
        [ $loader = stub ] && stub_upload "$T/$chip.tty" "$chip"
        for mode in compressed plain; do
            # pre-fill in place (the board maps the file: never truncate it)
            dd if="$T/$chip.canary" of="$T/$chip.flash" bs=1M conv=notrunc status=none
            local extra=(--after no-reset --stub off)
            [ $mode = plain ] && extra=(--no-compress --stub off)
            [ $loader = rom ] && [ $mode = plain ] && extra+=(--after no-reset)
            [ $loader = upload ] && extra=(--stub "$JS/$chip.json") && [ $mode = plain ] && extra+=(--no-compress)
            timeout 240 "$ESPBENCH" flash --port "$T/$chip.tty" "${extra[@]}" "${regions[@]}" >"$T/$chip.out" 2>"$T/$chip.err" ||
                { cat "$T/$chip.out" "$T/$chip.err"; fail "$chip $loader $mode: flash"; }
            if [ $loader = stub ]; then
                grep -q "a flasher stub answers" "$T/$chip.err" || { cat "$T/$chip.err"; fail "$chip: stub not used"; }
            fi
            if [ $loader = upload ]; then
                grep -qF "loader: stub: file ($JS/$chip.json)" "$T/$chip.out" || { cat "$T/$chip.out" "$T/$chip.err"; fail "$chip: stub not uploaded"; }
                grep -q "reset into the application" "$T/$chip.out" || { cat "$T/$chip.out"; fail "$chip: leaving the uploaded stub"; }
                vb_ctl "$chip" download >/dev/null
            fi
            check_flash "$T/$chip.flash" "$T/$chip.expected" "${regions[@]}" || fail "$chip $loader $mode: flash outside the regions' sectors changed"
            echo "ok $chip $loader $mode"
        done
    done
    grep -q "reset into the application" "$T/$chip.out" || { cat "$T/$chip.out"; fail "$chip: leaving the stub"; }
}
for_each_chip one_chip
echo ok
