/* iperf2 output parser: every line shape of ../shared/reference/iperf2.md
 * (exact lines copied from it and from real iperf 2.1.8 runs on 127.0.0.1 in
 * tests/fixtures/logs/iperf2), the collector over whole captured runs,
 * failures, the version check, and robustness against garbage. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/formats/iperf_parse.h"

#define NA NAN
#define IPDIR FIXTURES_DIR "/logs/iperf2/"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open fixture %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void assert_close(double got, double want, const char *what, const char *line)
{
    if (isnan(want)) {
        if (!isnan(got))
            fail_msg("%s: %s = %.9g, want NAN", line, what, got);
        return;
    }
    double tol = fabs(want) * 1e-9 + 1e-12;
    if (!(fabs(got - want) <= tol))
        fail_msg("%s: %s = %.12g, want %.12g", line, what, got, want);
}

/* ------------------------------------------------------------ line table */

typedef struct {
    const char *line;
    int kind;
    int id;
    int sum, reverse;
    double start, end, bytes, mbps, jitter;
    long lost, total;
} line_case;

#define KB 1024.0
#define MB (1024.0 * 1024.0)
#define GB (1024.0 * 1024.0 * 1024.0)

static const line_case data_lines[] = {
    /* 2.1.8 Debian (fastsampling) TCP */
    {"[  1] 0.0000-1.0000 sec  1.84 GBytes  15.8 Gbits/sec", EB_IPL_DATA, 1, 0, 0, 0, 1, 1.84 * GB, 15800, NA, -1, -1},
    {"[  1] 0.0000-3.0096 sec  6.94 GBytes  19.8 Gbits/sec", EB_IPL_DATA, 1, 0, 0, 0, 3.0096, 6.94 * GB, 19800, NA, -1, -1},
    /* a printed partial interval */
    {"[  1] 1.0000-1.2709 sec   384 KBytes  11.6 Mbits/sec", EB_IPL_DATA, 1, 0, 0, 1, 1.2709, 384 * KB, 11.6, NA, -1, -1},
    /* -e: extra columns ignored */
    {"[  1] 0.0000-1.0000 sec  2.15 GBytes  18.5 Gbits/sec  23528=1994:2:1:4702:3125:1:1:13702", EB_IPL_DATA, 1, 0, 0, 0,
     1, 2.15 * GB, 18500, NA, -1, -1},
    {"[  1] 0.0000-1.0000 sec  2.15 GBytes  18.5 Gbits/sec  17623/0         20     1023K/83(30) us  27829903",
     EB_IPL_DATA, 1, 0, 0, 0, 1, 2.15 * GB, 18500, NA, -1, -1},
    {"[  1] 0.0000-1.0000 sec  1.25 MBytes  10.5 Mbits/sec  892/0      894 pps", EB_IPL_DATA, 1, 0, 0, 0, 1, 1.25 * MB,
     10.5, NA, -1, -1},
    /* -f m: no decimals at >= 999.5 */
    {"[  1] 0.0000-1.0000 sec  2318 MBytes  19448 Mbits/sec", EB_IPL_DATA, 1, 0, 0, 0, 1, 2318 * MB, 19448, NA, -1, -1},
    /* UDP server, plain and lossy; 1e+02 % loss */
    {"[  1] 0.0000-1.0000 sec  1.25 MBytes  10.5 Mbits/sec   0.002 ms 0/893 (0%)", EB_IPL_DATA, 1, 0, 0, 0, 1, 1.25 * MB,
     10.5, 0.002, 0, 893},
    {"[  1] 0.0000-1.0000 sec   250 MBytes  2.10 Gbits/sec   0.001 ms 63684/241966 (26%)", EB_IPL_DATA, 1, 0, 0, 0, 1,
     250 * MB, 2100, 0.001, 63684, 241966},
    {"[  1] 0.0000-1.0000 sec   128 KBytes  1.05 Mbits/sec   0.250 ms 997/1000 (1e+02%)", EB_IPL_DATA, 1, 0, 0, 0, 1,
     128 * KB, 1.05, 0.25, 997, 1000},
    /* UDP -e server */
    {"[  1] 0.0000-1.0000 sec  1.25 MBytes  10.5 Mbits/sec   0.001 ms 0/893 (0%) 0.004/0.001/0.081/0.006 ms 895 pps "
     "893/0(0) pkts 352027",
     EB_IPL_DATA, 1, 0, 0, 0, 1, 1.25 * MB, 10.5, 0.001, 0, 893},
    /* UDP SUM: lost/total without jitter */
    {"[SUM] 0.0000-1.0000 sec  1.20 MBytes  10.0 Mbits/sec   1/855 (0.12%)", EB_IPL_DATA, 0, 1, 0, 0, 1, 1.20 * MB, 10.0,
     NA, 1, 855},
    {"[SUM] 0.0000-3.0413 sec  14.8 MBytes  40.7 Mbits/sec", EB_IPL_DATA, 0, 1, 0, 0, 3.0413, 14.8 * MB, 40.7, NA, -1, -1},
    {"[SUM-3] 0.0000-1.0000 sec  3.75 MBytes  31.5 Mbits/sec", EB_IPL_DATA, 0, 1, 0, 0, 1, 3.75 * MB, 31.5, NA, -1, -1},
    {"[FD1] 0.0000-1.0000 sec  3.75 MBytes  31.5 Mbits/sec", EB_IPL_DATA, 0, 1, 0, 0, 1, 3.75 * MB, 31.5, NA, -1, -1},
    /* reverse ids and wide ids */
    {"[ *1] 0.0000-1.0000 sec  1.25 MBytes  10.5 Mbits/sec", EB_IPL_DATA, 1, 0, 1, 0, 1, 1.25 * MB, 10.5, NA, -1, -1},
    {"[*12] 0.0000-1.0000 sec  1.25 MBytes  10.5 Mbits/sec", EB_IPL_DATA, 12, 0, 1, 0, 1, 1.25 * MB, 10.5, NA, -1, -1},
    {"[100] 0.0000-1.0000 sec  1.25 MBytes  10.5 Mbits/sec", EB_IPL_DATA, 100, 0, 0, 0, 1, 1.25 * MB, 10.5, NA, -1, -1},
    {"[key(*1)] 0.0000-1.0000 sec  1.25 MBytes  10.5 Mbits/sec", EB_IPL_DATA, 1, 0, 1, 0, 1, 1.25 * MB, 10.5, NA, -1, -1},
    /* 2.0.x "0.0- 1.0" and 2.1 non-fastsampling "0.00-1.00"; 2.0.x loss "0/  893" */
    {"[  3]  0.0- 1.0 sec  1.25 MBytes  10.5 Mbits/sec", EB_IPL_DATA, 3, 0, 0, 0, 1, 1.25 * MB, 10.5, NA, -1, -1},
    {"[  3]  0.0-10.0 sec  1.25 MBytes  1.05 Mbits/sec", EB_IPL_DATA, 3, 0, 0, 0, 10, 1.25 * MB, 1.05, NA, -1, -1},
    {"[  3]  0.0- 1.0 sec  1.25 MBytes  10.5 Mbits/sec   0.002 ms    0/  893 (0%)", EB_IPL_DATA, 3, 0, 0, 0, 1,
     1.25 * MB, 10.5, 0.002, 0, 893},
    {"[  1] 0.00-1.00 sec  1.25 MBytes  10.5 Mbits/sec", EB_IPL_DATA, 1, 0, 0, 0, 1, 1.25 * MB, 10.5, NA, -1, -1},
    /* every -f unit */
    {"[  1] 0.0000-1.0000 sec  10223676 Bytes  80969992 bits/sec", EB_IPL_DATA, 1, 0, 0, 0, 1, 10223676, 80.969992, NA,
     -1, -1},
    {"[  1] 0.0000-1.0000 sec  10223676 Bytes  10121499 Bytes/sec", EB_IPL_DATA, 1, 0, 0, 0, 1, 10223676,
     10121499 * 8 / 1e6, NA, -1, -1},
    {"[  1] 0.0000-1.0000 sec  9.75 MBytes  9.66 MBytes/sec", EB_IPL_DATA, 1, 0, 0, 0, 1, 9.75 * MB,
     9.66 * MB * 8 / 1e6, NA, -1, -1},
    {"[  1] 0.0000-1.0000 sec  9984 KBytes  9883 KBytes/sec", EB_IPL_DATA, 1, 0, 0, 0, 1, 9984 * KB, 9883 * KB * 8 / 1e6,
     NA, -1, -1},
    {"[  1] 0.0000-1.0000 sec  9984 KBytes  81018 Kbits/sec", EB_IPL_DATA, 1, 0, 0, 0, 1, 9984 * KB, 81.018, NA, -1, -1},
    {"[  1] 0.0000-1.0000 sec  0.010 GBytes  0.081 Gbits/sec", EB_IPL_DATA, 1, 0, 0, 0, 1, 0.010 * GB, 81, NA, -1, -1},
    {"[  1] 0.0000-1.0000 sec  1.25 MBytes  1000 Kbits/sec", EB_IPL_DATA, 1, 0, 0, 0, 1, 1.25 * MB, 1.0, NA, -1, -1},
    {"[  1] 0.0000-1.0000 sec  0.000 Bytes  0.000 bits/sec", EB_IPL_DATA, 1, 0, 0, 0, 1, 0, 0, NA, -1, -1},
    {"[  1] 0.0000-1.0000 sec  1.00 TBytes  8.80 Tbits/sec", EB_IPL_DATA, 1, 0, 0, 0, 1, 1.0 * GB * 1024, 8.8e6, NA, -1,
     -1},
    /* -n: a right-aligned transfer */
    {"[  1] 0.0000-2.7930 sec   100 MBytes   300 Mbits/sec", EB_IPL_DATA, 1, 0, 0, 0, 2.7930, 100 * MB, 300, NA, -1, -1},
    /* CSV, TCP and UDP, server and client (-1 total on the client final) */
    {"20261202113323,127.0.0.1,49250,127.0.0.1,15304,1,0.0-1.0,2648244231,21185953848", EB_IPL_DATA, 1, 0, 0, 0, 1,
     2648244231.0, 21185.953848, NA, -1, -1},
    {"20261202113354,127.0.0.1,58339,127.0.0.1,15308,1,0.0-1.0,1312710,10501680,0.001,0,893,0.000,0", EB_IPL_DATA, 1, 0,
     0, 0, 1, 1312710, 10.50168, 0.001, 0, 893},
    {"20261202113356,127.0.0.1,58339,127.0.0.1,15308,1,0.0-3.0,3936660,10493289,0.000,0,-1,-0.000,0", EB_IPL_DATA, 1, 0,
     0, 0, 3, 3936660, 10.493289, NA, -1, -1},
    {"19700101000000,127.0.0.1,52877,127.0.0.1,15999,1,0.0-1.0,133770,1059942,0.000,0,-1,-0.000,0", EB_IPL_DATA, 1, 0, 0,
     0, 1, 133770, 1.059942, NA, -1, -1},
    /* -e CSV timestamp with .mmm; extra 2.1.9+ fields ignored; IPv6 addresses; 2.0.x sum row id -1 */
    {"20261202113323.123,127.0.0.1,49250,127.0.0.1,15304,1,0.0-1.0,2648244231,21185953848", EB_IPL_DATA, 1, 0, 0, 0, 1,
     2648244231.0, 21185.953848, NA, -1, -1},
    {"20261202113354,::1,58339,::1,15308,1,0.0-1.0,1312710,10501680,0.001,2,893,0.224,1,7,8,9", EB_IPL_DATA, 1, 0, 0, 0,
     1, 1312710, 10.50168, 0.001, 2, 893},
    {"20190101000000,10.0.0.2,5001,10.0.0.1,40000,-1,0.0-10.0,125000000,100000000", EB_IPL_DATA, 0, 1, 0, 0, 10,
     125000000, 100, NA, -1, -1},
};

