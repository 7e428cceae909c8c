/* The board sources' checks (run_sources.c), through eb_run_resolve and
 * eb_run_use_pattern: which sources combine, the options a source claims
 * or refuses, the flags its boards need — each a usage error of one line,
 * decided by the rows' declarations before anything loads or starts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/jobs/run.h"

#define CHOOSE_ONE "choose one of --port, --sim, --lab (--lab may be combined with --sim)"
#define NO_LAB "/nonexistent/espbench-lab.yaml"

/* eb_run_resolve's error for rq: a usage error whose line is want. */
static void refused(eb_run_request rq, const char *want)
{
    eb_run_opts o = {0};
    eb_run_setup st;
    eb_error err = {0};
    rq.profiles_dir = SOURCE_DIR "/profiles";
    int rc = eb_run_resolve(&rq, &o, &st, &err);
    bool usage = st.bad_request;
    eb_run_setup_free(&st);
    assert_int_equal(rc, EB_ECONFIG);
    assert_true(usage);
    assert_string_equal(err.msg, want);
}

static void test_sources_that_do_not_combine(void **state)
{
    (void)state;
    refused((eb_run_request){.chip = "esp32", .port = "/dev/null", .sim = true}, CHOOSE_ONE);
    refused((eb_run_request){.port = "/dev/null", .lab_file = NO_LAB}, CHOOSE_ONE);
    refused((eb_run_request){.port = "/dev/null", .sim = true, .lab_file = NO_LAB, .qemu = true}, CHOOSE_ONE);
    const char *qemu = "--qemu is one emulated board: leave out --port, --sim and --lab";
    refused((eb_run_request){.chip = "esp32c3", .qemu = true, .port = "/dev/null"}, qemu);
    refused((eb_run_request){.chip = "esp32c3", .qemu = true, .sim = true}, qemu);
    refused((eb_run_request){.qemu = true, .sim = true, .lab_file = NO_LAB}, qemu);
}

/* --lab and --sim combine: the lab file's boards, started as virtual boards
 * (here the file is missing: its own error, not a conflict). */
static void test_lab_combines_with_sim(void **state)
{
    (void)state;
    eb_run_request rq = {.sim = true, .lab_file = NO_LAB, .profiles_dir = SOURCE_DIR "/profiles"};
    eb_run_opts o = {0};
    eb_run_setup st;
    eb_error err = {0};
    int rc = eb_run_resolve(&rq, &o, &st, &err);
    eb_run_setup_free(&st);
    assert_int_not_equal(rc, 0);
    assert_non_null(strstr(err.msg, "espbench-lab.yaml"));
    assert_null(strstr(err.msg, "choose one"));
}

static void test_options_a_source_claims_or_refuses(void **state)
{
    (void)state;
    refused((eb_run_request){.chip = "esp32c3", .sim = true, .qemu_bin = "/bin/true"},
            "--qemu-bin and --qemu-image are for --qemu (an emulated ESP32-C3)");
    refused((eb_run_request){.chip = "esp32c3", .qemu = true, .peer_chip = "esp32"},
            "--qemu runs against the PC only: leave out --coprocessor and --peer-*");
    refused((eb_run_request){.lab_file = NO_LAB, .transport = "sdio"},
            "--coprocessor, --transport and --coprocessor-port are for one board (--port or --sim); with --lab give "
            "the board coprocessor: (transport:, coprocessor_port:) in the lab file");
    const char *lab_peer = "--peer-port/--peer-chip/--peer-tier are for one board; in a lab file give the board a "
                           "'peer:' mapping (port, chip, tier)";
    refused((eb_run_request){.lab_file = NO_LAB, .peer_tier = "iperf"}, lab_peer);
    const char *sim_peer = "--peer-port is a second real board; under --sim pass --peer-chip CHIP (a second virtual "
                           "board)";
    refused((eb_run_request){.chip = "esp32", .sim = true, .peer_port = "/dev/null"}, sim_peer);
    /* two sources that both refuse it: the first row's line (the lab file's) */
    refused((eb_run_request){.sim = true, .lab_file = NO_LAB, .peer_port = "/dev/null"}, lab_peer);
}

static void test_flags_the_boards_need(void **state)
{
    (void)state;
    refused((eb_run_request){0}, "missing required options: a board (--port URL, --sim or --lab FILE), --chip CHIP");
    refused((eb_run_request){.port = "/dev/null"}, "missing required options: --chip CHIP, --ssid SSID, --pc-address IP");
    /* board to board: no PC end, so no PC address */
    refused((eb_run_request){.chip = "esp32", .port = "/dev/null", .peer_port = "/dev/tty0"},
            "missing a required option: --ssid SSID");
    refused((eb_run_request){.sim = true}, "missing a required option: --chip CHIP");
}

/* --pattern: refused by the source whose firmware speaks the built-in
 * dialects only (--sim, under --lab too); taken on a port and on QEMU. */
static void test_pattern_asks_the_source(void **state)
{
    (void)state;
    const char *sim = "--pattern with --sim: the virtual board speaks the built-in dialects only; run --pattern "
                      "against the board (--port or --lab)";
    eb_run_request reqs[] = {{.chip = "esp32", .sim = true}, {.sim = true, .lab_file = NO_LAB}};
    for (size_t i = 0; i < sizeof reqs / sizeof reqs[0]; i++) {
        eb_run_opts o = {0};
        eb_error err = {0};
        bool usage = false;
        assert_int_equal(eb_run_use_pattern(&reqs[i], &o, NULL, &usage, &err), EB_ECONFIG);
        assert_true(usage);
        assert_string_equal(err.msg, sim);
    }
    eb_run_request fine[] = {{.chip = "esp32", .port = "/dev/null"}, {.chip = "esp32c3", .qemu = true},
                             {.lab_file = NO_LAB}};
    for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++) {
        eb_run_opts o = {0};
        eb_error err = {0};
        bool usage = true;
        assert_int_equal(eb_run_use_pattern(&fine[i], &o, NULL, &usage, &err), 0);
        assert_false(usage);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sources_that_do_not_combine),
        cmocka_unit_test(test_lab_combines_with_sim),
        cmocka_unit_test(test_options_a_source_claims_or_refuses),
        cmocka_unit_test(test_flags_the_boards_need),
        cmocka_unit_test(test_pattern_asks_the_source),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
