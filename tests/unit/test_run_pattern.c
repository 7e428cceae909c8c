/* run --pattern through a scripted board (fake:// port, port_fake.c) that
 * answers a pattern file's commands: the connect command (with the password
 * filled in, never logged), the test's commands with their placeholders,
 * and udp-example-style lines read by the pattern's rules into the entry.
 * The PC side is a real iperf2 client sending to nobody on loopback. */
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
#include "espbench/formats/profile.h"
#include "espbench/formats/results.h"
#include "espbench/jobs/run.h"
#include "espbench/adapters/pattern_files.h"
#include "espbench/adapters/profile_dirs.h"
#include "espbench/adapters/results_file.h"

#define PR "\\r\\nudp> "
static const char script[] =
    "print udp> \n"
    "on join lab secret -> I (812) wifi: connected\\r\\ngot ip: 127.0.0.2" PR "\n"
    "on mode server -> ok" PR "\n"
    "on udp_server -p 5001 -t 2 -> I (900) udp_test: waiting for data\\r\\n"
    "        Interval Bandwidth\\r\\n"
    "000 - 001           6.91 MB             55.29 Mbps\\r\\n"
    "001 - 002           6.95 MB             55.61 Mbps\\r\\n"
    "[UDP DOWN LINK TEST]\\r\\n"
    "Start:900ms, End:2901ms, Elapsed time:2s\\r\\n"
    "Upload bytes:13.86 MB, Rate:55.44 Mbps" PR "\n"
    "on udp_server -> E (900) udp_test: unexpected command" PR "\n"
    "on -> udp> \n";

