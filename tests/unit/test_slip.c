/* SLIP codec: round trips, escapes, junk and repeated delimiters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/formats/slip.h"

static void test_encode_escapes_db_before_c0(void **state)
{
    (void)state;
    const uint8_t in[] = {0x01, 0xC0, 0x02, 0xDB, 0xDC};
    const uint8_t want[] = {0xC0, 0x01, 0xDB, 0xDC, 0x02, 0xDB, 0xDD, 0xDC, 0xC0};
    eb_buf out;
    eb_buf_init(&out);
    eb_slip_encode(&out, in, sizeof in);
    assert_int_equal(out.len, sizeof want);
    assert_memory_equal(out.data, want, sizeof want);
    eb_buf_free(&out);
}

static void test_round_trip_all_bytes(void **state)
{
    (void)state;
    uint8_t in[512];
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (uint8_t)(i * 7);
    eb_buf wire;
    eb_buf_init(&wire);
    eb_slip_encode(&wire, in, sizeof in);
    eb_slip_decoder d;
    eb_slip_decoder_init(&d);
    /* feed one byte at a time: the decoder is incremental */
    int done = 0;
    size_t i = 0;
    while (i < wire.len && !done)
        i += eb_slip_decode(&d, wire.data + i, 1, &done, NULL);
    assert_true(done);
    assert_int_equal(i, wire.len);
    assert_int_equal(d.packet.len, sizeof in);
    assert_memory_equal(d.packet.data, in, sizeof in);
    assert_false(d.bad_escape);
    eb_slip_decoder_free(&d);
    eb_buf_free(&wire);
}

static void test_junk_and_repeated_delimiters(void **state)
{
    (void)state;
    const uint8_t wire[] = {'b', 'o', 'o', 't', 0xC0, 0xC0, 0xC0, 0x01, 0x02, 0xC0, 'x', 0xC0, 0x03, 0xC0};
    eb_slip_decoder d;
    eb_slip_decoder_init(&d);
    eb_buf noise;
    eb_buf_init(&noise);
    int done;
    size_t used = eb_slip_decode(&d, wire, sizeof wire, &done, &noise);
    assert_true(done);
    assert_int_equal(used, 10);
    assert_int_equal(d.packet.len, 2);
    assert_int_equal(d.packet.data[0], 0x01);
    assert_int_equal(d.packet.data[1], 0x02);
    assert_int_equal(noise.len, 4);
    assert_memory_equal(noise.data, "boot", 4);
    eb_slip_decoder_next(&d);
    size_t used2 = eb_slip_decode(&d, wire + used, sizeof wire - used, &done, &noise);
    assert_true(done);
    assert_int_equal(used + used2, sizeof wire);
    assert_int_equal(d.packet.len, 1);
    assert_int_equal(d.packet.data[0], 0x03);
    assert_int_equal(noise.len, 5);
    assert_int_equal(noise.data[4], 'x');
    eb_buf_free(&noise);
    eb_slip_decoder_free(&d);
}

static void test_bad_escape_flagged(void **state)
{
    (void)state;
    const uint8_t wire[] = {0xC0, 0x01, 0xDB, 0x42, 0x02, 0xC0};
    eb_slip_decoder d;
    eb_slip_decoder_init(&d);
    int done;
    eb_slip_decode(&d, wire, sizeof wire, &done, NULL);
    assert_true(done);
    assert_true(d.bad_escape);
    eb_slip_decoder_next(&d);
    assert_false(d.bad_escape);
    eb_slip_decoder_free(&d);
}

static void test_overflow_flagged(void **state)
{
    (void)state;
    uint8_t wire[20];
    memset(wire, 0x11, sizeof wire);
    wire[0] = 0xC0;
    wire[19] = 0xC0;
    eb_slip_decoder d;
    eb_slip_decoder_init(&d);
    d.max_len = 8;
    int done;
    eb_slip_decode(&d, wire, sizeof wire, &done, NULL);
    assert_true(done);
    assert_true(d.overflow);
    assert_int_equal(d.packet.len, 8);
    eb_slip_decoder_free(&d);
}

static void test_partial_frame_not_done(void **state)
{
    (void)state;
    const uint8_t wire[] = {0xC0, 0x01, 0xDB};
    eb_slip_decoder d;
    eb_slip_decoder_init(&d);
    int done;
    assert_int_equal(eb_slip_decode(&d, wire, sizeof wire, &done, NULL), 3);
    assert_false(done);
    const uint8_t rest[] = {0xDC, 0xC0};
    assert_int_equal(eb_slip_decode(&d, rest, sizeof rest, &done, NULL), 2);
    assert_true(done);
    assert_int_equal(d.packet.len, 2);
    assert_int_equal(d.packet.data[1], 0xC0);
    eb_slip_decoder_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encode_escapes_db_before_c0),
        cmocka_unit_test(test_round_trip_all_bytes),
        cmocka_unit_test(test_junk_and_repeated_delimiters),
        cmocka_unit_test(test_bad_escape_flagged),
        cmocka_unit_test(test_overflow_flagged),
        cmocka_unit_test(test_partial_frame_not_done),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
