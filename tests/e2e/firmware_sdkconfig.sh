#!/usr/bin/env bash
# The firmware's per-chip sdkconfig defaults are generated from profiles/: they must be in sync.
set -euo pipefail
python3 "$SOURCE_DIR/scripts/gen-sdkconfig.py" "$ESPBENCH" "$SOURCE_DIR/firmware" --check
# The largest windows among esp32's tiers are the iperf tier's 65 KB; the boot tier is iperf.
grep -qx 'CONFIG_LWIP_TCP_WND_DEFAULT=65534' "$SOURCE_DIR/firmware/sdkconfig.defaults.esp32"
grep -qx 'CONFIG_ESP_WIFI_STATIC_RX_BUFFER_NUM=20' "$SOURCE_DIR/firmware/sdkconfig.defaults.esp32c3"
# espressif/iperf 1.x reads CONFIG_IPERF_DEF_*; its 0.1.x names would be dropped without a word.
d="$SOURCE_DIR/firmware/sdkconfig.defaults"
grep -qx 'CONFIG_IPERF_DEF_TRAFFIC_TASK_PRIORITY=23' "$d"
grep -qx 'CONFIG_IPERF_DEF_REPORT_TASK_PRIORITY=24' "$d"
grep -qx 'CONFIG_IPERF_DEF_TCP_TX_BUFFER_LEN=16384' "$d"
if grep -Eq '^CONFIG_IPERF_(TRAFFIC|REPORT)_TASK_PRIORITY=' "$d"; then echo "iperf 0.1.x option names in $d" >&2; exit 1; fi
# One console per image: UART0, or the chip's USB-Serial-JTAG port.
grep -qx 'CONFIG_ESP_CONSOLE_UART_DEFAULT=y' "$SOURCE_DIR/firmware/sdkconfig.console-uart0"
grep -qx 'CONFIG_ESP_CONSOLE_USB_SERIAL_JTAG=y' "$SOURCE_DIR/firmware/sdkconfig.console-usb-serial-jtag"
if grep -q '^CONFIG_ESP_CONSOLE' "$d" "$SOURCE_DIR"/firmware/sdkconfig.defaults.*; then
    echo "the console is chosen per image (firmware/sdkconfig.console-*), not in the shared defaults" >&2; exit 1
fi
echo "firmware sdkconfig defaults: in sync"
