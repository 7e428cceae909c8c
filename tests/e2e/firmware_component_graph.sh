#!/usr/bin/env bash
# scripts/idf-component-graph.py against small ESP-IDF trees laid out like the
# releases (tools/cmake/version.cmake and build.cmake's requires_common,
# tools/tools.json, components/*/CMakeLists.txt in the forms ESP-IDF's use):
#  - the firmware's own main/CMakeLists.txt requires driver and vfs on a v5.2
#    tree and esp_driver_uart / esp_driver_usb_serial_jtag on a v6.0 tree;
#  - on the v6.0 tree, where driver no longer requires the UART driver
#    publicly, a main that names only driver does not reach driver/uart.h and
#    --why says which component has it (exit 1);
#  - conditions on CONFIG_ values and the target, quoted lists, public links
#    (target_link_libraries PUBLIC idf::X), optional requirements, the
#    manifest's dependencies and the common requirements make the closure;
#  - private include directories and private requirements do not propagate.
set -euo pipefail
T=$(mktemp -d /tmp/espbench-graph.XXXXXX)
trap 'rm -rf "$T"' EXIT
graph="python3 $SOURCE_DIR/scripts/idf-component-graph.py"
fail() { echo "FAIL: $*" >&2; exit 1; }

# comp TREE NAME CMAKE-TEXT [HEADER...]: a component with include/HEADER files.
comp() {
    local d=$1/components/$2
    mkdir -p "$d/include"
    printf '%s\n' "$3" >"$d/CMakeLists.txt"
    shift 3
    for h in "$@"; do mkdir -p "$(dirname "$d/include/$h")" && : >"$d/include/$h"; done
}
# tree DIR MAJOR MINOR: the version and build files, and the common components.
tree() {
    mkdir -p "$1/tools/cmake"
    printf 'set(IDF_VERSION_MAJOR %s)\nset(IDF_VERSION_MINOR %s)\nset(IDF_VERSION_PATCH 2)\n' "$2" "$3" \
        >"$1/tools/cmake/version.cmake"
    local libc=newlib
    [ "$2" -ge 6 ] && libc=esp_libc
    cat >"$1/tools/cmake/build.cmake" <<EOF
    if("\${target}" STREQUAL "linux")
        set(requires_common freertos log linux)
    else()
        set(requires_common cxx $libc freertos log
                     esp_common)
    endif()
EOF
    echo '{"tools": [{"name": "riscv32-esp-elf", "versions": [{"name": "esp-15.2.0_20251204"}]}]}' >"$1/tools/tools.json"
    comp "$1" cxx 'idf_component_register()'
    comp "$1" $libc 'idf_component_register(INCLUDE_DIRS platform_include)'
    mkdir -p "$1/components/$libc/platform_include"
    comp "$1" freertos 'idf_component_register(INCLUDE_DIRS include)' freertos/FreeRTOS.h
    comp "$1" log 'idf_component_register(INCLUDE_DIRS include)' esp_log.h
    comp "$1" esp_common 'idf_component_register(INCLUDE_DIRS include)' esp_err.h
    comp "$1" riscv 'idf_component_register(INCLUDE_DIRS include)' riscv/rv_utils.h
    # The rest of what firmware/main names, each with its header.
    for c in lwip:lwip/sockets.h esp_wifi:esp_wifi.h esp_netif:esp_netif.h esp_event:esp_event.h \
        nvs_flash:nvs_flash.h esp_timer:esp_timer.h esp_app_format:esp_app_desc.h esp_hw_support:esp_mac.h; do
        comp "$1" "${c%%:*}" 'idf_component_register(INCLUDE_DIRS "include")' "${c#*:}"
    done
    mkdir -p "$1/components/soc/esp32c3/include/soc"
    echo '#define SOC_CPU_HAS_FPU 0' >"$1/components/soc/esp32c3/include/soc/soc_caps.h"
    printf 'CONFIG_IDF_TARGET="esp32c3"\nCONFIG_VFS_SUPPORT_IO=y\n# CONFIG_ESP_CONSOLE_NONE is not set\n' >"$1/sdkconfig"
}

