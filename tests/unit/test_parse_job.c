/* `espbench parse` job: board and PC logs into results entries (in memory;
 * the JSON file itself is checked end to end by tests/e2e/parse_logs.sh). */
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
#include "espbench/formats/dialect.h"
#include "espbench/jobs/parse_job.h"
#include "espbench/formats/profile.h"

#define BDIR FIXTURES_DIR "/logs/board/"
#define IPDIR FIXTURES_DIR "/logs/iperf2/"
#define I3DIR FIXTURES_DIR "/logs/iperf3/"
#define CLOSE(a, b) close_to((a), (b), __LINE__)

static void close_to(double got, double want, int line)
{
    if (!(fabs(got - want) < 1e-9 * (fabs(want) + 1)))
        fail_msg("line %d: got %.12g, want %.12g", line, got, want);
}
#define M20 1048576.0

static int parse_files(eb_parse_out *out, const eb_parse_opts *o, eb_error *err, const char *a, const char *b)
{
    eb_parse_out_init(out);
    int rc = eb_parse_log_file(out, a, o, err);
    if (!rc && b)
        rc = eb_parse_log_file(out, b, o, err);
    return rc;
}

static void test_board_v51_two_tests(void **state)
{
    (void)state;
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    o.warmup_s = 0;
    eb_parse_out out;
    eb_error err = {0};
    assert_int_equal(parse_files(&out, &o, &err, BDIR "idf-v5.1_esp32s3_tcp_rx_udp_tx.log", NULL), 0);
    assert_int_equal(out.n_entries, 2);
    assert_string_equal(out.meta.dialect, "idf-v5.1");
    assert_string_equal(out.meta.chip, "esp32s3");
    assert_string_equal(out.meta.fw_project, "iperf");
    assert_string_equal(out.meta.idf_version, "v5.2.1");
    assert_string_equal(out.meta.board_ip, "192.168.1.79");
    assert_string_equal(out.meta.ap_ssid, "myap");
    assert_int_equal(out.meta.rssi, -34);

    const eb_entry *t = &out.entries[0];
    assert_int_equal(t->test, EB_TEST_TCP_RX);
    assert_string_equal(t->chip, "esp32s3");
    assert_string_equal(t->tier, "unknown");
    assert_string_equal(t->status, "ok");
    assert_int_equal(t->receiver.n, 5); /* the "0- 5" summary is not an interval */
    assert_int_equal(t->sender.n, 0);
    CLOSE(eb_ivs_at(&t->receiver, 0).mbps, 60.12 * M20 / 1e6);
    CLOSE(t->interval_s, 1);
    CLOSE(t->duration_s, 5);
    assert_int_equal(t->rx_stats.n, 5);
    CLOSE(t->mean_mbps, (60.12 + 61.50 + 62.00 + 61.00 + 60.50) / 5 * M20 / 1e6);
    CLOSE(t->peak_mbps, 62.00 * M20 / 1e6);
    assert_int_equal(t->min_free_heap, 123456);
    assert_int_equal(t->free_heap, 234567);
    assert_true(isnan(t->loss_pct));

    const eb_entry *u = &out.entries[1];
    assert_int_equal(u->test, EB_TEST_UDP_TX);
    assert_int_equal(u->sender.n, 3);
    assert_int_equal(u->receiver.n, 0);
    CLOSE(eb_ivs_at(&u->sender, 1).mbps, 0.09); /* the NUL unit char: plain bits/sec */
    CLOSE(eb_ivs_at(&u->sender, 0).mbps, 0.09 * M20 / 1e6);
    CLOSE(u->mean_mbps, u->tx_stats.mean); /* only the sender side: its figures stand in */
    assert_int_equal(u->min_free_heap, 120000);
    assert_int_equal(u->free_heap, -1);
    eb_parse_out_free(&out);
}

static void test_board_legacy_warmup(void **state)
{
    (void)state;
    eb_parse_opts o;
    eb_parse_opts_init(&o); /* warm-up 1 s: drops 0-3 */
    o.tier = "iperf";
    eb_parse_out out;
    eb_error err = {0};
    assert_int_equal(parse_files(&out, &o, &err, BDIR "idf-legacy_esp32_tcp_rx.log", NULL), 0);
    assert_int_equal(out.n_entries, 1);
    const eb_entry *e = &out.entries[0];
    assert_string_equal(out.meta.dialect, "idf-legacy");
    assert_string_equal(e->chip, "esp32");
    assert_string_equal(e->tier, "iperf");
    assert_int_equal(e->receiver.n, 4);
    assert_int_equal(e->rx_stats.n, 3);
    CLOSE(e->rx_stats.mean, (36.16 + 36.25 + 36.20) / 3);
    CLOSE(e->interval_s, 3);
    CLOSE(e->warmup_s, 1);
    eb_parse_out_free(&out);
}

