/* Driver for the espbench firmware (docs/console-protocol.md): every reply
 * ends with "#EB:OK [k=v ...]" or "#EB:ERR code=NAME msg=\"text\"", events
 * are "#EB:EV <event> k=v ...". Tiers switch at run time with tier_set. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers.h"
#include "espbench_core.h"
#include "espbench/formats/board_parse.h"
#include "espbench/formats/dialect.h"

#define EB_OK_TAG "#EB:OK"
#define EB_ERR_TAG "#EB:ERR"
#define EB_EV_TAG "#EB:EV "

/* The protocol's constants are the firmware core's (one header for board,
 * vboard and host). */
static const char *const espbench_prompts[] = {EBC_PROMPT, NULL}; /* = its descriptor row's */
_Static_assert((int)EB_F_COUNT == (int)EBC_F_COUNT, "tier fields: enum eb_field and the core's enum ebc_field agree");

/* One console line as the board line parser (board_parse.h) reads it: the
 * driver interprets events and replies from the parser's classification and
 * its #EB: tokens, never by re-tokenising the text itself. */
typedef struct eb_reply {
    eb_board_line bl;
    eb_ebline tokens;
} eb_reply;

static const eb_board_line *classify(const char *line, eb_reply *r)
{
    eb_board_parse_line(EB_DIALECT_ESPBENCH, line, strlen(line), &r->bl, &r->tokens);
    return &r->bl;
}

/* Value of key in a classified #EB: line, or NULL. */
static const char *val(const eb_reply *r, const char *key)
{
    return r->bl.eb ? eb_ebline_get(r->bl.eb, key) : NULL;
}

static bool kv(const eb_reply *r, const char *key, char *out, size_t cap)
{
    const char *v = val(r, key);
    if (v)
        snprintf(out, cap, "%s", v);
    return v != NULL;
}

static bool kv_num(const eb_reply *r, const char *key, double *out)
{
    const char *v = val(r, key);
    char *end;
    double x = v ? strtod(v, &end) : 0;
    if (!v || end == v)
        return false;
    *out = x;
    return true;
}

/* The first of several accepted key spellings. */
static long kv_long_any(const eb_reply *r, const char *const *keys)
{
    for (int i = 0; keys[i]; i++) {
        double x;
        if (kv_num(r, keys[i], &x))
            return (long)x;
    }
    return -1;
}

/* The command's first word, for messages (never the arguments: sta_connect
 * carries the password). */
static void cmd_word(const char *cmd, char *out, size_t cap)
{
    size_t n = strcspn(cmd, " ");
    if (n >= cap)
        n = cap - 1;
    memcpy(out, cmd, n);
    out[n] = 0;
}

/* Sends cmd and reads until its #EB:OK (copied to ok) or #EB:ERR (an error).
 * Other lines go to on_line. A reboot in between fails. */
static int command(eb_console *c, const char *cmd, char *ok, size_t okcap,
                   void (*on_line)(void *u, const char *line), void *u, eb_deadline d, eb_error *err)
{
    char word[32], what[64], line[EB_CONSOLE_LINE_MAX];
    cmd_word(cmd, word, sizeof word);
    snprintf(what, sizeof what, "reply to '%s'", word);
    int rc = eb_console_send(c, cmd, d, err);
    if (rc)
        return rc;
    static const char *const tags[] = {EB_OK_TAG, EB_ERR_TAG, NULL};
    int which;
    rc = eb_drv_expect(c, tags, line, sizeof line, on_line, u, what, d, err, &which);
    if (rc)
        return rc;
    if (which == 1) {
        eb_reply r;
        classify(line, &r);
        char code[48] = "?", msg[200] = "";
        kv(&r, "code", code, sizeof code);
        kv(&r, "msg", msg, sizeof msg);
        return eb_fail(err, EB_EIO, "console %s: '%s' failed: %s: %s", eb_console_port(c)->url,
                       word, code, msg);
    }
    if (ok)
        snprintf(ok, okcap, "%s", line);
    return 0;
}

static int espbench_ready(const eb_console_driver *drv, eb_console *c, eb_deadline d, eb_error *err)
{
    (void)drv;
    return eb_console_sync(c, d, err);
}

