/* The stock Espressif iperf example's console, one table row per built-in
 * grammar (ESP-IDF ≤v4.3, ESP8266, v4.4–v5.0, v5.1–v5.2, iperf-cmd 0.1.x,
 * iperf-cmd 1.0.x): log lines, interval formats and options as
 * docs/console-dialects.md lists them. The prompt and the Wi-Fi command
 * names are the console's dialect row's (profiles/dialects/, dialect.h), so
 * a dialect loaded from YAML is spoken with its grammar's row. Differences
 * inside one dialect that depend on the exact ESP-IDF release are small
 * "from version" tables. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/dialect.h"
#include "vb_dialect.h"

/* ------------------------------------------------------------------ version tables */

typedef struct ver_str {
    int from;  /* ESP-IDF major*100+minor */
    const char *s;
} ver_str;

static const char *pick(const ver_str *t, int key)
{
    for (; t->s; t++)
        if (key >= t->from)
            return t->s;
    return "";
}

static const ver_str prompt_idf[] = {{402, "iperf> "}, {0, "esp32> "}, {0, NULL}};
static const ver_str tag_cmd_wifi[] = {{302, "cmd_wifi"}, {0, "iperf"}, {0, NULL}};
static const ver_str tag_wifi_cmd[] = {{0, "WIFI"}, {0, NULL}};
static const ver_str tag_heap[] = {{302, "cmd_system"}, {0, "iperf"}, {0, NULL}};
static const ver_str tag_got_ip_idf[] = {{401, "esp_netif_handlers"}, {400, "tcpip_adapter"}, {0, "event"}, {0, NULL}};
static const ver_str tag_got_ip_8266[] = {{0, "tcpip_adapter"}, {0, NULL}};
/* The REPL (esp_console_new_repl_*) replaced the hand-written loop in v4.2. */
static const ver_str repl_idf[] = {{402, "repl"}, {0, "loop"}, {0, NULL}};
static const ver_str repl_always[] = {{0, "repl"}, {0, NULL}};
static const ver_str repl_never[] = {{0, "loop"}, {0, NULL}};

/* ------------------------------------------------------------------ iperf options */

enum opt {
    O_CLIENT, O_SERVER, O_UDP, O_V6, O_PORT, O_LEN, O_INTERVAL, O_TIME, O_BW, O_FORMAT,
    O_ABORT_SHORT, O_ABORT_LONG, O_BIND, O_CPORT, O_ID, O_PARALLEL, O_TOS, O_COUNT
};

static const struct {
    char shrt;
    const char *lng;
    bool value;
} opts[O_COUNT] = {
    [O_CLIENT] = {'c', "client", true},   [O_SERVER] = {'s', "server", false},
    [O_UDP] = {'u', "udp", false},        [O_V6] = {'V', "ipv6_domain", false},
    [O_PORT] = {'p', "port", true},       [O_LEN] = {'l', "len", true},
    [O_INTERVAL] = {'i', "interval", true}, [O_TIME] = {'t', "time", true},
    [O_BW] = {'b', "bandwidth", true},    [O_FORMAT] = {'f', "format", true},
    [O_ABORT_SHORT] = {'a', "abort", false}, [O_ABORT_LONG] = {0, "abort", false},
    [O_BIND] = {'B', "bind", true},       [O_CPORT] = {0, "cport", true},
    [O_ID] = {0, "id", true},             [O_PARALLEL] = {'P', "parallel", true},
    [O_TOS] = {'S', "tos", true},
};

#define OPT(o) (1u << (o))
#define OPTS_LEGACY (OPT(O_CLIENT) | OPT(O_SERVER) | OPT(O_UDP) | OPT(O_PORT) | OPT(O_INTERVAL) | OPT(O_TIME) | OPT(O_ABORT_SHORT))
#define OPTS_V44 (OPTS_LEGACY | OPT(O_V6) | OPT(O_LEN) | OPT(O_BW))
#define OPTS_CMD01 (OPT(O_CLIENT) | OPT(O_SERVER) | OPT(O_UDP) | OPT(O_V6) | OPT(O_PORT) | OPT(O_LEN) | OPT(O_INTERVAL) | \
                    OPT(O_TIME) | OPT(O_BW) | OPT(O_FORMAT) | OPT(O_ABORT_LONG))
#define OPTS_CMD10 (OPTS_CMD01 | OPT(O_BIND) | OPT(O_CPORT) | OPT(O_ID) | OPT(O_PARALLEL) | OPT(O_TOS))

/* ------------------------------------------------------------------ the row */

enum mode_style { MODE_CLASSIC, MODE_SPACED, MODE_LOCALHOST, MODE_V10 };
enum sock_style { SOCK_LEGACY, SOCK_V44, SOCK_V10 };
enum sum_style { SUM_BYTES_TIME, SUM_MEAN };

