/* A whole board loop — tier, Wi-Fi, both iperf ends, free memory, figures,
 * latency, the results file — through the fake:// port (a scripted espbench
 * board, port_fake.c) and the fake PC (pc_fake.c) playing golden iperf2 and
 * ping output (tests/fixtures/logs/iperf2, tests/fixtures/transcripts). No
 * process, socket or pty: each scenario takes a fraction of a second.
 * Scenarios: the success path (TCP TX and RX, latency), a reboot in the
 * middle of a test (retried, then measured), reboots that spend the
 * retries (recorded, the next test measured), a receiver that covers part
 * of the test (no figure), a board whose iperf stalls
 * (aborted and recorded as failed, the board goes on), a PC iperf that
 * cannot start, a PC client that never ends, and round trips probed under
 * load beside the idle ones. */
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

#include "run_fixture.h"

#include "espbench/adapters/pc.h"
#include "espbench/adapters/profile_dirs.h"
#include "espbench/adapters/results_file.h"
#include "espbench/formats/profile.h"
#include "espbench/formats/results.h"
#include "espbench/jobs/run.h"

#define P "\\r\\nespbench> "
#define LOGS SOURCE_DIR "/tests/fixtures/logs/iperf2/"

/* The board's side of a 2 s test in 0.5 s intervals (bytes as the PC fixtures'). */
#define IV(a, b, n) "#EB:EV iperf.interval start=" a " end=" b " bytes=" n "\\r\\n"
#define BOARD_INTERVALS IV("0.00", "0.50", "1310780") IV("0.50", "1.00", "1310720") \
    IV("1.00", "1.50", "1179648") IV("1.50", "2.00", "1310720")
#define BOARD_DONE "#EB:EV iperf.summary start=0.00 end=2.00 bytes=5111868\\r\\n#EB:EV iperf.done\\r\\n"
#define SERVER_STARTED "#EB:EV iperf.started role=server proto=tcp\\r\\n#EB:OK role=server proto=tcp port=5001" P
#define CLIENT_STARTED "#EB:EV iperf.started role=client proto=tcp\\r\\n#EB:OK role=client proto=tcp port=5001" P
#define REBOOT "\\r\\nets Jun  8 2016 00:22:57\\r\\nrst:0xc (SW_CPU_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)\\r\\n" \
               "#EB:EV boot chip=esp32" P

/* A healthy espbench board (rules after a scenario's own). */
static const char board_base[] =
    "print espbench> \n"
    "on version -> #EB:OK proto=1 fw=0.1.0 idf=v5.5 chip=esp32 mac=7c:df:a1:00:00:01" P "\n"
    "on tier_set -> #EB:OK" P "\n"
    "on link -> #EB:OK rssi=-40 ch=6 bw=20 ch2=none band=2.4GHz phy=11n ps=none ssid=lab" P "\n"
    "on tier_show -> #EB:OK name=iperf" P "\n"
    "on sta_scan -> #EB:EV wifi.scan ssid=\"lab\" rssi=-40 ch=6\\r\\n#EB:OK count=1" P "\n"
    "on sta_connect -> #EB:EV wifi.connected\\r\\n#EB:EV wifi.got_ip ip=127.0.0.2 mask=255.0.0.0 "
    "gw=127.0.0.1\\r\\n#EB:OK ssid=lab ip=127.0.0.2" P "\n"
    "on iperf -s -> " SERVER_STARTED BOARD_INTERVALS BOARD_DONE "\n"
    "on iperf -c -> " CLIENT_STARTED BOARD_INTERVALS BOARD_DONE "\n"
    "on iperf --abort -> #EB:EV iperf.done\\r\\n#EB:OK" P "\n"
    "on mem -> #EB:OK free_internal=147968 min_internal=143344 largest_internal=66584" P "\n"
    "on -> espbench> \n";

/* A PC whose iperf2 prints the golden logs: the server in CSV (-y C), the
 * client in bits (-f b), as run_test.c starts them. */
