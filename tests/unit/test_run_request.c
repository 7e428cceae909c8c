/* Results a lab can trust when folders, logs and options are reused: the
 * request recorded in a run folder and a resume's compared with it, the
 * folder's lock (a second process, SIGKILL), the folder's write check,
 * names as people type them, the firmware's iperf limits per dialect and
 * the errors a retry cannot mend. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "espbench/formats/lab.h"
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <cmocka.h>

#include "run_fixture.h"

#include "espbench/adapters/dir_lock.h"
#include "espbench/adapters/net_port.h"
#include "espbench/adapters/pc.h"
#include "espbench/base/names.h"
#include "espbench/formats/dialect.h"
#include "jobs/run_request.h"

/* ------------------------------------------------------------ names */

static void test_edit_distance(void **state)
{
    (void)state;
    assert_int_equal(eb_edit_distance("esp32c3", "esp32c3"), 0);
    assert_int_equal(eb_edit_distance("esp32c33", "esp32c3"), 1);
    assert_int_equal(eb_edit_distance("rnu", "run"), 1); /* a swap is one edit */
    assert_int_equal(eb_edit_distance("kitten", "sitting"), 3);
    assert_int_equal(eb_edit_distance("", "abc"), 3);
}

static void test_name_fold_and_nearest(void **state)
{
    (void)state;
    char f[32];
    eb_name_fold("ESP32-C3", f, sizeof f);
    assert_string_equal(f, "esp32c3");
    eb_name_fold("TCP TX", f, sizeof f);
    assert_string_equal(f, "tcptx");
    assert_true(eb_name_same("Iperf", "iperf"));
    assert_false(eb_name_same("iperf", "iperf2"));
    static const char *const chips[] = {"esp32", "esp32c3", "esp32c6", "esp32s3"};
    assert_string_equal(eb_name_nearest("esp32c33", chips, 4), "esp32c3");
    assert_string_equal(eb_name_nearest("ESP32-S4", chips, 4), "esp32s3");
    assert_null(eb_name_nearest("esp32c3", chips, 4));  /* the name itself */
    assert_null(eb_name_nearest("esp32c4", chips, 4));  /* c3 and c6: a tie, no guess */
    assert_null(eb_name_nearest("stm32", chips, 4));    /* too far */
}

static void test_profiles_take_printed_spellings(void **state)
{
    (void)state;
    const eb_chip *c = eb_profiles_chip(&profiles, "ESP32-C3");
    assert_non_null(c);
    assert_string_equal(c->name, "esp32c3");
    assert_string_equal(eb_chip_tier(c, "Iperf")->name, "iperf");
    assert_string_equal(eb_profiles_chip_nearest(&profiles, "esp32c33"), "esp32c3");
    assert_string_equal(eb_chip_tier_nearest(c, "iperff"), "iperf");
    assert_int_equal(eb_run_test_from_name("TCP TX"), EB_TEST_TCP_TX);
    assert_int_equal(eb_run_test_from_name("udp-rx"), EB_TEST_UDP_RX);
    assert_int_equal(eb_run_test_from_name("Latency"), EB_RUN_LATENCY);
    assert_int_equal(eb_run_test_from_name("tcp_rz"), -1);
}

/* ------------------------------------------------------------ the request */

static eb_run_board board_c3 = {.name = "sim", .chip = "esp32c3", .fw_sha256 = "aa11"};
static eb_run_board board_s3 = {.name = "sim", .chip = "esp32s3", .fw_sha256 = ""};

static eb_run_opts opts_of(eb_run_board *b, double duration, double rate)
{
    eb_run_opts o = {.boards = b, .n_boards = 1, .tiers = {"iperf"}, .n_tiers = 1,
                     .tests = 1u << EB_TEST_TCP_TX | 1u << EB_TEST_UDP_TX, .duration_s = duration,
                     .udp_rate_mbps = rate, .warmup_s = -1};
    return o;
}

