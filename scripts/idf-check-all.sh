#!/usr/bin/env bash
# Every check of the firmware against one ESP-IDF release's source tree
# (docs/firmware.md, "Checking against ESP-IDF"): scripts/idf-syntax-check.sh for
# every RISC-V chip that release has Wi-Fi for (SOC_WIFI_SUPPORTED), with each
# console the chip has (USB-Serial-JTAG where SOC_USB_SERIAL_JTAG_SUPPORTED), and
# on a release with esp_libc (v6.0) with both C libraries; the option check
# (scripts/idf-kconfig-check.py) for the Xtensa chips. One RESULT line per
# combination; each combination's output in LOGDIR (default: a temporary
# directory, removed).
#
# usage: scripts/idf-check-all.sh IDF_DIR IPERF_DIR LWIP_DIR [LOGDIR]
# exit: 0 every combination passed, 1 one failed, 2 usage
set -uo pipefail
[ $# -ge 3 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
idf=$1 iperf=$2 lwip=$3
py=${PYTHON:-/usr/bin/python3}
if [ -n "${4:-}" ]; then
  logs=$4
  mkdir -p "$logs"
else
  logs=$(mktemp -d /tmp/espbench-idfcheck-all.XXXXXX)
  trap 'rm -rf "$logs"' EXIT
fi
ver=$(sed -n 's/^#define ESP_IDF_VERSION_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\).*/\2/p' \
  "$idf/components/esp_common/include/esp_idf_version.h" | paste -sd.)
has() { grep -Eq "^#define SOC_$2_SUPPORTED +1" "$idf/components/soc/$1/include/soc/soc_caps.h" 2>/dev/null; }
libcs=default
[ -d "$idf/components/esp_libc" ] && libcs="default newlib"
rc=0
for chip in esp32c2 esp32c3 esp32c5 esp32c6 esp32c61; do
  if ! has $chip WIFI; then
    echo "RESULT v$ver $chip: not checked (no Wi-Fi for it in this ESP-IDF)"
    continue
  fi
  consoles=uart0
  has $chip USB_SERIAL_JTAG && consoles="uart0 usb-serial-jtag"
  for console in $consoles; do
    for libc in $libcs; do
      log=$logs/v$ver-$chip-$console-$libc.log
      if "$top/scripts/idf-syntax-check.sh" "$idf" "$iperf" "$lwip" $chip $console $libc >"$log" 2>&1; then
        r=ok
      else
        r=FAILED rc=1
      fi
      echo "RESULT v$ver $chip $console libc=$libc: $r ($(grep -c 'warning:' "$log") warnings)"
    done
  done
done
for chip in esp32 esp32s2 esp32s3; do
  log=$logs/v$ver-$chip-options.log
  if ! has $chip WIFI; then
    echo "RESULT v$ver $chip: not checked (no Wi-Fi for it in this ESP-IDF)"
    continue
  fi
  if "$py" "$top/scripts/idf-kconfig-check.py" --idf "$idf" --target $chip --component "$iperf" --version "$ver" \
      "$top/firmware/sdkconfig.defaults" "$top/firmware/sdkconfig.console-uart0" >"$log" 2>&1; then
    r=ok
  else
    r=FAILED rc=1
  fi
  echo "RESULT v$ver $chip options only: $r"
done
exit $rc
