/* Pattern files: the loader (every bad file refused with its exact
 * "file:line:col: message"), the units, the line matcher and the whole-log
 * matcher over the built-in udp-example's golden transcripts. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/base/buf.h"
#include "espbench/base/fs.h"
#include "espbench/formats/pattern.h"
#include "espbench/adapters/pattern_files.h"

#define PAT FIXTURES_DIR "/patterns/"
#define UDP_EXAMPLE SOURCE_DIR "/profiles/patterns/udp-example.yaml"

static void load_ok(eb_pattern *p, const char *path)
{
    eb_error err;
    eb_error_clear(&err);
    if (eb_pattern_load_file(p, path, &err) != 0)
        fail_msg("%s: %s", path, err.msg);
}

static char *slurp(const char *path, size_t *len)
{
    eb_buf b;
    eb_buf_init(&b);
    eb_error err;
    if (eb_file_read(path, 1 << 20, NULL, &b, &err) != 0)
        fail_msg("%s", err.msg);
    eb_buf_cstr(&b);
    *len = b.len;
    return (char *)b.data;
}

static void test_units(void **state)
{
    (void)state;
    assert_true(eb_pattern_bytes_unit("B", 1, 1000) == 1);
    assert_true(eb_pattern_bytes_unit("KB", 2, 1000) == 1e3);
    assert_true(eb_pattern_bytes_unit("MB", 2, 1000) == 1e6);
    assert_true(eb_pattern_bytes_unit("GB", 2, 1024) == 1073741824.0);
    assert_true(eb_pattern_bytes_unit("KiB", 3, 1000) == 1024);
    assert_true(eb_pattern_bytes_unit(" MBytes ", 8, 1000) == 1e6);
    assert_true(eb_pattern_bytes_unit("M", 1, 1000) == 1e6);
    assert_true(eb_pattern_bytes_unit("Mbps", 4, 1000) == 0);
    assert_true(eb_pattern_bytes_unit("xB", 2, 1000) == 0);
    assert_true(eb_pattern_rate_unit("bps", 3, 1000) == 1);
    assert_true(eb_pattern_rate_unit("Kbps", 4, 1000) == 1e3);
    assert_true(eb_pattern_rate_unit("Mbps", 4, 1000) == 1e6);
    assert_true(eb_pattern_rate_unit("Gbps", 4, 1000) == 1e9);
    assert_true(eb_pattern_rate_unit("Mbits/sec", 9, 1024) == 1048576.0);
    assert_true(eb_pattern_rate_unit("MB/s", 4, 1000) == 8e6);
    assert_true(eb_pattern_rate_unit("MBytes/sec", 10, 1000) == 8e6);
    assert_true(eb_pattern_rate_unit("furlongs", 8, 1000) == 0);
}

static void test_udp_example_lines(void **state)
{
    (void)state;
    eb_pattern p;
    load_ok(&p, UDP_EXAMPLE);
    assert_string_equal(p.name, "udp-example");
    assert_true(p.udp && p.receiver);
    eb_pattern_line l;
    static const char iv[] = "000 - 001           6.91 MB             55.29 Mbps";
    eb_pattern_match_line(&p, iv, strlen(iv), &l);
    assert_int_equal(l.kind, EB_PAT_INTERVAL);
    assert_true(l.iv.start_s == 0 && l.iv.end_s == 1);
    assert_true(fabs(l.iv.bytes - 6.91e6) < 1e-3);
    assert_true(fabs(l.iv.mbps - 55.29) < 1e-9);
    assert_int_equal(l.iv.lost, -1);
    static const char kb[] = "004 - 005           138.87 KB             1.11 Mbps\r";
    eb_pattern_match_line(&p, kb, strlen(kb), &l);
    assert_int_equal(l.kind, EB_PAT_INTERVAL);
    assert_true(fabs(l.iv.bytes - 138870) < 1e-6 && fabs(l.iv.mbps - 1.11) < 1e-9);
    static const char kbps[] = "\x1b[0;32m012 - 013           117.36 KB             938.85 Kbps\x1b[0m";
    eb_pattern_match_line(&p, kbps, strlen(kbps), &l);
    assert_int_equal(l.kind, EB_PAT_INTERVAL);
    assert_true(l.iv.start_s == 12 && fabs(l.iv.mbps - 0.93885) < 1e-9);
    static const char head[] = "        Interval Bandwidth";
    eb_pattern_match_line(&p, head, strlen(head), &l);
    assert_int_equal(l.kind, EB_PAT_START);
    static const char dir[] = "[UDP UP LINK TEST]";
    eb_pattern_match_line(&p, dir, strlen(dir), &l);
    assert_int_equal(l.kind, EB_PAT_SUMMARY);
    assert_int_equal(l.side, 0);
    static const char total[] = "Upload bytes:439.38 MB, Rate:58.58 Mbps";
    eb_pattern_match_line(&p, total, strlen(total), &l);
    assert_int_equal(l.kind, EB_PAT_SUMMARY);
    assert_true(l.has[EB_PF_RATE] && fabs(l.iv.mbps - 58.58) < 1e-9 && fabs(l.iv.bytes - 439.38e6) < 1e-3);
    static const char elapsed[] = "Start:1402ms, End:61403ms, Elapsed time:60s";
    eb_pattern_match_line(&p, elapsed, strlen(elapsed), &l);
    assert_int_equal(l.kind, EB_PAT_SUMMARY);
    assert_true(l.has[EB_PF_DURATION] && l.iv.end_s == 60);
    static const char err[] = "E (5120) udp_test: socket bind failed: errno 98";
    eb_pattern_match_line(&p, err, strlen(err), &l);
    assert_int_equal(l.kind, EB_PAT_ERROR);
    assert_string_equal(l.message, "socket bind failed: errno 98");
    static const char iperf[] = "[  1] 0.00-1.00 sec  6.91 MBytes  55.3 Mbits/sec";
    eb_pattern_match_line(&p, iperf, strlen(iperf), &l);
    assert_int_equal(l.kind, EB_PAT_NONE);
    /* an interval that reads wrong (no such unit) is no interval */
    static const char bad[] = "000 - 001  6.91 XB  55.29 Mbps";
    eb_pattern_match_line(&p, bad, strlen(bad), &l);
    assert_int_equal(l.kind, EB_PAT_NONE);
    eb_pattern_free(&p);
}

