/* The radio dimensions (formats/dims.c): flag lists, the points they make,
 * the key they leave (a default keeps the key it had), the chip rules from
 * the shipped profiles with their exact lines, the reference per band
 * (eb_tier_ref), the PHY ceilings, the radio models' numbers
 * (radio_model.c), and provenance written only where known. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/adapters/profile_dirs.h"
#include "espbench/formats/dims.h"
#include "espbench/formats/radio_model.h"
#include "espbench/formats/results.h"

static eb_profiles shipped;

static int load(void **state)
{
    (void)state;
    const char *dirs[] = {SOURCE_DIR "/profiles"};
    eb_error err = {0};
    return eb_profiles_load(&shipped, dirs, 1, &err);
}

static int unload(void **state)
{
    (void)state;
    eb_profiles_free(&shipped);
    return 0;
}

static void test_parse(void **state)
{
    (void)state;
    eb_radio_values rv = {0};
    eb_error err = {0};
    assert_int_equal(eb_radio_parse(&rv, EB_DIM_BAND, "2.4,5g", &err), 0);
    assert_int_equal(rv.n[EB_DIM_BAND], 2);
    assert_string_equal(rv.v[EB_DIM_BAND][1], "5");
    assert_int_equal(eb_radio_parse(&rv, EB_DIM_RADIO_BW, "ht20,40", &err), 0);
    assert_string_equal(rv.v[EB_DIM_RADIO_BW][0], "20");
    assert_int_equal(eb_radio_parse(&rv, EB_DIM_POWER_SAVE, "none,min-modem", &err), 0);
    assert_string_equal(rv.v[EB_DIM_POWER_SAVE][1], "min_modem");
    assert_int_equal(eb_radio_parse(&rv, EB_DIM_COEX, "ble-scan", &err), 0);
    assert_string_equal(rv.v[EB_DIM_COEX][0], "ble_scan");
    assert_int_equal(eb_radio_parse(&rv, EB_DIM_BAND, "2.4,6", &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--band 2.4,6: '6' is not one of 2.4, 5");
    assert_int_equal(eb_radio_parse(&rv, EB_DIM_PHY, "ax,11ax", &err), EB_ECONFIG);
    assert_string_equal(err.msg, "--phy ax,11ax: ax given twice");
    assert_int_equal(eb_radio_parse(&rv, EB_DIM_TIER, "x", &err), EB_ECONFIG);
}

/* A point's values (names: their index in the row's) into the key: a
 * default leaves it as it was. */
static void test_values_and_keys(void **state)
{
    (void)state;
    double at[EB_DIM_MAX];
    int extra[EB_DIM_MAX] = {[EB_DIM_POWER_SAVE] = 10};
    for (int d = 0; d < EB_DIM_MAX; d++)
        at[d] = NAN;
    const eb_dim_desc *band = eb_dim(EB_DIM_BAND), *ps = eb_dim(EB_DIM_POWER_SAVE);
    assert_true(eb_dim_value(band, "2.4") == 0);
    assert_true(eb_dim_value(band, "5") == 1);
    assert_true(isnan(eb_dim_value(band, "6")));
    assert_true(eb_dim_value(eb_dim(eb_dim_from_name("len")), "512") == 512);
    char text[16];
    eb_dim_value_text(ps, 2, text, sizeof text);
    assert_string_equal(text, "max_modem");

    eb_provenance k, none;
    eb_prov_init(&none);
    eb_prov_init(&k);
    at[EB_DIM_BAND] = 0; /* 2.4 GHz, no power save: the defaults, the key as it was */
    at[EB_DIM_POWER_SAVE] = 0;
    eb_dims_key(at, EB_DIM_NONE, extra, &k);
    assert_true(eb_dims_at_default(&k));
    eb_prov_init(&k);
    at[EB_DIM_BAND] = 1;
    at[EB_DIM_POWER_SAVE] = 2;
    eb_dims_key(at, EB_DIM_NONE, extra, &k);
    assert_string_equal(k.radio_band, "5");
    assert_string_equal(k.radio_power_save, "max_modem");
    assert_true(k.radio_listen_interval == 10);
    assert_false(eb_dims_same_point(&k, &none));
    char label[96];
    eb_radio_label(&k, label, sizeof label);
    assert_string_equal(label, "band=5 ps=max_modem li=10");
    eb_dims_point_label(&k, label, sizeof label);
    assert_string_equal(label, "band=5 ps=max_modem li=10");
    eb_dims_file_tag(&k, label, sizeof label);
    assert_string_equal(label, "-band5-psmax_modem-li10");
    at[EB_DIM_RSSI] = -60; /* the swept row: the sweep pair */
    eb_prov_init(&k);
    eb_dims_key(at, EB_DIM_RSSI, extra, &k);
    assert_string_equal(k.sweep_var, "rssi");
    eb_dims_point_label(&k, label, sizeof label);
    assert_string_equal(label, "rssi=-60 band=5 ps=max_modem li=10");
    eb_dims_file_tag(&k, label, sizeof label);
    assert_string_equal(label, "-rssi-60-band5-psmax_modem-li10");
}