static const char pc_base[] =
    "iperf -s -> @" LOGS "tcp_csv.server.log\n"
    "iperf -c -> @" LOGS "tcp_fb.client.log\n"
    "ping -> @" SOURCE_DIR "/tests/fixtures/transcripts/ping-iputils-20221126.txt\n";

static void write_file(const char *path, const char *a, const char *b)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%s%s", a, b);
    fclose(f);
}

typedef struct scenario {
    const char *board, *pc; /* rules before the base's */
    unsigned tests;
    bool latency, under_load;
    double grace_s, duration_s; /* 0 = 2 s, as the golden logs */
    int retries;                /* 0 = 2, -1 = none */
} scenario;

/* Runs tier iperf's tests of sc; the results file is loaded into res. */
static int run_scenario(const scenario *sc, seen *s, eb_results *res, int *spawns, eb_error *err)
{
    snprintf(dir, sizeof dir, "/tmp/eb-runloop-XXXXXX");
    assert_non_null(mkdtemp(dir));
    char board[128], pcs[128];
    snprintf(board, sizeof board, "%s/board.script", dir);
    snprintf(pcs, sizeof pcs, "%s/pc.script", dir);
    write_file(board, sc->board ? sc->board : "", board_base);
    write_file(pcs, sc->pc ? sc->pc : "", pc_base);
    eb_pc *pc = NULL;
    assert_int_equal(eb_pc_fake_load(&pc, pcs, err), 0);
    eb_run_board b = {.name = "dut", .chip = "esp32", .pc_ip = "127.0.0.1", .iperf_port = 5001,
                      .dialect = "espbench"};
    snprintf(b.port, sizeof b.port, "fake://%s", board);
    eb_run_opts o = {.profiles = &profiles, .boards = &b, .n_boards = 1, .tiers = {"iperf"}, .n_tiers = 1,
                     .tests = sc->tests | (sc->latency ? 1u << EB_RUN_LATENCY : 0),
                     .latency_method = "icmp", .latency_count = 3, .latency_interval_s = 0.2,
                     .latency_under_load = sc->under_load,
                     .duration_s = sc->duration_s ? sc->duration_s : 2, .interval_s = 0.5, .warmup_s = 0, .repeat = 1,
                     .retries = sc->retries < 0 ? 0 : sc->retries ? sc->retries : 2, .ssid = "lab",
                     .password = "secret", .out_dir = dir, .pc = pc, .grace_s = sc->grace_s,
                     .progress = on_progress, .user = s};
    eb_run_summary sum;
    int rc = eb_run(&o, &sum, err);
    *spawns = eb_pc_fake_spawns(pc);
    eb_pc_free(pc);
    char json[128];
    snprintf(json, sizeof json, "%s/results.json", dir);
    eb_error lerr = {0};
    assert_int_equal(eb_results_load(res, json, &lerr), 0);
    return rc;
}

static const eb_entry *entry_of(const eb_results *res, int test)
{
    for (int i = 0; i < res->n_entries; i++)
        if (res->entries[i].test == test)
            return &res->entries[i];
    fail_msg("no %s entry", eb_test_name(test));
    return NULL;
}

