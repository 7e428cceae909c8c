/* Statistics over steady intervals (results.h, stats.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/formats/results.h"

static eb_interval iv(double s, double e, double mbps)
{
    eb_interval x = {s, e, mbps * 1e6 / 8 * (e - s), mbps, NAN, -1, -1};
    return x;
}

#define CLOSE(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static void test_empty_and_nothing_steady(void **state)
{
    (void)state;
    eb_stats s;
    eb_stats_compute(NULL, 0, 1.0, 0, &s);
    assert_int_equal(s.n, 0);
    assert_true(isnan(s.mean) && isnan(s.median) && isnan(s.min) && isnan(s.max) && isnan(s.stddev) &&
                isnan(s.peak_1s));
    /* only a summary line and a short partial interval */
    eb_interval v[] = {iv(0, 10, 50), iv(9.0, 9.3, 40)};
    eb_stats_compute(v, 2, 1.0, 0, &s);
    assert_int_equal(s.n, 0);
    assert_true(isnan(s.mean));
}

static void test_single(void **state)
{
    (void)state;
    eb_interval v[] = {iv(0, 1, 42.5)};
    eb_stats s;
    eb_stats_compute(v, 1, 1.0, 0, &s);
    assert_int_equal(s.n, 1);
    CLOSE(s.mean, 42.5);
    CLOSE(s.median, 42.5);
    CLOSE(s.stddev, 0);
    CLOSE(s.peak_1s, 42.5);
}

static void test_steady_selection(void **state)
{
    (void)state;
    /* warm-up 1 s dropped; partial last interval and the summary excluded */
    eb_interval v[] = {iv(0, 1, 10), iv(1, 2, 60), iv(2, 3, 62), iv(3, 4, 58), iv(4, 5, 64),
                       iv(5, 5.3, 1), iv(0, 5.3, 51)};
    eb_stats s;
    eb_stats_compute(v, 7, 1.0, 1.0, &s);
    assert_int_equal(s.n, 4);
    CLOSE(s.mean, 61);
    CLOSE(s.median, 61);
    CLOSE(s.min, 58);
    CLOSE(s.max, 64);
    /* sample stddev of 60 62 58 64: sqrt(20/3) */
    CLOSE(s.stddev, sqrt(20.0 / 3.0));
    CLOSE(s.peak_1s, 64);
    /* without warm-up the first interval counts */
    eb_stats_compute(v, 7, 1.0, 0, &s);
    assert_int_equal(s.n, 5);
    CLOSE(s.min, 10);
    /* 10 % tolerance on the length: 1.09 s counts, 1.11 s does not */
    eb_interval w[] = {iv(0, 1.09, 5), iv(1.09, 2.2, 7)};
    eb_stats_compute(w, 2, 1.0, 0, &s);
    assert_int_equal(s.n, 1);
    CLOSE(s.mean, 5);
}

static void test_unknown_interval_uses_median_length(void **state)
{
    (void)state;
    eb_interval v[] = {iv(0, 3, 30), iv(3, 6, 33), iv(6, 9, 36), iv(0, 9, 33)};
    eb_stats s;
    eb_stats_compute(v, 4, 0, 0, &s);
    assert_int_equal(s.n, 3);
    CLOSE(s.mean, 33);
    CLOSE(s.peak_1s, 36); /* 3-s intervals: the largest rate is the closest figure */
}