/* What a grammar's firmware prints and accepts beyond its dialect row
 * (profiles/dialects/NAME.yaml: prompts, command names, -b format, unit base),
 * which the vboard reads from the row itself (eb_dialect_desc_get). */
typedef struct stock_row {
    const ver_str *prompt; /* the release's pick among the row's prompts; NULL: the row's first */
    const ver_str *wifi_tag, *heap_tag, *got_ip_tag, *repl;
    bool wifi_cmd;         /* esp-qa/wifi-cmd outputs (v5.3+) */
    unsigned opts;
    int bw_since;          /* -b (where the row has a bandwidth format) exists from this release (v5.0) */
    enum mode_style mode;
    const char *mode_tag;  /* NULL: the wifi tag */
    const char *iperf_tag; /* the iperf engine's log tag */
    enum sock_style sock;
    enum sum_style sum;
    bool heap_log;         /* heap via ESP_LOGI (≤v4.3, ESP8266) instead of printf */
    bool argerr_nonzero;   /* argument errors end in "Command returned non-zero error code" */
    int wrong_pass_reason;
    void (*interval)(vb_console *c, double s, double e, uint64_t bytes, double mbps_override);
    void (*header)(vb_console *c);
} stock_row;

static const stock_row *row_of(vb_console *c);

/* ------------------------------------------------------------------ interval lines */

static double rate(uint64_t bytes, double s, double e, double base)
{
    return e > s ? (double)bytes * 8.0 / (e - s) / base : 0.0;
}

/* mbps_override >= 0: print that decimal-Mbit/s figure (mean of intervals). */
static double shown(double mbps_override, uint64_t bytes, double s, double e, double base)
{
    return mbps_override >= 0 ? mbps_override * 1e6 / base : rate(bytes, s, e, base);
}

static void header_classic(vb_console *c) { vb_con_printf(c, "\r\n%16s %s\r\n", "Interval", "Bandwidth"); }
static void header_cmd01(vb_console *c) { vb_con_printf(c, "\r\nInterval       Bandwidth\r\n"); }
static void header_cmd10(vb_console *c) { vb_con_printf(c, "\r\n[ ID] Interval\t\tTransfer\tBandwidth\r\n"); }

static void interval_classic(vb_console *c, double s, double e, uint64_t bytes, double mo)
{
    vb_con_printf(c, "%4d-%4d sec       %.2f Mbits/sec\r\n", (int)lround(s), (int)lround(e), shown(mo, bytes, s, e, 1e6));
}

static void interval_v51(vb_console *c, double s, double e, uint64_t bytes, double mo)
{
    vb_con_printf(c, "%4d-%4d sec       %.2f %cbits/sec\r\n", (int)lround(s), (int)lround(e),
                  shown(mo, bytes, s, e, 1048576.0), 'M');
}

static void interval_cmd01(vb_console *c, double s, double e, uint64_t bytes, double mo)
{
    bool kilo = c->run.fmt == 'k';
    vb_con_printf(c, "%2d.0-%2d.0 sec  %.2f %cbits/sec\r\n", (int)lround(s), (int)lround(e),
                  shown(mo, bytes, s, e, kilo ? 1024.0 : 1048576.0), kilo ? 'K' : 'M');
}

static void interval_cmd10(vb_console *c, double s, double e, uint64_t bytes, double mo)
{
    (void)mo;
    static const struct {
        char fmt;
        double base;
        char unit;
        const char *what;
        bool in_bytes;
    } units[] = {{'m', 1e6, 'M', "bit", false}, {'k', 1e3, 'K', "bit", false},
                 {'M', 1048576.0, 'M', "Byte", true}, {'K', 1024.0, 'K', "Byte", true}};
    size_t u = 0;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (units[i].fmt == c->run.fmt)
            u = i;
    double per_s = e > s ? (double)bytes / (e - s) : 0.0;
    double bw = (units[u].in_bytes ? per_s : per_s * 8.0) / units[u].base;
    vb_con_printf(c, "[%3d] %2d.0-%2d.0 sec\t%2.2f %cBytes\t%.2f %c%ss/sec\r\n", c->run.id, (int)lround(s),
                  (int)lround(e), (double)bytes / units[u].base, units[u].unit, bw, units[u].unit, units[u].what);
}

