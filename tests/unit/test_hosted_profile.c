/* ESP-Hosted pair profiles: the shipped pairs load with the guide's figures,
 * the pair model follows the tier and is capped by the transport, and bad
 * files and bad --coprocessor/--transport choices give one line each. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "espbench/formats/hosted.h"
#include "espbench/jobs/run.h"
#include "espbench/adapters/hosted_files.h"
#include "espbench/adapters/model_files.h"
#include "espbench/adapters/profile_dirs.h"

static eb_profiles prof;
static eb_hosted_set set;

static int setup(void **state)
{
    (void)state;
    const char *dirs[] = {SOURCE_DIR "/profiles"};
    eb_error err = {0};
    if (eb_profiles_load(&prof, dirs, 1, &err) || eb_hosted_load(&set, dirs, 1, &prof, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    eb_hosted_free(&set);
    eb_profiles_free(&prof);
    return 0;
}

static void shipped_pairs_carry_the_guide(void **state)
{
    (void)state;
    assert_int_equal(set.n, 6);
    const eb_hosted_pair *p = eb_hosted_by_name(&set, "esp32p4-esp32c6-sdio");
    assert_non_null(p);
    assert_int_equal(p->bus, EB_BUS_SDIO);
    assert_int_equal(p->width, 4);
    assert_true(p->clock_mhz == 40);
    assert_true(p->raw_mbps[0] == 72 && p->raw_mbps[1] == 80);
    assert_string_equal(p->tiers[0].name, "guide");
    assert_int_equal(p->tiers[0].value[EB_F_DYNAMIC_RX], 64);
    assert_true(p->cp_set[EB_F_RX_BA_WIN] && p->cp_value[EB_F_RX_BA_WIN] == 6);
    /* The guide's row order: raw both ways, then TCP/UDP from the host, then to it. */
    const double want[EB_HR_COUNT] = {72, 80, 32, 50, 30, 49};
    for (int r = 0; r < EB_HR_COUNT; r++)
        assert_true(eb_hosted_published(p, &p->tiers[0], r) == want[r]);
    char type[24], dir[32];
    eb_hosted_row_labels(p, EB_HR_RAW_RX, type, sizeof type, dir, sizeof dir);
    assert_string_equal(dir, "C6 to P4");
    eb_hosted_row_labels(p, EB_HR_UDP_RX, type, sizeof type, dir, sizeof dir);
    assert_string_equal(type, "iPerf, UDP");
    assert_string_equal(dir, "Test PC to P4");
    const eb_hosted_pair *c61 = eb_hosted_by_name(&set, "esp32p4-esp32c61-spi");
    assert_non_null(c61);
    char tr[64];
    assert_string_equal(eb_hosted_transport_text(c61, tr, sizeof tr), "SPI-FD 40 MHz, 2.4GHz");
}

