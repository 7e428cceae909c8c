/* Drivers for Espressif's stock iperf example, one per row of the dialect
 * table (profiles/dialects/, dialect.h; ../shared/reference/
 * board-console-dialects.md): command names, prompts and the unit base are
 * the row's, what the engine does differently per output grammar is a
 * stock_row; the engine below is shared. Stock
 * firmware cannot switch tiers at run time (set_tier is NULL): the run job
 * flashes the tier's image from the manifest instead. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers.h"
#include "espbench/formats/board_parse.h"
#include "espbench/formats/dialect.h"

/* What the shared engine does differently per dialect; the dialect's facts
 * (commands, prompts, -b format) are its descriptor row (dialect.h). */
typedef struct stock_row {
    bool started_on_mode;      /* the "mode=" header is the only sign a server listens */
} stock_row;

static const stock_row row_quiet_server = {true};  /* idf-legacy, esp8266 */
static const stock_row row_default = {false};

static const eb_dialect_desc *desc_of(const eb_console_driver *drv) { return eb_dialect_desc_get(drv->dialect); }

/* One console line through the shared board-line classifier (board_parse.h),
 * which knows every dialect's formats and unit bases. */
static void classify(const eb_console_driver *drv, const char *line, eb_board_line *bl)
{
    eb_board_parse_line(drv->dialect, line, strlen(line), bl, NULL);
}

static void stock_iperf_line(const eb_console_driver *drv, const eb_board_iperf *cfg,
                             const char *line, eb_board_run *run)
{
    const stock_row *row = drv->row;
    eb_board_line bl;
    classify(drv, line, &bl);
    switch (bl.event) {
    case EB_BEV_INTERVAL:
    case EB_BEV_SUMMARY:
        run->started = run->connected = true;
        if (eb_board_is_summary(bl.iv.start_s, bl.iv.end_s, cfg->interval_s)) {
            run->summary_mbps = bl.iv.mbps;
            /* The whole-test line is the last thing every dialect prints. */
            if (bl.iv.end_s >= cfg->time_s - cfg->interval_s * 0.5)
                run->done = true;
        } else {
            eb_board_run_add(run, bl.iv.start_s, bl.iv.end_s, bl.bytes_exact ? bl.iv.bytes : -1, bl.iv.mbps,
                             NAN, -1, -1);
        }
        return;
    case EB_BEV_SOCKET_CREATED:
    case EB_BEV_SOCKET_BOUND:
        run->started = true;
        break;
    case EB_BEV_MODE:
        /* The oldest servers print nothing else before they listen. */
        if (row->started_on_mode)
            run->started = true;
        break;
    case EB_BEV_ACCEPTED:
    case EB_BEV_CONNECTED:
        run->started = run->connected = true;
        break;
    case EB_BEV_SOCKET_CLOSED:
    case EB_BEV_IPERF_DONE:
        run->done = true;
        break;
    case EB_BEV_ERROR:
        /* A receive timeout ends a test; the other errors mean it never ran. */
        run->failed = bl.error != EB_BERR_RECV;
        snprintf(run->msg, sizeof run->msg, "%s", line);
        break;
    default:
        break;
    }
}

static int stock_ready(const eb_console_driver *drv, eb_console *c, eb_deadline d, eb_error *err)
{
    (void)drv;
    return eb_console_sync(c, d, err);
}

