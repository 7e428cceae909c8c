/* The throughput table per Wi-Fi band, as ESP-IDF's "Wi-Fi Performance and
 * Power Save" page gives the ESP32-C5's (docs/en/api-guides/wifi-driver/
 * wifi-performance-and-power-save.rst: "- 2.4 GHz band" and "- 5 GHz band",
 * each a list-table of Type/Throughput, Air In Lab, Shield-box, Test Tool,
 * IDF Version (commit ID), rows UDP RX, UDP TX, TCP RX, TCP TX). Shown for a
 * chip whose results have a band dimension (run --band): one table per
 * band, each at the band's own point of the key and compared (--vs-docs)
 * with the band's own row of the docs (eb_tier_ref). The "Air In Lab" and
 * "Shield-box" columns are the results of each setting (run --env air,
 * shield-box) where both exist, else one "Measured (espbench)" column. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "espbench/formats/dims.h"
#include "report_internal.h"

#define CELL(t, r, c) rep_cell((t), (r), (c)), REP_CELL

static const char *const band_of_section[] = {"", "5"}; /* REP_SEC_BAND_24, REP_SEC_BAND_5 */

/* An entry at the band's point: the band asked for ("" = the default, 2.4
 * GHz) and every other radio dimension at its default, no sweep point. */
static bool at_band(const eb_entry *e, const char *band)
{
    const eb_provenance *p = eb_entry_prov(e);
    eb_provenance k;
    eb_prov_init(&k);
    snprintf(k.radio_band, sizeof k.radio_band, "%s", band);
    return eb_dims_same_point(p, &k) && !p->peer_chip[0];
}

static bool chip_has_bands(const eb_results *r, const char *chip)
{
    for (int i = 0; i < r->n_entries; i++)
        if (!strcmp(r->entries[i].chip, chip) && eb_entry_prov(&r->entries[i])->radio_band[0])
            return true;
    return false;
}

/* The best tier's mean at the band in one setting (env NULL: any). */
static double band_cell(const eb_results *r, const char *chip, const char *band, const char *env, int test,
                        int stat, const char **tier)
{
    double best = NAN;
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        if (strcmp(e->chip, chip) || e->test != test || strcmp(e->status, "ok") || !at_band(e, band) ||
            (env && strcmp(eb_entry_prov(e)->env, env)))
            continue;
        /* the tier's mean over its repeats at this point */
        double sum = 0;
        int n = 0;
        for (int j = 0; j < r->n_entries; j++) {
            const eb_entry *f = &r->entries[j];
            if (!strcmp(f->chip, chip) && f->test == test && !strcmp(f->tier, e->tier) && !strcmp(f->status, "ok") &&
                at_band(f, band) && (!env || !strcmp(eb_entry_prov(f)->env, env))) {
                double v = stat == EB_STAT_PEAK ? f->peak_mbps : f->mean_mbps;
                if (isfinite(v))
                    sum += v, n++;
            }
        }
        if (n && (isnan(best) || sum / n > best)) {
            best = sum / n;
            *tier = e->tier;
        }
    }
    return best;
}

static bool has_env(const eb_results *r, const char *chip, const char *band, const char *env)
{
    for (int i = 0; i < r->n_entries; i++)
        if (!strcmp(r->entries[i].chip, chip) && at_band(&r->entries[i], band) &&
            !strcmp(eb_entry_prov(&r->entries[i])->env, env))
            return true;
    return false;
}

/* The figure as a share of the PHY rate ceiling of the mode the board
 * negotiated (its `link`: phy_mode, bandwidth_mhz; eb_phy_ceiling_mbps:
 * IEEE 802.11's rate tables): "81 % of 11n 20 MHz 72.2"; "" where the link
 * is unknown. */
