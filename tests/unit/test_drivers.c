/* Console dialect drivers against scripted boards: the espbench firmware's
 * #EB: protocol and the stock iperf example's dialects (commands sent,
 * replies read, interval lines with the right unit base, failures). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/protocols/console_driver.h"
#include "espbench/formats/dialect.h"
#include "espbench/adapters/dialect_files.h"
#include "fake_port.h"

#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

typedef struct fixture {
    fake_port fp;
    eb_console *c;
    eb_error err;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    fake_init(&f->fp);
    eb_console_open(&f->c, &f->fp.port, &f->err);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    eb_console_free(f->c);
    fake_free(&f->fp);
    free(f);
    return 0;
}

static const eb_console_driver *drv(int dialect)
{
    const eb_console_driver *d = eb_console_driver_get(dialect);
    assert_non_null(d);
    return d;
}

static eb_deadline soon(void) { return eb_deadline_in(1000); }

/* ---------------------------------------------------------------- table */

static void test_table_has_every_dialect(void **state)
{
    (void)state;
    for (int d = 0; d < EB_DIALECT_COUNT; d++) {
        const eb_console_driver *x = eb_console_driver_get(d);
        assert_non_null(x);
        assert_int_equal(x->dialect, d);
        assert_string_equal(x->name, eb_dialect_name(d));
        assert_ptr_equal(eb_console_driver_by_name(x->name), x);
    }
    assert_true(drv(EB_DIALECT_ESPBENCH)->runtime_tiers);
    assert_false(drv(EB_DIALECT_IPERF_CMD_01)->runtime_tiers);
    assert_null(eb_console_driver_by_name("nope"));
}

/* ---------------------------------------------------------------- espbench */

static void test_espbench_scan_keeps_strongest_bss(void **state)
{
    fixture *f = *state;
    fake_rule_add(&f->fp, "sta_scan lab\r\n",
                  "sta_scan lab\r\n#EB:EV wifi.scan ssid=lab rssi=-61 ch=6\r\n"
                  "#EB:EV wifi.scan ssid=other rssi=-20 ch=1\r\n"
                  "#EB:EV wifi.scan ssid=lab rssi=-42 ch=11\r\n#EB:OK count=3\r\n");
    eb_wifi_info w = {0};
    const eb_console_driver *d = drv(EB_DIALECT_ESPBENCH);
    assert_int_equal(d->scan(d, f->c, "lab", &w, soon(), &f->err), 0);
    assert_int_equal(w.rssi, -42);
    assert_int_equal(w.channel, 11);
    assert_string_equal(w.ssid, "lab");
}

static void test_espbench_missing_ap(void **state)
{
    fixture *f = *state;
    fake_rule_add(&f->fp, "sta_scan", "#EB:EV wifi.scan ssid=other rssi=-20 ch=1\r\n#EB:OK count=1\r\n");
    eb_wifi_info w = {0};
    const eb_console_driver *d = drv(EB_DIALECT_ESPBENCH);
    assert_int_equal(d->scan(d, f->c, "lab", &w, soon(), &f->err), EB_EIO);
    assert_string_equal(f->err.msg, "AP 'lab' not found in the scan by the board on fake://board: check the "
                                    "SSID and that the AP is on and in range");
}

static void test_espbench_connect_sends_password_on_its_own_line(void **state)
{
    fixture *f = *state;
    fake_rule_add(&f->fp, "sta_connect", NULL);
    fake_rule_add(&f->fp, "s3cret\r\n", "#EB:EV wifi.connected\r\n#EB:EV wifi.got_ip ip=10.0.0.7 mask=255.255.255.0 "
                                        "gw=10.0.0.1\r\n#EB:OK ssid=lab ip=10.0.0.7\r\n");
    eb_wifi_info w = {0};
    const eb_console_driver *d = drv(EB_DIALECT_ESPBENCH);
    assert_int_equal(d->connect(d, f->c, "lab", "s3cret", &w, soon(), &f->err), 0);
    assert_string_equal(fake_written(&f->fp), "sta_connect lab -\r\ns3cret\r\n");
    assert_string_equal(w.ip, "10.0.0.7");
    assert_string_equal(w.gw, "10.0.0.1");
}