static int stock_scan(const eb_console_driver *drv, eb_console *c, const char *ssid,
                      eb_wifi_info *w, eb_deadline d, eb_error *err)
{
    char cmd[128], line[EB_CONSOLE_LINE_MAX];
    snprintf(cmd, sizeof cmd, "%s %s", desc_of(drv)->scan_cmd, ssid);
    int rc = eb_console_send(c, cmd, d, err);
    if (rc)
        return rc;
    bool found = false;
    for (;;) {
        int ev = eb_console_next(c, line, sizeof line, d, err);
        if (ev < 0)
            return -ev;
        if (ev == EB_CON_TIMEOUT)
            break;
        if (ev != EB_CON_LINE)
            continue;
        eb_board_line bl;
        classify(drv, line, &bl);
        if (bl.event == EB_BEV_SCAN && !strcmp(bl.ssid, ssid)) {
            /* Several BSSs may share the SSID: keep the strongest. */
            if (!found || bl.rssi > w->rssi) {
                w->rssi = bl.rssi;
                w->channel = bl.channel;
            }
            found = true;
        }
        if (bl.event == EB_BEV_SCAN_DONE)
            break;
    }
    if (!found)
        return eb_fail(err, EB_EIO, "AP '%s' not found in the scan by the board on %s: check the SSID "
                       "and that the AP is on and in range", ssid, eb_console_port(c)->url);
    snprintf(w->ssid, sizeof w->ssid, "%s", ssid);
    return 0;
}

struct connect_ctx {
    const eb_console_driver *drv;
    eb_console *c;
    const char *ssid;
    eb_wifi_info *w;
    int disconnects, reason;
};

static int connect_event(void *u, int ev, const char *line, eb_error *err)
{
    struct connect_ctx *x = u;
    if (ev == EB_CON_TIMEOUT)
        return eb_fail(err, EB_EIO, "Wi-Fi connect to '%s' failed on %s: no IP address%s%s", x->ssid,
                       eb_console_port(x->c)->url, x->reason ? " (last disconnect reason " : "",
                       x->reason ? "seen; wrong password?)" : "; wrong password or AP out of range?");
    if (ev != EB_CON_LINE)
        return 0;
    eb_board_line bl;
    classify(x->drv, line, &bl);
    if (bl.event == EB_BEV_GOT_IP) {
        snprintf(x->w->ip, sizeof x->w->ip, "%s", bl.ip);
        snprintf(x->w->mask, sizeof x->w->mask, "%s", bl.mask);
        snprintf(x->w->gw, sizeof x->w->gw, "%s", bl.gw);
        return EB_CON_DONE;
    }
    if (bl.event == EB_BEV_WIFI_DISCONNECTED && bl.value > 0) {
        x->reason = (int)bl.value;
        /* The stock firmware retries forever: three failures are an answer. */
        if (++x->disconnects >= 3)
            return eb_fail(err, EB_EIO, "Wi-Fi connect to '%s' failed on %s: disconnected 3 times, reason %d%s",
                           x->ssid, eb_console_port(x->c)->url, x->reason,
                           x->reason == 15 || x->reason == 202 || x->reason == 204 ? " (wrong password)" : "");
    }
    return 0;
}

static int stock_connect(const eb_console_driver *drv, eb_console *c, const char *ssid,
                         const char *pass, eb_wifi_info *w, eb_deadline d, eb_error *err)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, pass && *pass ? "%s %s %s" : "%s %s", desc_of(drv)->connect_cmd, ssid, pass);
    int rc = eb_console_send(c, cmd, d, err);
    memset(cmd, 0, sizeof cmd);
    if (rc)
        return rc;
    struct connect_ctx x = {drv, c, ssid, w, 0, 0};
    eb_console_wait wait = {.boots = eb_console_boot(c)->boots, .doing = "connecting", .on_event = connect_event,
                            .u = &x};
    rc = eb_console_wait_for(c, &wait, d, err);
    if (rc)
        return rc;
    snprintf(w->ssid, sizeof w->ssid, "%s", ssid);
    return 0;
}

/* `free` prints a bare integer; `heap` prints "min heap size: N". */
static int stock_memory(const eb_console_driver *drv, eb_console *c, eb_mem_info *m,
                        eb_deadline d, eb_error *err)
{
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
            eb_board_line bl;
            classify(drv, line, &bl);
            if (bl.event == EB_BEV_HEAP_MIN)
                m->min_free_internal = bl.value;
            else if (bl.event == EB_BEV_FREE_HEAP && i == 0)
                m->free_internal = bl.value;
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
    eb_console *c;
    const eb_board_iperf *cfg;
    eb_board_run *run;
};

