/* `espbench parse` on logs people reuse: a unit base chosen on conflicting
 * evidence, a server that waited for its client, bytes that are not UTF-8
 * in a banner, and logs too large to read (size checked before reading;
 * streamed from the file in bounded memory, with the figures of the same
 * log held in memory). */
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "espbench/base/buf.h"
#include "espbench/base/fs.h"
#include "espbench/formats/dialect.h"
#include "espbench/formats/results.h"
#include "espbench/jobs/parse_job.h"
#include "formats/json_writer.h"

#define BDIR FIXTURES_DIR "/logs/board/"
#define COLLAPSED BDIR "idf-v5.1_esp32c3_collapsed_mode.log"
#define NOBANNER BDIR "idf-v5.1_esp32c3_collapsed_mode_nobanner.log"
#define WAITED BDIR "idf-v4.2_esp32_server_waited.log"
#define BYTES BDIR "idf-v4.4_esp32_banner_bytes.log"

static int parse1(eb_parse_out *out, const eb_parse_opts *o, eb_error *err, const char *path)
{
    eb_parse_out_init(out);
    return eb_parse_log_file(out, path, o, err);
}

static char *fmt2(double v)
{
    static char b[32];
    snprintf(b, sizeof b, "%.2f", v);
    return b;
}

/* ESP-IDF v5.1.2 in the boot log (2^20-bit Mbits), a mode= line of the
 * <= v5.0 layout: the boot log wins, and parse says so. */
static void test_unit_base_conflict(void **state)
{
    (void)state;
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    eb_parse_out out;
    eb_error err = {0};
    assert_int_equal(parse1(&out, &o, &err, COLLAPSED), 0);
    assert_int_equal(out.n_entries, 1);
    eb_entry *e = &out.entries[0];
    assert_string_equal(fmt2(e->mean_mbps), "40.00");
    assert_int_equal(out.n_warnings, 1);
    assert_string_equal(out.warnings[0],
                        COLLAPSED ":7: ESP-IDF v5.1.2 prints Mbits of 2^20 bits, but " COLLAPSED ":9 has the <= v5.0 "
                        "mode= layout (single spaces: 1e6 bits, or a v5.1 line whose blanks were collapsed); took "
                        "2^20 bits per Mbit from the boot log (rates 4.9 % higher than with 1e6); pass --unit-base "
                        "1e6 or --unit-base 2^20 (or --dialect) to settle it");
    assert_string_equal(e->unit_note, "2^20 bits per Mbit, from " COLLAPSED ":7 (boot log: ESP-IDF v5.1.2); against it "
                                      COLLAPSED ":9 (the <= v5.0 mode= layout (single spaces: 1e6 bits, or a v5.1 "
                                      "line whose blanks were collapsed))");
    /* the log's own figure and unit beside the converted one */
    assert_string_equal(e->summary_printed, "37.93 Mbits/sec");
    assert_string_equal(fmt2(e->summary_mbps), "39.77");
    eb_parse_out_free(&out);

    /* --unit-base settles it: no warning, the note says where the base came from */
    o.unit_base = 1e6;
    assert_int_equal(parse1(&out, &o, &err, COLLAPSED), 0);
    assert_int_equal(out.n_warnings, 0);
    assert_string_equal(fmt2(out.entries[0].mean_mbps), "38.15");
    assert_string_equal(out.entries[0].unit_note, "1e6 bits per Mbit, from --unit-base");
    assert_string_equal(fmt2(out.entries[0].summary_mbps), "37.93");
    eb_parse_out_free(&out);

    /* so does --dialect */
    eb_parse_opts_init(&o);
    o.dialect = eb_dialect_from_name("idf-v4.4");
    assert_int_equal(parse1(&out, &o, &err, COLLAPSED), 0);
    assert_int_equal(out.n_warnings, 0);
    assert_null(out.entries[0].unit_note);
    assert_string_equal(fmt2(out.entries[0].mean_mbps), "38.15");
    eb_parse_out_free(&out);
}

