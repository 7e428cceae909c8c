/* ROM loader packets: requests, _DATA requests, responses with 2 and 4 status bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/formats/rom_proto.h"

static void test_checksum_seed(void **state)
{
    (void)state;
    assert_int_equal(eb_rom_checksum(NULL, 0), 0xEF);
    const uint8_t d[] = {0x01, 0x02, 0xEF};
    assert_int_equal(eb_rom_checksum(d, sizeof d), 0x03);
}

static void test_sync_request_layout(void **state)
{
    (void)state;
    uint8_t sync[36] = {0x07, 0x07, 0x12, 0x20};
    memset(sync + 4, 0x55, 32);
    eb_buf b;
    eb_buf_init(&b);
    eb_rom_build_request(&b, EB_ROM_SYNC, sync, sizeof sync, 0);
    assert_int_equal(b.len, 44);
    const uint8_t hdr[] = {0x00, 0x08, 0x24, 0x00, 0, 0, 0, 0, 0x07, 0x07, 0x12, 0x20, 0x55};
    assert_memory_equal(b.data, hdr, sizeof hdr);
    eb_rom_request r;
    assert_int_equal(eb_rom_parse_request(b.data, b.len, &r), 0);
    assert_int_equal(r.op, EB_ROM_SYNC);
    assert_int_equal(r.size, 36);
    assert_int_equal(eb_rd32le(r.data), EB_ROM_SYNC_WORD);
    eb_buf_free(&b);
}

static void test_data_request(void **state)
{
    (void)state;
    const uint8_t payload[] = {0xAA, 0xBB, 0xCC};
    eb_buf b;
    eb_buf_init(&b);
    eb_rom_build_data_request(&b, EB_ROM_FLASH_DATA, 7, payload, sizeof payload);
    eb_rom_request r;
    assert_int_equal(eb_rom_parse_request(b.data, b.len, &r), 0);
    assert_int_equal(r.op, EB_ROM_FLASH_DATA);
    assert_int_equal(r.size, 16 + 3);
    assert_int_equal(r.checksum, eb_rom_checksum(payload, sizeof payload));
    assert_int_equal(eb_rd32le(r.data), 3);
    assert_int_equal(eb_rd32le(r.data + 4), 7);
    assert_int_equal(eb_rd32le(r.data + 8), 0);
    assert_memory_equal(r.data + 16, payload, 3);
    eb_buf_free(&b);
}

static void test_parse_request_rejects(void **state)
{
    (void)state;
    const uint8_t resp[] = {0x01, 0x08, 0x00, 0x00, 0, 0, 0, 0};
    const uint8_t badsize[] = {0x00, 0x08, 0x05, 0x00, 0, 0, 0, 0, 1};
    eb_rom_request r;
    assert_int_equal(eb_rom_parse_request(resp, sizeof resp, &r), -1);
    assert_int_equal(eb_rom_parse_request(badsize, sizeof badsize, &r), -1);
    assert_int_equal(eb_rom_parse_request(resp, 4, &r), -1);
}

static void test_rom_response_four_status_bytes(void **state)
{
    (void)state;
    eb_buf b;
    eb_buf_init(&b);
    eb_rom_build_response(&b, EB_ROM_SYNC, EB_ROM_SYNC_WORD, NULL, 0, 0, 0, 4);
    /* as observed on an ESP32-C6 ROM: 01 08 0400 07071220 00000000 */
    const uint8_t want[] = {0x01, 0x08, 0x04, 0x00, 0x07, 0x07, 0x12, 0x20, 0, 0, 0, 0};
    assert_int_equal(b.len, sizeof want);
    assert_memory_equal(b.data, want, sizeof want);
    eb_rom_response r;
    assert_int_equal(eb_rom_parse_response(b.data, b.len, 0, &r), 0);
    assert_int_equal(r.op, EB_ROM_SYNC);
    assert_int_equal(r.value, EB_ROM_SYNC_WORD);
    assert_int_equal(r.status, 0);
    eb_buf_free(&b);
}

static void test_md5_responses(void **state)
{
    (void)state;
    eb_buf b;
    eb_buf_init(&b);
    const char *hex = "0123456789abcdef0123456789abcdef";
    eb_rom_build_response(&b, EB_ROM_SPI_FLASH_MD5, 0, (const uint8_t *)hex, 32, 0, 0, 4);
    assert_int_equal(b.len, 8 + 32 + 4);
    eb_rom_response r;
    assert_int_equal(eb_rom_parse_response(b.data, b.len, 32, &r), 0);
    assert_int_equal(r.size, 36);
    assert_memory_equal(r.data, hex, 32);
    assert_int_equal(r.status, 0);
    eb_buf_reset(&b);
    uint8_t raw[16] = {1, 2, 3};
    eb_rom_build_response(&b, EB_ROM_SPI_FLASH_MD5, 0, raw, 16, 0, 0, 2);
    assert_int_equal(b.len, 8 + 16 + 2);
    assert_int_equal(eb_rom_parse_response(b.data, b.len, 16, &r), 0);
    assert_int_equal(r.status, 0);
    eb_buf_free(&b);
}

static void test_error_responses(void **state)
{
    (void)state;
    eb_buf b;
    eb_buf_init(&b);
    /* ROM: status 1, error 0x07, even when a payload was expected */
    eb_rom_build_response(&b, EB_ROM_FLASH_DATA, 0, NULL, 0, 1, EB_ROM_ERR_CHECKSUM, 4);
    eb_rom_response r;
    assert_int_equal(eb_rom_parse_response(b.data, b.len, 0, &r), 0);
    assert_int_equal(r.status, 1);
    assert_int_equal(r.error, EB_ROM_ERR_CHECKSUM);
    assert_int_equal(eb_rom_parse_response(b.data, b.len, 32, &r), 0);
    assert_int_equal(r.error, EB_ROM_ERR_CHECKSUM);
    /* stub: code in the first byte */
    eb_buf_reset(&b);
    eb_rom_build_response(&b, EB_ROM_FLASH_DATA, 0, NULL, 0, EB_STUB_ERR_BAD_CHECKSUM, 0, 2);
    assert_int_equal(eb_rom_parse_response(b.data, b.len, 0, &r), 0);
    assert_int_equal(r.status, EB_STUB_ERR_BAD_CHECKSUM);
    assert_int_equal(r.error, EB_STUB_ERR_BAD_CHECKSUM);
    /* too short to hold a status */
    const uint8_t shorty[] = {0x01, 0x08, 0x01, 0x00, 0, 0, 0, 0, 0};
    assert_int_equal(eb_rom_parse_response(shorty, sizeof shorty, 0, &r), -1);
    eb_buf_free(&b);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(eb_rom_op_name(EB_ROM_FLASH_DEFL_DATA), "FLASH_DEFL_DATA");
    assert_string_equal(eb_rom_op_name(0x77), "UNKNOWN");
    assert_string_equal(eb_rom_err_name(EB_ROM_ERR_CHECKSUM), "checksum error");
    assert_string_equal(eb_rom_err_name(EB_STUB_ERR_INFLATE), "inflate error");
    assert_string_equal(eb_rom_err_name(0x99), "unknown error");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checksum_seed),
        cmocka_unit_test(test_sync_request_layout),
        cmocka_unit_test(test_data_request),
        cmocka_unit_test(test_parse_request_rejects),
        cmocka_unit_test(test_rom_response_four_status_bytes),
        cmocka_unit_test(test_md5_responses),
        cmocka_unit_test(test_error_responses),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
