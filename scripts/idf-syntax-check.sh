#!/usr/bin/env bash
# Header-level compile of the firmware (firmware/main/*.c and the portable core)
# against an ESP-IDF source tree for one RISC-V chip, with ESP-IDF's warning flags
# and -Werror, without an ESP-IDF installation or its toolchain. A manual check
# (docs/firmware.md, "Checking against ESP-IDF"); nothing it makes is kept.
#
# Needs: gcc-riscv64-unknown-elf, libnewlib-dev, python3-kconfiglib (Debian), an
# ESP-IDF release's files (submodules absent), the espressif/iperf component's
# files and the lwIP sources' src/include (ESP-IDF's components/lwip/lwip submodule).
#
# usage: scripts/idf-syntax-check.sh IDF_DIR IPERF_DIR LWIP_DIR [CHIP [CONSOLE]]
#        CHIP: esp32c3 (default), esp32c2, esp32c5, esp32c6, esp32c61
#        CONSOLE: uart0 (default) or usb-serial-jtag
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
idf=$(cd "$1" && pwd) iperf=$(cd "$2" && pwd) lwip=$(cd "$3" && pwd)
chip=${4:-esp32c3} console=${5:-uart0}
py=${PYTHON:-/usr/bin/python3} # Debian's, which has kconfiglib
case $chip in
esp32c2 | esp32c3) march=rv32imc_zicsr_zifencei ;;
esp32c5 | esp32c6 | esp32c61) march=rv32imac_zicsr_zifencei ;;
*) echo "idf-syntax-check: $chip is not a RISC-V chip of the firmware" >&2; exit 2 ;;
esac
ver=$(sed -n 's/^#define ESP_IDF_VERSION_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\).*/\2/p' \
  "$idf/components/esp_common/include/esp_idf_version.h" | paste -sd.)
tmp=$(mktemp -d /tmp/espbench-idfcheck.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# sdkconfig.h from the firmware's defaults (the only generated header needed).
"$py" "$top/scripts/idf-kconfig-check.py" --idf "$idf" --target "$chip" --component "$iperf" --version "$ver" \
  --header "$tmp/config/sdkconfig.h" "$top/firmware/sdkconfig.defaults" "$top/firmware/sdkconfig.console-$console"

# Debian's newlib 3.3 stands in for the Espressif toolchain's newlib 4.x; two of
# its headers differ in ways ESP-IDF's headers see: sys/dirent.h is an #error stub
# (Espressif's declares DIR), and from v5.3 ESP-IDF redeclares _global_impure_ptr
# without newlib 3.3's const. Stand-ins, types only, placed before Debian's.
mkdir -p "$tmp/newlib/sys"
cat >"$tmp/newlib/sys/dirent.h" <<'H'
#pragma once
#include <stdint.h>
#include <sys/types.h>
typedef struct { uint16_t dd_vfs_idx; uint16_t dd_rsv; } DIR;
struct dirent { ino_t d_ino; uint8_t d_type; char d_name[256]; };
H
if grep -q 'extern struct _reent \* *_global_impure_ptr;' "$idf/components/newlib/platform_include/sys/reent.h"; then
  sed 's/extern struct _reent \*const _global_impure_ptr/extern struct _reent *_global_impure_ptr/' \
    /usr/include/newlib/sys/reent.h >"$tmp/newlib/sys/reent.h"
fi

# Include directories: every component's include/ for this chip and RISC-V (not
# other chips', Xtensa's, tests' or host stubs'), newlib's platform_include first,
# plus the FreeRTOS, lwIP port and chip-specific directories ESP-IDF adds.
"$py" - "$idf" "$chip" >"$tmp/includes" <<'PY'
import os, sys
idf, chip = sys.argv[1], sys.argv[2]
comp = os.path.join(idf, "components")
others = {d for d in os.listdir(os.path.join(comp, "soc")) if d.startswith("esp32") and d != chip} | {"linux"}
skip = others | {"xtensa", "test", "test_apps", "host_test", "sim", "stubs", "mock", "fixtures", "examples",
                 "private_include", "FreeRTOS-Kernel-SMP", "bt", "openthread", "ieee802154", "tinyusb", "esp_tee"}
found = []
for root, dirs, _ in os.walk(comp):
    if any(seg in skip for seg in os.path.relpath(root, comp).split(os.sep)):
        dirs[:] = []
    elif os.path.basename(root) in ("include", "platform_include"):
        found.append(root)
extra = ["freertos/config/include", "freertos/config/include/freertos", "freertos/config/riscv/include",
         "freertos/FreeRTOS-Kernel/portable/riscv/include/freertos", "freertos/FreeRTOS-Kernel/include/freertos",
         "freertos/esp_additions/include/freertos", "freertos/esp_additions/arch/riscv/include",
         "lwip/port/include", "lwip/port/freertos/include", "lwip/port/esp32xx/include", "lwip/include/apps",
         "esp_rom/%s" % chip, "esp_rom/%s/include" % chip, "esp_rom/%s/include/%s" % (chip, chip),
         "soc/%s/register" % chip, "esp_hw_support/port/%s/include" % chip, "esp_hw_support/port/include",
         "esp_system/port/include/riscv", "esp_wifi/include/local"]
first = [d for d in found if d.endswith(os.path.join("newlib", "platform_include"))]
for d in first + [os.path.join(comp, e) for e in extra if os.path.isdir(os.path.join(comp, e))] + \
        [d for d in found if d not in first]:
    print("-I" + d)
PY

mapfile -t incs <"$tmp/includes"
# ESP-IDF's compile definitions and warning flags (tools/cmake/build.cmake), with
# -Werror kept for every warning (ESP-IDF exempts a few from -Werror).
flags=(-march="$march" -mabi=ilp32 -std=gnu17 -fsyntax-only
  -DESP_PLATFORM -DIDF_VER="\"v$ver\"" -D_GNU_SOURCE -D_POSIX_READER_WRITER_LOCKS
  -DSOC_MMU_PAGE_SIZE=CONFIG_MMU_PAGE_SIZE -DSOC_XTAL_FREQ_MHZ=CONFIG_XTAL_FREQ
  -Wall -Werror -Wextra -Wno-unused-parameter -Wno-sign-compare -Wno-enum-conversion)
rc=0
for f in "$top"/firmware/main/*.c "$top"/firmware/components/espbench_core/*.c; do
  if riscv64-unknown-elf-gcc "${flags[@]}" -I"$tmp/config" "${incs[@]}" -I"$lwip/src/include" -I"$iperf/include" \
      -I"$top/firmware/components/espbench_core/include" -I"$top/firmware/main" \
      -isystem "$tmp/newlib" -isystem /usr/include/newlib "$f"; then
    echo "idf-syntax-check: v$ver $chip $console: ${f#"$top"/}: ok"
  else
    echo "idf-syntax-check: v$ver $chip $console: ${f#"$top"/}: FAILED" >&2
    rc=1
  fi
done
exit $rc
