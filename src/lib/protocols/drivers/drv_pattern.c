/* The console driver of a firmware described by a pattern file (pattern.h):
 * the file's commands: block starts a test (placeholders filled from the
 * test), joins the AP, stops a test; its rules read the lines (the matcher
 * that `parse --pattern` uses). The firmware's own build decides its
 * settings: a tier is a label here (set_tier does nothing), and no scan or
 * memory command exists (RSSI and free memory stay unknown). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <math.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers.h"
#include "espbench/formats/dialect.h"
#include "espbench/formats/pattern.h"

static const eb_pattern *pat_of(const eb_console_driver *drv) { return drv->row; }

/* Fills a command's placeholders; the password only ever reaches the port
 * (eb_console_add_secret keeps it out of the capture). */
static void fill(const char *tmpl, const eb_board_iperf *cfg, const char *ssid, const char *pass, char *out,
                 size_t cap)
{
    size_t n = 0;
    for (const char *s = tmpl; *s && n + 1 < cap;) {
        char val[96] = "";
        const char *end = *s == '{' ? strchr(s, '}') : NULL;
        size_t klen = end ? (size_t)(end - s + 1) : 0;
        bool hit = true;
        if (end && cfg && klen == 6 && !strncmp(s, "{peer}", 6))
            snprintf(val, sizeof val, "%s", cfg->peer);
        else if (end && cfg && klen == 6 && !strncmp(s, "{port}", 6))
            snprintf(val, sizeof val, "%u", cfg->port);
        else if (end && cfg && klen == 6 && !strncmp(s, "{time}", 6))
            snprintf(val, sizeof val, "%d", (int)ceil(cfg->time_s));
        else if (end && cfg && klen == 10 && !strncmp(s, "{interval}", 10))
            snprintf(val, sizeof val, "%g", cfg->interval_s);
        else if (end && cfg && klen == 6 && !strncmp(s, "{rate}", 6))
            snprintf(val, sizeof val, "%g", cfg->udp_rate_mbps);
        else if (end && klen == 6 && !strncmp(s, "{ssid}", 6))
            snprintf(val, sizeof val, "%s", ssid ? ssid : "");
        else if (end && klen == 10 && !strncmp(s, "{password}", 10))
            snprintf(val, sizeof val, "%s", pass ? pass : "");
        else
            hit = false;
        if (!hit) {
            out[n++] = *s++;
            continue;
        }
        size_t vl = strlen(val);
        if (n + vl >= cap)
            break;
        memcpy(out + n, val, vl);
        n += vl;
        s += klen;
    }
    out[n] = 0;
}

/* Whether a compiled regex (pattern.h's commands) matches the line; the
 * named group's text goes to out when asked. */
static bool regex_hit(void *code, int group, const char *line, char *out, size_t cap)
{
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(code, NULL);
    if (!md)
        abort();
    int rc = pcre2_match(code, (PCRE2_SPTR)line, strlen(line), 0, 0, md, NULL);
    if (rc >= 0 && out && group > 0) {
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        size_t n = ov[2 * group] == PCRE2_UNSET ? 0 : ov[2 * group + 1] - ov[2 * group];
        snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), line + ov[2 * group]);
    }
    pcre2_match_data_free(md);
    return rc >= 0;
}

static int pat_ready(const eb_console_driver *drv, eb_console *c, eb_deadline d, eb_error *err)
{
    if (pat_of(drv)->cmd.prompt[0])
        return eb_console_sync(c, d, err);
    /* No prompt to wait for: let what the board prints now go by. */
    char line[EB_CONSOLE_LINE_MAX];
    int ev;
    eb_deadline quiet = eb_deadline_in(300);
    while ((ev = eb_console_next(c, line, sizeof line, quiet < d ? quiet : d, err)) > 0)
        ;
    return ev < 0 ? -ev : 0;
}

static int pat_set_tier(const eb_console_driver *drv, eb_console *c, const eb_tier *t, eb_deadline d, eb_error *err)
{
    (void)drv, (void)c, (void)t, (void)d, (void)err;
    return 0;
}

