/* The tier field table, the test names and the tier validation rules.
 *
 * Ranges are ESP-IDF v5.5 Kconfig ranges (ESP8266_RTOS_SDK for the ESP8266
 * rows), taken at their widest: a few ranges widen with an option (static RX
 * up to 128 on Wi-Fi 6 chips, RX BA window up to 64 there, TCP windows,
 * dynamic RX and the TCP mailbox above 65 KB / 128 / 64 with LWIP_WND_SCALE).
 * The WND_SCALE case is a rule of its own below because the tier says
 * whether it runs with PSRAM. */
#include "espbench/base/names.h"
#include "espbench/formats/profile.h"
#include "espbench/formats/model.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* Runtime = part of wifi_init_config_t, applied by esp_wifi_stop/deinit/init;
 * everything else (lwIP, IRAM placement, cache, ESP8266 build options) needs
 * a rebuild. */
static const eb_field_desc fields[EB_F_COUNT] = {
    [EB_F_STATIC_RX] = {"static_rx", "WIFI_STATIC_RX_BUFFER_NUM", "WIFI_STATIC_RX_BUFFER_NUM",
                        EB_FK_INT, 2, 128, true},
    [EB_F_DYNAMIC_RX] = {"dynamic_rx", "WIFI_DYNAMIC_RX_BUFFER_NUM", "WIFI_DYNAMIC_RX_BUFFER_NUM",
                         EB_FK_INT, 0, 1024, true},
    [EB_F_DYNAMIC_TX] = {"dynamic_tx", "WIFI_DYNAMIC_TX_BUFFER_NUM", "WIFI_DYNAMIC_TX_BUFFER_NUM",
                         EB_FK_INT, 1, 128, true},
    [EB_F_STATIC_TX] = {"static_tx", "WIFI_STATIC_TX_BUFFER_NUM", "WIFI_STATIC_TX_BUFFER_NUM",
                        EB_FK_INT, 1, 64, true},
    [EB_F_RX_BA_WIN] = {"rx_ba_win", "WIFI_RX_BA_WIN", "WIFI_RX_BA_WIN", EB_FK_BA, 2, 64, true},
    [EB_F_TCP_SND_BUF_KB] = {"tcp_snd_buf_kb", "TCP_SND_BUF_DEFAULT", "TCP_SND_BUF_DEFAULT (KB)",
                             EB_FK_INT, 2, 1024, false},
    [EB_F_TCP_WND_KB] = {"tcp_wnd_kb", "TCP_WND_DEFAULT", "TCP_WND_DEFAULT (KB)", EB_FK_INT, 2,
                         1024, false},
    [EB_F_TCP_MBOX] = {"tcp_mbox", "LWIP_TCP_RECVMBOX_SIZE", "LWIP_TCP_RECVMBOX_SIZE", EB_FK_INT, 6,
                       1024, false},
    [EB_F_UDP_MBOX] = {"udp_mbox", "LWIP_UDP_RECVMBOX_SIZE", "LWIP_UDP_RECVMBOX_SIZE", EB_FK_INT, 6,
                       64, false},
    [EB_F_TCPIP_MBOX] = {"tcpip_mbox", "LWIP_TCPIP_RECVMBOX_SIZE", "LWIP_TCPIP_RECVMBOX_SIZE",
                         EB_FK_INT, 6, 64, false},
    [EB_F_WIFI_IRAM_OPT] = {"wifi_iram_opt", "WIFI_IRAM_OPT", "WIFI_IRAM_OPT", EB_FK_BOOL, 0, 1,
                            false},
    [EB_F_WIFI_RX_IRAM_OPT] = {"wifi_rx_iram_opt", "WIFI_RX_IRAM_OPT", "WIFI_RX_IRAM_OPT",
                               EB_FK_BOOL, 0, 1, false},
    [EB_F_LWIP_IRAM_OPT] = {"lwip_iram_opt", "LWIP_IRAM_OPTIMIZATION", "LWIP_IRAM_OPTIMIZATION",
                            EB_FK_BOOL, 0, 1, false},
    [EB_F_ICACHE_KB] = {"icache_kb", "INSTRUCTION_CACHE", "INSTRUCTION_CACHE", EB_FK_INT, 8, 32,
                        false},
    [EB_F_ICACHE_LINE] = {"icache_line", "INSTRUCTION_CACHE_LINE", "INSTRUCTION_CACHE_LINE",
                          EB_FK_INT, 16, 32, false},
    [EB_F_ICACHE_WAYS] = {"icache_ways", "INSTRUCTION_CACHE_WAYS", "INSTRUCTION_CACHE_WAYS",
                          EB_FK_INT, 4, 8, false},
    [EB_F_DCACHE_KB] = {"dcache_kb", "DATA_CACHE", "DATA_CACHE", EB_FK_INT, 0, 64, false},
    [EB_F_DCACHE_LINE] = {"dcache_line", "DATA_CACHE_LINE", "DATA_CACHE_LINE", EB_FK_INT, 16, 64,
                          false},
    [EB_F_DCACHE_WAYS] = {"dcache_ways", "DATA_CACHE_WAYS", "DATA_CACHE_WAYS", EB_FK_INT, 4, 8,
                          false},
    [EB_F_CPU_MHZ] = {"cpu_mhz", "ESP8266_DEFAULT_CPU_FREQ_MHZ", "CPU frequency (MHz)", EB_FK_INT,
                      80, 160, false},
    [EB_F_AMPDU_RX] = {"ampdu_rx", "ESP8266_WIFI_AMPDU_RX_ENABLED", "AMPDU RX", EB_FK_BOOL, 0, 1,
                       false},
    [EB_F_FULL_CACHE] = {"full_cache", "SOC_FULL_ICACHE", "Full cache", EB_FK_BOOL, 0, 1, false},
    [EB_F_RX_BUF_NUM] = {"rx_buf_num", "ESP8266_WIFI_RX_BUFFER_NUM", "Wi-Fi RX buffer num",
                         EB_FK_INT, 14, 28, false},
    [EB_F_RX_PKT_NUM] = {"rx_pkt_num", "ESP8266_WIFI_RX_PKT_NUM", "Wi-Fi RX packet num", EB_FK_INT,
                         4, 16, false},
    [EB_F_TX_PKT_NUM] = {"tx_pkt_num", "ESP8266_WIFI_TX_PKT_NUM", "Wi-Fi TX packet num", EB_FK_INT,
                         4, 16, false},
    [EB_F_CONT_RX_BUF_NUM] = {"cont_rx_buf_num", "ESP8266_WIFI_LEFT_CONTINUOUS_RX_BUFFER_NUM",
                              "Continuous RX buffer num", EB_FK_INT, 0, 16, false},
};