static void test_data_lines(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof data_lines / sizeof data_lines[0]; i++) {
        const line_case *c = &data_lines[i];
        eb_iperf_line l;
        eb_iperf_parse_line(c->line, strlen(c->line), &l);
        if (l.kind != c->kind)
            fail_msg("%s: kind %d, want %d", c->line, l.kind, c->kind);
        if (l.id != c->id || l.sum != (bool)c->sum || l.reverse != (bool)c->reverse)
            fail_msg("%s: id %d sum %d rev %d", c->line, l.id, l.sum, l.reverse);
        assert_close(l.iv.start_s, c->start, "start", c->line);
        assert_close(l.iv.end_s, c->end, "end", c->line);
        assert_close(l.iv.bytes, c->bytes, "bytes", c->line);
        assert_close(l.iv.mbps, c->mbps, "mbps", c->line);
        assert_close(l.iv.jitter_ms, c->jitter, "jitter", c->line);
        if (l.iv.lost != c->lost || l.iv.total != c->total)
            fail_msg("%s: lost/total %ld/%ld", c->line, l.iv.lost, l.iv.total);
    }
}

static void test_exact_integers(void **state)
{
    (void)state;
    eb_iperf_line l;
    const char *csv = "20261202113323,127.0.0.1,49250,127.0.0.1,15304,1,0.0-1.0,2648244231,21185953848";
    eb_iperf_parse_line(csv, strlen(csv), &l);
    assert_true(l.csv);
    assert_true(l.bytes_exact);
    assert_true(l.bits_per_s == INT64_C(21185953848));
    const char *fb = "[  1] 0.0000-0.5000 sec  627690 Bytes  10043040 bits/sec";
    eb_iperf_parse_line(fb, strlen(fb), &l);
    assert_true(l.bytes_exact);
    assert_true(l.bits_per_s == 10043040);
    assert_true(l.iv.bytes == 627690.0);
    const char *mb = "[  1] 0.0000-1.0000 sec  1.25 MBytes  10.5 Mbits/sec";
    eb_iperf_parse_line(mb, strlen(mb), &l);
    assert_false(l.bytes_exact);
    assert_true(l.bits_per_s == -1);
}