/* The 60-s downlink transcript: one udp_rx test, 60 intervals, the summary. */
static void test_udp_example_rx_log(void **state)
{
    (void)state;
    eb_pattern p;
    load_ok(&p, UDP_EXAMPLE);
    size_t len;
    char *log = slurp(PAT "logs/udp-example_rx_60s.log", &len);
    assert_true(eb_pattern_detect(&p, log, len));
    eb_pattern_log pl;
    eb_pattern_parse_log(&p, "rx.log", log, len, &pl);
    assert_int_equal(pl.n, 1);
    eb_pattern_test *t = &pl.tests[0];
    assert_int_equal(t->test, EB_TEST_UDP_RX);
    assert_true(t->receiver);
    assert_int_equal(t->line, 4);
    assert_int_equal(t->n, 60);
    assert_true(fabs(t->iv[0].mbps - 41.68) < 1e-9);
    assert_true(t->iv[59].start_s == 59 && t->iv[59].end_s == 60 && fabs(t->iv[59].mbps - 54.45) < 1e-9);
    assert_true(t->has_summary);
    assert_true(t->summary.start_s == 0 && t->summary.end_s == 60);
    assert_true(fabs(t->summary.mbps - 54.86) < 1e-9 && fabs(t->summary.bytes - 411.45e6) < 1e-3);
    assert_string_equal(t->error, "");
    eb_pattern_log_free(&pl);
    free(log);
    eb_pattern_free(&p);
}

/* The KB/Kbps transcript: an UP LINK test is the board's sending side. */
static void test_udp_example_tx_kbps_log(void **state)
{
    (void)state;
    eb_pattern p;
    load_ok(&p, UDP_EXAMPLE);
    size_t len;
    char *log = slurp(PAT "logs/udp-example_tx_kbps.log", &len);
    eb_pattern_log pl;
    eb_pattern_parse_log(&p, "tx.log", log, len, &pl);
    assert_int_equal(pl.n, 1);
    eb_pattern_test *t = &pl.tests[0];
    assert_int_equal(t->test, EB_TEST_UDP_TX);
    assert_false(t->receiver);
    assert_int_equal(t->n, 20);
    assert_true(fabs(t->iv[0].bytes - 61440) < 1e-6 && fabs(t->iv[0].mbps - 0.49152) < 1e-9);
    assert_true(fabs(t->iv[4].bytes - 138870) < 1e-6 && fabs(t->iv[4].mbps - 1.11) < 1e-9);
    assert_true(t->summary.end_s == 20 && fabs(t->summary.mbps - 0.91389) < 1e-9);
    assert_true(fabs(t->summary.bytes - 2.28e6) < 1e-3);
    eb_pattern_log_free(&pl);
    free(log);
    eb_pattern_free(&p);
}