static bool can(const char *chip, int dim, const char *list, char *why, size_t cap)
{
    eb_radio_values rv = {0};
    eb_error err = {0};
    assert_int_equal(eb_radio_parse(&rv, dim, list, &err), 0);
    const eb_chip *c = eb_profiles_chip(&shipped, chip);
    assert_non_null(c);
    why[0] = 0;
    return eb_radio_chip_can(&rv, c, why, cap);
}

/* What the chips cannot do, from their profiles' facts. */
static void test_chip_rules(void **state)
{
    (void)state;
    char why[300];
    assert_true(can("esp32c5", EB_DIM_BAND, "2.4,5", why, sizeof why));
    assert_false(can("esp32c3", EB_DIM_BAND, "5", why, sizeof why));
    assert_string_equal(why, "--band 5: esp32c3 has no 5 GHz Wi-Fi (profile esp32c3: wifi_bands \"2.4\"; 5 GHz: "
                             "ESP32-C5 only)");
    assert_false(can("esp32", EB_DIM_PHY, "ax", why, sizeof why));
    assert_string_equal(why, "--phy ax: esp32 has no 802.11ax (profile esp32: wifi6 false; 11ax: ESP32-C5, C6, C61)");
    assert_true(can("esp32c6", EB_DIM_PHY, "ax", why, sizeof why));
    assert_true(can("esp32c61", EB_DIM_PHY, "ax", why, sizeof why));
    assert_false(can("esp32s2", EB_DIM_COEX, "none,ble-adv", why, sizeof why));
    assert_string_equal(why, "--coex ble_adv: esp32s2 has no Bluetooth LE (profile esp32s2: ble false)");
    assert_true(can("esp32s3", EB_DIM_COEX, "ble-scan", why, sizeof why));
    assert_false(can("esp32c2", EB_DIM_RADIO_BW, "40", why, sizeof why));
    assert_string_equal(why, "--bandwidth 40: esp32c2 has no HT40 (profile esp32c2: ht40_bands \"\"; 20 MHz only)");

    /* combinations */
    eb_radio_values rv = {0};
    eb_error err = {0};
    eb_radio_parse(&rv, EB_DIM_BAND, "5", &err);
    eb_radio_parse(&rv, EB_DIM_PHY, "g", &err);
    assert_false(eb_radio_chip_can(&rv, eb_profiles_chip(&shipped, "esp32c5"), why, sizeof why));
    assert_string_equal(why, "--phy g: a 2.4 GHz mode, and the run asks for 5 GHz");
    eb_radio_values li = {0};
    li.extra[EB_DIM_POWER_SAVE] = 10;
    assert_false(eb_radio_chip_can(&li, eb_profiles_chip(&shipped, "esp32c3"), why, sizeof why));
    assert_string_equal(why, "--listen-interval applies with --power-save max-modem only "
                             "(wifi_sta_config_t.listen_interval)");
}

/* The C5's two rows of the docs, picked by the key's band. */
static void test_tier_ref_per_band(void **state)
{
    (void)state;
    const eb_chip *c5 = eb_profiles_chip(&shipped, "esp32c5");
    const eb_tier *t = eb_chip_tier(c5, "iperf");
    assert_non_null(t);
    eb_provenance k;
    eb_prov_init(&k);
    static const double two[] = {49, 59, 63, 68}, five[] = {50, 61, 64, 71}; /* tcp_tx tcp_rx udp_tx udp_rx */
    for (int test = 0; test < EB_TEST_COUNT; test++) {
        snprintf(k.radio_band, sizeof k.radio_band, "5");
        assert_true(eb_tier_ref(t, test, &k) == five[test]);
        k.radio_band[0] = 0;
        assert_true(eb_tier_ref(t, test, &k) == two[test]);
        assert_true(eb_tier_ref(t, test, NULL) == two[test]);
    }
    /* A chip without a 5 GHz row has no 5 GHz figure. */
    const eb_tier *c3 = eb_chip_tier(eb_profiles_chip(&shipped, "esp32c3"), "iperf");
    snprintf(k.radio_band, sizeof k.radio_band, "5");
    assert_true(isnan(eb_tier_ref(c3, EB_TEST_TCP_RX, &k)));
}