static int pat_scan(const eb_console_driver *drv, eb_console *c, const char *ssid, eb_wifi_info *w, eb_deadline d,
                    eb_error *err)
{
    (void)drv, (void)c, (void)d, (void)err;
    snprintf(w->ssid, sizeof w->ssid, "%s", ssid ? ssid : "");
    return 0;
}

/* Sends the commands of a list; with a prompt, each but the last waits for
 * the prompt that says the firmware took it. */
static int send_all(const eb_console_driver *drv, eb_console *c, char *const *cmds, const eb_board_iperf *cfg,
                    const char *ssid, const char *pass, eb_deadline d, eb_error *err)
{
    char line[EB_CONSOLE_LINE_MAX];
    for (int i = 0; i < EB_PAT_MAX_COMMANDS && cmds[i]; i++) {
        char cmd[512];
        fill(cmds[i], cfg, ssid, pass, cmd, sizeof cmd);
        int rc = eb_console_send(c, cmd, d, err);
        if (rc)
            return rc;
        if (!pat_of(drv)->cmd.prompt[0] || i + 1 >= EB_PAT_MAX_COMMANDS || !cmds[i + 1])
            continue;
        int ev;
        while ((ev = eb_console_next(c, line, sizeof line, d, err)) == EB_CON_LINE)
            ;
        if (ev < 0)
            return -ev;
        if (ev == EB_CON_TIMEOUT)
            return eb_fail(err, EB_EIO, "console %s: no prompt after '%s'", eb_console_port(c)->url, cmds[i]);
    }
    return 0;
}

struct join_ctx {
    const eb_console_driver *drv;
    eb_console *c;
    eb_wifi_info *w;
};

static int join_event(void *u, int ev, const char *line, eb_error *err)
{
    struct join_ctx *x = u;
    const eb_pattern_commands *cmd = &pat_of(x->drv)->cmd;
    if (ev == EB_CON_TIMEOUT)
        return eb_fail(err, EB_EIO, "console %s: no line matching pattern '%s''s connected regex before the "
                       "deadline; check the commands: connect lines and the AP", eb_console_port(x->c)->url,
                       pat_of(x->drv)->name);
    if (ev == EB_CON_LINE && regex_hit(cmd->connected, cmd->connected_ip, line, x->w->ip, sizeof x->w->ip))
        return EB_CON_DONE;
    return 0;
}

static int pat_connect(const eb_console_driver *drv, eb_console *c, const char *ssid, const char *pass,
                       eb_wifi_info *w, eb_deadline d, eb_error *err)
{
    const eb_pattern_commands *cmd = &pat_of(drv)->cmd;
    snprintf(w->ssid, sizeof w->ssid, "%s", ssid ? ssid : "");
    int rc = send_all(drv, c, cmd->connect, NULL, ssid, pass, d, err);
    if (rc || !cmd->connected)
        return rc;
    struct join_ctx x = {drv, c, w};
    char doing[96];
    snprintf(doing, sizeof doing, "joining '%s'", ssid);
    eb_console_wait wait = {.boots = eb_console_boot(c)->boots, .doing = doing, .on_event = join_event, .u = &x};
    if ((rc = eb_console_wait_for(c, &wait, d, err)) != 0)
        return rc;
    char line[EB_CONSOLE_LINE_MAX];
    /* the prompt that follows belongs to the connect command, not to the next one */
    eb_deadline tail = eb_deadline_in(1000);
    int ev = 0;
    while (cmd->prompt[0] && (ev = eb_console_next(c, line, sizeof line, tail < d ? tail : d, err)) == EB_CON_LINE)
        ;
    return ev < 0 ? -ev : 0;
}

static int pat_memory(const eb_console_driver *drv, eb_console *c, eb_mem_info *m, eb_deadline d, eb_error *err)
{
    (void)drv, (void)c, (void)d, (void)err;
    m->free_internal = m->min_free_internal = m->largest_block = -1;
    return 0;
}

