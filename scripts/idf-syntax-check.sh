#!/usr/bin/env bash
# Header-level compile of the firmware against an ESP-IDF source tree for one
# RISC-V chip, as ESP-IDF's build would see it, without an ESP-IDF installation
# or its toolchain. A manual check (docs/firmware.md, "Checking against
# ESP-IDF"); nothing it makes is kept. Per version, chip and console:
#  1. the option check: every setting of the firmware's defaults applies
#     (scripts/idf-kconfig-check.py, which also writes sdkconfig and sdkconfig.h);
#  2. the component graph: each component's sources (firmware/main, the
#     portable core, the espressif/iperf component) are compiled with the
#     include directories of that component's requirement closure only
#     (scripts/idf-component-graph.py evaluates every component's
#     CMakeLists.txt), so a header a real build would not find is an error here
#     too; the headers the firmware names are then listed with the component
#     each comes from;
#  3. ESP-IDF's warning flags and C standard of that version, -Werror for every
#     warning in the firmware's own sources; the iperf component with ESP-IDF's
#     -Werror set and its own compile options (it adds -Wno-format).
# The C library: the sdkconfig's choice -- newlib (the newlib component before
# v6.0, esp_libc's CONFIG_LIBC_NEWLIB from v6.0) with Debian's newlib 3.3
# headers, or picolibc (v6.0's default CONFIG_LIBC_PICOLIBC) with Debian's.
#
# Needs: gcc-riscv64-unknown-elf, libnewlib-dev, picolibc-riscv64-unknown-elf,
# python3-kconfiglib (Debian), an ESP-IDF release's files (components, tools/cmake,
# tools/tools.json, Kconfig, sdkconfig.rename; submodules absent), the
# espressif/iperf component's files and lwIP's src/include (ESP-IDF's
# components/lwip/lwip submodule).
#
# usage: scripts/idf-syntax-check.sh IDF_DIR IPERF_DIR LWIP_DIR [CHIP [CONSOLE [LIBC]]]
#        CHIP: esp32c3 (default), esp32c2, esp32c5, esp32c6, esp32c61
#        CONSOLE: uart0 (default) or usb-serial-jtag
#        LIBC: default (the sdkconfig's), newlib or picolibc (v6.0 and later)
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,31p' "$0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
idf=$(cd "$1" && pwd) iperf=$(cd "$2" && pwd) lwip=$(cd "$3" && pwd)
chip=${4:-esp32c3} console=${5:-uart0} libc=${6:-default}
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
tag="v$ver $chip $console"

# The C library component: newlib, renamed esp_libc in v6.0.
libcomp=newlib
[ -d "$idf/components/esp_libc" ] && libcomp=esp_libc
extra=()
case $libc in
default) ;;
newlib | picolibc)
  [ $libcomp = esp_libc ] || { echo "idf-syntax-check: v$ver has newlib only" >&2; exit 2; }
  echo "CONFIG_LIBC_${libc^^}=y" >"$tmp/sdkconfig.libc"
  extra=("$tmp/sdkconfig.libc") tag="$tag $libc" ;;
*) echo "idf-syntax-check: LIBC is default, newlib or picolibc" >&2; exit 2 ;;
esac

# 1. sdkconfig and sdkconfig.h from the firmware's defaults.
"$py" "$top/scripts/idf-kconfig-check.py" --idf "$idf" --target "$chip" --component "$iperf" --version "$ver" \
  --header "$tmp/config/sdkconfig.h" --config "$tmp/sdkconfig" \
  "$top/firmware/sdkconfig.defaults" "$top/firmware/sdkconfig.console-$console" "${extra[@]}"
if grep -q '^CONFIG_LIBC_PICOLIBC=y' "$tmp/sdkconfig"; then
  clib=picolibc
else
  clib=newlib
fi

# The C library's headers: Debian's newlib 3.3 stands in for the Espressif
# toolchain's newlib 4.x, Debian's picolibc 1.8 for its picolibc, with
# stand-ins (types only) where they differ in ways ESP-IDF's headers see.
# Debian's newlib and picolibc both have an #error stub for sys/dirent.h, where
# the toolchain's declares DIR (ESP-IDF's vfs headers use it): a stand-in, types
# only, placed before either.
mkdir -p "$tmp/libc/sys"
cat >"$tmp/libc/sys/dirent.h" <<'H'
#pragma once
#include <stdint.h>
#include <sys/types.h>
typedef struct { uint16_t dd_vfs_idx; uint16_t dd_rsv; } DIR;
struct dirent { ino_t d_ino; uint8_t d_type; char d_name[256]; };
H
# GCC's own headers come first, as in a toolchain's default search order (newlib
# 3.3 ships a stdatomic.h of its own that would shadow GCC's).
gccinc=$(riscv64-unknown-elf-gcc -print-file-name=include)
if [ $clib = picolibc ]; then
  # esp_libc's stdio.h uses ssize_t right after its #include_next <stdio.h>, so
  # the toolchain's picolibc stdio.h declares it; Debian's 1.8 does not: a
  # stand-in declares it from sys/types.h, placed before Debian's.
  mkdir -p "$tmp/picolibc"
  printf '#pragma once\n#include <sys/types.h>\n#include_next <stdio.h>\n' >"$tmp/picolibc/stdio.h"
  libc_inc=(-isystem "$gccinc" -isystem "$tmp/libc" -isystem "$tmp/picolibc" -isystem /usr/lib/picolibc/riscv64-unknown-elf/include)
