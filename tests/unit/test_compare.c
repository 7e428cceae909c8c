/* The regression gate: identical data passes, an injected 10 % drop fails,
 * failed and missing cells fail, new cells do not; docs baseline; JUnit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/compare.h"
#include "espbench/formats/report.h"
#include "espbench/adapters/profile_dirs.h"
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

static const eb_compare_row *row_of(const eb_compare *c, const char *tier, int test)
{
    for (int i = 0; i < c->n_rows; i++)
        if (!strcmp(c->rows[i].tier, tier) && c->rows[i].test == test)
            return &c->rows[i];
    return NULL;
}

/* Many custom tiers (more than any fixed-size list would hold): a drop in the
 * last one still fails the gate. */
static void test_many_tiers_none_skipped(void **state)
{
    (void)state;
    eb_results base, cur;
    eb_results_init(&base);
    eb_results_init(&cur);
    for (int t = 0; t < 80; t++) {
        eb_entry e;
        eb_entry_init(&e);
        snprintf(e.chip, sizeof e.chip, "esp32");
        snprintf(e.tier, sizeof e.tier, "custom-%02d", t);
        e.test = EB_TEST_TCP_TX;
        e.mean_mbps = e.peak_mbps = 50;
        eb_results_add(&base, &e);
        e.mean_mbps = e.peak_mbps = t == 79 ? 40 : 50;
        eb_results_add(&cur, &e);
    }
    eb_compare_opts o = {.max_drop_pct = 5, .stat = EB_STAT_MEAN};
    eb_compare c;
    eb_error err = {0};
    assert_int_equal(eb_compare_results(&base, &cur, &profiles, &o, &c, &err), 0);
    assert_int_equal(c.n_rows, 80);
    assert_int_equal(c.n_failed, 1);
    assert_non_null(row_of(&c, "custom-79", EB_TEST_TCP_TX));
    eb_compare_free(&c);
    eb_results_free(&base);
    eb_results_free(&cur);
}

/* A board-to-board entry (a peer in its provenance) is never matched against
 * an entry measured with the PC, in either direction: each side of such a
 * pairing is a cell of its own, new or missing, and a pair-only baseline and
 * PC-only current share no cell at all. */
static void test_pair_never_matches_pc(void **state)
{
    (void)state;
    eb_results base, cur;
    eb_results_init(&base);
    eb_results_init(&cur);
    eb_entry e;
    eb_entry_init(&e);
    snprintf(e.chip, sizeof e.chip, "esp32");
    snprintf(e.tier, sizeof e.tier, "iperf");
    e.test = EB_TEST_TCP_TX;
    e.mean_mbps = e.peak_mbps = 70; /* against the PC */
    eb_results_add(&base, &e);
    eb_provenance *pv = eb_entry_prov_mut(&e);
    snprintf(pv->peer_chip, sizeof pv->peer_chip, "esp32c3");
    snprintf(pv->peer_tier, sizeof pv->peer_tier, "iperf");
    e.mean_mbps = e.peak_mbps = 35; /* board to board: half, and no regression */
    eb_results_add(&cur, &e);
    eb_compare_opts o = {.max_drop_pct = 5, .stat = EB_STAT_MEAN};
    eb_compare c;
    eb_error err = {0};
    assert_int_equal(eb_compare_results(&base, &cur, &profiles, &o, &c, &err), EB_ECONFIG);
    assert_non_null(strstr(err.msg, "the inputs share no chip x tier x test cell"));
    eb_compare_free(&c);
    /* With the PC entry in both, the pair cell stands apart. */
    eb_entry pc;
    eb_entry_init(&pc);
    snprintf(pc.chip, sizeof pc.chip, "esp32");
    snprintf(pc.tier, sizeof pc.tier, "iperf");
    pc.test = EB_TEST_TCP_TX;
    pc.mean_mbps = pc.peak_mbps = 70;
    eb_results_add(&cur, &pc);
    assert_int_equal(eb_compare_results(&base, &cur, &profiles, &o, &c, &err), 0);
    assert_int_equal(c.n_rows, 2);
    assert_int_equal(c.n_failed, 0);
    assert_string_equal(c.rows[0].pair, "");
    assert_float_equal(c.rows[0].current, 70, 1e-9);
    assert_int_equal(c.rows[0].status, EB_CMP_OK);
    assert_string_equal(c.rows[1].pair, "esp32c3/iperf");
    assert_float_equal(c.rows[1].current, 35, 1e-9);
    assert_int_equal(c.rows[1].status, EB_CMP_NEW);
    eb_compare_free(&c);
    /* Against the docs: the docs measured with a PC, so a pair has no baseline. */
    assert_int_equal(eb_compare_docs(&profiles, &cur, &o, &c, &err), 0);
    assert_int_equal(c.n_rows, 2);
    assert_true(isnan(c.rows[1].baseline));
    assert_int_equal(c.rows[1].status, EB_CMP_NEW);
    eb_compare_free(&c);
    eb_entry_free(&e);
    eb_results_free(&base);
    eb_results_free(&cur);
}

