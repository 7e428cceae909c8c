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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/results.h"

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

/* The k-th smallest of v[0..n) (finite values), moved to v[k], the smaller
 * ones before it: Hoare's selection in place, a median-of-three pivot.
 * glibc's qsort sorts a copy (merge sort), as large again as a long test's
 * rates. */
static double select_kth(double *v, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        double a = v[lo], b = v[mid], c = v[hi];
        double pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
        int i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break; /* j < k < i: v[k] equals the pivot */
    }
    return v[k];
}

/* The median of finite values, as median_of gives it, in place. */
static double median_select(double *v, int n)
{
    double upper = select_kth(v, n, n / 2);
    if (n % 2)
        return upper;
    double lower = v[0]; /* the largest of the n/2 values now before v[n/2] */
    for (int i = 1; i < n / 2; i++)
        if (v[i] > lower)
            lower = v[i];
    return (lower + upper) / 2.0;
}

static double nominal_interval(const eb_ivs *s)
{
    int n = s->n;
    if (n <= 0)
        return 0;
    double *spans = malloc((size_t)n * sizeof *spans);
    if (!spans)
        abort();
    for (int i = 0; i < n; i++) {
        eb_interval iv = eb_ivs_at(s, i);
        spans[i] = iv.end_s - iv.start_s;
    }
    double m = median_of(spans, n);
    free(spans);
    return m;
}