const eb_field_desc *eb_field_desc_get(int field)
{
    if (field < 0 || field >= EB_F_COUNT)
        return NULL;
    return &fields[field];
}

int eb_field_from_key(const char *key)
{
    if (!key)
        return -1;
    for (int f = 0; f < EB_F_COUNT; f++)
        if (strcmp(fields[f].key, key) == 0)
            return f;
    return -1;
}

const char *eb_field_format(int field, int value, char *buf, size_t n)
{
    const eb_field_desc *d = eb_field_desc_get(field);
    if (d && d->kind == EB_FK_BOOL)
        snprintf(buf, n, "%s", value ? "ENABLE" : "DISABLE");
    else if (d && d->kind == EB_FK_BA && value == 0)
        snprintf(buf, n, "Disable");
    else
        snprintf(buf, n, "%d", value);
    return buf;
}

static const struct {
    const char *name, *label, *docs_label;
} tests[EB_TEST_ALL_COUNT] = {
    [EB_TEST_TCP_TX] = {"tcp_tx", "TCP TX", "TCP TX throughput (Mbit/s)"},
    [EB_TEST_TCP_RX] = {"tcp_rx", "TCP RX", "TCP RX throughput (Mbit/s)"},
    [EB_TEST_UDP_TX] = {"udp_tx", "UDP TX", "UDP TX throughput (Mbit/s)"},
    [EB_TEST_UDP_RX] = {"udp_rx", "UDP RX", "UDP RX throughput (Mbit/s)"},
    [EB_TEST_RAW_TX] = {"raw_tx", "Raw TX", "Raw TX throughput (Mbit/s)"},
    [EB_TEST_RAW_RX] = {"raw_rx", "Raw RX", "Raw RX throughput (Mbit/s)"},
};

const char *eb_test_name(int test)
{
    return test >= 0 && test < EB_TEST_ALL_COUNT ? tests[test].name : NULL;
}

const char *eb_test_label(int test)
{
    return test >= 0 && test < EB_TEST_ALL_COUNT ? tests[test].label : NULL;
}

const char *eb_test_docs_label(int test)
{
    return test >= 0 && test < EB_TEST_ALL_COUNT ? tests[test].docs_label : NULL;
}

int eb_test_from_name(const char *name)
{
    for (int t = 0; name && t < EB_TEST_ALL_COUNT; t++)
        if (tests[t].name && strcmp(tests[t].name, name) == 0) /* EB_TEST_COUNT: no row (latency) */
            return t;
    /* As reports print them: "TCP TX", "tcp-tx" (names.h). */
    for (int t = 0; name && t < EB_TEST_ALL_COUNT; t++)
        if (tests[t].name && eb_name_same(tests[t].name, name))
            return t;
    return -1;
}

/* Limits that only LWIP_WND_SCALE lifts; ESP-IDF offers WND_SCALE only with
 * SPIRAM_TRY_ALLOCATE_WIFI_LWIP, i.e. on PSRAM tiers. */
