/* Sweep points for the renderers (report_internal.h): which values a chip's
 * runs swept, and the runs at one point. Entries of a sweep carry their point
 * in provenance (sweep_var, sweep_value). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int rep_sweep_points(const eb_results *r, const char *chip, char *var, size_t var_cap, double *points, int cap)
{
    int n = 0;
    if (var_cap)
        var[0] = '\0';
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        if (strcmp(e->chip, chip) || !eb_entry_prov(e)->sweep_var[0] || !isfinite(eb_entry_prov(e)->sweep_value))
            continue;
        if (!var[0] && var_cap)
            snprintf(var, var_cap, "%s", eb_entry_prov(e)->sweep_var);
        else if (strcmp(var, eb_entry_prov(e)->sweep_var))
            continue; /* one variable per chart: the first seen */
        bool seen = false;
        for (int k = 0; k < n && !seen; k++)
            seen = points[k] == eb_entry_prov(e)->sweep_value;
        if (!seen && n < cap)
            points[n++] = eb_entry_prov(e)->sweep_value;
    }
    qsort(points, (size_t)n, sizeof *points, cmp_double);
    return n;
}

int rep_point_spread(const eb_results *r, const char *chip, const char *tier, int test, const char *var,
                     double point, int stat, rep_spread *out)
{
    memset(out, 0, sizeof *out);
    out->best_1s = NAN;
    int n = 0;
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        if (e->test != test || strcmp(e->chip, chip) || strcmp(e->tier, tier) || strcmp(e->status, "ok") ||
            strcmp(eb_entry_prov(e)->sweep_var, var) || eb_entry_prov(e)->sweep_value != point)
            continue;
        double f = stat == EB_STAT_PEAK ? e->peak_mbps : e->mean_mbps;
        if (!isfinite(f) || n >= REP_MAX_RUNS)
            continue;
        out->values[n++] = f;
        if (isfinite(e->peak_mbps) && !(e->peak_mbps <= out->best_1s))
            out->best_1s = e->peak_mbps;
    }
    eb_sample_stats_compute(out->values, n, &out->s);
    return n;
}

/* An entry of a sweep through a lab attenuator (attenuation or rssi) or of
 * an rssi sweep, with the RSSI the board reported before the test. */
static bool rssi_point(const eb_entry *e)
{
    const eb_provenance *p = eb_entry_prov(e);
    return isfinite(p->rssi_before) && (isfinite(p->attenuation_db) || !strcmp(p->sweep_var, "rssi") ||
                                        !strcmp(p->sweep_var, "attenuation"));
}

int rep_rssi_points(const eb_results *r, const char *chip, const char *tier, int test, int stat, double *rssi,
                    double *mbps, int cap)
{
    int n = 0;
    for (int i = 0; i < r->n_entries && n < cap; i++) {
        const eb_entry *e = &r->entries[i];
        if (e->test != test || strcmp(e->chip, chip) || (tier && strcmp(e->tier, tier)) || strcmp(e->status, "ok") ||
            !rssi_point(e))
            continue;
        double f = stat == EB_STAT_PEAK ? e->peak_mbps : e->mean_mbps;
        if (!isfinite(f))
            continue;
        /* in RSSI order: an insertion keeps the line left to right */
        int k = n++;
        for (; k > 0 && rssi[k - 1] > eb_entry_prov(e)->rssi_before; k--)
            rssi[k] = rssi[k - 1], mbps[k] = mbps[k - 1];
        rssi[k] = eb_entry_prov(e)->rssi_before;
        mbps[k] = f;
    }
    return n;
}
