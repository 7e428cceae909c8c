/* Board console parser: every dialect's lines (copied from the reference
 * notes on the board console), unit bases, #EB: tokenizing, dialect
 * detection over the fixture logs, summary recognition, robustness. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/formats/board_parse.h"

#define BDIR FIXTURES_DIR "/logs/board/"
#define NA NAN

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open fixture %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void assert_close(double got, double want, const char *what, const char *line)
{
    if (isnan(want)) {
        if (!isnan(got))
            fail_msg("%s: %s = %.9g, want NAN", line, what, got);
        return;
    }
    if (!(fabs(got - want) <= fabs(want) * 1e-9 + 1e-12))
        fail_msg("%s: %s = %.12g, want %.12g", line, what, got, want);
}

/* ------------------------------------------------------ interval lines */

typedef struct {
    int dialect;
    const char *line;
    size_t len;   /* 0: strlen */
    int id;
    int style;
    double start, end, mbps, bytes;
} iv_case;

#define M20 1048576.0

static const iv_case iv_cases[] = {
    /* ESP-IDF v2.x–v4.3, ESP8266 and v4.4–v5.0: Mbits of 1e6 */
    {EB_DIALECT_IDF_LEGACY, "   0-   3 sec       8.43 Mbits/sec", 0, 0, EB_IVS_INT, 0, 3, 8.43, 8.43e6 / 8 * 3},
    {EB_DIALECT_IDF_LEGACY, "3-   6 sec       36.16 Mbits/sec", 0, 0, EB_IVS_INT, 3, 6, 36.16, NA},
    {EB_DIALECT_ESP8266, "  18-  21 sec      6.83 Mbits/sec", 0, 0, EB_IVS_INT, 18, 21, 6.83, NA},
    {EB_DIALECT_IDF_V44, " 12-  15 sec       36.25 Mbits/sec", 0, 0, EB_IVS_INT, 12, 15, 36.25, NA},
    /* v5.1–v5.2: "Mbits" = 2^20 bits; 'K' = 2^10; a NUL unit char = bits */
    {EB_DIALECT_IDF_V51, "   0-   3 sec       0.09 Mbits/sec", 0, 0, EB_IVS_INT, 0, 3, 0.09 * M20 / 1e6,
     0.09 * M20 / 8 * 3},
    {EB_DIALECT_IDF_V51, "   0-   3 sec       92.16 Kbits/sec", 0, 0, EB_IVS_INT, 0, 3, 92.16 * 1024 / 1e6, NA},
    {EB_DIALECT_IDF_V51, "   0-   3 sec       94371.84 \0bits/sec", 38, 0, EB_IVS_INT, 0, 3, 0.09437184, NA},
    /* iperf-cmd 0.1 (v5.3–v6.0): 2^20 */
    {EB_DIALECT_IPERF_CMD_01, " 0.0- 2.0 sec  24.36 Mbits/sec", 0, 0, EB_IVS_DECIMAL, 0, 2, 24.36 * M20 / 1e6, NA},
    {EB_DIALECT_IPERF_CMD_01, "2.0- 4.0 sec  23.38 Mbits/sec", 0, 0, EB_IVS_DECIMAL, 2, 4, 23.38 * M20 / 1e6, NA},
    {EB_DIALECT_IPERF_CMD_01, "10.0-12.0 sec  100.00 Kbits/sec", 0, 0, EB_IVS_DECIMAL, 10, 12, 0.1024, NA},
    /* iperf-cmd 1.0: 'm' = 1e6 for MBytes and Mbits; 'M' = 2^20 Bytes/sec; 'k' 1e3; 'K' 1024 bytes */
    {EB_DIALECT_IPERF_CMD_10, "[  1]  1.0- 2.0 sec\t2.95 MBytes\t23.63 Mbits/sec", 0, 1, EB_IVS_ID_BYTES, 1, 2, 23.63,
     2.95e6},
    {EB_DIALECT_IPERF_CMD_10, "[  2]  0.0-30.0 sec\t88.50 MBytes\t23.60 Mbits/sec", 0, 2, EB_IVS_ID_BYTES, 0, 30,
     23.60, 88.5e6},
    {EB_DIALECT_IPERF_CMD_10, "[  1]  1.0- 2.0 sec\t2.82 MBytes\t2.82 MBytes/sec", 0, 1, EB_IVS_ID_BYTES, 1, 2,
     2.82 * M20 * 8 / 1e6, 2.82 * M20},
    {EB_DIALECT_IPERF_CMD_10, "[  1]  1.0- 2.0 sec\t2950.00 KBytes\t23600.00 Kbits/sec", 0, 1, EB_IVS_ID_BYTES, 1, 2,
     23.6, 2950e3},
    {EB_DIALECT_IPERF_CMD_10, "[  1]  1.0- 2.0 sec\t2880.00 KBytes\t2880.00 KBytes/sec", 0, 1, EB_IVS_ID_BYTES, 1, 2,
     2880 * 1024 * 8 / 1e6, 2880 * 1024.0},
    {EB_DIALECT_IPERF_CMD_10, "[  1]  1.0- 2.0 sec\t2950000.00 Bytes\t23600000.00 bits/sec", 0, 1, EB_IVS_ID_BYTES, 1,
     2, 23.6, 2950000},
    /* colour codes and CR LF around an interval line */
    {EB_DIALECT_IDF_V44, "\x1b[0;32m   0-   3 sec       8.43 Mbits/sec\x1b[0m\r\n", 0, 0, EB_IVS_INT, 0, 3, 8.43, NA},
    /* a prompt in front: "iperf> " then the line */
    {EB_DIALECT_IDF_V44, "iperf> 3-   6 sec       36.16 Mbits/sec", 0, 0, EB_IVS_INT, 3, 6, 36.16, NA},
};

