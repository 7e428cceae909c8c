/* The IDF matrix, ESP-IDF CI's performance lines and the OpenMetrics text,
 * against golden text, over a results matrix built here (no profiles: tiers
 * in order of appearance, labels = names). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "espbench/formats/compare.h"
#include "espbench/formats/report.h"

static void add(eb_results *r, const char *chip, const char *tier, int test, const char *idf, double mean,
                double peak, long heap)
{
    eb_entry e;
    eb_entry_init(&e);
    snprintf(e.board, sizeof e.board, "sim");
    snprintf(e.chip, sizeof e.chip, "%s", chip);
    snprintf(e.tier, sizeof e.tier, "%s", tier);
    e.test = test;
    e.mean_mbps = mean;
    e.peak_mbps = peak;
    e.free_heap = heap;
    if (idf[0])
        snprintf(eb_entry_prov_mut(&e)->idf_version, sizeof eb_entry_prov(&e)->idf_version, "%s", idf);
    eb_results_put(r, &e);
    eb_entry_free(&e);
}

/* Two IDF versions (added newest first: the matrix orders them), two tiers. */
static void build(eb_results *r)
{
    eb_results_init(r);
    add(r, "esp32", "iperf", EB_TEST_TCP_TX, "v6.0-dev", 60.0, 61.0, 40960);
    add(r, "esp32", "iperf", EB_TEST_TCP_TX, "v5.1", 70.0, 71.5, 38912);
    add(r, "esp32", "iperf", EB_TEST_UDP_RX, "v5.1", 80.0, 81.0, 38912);
    add(r, "esp32", "minimum", EB_TEST_TCP_TX, "v5.1", 25.0, 26.0, 189440);
    add(r, "esp32", "minimum", EB_TEST_TCP_TX, "v6.0-dev", 24.5, 25.25, -1);
}

/* The entry at e's key (eb_results_find_done), e standing for a plan item. */
static eb_entry *find_done(eb_results *r, const eb_entry *e)
{
    eb_result_key k = eb_entry_key(e);
    return eb_results_find_done(r, &k);
}

static void test_same_cell_of_two_idfs_is_two_entries(void **state)
{
    (void)state;
    eb_results r;
    build(&r);
    assert_int_equal(r.n_entries, 5);
    /* the same key and IDF replaces */
    add(&r, "esp32", "iperf", EB_TEST_TCP_TX, "v5.1", 72.0, 73.0, 38912);
    assert_int_equal(r.n_entries, 5);
    /* no IDF is a cell of its own, as in every file before the matrix */
    add(&r, "esp32", "iperf", EB_TEST_TCP_TX, "", 72.0, 73.0, 38912);
    assert_int_equal(r.n_entries, 6);
    /* resume: a plan item (no IDF known yet) is done by an entry of any
     * version; a key with a version only by that version's */
    eb_entry k;
    eb_entry_init(&k);
    snprintf(k.board, sizeof k.board, "sim");
    snprintf(k.chip, sizeof k.chip, "esp32");
    snprintf(k.tier, sizeof k.tier, "iperf");
    k.test = EB_TEST_UDP_RX;
    assert_non_null(find_done(&r, &k));
    assert_null(eb_results_find_same(&r, &k));
    snprintf(eb_entry_prov_mut(&k)->idf_version, sizeof eb_entry_prov(&k)->idf_version, "v6.0-dev");
    assert_null(find_done(&r, &k));
    snprintf(eb_entry_prov_mut(&k)->idf_version, sizeof eb_entry_prov(&k)->idf_version, "v5.1");
    assert_non_null(find_done(&r, &k));
    eb_entry_free(&k);
    eb_results_free(&r);
}

static const char md_golden[] =
    "## By ESP-IDF version\n\n"
    "Each cell: the mean of the steady receiver-side intervals (Mbit/s) averaged over boards and repeats, under the "
    "ESP-IDF version the firmware was built with (oldest first); heap: mean free heap after the tier's tests.\n\n"
    "### esp32\n\n"
    "|Tier|Test|v5.1 Mbps|v5.1 heap KiB|v6.0-dev Mbps|v6.0-dev heap KiB|\n"
    "|---|---:|---:|---:|---:|---:|\n"
    "|iperf|tcp_tx|70.0|38.0|60.0|40.0|\n"
    "|iperf|udp_rx|80.0|38.0|||\n"
    "|minimum|tcp_tx|25.0|185.0|24.5||\n\n";

static void test_md_matrix(void **state)
{
    (void)state;
    eb_results r;
    build(&r);
    eb_report_opts o = {.lang = EB_LANG_EN, .stat = EB_STAT_MEAN};
    eb_buf out;
    eb_buf_init(&out);
    eb_error err = {0};
    assert_int_equal(eb_report_md(&r, NULL, &o, &out, &err), 0);
    eb_buf_append_byte(&out, 0);
    const char *at = strstr((const char *)out.data, "## By ESP-IDF version");
    assert_non_null(at);
    const char *end = strstr(at, "---\n\n**Provenance**");
    size_t n = end ? (size_t)(end - at) : strlen(at);
    char got[2048];
    snprintf(got, sizeof got, "%.*s", (int)n, at);
    assert_string_equal(got, md_golden);
    eb_buf_free(&out);
    eb_results_free(&r);
}

