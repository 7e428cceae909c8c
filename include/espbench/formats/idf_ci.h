/* Espressif CI's own rules over results (compare --idf-thresholds):
 *   - the per-chip minimum throughputs of ESP-IDF's test component
 *     (components/idf_test/include/<target>/idf_performance_target.h and
 *     idf_performance.h: "#define IDF_PERFORMANCE_MIN_TCP_RX_THROUGHPUT 45"),
 *     checked against each chip's best peak 1-s figure per test, as the
 *     iperf test checks get_best_throughput();
 *   - the attenuation / RSSI sweep flags of ESP-IDF's IperfUtility
 *     (tools/ci/python_packages/idf_iperf_test_util/IperfUtility.py):
 *     "fall to 0" (a 1-second interval of 0 while RSSI > -88 dBm, once per
 *     test) and "bad point" (a point's best figure under 70 % of its
 *     weaker-signal neighbour's, where that neighbour has at least 10 Mbit/s
 *     and, for RSSI, the point is at -75 dBm or stronger).
 * Pure. */
#ifndef ESPBENCH_IDF_CI_H
#define ESPBENCH_IDF_CI_H

#include <stdbool.h>
#include <stddef.h>

#include "espbench/base/buf.h"
#include "espbench/base/error.h"
#include "espbench/formats/results.h"

#define EB_IDF_ZERO_POINT_RSSI (-88)      /* IperfUtility ZERO_POINT_THRESHOLD */
#define EB_IDF_BAD_POINT_RSSI (-75)       /* BAD_POINT_RSSI_THRESHOLD */
#define EB_IDF_BAD_POINT_MIN_MBPS 10.0    /* BAD_POINT_MIN_THRESHOLD */
#define EB_IDF_BAD_POINT_DROP 0.3         /* BAD_POINT_PERCENTAGE_THRESHOLD */

/* The minimums a header defines (NAN where it defines none), Mbit/s. */
typedef struct eb_idf_thresholds {
    double min_mbps[EB_TEST_COUNT];
    int line[EB_TEST_COUNT]; /* where each was defined */
} eb_idf_thresholds;

/* Reads the IDF_PERFORMANCE_MIN_{TCP,UDP}_{TX,RX}_THROUGHPUT defines of a
 * header (the first definition of each wins: ESP-IDF includes the target's
 * header before idf_performance.h's #ifndef defaults). EB_ECONFIG with
 * "NAME:LINE: ..." on a malformed value, or when it defines none. */
int eb_idf_thresholds_parse(const char *text, size_t len, const char *name, eb_idf_thresholds *out, eb_error *err);

/* One point of a sweep: its index (RSSI dBm or attenuation dB) and the best
 * peak 1-s figure measured there. */
typedef struct eb_idf_point {
    double index, mbps;
} eb_idf_point;

/* IperfUtility's post_analysis over points (any order; points of the same
 * index keep the larger figure): writes one "[Error][Bad point]..." line
 * per bad point to out (ap: the AP's name in the line); returns how many.
 * by_att: the index is attenuation (walked from the largest down, and
 * IperfUtility's RSSI limit compares the attenuation: it never skips). */
int eb_idf_bad_points(const eb_idf_point *pts, int n, bool by_att, const char *ap, eb_buf *out);

/* Whether an entry has a 1-second receiver interval of 0 Mbit/s while the
 * board's RSSI was above -88 dBm (IperfUtility's "fall to 0"); *at its start. */
bool eb_idf_fall_to_0(const eb_entry *e, double *at);

/* The whole check over results (chip NULL: every chip): thresholds (NULL:
 * none) against each chip's best peak figure per test, then every sweep's
 * flags. One line per check to out; returns the number of failures. */
int eb_idf_ci_check(const eb_results *r, const eb_idf_thresholds *th, const char *chip, eb_buf *out);

#endif
