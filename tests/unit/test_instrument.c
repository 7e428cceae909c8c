/* Lab instruments: the lab file's instruments: (FILE:LINE:COL errors), the
 * protocols' byte-level parts (ESP-IDF's serial attenuator frames,
 * Mini-Circuits replies, OpenWrt's JSON-RPC replies, Tasmota's answers,
 * hostapd's STATUS), the driver tables against the parser's names, the
 * password sources, and the hostapd driver against a control socket served
 * here the way hostapd serves it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "espbench/adapters/instrument.h"
#include "espbench/formats/instr_proto.h"
#include "espbench/formats/lab.h"

static const char LAB_HEAD[] = "ap:\n  ssid: bench\npc:\n  address: 192.168.10.2\n"
                               "boards:\n  - name: a\n    chip: esp32\n    port: /dev/ttyUSB0\n"
                               "  - name: b\n    chip: esp32c3\n    port: /dev/ttyUSB1\n";

static int parse_with(eb_lab *lab, const char *instruments, eb_error *err)
{
    char text[4096];
    snprintf(text, sizeof text, "%sinstruments:\n%s", LAB_HEAD, instruments);
    return eb_lab_parse(lab, text, strlen(text), "lab.yaml", "/labs", err);
}

static void test_lab_instruments(void **state)
{
    (void)state;
    eb_lab lab;
    eb_error err = {0};
    int rc = parse_with(&lab,
                        "  - name: att1\n    kind: attenuator\n    driver: idf-serial\n    address: /dev/ttyUSB3\n"
                        "    serves: [a]\n"
                        "  - name: mc\n    kind: attenuator\n    driver: minicircuits-http\n"
                        "    address: http://10.0.0.5\n    password_file: mc.secret\n    channel: 2\n"
                        "  - name: pdu\n    kind: power\n    driver: apc\n    address: 10.0.0.6\n"
                        "    user: apc\n    password_env: APC_PASS\n"
                        "  - name: ap1\n    kind: ap\n    driver: openwrt\n    address: http://10.0.0.1\n"
                        "    radio: radio1\n    ssid: bench-5g\n    power: pdu:3\n",
                        &err);
    assert_int_equal(rc, 0);
    assert_int_equal(lab.n_instruments, 4);
    assert_string_equal(eb_lab_attenuator_of(&lab, "a")->name, "att1");
    assert_string_equal(eb_lab_attenuator_of(&lab, "b")->name, "mc"); /* serves every board not served */
    const eb_instr_spec *mc = eb_lab_instrument(&lab, "mc");
    assert_string_equal(mc->password_file, "/labs/mc.secret");
    assert_int_equal(mc->channel, 2);
    const eb_instr_spec *ap = eb_lab_instrument(&lab, "ap1");
    assert_int_equal(ap->kind, EB_INSTR_AP);
    assert_string_equal(ap->power, "pdu");
    assert_int_equal(ap->outlet, 3);
    assert_string_equal(ap->at, "lab.yaml:30:5");
    const eb_instr_spec *aps[4];
    assert_int_equal(eb_lab_access_points(&lab, aps, 4), 1);
    eb_lab_free(&lab);
}

static void expect_error(const char *instruments, const char *msg)
{
    eb_lab lab;
    eb_error err = {0};
    assert_int_equal(parse_with(&lab, instruments, &err), EB_ECONFIG);
    assert_string_equal(err.msg, msg);
}

