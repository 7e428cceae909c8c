/* Merge: two shards equal the unsharded matrix; identical duplicates
 * collapse; conflicting ones are refused (or the newest wins). The shard
 * function is stable and partitions every key set. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "espbench/jobs/merge.h"
#include "espbench/jobs/run.h"
#include "espbench/adapters/profile_dirs.h"
#include "espbench/adapters/results_file.h"
#include "results_fixture.h"

static eb_profiles profiles;
static const eb_chip *esp32;

static int setup(void **state)
{
    (void)state;
    eb_error err = {0};
    if (eb_profiles_load_file(&profiles, SOURCE_DIR "/profiles/esp32.yaml", &err))
        return -1;
    esp32 = eb_profiles_chip(&profiles, "esp32");
    return esp32 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    eb_profiles_free(&profiles);
    return 0;
}

static void shard_of(const eb_results *all, int index, int total, eb_results *out)
{
    eb_results_init(out);
    for (int i = 0; i < all->n_entries; i++) {
        const eb_entry *e = &all->entries[i];
        char key[128];
        eb_shard_key(key, sizeof key, e->chip, e->tier, e->test);
        if (eb_shard_select(index, total, key))
            eb_results_add(out, e);
    }
    *eb_results_board(out, "sim", true) = all->boards[0];
}

static void assert_same_matrix(const eb_results *a, const eb_results *b)
{
    assert_int_equal(a->n_entries, b->n_entries);
    for (int i = 0; i < a->n_entries; i++) {
        const eb_entry *e = &a->entries[i];
        const eb_entry *f = eb_results_find((eb_results *)b, e->board, e->chip, e->tier, e->test, e->repeat);
        assert_non_null(f);
        assert_true(eb_entry_equal(e, f));
    }
}

static void test_two_shards_equal_unsharded(void **state)
{
    (void)state;
    eb_results all, s1, s2, merged;
    fixture_build(&all, esp32, 2, 42);
    shard_of(&all, 1, 2, &s1);
    shard_of(&all, 2, 2, &s2);
    assert_true(s1.n_entries > 0 && s2.n_entries > 0);
    assert_int_equal(s1.n_entries + s2.n_entries, all.n_entries);
    /* repeats of one cell stay in one shard */
    assert_int_equal(s1.n_entries % 2, 0);

    eb_results_init(&merged);
    eb_error err = {0};
    assert_int_equal(eb_results_merge(&merged, &s2, "shard2.json", EB_MERGE_REFUSE, &err), 0);
    assert_int_equal(eb_results_merge(&merged, &s1, "shard1.json", EB_MERGE_REFUSE, &err), 0);
    assert_same_matrix(&all, &merged);
    assert_int_equal(merged.n_boards, 1);

    /* Through files, as `espbench merge` does. */
    char dir[] = "/tmp/eb-merge-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char p1[128], p2[128];
    snprintf(p1, sizeof p1, "%s/s1.json", dir);
    snprintf(p2, sizeof p2, "%s/s2.json", dir);
    assert_int_equal(eb_results_save_json(&s1, p1, &err), 0);
    assert_int_equal(eb_results_save_json(&s2, p2, &err), 0);
    eb_results fm;
    const char *paths[] = {p1, p2, p1}; /* the repeated file collapses */
    assert_int_equal(eb_results_load_merged(&fm, paths, 3, EB_MERGE_REFUSE, &err), 0);
    assert_same_matrix(&all, &fm);
    eb_results_free(&fm);
    unlink(p1);
    unlink(p2);
    rmdir(dir);

    eb_results_free(&merged);
    eb_results_free(&s1);
    eb_results_free(&s2);
    eb_results_free(&all);
}