static void test_one_idf_has_no_section(void **state)
{
    (void)state;
    eb_results r;
    eb_results_init(&r);
    add(&r, "esp32", "iperf", EB_TEST_TCP_TX, "v5.1", 70.0, 71.5, 38912);
    eb_report_opts o = {.lang = EB_LANG_EN, .stat = EB_STAT_MEAN};
    eb_buf out;
    eb_buf_init(&out);
    eb_error err = {0};
    assert_int_equal(eb_report_md(&r, NULL, &o, &out, &err), 0);
    eb_buf_append_byte(&out, 0);
    assert_null(strstr((const char *)out.data, "By ESP-IDF"));
    eb_buf_reset(&out);
    eb_report_performance_lines(&r, NULL, &out);
    eb_buf_append_byte(&out, 0);
    assert_string_equal((const char *)out.data, "[Performance][tcp_tx_throughput]: 71.50 Mbps\n");
    eb_buf_free(&out);
    eb_results_free(&r);
}

static void test_performance_lines(void **state)
{
    (void)state;
    eb_results r;
    build(&r);
    eb_buf out;
    eb_buf_init(&out);
    eb_report_performance_lines(&r, NULL, &out);
    eb_buf_append_byte(&out, 0);
    assert_string_equal((const char *)out.data, "[Performance][esp32_iperf_v5.1_tcp_tx_throughput]: 71.50 Mbps\n"
                                                "[Performance][esp32_iperf_v5.1_udp_rx_throughput]: 81.00 Mbps\n"
                                                "[Performance][esp32_iperf_v6.0-dev_tcp_tx_throughput]: 61.00 Mbps\n"
                                                "[Performance][esp32_minimum_v5.1_tcp_tx_throughput]: 26.00 Mbps\n"
                                                "[Performance][esp32_minimum_v6.0-dev_tcp_tx_throughput]: 25.25 Mbps\n");
    eb_buf_free(&out);
    eb_results_free(&r);
}

static void test_openmetrics_golden_with_escapes(void **state)
{
    (void)state;
    eb_results r;
    eb_results_init(&r);
    add(&r, "esp32", "my \"fast\"\\tier\nx", EB_TEST_TCP_TX, "v5.1", 70.5, 71.0, 38912);
    add(&r, "esp32", "my \"fast\"\\tier\nx", EB_TEST_UDP_RX, "", 80.25, 81.0, -1);
    eb_buf out;
    eb_buf_init(&out);
    eb_report_openmetrics(&r, NULL, EB_STAT_MEAN, &out);
    eb_buf_append_byte(&out, 0);
    assert_string_equal((const char *)out.data,
                        "# TYPE espbench_throughput_bits_per_second gauge\n"
                        "# UNIT espbench_throughput_bits_per_second bits_per_second\n"
                        "# HELP espbench_throughput_bits_per_second Wi-Fi throughput of a chip, tier and test "
                        "(receiver side), averaged over boards and repeats.\n"
                        "espbench_throughput_bits_per_second{chip=\"esp32\",tier=\"my \\\"fast\\\"\\\\tier\\nx\","
                        "test=\"udp_rx\",idf_version=\"\",stat=\"mean\"} 80250000\n"
                        "espbench_throughput_bits_per_second{chip=\"esp32\",tier=\"my \\\"fast\\\"\\\\tier\\nx\","
                        "test=\"tcp_tx\",idf_version=\"v5.1\",stat=\"mean\"} 70500000\n"
                        "# TYPE espbench_free_heap_bytes gauge\n"
                        "# UNIT espbench_free_heap_bytes bytes\n"
                        "# HELP espbench_free_heap_bytes Free heap after a tier's tests, averaged over its tests.\n"
                        "espbench_free_heap_bytes{chip=\"esp32\",tier=\"my \\\"fast\\\"\\\\tier\\nx\","
                        "idf_version=\"v5.1\"} 38912\n"
                        "# EOF\n");
    eb_buf_free(&out);
    eb_results_free(&r);
}

static void test_compare_between_versions(void **state)
{
    (void)state;
    eb_results r, a, b;
    build(&r);
    eb_results_select_idf(&r, "v5.1", &a);
    eb_results_select_idf(&r, "v6.0-dev", &b);
    assert_int_equal(a.n_entries, 3);
    assert_int_equal(b.n_entries, 2);
    eb_compare_opts o = {.max_drop_pct = 5, .stat = EB_STAT_MEAN};
    eb_compare c = {0};
    eb_error err = {0};
    assert_int_equal(eb_compare_results(&a, &b, NULL, &o, &c, &err), 0);
    assert_int_equal(c.n_rows, 3);
    assert_string_equal(c.rows[0].tier, "iperf");
    assert_int_equal(c.rows[0].status, EB_CMP_REGRESSED); /* 70 -> 60 */
    assert_int_equal(c.rows[1].status, EB_CMP_MISSING);   /* udp_rx only under v5.1 */
    assert_int_equal(c.rows[2].status, EB_CMP_OK);        /* 25 -> 24.5: -2 % */
    eb_compare_free(&c);
    eb_results_free(&a);
    eb_results_free(&b);
    eb_results_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_cell_of_two_idfs_is_two_entries),
        cmocka_unit_test(test_md_matrix),
        cmocka_unit_test(test_one_idf_has_no_section),
        cmocka_unit_test(test_performance_lines),
        cmocka_unit_test(test_openmetrics_golden_with_escapes),
        cmocka_unit_test(test_compare_between_versions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