typedef struct {
    const char *line;
    int kind;
    int error;
    int id;
    long long count;
} other_case;

static const other_case other_lines[] = {
    {"Server listening on TCP port 15301", EB_IPL_SERVER_BANNER, 0, -1, -1},
    {"Server listening on TCP port 15302 with pid 8970", EB_IPL_SERVER_BANNER, 0, -1, -1},
    {"Client connecting to 127.0.0.1, UDP port 15306", EB_IPL_CLIENT_BANNER, 0, -1, -1},
    {"[ ID] Interval       Transfer     Bandwidth", EB_IPL_HEADER, 0, -1, -1},
    {"[ ID] Interval       Transfer     Bandwidth        Jitter   Lost/Total Datagrams", EB_IPL_HEADER, 0, -1, -1},
    {"[SUM-cnt] Interval       Transfer     Bandwidth", EB_IPL_HEADER, 0, -1, -1},
    {"[  1] local 127.0.0.1 port 15301 connected with 127.0.0.1 port 44464 (icwnd/mss/irtt=320/32768/80)",
     EB_IPL_CONNECTED, 0, 1, -1},
    {"(null)local 127.0.0.1 port 15432 connected with 127.0.0.1 port 55548 (icwnd/mss/irtt=320/32768/80)",
     EB_IPL_CONNECTED, EB_IPERR_NULL_ID, -1, -1},
    {"[  1] Sent 2678 datagrams", EB_IPL_SENT, 0, 1, 2678},
    {"[SUM-2] Sent 1710 datagrams", EB_IPL_SENT, 0, 0, 1710},
    {"[  1] Server Report:", EB_IPL_SERVER_REPORT, 0, 1, -1},
    {"[  1] 0.0000-0.5509 sec  1 datagrams received out-of-order", EB_IPL_OUT_OF_ORDER, 0, 1, 1},
    {"tcp connect failed: Connection refused", EB_IPL_ERROR, EB_IPERR_CONNECT, -1, -1},
    {"tcp connect to 10.0.0.9 port 5001 failed (Connection refused) on 2024-04-01 10:00:00 (UTC)", EB_IPL_ERROR,
     EB_IPERR_CONNECT, -1, -1},
    {"nonexistent.invalid: Unknown host", EB_IPL_ERROR, EB_IPERR_UNKNOWN_HOST, -1, -1},
    {"listener bind failed: Address already in use", EB_IPL_ERROR, EB_IPERR_BIND, -1, -1},
    {"ERROR: -t value of 'abc' not recognized", EB_IPL_ERROR, EB_IPERR_OPTION, -1, -1},
    {"Invalid value of 'x' for -i interval", EB_IPL_ERROR, EB_IPERR_OPTION, -1, -1},
    {"read failed: Connection refused", EB_IPL_WARNING, EB_IPERR_READ, -1, -1},
    {"[  3] WARNING: did not receive ack of last datagram after 10 tries.", EB_IPL_WARNING, EB_IPERR_NO_ACK, 3, -1},
    {"[  1] WARNING: ack of last datagram failed.", EB_IPL_WARNING, EB_IPERR_OTHER_WARNING, 1, -1},
    {"------------------------------------------------------------", EB_IPL_NONE, 0, -1, -1},
    {"TCP window size:  128 KByte (default)", EB_IPL_NONE, 0, -1, -1},
    {"", EB_IPL_NONE, 0, -1, -1},
};

