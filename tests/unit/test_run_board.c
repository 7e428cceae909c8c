/* run_board's retry and failure paths, driven through the fake:// port (a
 * scripted espbench board, port_fake.c): a failed test is retried and then
 * recorded; a reboot during a board-level step is retried; an AP that is not
 * found ends the board without retries; a lost port ends the board at once.
 * No traffic flows: every scenario fails before the PC's iperf2 starts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "run_fixture.h"

#include "espbench/adapters/port.h"
#include "espbench/formats/profile.h"
#include "espbench/formats/results.h"
#include "espbench/jobs/run.h"
#include "espbench/adapters/profile_dirs.h"
#include "espbench/adapters/results_file.h"

#define P "\\r\\nespbench> "
/* A healthy espbench board up to the iperf command (rules after a scenario's). */
static const char base_script[] =
    "print espbench> \n"
    "on version -> #EB:OK proto=1 fw=0.1.0 idf=v5.5 chip=esp32 mac=7c:df:a1:00:00:01" P "\n"
    "on tier_set -> #EB:OK" P "\n"
    "on link -> #EB:OK rssi=-40 ch=6 bw=20 ch2=none band=2.4GHz phy=11n ps=none ssid=lab" P "\n"
    "on tier_show -> #EB:OK name=iperf" P "\n"
    "on sta_scan -> #EB:EV wifi.scan ssid=\"lab\" rssi=-40 ch=6\\r\\n#EB:OK count=1" P "\n"
    "on sta_connect -> #EB:EV wifi.connected\\r\\n#EB:EV wifi.got_ip ip=127.0.0.2 mask=255.0.0.0 "
    "gw=127.0.0.1\\r\\n#EB:OK ssid=lab ip=127.0.0.2" P "\n"
    "on iperf --abort -> #EB:OK" P "\n"
    "on -> espbench> \n";

#define REBOOT "\\r\\nets Jun  8 2016 00:22:57\\r\\nrst:0x1 (POWERON_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)\\r\\n" \
               "#EB:EV boot chip=esp32" P

/* Runs tcp_rx (repeat times) on tier iperf against scenario + base. */
static int run_script(const char *scenario, int repeat, seen *s, eb_results *res, eb_error *err)
{
    snprintf(dir, sizeof dir, "/tmp/eb-runboard-XXXXXX");
    assert_non_null(mkdtemp(dir));
    char script[128];
    snprintf(script, sizeof script, "%s/board.script", dir);
    FILE *f = fopen(script, "w");
    assert_non_null(f);
    fprintf(f, "%s%s", scenario, base_script);
    fclose(f);
    eb_run_board b = {.chip = "esp32", .pc_ip = "127.0.0.1", .iperf_port = 5001, .dialect = "espbench"};
    snprintf(b.port, sizeof b.port, "fake://%s", script);
    eb_run_opts o = {.profiles = &profiles, .boards = &b, .n_boards = 1, .tiers = {"iperf"}, .n_tiers = 1,
                     .tests = 1u << EB_TEST_TCP_RX, .duration_s = 2, .interval_s = 1, .warmup_s = -1,
                     .repeat = repeat, .retries = 2, .ssid = "lab", .password = "secret", .out_dir = dir,
                     .iperf_version = "iperf version 2.1.9 (test)", .progress = on_progress, .user = s};
    eb_run_summary sum;
    int rc = eb_run(&o, &sum, err);
    char json[128];
    snprintf(json, sizeof json, "%s/results.json", dir);
    eb_error lerr = {0};
    assert_int_equal(eb_results_load(res, json, &lerr), 0);
    return rc;
}

static void test_failed_test_is_retried_then_recorded(void **state)
{
    (void)state;
    seen s = {0};
    eb_results res;
    eb_error err = {0};
    int rc = run_script("on iperf -s -> #EB:ERR code=IPERF msg=\"engine did not start\"" P "\n", 2, &s, &res, &err);
    assert_int_equal(rc, EB_EIO);
    assert_non_null(strstr(err.msg, "2 of 2 tests failed (see the error column of "));
    /* Each test: two retries, then recorded as failed; the board goes on. */
    assert_int_equal(s.retries, 4);
    assert_int_equal(s.failed, 2);
    assert_int_equal(res.n_entries, 2);
    assert_string_equal(res.entries[1].status, "failed");
    assert_non_null(strstr(eb_entry_error(&res.entries[1]), "'iperf' failed: IPERF: engine did not start"));
    cleanup(&res);
}

