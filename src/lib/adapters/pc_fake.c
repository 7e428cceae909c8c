/* A scripted PC (pc.h), as fake:// is a scripted board (port_fake.c): unit
 * tests drive the run job's whole board loop — both iperf ends, latency —
 * with no process, socket or pty. The output it plays is real iperf2 and
 * ping output (golden logs), parsed by the same parsers as a real PC's.
 *
 * The script is a text file, one directive a line (# starts a comment):
 *   version TEXT            what iperf2 -v prints (default: iperf version 2.1.9 (fake PC))
 *   iperf ARGS -> OUTPUT    an iperf2 started with arguments beginning with ARGS
 *                           (after the program, joined by spaces, e.g. "-s -u")
 *                           prints OUTPUT and ends; the first matching rule wins
 *   once iperf ARGS -> ...  the same, for the first such start only
 *   ping -> OUTPUT          what ping prints (parsed as ping's output)
 *   echo -> OUTPUT          the UDP echo probes' replies, in ping's words
 *   bound yes|no|unknown    whether a started server is seen listening (default yes)
 * OUTPUT takes \r \n \t \\ escapes, or is @FILE: that file's contents (a
 * path relative to the script's folder). An iperf OUTPUT ending in
 * <running> keeps the process running after it until it is stopped (a
 * stalled PC end); <fail> as an OUTPUT makes the start itself fail.
 * Rules are taken in the order the run asks (run --latency-under-load
 * probes from a thread beside the test's iperf: the rules are locked), so
 * "once ping" then "ping" play an idle and a loaded set. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/base/buf.h"
#include "espbench/base/fs.h"
#include "espbench/base/str.h"
#include "espbench/adapters/pc.h"

#define FAKE_PC_MAX_RULES 64
#define RUNNING_MARK "<running>"

typedef struct pc_rule {
    char *args;   /* NULL for ping and echo */
    eb_buf out;
    bool once, used, keeps_running, fails;
    int kind;     /* 0 iperf, 1 ping, 2 echo */
} pc_rule;

typedef struct fake_pc {
    eb_pc pc;
    char path[512];
    char version[128];
    int bound;    /* the port_bound answer */
    pc_rule rules[FAKE_PC_MAX_RULES];
    int n_rules, spawns;
    pthread_mutex_t lock; /* the rules' used marks: probes may come from another thread */
} fake_pc;

typedef struct fake_iperf {
    eb_pc_iperf base;
    eb_iperf_run run;
    FILE *log;
    const pc_rule *rule;
    bool played, running, finished;
} fake_iperf;

static const eb_pc_ops fake_ops;

/* ------------------------------------------------------------ the script */

static int read_output(fake_pc *f, int ln, const char *text, pc_rule *r, eb_error *err)
{
    eb_buf_init(&r->out);
    size_t n = strlen(text), mark = strlen(RUNNING_MARK);
    if (r->kind == 0 && n >= mark && !strcmp(text + n - mark, RUNNING_MARK)) {
        r->keeps_running = true;
        n -= mark;
    }
    if (text[0] != '@') {
        char *t = eb_unescape(text, n);
        r->fails = !strcmp(t, "<fail>");
        if (!r->fails)
            eb_buf_append(&r->out, t, strlen(t));
        free(t);
        return 0;
    }
    char file[1100];
    const char *slash = strrchr(f->path, '/');
    if (text[1] == '/' || !slash)
        snprintf(file, sizeof file, "%.*s", (int)(n - 1), text + 1);
    else
        snprintf(file, sizeof file, "%.*s/%.*s", (int)(slash - f->path), f->path, (int)(n - 1), text + 1);
    eb_error ferr = {0};
    if (eb_file_read(file, 1 << 20, NULL, &r->out, &ferr))
        return eb_fail(err, EB_ECONFIG, "%s:%d: %s", f->path, ln, ferr.msg);
    return 0;
}

static int parse_rule(fake_pc *f, int ln, char *s, bool once, eb_error *err)
{
    int kind = !strncmp(s, "iperf ", 6) ? 0 : !strncmp(s, "ping ", 5) ? 1 : !strncmp(s, "echo ", 5) ? 2 : -1;
    const char *arrow = strstr(s, " -> ");
    if (kind < 0 || !arrow)
        return eb_fail(err, EB_ECONFIG, "%s:%d: expected 'iperf ARGS -> OUTPUT', 'ping -> OUTPUT' or "
                       "'echo -> OUTPUT'", f->path, ln);
    if (f->n_rules == FAKE_PC_MAX_RULES)
        return eb_fail(err, EB_ECONFIG, "%s:%d: more than %d rules", f->path, ln, FAKE_PC_MAX_RULES);
    pc_rule *r = &f->rules[f->n_rules];
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->once = once;
    if (kind == 0) {
        const char *a = s + 6;
        r->args = eb_unescape(a, arrow > a ? (size_t)(arrow - a) : 0);
    }
    int rc = read_output(f, ln, arrow + 4, r, err);
    if (rc) {
        free(r->args);
        eb_buf_free(&r->out);
        return rc;
    }
    f->n_rules++;
    return 0;
}