static void test_board_espbench(void **state)
{
    (void)state;
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    o.warmup_s = 0;
    eb_parse_out out;
    eb_error err = {0};
    assert_int_equal(parse_files(&out, &o, &err, BDIR "espbench_esp32_udp_rx.log", NULL), 0);
    assert_string_equal(out.meta.dialect, "espbench");
    assert_string_equal(out.meta.fw_project, "espbench");
    assert_string_equal(out.meta.fw_version, "0.1.0");
    assert_string_equal(out.meta.idf_version, "v5.2.1");
    assert_string_equal(out.meta.chip, "esp32");
    assert_string_equal(out.meta.ap_ssid, "my \"lab\" ap");
    assert_int_equal(out.meta.rssi, -40);
    assert_string_equal(out.meta.board_ip, "192.168.1.90");
    assert_int_equal(out.n_entries, 1);
    const eb_entry *e = &out.entries[0];
    assert_int_equal(e->test, EB_TEST_UDP_RX);
    assert_int_equal(e->receiver.n, 3);
    CLOSE(eb_ivs_at(&e->receiver, 1).bytes, 10500000);
    CLOSE(e->mean_mbps, (80 + 84 + 82) / 3.0);
    CLOSE(e->loss_pct, 100.0 * 15 / 20924);
    CLOSE(e->jitter_ms, (0.12 + 0.10 + 0.11) / 3);
    assert_int_equal(e->free_heap, 180000);
    assert_int_equal(e->min_free_heap, 150000);
    assert_int_equal(e->largest_block, 110000);
    CLOSE(e->duration_s, 3);
    eb_parse_out_free(&out);
}

/* A board log and a PC log of the same test pair into one entry. */
static void test_pairing_board_and_pc(void **state)
{
    (void)state;
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    eb_parse_out out;
    eb_error err = {0};
    assert_int_equal(parse_files(&out, &o, &err, BDIR "iperf-cmd-1.0_esp32c6_tcp_tx.log", IPDIR "tcp.server.log"), 0);
    assert_int_equal(out.n_logs, 2);
    assert_int_equal(out.n_entries, 1);
    const eb_entry *e = &out.entries[0];
    assert_int_equal(e->test, EB_TEST_TCP_TX);
    assert_string_equal(e->chip, "esp32c6");
    assert_int_equal(e->sender.n, 4);   /* the board's [  1] lines */
    assert_int_equal(e->receiver.n, 4); /* the PC server's 0.5-s lines */
    CLOSE(eb_ivs_at(&e->sender, 0).bytes, 2.95e6);
    assert_int_equal(e->tx_stats.n, 3); /* 1-s intervals after 1 s of warm-up */
    assert_int_equal(e->rx_stats.n, 2); /* 0.5-s intervals from 1.0 s */
    CLOSE(e->mean_mbps, (21400 + 18300) / 2.0);
    CLOSE(e->peak_mbps, (21400 + 18300) / 2.0); /* one whole second [1,2) */
    CLOSE(e->interval_s, 1);
    eb_parse_out_free(&out);

    /* the same PC log twice: a second repeat, not a merge */
    assert_int_equal(parse_files(&out, &o, &err, IPDIR "tcp.server.log", IPDIR "tcp.server.log"), 0);
    assert_int_equal(out.n_entries, 2);
    assert_int_equal(out.entries[1].repeat, 1);
    eb_parse_out_free(&out);
}

static void test_pc_logs(void **state)
{
    (void)state;
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    o.warmup_s = 0;
    eb_parse_out out;
    eb_error err = {0};
    /* PC client UDP: the board receives (udp_rx); the Server Report gives loss */
    assert_int_equal(parse_files(&out, &o, &err, IPDIR "udp.client.log", NULL), 0);
    assert_int_equal(out.n_entries, 1);
    assert_int_equal(out.entries[0].test, EB_TEST_UDP_RX);
    assert_int_equal(out.entries[0].sender.n, 4);
    CLOSE(out.entries[0].loss_pct, 0);
    CLOSE(out.entries[0].jitter_ms, 0);
    CLOSE(out.entries[0].interval_s, 0.5);
    eb_parse_out_free(&out);

    /* CSV server: board TX, exact integers; CSV client (total -1): board RX */
    assert_int_equal(parse_files(&out, &o, &err, IPDIR "udp_csv.server.log", IPDIR "udp_csv.client.log"), 0);
    assert_int_equal(out.n_entries, 2);
    assert_int_equal(out.entries[0].test, EB_TEST_UDP_TX);
    assert_int_equal(out.entries[0].receiver.n, 4);
    assert_int_equal(out.entries[1].test, EB_TEST_UDP_RX);
    assert_int_equal(out.entries[1].sender.n, 4);
    CLOSE(eb_ivs_at(&out.entries[1].sender, 0).bytes, 627690);
    eb_parse_out_free(&out);

    /* a CSV server that served two clients in turn: two tests (no banners to cut at) */
    const char *two = "20261202134223,127.0.0.1,59442,127.0.0.1,15610,1,0.0-0.5,627690,10043040\n"
                      "20261202134224,127.0.0.1,59442,127.0.0.1,15610,1,0.0-0.6,700000,9333333\n"
                      "20261202134323,127.0.0.1,59450,127.0.0.1,15610,1,0.0-0.5,600000,9600000\n"
                      "20261202134323,127.0.0.1,59450,127.0.0.1,15610,1,0.5-1.0,600000,9600000\n"
                      "20261202134324,127.0.0.1,59450,127.0.0.1,15610,1,0.0-1.0,1200000,9600000\n";
    eb_parse_out_init(&out);
    assert_int_equal(eb_parse_log_buffer(&out, "two.csv", two, strlen(two), &o, &err), 0);
    assert_int_equal(out.n_entries, 2);
    assert_int_equal(out.entries[0].repeat, 0);
    assert_int_equal(out.entries[1].repeat, 1);
    assert_int_equal(out.entries[0].receiver.n, 1);
    assert_int_equal(out.entries[1].receiver.n, 2);
    eb_parse_out_free(&out);

    /* --test overrides the inference */
    o.test = EB_TEST_TCP_RX;
    assert_int_equal(parse_files(&out, &o, &err, IPDIR "tcp_csv.server.log", NULL), 0);
    assert_int_equal(out.entries[0].test, EB_TEST_TCP_RX);
    assert_int_equal(out.entries[0].sender.n, 4); /* a PC log of tcp_rx is the sender side */
    eb_parse_out_free(&out);
}