static void test_request_same_and_different(void **state)
{
    (void)state;
    eb_run_opts was = opts_of(&board_c3, 10, 0);
    char *text = run_request_json(&was);
    assert_non_null(text);
    char diff[EB_ERROR_MSG_MAX];
    assert_int_equal(run_request_diff(text, strlen(text), &was, diff, sizeof diff), 0);
    assert_string_equal(diff, "");
    /* Another chip (its firmware unknown yet: not compared), duration and rate. */
    eb_run_opts now = opts_of(&board_s3, 20, 30);
    assert_int_equal(run_request_diff(text, strlen(text), &now, diff, sizeof diff), 3);
    assert_string_equal(diff, "boards (--chip, --lab, --sim, --port, --dialect, --peer-*, --coprocessor): "
                              "sim:esp32c3 then, sim:esp32s3 now; --duration: 10 then, 20 now; "
                              "--udp-rate: per chip then, 30 now");
    /* The same chip with another firmware image. */
    eb_run_board other = board_c3;
    snprintf(other.fw_sha256, sizeof other.fw_sha256, "bb22");
    now = opts_of(&other, 10, 0);
    now.tiers[0] = "Iperf-typo";
    assert_int_equal(run_request_diff(text, strlen(text), &now, diff, sizeof diff), 2);
    assert_string_equal(diff, "firmware image (SHA-256): aa11 then, bb22 now; --tier: iperf then, Iperf-typo now");
    assert_int_equal(run_request_diff("not json", 8, &now, diff, sizeof diff), -1);
    free(text);
}

/* An emulated board's request: the emulator and each tier's image, so a
 * --resume with another image for a tier is refused naming it. */
static void test_request_emulated_images(void **state)
{
    (void)state;
    eb_run_board q = board_c3;
    snprintf(q.emulator, sizeof q.emulator, "QEMU emulator version 8.1.3, qemu-system-riscv32 -M esp32c3");
    snprintf(q.tier_images, sizeof q.tier_images, "*=aa11,minimum=cc33");
    eb_run_opts was = opts_of(&q, 10, 0);
    char *text = run_request_json(&was);
    assert_non_null(strstr(text, "\"tier_images\":\t\"*=aa11,minimum=cc33\""));
    char diff[EB_ERROR_MSG_MAX];
    assert_int_equal(run_request_diff(text, strlen(text), &was, diff, sizeof diff), 0);
    snprintf(q.tier_images, sizeof q.tier_images, "*=aa11,minimum=dd44");
    eb_run_opts now = opts_of(&q, 10, 0);
    assert_int_equal(run_request_diff(text, strlen(text), &now, diff, sizeof diff), 1);
    assert_string_equal(diff, "--qemu-image (each tier's app SHA-256): *=aa11,minimum=cc33 then, *=aa11,minimum=dd44 now");
    free(text);
}

/* Every dimension of the request: the radio's and the iperf options'
 * lists, the listen interval, the instruments, --ap / --ap-set; a folder
 * from before they were recorded compares what it has. */
static void test_request_dimensions(void **state)
{
    (void)state;
    eb_run_opts was = opts_of(&board_c3, 10, 0);
    char *text = run_request_json(&was);
    char diff[EB_ERROR_MSG_MAX];
    eb_run_opts now = was;
    eb_error e;
    assert_int_equal(eb_radio_parse(&now.radio, EB_DIM_POWER_SAVE, "min-modem", &e), 0);
    assert_int_equal(eb_radio_parse(&now.radio, EB_DIM_BAND, "2.4,5", &e), 0);
    assert_int_equal(eb_radio_parse(&now.radio, eb_dim_from_name("len"), "512", &e), 0);
    now.radio.extra[EB_DIM_POWER_SAVE] = 10;
    eb_lab lab = {.n_instruments = 1};
    lab.instruments[0] = (eb_instr_spec){.name = "att1", .kind = EB_INSTR_ATTENUATOR, .driver = "idf-serial",
                                         .address = "/dev/ttyACM0", .channel = 2};
    now.lab = &lab;
    now.ap_name = "ap1";
    assert_int_equal(run_request_diff(text, strlen(text), &now, diff, sizeof diff), 6);
    assert_string_equal(diff, "the lab file's instruments: (none) then, "
                              "att1=attenuator/idf-serial@/dev/ttyACM0 channel 2 now; --ap: (none) then, ap1 now; "
                              "--band: (none) then, 2.4,5 now; --power-save: (none) then, min_modem now; "
                              "--listen-interval: 0 then, 10 now; --len: (none) then, 512 now");
    free(text);
    /* a folder from before: no radio, instrument or iperf fields to compare */
    const char *old = "{\"boards\": [\"sim:esp32c3\"], \"tiers\": [\"iperf\"], \"tests\": [\"tcp_tx\", \"udp_tx\"], "
                      "\"duration_s\": 10, \"interval_s\": 1, \"warmup_s\": 1, \"repeat\": 1}";
    eb_run_opts_defaults(&now);
    int n = run_request_diff(old, strlen(old), &now, diff, sizeof diff);
    assert_true(n >= 0);
    assert_null(strstr(diff, "--band"));
    assert_null(strstr(diff, "instruments"));
}

