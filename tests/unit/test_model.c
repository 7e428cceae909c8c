/* The tier model (model.h): calibration is reproducible data, predictions
 * behave physically, lint and link input are checked. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "espbench/formats/model.h"
#include "espbench/formats/profile.h"
#include "espbench/adapters/model_files.h"
#include "espbench/adapters/profile_dirs.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = calloc(1, (size_t)n + 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    fclose(f);
    return s;
}

static int setup(void **state)
{
    static eb_profiles p;
    eb_error err;
    const char *dir = SOURCE_DIR "/profiles";
    if (eb_profiles_load(&p, &dir, 1, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    *state = &p;
    return 0;
}

static int teardown(void **state)
{
    eb_profiles_free(*state);
    return 0;
}

/* `espbench model fit` on the shipped tables writes the shipped constants
 * file, byte for byte (deterministic fit), and the file loads back. */
static void test_fit_reproduces_shipped_constants(void **state)
{
    eb_profiles *p = *state;
    eb_model m;
    eb_error err;
    assert_int_equal(eb_model_fit(p, &m, &err), 0);
    char *text = eb_model_render(&m);
    char *shipped = slurp(SOURCE_DIR "/profiles/model/model.yaml");
    assert_non_null(shipped);
    assert_string_equal(text, shipped);
    eb_model_free(&m);
    free(text);
    free(shipped);
    assert_int_equal(eb_model_load(&m, SOURCE_DIR "/profiles/model/model.yaml", &err), 0);
    assert_int_equal(m.n_chips, p->n_chips);
    assert_non_null(eb_model_chip_get(&m, "esp32"));
    eb_model_free(&m);
}

/* More of a buffer, a window or the BA window never predicts less: checked
 * from every published tier of every chip, one field at a time. */
static void test_monotonic_in_buffers_and_windows(void **state)
{
    eb_profiles *p = *state;
    eb_model m;
    eb_error err;
    assert_int_equal(eb_model_load(&m, SOURCE_DIR "/profiles/model/model.yaml", &err), 0);
    static const int fields[] = {EB_F_STATIC_RX, EB_F_DYNAMIC_RX, EB_F_DYNAMIC_TX, EB_F_STATIC_TX,
                                 EB_F_RX_BA_WIN, EB_F_TCP_SND_BUF_KB, EB_F_TCP_WND_KB, EB_F_UDP_MBOX};
    int checked = 0;
    for (int c = 0; c < p->n_chips; c++) {
        const eb_chip *chip = &p->chips[c];
        const eb_model_chip *mc = eb_model_chip_get(&m, chip->name);
        assert_non_null(mc);
        for (int k = 0; k < chip->n_tiers; k++) {
            for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
                eb_tier t = chip->tiers[k];
                int f = fields[i];
                if (!t.set[f] || (f == EB_F_RX_BA_WIN && t.value[f] == 0))
                    continue;
                eb_prediction a, b;
                eb_model_predict(mc, chip, &t, NULL, &a);
                t.value[f] += 4;
                eb_model_predict(mc, chip, &t, NULL, &b);
                for (int test = 0; test < EB_TEST_COUNT; test++) {
                    if (b.mbps[test] < a.mbps[test] - 1e-9)
                        fail_msg("%s/%s: %s +4 lowers %s from %.3f to %.3f", chip->name, t.name,
                                 eb_field_desc_get(f)->key, eb_test_name(test), a.mbps[test],
                                 b.mbps[test]);
                    checked++;
                }
                /* Memory is what buffers cost: never more free heap. */
                assert_true(b.free_kb <= a.free_kb + 1e-9);
            }
        }
    }
    assert_true(checked > 500);
    eb_model_free(&m);
}

/* A weaker signal, a longer round trip or loss never predicts more. */
static void test_link_degrades(void **state)
{
    eb_profiles *p = *state;
    eb_model m;
    eb_error err;
    assert_int_equal(eb_model_load(&m, SOURCE_DIR "/profiles/model/model.yaml", &err), 0);
    const eb_chip *chip = eb_profiles_chip(p, "esp32");
    const eb_tier *t = eb_chip_tier(chip, "default");
    const eb_model_chip *mc = eb_model_chip_get(&m, "esp32");
    eb_model_link l;
    eb_model_link_default(&l);
    assert_true(eb_model_link_is_published(&l));
    eb_prediction base, weak, far, lossy;
    eb_model_predict(mc, chip, t, &l, &base);
    l.rssi_dbm = -75;
    eb_model_predict(mc, chip, t, &l, &weak);
    eb_model_link_default(&l);
    l.rtt_ms = 20;
    eb_model_predict(mc, chip, t, &l, &far);
    eb_model_link_default(&l);
    l.loss_pct = 2;
    eb_model_predict(mc, chip, t, &l, &lossy);
    for (int k = 0; k < EB_TEST_COUNT; k++) {
        assert_true(weak.mbps[k] < base.mbps[k]);
        assert_true(far.mbps[k] <= base.mbps[k] + 1e-9);
        assert_true(lossy.mbps[k] < base.mbps[k]);
    }
    assert_true(far.mbps[EB_TEST_TCP_TX] < base.mbps[EB_TEST_TCP_TX] / 2);
    assert_true(lossy.loss[EB_TEST_UDP_RX] >= 0.02);
    eb_model_free(&m);
}