static void test_reboot_in_board_step_is_retried(void **state)
{
    (void)state;
    seen s = {0};
    eb_results res;
    eb_error err = {0};
    int rc = run_script("once sta_scan -> " REBOOT "\n"
                        "on iperf -s -> #EB:ERR code=IPERF msg=\"engine did not start\"" P "\n",
                        1, &s, &res, &err);
    assert_int_equal(rc, EB_EIO);
    /* The reboot (a board-level step) is retried like a failed test: two
     * retries, and the test fails for its own reason. */
    assert_int_equal(s.retries, 2);
    assert_int_equal(s.failed, 1);
    assert_non_null(strstr(s.last_error, "engine did not start"));
    assert_int_equal(res.n_entries, 1);
    cleanup(&res);
}

static void test_ap_not_found_ends_the_board(void **state)
{
    (void)state;
    seen s = {0};
    eb_results res;
    eb_error err = {0};
    int rc = run_script("on sta_scan -> #EB:OK count=0" P "\n", 2, &s, &res, &err);
    assert_int_equal(rc, EB_EIO);
    assert_int_equal(s.retries, 0);
    assert_int_equal(s.failed, 1);
    assert_non_null(strstr(err.msg, "AP 'lab' not found in the scan"));
    assert_int_equal(res.n_entries, 1); /* the second repeat never ran */
    cleanup(&res);
}

static void test_lost_port_ends_the_board(void **state)
{
    (void)state;
    seen s = {0};
    eb_results res;
    eb_error err = {0};
    int rc = run_script("on iperf -s -> <gone>\n", 2, &s, &res, &err);
    assert_int_equal(rc, EB_EIO);
    assert_int_equal(s.retries, 0);
    assert_int_equal(s.failed, 1);
    assert_non_null(strstr(err.msg, "port gone (device removed)"));
    assert_int_equal(res.n_entries, 1);
    cleanup(&res);
}

static void test_bad_script_says_where(void **state)
{
    (void)state;
    char path[] = "/tmp/eb-fake-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "print hi\nsay hello\n", 19), 19);
    close(fd);
    char url[64];
    snprintf(url, sizeof url, "fake://%s", path);
    eb_port *p = NULL;
    eb_error err = {0};
    assert_int_equal(eb_port_open(&p, url, 115200, &err), EB_ECONFIG);
    char want[128];
    snprintf(want, sizeof want, "%s:2: unknown directive (print, on, once, lines)", path);
    assert_string_equal(err.msg, want);
    unlink(path);
}

/* A test its ends cannot run is refused before anything starts: latency
 * is measured from the PC, so a board with a peer cannot run it. */
static void test_latency_with_a_peer_is_refused(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/eb-runboard-XXXXXX");
    assert_non_null(mkdtemp(dir));
    eb_run_board b = {.name = "dut", .chip = "esp32", .port = "fake:///nonexistent", .pc_ip = "127.0.0.1",
                      .iperf_port = 5001, .dialect = "espbench"};
    snprintf(b.peer.chip, sizeof b.peer.chip, "esp32");
    snprintf(b.peer.name, sizeof b.peer.name, "dut-peer");
    eb_run_opts o = {.profiles = &profiles, .boards = &b, .n_boards = 1, .tiers = {"iperf"}, .n_tiers = 1,
                     .tests = 1u << EB_RUN_LATENCY | 1u << EB_TEST_TCP_TX, .warmup_s = -1, .retries = 2,
                     .ssid = "lab", .password = "secret", .out_dir = dir, .iperf_version = "iperf version 2.1.9"};
    eb_run_summary sum;
    eb_error err = {0};
    assert_int_equal(eb_run(&o, &sum, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "the latency test measures round trips from the PC, not between two boards: drop "
                                 "latency from --tests or the peer (--peer-*, a lab board's peer:)");
    assert_int_equal(sum.planned, 0); /* nothing started */
    eb_results res;
    eb_results_init(&res);
    cleanup(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_failed_test_is_retried_then_recorded),
        cmocka_unit_test(test_reboot_in_board_step_is_retried),
        cmocka_unit_test(test_ap_not_found_ends_the_board),
        cmocka_unit_test(test_lost_port_ends_the_board),
        cmocka_unit_test(test_bad_script_says_where),
        cmocka_unit_test(test_latency_with_a_peer_is_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