static void test_request_against_old_results(void **state)
{
    (void)state;
    eb_results r;
    eb_results_init(&r);
    eb_board_meta *m = eb_results_board(&r, "sim", true);
    snprintf(m->chip, sizeof m->chip, "esp32c3");
    eb_entry e = {0};
    snprintf(e.board, sizeof e.board, "sim");
    snprintf(e.chip, sizeof e.chip, "esp32c3");
    e.test = EB_TEST_UDP_TX;
    e.duration_s = 10;
    e.interval_s = 1;
    e.udp_rate_mbps = 50;
    eb_results_add(&r, &e);
    char diff[EB_ERROR_MSG_MAX];
    eb_run_opts same = opts_of(&board_c3, 10, 0);
    assert_int_equal(run_request_diff_results(&r, &same, diff, sizeof diff), 0);
    eb_run_opts now = opts_of(&board_s3, 30, 40);
    assert_int_equal(run_request_diff_results(&r, &now, diff, sizeof diff), 3);
    assert_string_equal(diff, "boards (--chip, --lab, --sim, --port, --dialect, --peer-*, --coprocessor): "
                              "sim:esp32c3 then, sim:esp32s3 now; --duration: 10 then, 30 now; "
                              "--udp-rate: 50 then, 40 now");
    eb_results_free(&r);
}

/* ------------------------------------------------------------ the folder */

static void make_dir(char *out, size_t cap)
{
    snprintf(out, cap, "/tmp/eb-request-XXXXXX");
    assert_non_null(mkdtemp(out));
}

static void remove_dir(const char *d)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", d);
    assert_int_equal(system(cmd), 0);
}

/* Another process that tries the lock on each request (forked before this
 * one takes it, so it shares nothing of it): 0 taken (and released again),
 * else the code, its message in msg. */
typedef struct taker {
    pid_t pid;
    int go, result;
} taker;

static taker spawn_taker(const char *d)
{
    int go[2], res[2];
    assert_int_equal(pipe(go), 0);
    assert_int_equal(pipe(res), 0);
    taker t = {.pid = fork()};
    assert_true(t.pid >= 0);
    if (t.pid == 0) {
        close(go[1]);
        close(res[0]);
        char c;
        while (read(go[0], &c, 1) == 1) {
            eb_dir_lock *l;
            eb_error err = {0};
            int rc = eb_dir_lock_take(d, &l, &err);
            eb_dir_lock_release(l);
            char out[EB_ERROR_MSG_MAX + 1];
            out[0] = (char)rc;
            snprintf(out + 1, sizeof out - 1, "%s", rc ? err.msg : "");
            if (write(res[1], out, sizeof out) != (ssize_t)sizeof out)
                _exit(1);
        }
        _exit(0);
    }
    close(go[0]);
    close(res[1]);
    t.go = go[1];
    t.result = res[0];
    return t;
}

static int taker_try(taker *t, char *msg)
{
    char out[EB_ERROR_MSG_MAX + 1];
    assert_int_equal(write(t->go, "g", 1), 1);
    size_t got = 0;
    while (got < sizeof out) {
        ssize_t n = read(t->result, out + got, sizeof out - got);
        assert_true(n > 0);
        got += (size_t)n;
    }
    snprintf(msg, EB_ERROR_MSG_MAX, "%s", out + 1);
    return out[0];
}

