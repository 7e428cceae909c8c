/* Spread over repeats and the provenance footer, shared by the renderers:
 * per chip × tier × test with two or more runs, the sample statistics of
 * the runs' figures (mean, median, standard deviation, coefficient of
 * variation, min), the best 1-s interval (the figure Espressif's CI reports)
 * and the interval flags (stalls, drops; stats.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/dims.h"
#include "report_internal.h"

int rep_cell_spread(const eb_results *r, const char *chip, const char *tier, int test, int stat, rep_spread *out)
{
    memset(out, 0, sizeof *out);
    out->best_1s = NAN;
    int n = 0;
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        /* sweep points are not repeats of one cell: report_sweep.c shows them */
        if (e->test != test || strcmp(e->chip, chip) || strcmp(e->tier, tier) || strcmp(e->status, "ok") ||
            !eb_dims_at_default(eb_entry_prov(e)) || eb_entry_prov(e)->peer_chip[0])
            continue;
        double f = stat == EB_STAT_PEAK ? e->peak_mbps : e->mean_mbps;
        if (!isfinite(f) || n >= REP_MAX_RUNS)
            continue;
        out->values[n++] = f;
        if (isfinite(e->peak_mbps) && !(e->peak_mbps <= out->best_1s))
            out->best_1s = e->peak_mbps;
        int st, dr;
        eb_interval_flags(e, NULL, &st, &dr);
        out->stalls += st;
        out->drops += dr;
    }
    eb_sample_stats_compute(out->values, n, &out->s);
    return n;
}

bool rep_has_repeats(const eb_results *r, const eb_profiles *p, const char *chip)
{
    const char *tiers[REP_MAX_TIERS];
    int nt = eb_results_tiers(r, p, chip, tiers, REP_MAX_TIERS);
    rep_spread sp;
    for (int t = 0; t < nt; t++)
        for (int k = 0; k < EB_TEST_COUNT; k++)
            if (rep_cell_spread(r, chip, tiers[t], k, EB_STAT_MEAN, &sp) >= 2)
                return true;
    return false;
}

static void num(char *out, double v, const char *fmt)
{
    if (isfinite(v))
        snprintf(out, REP_CELL, fmt, v);
}

void rep_spread_table(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, const char *chip,
                      rep_table *t)
{
    static const char *const head[] = {"Tier", "Test", "Runs", "Mean", "Median", "Std dev", "CV %", "Min",
                                       "Best 1-s (Espressif CI figure)", "Stalls", "Drops >30 %"};
    enum { NC = sizeof head / sizeof head[0] };
    const char *tiers[REP_MAX_TIERS];
    int nt = eb_results_tiers(r, p, chip, tiers, REP_MAX_TIERS);
    rep_table_init(t, 1 + nt * EB_TEST_COUNT, NC);
    for (int c = 0; c < NC; c++)
        snprintf(rep_cell(t, 0, c), REP_CELL, "%s", head[c]);
    int row = 1;
    for (int i = 0; i < nt; i++)
        for (int k = 0; k < EB_TEST_COUNT; k++) {
            rep_spread sp;
            if (rep_cell_spread(r, chip, tiers[i], k, o->stat, &sp) < 2)
                continue;
            snprintf(rep_cell(t, row, 0), REP_CELL, "%s", rep_tier_label(p, chip, tiers[i], o->lang));
            snprintf(rep_cell(t, row, 1), REP_CELL, "%s", eb_test_label(k));
            snprintf(rep_cell(t, row, 2), REP_CELL, "%d", sp.s.n);
            num(rep_cell(t, row, 3), sp.s.mean, "%.2f");
            num(rep_cell(t, row, 4), sp.s.median, "%.2f");
            num(rep_cell(t, row, 5), sp.s.stddev, "%.2f");
            num(rep_cell(t, row, 6), sp.s.cv_pct, "%.1f");
            num(rep_cell(t, row, 7), sp.s.min, "%.2f");
            num(rep_cell(t, row, 8), sp.best_1s, "%.2f");
            snprintf(rep_cell(t, row, 9), REP_CELL, "%d", sp.stalls);
            snprintf(rep_cell(t, row, 10), REP_CELL, "%d", sp.drops);
            row++;
        }
    t->n_rows = row; /* unused rows stay allocated, never shown */
    if (row == 1)
        t->n_rows = 0;
}

const char *rep_spread_note(int stat)
{
    return stat == EB_STAT_PEAK
               ? "Spread over repeated runs of each run's peak 1-s interval (Mbit/s). Stalls: steady intervals at "
                 "0 Mbit/s; drops: steady intervals more than 30 % under the run's median (Espressif's CI thresholds)."
               : "Spread over repeated runs of each run's mean (Mbit/s); best 1-s = the largest 1-second interval of "
                 "any run, the figure Espressif's CI reports. Stalls: steady intervals at 0 Mbit/s; drops: steady "
                 "intervals more than 30 % under the run's median (Espressif's CI thresholds).";
}