static void test_other_lines(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof other_lines / sizeof other_lines[0]; i++) {
        const other_case *c = &other_lines[i];
        eb_iperf_line l;
        eb_iperf_parse_line(c->line, strlen(c->line), &l);
        if (l.kind != c->kind || l.error != c->error)
            fail_msg("'%s': kind %d error %d, want %d %d", c->line, l.kind, l.error, c->kind, c->error);
        if (c->id >= 0 && l.id != c->id)
            fail_msg("'%s': id %d want %d", c->line, l.id, c->id);
        if (c->count >= 0 && l.count != c->count)
            fail_msg("'%s': count %lld", c->line, (long long)l.count);
    }
    eb_iperf_line l;
    const char *b = "Server listening on UDP port 15306\r\n";
    eb_iperf_parse_line(b, strlen(b), &l);
    assert_true(l.udp);
    assert_int_equal(l.port, 15306);
}

/* -------------------------------------------------------------- collector */

static void feed_file(eb_iperf_run *r, const char *name)
{
    size_t len;
    char path[512];
    snprintf(path, sizeof path, IPDIR "%s", name);
    char *b = slurp(path, &len);
    eb_iperf_run_init(r);
    eb_iperf_feed(r, b, len);
    eb_iperf_finish(r);
    free(b);
}

static void test_tcp_server(void **state)
{
    (void)state;
    eb_iperf_run r;
    feed_file(&r, "tcp.server.log");
    assert_int_equal(r.status, EB_IPERF_OK);
    assert_int_equal(r.role, EB_IPERF_ROLE_SERVER);
    assert_int_equal(r.proto, EB_IPERF_PROTO_TCP);
    assert_int_equal(r.port, 15601);
    assert_int_equal(r.n_intervals, 4);
    assert_close(r.intervals[0].mbps, 15100, "mbps", "tcp.server");
    assert_close(r.intervals[3].start_s, 1.5, "start", "tcp.server");
    assert_true(r.has_final);
    assert_close(r.final.end_s, 2.0013, "final end", "tcp.server");
    assert_close(r.final.bytes, 4.04 * GB, "final bytes", "tcp.server");
    eb_iperf_run_free(&r);
}