static void test_interval_lines(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof iv_cases / sizeof iv_cases[0]; i++) {
        const iv_case *c = &iv_cases[i];
        eb_board_line l;
        size_t len = c->len ? c->len : strlen(c->line);
        eb_board_parse_line(c->dialect, c->line, len, &l, NULL);
        if (l.event != EB_BEV_INTERVAL)
            fail_msg("%s: event %d, want interval", c->line, l.event);
        if (l.id != c->id || l.style != c->style)
            fail_msg("%s: id %d style %d", c->line, l.id, l.style);
        assert_close(l.iv.start_s, c->start, "start", c->line);
        assert_close(l.iv.end_s, c->end, "end", c->line);
        assert_close(l.iv.mbps, c->mbps, "mbps", c->line);
        if (!isnan(c->bytes))
            assert_close(l.iv.bytes, c->bytes, "bytes", c->line);
    }
}

/* The brief's worked example: v5.1 "0.09 Mbits/sec" = 0.09*1048576/1e6 Mbit/s,
 * and the per-dialect base agrees with dialect.h. */
static void test_unit_bases(void **state)
{
    (void)state;
    const char *line = "   0-   1 sec       0.09 Mbits/sec";
    static const struct {
        int dialect;
        double mbps;
    } want[] = {
        {EB_DIALECT_IDF_LEGACY, 0.09},       {EB_DIALECT_ESP8266, 0.09},
        {EB_DIALECT_IDF_V44, 0.09},          {EB_DIALECT_IDF_V51, 0.09 * 1048576 / 1e6},
        {EB_DIALECT_IPERF_CMD_01, 0.09 * 1048576 / 1e6}, {EB_DIALECT_IPERF_CMD_10, 0.09},
        {EB_DIALECT_ESPBENCH, 0.09},         {EB_DIALECT_UNKNOWN, 0.09},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        eb_board_line l;
        eb_board_parse_line(want[i].dialect, line, strlen(line), &l, NULL);
        assert_int_equal(l.event, EB_BEV_INTERVAL);
        assert_close(l.iv.mbps, want[i].mbps, "mbps", eb_dialect_name(want[i].dialect));
        assert_close(l.iv.mbps * 1e6 / 0.09, eb_dialect_mbit_base(want[i].dialect), "base",
                     eb_dialect_name(want[i].dialect));
    }
}

/* ------------------------------------------------------------ other lines */

typedef struct {
    const char *line;
    int event;
    int error;
    long value;
    const char *text;  /* text, ip, ssid or name depending on the event; NULL = not checked */
} ev_case;

/* Which test a line announces: role and protocol from the mode line, the
 * echoed command, or iperf-cmd 1.0's socket line. */
static void test_role_lines(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        bool known, udp, server;
    } cases[] = {
        {"iperf> iperf -c 192.168.1.2 -u -i 1 -t 4", true, true, false},
        {"iperf> iperf -s -i 1 -t 3", true, false, true},
        {"iperf> iperf -su", true, true, true},
        {"I (5001) iperf(id=1): [UDP Server] Socket created", true, true, true},
        {"I (5001) iperf(id=2): [TCP Client] Socket created", true, false, false},
        {"I (84812) iperf: Socket created", false, false, false},
        {"iperf> iperf --abort", false, false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        eb_board_line l;
        eb_board_parse_line(EB_DIALECT_IPERF_CMD_10, cases[i].line, strlen(cases[i].line), &l, NULL);
        if (l.role_known != cases[i].known || (l.role_known && (l.udp != cases[i].udp || l.server != cases[i].server)))
            fail_msg("%s: known %d udp %d server %d", cases[i].line, l.role_known, l.udp, l.server);
    }
}