static void select_names_what_to_pass(void **state)
{
    (void)state;
    const eb_hosted_pair *p = NULL;
    eb_error err = {0};
    assert_int_equal(eb_hosted_select(&set, &prof, "esp32p4", "esp32c6", NULL, &p, &err), 0);
    assert_string_equal(p->name, "esp32p4-esp32c6-sdio");
    assert_int_equal(eb_hosted_select(&set, &prof, "esp32p4", "esp32c6", "spi", &p, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--transport spi: esp32p4 with esp32c6 has no spi pair profile (transports: sdio)");
    assert_int_equal(eb_hosted_select(&set, &prof, "esp32p4", "esp32h9", "sdio", &p, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--coprocessor esp32h9: no chip profile of that name; see 'espbench profiles list'");
    assert_int_equal(eb_hosted_select(&set, &prof, "esp32p4", "esp32c6", "pcie", &p, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--transport pcie: unknown transport (sdio, spi, spi-hd, uart)");
    assert_int_equal(eb_hosted_select(&set, &prof, "esp32p4", "esp32s3", NULL, &p, &err), EB_ECONFIG);
    assert_true(strstr(err.msg, "no ESP-Hosted pair profile with host esp32p4 (co-processors: esp32c2, esp32c3"));
}

/* Two pairs of the same chips over different buses: no --transport is ambiguous. */
static void ambiguous_without_transport(void **state)
{
    (void)state;
    char dir[] = "/tmp/hosted-amb-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sub[64], path[96];
    snprintf(sub, sizeof sub, "%s/hosted", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    snprintf(path, sizeof path, "%s/uart.yaml", sub);
    FILE *f = fopen(path, "w");
    fputs("pair:\n  name: esp32p4-esp32c6-uart\n  host: esp32p4\n  coprocessor: esp32c6\n"
          "  transport: {bus: uart, width: 1, clock_mhz: 0.921600}\n  band: 2.4GHz\n"
          "tiers:\n  - name: guide\n    settings: {static_rx: 16}\n", f);
    fclose(f);
    const char *dirs[] = {SOURCE_DIR "/profiles", dir};
    eb_hosted_set s2;
    eb_error err = {0};
    assert_int_equal(eb_hosted_load(&s2, dirs, 2, &prof, &err), 0);
    const eb_hosted_pair *p = NULL;
    assert_int_equal(eb_hosted_select(&s2, &prof, "esp32p4", "esp32c6", NULL, &p, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--coprocessor esp32c6: esp32p4 reaches it over sdio, uart; pass --transport");
    assert_int_equal(eb_hosted_select(&s2, &prof, "esp32p4", "esp32c6", "uart", &p, &err), 0);
    assert_true(isnan(p->raw_mbps[0]));
    eb_hosted_free(&s2);
    unlink(path);
    rmdir(sub);
    rmdir(dir);
}

static void bad_file(const char *text, const char *want)
{
    char path[] = "/tmp/hosted-bad-XXXXXX.yaml";
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    eb_hosted_set s = {0};
    eb_error err = {0};
    assert_int_equal(eb_hosted_load_file(&s, path, &prof, &err), EB_ECONFIG);
    unlink(path);
    const char *msg = strchr(err.msg, ':');
    assert_non_null(msg);
    if (strcmp(msg + 1, want))
        fail_msg("got '%s', want '%s'", msg + 1, want);
    eb_hosted_free(&s);
}

static void bad_files_point_at_the_line(void **state)
{
    (void)state;
    const char *head = "pair:\n  name: x\n  host: esp32p4\n  coprocessor: esp32c6\n";
    char buf[512];
    snprintf(buf, sizeof buf, "%s  transport: {bus: pcie, width: 4, clock_mhz: 40}\ntiers: []\n", head);
    bad_file(buf, "5:20: unknown bus 'pcie' (sdio, spi, spi-hd, uart)");
    snprintf(buf, sizeof buf, "%s  transport: {bus: sdio, width: 2, clock_mhz: 40}\ntiers: []\n", head);
    bad_file(buf, "5:14: SDIO has no 2-line mode");
    bad_file("pair:\n  name: x\n  host: esp32p4\n  coprocessor: esp32h9\n",
             "4:16: 'coprocessor': no chip profile named 'esp32h9'");
    snprintf(buf, sizeof buf, "%s  transport: {bus: sdio, width: 4, clock_mhz: 40}\n"
             "tiers:\n  - name: guide\n    settings: {dynamic_rx: 5000}\n", head);
    bad_file(buf, "8:28: dynamic_rx = 5000 is outside the Kconfig range 0..1024 of WIFI_DYNAMIC_RX_BUFFER_NUM");
    snprintf(buf, sizeof buf, "%s  transport: {bus: sdio, width: 4, clock_mhz: 40}\ntiers: []\n", head);
    bad_file(buf, "1:1: a pair needs at least one tier under 'tiers'");
}

static void model_follows_tier_and_transport(void **state)
{
    (void)state;
    eb_model m;
    eb_error err = {0};
    assert_int_equal(eb_model_load(&m, SOURCE_DIR "/profiles/model/model.yaml", &err), 0);
    const eb_hosted_pair *p = eb_hosted_by_name(&set, "esp32p4-esp32c6-sdio");
    const eb_tier *guide = &p->tiers[0], *def = &p->tiers[1];
    assert_true(eb_hosted_figure(&m, &prof, p, guide, NULL, EB_TEST_RAW_RX) == 80);
    for (int k = 0; k < EB_TEST_COUNT; k++) {
        double g = eb_hosted_figure(&m, &prof, p, guide, NULL, k), d = eb_hosted_figure(&m, &prof, p, def, NULL, k);
        assert_true(g > 1 && d > 1);
        /* Default windows and buffers never beat the guide's. */
        assert_true(d <= g + 1e-9);
    }
    /* TCP windows of 5.76 KB bound TCP well below the guide's 64 KB. */
    assert_true(eb_hosted_figure(&m, &prof, p, def, NULL, EB_TEST_TCP_TX) <
                0.8 * eb_hosted_figure(&m, &prof, p, guide, NULL, EB_TEST_TCP_TX));
    /* A transport slower than the Wi-Fi bounds every iperf test at its payload rate. */
    eb_hosted_pair slow = *p;
    slow.raw_mbps[0] = slow.raw_mbps[1] = 5;
    for (int k = 0; k < EB_TEST_COUNT; k++) {
        bool tx = k == EB_TEST_TCP_TX || k == EB_TEST_UDP_TX, udp = k == EB_TEST_UDP_TX || k == EB_TEST_UDP_RX;
        double v = eb_hosted_figure(&m, &prof, &slow, guide, NULL, k);
        assert_true(fabs(v - eb_hosted_payload_cap(&slow, tx, udp)) < 1e-9);
        assert_true(v < 5 && v > 4.7);
    }
    /* The host's free heap: the ESP32-P4's heap constants are unfitted (no published heap). */
    assert_true(isnan(eb_hosted_figure(&m, &prof, p, guide, NULL, EB_TEST_COUNT)));
    eb_model_free(&m);
}

/* The run's plan of a pair: the raw tests once, first, under the first of
 * the pair's tiers; then tier x test as for any board. */
static void plan_runs_raw_tests_once_first(void **state)
{
    (void)state;
    eb_chip host = *eb_profiles_chip(&prof, "esp32p4");
    host.tiers = NULL;
    eb_error err = {0};
    assert_int_equal(eb_hosted_apply(&host, eb_hosted_by_name(&set, "esp32p4-esp32c6-sdio"), &err), 0);
    eb_run_opts o = {0};
    o.tests = 0xFu | 1u << EB_TEST_RAW_TX | 1u << EB_TEST_RAW_RX;
    eb_run_opts_defaults(&o);
    eb_run_item items[32];
    int n = eb_run_plan(&o, &host, items, 32, &err);
    assert_int_equal(n, 2 + 2 * 4);
    assert_int_equal(items[0].test, EB_TEST_RAW_TX);
    assert_int_equal(items[1].test, EB_TEST_RAW_RX);
    assert_string_equal(eb_run_item_tier(&items[0])->name, "guide");
    assert_string_equal(eb_run_item_tier(&items[2])->name, "guide");
    assert_int_equal(items[2].test, EB_TEST_TCP_TX);
    assert_string_equal(eb_run_item_tier(&items[9])->name, "default");
    for (int i = 2; i < n; i++)
        assert_false(EB_TEST_IS_RAW(items[i].test));
    free(host.tiers);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shipped_pairs_carry_the_guide),
        cmocka_unit_test(select_names_what_to_pass),
        cmocka_unit_test(ambiguous_without_transport),
        cmocka_unit_test(bad_files_point_at_the_line),
        cmocka_unit_test(model_follows_tier_and_transport),
        cmocka_unit_test(plan_runs_raw_tests_once_first),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
