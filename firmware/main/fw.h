/* The ESP-IDF glue of the espbench firmware: thin adapters from the portable
 * core's ebc_ops to ESP-IDF. All protocol logic lives in espbench_core. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "espbench_core.h"
#include "esp_idf_version.h"

/* Names that differ across the supported ESP-IDF releases (v5.1.2 .. v6.0.x):
 * wifi_bandwidth_t's WIFI_BW_HT20/WIFI_BW_HT40 exist up to v5.5 and were
 * removed in v6.0; WIFI_BW20/WIFI_BW40 first exist in v5.3
 * (components/esp_wifi/include/esp_wifi_types_generic.h). */
#if ESP_IDF_VERSION >= ESP_IDF_VERSION_VAL(5, 3, 0)
#define FW_WIFI_BW20 WIFI_BW20
#define FW_WIFI_BW40 WIFI_BW40
#else
#define FW_WIFI_BW20 WIFI_BW_HT20
#define FW_WIFI_BW40 WIFI_BW_HT40
#endif

/* fw_console_io.c: console byte I/O on the UART or USB-Serial/JTAG console. */
void fw_console_init(void);
void fw_console_write(void *ctx, const char *data, size_t len);
/* Reads one line into buf (no line end), echoing unless echo is false. */
size_t fw_console_read_line(char *buf, size_t cap, bool echo);

/* The network: fw_wifi.c (Wi-Fi station) or fw_eth.c (open_eth, the
 * ESPBENCH_NET=openeth build for the emulator); one of them is linked. */
void fw_net_setup(ebc_core *core);
/* The interface's IPv4 address in network order (0 while it has none). */
unsigned long fw_net_ip4(void);
/* fw_eth.c: ebc_ops.net_start. */
int fw_net_start(void *ctx);
/* fw_emu.c: the emulator's interrupt settings (open_eth image only). */
void fw_emu_setup(void);

/* fw_wifi.c */
int fw_wifi_deinit(void *ctx);
int fw_wifi_init(void *ctx, const ebc_wifi_cfg *cfg);
int fw_wifi_connect(void *ctx, const char *ssid, const char *pass, ebc_ip_info *ip, int *reason);
int fw_wifi_scan(void *ctx, const char *ssid, ebc_scan_ap *aps, int max, int *n);
/* The listen interval the next association uses (radio_set; ESP-IDF's 3 when unset). */
int fw_wifi_listen_interval(void);

/* fw_main.c */
void fw_heap(void *ctx, ebc_heap *h);
void fw_restart(void *ctx);

/* fw_radio.c: radio settings (ebc_ops.radio_apply). */
int fw_radio_apply(void *ctx, const ebc_radio *want, ebc_radio *now, char *msg, size_t msg_len);

/* fw_iperf.c */
void fw_iperf_setup(ebc_core *core);
int fw_iperf_start(void *ctx, const ebc_iperf_args *a, char *msg, size_t msg_len);
void fw_iperf_abort(void *ctx);
bool fw_iperf_running(void *ctx);

/* fw_echo.c: UDP echo on port 5007 for the host's latency test. */
void fw_echo_start(void);

/* fw_build_info.c: what this image is, from its app descriptor and sdkconfig. */
const ebc_build *fw_build_info(void);

/* fw_provenance.c: build facts for `version`, and the link (ebc_ops.link). */
void fw_provenance_build(ebc_build *b);
int fw_link(void *ctx, ebc_link *l);