static const ev_case ev_cases[] = {
    /* mode/header lines */
    {"I (14958) iperf: mode=tcp-server sip=192.168.10.248:5001, dip=0.0.0.0:5001, interval=3, time=1000", EB_BEV_MODE,
     0, -1, "0.0.0.0"},
    {"I (84810) IPERF: mode=tcp-server sip=0.0.0.0:5001,             dip=0.0.0.0:5001,               interval=2, "
     "time=30",
     EB_BEV_MODE, 0, -1, NULL},
    {"I (167646) IPERF: mode=tcp-server sip=localhost:5001, dip=0.0.0.0:5001, interval=3, time=30", EB_BEV_MODE, 0, -1,
     NULL},
    /* the echoed command says the test where no mode= line is printed (iperf-cmd 1.x logs) */
    {"iperf> iperf -c 192.168.1.2 -u -i 1 -t 4", EB_BEV_IPERF_COMMAND, 0, -1, NULL},
    {"espbench> iperf -s -p 5001 -i 1 -t 10", EB_BEV_IPERF_COMMAND, 0, -1, NULL},
    {"        Interval Bandwidth", EB_BEV_TABLE_HEADER, 0, -1, NULL},
    {"Interval       Bandwidth", EB_BEV_TABLE_HEADER, 0, -1, NULL},
    {"[ ID] Interval\t\tTransfer\tBandwidth", EB_BEV_TABLE_HEADER, 0, -1, NULL},
    /* socket progress */
    {"I (84812) iperf: Socket created", EB_BEV_SOCKET_CREATED, 0, -1, NULL},
    {"I (5001) iperf(id=1): [TCP Server] Socket created", EB_BEV_SOCKET_CREATED, 0, -1, NULL},
    {"iperf tcp server create successfully", EB_BEV_SOCKET_CREATED, 0, -1, NULL},
    {"iperf udp server create successfully", EB_BEV_SOCKET_CREATED, 0, -1, NULL},
    {"I (6001) iperf: Socket created, sending to 1678092480:5001", EB_BEV_SOCKET_CREATED, 0, -1, "192.168.5.100"},
    {"I (6001) iperf: Socket created, sending to 192.168.1.2:5001", EB_BEV_SOCKET_CREATED, 0, -1, "192.168.1.2"},
    {"I (6001) iperf: Socket bound, port 35091", EB_BEV_SOCKET_BOUND, 0, -1, NULL},
    {"accept: 192.168.10.42,62958", EB_BEV_ACCEPTED, 0, -1, "192.168.10.42"},
    {"iperf> I (87967) iperf: accept: 192.168.1.2,43726", EB_BEV_ACCEPTED, 0, -1, "192.168.1.2"},
    {"I (6001) iperf: Successfully connected", EB_BEV_CONNECTED, 0, -1, NULL},
    {"[  1] local 192.168.1.81:62001 connected to 192.168.1.2:5001", EB_BEV_CONNECTED, 0, -1, "192.168.1.2"},
    {"I (93000) iperf: TCP Socket server is closed.", EB_BEV_SOCKET_CLOSED, 0, -1, NULL},
    {"I (93000) iperf: Udp socket server is closed.", EB_BEV_SOCKET_CLOSED, 0, -1, NULL},
    {"I (93000) iperf: UDP Socket client is closed", EB_BEV_SOCKET_CLOSED, 0, -1, NULL},
    {"I (93001) iperf: iperf exit", EB_BEV_IPERF_DONE, 0, -1, NULL},
    {"I (93001) IPERF: DONE.IPERF_STOP,OK", EB_BEV_IPERF_DONE, 0, -1, NULL},
    /* got IP, all forms */
    {"I (5000) event: sta ip: 192.168.1.2, mask: 255.255.255.0, gw: 192.168.1.1", EB_BEV_GOT_IP, 0, -1, "192.168.1.2"},
    {"I (42929) esp_netif_handlers: sta ip: 192.168.1.79, mask: 255.255.255.0, gw: 192.168.1.1", EB_BEV_GOT_IP, 0, -1,
     "192.168.1.79"},
    {"I (4000) tcpip_adapter: sta ip: 10.0.0.5, mask: 255.0.0.0, gw: 10.0.0.1", EB_BEV_GOT_IP, 0, -1, "10.0.0.5"},
    {"I (37000) WIFI: IP_EVENT_STA_GOT_IP: Interface \"sta\" address: 192.168.1.79", EB_BEV_GOT_IP, 0, -1,
     "192.168.1.79"},
    {"I (37000) WIFI: - IPv4 address: 192.168.1.79,", EB_BEV_GOT_IP, 0, -1, "192.168.1.79"},
    /* scan */
    {"I (6012) cmd_wifi: [myap][rssi=-34]", EB_BEV_SCAN, 0, -1, "myap"},
    {"+SCAN:[aa:bb:cc:dd:ee:ff][myap][rssi=-34][authmode=3][ch=11][second=0][11n]", EB_BEV_SCAN, 0, -1, "myap"},
    {"I (6013) cmd_wifi: sta scan done", EB_BEV_SCAN_DONE, 0, -1, NULL},
    {"SCAN_DONE: Found 3 APs", EB_BEV_SCAN_DONE, 0, 3, NULL},
    {"SCAN_DONE: No AP found", EB_BEV_SCAN_DONE, 0, 0, NULL},
    /* heap */
    {"min heap size: 123456", EB_BEV_HEAP_MIN, 0, 123456, NULL},
    {"I (100) cmd_system: min heap size: 4321", EB_BEV_HEAP_MIN, 0, 4321, NULL},
    {"234567", EB_BEV_FREE_HEAP, 0, 234567, NULL},
    /* prompts */
    {"esp32> ", EB_BEV_PROMPT, 0, -1, NULL},
    {"iperf>", EB_BEV_PROMPT, 0, -1, NULL},
    {"\x1b[0;32miperf> \x1b[0m", EB_BEV_PROMPT, 0, -1, NULL},
    {"espbench> ", EB_BEV_PROMPT, 0, -1, NULL},
    /* boot and identity */
    {"rst:0x1 (POWERON_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)", EB_BEV_BOOT, 0, -1, NULL},
    {"ESP-ROM:esp32s3-20210327", EB_BEV_BOOT, 0, -1, "esp32s3"},
    {"ets Jun  8 2016 00:22:57", EB_BEV_BOOT, 0, -1, "esp32"},
    {"ets Jan  8 2013,rst cause:2, boot mode:(3,6)", EB_BEV_BOOT, 0, -1, "esp8266"},
    {"I (29) boot: ESP-IDF v5.2.1 2nd stage bootloader", EB_BEV_BOOTLOADER, 0, -1, "v5.2.1"},
    {"I (245) cpu_start: Project name:     iperf", EB_BEV_APP_PROJECT, 0, -1, "iperf"},
    {"I (262) cpu_start: ESP-IDF:          v5.2.1", EB_BEV_APP_IDF, 0, -1, "v5.2.1"},
    {"I (250) cpu_start: App version:      v5.2.1-dirty", EB_BEV_APP_VERSION, 0, -1, "v5.2.1-dirty"},
    {"\x1b[0;32mI (255) app_init: ESP-IDF:          v6.1-beta1\x1b[0m", EB_BEV_APP_IDF, 0, -1, "v6.1-beta1"},
    /* panics */
    {"Guru Meditation Error: Core  0 panic'ed (LoadProhibited). Exception was unhandled.", EB_BEV_PANIC, 0, -1, NULL},
    {"abort() was called at PC 0x40082b3e on core 0", EB_BEV_PANIC, 0, -1, NULL},
    {"Backtrace: 0x40081f1a:0x3ffb0d40 0x40087d49:0x3ffb0d60", EB_BEV_PANIC, 0, -1, NULL},
    /* errors */
    {"\x1b[0;31mE (5000) cmd_wifi: sta has no IP\x1b[0m", EB_BEV_ERROR, EB_BERR_NO_IP, -1, NULL},
    {"E (6100) iperf: iperf_run_tcp_client(361): Socket unable to connect: errno 113", EB_BEV_ERROR, EB_BERR_CONNECT,
     113, NULL},
    {"E (7000) IPERF: iperf is already running.", EB_BEV_ERROR, EB_BERR_ALREADY_RUNNING, -1, NULL},
    {"Unrecognized command", EB_BEV_ERROR, EB_BERR_UNRECOGNIZED, -1, NULL},
    {"Command returned non-zero error code: 0x1 (ESP_FAIL)", EB_BEV_ERROR, EB_BERR_COMMAND_FAILED, 1, NULL},
    {"W (9000) iperf: tcp server recv error, error code: 11, reason: No more processes", EB_BEV_ERROR, EB_BERR_RECV, 11,
     NULL},
    {"W (11050) iperf: tcp client send error, error code: 104, reason: Connection reset by peer", EB_BEV_ERROR,
     EB_BERR_SEND, 104, "tcp client send error, error code: 104, reason: Connection reset by peer"},
    {"I (17274) WIFI: DONE.SET_AP_CONFIG,FAIL.12293,ESP_ERR_WIFI_MODE", EB_BEV_ERROR, EB_BERR_DONE_FAIL, 12293,
     "SET_AP_CONFIG"},
    /* Wi-Fi */
    {"I (9000) WIFI: WIFI_EVENT_STA_DISCONNECTED! reason: 201", EB_BEV_WIFI_DISCONNECTED, 0, 201, NULL},
    {"I (9000) wifi:state: run -> init (fc0)", EB_BEV_WIFI_DISCONNECTED, 0, -1, NULL},
    {"I (3000) wifi:connected with myap, aid = 1, channel 6, BW20, bssid = aa:bb:cc:dd:ee:ff", EB_BEV_WIFI_CONNECTED, 0,
     -1, "myap"},
    /* nothing */
    {"Type 'help' to get the list of commands.", EB_BEV_NONE, 0, -1, NULL},
    {"", EB_BEV_NONE, 0, -1, NULL},
    {"I (36839) WIFI: DONE.WIFI_CONNECT_START,OK.", EB_BEV_NONE, 0, -1, NULL},
};