static void test_udp_client_server_report(void **state)
{
    (void)state;
    eb_iperf_run r;
    feed_file(&r, "udp.client.log");
    assert_int_equal(r.status, EB_IPERF_OK);
    assert_int_equal(r.role, EB_IPERF_ROLE_CLIENT);
    assert_int_equal(r.proto, EB_IPERF_PROTO_UDP);
    assert_int_equal(r.n_intervals, 4);
    assert_true(r.has_final);
    assert_close(r.final.end_s, 2.0017, "final end", "udp.client");
    assert_true(r.has_server_report);
    assert_close(r.server_report.end_s, 2.0016, "report end", "udp.client");
    assert_int_equal(r.server_report.lost, 0);
    assert_int_equal(r.server_report.total, 1704);
    assert_close(r.server_report.jitter_ms, 0.0, "jitter", "udp.client");
    assert_true(r.sent_datagrams == 1705);
    assert_false(r.no_ack);
    eb_iperf_run_free(&r);

    feed_file(&r, "udp_fb.client.log"); /* -f b: exact; partial interval not printed */
    assert_int_equal(r.n_intervals, 2);
    assert_close(r.intervals[0].mbps, 10.04304, "mbps", "udp_fb");
    assert_close(r.server_report.bytes, 1505280, "report bytes", "udp_fb");
    assert_close(r.server_report.mbps, 10.016661, "report mbps", "udp_fb");
    assert_close(r.server_report.jitter_ms, 0.005, "report jitter", "udp_fb");
    eb_iperf_run_free(&r);
}

static void test_udp_server_enhanced(void **state)
{
    (void)state;
    eb_iperf_run r;
    feed_file(&r, "udp_e.server.log");
    assert_int_equal(r.status, EB_IPERF_OK);
    assert_int_equal(r.proto, EB_IPERF_PROTO_UDP);
    assert_int_equal(r.n_intervals, 4);
    assert_int_equal(r.intervals[2].total, 415);
    assert_close(r.intervals[2].mbps, 9.76, "mbps", "udp_e");
    assert_int_equal(r.final.total, 1704);
    eb_iperf_run_free(&r);
}

static void test_parallel_sum(void **state)
{
    (void)state;
    eb_iperf_run r;
    feed_file(&r, "tcp_P2.server.log");
    assert_int_equal(r.n_streams, 2);
    assert_int_equal(r.n_intervals, 4); /* the [SUM] lines */
    assert_close(r.intervals[2].mbps, 37.7, "sum mbps", "tcp_P2");
    assert_close(r.final.end_s, 2.0440, "sum final", "tcp_P2");
    assert_close(r.final.mbps, 41.0, "sum final mbps", "tcp_P2");
    eb_iperf_run_free(&r);

    feed_file(&r, "udp_P2.server.log");
    assert_int_equal(r.n_intervals, 4);
    assert_int_equal(r.intervals[0].total, 428);
    assert_true(isnan(r.intervals[0].jitter_ms));
    assert_int_equal(r.final.total, 1708);
    eb_iperf_run_free(&r);

    feed_file(&r, "udp_P2.client.log"); /* two Server Reports add up */
    assert_int_equal(r.n_intervals, 4);
    assert_true(r.has_server_report);
    assert_int_equal(r.server_report.total, 1708);
    assert_close(r.server_report.jitter_ms, 0.002, "max jitter", "udp_P2.client");
    assert_true(r.sent_datagrams == 1710);
    eb_iperf_run_free(&r);

    feed_file(&r, "tcp_P2_csv.server.log"); /* CSV: no SUM rows; streams added up */
    assert_true(r.csv);
    assert_int_equal(r.n_streams, 2);
    assert_int_equal(r.n_intervals, 4);
    assert_close(r.intervals[0].bytes, 2 * 1310780.0, "csv sum bytes", "tcp_P2_csv");
    assert_close(r.intervals[0].mbps, 2 * 20.97248, "csv sum mbps", "tcp_P2_csv");
    assert_close(r.final.bytes, 2 * 5242940.0, "csv final", "tcp_P2_csv");
    assert_close(r.final.mbps, 20.544757 + 20.519640, "csv final mbps", "tcp_P2_csv");
    eb_iperf_run_free(&r);
}

static void test_reverse_and_short(void **state)
{
    (void)state;
    eb_iperf_run r;
    feed_file(&r, "tcp_R.client.log");
    assert_int_equal(r.status, EB_IPERF_OK);
    assert_int_equal(r.n_intervals, 4);
    assert_true(r.has_final);
    assert_close(r.final.end_s, 2.0971, "reverse final", "tcp_R");
    eb_iperf_run_free(&r);

    feed_file(&r, "udp_R.client.log");
    assert_int_equal(r.n_intervals, 4);
    assert_int_equal(r.intervals[1].total, 212);
    assert_int_equal(r.final.total, 853);
    eb_iperf_run_free(&r);

    /* a test shorter than -i prints the same line twice: interval, then final */
    feed_file(&r, "tcp_short.client.log");
    assert_int_equal(r.n_intervals, 1);
    assert_true(r.has_final);
    assert_close(r.final.end_s, 0.5343, "short final", "tcp_short");
    eb_iperf_run_free(&r);
}

