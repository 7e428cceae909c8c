/* ESP image build/parse: header fields, app descriptor, checksum, SHA-256, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "espbench/formats/esp_image.h"

static void build(eb_buf *b, int chip_id, size_t size)
{
    eb_image_spec s = {.chip_id = chip_id, .project_name = "iperf", .version = "v1.2", .idf_ver = "v5.1.2",
                       .size = size, .seed = 3, .flash_size_freq = 0x20};
    eb_error e;
    eb_buf_init(b);
    assert_int_equal(eb_image_build(&s, b, &e), 0);
}

static void test_build_parse_esp32s3(void **state)
{
    (void)state;
    eb_buf b;
    build(&b, 9, 100000);
    assert_int_equal(b.len, 100000);
    assert_int_equal(b.data[0], 0xE9);
    assert_int_equal(eb_rd16le(b.data + 12), 9);
    assert_int_equal(eb_rd32le(b.data + 32), EB_APP_DESC_MAGIC);
    eb_image_info inf;
    eb_error e;
    assert_int_equal(eb_image_parse(b.data, b.len, false, &inf, &e), 0);
    assert_true(inf.has_ext_header);
    assert_int_equal(inf.chip_id, 9);
    assert_true(inf.hash_appended);
    assert_true(inf.checksum_ok);
    assert_true(inf.sha256_ok);
    assert_true(inf.has_app_desc);
    assert_int_equal(inf.image_len, b.len);
    assert_int_equal(inf.flash_size_freq, 0x20);
    assert_int_equal(eb_image_flash_size_bytes(inf.flash_size_freq), 4u * 1024 * 1024);
    assert_string_equal(inf.project_name, "iperf");
    assert_string_equal(inf.version, "v1.2");
    assert_string_equal(inf.idf_ver, "v5.1.2");
    assert_string_equal(inf.date, "Jan  1 2026");
    eb_buf_free(&b);
}

static void test_corruption_detected(void **state)
{
    (void)state;
    eb_buf b;
    build(&b, 0, 20000);
    eb_image_info inf;
    eb_error e;
    b.data[5000] ^= 0x01; /* inside a segment: checksum byte and hash both break */
    assert_int_equal(eb_image_parse(b.data, b.len, false, &inf, &e), 0);
    assert_false(inf.checksum_ok);
    assert_false(inf.sha256_ok);
    b.data[5000] ^= 0x01;
    b.data[b.len - 1] ^= 0x80; /* the hash itself */
    assert_int_equal(eb_image_parse(b.data, b.len, false, &inf, &e), 0);
    assert_true(inf.checksum_ok);
    assert_false(inf.sha256_ok);
    eb_buf_free(&b);
}

static void test_esp8266_layout(void **state)
{
    (void)state;
    eb_buf b;
    build(&b, -1, 50000);
    eb_image_info inf;
    eb_error e;
    assert_int_equal(eb_image_parse(b.data, b.len, true, &inf, &e), 0);
    assert_false(inf.has_ext_header);
    assert_false(inf.has_app_desc);
    assert_false(inf.hash_appended);
    assert_true(inf.checksum_ok);
    assert_true(inf.sha256_ok);
    assert_int_equal(inf.image_len, b.len);
    eb_buf_free(&b);
}