static void taker_end(taker *t)
{
    close(t->go);
    close(t->result);
    int st;
    assert_int_equal(waitpid(t->pid, &st, 0), t->pid);
}

static void test_lock_one_writer(void **state)
{
    (void)state;
    char d[64], msg[EB_ERROR_MSG_MAX];
    make_dir(d, sizeof d);
    taker other = spawn_taker(d);
    eb_dir_lock *a, *b;
    eb_error err = {0};
    assert_int_equal(eb_dir_lock_take(d, &a, &err), 0);
    assert_int_equal(eb_dir_lock_take(d, &b, &err), 0); /* nested in one process */
    assert_ptr_equal(a, b);
    assert_int_equal(taker_try(&other, msg), EB_ECONFIG);
    char want[256];
    snprintf(want, sizeof want, "%s is in use by another espbench (pid %ld: ", d, (long)getpid());
    assert_memory_equal(msg, want, strlen(want));
    assert_non_null(strstr(msg, "); one run writes into a folder at a time: wait for it to end or choose another "
                                "--out"));
    eb_dir_lock_release(b);
    assert_int_equal(taker_try(&other, msg), EB_ECONFIG); /* still held: one taker left */
    eb_dir_lock_release(a);
    assert_int_equal(taker_try(&other, msg), 0);
    taker_end(&other);
    remove_dir(d);
}