static const char *ev_text(const eb_board_line *l)
{
    switch (l->event) {
    case EB_BEV_MODE:
    case EB_BEV_GOT_IP:
    case EB_BEV_ACCEPTED:
    case EB_BEV_CONNECTED:
    case EB_BEV_SOCKET_CREATED: return l->ip;
    case EB_BEV_SCAN:
    case EB_BEV_WIFI_CONNECTED: return l->ssid;
    case EB_BEV_ERROR: return l->error == EB_BERR_DONE_FAIL ? l->name : l->text;
    default: return l->text;
    }
}

static void test_event_lines(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof ev_cases / sizeof ev_cases[0]; i++) {
        const ev_case *c = &ev_cases[i];
        eb_board_line l;
        eb_board_parse_line(EB_DIALECT_IDF_V51, c->line, strlen(c->line), &l, NULL);
        if (l.event != c->event || l.error != c->error)
            fail_msg("'%s': event %d error %d, want %d %d", c->line, l.event, l.error, c->event, c->error);
        if (c->value != -1 && l.value != c->value)
            fail_msg("'%s': value %ld, want %ld", c->line, l.value, c->value);
        if (c->text && strcmp(ev_text(&l), c->text) != 0)
            fail_msg("'%s': text '%s', want '%s'", c->line, ev_text(&l), c->text);
    }
}

/* The socket lines of Espressif's iperf examples say which test runs (the
 * lines as ESP-IDF v4.4-v5.2, iperf-cmd 0.1, ESP8266_RTOS_SDK and iperf-cmd
 * 1.0 print them; board_parse.c cites the sources). */
static void test_socket_role_lines(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        int event;
        bool role_known, udp, server;
    } cases[] = {
        {"I (5000) iperf: Successfully connected", EB_BEV_CONNECTED, true, false, false},
        {"I (9000) iperf: Socket created, sending to 33663168:5001", EB_BEV_SOCKET_CREATED, true, true, false},
        {"I (9000) IPERF: Socket created, sending to 192.168.1.2:5001", EB_BEV_SOCKET_CREATED, true, true, false},
        {"iperf> I (87967) iperf: accept: 192.168.1.2,43726", EB_BEV_ACCEPTED, true, false, true},
        {"accept: 192.168.10.42,62958", EB_BEV_ACCEPTED, true, false, true},
        {"I (18000) iperf: Socket bound, port 35091", EB_BEV_SOCKET_BOUND, true, true, true},
        {"iperf tcp server create successfully", EB_BEV_SOCKET_CREATED, true, false, true},
        {"iperf udp server create successfully", EB_BEV_SOCKET_CREATED, true, true, true},
        {"I (8010) iperf: TCP Socket client is closed.", EB_BEV_SOCKET_CLOSED, true, false, false},
        {"I (12010) iperf: UDP Socket client is closed", EB_BEV_SOCKET_CLOSED, true, true, false},
        {"I (17010) iperf: TCP Socket server is closed.", EB_BEV_SOCKET_CLOSED, true, false, true},
        {"I (22000) iperf: Udp socket server is closed.", EB_BEV_SOCKET_CLOSED, true, true, true},
        {"W (9) iperf: udp server recv error, error code: 11, reason: Resource temporarily unavailable", EB_BEV_ERROR,
         true, true, true},
        {"I (5001) iperf(id=1): [UDP Server] Socket created", EB_BEV_SOCKET_CREATED, true, true, true},
        {"I (18000) iperf: Socket created", EB_BEV_SOCKET_CREATED, false, false, false}, /* TCP or UDP server */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        eb_board_line l;
        eb_board_parse_line(EB_DIALECT_IDF_V44, cases[i].line, strlen(cases[i].line), &l, NULL);
        if (l.event != cases[i].event || l.role_known != cases[i].role_known ||
            (l.role_known && (l.udp != cases[i].udp || l.server != cases[i].server)))
            fail_msg("'%s': event %d role %d udp %d server %d", cases[i].line, l.event, l.role_known, l.udp,
                     l.server);
    }
}

