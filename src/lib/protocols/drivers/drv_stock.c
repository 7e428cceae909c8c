/* Drivers for Espressif's stock iperf example, one table row per ESP-IDF
 * dialect (../shared/reference/board-console-dialects.md): command names,
 * markers and the unit base differ; the engine below is shared. Stock
 * firmware cannot switch tiers at run time (set_tier is NULL): the run job
 * flashes the tier's image from the manifest instead. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers.h"
#include "espbench/dialect.h"

typedef struct stock_row {
    const char *connect_cmd;   /* "sta" (≤v5.2) or "sta_connect" */
    const char *scan_cmd;      /* "scan" or "sta_scan" */
    const char *abort_cmd;     /* "iperf -a" or "iperf --abort" */
    const char *bw_fmt;        /* client -b format for a rate in Mbit/s; NULL: no -b */
    bool bw_integer;           /* -b takes whole Mbit/s */
    const char *const *started;/* lines that say the board iperf is up */
    const char *const *finished;/* lines that say it ended */
} stock_row;

static const char *const prompts_legacy[] = {"esp32> ", "iperf> ", NULL};
static const char *const prompts_iperf[] = {"iperf> ", NULL};

static const char *const started_legacy[] = {"mode=", "iperf tcp server create successfully",
                                             "iperf udp server create successfully", NULL};
static const char *const started_v44[] = {"Socket created", "Socket bound", NULL};
static const char *const started_cmd10[] = {"Socket created", "connected to", NULL};
static const char *const finished_old[] = {"iperf exit", "server is closed", "client is closed", NULL};
static const char *const finished_cmd[] = {"iperf exit", "server is closed", "client is closed",
                                           "IPERF_STOP,OK", NULL};

static const stock_row row_legacy = {"sta", "scan", "iperf -a", NULL, true, started_legacy, finished_old};
static const stock_row row_esp8266 = {"sta", "scan", "iperf -a", NULL, true, started_legacy, finished_old};
static const stock_row row_v44 = {"sta", "scan", "iperf -a", "-b %d", true, started_v44, finished_old};
static const stock_row row_v51 = {"sta", "scan", "iperf -a", "-b %d", true, started_v44, finished_old};
static const stock_row row_cmd01 = {"sta_connect", "sta_scan", "iperf --abort", "-b %d", true,
                                    started_v44, finished_cmd};
static const stock_row row_cmd10 = {"sta_connect", "sta_scan", "iperf --abort", "-b %gm", false,
                                    started_cmd10, finished_cmd};

/* Bits per unit prefix for the dialect: "Mbits" is 2^20 bits in v5.1–v6.0. */
static double unit_bits(int dialect, char prefix)
{
    double m = eb_dialect_mbit_base(dialect);
    bool binary = m > 1e6;
    switch (prefix) {
    case 'G':
    case 'g':
        return binary ? m * 1024 : 1e9;
    case 'M':
    case 'm':
        return m;
    case 'K':
    case 'k':
        return binary ? 1024 : 1e3;
    default:
        return 1;
    }
}

/* Parses a board interval line of any stock format:
 *   "   0-   3 sec       8.43 Mbits/sec"
 *   " 0.0- 2.0 sec  24.36 Mbits/sec"
 *   "[  1]  1.0- 2.0 sec\t2.95 MBytes\t23.63 Mbits/sec"
 * Returns true with start/end and the rate in bit/s. */
static bool parse_interval(int dialect, const char *line, double *start, double *end, double *bps)
{
    const char *p = line;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '[') {
        p = strchr(p, ']');
        if (!p)
            return false;
        p++;
    }
    char *e;
    double s = strtod(p, &e);
    if (e == p)
        return false;
    p = e;
    while (isspace((unsigned char)*p))
        p++;
    if (*p != '-')
        return false;
    p++;
    double t = strtod(p, &e);
    if (e == p)
        return false;
    p = e;
    while (isspace((unsigned char)*p))
        p++;
    if (strncmp(p, "sec", 3) != 0)
        return false;
    p += 3;
    /* The rate is the number before the token ending in "bits/sec". */
    const char *u = strstr(p, "bits/sec");
    if (!u)
        return false;
    const char *tok = u;
    while (tok > p && !isspace((unsigned char)tok[-1]))
        tok--;
    char prefix = tok < u ? *tok : 0;
    const char *num_end = tok;
    while (num_end > p && isspace((unsigned char)num_end[-1]))
        num_end--;
    const char *num = num_end;
    while (num > p && (isdigit((unsigned char)num[-1]) || num[-1] == '.'))
        num--;
    if (num == num_end)
        return false;
    double v = strtod(num, NULL);
    *start = s;
    *end = t;
    *bps = v * unit_bits(dialect, prefix);
    return t > s;
}