static void test_identical_passes(void **state)
{
    (void)state;
    eb_results base, cur;
    fixture_build(&base, esp32, 2, 1);
    fixture_build(&cur, esp32, 2, 1);
    eb_compare_opts o = {.max_drop_pct = 5, .stat = EB_STAT_MEAN};
    eb_compare c;
    eb_error err = {0};
    assert_int_equal(eb_compare_results(&base, &cur, &profiles, &o, &c, &err), 0);
    assert_int_equal(c.n_rows, 7 * 4);
    assert_int_equal(c.n_failed, 0);
    /* rows in the docs' order: tier by profile, then test */
    assert_string_equal(c.rows[0].tier, "iperf");
    assert_int_equal(c.rows[0].test, EB_TEST_TCP_TX);
    assert_string_equal(c.rows[27].tier, "minimum");
    assert_int_equal(c.rows[27].test, EB_TEST_UDP_RX);
    assert_int_equal(c.rows[0].n_baseline, 2);
    assert_true(c.rows[0].diff_pct == 0);
    eb_compare_free(&c);
    eb_results_free(&base);
    eb_results_free(&cur);
}

static void test_drop_of_ten_percent_fails(void **state)
{
    (void)state;
    eb_results base, cur;
    fixture_build(&base, esp32, 1, 1);
    fixture_build(&cur, esp32, 1, 1);
    eb_entry *e = eb_results_find(&cur, "sim", "esp32", "default", EB_TEST_UDP_RX, 0);
    assert_non_null(e);
    e->mean_mbps *= 0.90;
    /* A 4 % drop elsewhere stays within the 5 % default. */
    eb_results_find(&cur, "sim", "esp32", "iperf", EB_TEST_TCP_TX, 0)->mean_mbps *= 0.96;
    eb_compare_opts o = {.max_drop_pct = 5, .stat = EB_STAT_MEAN};
    eb_compare c;
    eb_error err = {0};
    assert_int_equal(eb_compare_results(&base, &cur, &profiles, &o, &c, &err), 0);
    assert_int_equal(c.n_failed, 1);
    const eb_compare_row *r = row_of(&c, "default", EB_TEST_UDP_RX);
    assert_int_equal(r->status, EB_CMP_REGRESSED);
    assert_true(fabs(r->diff_pct + 10.0) < 1e-9);
    assert_int_equal(row_of(&c, "iperf", EB_TEST_TCP_TX)->status, EB_CMP_OK);
    /* The peak statistic did not drop. */
    eb_compare_free(&c);
    o.stat = EB_STAT_PEAK;
    assert_int_equal(eb_compare_results(&base, &cur, &profiles, &o, &c, &err), 0);
    assert_int_equal(c.n_failed, 0);
    eb_compare_free(&c);
    /* A looser threshold lets the 10 % pass. */
    o.stat = EB_STAT_MEAN;
    o.max_drop_pct = 10.5;
    assert_int_equal(eb_compare_results(&base, &cur, &profiles, &o, &c, &err), 0);
    assert_int_equal(c.n_failed, 0);

    eb_buf out;
    eb_buf_init(&out);
    eb_compare_text(&c, &out);
    assert_non_null(strstr(eb_buf_cstr(&out), "esp32      default            udp_rx"));
    assert_non_null(strstr(eb_buf_cstr(&out), "0 of 28 cells failed (max drop 10.5 %, statistic: mean)\n"));
    eb_buf_free(&out);
    eb_compare_free(&c);
    eb_results_free(&base);
    eb_results_free(&cur);
}

