#!/usr/bin/env bash
# Builds the espbench firmware's emulator image: esp32c3, console on UART0,
# network through the OpenCores Ethernet MAC that Espressif's QEMU emulates
# (ESPBENCH_NET=openeth; no Wi-Fi driver in the image). It writes the
# bootloader, the partition table, the app and a 4 MB flash file to boot with
# `qemu-system-riscv32 -M esp32c3 -drive file=flash.bin,if=mtd,format=raw`.
#
# It builds only the project's firmware. Everything it is given is prepared
# beforehand, outside the repository (docs/firmware.md, "The emulator image"):
#   --idf DIR        an ESP-IDF v6.0.x tree (a copy with its submodules)
#   --toolchain DIR  a directory with riscv32-esp-elf-gcc & co. (Espressif's
#                    toolchain, or wrappers around Debian's riscv64-unknown-elf)
#   --iperf DIR      the espressif/iperf component (iperf-cmd's iperf/ folder)
# and optionally
#   --out DIR        where the images go (default: firmware/images/espbench-openeth/esp32c3)
#   --build DIR      the build directory (default: firmware/build-esp32c3-openeth)
#   --defaults FILE  one more sdkconfig defaults file, applied last (repeatable)
#   --idf-commit SHA the ESP-IDF commit `version` reports when --idf is not a git checkout
#   --sources TEXT   the sources used in place of those ESP-IDF pins, as `version`
#                    reports them (sources=): "name=used for pinned,..." (< 200 chars)
#   --python PATH    the Python ESP-IDF's build runs (default: python3 on PATH);
#                    its modules (kconfgen, esptool, ...) must import
# The component manager is off: the build uses only what it is given.
#
# usage: scripts/build-firmware-qemu.sh --idf DIR --toolchain DIR --iperf DIR [options]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
fw="$top/firmware"
me=build-firmware-qemu
idf= toolchain= iperf= out= build= commit= sources= python=python3
extra=()
usage() { sed -n '/^# usage:/s/^# //p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --idf|--toolchain|--iperf|--out|--build|--defaults|--idf-commit|--sources|--python)
      [ $# -ge 2 ] || { echo "$me: $1 needs a value" >&2; usage; }
      case "$1" in
        --idf) idf=$2;; --toolchain) toolchain=$2;; --iperf) iperf=$2;; --out) out=$2;;
        --build) build=$2;; --defaults) extra+=("$(realpath "$2")");; --idf-commit) commit=$2;; --sources) sources=$2;;
        --python) python=$2;;
      esac
      shift 2;;
    -h|--help) usage;;
    *) echo "$me: unknown argument $1" >&2; usage;;
  esac
done
[ -n "$idf" ] && [ -n "$toolchain" ] && [ -n "$iperf" ] || { echo "$me: --idf, --toolchain and --iperf are required" >&2; usage; }
need() { [ -e "$1" ] || { echo "$me: $1 not found: $2" >&2; exit 2; }; }
need "$idf/tools/cmake/project.cmake" "--idf must be an ESP-IDF tree"
need "$toolchain/riscv32-esp-elf-gcc" "--toolchain must hold riscv32-esp-elf-gcc"
need "$iperf/idf_component.yml" "--iperf must be the espressif/iperf component"
for f in "${extra[@]}"; do need "$f" "--defaults file"; done
idf=$(realpath "$idf"); toolchain=$(realpath "$toolchain"); iperf=$(realpath "$iperf")
out=$(realpath -m "${out:-$fw/images/espbench-openeth/esp32c3}")
build=$(realpath -m "${build:-$fw/build-esp32c3-openeth}")

idf_ver=$(sed -n 's/^#define ESP_IDF_VERSION_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\).*/\2/p' \
  "$idf/components/esp_common/include/esp_idf_version.h" | paste -sd.)
case "$idf_ver" in
  6.0.*) ;;
  *) echo "$me: ESP-IDF v$idf_ver: this recipe is made and checked with v6.0.x (MINIMAL_BUILD, open_eth)" >&2; exit 2;;
esac

export IDF_PATH="$idf" PATH="$toolchain:$PATH"
export IDF_COMPONENT_MANAGER=0
# ESP-IDF stops when the compiler is not the release it lists; a maintainer
# build warns instead, which a toolchain other than Espressif's needs.
export IDF_MAINTAINER=1

defaults="$fw/sdkconfig.defaults;$fw/sdkconfig.console-uart0"
for f in "${extra[@]}"; do defaults="$defaults;$f"; done
args=(-S "$fw" -B "$build" -G Ninja -DIDF_TARGET=esp32c3 -DESPBENCH_NET=openeth
      -DSDKCONFIG="$build/sdkconfig" "-DSDKCONFIG_DEFAULTS=$defaults"
      "-DEXTRA_COMPONENT_DIRS=$iperf" -DPYTHON="$(command -v "$python")" -DPYTHON_DEPS_CHECKED=1)
[ -z "$commit" ] || args+=(-DESPBENCH_IDF_COMMIT="$commit")
[ ${#sources} -lt 200 ] || { echo "$me: --sources: ${#sources} characters, at most 199 (one console line holds the version reply)" >&2; exit 2; }
[ -z "$sources" ] || args+=(-DESPBENCH_FW_SOURCES="$sources")
# From the defaults every time: a kept sdkconfig would ignore changes to them.
mkdir -p "$build" && rm -f "$build/sdkconfig"
t0=$(date +%s)
cmake "${args[@]}"
# ESP-IDF drops an option it does not know without a word. The Wi-Fi options
# of the shared defaults cannot apply: this image has no Wi-Fi driver.
"$python" "$top/scripts/gen-sdkconfig.py" --applied "$build/sdkconfig" --ignore CONFIG_ESP_WIFI_ \
  "$fw/sdkconfig.defaults" "$fw/sdkconfig.defaults.esp32c3" "$fw/sdkconfig.console-uart0" \
  "$fw/sdkconfig.net-openeth" "${extra[@]}" ||
  { echo "$me: ESP-IDF v$idf_ver does not take the settings above; not built" >&2; exit 1; }
t1=$(date +%s)
cmake --build "$build"
t2=$(date +%s)

rm -rf "$out" && mkdir -p "$out"
"$python" - "$build" "$out" <<'PY'
import json, os, shutil, sys
build, out = sys.argv[1:3]
args = json.load(open(os.path.join(build, "flasher_args.json")))
flash = bytearray(b"\xff" * (4 << 20))  # erased NOR flash reads 0xff
for offset, rel in args["flash_files"].items():
    data = open(os.path.join(build, rel), "rb").read()
    o = int(offset, 16)
    if o + len(data) > len(flash):
        sys.exit("build-firmware-qemu: %s at %s does not fit in 4 MB" % (rel, offset))
    flash[o:o + len(data)] = data
    shutil.copy(os.path.join(build, rel), os.path.join(out, os.path.basename(rel)))
for name in ("espbench.elf", "sdkconfig", "flasher_args.json"):
    shutil.copy(os.path.join(build, name), os.path.join(out, name))
open(os.path.join(out, "flash.bin"), "wb").write(flash)
PY
echo "$me: configure $((t1 - t0)) s, build $((t2 - t1)) s; images in $out"
ls -l "$out"