static void test_lint(void **state)
{
    (void)state;
    eb_tier t;
    memset(&t, 0, sizeof t);
    eb_error err;
    assert_int_equal(eb_model_tier_set(&t, "static_rx", "4", &err), 0);
    assert_int_equal(eb_model_tier_set(&t, "dynamic_rx", "8", &err), 0);
    assert_int_equal(eb_model_tier_set(&t, "rx_ba_win", "16", &err), 0);
    assert_int_equal(eb_model_tier_set(&t, "tcp_wnd_kb", "40", &err), 0);
    eb_lint l[8];
    int n = eb_model_lint(&t, l, 8);
    assert_int_equal(n, 2);
    assert_int_equal(l[0].level, EB_LINT_ERROR);
    assert_string_equal(l[0].msg, "rx_ba_win 16 exceeds min(dynamic_rx, 2*static_rx) = 8 (static_rx 4): "
                                  "known to stall the Wi-Fi stack (esp-idf #3663)");
    assert_int_equal(l[1].level, EB_LINT_WARNING);
    assert_int_equal(l[1].field, EB_F_TCP_WND_KB);
    /* Validation runs the same lint. */
    assert_int_equal(eb_tier_validate(&t, &err), EB_ECONFIG);
    assert_int_equal(eb_model_tier_set(&t, "rx_ba_win", "Disable", &err), 0);
    assert_int_equal(eb_model_lint(&t, l, 8), 1);
    /* Bad settings: one line each. */
    assert_int_equal(eb_model_tier_set(&t, "bogus", "1", &err), EB_ECONFIG);
    assert_non_null(strstr(err.msg, "unknown setting 'bogus'"));
    assert_int_equal(eb_model_tier_set(&t, "dynamic_tx", "0", &err), EB_ECONFIG);
    assert_string_equal(err.msg, "dynamic_tx = 0 is outside the Kconfig range 1..128 of WIFI_DYNAMIC_TX_BUFFER_NUM");
    assert_int_equal(eb_model_tier_set(&t, "wifi_iram_opt", "maybe", &err), EB_ECONFIG);
    /* Unmodelled settings are named. */
    assert_int_equal(eb_model_tier_set(&t, "icache_line", "32", &err), 0);
    assert_true(eb_model_unmodelled(&t) & (1u << EB_F_ICACHE_LINE));
}

static void test_link_input(void **state)
{
    (void)state;
    eb_model_link l;
    eb_model_link_default(&l);
    eb_error err;
    assert_int_equal(eb_model_link_set(&l, "rssi", "-65", &err), 0);
    assert_false(eb_model_link_is_published(&l));
    assert_int_equal(eb_model_link_set(&l, "rssi", "5", &err), EB_ECONFIG);
    assert_string_equal(err.msg, "rssi 5 dBm is outside -100..-10 dBm");
    assert_int_equal(eb_model_link_set(&l, "loss", "x", &err), EB_ECONFIG);
    assert_string_equal(err.msg, "loss 'x' is not a number (%)");
    assert_int_equal(eb_model_link_set(&l, "speed", "1", &err), EB_ECONFIG);
    assert_string_equal(err.msg, "unknown link setting 'speed' (rssi, phy, rtt, loss or stations)");
    eb_model_link_default(&l);
    assert_int_equal(eb_model_link_set(&l, "stations", "4", &err), 0);
    assert_false(eb_model_link_is_published(&l));
    assert_int_equal(eb_model_link_set(&l, "stations", "65", &err), EB_ECONFIG);
    assert_string_equal(err.msg, "stations 65 boards is outside 0..64 boards");
}

/* Boards sharing one AP: each gets less as more join, never more; the
 * downlink splits evenly (UDP RX of an air-bound chip falls as 1/n once
 * the air is the bound); the sum of an air-bound test never exceeds what
 * one board alone gets from the air (collisions waste some). */
static void test_shared_medium(void **state)
{
    eb_profiles *p = *state;
    eb_model m;
    eb_error err;
    assert_int_equal(eb_model_load(&m, SOURCE_DIR "/profiles/model/model.yaml", &err), 0);
    static const char *const chips[] = {"esp32", "esp32c3", "esp32s3", "esp32c2"};
    for (size_t c = 0; c < sizeof chips / sizeof chips[0]; c++) {
        const eb_chip *chip = eb_profiles_chip(p, chips[c]);
        const eb_tier *t = eb_chip_tier(chip, "iperf");
        const eb_model_chip *mc = eb_model_chip_get(&m, chips[c]);
        assert_non_null(t);
        eb_model_link l;
        eb_model_link_default(&l);
        eb_prediction prev, cur;
        eb_model_predict(mc, chip, t, &l, &prev);
        for (int n = 2; n <= 8; n++) {
            l.stations = n;
            eb_model_predict(mc, chip, t, &l, &cur);
            for (int k = 0; k < EB_TEST_COUNT; k++)
                assert_true(cur.mbps[k] <= prev.mbps[k] + 1e-9);
            prev = cur;
        }
        /* 8 boards: the air is the bound for all; their sum stays under one board's air. */
        assert_true(8 * cur.mbps[EB_TEST_UDP_TX] < 100);
    }
    eb_model_free(&m);
}