static void test_conflicts(void **state)
{
    (void)state;
    eb_results a, b;
    fixture_build(&a, esp32, 1, 1);
    fixture_build(&b, esp32, 1, 1);
    eb_entry *e = eb_results_find(&b, "sim", "esp32", "default", EB_TEST_TCP_RX, 0);
    double old_mean = e->mean_mbps;
    e->mean_mbps = 12.5;
    snprintf(e->finished, sizeof e->finished, "2026-12-03T09:00:00Z");
    eb_error err = {0};
    eb_results m;
    eb_results_init(&m);
    assert_int_equal(eb_results_merge(&m, &a, "a.json", EB_MERGE_REFUSE, &err), 0);
    assert_int_equal(eb_results_merge(&m, &b, "b.json", EB_MERGE_REFUSE, &err), EB_ECONFIG);
    char want[512];
    snprintf(want, sizeof want,
             "b.json: entries[17]: board \"sim\" esp32/default/tcp_rx repeat 0 is already in the merged results with "
             "different figures (%.2f vs 12.50 Mbit/s); drop one input or pass --prefer newest",
             old_mean);
    assert_string_equal(err.msg, want);
    assert_int_equal(m.n_entries, 28); /* untouched */
    assert_true(eb_results_find(&m, "sim", "esp32", "default", EB_TEST_TCP_RX, 0)->mean_mbps == old_mean);

    /* --prefer newest: b's entry finished later and wins, in either order. */
    assert_int_equal(eb_results_merge(&m, &b, "b.json", EB_MERGE_NEWEST, &err), 0);
    assert_int_equal(m.n_entries, 28);
    assert_true(eb_results_find(&m, "sim", "esp32", "default", EB_TEST_TCP_RX, 0)->mean_mbps == 12.5);
    eb_results m2;
    eb_results_init(&m2);
    assert_int_equal(eb_results_merge(&m2, &b, "b.json", EB_MERGE_NEWEST, &err), 0);
    assert_int_equal(eb_results_merge(&m2, &a, "a.json", EB_MERGE_NEWEST, &err), 0);
    assert_true(eb_results_find(&m2, "sim", "esp32", "default", EB_TEST_TCP_RX, 0)->mean_mbps == 12.5);

    /* Another board with the same cell is not a duplicate. */
    snprintf(e->board, sizeof e->board, "lab-2");
    assert_int_equal(eb_results_merge(&m2, &b, "b.json", EB_MERGE_REFUSE, &err), 0);
    assert_int_equal(m2.n_entries, 29);
    assert_non_null(eb_results_find(&m2, "lab-2", "esp32", "default", EB_TEST_TCP_RX, 0));
    eb_results_free(&m2);
    eb_results_free(&m);
    eb_results_free(&a);
    eb_results_free(&b);
}

static void test_shard_function(void **state)
{
    (void)state;
    /* FNV-1a 32 reference values. */
    assert_int_equal(eb_shard_hash(""), 0x811c9dc5u);
    assert_int_equal(eb_shard_hash("a"), 0xe40c292cu);
    assert_int_equal(eb_shard_hash("foobar"), 0xbf9cf968u);
    /* Every cell of the full esp32 matrix is in exactly one of N shards. */
    for (int total = 1; total <= 5; total++) {
        int counts[6] = {0};
        for (int t = 0; t < esp32->n_tiers; t++)
            for (int test = 0; test < EB_TEST_COUNT; test++) {
                char key[96];
                eb_shard_key(key, sizeof key, "esp32", esp32->tiers[t].name, test);
                int hits = 0;
                for (int i = 1; i <= total; i++)
                    if (eb_shard_select(i, total, key)) {
                        hits++;
                        counts[i]++;
                    }
                assert_int_equal(hits, 1);
            }
        for (int i = 1; i <= total && total <= 2; i++)
            assert_true(counts[i] > 0);
    }
    /* Two shards split each tier's tests, not whole tiers (FNV-1a mod 2 alone
     * depends only on the key's byte sum, which would put a tier's four tests
     * together), and neither shard gets less than a third of the 44 cells. */
    int split_tiers = 0, in_first = 0, cells = 0;
    for (int t = 0; t < esp32->n_tiers; t++) {
        int first = 0;
        for (int test = 0; test < EB_TEST_COUNT; test++) {
            char k[96];
            eb_shard_key(k, sizeof k, "esp32", esp32->tiers[t].name, test);
            first += eb_shard_select(1, 2, k);
            cells++;
        }
        in_first += first;
        split_tiers += first > 0 && first < EB_TEST_COUNT;
    }
    assert_true(split_tiers >= esp32->n_tiers / 2);
    assert_true(in_first * 3 >= cells && (cells - in_first) * 3 >= cells);

    char key[96];
    eb_shard_key(key, sizeof key, "esp32", "iperf", EB_TEST_TCP_TX);
    assert_string_equal(key, "esp32/iperf/tcp_tx");
    assert_false(eb_shard_select(0, 2, key));
    assert_false(eb_shard_select(3, 2, key));

    int i = 0, n = 0;
    eb_error err = {0};
    assert_int_equal(eb_shard_parse("2/4", &i, &n, &err), 0);
    assert_int_equal(i, 2);
    assert_int_equal(n, 4);
    assert_int_equal(eb_shard_parse("0/4", &i, &n, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "'0/4' is not a shard: expected I/N with 1 <= I <= N (e.g. 1/4, as CI_NODE_INDEX/CI_NODE_TOTAL)");
    assert_int_equal(eb_shard_parse("5/4", &i, &n, &err), EB_ECONFIG);
    assert_int_equal(eb_shard_parse("1/", &i, &n, &err), EB_ECONFIG);
    assert_int_equal(eb_shard_parse("1/4x", &i, &n, &err), EB_ECONFIG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_shards_equal_unsharded),
        cmocka_unit_test(test_conflicts),
        cmocka_unit_test(test_shard_function),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