static bool any_of(const char *line, const char *const *needles)
{
    for (int i = 0; needles && needles[i]; i++)
        if (strstr(line, needles[i]))
            return true;
    return false;
}

static void stock_iperf_line(const eb_console_driver *drv, const eb_board_iperf *cfg,
                             const char *line, eb_board_run *run)
{
    const stock_row *row = drv->row;
    double s, e, bps;
    if (parse_interval(drv->dialect, line, &s, &e, &bps)) {
        run->started = run->connected = true;
        if (eb_board_is_summary(s, e, cfg->interval_s)) {
            run->summary_mbps = bps / 1e6;
            /* The whole-test line is the last thing every dialect prints. */
            if (e >= cfg->time_s - cfg->interval_s * 0.5)
                run->done = true;
        } else {
            eb_board_run_add(run, s, e, -1, bps / 1e6, NAN, -1, -1);
        }
        return;
    }
    if (any_of(line, row->started))
        run->started = true;
    if (strstr(line, "accept:") || strstr(line, "Successfully connected") || strstr(line, "connected to"))
        run->connected = true;
    if (any_of(line, row->finished))
        run->done = true;
    if (strstr(line, "sta has no IP") || strstr(line, "unable to connect") ||
        strstr(line, "already running") || strstr(line, "Unrecognized command") ||
        strstr(line, "recv error")) {
        run->failed = strstr(line, "recv error") == NULL;
        snprintf(run->msg, sizeof run->msg, "%s", line);
    }
}

static int stock_ready(const eb_console_driver *drv, eb_console *c, eb_deadline d, eb_error *err)
{
    (void)drv;
    return eb_console_sync(c, d, err);
}

/* Scan result "[ssid][rssi=-34]" in all versions (wifi-cmd adds "+SCAN:[MAC]"
 * before it); returns true with the RSSI when the line names ssid. */
static bool scan_match(const char *line, const char *ssid, int *rssi, int *ch)
{
    char pat[80];
    snprintf(pat, sizeof pat, "[%s][rssi=", ssid);
    const char *p = strstr(line, pat);
    if (!p)
        return false;
    *rssi = atoi(p + strlen(pat));
    const char *c = strstr(p, "[ch=");
    if (!c)
        c = strstr(line, "channel:");
    *ch = c ? atoi(c + (c[1] == 'c' && c[2] == 'h' && c[3] == '=' ? 4 : 8)) : 0;
    return true;
}

static int stock_scan(const eb_console_driver *drv, eb_console *c, const char *ssid,
                      eb_wifi_info *w, eb_deadline d, eb_error *err)
{
    const stock_row *row = drv->row;
    char cmd[128], line[EB_CONSOLE_LINE_MAX];
    snprintf(cmd, sizeof cmd, "%s %s", row->scan_cmd, ssid);
    int rc = eb_console_send(c, cmd, d, err);
    if (rc)
        return rc;
    static const char *const done[] = {"sta scan done", "SCAN_DONE", "scan done", NULL};
    bool found = false;
    for (;;) {
        int ev = eb_console_next(c, line, sizeof line, d, err);
        if (ev < 0)
            return -ev;
        if (ev == EB_CON_TIMEOUT)
            break;
        int rssi, ch;
        if (ev == EB_CON_LINE && scan_match(line, ssid, &rssi, &ch)) {
            if (!found || rssi > w->rssi) {
                w->rssi = rssi;
                w->channel = ch;
            }
            found = true;
        }
        if (ev == EB_CON_LINE && any_of(line, done))
            break;
    }
    if (!found)
        return eb_fail(err, EB_EIO, "AP '%s' not found in the scan by the board on %s: check the SSID "
                       "and that the AP is on and in range", ssid, eb_console_port(c)->url);
    snprintf(w->ssid, sizeof w->ssid, "%s", ssid);
    return 0;
}