/* Largest mean over whole seconds fully covered by k steady intervals. */
static double peak_whole_seconds(const eb_ivs *iv, const int *idx, int n, double interval_s, int k,
                                 bool *found)
{
    double best = -INFINITY;
    *found = false;
    int i = 0;
    while (i < n) {
        const eb_interval first_at = eb_ivs_at(iv, idx[i]), *first = &first_at;
        double sec = floor(first->start_s + 1e-6);
        if (fabs(first->start_s - sec) > interval_s * 0.1) {
            i++;
            continue;
        }
        /* k consecutive steady intervals tiling [sec, sec+1) */
        double sum = 0, at = sec;
        int j = 0;
        for (; j < k && i + j < n; j++) {
            const eb_interval x_at = eb_ivs_at(iv, idx[i + j]), *x = &x_at;
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
static double side_interval(const eb_entry *e, const eb_ivs *iv)
{
    if (iv->n <= 0)
        return 0;
    /* When more than half the lines are within 10 % of the entry's interval
     * their median is too: no sorted copy of a long test's spans is needed
     * to say so. */
    int near = 0;
    for (int i = 0; isfinite(e->interval_s) && e->interval_s > 0 && i < iv->n; i++) {
        eb_interval x = eb_ivs_at(iv, i);
        near += fabs(x.end_s - x.start_s - e->interval_s) <= 0.1 * e->interval_s;
    }
    if (near * 2 > iv->n)
        return e->interval_s;
    double m = nominal_interval(iv);
    if (isfinite(e->interval_s) && e->interval_s > 0 && fabs(m - e->interval_s) <= 0.1 * e->interval_s)
        return e->interval_s;
    return m;
}

static void udp_figures(eb_entry *e, const eb_interval *final)
{
    long lost = 0, total = 0;
    double jsum = 0;
    int jn = 0;
    for (int i = 0; i < e->receiver.n; i++) {
        const eb_interval iv_at = eb_ivs_at(&e->receiver, i), *iv = &iv_at;
        if (iv->lost >= 0 && iv->total > 0) {
            lost += iv->lost;
            total += iv->total;
        }
        if (isfinite(iv->jitter_ms)) {
            jsum += iv->jitter_ms;
            jn++;
        }
    }
    /* iperf's whole-test line wins: it counts the datagrams after the last
     * printed interval and corrects for out-of-order ones; the intervals'
     * sum stays beside it (interval_loss_pct) */
    e->interval_loss_pct = NAN;
    if (final && final->lost >= 0 && final->total > 0) {
        if (total > 0)
            e->interval_loss_pct = 100.0 * (double)lost / (double)total;
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
    eb_stats_compute_ivs(&e->receiver, side_interval(e, &e->receiver), wu, &e->rx_stats);
    eb_stats_compute_ivs(&e->sender, side_interval(e, &e->sender), wu, &e->tx_stats);
    const eb_stats *h = e->rx_stats.n > 0 ? &e->rx_stats : &e->tx_stats;
    e->mean_mbps = h->mean;
    e->peak_mbps = h->peak_1s;
    if (e->test == EB_TEST_UDP_TX || e->test == EB_TEST_UDP_RX)
        udp_figures(e, udp_final);
}

bool eb_intervals_cover(const eb_ivs *iv, double requested_s, double interval_s, const char *side, int test,
                        char *why, size_t why_cap)
{
    if (!(requested_s > 0))
        return true;
    double covered = iv->n > 0 ? eb_ivs_at(iv, iv->n - 1).end_s : 0;
    double step = interval_s > 0 ? interval_s : 0;
    if (covered >= requested_s - step * 1.01)
        return true;
    const char *tn = eb_test_name(test);
    snprintf(why, why_cap, "the %s reported only %.1f s of the %g s of %s", side, covered, requested_s,
             tn ? tn : "the test");
    return false;
}

void eb_entry_drop_headline(eb_entry *e)
{
    e->mean_mbps = e->peak_mbps = e->loss_pct = e->jitter_ms = e->interval_loss_pct = NAN;
}

void eb_stats_compute(const eb_interval *iv, int n, double interval_s, double warmup_s, eb_stats *out)
{
    eb_ivs view = eb_ivs_view(iv, n);
    eb_stats_compute_ivs(&view, interval_s, warmup_s, out);
}

void eb_stats_compute_ivs(const eb_ivs *iv, double interval_s, double warmup_s, eb_stats *out)
{
    out->n = 0;
    out->mean = out->median = out->min = out->max = out->stddev = out->peak_1s = NAN;
    int n = iv->n;
    if (!iv->rows || n <= 0)
        return;
    if (!(interval_s > 0))
        interval_s = nominal_interval(iv);
    if (!(interval_s > 0))
        return;

    /* Whole seconds of sub-second intervals (see the top): the steady
     * intervals' places are needed only then. */
    double per_second = 1.0 / interval_s;
    double k = round(per_second);
    bool whole_seconds = interval_s < 0.95 && k >= 2 && k <= 1000 && fabs(per_second - k) < 1e-6 * k;
    int *idx = whole_seconds ? malloc((size_t)n * sizeof *idx) : NULL;
    double *rates = malloc((size_t)n * sizeof *rates);
    if ((whole_seconds && !idx) || !rates)
        abort();
    int m = 0;
    for (int i = 0; i < n; i++) {
        eb_interval x = eb_ivs_at(iv, i);
        double span = x.end_s - x.start_s;
        if (fabs(span - interval_s) > interval_s * 0.1 || !isfinite(x.mbps))
            continue;
        if (x.start_s < warmup_s - 1e-6)
            continue;
        if (idx)
            idx[m] = i;
        rates[m] = x.mbps;
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
    if (whole_seconds) {
        bool found;
        double peak = peak_whole_seconds(iv, idx, m, interval_s, (int)k, &found);
        if (found)
            out->peak_1s = peak;
    }
    out->median = median_select(rates, m);
    free(idx);
    free(rates);
}

/* ---------------------------------------------------------------- noise (stats.h) */

#include "espbench/formats/stats.h"

void eb_sample_stats_compute(const double *v, int n, eb_sample_stats *out)
{
    out->n = n > 0 ? n : 0;
    out->mean = out->median = out->stddev = out->cv_pct = out->min = out->max = NAN;
    if (n <= 0)
        return;
    double *s = malloc((size_t)n * sizeof *s);
    if (!s)
        abort();
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += s[i] = v[i];
    out->mean = sum / n;
    out->median = median_of(s, n); /* sorts s */
    out->min = s[0];
    out->max = s[n - 1];
    free(s);
    if (n < 2)
        return;
    double ss = 0;
    for (int i = 0; i < n; i++)
        ss += (v[i] - out->mean) * (v[i] - out->mean);
    out->stddev = sqrt(ss / (n - 1));
    out->cv_pct = out->mean != 0 ? out->stddev / fabs(out->mean) * 100.0 : NAN;
}

/* The same selection as eb_stats_compute: length within 10 % of the nominal
 * interval, starting at or after the warm-up, finite rate. */
static bool steady(const eb_interval *iv, double interval_s, double warmup_s)
{
    double span = iv->end_s - iv->start_s;
    return fabs(span - interval_s) <= interval_s * 0.1 && isfinite(iv->mbps) && iv->start_s >= warmup_s - 1e-6;
}

static double entry_interval(const eb_entry *e)
{
    return e->interval_s > 0 ? e->interval_s : nominal_interval(&e->receiver);
}

int eb_entry_steady_rates(const eb_entry *e, double *out, int max)
{
    double is = entry_interval(e), wu = isfinite(e->warmup_s) ? e->warmup_s : 0;
    int m = 0;
    for (int i = 0; is > 0 && i < e->receiver.n && m < max; i++) {
        eb_interval iv = eb_ivs_at(&e->receiver, i);
        if (steady(&iv, is, wu))
            out[m++] = iv.mbps;
    }
    return m;
}

int eb_interval_flags(const eb_entry *e, unsigned char *flags, int *n_stalls, int *n_drops)
{
    *n_stalls = *n_drops = 0;
    if (flags && e->receiver.n > 0)
        memset(flags, 0, (size_t)e->receiver.n);
    if (e->receiver.n <= 0)
        return 0;
    double *r = malloc((size_t)e->receiver.n * sizeof *r);
    if (!r)
        abort();
    int m = eb_entry_steady_rates(e, r, e->receiver.n);
    double med = m > 0 ? median_select(r, m) : NAN;
    free(r);
    double is = entry_interval(e), wu = isfinite(e->warmup_s) ? e->warmup_s : 0;
    for (int i = 0; m > 0 && i < e->receiver.n; i++) {
        const eb_interval iv_at = eb_ivs_at(&e->receiver, i), *iv = &iv_at;
        if (!steady(iv, is, wu))
            continue;
        unsigned char f = 0;
        if (iv->mbps <= 0)
            f = EB_IV_STALL;
        else if (iv->mbps < med * (1.0 - EB_DROP_FRACTION))
            f = EB_IV_DROP;
        *n_stalls += f == EB_IV_STALL;
        *n_drops += f == EB_IV_DROP;
        if (flags)
            flags[i] = f;
    }
    return m;
}

/* Continued fraction of I_x(a,b) (DLMF 8.17.22), evaluated with the modified
 * Lentz method; converges fast for x < (a+1)/(a+b+2). */
static double betacf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double f = 1.0, c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    if (fabs(d) < tiny)
        d = tiny;
    d = 1.0 / d;
    f = d;
    for (int m = 1; m <= 500; m++) {
        for (int half = 0; half < 2; half++) {
            /* even term d_{2m}, then odd term d_{2m+1} */
            double num = half == 0 ? m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
                                   : -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
            d = 1.0 + num * d;
            if (fabs(d) < tiny)
                d = tiny;
            c = 1.0 + num / c;
            if (fabs(c) < tiny)
                c = tiny;
            d = 1.0 / d;
            double delta = c * d;
            f *= delta;
            if (half == 1 && fabs(delta - 1.0) < 1e-15)
                return f;
        }
    }
    return f;
}

double eb_betainc(double a, double b, double x)
{
    if (!(x > 0))
        return 0.0;
    if (!(x < 1))
        return 1.0;
    double lfront = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    if (x < (a + 1.0) / (a + b + 2.0))
        return exp(lfront) * betacf(a, b, x) / a;
    /* symmetry I_x(a,b) = 1 - I_{1-x}(b,a) keeps the fraction in its fast range */
    double lback = lgamma(a + b) - lgamma(a) - lgamma(b) + b * log1p(-x) + a * log(x);
    return 1.0 - exp(lback) * betacf(b, a, 1.0 - x) / b;
}

double eb_student_t_cdf(double t, double df)
{
    if (!(df > 0) || isnan(t))
        return NAN;
    double x = df / (df + t * t);
    double tail = 0.5 * eb_betainc(df / 2.0, 0.5, x); /* P(T > |t|) */
    return t >= 0 ? 1.0 - tail : tail;
}

double eb_student_t_quantile(double p, double df)
{
    if (!(p > 0 && p < 1) || !(df > 0))
        return NAN;
    if (p < 0.5)
        return -eb_student_t_quantile(1.0 - p, df);
    double lo = 0, hi = 1;
    while (eb_student_t_cdf(hi, df) < p && hi < 1e12)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * (1 + hi); i++) {
        double mid = (lo + hi) / 2;
        if (eb_student_t_cdf(mid, df) < p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

const char *eb_verdict_name(int v)
{
    static const char *const names[] = {[EB_VERDICT_NA] = "n/a", [EB_VERDICT_NOISE] = "within noise",
                                        [EB_VERDICT_BETTER] = "better", [EB_VERDICT_WORSE] = "worse"};
    return v >= 0 && v <= EB_VERDICT_WORSE ? names[v] : "?";
}

void eb_welch_interval(const eb_sample_stats *base, const eb_sample_stats *cur, double conf, eb_welch *out)
{
    out->diff = out->lo = out->hi = out->df = out->se = out->t_crit = NAN;
    out->verdict = EB_VERDICT_NA;
    if (base->n < 2 || cur->n < 2 || !(conf > 0 && conf < 1))
        return;
    out->diff = cur->mean - base->mean;
    double va = base->stddev * base->stddev / base->n, vb = cur->stddev * cur->stddev / cur->n;
    out->se = sqrt(va + vb);
    if (out->se == 0) {
        /* no spread on either side: the difference is exact */
        out->lo = out->hi = out->diff;
        out->df = base->n + cur->n - 2;
        out->t_crit = 0;
    } else {
        /* Welch–Satterthwaite degrees of freedom */
        out->df = (va + vb) * (va + vb) / (va * va / (base->n - 1) + vb * vb / (cur->n - 1));
        out->t_crit = eb_student_t_quantile(1.0 - (1.0 - conf) / 2.0, out->df);
        out->lo = out->diff - out->t_crit * out->se;
        out->hi = out->diff + out->t_crit * out->se;
    }
    out->verdict = out->lo > 0 ? EB_VERDICT_BETTER : out->hi < 0 ? EB_VERDICT_WORSE : EB_VERDICT_NOISE;
}
