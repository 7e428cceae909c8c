/* ESP-Hosted raw throughput report parser: golden transcripts in both of the
 * host's formats (esp-hosted-mcu host/utils/stats.c and the eh_raw_tp port). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/formats/hosted.h"

static char *slurp(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/hosted/%s", FIXTURES_DIR, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[8192];
    *len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return buf;
}

static void near(double got, double want)
{
    if (fabs(got - want) > 1e-6)
        fail_msg("got %.9g, want %.9g", got, want);
}

static void test_stats_float_kbit_1024(void **state)
{
    (void)state;
    size_t len;
    const char *t = slurp("raw_tp_stats_float.log", &len);
    eb_raw_tp_result *r = malloc(sizeof *r);
    eb_error err;
    assert_int_equal(eb_raw_tp_parse(t, len, r, &err), 0);
    assert_int_equal(r->n, 3);
    assert_int_equal(r->kbit_base, 1024);
    near(r->iv[1].start_s, 1);
    near(r->iv[1].tx_mbps, 70410.16 * 1024 / 1e6);
    near(r->tx_mean_mbps, (70312.50 + 70410.16 + 70361.33) * 1024 / 3e6);
    near(r->rx_mean_mbps, 0);
    free(r);
}

static void test_eh_raw_tp_int_kbit_1000(void **state)
{
    (void)state;
    size_t len;
    const char *t = slurp("raw_tp_eh_int.log", &len);
    eb_raw_tp_result *r = malloc(sizeof *r);
    eb_error err;
    assert_int_equal(eb_raw_tp_parse(t, len, r, &err), 0);
    assert_int_equal(r->n, 2);
    assert_int_equal(r->kbit_base, 1000);
    near(r->iv[1].end_s, 4);
    near(r->rx_mean_mbps, (80.112 + 79.850) / 2);
    near(r->tx_mean_mbps, 0);
    free(r);
}

static void test_no_report_is_one_line_error(void **state)
{
    (void)state;
    const char t[] = "I (10) stats: 0-1 sec Tx:abc Rx:1 kbps\nI (11) wifi: got ip\n";
    eb_raw_tp_result *r = malloc(sizeof *r);
    eb_error err;
    assert_int_equal(eb_raw_tp_parse(t, sizeof t - 1, r, &err), 2);
    assert_string_equal(err.msg, "no ESP-Hosted raw throughput line (\"N-M sec Tx:X Rx:Y kbps\") in the log; "
                                 "build the host with CONFIG_ESP_HOSTED_RAW_THROUGHPUT_TRANSPORT=y");
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_float_kbit_1024),
        cmocka_unit_test(test_eh_raw_tp_int_kbit_1000),
        cmocka_unit_test(test_no_report_is_one_line_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