/* An iperf-cmd 1.x log with no mode= line (a quieter log level): the first
 * test is told by the echoed `iperf -s -u` command, the second by
 * "[TCP Client] Socket created". Golden figures from the fixture's lines. */
static void test_board_iperf_cmd_no_mode_line(void **state)
{
    (void)state;
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    eb_parse_out out;
    eb_error err = {0};
    assert_int_equal(parse_files(&out, &o, &err, BDIR "iperf-cmd-1.0_esp32c6_udp_rx_tcp_tx_no_mode.log", NULL), 0);
    assert_string_equal(out.meta.dialect, "iperf-cmd-1.0");
    assert_string_equal(out.meta.chip, "esp32c6");
    assert_int_equal(out.n_entries, 2);
    const eb_entry *u = &out.entries[0], *t = &out.entries[1];
    assert_int_equal(u->test, EB_TEST_UDP_RX);
    assert_int_equal(u->receiver.n, 3);
    assert_int_equal(u->sender.n, 0);
    CLOSE(u->interval_s, 1);
    CLOSE(u->duration_s, 3);
    CLOSE(eb_ivs_at(&u->receiver, 1).bytes, 5.25e6); /* MBytes of 1e6 bytes (iperf-cmd 1.0 'm') */
    CLOSE(u->mean_mbps, 43.0);           /* 42 and 44 after the 1-s warm-up */
    CLOSE(u->peak_mbps, 44.0);
    assert_int_equal(t->test, EB_TEST_TCP_TX);
    assert_int_equal(t->sender.n, 3);
    assert_int_equal(t->receiver.n, 0);
    CLOSE(t->mean_mbps, 24.0);           /* the sender side stands in: (23.2 + 24.8) / 2 */
    CLOSE(t->peak_mbps, 24.8);
    assert_int_equal(t->min_free_heap, 211111);
    eb_parse_out_free(&out);
}

static void test_bad_input(void **state)
{
    (void)state;
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    eb_parse_out out;
    eb_error err = {0};

    assert_int_equal(parse_files(&out, &o, &err, BDIR "ambiguous_int_intervals.log", NULL), EB_ECONFIG);
    assert_string_equal(err.msg,
                        BDIR "ambiguous_int_intervals.log: cannot tell the board's console dialect: integer 'N- M "
                             "sec' interval lines are printed both by ESP-IDF <= v5.0 (Mbit = 1e6 bits) and v5.1-v5.2 "
                             "(Mbit = 2^20 bits), and the log has no boot log or mode= line to tell them apart; pass "
                             "--dialect");
    eb_parse_out_free(&out);

    o.dialect = EB_DIALECT_IDF_V44;
    assert_int_equal(parse_files(&out, &o, &err, BDIR "ambiguous_int_intervals.log", NULL), EB_ECONFIG);
    assert_string_equal(err.msg, BDIR "ambiguous_int_intervals.log:1: interval lines with nothing to tell which "
                                      "test ran (no mode= line, echoed iperf command or socket role line); pass "
                                      "--test");
    eb_parse_out_free(&out);

    o.test = EB_TEST_TCP_RX;
    assert_int_equal(parse_files(&out, &o, &err, BDIR "ambiguous_int_intervals.log", NULL), 0);
    assert_int_equal(out.entries[0].receiver.n, 2);
    CLOSE(eb_ivs_at(&out.entries[0].receiver, 0).mbps, 60.12);
    eb_parse_out_free(&out);
    eb_parse_opts_init(&o);

    assert_int_equal(parse_files(&out, &o, &err, BDIR "idf-v4.4_esp32_errors.log", NULL), EB_ECONFIG);
    assert_string_equal(err.msg, BDIR "idf-v4.4_esp32_errors.log: no interval lines (7 lines read); the board said "
                                      "at line 3: sta has no IP");
    eb_parse_out_free(&out);

    assert_int_equal(parse_files(&out, &o, &err, IPDIR "refused.client.log", NULL), EB_ECONFIG);
    assert_string_equal(err.msg, IPDIR "refused.client.log:5: iperf failed: tcp connect failed: Connection refused");
    eb_parse_out_free(&out);

    assert_int_equal(parse_files(&out, &o, &err, IPDIR "version.txt", NULL), EB_ECONFIG);
    assert_string_equal(err.msg, IPDIR "version.txt: neither a board console log nor iperf2 output (no interval, "
                                       "mode= or banner lines); pass --side");
    eb_parse_out_free(&out);

    assert_int_equal(parse_files(&out, &o, &err, "/nonexistent/board.log", NULL), EB_EIO);
    assert_string_equal(err.msg, "/nonexistent/board.log: cannot read: No such file or directory");
    eb_parse_out_free(&out);

    eb_parse_out_init(&out);
    assert_int_equal(eb_parse_log_buffer(&out, "empty", "", 0, &o, &err), EB_ECONFIG);
    eb_parse_out_free(&out);
}