static int parse_line(fake_pc *f, int ln, char *s, eb_error *err)
{
    s[strcspn(s, "\r\n")] = 0;
    if (!s[0] || s[0] == '#')
        return 0;
    if (!strncmp(s, "version ", 8)) {
        eb_strlcpy(f->version, s + 8, sizeof f->version);
        return 0;
    }
    if (!strncmp(s, "bound ", 6)) {
        const char *v = s + 6;
        if (strcmp(v, "yes") && strcmp(v, "no") && strcmp(v, "unknown"))
            return eb_fail(err, EB_ECONFIG, "%s:%d: bound takes yes, no or unknown", f->path, ln);
        f->bound = !strcmp(v, "yes") ? 1 : !strcmp(v, "no") ? 0 : -1;
        return 0;
    }
    if (!strncmp(s, "once ", 5))
        return parse_rule(f, ln, s + 5, true, err);
    if (!strncmp(s, "iperf ", 6) || !strncmp(s, "ping ", 5) || !strncmp(s, "echo ", 5))
        return parse_rule(f, ln, s, false, err);
    return eb_fail(err, EB_ECONFIG, "%s:%d: unknown directive (version, iperf, once, ping, echo, bound)", f->path,
                   ln);
}

static void fake_pc_free(eb_pc *pc)
{
    fake_pc *f = pc->impl;
    for (int i = 0; i < f->n_rules; i++) {
        free(f->rules[i].args);
        eb_buf_free(&f->rules[i].out);
    }
    pthread_mutex_destroy(&f->lock);
    free(f);
}

int eb_pc_fake_load(eb_pc **out, const char *path, eb_error *err)
{
    FILE *fp = fopen(path, "re");
    if (!fp)
        return eb_fail(err, EB_ECONFIG, "fake PC: cannot read the script %s: %s", path, strerror(errno));
    fake_pc *f = calloc(1, sizeof *f);
    if (!f)
        abort();
    f->pc = (eb_pc){.ops = &fake_ops, .impl = f};
    pthread_mutex_init(&f->lock, NULL);
    snprintf(f->path, sizeof f->path, "%s", path);
    snprintf(f->version, sizeof f->version, "iperf version 2.1.9 (fake PC)");
    f->bound = 1;
    char buf[4096];
    int rc = 0;
    for (int ln = 1; !rc && fgets(buf, sizeof buf, fp); ln++)
        rc = parse_line(f, ln, buf, err);
    fclose(fp);
    if (rc) {
        fake_pc_free(&f->pc);
        return rc;
    }
    *out = &f->pc;
    return 0;
}

int eb_pc_fake_spawns(const eb_pc *pc)
{
    return pc->ops == &fake_ops ? ((const fake_pc *)pc->impl)->spawns : 0;
}

/* ------------------------------------------------------------ iperf */

static int fake_probe(eb_pc *pc, const char *program, eb_iperf_version *v, eb_error *err)
{
    fake_pc *f = pc->impl;
    int rc = eb_iperf_version_parse(f->version, strlen(f->version), v, err);
    if (rc)
        eb_error_prefix(err, "PC iperf '%s': ", program);
    return rc;
}

static pc_rule *match(fake_pc *f, int kind, const char *args)
{
    pc_rule *found = NULL;
    pthread_mutex_lock(&f->lock);
    for (int i = 0; i < f->n_rules && !found; i++) {
        pc_rule *r = &f->rules[i];
        if (r->kind != kind || (r->once && r->used))
            continue;
        if (kind == 0 && strncmp(args, r->args, strlen(r->args)) != 0)
            continue;
        r->used = true;
        found = r;
    }
    pthread_mutex_unlock(&f->lock);
    return found;
}

static int fake_spawn(eb_pc *pc, eb_pc_iperf **out, const char *program, const char *const *args,
                      const char *log_path, eb_error *err)
{
    fake_pc *f = pc->impl;
    eb_buf joined;
    eb_buf_init(&joined);
    for (int i = 1; args[i]; i++)
        eb_buf_printf(&joined, "%s%s", i > 1 ? " " : "", args[i]);
    const char *a = eb_buf_cstr(&joined);
    pc_rule *r = match(f, 0, a);
    int rc = 0;
    if (!r)
        rc = eb_fail(err, EB_EIO, "cannot start PC iperf '%s %s': the fake PC %s has no rule for it", program, a,
                     f->path);
    else if (r->fails)
        rc = eb_fail(err, EB_EIO, "cannot start PC iperf '%s': No such file or directory", program);
    if (rc) {
        eb_buf_free(&joined);
        return rc;
    }
    fake_iperf *p = calloc(1, sizeof *p);
    if (!p)
        abort();
    p->base = (eb_pc_iperf){.ops = &fake_ops, .impl = p};
    p->rule = r;
    p->running = true;
    eb_iperf_run_init(&p->run);
    if (log_path && (p->log = fopen(log_path, "ae")) != NULL)
        fprintf(p->log, "$ %s %s\n", program, a);
    eb_buf_free(&joined);
    f->spawns++;
    *out = &p->base;
    return 0;
}

