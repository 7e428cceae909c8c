/* The virtual board behind an attenuator (control socket "atten DB",
 * vb_board_link_cmd "atten="): scans see each AP that much weaker and none
 * below the beacon sensitivity, a connection finds none there, and the
 * link model takes the strongest AP's RSSI less the attenuation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/base/buf.h"
#include "vb_board.h"
#include "vb_wifi.h"

static void board(vb_board *b)
{
    memset(b, 0, sizeof *b);
    pthread_mutex_init(&b->lock, NULL);
    eb_model_link_default(&b->link);
    b->atten_cdb = -1;
    b->n_aps = 2;
    strcpy(b->aps[0].ssid, "near");
    b->aps[0].rssi = -35;
    strcpy(b->aps[1].ssid, "far");
    b->aps[1].rssi = -60;
}

static void test_scan_through_the_attenuator(void **state)
{
    (void)state;
    vb_board b;
    board(&b);
    vb_wifi_scan_entry e[4];
    assert_int_equal(vb_wifi_scan(&b, NULL, e, 4), 2);
    b.atten_cdb = 3025; /* 30.25 dB: whole dB as the scan reports them */
    assert_int_equal(vb_wifi_scan(&b, NULL, e, 4), 2);
    assert_int_equal(e[0].rssi, -65);
    assert_int_equal(e[1].rssi, -90);
    b.atten_cdb = 4000; /* far at -100: below -98, no beacon heard */
    assert_int_equal(vb_wifi_scan(&b, NULL, e, 4), 1);
    assert_string_equal(e[0].ssid, "near");
    assert_int_equal(vb_wifi_connect(&b, "far", "", 15, NULL), VB_REASON_NO_AP_FOUND);
    assert_int_equal(vb_wifi_connect(&b, "near", "", 15, e), 0);
    assert_int_equal(e[0].rssi, -75);
}

static void test_link_takes_the_attenuation(void **state)
{
    (void)state;
    vb_board b;
    board(&b);
    static eb_model dummy; /* any constants: the link command only checks there are some */
    b.model = &dummy;
    eb_buf r;
    eb_buf_init(&r);
    eb_error err = {0};
    assert_int_equal(vb_board_link_cmd(&b, "atten=30", &r, &err), 0);
    assert_string_equal(eb_buf_cstr(&r), "rssi=-65 phy=- rtt=0 loss=0 stations=1 model=off atten=30");
    assert_true(b.link.rssi_dbm == -65);
    eb_buf_reset(&r);
    assert_int_equal(vb_board_link_cmd(&b, "atten=90", &r, &err), 0); /* the model's floor */
    assert_true(b.link.rssi_dbm == -100);
    assert_int_equal(vb_board_link_cmd(&b, "atten=-1", &r, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "link: atten=-1 must be 0..200 dB or none");
    eb_buf_reset(&r);
    assert_int_equal(vb_board_link_cmd(&b, "published", &r, &err), 0);
    assert_int_equal(b.atten_cdb, -1);
    assert_true(isnan(b.link.rssi_dbm));
    eb_buf_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_through_the_attenuator),
        cmocka_unit_test(test_link_takes_the_attenuation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