static int espbench_identify(const eb_console_driver *drv, eb_console *c, eb_console_boot_info *b,
                             eb_deadline d, eb_error *err)
{
    (void)drv;
    char ok[EB_CONSOLE_LINE_MAX];
    int rc = command(c, "version", ok, sizeof ok, NULL, NULL, d, err);
    if (rc)
        return rc;
    eb_reply r;
    classify(ok, &r);
    snprintf(b->project, sizeof b->project, "espbench");
    if (!kv(&r, "fw", b->app_version, sizeof b->app_version))
        kv(&r, "version", b->app_version, sizeof b->app_version);
    kv(&r, "idf", b->idf_version, sizeof b->idf_version);
    kv(&r, "chip", b->chip, sizeof b->chip);
    kv(&r, "mac", b->mac, sizeof b->mac);
    kv(&r, "net", b->net, sizeof b->net);
    return 0;
}

static int espbench_set_tier(const eb_console_driver *drv, eb_console *c, const eb_tier *t,
                             eb_deadline d, eb_error *err)
{
    (void)drv;
    char cmd[EB_CONSOLE_LINE_MAX];
    int n = snprintf(cmd, sizeof cmd, "tier_set name=%s", t->name);
    for (int f = 0; f < EB_F_COUNT; f++) {
        const eb_field_desc *fd = eb_field_desc_get(f);
        if (!fd || !t->set[f] || !t->runtime[f])
            continue;
        n += snprintf(cmd + n, sizeof cmd - (size_t)n, " %s=%d", fd->key, t->value[f]);
        if ((size_t)n >= sizeof cmd)
            return eb_fail(err, EB_ECONFIG, "tier %s: too many settings for one command", t->name);
    }
    int rc = command(c, cmd, NULL, 0, NULL, NULL, d, err);
    if (rc)
        eb_error_prefix(err, "tier %s: ", t->name);
    return rc;
}

static int espbench_tier_built(const eb_console_driver *drv, eb_console *c, const eb_tier *t, char *note,
                               size_t cap, eb_deadline d, eb_error *err)
{
    (void)drv;
    char ok[EB_CONSOLE_LINE_MAX];
    int rc = command(c, "tier_show", ok, sizeof ok, NULL, NULL, d, err);
    if (rc)
        return rc;
    size_t n = 0;
    note[0] = 0;
    eb_reply r;
    classify(ok, &r);
    for (int f = 0; f < EB_F_COUNT; f++) {
        const eb_field_desc *fd = eb_field_desc_get(f);
        double v;
        if (!fd || !t->set[f] || t->runtime[f] || !kv_num(&r, fd->key, &v) || (int)v == t->value[f])
            continue;
        int k = snprintf(note + n, cap - n, "%s%s=%d (tier %d)", n ? ", " : "", fd->key, (int)v, t->value[f]);
        if (k < 0 || (size_t)k >= cap - n)
            break;
        n += (size_t)k;
    }
    return 0;
}

struct scan_ctx {
    const char *ssid;
    eb_wifi_info *w;
    bool found;
};

static void scan_line(void *u, const char *line)
{
    struct scan_ctx *s = u;
    eb_reply r;
    const eb_board_line *bl = classify(line, &r);
    if (bl->event == EB_BEV_SCAN && !strcmp(bl->ssid, s->ssid) && val(&r, "rssi")) {
        /* Several BSSs may share the SSID: keep the strongest. */
        if (!s->found || bl->rssi > s->w->rssi) {
            s->w->rssi = bl->rssi;
            s->w->channel = bl->channel;
        }
        s->found = true;
    }
}

/* Quotes an SSID or password with spaces for the console's argument parser. */
static void arg_quote(char *out, size_t cap, const char *s)
{
    if (!strpbrk(s, " \"\\"))
        snprintf(out, cap, "%s", s);
    else {
        size_t o = 0;
        if (cap < 3)
            return;
        out[o++] = '"';
        for (; *s && o + 3 < cap; s++) {
            if (*s == '"' || *s == '\\')
                out[o++] = '\\';
            out[o++] = *s;
        }
        out[o++] = '"';
        out[o] = 0;
    }
}