/* "sta ip: 192.168.1.79, mask: 255.255.255.0, gw: 192.168.1.1" */
static bool got_ip(const char *line, eb_wifi_info *w)
{
    const char *p = strstr(line, "sta ip: ");
    if (!p)
        return false;
    sscanf(p, "sta ip: %47[0-9.], mask: %47[0-9.], gw: %47[0-9.]", w->ip, w->mask, w->gw);
    return w->ip[0] != 0;
}

static int stock_connect(const eb_console_driver *drv, eb_console *c, const char *ssid,
                         const char *pass, eb_wifi_info *w, eb_deadline d, eb_error *err)
{
    const stock_row *row = drv->row;
    char cmd[256], line[EB_CONSOLE_LINE_MAX];
    snprintf(cmd, sizeof cmd, pass && *pass ? "%s %s %s" : "%s %s", row->connect_cmd, ssid, pass);
    int rc = eb_console_send(c, cmd, d, err);
    memset(cmd, 0, sizeof cmd);
    if (rc)
        return rc;
    int disconnects = 0, reason = 0;
    unsigned boots = eb_console_boot(c)->boots;
    for (;;) {
        int ev = eb_console_next(c, line, sizeof line, d, err);
        if (ev < 0)
            return -ev;
        if (eb_console_boot(c)->boots != boots)
            return eb_fail(err, EB_EIO, "console %s: board rebooted while connecting", eb_console_port(c)->url);
        if (ev == EB_CON_TIMEOUT)
            return eb_fail(err, EB_EIO, "Wi-Fi connect to '%s' failed on %s: no IP address%s%s", ssid,
                           eb_console_port(c)->url, reason ? " (last disconnect reason " : "",
                           reason ? "seen; wrong password?)" : "; wrong password or AP out of range?");
        if (ev != EB_CON_LINE)
            continue;
        if (got_ip(line, w))
            break;
        const char *r = strstr(line, "reason: ");
        if (r && strstr(line, "DISCONNECTED")) {
            reason = atoi(r + 8);
            /* The stock firmware retries forever: three failures are an answer. */
            if (++disconnects >= 3)
                return eb_fail(err, EB_EIO,
                               "Wi-Fi connect to '%s' failed on %s: disconnected 3 times, reason %d%s",
                               ssid, eb_console_port(c)->url, reason,
                               reason == 15 || reason == 202 || reason == 204 ? " (wrong password)" : "");
        }
    }
    snprintf(w->ssid, sizeof w->ssid, "%s", ssid);
    return 0;
}

/* `free` prints a bare integer; `heap` prints "min heap size: N". */
static int stock_memory(const eb_console_driver *drv, eb_console *c, eb_mem_info *m,
                        eb_deadline d, eb_error *err)
{
    (void)drv;
    char line[EB_CONSOLE_LINE_MAX];
    m->free_internal = m->min_free_internal = m->largest_block = -1;
    static const char *const cmds[] = {"free", "heap"};
    for (int i = 0; i < 2; i++) {
        int rc = eb_console_send(c, cmds[i], d, err);
        if (rc)
            return rc;
        eb_deadline step = eb_deadline_in(2000);
        if (step > d)
            step = d;
        int ev;
        while ((ev = eb_console_next(c, line, sizeof line, step, err)) > 0) {
            if (ev == EB_CON_PROMPT)
                break;
            const char *p = strstr(line, "min heap size: ");
            char *end;
            if (p)
                m->min_free_internal = strtol(p + 15, NULL, 10);
            else if (i == 0 && isdigit((unsigned char)line[0]) && (strtol(line, &end, 10), *end == 0))
                m->free_internal = strtol(line, NULL, 10);
        }
        if (ev < 0)
            return -ev;
    }
    if (m->free_internal < 0 && m->min_free_internal < 0)
        return eb_fail(err, EB_EIO, "console %s: no answer to 'free' or 'heap'", eb_console_port(c)->url);
    return 0;
}

struct start_ctx {
    const eb_console_driver *drv;
    const eb_board_iperf *cfg;
    eb_board_run *run;
};

static void start_line(void *u, const char *line)
{
    struct start_ctx *s = u;
    s->drv->iperf_line(s->drv, s->cfg, line, s->run);
}