/* Indexed by grammar (enum eb_dialect); the espbench firmware has its own driver. */
static const stock_row rows[EB_DIALECT_COUNT] = {
    [EB_DIALECT_IDF_LEGACY] =
        {.prompt = prompt_idf, .wifi_tag = tag_cmd_wifi, .heap_tag = tag_heap, .got_ip_tag = tag_got_ip_idf,
         .repl = repl_idf, .opts = OPTS_LEGACY, .mode = MODE_CLASSIC, .iperf_tag = "iperf", .sock = SOCK_LEGACY,
         .sum = SUM_BYTES_TIME, .heap_log = true, .wrong_pass_reason = VB_REASON_4WAY_HANDSHAKE_TIMEOUT,
         .interval = interval_classic, .header = header_classic},
    [EB_DIALECT_ESP8266] =
        {.wifi_tag = tag_cmd_wifi, .heap_tag = tag_heap, .got_ip_tag = tag_got_ip_8266, .repl = repl_never,
         .opts = OPTS_LEGACY, .mode = MODE_CLASSIC, .iperf_tag = "iperf", .sock = SOCK_LEGACY, .sum = SUM_BYTES_TIME,
         .heap_log = true, .wrong_pass_reason = VB_REASON_4WAY_HANDSHAKE_TIMEOUT, .interval = interval_classic,
         .header = header_classic},
    [EB_DIALECT_IDF_V44] =
        {.wifi_tag = tag_cmd_wifi, .heap_tag = tag_heap, .got_ip_tag = tag_got_ip_idf, .repl = repl_always,
         .opts = OPTS_V44, .bw_since = 500, .mode = MODE_CLASSIC, .iperf_tag = "iperf", .sock = SOCK_V44,
         .sum = SUM_MEAN, .wrong_pass_reason = VB_REASON_4WAY_HANDSHAKE_TIMEOUT, .interval = interval_classic,
         .header = header_classic},
    [EB_DIALECT_IDF_V51] =
        {.wifi_tag = tag_cmd_wifi, .heap_tag = tag_heap, .got_ip_tag = tag_got_ip_idf, .repl = repl_always,
         .opts = OPTS_V44, .bw_since = 500, .mode = MODE_SPACED, .iperf_tag = "iperf", .sock = SOCK_V44,
         .sum = SUM_MEAN, .wrong_pass_reason = VB_REASON_4WAY_HANDSHAKE_TIMEOUT, .interval = interval_v51,
         .header = header_classic},
    [EB_DIALECT_IPERF_CMD_01] =
        {.wifi_tag = tag_wifi_cmd, .heap_tag = tag_heap, .got_ip_tag = tag_got_ip_idf, .repl = repl_always,
         .wifi_cmd = true, .opts = OPTS_CMD01, .mode = MODE_LOCALHOST, .mode_tag = "IPERF", .iperf_tag = "iperf",
         .sock = SOCK_V44, .sum = SUM_MEAN, .argerr_nonzero = true, .wrong_pass_reason = VB_REASON_HANDSHAKE_TIMEOUT,
         .interval = interval_cmd01, .header = header_cmd01},
    [EB_DIALECT_IPERF_CMD_10] =
        {.wifi_tag = tag_wifi_cmd, .heap_tag = tag_heap, .got_ip_tag = tag_got_ip_idf, .repl = repl_always,
         .wifi_cmd = true, .opts = OPTS_CMD10, .mode = MODE_V10, .mode_tag = "IPERF", .iperf_tag = "iperf",
         .sock = SOCK_V10, .sum = SUM_BYTES_TIME, .argerr_nonzero = true,
         .wrong_pass_reason = VB_REASON_HANDSHAKE_TIMEOUT, .interval = interval_cmd10, .header = header_cmd10},
};

/* The built-in grammar the console's dialect row prints (dialect.h): a
 * dialect loaded from YAML behaves as its grammar's row here, with its own
 * prompt and command names. */
static int grammar_of(vb_console *c)
{
    const eb_dialect_desc *d = eb_dialect_desc_get(c->dialect);
    return d ? d->grammar : EB_DIALECT_IDF_LEGACY;
}

static const stock_row *row_of(vb_console *c)
{
    int g = grammar_of(c);
    return g >= 0 && g < EB_DIALECT_COUNT && rows[g].interval ? &rows[g] : &rows[EB_DIALECT_IDF_LEGACY];
}

static const char *wifi_tag(vb_console *c) { return pick(row_of(c)->wifi_tag, c->idf_key); }
static const char *iperf_tag(vb_console *c) { return row_of(c)->iperf_tag; }

/* ------------------------------------------------------------------ banner, prompt */

/* The row's prompt; where the row lists several, the release picks the one
 * its grammar printed (idf-legacy: "esp32> " until v4.1). */
static const char *stock_prompt(vb_console *c)
{
    const eb_dialect_desc *d = eb_dialect_desc_get(c->dialect);
    const ver_str *rule = row_of(c)->prompt;
    const char *p = rule ? pick(rule, c->idf_key) : "";
    if (!d)
        return *p ? p : "iperf> ";
    for (int i = 0; *p && d->prompts[i]; i++)
        if (!strcmp(d->prompts[i], p))
            return p;
    return d->prompts[0];
}