static void test_success_path_tx_rx_latency(void **state)
{
    (void)state;
    seen s = {0};
    eb_results res;
    eb_error err = {0};
    int spawns = 0;
    scenario sc = {.tests = 1u << EB_TEST_TCP_TX | 1u << EB_TEST_TCP_RX, .latency = true};
    int rc = run_scenario(&sc, &s, &res, &spawns, &err);
    assert_int_equal(rc, 0);
    assert_int_equal(s.done, 2);
    assert_int_equal(s.failed, 0);
    assert_int_equal(s.retries, 0);
    assert_int_equal(s.latency, 1);
    assert_int_equal(spawns, 2); /* one PC iperf per test */
    assert_int_equal(res.n_entries, 2);
    /* TX: the PC server is the receiver — its CSV intervals, 50.33 Mbit/s
     * each (the summary row 0.0-2.0 is not an interval). */
    const eb_entry *tx = entry_of(&res, EB_TEST_TCP_TX);
    assert_string_equal(tx->status, "ok");
    assert_int_equal(tx->receiver.n, 4);
    assert_int_equal(tx->sender.n, 4);
    assert_true(fabs(eb_ivs_at(&tx->receiver, 0).mbps - 50.332608) < 1e-6);
    assert_true(fabs(tx->mean_mbps - (50.332608 + 3 * 50.331648) / 4) < 1e-6);
    /* RX: the board is the receiver — its own intervals (1310780 B in 0.5 s = 20.97 Mbit/s). */
    const eb_entry *rx = entry_of(&res, EB_TEST_TCP_RX);
    assert_string_equal(rx->status, "ok");
    assert_int_equal(rx->receiver.n, 4);
    assert_true(fabs(eb_ivs_at(&rx->receiver, 0).mbps - 1310780 * 8 / 0.5 / 1e6) < 1e-6);
    assert_int_equal(rx->free_heap, 147968);
    assert_int_equal(rx->min_free_heap, 143344);
    assert_int_equal(rx->largest_block, 66584);
    /* Latency by ICMP: the figures of the ping output the fake PC played. */
    assert_int_equal(res.n_lat, 1);
    assert_string_equal(res.lat[0].status, "ok");
    assert_string_equal(res.lat[0].method, "icmp");
    assert_int_equal(res.lat[0].received, 3);
    assert_true(fabs(res.lat[0].avg_ms - 0.044) < 1e-9);
    /* The PC's output is in the test's log, as a real iperf2's. */
    char log[160];
    snprintf(log, sizeof log, "%s/iperf-dut-esp32-iperf-tcp_tx-r0.log", dir);
    assert_int_equal(access(log, R_OK), 0);
    cleanup(&res);
}

static const eb_latency *lat_of(const eb_results *res, const char *under_load)
{
    for (int i = 0; i < res->n_lat; i++)
        if (!strcmp(res->lat[i].under_load, under_load))
            return &res->lat[i];
    fail_msg("no latency set under '%s'", under_load);
    return NULL;
}

/* --latency-under-load: the PC's probes run beside each throughput test and
 * are recorded as a latency set tagged with that test, beside the idle
 * latency test's set. The plan runs the latency test first, so the fake
 * PC's first ping plays the idle output (0.031/0.044/0.052 ms), the next the
 * loaded one (golden ping output with a power-save-like spread:
 * 3.910/37.243/103.000 ms, a lost probe). */
static void test_latency_under_load(void **state)
{
    (void)state;
    seen s = {0};
    eb_results res;
    eb_error err = {0};
    int spawns = 0;
    scenario sc = {.pc = "once ping -> @" SOURCE_DIR "/tests/fixtures/transcripts/ping-iputils-20221126.txt\n"
                         "ping -> @" SOURCE_DIR "/tests/fixtures/transcripts/ping-iputils-loss.txt\n",
                   .tests = 1u << EB_TEST_TCP_TX, .latency = true, .under_load = true};
    int rc = run_scenario(&sc, &s, &res, &spawns, &err);
    assert_int_equal(rc, 0);
    assert_int_equal(s.done, 1);
    assert_int_equal(s.failed, 0);
    assert_int_equal(res.n_entries, 1);
    assert_string_equal(entry_of(&res, EB_TEST_TCP_TX)->status, "ok");
    assert_int_equal(res.n_lat, 2);
    const eb_latency *idle = lat_of(&res, ""), *load = lat_of(&res, "tcp_tx");
    assert_string_equal(idle->status, "ok");
    assert_true(fabs(idle->avg_ms - 0.044) < 1e-9);
    assert_string_equal(load->status, "ok");
    assert_string_equal(load->method, "icmp");
    assert_string_equal(load->tier, "iperf");
    assert_int_equal(load->sent, 4);
    assert_int_equal(load->received, 3);
    assert_true(fabs(load->loss_pct - 25) < 1e-9);
    assert_true(fabs(load->min_ms - 3.910) < 1e-9);
    assert_true(fabs(load->avg_ms - 37.243) < 1e-9);
    assert_true(fabs(load->max_ms - 103.0) < 1e-9);
    /* the loaded set's key and provenance are the throughput entry's */
    assert_string_equal(load->prov.idf_version, eb_entry_prov(entry_of(&res, EB_TEST_TCP_TX))->idf_version);
    assert_string_equal(load->prov.idf_version, "v5.5");
    /* ping's own output is kept in the loaded set's log */
    char log[200];
    snprintf(log, sizeof log, "%s/latency-dut-esp32-iperf-tcp_tx-r0.log", dir);
    assert_int_equal(access(log, R_OK), 0);
    cleanup(&res);
}