static void test_failed_missing_new(void **state)
{
    (void)state;
    eb_results base, cur;
    fixture_build(&base, esp32, 1, 1);
    fixture_build(&cur, esp32, 1, 1);
    eb_entry *e = eb_results_find(&cur, "sim", "esp32", "minimum", EB_TEST_TCP_RX, 0);
    snprintf(e->status, sizeof e->status, "failed");
    eb_entry_set_error(e, "board rebooted twice during the test");
    e->mean_mbps = NAN;
    /* Remove one cell from current, one from baseline. */
    eb_entry *m = eb_results_find(&cur, "sim", "esp32", "rx-prior", EB_TEST_UDP_TX, 0);
    eb_entry_free(m);
    *m = cur.entries[--cur.n_entries];
    eb_entry *n = eb_results_find(&base, "sim", "esp32", "tx-prior", EB_TEST_TCP_TX, 0);
    eb_entry_free(n);
    *n = base.entries[--base.n_entries];

    eb_compare_opts o = {.max_drop_pct = 5, .stat = EB_STAT_MEAN};
    eb_compare c;
    eb_error err = {0};
    assert_int_equal(eb_compare_results(&base, &cur, &profiles, &o, &c, &err), 0);
    assert_int_equal(c.n_rows, 28);
    assert_int_equal(c.n_failed, 2);
    assert_int_equal(row_of(&c, "minimum", EB_TEST_TCP_RX)->status, EB_CMP_FAILED);
    assert_string_equal(row_of(&c, "minimum", EB_TEST_TCP_RX)->error, "board rebooted twice during the test");
    assert_int_equal(row_of(&c, "rx-prior", EB_TEST_UDP_TX)->status, EB_CMP_MISSING);
    assert_int_equal(row_of(&c, "tx-prior", EB_TEST_TCP_TX)->status, EB_CMP_NEW);

    /* JUnit: parsable shape, one testcase per cell, escaped text, failures. */
    snprintf(c.baseline_name, sizeof c.baseline_name, "base<1>&\"x\".json");
    eb_buf out;
    eb_buf_init(&out);
    eb_compare_junit(&c, &out);
    const char *x = eb_buf_cstr(&out);
    assert_non_null(strstr(x, "<testsuites name=\"espbench\" tests=\"28\" failures=\"2\" errors=\"0\" skipped=\"1\">"));
    assert_non_null(strstr(x, "value=\"base&lt;1&gt;&amp;&quot;x&quot;.json\""));
    assert_non_null(strstr(x, "<testcase classname=\"espbench.esp32.minimum\" name=\"tcp_rx\" time=\"0\">"));
    assert_non_null(strstr(x, "<failure type=\"failed\" message=\"esp32 minimum tcp_rx failed: board rebooted twice "
                              "during the test\">"));
    assert_non_null(strstr(x, "<failure type=\"missing\" message=\"esp32 rx-prior udp_tx is in the baseline but "
                              "missing from the current results\">"));
    assert_non_null(strstr(x, "<skipped message=\"no baseline figure\"/>"));
    int cases = 0;
    for (const char *p = x; (p = strstr(p, "<testcase ")) != NULL; p++)
        cases++;
    assert_int_equal(cases, 28);
    eb_buf_free(&out);
    eb_compare_free(&c);
    eb_results_free(&base);
    eb_results_free(&cur);
}

