/* Statistics over a test's steady intervals (see results.h).
 *
 * Steady intervals: length within 10 % of the nominal interval (so summary
 * lines and short partial last intervals drop out), starting at or after
 * warmup_s. interval_s <= 0 means "unknown": the median interval length is
 * taken as nominal.
 *
 * peak_1s, the figure Espressif's CI reports (its max over 1-second rows):
 *  - intervals of 1 s: the largest steady rate;
 *  - intervals that divide a second evenly (0.5 s, 0.25 s, 0.1 s ...): the
 *    largest mean over a whole second [k, k+1) fully covered by steady
 *    intervals; when no second is fully covered, the largest steady rate;
 *  - any other length (2 s, 3 s, 0.3 s ...): the largest steady rate, which
 *    is the closest figure the data allows.
 * Every figure, peak_1s included, is over the same steady set (so a warm-up
 * second never counts). n == 0 gives NAN everywhere; n == 1 gives stddev 0. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/results.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static double nominal_interval(const eb_interval *iv, int n)
{
    if (n <= 0)
        return 0;
    double *spans = malloc((size_t)n * sizeof *spans);
    if (!spans)
        abort();
    for (int i = 0; i < n; i++)
        spans[i] = iv[i].end_s - iv[i].start_s;
    double m = median_of(spans, n);
    free(spans);
    return m;
}

/* Largest mean over whole seconds fully covered by k steady intervals. */
static double peak_whole_seconds(const eb_interval *iv, const int *idx, int n, double interval_s, int k,
                                 bool *found)
{
    double best = -INFINITY;
    *found = false;
    int i = 0;
    while (i < n) {
        const eb_interval *first = &iv[idx[i]];
        double sec = floor(first->start_s + 1e-6);
        if (fabs(first->start_s - sec) > interval_s * 0.1) {
            i++;
            continue;
        }
        /* k consecutive steady intervals tiling [sec, sec+1) */
        double sum = 0, at = sec;
        int j = 0;
        for (; j < k && i + j < n; j++) {
            const eb_interval *x = &iv[idx[i + j]];
            if (fabs(x->start_s - at) > interval_s * 0.1)
                break;
            sum += x->mbps;
            at = x->end_s;
        }
        if (j == k && fabs(at - (sec + 1.0)) <= interval_s * 0.1) {
            double mean = sum / k;
            if (mean > best)
                best = mean;
            *found = true;
            i += k;
        } else {
            i++;
        }
    }
    return best;
}

/* ---------------------------------------------------------------------------
 * An entry's figures (results.h eb_entry_figures): one rule for run and parse.
 * ------------------------------------------------------------------------- */

/* The nominal interval of one side: the entry's when its lines have that
 * length, else their median length (0 when there are none). */
static double side_interval(const eb_entry *e, const eb_interval *iv, int n)
{
    if (n <= 0)
        return 0;
    double m = nominal_interval(iv, n);
    if (isfinite(e->interval_s) && e->interval_s > 0 && fabs(m - e->interval_s) <= 0.1 * e->interval_s)
        return e->interval_s;
    return m;
}

static void udp_figures(eb_entry *e, const eb_interval *final)
{
    long lost = 0, total = 0;
    double jsum = 0;
    int jn = 0;
    for (int i = 0; i < e->n_receiver; i++) {
        const eb_interval *iv = &e->receiver[i];
        if (iv->lost >= 0 && iv->total > 0) {
            lost += iv->lost;
            total += iv->total;
        }
        if (isfinite(iv->jitter_ms)) {
            jsum += iv->jitter_ms;
            jn++;
        }
    }
    if (final && final->lost >= 0 && final->total > 0) {
        lost = final->lost;
        total = final->total;
        if (isfinite(final->jitter_ms)) {
            jsum = final->jitter_ms;
            jn = 1;
        }
    }
    e->loss_pct = total > 0 ? 100.0 * (double)lost / (double)total : NAN;
    e->jitter_ms = jn > 0 && e->test != EB_TEST_UDP_TX ? jsum / jn : NAN;
}

void eb_entry_figures(eb_entry *e, const eb_interval *udp_final)
{
    double wu = isfinite(e->warmup_s) ? e->warmup_s : 0;
    eb_stats_compute(e->receiver, e->n_receiver, side_interval(e, e->receiver, e->n_receiver), wu, &e->rx_stats);
    eb_stats_compute(e->sender, e->n_sender, side_interval(e, e->sender, e->n_sender), wu, &e->tx_stats);
    const eb_stats *h = e->rx_stats.n > 0 ? &e->rx_stats : &e->tx_stats;
    e->mean_mbps = h->mean;
    e->peak_mbps = h->peak_1s;
    if (e->test == EB_TEST_UDP_TX || e->test == EB_TEST_UDP_RX)
        udp_figures(e, udp_final);
}

void eb_stats_compute(const eb_interval *iv, int n, double interval_s, double warmup_s, eb_stats *out)
{
    out->n = 0;
    out->mean = out->median = out->min = out->max = out->stddev = out->peak_1s = NAN;
    if (!iv || n <= 0)
        return;
    if (!(interval_s > 0))
        interval_s = nominal_interval(iv, n);
    if (!(interval_s > 0))
        return;

    int *idx = malloc((size_t)n * sizeof *idx);
    double *rates = malloc((size_t)n * sizeof *rates);
    if (!idx || !rates)
        abort();
    int m = 0;
    for (int i = 0; i < n; i++) {
        double span = iv[i].end_s - iv[i].start_s;
        if (fabs(span - interval_s) > interval_s * 0.1 || !isfinite(iv[i].mbps))
            continue;
        if (iv[i].start_s < warmup_s - 1e-6)
            continue;
        idx[m] = i;
        rates[m] = iv[i].mbps;
        m++;
    }
    if (m == 0) {
        free(idx);
        free(rates);
        return;
    }
    double sum = 0, mn = INFINITY, mx = -INFINITY;
    for (int i = 0; i < m; i++) {
        sum += rates[i];
        if (rates[i] < mn)
            mn = rates[i];
        if (rates[i] > mx)
            mx = rates[i];
    }
    double mean = sum / m, ss = 0;
    for (int i = 0; i < m; i++)
        ss += (rates[i] - mean) * (rates[i] - mean);
    out->n = m;
    out->mean = mean;
    out->min = mn;
    out->max = mx;
    out->stddev = m > 1 ? sqrt(ss / (m - 1)) : 0.0;
    out->peak_1s = mx;
    double per_second = 1.0 / interval_s;
    double k = round(per_second);
    if (interval_s < 0.95 && k >= 2 && k <= 1000 && fabs(per_second - k) < 1e-6 * k) {
        bool found;
        double peak = peak_whole_seconds(iv, idx, m, interval_s, (int)k, &found);
        if (found)
            out->peak_1s = peak;
    }
    out->median = median_of(rates, m);
    free(idx);
    free(rates);
}
