#!/usr/bin/env bash
# The firmware's per-chip sdkconfig defaults are generated from profiles/: they must be in sync.
set -euo pipefail
python3 "$SOURCE_DIR/scripts/gen-sdkconfig.py" "$ESPBENCH" "$SOURCE_DIR/firmware" --check
# The largest windows among esp32's tiers are the iperf tier's 65 KB; the boot tier is iperf.
grep -qx 'CONFIG_LWIP_TCP_WND_DEFAULT=65534' "$SOURCE_DIR/firmware/sdkconfig.defaults.esp32"
grep -qx 'CONFIG_ESP_WIFI_STATIC_RX_BUFFER_NUM=20' "$SOURCE_DIR/firmware/sdkconfig.defaults.esp32c3"
echo "firmware sdkconfig defaults: in sync"