/* The same capture without its banner: the base rests on whitespace alone. */
static void test_unit_base_whitespace_only(void **state)
{
    (void)state;
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    eb_parse_out out;
    eb_error err = {0};
    assert_int_equal(parse1(&out, &o, &err, NOBANNER), 0);
    assert_string_equal(fmt2(out.entries[0].mean_mbps), "38.15");
    assert_int_equal(out.n_warnings, 1);
    assert_string_equal(out.warnings[0],
                        NOBANNER ":2: the unit base rests on the mode= line's spacing alone: single spaces (the <= "
                        "v5.0 layout) reads as 1e6 bits per Mbit, but a v5.1-v5.2 log (2^20 bits, rates 4.9 % higher) "
                        "whose blanks were collapsed looks the same; pass --unit-base 1e6 or --unit-base 2^20 (or "
                        "--dialect) to settle it");
    assert_string_equal(out.entries[0].unit_note, "1e6 bits per Mbit, from " NOBANNER ":2 (mode= line with single "
                                                  "spaces)");
    eb_parse_out_free(&out);
    o.unit_base = 1048576.0;
    assert_int_equal(parse1(&out, &o, &err, NOBANNER), 0);
    assert_int_equal(out.n_warnings, 0);
    assert_string_equal(fmt2(out.entries[0].mean_mbps), "40.00");
    eb_parse_out_free(&out);
    /* a log with no evidence at all is still refused (ambiguous_int_intervals.log), unless --unit-base */
    eb_parse_opts_init(&o);
    o.test = EB_TEST_TCP_RX;
    assert_int_equal(parse1(&out, &o, &err, BDIR "ambiguous_int_intervals.log"), EB_ECONFIG);
    eb_parse_out_free(&out);
    o.unit_base = 1e6;
    assert_int_equal(parse1(&out, &o, &err, BDIR "ambiguous_int_intervals.log"), 0);
    eb_parse_out_free(&out);
}

/* A v4.2 server printed zeros for 30 s before its client came, then
 * "accept:", then 33 s of traffic: one test, of -t 1000, partial. */
static void test_server_waited(void **state)
{
    (void)state;
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    eb_parse_out out;
    eb_error err = {0};
    assert_int_equal(parse1(&out, &o, &err, WAITED), 0);
    assert_int_equal(out.n_entries, 1);
    eb_entry *e = &out.entries[0];
    assert_int_equal(e->test, EB_TEST_TCP_RX);
    assert_string_equal(e->status, "failed");
    assert_string_equal(eb_entry_error(e), WAITED ":23: the receiver reported only 63.0 s of the 1000 s of tcp_rx");
    assert_true(isnan(e->mean_mbps));
    assert_int_equal(e->receiver.n, 11); /* the ten waiting intervals belong to no test */
    assert_true(eb_ivs_at(&e->receiver, 0).start_s == 30);
    assert_true(e->duration_s == 1000);
    eb_parse_out_free(&out);
}

/* 0xFF, 0xFE and a broken two-byte sequence in the banner: the JSON and CSV
 * text is valid UTF-8, each bad byte a U+FFFD. */
static void test_banner_bytes_utf8(void **state)
{
    (void)state;
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    eb_parse_out out;
    eb_error err = {0};
    assert_int_equal(parse1(&out, &o, &err, BYTES), 0);
    assert_memory_equal(out.meta.fw_project, "iperf\xff\xfe", 8); /* held as read */
    eb_results r;
    eb_results_init(&r);
    assert_int_equal(eb_parse_move_to_results(&out, &r, &err), 0);
    eb_entry_set_error(&r.entries[0], "board said \xff, \"quoted\"");
    eb_buf j, c;
    eb_buf_init(&j);
    eb_buf_init(&c);
    eb_results_to_json(&r, &j);
    eb_results_to_csv(&r, &c);
    assert_true(eb_utf8_valid((const char *)j.data, j.len));
    assert_true(eb_utf8_valid((const char *)c.data, c.len));
    eb_buf_cstr(&j);
    eb_buf_cstr(&c);
    assert_non_null(strstr((const char *)j.data, "\"fw_project\":\t\"iperf\xef\xbf\xbd\xef\xbf\xbd\""));
    assert_non_null(strstr((const char *)j.data, "\"v4.4.6-\xef\xbf\xbd(dirty\""));
    assert_non_null(strstr((const char *)c.data, "\"board said \xef\xbf\xbd, \"\"quoted\"\"\""));
    /* read back: the same text */
    eb_results back;
    assert_int_equal(eb_results_parse_json(&back, (const char *)j.data, j.len, "x.json", &err), 0);
    assert_string_equal(back.boards[0].fw_project, "iperf\xef\xbf\xbd\xef\xbf\xbd");
    eb_results_free(&back);
    eb_buf_free(&j);
    eb_buf_free(&c);
    eb_results_free(&r);
    eb_parse_out_free(&out);
}

/* A 1 GB log is refused before a byte of it is read (a sparse file: no disk). */
static void test_size_checked_before_reading(void **state)
{
    (void)state;
    char path[] = "/tmp/espbench-biglog-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 1024LL << 20), 0);
    close(fd);
    eb_parse_out out;
    eb_error err = {0};
    assert_int_equal(parse1(&out, NULL, &err, path), EB_ECONFIG);
    char want[256];
    snprintf(want, sizeof want,
             "%s: 1024 MB, larger than 256 MB; not a console or iperf log? (split a longer one)", path);
    assert_string_equal(err.msg, want);
    eb_parse_out_free(&out);
    unlink(path);
}

