#!/usr/bin/env bash
# Builds the espbench firmware for every chip and writes the firmware manifest
# that `espbench flash --firmware espbench` reads (docs/firmware.md). Needs an
# ESP-IDF (v5.1.2 to v6.0.x) environment: run `. $IDF_PATH/export.sh` first.
#
# Each chip gets a UART0-console image (firmware "espbench"); chips with a
# USB-Serial-JTAG peripheral also get one whose console is that port (firmware
# "espbench-usb-serial-jtag"), for boards whose only USB socket is the chip's own.
# A chip the installed ESP-IDF cannot build with Wi-Fi is skipped with one line.
# Every option the defaults set must apply in this ESP-IDF, or the build stops.
#
# Output: $ESPBENCH_FIRMWARE (default: firmware/) gets build-<chip>[-usb-serial-jtag]/,
# images/<firmware>/<chip>/ and manifest.json.
#
# usage: scripts/build-firmware.sh [CHIP...]     (default: every chip the firmware supports)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
fw="$top/firmware"
out="${ESPBENCH_FIRMWARE:-$fw}"
chips=("$@")
[ ${#chips[@]} -gt 0 ] || chips=(esp32 esp32s2 esp32s3 esp32c2 esp32c3 esp32c5 esp32c6 esp32c61)

if ! command -v idf.py >/dev/null 2>&1 || [ -z "${IDF_PATH:-}" ]; then
  echo "build-firmware: idf.py not found or IDF_PATH unset; run '. \$IDF_PATH/export.sh' (ESP-IDF v5.1.2 to v6.0.x) first" >&2
  exit 2
fi

# The ESP-IDF version, from the tree itself (idf.py --version may print a git describe).
idf_ver=$(sed -n 's/^#define ESP_IDF_VERSION_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\).*/\2/p' \
  "$IDF_PATH/components/esp_common/include/esp_idf_version.h" | paste -sd.)
if [ -z "$idf_ver" ]; then
  echo "build-firmware: cannot read the ESP-IDF version from $IDF_PATH/components/esp_common/include/esp_idf_version.h" >&2
  exit 2
fi
# The releases the firmware is checked with (docs/firmware.md, "Checking against
# ESP-IDF"); the same range as EB_IDF_FIRMWARE_MIN / EB_IDF_FIRMWARE_LAST_LINE
# in include/espbench/formats/idf_version.h, which `espbench build` enforces.
min=5.1.2 last_line=6.0
# LWIP_TCPIP_TASK_PRIO and LWIP_EXTRA_IRAM_OPTIMIZATION (the iperf example's) first exist in v5.1.2.
if [ "$(printf '%s\n%s\n' "$idf_ver" $min | sort -V | head -1)" != $min ]; then
  echo "build-firmware: ESP-IDF v$idf_ver is too old: the firmware needs v$min or later (its lwIP options first exist there)" >&2
  exit 2
fi
if [ "$(printf '%s\n%s\n' "${idf_ver%.*}" $last_line | sort -V | tail -1)" != $last_line ]; then
  echo "build-firmware: ESP-IDF v$idf_ver is newer than the firmware was checked with (v$min to v$last_line.x); check it first (docs/firmware.md, \"Checking against ESP-IDF\"), then widen the range" >&2
  exit 2
fi

# "stable", "preview" or "no": how this ESP-IDF lists the target (tools/idf_py_actions/constants.py,
# what `idf.py --list-targets` prints; preview targets need `idf.py --preview`).
target_kind() {
  python3 - "$IDF_PATH/tools/idf_py_actions/constants.py" "$1" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("idf_constants", sys.argv[1])
c = importlib.util.module_from_spec(spec)
spec.loader.exec_module(c)
t = sys.argv[2]
print("stable" if t in c.SUPPORTED_TARGETS else "preview" if t in getattr(c, "PREVIEW_TARGETS", []) else "no")
PY
}
# Whether the chip's SoC capabilities in this ESP-IDF have CAP (e.g. WIFI, USB_SERIAL_JTAG).
soc_has() {
  grep -Eq "^#define SOC_$2_SUPPORTED +1" "$IDF_PATH/components/soc/$1/include/soc/soc_caps.h" 2>/dev/null
}

# Builds one image: CHIP CONSOLE FIRMWARE-NAME BUILD-SUFFIX PREVIEW-FLAG
build_image() {
  local chip=$1 console=$2 name=$3 suffix=$4 preview=$5
  local build="$out/build-$chip$suffix" img="$out/images/$name/$chip"
  local defaults="$fw/sdkconfig.defaults;$fw/sdkconfig.console-$console"
  # From the defaults every time: a kept sdkconfig would ignore changes to them.
  mkdir -p "$build" && rm -f "$build/sdkconfig"
  local args=(-C "$fw" -B "$build" -DIDF_TARGET="$chip" -DSDKCONFIG="$build/sdkconfig" "-DSDKCONFIG_DEFAULTS=$defaults")
  [ -z "$preview" ] || args=("$preview" "${args[@]}")
  idf.py "${args[@]}" reconfigure
  # ESP-IDF drops an option it does not know (or whose dependencies fail) without a word.
  if ! python3 "$top/scripts/gen-sdkconfig.py" --applied "$build/sdkconfig" \
      "$fw/sdkconfig.defaults" "$fw/sdkconfig.defaults.$chip" "$fw/sdkconfig.console-$console"; then
    echo "build-firmware: $chip ($console console): ESP-IDF v$idf_ver does not take the settings above; not built" >&2
    exit 1
  fi
  idf.py "${args[@]}" build
  rm -rf "$img" && mkdir -p "$img"
  python3 - "$build" "$img" "$idf_ver" "$console" <<'PY'
import json, shutil, sys, os
build, img, idf, console = sys.argv[1:5]
args = json.load(open(os.path.join(build, "flasher_args.json")))
for offset, rel in args["flash_files"].items():
    shutil.copy(os.path.join(build, rel), os.path.join(img, os.path.basename(rel)))
json.dump({"flash_files": args["flash_files"], "idf": "v" + idf, "console": console},
          open(os.path.join(img, "build.json"), "w"), indent=1)
PY
}

for chip in "${chips[@]}"; do
  [ -f "$fw/sdkconfig.defaults.$chip" ] || { echo "build-firmware: no firmware/sdkconfig.defaults.$chip (the firmware does not support $chip)" >&2; exit 2; }
  kind=$(target_kind "$chip")
  if [ "$kind" = no ]; then
    echo "build-firmware: skipping $chip: not a target of ESP-IDF v$idf_ver"
    continue
  fi
  if ! soc_has "$chip" WIFI; then
    echo "build-firmware: skipping $chip: ESP-IDF v$idf_ver has no Wi-Fi for it yet"
    continue
  fi
  preview=
  if [ "$kind" = preview ]; then
    preview=--preview
    echo "build-firmware: $chip is a preview target in ESP-IDF v$idf_ver"
  fi
  build_image "$chip" uart0 espbench "" "$preview"
  if soc_has "$chip" USB_SERIAL_JTAG; then
    build_image "$chip" usb-serial-jtag espbench-usb-serial-jtag -usb-serial-jtag "$preview"
  fi
done

# The manifest lists every image built so far (also by earlier runs), with each file's SHA-256.
python3 - "$out" <<'PY'
import hashlib, json, os, sys
out = sys.argv[1]
FIRMWARE = {
    "espbench": ("uart0", "espbench firmware, console on UART0: buffer tiers switch at run time"),
    "espbench-usb-serial-jtag": ("usb-serial-jtag", "espbench firmware, console on the chip's USB-Serial-JTAG port: "
                                 "buffer tiers switch at run time"),
}
firmware = {}
for name, (console, description) in FIRMWARE.items():
    root = os.path.join(out, "images", name)
    chips = {}
    for chip in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        info = json.load(open(os.path.join(root, chip, "build.json")))
        images = []
        for offset, rel in sorted(info["flash_files"].items(), key=lambda kv: int(kv[0], 16)):
            path = os.path.join("images", name, chip, os.path.basename(rel))
            digest = hashlib.sha256(open(os.path.join(out, path), "rb").read()).hexdigest()
            images.append({"offset": offset, "file": path, "sha256": digest})
        chips[chip] = {"idf": info["idf"], "images": images}
    if chips:
        firmware[name] = {"description": description, "console": console, "chips": chips}
with open(os.path.join(out, "manifest.json"), "w") as f:
    json.dump({"schema": 1, "firmware": firmware}, f, indent=2)
    f.write("\n")
built = ["%s: %s" % (n, ", ".join(e["chips"])) for n, e in firmware.items()]
print("build-firmware: wrote %s (%s)" % (os.path.join(out, "manifest.json"), "; ".join(built) or "no image built yet"))
PY