static void test_phy_ceilings(void **state)
{
    (void)state;
    assert_true(eb_phy_ceiling_mbps("11n", 20) == 72.2);
    assert_true(eb_phy_ceiling_mbps("11n", 40) == 150);
    assert_true(eb_phy_ceiling_mbps("11ax", 20) == 114.7);
    assert_true(eb_phy_ceiling_mbps("11g", 20) == 54);
    assert_true(eb_phy_ceiling_mbps("11b", 20) == 11);
    assert_true(isnan(eb_phy_ceiling_mbps("11be", 20)));
    assert_string_equal(eb_radio_mode(true, true, true, true, 20), "11ax");
    assert_string_equal(eb_radio_mode(true, true, true, true, 40), "11n"); /* HE20 only: HT40 */
    assert_string_equal(eb_radio_mode(true, true, false, false, 20), "11g");
}

static void test_models(void **state)
{
    (void)state;
    assert_true(eb_radio_ps_wait_ms(EB_RADIO_PS_NONE, 0, 50) == 0);
    assert_true(eb_radio_ps_wait_ms(EB_RADIO_PS_MIN_MODEM, 0, 0) == 0);
    assert_true(fabs(eb_radio_ps_wait_ms(EB_RADIO_PS_MIN_MODEM, 0, 2.4) - 100.0) < 1e-9);
    assert_true(fabs(eb_radio_ps_wait_ms(EB_RADIO_PS_MAX_MODEM, 0, 100) - 207.2) < 1e-9); /* listen interval 3 */
    assert_true(fabs(eb_radio_ps_wait_ms(EB_RADIO_PS_MAX_MODEM, 10, 1024) - 0) < 1e-9);
    assert_true(fabs(eb_radio_ps_mean_wait_ms(EB_RADIO_PS_MIN_MODEM, 0) - 51.2) < 1e-9);
    assert_true(eb_radio_coex_share(EB_RADIO_COEX_NONE) == 1.0);
    assert_true(eb_radio_coex_share(EB_RADIO_COEX_BLE_SCAN) == 0.5);
    assert_true(eb_radio_coex_share(EB_RADIO_COEX_BLE_ADV) == 0.95);
    eb_provenance k;
    eb_prov_init(&k);
    assert_false(eb_radio_modelled(&k));
    snprintf(k.radio_band, sizeof k.radio_band, "5");
    assert_false(eb_radio_modelled(&k)); /* the docs' 5 GHz row */
    snprintf(k.radio_coex, sizeof k.radio_coex, "ble_scan");
    assert_true(eb_radio_modelled(&k));
}

/* The radio fields are written only where known: results of a run at
 * the defaults keep their bytes. */
static void test_optional_provenance(void **state)
{
    (void)state;
    eb_provenance p;
    eb_prov_init(&p);
    eb_buf b = {0};
    eb_prov_to_json(&p, &b);
    eb_buf_append_byte(&b, 0);
    assert_null(strstr((char *)b.data, "radio_"));
    assert_non_null(strstr((char *)b.data, "\"instruments\":null}"));
    b.len = 0;
    snprintf(p.radio_band, sizeof p.radio_band, "5");
    p.radio_bandwidth = 40;
    eb_prov_to_json(&p, &b);
    eb_buf_append_byte(&b, 0);
    assert_non_null(strstr((char *)b.data, "\"instruments\":null,\"radio_band\":\"5\",\"radio_bandwidth\":40}"));
    eb_buf_free(&b);

    /* two bands of one cell are two results; CSV columns only where known */
    eb_results r;
    eb_results_init(&r);
    eb_entry e;
    eb_entry_init(&e);
    snprintf(e.board, sizeof e.board, "sim");
    snprintf(e.chip, sizeof e.chip, "esp32c5");
    snprintf(e.tier, sizeof e.tier, "iperf");
    e.test = EB_TEST_TCP_RX;
    eb_results_put(&r, &e);
    eb_buf csv = {0};
    eb_results_to_csv(&r, &csv);
    eb_buf_append_byte(&csv, 0);
    assert_null(strstr((char *)csv.data, "prov_radio_band"));
    snprintf(eb_entry_prov_mut(&e)->radio_band, 8, "5");
    eb_results_put(&r, &e);
    assert_int_equal(r.n_entries, 2);
    csv.len = 0;
    eb_results_to_csv(&r, &csv);
    eb_buf_append_byte(&csv, 0);
    assert_non_null(strstr((char *)csv.data, ",interval_loss_pct,prov_radio_band\r\n"));
    eb_buf_free(&csv);
    eb_entry_free(&e);
    eb_results_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),           cmocka_unit_test(test_values_and_keys),
        cmocka_unit_test(test_chip_rules),      cmocka_unit_test(test_tier_ref_per_band),
        cmocka_unit_test(test_phy_ceilings),    cmocka_unit_test(test_models),
        cmocka_unit_test(test_optional_provenance),
    };
    return cmocka_run_group_tests(tests, load, unload);
}