static void test_run_pattern_udp_rx(void **state)
{
    (void)state;
    eb_profiles profiles;
    eb_error err = {0};
    const char *dirs[] = {SOURCE_DIR "/profiles"};
    assert_int_equal(eb_profiles_load(&profiles, dirs, 1, &err), 0);
    eb_pattern p;
    if (eb_pattern_load_file(&p, FIXTURES_DIR "/patterns/udp-console.yaml", &err))
        fail_msg("%s", err.msg);
    char dir[] = "/tmp/eb-runpattern-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/board.script", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(script, f);
    fclose(f);
    eb_run_board b = {.chip = "esp32", .pc_ip = "127.0.0.1", .iperf_port = 5001};
    snprintf(b.port, sizeof b.port, "fake://%s", path);
    eb_run_opts o = {.profiles = &profiles, .boards = &b, .n_boards = 1, .tiers = {"iperf"}, .n_tiers = 1,
                     .duration_s = 2, .interval_s = 1, .warmup_s = 0, .repeat = 1, .retries = 0,
                     .ssid = "lab", .password = "secret", .out_dir = dir,
                     .iperf_version = "iperf version 2.1.9 (test)"};
    o.tests = 1u << EB_TEST_UDP_RX;
    assert_int_equal(eb_run_apply_pattern(&o, &p, &err), 0);
    eb_run_summary sum;
    int rc = eb_run(&o, &sum, &err);
    if (rc)
        fail_msg("run: %s", err.msg);
    eb_results res;
    char json[128];
    snprintf(json, sizeof json, "%s/results.json", dir);
    assert_int_equal(eb_results_load(&res, json, &err), 0);
    assert_int_equal(res.n_entries, 1);
    const eb_entry *e = &res.entries[0];
    assert_int_equal(e->test, EB_TEST_UDP_RX);
    assert_string_equal(e->status, "ok");
    assert_int_equal(e->receiver.n, 2);
    assert_true(eb_ivs_at(&e->receiver, 1).start_s == 1 && eb_ivs_at(&e->receiver, 1).mbps == 55.61);
    assert_true(e->mean_mbps > 55.4 && e->mean_mbps < 55.5);
    assert_string_equal(res.boards[0].dialect, "udp-console");
    /* the password went to the board but not into its console log */
    char clog[160];
    snprintf(clog, sizeof clog, "%s/console-esp32.log", dir);
    eb_buf log;
    eb_buf_init(&log);
    if (eb_file_read(clog, 1 << 20, NULL, &log, &err))
        fail_msg("%s", err.msg);
    const char *text = eb_buf_cstr(&log);
    assert_non_null(strstr(text, "join lab ****"));
    assert_null(strstr(text, "secret"));
    eb_buf_free(&log);
    eb_results_free(&res);
    eb_pattern_free(&p);
    eb_profiles_free(&profiles);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* The write-up's own set-up: one board's UDP client against another board's
 * UDP server, no PC in the data path (board to board). Both boards run the
 * pattern's firmware; the board under test sends (udp_tx) to its peer's
 * address, the peer's server lines are the headline, the sender's beside. */
static const char sender_script[] =
    "print udp> \n"
    "on join lab secret -> I (812) wifi: connected\\r\\ngot ip: 127.0.0.2" PR "\n"
    "on udp_client -c 127.0.0.3 -p 5001 -t 2 -b -> I (950) udp_test: sending to 127.0.0.3\\r\\n"
    "        Interval Bandwidth\\r\\n"
    "000 - 001           7.00 MB             56.00 Mbps\\r\\n"
    "001 - 002           7.00 MB             56.00 Mbps\\r\\n"
    "[UDP UP LINK TEST]\\r\\n"
    "Start:950ms, End:2950ms, Elapsed time:2s\\r\\n"
    "Upload bytes:14.00 MB, Rate:56.00 Mbps" PR "\n"
    "on udp_client -> E (950) udp_test: wrong peer" PR "\n"
    "on -> udp> \n";

static void write_script(const char *dir, const char *name, const char *text, char *url, size_t cap)
{
    char path[160];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    snprintf(url, cap, "fake://%s", path);
}

static void test_run_pattern_board_to_board(void **state)
{
    (void)state;
    eb_profiles profiles;
    eb_error err = {0};
    const char *dirs[] = {SOURCE_DIR "/profiles"};
    assert_int_equal(eb_profiles_load(&profiles, dirs, 1, &err), 0);
    eb_pattern p;
    if (eb_pattern_load_file(&p, FIXTURES_DIR "/patterns/udp-console.yaml", &err))
        fail_msg("%s", err.msg);
    char dir[] = "/tmp/eb-runpair-XXXXXX";
    assert_non_null(mkdtemp(dir));
    eb_run_board b = {.name = "a", .chip = "esp32", .pc_ip = "127.0.0.1", .iperf_port = 5001};
    write_script(dir, "a.script", sender_script, b.port, sizeof b.port);
    /* the receiver: the single-board script with the peer's own address */
    char recv_script[sizeof script + 8];
    snprintf(recv_script, sizeof recv_script, "%s", script);
    char *ip = strstr(recv_script, "127.0.0.2");
    assert_non_null(ip);
    ip[8] = '3';
    snprintf(b.peer.name, sizeof b.peer.name, "b");
    snprintf(b.peer.chip, sizeof b.peer.chip, "esp32c3");
    write_script(dir, "b.script", recv_script, b.peer.port, sizeof b.peer.port);
    eb_run_opts o = {.profiles = &profiles, .boards = &b, .n_boards = 1, .tiers = {"iperf"}, .n_tiers = 1,
                     .duration_s = 2, .interval_s = 1, .warmup_s = 0, .repeat = 1, .retries = 0,
                     .ssid = "lab", .password = "secret", .out_dir = dir,
                     .iperf_version = "iperf version 2.1.9 (test)"};
    o.tests = 1u << EB_TEST_UDP_TX;
    assert_int_equal(eb_run_apply_pattern(&o, &p, &err), 0);
    eb_run_summary sum;
    if (eb_run(&o, &sum, &err))
        fail_msg("run: %s", err.msg);
    eb_results res;
    char json[128];
    snprintf(json, sizeof json, "%s/results.json", dir);
    assert_int_equal(eb_results_load(&res, json, &err), 0);
    assert_int_equal(res.n_entries, 1);
    const eb_entry *e = &res.entries[0];
    assert_string_equal(e->status, "ok");
    assert_int_equal(e->test, EB_TEST_UDP_TX);
    assert_int_equal(e->receiver.n, 2); /* the peer's server lines */
    assert_true(eb_ivs_at(&e->receiver, 1).mbps == 55.61);
    assert_int_equal(e->sender.n, 2);   /* the board's client lines */
    assert_true(eb_ivs_at(&e->sender, 0).mbps == 56.0);
    assert_string_equal(eb_entry_prov(e)->peer_board, "b");
    assert_string_equal(eb_entry_prov(e)->peer_chip, "esp32c3");
    assert_string_equal(eb_entry_prov(e)->peer_tier, "iperf");
    assert_string_equal(eb_entry_prov(e)->peer_ip, "127.0.0.3");
    assert_string_equal(eb_entry_prov(e)->peer_dialect, "udp-console");
    assert_true(isnan(e->ref_mbps));
    eb_results_free(&res);
    eb_pattern_free(&p);
    eb_profiles_free(&profiles);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* A pattern without commands, or a test of the other protocol, is refused. */
static void test_apply_pattern_checks(void **state)
{
    (void)state;
    eb_pattern p;
    eb_error err = {0};
    if (eb_pattern_load_file(&p, SOURCE_DIR "/profiles/patterns/udp-example.yaml", &err))
        fail_msg("%s", err.msg);
    eb_run_opts o = {0};
    assert_int_equal(eb_run_apply_pattern(&o, &p, &err), EB_ECONFIG);
    assert_non_null(strstr(err.msg, "udp-example.yaml: the pattern has no commands: block"));
    eb_pattern_free(&p);
    if (eb_pattern_load_file(&p, FIXTURES_DIR "/patterns/udp-console.yaml", &err))
        fail_msg("%s", err.msg);
    o.tests = 1u << EB_TEST_TCP_TX;
    assert_int_equal(eb_run_apply_pattern(&o, &p, &err), EB_ECONFIG);
    assert_non_null(strstr(err.msg, "pattern 'udp-console' measures UDP only; pass --tests udp_tx,udp_rx"));
    o.tests = 0;
    assert_int_equal(eb_run_apply_pattern(&o, &p, &err), 0);
    assert_int_equal(o.tests, 1u << EB_TEST_UDP_TX | 1u << EB_TEST_UDP_RX);
    assert_ptr_equal(o.pattern, &p);
    eb_pattern_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_pattern_udp_rx),
        cmocka_unit_test(test_apply_pattern_checks),
        cmocka_unit_test(test_run_pattern_board_to_board),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