static void test_docs_baseline(void **state)
{
    (void)state;
    eb_results cur;
    fixture_build(&cur, esp32, 1, 9); /* ±2 % of the docs */
    eb_compare_opts o = {.max_drop_pct = 5, .stat = EB_STAT_MEAN};
    eb_compare c;
    eb_error err = {0};
    assert_int_equal(eb_compare_docs(&profiles, &cur, &o, &c, &err), 0);
    assert_int_equal(c.n_rows, 28); /* only the tiers that ran, not the PSRAM ones */
    assert_int_equal(c.n_failed, 0);
    assert_true(row_of(&c, "iperf", EB_TEST_TCP_TX)->baseline == 74.6);
    eb_compare_free(&c);
    eb_results_find(&cur, "sim", "esp32", "iperf", EB_TEST_UDP_RX, 0)->mean_mbps = 83.1 * 0.9;
    assert_int_equal(eb_compare_docs(&profiles, &cur, &o, &c, &err), 0);
    assert_int_equal(c.n_failed, 1);
    assert_int_equal(row_of(&c, "iperf", EB_TEST_UDP_RX)->status, EB_CMP_REGRESSED);
    eb_compare_free(&c);

    o.chip = "esp32s3";
    assert_int_equal(eb_compare_docs(&profiles, &cur, &o, &c, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "nothing to compare: the results hold no entries for chip esp32s3");
    eb_results_free(&cur);
}

/* A result off the radio's defaults is a cell of its own, compared only with
 * results at the same point of the dimension table: band 5 with band 5 (a
 * 5 GHz drop fails, reported as its point), never averaged into the 2.4 GHz
 * cell; a point only one side has is new or missing. */
static void add_band(eb_results *r, const char *band, int test, double mbps)
{
    eb_entry e;
    eb_entry_init(&e);
    snprintf(e.chip, sizeof e.chip, "esp32");
    snprintf(e.tier, sizeof e.tier, "iperf");
    e.test = test;
    e.mean_mbps = e.peak_mbps = mbps;
    if (band)
        snprintf(eb_entry_prov_mut(&e)->radio_band, sizeof eb_entry_prov_mut(&e)->radio_band, "%s", band);
    eb_results_add(r, &e);
    eb_entry_free(&e);
}

static void test_band_points_compare_alike(void **state)
{
    (void)state;
    eb_results base, cur;
    eb_results_init(&base);
    eb_results_init(&cur);
    add_band(&base, NULL, EB_TEST_TCP_TX, 50);
    add_band(&base, "5", EB_TEST_TCP_TX, 60);
    add_band(&base, "5", EB_TEST_UDP_TX, 70);
    add_band(&cur, "5", EB_TEST_TCP_TX, 48); /* -20 % at 5 GHz */
    add_band(&cur, NULL, EB_TEST_TCP_TX, 50);
    add_band(&cur, "5", EB_TEST_TCP_RX, 30);
    eb_compare_opts o = {.max_drop_pct = 5, .stat = EB_STAT_MEAN};
    eb_compare c;
    eb_error err = {0};
    assert_int_equal(eb_compare_results(&base, &cur, &profiles, &o, &c, &err), 0);
    assert_int_equal(c.n_rows, 4);
    /* iperf tcp_tx at 2.4 GHz: 50 against 50, nothing of 5 GHz mixed in */
    assert_string_equal(c.rows[0].point_label, "");
    assert_int_equal(c.rows[0].test, EB_TEST_TCP_TX);
    assert_true(c.rows[0].baseline == 50 && c.rows[0].current == 50);
    assert_int_equal(c.rows[0].status, EB_CMP_OK);
    assert_string_equal(c.rows[1].point_label, "band=5");
    assert_int_equal(c.rows[1].test, EB_TEST_TCP_TX);
    assert_true(c.rows[1].baseline == 60 && c.rows[1].current == 48);
    assert_int_equal(c.rows[1].status, EB_CMP_REGRESSED);
    assert_int_equal(c.rows[2].test, EB_TEST_TCP_RX);
    assert_int_equal(c.rows[2].status, EB_CMP_NEW);
    assert_int_equal(c.rows[3].test, EB_TEST_UDP_TX);
    assert_int_equal(c.rows[3].status, EB_CMP_MISSING);
    assert_int_equal(c.n_failed, 2);
    eb_buf b;
    eb_buf_init(&b);
    eb_compare_text(&c, &b);
    eb_buf_append_byte(&b, 0);
    assert_non_null(strstr((const char *)b.data, "esp32      iperf band=5       tcp_tx       60.00      48.00"));
    eb_buf_free(&b);
    eb_compare_free(&c);
    eb_results_free(&base);
    eb_results_free(&cur);
}

/* Two inputs of one cell at two bands (and two power-save modes) share no
 * cell: the message names each dimension with each side's values and the
 * --ignore that compares across them; with it, the cell compares, its
 * label without the band, and the table says what was left out. */
static void test_differing_dims_named(void **state)
{
    (void)state;
    eb_results base, cur;
    eb_results_init(&base);
    eb_results_init(&cur);
    add_band(&base, NULL, EB_TEST_TCP_TX, 50);
    add_band(&cur, "5", EB_TEST_TCP_TX, 40);
    eb_compare_opts o = {.max_drop_pct = 5, .stat = EB_STAT_MEAN};
    eb_compare c;
    eb_error err = {0};
    assert_int_equal(eb_compare_results(&base, &cur, &profiles, &o, &c, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "the inputs share no chip x tier x test cell at the same point: they differ in band "
                                 "(baseline: band=2.4 (default); current: band=5); to compare them across it, pass "
                                 "--ignore band (each cell then averages over its values)");
    eb_compare_free(&c);
    /* Two dimensions apart: both named, both to leave out. */
    snprintf(eb_entry_prov_mut(&cur.entries[0])->radio_power_save, 12, "min_modem");
    eb_error_clear(&err);
    assert_int_equal(eb_compare_results(&base, &cur, &profiles, &o, &c, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "the inputs share no chip x tier x test cell at the same point: they differ in band "
                                 "(baseline: band=2.4 (default); current: band=5), power-save (baseline: power-save=none "
                                 "(default); current: power-save=min_modem); to compare them across them, pass --ignore "
                                 "band,power-save (each cell then averages over their values)");
    eb_compare_free(&c);
    char why[512] = "";
    assert_int_equal(eb_compare_parse_ignore("band,power-save", &o, why, sizeof why), 0);
    assert_int_equal(eb_compare_results(&base, &cur, &profiles, &o, &c, &err), 0);
    assert_int_equal(c.n_rows, 1);
    assert_string_equal(c.rows[0].point_label, "");
    assert_true(c.rows[0].baseline == 50 && c.rows[0].current == 40);
    assert_int_equal(c.rows[0].status, EB_CMP_REGRESSED);
    eb_buf b;
    eb_buf_init(&b);
    eb_compare_text(&c, &b);
    eb_buf_append_byte(&b, 0);
    assert_non_null(strstr((const char *)b.data, "\nleft out of the key (--ignore): band, power-save; each cell "
                                                  "averages over their values\n"));
    eb_buf_free(&b);
    eb_compare_free(&c);
    /* Different tests as well: the cells are named with their points, the band beside them. */
    cur.entries[0].test = EB_TEST_UDP_TX;
    o.ignore = 0;
    assert_int_equal(eb_compare_results(&base, &cur, &profiles, &o, &c, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "the inputs share no chip x tier x test cell (baseline has iperf/tcp_tx; current has "
                                 "iperf/udp_tx band=5 ps=min_modem); they also differ in band (baseline: band=2.4 "
                                 "(default); current: band=5), power-save (baseline: power-save=none (default); "
                                 "current: power-save=min_modem): compare results of the same tests, or pair tiers with "
                                 "--tier-map A=B");
    eb_compare_free(&c);
    /* What --ignore takes: the dimensions a cell is keyed by. */
    assert_int_equal(eb_compare_parse_ignore("band,tier", &o, why, sizeof why), -1);
    static const char want[] = "--ignore 'tier': not a dimension a cell is keyed by (pair tiers with --tier-map "
                               "A=B); one of: udp-rate, tx-power, rssi, loss, rtt, attenuation, channel, bandwidth, "
                               "band, radio-bandwidth, phy, power-save, coex, len"; /* ... and any row added after */
    assert_memory_equal(why, want, sizeof want - 1);
    eb_results_free(&base);
    eb_results_free(&cur);
}

static void test_parse_percent(void **state)
{
    (void)state;
    assert_true(eb_parse_percent("5%") == 5);
    assert_true(eb_parse_percent("2.5 %") == 2.5);
    assert_true(eb_parse_percent("10") == 10);
    assert_true(eb_parse_percent("-1%") < 0);
    assert_true(eb_parse_percent("5x") < 0);
    assert_true(eb_parse_percent("") < 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical_passes),
        cmocka_unit_test(test_many_tiers_none_skipped),
        cmocka_unit_test(test_drop_of_ten_percent_fails),
        cmocka_unit_test(test_failed_missing_new),
        cmocka_unit_test(test_docs_baseline),
        cmocka_unit_test(test_parse_percent),
        cmocka_unit_test(test_pair_never_matches_pc),
        cmocka_unit_test(test_band_points_compare_alike),
        cmocka_unit_test(test_differing_dims_named),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
