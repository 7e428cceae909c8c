#!/usr/bin/env bash
# scripts/build-firmware.sh against a stand-in ESP-IDF (its version header, its
# target lists and SoC capabilities, and an idf.py that turns the defaults into
# an sdkconfig and writes images): chips that ESP-IDF cannot build with Wi-Fi are
# skipped with one line and the manifest is still written; chips with
# USB-Serial-JTAG also get that console's image, which espbench then flashes; a
# setting ESP-IDF drops stops the build; an ESP-IDF before v5.1.2 is refused.
source "$(dirname "$0")/lib/flash_helpers.sh"

# fake_idf VERSION STABLE-TARGETS PREVIEW-TARGETS: an ESP-IDF tree in $T/idf.
fake_idf() {
    local idf=$T/idf
    rm -rf "$idf" && mkdir -p "$idf/components/esp_common/include" "$idf/tools/idf_py_actions"
    IFS=. read -r major minor patch <<<"$1"
    printf '#define ESP_IDF_VERSION_MAJOR   %s\n#define ESP_IDF_VERSION_MINOR   %s\n#define ESP_IDF_VERSION_PATCH   %s\n' \
        "$major" "$minor" "$patch" >"$idf/components/esp_common/include/esp_idf_version.h"
    printf 'import os\nSUPPORTED_TARGETS = %s\nPREVIEW_TARGETS = %s\n' "$2" "$3" >"$idf/tools/idf_py_actions/constants.py"
}
# soc CHIP CAP...: the chip's soc_caps.h with SOC_<CAP>_SUPPORTED 1 for each CAP.
soc() {
    local d=$T/idf/components/soc/$1/include/soc
    shift
    mkdir -p "$d"
    echo "// #define SOC_WIFI_SUPPORTED 1" >"$d/soc_caps.h"
    for cap in "$@"; do echo "#define SOC_${cap}_SUPPORTED            1" >>"$d/soc_caps.h"; done
}

# idf.py: reconfigure writes the sdkconfig from the defaults files (each, then
# FILE.<target>), leaving out the options named in $FAKE_IDF_DROP; build writes
# images made by espbench-vboard and flasher_args.json.
mkdir -p "$T/bin"
cat >"$T/bin/idf.py" <<'SH'
#!/usr/bin/env bash
set -euo pipefail
echo "idf.py $*" >>"$FAKE_IDF_LOG"
build= target= defaults= action=
for a in "$@"; do
    case $a in
    -DIDF_TARGET=*) target=${a#*=} ;;
    -DSDKCONFIG_DEFAULTS=*) defaults=${a#*=} ;;
    reconfigure | build) action=$a ;;
    esac