/* A test that failed on the board is kept as a failed entry next to good ones;
 * a reboot mid-test marks the entry failed but keeps its intervals. */
static void test_failed_tests_kept(void **state)
{
    (void)state;
    const char *log = "I (262) cpu_start: ESP-IDF:          v4.4.7\n"
                      "I (6000) iperf: mode=tcp-server sip=192.168.1.79:5001, dip=0.0.0.0:5001, interval=1, time=3\n"
                      "I (6001) iperf: Socket created\n"
                      "   0-   1 sec       30.00 Mbits/sec\n"
                      "   1-   2 sec       31.00 Mbits/sec\n"
                      "   2-   3 sec       32.00 Mbits/sec\n"
                      "   0-   3 sec       31.00 Mbits/sec\n"
                      "I (9000) iperf: mode=tcp-client sip=192.168.1.79:5001, dip=192.168.1.2:5001, interval=1, time=3\n"
                      "E (9100) iperf: iperf_run_tcp_client(361): Socket unable to connect: errno 113\n"
                      "I (9500) iperf: mode=udp-server sip=192.168.1.79:5001, dip=0.0.0.0:5001, interval=1, time=3\n"
                      "   0-   1 sec       50.00 Mbits/sec\n"
                      "Guru Meditation Error: Core  0 panic'ed (LoadProhibited). Exception was unhandled.\n"
                      "rst:0xc (SW_CPU_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)\n";
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    o.warmup_s = 0;
    eb_parse_out out;
    eb_error err = {0};
    eb_parse_out_init(&out);
    assert_int_equal(eb_parse_log_buffer(&out, "mixed.log", log, strlen(log), &o, &err), 0);
    assert_string_equal(out.meta.dialect, "idf-v4.4");
    assert_int_equal(out.n_entries, 3);
    assert_int_equal(out.entries[0].test, EB_TEST_TCP_RX);
    assert_string_equal(out.entries[0].status, "ok");
    CLOSE(out.entries[0].mean_mbps, 31);
    assert_int_equal(out.entries[1].test, EB_TEST_TCP_TX);
    assert_string_equal(out.entries[1].status, "failed");
    assert_string_equal(eb_entry_error(&out.entries[1]), "mixed.log:9: board: iperf_run_tcp_client(361): Socket unable to connect: "
                                              "errno 113");
    assert_int_equal(out.entries[2].test, EB_TEST_UDP_RX);
    assert_string_equal(out.entries[2].status, "failed");
    assert_string_equal(eb_entry_error(&out.entries[2]), "mixed.log:12: board panicked during the test");
    assert_int_equal(out.entries[2].receiver.n, 1);
    eb_parse_out_free(&out);
}

/* The vboard's golden transcripts (tests/fixtures/transcripts): every stock
 * dialect is detected, and with each dialect's unit base the figures agree
 * with the espbench dialect's exact byte counts for the same model rate. */
static void test_vboard_transcripts(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        const char *dialect;
    } t[] = {
        {"esp8266.txt", "esp8266"},         {"idf-legacy-v3.1.txt", "idf-legacy"}, {"idf-legacy-v4.1.txt", "idf-legacy"},
        {"idf-legacy-v4.3.txt", "idf-legacy"}, {"idf-v4.4.txt", "idf-v4.4"},     {"idf-v5.1.txt", "idf-v5.1"},
        {"iperf-cmd-0.1.txt", "iperf-cmd-0.1"}, {"iperf-cmd-1.0.txt", "iperf-cmd-1.0"},
    };
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    o.warmup_s = 0;
    eb_parse_out out;
    eb_error err = {0};
    assert_int_equal(parse_files(&out, &o, &err, FIXTURES_DIR "/transcripts/espbench.txt", NULL), 0);
    assert_string_equal(out.meta.dialect, "espbench");
    assert_int_equal(out.entries[0].test, EB_TEST_UDP_RX);
    double exact = out.entries[0].mean_mbps;
    eb_parse_out_free(&out);
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, FIXTURES_DIR "/transcripts/%s", t[i].file);
        if (parse_files(&out, &o, &err, path, NULL) != 0)
            fail_msg("%s: %s", t[i].file, err.msg);
        if (strcmp(out.meta.dialect, t[i].dialect) != 0)
            fail_msg("%s: dialect %s", t[i].file, out.meta.dialect);
        bool tcp_rx = false;
        for (int k = 0; k < out.n_entries; k++) {
            const eb_entry *e = &out.entries[k];
            if (e->test != EB_TEST_TCP_RX)
                continue;
            tcp_rx = true;
            if (!(fabs(e->mean_mbps - exact) <= 0.01 * exact))
                fail_msg("%s: tcp_rx mean %.3f, espbench %.3f", t[i].file, e->mean_mbps, exact);
        }
        if (!tcp_rx)
            fail_msg("%s: no tcp_rx entry", t[i].file);
        eb_parse_out_free(&out);
    }
}

