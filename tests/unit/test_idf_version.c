/* The ESP-IDF version order of the IDF matrix. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_is_semantic),
        cmocka_unit_test(test_text_breaks_ties),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