static void box(vb_console *c)
{
    vb_con_printf(c, "\r\n ==================================================\r\n"
                     " |       Steps to test WiFi throughput            |\r\n"
                     " |                                                |\r\n"
                     " |  1. Print 'help' to gain overview of commands  |\r\n"
                     " |  2. Configure device to station or soft-AP     |\r\n"
                     " |  3. Setup WiFi connection                      |\r\n"
                     " |  4. Run iperf to test UDP/TCP RX/TX throughput |\r\n"
                     " |                                                |\r\n"
                     " =================================================\r\n\r\n");
}

static void stock_banner(vb_console *c)
{
    /* linenoiseProbe() sends a Device Status Request; a host that does not
     * answer within 500 ms leaves linenoise in dumb mode (plain prompt). */
    if (strcmp(pick(row_of(c)->repl, c->idf_key), "repl") == 0) {
        vb_con_write(c, "\x1b[5n", 4);
        box(c);
        vb_con_printf(c, "\r\nType 'help' to get the list of commands.\r\n"
                         "Use UP/DOWN arrows to navigate through command history.\r\n"
                         "Press TAB when typing command name to auto-complete.\r\n"
                         "\r\nYour terminal application does not support escape sequences.\r\n\r\n"
                         "Line editing and history features are disabled.\r\n\r\n"
                         "On Windows, try using Windows Terminal or Putty instead.\r\n");
    } else {
        box(c);
        vb_con_write(c, "\x1b[5n", 4);
        vb_con_printf(c, "\r\nYour terminal application does not support escape sequences.\r\n"
                         "Line editing and history features are disabled.\r\n"
                         "On Windows, try using Putty instead.\r\n");
    }
}

/* ------------------------------------------------------------------ Wi-Fi commands */

static void print_got_ip(vb_console *c)
{
    const stock_row *r = row_of(c);
    vb_con_log(c, 'I', pick(r->got_ip_tag, c->idf_key), "sta ip: %s, mask: %s, gw: %s", c->ip, c->mask, c->gw);
    if (r->wifi_cmd) {
        vb_con_log(c, 'I', "WIFI", "IP_EVENT_STA_GOT_IP: Interface \"sta\" address: %s", c->ip);
        vb_con_log(c, 'I', "WIFI", "- IPv4 address: %s,", c->ip);
    }
}

static void print_disconnect(vb_console *c, int reason)
{
    if (row_of(c)->wifi_cmd) {
        vb_con_log(c, 'I', "WIFI", "WIFI_EVENT_STA_DISCONNECTED! reason: %d", reason);
        vb_con_log(c, 'I', "WIFI", "trying to reconnect...");
    } else {
        /* cmd_wifi sets the wifi log level to WARN: only its own line shows. */
        vb_con_log(c, 'I', wifi_tag(c), "sta disconnect, reconnect...");
    }
}

static void arg_error(vb_console *c, const char *cmd, const char *fmt, const char *what)
{
    vb_con_printf(c, "%s: ", cmd);
    vb_con_printf(c, fmt, what);
    vb_con_printf(c, "\r\n");
    if (row_of(c)->argerr_nonzero)
        vb_con_printf(c, "Command returned non-zero error code: 0x1 (ERROR)\r\n");
}

static void cmd_sta(vb_console *c, int argc, char **argv)
{
    const stock_row *r = row_of(c);
    if (argc < 2) {
        arg_error(c, argv[0], "missing option %s", "<ssid>");
        return;
    }
    const char *pass = argc > 2 ? argv[2] : "";
    if (r->wifi_cmd)
        vb_con_log(c, 'I', "WIFI", "DONE.WIFI_CONNECT_START,OK.");
    else
        vb_con_log(c, 'I', wifi_tag(c), "sta connecting to '%s'", argv[1]);
    vb_wifi_scan_entry ap;
    int reason = vb_con_wifi_connect(c, argv[1], pass, r->wrong_pass_reason);
    if (reason != 0) {
        print_disconnect(c, reason);
        return;
    }
    if (r->wifi_cmd && vb_con_wifi_scan(c, argv[1], &ap, 1) == 1) {
        vb_con_log(c, 'I', "wifi:", "connected with %s, aid = 1, channel %d, BW20, bssid = %s", ap.ssid, ap.channel,
                   ap.bssid);
        vb_con_log(c, 'I', "WIFI", "WIFI_EVENT_STA_CONNECTED!");
    }
    print_got_ip(c);
}

