/* The latency table of a chip, shared by the renderers: per tier (and sweep
 * point, and load: idle, or the throughput test the probes ran beside with
 * run --latency-under-load), the runs' round trips with the statistics the throughput spread
 * uses (mean, median, standard deviation, coefficient of variation of the
 * runs' average round trip), the smallest, the largest 99th percentile and
 * the largest round trip seen, and the loss over all probes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "espbench/formats/dims.h"
#include "report_internal.h"

#define MAX_KEYS 256

typedef struct lat_key {
    const char *tier;
    const eb_provenance *point; /* its dimensions' values (dims.h) */
    const char *load;           /* eb_latency.under_load: "" idle */
} lat_key;

static bool same_key(const lat_key *k, const eb_latency *l)
{
    return !strcmp(k->tier, l->tier) && eb_dims_same_point(k->point, &l->prov) && !strcmp(k->load, l->under_load);
}

/* Distinct (tier, point) keys of a chip, in the order of the results. */
static int lat_keys(const eb_results *r, const char *chip, lat_key *keys, int max)
{
    int n = 0;
    for (int i = 0; i < r->n_lat; i++) {
        const eb_latency *l = &r->lat[i];
        if (strcmp(l->chip, chip))
            continue;
        bool seen = false;
        for (int k = 0; k < n && !seen; k++)
            seen = same_key(&keys[k], l);
        if (!seen && n < max)
            keys[n++] = (lat_key){l->tier, &l->prov, l->under_load};
    }
    return n;
}

static void num(char *out, double v, const char *fmt)
{
    if (isfinite(v))
        snprintf(out, REP_CELL, fmt, v);
}

static double max_of(double a, double b) { return !isfinite(a) || b > a ? b : a; }
static double min_of(double a, double b) { return !isfinite(a) || b < a ? b : a; }

/* One row: the runs of a key. Returns false when the key has no run at all. */
static bool lat_row(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, const char *chip,
                    const lat_key *k, rep_table *t, int row)
{
    double avgs[REP_MAX_RUNS], mn = NAN, mx = NAN, p99 = NAN;
    int n = 0, sent = 0, received = 0, failed = 0;
    const char *method = "";
    for (int i = 0; i < r->n_lat; i++) {
        const eb_latency *l = &r->lat[i];
        if (strcmp(l->chip, chip) || !same_key(k, l))
            continue;
        sent += l->sent;
        received += l->received;
        if (l->method[0])
            method = l->method;
        if (strcmp(l->status, "ok")) {
            failed++;
            continue;
        }
        if (isfinite(l->avg_ms) && n < REP_MAX_RUNS)
            avgs[n++] = l->avg_ms;
        mn = min_of(mn, l->min_ms);
        mx = max_of(mx, l->max_ms);
        p99 = max_of(p99, l->p99_ms);
    }
    if (n == 0 && failed == 0)
        return false;
    eb_sample_stats s;
    eb_sample_stats_compute(avgs, n, &s);
    int c = 0;
    snprintf(rep_cell(t, row, c++), REP_CELL, "%s", rep_tier_label(p, chip, k->tier, o->lang));
    if (!eb_dims_at_default(k->point))
        eb_dims_point_label(k->point, rep_cell(t, row, c), REP_CELL);
    c++;
    snprintf(rep_cell(t, row, c++), REP_CELL, "%s", k->load[0] ? k->load : "idle");
    snprintf(rep_cell(t, row, c++), REP_CELL, "%s", method);
    snprintf(rep_cell(t, row, c++), REP_CELL, failed ? "%d (%d failed)" : "%d", n, failed);
    snprintf(rep_cell(t, row, c++), REP_CELL, "%d/%d", received, sent);
    num(rep_cell(t, row, c++), sent > 0 ? 100.0 * (sent - received) / sent : NAN, "%.1f");
    num(rep_cell(t, row, c++), mn, "%.2f");
    num(rep_cell(t, row, c++), s.mean, "%.2f");
    num(rep_cell(t, row, c++), s.median, "%.2f");
    num(rep_cell(t, row, c++), n >= 2 ? s.stddev : NAN, "%.2f");
    num(rep_cell(t, row, c++), n >= 2 ? s.cv_pct : NAN, "%.1f");
    num(rep_cell(t, row, c++), p99, "%.2f");
    num(rep_cell(t, row, c++), mx, "%.2f");
    return true;
}

void rep_latency_table(const eb_results *r, const eb_profiles *p, const eb_report_opts *o, const char *chip,
                       rep_table *t)
{
    static const char *const head[] = {"Tier", "Point", "Load", "Method", "Runs", "Replies", "Loss %", "Min ms",
                                       "Avg ms (mean)", "Avg ms (median)", "Std dev", "CV %", "p99 ms", "Max ms"};
    enum { NC = sizeof head / sizeof head[0] };
    lat_key keys[MAX_KEYS];
    int nk = lat_keys(r, chip, keys, MAX_KEYS);
    if (nk == 0) {
        rep_table_init(t, 0, NC);
        return;
    }
    rep_table_init(t, 1 + nk, NC);
    for (int c = 0; c < NC; c++)
        snprintf(rep_cell(t, 0, c), REP_CELL, "%s", head[c]);
    int row = 1;
    bool keep[NC];
    for (int c = 0; c < NC; c++)
        keep[c] = c != 1 && c != 2;
    for (int k = 0; k < nk; k++) {
        row += lat_row(r, p, o, chip, &keys[k], t, row);
        keep[1] |= !eb_dims_at_default(keys[k].point);
        keep[2] |= keys[k].load[0] != '\0';
    }
    t->n_rows = row;
    /* No sweep point, no set under load: drop the empty Point and Load
     * columns (cells are row-major; every destination is at or before its
     * source, so copying forward is safe). */
    int nc = 0;
    for (int c = 0; c < NC; c++)
        nc += keep[c];
    for (int i = 0; i < t->n_rows; i++)
        for (int c = 0, d = 0; c < NC; c++)
            if (keep[c])
                memmove(t->cells[i * nc + d++], t->cells[i * NC + c], REP_CELL);
    t->n_cols = nc;
}

const char *rep_latency_note(void)
{
    return "Round trips from the PC to the board (UDP echo through the espbench firmware, or ICMP through the "
           "system's ping); the statistics are over the runs' average round trip; p99 and max are the largest "
           "of any run. Load: idle, or the throughput test the probes ran beside (run --latency-under-load).";
}