# ESP-IDF v5.2: driver carries the UART and USB-Serial-JTAG headers; vfs has esp_vfs_dev.h.
v52=$T/v5.2
tree "$v52" 5 2
comp "$v52" driver 'idf_build_get_property(target IDF_TARGET)
set(includes "include" "uart/include")
if(${target} STREQUAL "esp32c3")
    list(APPEND includes "usb_serial_jtag/include")
endif()
idf_component_register(SRCS "x.c" INCLUDE_DIRS ${includes} PRIV_INCLUDE_DIRS "priv"
                       PRIV_REQUIRES esp_mm REQUIRES freertos)' driver/gpio.h
comp "$v52" esp_mm 'idf_component_register(INCLUDE_DIRS include)' esp_mmu_map.h
mkdir -p "$v52/components/driver/uart/include/driver" "$v52/components/driver/usb_serial_jtag/include/driver" "$v52/components/driver/priv"
: >"$v52/components/driver/uart/include/driver/uart.h"
: >"$v52/components/driver/usb_serial_jtag/include/driver/usb_serial_jtag.h"
: >"$v52/components/driver/priv/driver_priv.h"
comp "$v52" vfs 'idf_component_register(INCLUDE_DIRS include)' esp_vfs_dev.h

G52=($graph --idf "$v52" --target esp32c3 --config "$v52/sdkconfig" --component "$SOURCE_DIR/firmware/main"
    --component "$SOURCE_DIR/firmware/components/espbench_core")
closure=$("${G52[@]}" --for main --closure)
for c in driver vfs espbench_core cxx newlib riscv; do
    [[ " $closure " == *" $c "* ]] || fail "v5.2: $c not in main's closure: $closure"
done
[[ " $closure " != *" esp_driver_uart "* ]] || fail "v5.2 has no esp_driver_uart"
"${G52[@]}" --for main --why driver/uart.h driver/usb_serial_jtag.h esp_vfs_dev.h >"$T/why" || { cat "$T/why"; fail "v5.2 why"; }
grep -qx "main: driver/uart.h: from driver" "$T/why" || { cat "$T/why"; fail "v5.2 uart.h"; }
"${G52[@]}" --for main --includes >"$T/inc"
grep -qx "$v52/components/driver/usb_serial_jtag/include" "$T/inc" || fail "the target's include dir"
grep -q "components/driver/priv" "$T/inc" && fail "a private include dir propagated"
grep -q "components/esp_mm/" "$T/inc" && fail "a private requirement propagated"
grep -qx "$SOURCE_DIR/firmware/components/espbench_core/include" "$T/inc" || fail "espbench_core include dir"

# ESP-IDF v6.0: the drivers split out; driver requires neither publicly. The UART
# driver links vfs publicly when the VFS is on (as in v6.0's esp_driver_uart).
v60=$T/v6.0
tree "$v60" 6 0
comp "$v60" driver 'idf_component_register(INCLUDE_DIRS include PRIV_REQUIRES esp_driver_uart)' driver/gpio.h
comp "$v60" esp_driver_uart 'idf_component_register(SRCS "uart.c" INCLUDE_DIRS "include" PRIV_REQUIRES "esp_mm;esp_rom")
if(CONFIG_VFS_SUPPORT_IO AND NOT CONFIG_ESP_CONSOLE_NONE)
    target_link_libraries(${COMPONENT_LIB} PUBLIC idf::vfs)
endif()' driver/uart.h driver/uart_vfs.h
comp "$v60" esp_driver_usb_serial_jtag 'set(priv "esp_mm")
if(COMMAND idf_component_optional_requires)
    idf_component_optional_requires(PUBLIC esp_pm not_a_component)
