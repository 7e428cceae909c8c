/* ping output parser (ping_parse.h) over golden transcripts: one captured
 * from iputils-ping 20221126 on loopback, two in its format with a lost
 * request, a duplicate and no reply at all, and BusyBox's summary form. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/formats/ping_parse.h"
#include "espbench/adapters/ping_proc.h"

#define CLOSE(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static char *slurp(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/transcripts/%s", FIXTURES_DIR, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[8192];
    *len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return buf;
}

static void test_loopback_capture(void **state)
{
    (void)state;
    size_t n;
    const char *b = slurp("ping-iputils-20221126.txt", &n);
    static eb_ping_result r;
    eb_error err = {0};
    assert_int_equal(eb_ping_parse(b, n, &r, &err), 0);
    assert_int_equal(r.transmitted, 3);
    assert_int_equal(r.received, 3);
    CLOSE(r.loss_pct, 0);
    assert_int_equal(r.n_rtt, 3);
    CLOSE(r.rtt_ms[1], 0.051);
    CLOSE(r.min_ms, 0.031);
    CLOSE(r.avg_ms, 0.044);
    CLOSE(r.max_ms, 0.052);
    CLOSE(r.mdev_ms, 0.009);
    CLOSE(r.p99_ms, 0.052);
}

static void test_loss_and_duplicate(void **state)
{
    (void)state;
    size_t n;
    const char *b = slurp("ping-iputils-loss.txt", &n);
    static eb_ping_result r;
    eb_error err = {0};
    assert_int_equal(eb_ping_parse(b, n, &r, &err), 0);
    assert_int_equal(r.transmitted, 4);
    assert_int_equal(r.received, 3);
    assert_int_equal(r.duplicates, 1);
    CLOSE(r.loss_pct, 25);
    assert_int_equal(r.n_rtt, 3); /* the duplicate is not a sample */
    CLOSE(r.p99_ms, 103);
    CLOSE(r.max_ms, 103);
}

static void test_no_reply(void **state)
{
    (void)state;
    size_t n;
    const char *b = slurp("ping-iputils-none.txt", &n);
    static eb_ping_result r;
    eb_error err = {0};
    assert_int_equal(eb_ping_parse(b, n, &r, &err), 0);
    CLOSE(r.loss_pct, 100);
    assert_int_equal(r.n_rtt, 0);
    assert_true(isnan(r.min_ms) && isnan(r.avg_ms) && isnan(r.p99_ms));
}

static void test_busybox_summary(void **state)
{
    (void)state;
    const char *b = "PING 10.0.0.2 (10.0.0.2): 56 data bytes\n"
                    "64 bytes from 10.0.0.2: seq=0 ttl=255 time=2.104 ms\n"
                    "64 bytes from 10.0.0.2: seq=1 ttl=255 time=1.900 ms\n\n"
                    "--- 10.0.0.2 ping statistics ---\n"
                    "2 packets transmitted, 2 packets received, 0% packet loss\n"
                    "round-trip min/avg/max = 1.900/2.002/2.104 ms\n";
    static eb_ping_result r;
    eb_error err = {0};
    assert_int_equal(eb_ping_parse(b, strlen(b), &r, &err), 0);
    assert_int_equal(r.received, 2);
    CLOSE(r.avg_ms, 2.002);
    assert_true(isnan(r.mdev_ms));
    CLOSE(r.p99_ms, 2.104);
}

static void test_errors_exact(void **state)
{
    (void)state;
    static eb_ping_result r;
    eb_error err = {0};
    const char *cut = "PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data.\n"
                      "64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.031 ms\n";
    assert_int_equal(eb_ping_parse(cut, strlen(cut), &r, &err), EB_EIO);
    assert_string_equal(err.msg, "ping output (2 lines) has no \"packets transmitted\" line; "
                                 "was ping interrupted or is it not iputils/BusyBox ping?");
    const char *bad = "1 packets transmitted, 1 received, 0% packet loss, time 0ms\n"
                      "rtt min/avg/max/mdev = 0.1/x/0.1/0 ms\n";
    assert_int_equal(eb_ping_parse(bad, strlen(bad), &r, &err), EB_EIO);
    assert_string_equal(err.msg, "ping output line 2: cannot read the round-trip summary; "
                                 "expected \"rtt min/avg/max/mdev = a/b/c/d ms\"");
    const char *more = "1 packets transmitted, 2 received, 0% packet loss, time 0ms\n";
    assert_int_equal(eb_ping_parse(more, strlen(more), &r, &err), EB_EIO);
    assert_string_equal(err.msg, "ping output: 2 received of 1 transmitted; the summary line is malformed");
}

/* The real system ping against loopback (network tests stay on 127.0.0.0/8). */
static void test_run_loopback(void **state)
{
    (void)state;
    static eb_ping_result r;
    eb_error err = {0};
    int rc = eb_ping_run("127.0.0.1", 3, 0.2, eb_deadline_in(10000), NULL, &r, &err);
    assert_int_equal(rc, 0);
    assert_int_equal(r.transmitted, 3);
    assert_int_equal(r.received, 3);
    assert_int_equal(r.n_rtt, 3);
    assert_true(r.min_ms >= 0 && r.min_ms <= r.avg_ms && r.avg_ms <= r.max_ms && r.p99_ms == r.max_ms);
}

/* The deadline cuts a long ping: SIGINT still yields its summary. */
static void test_run_deadline(void **state)
{
    (void)state;
    static eb_ping_result r;
    eb_error err = {0};
    assert_int_equal(eb_ping_run("127.0.0.1", 100, 0.2, eb_deadline_in(700), NULL, &r, &err), 0);
    /* cut: the whole run would send 100 over 20 s */
    assert_true(r.transmitted >= 1 && r.transmitted < 100);
}

static void test_run_bad_input(void **state)
{
    (void)state;
    static eb_ping_result r;
    eb_error err = {0};
    assert_int_equal(eb_ping_run("-f", 3, 0.2, eb_deadline_in(1000), NULL, &r, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "latency: '-f' is not a host name or IP address");
    assert_int_equal(eb_ping_run("127.0.0.1", 3, 0.01, eb_deadline_in(1000), NULL, &r, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "latency: count 3 / interval 0.01 s out of range (1..4096, 0.2..60 s)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loopback_capture), cmocka_unit_test(test_loss_and_duplicate),
        cmocka_unit_test(test_no_reply),         cmocka_unit_test(test_busybox_summary),
        cmocka_unit_test(test_errors_exact),     cmocka_unit_test(test_run_loopback),
        cmocka_unit_test(test_run_deadline),     cmocka_unit_test(test_run_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
