/* Fault specs: parsing (exact messages), arming, one-shot taking. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "vb_faults.h"

static void test_parse_valid(void **state)
{
    (void)state;
    vb_fault f;
    char txt[128];
    assert_int_equal(vb_fault_parse("zero:3@tcp_tx", &f, NULL), 0);
    assert_string_equal(f.kind, "zero");
    assert_string_equal(f.arg, "3");
    assert_string_equal(f.when, "tcp_tx");
    assert_true(f.armed);
    vb_fault_format(&f, txt, sizeof txt);
    assert_string_equal(txt, "zero:3@tcp_tx");
    assert_int_equal(vb_fault_parse("reboot@2.5s", &f, NULL), 0);
    assert_string_equal(f.when, "2.5s");
    assert_int_equal(vb_fault_parse("slow-boot:1500", &f, NULL), 0);
    assert_int_equal(vb_fault_arg_long(&f, 0), 1500);
    assert_int_equal(vb_fault_parse("garbage", &f, NULL), 0);
    assert_int_equal(vb_fault_arg_long(&f, 64), 64);
}

static void test_parse_errors(void **state)
{
    (void)state;
    vb_fault f;
    eb_error e;
    assert_int_equal(vb_fault_parse("explode", &f, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "fault \"explode\": unknown kind \"explode\" (known: reboot, stall, no-stop, zero, garbage, "
                               "rom-checksum, flash-write, wifi-disconnect, slow-boot, no-ap, wifi-start)");
    assert_int_equal(vb_fault_parse("stall:4", &f, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "fault \"stall:4\": stall takes no argument");
    assert_int_equal(vb_fault_parse("slow-boot", &f, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "fault \"slow-boot\": slow-boot needs a number of milliseconds (slow-boot:N)");
    assert_int_equal(vb_fault_parse("zero:x", &f, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "fault \"zero:x\": argument \"x\" is not a number of intervals");
    assert_int_equal(vb_fault_parse("zero@soon", &f, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "fault \"zero@soon\": WHEN \"soon\" is not a test (tcp_tx, tcp_rx, udp_tx, udp_rx), "
                               "boot or a time like 2s");
    assert_int_equal(vb_fault_parse("", &f, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "fault \"\": empty or too long (expected KIND[:ARG][@WHEN])");
}

static void test_arm_and_take(void **state)
{
    (void)state;
    vb_board b;
    memset(&b, 0, sizeof b);
    pthread_mutex_init(&b.lock, NULL);
    vb_fault f, got;
    assert_int_equal(vb_fault_parse("zero:2@udp_rx", &f, NULL), 0);
    assert_int_equal(vb_board_add_fault(&b, &f, NULL), 0);
    assert_false(vb_board_take_fault(&b, "zero", "tcp_tx", &got));
    assert_true(vb_board_take_fault(&b, "zero", "udp_rx", &got));
    assert_string_equal(got.arg, "2");
    assert_false(vb_board_take_fault(&b, "zero", "udp_rx", &got)); /* one-shot */
    /* a full table reuses fired slots, and refuses when all are armed */
    for (int i = 0; i < VB_MAX_FAULTS - 1; i++)
        assert_int_equal(vb_board_add_fault(&b, &f, NULL), 0);
    assert_int_equal(vb_board_add_fault(&b, &f, NULL), 0); /* reuses the fired slot */
    eb_error e;
    assert_int_equal(vb_board_add_fault(&b, &f, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "fault zero: 16 faults are already armed (the most the board holds)");
    pthread_mutex_destroy(&b.lock);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_valid),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_arm_and_take),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