static void test_parse_errors(void **state)
{
    (void)state;
    eb_image_info inf;
    eb_error e;
    uint8_t ff[64];
    memset(ff, 0xFF, sizeof ff);
    assert_int_equal(eb_image_parse(ff, sizeof ff, false, &inf, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "not an ESP image: first byte 0xff (expected 0xE9)");
    assert_int_equal(eb_image_parse(ff, 0, false, &inf, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "truncated: empty image (expected an 8-byte header)");
    const uint8_t hdr[] = {0xE9, 0x01, 0x02, 0x20, 0, 0, 0, 0};
    assert_int_equal(eb_image_parse(hdr, sizeof hdr, false, &inf, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "truncated: 8 bytes, the image header needs 24");

    eb_buf b;
    build(&b, 5, 20000);
    assert_int_equal(eb_image_parse(b.data, 1000, false, &inf, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "truncated: segment 0 at offset 0x18 has length 5568 but only 968 bytes follow");
    assert_int_equal(eb_image_parse(b.data, b.len - 10, false, &inf, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "truncated: appended SHA-256 at offset 0x4e00 is past the end (19990 bytes)");
    b.data[1] = 0;
    assert_int_equal(eb_image_parse(b.data, b.len, false, &inf, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "bad image header: 0 segments (expected 1..16)");
    eb_buf_free(&b);
}

static void test_compressible_like_a_real_app(void **state)
{
    (void)state;
    eb_buf b;
    build(&b, 0, 1 << 20);
    uLongf clen = compressBound(b.len);
    eb_buf c;
    eb_buf_init(&c);
    eb_buf_reserve(&c, clen);
    assert_int_equal(compress2(c.data, &clen, b.data, b.len, 9), Z_OK);
    double ratio = (double)clen / (double)b.len;
    assert_true(ratio > 0.50 && ratio < 0.70);
    eb_buf_free(&c);
    eb_buf_free(&b);
}

static void test_deterministic_and_size_limits(void **state)
{
    (void)state;
    eb_buf a, b;
    build(&a, 13, 30000);
    build(&b, 13, 30000);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    eb_buf_free(&a);
    eb_buf_free(&b);
    eb_image_spec s = {.chip_id = 0, .project_name = "x", .idf_ver = "v5.0", .size = 100};
    eb_error e;
    eb_buf_init(&a);
    assert_int_equal(eb_image_build(&s, &a, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "image size 100 is too small (at least 4096 bytes)");
    eb_buf_free(&a);
}

/* The test-only efficiency factor: stored, read back, absent by default, range checked. */
static void test_test_efficiency_round_trip(void **state)
{
    (void)state;
    eb_image_spec s = {.chip_id = 9, .project_name = "espbench", .version = "1", .idf_ver = "v5.3-dev-7",
                       .size = 65536, .seed = 1, .flash_size_freq = 0x20, .test_efficiency = 0.85};
    eb_buf b;
    eb_error e;
    eb_buf_init(&b);
    assert_int_equal(eb_image_build(&s, &b, &e), 0);
    const uint8_t *desc = b.data + 32;
    assert_int_equal(eb_rd32le(desc + EB_APP_DESC_TEST_EFF_OFFSET), 0x46544245u);
    assert_int_equal(eb_rd32le(desc + EB_APP_DESC_TEST_EFF_OFFSET + 4), 850000u);
    eb_image_info inf;
    assert_int_equal(eb_image_parse(b.data, b.len, false, &inf, &e), 0);
    assert_true(inf.sha256_ok);
    assert_float_equal(inf.test_efficiency, 0.85, 1e-9);
    assert_string_equal(inf.idf_ver, "v5.3-dev-7");
    eb_buf_free(&b);

    eb_buf_init(&b);
    s.test_efficiency = 0;
    assert_int_equal(eb_image_build(&s, &b, &e), 0);
    assert_int_equal(eb_image_parse(b.data, b.len, false, &inf, &e), 0);
    assert_float_equal(inf.test_efficiency, 0.0, 0);
    eb_buf_free(&b);

    eb_buf_init(&b);
    s.test_efficiency = 5;
    assert_int_equal(eb_image_build(&s, &b, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "test efficiency 5 is outside 0..4");
    eb_buf_free(&b);
}

/* The test-only build tier: stored after its marker, read back beside the
 * efficiency factor, absent by default. */
static void test_build_tier_round_trip(void **state)
{
    (void)state;
    eb_image_spec s = {.chip_id = 9, .project_name = "espbench", .version = "1", .idf_ver = "v5.3",
                       .size = 65536, .seed = 1, .flash_size_freq = 0x20, .test_efficiency = 0.5,
                       .test_build_tier = "minimum"};
    eb_buf b;
    eb_error e;
    eb_buf_init(&b);
    assert_int_equal(eb_image_build(&s, &b, &e), 0);
    const uint8_t *desc = b.data + 32;
    assert_int_equal(eb_rd32le(desc + EB_APP_DESC_TEST_TIER_OFFSET), 0x42544245u);
    assert_memory_equal(desc + EB_APP_DESC_TEST_TIER_OFFSET + 4, "minimum", 8);
    eb_image_info inf;
    assert_int_equal(eb_image_parse(b.data, b.len, false, &inf, &e), 0);
    assert_true(inf.sha256_ok);
    assert_string_equal(inf.test_build_tier, "minimum");
    assert_float_equal(inf.test_efficiency, 0.5, 1e-9);
    eb_buf_free(&b);

    eb_buf_init(&b);
    s.test_build_tier = NULL;
    assert_int_equal(eb_image_build(&s, &b, &e), 0);
    assert_int_equal(eb_image_parse(b.data, b.len, false, &inf, &e), 0);
    assert_string_equal(inf.test_build_tier, "");
    eb_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_parse_esp32s3),
        cmocka_unit_test(test_build_tier_round_trip),
        cmocka_unit_test(test_corruption_detected),
        cmocka_unit_test(test_esp8266_layout),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_compressible_like_a_real_app),
        cmocka_unit_test(test_deterministic_and_size_limits),
        cmocka_unit_test(test_test_efficiency_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
