/* ESP-Hosted pairs in the Markdown report: per host, co-processor,
 * transport and tier, the table of esp-hosted-mcu's performance guide
 * (docs/performance_optimization.md):
 *
 *   | Type       | Direction     | MBits/s |
 *   |------------|---------------|--------:|
 *   | Raw        | P4 to C6      |      72 |
 *   ...
 *   | iPerf, UDP | Test PC to P4 |      49 |
 *
 * from the measured entries (the pair is each entry's provenance:
 * coprocessor, transport, width, clock); with --vs-docs the guide's figure
 * (the entry's ref_mbps) and the difference follow. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/hosted.h"
#include "report_internal.h"

#define MAX_GROUPS 32

/* One table: a host chip, its co-processor over a transport, one tier. */
typedef struct group {
    const eb_entry *first; /* names the group: chip, tier, provenance */
} group;

static bool same_pair(const eb_entry *a, const eb_entry *b)
{
    return !strcmp(a->chip, b->chip) && !strcmp(eb_entry_prov(a)->coprocessor, eb_entry_prov(b)->coprocessor) &&
           !strcmp(eb_entry_prov(a)->transport, eb_entry_prov(b)->transport) && eb_entry_prov(a)->transport_width == eb_entry_prov(b)->transport_width &&
           eb_entry_prov(a)->transport_clock_mhz == eb_entry_prov(b)->transport_clock_mhz;
}

static bool same_group(const eb_entry *a, const eb_entry *b) { return same_pair(a, b) && !strcmp(a->tier, b->tier); }

static int find_groups(const eb_results *r, const eb_report_opts *o, group *g, int max)
{
    int n = 0;
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        if (!eb_entry_prov(e)->coprocessor[0] || (o->chip && strcmp(o->chip, e->chip)))
            continue;
        int k = 0;
        while (k < n && !same_group(g[k].first, e))
            k++;
        if (k == n && n < max)
            g[n++].first = e;
    }
    return n;
}

/* The chosen statistic over the group's ok entries of a test (NAN if none),
 * and the published figure they carry. The raw tests measure the transport
 * whatever the tier (run files them under the first): any tier's count. */
static double cell(const eb_results *r, const eb_entry *key, int test, int stat, double *ref)
{
    double sum = 0;
    int n = 0;
    *ref = NAN;
    bool raw = test == EB_TEST_RAW_TX || test == EB_TEST_RAW_RX;
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        if (e->test != test || !(raw ? same_pair(e, key) : same_group(e, key)))
            continue;
        if (!isnan(e->ref_mbps))
            *ref = e->ref_mbps;
        if (strcmp(e->status, "ok"))
            continue;
        sum += stat == EB_STAT_PEAK ? e->peak_mbps : e->mean_mbps;
        n++;
    }
    return n ? sum / n : NAN;
}

static void num(char *out, size_t n, double v)
{
    if (isnan(v))
        snprintf(out, n, "-");
    else if (fabs(v - round(v)) < 0.05) /* the guide prints whole Mbit/s */
        snprintf(out, n, "%.0f", v);
    else
        snprintf(out, n, "%.1f", v);
}

/* The guide's sentence: "Using SDIO Transport, 4-bits, running at 40MHz, connected to a 2.4GHz network." */
static void transport_note(const eb_entry *key, char *note, size_t cap)
{
    int bus = eb_hosted_bus_from_name(eb_entry_prov(key)->transport);
    char width[32] = "", band[48] = "";
    if (!isnan(eb_entry_prov(key)->transport_width) && (bus == EB_BUS_SDIO || bus == EB_BUS_SPI_HD))
        snprintf(width, sizeof width, ", %g-bits", eb_entry_prov(key)->transport_width);
    if (eb_entry_prov(key)->band[0])
        snprintf(band, sizeof band, ", connected to a %s network", eb_entry_prov(key)->band);
    snprintf(note, cap, "Using %s Transport%s, running at %gMHz%s.", bus >= 0 ? eb_hosted_bus_label(bus) : eb_entry_prov(key)->transport,
             width, eb_entry_prov(key)->transport_clock_mhz, band);
}