/* The side is detected, or taken from --side. */
static void test_side_option(void **state)
{
    (void)state;
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    o.side = EB_SIDE_BOARD;
    eb_parse_out out;
    eb_error err = {0};
    /* a PC log read as a board log has no board interval lines */
    assert_int_equal(parse_files(&out, &o, &err, IPDIR "tcp.server.log", NULL), EB_ECONFIG);
    eb_parse_out_free(&out);
    o.side = EB_SIDE_PC;
    assert_int_equal(parse_files(&out, &o, &err, IPDIR "tcp.server.log", NULL), 0);
    eb_parse_out_free(&out);
}

static void test_into_results(void **state)
{
    (void)state;
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    eb_parse_out out;
    eb_error err = {0};
    assert_int_equal(parse_files(&out, &o, &err, BDIR "idf-v5.1_esp32s3_tcp_rx_udp_tx.log", NULL), 0);
    eb_results r;
    eb_results_init(&r);
    int rc = eb_parse_to_results(&out, &r, &err);
    if (rc == 0) { /* with the results module in the build */
        assert_int_equal(r.n_entries, 2);
        assert_int_equal(r.n_boards, 1);
        assert_string_equal(r.boards[0].dialect, "idf-v5.1");
        assert_int_equal(r.entries[0].receiver.n, 5);
        assert_ptr_not_equal(r.entries[0].receiver.rows, out.entries[0].receiver.rows); /* deep copy */
    }
    eb_results_free(&r);
    eb_parse_out_free(&out);
}

/* Any prefix of a log, and garbage, gives a result or one clear error; never a crash. */
static void test_truncated_logs(void **state)
{
    (void)state;
    static const char *const files[] = {BDIR "idf-v5.1_esp32s3_tcp_rx_udp_tx.log", BDIR "espbench_esp32_udp_rx.log",
                                        IPDIR "udp_P2.client.log", IPDIR "tcp_P2_csv.server.log"};
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        FILE *fp = fopen(files[f], "rb");
        assert_non_null(fp);
        char buf[8192];
        size_t len = fread(buf, 1, sizeof buf, fp);
        fclose(fp);
        for (size_t cut = 0; cut <= len; cut += 13) {
            char *copy = malloc(cut ? cut : 1);
            memcpy(copy, buf, cut);
            eb_parse_out out;
            eb_error err = {0};
            eb_parse_out_init(&out);
            int rc = eb_parse_log_buffer(&out, "cut.log", copy, cut, &o, &err);
            if (rc) {
                assert_int_equal(rc, EB_ECONFIG);
                assert_non_null(strstr(err.msg, "cut.log"));
                assert_null(strchr(err.msg, '\n'));
            } else {
                assert_true(out.n_entries > 0);
            }
            eb_parse_out_free(&out);
            free(copy);
        }
    }
    uint32_t seed = 99;
    char *g = malloc(4096);
    for (int i = 0; i < 200; i++) {
        for (int k = 0; k < 4096; k++) {
            seed = seed * 1103515245u + 12345u;
            g[k] = (seed >> 24) % 8 == 0 ? '\n' : "0123456789 -.sec[]MbitsBytes/#EB:mode=tcp-server,"[(seed >> 16) % 48];
        }
        eb_parse_out out;
        eb_error err = {0};
        eb_parse_out_init(&out);
        eb_parse_log_buffer(&out, "garbage", g, 4096, &o, &err);
        eb_parse_out_free(&out);
    }
    free(g);
}

/* One pass parses and detects with a guess from the log's first lines; when
 * the whole log says otherwise (here the app descriptor of an ESP-IDF v5.2
 * firmware, whose Mbit is 2^20 bits, comes after 2 000 lines that alone read
 * as a decimal-Mbit dialect), the lines are read again: the figures are the
 * dialect's, exactly as with --dialect. */
static void test_board_dialect_told_late(void **state)
{
    (void)state;
    eb_buf b;
    eb_buf_init(&b);
    eb_buf_printf(&b, "I (84810) IPERF: mode=tcp-server sip=0.0.0.0:5001, dip=0.0.0.0:5001, interval=1, time=2100\r\n");
    for (int i = 0; i < 2100; i++)
        eb_buf_printf(&b, "%4d-%4d sec       10.00 Mbits/sec\r\n", i, i + 1);
    size_t head = b.len; /* the first lines alone: a dialect of decimal Mbit */
    eb_buf_printf(&b, "I (262) cpu_start: ESP-IDF:          v5.2.1\r\n");
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    o.side = EB_SIDE_BOARD;
    eb_parse_out out;
    eb_error err = {0};
    eb_parse_out_init(&out);
    assert_int_equal(eb_parse_log_buffer(&out, "late.log", (const char *)b.data, head, &o, &err), 0);
    assert_true(eb_dialect_mbit_base(eb_dialect_from_name(out.meta.dialect)) == 1e6);
    CLOSE(out.entries[0].mean_mbps, 10.0);
    eb_parse_out_free(&out);

    eb_parse_out_init(&out);
    assert_int_equal(eb_parse_log_buffer(&out, "late.log", (const char *)b.data, b.len, &o, &err), 0);
    assert_string_equal(out.meta.dialect, "idf-v5.1");
    assert_string_equal(out.meta.idf_version, "v5.2.1");
    assert_int_equal(out.n_entries, 1);
    assert_int_equal(out.entries[0].receiver.n, 2100);
    CLOSE(eb_ivs_at(&out.entries[0].receiver, 0).mbps, 10.0 * M20 / 1e6);
    CLOSE(out.entries[0].mean_mbps, 10.0 * M20 / 1e6);
    double mean = out.entries[0].mean_mbps;
    eb_parse_out_free(&out);

    eb_parse_out_init(&out);
    o.dialect = eb_dialect_from_name("idf-v5.1");
    assert_int_equal(eb_parse_log_buffer(&out, "late.log", (const char *)b.data, b.len, &o, &err), 0);
    assert_true(out.entries[0].mean_mbps == mean);
    eb_parse_out_free(&out);
    eb_buf_free(&b);
}

