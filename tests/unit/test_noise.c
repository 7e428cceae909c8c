/* Noise-aware statistics and provenance: Student's t quantiles against
 * published table values, Welch's interval and verdicts, interval flags with
 * Espressif's 30 % rule, and the console lines that state provenance facts
 * (espbench replies, stock boot log and connect/scan lines). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "espbench/formats/provenance.h"
#include "espbench/formats/stats.h"

static void test_t_quantiles(void **state)
{
    (void)state;
    /* two-sided 95 % critical values of Student's t (any statistics table) */
    const double df[] = {1, 2, 3, 5, 10, 30};
    const double q[] = {12.706, 4.303, 3.182, 2.571, 2.228, 2.042};
    for (size_t i = 0; i < sizeof df / sizeof df[0]; i++)
        assert_true(fabs(eb_student_t_quantile(0.975, df[i]) - q[i]) < 1e-3);
    assert_true(fabs(eb_student_t_quantile(0.995, 4) - 4.604) < 1e-3);
    assert_true(fabs(eb_student_t_quantile(0.025, 10) + 2.228) < 1e-3);
    assert_true(fabs(eb_betainc(2, 3, 0.4) - 0.5248) < 1e-4); /* I_0.4(2,3) = 0.5248 exactly */
    assert_true(fabs(eb_student_t_cdf(0, 7) - 0.5) < 1e-12);
    assert_true(isnan(eb_student_t_quantile(1.0, 3)));
}

static void test_welch(void **state)
{
    (void)state;
    const double a[] = {70.1, 71.9, 70.8, 71.2}, same[] = {71.0, 70.3, 71.7, 70.6}, high[] = {74.9, 75.6, 75.1, 76.0};
    eb_sample_stats sa, ss, sh, one;
    eb_sample_stats_compute(a, 4, &sa);
    eb_sample_stats_compute(same, 4, &ss);
    eb_sample_stats_compute(high, 4, &sh);
    eb_sample_stats_compute(a, 1, &one);
    assert_true(fabs(sa.mean - 71.0) < 1e-9 && fabs(sa.median - 71.0) < 1e-9 && sa.min == 70.1);
    assert_true(isnan(one.stddev) && isnan(one.cv_pct));
    eb_welch w;
    eb_welch_interval(&sa, &ss, 0.95, &w);
    assert_int_equal(w.verdict, EB_VERDICT_NOISE);
    assert_true(w.lo < 0 && w.hi > 0);
    eb_welch_interval(&sa, &sh, 0.95, &w);
    assert_int_equal(w.verdict, EB_VERDICT_BETTER);
    assert_true(w.lo > 0 && fabs(w.diff - 4.4) < 1e-9);
    /* Welch-Satterthwaite df is between min(n)-1 and n1+n2-2 */
    assert_true(w.df >= 3 && w.df <= 6);
    eb_welch_interval(&sh, &sa, 0.95, &w);
    assert_int_equal(w.verdict, EB_VERDICT_WORSE);
    eb_welch_interval(&one, &sh, 0.95, &w);
    assert_int_equal(w.verdict, EB_VERDICT_NA);
    assert_string_equal(eb_verdict_name(EB_VERDICT_NOISE), "within noise");
}

static void test_interval_flags(void **state)
{
    (void)state;
    eb_interval iv[7];
    const double r[] = {10, 50, 51, 0, 49, 30, 50}; /* warm-up second, stall, drop (30 < 0.7 * 50) */
    for (int i = 0; i < 7; i++)
        iv[i] = (eb_interval){i, i + 1, r[i] * 125000, r[i], NAN, -1, -1};
    eb_entry e;
    eb_entry_init(&e);
    e.receiver = eb_ivs_view(iv, 7);
    e.interval_s = 1;
    e.warmup_s = 1;
    unsigned char f[7];
    int stalls, drops;
    assert_int_equal(eb_interval_flags(&e, f, &stalls, &drops), 6);
    assert_int_equal(stalls, 1);
    assert_int_equal(drops, 1);
    assert_int_equal(f[0], 0); /* warm-up: not judged */
    assert_int_equal(f[3], EB_IV_STALL);
    assert_int_equal(f[5], EB_IV_DROP);
    assert_int_equal(f[4], 0); /* 49 is 2 % under the median 49.5 */
}