static void test_lock_gone_with_a_killed_holder(void **state)
{
    (void)state;
    char d[64];
    make_dir(d, sizeof d);
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t holder = fork();
    assert_true(holder >= 0);
    if (holder == 0) {
        eb_dir_lock *l;
        eb_error err = {0};
        if (eb_dir_lock_take(d, &l, &err))
            _exit(1);
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    eb_dir_lock *l;
    eb_error err = {0};
    assert_int_equal(eb_dir_lock_take(d, &l, &err), EB_ECONFIG);
    char want[64];
    snprintf(want, sizeof want, "(pid %ld: ", (long)holder);
    assert_non_null(strstr(err.msg, want));
    kill(holder, SIGKILL);
    int st;
    assert_int_equal(waitpid(holder, &st, 0), holder);
    assert_int_equal(eb_dir_lock_take(d, &l, &err), 0); /* the kernel dropped it */
    eb_dir_lock_release(l);
    close(ready[0]);
    close(ready[1]);
    remove_dir(d);
}

static void test_folder_write_check(void **state)
{
    (void)state;
    char d[64], file[96], want[256];
    make_dir(d, sizeof d);
    snprintf(file, sizeof file, "%s/results", d);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    eb_error err = {0};
    assert_int_equal(eb_dir_check_writable(file, &err), EB_EIO);
    snprintf(want, sizeof want, "--out %s: Not a directory", file);
    assert_string_equal(err.msg, want);
    char sub[128];
    snprintf(sub, sizeof sub, "%s/x", file);
    assert_int_equal(eb_dir_check_writable(sub, &err), EB_EIO);
    snprintf(want, sizeof want, "--out %s: cannot create the folder: Not a directory", sub);
    assert_string_equal(err.msg, want);
    snprintf(sub, sizeof sub, "%s/new/run", d);
    assert_int_equal(eb_dir_check_writable(sub, &err), 0);
    assert_int_equal(access(sub, F_OK), 0);
    remove_dir(d);
}

/* ------------------------------------------------------------ limits and retries */

static void test_dialect_limits(void **state)
{
    (void)state;
    eb_error err = {0};
    assert_int_equal(eb_dialect_check_timing(EB_DIALECT_ESPBENCH, 86400, 3600, "sim", &err), 0);
    assert_int_equal(eb_dialect_check_timing(EB_DIALECT_ESPBENCH, 1e9, 1, "sim", &err), EB_ECONFIG);
    assert_string_equal(err.msg, "sim: --duration 1e+09 s is more than the espbench firmware's iperf takes (-t at most "
                                 "86400 s, dialects/espbench.yaml); shorten --duration");
    /* The stock example: argtable3 ints, a uint32_t millisecond wait. */
    assert_int_equal(eb_dialect_check_timing(EB_DIALECT_IDF_V51, 1e9, 1, NULL, &err), 0);
    assert_int_equal(eb_dialect_check_timing(EB_DIALECT_IDF_V51, 1e7, 5e6, NULL, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--interval 5e+06 s is more than the idf-v5.1 firmware's iperf takes (-i at most "
                                 "4294967 s, dialects/idf-v5.1.yaml); shorten --interval");
    const char bad[] = "dialect:\n  name: x\n  base: espbench\n  time_max: -5\n";
    assert_int_equal(eb_dialect_check_buffer(bad, sizeof bad - 1, "x.yaml", &err), EB_ECONFIG);
    assert_string_equal(err.msg, "x.yaml:4:13: expected seconds > 0 for 'time_max' (the largest value the firmware's "
                                 "iperf takes), got '-5'");
}

#define P "\\r\\nespbench> "
static const char board_script[] =
    "print espbench> \n"
    "on version -> #EB:OK proto=1 fw=0.1.0 idf=v5.5 chip=esp32 mac=7c:df:a1:00:00:01" P "\n"
    "on tier_set -> #EB:OK" P "\n"
    "on tier_show -> #EB:OK name=iperf" P "\n"
    "on sta_scan -> #EB:EV wifi.scan ssid=\"lab\" rssi=-40 ch=6\\r\\n#EB:OK count=1" P "\n"
    "on sta_connect -> #EB:EV wifi.connected\\r\\n#EB:EV wifi.got_ip ip=127.0.0.2 mask=255.0.0.0 "
    "gw=127.0.0.1\\r\\n#EB:OK ssid=lab ip=127.0.0.2" P "\n"
    "on iperf -s -> #EB:ERR code=SYNTAX msg=\"bad iperf option -t\"" P "\n"
    "on iperf --abort -> #EB:OK" P "\n"
    "on -> espbench> \n";

static int run_board_script(double duration, seen *s, eb_error *err)
{
    snprintf(dir, sizeof dir, "/tmp/eb-request-XXXXXX");
    assert_non_null(mkdtemp(dir));
    char script[128];
    snprintf(script, sizeof script, "%s/board.script", dir);
    FILE *f = fopen(script, "w");
    assert_non_null(f);
    fputs(board_script, f);
    fclose(f);
    eb_run_board b = {.chip = "esp32", .pc_ip = "127.0.0.1", .iperf_port = 5001, .dialect = "espbench"};
    snprintf(b.port, sizeof b.port, "fake://%s", script);
    eb_run_opts o = {.profiles = &profiles, .boards = &b, .n_boards = 1, .tiers = {"iperf"}, .n_tiers = 1,
                     .tests = 1u << EB_TEST_TCP_RX, .duration_s = duration, .interval_s = 1, .warmup_s = -1,
                     .retries = 2, .ssid = "lab", .password = "secret", .out_dir = dir,
                     .iperf_version = "iperf version 2.1.9 (test)", .progress = on_progress, .user = s};
    eb_run_summary sum;
    return eb_run(&o, &sum, err);
}

static void test_refused_option_is_not_retried(void **state)
{
    (void)state;
    seen s = {0};
    eb_error err = {0};
    eb_results res;
    eb_results_init(&res);
    assert_int_equal(run_board_script(2, &s, &err), EB_EIO);
    assert_int_equal(s.retries, 0); /* two retries allowed, none spent */
    assert_int_equal(s.failed, 1);
    assert_non_null(strstr(s.last_error, "'iperf' failed: SYNTAX: bad iperf option -t"));
    cleanup(&res);
}

static void test_duration_over_the_firmware_limit_ends_at_open(void **state)
{
    (void)state;
    seen s = {0};
    eb_error err = {0};
    eb_results res;
    eb_results_init(&res);
    assert_int_equal(run_board_script(100000, &s, &err), EB_ECONFIG);
    char want[256];
    snprintf(want, sizeof want, "fake://%s/board.script: --duration 100000 s is more than the espbench firmware's "
                                "iperf takes (-t at most 86400 s, dialects/espbench.yaml); shorten --duration", dir);
    assert_string_equal(err.msg, want);
    assert_int_equal(s.retries + s.failed + s.done, 0);
    cleanup(&res);
}

/* The PC's iperf2 cannot bind its port (iperf 2.1.8's own line when another
 * program listens there): the test fails at once, with the hint, no retry. */
static void test_pc_port_taken_is_not_retried(void **state)
{
    (void)state;
    seen s = {0};
    eb_error err = {0};
    eb_results res;
    eb_results_init(&res);
    snprintf(dir, sizeof dir, "/tmp/eb-request-XXXXXX");
    assert_non_null(mkdtemp(dir));
    char script[128], pcs[128];
    snprintf(script, sizeof script, "%s/board.script", dir);
    snprintf(pcs, sizeof pcs, "%s/pc.script", dir);
    FILE *f = fopen(script, "w");
    assert_non_null(f);
    fputs(board_script, f);
    fclose(f);
    f = fopen(pcs, "w");
    assert_non_null(f);
    fputs("bound no\niperf -s -> listener bind failed: Address already in use\n", f);
    fclose(f);
    eb_pc *pc = NULL;
    assert_int_equal(eb_pc_fake_load(&pc, pcs, &err), 0);
    eb_run_board b = {.chip = "esp32", .pc_ip = "127.0.0.1", .iperf_port = 5001, .dialect = "espbench"};
    snprintf(b.port, sizeof b.port, "fake://%s", script);
    eb_run_opts o = {.profiles = &profiles, .boards = &b, .n_boards = 1, .tiers = {"iperf"}, .n_tiers = 1,
                     .tests = 1u << EB_TEST_TCP_TX, .duration_s = 2, .interval_s = 1, .warmup_s = -1, .retries = 2,
                     .ssid = "lab", .password = "secret", .out_dir = dir, .pc = pc,
                     .iperf_version = "iperf version 2.1.9 (test)", .progress = on_progress, .user = &s};
    eb_run_summary sum;
    assert_int_equal(eb_run(&o, &sum, &err), EB_EIO);
    eb_pc_free(pc);
    assert_int_equal(s.retries, 0);
    assert_int_equal(s.failed, 1);
    assert_string_equal(s.last_error, "PC iperf could not listen on 127.0.0.1 port 5001 (PC iperf: iperf output line 1: "
                                      "listener bind failed: Address already in use): another program holds the port; "
                                      "pass --iperf-port N with a free port");
    cleanup(&res);
}

static void test_port_taken(void **state)
{
    (void)state;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001)};
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(fd, 1), 0);
    socklen_t len = sizeof a;
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    uint16_t port = ntohs(a.sin_port);
    eb_error err = {0};
    assert_int_equal(eb_net_port_free("127.0.0.1", port, false, &err), EB_ECONFIG);
    char want[256];
    snprintf(want, sizeof want, "PC port %u on 127.0.0.1 (TCP) is taken by another program (an iperf server left "
                                "running?): pass --iperf-port N with a free port (or iperf_port: in the lab file)",
             port);
    assert_string_equal(err.msg, want);
    close(fd);
    assert_int_equal(eb_net_port_free("127.0.0.1", port, false, &err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edit_distance),
        cmocka_unit_test(test_name_fold_and_nearest),
        cmocka_unit_test(test_profiles_take_printed_spellings),
        cmocka_unit_test(test_request_same_and_different),
        cmocka_unit_test(test_request_dimensions),
        cmocka_unit_test(test_request_emulated_images),
        cmocka_unit_test(test_request_against_old_results),
        cmocka_unit_test(test_lock_one_writer),
        cmocka_unit_test(test_lock_gone_with_a_killed_holder),
        cmocka_unit_test(test_folder_write_check),
        cmocka_unit_test(test_dialect_limits),
        cmocka_unit_test(test_refused_option_is_not_retried),
        cmocka_unit_test(test_duration_over_the_firmware_limit_ends_at_open),
        cmocka_unit_test(test_pc_port_taken_is_not_retried),
        cmocka_unit_test(test_port_taken),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