static int espbench_scan(const eb_console_driver *drv, eb_console *c, const char *ssid,
                         eb_wifi_info *w, eb_deadline d, eb_error *err)
{
    (void)drv;
    char cmd[128], q[80];
    arg_quote(q, sizeof q, ssid);
    snprintf(cmd, sizeof cmd, "sta_scan %s", q);
    struct scan_ctx s = {ssid, w, false};
    int rc = command(c, cmd, NULL, 0, scan_line, &s, d, err);
    if (rc)
        return rc;
    if (!s.found)
        return eb_fail(err, EB_EIO, "AP '%s' not found in the scan by the board on %s: check the SSID "
                       "and that the AP is on and in range", ssid, eb_console_port(c)->url);
    snprintf(w->ssid, sizeof w->ssid, "%s", ssid);
    return 0;
}

/* Wi-Fi disconnect reasons worth a hint (esp_wifi_types.h). */
static const struct {
    int reason;
    const char *hint;
} disconnect_hints[] = {
    {2, "authentication expired: wrong password?"},
    {15, "4-way handshake timeout: wrong password"},
    {201, "AP not found"},
    {202, "authentication failed: wrong password"},
    {204, "handshake timeout: wrong password"},
    {205, "connection failed"},
};

static const char *hint_for(int reason)
{
    for (size_t i = 0; i < sizeof disconnect_hints / sizeof disconnect_hints[0]; i++)
        if (disconnect_hints[i].reason == reason)
            return disconnect_hints[i].hint;
    return "see the Wi-Fi reason codes";
}

static int espbench_connect(const eb_console_driver *drv, eb_console *c, const char *ssid,
                            const char *pass, eb_wifi_info *w, eb_deadline d, eb_error *err)
{
    (void)drv;
    char cmd[256], qs[80], line[EB_CONSOLE_LINE_MAX];
    arg_quote(qs, sizeof qs, ssid);
    /* "sta_connect SSID -": the firmware reads the password from the next
     * line without echoing it, so it never appears in a command line. */
    bool with_pass = pass && *pass;
    snprintf(cmd, sizeof cmd, with_pass ? "sta_connect %s -" : "sta_connect %s", qs);
    int rc = eb_console_send(c, cmd, d, err);
    if (!rc && with_pass)
        rc = eb_console_send_secret(c, pass, d, err);
    if (rc)
        return rc;
    /* got_ip may come before or after the command's #EB:OK. */
    bool ok = false, got_ip = false;
    static const char *const tags[] = {EB_OK_TAG, EB_ERR_TAG, EB_EV_TAG "wifi.got_ip",
                                       EB_EV_TAG "wifi.disconnected", NULL};
    while (!(ok && got_ip)) {
        int which;
        rc = eb_drv_expect(c, tags, line, sizeof line, NULL, NULL, "an IP address from the AP", d,
                           err, &which);
        if (rc)
            return rc;
        eb_reply r;
        const eb_board_line *bl = classify(line, &r);
        if (which == 0) {
            ok = true;
        } else if (which == 1) {
            char code[48] = "?", msg[200] = "";
            kv(&r, "code", code, sizeof code);
            kv(&r, "msg", msg, sizeof msg);
            /* The firmware's codes (espbench_core.h) with what they usually mean. */
            const char *hint = !strcmp(code, EBC_ERR_AUTH)    ? ": wrong password?"
                               : !strcmp(code, EBC_ERR_NO_AP) ? ": AP not found"
                                                        : "";
            return eb_fail(err, EB_EIO, "Wi-Fi connect to '%s' failed on %s: %s: %s%s", ssid,
                           eb_console_port(c)->url, code, msg, hint);
        } else if (which == 2 && bl->event == EB_BEV_GOT_IP) {
            snprintf(w->ip, sizeof w->ip, "%s", bl->ip);
            snprintf(w->mask, sizeof w->mask, "%s", bl->mask);
            snprintf(w->gw, sizeof w->gw, "%s", bl->gw);
            got_ip = true;
        } else if (which == 3) {
            int reason = bl->value > 0 ? (int)bl->value : 0;
            return eb_fail(err, EB_EIO, "Wi-Fi connect to '%s' failed on %s: disconnected, reason %d (%s)",
                           ssid, eb_console_port(c)->url, reason, hint_for(reason));
        }
    }
    snprintf(w->ssid, sizeof w->ssid, "%s", ssid);
    return 0;
}