static void cmd_scan(vb_console *c, int argc, char **argv)
{
    const stock_row *r = row_of(c);
    vb_wifi_scan_entry aps[VB_MAX_APS];
    int n = vb_con_wifi_scan(c, argc > 1 ? argv[1] : NULL, aps, VB_MAX_APS);
    if (r->wifi_cmd) {
        for (int i = 0; i < n; i++)
            vb_con_log(c, 'I', "WIFI", "+SCAN:[%s][%s][rssi=%d][authmode=3][ch=%d][second=0][11n]", aps[i].bssid,
                       aps[i].ssid, aps[i].rssi, aps[i].channel);
        if (n)
            vb_con_log(c, 'I', "WIFI", "SCAN_DONE: Found %d APs", n);
        else
            vb_con_log(c, 'I', "WIFI", "SCAN_DONE: No AP found");
        return;
    }
    vb_con_log(c, 'I', wifi_tag(c), "sta start to scan");
    for (int i = 0; i < n; i++)
        vb_con_log(c, 'I', wifi_tag(c), "[%s][rssi=%d]", aps[i].ssid, aps[i].rssi);
    vb_con_log(c, 'I', wifi_tag(c), "sta scan done");
}

static void stock_wifi_lost(vb_console *c, int reason)
{
    /* The example's event handler reconnects on its own; the AP is still there. */
    print_disconnect(c, reason);
    char ssid[33];
    snprintf(ssid, sizeof ssid, "%s", c->ssid);
    for (int i = 0; i < c->b->n_aps; i++)
        if (strcmp(c->b->aps[i].ssid, ssid) == 0 &&
            vb_con_wifi_connect(c, ssid, c->b->aps[i].pass, row_of(c)->wrong_pass_reason) == 0) {
            print_got_ip(c);
            return;
        }
}

/* ------------------------------------------------------------------ system commands */

static void cmd_heap(vb_console *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    if (row_of(c)->heap_log && c->idf_key < 404)
        vb_con_log(c, 'I', pick(row_of(c)->heap_tag, c->idf_key), "min heap size: %u", (unsigned)c->heap_min);
    else
        vb_con_printf(c, "min heap size: %u\r\n", (unsigned)c->heap_min);
}

static void cmd_free(vb_console *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    vb_con_printf(c, "%u\r\n", (unsigned)c->heap_free);
}

static void cmd_restart(vb_console *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    vb_con_log(c, 'I', "cmd_system", "Restarting");
    c->running_app = false;
    vb_con_restart(c);
}

/* cmd_system's `version` (v3.2+, ESP8266): IDF version and chip info. */
static void cmd_version(vb_console *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    /* Radio features as the stock example prints them per chip. */
    static const struct {
        const char *chip;
        const char *radio;
    } chips[] = {{"esp32", "/802.11bgn/BLE/BT"}, {"esp32s3", "/802.11bgn/BLE"}, {"esp32s2", "/802.11bgn"},
                 {"esp8266", "/802.11bgn"}};
    const eb_chip *chip = c->b->chip;
    const char *name = chip ? chip->name : "esp32";
    int cores = chip && chip->cores > 0 ? chip->cores : 1; /* profile fact `cores` */
    const char *radio = "/802.11bgn/BLE";
    for (size_t i = 0; i < sizeof chips / sizeof chips[0]; i++)
        if (strcmp(chips[i].chip, name) == 0)
            radio = chips[i].radio;
    vb_con_printf(c, "IDF Version:%s\r\nChip info:\r\n\tmodel:%s\r\n\tcores:%d\r\n\tfeature:%s/External-Flash:%u MB\r\n"
                     "\trevision number:1\r\n",
                  c->idf, chip && chip->display[0] ? chip->display : "ESP32", cores, radio,
                  chip ? (unsigned)(chip->flash_size / (1024 * 1024)) : 4u);
}

static void cmd_help(vb_console *c, int argc, char **argv);

/* ------------------------------------------------------------------ iperf */

static int parse_num(const char *s, double *v)
{
    char *end;
    *v = strtod(s, &end);
    return end != s && *end == '\0' ? 0 : -1;
}

/* iperf-cmd 1.0: bits/s with k/K/m/M/g/G suffixes (k=1000, K=1024, ...). */
static int parse_bps_suffix(const char *s, double *mbps)
{
    static const struct {
        char suffix;
        double mult;
    } sfx[] = {{'k', 1e3}, {'K', 1024.0}, {'m', 1e6}, {'M', 1048576.0}, {'g', 1e9}, {'G', 1073741824.0}};
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0)
        return -1;
    double mult = 1.0;
    if (*end) {
        mult = 0;
        for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++)
            if (*end == sfx[i].suffix && end[1] == '\0')
                mult = sfx[i].mult;
        if (mult == 0)
            return -1;
    }
    *mbps = v * mult / 1e6;
    return 0;
}