static void test_reboot_mid_test_is_retried(void **state)
{
    (void)state;
    seen s = {0};
    eb_results res;
    eb_error err = {0};
    int spawns = 0;
    scenario sc = {.board = "once iperf -s -> " SERVER_STARTED IV("0.00", "0.50", "1310780") REBOOT "\n",
                   .tests = 1u << EB_TEST_TCP_RX};
    int rc = run_scenario(&sc, &s, &res, &spawns, &err);
    assert_int_equal(rc, 0);
    assert_int_equal(s.retries, 1);
    assert_int_equal(s.done, 1);
    assert_int_equal(spawns, 2); /* the PC client again for the retry */
    assert_int_equal(res.n_entries, 1);
    assert_string_equal(res.entries[0].status, "ok");
    assert_int_equal(res.entries[0].receiver.n, 4);
    cleanup(&res);
}

static void test_reboots_spend_the_retries(void **state)
{
    (void)state;
    seen s = {0};
    eb_results res;
    eb_error err = {0};
    int spawns = 0;
    /* Every tcp_tx attempt reboots the board: one retry, then the test is
     * recorded as failed and tcp_rx is still measured. */
    scenario sc = {.board = "on iperf -c -> " CLIENT_STARTED IV("0.00", "0.50", "1310780") REBOOT "\n",
                   .tests = 1u << EB_TEST_TCP_TX | 1u << EB_TEST_TCP_RX, .retries = 1};
    int rc = run_scenario(&sc, &s, &res, &spawns, &err);
    assert_int_equal(rc, EB_EIO);
    assert_non_null(strstr(err.msg, "1 of 2 tests failed (see the error column of "));
    assert_int_equal(s.retries, 1);
    assert_int_equal(s.failed, 1);
    assert_int_equal(s.done, 1);
    assert_string_equal(s.last_error, "dut: the board rebooted during tcp_tx (rst:0xc (SW_CPU_RESET))");
    const eb_entry *tx = entry_of(&res, EB_TEST_TCP_TX);
    assert_string_equal(tx->status, "failed");
    assert_true(isnan(tx->mean_mbps));
    assert_string_equal(entry_of(&res, EB_TEST_TCP_RX)->status, "ok");
    /* The reboot is in the board's console log. */
    char log[160], cmd[256];
    snprintf(log, sizeof log, "%s/console-dut-esp32.log", dir);
    snprintf(cmd, sizeof cmd, "grep -q '^rst:0xc (SW_CPU_RESET)' %s", log);
    assert_int_equal(system(cmd), 0);
    cleanup(&res);
}