static void test_espbench_wrong_password(void **state)
{
    fixture *f = *state;
    fake_rule_add(&f->fp, "sta_connect", NULL);
    fake_rule_add(&f->fp, "bad\r\n", "#EB:EV wifi.disconnected reason=15\r\n"
                                     "#EB:ERR code=AUTH msg=\"authentication failed\"\r\n");
    eb_wifi_info w = {0};
    const eb_console_driver *d = drv(EB_DIALECT_ESPBENCH);
    assert_int_equal(d->connect(d, f->c, "lab", "bad", &w, soon(), &f->err), EB_EIO);
    assert_string_equal(f->err.msg, "Wi-Fi connect to 'lab' failed on fake://board: disconnected, reason 15 "
                                    "(4-way handshake timeout: wrong password)");
    assert_null(strstr(f->err.msg, "bad"));
}

static void test_espbench_memory_and_error_reply(void **state)
{
    fixture *f = *state;
    fake_rule_add(&f->fp, "mem\r\n", "#EB:OK free_internal=37990 min_internal=36803 largest_internal=17092\r\n");
    eb_mem_info m;
    const eb_console_driver *d = drv(EB_DIALECT_ESPBENCH);
    assert_int_equal(d->memory(d, f->c, &m, soon(), &f->err), 0);
    assert_int_equal(m.free_internal, 37990);
    assert_int_equal(m.min_free_internal, 36803);
    assert_int_equal(m.largest_block, 17092);
}

static void test_espbench_set_tier_sends_runtime_fields_only(void **state)
{
    fixture *f = *state;
    fake_rule_add(&f->fp, "tier_set", "#EB:ERR code=CONSTRAINT msg=\"rx_ba_win 40 > dynamic_rx 16\"\r\n");
    eb_tier t;
    memset(&t, 0, sizeof t);
    snprintf(t.name, sizeof t.name, "odd");
    t.set[EB_F_STATIC_RX] = t.runtime[EB_F_STATIC_RX] = true;
    t.value[EB_F_STATIC_RX] = 6;
    t.set[EB_F_RX_BA_WIN] = t.runtime[EB_F_RX_BA_WIN] = true;
    t.value[EB_F_RX_BA_WIN] = 40;
    t.set[EB_F_TCP_WND_KB] = true; /* build-time: not sent */
    t.value[EB_F_TCP_WND_KB] = 16;
    const eb_console_driver *d = drv(EB_DIALECT_ESPBENCH);
    assert_int_equal(d->set_tier(d, f->c, &t, soon(), &f->err), EB_EIO);
    assert_string_equal(fake_written(&f->fp), "tier_set name=odd static_rx=6 rx_ba_win=40\r\n");
    assert_string_equal(f->err.msg, "tier odd: console fake://board: 'tier_set' failed: CONSTRAINT: "
                                    "rx_ba_win 40 > dynamic_rx 16");
}