static void test_event_details(void **state)
{
    (void)state;
    eb_board_line l;
    const char *m = "I (14958) iperf: mode=udp-client sip=192.168.10.248:5001, dip=192.168.10.42:5002, interval=3, time=30";
    eb_board_parse_line(EB_DIALECT_IDF_V44, m, strlen(m), &l, NULL);
    assert_int_equal(l.event, EB_BEV_MODE);
    assert_true(l.udp);
    assert_false(l.server);
    assert_int_equal(l.interval_s, 3);
    assert_int_equal(l.time_s, 30);
    assert_int_equal(l.port, 5002);
    assert_false(l.mode_spaced);
    const char *sp = "I (84810) IPERF: mode=tcp-server sip=0.0.0.0:5001,             dip=0.0.0.0:5001,               "
                     "interval=2, time=30";
    eb_board_parse_line(EB_DIALECT_IDF_V51, sp, strlen(sp), &l, NULL);
    assert_true(l.server);
    assert_true(l.mode_spaced);
    assert_int_equal(l.interval_s, 2);

    const char *g = "I (42929) esp_netif_handlers: sta ip: 192.168.1.79, mask: 255.255.255.0, gw: 192.168.1.1";
    eb_board_parse_line(EB_DIALECT_IDF_V51, g, strlen(g), &l, NULL);
    assert_string_equal(l.mask, "255.255.255.0");
    assert_string_equal(l.gw, "192.168.1.1");

    const char *s = "+SCAN:[aa:bb:cc:dd:ee:ff][my ap][rssi=-34][authmode=3][ch=11][second=0][11n]";
    eb_board_parse_line(EB_DIALECT_IPERF_CMD_01, s, strlen(s), &l, NULL);
    assert_string_equal(l.ssid, "my ap");
    assert_int_equal(l.rssi, -34);
    assert_int_equal(l.channel, 11);
    assert_string_equal(l.mac, "aa:bb:cc:dd:ee:ff");

    const char *a = "iperf> I (87967) iperf: accept: 192.168.1.2,43726";
    eb_board_parse_line(EB_DIALECT_IDF_V51, a, strlen(a), &l, NULL);
    assert_true(l.after_prompt);
    assert_int_equal(l.port, 43726);

    /* NUL bytes anywhere are tolerated */
    const char nul[] = "min heap\0 size: 77\0";
    eb_board_parse_line(EB_DIALECT_IDF_V51, nul, sizeof nul - 1, &l, NULL);
    assert_int_equal(l.event, EB_BEV_HEAP_MIN);
    assert_int_equal(l.value, 77);
}

static void test_clean_line(void **state)
{
    (void)state;
    char out[64];
    const char in[] = "\x1b[0;32mI (1) x: a\x1b[0m\0b\r\n";
    size_t n = eb_board_clean_line(in, sizeof in - 1, out, sizeof out);
    assert_string_equal(out, "I (1) x: ab");
    assert_int_equal(n, 11);
    n = eb_board_clean_line("abcdef", 6, out, 4);
    assert_string_equal(out, "abc");
    assert_int_equal(n, 3);
}

/* -------------------------------------------------------------- #EB: lines */