/* Two tests in one log, an error, and a log of another dialect. */
static void test_log_cutting_and_errors(void **state)
{
    (void)state;
    eb_pattern p;
    load_ok(&p, UDP_EXAMPLE);
    static const char two[] = "        Interval Bandwidth\n"
                              "000 - 001   1.00 MB   8.00 Mbps\n"
                              "001 - 002   1.00 MB   8.00 Mbps\n"
                              "[UDP DOWN LINK TEST]\n"
                              "Upload bytes:2.00 MB, Rate:8.00 Mbps\n"
                              "000 - 001   2.00 MB   16.00 Mbps\n"
                              "[UDP UP LINK TEST]\n"
                              "Upload bytes:2.00 MB, Rate:16.00 Mbps\n"
                              "        Interval Bandwidth\n"
                              "E (9) udp_test: socket create failed: errno 23\n";
    eb_pattern_log pl;
    eb_pattern_parse_log(&p, "two.log", two, strlen(two), &pl);
    assert_int_equal(pl.n, 3);
    assert_int_equal(pl.tests[0].test, EB_TEST_UDP_RX);
    assert_int_equal(pl.tests[0].n, 2);
    assert_true(pl.tests[0].summary.end_s == 2); /* no Elapsed line: the last interval's end */
    assert_int_equal(pl.tests[1].test, EB_TEST_UDP_TX);
    assert_int_equal(pl.tests[1].line, 6);
    assert_int_equal(pl.tests[1].n, 1);
    assert_int_equal(pl.tests[2].n, 0);
    assert_string_equal(pl.tests[2].error, "two.log:10: board: socket create failed: errno 23");
    eb_pattern_log_free(&pl);
    size_t len;
    char *log = slurp(FIXTURES_DIR "/logs/iperf2/udp.server.log", &len);
    assert_false(eb_pattern_detect(&p, log, len));
    eb_pattern_parse_log(&p, "udp.server.log", log, len, &pl);
    assert_int_equal(pl.n, 0);
    eb_pattern_log_free(&pl);
    free(log);
    eb_pattern_free(&p);
}

/* groups:, units: (a rate without a unit group, times in ms) and base 1024. */
static void test_groups_and_units(void **state)
{
    (void)state;
    static const char yaml[] = "name: my-fw\n"
                               "protocol: tcp\n"
                               "side: sender\n"
                               "unit_base: 1024\n"
                               "interval:\n"
                               "  regex: 'T=(?<from>\\d+)\\.\\.(?<to>\\d+)ms sent=(?<n>\\d+) ?(?<u>[KM]?B)'\n"
                               "  groups: {start: from, end: to, bytes: n, bytes_unit: u}\n"
                               "  units: {time: ms}\n"
                               "errors: 'FAIL (?<message>.*)'\n";
    eb_pattern p;
    eb_error err;
    eb_error_clear(&err);
    if (eb_pattern_load_buffer(&p, yaml, strlen(yaml), "my.yaml", &err))
        fail_msg("%s", err.msg);
    eb_pattern_line l;
    static const char line[] = "T=500..1000ms sent=64 KB";
    eb_pattern_match_line(&p, line, strlen(line), &l);
    assert_int_equal(l.kind, EB_PAT_INTERVAL);
    assert_true(l.iv.start_s == 0.5 && l.iv.end_s == 1.0);
    assert_true(l.iv.bytes == 65536 && fabs(l.iv.mbps - 65536 * 8 / 0.5 / 1e6) < 1e-9);
    static const char fail[] = "FAIL no route";
    eb_pattern_match_line(&p, fail, strlen(fail), &l);
    assert_int_equal(l.kind, EB_PAT_ERROR);
    assert_string_equal(l.message, "no route");
    eb_pattern_log pl;
    eb_pattern_parse_log(&p, "x", line, strlen(line), &pl);
    assert_int_equal(pl.n, 1);
    assert_int_equal(pl.tests[0].test, EB_TEST_TCP_TX);
    eb_pattern_log_free(&pl);
    eb_pattern_free(&p);
}

/* Every file in patterns/bad/ is refused with the exact line expected.txt gives. */
static void test_bad_files(void **state)
{
    (void)state;
    size_t len;
    char *want = slurp(PAT "bad/expected.txt", &len);
    int cases = 0;
    for (char *line = strtok(want, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        char file[128];
        size_t n = strcspn(line, ":");
        snprintf(file, sizeof file, "%.*s", (int)n, line);
        char path[512], expect[1024];
        snprintf(path, sizeof path, PAT "bad/%s", file);
        snprintf(expect, sizeof expect, PAT "bad/%s", line);
        eb_pattern p;
        eb_error err;
        eb_error_clear(&err);
        int rc = eb_pattern_load_file(&p, path, &err);
        if (rc == 0) {
            eb_pattern_free(&p);
            fail_msg("%s loaded", file);
        }
        assert_int_equal(rc, EB_ECONFIG);
        assert_null(strchr(err.msg, '\n'));
        if (strcmp(err.msg, expect) != 0)
            fail_msg("%s:\n  got:  %s\n  want: %s", file, err.msg, expect);
        assert_int_equal(p.n_rules, 0); /* nothing left allocated */
        cases++;
    }
    assert_true(cases >= 9);
    free(want);
}

static void test_builtin_set(void **state)
{
    (void)state;
    eb_pattern_set s;
    eb_error err;
    eb_error_clear(&err);
    if (eb_patterns_load_default(&s, NULL, &err))
        fail_msg("%s", err.msg);
    const eb_pattern *p = eb_patterns_find(&s, "udp-example");
    assert_non_null(p);
    assert_int_equal(p->min_intervals, 3);
    assert_null(eb_patterns_find(&s, "nope"));
    eb_patterns_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_udp_example_lines),
        cmocka_unit_test(test_udp_example_rx_log),
        cmocka_unit_test(test_udp_example_tx_kbps_log),
        cmocka_unit_test(test_log_cutting_and_errors),
        cmocka_unit_test(test_groups_and_units),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_builtin_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
