/* Espressif CI's rules (formats/idf_ci.c): the idf_performance headers'
 * minimums as ESP-IDF writes them, and IperfUtility's "bad point" and
 * "fall to 0" flags with their exact lines and its quirks (the larger of
 * one index's figures, attenuation walked downwards, the RSSI limit). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/formats/idf_ci.h"

/* As components/idf_test/include/esp32c3/idf_performance_target.h writes them. */
static const char header[] =
    "#pragma once\n"
    "/* Due to code size & linker layout differences interacting with cache, VFS\n"
    "   microbenchmark currently runs slower with PSRAM enabled. */\n"
    "#define IDF_PERFORMANCE_MAX_VFS_OPEN_WRITE_CLOSE_TIME                           20000\n"
    "// throughput performance by iperf\n"
    "#define IDF_PERFORMANCE_MIN_TCP_RX_THROUGHPUT                                   45\n"
    "#define IDF_PERFORMANCE_MIN_TCP_TX_THROUGHPUT                                   40\n"
    "#define IDF_PERFORMANCE_MIN_UDP_RX_THROUGHPUT                                   64\n"
    "#define IDF_PERFORMANCE_MIN_UDP_TX_THROUGHPUT                                   50\n"
    "// idf_performance.h's defaults come after the target's: the first wins\n"
    "#ifndef IDF_PERFORMANCE_MIN_TCP_RX_THROUGHPUT\n"
    "#define IDF_PERFORMANCE_MIN_TCP_RX_THROUGHPUT 20\n"
    "#endif\n";

static void test_thresholds(void **state)
{
    (void)state;
    eb_idf_thresholds th;
    eb_error err = {0};
    assert_int_equal(eb_idf_thresholds_parse(header, strlen(header), "t.h", &th, &err), 0);
    assert_true(th.min_mbps[EB_TEST_TCP_RX] == 45 && th.line[EB_TEST_TCP_RX] == 6);
    assert_true(th.min_mbps[EB_TEST_TCP_TX] == 40);
    assert_true(th.min_mbps[EB_TEST_UDP_RX] == 64);
    assert_true(th.min_mbps[EB_TEST_UDP_TX] == 50 && th.line[EB_TEST_UDP_TX] == 9);

    static const char partial[] = "#  define\tIDF_PERFORMANCE_MIN_UDP_RX_THROUGHPUT 80 // esp32\n";
    assert_int_equal(eb_idf_thresholds_parse(partial, strlen(partial), "p.h", &th, &err), 0);
    assert_true(th.min_mbps[EB_TEST_UDP_RX] == 80);
    assert_true(isnan(th.min_mbps[EB_TEST_TCP_RX]));

    static const char bad[] = "\n#define IDF_PERFORMANCE_MIN_TCP_TX_THROUGHPUT forty\n";
    assert_int_equal(eb_idf_thresholds_parse(bad, strlen(bad), "b.h", &th, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "b.h:2: IDF_PERFORMANCE_MIN_TCP_TX_THROUGHPUT: expected a number of Mbit/s, got "
                                 "'forty'");
    static const char none[] = "#define IDF_PERFORMANCE_MAX_SPI_PER_TRANS_POLLING 15\n";
    assert_int_equal(eb_idf_thresholds_parse(none, strlen(none), "n.h", &th, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "n.h: no IDF_PERFORMANCE_MIN_*_THROUGHPUT define (ESP-IDF's "
                                 "components/idf_test/include/<target>/idf_performance_target.h has them)");
}

static void test_bad_points_rssi(void **state)
{
    (void)state;
    /* -40 has 20 against -50's 60: a 66.67 % drop; -90's 5 is under 10 Mbit/s: -80 is not judged;
     * -60 has 50 and 30 (the larger counts). */
    eb_idf_point pts[] = {{-40, 20}, {-50, 60}, {-60, 50}, {-60, 30}, {-80, 2}, {-90, 5}, {-30, 21}};
    eb_buf out = {0};
    assert_int_equal(eb_idf_bad_points(pts, 7, false, "lab", &out), 1);
    eb_buf_append_byte(&out, 0);
    assert_string_equal((char *)out.data, "[Error][Bad point][lab][rssi: -40]: drop 66.67%\n");
    eb_buf_free(&out);
    /* Under -75 dBm a point is never judged. */
    eb_idf_point weak[] = {{-85, 50}, {-80, 10}};
    eb_buf_init(&out);
    assert_int_equal(eb_idf_bad_points(weak, 2, false, "lab", &out), 0);
    eb_buf_free(&out);
}

static void test_bad_points_att(void **state)
{
    (void)state;
    /* Attenuation walked down from 60: 10 dB has 30 against 20 dB's 50 (a 40 % drop);
     * IperfUtility's RSSI limit compares the attenuation: 60 -> 50 is judged too. */
    eb_idf_point pts[] = {{0, 60}, {10, 30}, {20, 50}, {50, 12}, {60, 20}};
    eb_buf out = {0};
    assert_int_equal(eb_idf_bad_points(pts, 5, true, "ap1", &out), 2);
    eb_buf_append_byte(&out, 0);
    assert_string_equal((char *)out.data, "[Error][Bad point][ap1][att: 50]: drop 40.00%\n"
                                          "[Error][Bad point][ap1][att: 10]: drop 40.00%\n");
    eb_buf_free(&out);
}

static void test_fall_to_0(void **state)
{
    (void)state;
    eb_interval iv[3] = {{0, 1, 0, 20, NAN, -1, -1}, {1, 2, 0, 0, NAN, -1, -1}, {2, 2.5, 0, 0, NAN, -1, -1}};
    eb_entry e;
    eb_entry_init(&e);
    e.receiver = eb_ivs_view(iv, 3);
    double at = -1;
    eb_entry_prov_mut(&e)->rssi_before = -60;
    assert_true(eb_idf_fall_to_0(&e, &at));
    assert_true(at == 1);
    eb_entry_prov_mut(&e)->rssi_before = -88; /* not above -88 dBm */
    assert_false(eb_idf_fall_to_0(&e, &at));
    eb_entry_prov_mut(&e)->rssi_before = -60;
    iv[1].mbps = 0.5; /* only the half-second interval is 0: not a 1-second one */
    assert_false(eb_idf_fall_to_0(&e, &at));
    e.receiver = EB_IVS_EMPTY;
    eb_entry_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thresholds),
        cmocka_unit_test(test_bad_points_rssi),
        cmocka_unit_test(test_bad_points_att),
        cmocka_unit_test(test_fall_to_0),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