static void pat_iperf_line(const eb_console_driver *drv, const eb_board_iperf *cfg, const char *line,
                           eb_board_run *run)
{
    const eb_pattern *p = pat_of(drv);
    (void)cfg;
    eb_pattern_line pl;
    eb_pattern_match_line(p, line, strlen(line), &pl);
    if (p->cmd.started && !run->started && regex_hit(p->cmd.started, 0, line, NULL, 0))
        run->started = true;
    switch (pl.kind) {
    case EB_PAT_START: run->started = true; break;
    case EB_PAT_INTERVAL:
        run->started = run->connected = true;
        eb_board_run_add(run, pl.iv.start_s, pl.iv.end_s, pl.iv.bytes, pl.iv.mbps, pl.iv.jitter_ms, pl.iv.lost,
                         pl.iv.total);
        break;
    case EB_PAT_SUMMARY:
        /* the summary line with the figure is the test's last */
        if (pl.has[EB_PF_RATE] || pl.has[EB_PF_BYTES]) {
            if (pl.has[EB_PF_RATE])
                run->summary_mbps = pl.iv.mbps;
            run->done = true;
        }
        break;
    case EB_PAT_ERROR:
        run->failed = true;
        snprintf(run->msg, sizeof run->msg, "%s", pl.message);
        break;
    default: break;
    }
}

struct start_ctx {
    const eb_console_driver *drv;
    eb_console *c;
    const eb_board_iperf *cfg;
    eb_board_run *run;
};

static int start_event(void *u, int ev, const char *line, eb_error *err)
{
    struct start_ctx *x = u;
    const eb_pattern *p = pat_of(x->drv);
    if (ev == EB_CON_TIMEOUT)
        return eb_fail(err, EB_EIO, "console %s: the test did not start (no %s line of pattern '%s')",
                       eb_console_port(x->c)->url, p->cmd.started ? "started:" : "prompt", p->name);
    if (ev == EB_CON_PROMPT && !p->cmd.started)
        x->run->started = true;
    if (ev == EB_CON_LINE)
        x->drv->iperf_line(x->drv, x->cfg, line, x->run);
    return x->run->started || x->run->failed ? EB_CON_DONE : 0;
}

static int pat_iperf_start(const eb_console_driver *drv, eb_console *c, const eb_board_iperf *cfg,
                           eb_board_run *run, eb_deadline d, eb_error *err)
{
    const eb_pattern *p = pat_of(drv);
    int rc = send_all(drv, c, cfg->board_sends ? p->cmd.sender : p->cmd.receiver, cfg, NULL, NULL, d, err);
    if (rc)
        return rc;
    if (!p->cmd.started && !p->cmd.prompt[0]) {
        run->started = true; /* nothing to wait for */
        return 0;
    }
    struct start_ctx x = {drv, c, cfg, run};
    eb_console_wait wait = {.boots = eb_console_boot(c)->boots, .doing = "starting the test", .on_event = start_event,
                            .u = &x};
    if (!run->started && !run->failed && (rc = eb_console_wait_for(c, &wait, d, err)) != 0)
        return rc;
    if (run->failed)
        return eb_fail(err, EB_EIO, "console %s: the test failed: %s", eb_console_port(c)->url, run->msg);
    return 0;
}

static int pat_iperf_abort(const eb_console_driver *drv, eb_console *c, eb_deadline d, eb_error *err)
{
    const eb_pattern *p = pat_of(drv);
    if (!p->cmd.abort_cmd)
        return 0;
    char cmd[512];
    fill(p->cmd.abort_cmd, NULL, NULL, NULL, cmd, sizeof cmd);
    return eb_console_send(c, cmd, d, err);
}

void eb_pattern_driver_init(eb_pattern_driver *pd, const eb_pattern *p)
{
    memset(pd, 0, sizeof *pd);
    pd->prompts[0] = p->cmd.prompt[0] ? p->cmd.prompt : NULL;
    pd->drv = (eb_console_driver){
        .dialect = EB_DIALECT_UNKNOWN, .name = p->name, .prompts = pd->prompts, .runtime_tiers = true,
        .row = p, .ready = pat_ready, .set_tier = pat_set_tier, .scan = pat_scan, .connect = pat_connect,
        .memory = pat_memory, .iperf_start = pat_iperf_start, .iperf_line = pat_iperf_line,
        .iperf_abort = pat_iperf_abort,
    };
}