else
  # From v5.3 ESP-IDF redeclares _global_impure_ptr without newlib 3.3's const.
  mkdir -p "$tmp/newlib/sys"
  if grep -q 'extern struct _reent \* *_global_impure_ptr;' "$idf/components/$libcomp/platform_include/sys/reent.h"; then
    sed 's/extern struct _reent \*const _global_impure_ptr/extern struct _reent *_global_impure_ptr/' \
      /usr/include/newlib/sys/reent.h >"$tmp/newlib/sys/reent.h"
  fi
  libc_inc=(-isystem "$gccinc" -isystem "$tmp/libc" -isystem "$tmp/newlib" -isystem /usr/include/newlib)
fi

# 2. The component graph. The iperf component as the component manager names it.
mkdir -p "$tmp/managed"
ln -s "$iperf" "$tmp/managed/espressif__iperf"
graph=("$py" "$top/scripts/idf-component-graph.py" --idf "$idf" --target "$chip" --config "$tmp/sdkconfig"
  --component "$top/firmware/main" --component "$top/firmware/components/espbench_core"
  --component "$tmp/managed/espressif__iperf" --map "components/lwip/lwip=$lwip")

# 3. ESP-IDF's compile definitions and warning flags (tools/cmake/build.cmake),
# and its C standard: gnu17 up to v5.5, gnu23 from v6.0 (GCC 12 calls it gnu2x).
cstd=gnu17
grep -q '"-std=gnu23"' "$idf/tools/cmake/build.cmake" && cstd=gnu2x
flags=(-march="$march" -mabi=ilp32 -std=$cstd -fsyntax-only
  -DESP_PLATFORM -DIDF_VER="\"v$ver\"" -D_GNU_SOURCE -D_POSIX_READER_WRITER_LOCKS
  -DSOC_MMU_PAGE_SIZE=CONFIG_MMU_PAGE_SIZE -DSOC_XTAL_FREQ_MHZ=CONFIG_XTAL_FREQ
  -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Wno-enum-conversion)
# The firmware's own sources: -Werror for every warning. A managed component:
# ESP-IDF's own -Werror set (v6.0: -Werror; before: -Werror=all) and exemptions.
own=(-Werror)
werr=-Werror=all
grep -q '^ *"-Werror"$' "$idf/tools/cmake/build.cmake" && werr=-Werror
theirs=("$werr" -Wno-error=unused-function -Wno-error=unused-variable -Wno-error=unused-but-set-variable
  -Wno-error=deprecated-declarations)
grep -q '"-Wno-error=extra"' "$idf/tools/cmake/build.cmake" && theirs+=(-Wno-error=extra)

rc=0
: >"$tmp/named"
# compile COMPONENT DIR: its .c files with the component's view of the graph.
compile() {
  local comp=$1 dir=$2 incs opts warn
  mapfile -t incs < <("${graph[@]}" --for "$comp" --includes | sed 's/^/-I/') || { rc=1; return; }
  mapfile -t opts < <("${graph[@]}" --for "$comp" --options)
  warn=("${own[@]}")
  [ "$comp" = espressif__iperf ] && warn=("${theirs[@]}")
  for f in "$dir"/*.c; do
    if riscv64-unknown-elf-gcc "${flags[@]}" "${warn[@]}" "${opts[@]}" -I"$tmp/config" "${incs[@]}" \
        "${libc_inc[@]}" "$f" 2>"$tmp/err"; then
      cat "$tmp/err" >&2
      echo "idf-syntax-check: $tag: $comp: ${f##*/}: ok"
    else
      cat "$tmp/err" >&2
      echo "idf-syntax-check: $tag: $comp: ${f##*/}: FAILED" >&2
      # A header not found: say which component has it (below).
      sed -n "s/^.*fatal error: \(.*\): No such file or directory$/$comp \1/p" "$tmp/err" >>"$tmp/missing"
      rc=1
    fi
  done
}
compile main "$top/firmware/main"
compile espbench_core "$top/firmware/components/espbench_core"
compile espressif__iperf "$iperf"

# The headers the firmware's sources name (after the preprocessor, so only the
# branch this version and console take), each with the component it comes from.
mapfile -t incs < <("${graph[@]}" --for main --includes | sed 's/^/-I/')
for f in "$top"/firmware/main/*.c; do
  riscv64-unknown-elf-gcc "${flags[@]}" -E -dI -I"$tmp/config" "${incs[@]}" "${libc_inc[@]}" "$f" 2>/dev/null |
    awk -v f="$f" 'index($0, "# 1 \"" f "\"") == 1 { in_f = 1; next }
      /^# [0-9]+ "/ { in_f = (index($0, "\"" f "\"") > 0); next }
      in_f && /^#include "/ { gsub(/^#include "|".*$/, ""); print }' >>"$tmp/named" || true
done
# A header a compile did not find: where it is, and whether the component requires that.
if [ -s "$tmp/missing" ]; then
  sort -u "$tmp/missing" | while read -r comp h; do
    "${graph[@]}" --for "$comp" --why "$h" | sed "s/^/idf-syntax-check: $tag: /" >&2 || true
  done
fi
touch "$tmp/missing"
mapfile -t named < <(sort -u "$tmp/named" | grep -v -x -e fw.h -e sdkconfig.h |
  grep -v -x -F -f <(cut -d' ' -f2 "$tmp/missing"; echo fw.h))
if ! "${graph[@]}" --for main --why "${named[@]}" >"$tmp/why"; then
  rc=1
  grep -v ': from ' "$tmp/why" | sed "s/^/idf-syntax-check: $tag: /" >&2
else
  echo "idf-syntax-check: $tag: component graph: $(grep -c . "$tmp/why") header(s) of firmware/main reachable through its requirements"
fi
exit $rc