/* Markdown, in the guide's own column widths. */
static void render_group(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, const eb_entry *key,
                         eb_buf *out)
{
    rep_table t;
    char title[160], note[400];
    rep_hosted_table(r, p, o, key, &t, title, sizeof title, note, sizeof note);
    transport_note(key, note, sizeof note); /* the simulated note stands once above all tables */
    eb_buf_printf(out, "## %s\n\n%s %s\n\n", title, note, rep_stat_note(o->stat, EB_LANG_EN));
    if (o->vs_docs)
        eb_buf_printf(out, "| Type       | Direction     | MBits/s | Guide MBits/s | Diff %% |\n"
                           "|------------|---------------|--------:|--------------:|-------:|\n");
    else
        eb_buf_printf(out, "| Type       | Direction     | MBits/s |\n|------------|---------------|--------:|\n");
    for (int row = 1; row < t.n_rows; row++) {
        eb_buf_printf(out, "| %-10s | %-13s | %7s |", rep_cell(&t, row, 0), rep_cell(&t, row, 1), rep_cell(&t, row, 2));
        if (o->vs_docs)
            eb_buf_printf(out, " %13s | %6s |", rep_cell(&t, row, 3), rep_cell(&t, row, 4));
        eb_buf_printf(out, "\n");
    }
    eb_buf_printf(out, "\n");
    rep_table_free(&t);
}

int rep_hosted_groups(const eb_results *r, const eb_report_opts *o, const eb_entry **firsts, int max)
{
    group g[MAX_GROUPS];
    int n = find_groups(r, o, g, max < MAX_GROUPS ? max : MAX_GROUPS);
    for (int i = 0; i < n; i++)
        firsts[i] = g[i].first;
    return n;
}

void rep_hosted_table(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, const eb_entry *key,
                      rep_table *t, char *title, size_t title_cap, char *note, size_t note_cap)
{
    eb_hosted_pair pair;
    memset(&pair, 0, sizeof pair);
    snprintf(pair.host, sizeof pair.host, "%s", key->chip);
    snprintf(pair.coprocessor, sizeof pair.coprocessor, "%s", eb_entry_prov(key)->coprocessor);
    snprintf(title, title_cap, "%s + %s as co-processor, tier %s", rep_chip_display(p, key->chip),
             rep_chip_display(p, eb_entry_prov(key)->coprocessor), key->tier);
    transport_note(key, note, note_cap);
    if (key->figure_source[0])
        snprintf(note + strlen(note), note_cap - strlen(note), " Simulated (espbench-vboard), not measured: the "
                 "transport runs at the guide's raw rate, the iperf figures come from the pair model (docs/model.md).");
    int cols = o->vs_docs ? 5 : 3;
    rep_table_init(t, 1 + EB_HR_COUNT, cols);
    static const char *const head[] = {"Type", "Direction", "MBits/s", "Guide MBits/s", "Diff %"};
    for (int c = 0; c < cols; c++)
        snprintf(rep_cell(t, 0, c), REP_CELL, "%s", head[c]);
    for (int row = 0; row < EB_HR_COUNT; row++) {
        char type[24], dir[32];
        eb_hosted_row_labels(&pair, row, type, sizeof type, dir, sizeof dir);
        double ref, v = cell(r, key, eb_hosted_row_test(row), o->stat, &ref);
        snprintf(rep_cell(t, 1 + row, 0), REP_CELL, "%s", type);
        snprintf(rep_cell(t, 1 + row, 1), REP_CELL, "%s", dir);
        num(rep_cell(t, 1 + row, 2), REP_CELL, v);
        if (o->vs_docs) {
            num(rep_cell(t, 1 + row, 3), REP_CELL, ref);
            rep_format_diff(rep_cell(t, 1 + row, 4), REP_CELL, v, ref);
        }
    }
}

int rep_hosted_md(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, eb_buf *out)
{
    group g[MAX_GROUPS];
    int n = find_groups(r, o, g, MAX_GROUPS);
    for (int i = 0; i < n; i++) {
        if (i == 0 && g[i].first->figure_source[0])
            eb_buf_printf(out, "**Simulated (espbench-vboard), not measured: the transport runs at the guide's raw "
                          "rate, the iperf figures come from the pair model (docs/model.md).**\n\n");
        render_group(r, p, o, g[i].first, out);
    }
    return n;
}

bool rep_chip_all_hosted(const eb_results *r, const char *chip)
{
    bool any = false;
    for (int i = 0; i < r->n_entries; i++) {
        if (strcmp(r->entries[i].chip, chip))
            continue;
        if (!eb_entry_prov(&r->entries[i])->coprocessor[0])
            return false;
        any = true;
    }
    return any;
}