static void test_csv_runs(void **state)
{
    (void)state;
    eb_iperf_run r;
    feed_file(&r, "udp_csv.client.log");
    assert_true(r.csv);
    assert_int_equal(r.proto, EB_IPERF_PROTO_UDP);
    assert_int_equal(r.n_intervals, 4);
    assert_close(r.intervals[0].bytes, 627690, "bytes", "udp_csv");
    assert_true(r.has_final);
    assert_int_equal(r.final.total, -1);
    eb_iperf_run_free(&r);

    feed_file(&r, "tcp_csv.server.log");
    assert_int_equal(r.n_intervals, 4);
    assert_close(r.final.bytes, 12714044, "bytes", "tcp_csv");
    assert_close(r.final.mbps, 50.381456, "mbps", "tcp_csv");
    eb_iperf_run_free(&r);
}

static void test_failures(void **state)
{
    (void)state;
    eb_iperf_run r;
    feed_file(&r, "refused.client.log");
    assert_int_equal(r.status, EB_IPERF_FAILED);
    assert_int_equal(r.error, EB_IPERR_CONNECT);
    assert_int_equal(r.error_line, 5);
    assert_string_equal(r.message, "iperf output line 5: tcp connect failed: Connection refused");
    eb_iperf_run_free(&r);

    feed_file(&r, "refused_csv.client.log");
    assert_int_equal(r.status, EB_IPERF_FAILED);
    assert_string_equal(r.message, "iperf output line 1: tcp connect failed: Connection refused");
    eb_iperf_run_free(&r);

    feed_file(&r, "unknown_host.client.log");
    assert_int_equal(r.status, EB_IPERF_FAILED);
    assert_int_equal(r.error, EB_IPERR_UNKNOWN_HOST);
    eb_iperf_run_free(&r);

    /* UDP with nothing listening: data, but no Server Report and warnings */
    feed_file(&r, "udp_nolisten.client.log");
    assert_int_equal(r.status, EB_IPERF_OK);
    assert_true(r.no_ack);
    assert_true(r.n_read_failed > 10);
    assert_false(r.has_server_report);
    assert_int_equal(r.n_intervals, 2);
    eb_iperf_run_free(&r);

    eb_iperf_run_init(&r);
    eb_iperf_finish(&r);
    assert_int_equal(r.status, EB_IPERF_NO_DATA);
    assert_string_equal(r.message, "no interval lines in iperf output (0 lines)");
    eb_iperf_run_free(&r);
}

/* Feeding in any chunking gives the same result as a whole buffer. */
static void test_incremental(void **state)
{
    (void)state;
    size_t len;
    char *b = slurp(IPDIR "udp_P2.client.log", &len);
    eb_iperf_run whole, bytes;
    eb_iperf_run_init(&whole);
    eb_iperf_feed(&whole, b, len);
    eb_iperf_finish(&whole);
    eb_iperf_run_init(&bytes);
    for (size_t i = 0; i < len; i++)
        eb_iperf_feed(&bytes, b + i, 1);
    eb_iperf_finish(&bytes);
    eb_iperf_finish(&bytes); /* idempotent */
    assert_int_equal(whole.n_samples, bytes.n_samples);
    assert_int_equal(whole.n_intervals, bytes.n_intervals);
    assert_int_equal(whole.lineno, bytes.lineno);
    for (int i = 0; i < whole.n_intervals; i++)
        assert_memory_equal(&whole.intervals[i], &bytes.intervals[i], sizeof whole.intervals[i]);
    eb_iperf_run_free(&whole);
    eb_iperf_run_free(&bytes);

    /* a partial last line (no newline) is flushed by finish */
    const char *t = "[  1] 0.0000-1.0000 sec  1.25 MBytes  10.5 Mbits/sec\n[  1] 1.0000-1.5000 sec  640 KBytes  10.5 Mbits/sec";
    eb_iperf_run r;
    eb_iperf_run_init(&r);
    eb_iperf_feed(&r, t, strlen(t));
    assert_int_equal(r.n_samples, 1);
    eb_iperf_finish(&r);
    assert_int_equal(r.n_intervals, 2);
    eb_iperf_run_free(&r);
    free(b);
}

/* Streams printed out of order still give intervals in time order. */
static void test_out_of_order_lines(void **state)
{
    (void)state;
    const char *t = "20261202134243,127.0.0.1,44304,127.0.0.1,15617,2,0.5-1.0,100,800\n"
                    "20261202134242,127.0.0.1,44294,127.0.0.1,15617,1,0.0-0.5,50,800\n"
                    "20261202134242,127.0.0.1,44304,127.0.0.1,15617,2,0.0-0.5,50,800\n"
                    "20261202134243,127.0.0.1,44294,127.0.0.1,15617,1,0.5-1.0,100,800\n";
    eb_iperf_run r;
    eb_iperf_run_init(&r);
    eb_iperf_feed(&r, t, strlen(t));
    eb_iperf_finish(&r);
    assert_int_equal(r.n_intervals, 2);
    assert_close(r.intervals[0].start_s, 0, "start", "ooo");
    assert_close(r.intervals[0].bytes, 100, "bytes", "ooo");
    assert_close(r.intervals[1].bytes, 200, "bytes", "ooo");
    eb_iperf_run_free(&r);
}