static int espbench_memory(const eb_console_driver *drv, eb_console *c, eb_mem_info *m,
                           eb_deadline d, eb_error *err)
{
    (void)drv;
    char ok[EB_CONSOLE_LINE_MAX];
    int rc = command(c, "mem", ok, sizeof ok, NULL, NULL, d, err);
    if (rc)
        return rc;
    static const char *const k_free[] = {"internal_free", "free_internal", "free", NULL};
    static const char *const k_min[] = {"min_internal", "internal_min", "min_free_internal", "internal_min_free",
                                        "min_free", "min", NULL};
    static const char *const k_big[] = {"largest_internal", "largest", "largest_block", NULL};
    eb_reply r;
    classify(ok, &r);
    m->free_internal = kv_long_any(&r, k_free);
    m->min_free_internal = kv_long_any(&r, k_min);
    m->largest_block = kv_long_any(&r, k_big);
    if (m->free_internal < 0)
        return eb_fail(err, EB_EIO, "console %s: 'mem' reply has no free memory figure: %s",
                       eb_console_port(c)->url, ok);
    return 0;
}

static void espbench_iperf_line(const eb_console_driver *drv, const eb_board_iperf *cfg,
                                const char *line, eb_board_run *run)
{
    (void)drv;
    eb_reply r;
    const eb_board_line *bl = classify(line, &r);
    if (!bl->eb)
        return; /* only #EB: lines are the protocol's */
    switch (bl->event) {
    case EB_BEV_MODE:
        run->started = true;
        break;
    case EB_BEV_CONNECTED:
        run->connected = true;
        break;
    case EB_BEV_INTERVAL:
        /* The firmware's engine counts whole seconds (fw_iperf.c: the nearest,
         * at least 1), so `-i 0.5` reports 0.00-1.00: an interval, not a span
         * of the whole test. */
        if (bl->iv.end_s > bl->iv.start_s &&
            !eb_board_is_summary(bl->iv.start_s, bl->iv.end_s,
                                 cfg->interval_s >= 1 ? floor(cfg->interval_s + 0.5) : 1))
            eb_board_run_add(run, bl->iv.start_s, bl->iv.end_s, bl->iv.bytes, bl->iv.mbps, bl->iv.jitter_ms,
                             bl->iv.lost, bl->iv.total);
        break;
    case EB_BEV_SUMMARY:
        if (bl->iv.end_s > bl->iv.start_s)
            run->summary_mbps = bl->iv.mbps;
        break;
    case EB_BEV_IPERF_DONE:
        run->done = true;
        break;
    case EB_BEV_ERROR:
        run->failed = true;
        if (!kv(&r, "msg", run->msg, sizeof run->msg))
            snprintf(run->msg, sizeof run->msg, "%s", line);
        break;
    default:
        break;
    }
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

static int espbench_iperf_start(const eb_console_driver *drv, eb_console *c,
                                const eb_board_iperf *cfg, eb_board_run *run, eb_deadline d,
                                eb_error *err)
{
    char cmd[256];
    int n;
    if (cfg->board_sends)
        n = snprintf(cmd, sizeof cmd, "iperf -c %s -p %u -i %g -t %g", cfg->peer, cfg->port,
                     cfg->interval_s, cfg->time_s);
    else
        n = snprintf(cmd, sizeof cmd, "iperf -s -p %u -i %g -t %g", cfg->port, cfg->interval_s,
                     cfg->time_s);
    if (cfg->udp)
        n += snprintf(cmd + n, sizeof cmd - (size_t)n, " -u");
    if (cfg->board_sends && cfg->udp && cfg->udp_rate_mbps > 0)
        n += snprintf(cmd + n, sizeof cmd - (size_t)n, " -b %gm", cfg->udp_rate_mbps);
    snprintf(cmd + n, sizeof cmd - (size_t)n, "%s", cfg->options);
    struct start_ctx s = {drv, cfg, run};
    int rc = command(c, cmd, NULL, 0, start_line, &s, d, err);
    /* The firmware refusing an option refuses it again on a retry. */
    if (rc && (strstr(err->msg, ": " EBC_ERR_SYNTAX ": ") || strstr(err->msg, ": " EBC_ERR_RANGE ": ")))
        eb_error_kind(err, EB_KIND_FINAL);
    if (rc)
        return rc;
    /* iperf.started may trail the #EB:OK. */
    char line[EB_CONSOLE_LINE_MAX];
    while (!run->started && !run->failed && !run->done) {
        int ev = eb_console_next(c, line, sizeof line, d, err);
        if (ev < 0)
            return -ev;
        if (ev == EB_CON_TIMEOUT)
            return eb_fail(err, EB_EIO, "console %s: board iperf did not start", eb_console_port(c)->url);
        if (ev == EB_CON_LINE)
            drv->iperf_line(drv, cfg, line, run);
    }
    if (run->failed)
        return eb_fail(err, EB_EIO, "console %s: board iperf failed: %s", eb_console_port(c)->url, run->msg);
    return 0;
}

static int espbench_iperf_abort(const eb_console_driver *drv, eb_console *c, eb_deadline d,
                                eb_error *err)
{
    (void)drv;
    return command(c, "iperf --abort", NULL, 0, NULL, NULL, d, err);
}

/* The firmware ends its iperf after an abort at the engine's next tick
 * (espressif/iperf-cmd's iperf_force_stop), then prints iperf.done: before
 * the abort's #EB:OK or after it. */
static int espbench_iperf_stop(const eb_console_driver *drv, eb_console *c, const eb_board_iperf *cfg,
                               eb_board_run *run, eb_deadline d, eb_error *err)
{
    struct start_ctx s = {drv, cfg, run};
    int rc = command(c, "iperf --abort", NULL, 0, start_line, &s, d, err);
    char line[EB_CONSOLE_LINE_MAX];
    while (!rc && !run->done) {
        int ev = eb_console_next(c, line, sizeof line, d, err);
        if (ev < 0)
            return -ev;
        if (ev == EB_CON_TIMEOUT)
            break;
        if (ev == EB_CON_LINE)
            drv->iperf_line(drv, cfg, line, run);
    }
    return rc;
}

/* radio_set (docs/console-protocol.md "Radio settings"): a value the chip
 * or this ESP-IDF cannot take is the request's fault, not the board's. */
static int espbench_radio_set(const eb_console_driver *drv, eb_console *c, const char *settings, char *now,
                              size_t cap, eb_deadline d, eb_error *err)
{
    (void)drv;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "radio_set %s", settings);
    int rc = command(c, cmd, now, cap, NULL, NULL, d, err);
    static const char *const refusals[] = {EBC_ERR_UNSUPPORTED, EBC_ERR_CONSTRAINT, EBC_ERR_RANGE, EBC_ERR_SYNTAX};
    for (size_t i = 0; rc == EB_EIO && i < sizeof refusals / sizeof refusals[0]; i++) {
        char needle[32];
        snprintf(needle, sizeof needle, "failed: %s:", refusals[i]); /* command()'s line */
        if (strstr(err->msg, needle)) {
            err->code = rc = EB_ECONFIG;
            break;
        }
    }
    return rc;
}