static void test_partial_receiver_gives_no_figure(void **state)
{
    (void)state;
    seen s = {0};
    eb_results res;
    eb_error err = {0};
    int spawns = 0;
    /* The board's server ends after 1 s of a 2 s test (a dropped link). */
    scenario sc = {.board = "on iperf -s -> " SERVER_STARTED IV("0.00", "0.50", "1310780") IV("0.50", "1.00", "1310720")
                            BOARD_DONE "\n",
                   .tests = 1u << EB_TEST_TCP_RX, .retries = 1};
    int rc = run_scenario(&sc, &s, &res, &spawns, &err);
    assert_int_equal(rc, EB_EIO);
    assert_int_equal(s.retries, 1);
    assert_string_equal(s.last_error, "dut: the receiver reported only 1.0 s of the 2 s of tcp_rx");
    assert_string_equal(res.entries[0].status, "failed");
    assert_true(isnan(res.entries[0].mean_mbps));
    cleanup(&res);
}

static void test_stalled_board_is_aborted_and_recorded(void **state)
{
    (void)state;
    seen s = {0};
    eb_results res;
    eb_error err = {0};
    int spawns = 0;
    /* The board's client sends one interval and then nothing: every attempt
     * stalls (a short test and allowance keep the waits short). */
    scenario sc = {.board = "on iperf -c -> " CLIENT_STARTED IV("0.00", "0.50", "1310780") "\n",
                   .tests = 1u << EB_TEST_TCP_TX | 1u << EB_TEST_TCP_RX, .grace_s = 0.1, .duration_s = 0.5,
                   .retries = 1};
    int rc = run_scenario(&sc, &s, &res, &spawns, &err);
    assert_int_equal(rc, EB_EIO);
    assert_non_null(strstr(err.msg, "1 of 2 tests failed"));
    assert_int_equal(s.retries, 1);
    assert_int_equal(s.failed, 1);
    assert_int_equal(s.done, 1); /* the board went on with tcp_rx */
    assert_non_null(strstr(s.last_error, "dut: the board's iperf was still running 0.1 s after the end of tcp_tx "
                                         "(stalled?); aborted it"));
    assert_string_equal(entry_of(&res, EB_TEST_TCP_TX)->status, "failed");
    assert_string_equal(entry_of(&res, EB_TEST_TCP_RX)->status, "ok");
    cleanup(&res);
}

/* The board's iperf stalls and `iperf --abort` does not end it (no
 * iperf.done: espressif/iperf-cmd's iperf_force_stop waits for an instance
 * blocked in the network): the point fails with that line, the board is
 * reset through EN (RTS) and the next test runs. */
static void test_iperf_that_does_not_stop_resets_the_board(void **state)
{
    (void)state;
    seen s = {0};
    eb_results res;
    eb_error err = {0};
    int spawns = 0;
    scenario sc = {.board = "lines\n"
                            "on iperf -c -> " CLIENT_STARTED IV("0.00", "0.50", "1310780") "\n"
                            "on iperf --abort -> #EB:OK" P "\n"
                            "on <en> -> " REBOOT "\n",
                   .tests = 1u << EB_TEST_TCP_TX | 1u << EB_TEST_TCP_RX, .grace_s = 0.1, .duration_s = 0.5,
                   .retries = -1};
    int rc = run_scenario(&sc, &s, &res, &spawns, &err);
    assert_int_equal(rc, EB_EIO);
    assert_int_equal(s.retries, 0);
    assert_int_equal(s.failed, 1);
    assert_int_equal(s.done, 1); /* tcp_rx ran on the reset board */
    assert_string_equal(s.last_error, "dut: the board's iperf did not stop after iperf --abort (no iperf.done within "
                                      "5.1 s; it answers BUSY until a reset): the board was reset (EN pulsed through "
                                      "RTS) for the next test");
    assert_string_equal(entry_of(&res, EB_TEST_TCP_TX)->status, "failed");
    assert_string_equal(entry_of(&res, EB_TEST_TCP_RX)->status, "ok");
    cleanup(&res);
}

/* The same on a port with no modem lines: nothing here can reset the
 * board, so it ends with what to do; a BUSY at the next start says the same. */
