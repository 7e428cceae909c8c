# espbench report --format html: one self-contained page that headless
# Chromium renders without console errors into a screenshot that is not blank.
set -euo pipefail
: "${ESPBENCH:?}" "${FIXTURES_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$ESPBENCH" report "$FIXTURES_DIR/results/esp32-sim-all-tiers.json" "$FIXTURES_DIR/results/lab-two-boards.json" \
    --vs-docs -o "$T/report.html"
test -s "$T/report.html"
if grep -Eq '<script|<link|src=|href=|url\(' "$T/report.html"; then
    echo "the page refers to outside resources"; exit 1
fi

source "$(dirname "$0")/lib/skip.sh"
command -v chromium >/dev/null || skip_test "chromium not installed (the page was checked, not rendered)"
chrome() {
    timeout 240 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --user-data-dir="$T/profile" \
        --enable-logging=stderr --v=0 "$@"
}
chrome --screenshot="$T/shot.png" --window-size=1200,2000 "file://$T/report.html" 2> "$T/chrome.log" >/dev/null
chrome --dump-dom "file://$T/report.html" > "$T/dom.html" 2>> "$T/chrome.log"
# Console messages and page errors are logged as "CONSOLE(...)" / "Uncaught".
if grep -E 'CONSOLE|Uncaught|ERR_FILE|net::ERR' "$T/chrome.log"; then
    echo "browser console reported errors"; exit 1
fi
python3 - "$T/shot.png" "$T/dom.html" <<'PY'
import struct, sys, zlib
png = open(sys.argv[1], "rb").read()
assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(png):
    n, kind = struct.unpack(">I4s", png[pos:pos + 8])
    data = png[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", data[:10])
        assert depth == 8 and ctype in (2, 6), (depth, ctype)
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += data
    pos += 12 + n
raw = zlib.decompress(idat)
stride = w * bpp + 1
# Undo the PNG row filters just enough to count colours.
prev = bytearray(w * bpp)
colours = set()
for y in range(h):
    f, row = raw[y * stride], bytearray(raw[y * stride + 1:(y + 1) * stride])
    for i in range(len(row)):
        a = row[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: row[i] = (row[i] + a) & 255
        elif f == 2: row[i] = (row[i] + b) & 255
        elif f == 3: row[i] = (row[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    if y % 4 == 0:
        for x in range(0, w, 3):
            colours.add(bytes(row[x * bpp:x * bpp + 3]))
    prev = row
assert len(colours) > 20, "screenshot looks blank: %d colours" % len(colours)
dom = open(sys.argv[2], encoding="utf-8").read()
assert dom.count("<svg") >= 7, dom.count("<svg")
assert "ESP32-S3" in dom and "ESP32-C3" in dom
print("screenshot %dx%d, %d colours" % (w, h, len(colours)))
PY
echo "PASS"