static const struct {
    int field, limit;
} wnd_scale_limits[] = {
    {EB_F_DYNAMIC_RX, 128},
    {EB_F_TCP_SND_BUF_KB, 65},
    {EB_F_TCP_WND_KB, 65},
    {EB_F_TCP_MBOX, 64},
};

static int check_range(const eb_tier *t, int f, eb_error *err)
{
    const eb_field_desc *d = &fields[f];
    int v = t->value[f];
    if (d->kind == EB_FK_BOOL) {
        if (v == 0 || v == 1)
            return 0;
        return eb_fail(err, EB_ECONFIG, "%s = %d must be ENABLE or DISABLE (%s)", d->key, v,
                       d->kconfig);
    }
    if (d->kind == EB_FK_BA && v == 0)
        return 0;
    if (v >= d->min && v <= d->max)
        return 0;
    return eb_fail(err, EB_ECONFIG, "%s = %d is outside the Kconfig range %d..%d%s of %s", d->key,
                   v, d->min, d->max, d->kind == EB_FK_BA ? " or Disable" : "", d->kconfig);
}

/* rx_ba_win <= min(dynamic_rx, 2*static_rx): ESP-IDF checks it only at build
 * time (wifi_init.c #error), so a runtime tier switch must check it here.
 * dynamic_rx 0 means "unlimited" and does not bound the window. */
static int check_ba_window(const eb_tier *t, eb_error *err)
{
    if (!t->set[EB_F_RX_BA_WIN] || t->value[EB_F_RX_BA_WIN] == 0)
        return 0;
    int ba = t->value[EB_F_RX_BA_WIN];
    int limit = INT_MAX;
    char dyn[32] = "unset", stat[32] = "unset";
    if (t->set[EB_F_DYNAMIC_RX]) {
        snprintf(dyn, sizeof dyn, "%d", t->value[EB_F_DYNAMIC_RX]);
        if (t->value[EB_F_DYNAMIC_RX] > 0)
            limit = t->value[EB_F_DYNAMIC_RX];
    }
    if (t->set[EB_F_STATIC_RX]) {
        snprintf(stat, sizeof stat, "%d", 2 * t->value[EB_F_STATIC_RX]);
        if (2 * t->value[EB_F_STATIC_RX] < limit)
            limit = 2 * t->value[EB_F_STATIC_RX];
    }
    if (ba <= limit)
        return 0;
    return eb_fail(err, EB_ECONFIG,
                   "rx_ba_win = %d exceeds min(dynamic_rx, 2*static_rx) = min(%s, %s) = %d; "
                   "ESP-IDF requires WIFI_RX_BA_WIN <= min(WIFI_DYNAMIC_RX_BUFFER_NUM, "
                   "2*WIFI_STATIC_RX_BUFFER_NUM)",
                   ba, dyn, stat, limit);
}

int eb_tier_validate_field(const eb_tier *t, int *bad_field, eb_error *err)
{
    if (bad_field)
        *bad_field = -1;
    for (int f = 0; f < EB_F_COUNT; f++) {
        if (t->set[f] && check_range(t, f, err)) {
            if (bad_field)
                *bad_field = f;
            return EB_ECONFIG;
        }
    }
    if (t->set[EB_F_DYNAMIC_TX] && t->set[EB_F_STATIC_TX]) {
        if (bad_field)
            *bad_field = EB_F_STATIC_TX;
        return eb_fail(err, EB_ECONFIG,
                       "dynamic_tx and static_tx are both set; the Wi-Fi TX buffer type is either "
                       "dynamic or static, so set only one (static with PSRAM)");
    }
    if (check_ba_window(t, err)) {
        if (bad_field)
            *bad_field = EB_F_RX_BA_WIN;
        return EB_ECONFIG;
    }
    /* The tier model's lint: its errors (settings known to stall the Wi-Fi
     * stack) fail validation; warnings are shown by predict/profiles show. */
    eb_lint lint[4];
    int n_lint = eb_model_lint(t, lint, 4);
    for (int i = 0; i < n_lint && i < 4; i++) {
        if (lint[i].level == EB_LINT_ERROR) {
            if (bad_field)
                *bad_field = lint[i].field;
            return eb_fail(err, EB_ECONFIG, "%s", lint[i].msg);
        }
    }
    if (!t->psram) {
        for (size_t i = 0; i < sizeof wnd_scale_limits / sizeof wnd_scale_limits[0]; i++) {
            int f = wnd_scale_limits[i].field, lim = wnd_scale_limits[i].limit;
            if (t->set[f] && t->value[f] > lim) {
                if (bad_field)
                    *bad_field = f;
                return eb_fail(err, EB_ECONFIG,
                               "%s = %d is above %d, which needs LWIP_WND_SCALE; ESP-IDF offers it "
                               "only with PSRAM (psram: true)",
                               fields[f].key, t->value[f], lim);
            }
        }
    }
    return 0;
}

int eb_tier_validate(const eb_tier *t, eb_error *err)
{
    return eb_tier_validate_field(t, NULL, err);
}