/* --sum-only prints only [SUM-N] lines; --full-duplex prints [  1] and [ *1]. */
static void test_sum_only_and_full_duplex(void **state)
{
    (void)state;
    const char *sum_only = "[SUM-cnt] Interval       Transfer     Bandwidth\n"
                           "[SUM-3] 0.0000-1.0000 sec  3.75 MBytes  31.5 Mbits/sec\n"
                           "[SUM-3] 1.0000-2.0000 sec  3.75 MBytes  31.5 Mbits/sec\n"
                           "[SUM-3] 0.0000-2.0977 sec  7.88 MBytes  31.5 Mbits/sec\n";
    eb_iperf_run r;
    eb_iperf_run_init(&r);
    eb_iperf_feed(&r, sum_only, strlen(sum_only));
    eb_iperf_finish(&r);
    assert_int_equal(r.status, EB_IPERF_OK);
    assert_int_equal(r.n_intervals, 2);
    assert_true(r.has_final);
    assert_close(r.final.end_s, 2.0977, "final", "sum-only");
    eb_iperf_run_free(&r);

    const char *fd = "[  1] 0.0000-1.0000 sec  1.25 MBytes  10.5 Mbits/sec\n"
                     "[ *1] 0.0000-1.0000 sec  2.50 MBytes  21.0 Mbits/sec\n"
                     "[  1] 1.0000-2.0000 sec  1.25 MBytes  10.5 Mbits/sec\n"
                     "[ *1] 1.0000-2.0000 sec  2.50 MBytes  21.0 Mbits/sec\n"
                     "[  1] 0.0000-2.0100 sec  2.50 MBytes  10.4 Mbits/sec\n"
                     "[ *1] 0.0000-2.0100 sec  5.00 MBytes  20.9 Mbits/sec\n";
    eb_iperf_run_init(&r);
    eb_iperf_feed(&r, fd, strlen(fd));
    eb_iperf_finish(&r);
    assert_int_equal(r.n_streams, 1);
    assert_int_equal(r.n_intervals, 2); /* the forward stream */
    assert_close(r.intervals[1].mbps, 10.5, "forward", "full-duplex");
    assert_close(r.final.mbps, 10.4, "forward final", "full-duplex");
    assert_int_equal(r.n_samples, 6); /* the reverse lines stay available */
    assert_true(r.samples[5].reverse && r.samples[5].final);
    eb_iperf_run_free(&r);

    /* a server that served two clients in turn: the second test's 0-1 is not a final */
    const char *two = "[  1] 0.0000-1.0000 sec  1.25 MBytes  10.5 Mbits/sec\n"
                      "[  1] 0.0000-1.0100 sec  1.25 MBytes  10.4 Mbits/sec\n"
                      "[  2] 0.0000-1.0000 sec  2.50 MBytes  21.0 Mbits/sec\n"
                      "[  1] 0.0000-1.0000 sec  1.25 MBytes  10.5 Mbits/sec\n";
    eb_iperf_run_init(&r);
    eb_iperf_feed(&r, two, strlen(two));
    eb_iperf_finish(&r);
    assert_true(r.samples[1].final);
    assert_false(r.samples[2].final);
    assert_false(r.samples[3].final);
    eb_iperf_run_free(&r);
}

/* ---------------------------------------------------------------- version */

