/* The run plan: tier selection (all / psram / named), test subsets, repeats,
 * shards that split the matrix without overlap, and the default UDP rate. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/formats/dims.h"
#include "espbench/formats/profile.h"
#include "espbench/jobs/run.h"
#include "espbench/adapters/profile_dirs.h"

static eb_profiles profiles;
static const eb_chip *esp32;

static int load(void **state)
{
    (void)state;
    eb_error err = {0};
    const char *dirs[] = {SOURCE_DIR "/profiles"};
    if (eb_profiles_load(&profiles, dirs, 1, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    esp32 = eb_profiles_chip(&profiles, "esp32");
    return esp32 ? 0 : -1;
}

static int unload(void **state)
{
    (void)state;
    eb_profiles_free(&profiles);
    return 0;
}

static eb_run_opts opts(void)
{
    eb_run_opts o;
    memset(&o, 0, sizeof o);
    o.warmup_s = -1;
    o.retries = -1;
    eb_run_opts_defaults(&o);
    return o;
}

static void test_all_is_the_docs_main_table(void **state)
{
    (void)state;
    eb_run_opts o = opts();
    eb_run_item items[256];
    eb_error err = {0};
    int n = eb_run_plan(&o, esp32, items, 256, &err);
    assert_int_equal(n, 7 * 4);
    static const char *const order[] = {"iperf", "tx-prior", "high-performance", "rx-prior",
                                        "default", "memory-saving", "minimum"};
    for (int i = 0; i < n; i++) {
        assert_string_equal(eb_run_item_tier(&items[i])->name, order[i / 4]);
        assert_int_equal(items[i].test, i % 4);
        assert_int_equal(eb_run_item_repeat(&items[i]), 0);
        assert_false(eb_run_item_tier(&items[i])->psram);
    }
    o.tiers[0] = "psram";
    o.n_tiers = 1;
    n = eb_run_plan(&o, esp32, items, 256, &err);
    assert_int_equal(n, 4 * 4);
    for (int i = 0; i < n; i++)
        assert_true(eb_run_item_tier(&items[i])->psram);
}

static void test_named_tiers_tests_and_repeats(void **state)
{
    (void)state;
    eb_run_opts o = opts();
    o.tiers[0] = "minimum";
    o.tiers[1] = "iperf";
    o.n_tiers = 2;
    o.tests = 1u << EB_TEST_UDP_RX | 1u << EB_TEST_TCP_TX;
    o.repeat = 2;
    eb_run_item items[16];
    eb_error err = {0};
    int n = eb_run_plan(&o, esp32, items, 16, &err);
    assert_int_equal(n, 8);
    assert_string_equal(eb_run_item_tier(&items[0])->name, "minimum");
    assert_int_equal(items[0].test, EB_TEST_TCP_TX);
    assert_int_equal(eb_run_item_repeat(&items[1]), 1);
    assert_int_equal(items[2].test, EB_TEST_UDP_RX);
    assert_string_equal(eb_run_item_tier(&items[4])->name, "iperf");
}

static void test_unknown_tier_names_the_choices(void **state)
{
    (void)state;
    eb_run_opts o = opts();
    o.tiers[0] = "turbo";
    o.n_tiers = 1;
    eb_run_item items[4];
    eb_error err = {0};
    assert_int_equal(eb_run_plan(&o, esp32, items, 4, &err), -EB_ECONFIG);
    assert_string_equal(err.msg, "chip esp32 has no tier 'turbo' (tiers: iperf, tx-prior, high-performance, "
                                 "rx-prior, default, memory-saving, minimum, psram-iperf, psram-default, "
                                 "psram-memory-saving, psram-minimum; or all, psram)");
}

/* pytest-embedded's --parallel-count/--parallel-index: 1-based like --shard. */
static void test_parallel_count_is_a_shard(void **state)
{
    (void)state;
    int i = 0, n = 0, si = 0, sn = 0;
    eb_error err = {0};
    assert_int_equal(eb_shard_from_parallel("2", "1", &i, &n, &err), 0);
    assert_int_equal(eb_shard_parse("1/2", &si, &sn, &err), 0);
    assert_int_equal(i, si);
    assert_int_equal(n, sn);
    assert_int_equal(eb_shard_from_parallel("4", "4", &i, &n, &err), 0);
    assert_int_equal(i, 4);
    assert_int_equal(n, 4);
    assert_int_equal(eb_shard_from_parallel("4", "0", &i, &n, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--parallel-index '0': expected 1 to 4 (1-based, as pytest-embedded's)");
    assert_int_equal(eb_shard_from_parallel("4", "5", &i, &n, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--parallel-index '5': expected 1 to 4 (1-based, as pytest-embedded's)");
    assert_int_equal(eb_shard_from_parallel("0", "1", &i, &n, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--parallel-count '0': expected a whole number from 1 to 10000");
    assert_int_equal(eb_shard_from_parallel("2x", "1", &i, &n, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--parallel-count '2x': expected a whole number from 1 to 10000");
    assert_int_equal(eb_shard_from_parallel(NULL, "1", &i, &n, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--parallel-count and --parallel-index go together: give both (e.g. "
                                 "--parallel-count 4 --parallel-index 1)");
}

static void test_shards_partition_the_matrix(void **state)
{
    (void)state;
    eb_run_opts o = opts();
    eb_run_item all[64], part[64];
    eb_error err = {0};
    int n = eb_run_plan(&o, esp32, all, 64, &err);
    for (int total = 2; total <= 5; total++) {
        int seen[64] = {0};
        int sum = 0;
        for (int idx = 1; idx <= total; idx++) {
            o.shard_index = idx;
            o.shard_total = total;
            int k = eb_run_plan(&o, esp32, part, 64, &err);
            sum += k;
            for (int i = 0; i < k; i++)
                for (int j = 0; j < n; j++)
                    if (eb_run_item_tier(&all[j]) == eb_run_item_tier(&part[i]) && all[j].test == part[i].test)
                        seen[j]++;
        }
        assert_int_equal(sum, n);
        for (int j = 0; j < n; j++)
            assert_int_equal(seen[j], 1);
    }
}

/* --sweep: the parser's points and its one-line refusals. */
static void test_sweep_parse(void **state)
{
    (void)state;
    eb_sweep s;
    eb_error err = {0};
    assert_int_equal(eb_sweep_parse("udp-rate=40:120:10", &s, &err), 0);
    assert_int_equal(s.var, EB_DIM_UDP_RATE);
    assert_int_equal(s.n, 9);
    assert_true(s.values[0] == 40 && s.values[8] == 120);
    assert_int_equal(eb_sweep_parse("rssi=-40,-60,-75", &s, &err), 0);
    assert_int_equal(s.n, 3);
    assert_true(s.values[2] == -75);
    assert_int_equal(eb_sweep_parse("loss=0:0.3:0.1", &s, &err), 0); /* no float drift past the end */
    assert_int_equal(s.n, 4);
    assert_true(fabs(s.values[3] - 0.3) < 1e-12);
    assert_int_equal(eb_sweep_parse("rate=1:2:1", &s, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--sweep rate=1:2:1: unknown sweep variable 'rate' (udp-rate, tx-power; under "
                                 "--sim also rssi, loss, rtt; with lab instruments attenuation, rssi, channel, "
                                 "bandwidth)");
    assert_int_equal(eb_sweep_parse("udp-rate=80:40:10", &s, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--sweep udp-rate=80:40:10: the range has no points: STEP must be > 0 and START "
                                 "<= STOP");
    assert_int_equal(eb_sweep_parse("udp-rate=40:80:0", &s, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--sweep udp-rate=40:80:0: the range has no points: STEP must be > 0 and START "
                                 "<= STOP");
    assert_int_equal(eb_sweep_parse("udp-rate=", &s, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--sweep udp-rate=: no points: give VAR=START:STOP:STEP or VAR=V1,V2,...");
    assert_int_equal(eb_sweep_parse("udp-rate=1:1000:1", &s, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--sweep udp-rate=1:1000:1: 1000 points; at most 64 (use a larger STEP)");
    assert_int_equal(eb_sweep_parse("rssi=-5", &s, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--sweep rssi=-5: rssi -5 dBm is outside -100..-10 dBm");
    assert_int_equal(eb_sweep_parse("udp-rate=40:x:10", &s, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--sweep udp-rate=40:x:10: expected VAR=START:STOP:STEP (e.g. "
                                 "udp-rate=40:120:10) or VAR=V1,V2,...");
}

/* A udp-rate sweep plans UDP tests only, point by point within a tier. */
static void test_sweep_plan(void **state)
{
    (void)state;
    eb_run_opts o = opts();
    o.tiers[0] = "iperf";
    o.n_tiers = 1;
    eb_error err = {0};
    assert_int_equal(eb_sweep_parse("udp-rate=40:80:20", &o.sweep, &err), 0);
    o.repeat = 2;
    eb_run_item items[64];
    int n = eb_run_plan(&o, esp32, items, 64, &err);
    assert_int_equal(n, 3 * 2 * 2); /* points x UDP tests x repeats */
    assert_true(items[0].at[EB_DIM_UDP_RATE] == 40);
    assert_int_equal(items[0].test, EB_TEST_UDP_TX);
    assert_int_equal(items[3].test, EB_TEST_UDP_RX);
    assert_true(items[4].at[EB_DIM_UDP_RATE] == 60 && items[11].at[EB_DIM_UDP_RATE] == 80); /* the item carries it */
    assert_true(isnan(items[4].at[EB_DIM_RSSI])); /* a row not asked: no value */
    o.tests = 1u << EB_TEST_TCP_TX;
    assert_int_equal(eb_run_check_sweep(&o, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--sweep udp-rate needs a UDP test: add udp_tx or udp_rx to --tests");
}

/* The latency test comes first at each point, once per tier under a
 * udp-rate sweep (the offered rate does not touch it), and has a name. */
static void test_latency_plan(void **state)
{
    (void)state;
    eb_run_opts o = opts();
    o.tiers[0] = "iperf";
    o.tiers[1] = "minimum";
    o.n_tiers = 2;
    o.tests = (1u << EB_TEST_TCP_TX) | (1u << EB_RUN_LATENCY);
    o.repeat = 2;
    eb_error err = {0};
    eb_run_item items[64];
    int n = eb_run_plan(&o, esp32, items, 64, &err);
    assert_int_equal(n, 2 * 2 * 2);
    assert_int_equal(items[0].test, EB_RUN_LATENCY);
    assert_int_equal(items[1].test, EB_RUN_LATENCY);
    assert_int_equal(eb_run_item_repeat(&items[1]), 1);
    assert_int_equal(items[2].test, EB_TEST_TCP_TX);
    assert_string_equal(eb_run_item_tier(&items[4])->name, "minimum");
    assert_int_equal(items[4].test, EB_RUN_LATENCY);

    o.tests = (1u << EB_TEST_UDP_RX) | (1u << EB_RUN_LATENCY);
    o.repeat = 1;
    assert_int_equal(eb_sweep_parse("udp-rate=40:80:20", &o.sweep, &err), 0);
    n = eb_run_plan(&o, esp32, items, 64, &err);
    assert_int_equal(n, 2 * (1 + 3));
    assert_int_equal(items[0].test, EB_RUN_LATENCY);
    assert_true(isnan(items[0].at[EB_DIM_UDP_RATE])); /* latency: no offered rate, once */
    assert_true(items[1].at[EB_DIM_UDP_RATE] == 40);

    assert_int_equal(eb_sweep_parse("rtt=5,40", &o.sweep, &err), 0);
    o.tests = 1u << EB_RUN_LATENCY;
    n = eb_run_plan(&o, esp32, items, 64, &err);
    assert_int_equal(n, 2 * 2);
    assert_true(items[1].at[EB_DIM_RTT] == 40);

    assert_string_equal(eb_run_test_name(EB_RUN_LATENCY), "latency");
    assert_int_equal(eb_run_test_from_name("latency"), EB_RUN_LATENCY);
    assert_int_equal(eb_run_test_from_name("udp_rx"), EB_TEST_UDP_RX);
    assert_int_equal(eb_run_test_from_name("jitter"), -1);
    char key[64];
    eb_shard_key(key, sizeof key, "esp32", "iperf", EB_RUN_LATENCY);
    assert_string_equal(key, "esp32/iperf/latency");
}

static void test_udp_rate_default(void **state)
{
    (void)state;
    eb_run_opts o = opts();
    const eb_tier *t = eb_chip_tier(esp32, "iperf");
    /* docs: UDP TX 76.2 → the board offers 1.3 × that; UDP RX: the PC offers the chip's
     * cap (ESP-IDF's iperf test utility: esp32 100, esp32c3 70). */
    assert_true(fabs(eb_run_udp_rate(&o, esp32, t, EB_TEST_UDP_TX) - 99.1) < 1e-9);
    assert_true(fabs(eb_run_udp_rate(&o, esp32, t, EB_TEST_UDP_RX) - 100.0) < 1e-9);
    const eb_chip *c3 = eb_profiles_chip(&profiles, "esp32c3");
    assert_non_null(c3);
    assert_true(fabs(eb_run_udp_rate(&o, c3, eb_chip_tier(c3, "iperf"), EB_TEST_UDP_RX) - 70.0) < 1e-9);
    assert_true(fabs(eb_run_udp_rate(&o, NULL, NULL, EB_TEST_UDP_RX) - 100.0) < 1e-9);
    o.udp_rate_mbps = 42;
    assert_true(fabs(eb_run_udp_rate(&o, esp32, t, EB_TEST_UDP_RX) - 42.0) < 1e-9);
}

static void test_defaults(void **state)
{
    (void)state;
    eb_run_opts o = opts();
    assert_true(o.duration_s == 10 && o.interval_s == 1 && o.warmup_s == 1 && o.repeat == 1);
    assert_int_equal(o.tests, 0xF);
    assert_int_equal(o.retries, 2);
    assert_string_equal(eb_run_step_name(EB_STEP_TRAFFIC), "traffic");
}

/* The dimension table: the sweep variables are its rows, a result's point
 * compares through it, the matrix rows are no sweep variables, and the
 * reference figure is read at a key. */
static void test_dimensions(void **state)
{
    (void)state;
    assert_int_equal(eb_sweep_var_from_name("udp-rate"), EB_DIM_UDP_RATE);
    assert_int_equal(eb_sweep_var_from_name("attenuation"), EB_DIM_ATTEN);
    assert_int_equal(eb_dim_from_name("tier"), EB_DIM_TIER);
    assert_int_equal(eb_sweep_var_from_name("tier"), EB_DIM_NONE); /* not a --sweep variable */
    assert_string_equal(eb_dim(EB_DIM_RSSI)->unit, "dBm");
    assert_true(eb_sweep_var_sim_only(EB_DIM_LOSS) && !eb_sweep_var_sim_only(EB_DIM_UDP_RATE));
    eb_provenance a, b;
    eb_prov_init(&a);
    eb_prov_init(&b);
    assert_true(eb_dims_at_default(&a) && eb_dims_same_point(&a, &b));
    snprintf(a.sweep_var, sizeof a.sweep_var, "rssi");
    a.sweep_value = -60;
    char label[32];
    eb_dims_point_label(&a, label, sizeof label);
    assert_string_equal(label, "rssi=-60");
    assert_false(eb_dims_at_default(&a));
    assert_false(eb_dims_same_point(&a, &b));
    b = a;
    b.sweep_value = -70;
    assert_false(eb_dims_same_point(&a, &b));
    b.sweep_value = -60;
    assert_true(eb_dims_same_point(&a, &b));
    const eb_tier *t = eb_chip_tier(esp32, "iperf");
    assert_non_null(t);
    assert_true(eb_tier_ref(t, EB_TEST_TCP_TX, NULL) == t->ref_mbps[EB_TEST_TCP_TX]);
    assert_true(eb_tier_ref(t, EB_TEST_TCP_TX, &a) == t->ref_mbps[EB_TEST_TCP_TX]);
    assert_true(isnan(eb_tier_ref(t, EB_TEST_RAW_TX, NULL)) && isnan(eb_tier_ref(NULL, 0, NULL)));
}

/* tx-power is a dimension no console can set yet: refused up front with the reason. */
/* --sweep tx-power: the espbench firmware's radio_set takes it in ESP-IDF's
 * quarter-dBm steps; a stock example's console cannot. */
static void test_tx_power_checked(void **state)
{
    (void)state;
    eb_run_opts o = opts();
    eb_error err = {0};
    assert_int_equal(eb_sweep_parse("tx-power=10,19.5", &o.sweep, &err), 0);
    assert_int_equal(eb_run_check_sweep(&o, &err), 0);
    eb_run_board b;
    memset(&b, 0, sizeof b);
    snprintf(b.name, sizeof b.name, "dut");
    snprintf(b.dialect, sizeof b.dialect, "espbench");
    o.boards = &b;
    o.n_boards = 1;
    assert_int_equal(eb_run_check_sweep(&o, &err), 0);
    snprintf(b.dialect, sizeof b.dialect, "iperf-cmd-0.1");
    assert_int_equal(eb_run_check_sweep(&o, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--sweep tx-power: board dut (dialect iperf-cmd-0.1) has no command to set the "
                                 "transmit power (the stock iperf examples set it only in code); run the espbench "
                                 "firmware (docs/dimensions.md)");
    assert_int_equal(eb_sweep_parse("tx-power=10.1", &o.sweep, &err), 0);
    assert_int_equal(eb_run_check_sweep(&o, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--sweep tx-power: 10.1 dBm is not a step of ESP-IDF's transmit power (0.25 dBm: "
                                 "esp_wifi_set_max_tx_power takes quarter dBm); give e.g. 10.00");
}

/* The summary `run` prints, rendered by the library: the difference to the
 * docs' figure, a failure's reason, the board-to-board footnote. */
static void test_summary_text(void **state)
{
    (void)state;
    eb_results f;
    eb_results_init(&f);
    eb_entry e;
    eb_entry_init(&e);
    snprintf(e.chip, sizeof e.chip, "esp32");
    snprintf(e.tier, sizeof e.tier, "iperf");
    snprintf(e.status, sizeof e.status, "ok");
    e.test = EB_TEST_TCP_TX;
    e.mean_mbps = 90;
    e.peak_mbps = 95;
    e.ref_mbps = 100;
    e.loss_pct = NAN;
    e.free_heap = 2048;
    assert_true(fabs(eb_run_docs_diff_pct(&e) + 10) < 1e-9);
    assert_non_null(eb_results_add(&f, &e));
    e.test = EB_TEST_TCP_RX;
    snprintf(e.status, sizeof e.status, "failed");
    eb_entry_set_error(&e, "%s", "the board rebooted");
    assert_non_null(eb_results_add(&f, &e));
    eb_run_summary s = {.planned = 2, .done = 1, .failed = 1, .wall_s = 3, .test_s = 2};
    eb_buf b;
    eb_buf_init(&b);
    eb_run_summary_text(&f, &s, "OUT", 1, false, &b);
    eb_buf_printf(&b, "%c", 0);
    const char *t = (const char *)b.data;
    assert_non_null(strstr(t, "\nesp32      iperf              tcp_tx       90.00      95.00    100.0  -10.0%       -       2.0\n"));
    assert_non_null(strstr(t, "esp32      iperf              tcp_rx  FAILED: the board rebooted\n"));
    assert_null(strstr(t, "board to board"));
    assert_non_null(strstr(t, "1 tests done, 0 skipped, 1 failed of 2; 3.0 s (2.0 s of traffic). Results: OUT/results.json\n"));
    eb_provenance *pv = eb_entry_prov_mut(&f.entries[0]);
    snprintf(pv->peer_board, sizeof pv->peer_board, "sim-peer");
    snprintf(pv->peer_chip, sizeof pv->peer_chip, "esp32c3");
    snprintf(pv->peer_tier, sizeof pv->peer_tier, "iperf");
    eb_buf_reset(&b);
    eb_run_summary_text(&f, &s, "OUT", 1, false, &b);
    eb_buf_printf(&b, "%c", 0);
    assert_non_null(strstr((const char *)b.data, "(board to board with sim-peer esp32c3/iperf: no PC in the data path"));
    assert_null(strstr((const char *)b.data, "emulated"));
    /* an emulated board's figures (run --qemu) say so under the table */
    snprintf(f.entries[1].figure_source, sizeof f.entries[1].figure_source, "emulator");
    eb_buf_reset(&b);
    eb_run_summary_text(&f, &s, "OUT", 1, false, &b);
    eb_buf_printf(&b, "%c", 0);
    assert_non_null(strstr((const char *)b.data, "(emulated: QEMU's ESP32-C3 with Ethernet in place of Wi-Fi, not "
                                                 "measured on hardware; the docs column is a chip's over Wi-Fi)\n"));
    /* items the run never reached are counted: the counts add up to the plan */
    eb_run_summary s2 = {.planned = 3, .done = 1, .failed = 1, .not_run = 1, .wall_s = 3, .test_s = 2};
    eb_buf_reset(&b);
    eb_run_summary_text(NULL, &s2, "OUT", 1, false, &b);
    eb_buf_printf(&b, "%c", 0);
    assert_string_equal((const char *)b.data, "1 tests done, 0 skipped, 1 failed, 1 not run of 3; 3.0 s (2.0 s of "
                                               "traffic). Results: OUT/results.json\n");
    eb_run_progress p = {.event = EB_RUN_EV_NOT_RUN, .board = "dut", .chip = "esp32", .tier = "iperf",
                         .test = EB_TEST_UDP_TX, .index = 3, .total = 3, .current_mbps = NAN,
                         .message = "console /dev/pts/7: port /dev/pts/7: device gone"};
    eb_buf_reset(&b);
    eb_run_progress_text(&p, 1, false, &b);
    eb_buf_printf(&b, "%c", 0);
    assert_string_equal((const char *)b.data, "[3/3] dut esp32/iperf udp_tx: not run: console /dev/pts/7: port "
                                              "/dev/pts/7: device gone\n");
    eb_buf_free(&b);
    eb_entry_free(&e);
    eb_results_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_is_the_docs_main_table),
        cmocka_unit_test(test_named_tiers_tests_and_repeats),
        cmocka_unit_test(test_unknown_tier_names_the_choices),
        cmocka_unit_test(test_shards_partition_the_matrix),
        cmocka_unit_test(test_parallel_count_is_a_shard),
        cmocka_unit_test(test_udp_rate_default),
        cmocka_unit_test(test_sweep_parse),
        cmocka_unit_test(test_sweep_plan),
        cmocka_unit_test(test_latency_plan),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_dimensions),
        cmocka_unit_test(test_tx_power_checked),
        cmocka_unit_test(test_summary_text),
    };
    return cmocka_run_group_tests(tests, load, unload);
}