static void test_iperf_still_busy_on_a_board_that_cannot_be_reset(void **state)
{
    (void)state;
    seen s = {0};
    eb_results res;
    eb_error err = {0};
    int spawns = 0;
    scenario sc = {.board = "on iperf -c -> #EB:ERR code=BUSY msg=\"iperf is already running\"" P "\n",
                   .tests = 1u << EB_TEST_TCP_TX | 1u << EB_TEST_TCP_RX, .retries = -1};
    int rc = run_scenario(&sc, &s, &res, &spawns, &err);
    assert_int_equal(rc, EB_EIO);
    assert_int_equal(s.failed, 1);
    assert_int_equal(s.done, 0);
    assert_int_equal(res.n_entries, 1); /* the board ended: tcp_rx did not run */
    const char *e = eb_entry_error(entry_of(&res, EB_TEST_TCP_TX));
    const char *want = "dut: the board's iperf was still running from before (it answered BUSY to a new iperf): reset "
                       "the board (EN or power) and rerun with --resume; espbench could not: fake://";
    assert_memory_equal(e, want, strlen(want));
    assert_non_null(strstr(e, "/board.script: the port has no modem lines to reset the board"));
    cleanup(&res);
}

static void test_pc_iperf_that_cannot_start(void **state)
{
    (void)state;
    seen s = {0};
    eb_results res;
    eb_error err = {0};
    int spawns = 0;
    scenario sc = {.pc = "iperf -c -> <fail>\n", .tests = 1u << EB_TEST_TCP_RX};
    int rc = run_scenario(&sc, &s, &res, &spawns, &err);
    assert_int_equal(rc, EB_EIO);
    assert_int_equal(s.retries, 2);
    assert_int_equal(s.failed, 1);
    assert_string_equal(s.last_error, "cannot start PC iperf 'iperf': No such file or directory");
    cleanup(&res);
}

static void test_pc_client_that_never_ends(void **state)
{
    (void)state;
    seen s = {0};
    eb_results res;
    eb_error err = {0};
    int spawns = 0;
    /* The board finishes; the PC client keeps running: it is stopped after
     * the grace and the board's figures stand. */
    scenario sc = {.pc = "iperf -c -> @" LOGS "tcp_fb.client.log<running>\n", .tests = 1u << EB_TEST_TCP_RX,
                   .grace_s = 0.1, .duration_s = 0.5};
    int rc = run_scenario(&sc, &s, &res, &spawns, &err);
    assert_int_equal(rc, 0);
    assert_int_equal(s.done, 1);
    assert_string_equal(res.entries[0].status, "ok");
    assert_int_equal(res.entries[0].sender.n, 4);
    cleanup(&res);
}

static void test_bad_pc_script_says_where(void **state)
{
    (void)state;
    char path[] = "/tmp/eb-fakepc-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "version iperf version 2.1.9\niperf -s\n", 37), 37);
    close(fd);
    eb_pc *pc = NULL;
    eb_error err = {0};
    assert_int_equal(eb_pc_fake_load(&pc, path, &err), EB_ECONFIG);
    char want[200];
    snprintf(want, sizeof want, "%s:2: expected 'iperf ARGS -> OUTPUT', 'ping -> OUTPUT' or 'echo -> OUTPUT'", path);
    assert_string_equal(err.msg, want);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_success_path_tx_rx_latency),
        cmocka_unit_test(test_latency_under_load),
        cmocka_unit_test(test_reboot_mid_test_is_retried),
        cmocka_unit_test(test_reboots_spend_the_retries),
        cmocka_unit_test(test_partial_receiver_gives_no_figure),
        cmocka_unit_test(test_stalled_board_is_aborted_and_recorded),
        cmocka_unit_test(test_iperf_that_does_not_stop_resets_the_board),
        cmocka_unit_test(test_iperf_still_busy_on_a_board_that_cannot_be_reset),
        cmocka_unit_test(test_pc_iperf_that_cannot_start),
        cmocka_unit_test(test_pc_client_that_never_ends),
        cmocka_unit_test(test_bad_pc_script_says_where),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