/* Streamed from its file, a log gives what the same bytes give in memory;
 * the reader hands a line longer than its buffer over in pieces. */
static void test_streamed_equals_buffer(void **state)
{
    (void)state;
    static const char *const logs[] = {COLLAPSED, WAITED, BDIR "idf-v5.1_esp32s3_tcp_rx_udp_tx.log",
                                       BDIR "iperf-cmd-1.0_esp32c6_tcp_tx.log", FIXTURES_DIR "/logs/iperf2/tcp.server.log"};
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
        eb_buf raw;
        eb_buf_init(&raw);
        eb_error err = {0};
        assert_int_equal(eb_file_read(logs[i], 1 << 20, NULL, &raw, &err), 0);
        eb_parse_out a, b;
        assert_int_equal(parse1(&a, NULL, &err, logs[i]), 0);
        eb_parse_out_init(&b);
        assert_int_equal(eb_parse_log_buffer(&b, logs[i], (const char *)raw.data, raw.len, NULL, &err), 0);
        eb_results ra, rb;
        eb_results_init(&ra);
        eb_results_init(&rb);
        strcpy(ra.generated, "t");
        strcpy(rb.generated, "t");
        assert_int_equal(eb_parse_move_to_results(&a, &ra, &err), 0);
        assert_int_equal(eb_parse_move_to_results(&b, &rb, &err), 0);
        eb_buf ja, jb;
        eb_buf_init(&ja);
        eb_buf_init(&jb);
        eb_results_to_json(&ra, &ja);
        eb_results_to_json(&rb, &jb);
        assert_int_equal(ja.len, jb.len);
        assert_memory_equal(ja.data, jb.data, ja.len);
        eb_buf_free(&ja);
        eb_buf_free(&jb);
        eb_results_free(&ra);
        eb_results_free(&rb);
        eb_parse_out_free(&a);
        eb_parse_out_free(&b);
        eb_buf_free(&raw);
    }
    /* a line of 1.5 buffers, then a short one */
    char path[] = "/tmp/espbench-longline-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    size_t big = EB_LINE_READER_BUF + EB_LINE_READER_BUF / 2;
    char *line = malloc(big);
    memset(line, 'x', big);
    assert_int_equal(write(fd, line, big), (ssize_t)big);
    assert_int_equal(write(fd, "\nend", 4), 4);
    close(fd);
    eb_line_reader rd;
    eb_error err = {0};
    assert_int_equal(eb_line_reader_open(&rd, path, 16u << 20, NULL, &err), 0);
    const char *l;
    size_t n;
    assert_true(eb_line_reader_next(&rd, &l, &n));
    assert_int_equal(n, EB_LINE_READER_BUF);
    assert_true(eb_line_reader_next(&rd, &l, &n));
    assert_int_equal(n, EB_LINE_READER_BUF / 2);
    assert_true(eb_line_reader_next(&rd, &l, &n));
    assert_int_equal(n, 3);
    assert_memory_equal(l, "end", 3);
    assert_false(eb_line_reader_next(&rd, &l, &n));
    assert_int_equal(eb_line_reader_rewind(&rd), 0);
    assert_true(eb_line_reader_next(&rd, &l, &n));
    assert_int_equal(n, EB_LINE_READER_BUF);
    eb_line_reader_close(&rd);
    /* a needle that straddles two of the reader's blocks is found */
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, line, EB_LINE_READER_BUF - 3), (ssize_t)(EB_LINE_READER_BUF - 3));
    assert_int_equal(write(fd, " sec Tx:1\n", 10), 10);
    close(fd);
    assert_int_equal(eb_line_reader_open(&rd, path, 16u << 20, NULL, &err), 0);
    assert_true(eb_line_reader_contains(&rd, " sec Tx:", 8));
    assert_false(eb_line_reader_contains(&rd, " sec Rx:", 8));
    assert_int_equal(eb_line_reader_rewind(&rd), 0);
    assert_true(eb_line_reader_next(&rd, &l, &n));
    assert_int_equal(n, EB_LINE_READER_BUF);
    eb_line_reader_close(&rd);
    free(line);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unit_base_conflict),
        cmocka_unit_test(test_unit_base_whitespace_only),
        cmocka_unit_test(test_server_waited),
        cmocka_unit_test(test_banner_bytes_utf8),
        cmocka_unit_test(test_size_checked_before_reading),
        cmocka_unit_test(test_streamed_equals_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
