/* One bad profile per rule, each refused with the exact "file:line:col: message". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "espbench/formats/profile.h"
#include "espbench/adapters/profile_dirs.h"

#define BAD FIXTURES_DIR "/profiles/bad/"

static const struct {
    const char *file, *msg;
} cases[] = {
    {"unknown_key.yaml",
     "22:5: unknown key 'colour' in tier (allowed: name, label, label_zh, base, psram, image, "
     "runtime, settings, reference, reference_5g)"},
    {"wrong_type.yaml", "18:18: expected an integer for 'static_rx', got 'eight'"},
    {"out_of_range.yaml",
     "18:18: tier 'default': static_rx = 200 is outside the Kconfig range 2..128 of "
     "WIFI_STATIC_RX_BUFFER_NUM"},
    {"ba_window.yaml",
     "20:18: tier 'default': rx_ba_win = 16 exceeds min(dynamic_rx, 2*static_rx) = min(32, 12) = "
     "12; ESP-IDF requires WIFI_RX_BA_WIN <= min(WIFI_DYNAMIC_RX_BUFFER_NUM, "
     "2*WIFI_STATIC_RX_BUFFER_NUM)"},
    {"both_tx.yaml",
     "19:18: tier 'default': dynamic_tx and static_tx are both set; the Wi-Fi TX buffer type is "
     "either dynamic or static, so set only one (static with PSRAM)"},
    {"inherited_both_tx.yaml",
     "26:18: tier 'psram': dynamic_tx and static_tx are both set; the Wi-Fi TX buffer type is "
     "either dynamic or static, so set only one (static with PSRAM)"},
    {"duplicate_tier.yaml", "22:11: duplicate tier 'default' (first defined at line 16)"},
    {"unknown_base.yaml",
     "23:11: tier 'faster' has unknown base tier 'defualt' (testchip has: default, faster)"},
    {"cycle.yaml", "19:11: inheritance cycle: a -> c -> b -> a"},
    {"missing_fact.yaml", "1:1: chip is missing the required key 'rom_banner'"},
    {"syntax.yaml",
     "18:9: YAML syntax error: did not find expected ',' or '}' while parsing a flow mapping "
     "(line 17)"},
    {"wnd_scale.yaml",
     "18:19: tier 'default': tcp_wnd_kb = 85 is above 65, which needs LWIP_WND_SCALE; ESP-IDF "
     "offers it only with PSRAM (psram: true)"},
    {"needs_image.yaml",
     "16:11: tier 'default': none of its settings can change at run time, so it must name its "
     "firmware image (image: NAME)"},
    {"duplicate_key.yaml", "19:7: duplicate key 'static_rx' in settings (first at line 18)"},
};

static void test_each_bad_fixture(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512], want[1024];
        snprintf(path, sizeof path, BAD "%s", cases[i].file);
        snprintf(want, sizeof want, "%s:%s", path, cases[i].msg);
        eb_profiles p;
        eb_error err;
        eb_error_clear(&err);
        int rc = eb_profiles_load_file(&p, path, &err);
        if (rc == 0) {
            eb_profiles_free(&p);
            fail_msg("%s loaded", cases[i].file);
        }
        assert_int_equal(rc, EB_ECONFIG);
        assert_int_equal(err.code, EB_ECONFIG);
        assert_null(strchr(err.msg, '\n'));
        if (strcmp(err.msg, want) != 0)
            fail_msg("%s:\n  got:  %s\n  want: %s", cases[i].file, err.msg, want);
        assert_null(p.chips);
    }
}

/* In a directory the same errors keep their location. */
static void test_bad_dir_reports_location(void **state)
{
    (void)state;
    const char *dirs[] = {SOURCE_DIR "/profiles", FIXTURES_DIR "/profiles/broken"};
    eb_profiles p;
    eb_error err;
    eb_error_clear(&err);
    assert_int_equal(eb_profiles_load(&p, dirs, 2, &err), EB_ECONFIG);
    assert_string_equal(err.msg, FIXTURES_DIR "/profiles/broken/esp32.yaml:8:18: tier 'broken': "
                                              "rx_ba_win = 16 exceeds min(dynamic_rx, 2*static_rx) "
                                              "= min(20, 12) = 12; ESP-IDF requires WIFI_RX_BA_WIN "
                                              "<= min(WIFI_DYNAMIC_RX_BUFFER_NUM, "
                                              "2*WIFI_STATIC_RX_BUFFER_NUM)");
}

static void test_missing_file_and_dir(void **state)
{
    (void)state;
    eb_profiles p;
    eb_error err;
    eb_error_clear(&err);
    assert_int_equal(eb_profiles_load_file(&p, BAD "nope.yaml", &err), EB_ECONFIG);
    assert_string_equal(err.msg, BAD "nope.yaml: cannot read: No such file or directory");
    const char *dirs[] = {FIXTURES_DIR "/profiles/none"};
    assert_int_equal(eb_profiles_load(&p, dirs, 1, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "profiles directory '" FIXTURES_DIR
                                 "/profiles/none': No such file or directory");
}

/* A size whose product with its unit wraps around 64 bits is refused, not
 * taken as the small number it wraps to (2^44+1 MB wraps to 1 MB). */
static void test_size_overflow(void **state)
{
    (void)state;
    static const char yaml[] = "chip:\n  name: testchip\n  display: TEST\n  magic: 0x12345678\n"
                               "  chip_id: 99\n  rom_security_info: true\n  rom_status_bytes: 4\n"
                               "  efuse_mac_reg: 0x60008844\n  spi_reg_base: 0x60002000\n"
                               "  bootloader_offset: 0x0\n  flash_size: 17592186044417MB\n"
                               "  has_psram: false\n  rom_banner: \"ESP-ROM:test\"\n  cpu_mhz: 160\n"
                               "tiers:\n  - name: default\n    settings:\n      static_rx: 8\n";
    char path[] = "/tmp/eb_size_overflowXXXXXX.yaml";
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, yaml, sizeof yaml - 1), (ssize_t)(sizeof yaml - 1));
    close(fd);
    eb_profiles p;
    eb_error err;
    eb_error_clear(&err);
    int rc = eb_profiles_load_file(&p, path, &err);
    if (rc == 0)
        eb_profiles_free(&p);
    unlink(path);
    assert_int_equal(rc, EB_ECONFIG);
    char want[512];
    snprintf(want, sizeof want, "%s:11:15: expected a size such as 4MB for 'flash_size', got '17592186044417MB'", path);
    assert_string_equal(err.msg, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_bad_fixture),
        cmocka_unit_test(test_bad_dir_reports_location),
        cmocka_unit_test(test_missing_file_and_dir),
        cmocka_unit_test(test_size_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
