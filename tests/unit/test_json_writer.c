/* Streaming JSON writer: cJSON_Print's layout byte for byte (results.json
 * files written before it must not change), numbers as printf would give them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "formats/json_writer.h"

/* The rule the writer keeps: integers as %d, else the shorter of %1.15g and
 * %1.17g that reads back the same. */
static void reference(double v, char out[32])
{
    if (v >= -2147483648.0 && v <= 2147483647.0 && v == (double)(int)v) {
        snprintf(out, 32, "%d", (int)v);
        return;
    }
    snprintf(out, 32, "%1.15g", v);
    if (strtod(out, NULL) != v)
        snprintf(out, 32, "%1.17g", v);
}

static void test_numbers_match_printf(void **state)
{
    (void)state;
    static const double fixed[] = {0.0, -0.0, 0.5, 50.332608, 3145788, 1e-4, 9.99e-5, 1e15, 999999999999999.0,
                                   0.1, 1.0 / 3, 2147483648.0, -2147483649.0, 123456789012345.6, 5e-324, -7.25,
                                   1e300, 12.000000000000002};
    char a[32], b[32];
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        reference(fixed[i], a);
        eb_jw_fmt_num(fixed[i], b);
        assert_string_equal(a, b);
    }
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double v;
        switch (i % 4) {
        case 0: v = (double)(x % 100000000) / 1e6; break;                 /* Mbit/s with 6 decimals */
        case 1: v = (double)(x % 1000000000) / pow(10, (double)(x % 13)); break;
        case 2: v = pow(10.0, -4.5 + 20.0 * (double)(x >> 11) / 9007199254740992.0); break; /* 17 digits */
        default: memcpy(&v, &x, sizeof v); if (!isfinite(v)) v = 1.5; break;
        }
        reference(v, a);
        eb_jw_fmt_num(v, b);
        assert_string_equal(a, b);
    }
}

static void test_layout_is_cjson_print(void **state)
{
    (void)state;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "s", "a\"b\\c\n\x01\xc3\xa9");
    cJSON_AddNumberToObject(root, "n", 3);
    cJSON *arr = cJSON_AddArrayToObject(root, "list");
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNullToObject(o, "x");
    cJSON_AddObjectToObject(o, "empty");
    cJSON_AddItemToArray(arr, o);
    cJSON_AddItemToArray(arr, cJSON_CreateObject());
    cJSON_AddArrayToObject(root, "none");
    char *want = cJSON_Print(root);
    cJSON_Delete(root);

    eb_buf b;
    eb_buf_init(&b);
    eb_jw w;
    eb_jw_init(&w, &b);
    eb_jw_object(&w, NULL);
    eb_jw_str(&w, "s", "a\"b\\c\n\x01\xc3\xa9");
    eb_jw_int(&w, "n", 3);
    eb_jw_array(&w, "list");
    eb_jw_object(&w, NULL);
    eb_jw_null(&w, "x");
    eb_jw_object(&w, "empty");
    eb_jw_end(&w);
    eb_jw_end(&w);
    eb_jw_object(&w, NULL);
    eb_jw_end(&w);
    eb_jw_end(&w);
    eb_jw_array(&w, "none");
    eb_jw_end(&w);
    eb_jw_end(&w);
    assert_string_equal(eb_buf_cstr(&b), want);
    eb_buf_free(&b);
    free(want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers_match_printf),
        cmocka_unit_test(test_layout_is_cjson_print),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