static int stock_iperf_start(const eb_console_driver *drv, eb_console *c, const eb_board_iperf *cfg,
                             eb_board_run *run, eb_deadline d, eb_error *err)
{
    const stock_row *row = drv->row;
    char cmd[256];
    /* The stock firmware takes whole seconds for -i and -t. */
    int iv = (int)ceil(cfg->interval_s), t = (int)ceil(cfg->time_s);
    int n;
    if (cfg->board_sends)
        n = snprintf(cmd, sizeof cmd, "iperf -c %s -p %u -i %d -t %d", cfg->peer, cfg->port, iv, t);
    else
        n = snprintf(cmd, sizeof cmd, "iperf -s -p %u -i %d -t %d", cfg->port, iv, t);
    if (cfg->udp)
        n += snprintf(cmd + n, sizeof cmd - (size_t)n, " -u");
    if (cfg->board_sends && cfg->udp && cfg->udp_rate_mbps > 0 && row->bw_fmt) {
        n += snprintf(cmd + n, sizeof cmd - (size_t)n, " ");
        if (row->bw_integer)
            snprintf(cmd + n, sizeof cmd - (size_t)n, row->bw_fmt, (int)ceil(cfg->udp_rate_mbps));
        else
            snprintf(cmd + n, sizeof cmd - (size_t)n, row->bw_fmt, cfg->udp_rate_mbps);
    }
    int rc = eb_console_send(c, cmd, d, err);
    if (rc)
        return rc;
    /* Old servers print nothing when listening: the header line is enough. */
    char line[EB_CONSOLE_LINE_MAX];
    struct start_ctx s = {drv, cfg, run};
    unsigned boots = eb_console_boot(c)->boots;
    while (!run->started && !run->failed) {
        int ev = eb_console_next(c, line, sizeof line, d, err);
        if (ev < 0)
            return -ev;
        if (eb_console_boot(c)->boots != boots)
            return eb_fail(err, EB_EIO, "console %s: board rebooted starting iperf", eb_console_port(c)->url);
        if (ev == EB_CON_TIMEOUT)
            return eb_fail(err, EB_EIO, "console %s: board iperf did not start", eb_console_port(c)->url);
        if (ev == EB_CON_LINE)
            start_line(&s, line);
    }
    if (run->failed)
        return eb_fail(err, EB_EIO, "console %s: board iperf failed: %s", eb_console_port(c)->url, run->msg);
    return 0;
}

static int stock_iperf_abort(const eb_console_driver *drv, eb_console *c, eb_deadline d, eb_error *err)
{
    const stock_row *row = drv->row;
    int rc = eb_console_send(c, row->abort_cmd, d, err);
    if (rc)
        return rc;
    char line[EB_CONSOLE_LINE_MAX];
    eb_deadline step = eb_deadline_in(1000);
    if (step > d)
        step = d;
    int ev;
    while ((ev = eb_console_next(c, line, sizeof line, step, err)) > 0)
        if (ev == EB_CON_PROMPT)
            break;
    return ev < 0 ? -ev : 0;
}

#define STOCK(d, n, p, r)                                                                             \
    {                                                                                              \
        .dialect = (d), .name = (n), .prompts = (p), .runtime_tiers = false, .row = &(r),          \
        .ready = stock_ready, .set_tier = NULL, .scan = stock_scan, .connect = stock_connect,       \
        .memory = stock_memory, .iperf_start = stock_iperf_start, .iperf_line = stock_iperf_line,  \
        .iperf_abort = stock_iperf_abort,                                                          \
    }

const eb_console_driver eb_driver_stock[] = {
    STOCK(EB_DIALECT_IDF_LEGACY, "idf-legacy", prompts_legacy, row_legacy),
    STOCK(EB_DIALECT_ESP8266, "esp8266", prompts_iperf, row_esp8266),
    STOCK(EB_DIALECT_IDF_V44, "idf-v4.4", prompts_iperf, row_v44),
    STOCK(EB_DIALECT_IDF_V51, "idf-v5.1", prompts_iperf, row_v51),
    STOCK(EB_DIALECT_IPERF_CMD_01, "iperf-cmd-0.1", prompts_iperf, row_cmd01),
    STOCK(EB_DIALECT_IPERF_CMD_10, "iperf-cmd-1.0", prompts_iperf, row_cmd10),
};
const int eb_driver_stock_count = (int)(sizeof eb_driver_stock / sizeof eb_driver_stock[0]);