static void test_version(void **state)
{
    (void)state;
    eb_iperf_version v;
    eb_error err = {0};
    size_t len;
    char *txt = slurp(IPDIR "version.txt", &len);
    assert_int_equal(eb_iperf_version_parse(txt, len, &v, &err), 0);
    assert_int_equal(v.major, 2);
    assert_int_equal(v.minor, 1);
    assert_int_equal(v.patch, 8);
    assert_string_equal(v.text, "iperf version 2.1.8 (12 August 2022) pthreads");
    free(txt);

    const char *old = "iperf version 2.0.13 (21 Jan 2019) pthreads\n";
    assert_int_equal(eb_iperf_version_parse(old, strlen(old), &v, &err), 0);
    assert_int_equal(v.minor, 0);
    assert_int_equal(v.patch, 13);

    const char *v3 = "iperf 3.12 (cJSON 1.7.15)\nLinux host 6.1.0 #1 SMP x86_64\n";
    assert_int_equal(eb_iperf_version_parse(v3, strlen(v3), &v, &err), EB_ECONFIG);
    assert_int_equal(v.major, 3);
    assert_string_equal(err.msg, "found iperf 3.12 (cJSON 1.7.15), but the boards speak iperf2, which iperf3 cannot "
                                 "talk to; install iperf 2.x (Debian package 'iperf') or name it with --iperf");

    const char *junk = "bash: iperf: command not found\n";
    assert_int_equal(eb_iperf_version_parse(junk, strlen(junk), &v, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "not iperf version output: 'bash: iperf: command not found'; install iperf 2.x");
}

/* ------------------------------------------------------------- robustness */

static void test_garbage_and_truncation(void **state)
{
    (void)state;
    static const char *const files[] = {"tcp.server.log", "udp_e.server.log", "udp_P2.client.log",
                                        "tcp_P2_csv.server.log", "udp_csv.client.log", "tcp_e.client.log"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[512];
        size_t len;
        snprintf(path, sizeof path, IPDIR "%s", files[f]);
        char *b = slurp(path, &len);
        /* every prefix of every line */
        const char *p = b, *e = b + len;
        while (p < e) {
            const char *nl = memchr(p, '\n', (size_t)(e - p));
            size_t n = nl ? (size_t)(nl - p) : (size_t)(e - p);
            for (size_t k = 0; k <= n; k++) {
                char *copy = malloc(k ? k : 1); /* exact size: ASan catches over-reads */
                memcpy(copy, p, k);
                eb_iperf_line l;
                eb_iperf_parse_line(copy, k, &l);
                if (l.kind == EB_IPL_DATA)
                    assert_true(isfinite(l.iv.mbps));
                free(copy);
            }
            p = nl ? nl + 1 : e;
        }
        /* the whole file cut at every length */
        for (size_t cut = 0; cut <= len; cut += 7) {
            eb_iperf_run r;
            eb_iperf_run_init(&r);
            eb_iperf_feed(&r, b, cut);
            eb_iperf_finish(&r);
            eb_iperf_run_free(&r);
        }
        free(b);
    }
    /* random bytes biased towards the characters of data lines */
    static const char alphabet[] = "[] *0123456789.-,/:()%SUMKGBbitsecytes\t\r\nmsaxedFP";
    uint32_t seed = 12345;
    eb_iperf_run r;
    eb_iperf_run_init(&r);
    for (int i = 0; i < 20000; i++) {
        char buf[96];
        size_t n = 0;
        seed = seed * 1103515245u + 12345u;
        size_t want = (seed >> 16) % sizeof buf;
        for (; n < want; n++) {
            seed = seed * 1103515245u + 12345u;
            buf[n] = (seed >> 24) % 5 == 0 ? (char)(seed >> 8) : alphabet[(seed >> 16) % (sizeof alphabet - 1)];
        }
        char *copy = malloc(n ? n : 1);
        memcpy(copy, buf, n);
        eb_iperf_line l;
        eb_iperf_parse_line(copy, n, &l);
        eb_iperf_feed(&r, copy, n);
        free(copy);
    }
    eb_iperf_finish(&r);
    eb_iperf_run_free(&r);
    /* an overlong line is truncated, never overflows */
    char *longline = malloc(5000);
    memset(longline, '9', 5000);
    eb_iperf_run_init(&r);
    eb_iperf_feed(&r, longline, 2500);
    eb_iperf_feed(&r, longline, 2500);
    eb_iperf_feed(&r, "\n", 1);
    eb_iperf_finish(&r);
    assert_int_equal(r.lineno, 1);
    eb_iperf_run_free(&r);
    free(longline);
}

/* A UDP server whose client sent no end marker (a board: espressif/iperf's
 * client numbers its datagrams and stops) runs on until espbench sends
 * SIGINT; iperf 2.1.8 then prints "Waiting for server threads to complete"
 * and flushes the period it was in as a whole one with nothing in it. That
 * period is not part of the test (captured from `run`; before this rule the
 * 0 Mbit/s period cut a 76.2 Mbit/s UDP TX mean to 57.1). */
static void test_sigint_flushed_period_left_out(void **state)
{
    (void)state;
    eb_iperf_run r;
    feed_file(&r, "udp_csv_sigint.server.log");
    assert_true(r.interrupted);
    assert_int_equal(r.n_intervals, 4);
    assert_float_equal(r.intervals[3].end_s, 4.0, 1e-9);
    for (int i = 0; i < r.n_intervals; i++)
        assert_true(r.intervals[i].mbps > 76 && r.intervals[i].mbps < 76.3);
    eb_iperf_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_data_lines),
        cmocka_unit_test(test_exact_integers),
        cmocka_unit_test(test_other_lines),
        cmocka_unit_test(test_tcp_server),
        cmocka_unit_test(test_udp_client_server_report),
        cmocka_unit_test(test_udp_server_enhanced),
        cmocka_unit_test(test_parallel_sum),
        cmocka_unit_test(test_reverse_and_short),
        cmocka_unit_test(test_csv_runs),
        cmocka_unit_test(test_failures),
        cmocka_unit_test(test_incremental),
        cmocka_unit_test(test_out_of_order_lines),
        cmocka_unit_test(test_sum_only_and_full_duplex),
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_garbage_and_truncation),
        cmocka_unit_test(test_sigint_flushed_period_left_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