static void test_peak_over_whole_seconds(void **state)
{
    (void)state;
    /* 0.5-s intervals: peak = best mean over a whole second [k, k+1) */
    eb_interval v[] = {iv(0, 0.5, 10), iv(0.5, 1, 20), iv(1, 1.5, 90), iv(1.5, 2, 30), iv(2, 2.5, 70), iv(2.5, 3, 70),
                       iv(3, 3.5, 100)};
    eb_stats s;
    eb_stats_compute(v, 7, 0.5, 0, &s);
    assert_int_equal(s.n, 7);
    CLOSE(s.max, 100);
    CLOSE(s.peak_1s, 70); /* [2,3): (70+70)/2; [1,2) = 60; 3.0-3.5 alone is not a whole second */
    /* 0.25-s intervals */
    eb_interval q[8];
    for (int i = 0; i < 8; i++)
        q[i] = iv(i * 0.25, (i + 1) * 0.25, i < 4 ? 10 : 20 + i);
    eb_stats_compute(q, 8, 0.25, 0, &s);
    CLOSE(s.peak_1s, (24 + 25 + 26 + 27) / 4.0);
    /* no whole second covered (warm-up cut): the largest rate */
    eb_stats_compute(v, 7, 0.5, 2.5, &s);
    assert_int_equal(s.n, 2);
    CLOSE(s.peak_1s, 100);
    /* an interval that does not divide a second (0.3 s): the largest rate */
    eb_interval t[] = {iv(0, 0.3, 5), iv(0.3, 0.6, 9), iv(0.6, 0.9, 7)};
    eb_stats_compute(t, 3, 0.3, 0, &s);
    CLOSE(s.peak_1s, 9);
}

static void test_even_count_median(void **state)
{
    (void)state;
    eb_interval v[] = {iv(0, 1, 4), iv(1, 2, 1), iv(2, 3, 3), iv(3, 4, 2)};
    eb_stats s;
    eb_stats_compute(v, 4, 1.0, 0, &s);
    CLOSE(s.median, 2.5);
    CLOSE(s.mean, 2.5);
    /* NaN rates are not steady */
    v[0].mbps = NAN;
    eb_stats_compute(v, 4, 1.0, 0, &s);
    assert_int_equal(s.n, 3);
    CLOSE(s.median, 2);
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

/* The median is selected in place, not sorted: over many rates with ties,
 * odd and even counts, it is the sorted middle exactly. */
static void test_median_of_many(void **state)
{
    (void)state;
    enum { N = 4001 };
    static eb_interval iv[N];
    static double sorted[N];
    for (int n = N - 1; n <= N; n++) {
        uint32_t x = 12345;
        for (int i = 0; i < n; i++) {
            x = x * 1103515245u + 12345u; /* a fixed sequence: rates with many ties */
            double mbps = (double)((x >> 16) % 500) / 10.0;
            iv[i] = (eb_interval){i, i + 1, mbps * 125000, mbps, NAN, -1, -1};
            sorted[i] = mbps;
        }
        qsort(sorted, (size_t)n, sizeof sorted[0], cmp_dbl);
        double want = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
        eb_stats s;
        eb_stats_compute(iv, n, 1.0, 0, &s);
        assert_int_equal(s.n, n);
        assert_true(s.median == want);
        assert_true(s.min == sorted[0] && s.max == sorted[n - 1]);
    }
}

/* A partial test, the rule run and parse share: one interval's slack. */
static void test_intervals_cover(void **state)
{
    (void)state;
    eb_interval iv[3] = {{0, 1, 0, 0, NAN, -1, -1}, {1, 2, 0, 0, NAN, -1, -1}, {2, 3, 0, 0, NAN, -1, -1}};
    char why[160] = "";
    eb_ivs three = eb_ivs_view(iv, 3), none = EB_IVS_EMPTY;
    assert_true(eb_intervals_cover(&three, 4, 1, "receiver", EB_TEST_TCP_TX, why, sizeof why));
    assert_true(eb_intervals_cover(&three, 0, 1, "receiver", EB_TEST_TCP_TX, why, sizeof why)); /* -t unknown */
    assert_false(eb_intervals_cover(&three, 60, 1, "receiver", EB_TEST_TCP_TX, why, sizeof why));
    assert_string_equal(why, "the receiver reported only 3.0 s of the 60 s of tcp_tx");
    assert_false(eb_intervals_cover(&none, 10, 1, "sender", EB_TEST_UDP_TX, why, sizeof why));
    assert_string_equal(why, "the sender reported only 0.0 s of the 10 s of udp_tx");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_and_nothing_steady),
        cmocka_unit_test(test_single),
        cmocka_unit_test(test_steady_selection),
        cmocka_unit_test(test_unknown_interval_uses_median_length),
        cmocka_unit_test(test_peak_over_whole_seconds),
        cmocka_unit_test(test_even_count_median),
        cmocka_unit_test(test_intervals_cover),
        cmocka_unit_test(test_median_of_many),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