endif()
idf_component_register(INCLUDE_DIRS include PRIV_REQUIRES "${priv}")' driver/usb_serial_jtag.h driver/usb_serial_jtag_vfs.h
comp "$v60" vfs 'idf_component_register(INCLUDE_DIRS include)' esp_vfs.h
comp "$v60" esp_pm 'idf_component_register(INCLUDE_DIRS include)' esp_pm.h
comp "$v60" esp_mm 'idf_component_register(INCLUDE_DIRS include)' esp_mmu_map.h
comp "$v60" esp_rom 'idf_component_register(INCLUDE_DIRS include)' esp_rom_sys.h

G60=($graph --idf "$v60" --target esp32c3 --config "$v60/sdkconfig" --component "$SOURCE_DIR/firmware/main"
    --component "$SOURCE_DIR/firmware/components/espbench_core")
closure=$("${G60[@]}" --for main --closure)
for c in esp_driver_uart esp_driver_usb_serial_jtag vfs esp_pm esp_libc; do
    [[ " $closure " == *" $c "* ]] || fail "v6.0: $c not in main's closure: $closure"
done
for c in driver newlib esp_mm esp_rom not_a_component; do
    [[ " $closure " != *" $c "* ]] || fail "v6.0: $c in main's closure: $closure"
done
"${G60[@]}" --for main --why driver/uart.h driver/uart_vfs.h driver/usb_serial_jtag_vfs.h esp_vfs.h >"$T/why" ||
    { cat "$T/why"; fail "v6.0 why"; }

# A main that names only driver and vfs (the firmware before v6.0 support) does not reach the UART driver.
mkdir -p "$T/old/main"
printf 'idf_component_register(SRCS "m.c" INCLUDE_DIRS "." PRIV_REQUIRES driver vfs)\n' >"$T/old/main/CMakeLists.txt"
rc=0
$graph --idf "$v60" --target esp32c3 --config "$v60/sdkconfig" --component "$T/old/main" \
    --for main --why driver/uart.h driver/gpio.h no/such.h >"$T/why" || rc=$?
[ $rc = 1 ] || fail "old main on v6.0: exit $rc"
grep -qx "main: driver/uart.h: in esp_driver_uart, which main does not require (add it to REQUIRES or PRIV_REQUIRES)" "$T/why" ||
    { cat "$T/why"; fail "old main: uart.h line"; }
grep -qx "main: driver/gpio.h: from driver" "$T/why" || { cat "$T/why"; fail "old main: gpio.h line"; }
grep -qx "main: no/such.h: in no component's public include directory of this ESP-IDF for esp32c3" "$T/why" ||
    { cat "$T/why"; fail "old main: missing header line"; }

# The manifest's dependencies join the requirements (privately unless require: public),
# under the component manager's names; a managed component's own compile options.
mkdir -p "$T/m/main" "$T/m/espressif__iperf/include"
printf 'idf_component_register(SRCS "m.c" INCLUDE_DIRS ".")\n' >"$T/m/main/CMakeLists.txt"
printf 'dependencies:\n  idf: ">=5.1.2"\n  espressif/iperf: "^1.0.2"\n  espressif/other:\n    version: "1.0"\n    require: public\n' \
    >"$T/m/main/idf_component.yml"
printf 'idf_component_register(SRCS "i.c" INCLUDE_DIRS "include" REQUIRES esp_netif)
if(CMAKE_CXX_COMPILER_VERSION VERSION_GREATER 11.0)
    target_compile_options(${COMPONENT_LIB} PRIVATE "-Wno-format")
endif()\n' >"$T/m/espressif__iperf/CMakeLists.txt"
: >"$T/m/espressif__iperf/include/iperf.h"
GM=($graph --idf "$v60" --target esp32c3 --config "$v60/sdkconfig" --component "$T/m/main" --component "$T/m/espressif__iperf")
"${GM[@]}" --for main --why iperf.h esp_netif.h >"$T/why" || { cat "$T/why"; fail "managed why"; }
grep -qx "main: iperf.h: from espressif__iperf" "$T/why" || { cat "$T/why"; fail "managed iperf.h"; }
[ "$("${GM[@]}" --for iperf --options)" = "-Wno-format" ] || fail "the component's own options"
echo "component graph: ok"
