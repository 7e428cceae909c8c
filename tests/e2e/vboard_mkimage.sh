#!/bin/bash
# espbench-vboard mkimage lays out each chip's segments in that chip's memory
# map, as `esptool image_info` classifies them: the ranges below are esptool's
# targets/*.py MEMORY_MAP (esptool bb72741), kept here as independent test
# data. Flash-mapped segments (DROM, IROM) must have the same address and
# flash offset modulo the 64 KiB MMU page (the app sits at 0x10000), and the
# entry point must lie in the IRAM segment.
set -euo pipefail
: "${VBOARD:?}" "${BUILD_DIR:?}"
work=$(mktemp -d "${BUILD_DIR}/vboard_mkimage.XXXXXX")
trap 'rm -rf "$work"' EXIT
for chip in esp32 esp32s2 esp32s3 esp32c2 esp32c3 esp32c5 esp32c6 esp32c61 esp8266; do
    "$VBOARD" mkimage --chip "$chip" --project layout --idf v5.3 --size 300000 -o "$work/$chip.bin"
done
python3 - "$work" <<'PY'
import struct, sys
MAPS = {  # esptool targets: (start, end) of DROM, DRAM, IRAM, IROM
    "esp32":    {"DROM": (0x3F400000, 0x3F800000), "DRAM": (0x3FFAE000, 0x40000000),
                 "IRAM": (0x40080000, 0x400A0000), "IROM": (0x400D0000, 0x40400000)},
    "esp32s2":  {"DROM": (0x3F000000, 0x3FF80000), "DRAM": (0x3FFB0000, 0x40000000),
                 "IRAM": (0x40020000, 0x40070000), "IROM": (0x40080000, 0x40800000)},
    "esp32s3":  {"DROM": (0x3C000000, 0x3D000000), "DRAM": (0x3FC88000, 0x3FD00000),
                 "IRAM": (0x40370000, 0x403E0000), "IROM": (0x42000000, 0x42800000)},
    "esp32c2":  {"DROM": (0x3C000000, 0x3C400000), "DRAM": (0x3FCA0000, 0x3FCE0000),
                 "IRAM": (0x4037C000, 0x403C0000), "IROM": (0x42000000, 0x42400000)},
    "esp32c3":  {"DROM": (0x3C000000, 0x3C800000), "DRAM": (0x3FC80000, 0x3FCE0000),
                 "IRAM": (0x4037C000, 0x403E0000), "IROM": (0x42000000, 0x42800000)},
    "esp32c5":  {"DROM": (0x42000000, 0x44000000), "DRAM": (0x40800000, 0x40860000),
                 "IRAM": (0x40800000, 0x40860000), "IROM": (0x42000000, 0x44000000)},
    "esp32c6":  {"DROM": (0x42800000, 0x43000000), "DRAM": (0x40800000, 0x40880000),
                 "IRAM": (0x40800000, 0x40880000), "IROM": (0x42000000, 0x42800000)},
    "esp32c61": {"DROM": (0x42000000, 0x44000000), "DRAM": (0x40800000, 0x40860000),
                 "IRAM": (0x40800000, 0x40860000), "IROM": (0x42000000, 0x44000000)},
    "esp8266":  {"IRAM": (0x40100000, 0x40108000), "DRAM": (0x3FFE8000, 0x40000000),
                 "IROM": (0x40201010, 0x402E1010)},
}
ORDER = {"esp8266": ["IRAM", "DRAM", "IROM"]}
bad = []
for chip, m in MAPS.items():
    data = open(f"{sys.argv[1]}/{chip}.bin", "rb").read()
    magic, nseg, _, _, entry = struct.unpack("<BBBBI", data[:8])
    assert magic == 0xE9, chip
    off = 8 if chip == "esp8266" else 24
    want = ORDER.get(chip, ["DROM", "DRAM", "IRAM", "IROM"])
    segs = []
    for i in range(nseg):
        addr, ln = struct.unpack("<II", data[off:off + 8])
        segs.append((want[i], addr, ln, off + 8))
        off += 8 + ln
    spans = []
    for kind, addr, ln, foff in segs:
        lo, hi = m[kind]
        if not (lo <= addr and addr + ln <= hi):
            bad.append(f"{chip}: {kind} segment 0x{addr:08x}+0x{ln:x} outside 0x{lo:08x}..0x{hi:08x}")
        if kind in ("DROM", "IROM") and (addr - (foff + 0x10000)) % 0x10000:
            bad.append(f"{chip}: {kind} at 0x{addr:08x} but flash offset 0x{foff + 0x10000:x} (64 KiB page)")
        spans.append((addr, addr + ln, kind))
    spans.sort()
    for a, b in zip(spans, spans[1:]):
        if a[1] > b[0] and {a[2], b[2]} != {"DRAM", "IRAM"}:
            bad.append(f"{chip}: {a[2]} and {b[2]} overlap")
    iram = [s for s in segs if s[0] == "IRAM"][0]
    if not iram[1] <= entry < iram[1] + iram[2]:
        bad.append(f"{chip}: entry 0x{entry:08x} not in IRAM")
    print(f"ok {chip}: " + ", ".join(f"{k} 0x{a:08x}" for k, a, _, _ in segs))
if bad:
    print("FAIL:\n  " + "\n  ".join(bad))
    sys.exit(1)
PY
echo PASS