/* Published figures only for published tiers under published conditions. */
static void test_figure_source(void **state)
{
    eb_profiles *p = *state;
    eb_model m;
    eb_error err;
    assert_int_equal(eb_model_load(&m, SOURCE_DIR "/profiles/model/model.yaml", &err), 0);
    const eb_chip *chip = eb_profiles_chip(p, "esp32");
    const eb_tier *t = eb_chip_tier(chip, "iperf");
    const eb_model_chip *mc = eb_model_chip_get(&m, "esp32");
    double v;
    assert_int_equal(eb_model_figure(mc, chip, t, NULL, false, EB_TEST_TCP_TX, &v), EB_FIG_PUBLISHED);
    assert_true(v == 74.6);
    assert_int_equal(eb_model_figure(mc, chip, t, NULL, true, EB_TEST_TCP_TX, &v), EB_FIG_MODEL);
    eb_prediction pr;
    eb_model_predict(mc, chip, t, NULL, &pr);
    assert_true(v == pr.mbps[EB_TEST_TCP_TX]);
    eb_model_link l;
    eb_model_link_default(&l);
    l.rtt_ms = 5;
    assert_int_equal(eb_model_figure(mc, chip, t, &l, false, EB_TEST_COUNT, &v), EB_FIG_MODEL);
    assert_int_equal(eb_model_source(t, EB_TEST_COUNT, &l, false), EB_FIG_MODEL);
    eb_model_free(&m);
}

/* cv's summary: the median of the absolute errors (even and odd counts), the worst, NAN left out. */
static void test_cv_summary(void **state)
{
    (void)state;
    eb_model_cv_row rows[4] = {{0}};
    double v[4] = {-4, 1, NAN, 2};
    for (int i = 0; i < 4; i++)
        rows[i][0] = v[i];
    double med, worst;
    assert_int_equal(eb_model_cv_summary(rows, 4, 0, &med, &worst), 3);
    assert_true(med == 2 && worst == 4);
    assert_int_equal(eb_model_cv_summary(rows, 2, 0, &med, &worst), 2);
    assert_true(med == 2.5 && worst == 4);
    assert_int_equal(eb_model_cv_summary(rows + 2, 1, 0, &med, &worst), 0);
    assert_true(isnan(med) && isnan(worst));
    assert_string_equal(eb_model_cv_column(EB_TEST_COUNT), "free_heap");
}

/* predict --json: figures with the decimals predict always printed, a lint
 * message escaped whatever it holds, NAN as null. */
static void test_prediction_json(void **state)
{
    (void)state;
    eb_chip c = {0};
    snprintf(c.name, sizeof c.name, "esp32");
    eb_tier t = {0};
    snprintf(t.name, sizeof t.name, "iperf");
    eb_model_link l = {.rssi_dbm = NAN, .rtt_ms = 2.5, .loss_pct = 0, .stations = 1};
    eb_prediction p = {.free_kb = 100.04, .phy_mbps = 150, .mbps = {12.345, 1, 2, 3}};
    eb_lint lint = {.level = EB_LINT_ERROR, .field = 0};
    snprintf(lint.msg, sizeof lint.msg, "a \"quoted\"\tword");
    eb_buf out;
    eb_buf_init(&out);
    eb_prediction_render_json(&c, &t, &l, &p, &lint, 1, &out);
    cJSON *o = cJSON_Parse(eb_buf_cstr(&out));
    assert_non_null(o);
    assert_non_null(strstr(eb_buf_cstr(&out), "\"tcp_tx_mbps\":\t12.35"));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "link"), "rssi_dbm")));
    assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "link"), "rtt_ms")->valuedouble == 2.5);
    cJSON *l0 = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "lint"), 0);
    assert_string_equal(cJSON_GetObjectItem(l0, "message")->valuestring, "a \"quoted\"\tword");
    assert_string_equal(cJSON_GetObjectItem(l0, "level")->valuestring, "error");
    cJSON_Delete(o);
    eb_buf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_reproduces_shipped_constants),
        cmocka_unit_test(test_monotonic_in_buffers_and_windows),
        cmocka_unit_test(test_link_degrades),
        cmocka_unit_test(test_lint),
        cmocka_unit_test(test_link_input),
        cmocka_unit_test(test_shared_medium),
        cmocka_unit_test(test_figure_source),
        cmocka_unit_test(test_cv_summary),
        cmocka_unit_test(test_prediction_json),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
