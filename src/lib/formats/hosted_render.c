/* ESP-Hosted pairs as text: `espbench profiles list` and `profiles show
 * PAIR`, and the rows of the performance guide's per-co-processor table
 * (esp-hosted-mcu docs/performance_optimization.md: Type | Direction |
 * MBits/s, raw both ways, then iPerf TCP/UDP host to test PC and back). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/dims.h"
#include "espbench/base/buf.h"
#include "espbench/formats/hosted.h"

static const int row_test[EB_HR_COUNT] = {
    [EB_HR_RAW_TX] = EB_TEST_RAW_TX, [EB_HR_RAW_RX] = EB_TEST_RAW_RX, [EB_HR_TCP_TX] = EB_TEST_TCP_TX,
    [EB_HR_UDP_TX] = EB_TEST_UDP_TX, [EB_HR_TCP_RX] = EB_TEST_TCP_RX, [EB_HR_UDP_RX] = EB_TEST_UDP_RX,
};

int eb_hosted_row_test(int row) { return row >= 0 && row < EB_HR_COUNT ? row_test[row] : -1; }

/* "esp32c61" -> "C61", "esp32p4" -> "P4": the guide's short chip names. */
static void short_name(const char *chip, char *out, size_t n)
{
    const char *s = strncmp(chip, "esp32", 5) == 0 && chip[5] ? chip + 5 : chip;
    size_t i = 0;
    for (; s[i] && i + 1 < n; i++)
        out[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i]);
    out[i] = 0;
}

void eb_hosted_row_labels(const eb_hosted_pair *pair, int row, char *type, size_t tn, char *dir, size_t dn)
{
    char h[16], c[16];
    short_name(pair->host, h, sizeof h);
    short_name(pair->coprocessor, c, sizeof c);
    switch (row) {
    case EB_HR_RAW_TX: snprintf(type, tn, "Raw"); snprintf(dir, dn, "%s to %s", h, c); break;
    case EB_HR_RAW_RX: snprintf(type, tn, "Raw"); snprintf(dir, dn, "%s to %s", c, h); break;
    case EB_HR_TCP_TX: snprintf(type, tn, "iPerf, TCP"); snprintf(dir, dn, "%s to Test PC", h); break;
    case EB_HR_UDP_TX: snprintf(type, tn, "iPerf, UDP"); snprintf(dir, dn, "%s to Test PC", h); break;
    case EB_HR_TCP_RX: snprintf(type, tn, "iPerf, TCP"); snprintf(dir, dn, "Test PC to %s", h); break;
    default: snprintf(type, tn, "iPerf, UDP"); snprintf(dir, dn, "Test PC to %s", h); break;
    }
}

double eb_hosted_published(const eb_hosted_pair *pair, const eb_tier *t, int row)
{
    int test = eb_hosted_row_test(row);
    if (test == EB_TEST_RAW_TX || test == EB_TEST_RAW_RX)
        return pair->raw_mbps[test == EB_TEST_RAW_RX];
    return eb_tier_ref(t, test, NULL);
}

/* The buffer aborts on no memory (buf.h): the text is always there. */
static char *finish(eb_buf *b)
{
    eb_buf_append(b, "", 1);
    return (char *)b->data;
}

char *eb_hosted_render_list(const eb_hosted_set *s)
{
    eb_buf b;
    eb_buf_init(&b);
    eb_buf_printf(&b, "%-26s %-8s %-12s %-26s %s\n", "PAIR", "HOST", "COPROCESSOR", "TRANSPORT", "TIERS");
    for (int i = 0; i < s->n; i++) {
        const eb_hosted_pair *p = &s->pairs[i];
        char tr[64];
        eb_buf_printf(&b, "%-26s %-8s %-12s %-26s ", p->name, p->host, p->coprocessor,
                      eb_hosted_transport_text(p, tr, sizeof tr));
        for (int k = 0; k < p->n_tiers; k++)
            eb_buf_printf(&b, "%s%s", k ? ", " : "", p->tiers[k].name);
        eb_buf_printf(&b, "\n");
    }
    return finish(&b);
}

/* Settings rows: a field any tier or the co-processor sets, one column each. */
static void render_settings(eb_buf *b, const eb_hosted_pair *p)
{
    eb_buf_printf(b, "\n%-30s", "Setting");
    for (int k = 0; k < p->n_tiers; k++)
        eb_buf_printf(b, " | %-17s", p->tiers[k].name);
    eb_buf_printf(b, " | %s\n", "co-processor firmware");
    for (int f = 0; f < EB_F_COUNT; f++) {
        bool any = p->cp_set[f];
        for (int k = 0; k < p->n_tiers; k++)
            any = any || p->tiers[k].set[f];
        if (!any)
            continue;
        eb_buf_printf(b, "%-30s", eb_field_desc_get(f)->label);
        char v[32];
        for (int k = 0; k < p->n_tiers; k++)
            eb_buf_printf(b, " | %-17s",
                          p->tiers[k].set[f] ? eb_field_format(f, p->tiers[k].value[f], v, sizeof v) : "-");
        eb_buf_printf(b, " | %s\n", p->cp_set[f] ? eb_field_format(f, p->cp_value[f], v, sizeof v) : "-");
    }
}

char *eb_hosted_render_show(const eb_hosted_pair *p)
{
    eb_buf b;
    eb_buf_init(&b);
    char tr[64];
    eb_buf_printf(&b, "%s: host %s, co-processor %s (%s)\n", p->name, p->host, p->coprocessor, p->file);
    eb_buf_printf(&b, "Transport: %s (bus %s, %d data line%s, %g MHz)\n", eb_hosted_transport_text(p, tr, sizeof tr),
                  eb_hosted_bus_name(p->bus), p->width, p->width == 1 ? "" : "s", p->clock_mhz);
    eb_buf_printf(&b, "Tiers are the host's sdkconfig: CONFIG_WIFI_RMT_* (the Wi-Fi rows, applied by the "
                  "co-processor at esp_wifi_init) and CONFIG_LWIP_*.\n");
    render_settings(&b, p);
    for (int k = 0; k < p->n_tiers; k++) {
        const eb_tier *t = &p->tiers[k];
        eb_buf_printf(&b, "\nTier %s (%s), published figures:\n\n", t->name, t->label);
        eb_buf_printf(&b, "| %-10s | %-13s | %7s |\n|------------|---------------|--------:|\n", "Type", "Direction",
                      "MBits/s");
        for (int r = 0; r < EB_HR_COUNT; r++) {
            char type[24], dir[32], v[16];
            eb_hosted_row_labels(p, r, type, sizeof type, dir, sizeof dir);
            double x = eb_hosted_published(p, t, r);
            snprintf(v, sizeof v, isnan(x) ? "-" : "%g", x);
            eb_buf_printf(&b, "| %-10s | %-13s | %7s |\n", type, dir, v);
        }
    }
    return finish(&b);
}
