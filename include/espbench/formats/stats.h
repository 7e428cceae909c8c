/* Noise-aware statistics: a sample's spread, per-interval stall/drop flags,
 * and Welch's t confidence interval for the difference of two samples (the
 * verdict `espbench compare` gives per cell). Pure functions (stats.c). */
#ifndef ESPBENCH_STATS_H
#define ESPBENCH_STATS_H

#include "espbench/formats/results.h"

/* Summary of a sample (repeat figures or interval rates). n == 0: all NAN;
 * n == 1: stddev and cv NAN (one value says nothing about spread). */
typedef struct eb_sample_stats {
    int n;
    double mean, median, stddev, cv_pct, min, max;
} eb_sample_stats;
void eb_sample_stats_compute(const double *v, int n, eb_sample_stats *out);

/* The steady receiver-side rates of an entry (as eb_stats_compute selects
 * them) into out (at most max); returns how many. */
int eb_entry_steady_rates(const eb_entry *e, double *out, int max);

/* Per-interval flags over an entry's receiver side, for steady intervals:
 * EB_IV_STALL when the rate is zero, EB_IV_DROP when it is more than 30 %
 * under the median of the steady intervals. Espressif's CI uses the same two
 * rules (tools/ci/python_packages/idf_iperf_test_util/IperfUtility.py:
 * a zero 1-s interval is "[Error][fall to 0]"; BAD_POINT_PERCENTAGE_THRESHOLD
 * = 0.3 flags a point 30 % under its neighbour in an RSSI/attenuation sweep —
 * here the reference is the run's own median). flags may be NULL; returns the
 * number of steady intervals. */
enum { EB_IV_STALL = 1, EB_IV_DROP = 2 };
#define EB_DROP_FRACTION 0.30
int eb_interval_flags(const eb_entry *e, unsigned char *flags, int *n_stalls, int *n_drops);

/* Regularized incomplete beta I_x(a, b) (continued fraction, modified Lentz). */
double eb_betainc(double a, double b, double x);
/* Student's t: CDF and quantile (the quantile inverts the CDF by bisection to 1e-12). */
double eb_student_t_cdf(double t, double df);
double eb_student_t_quantile(double p, double df);

enum eb_verdict { EB_VERDICT_NA, EB_VERDICT_NOISE, EB_VERDICT_BETTER, EB_VERDICT_WORSE };
const char *eb_verdict_name(int v); /* "n/a", "within noise", "better", "worse" */

/* Welch's t interval for mean(cur) - mean(base) at confidence conf (0.95).
 * Verdict: better when the whole interval is above 0, worse when below,
 * within noise when it contains 0; n/a with fewer than 2 values a side. */
typedef struct eb_welch {
    double diff, lo, hi;  /* cur - base and its interval */
    double df, se, t_crit;
    int verdict;          /* enum eb_verdict */
} eb_welch;
void eb_welch_interval(const eb_sample_stats *base, const eb_sample_stats *cur, double conf, eb_welch *out);

#endif