static void mode_line(vb_console *c, const vb_iperf_req *q, int interval, int time)
{
    const stock_row *r = row_of(c);
    const char *tag = r->mode_tag ? r->mode_tag : wifi_tag(c);
    const char *proto = q->udp ? "udp" : "tcp", *role = q->server ? "server" : "client";
    const char *dip = q->server ? "0.0.0.0" : q->host;
    static const struct {
        enum mode_style style;
        const char *fmt;  /* proto, role, sip, port, dip, port, interval, time */
    } fmts[] = {
        {MODE_CLASSIC, "mode=%s-%s sip=%s:%d, dip=%s:%d, interval=%d, time=%d"},
        {MODE_SPACED, "mode=%s-%s sip=%s:%d,             dip=%s:%d,               interval=%d, time=%d"},
        {MODE_LOCALHOST, "mode=%s-%s sip=%s:%d, dip=%s:%d, interval=%d, time=%d"},
        {MODE_V10, "mode=%s-%s sip=%s:%d, dip=%s:%d, interval=%d, time=%d"},
    };
    const char *sip = r->mode == MODE_LOCALHOST ? "localhost" : r->mode == MODE_V10 ? "0.0.0.0" : c->ip;
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++)
        if (fmts[i].style == r->mode) {
            char line[256];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
            snprintf(line, sizeof line, fmts[i].fmt, proto, role, sip, q->port, dip, q->port, interval, time);
#pragma GCC diagnostic pop
            vb_con_log(c, 'I', tag, "%s", line);
        }
}

static void cmd_iperf(vb_console *c, int argc, char **argv)
{
    const stock_row *r = row_of(c);
    vb_iperf_req q;
    memset(&q, 0, sizeof q);
    q.port = 5001;
    double interval = 3, time = 30;
    bool abort = false;
    char fmt = 'm';
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int o = -1;
        const char *val = NULL;
        if (a[0] == '-' && a[1] == '-') {
            char name[32];
            size_t n = strcspn(a + 2, "=");
            snprintf(name, sizeof name, "%.*s", (int)(n < 31 ? n : 31), a + 2);
            for (int k = 0; k < O_COUNT; k++)
                if ((r->opts & OPT(k)) && opts[k].lng && strcmp(opts[k].lng, name) == 0)
                    o = k;
            if (o >= 0 && a[2 + n] == '=')
                val = a + 3 + n;
        } else if (a[0] == '-' && a[1] && !a[2]) {
            for (int k = 0; k < O_COUNT; k++)
                if ((r->opts & OPT(k)) && opts[k].shrt == a[1])
                    o = k;
        }
        const eb_dialect_desc *desc = eb_dialect_desc_get(c->dialect);
        if (o == O_BW && (!desc || !desc->bw_fmt || c->idf_key < r->bw_since))
            o = -1; /* the row's bandwidth: null, or the release before -b */
        if (o < 0) {
            arg_error(c, "iperf", "invalid option \"%s\"", a);
            return;
        }
        if (opts[o].value && !val) {
            if (i + 1 >= argc) {
                arg_error(c, "iperf", "option \"%s\" requires an argument", a);
                return;
            }
            val = argv[++i];
        }
        double v = 0;
        bool bad = false;
        switch (o) {
        case O_CLIENT: snprintf(q.host, sizeof q.host, "%s", val); break;
        case O_SERVER: q.server = true; break;
        case O_UDP: q.udp = true; break;
        case O_PORT: bad = parse_num(val, &v) || v < 1 || v > 65535; q.port = (uint16_t)v; break;
        case O_LEN: bad = parse_num(val, &v) || v < 1; q.len = (int)v; break;
        case O_INTERVAL: bad = parse_num(val, &v) || v < 0; interval = v; break;
        case O_TIME: bad = parse_num(val, &v) || v < 0; time = v; break;
        case O_BW:
            /* the row's format: whole Mbit/s ("-b %d") or with a unit suffix ("-b %gm") */
            bad = desc->bw_integer ? parse_num(val, &q.bw_mbps) != 0 : parse_bps_suffix(val, &q.bw_mbps) != 0;
            break;
        case O_FORMAT: bad = strlen(val) != 1 || !strchr("kmKM", val[0]); fmt = val[0]; break;
        case O_ABORT_SHORT:
        case O_ABORT_LONG: abort = true; break;
        default: break; /* accepted, no effect on the vboard (-V, -B, --cport, --id, -P, -S) */
        }
        if (bad) {
            arg_error(c, "iperf", "invalid argument \"%s\"", val);
            return;
        }
    }
    if (abort) {
        bool was = vb_con_iperf_running(c);
        vb_con_iperf_abort(c);
        if (r->sock == SOCK_V10)
            vb_con_log(c, 'I', "IPERF", "DONE.IPERF_STOP,OK");
        else if (was)
            vb_con_log(c, 'I', iperf_tag(c), "iperf exit");
        return;
    }
    if (!q.server && !q.host[0]) {
        vb_con_log(c, 'E', r->mode_tag ? r->mode_tag : wifi_tag(c), "should specific client/server mode");
        return;
    }
    if (vb_con_iperf_running(c)) {
        vb_con_log(c, 'E', r->mode_tag ? r->mode_tag : iperf_tag(c), "iperf is already running.");
        return;
    }
    if (!q.server && !c->connected && !r->wifi_cmd) {
        vb_con_log(c, 'E', wifi_tag(c), "sta has no IP");
        return;
    }
    /* ESP-IDF: -i 0 means 3; -t not above the interval is clamped to it. */
    if (interval < 1)
        interval = 3;
    if (time < interval)
        time = interval;
    q.interval_s = floor(interval);
    q.time_s = floor(time);
    mode_line(c, &q, (int)q.interval_s, (int)q.time_s);
    c->run.req = q;
    c->run.fmt = fmt;
    char msg[160];
    if (vb_con_iperf_start(c, msg, sizeof msg) != 0)
        vb_con_log(c, 'E', iperf_tag(c), "%s", msg);
}