static int espbench_link(const eb_console_driver *drv, eb_console *c, eb_link_info *l, eb_deadline d,
                         eb_error *err)
{
    (void)drv;
    char ok[EB_CONSOLE_LINE_MAX];
    int rc = command(c, "link", ok, sizeof ok, NULL, NULL, d, err);
    if (rc)
        return rc;
    eb_reply r;
    classify(ok, &r);
    double v;
    l->rssi = kv_num(&r, "rssi", &v) ? (int)v : 0;
    l->channel = kv_num(&r, "ch", &v) ? (int)v : 0;
    l->bw_mhz = kv_num(&r, "bw", &v) ? (int)v : 0;
    kv(&r, "ch2", l->second, sizeof l->second);
    kv(&r, "band", l->band, sizeof l->band);
    kv(&r, "phy", l->phy, sizeof l->phy);
    kv(&r, "ps", l->ps, sizeof l->ps);
    kv(&r, "net", l->net, sizeof l->net);
    kv(&r, "ip", l->ip, sizeof l->ip);
    return 0;
}

const eb_console_driver eb_driver_espbench = {
    .dialect = EB_DIALECT_ESPBENCH,
    .name = "espbench",
    .prompts = espbench_prompts,
    .runtime_tiers = true,
    .row = NULL,
    .ready = espbench_ready,
    .identify = espbench_identify,
    .set_tier = espbench_set_tier,
    .tier_built = espbench_tier_built,
    .scan = espbench_scan,
    .connect = espbench_connect,
    .memory = espbench_memory,
    .iperf_start = espbench_iperf_start,
    .iperf_line = espbench_iperf_line,
    .iperf_abort = espbench_iperf_abort,
    .iperf_stop = espbench_iperf_stop,
    .radio_set = espbench_radio_set,
    .link = espbench_link,
};
