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

#include "espbench/profile.h"
#include "espbench/run.h"

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
        assert_string_equal(items[i].tier->name, order[i / 4]);
        assert_int_equal(items[i].test, i % 4);
        assert_int_equal(items[i].repeat, 0);
        assert_false(items[i].tier->psram);
    }
    o.tiers[0] = "psram";
    o.n_tiers = 1;
    n = eb_run_plan(&o, esp32, items, 256, &err);
    assert_int_equal(n, 4 * 4);
    for (int i = 0; i < n; i++)
        assert_true(items[i].tier->psram);
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
    assert_string_equal(items[0].tier->name, "minimum");
    assert_int_equal(items[0].test, EB_TEST_TCP_TX);
    assert_int_equal(items[1].repeat, 1);
    assert_int_equal(items[2].test, EB_TEST_UDP_RX);
    assert_string_equal(items[4].tier->name, "iperf");
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
                    if (all[j].tier == part[i].tier && all[j].test == part[i].test)
                        seen[j]++;
        }
        assert_int_equal(sum, n);
        for (int j = 0; j < n; j++)
            assert_int_equal(seen[j], 1);
    }
}

static void test_udp_rate_default(void **state)
{
    (void)state;
    eb_run_opts o = opts();
    const eb_tier *t = eb_chip_tier(esp32, "iperf");
    /* docs: UDP TX 76.2, UDP RX 83.1 → offered 1.3 × that. */
    assert_true(fabs(eb_run_udp_rate(&o, t, EB_TEST_UDP_TX) - 99.1) < 1e-9);
    assert_true(fabs(eb_run_udp_rate(&o, t, EB_TEST_UDP_RX) - 108.0) < 1e-9);
    assert_true(fabs(eb_run_udp_rate(&o, NULL, EB_TEST_UDP_RX) - 100.0) < 1e-9);
    o.udp_rate_mbps = 42;
    assert_true(fabs(eb_run_udp_rate(&o, t, EB_TEST_UDP_RX) - 42.0) < 1e-9);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_is_the_docs_main_table),
        cmocka_unit_test(test_named_tiers_tests_and_repeats),
        cmocka_unit_test(test_unknown_tier_names_the_choices),
        cmocka_unit_test(test_shards_partition_the_matrix),
        cmocka_unit_test(test_udp_rate_default),
        cmocka_unit_test(test_defaults),
    };
    return cmocka_run_group_tests(tests, load, unload);
}