static void test_lab_instrument_errors(void **state)
{
    (void)state;
    expect_error("  - name: x\n    kind: oscilloscope\n",
                 "lab.yaml:14:11: unknown instrument kind 'oscilloscope' (attenuator, ap, power)");
    expect_error("  - name: x\n    kind: attenuator\n    driver: weinschel\n    address: a\n",
                 "lab.yaml:15:13: instrument 'x': no attenuator driver 'weinschel' (idf-serial, minicircuits-http, "
                 "minicircuits-telnet, weinschel-telnet)");
    expect_error("  - name: x\n    kind: ap\n    driver: openwrt\n    address: a\n    password: root\n",
                 "lab.yaml:17:5: a password is never written in the lab file: use password_env: VAR or "
                 "password_file: FILE");
    expect_error("  - name: x\n    kind: ap\n    driver: openwrt\n    address: a\n    power: pdu\n",
                 "lab.yaml:17:12: 'power' is SWITCH:OUTLET (a power instrument's name and an outlet 1..64), not "
                 "'pdu'");
    expect_error("  - name: x\n    kind: ap\n    driver: openwrt\n    address: a\n    power: pdu:1\n",
                 "lab.yaml:13:5: access point 'x' is fed by 'pdu', which is not a power instrument of this file");
    expect_error("  - name: x\n    kind: attenuator\n    driver: idf-serial\n    address: a\n    serves: c\n",
                 "lab.yaml:13:5: attenuator 'x' serves 'c', which is not a board of this file");
    expect_error("  - {name: x, kind: attenuator, driver: idf-serial, address: a, serves: a}\n"
                 "  - {name: y, kind: attenuator, driver: idf-serial, address: b, serves: [b, a]}\n",
                 "lab.yaml:14:5: board 'a' is behind two attenuators ('x' and 'y'): give each board one");
    expect_error("  - name: x\n    kind: power\n    driver: apc\n    address: a\n    radio: wlan0\n",
                 "lab.yaml:13:5: instrument 'x': radio, ssid and power belong to an access point");
    expect_error("  - name: x\n    kind: power\n    driver: apc\n",
                 "lab.yaml:13:5: instrument 'x' has no address");
    expect_error("  - {name: x, kind: power, driver: apc, address: a}\n  - {name: x, kind: power, driver: apc, address: b}\n",
                 "lab.yaml:14:5: two instruments are named 'x'");
    expect_error("  - name: x\n    kind: attenuator\n    driver: idf-serial\n    address: a\n    channel: 9\n",
                 "lab.yaml:17:14: 'channel' must be a whole number 1..8, not '9'");
}

/* Every driver name the parser accepts has its row, and the other way round. */
static void test_driver_tables_match_the_parser(void **state)
{
    (void)state;
    static const char *const att[] = {"idf-serial", "minicircuits-http", "minicircuits-telnet", "weinschel-telnet"};
    static const char *const ap[] = {"openwrt", "hostapd"};
    static const char *const pw[] = {"apc", "tasmota"};
    for (size_t i = 0; i < 4; i++)
        assert_non_null(eb_atten_driver(att[i]));
    for (size_t i = 0; i < 2; i++) {
        assert_non_null(eb_ap_driver(ap[i]));
        assert_non_null(eb_power_driver(pw[i]));
    }
    for (size_t i = 0; i < 4; i++) {
        char yaml[200];
        snprintf(yaml, sizeof yaml, "  - {name: x, kind: attenuator, driver: %s, address: a}\n", att[i]);
        eb_lab lab;
        eb_error err = {0};
        assert_int_equal(parse_with(&lab, yaml, &err), 0);
    }
    assert_null(eb_atten_driver("openwrt"));
    assert_string_equal(eb_instr_kind_name(EB_INSTR_POWER), "power");
}

static void test_idf_serial_frames(void **state)
{
    (void)state;
    uint8_t cmd[5];
    eb_idf_att_command(30, cmd); /* Attenuator.py: '7e7e10{:02x}{:x}'.format(30, 0x10 + 30) */
    const uint8_t want[5] = {0x7e, 0x7e, 0x10, 0x1e, 0x2e};
    assert_memory_equal(cmd, want, 5);
    const uint8_t ok[6] = {0x7e, 0x7e, 0x20, 0x1e, 0x00, 0x3e};
    assert_int_equal(eb_idf_att_answer(30, ok, 6), 1);
    assert_int_equal(eb_idf_att_answer(30, ok, 3), 0); /* wait for the rest */
    const uint8_t bad[6] = {0x7e, 0x7e, 0x20, 0x1e, 0x01, 0x3f};
    assert_int_equal(eb_idf_att_answer(30, bad, 6), -1);
    assert_int_equal(eb_idf_att_answer(31, ok, 6), -1);
    uint8_t longer[7] = {0x7e, 0x7e, 0x20, 0x1e, 0x00, 0x3e, 0x7e};
    assert_int_equal(eb_idf_att_answer(30, longer, 7), -1);
}

