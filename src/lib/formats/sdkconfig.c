/* sdkconfig.json in, sdkconfig lines out (sdkconfig.h). */
#include "espbench/formats/sdkconfig.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

enum { AS_INT, AS_BOOL, AS_KB };

/* Tier field <-> ESP-IDF v5 Kconfig option (components/lwip/Kconfig,
 * components/esp_wifi/Kconfig; the Wi-Fi ones lost their WIFI_ prefix for
 * ESP_WIFI_ in v5.0). TCP windows are bytes in Kconfig, KB in the tiers;
 * 65534 (the 16-bit maximum) is the docs' "65 KB". runtime: the espbench
 * firmware switches it at run time, so a build's value is only its boot tier's. */
static const struct {
    int field;
    const char *kconfig;
    int as;
    bool runtime;
    long kdefault; /* Kconfig's default (lwip/Kconfig, esp_wifi/Kconfig, no SPIRAM); -1 = not used */
} options[] = {
    {EB_F_STATIC_RX, "ESP_WIFI_STATIC_RX_BUFFER_NUM", AS_INT, true, -1},
    {EB_F_DYNAMIC_RX, "ESP_WIFI_DYNAMIC_RX_BUFFER_NUM", AS_INT, true, -1},
    {EB_F_DYNAMIC_TX, "ESP_WIFI_DYNAMIC_TX_BUFFER_NUM", AS_INT, true, -1},
    {EB_F_STATIC_TX, "ESP_WIFI_STATIC_TX_BUFFER_NUM", AS_INT, true, -1},
    {EB_F_RX_BA_WIN, "ESP_WIFI_RX_BA_WIN", AS_INT, true, -1},
    {EB_F_TCP_SND_BUF_KB, "LWIP_TCP_SND_BUF_DEFAULT", AS_KB, false, 5760},
    {EB_F_TCP_WND_KB, "LWIP_TCP_WND_DEFAULT", AS_KB, false, 5760},
    {EB_F_TCP_MBOX, "LWIP_TCP_RECVMBOX_SIZE", AS_INT, false, 6},
    {EB_F_UDP_MBOX, "LWIP_UDP_RECVMBOX_SIZE", AS_INT, false, 6},
    {EB_F_TCPIP_MBOX, "LWIP_TCPIP_RECVMBOX_SIZE", AS_INT, false, 32},
    {EB_F_WIFI_IRAM_OPT, "ESP_WIFI_IRAM_OPT", AS_BOOL, false, 1},
    {EB_F_WIFI_RX_IRAM_OPT, "ESP_WIFI_RX_IRAM_OPT", AS_BOOL, false, 1},
    {EB_F_LWIP_IRAM_OPT, "LWIP_IRAM_OPTIMIZATION", AS_BOOL, false, 0},
};
#define N_OPTIONS (sizeof options / sizeof *options)

int eb_sdkconfig_json_build_fields(const char *text, size_t len, const char *name, eb_tier *out, eb_error *err)
{
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return eb_fail(err, EB_ECONFIG, "%s: not an sdkconfig.json (a JSON object of Kconfig options)", name), -1;
    }
    int n = 0;
    for (size_t i = 0; i < N_OPTIONS; i++) {
        if (options[i].runtime)
            continue;
        int f = options[i].field;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, options[i].kconfig);
        out->set[f] = false;
        out->value[f] = 0;
        long k;
        if (options[i].as == AS_BOOL && cJSON_IsBool(v))
            k = cJSON_IsTrue(v);
        else if (options[i].as != AS_BOOL && cJSON_IsNumber(v))
            k = (long)v->valuedouble;
        else
            continue;
        n++;
        /* Kconfig's default is the model's unset field (model.h) */
        if (k == options[i].kdefault)
            continue;
        out->set[f] = true;
        out->value[f] = options[i].as == AS_KB ? (k >= 65534 ? 65 : (int)lround((double)k / 1024.0)) : (int)k;
    }
    cJSON_Delete(root);
    return n;
}

/* The Kconfig value of a tier field's value (KB -> bytes, 64 KB and up the
 * 16-bit maximum 65534, as scripts/gen-sdkconfig.py writes it). */
static long kconfig_value(int as, int v)
{
    return as == AS_KB ? (v >= 64 ? 65534L : v * 1024L) : v;
}

bool eb_sdkconfig_same(int field, bool set_a, int a, bool set_b, int b)
{
    for (size_t i = 0; i < N_OPTIONS; i++) {
        if (options[i].field != field)
            continue;
        long ka = set_a ? kconfig_value(options[i].as, a) : options[i].kdefault;
        long kb = set_b ? kconfig_value(options[i].as, b) : options[i].kdefault;
        return ka == kb;
    }
    return set_a == set_b && (!set_a || a == b);
}

bool eb_sdkconfig_reads(int field)
{
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (options[i].field == field)
            return !options[i].runtime;
    return false;
}

void eb_sdkconfig_render_tier(const eb_chip *c, const eb_tier *t, eb_buf *out)
{
    char line[160];
    int k = snprintf(line, sizeof line, "# espbench tier %s of %s (rendered from the profiles)\n", t->name,
                     c ? c->name : "?");
    eb_buf_append(out, line, (size_t)k);
    for (size_t i = 0; i < N_OPTIONS; i++) {
        int f = options[i].field, v = t->value[f];
        if (!t->set[f])
            continue;
        if (f == EB_F_RX_BA_WIN && v == 0) { /* "Disable": AMPDU RX off */
            k = snprintf(line, sizeof line, "# CONFIG_ESP_WIFI_AMPDU_RX_ENABLED is not set\n");
        } else if (options[i].as == AS_BOOL) {
            k = v ? snprintf(line, sizeof line, "CONFIG_%s=y\n", options[i].kconfig)
                  : snprintf(line, sizeof line, "# CONFIG_%s is not set\n", options[i].kconfig);
        } else {
            k = snprintf(line, sizeof line, "CONFIG_%s=%ld\n", options[i].kconfig, kconfig_value(options[i].as, v));
        }
        if (f == EB_F_STATIC_TX && k > 0) /* static TX buffers need the static type */
            eb_buf_append(out, "CONFIG_ESP_WIFI_STATIC_TX_BUFFER=y\n", 35);
        if (f == EB_F_DYNAMIC_TX && k > 0)
            eb_buf_append(out, "CONFIG_ESP_WIFI_DYNAMIC_TX_BUFFER=y\n", 36);
        eb_buf_append(out, line, (size_t)k);
    }
}

int eb_sdkconfig_tiers(const eb_chip *c, const char *spec, const eb_tier **out, int max, eb_error *err)
{
    int n = 0;
    if (strcmp(spec, "all") == 0) {
        for (int i = 0; i < c->n_tiers && n < max; i++)
            if (!c->tiers[i].psram)
                out[n++] = &c->tiers[i];
        return n;
    }
    const eb_tier *t = eb_chip_tier(c, spec);
    if (!t) {
        char names[512];
        eb_chip_tier_names(c, names, sizeof names);
        return eb_fail(err, EB_ECONFIG, "--tier %s: %s has no such tier (it has %s)", spec, c->name, names), -1;
    }
    if (t->psram)
        return eb_fail(err, EB_ECONFIG, "--tier %s: a PSRAM tier; its PSRAM options depend on the board and are "
                       "not rendered: build it with --sdkconfig FILE", spec), -1;
    if (max < 1)
        return 0;
    out[0] = t;
    return 1;
}