/* ---- logs found in the field (fixtures written from the public formats) ---- */

/* Espressif's examples' socket lines tell each test, segment by segment
 * (ESP-IDF v4.4 examples/common_components/iperf/iperf.c: "Successfully
 * connected", "Socket created, sending to", "accept:", "Socket bound, port"). */
static void test_socket_role_lines(void **state)
{
    (void)state;
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    eb_parse_out out;
    eb_error err = {0};
    assert_int_equal(parse_files(&out, &o, &err, BDIR "idf-v4.4_esp32_socket_roles.log", NULL), 0);
    assert_string_equal(out.meta.dialect, "idf-v4.4");
    assert_int_equal(out.n_entries, 4);
    static const int tests[] = {EB_TEST_TCP_TX, EB_TEST_UDP_TX, EB_TEST_TCP_RX, EB_TEST_UDP_RX};
    static const double means[] = {23.0, 31.5, 43.0, 53.0}; /* intervals after the 1-s warm-up */
    for (int i = 0; i < 4; i++) {
        const eb_entry *e = &out.entries[i];
        assert_int_equal(e->test, tests[i]);
        assert_string_equal(e->status, "ok");
        assert_int_equal(i < 2 ? e->sender.n : e->receiver.n, 3);
        CLOSE(e->mean_mbps, means[i]);
    }
    eb_parse_out_free(&out);

    /* a bare "Socket created" (a TCP or a UDP server) tells nothing: --test
     * names those tests only, one name for all or a list in order */
    assert_int_equal(parse_files(&out, &o, &err, BDIR "idf-v4.4_esp32_untold_mixed.log", NULL), EB_ECONFIG);
    assert_string_equal(err.msg, BDIR "idf-v4.4_esp32_untold_mixed.log:14: interval lines with nothing to tell which "
                                      "test ran (no mode= line, echoed iperf command or socket role line); pass "
                                      "--test");
    eb_parse_out_free(&out);
    o.test = EB_TEST_TCP_RX;
    assert_int_equal(parse_files(&out, &o, &err, BDIR "idf-v4.4_esp32_untold_mixed.log", NULL), 0);
    assert_int_equal(out.n_entries, 3);
    assert_int_equal(out.entries[0].test, EB_TEST_UDP_TX); /* told by its line: --test does not relabel it */
    assert_int_equal(out.entries[0].sender.n, 3);
    assert_int_equal(out.entries[1].test, EB_TEST_TCP_RX);
    assert_int_equal(out.entries[2].test, EB_TEST_TCP_RX);
    CLOSE(out.entries[2].mean_mbps, 53.0);
    eb_parse_out_free(&out);
    o.test = -1;
    o.test_list[0] = EB_TEST_TCP_RX;
    o.test_list[1] = EB_TEST_UDP_RX;
    o.n_test_list = 2;
    assert_int_equal(parse_files(&out, &o, &err, BDIR "idf-v4.4_esp32_untold_mixed.log", NULL), 0);
    assert_int_equal(out.n_entries, 3);
    assert_int_equal(out.entries[0].test, EB_TEST_UDP_TX);
    assert_int_equal(out.entries[1].test, EB_TEST_TCP_RX);
    CLOSE(out.entries[1].mean_mbps, 43.0);
    assert_int_equal(out.entries[2].test, EB_TEST_UDP_RX);
    CLOSE(out.entries[2].mean_mbps, 53.0);
    eb_parse_out_free(&out);
    const char *three = "I (263) cpu_start: ESP-IDF:          v4.4.7\n"
                        "I (1) iperf: Socket created\n   0-   1 sec       1.00 Mbits/sec\n   0-   1 sec       1.00 Mbits/sec\n"
                        "I (2) iperf: iperf exit\n"
                        "I (3) iperf: Socket created\n   0-   1 sec       2.00 Mbits/sec\n   0-   1 sec       2.00 Mbits/sec\n"
                        "I (4) iperf: iperf exit\n"
                        "I (5) iperf: Socket created\n   0-   1 sec       3.00 Mbits/sec\n";
    eb_parse_out_init(&out);
    assert_int_equal(eb_parse_log_buffer(&out, "three.log", three, strlen(three), &o, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "three.log:11: interval lines with nothing to tell which test ran, and --test lists "
                                 "only 2 tests; name one per such test, in the log's order");
    eb_parse_out_free(&out);
}

/* A partial test is failed and gives no figure: the error line that ended
 * it with its line number, and the seconds its intervals cover. */
static void test_partial_tests(void **state)
{
    (void)state;
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    eb_parse_out out;
    eb_error err = {0};
    assert_int_equal(parse_files(&out, &o, &err, BDIR "idf-v4.4_esp32_tcp_tx_reset.log", NULL), 0);
    assert_int_equal(out.n_entries, 1);
    const eb_entry *e = &out.entries[0];
    assert_int_equal(e->test, EB_TEST_TCP_TX);
    assert_string_equal(e->status, "failed");
    assert_string_equal(eb_entry_error(e), BDIR "idf-v4.4_esp32_tcp_tx_reset.log:13: board: tcp client send error, "
                                               "error code: 104, reason: Connection reset by peer; the sender reported "
                                               "only 5.0 s of the 10 s of tcp_tx");
    assert_true(isnan(e->mean_mbps) && isnan(e->peak_mbps));
    assert_int_equal(e->sender.n, 5); /* what was measured is kept */
    CLOSE(e->duration_s, 10);
    assert_int_equal(out.n_failed, 1);
    eb_parse_out_free(&out);

    assert_int_equal(parse_files(&out, &o, &err, BDIR "idf-v4.4_esp32_tcp_rx_cut.log", NULL), 0);
    e = &out.entries[0];
    assert_int_equal(e->test, EB_TEST_TCP_RX);
    assert_string_equal(e->status, "failed");
    assert_string_equal(eb_entry_error(e), BDIR "idf-v4.4_esp32_tcp_rx_cut.log:3: the receiver reported only 63.0 s "
                                               "of the 1000 s of tcp_rx");
    assert_true(isnan(e->mean_mbps) && isnan(e->peak_mbps));
    assert_int_equal(e->receiver.n, 21);
    eb_parse_out_free(&out);

    /* no -t in the log: a send error still ends the test */
    const char *log = "I (263) cpu_start: ESP-IDF:          v4.4.7\n"
                      "I (6001) iperf: Successfully connected\n"
                      "   0-   1 sec       20.00 Mbits/sec\n"
                      "   1-   2 sec       21.00 Mbits/sec\n"
                      "   2-   3 sec       22.00 Mbits/sec\n"
                      "W (11050) iperf: tcp client send error, error code: 104, reason: Connection reset by peer\n"
                      "I (11051) iperf: TCP Socket client is closed.\n";
    eb_parse_out_init(&out);
    assert_int_equal(eb_parse_log_buffer(&out, "reset.log", log, strlen(log), &o, &err), 0);
    e = &out.entries[0];
    assert_int_equal(e->test, EB_TEST_TCP_TX);
    assert_string_equal(e->status, "failed");
    assert_string_equal(eb_entry_error(e), "reset.log:6: board: tcp client send error, error code: 104, reason: "
                                           "Connection reset by peer; the sender reported 3.0 s of tcp_tx");
    assert_true(isnan(e->mean_mbps));
    eb_parse_out_free(&out);

    /* a whole test (iperf-cmd 1.0 may stop one interval short) stays ok */
    assert_int_equal(parse_files(&out, &o, &err, BDIR "iperf-cmd-1.0_esp32c6_tcp_tx.log", NULL), 0);
    assert_string_equal(out.entries[0].status, "ok");
    eb_parse_out_free(&out);
}

/* UDP server loss: iperf's whole-test line wins over the intervals' sum,
 * which stays beside it; -P N [SUM] rows without Lost/Total (2.0.x) take
 * the streams' counts. */
static void test_udp_server_loss(void **state)
{
    (void)state;
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    eb_parse_out out;
    eb_error err = {0};
    assert_int_equal(parse_files(&out, &o, &err, IPDIR "udp_2.0_final.server.log", NULL), 0);
    const eb_entry *e = &out.entries[0];
    assert_int_equal(e->test, EB_TEST_UDP_TX);
    CLOSE(e->loss_pct, 100.0 * 3 / 792);          /* the final line: 3/792 */
    CLOSE(e->interval_loss_pct, 100.0 * 4 / 760); /* the intervals: 2+1+1 of 253+254+253 */
    eb_parse_out_free(&out);

    assert_int_equal(parse_files(&out, &o, &err, IPDIR "udp_P2_2.0.server.log", NULL), 0);
    e = &out.entries[0];
    assert_int_equal(e->test, EB_TEST_UDP_TX);
    assert_int_equal(e->receiver.n, 3);
    assert_int_equal(eb_ivs_at(&e->receiver, 0).lost, 3);
    assert_int_equal(eb_ivs_at(&e->receiver, 0).total, 600);
    CLOSE(eb_ivs_at(&e->receiver, 0).mbps, 7.02);             /* the [SUM] row's rate */
    CLOSE(e->loss_pct, 100.0 * 8 / 1801);         /* the streams' finals: 3/900 + 5/901 */
    CLOSE(e->interval_loss_pct, 100.0 * 7 / 1800);
    eb_parse_out_free(&out);

    /* a log without a final line keeps the intervals' figure alone */
    const char *cut = "Server listening on UDP port 5001\n"
                      "[  3]  0.0- 1.0 sec   360 KBytes  2.95 Mbits/sec   1.212 ms    2/  253 (0.79%)\n"
                      "[  3]  1.0- 2.0 sec   363 KBytes  2.98 Mbits/sec   0.985 ms    1/  254 (0.39%)\n";
    eb_parse_out_init(&out);
    assert_int_equal(eb_parse_log_buffer(&out, "cut.log", cut, strlen(cut), &o, &err), 0);
    CLOSE(out.entries[0].loss_pct, 100.0 * 3 / 507);
    assert_true(isnan(out.entries[0].interval_loss_pct));
    eb_parse_out_free(&out);
}

/* iperf3 logs (real iperf 3.12 output on loopback): the direction from the
 * end that sent, the sender/receiver summary rows kept out of the
 * intervals, a UDP client's loss from the far receiver's row. */
static void test_iperf3_logs(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        int test, n_receiver, n_sender;
        double mean, duration, loss; /* loss NAN: none */
    } cases[] = {
        {I3DIR "tcp.client.log", EB_TEST_TCP_RX, 0, 3, (50.3 + 49.1) / 2, 3.00, NAN},
        {I3DIR "tcp.server.log", EB_TEST_TCP_TX, 3, 0, (50.3 + 49.0) / 2, 3.01, NAN},
        {I3DIR "tcp_R.client.log", EB_TEST_TCP_TX, 2, 0, 50.3, 2.00, NAN},
        {I3DIR "udp.client.log", EB_TEST_UDP_RX, 0, 3, (10.1 + 9.96) / 2, 3.00, 0.0},
        {I3DIR "udp.server.log", EB_TEST_UDP_TX, 3, 0, (10.1 + 9.96) / 2, 3.00, 0.0},
        {I3DIR "udp_P2.server.log", EB_TEST_UDP_TX, 2, 0, 9.96, 2.00, 0.0},    /* the [SUM] rows */
        {I3DIR "udp_loss.client.log", EB_TEST_UDP_RX, 0, 3, (2990 + 3020) / 2.0, 3.00, 100.0 * 56227 / 140537},
    };
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    eb_parse_out out;
    eb_error err = {0};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (parse_files(&out, &o, &err, cases[i].file, NULL) != 0)
            fail_msg("%s: %s", cases[i].file, err.msg);
        assert_int_equal(out.n_entries, 1);
        const eb_entry *e = &out.entries[0];
        if (e->test != cases[i].test || e->receiver.n != cases[i].n_receiver || e->sender.n != cases[i].n_sender)
            fail_msg("%s: test %d rx %d tx %d", cases[i].file, e->test, e->receiver.n, e->sender.n);
        assert_string_equal(e->status, "ok");
        CLOSE(e->mean_mbps, cases[i].mean);
        CLOSE(e->duration_s, cases[i].duration);
        if (isnan(cases[i].loss))
            assert_true(isnan(e->loss_pct));
        else
            CLOSE(e->loss_pct, cases[i].loss);
        eb_parse_out_free(&out);
    }
    /* a server that served two clients: two tests; the banner it printed for a third is no test */
    assert_int_equal(parse_files(&out, &o, &err, I3DIR "two_tests.server.log", NULL), 0);
    assert_int_equal(out.n_entries, 2);
    assert_int_equal(out.entries[0].test, EB_TEST_TCP_TX);
    CLOSE(out.entries[0].mean_mbps, 39.8);
    assert_int_equal(out.entries[1].test, EB_TEST_UDP_TX);
    CLOSE(out.entries[1].mean_mbps, (1860 + 1550) / 2.0);
    CLOSE(out.entries[1].loss_pct, 100.0 * 56227 / 140537);          /* the receiver's own summary row */
    CLOSE(out.entries[1].interval_loss_pct, 100.0 * (17419 + 23140 + 15668) / (46718 + 47234 + 46585));
    eb_parse_out_free(&out);
    /* a refused client (all it prints): one line with the file and line */
    assert_int_equal(parse_files(&out, &o, &err, I3DIR "refused.client.log", NULL), EB_ECONFIG);
    assert_string_equal(err.msg, I3DIR "refused.client.log:1: iperf failed: iperf3: error - unable to connect to server: "
                                       "Connection refused");
    eb_parse_out_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_board_v51_two_tests),
        cmocka_unit_test(test_board_legacy_warmup),
        cmocka_unit_test(test_board_espbench),
        cmocka_unit_test(test_pairing_board_and_pc),
        cmocka_unit_test(test_pc_logs),
        cmocka_unit_test(test_board_iperf_cmd_no_mode_line),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_failed_tests_kept),
        cmocka_unit_test(test_vboard_transcripts),
        cmocka_unit_test(test_side_option),
        cmocka_unit_test(test_into_results),
        cmocka_unit_test(test_truncated_logs),
        cmocka_unit_test(test_board_dialect_told_late),
        cmocka_unit_test(test_socket_role_lines),
        cmocka_unit_test(test_partial_tests),
        cmocka_unit_test(test_udp_server_loss),
        cmocka_unit_test(test_iperf3_logs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