static int start_event(void *u, int ev, const char *line, eb_error *err)
{
    struct start_ctx *s = u;
    if (ev == EB_CON_TIMEOUT)
        return eb_fail(err, EB_EIO, "console %s: board iperf did not start", eb_console_port(s->c)->url);
    if (ev == EB_CON_LINE)
        s->drv->iperf_line(s->drv, s->cfg, line, s->run);
    return s->run->started || s->run->failed ? EB_CON_DONE : 0;
}

static int stock_iperf_start(const eb_console_driver *drv, eb_console *c, const eb_board_iperf *cfg,
                             eb_board_run *run, eb_deadline d, eb_error *err)
{
    const eb_dialect_desc *desc = desc_of(drv);
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
    if (cfg->board_sends && cfg->udp && cfg->udp_rate_mbps > 0 && desc->bw_fmt) {
        n += snprintf(cmd + n, sizeof cmd - (size_t)n, " ");
        if (desc->bw_integer)
            n += snprintf(cmd + n, sizeof cmd - (size_t)n, desc->bw_fmt, (int)ceil(cfg->udp_rate_mbps));
        else
            n += snprintf(cmd + n, sizeof cmd - (size_t)n, desc->bw_fmt, cfg->udp_rate_mbps);
    }
    if (n >= 0 && (size_t)n < sizeof cmd)
        snprintf(cmd + n, sizeof cmd - (size_t)n, "%s", cfg->options);
    int rc = eb_console_send(c, cmd, d, err);
    if (rc)
        return rc;
    /* Old servers print nothing when listening: the header line is enough. */
    struct start_ctx s = {drv, c, cfg, run};
    eb_console_wait wait = {.boots = eb_console_boot(c)->boots, .doing = "starting iperf", .on_event = start_event,
                            .u = &s};
    if (!run->started && !run->failed && (rc = eb_console_wait_for(c, &wait, d, err)) != 0)
        return rc;
    if (run->failed)
        return eb_fail(err, EB_EIO, "console %s: board iperf failed: %s", eb_console_port(c)->url, run->msg);
    return 0;
}

static int stock_iperf_abort(const eb_console_driver *drv, eb_console *c, eb_deadline d, eb_error *err)
{
    int rc = eb_console_send(c, desc_of(drv)->abort_cmd, d, err);
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

/* The stock drivers: one per descriptor row with a stock example (every
 * dialect but espbench, loaded rows included), made when first asked for
 * from the row, so that names, prompts and commands are the descriptor's.
 * A row replaced by a later load remakes its driver. */
static eb_console_driver stock[EB_DIALECT_MAX];
static const eb_dialect_desc *stock_desc[EB_DIALECT_MAX];
static pthread_mutex_t stock_lock = PTHREAD_MUTEX_INITIALIZER;

const eb_console_driver *eb_driver_stock_get(int dialect)
{
    const eb_dialect_desc *desc = eb_dialect_desc_get(dialect);
    if (!desc || desc->grammar == EB_DIALECT_ESPBENCH || dialect >= EB_DIALECT_MAX)
        return NULL;
    pthread_mutex_lock(&stock_lock);
    if (stock_desc[dialect] != desc) {
        /* The oldest servers' behaviour follows the grammar the row prints. */
        bool quiet = desc->grammar == EB_DIALECT_IDF_LEGACY || desc->grammar == EB_DIALECT_ESP8266;
        stock[dialect] = (eb_console_driver){
            .dialect = dialect, .name = desc->name, .prompts = desc->prompts, .runtime_tiers = false,
            .row = quiet ? &row_quiet_server : &row_default,
            .ready = stock_ready, .set_tier = NULL, .scan = stock_scan, .connect = stock_connect,
            .memory = stock_memory, .iperf_start = stock_iperf_start, .iperf_line = stock_iperf_line,
            .iperf_abort = stock_iperf_abort,
        };
        stock_desc[dialect] = desc;
    }
    pthread_mutex_unlock(&stock_lock);
    return &stock[dialect];
}