/* ------------------------------------------------------------------ engine reports */

static void sock_created(vb_console *c)
{
    const stock_row *r = row_of(c);
    const vb_iperf_req *q = &c->run.req;
    const char *tag = iperf_tag(c);
    switch (r->sock) {
    case SOCK_LEGACY:
        /* v4.3 and ESP8266 announce the server; ESP8266 also for UDP. */
        if (q->server && ((grammar_of(c) == EB_DIALECT_IDF_LEGACY && c->idf_key == 403 && !q->udp) ||
                          grammar_of(c) == EB_DIALECT_ESP8266))
            vb_con_printf(c, "iperf %s server create successfully\r\n", q->udp ? "udp" : "tcp");
        break;
    case SOCK_V44:
        if (q->server) {
            vb_con_log(c, 'I', tag, "Socket created");
            if (q->udp)  /* the port in network byte order, as the firmware prints it */
                vb_con_log(c, 'I', tag, "Socket bound, port %d", (int)(((q->port & 0xff) << 8) | (q->port >> 8)));
        } else if (grammar_of(c) == EB_DIALECT_IDF_V44) {
            /* v4.4/v5.0 print the IPv4 address as the raw uint32 (little-endian). */
            unsigned a = 0, b = 0, d = 0, e = 0;
            sscanf(q->host, "%u.%u.%u.%u", &a, &b, &d, &e);
            int32_t raw = (int32_t)((e << 24) | (d << 16) | (b << 8) | a);
            vb_con_log(c, 'I', tag, "Socket created, sending to %d:%d", (int)raw, q->port);
        } else {
            vb_con_log(c, 'I', tag, "Socket created, sending to %s:%d", q->host, q->port);
        }
        break;
    case SOCK_V10: {
        char t[48];
        snprintf(t, sizeof t, "iperf(id=%d)", c->run.id);
        vb_con_log(c, 'I', t, "[%s %s] Socket created", q->udp ? "UDP" : "TCP", q->server ? "Server" : "Client");
        break;
    }
    }
}

static void connected(vb_console *c, const vb_iperf_report *rep)
{
    const stock_row *r = row_of(c);
    const vb_iperf_req *q = &c->run.req;
    switch (r->sock) {
    case SOCK_LEGACY:
        if (q->server && !q->udp)
            vb_con_printf(c, "accept: %s,%u\r\n", rep->peer_ip, (unsigned)rep->peer_port);
        break;
    case SOCK_V44:
        if (q->server && !q->udp) {
            vb_con_log(c, 'I', iperf_tag(c), "accept: %s,%u", rep->peer_ip, (unsigned)rep->peer_port);
            if (c->idf_key < 502)  /* "accept: %s,%d\n" until v5.2 */
                vb_con_printf(c, "\r\n");
        } else if (!q->server && !q->udp) {
            vb_con_log(c, 'I', iperf_tag(c), "Successfully connected");
        }
        break;
    case SOCK_V10: {
        /* The board's own port: the listening port, or a stable ephemeral one. */
        unsigned local_port = q->server ? q->port : 49152u + (c->b->seed + (unsigned)c->run.id) % 16384u;
        vb_con_printf(c, "[%3d] local %s:%u connected to %s:%u\r\n", c->run.id, c->ip, local_port, rep->peer_ip,
                      (unsigned)rep->peer_port);
        break;
    }
    }
    r->header(c);
}