static void test_espbench_iperf_lines(void **state)
{
    (void)state;
    const eb_console_driver *d = drv(EB_DIALECT_ESPBENCH);
    eb_board_iperf cfg = {.udp = true, .time_s = 3, .interval_s = 1};
    eb_board_run r;
    memset(&r, 0, sizeof r);
    eb_board_run_reset(&r);
    const char *lines[] = {
        "#EB:EV iperf.started role=server proto=udp",
        "#EB:EV iperf.connected peer=127.0.0.1:40000",
        "#EB:EV iperf.interval start=0.00 end=1.00 bytes=10387020 lost=2118 total=9184",
        "#EB:EV iperf.interval start=1.00 end=2.00 bytes=10000000 lost=0 total=6803 jitter_ms=0.125",
        "I (1) unrelated log line",
        "#EB:EV iperf.interval start=0.00 end=3.00 bytes=30000000", /* whole-test span: not an interval */
        "#EB:EV iperf.summary start=0.00 end=3.00 bytes=30000000",
        "#EB:EV iperf.done",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        d->iperf_line(d, &cfg, lines[i], &r);
    assert_true(r.started && r.connected && r.done);
    assert_false(r.failed);
    assert_int_equal(r.n, 2);
    assert_near(r.iv[0].mbps, 83.09616, 1e-9);
    assert_int_equal(r.iv[0].lost, 2118);
    assert_int_equal(r.iv[0].total, 9184);
    assert_true(isnan(r.iv[0].jitter_ms));
    assert_near(r.iv[1].jitter_ms, 0.125, 1e-12);
    assert_near(r.summary_mbps, 80.0, 1e-9);
    d->iperf_line(d, &cfg, "#EB:EV iperf.error msg=\"Socket unable to connect: errno 111\"", &r);
    assert_true(r.failed);
    assert_string_equal(r.msg, "Socket unable to connect: errno 111");
    eb_board_run_free(&r);
    /* -i 0.5: the firmware's engine counts whole seconds, its first interval is 0.00-1.00 */
    eb_board_iperf half = {.time_s = 2, .interval_s = 0.5};
    memset(&r, 0, sizeof r);
    eb_board_run_reset(&r);
    d->iperf_line(d, &half, "#EB:EV iperf.interval start=0.00 end=1.00 bytes=1000000", &r);
    d->iperf_line(d, &half, "#EB:EV iperf.interval start=1.00 end=2.00 bytes=1000000", &r);
    d->iperf_line(d, &half, "#EB:EV iperf.interval start=0.00 end=2.00 bytes=2000000", &r);
    assert_int_equal(r.n, 2);
    eb_board_run_free(&r);
}

static void test_espbench_iperf_start_commands(void **state)
{
    fixture *f = *state;
    fake_rule_add(&f->fp, "iperf -c", "#EB:EV iperf.started role=client proto=udp\r\n#EB:OK role=client\r\n");
    const eb_console_driver *d = drv(EB_DIALECT_ESPBENCH);
    eb_board_iperf cfg = {.board_sends = true, .udp = true, .port = 5003, .time_s = 3, .interval_s = 0.5,
                          .udp_rate_mbps = 99.1};
    snprintf(cfg.peer, sizeof cfg.peer, "127.1.2.3");
    eb_board_run r;
    memset(&r, 0, sizeof r);
    eb_board_run_reset(&r);
    assert_int_equal(d->iperf_start(d, f->c, &cfg, &r, soon(), &f->err), 0);
    assert_string_equal(fake_written(&f->fp), "iperf -c 127.1.2.3 -p 5003 -i 0.5 -t 3 -u -b 99.1m\r\n");
    assert_true(r.started);
    eb_board_run_free(&r);
}

static void test_reboot_during_a_command_is_reported(void **state)
{
    fixture *f = *state;
    fake_rule_add(&f->fp, "mem\r\n", "rst:0x1 (POWERON_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)\r\n");
    eb_mem_info m;
    const eb_console_driver *d = drv(EB_DIALECT_ESPBENCH);
    assert_int_equal(d->memory(d, f->c, &m, soon(), &f->err), EB_EIO);
    assert_string_equal(f->err.msg, "console fake://board: board rebooted (rst:0x1 (POWERON_RESET)) while "
                                    "waiting for reply to 'mem'");
}

/* ---------------------------------------------------------------- stock */

static double feed_one(int dialect, const char *line, eb_board_run *r)
{
    const eb_console_driver *d = drv(dialect);
    eb_board_iperf cfg = {.time_s = 30, .interval_s = 1};
    int before = r->n;
    d->iperf_line(d, &cfg, line, r);
    return r->n > before ? r->iv[r->n - 1].mbps : NAN;
}

static void test_stock_interval_units_per_dialect(void **state)
{
    (void)state;
    eb_board_run r;
    memset(&r, 0, sizeof r);
    eb_board_run_reset(&r);
    /* ≤v5.0: decimal Mbit. */
    assert_near(feed_one(EB_DIALECT_IDF_V44, " 12-  13 sec       36.25 Mbits/sec", &r), 36.25, 1e-9);
    assert_near(feed_one(EB_DIALECT_IDF_LEGACY, "   0-   1 sec       8.43 Mbits/sec", &r), 8.43, 1e-9);
    /* v5.1–v6.0: "Mbits" are 2^20 bits. */
    assert_near(feed_one(EB_DIALECT_IDF_V51, "   0-   1 sec       0.09 Mbits/sec", &r),
                        0.09 * 1048576 / 1e6, 1e-9);
    assert_near(feed_one(EB_DIALECT_IPERF_CMD_01, " 0.0- 1.0 sec  24.36 Mbits/sec", &r),
                        24.36 * 1048576 / 1e6, 1e-9);
    assert_near(feed_one(EB_DIALECT_IPERF_CMD_01, " 1.0- 2.0 sec  900.00 Kbits/sec", &r),
                        900.0 * 1024 / 1e6, 1e-9);
    /* iperf-cmd 1.0: decimal, with a Bytes column before the rate. */
    assert_near(feed_one(EB_DIALECT_IPERF_CMD_10, "[  1]  1.0- 2.0 sec\t2.95 MBytes\t23.63 Mbits/sec", &r),
                        23.63, 1e-9);
    /* The whole-test line is a summary, and the end of the test. */
    assert_true(isnan(feed_one(EB_DIALECT_IPERF_CMD_10, "[  1]  0.0-30.0 sec\t88.50 MBytes\t23.60 Mbits/sec", &r)));
    assert_near(r.summary_mbps, 23.60, 1e-9);
    assert_true(r.done);
    eb_board_run_free(&r);
}

static void test_stock_scan_connect_memory(void **state)
{
    fixture *f = *state;
    const eb_console_driver *d = drv(EB_DIALECT_IPERF_CMD_01);
    fake_rule_add(&f->fp, "sta_scan lab\r\n",
                  "I (100) WIFI: +SCAN:[aa:bb:cc:dd:ee:ff][lab][rssi=-34][authmode=3][ch=11][second=0][11n]\r\n"
                  "I (101) WIFI: SCAN_DONE: Found 1 APs\r\n");
    fake_rule_add(&f->fp, "sta_connect lab pw\r\n",
                  "I (200) wifi:connected with lab, aid = 1, channel 11\r\n"
                  "I (300) esp_netif_handlers: sta ip: 192.168.1.79, mask: 255.255.255.0, gw: 192.168.1.1\r\n");
    fake_rule_add(&f->fp, "free\r\n", "free\r\n181234\r\niperf> ");
    fake_rule_add(&f->fp, "heap\r\n", "heap\r\nmin heap size: 150000\r\niperf> ");
    eb_wifi_info w = {0};
    assert_int_equal(d->scan(d, f->c, "lab", &w, soon(), &f->err), 0);
    assert_int_equal(w.rssi, -34);
    assert_int_equal(w.channel, 11);
    assert_int_equal(d->connect(d, f->c, "lab", "pw", &w, soon(), &f->err), 0);
    assert_string_equal(w.ip, "192.168.1.79");
    assert_string_equal(w.mask, "255.255.255.0");
    eb_mem_info m;
    assert_int_equal(d->memory(d, f->c, &m, soon(), &f->err), 0);
    assert_int_equal(m.free_internal, 181234);
    assert_int_equal(m.min_free_internal, 150000);
}

static void test_stock_wrong_password_after_three_disconnects(void **state)
{
    fixture *f = *state;
    const eb_console_driver *d = drv(EB_DIALECT_IPERF_CMD_01);
    fake_rule_add(&f->fp, "sta_connect",
                  "I (1) WIFI: WIFI_EVENT_STA_DISCONNECTED! reason: 15\r\nI (2) WIFI: trying to reconnect...\r\n"
                  "I (3) WIFI: WIFI_EVENT_STA_DISCONNECTED! reason: 15\r\n"
                  "I (4) WIFI: WIFI_EVENT_STA_DISCONNECTED! reason: 15\r\n");
    eb_wifi_info w = {0};
    assert_int_equal(d->connect(d, f->c, "lab", "nope", &w, soon(), &f->err), EB_EIO);
    assert_string_equal(f->err.msg, "Wi-Fi connect to 'lab' failed on fake://board: disconnected 3 times, "
                                    "reason 15 (wrong password)");
}

static void test_stock_udp_rate_formats(void **state)
{
    fixture *f = *state;
    /* v5.x takes whole Mbit/s; iperf-cmd 1.0 needs a unit suffix. */
    fake_rule_add(&f->fp, "iperf", "I (1) iperf: Socket created, sending to 10.0.0.2:5001\r\n");
    eb_board_iperf cfg = {.board_sends = true, .udp = true, .port = 5001, .time_s = 10, .interval_s = 1,
                          .udp_rate_mbps = 99.1};
    snprintf(cfg.peer, sizeof cfg.peer, "10.0.0.2");
    eb_board_run r;
    memset(&r, 0, sizeof r);
    eb_board_run_reset(&r);
    const eb_console_driver *d = drv(EB_DIALECT_IDF_V51);
    assert_int_equal(d->iperf_start(d, f->c, &cfg, &r, soon(), &f->err), 0);
    d = drv(EB_DIALECT_IPERF_CMD_10);
    eb_board_run_reset(&r);
    assert_int_equal(d->iperf_start(d, f->c, &cfg, &r, soon(), &f->err), 0);
    assert_string_equal(fake_written(&f->fp), "iperf -c 10.0.0.2 -p 5001 -i 1 -t 10 -u -b 100\r\n"
                                              "iperf -c 10.0.0.2 -p 5001 -i 1 -t 10 -u -b 99.1m\r\n");
    eb_board_run_free(&r);
}

/* ---------------------------------------------------------------- detect */

static void test_detect_from_boot_log(void **state)
{
    fixture *f = *state;
    fake_push(&f->fp, "I (27) app_init: Project name:     iperf\r\n"
                      "I (27) app_init: ESP-IDF:          v5.2.1\r\n");
    fake_rule_add(&f->fp, "\r\n", "\x1b[0;32miperf> \x1b[0m");
    const eb_console_driver *d = NULL;
    assert_int_equal(eb_console_detect(f->c, "esp32", &d, eb_deadline_in(3000), &f->err), 0);
    assert_int_equal(d->dialect, EB_DIALECT_IDF_V51);
}

static void test_detect_asks_version_when_boot_log_missed(void **state)
{
    fixture *f = *state;
    fake_rule_add(&f->fp, "\r\n", "iperf> ");
    fake_rule_add(&f->fp, "version\r\n", "version\r\nIDF Version:v6.1-beta1\r\nChip info:\r\niperf> ");
    const eb_console_driver *d = NULL;
    assert_int_equal(eb_console_detect(f->c, "esp32c6", &d, eb_deadline_in(3000), &f->err), 0);
    assert_int_equal(d->dialect, EB_DIALECT_IPERF_CMD_10);
    /* The answer stands in for the missed boot log: the results name the IDF. */
    assert_string_equal(eb_console_boot(f->c)->idf_version, "v6.1-beta1");
    assert_string_equal(eb_console_boot(f->c)->project, "");
}

static void test_detect_asks_version_when_only_the_prompt_tells(void **state)
{
    fixture *f = *state;
    /* An old firmware's prompt names the dialect but not the IDF. */
    fake_rule_add(&f->fp, "\r\n", "esp32> ");
    fake_rule_add(&f->fp, "version\r\n", "version\r\nIDF Version:v4.2.2\r\nChip info:\r\nesp32> ");
    const eb_console_driver *d = NULL;
    assert_int_equal(eb_console_detect(f->c, "esp32", &d, eb_deadline_in(3000), &f->err), 0);
    assert_int_equal(d->dialect, EB_DIALECT_IDF_LEGACY);
    assert_string_equal(eb_console_boot(f->c)->idf_version, "v4.2.2");
}

static void test_detect_boot_log_wins_over_noted_app(void **state)
{
    fixture *f = *state;
    /* What the flashed image said fills gaps only; the board's own log counts. */
    eb_console_note_app(f->c, "iperf", "tier-a", "v5.1.2");
    fake_push(&f->fp, "I (27) app_init: Project name:     iperf\r\n"
                      "I (27) app_init: ESP-IDF:          v5.3\r\n");
    fake_rule_add(&f->fp, "\r\n", "iperf> ");
    const eb_console_driver *d = NULL;
    assert_int_equal(eb_console_detect(f->c, "esp32", &d, eb_deadline_in(3000), &f->err), 0);
    assert_int_equal(d->dialect, EB_DIALECT_IPERF_CMD_01);
    assert_string_equal(eb_console_boot(f->c)->idf_version, "v5.3");
    assert_string_equal(eb_console_boot(f->c)->app_version, "tier-a");
    assert_string_equal(fake_written(&f->fp), "\r\n");
}

/* A dialect loaded from YAML (tests/fixtures/profiles/newdialect): the
 * console syncs on its prompt before it knows the dialect, the release from
 * `version` picks its row, and the stock driver sends its commands. */
static void test_detect_and_drive_a_loaded_dialect(void **state)
{
    fixture *f = *state;
    const char *dirs[] = {FIXTURES_DIR "/profiles/newdialect/dialects"};
    assert_int_equal(eb_dialects_load_dirs(dirs, 1, &f->err), 0);
    fake_rule_add(&f->fp, "\r\n", "wifi> ");
    fake_rule_add(&f->fp, "version\r\n", "version\r\nIDF Version:v6.2\r\nChip info:\r\nwifi> ");
    fake_rule_add(&f->fp, "wifi_scan lab\r\n",
                  "I (544) WIFI: +SCAN:[02:eb:00:00:00:01][lab][rssi=-40][authmode=3][ch=2][second=0][11n]\r\n"
                  "I (544) WIFI: SCAN_DONE: Found 1 APs\r\nwifi> ");
    const eb_console_driver *d = NULL;
    assert_int_equal(eb_console_detect(f->c, "esp32c6", &d, eb_deadline_in(3000), &f->err), 0);
    assert_string_equal(d->name, "idf-v6.2");
    assert_int_equal(d->dialect, eb_dialect_from_name("idf-v6.2"));
    assert_string_equal(d->prompts[0], "wifi> ");
    eb_wifi_info w = {0};
    assert_int_equal(d->scan(d, f->c, "lab", &w, eb_deadline_in(3000), &f->err), 0);
    assert_int_equal(w.rssi, -40);
    assert_int_equal(w.channel, 2);
}

static void test_no_prompt_names_every_prompt(void **state)
{
    fixture *f = *state;
    const eb_console_driver *d = NULL;
    assert_int_equal(eb_console_detect(f->c, "esp32", &d, eb_deadline_in(300), &f->err), EB_EIO);
    assert_non_null(strstr(f->err.msg, ": no console prompt (espbench>, esp32>, iperf>, wifi>) before the deadline"));
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_has_every_dialect),
        T(test_espbench_scan_keeps_strongest_bss),
        T(test_espbench_missing_ap),
        T(test_espbench_connect_sends_password_on_its_own_line),
        T(test_espbench_wrong_password),
        T(test_espbench_memory_and_error_reply),
        T(test_espbench_set_tier_sends_runtime_fields_only),
        cmocka_unit_test(test_espbench_iperf_lines),
        T(test_espbench_iperf_start_commands),
        T(test_reboot_during_a_command_is_reported),
        cmocka_unit_test(test_stock_interval_units_per_dialect),
        T(test_stock_scan_connect_memory),
        T(test_stock_wrong_password_after_three_disconnects),
        T(test_stock_udp_rate_formats),
        T(test_detect_from_boot_log),
        T(test_detect_asks_version_when_boot_log_missed),
        T(test_detect_asks_version_when_only_the_prompt_tells),
        T(test_detect_boot_log_wins_over_noted_app),
        T(test_detect_and_drive_a_loaded_dialect),
        T(test_no_prompt_names_every_prompt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