static void phy_share(const eb_results *r, const char *chip, const char *band, const char *tier, int test,
                      double v, char *out, size_t cap)
{
    out[0] = 0;
    for (int i = 0; tier && isfinite(v) && i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        const eb_provenance *p = eb_entry_prov(e);
        double bw = isfinite(p->bandwidth_mhz) ? p->bandwidth_mhz : 20;
        double ceiling = eb_phy_ceiling_mbps(p->phy_mode, bw);
        if (strcmp(e->chip, chip) || strcmp(e->tier, tier) || e->test != test || !at_band(e, band) || isnan(ceiling))
            continue;
        snprintf(out, cap, "%.0f %% of %s %g MHz %.1f", v / ceiling * 100, p->phy_mode, bw, ceiling);
        return;
    }
}

void rep_band_table(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, const char *chip,
                    int section, rep_table *t)
{
    const char *band = band_of_section[section == REP_SEC_BAND_5];
    t->n_rows = t->n_cols = 0;
    t->cells = NULL;
    if (!chip_has_bands(r, chip))
        return;
    static const int order[EB_TEST_COUNT] = {EB_TEST_UDP_RX, EB_TEST_UDP_TX, EB_TEST_TCP_RX, EB_TEST_TCP_TX};
    bool air = has_env(r, chip, band, "air"), box = has_env(r, chip, band, "shield-box");
    const char *envs[2];
    const char *heads[2];
    int n_env = 0;
    if (air && box) {
        envs[n_env] = "air", heads[n_env++] = "Air In Lab";
        envs[n_env] = "shield-box", heads[n_env++] = "Shield-box";
    } else {
        envs[n_env] = NULL, heads[n_env++] = air ? "Air In Lab" : box ? "Shield-box" : "Measured (espbench)";
    }
    int n_cols = 1 + n_env + 1 + (o->vs_docs ? 2 : 0) + 2;
    rep_table_init(t, 1 + EB_TEST_COUNT, n_cols);
    int c = 0;
    snprintf(CELL(t, 0, c++), "Type/Throughput");
    for (int k = 0; k < n_env; k++)
        snprintf(CELL(t, 0, c++), "%s", heads[k]);
    snprintf(CELL(t, 0, c++), "Share of PHY ceiling");
    if (o->vs_docs) {
        snprintf(CELL(t, 0, c++), "Docs");
        snprintf(CELL(t, 0, c++), "Difference vs docs (%%)");
    }
    snprintf(CELL(t, 0, c++), "Test Tool");
    snprintf(CELL(t, 0, c++), "IDF Version");
    eb_provenance key;
    eb_prov_init(&key);
    snprintf(key.radio_band, sizeof key.radio_band, "%s", band);
    for (int k = 0; k < EB_TEST_COUNT; k++) {
        int test = order[k], row = 1 + k;
        const char *tier = NULL, *idf = "";
        c = 0;
        snprintf(CELL(t, row, c++), "%s", eb_test_label(test));
        double first = NAN;
        for (int j = 0; j < n_env; j++) {
            double v = band_cell(r, chip, band, envs[j], test, o->stat, &tier);
            if (j == 0)
                first = v;
            if (isfinite(v))
                snprintf(CELL(t, row, c), "%.1f MBit/s", v);
            c++;
        }
        phy_share(r, chip, band, tier, test, first, CELL(t, row, c++));
        if (o->vs_docs) { /* the band's own row of the docs: eb_tier_ref at the band's key */
            const eb_tier *tt = tier ? rep_tier(p, chip, tier) : NULL;
            double ref = eb_tier_ref(tt, test, &key);
            if (isfinite(ref))
                snprintf(CELL(t, row, c), "%.1f MBit/s", ref);
            c++;
            rep_format_diff(rep_cell(t, row, c++), REP_CELL, n_env == 2 ? band_cell(r, chip, band, "shield-box", test,
                                                                            o->stat, &tier)
                                                                 : first,
                            ref);
        }
        for (int i = 0; i < r->n_entries; i++)
            if (!strcmp(r->entries[i].chip, chip) && at_band(&r->entries[i], band) &&
                eb_entry_prov(&r->entries[i])->idf_version[0])
                idf = eb_entry_prov(&r->entries[i])->idf_version;
        snprintf(CELL(t, row, c++), "iperf (espbench)");
        snprintf(CELL(t, row, c++), "%s", idf);
    }
}