static void test_ebline_tokenizer(void **state)
{
    (void)state;
    eb_ebline l;
    const char *t = "#EB:EV wifi.scan ssid=\"my \\\"lab\\\" ap\\\\\" rssi=-40 ch=6";
    assert_true(eb_ebline_parse(t, strlen(t), &l));
    assert_string_equal(l.status, "EV");
    assert_string_equal(l.name, "wifi.scan");
    assert_int_equal(l.n_kv, 3);
    assert_string_equal(eb_ebline_get(&l, "ssid"), "my \"lab\" ap\\");
    assert_string_equal(eb_ebline_get(&l, "rssi"), "-40");
    assert_null(eb_ebline_get(&l, "bssid"));

    const char *ok = "#EB:OK\r\n";
    assert_true(eb_ebline_parse(ok, strlen(ok), &l));
    assert_string_equal(l.status, "OK");
    assert_int_equal(l.n_kv, 0);

    const char *okv = "#EB:OK free=180000 min_free=150000";
    assert_true(eb_ebline_parse(okv, strlen(okv), &l));
    assert_string_equal(eb_ebline_get(&l, "min_free"), "150000");

    const char *err = "#EB:ERR code=BAD_TIER msg=\"unknown tier 'x'; see tiers\"";
    assert_true(eb_ebline_parse(err, strlen(err), &l));
    assert_string_equal(l.status, "ERR");
    assert_string_equal(eb_ebline_get(&l, "code"), "BAD_TIER");
    assert_string_equal(eb_ebline_get(&l, "msg"), "unknown tier 'x'; see tiers");

    const char *empty = "#EB:OK ssid=\"\"";
    assert_true(eb_ebline_parse(empty, strlen(empty), &l));
    assert_string_equal(eb_ebline_get(&l, "ssid"), "");

    static const char *const bad[] = {
        "#EB:EV",                       /* no event name */
        "#EB:OK msg=\"unterminated",    /* open quote */
        "#EB:OK msg=\"x\\",             /* escape at end */
        "#EB:OK =v",                    /* empty key */
        "#EB:OK key",                   /* no '=' */
        "#EB:NOPE",                     /* unknown status */
        "#EB:OKAY",                     /* status glued to text */
        "#EB:OK a=\"x\"b=1",            /* no blank after a quoted value */
        "EB:OK",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (eb_ebline_parse(bad[i], strlen(bad[i]), &l))
            fail_msg("'%s' accepted", bad[i]);
}

static void test_eb_events(void **state)
{
    (void)state;
    eb_ebline scratch;
    eb_board_line l;
    const char *iv = "#EB:EV iperf.interval start=1 end=2 bytes=10500000 lost=3 total=7143 jitter_ms=0.10";
    eb_board_parse_line(EB_DIALECT_ESPBENCH, iv, strlen(iv), &l, &scratch);
    assert_int_equal(l.event, EB_BEV_INTERVAL);
    assert_true(l.bytes_exact);
    assert_close(l.iv.bytes, 10500000, "bytes", iv);
    assert_close(l.iv.mbps, 84.0, "mbps", iv);
    assert_int_equal(l.iv.lost, 3);
    assert_int_equal(l.iv.total, 7143);
    assert_close(l.iv.jitter_ms, 0.10, "jitter", iv);

    const char *sm = "#EB:EV iperf.summary start=0 end=3 bytes=30750000";
    eb_board_parse_line(EB_DIALECT_ESPBENCH, sm, strlen(sm), &l, &scratch);
    assert_int_equal(l.event, EB_BEV_SUMMARY);
    assert_close(l.iv.mbps, 82.0, "mbps", sm);
    assert_int_equal(l.iv.total, -1);

    static const struct {
        const char *line;
        int event;
    } map[] = {
        {"#EB:EV boot fw=0.1.0 idf=v5.2.1 chip=esp32", EB_BEV_BOOT},
        {"#EB:EV wifi.connected", EB_BEV_WIFI_CONNECTED},
        {"#EB:EV wifi.got_ip ip=192.168.1.90 mask=255.255.255.0 gw=192.168.1.1", EB_BEV_GOT_IP},
        {"#EB:EV wifi.disconnected reason=201", EB_BEV_WIFI_DISCONNECTED},
        {"#EB:EV iperf.started role=server proto=udp", EB_BEV_MODE},
        {"#EB:EV iperf.connected peer=192.168.1.2:40000", EB_BEV_CONNECTED},
        {"#EB:EV iperf.done", EB_BEV_IPERF_DONE},
        {"#EB:EV iperf.error msg=\"socket: errno 12\"", EB_BEV_ERROR},
        {"#EB:EV tier.applied name=iperf", EB_BEV_EB_EVENT},
        {"#EB:OK", EB_BEV_EB_OK},
        {"#EB:ERR code=BUSY msg=\"iperf running\"", EB_BEV_EB_ERR},
        {"#EB:EV iperf.interval start=1 end=2", EB_BEV_EB_EVENT}, /* no bytes: not a measurement */
        {"#EB:OK msg=\"broken", EB_BEV_NONE},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        eb_board_parse_line(EB_DIALECT_ESPBENCH, map[i].line, strlen(map[i].line), &l, &scratch);
        if (l.event != map[i].event)
            fail_msg("'%s': event %d want %d", map[i].line, l.event, map[i].event);
    }
    const char *mode = "#EB:EV iperf.started role=server proto=udp";
    memset(&l, 0x3d, sizeof l); /* stale bytes: every flag of the event must be set (UBSan checks bools) */
    eb_board_parse_line(EB_DIALECT_ESPBENCH, mode, strlen(mode), &l, &scratch);
    assert_true(l.server);
    assert_true(l.udp);
    assert_false(l.mode_spaced);
    assert_false(l.mode_localhost);
    assert_false(l.after_prompt);
    assert_false(l.bytes_exact);
    assert_int_equal(l.interval_s, 0);
    const char *dis = "#EB:EV wifi.disconnected reason=201";
    eb_board_parse_line(EB_DIALECT_ESPBENCH, dis, strlen(dis), &l, &scratch);
    assert_int_equal(l.value, 201);
    const char *er = "#EB:ERR code=BUSY msg=\"iperf running\"";
    eb_board_parse_line(EB_DIALECT_ESPBENCH, er, strlen(er), &l, &scratch);
    assert_string_equal(l.name, "BUSY");
    assert_string_equal(l.text, "iperf running");
    assert_ptr_equal(l.eb, &scratch);
    /* after a prompt, or glued to other output */
    const char *glued[] = {"espbench> #EB:EV iperf.done", "I (5) wifi: x#EB:EV iperf.done", "\x1b[0;32mespbench> \x1b[0m#EB:EV iperf.done"};
    for (int i = 0; i < 3; i++) {
        eb_board_parse_line(EB_DIALECT_ESPBENCH, glued[i], strlen(glued[i]), &l, &scratch);
        if (l.event != EB_BEV_IPERF_DONE)
            fail_msg("'%s': event %d", glued[i], l.event);
    }
    const char *pe = "#EB:EV iperf.connected peer=192.168.1.2:40000";
    eb_board_parse_line(EB_DIALECT_ESPBENCH, pe, strlen(pe), &l, &scratch);
    assert_string_equal(l.ip, "192.168.1.2");
    assert_int_equal(l.port, 40000);
}

/* ------------------------------------------------------- detection on logs */

static void test_detect_fixtures(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        int dialect;
        const char *chip;
    } want[] = {
        {"idf-v5.1_esp32s3_tcp_rx_udp_tx.log", EB_DIALECT_IDF_V51, "esp32s3"},
        {"idf-legacy_esp32_tcp_rx.log", EB_DIALECT_IDF_LEGACY, "esp32"},
        {"iperf-cmd-0.1_esp32c3_tcp_rx.log", EB_DIALECT_IPERF_CMD_01, "esp32c3"},
        {"iperf-cmd-1.0_esp32c6_tcp_tx.log", EB_DIALECT_IPERF_CMD_10, "esp32c6"},
        {"espbench_esp32_udp_rx.log", EB_DIALECT_ESPBENCH, "esp32"},
        {"idf-v4.4_esp32_errors.log", EB_DIALECT_IDF_V44, ""},
        {"ambiguous_int_intervals.log", EB_DIALECT_UNKNOWN, ""},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char path[512];
        size_t len;
        snprintf(path, sizeof path, BDIR "%s", want[i].file);
        char *b = slurp(path, &len);
        eb_board_detect d;
        eb_board_detect_init(&d);
        const char *p = b, *e = b + len;
        while (p < e) {
            const char *nl = memchr(p, '\n', (size_t)(e - p));
            size_t n = nl ? (size_t)(nl - p) : (size_t)(e - p);
            eb_board_detect_line(&d, p, n);
            p = nl ? nl + 1 : e;
        }
        char why[320];
        int got = eb_board_detect_result(&d, why, sizeof why);
        if (got != want[i].dialect)
            fail_msg("%s: detected %s (%s), want %s", want[i].file, eb_dialect_name(got), why,
                     eb_dialect_name(want[i].dialect));
        if (strcmp(d.chip, want[i].chip) != 0)
            fail_msg("%s: chip '%s'", want[i].file, d.chip);
        if (got == EB_DIALECT_UNKNOWN)
            assert_non_null(strstr(why, "pass --dialect"));
        free(b);
    }
    /* interval shapes alone decide between the iperf-cmd generations and v5.1 */
    static const struct {
        const char *lines[2];
        int dialect;
    } shapes[] = {
        {{" 0.0- 2.0 sec  24.36 Mbits/sec", NULL}, EB_DIALECT_IPERF_CMD_01},
        {{"[  1]  1.0- 2.0 sec\t2.95 MBytes\t23.63 Mbits/sec", NULL}, EB_DIALECT_IPERF_CMD_10},
        {{"I (84810) IPERF: mode=tcp-server sip=0.0.0.0:5001,             dip=0.0.0.0:5001,               interval=2, "
          "time=30",
          "   0-   2 sec       0.09 Mbits/sec"},
         EB_DIALECT_IDF_V51},
        {{"I (1) iperf: mode=tcp-server sip=1.2.3.4:5001, dip=0.0.0.0:5001, interval=3, time=30", "I (2) iperf: Socket created"},
         EB_DIALECT_IDF_V44},
        {{"ets Jan  8 2013,rst cause:2, boot mode:(3,6)", "   0-   3 sec       5.50 Mbits/sec"}, EB_DIALECT_ESP8266},
        /* ESP-IDF never had a v3.4: that is the ESP8266_RTOS_SDK */
        {{"I (29) boot: ESP-IDF v3.4 2nd stage bootloader", "   0-   3 sec       5.50 Mbits/sec"}, EB_DIALECT_ESP8266},
        {{"I (29) boot: ESP-IDF v3.3 2nd stage bootloader", "   0-   3 sec       5.50 Mbits/sec"}, EB_DIALECT_IDF_LEGACY},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        eb_board_detect d;
        eb_board_detect_init(&d);
        for (int k = 0; k < 2 && shapes[i].lines[k]; k++)
            eb_board_detect_line(&d, shapes[i].lines[k], strlen(shapes[i].lines[k]));
        char why[320];
        assert_int_equal(eb_board_detect_result(&d, why, sizeof why), shapes[i].dialect);
    }
    const char nul[] = "   0-   3 sec       94371.84 \0bits/sec";
    eb_board_detect d;
    eb_board_detect_init(&d);
    eb_board_detect_line(&d, nul, sizeof nul - 1);
    char why[320];
    assert_int_equal(eb_board_detect_result(&d, why, sizeof why), EB_DIALECT_IDF_V51);
}

