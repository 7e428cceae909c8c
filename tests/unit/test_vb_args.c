/* espbench-vboard's command line: options, --ap forms (password from the environment), errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vb_args.h"

static void test_full_command_line(void **state)
{
    (void)state;
    setenv("VB_TEST_PASS", "s3cret-pass", 1);
    char *argv[] = {"espbench-vboard", "--chip", "esp32c3", "--link", "/tmp/x", "--ip", "127.0.3.4",
                    "--ap", "lab:env:VB_TEST_PASS:-42", "--ap", "open::-70", "--no-baud-timing", "--seed", "9",
                    "--noise", "2.5", "--fault", "reboot@tcp_tx", "--control", "/tmp/c", NULL};
    vb_opts o;
    eb_error e;
    assert_int_equal(vb_args_parse(20, argv, &o, &e), 0);
    assert_string_equal(o.chip, "esp32c3");
    assert_string_equal(o.ip, "127.0.3.4");
    assert_int_equal(o.n_aps, 2);
    assert_string_equal(o.aps[0].ssid, "lab");
    assert_string_equal(o.aps[0].pass, "s3cret-pass");
    assert_int_equal(o.aps[0].rssi, -42);
    assert_string_equal(o.aps[1].pass, "");
    assert_false(o.baud_timing);
    assert_int_equal(o.seed, 9);
    assert_true(o.noise_pct > 2.4 && o.noise_pct < 2.6);
    assert_int_equal(o.n_faults, 1);
    assert_string_equal(o.faults[0].when, "tcp_tx");
    assert_string_equal(o.control, "/tmp/c");
    /* strict by default: flash timing on, no SYNC resets, not forgiving */
    assert_true(o.flash_timing);
    assert_false(o.sync_resets);
    assert_false(o.forgiving);
    assert_false(o.ethernet); /* the espbench image is its Wi-Fi build unless told */
    char *argv2[] = {"espbench-vboard", "--chip", "esp32", "--no-flash-timing", "--sync-resets", "--forgiving",
                     "--ethernet", NULL};
    assert_int_equal(vb_args_parse(7, argv2, &o, &e), 0);
    assert_false(o.flash_timing);
    assert_true(o.sync_resets);
    assert_true(o.forgiving);
    assert_true(o.ethernet);
}

static void test_ap_forms(void **state)
{
    (void)state;
    vb_ap ap;
    eb_error e;
    assert_int_equal(vb_parse_ap("home:pass:with:colons:-50", &ap, &e), 0);
    assert_string_equal(ap.ssid, "home");
    assert_string_equal(ap.pass, "pass:with:colons");
    unsetenv("VB_TEST_MISSING");
    assert_int_equal(vb_parse_ap("lab:env:VB_TEST_MISSING:-40", &ap, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "--ap lab: environment variable VB_TEST_MISSING is not set (it holds the password)");
    assert_int_equal(vb_parse_ap("lab:short:-40", &ap, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "--ap lab: a WPA password has 8 to 64 characters (or none for an open AP)");
    assert_null(strstr(e.msg, "short")); /* the password never appears in messages */
    assert_int_equal(vb_parse_ap("lab:password1:loud", &ap, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "--ap: the part after the last ':' must be the RSSI, a number from -100 to 0 "
                               "(SSID:PASS:RSSI)");
    /* A forgotten RSSI leaves the password's end last: it must not be echoed. */
    assert_int_equal(vb_parse_ap("lab:pass:word", &ap, &e), EB_ECONFIG);
    assert_null(strstr(e.msg, "word"));
}

static void test_errors(void **state)
{
    (void)state;
    vb_opts o;
    eb_error e;
    char *a1[] = {"vb", "--link", "/tmp/x", NULL};
    assert_int_equal(vb_args_parse(3, a1, &o, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "--chip is required (e.g. --chip esp32s3)");
    char *a2[] = {"vb", "--chip", "esp32", "--ip", "10.0.0.1", NULL};
    assert_int_equal(vb_args_parse(5, a2, &o, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "--ip 10.0.0.1: not a loopback address 127.X.Y.Z");
    char *a3[] = {"vb", "--chip", "esp32", "--bogus", NULL};
    assert_int_equal(vb_args_parse(4, a3, &o, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "unknown option --bogus");
    char *a4[] = {"vb", "--chip", NULL};
    assert_int_equal(vb_args_parse(2, a4, &o, &e), EB_ECONFIG);
    assert_string_equal(e.msg, "--chip needs a value");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_command_line),
        cmocka_unit_test(test_ap_forms),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