static void finish(fake_iperf *p)
{
    if (p->finished)
        return;
    p->running = false;
    p->finished = true;
    eb_iperf_finish(&p->run);
    if (p->log) {
        fclose(p->log);
        p->log = NULL;
    }
}

/* The whole output at the first pump; the process then ends (or keeps running). */
static int fake_pump(eb_pc_iperf *base, eb_deadline d)
{
    fake_iperf *p = base->impl;
    if (!p->played) {
        p->played = true;
        eb_iperf_feed(&p->run, p->rule->out.data, p->rule->out.len);
        if (p->log && p->rule->out.len)
            fwrite(p->rule->out.data, 1, p->rule->out.len, p->log);
        if (!p->rule->keeps_running)
            p->running = false;
    }
    if (!p->running)
        return 1;
    int left = eb_deadline_left_ms(d);
    if (left > 0)
        eb_sleep_ms((unsigned)(left < 10 ? left : 10)); /* a quiet process */
    return 0;
}

static void fake_stop(eb_pc_iperf *base)
{
    fake_iperf *p = base->impl;
    fake_pump(base, eb_deadline_in(0));
    finish(p);
}

static void fake_wait(eb_pc_iperf *base, eb_deadline d)
{
    fake_pump(base, d);
    fake_stop(base);
}

static bool fake_running(const eb_pc_iperf *base) { return ((const fake_iperf *)base->impl)->running; }
static eb_iperf_run *fake_run(eb_pc_iperf *base) { return &((fake_iperf *)base->impl)->run; }

static int fake_check(eb_pc_iperf *base, eb_error *err)
{
    fake_iperf *p = base->impl;
    eb_iperf_finish(&p->run);
    if (p->run.status == EB_IPERF_OK)
        return 0;
    if (p->run.status == EB_IPERF_FAILED && p->run.message[0])
        return eb_fail(err, EB_EIO, "PC iperf: %s", p->run.message);
    return eb_fail(err, EB_EIO, "PC iperf measured nothing");
}

static void fake_free(eb_pc_iperf *base)
{
    fake_iperf *p = base->impl;
    finish(p);
    eb_iperf_run_free(&p->run);
    free(p);
}

/* ------------------------------------------------------------ ping, echo */

static int fake_bound(eb_pc *pc, const char *ip, uint16_t port, bool udp)
{
    (void)ip, (void)port, (void)udp;
    return ((fake_pc *)pc->impl)->bound;
}

static int play_probes(fake_pc *f, int kind, const char *host, const char *log_path, eb_ping_result *out,
                       eb_error *err)
{
    pc_rule *r = match(f, kind, "");
    const char *what = kind == 1 ? "ping" : "UDP echo";
    if (!r)
        return eb_fail(err, EB_EIO, "%s %s: the fake PC %s has no '%s' rule", what, host, f->path,
                       kind == 1 ? "ping" : "echo");
    if (r->fails)
        return eb_fail(err, EB_EIO, "cannot run %s: No such file or directory", what);
    if (log_path && kind == 1) {
        FILE *lf = fopen(log_path, "ae");
        if (lf) {
            fwrite(r->out.data, 1, r->out.len, lf);
            fclose(lf);
        }
    }
    int rc = eb_ping_parse(r->out.data ? (const char *)r->out.data : "", r->out.len, out, err);
    if (rc)
        eb_error_prefix(err, "%s %s: ", what, host);
    return rc;
}

static int fake_ping(eb_pc *pc, const char *host, int count, double interval_s, eb_deadline d, const char *log_path,
                     eb_ping_result *out, eb_error *err)
{
    (void)count, (void)interval_s, (void)d;
    return play_probes(pc->impl, 1, host, log_path, out, err);
}

static int fake_echo(eb_pc *pc, const char *ip, uint16_t port, int count, double interval_s, eb_deadline d,
                     eb_ping_result *out, eb_error *err)
{
    (void)port, (void)count, (void)interval_s, (void)d;
    return play_probes(pc->impl, 2, ip, NULL, out, err);
}

static const eb_pc_ops fake_ops = {
    .name = "fake", .iperf_probe = fake_probe, .iperf_spawn = fake_spawn, .iperf_pump = fake_pump,
    .iperf_wait = fake_wait, .iperf_stop = fake_stop, .iperf_running = fake_running, .iperf_run = fake_run,
    .iperf_check = fake_check, .iperf_free = fake_free, .port_bound = fake_bound, .ping = fake_ping,
    .udp_echo = fake_echo, .free = fake_pc_free,
};