/* ------------------------------------------------- stateful: summaries */

static int feed_lines(eb_board_parser *p, const char *const *lines, int n, int *events)
{
    eb_board_line l;
    for (int i = 0; i < n; i++) {
        eb_board_parser_line(p, lines[i], strlen(lines[i]), &l);
        events[i] = l.event;
    }
    return n;
}

static void test_summary_recognition(void **state)
{
    (void)state;
    eb_board_parser p;
    int ev[8];
    /* mean-of-intervals summary "0- 12" after intervals */
    const char *legacy[] = {"I (1) iperf: mode=tcp-server sip=1.2.3.4:5001, dip=0.0.0.0:5001, interval=3, time=12",
                            "   0-   3 sec       8.43 Mbits/sec", "   3-   6 sec       36.16 Mbits/sec",
                            "   0-  12 sec       29.26 Mbits/sec", "   0-   3 sec       9.00 Mbits/sec"};
    eb_board_parser_init(&p, EB_DIALECT_IDF_LEGACY);
    feed_lines(&p, legacy, 5, ev);
    assert_int_equal(ev[1], EB_BEV_INTERVAL);
    assert_int_equal(ev[2], EB_BEV_INTERVAL);
    assert_int_equal(ev[3], EB_BEV_SUMMARY);
    assert_int_equal(ev[4], EB_BEV_INTERVAL); /* a new test without a mode line */

    /* -t <= -i (clamped): the interval, then the identical summary */
    const char *clamped[] = {"I (1) iperf: mode=tcp-server sip=1.2.3.4:5001, dip=0.0.0.0:5001, interval=3, time=3",
                             "   0-   3 sec       8.43 Mbits/sec", "   0-   3 sec       8.43 Mbits/sec"};
    eb_board_parser_init(&p, EB_DIALECT_IDF_V44);
    feed_lines(&p, clamped, 3, ev);
    assert_int_equal(ev[1], EB_BEV_INTERVAL);
    assert_int_equal(ev[2], EB_BEV_SUMMARY);

    /* iperf-cmd 1.0: "[  1]  0.0-30.0" summary, even one second short, without interval lines (-i > -t) */
    const char *cmd10[] = {"I (5000) IPERF: mode=tcp-client sip=1.1.1.1:5001, dip=2.2.2.2:5001, interval=3, time=10",
                           "[  1]  0.0- 9.0 sec\t26.55 MBytes\t23.60 Mbits/sec"};
    eb_board_parser_init(&p, EB_DIALECT_IPERF_CMD_10);
    feed_lines(&p, cmd10, 2, ev);
    assert_int_equal(ev[1], EB_BEV_SUMMARY);
}