static void test_minicircuits_replies(void **state)
{
    (void)state;
    assert_int_equal(eb_mc_setatt_reply("1\r\n"), 1);
    assert_int_equal(eb_mc_setatt_reply("2"), 2);
    assert_int_equal(eb_mc_setatt_reply(" 0 "), 0);
    assert_int_equal(eb_mc_setatt_reply("OK"), -1);
    double db = 0;
    assert_true(eb_mc_att_reply("12.25\r\n", &db));
    assert_true(db == 12.25);
    assert_false(eb_mc_att_reply("", &db));
    assert_false(eb_mc_att_reply("-3", &db));
    assert_true(eb_mc_model_max("RCDAT-6000-90") == 90);
    assert_true(isnan(eb_mc_model_max("RCDAT")));
    char c[64];
    eb_mc_set_command(0, 12.25, c, sizeof c);
    assert_string_equal(c, "SETATT=12.25");
    eb_mc_set_command(2, 30, c, sizeof c);
    assert_string_equal(c, "CHAN:2:SETATT:30");
    eb_mc_get_command(0, c, sizeof c);
    assert_string_equal(c, "ATT?");
}

static void test_ubus_replies(void **state)
{
    (void)state;
    int st = -1;
    char obj[256];
    assert_int_equal(eb_ubus_reply("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":[0,{\"ubus_rpc_session\":\"abc\"}]}", &st,
                                   obj, sizeof obj), 0);
    assert_int_equal(st, 0);
    assert_string_equal(obj, "{\"ubus_rpc_session\":\"abc\"}");
    assert_int_equal(eb_ubus_reply("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":[6]}", &st, obj, sizeof obj), 0);
    assert_int_equal(st, 6);
    assert_string_equal(eb_ubus_status_name(st), "Permission denied");
    assert_int_equal(eb_ubus_reply("{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32002,\"message\":\"Access "
                                   "denied\"}}", &st, obj, sizeof obj), 1);
    assert_int_equal(st, -32002);
    assert_string_equal(obj, "Access denied");
    assert_int_equal(eb_ubus_reply("<html>", &st, obj, sizeof obj), -1);
    assert_string_equal(eb_openwrt_htmode("5g", 80), "VHT80");
    assert_string_equal(eb_openwrt_htmode("", 40), "HT40");
    assert_null(eb_openwrt_htmode("2g", 80));
    assert_int_equal(eb_openwrt_htmode_mhz("VHT40"), 40);
    assert_int_equal(eb_openwrt_htmode_mhz("HE80"), 80);
}

static void test_tasmota_and_hostapd(void **state)
{
    (void)state;
    char why[64];
    assert_int_equal(eb_tasmota_power_reply("{\"POWER2\":\"ON\"}", 2, why, sizeof why), 1);
    assert_int_equal(eb_tasmota_power_reply("{\"POWER\":\"OFF\"}", 1, why, sizeof why), 0);
    assert_int_equal(eb_tasmota_power_reply("{\"POWER\":\"OFF\"}", 2, why, sizeof why), -1);
    assert_int_equal(eb_tasmota_power_reply("{\"Command\":\"Unknown\"}", 1, why, sizeof why), -1);
    assert_string_equal(why, "Command Unknown");
    eb_ap_settings st;
    eb_ap_settings_init(&st);
    eb_hostapd_status("state=ENABLED\nfreq=5180\nchannel=36\nsecondary_channel=1\nieee80211n=1\n"
                      "vht_oper_chwidth=0\n", &st);
    assert_int_equal(st.channel, 36);
    assert_string_equal(st.band, "5g");
    assert_int_equal(st.bandwidth_mhz, 40);
    assert_string_equal(st.state, "ENABLED");
    assert_true(st.on_air);
    eb_hostapd_status("state=HT_SCAN\nfreq=2437\nchannel=6\nsecondary_channel=0\nvht_oper_chwidth=1", &st);
    assert_int_equal(st.bandwidth_mhz, 80);
    assert_string_equal(st.band, "2g");
    assert_false(st.on_air);
    assert_true(eb_hostapd_state_settling(st.state));
    /* a disabled interface: no frequency, channel 0 */
    eb_hostapd_status("state=DISABLED\nphy=phy0\nfreq=0\nchannel=0\nsecondary_channel=0\n", &st);
    assert_string_equal(st.band, "");
    assert_int_equal(st.bandwidth_mhz, 0);
    assert_false(st.on_air);
    assert_false(eb_hostapd_state_settling("DISABLED"));
}

static void test_readback_compare(void **state)
{
    (void)state;
    eb_ap_settings want, got;
    eb_ap_settings_init(&want);
    eb_ap_settings_init(&got);
    snprintf(want.band, sizeof want.band, "2g");
    want.channel = 6;
    snprintf(got.state, sizeof got.state, "DISABLED");
    char why[200];
    assert_false(eb_ap_settings_match(&want, &got, why, sizeof why));
    assert_string_equal(why, "asked for band 2g, channel 6; it reports state DISABLED, no band, channel 0");
    /* on the air with what was asked: a match; other fields are not compared */
    snprintf(got.state, sizeof got.state, "ENABLED");
    got.on_air = true;
    snprintf(got.band, sizeof got.band, "2g");
    got.channel = 6;
    got.bandwidth_mhz = 40;
    assert_true(eb_ap_settings_match(&want, &got, why, sizeof why));
    assert_string_equal(why, "");
    want.bandwidth_mhz = 20;
    want.txpower_dbm = 15;
    got.txpower_dbm = 20;
    assert_false(eb_ap_settings_match(&want, &got, why, sizeof why));
    assert_string_equal(why, "asked for band 2g, channel 6, 20 MHz, 15 dBm; it reports state ENABLED, band 2g, "
                             "channel 6, 40 MHz, 20 dBm");
    /* nothing asked: the radio must still be on the air */
    eb_ap_settings none;
    eb_ap_settings_init(&none);
    assert_true(eb_ap_settings_match(&none, &got, why, sizeof why));
    got.on_air = false;
    snprintf(got.state, sizeof got.state, "DISABLED");
    assert_false(eb_ap_settings_match(&none, &got, why, sizeof why));
    assert_string_equal(why, "asked for its radio on the air; it reports state DISABLED");
    /* netifd's network.wireless status */
    bool pending = false;
    eb_ap_settings_init(&got);
    assert_int_equal(eb_openwrt_wireless_status("{\"radio0\":{\"up\":true,\"pending\":false,\"autostart\":true,"
                                                "\"disabled\":false,\"config\":{\"band\":\"5g\",\"channel\":\"36\","
                                                "\"htmode\":\"VHT40\",\"txpower\":15},\"interfaces\":[]}}",
                                                "radio0", &got, &pending), 0);
    assert_true(got.on_air);
    assert_false(pending);
    assert_string_equal(got.state, "up");
    assert_string_equal(got.band, "5g");
    assert_int_equal(got.channel, 36);
    assert_int_equal(got.bandwidth_mhz, 40);
    assert_true(got.txpower_dbm == 15);
    eb_ap_settings_init(&got);
    assert_int_equal(eb_openwrt_wireless_status("{\"radio0\":{\"up\":false,\"pending\":true,\"config\":{}}}",
                                                "radio0", &got, &pending), 0);
    assert_true(pending);
    assert_false(got.on_air);
    assert_string_equal(got.state, "pending");
    assert_int_equal(eb_openwrt_wireless_status("{\"radio0\":{}}", "radio1", &got, &pending), -1);
    /* an APC outlet menu's state line */
    assert_int_equal(eb_apc_outlet_state("     Name         : Outlet 2\r\n     State        : ON\r\n"), 1);
    assert_int_equal(eb_apc_outlet_state("     State        : OFF\r\n"), 0);
    assert_int_equal(eb_apc_outlet_state("     1- Control Outlet\r\n"), -1);
}

static void test_quote_and_password_sources(void **state)
{
    (void)state;
    char q[64];
    eb_instr_quote("1\r\n\x7e", 4, q, sizeof q);
    assert_string_equal(q, "1\\x0D\\x0A~");
    eb_instr_spec s = {.name = "pdu", .kind = EB_INSTR_POWER, .driver = "apc", .address = "127.0.0.1:1",
                       .password_env = "TEST_INSTR_UNSET", .at = "lab.yaml:9:5"};
    unsetenv("TEST_INSTR_UNSET");
    eb_instr in;
    eb_error err = {0};
    assert_int_equal(eb_instr_open(&in, &s, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "lab.yaml:9:5: instrument 'pdu' reads its password from the environment variable "
                                 "TEST_INSTR_UNSET, which is not set");
    eb_instr_spec f = s;
    f.password_env[0] = 0;
    snprintf(f.password_file, sizeof f.password_file, "/nonexistent/pdu.secret");
    assert_int_equal(eb_instr_open(&in, &f, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "lab.yaml:9:5: instrument 'pdu': cannot read its password file "
                                 "/nonexistent/pdu.secret: No such file or directory");
    eb_instr_spec nopw = f;
    nopw.password_file[0] = 0;
    assert_int_equal(eb_instr_open(&in, &nopw, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "power pdu (apc 127.0.0.1:1): needs a password: give password_env or "
                                 "password_file");
}

/* hostapd's side of the control interface: answers each datagram to its
 * sender, with hostapd's state; channel 11 does not come up (ENABLE answers
 * OK and the interface stays DISABLED, as a driver refusing the channel
 * leaves it), channel 200 is refused at SET. */
typedef struct hapd_srv {
    int fd;
    char log[1024];
    int channel, set_channel;
    bool enabled;
} hapd_srv;

static void *hapd_serve(void *arg)
{
    hapd_srv *h = arg;
    for (;;) {
        char buf[256], status[200];
        struct sockaddr_un from;
        socklen_t fl = sizeof from;
        ssize_t n = recvfrom(h->fd, buf, sizeof buf - 1, 0, (struct sockaddr *)&from, &fl);
        if (n <= 0)
            return NULL;
        buf[n] = 0;
        snprintf(h->log + strlen(h->log), sizeof h->log - strlen(h->log), "%s|", buf);
        const char *out = "OK\n";
        if (!strcmp(buf, "QUIT"))
            return NULL;
        if (!strcmp(buf, "STATUS")) {
            if (h->enabled)
                snprintf(status, sizeof status, "state=ENABLED\nfreq=%d\nchannel=%d\nsecondary_channel=1\n",
                         h->channel >= 36 ? 5000 + 5 * h->channel : 2407 + 5 * h->channel, h->channel);
            else
                snprintf(status, sizeof status, "state=DISABLED\nfreq=0\nchannel=0\n");
            out = status;
        } else if (!strncmp(buf, "SET channel ", 12)) {
            int c = atoi(buf + 12);
            if (c == 200)
                out = "FAIL\n";
            else
                h->set_channel = c;
        } else if (!strcmp(buf, "DISABLE") || !strcmp(buf, "ENABLE")) {
            bool want = !strcmp(buf, "ENABLE");
            if (want == h->enabled) {
                out = "FAIL\n";
            } else {
                h->enabled = want && h->set_channel != 11;
                h->channel = h->set_channel;
            }
        }
        if (!strcmp(buf, "ENABLE")) /* an unsolicited event first, as an attached monitor would see */
            sendto(h->fd, "<3>AP-ENABLED ", 14, 0, (struct sockaddr *)&from, fl);
        sendto(h->fd, out, strlen(out), 0, (struct sockaddr *)&from, fl);
    }
}

static void test_hostapd_driver(void **state)
{
    (void)state;
    char path[] = "/tmp/espbench-hostapd-XXXXXX";
    int tmp = mkstemp(path);
    close(tmp);
    unlink(path);
    hapd_srv h = {.fd = socket(AF_UNIX, SOCK_DGRAM, 0), .channel = 1, .set_channel = 1, .enabled = true};
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    assert_int_equal(bind(h.fd, (struct sockaddr *)&a, sizeof a), 0);
    pthread_t th;
    pthread_create(&th, NULL, hapd_serve, &h);
    eb_instr_spec s = {.name = "ap3", .kind = EB_INSTR_AP, .driver = "hostapd", .at = "lab.yaml:1:1"};
    snprintf(s.address, sizeof s.address, "%s", path);
    eb_instr in;
    eb_error err = {0};
    assert_int_equal(eb_instr_open(&in, &s, &err), 0);
    eb_ap_settings set, now;
    eb_ap_settings_init(&set);
    snprintf(set.band, sizeof set.band, "5g");
    set.channel = 36;
    set.bandwidth_mhz = 40;
    assert_int_equal(eb_ap_apply(&in, &set, &now, &err), 0);
    assert_string_equal(h.log, "SET hw_mode a|SET channel 36|SET ieee80211n 1|SET ht_capab [HT40+]|"
                               "SET vht_oper_chwidth 0|DISABLE|ENABLE|STATUS|STATUS|");
    assert_int_equal(now.channel, 36);
    assert_int_equal(now.bandwidth_mhz, 40);
    assert_string_equal(now.state, "ENABLED");
    char want[300];
    /* a refused SET is the device's refusal: EB_EIO, as an attenuator's */
    set.channel = 200;
    set.bandwidth_mhz = 0;
    assert_int_equal(eb_ap_apply(&in, &set, &now, &err), EB_EIO);
    snprintf(want, sizeof want, "ap ap3 (hostapd %s): SET channel 200 answered \"FAIL\"", path);
    assert_string_equal(err.msg, want);
    /* a setting the family does not have: said without asking the device */
    h.log[0] = 0;
    set.channel = 0;
    set.txpower_dbm = 10;
    assert_int_equal(eb_ap_check(&in, &set, &err), EB_ECONFIG);
    assert_int_equal(eb_ap_apply(&in, &set, &now, &err), EB_ECONFIG);
    snprintf(want, sizeof want, "ap ap3 (hostapd %s): hostapd has no transmit power setting (it is the radio "
             "driver's: iw dev IFACE set txpower)", path);
    assert_string_equal(err.msg, want);
    assert_string_equal(h.log, "");
    /* ENABLE answered OK, but the interface stayed down: the read-back says so */
    set.txpower_dbm = NAN;
    snprintf(set.band, sizeof set.band, "2g");
    set.channel = 11;
    assert_int_equal(eb_ap_apply(&in, &set, &now, &err), EB_EIO);
    snprintf(want, sizeof want, "ap ap3 (hostapd %s): asked for band 2g, channel 11; it reports state DISABLED, "
             "no band, channel 0", path);
    assert_string_equal(err.msg, want);
    assert_false(now.on_air);
    /* the next point: DISABLE is refused (already down), the interface comes up with it */
    h.log[0] = 0;
    set.channel = 6;
    assert_int_equal(eb_ap_apply(&in, &set, &now, &err), 0);
    assert_string_equal(h.log, "SET hw_mode g|SET channel 6|DISABLE|STATUS|ENABLE|STATUS|STATUS|");
    assert_int_equal(now.channel, 6);
    assert_string_equal(now.band, "2g");
    eb_instr_close(&in);
    int c = socket(AF_UNIX, SOCK_DGRAM, 0);
    sendto(c, "QUIT", 4, 0, (struct sockaddr *)&a, sizeof a);
    pthread_join(th, NULL);
    close(c);
    close(h.fd);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lab_instruments),
        cmocka_unit_test(test_lab_instrument_errors),
        cmocka_unit_test(test_driver_tables_match_the_parser),
        cmocka_unit_test(test_idf_serial_frames),
        cmocka_unit_test(test_minicircuits_replies),
        cmocka_unit_test(test_ubus_replies),
        cmocka_unit_test(test_tasmota_and_hostapd),
        cmocka_unit_test(test_readback_compare),
        cmocka_unit_test(test_quote_and_password_sources),
        cmocka_unit_test(test_hostapd_driver),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