static void finished(vb_console *c)
{
    const stock_row *r = row_of(c);
    const vb_iperf_req *q = &c->run.req;
    const char *tag = iperf_tag(c);
    if (r->sock == SOCK_V10)
        return;
    if (r->sock == SOCK_V44) {
        if (q->server && !q->udp)
            vb_con_log(c, 'I', tag, "TCP Socket server is closed.");
        else if (q->server)
            vb_con_log(c, 'I', tag, "Udp socket server is closed.");
        else if (q->udp)
            vb_con_log(c, 'I', tag, "UDP Socket client is closed");
    }
    vb_con_log(c, 'I', tag, "iperf exit");
}

static void stock_report(vb_console *c, const vb_iperf_report *rep)
{
    const stock_row *r = row_of(c);
    switch (rep->event) {
    case VB_IPERF_SOCKET_CREATED:
        sock_created(c);
        break;
    case VB_IPERF_CONNECTED:
        connected(c, rep);
        break;
    case VB_IPERF_INTERVAL:
        r->interval(c, rep->start_s, rep->end_s, rep->bytes, -1);
        break;
    case VB_IPERF_SUMMARY:
        if (!c->run.connected)
            break;  /* no traffic, no report task, no summary */
        if (r->sum == SUM_MEAN)
            r->interval(c, 0, c->run.req.time_s, 0, c->run.n_intervals ? c->run.sum_mbps / c->run.n_intervals : 0);
        else if (r->sock == SOCK_V10)
            r->interval(c, 0, rep->end_s, rep->bytes, -1);
        else  /* ≤v4.3: the whole test's bytes over the elapsed time, labelled 0-time */
            vb_con_printf(c, "%4d-%4d sec       %.2f Mbits/sec\r\n", 0, (int)c->run.req.time_s,
                          rate(rep->bytes, rep->start_s, rep->end_s, 1e6));
        break;
    case VB_IPERF_ERROR:
        vb_con_log(c, 'E', iperf_tag(c), "%s", rep->text);
        break;
    case VB_IPERF_DONE:
        finished(c);
        break;
    }
}

/* ------------------------------------------------------------------ dispatch */

typedef struct stock_cmd {
    const char *name;  /* NULL: the row's sta/scan command name */
    int which;         /* 1 = sta, 2 = scan, 3 = cmd_system (v3.2+) */
    void (*fn)(vb_console *c, int argc, char **argv);
    const char *help;
} stock_cmd;

static const stock_cmd cmds[] = {
    {"help", 0, cmd_help, "Print the list of registered commands"},
    {NULL, 1, cmd_sta, "WiFi is station mode, join specified soft-AP"},
    {NULL, 2, cmd_scan, "WiFi is station mode, start scan ap"},
    {"iperf", 0, cmd_iperf, "iperf command"},
    {"heap", 0, cmd_heap, "Get minimum size of free heap memory that was available during program execution"},
    {"free", 0, cmd_free, "Get the current size of free heap memory"},
    {"restart", 0, cmd_restart, "Software reset of the chip"},
    {"version", 3, cmd_version, "Get version of chip and SDK"},
};

static const char *cmd_name(vb_console *c, const stock_cmd *k)
{
    /* which 3: a cmd_system command, registered from ESP-IDF v3.2 (and on ESP8266). */
    if (k->which == 3 && grammar_of(c) == EB_DIALECT_IDF_LEGACY && c->idf_key < 302)
        return "";
    /* the connect and scan commands' names: the dialect's descriptor row (dialect.h) */
    const eb_dialect_desc *desc = eb_dialect_desc_get(c->dialect);
    return k->which == 1 ? desc->connect_cmd : k->which == 2 ? desc->scan_cmd : k->name;
}

static void cmd_help(vb_console *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (*cmd_name(c, &cmds[i]))
            vb_con_printf(c, "%s \r\n  %s\r\n\r\n", cmd_name(c, &cmds[i]), cmds[i].help);
}

static void stock_line(vb_console *c, char *line)
{
    char *argv[EBC_MAX_ARGS];
    const char *err;
    int argc = ebc_tokenize(line, argv, EBC_MAX_ARGS, &err);
    if (argc <= 0)
        return;  /* empty line: the REPL just prompts again */
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (strcmp(cmd_name(c, &cmds[i]), argv[0]) == 0) {
            cmds[i].fn(c, argc, argv);
            return;
        }
    vb_con_printf(c, "Unrecognized command\r\n");
}

static const vb_dialect_driver stock_driver = {
    .dialect = -1,
    .banner = stock_banner,
    .prompt = stock_prompt,
    .line = stock_line,
    .report = stock_report,
    .wifi_lost = stock_wifi_lost,
};

const vb_dialect_driver *vb_dialect_stock_driver(int dialect)
{
    (void)dialect; /* one driver; the row is chosen per console from c->dialect */
    return &stock_driver;
}
