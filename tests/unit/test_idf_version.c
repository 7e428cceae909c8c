/* The ESP-IDF version order of the IDF matrix. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "espbench/formats/idf_version.h"

/* Each version strictly older than the next. */
static const char *const ordered[] = {
    "",          "v4.4.2",      "v5.1",         "v5.1.1",  "v5.3-beta1", "v5.3-rc1", "v5.3",
    "v5.3-12-gabc1234", "v5.3-128-g0a1b2c3", "v5.3.1", "v5.10", "v6.0-dev", "v6.0-dev-1502-g1234567",
    "v6.0-beta1", "v6.0-beta2", "v6.0-rc1",  "v6.0",     "master",    "zz-custom",
};

static void test_order_is_semantic(void **state)
{
    (void)state;
    int n = (int)(sizeof ordered / sizeof ordered[0]);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            int c = eb_idf_version_cmp(ordered[i], ordered[j]);
            if (i < j)
                assert_true(c < 0);
            else if (i > j)
                assert_true(c > 0);
            else
                assert_int_equal(c, 0);
        }
}

static void test_text_breaks_ties(void **state)
{
    (void)state;
    /* v5.1 and v5.1.0 name the same release: still a total order. */
    assert_true(eb_idf_version_cmp("v5.1", "v5.1.0") < 0);
    assert_true(eb_idf_version_cmp("5.1", "v5.1") < 0);
    assert_int_equal(eb_idf_version_cmp("v5.2", "v5.2"), 0);
    assert_true(eb_idf_version_cmp("v5.2-dirty", "v5.2") < 0); /* an unknown suffix word: a pre-release */
}

/* The firmware's checked range: v5.1.2 to every v6.0.x. */
static void test_firmware_supported_range(void **state)
{
    (void)state;
    static const char *const ok[] = {"v5.1.2", "v5.1.7", "v5.2.7", "v5.3.5", "v5.4.4", "v5.5.5", "v6.0",
                                     "v6.0.2", "v6.0.9", "v5.5.1-12-gabc1234", "v5.4.4-dirty", "5.3.1"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        assert_int_equal(eb_idf_firmware_supported(ok[i], NULL), 0);
    static const struct {
        const char *v, *what;
    } bad[] = {
        {"v5.1.1", "older than the firmware supports"},
        {"v5.1", "older than the firmware supports"},
        {"v5.1.1-40-g0123abc", "older than the firmware supports"},
        {"v4.4.7", "older than the firmware supports"},
        {"v6.1", "newer than the firmware was checked with"},
        {"v6.1.0", "newer than the firmware was checked with"},
        {"v7.0", "newer than the firmware was checked with"},
        {"v6.1-dev", "pre-release"},
        {"v6.0-rc1", "pre-release"},
        {"v5.3-beta2", "pre-release"},
        {"master", "not a release version"},
        {"", "not a release version"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        eb_error e = {0};
        assert_int_equal(eb_idf_firmware_supported(bad[i].v, &e), EB_ECONFIG);
        if (!strstr(e.msg, bad[i].what) || !strstr(e.msg, "v5.1.2 to v6.0.x") || strchr(e.msg, '\n'))
            fail_msg("%s: %s", bad[i].v, e.msg);
    }
    eb_error e = {0};
    eb_idf_firmware_supported("v6.1.0", &e);
    assert_string_equal(e.msg, "ESP-IDF v6.1.0 is newer than the firmware was checked with; the espbench firmware is "
                               "checked with v5.1.2 to v6.0.x (docs/firmware.md, \"Checking against ESP-IDF\"): use "
                               "a checkout of that range, or check the firmware with the newer release first");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_is_semantic),
        cmocka_unit_test(test_text_breaks_ties),
        cmocka_unit_test(test_firmware_supported_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