/* ------------------------------------------------------------- robustness */

static void test_garbage_and_truncation(void **state)
{
    (void)state;
    static const char *const files[] = {"idf-v5.1_esp32s3_tcp_rx_udp_tx.log", "espbench_esp32_udp_rx.log",
                                        "iperf-cmd-1.0_esp32c6_tcp_tx.log", "iperf-cmd-0.1_esp32c3_tcp_rx.log",
                                        "idf-v4.4_esp32_errors.log"};
    eb_ebline scratch;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[512];
        size_t len;
        snprintf(path, sizeof path, BDIR "%s", files[f]);
        char *b = slurp(path, &len);
        const char *p = b, *e = b + len;
        while (p < e) {
            const char *nl = memchr(p, '\n', (size_t)(e - p));
            size_t n = nl ? (size_t)(nl - p) : (size_t)(e - p);
            for (size_t k = 0; k <= n; k++) {
                char *copy = malloc(k ? k : 1);
                memcpy(copy, p, k);
                for (int d = EB_DIALECT_UNKNOWN; d < EB_DIALECT_COUNT; d++) {
                    eb_board_line l;
                    eb_board_parse_line(d, copy, k, &l, &scratch);
                    if (l.event == EB_BEV_INTERVAL)
                        assert_true(isfinite(l.iv.mbps));
                }
                free(copy);
            }
            p = nl ? nl + 1 : e;
        }
        free(b);
    }
    static const char alphabet[] = "[] #EB:OKERV=\"\\0123456789.-,/()IWmode=sipKMBbitsecytes\t\r\n\x1b;";
    uint32_t seed = 777;
    eb_board_parser bp;
    eb_board_parser_init(&bp, EB_DIALECT_IDF_V51);
    eb_board_detect det;
    eb_board_detect_init(&det);
    for (int i = 0; i < 20000; i++) {
        char buf[160];
        seed = seed * 1103515245u + 12345u;
        size_t n = (seed >> 16) % sizeof buf;
        for (size_t k = 0; k < n; k++) {
            seed = seed * 1103515245u + 12345u;
            buf[k] = (seed >> 24) % 6 == 0 ? (char)(seed >> 8) : alphabet[(seed >> 16) % (sizeof alphabet - 1)];
        }
        if (i % 3 == 0 && n >= 4)
            memcpy(buf, "#EB:", 4);
        char *copy = malloc(n ? n : 1);
        memcpy(copy, buf, n);
        eb_board_line l;
        eb_board_parser_line(&bp, copy, n, &l);
        eb_board_detect_line(&det, copy, n);
        eb_ebline t;
        eb_ebline_parse(copy, n, &t);
        free(copy);
    }
    char why[320];
    eb_board_detect_result(&det, why, sizeof why);
    /* an overlong line is cut at the scratch size, not overflowed */
    char *huge = malloc(10000);
    memset(huge, 'x', 10000);
    memcpy(huge, "#EB:OK a=\"", 10);
    eb_board_line l;
    eb_board_parse_line(EB_DIALECT_ESPBENCH, huge, 10000, &l, &scratch);
    assert_int_equal(l.event, EB_BEV_NONE);
    free(huge);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_role_lines),
        cmocka_unit_test(test_interval_lines),
        cmocka_unit_test(test_unit_bases),
        cmocka_unit_test(test_event_lines),
        cmocka_unit_test(test_socket_role_lines),
        cmocka_unit_test(test_event_details),
        cmocka_unit_test(test_clean_line),
        cmocka_unit_test(test_ebline_tokenizer),
        cmocka_unit_test(test_eb_events),
        cmocka_unit_test(test_detect_fixtures),
        cmocka_unit_test(test_summary_recognition),
        cmocka_unit_test(test_garbage_and_truncation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