done
while [ $# -gt 0 ]; do [ "$1" = -B ] && build=$2; shift; done
if [ "$action" = reconfigure ]; then
    : >"$build/sdkconfig"
    IFS=';' read -ra files <<<"$defaults"
    for f in "${files[@]}"; do
        for g in "$f" "$f.$target"; do
            [ -f "$g" ] || continue
            grep '^CONFIG_' "$g" | grep -v -E "^(${FAKE_IDF_DROP:-NONE})=" |
                sed -E 's/^(CONFIG_[A-Z0-9_]+)=n$/# \1 is not set/' >>"$build/sdkconfig"
        done
    done
else
    mkdir -p "$build/bootloader" "$build/partition_table"
    "$VBOARD" mkimage --chip "$target" --project bootloader --idf v5.3.2 --size 4096 -o "$build/bootloader/bootloader.bin" >/dev/null
    console=uart0; grep -q '^CONFIG_ESP_CONSOLE_USB_SERIAL_JTAG=y' "$build/sdkconfig" && console=usb-serial-jtag
    "$VBOARD" mkimage --chip "$target" --project "espbench-$console" --idf v5.3.2 --size 8192 -o "$build/espbench.bin" >/dev/null
    printf '\xaa\x50partition table' >"$build/partition_table/partition-table.bin"
    boot=0x0; [ "$target" = esp32 ] && boot=0x1000
    printf '{"flash_files": {"%s": "bootloader/bootloader.bin", "0x8000": "partition_table/partition-table.bin", "0x10000": "espbench.bin"}}\n' \
        "$boot" >"$build/flasher_args.json"
fi
SH
chmod +x "$T/bin/idf.py"
# /usr/bin first: Debian's python3 starts in a fraction of a second, a pyenv shim
# may take seconds, and the script runs python3 a few times per image.
export PATH="$T/bin:/usr/bin:$PATH" IDF_PATH="$T/idf" FAKE_IDF_LOG="$T/idf.log" ESPBENCH_FIRMWARE="$T/out" VBOARD

# ESP-IDF v5.3.2: esp32c5 is a preview target without Wi-Fi there.
fake_idf 5.3.2 "['esp32', 'esp32c3']" "['linux', 'esp32c5']"
soc esp32 WIFI
soc esp32c3 WIFI USB_SERIAL_JTAG
soc esp32c5 USB_SERIAL_JTAG
bash "$SOURCE_DIR/scripts/build-firmware.sh" esp32 esp32c3 esp32c5 >"$T/build.out" 2>"$T/build.err" ||
    { cat "$T/build.out" "$T/build.err"; fail "build-firmware.sh with v5.3.2"; }
grep -qx "build-firmware: skipping esp32c5: ESP-IDF v5.3.2 has no Wi-Fi for it yet" "$T/build.out" ||
    { cat "$T/build.out"; fail "esp32c5 skip line"; }
grep -qx "build-firmware: wrote $T/out/manifest.json (espbench: esp32, esp32c3; espbench-usb-serial-jtag: esp32c3)" "$T/build.out" ||
    { cat "$T/build.out"; fail "manifest line"; }
python3 - "$T/out/manifest.json" <<'PY' || fail "manifest content"
import json, sys
m = json.load(open(sys.argv[1]))["firmware"]
assert sorted(m) == ["espbench", "espbench-usb-serial-jtag"], m
assert m["espbench"]["console"] == "uart0" and m["espbench-usb-serial-jtag"]["console"] == "usb-serial-jtag"
assert sorted(m["espbench"]["chips"]) == ["esp32", "esp32c3"]
assert list(m["espbench-usb-serial-jtag"]["chips"]) == ["esp32c3"]
assert m["espbench"]["chips"]["esp32c3"]["idf"] == "v5.3.2"
assert [i["offset"] for i in m["espbench"]["chips"]["esp32"]["images"]] == ["0x1000", "0x8000", "0x10000"]
PY
grep -q "^CONFIG_ESP_CONSOLE_USB_SERIAL_JTAG=y" "$T/out/build-esp32c3-usb-serial-jtag/sdkconfig" || fail "USB-Serial-JTAG defaults"
grep -q "^CONFIG_ESP_CONSOLE_UART_DEFAULT=y" "$T/out/build-esp32c3/sdkconfig" || fail "UART0 defaults"
if grep -q -- --preview "$T/idf.log"; then fail "no preview target was built"; fi

# The USB-Serial-JTAG image is what espbench flashes when that firmware is named.
start_vboard c3 esp32c3 --no-baud-timing
timeout 240 "$ESPBENCH" flash --port "$T/c3.tty" --manifest "$T/out/manifest.json" --firmware espbench-usb-serial-jtag \
    >"$T/out.txt" 2>"$T/err.txt" || { cat "$T/out.txt" "$T/err.txt"; fail "flash the USB-Serial-JTAG image"; }
flash_matches "$T/c3.flash" $((0x10000)) "$T/out/images/espbench-usb-serial-jtag/esp32c3/espbench.bin"
cmp -s "$T/out/images/espbench/esp32c3/espbench.bin" "$T/out/images/espbench-usb-serial-jtag/esp32c3/espbench.bin" &&
    fail "the two consoles' images are the same"

# ESP-IDF v5.2.3 does not know esp32c5; v5.4.4 builds it as a preview target (the
# manifest keeps the chips built before).
fake_idf 5.2.3 "['esp32', 'esp32c3']" "['linux']"
bash "$SOURCE_DIR/scripts/build-firmware.sh" esp32c5 >"$T/build.out" 2>"$T/build.err" || fail "v5.2.3 run"
grep -qx "build-firmware: skipping esp32c5: not a target of ESP-IDF v5.2.3" "$T/build.out" || { cat "$T/build.out"; fail "v5.2.3 skip"; }
grep -q "espbench: esp32, esp32c3; espbench-usb-serial-jtag: esp32c3)" "$T/build.out" || fail "manifest rewritten after a skip"
fake_idf 5.4.4 "['esp32', 'esp32c3']" "['linux', 'esp32c5']"
soc esp32 WIFI
soc esp32c5 WIFI USB_SERIAL_JTAG
: >"$T/idf.log"
bash "$SOURCE_DIR/scripts/build-firmware.sh" esp32c5 >"$T/build.out" 2>"$T/build.err" || { cat "$T/build.err"; fail "v5.4.4 run"; }
grep -qx "build-firmware: esp32c5 is a preview target in ESP-IDF v5.4.4" "$T/build.out" || fail "preview line"
grep -q -- "--preview -C .* -DIDF_TARGET=esp32c5 .* build" "$T/idf.log" || { cat "$T/idf.log"; fail "--preview"; }
grep -q "espbench-usb-serial-jtag: esp32c3, esp32c5)" "$T/build.out" || { cat "$T/build.out"; fail "v5.4.4 manifest"; }

# A setting this ESP-IDF drops stops the build, naming the file and line.
line=$(grep -n '^CONFIG_LWIP_TCPIP_TASK_PRIO=' "$SOURCE_DIR/firmware/sdkconfig.defaults" | cut -d: -f1)
rc=0
FAKE_IDF_DROP=CONFIG_LWIP_TCPIP_TASK_PRIO bash "$SOURCE_DIR/scripts/build-firmware.sh" esp32 >"$T/build.out" 2>"$T/build.err" || rc=$?
[ $rc = 1 ] || { cat "$T/build.err"; fail "dropped option: exit $rc"; }
grep -qx "$SOURCE_DIR/firmware/sdkconfig.defaults:$line: CONFIG_LWIP_TCPIP_TASK_PRIO=23: not an option of this ESP-IDF (it would be dropped)" \
    "$T/build.err" || { cat "$T/build.err"; fail "dropped option line"; }
grep -qx "build-firmware: esp32 (uart0 console): ESP-IDF v5.4.4 does not take the settings above; not built" "$T/build.err" ||
    fail "dropped option summary"

# Before v5.1.2 the lwIP options the firmware sets do not exist.
fake_idf 5.1.1 "['esp32']" "['linux']"
rc=0
bash "$SOURCE_DIR/scripts/build-firmware.sh" esp32 >"$T/build.out" 2>"$T/build.err" || rc=$?
[ $rc = 2 ] || fail "v5.1.1: exit $rc"
grep -qx "build-firmware: ESP-IDF v5.1.1 is too old: the firmware needs v5.1.2 or later (its lwIP options first exist there)" \
    "$T/build.err" || { cat "$T/build.err"; fail "v5.1.1 message"; }

# After the checked range (the v6.0 line) the script refuses too; the range is
# the one libespbench enforces for `espbench build` (idf_version.h).
fake_idf 6.0.2 "['esp32']" "['linux']"
soc esp32 WIFI
bash "$SOURCE_DIR/scripts/build-firmware.sh" esp32 >"$T/build.out" 2>"$T/build.err" || { cat "$T/build.err"; fail "v6.0.2 run"; }
fake_idf 6.1.0 "['esp32']" "['linux']"
rc=0
bash "$SOURCE_DIR/scripts/build-firmware.sh" esp32 >"$T/build.out" 2>"$T/build.err" || rc=$?
[ $rc = 2 ] || fail "v6.1.0: exit $rc"
grep -qx 'build-firmware: ESP-IDF v6.1.0 is newer than the firmware was checked with (v5.1.2 to v6.0.x); check it first (docs/firmware.md, "Checking against ESP-IDF"), then widen the range' \
    "$T/build.err" || { cat "$T/build.err"; fail "v6.1.0 message"; }
hdr=$SOURCE_DIR/include/espbench/formats/idf_version.h
grep -q '^#define EB_IDF_FIRMWARE_MIN "v5.1.2"$' "$hdr" && grep -q '^#define EB_IDF_FIRMWARE_LAST_LINE "v6.0"$' "$hdr" ||
    fail "idf_version.h states another range than scripts/build-firmware.sh"
grep -q '^min=5.1.2 last_line=6.0$' "$SOURCE_DIR/scripts/build-firmware.sh" || fail "build-firmware.sh range line"
echo ok