static void test_provenance_lines(void **state)
{
    (void)state;
    eb_provenance p;
    eb_prov_init(&p);
    assert_true(eb_prov_empty(&p));
    /* espbench firmware replies */
    assert_int_equal(eb_prov_from_line("#EB:OK proto=1 fw=0.1.0 idf=v5.5 chip=esp32 idf_commit=v5.5-12-gabc "
                                       "iperf=espressif/iperf chip_rev=v3.1 flash_mhz=80 cpu_mhz=240 "
                                       "sdkconfig=\"idf_target=esp32,spiram=0\"",
                                       &p, false),
                     7);
    assert_string_equal(p.idf_commit, "v5.5-12-gabc");
    assert_string_equal(p.sdkconfig, "idf_target=esp32,spiram=0");
    assert_true(p.flash_mhz == 80 && p.cpu_mhz == 240);
    eb_prov_from_line("espbench> #EB:OK name=iperf static_rx=16 rssi=-47 ch=6 bw=20 band=2.4GHz phy=11n ps=none "
                      "bssid=02:eb:00:00:00:01", &p, false);
    assert_true(p.rssi_before == -47 && p.channel == 6 && p.bandwidth_mhz == 20);
    assert_string_equal(p.phy_mode, "11n");
    assert_string_equal(p.ap_bssid, "02:eb:00:00:00:01");
    eb_prov_from_line("#EB:OK free_internal=1 rssi=-52", &p, true);
    assert_true(p.rssi_after == -52 && p.rssi_before == -47);
    /* another AP in a scan event is not the board's link */
    assert_int_equal(eb_prov_from_line("#EB:EV wifi.scan ssid=other rssi=-20 ch=1", &p, false), 0);

    /* stock firmware: what its logs state */
    eb_provenance s;
    eb_prov_init(&s);
    eb_prov_from_line("I (1234) wifi:connected with lab ap, aid = 1, channel 11, 40U, bssid = 24:0a:c4:00:00:09", &s,
                      false);
    assert_string_equal(s.ap_ssid, "lab ap");
    assert_true(s.channel == 11 && s.bandwidth_mhz == 40);
    assert_string_equal(s.ap_bssid, "24:0a:c4:00:00:09");
    eb_prov_from_line("I (5) cmd_wifi: [lab ap][rssi=-61]", &s, false);
    assert_true(s.rssi_before == -61);
    eb_prov_from_line("I (5) WIFI: +SCAN:[aa:bb:cc:dd:ee:ff][lab ap][rssi=-63][authmode=3][ch=11][second=0][11n]", &s,
                      true);
    assert_true(s.rssi_after == -63);
    eb_prov_from_line("I (29) boot: chip revision: v1.0", &s, false);
    eb_prov_from_line("I (33) boot.esp32: SPI Speed      : 40MHz", &s, false);
    eb_prov_from_line("I (250) cpu_start: cpu freq: 160000000 Hz", &s, false);
    eb_prov_from_line("I (260) app_init: ESP-IDF:          v5.1.2", &s, false);
    assert_string_equal(s.chip_rev, "v1.0");
    assert_true(s.flash_mhz == 40 && s.cpu_mhz == 160);
    assert_string_equal(s.idf_version, "v5.1.2");
    assert_true(isnan(s.unit_base) && s.phy_mode[0] == 0); /* never guessed */
}

static void test_env_check(void **state)
{
    (void)state;
    char why[160];
    assert_int_equal(eb_prov_check_env("shield-box", why, sizeof why), 0);
    assert_int_equal(eb_prov_check_env("lab 3, 2 m from the AP", why, sizeof why), 0);
    assert_int_equal(eb_prov_check_env("air\n", why, sizeof why), -1);
    assert_string_equal(why, "control character 0x0a at offset 3; give plain text such as shield-box, air or cable");
    assert_int_equal(eb_prov_check_env("a\x1b[31m", why, sizeof why), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t_quantiles),     cmocka_unit_test(test_welch),
        cmocka_unit_test(test_interval_flags),  cmocka_unit_test(test_provenance_lines),
        cmocka_unit_test(test_env_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
