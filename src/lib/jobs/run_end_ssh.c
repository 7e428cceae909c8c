/* The far end on a lab server over SSH: iperf2 (and ping) on a remote Linux
 * host — a wired machine of the lab's own, as the server of ChromiumOS's
 * network_WiFi_Perf is. It takes a board whose far end is
 *
 *     ssh://[USER@]HOST[:PORT][/PATH/OF/IPERF][?config=FILE][&connect_timeout=S]
 *
 * (run --far-end): the OpenSSH client logs in with a key or an agent only,
 * FILE is its -F config (key, known hosts, jump host), PATH the host's
 * iperf2 (default: iperf on the host's PATH), S ssh's ConnectTimeout (and
 * as long again to log in and start; default 10). Its programs run through
 * adapters/ssh_proc.c (the deadlines, the quoting, the remote program
 * stopped on every way out); this file is the end: the URL, a PC side
 * (eb_pc_ops) whose iperf2 and ping are the host's, and the driver. Its
 * tests are the PC end's, run there (run_test.c, run_latency.c through
 * run_far_pc). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>

#include "espbench/adapters/ssh_proc.h"
#include "espbench/base/buf.h"
#include "espbench/base/str.h"
#include "run_internal.h"

#define SCHEME "ssh://"
#define SSH_RAW_MAX (256 * 1024) /* output kept for the probe and ping */
#define SSH_MAX_LIVE 64
#define IPERF_FIX "install it there (Debian/Ubuntu: apt install iperf) or name its path in the far end's URL " \
                  "(ssh://HOST/PATH/OF/IPERF)"

bool run_end_ssh_wants(const eb_run_board *b)
{
    return !strncmp(b->far_end, SCHEME, strlen(SCHEME));
}

/* ------------------------------------------------------------ the URL */

/* The URL's parts: ssh's destination (scheme and authority: OpenSSH takes
 * ssh:// URIs), the iperf2 path, the settings. */
typedef struct ssh_url {
    char dest[256], iperf[256], config[512];
    int connect_s;
} ssh_url;

static int set_config(ssh_url *u, const char *v, size_t n)
{
    if (n >= sizeof u->config)
        return -1;
    snprintf(u->config, sizeof u->config, "%.*s", (int)n, v);
    return 0;
}

static int set_connect(ssh_url *u, const char *v, size_t n)
{
    char s[8], *end;
    snprintf(s, sizeof s, "%.*s", (int)(n < sizeof s ? n : sizeof s - 1), v);
    long t = strtol(s, &end, 10);
    if (n >= sizeof s || !n || *end || t < 1 || t > 600)
        return -1;
    u->connect_s = (int)t;
    return 0;
}

static const struct {
    const char *key;
    int (*set)(ssh_url *u, const char *v, size_t n);
    const char *what;
} SETTINGS[] = {
    {"config", set_config, "an ssh config file"},
    {"connect_timeout", set_connect, "seconds, 1 to 600"},
};

/* One KEY=VALUE of the query. */
static int parse_setting(const char *url, const char *kv, size_t n, ssh_url *u, eb_error *err)
{
    const char *eq = memchr(kv, '=', n);
    size_t kn = eq ? (size_t)(eq - kv) : n;
    for (size_t i = 0; eq && i < sizeof SETTINGS / sizeof SETTINGS[0]; i++)
        if (strlen(SETTINGS[i].key) == kn && !strncmp(kv, SETTINGS[i].key, kn)) {
            if (SETTINGS[i].set(u, eq + 1, n - kn - 1))
                return eb_fail(err, EB_ECONFIG, "--far-end '%s': %.*s: not %s", url, (int)n, kv, SETTINGS[i].what);
            return 0;
        }
    return eb_fail(err, EB_ECONFIG, "--far-end '%s': unknown setting '%.*s' (config=FILE, connect_timeout=S)", url,
                   (int)n, kv);
}

static int parse_url(const char *url, ssh_url *u, eb_error *err)
{
    memset(u, 0, sizeof *u);
    const char *auth = url + strlen(SCHEME);
    size_t an = strcspn(auth, "/?");
    const char *path = auth + an, *query = strchr(path, '?');
    size_t pn = query ? (size_t)(query - path) : strlen(path);
    if (!an || an + strlen(SCHEME) >= sizeof u->dest || pn >= sizeof u->iperf)
        return eb_fail(err, EB_ECONFIG, "--far-end '%s': not ssh://[USER@]HOST[:PORT][/PATH/OF/IPERF][?config=FILE]",
                       url);
    snprintf(u->dest, sizeof u->dest, "%.*s", (int)(strlen(SCHEME) + an), url);
    snprintf(u->iperf, sizeof u->iperf, "%.*s", pn ? (int)pn : 5, pn ? path : "iperf");
    for (const char *kv = query ? query + 1 : NULL; kv; kv = strchr(kv, '&') ? strchr(kv, '&') + 1 : NULL) {
        int rc = parse_setting(url, kv, strcspn(kv, "&"), u, err);
        if (rc)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------ the PC side on the host */

typedef struct ssh_iperf ssh_iperf;

typedef struct ssh_pc {
    eb_ssh_host host;
    char iperf[256];      /* the host's iperf2, run whatever program the run names */
    pthread_mutex_t lock; /* live: boards' threads start and look up servers */
    ssh_iperf *live[SSH_MAX_LIVE];
} ssh_pc;

/* One iperf2 on the host. */
struct ssh_iperf {
    eb_pc_iperf base;
    ssh_pc *pc;
    eb_ssh_proc *proc;
    eb_iperf_run run;
    /* a server: its address and port, for port_bound */
    bool server, udp;
    char bind_ip[64];
    unsigned port;
};

static const eb_pc_ops ssh_ops;

static void live_set(ssh_iperf *p, bool on)
{
    ssh_pc *h = p->pc;
    pthread_mutex_lock(&h->lock);
    for (int i = 0; i < SSH_MAX_LIVE; i++)
        if (on ? !h->live[i] : h->live[i] == p) {
            h->live[i] = on ? p : NULL;
            break;
        }
    pthread_mutex_unlock(&h->lock);
}

/* What a server's arguments say: -s, -u, -B ADDRESS, -p PORT. */
static void read_args(ssh_iperf *p, const char *const *args)
{
    for (int i = 1; args[i]; i++) {
        const char *next = args[i + 1] ? args[i + 1] : "";
        if (!strcmp(args[i], "-s"))
            p->server = true;
        else if (!strcmp(args[i], "-u"))
            p->udp = true;
        else if (!strcmp(args[i], "-B"))
            eb_strlcpy(p->bind_ip, next, sizeof p->bind_ip);
        else if (!strcmp(args[i], "-p"))
            p->port = (unsigned)strtoul(next, NULL, 10);
    }
}

static void iperf_take(void *ctx, const char *buf, size_t n) { eb_iperf_feed(&((ssh_iperf *)ctx)->run, buf, n); }

static ssh_iperf *iperf_of(const eb_pc_iperf *pi) { return pi->impl; }

static void iperf_free(eb_pc_iperf *pi)
{
    ssh_iperf *p = iperf_of(pi);
    live_set(p, false);
    eb_ssh_free(p->proc);
    eb_iperf_run_free(&p->run);
    free(p);
}

/* The host's iperf2 with the run's arguments; its log reads as a local
 * iperf2's, with the host named. */
static int ssh_spawn(eb_pc *pc, eb_pc_iperf **out, const char *program, const char *const *args,
                     const char *log_path, eb_error *err)
{
    ssh_pc *h = pc->impl;
    const char *argv[64];
    int n = 0;
    argv[n++] = h->iperf[0] ? h->iperf : program;
    for (int i = 1; args[i] && n < 63; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    ssh_iperf *p = calloc(1, sizeof *p);
    if (!p)
        abort();
    p->base = (eb_pc_iperf){.ops = &ssh_ops, .impl = p};
    p->pc = h;
    eb_iperf_run_init(&p->run);
    read_args(p, args);
    eb_buf head = {0};
    eb_buf_printf(&head, "$");
    for (int i = 0; argv[i]; i++)
        eb_buf_printf(&head, " %s", argv[i]);
    eb_buf_printf(&head, "\n# on SSH host %s\n", h->host.dest);
    eb_ssh_spec s = {.argv = argv, .what = "iperf2", .missing_fix = IPERF_FIX,
                     .watch = p->server ? (p->udp ? "udp" : "tcp") : NULL, .port = p->port,
                     .log_path = log_path, .log_head = eb_buf_cstr(&head), .out = iperf_take, .ctx = p};
    int rc = eb_ssh_start(&h->host, &s, &p->proc, err);
    eb_buf_free(&head);
    if (rc) {
        iperf_free(&p->base);
        return rc;
    }
    live_set(p, true);
    *out = &p->base;
    return 0;
}

static int ssh_pump(eb_pc_iperf *pi, eb_deadline d) { return eb_ssh_pump(iperf_of(pi)->proc, d); }
static void ssh_wait(eb_pc_iperf *pi, eb_deadline d) { eb_ssh_wait(iperf_of(pi)->proc, d); }
static void ssh_stop(eb_pc_iperf *pi) { eb_ssh_stop(iperf_of(pi)->proc); }
static eb_iperf_run *ssh_run(eb_pc_iperf *pi) { return &iperf_of(pi)->run; }

static bool ssh_running(const eb_pc_iperf *pi)
{
    eb_ssh_state st;
    eb_ssh_state_of(iperf_of(pi)->proc, &st);
    return st.running;
}

/* How it ended, in order: the connection, iperf2's own failure, an iperf2
 * that ended before it was stopped (a server) or with an error (a client),
 * data, nothing measured. */
static int ssh_check(eb_pc_iperf *pi, eb_error *err)
{
    ssh_iperf *p = iperf_of(pi);
    const char *dest = p->pc->host.dest;
    eb_iperf_finish(&p->run);
    eb_ssh_state st;
    eb_ssh_state_of(p->proc, &st);
    if (st.lost)
        return eb_ssh_fault(p->proc, " during the test", err);
    if (p->run.status == EB_IPERF_FAILED && p->run.message[0])
        return eb_fail(err, EB_EIO, "PC iperf on SSH host %s: %s", dest, p->run.message);
    if (st.exited && st.early && (p->server || st.exit_status != 0)) {
        int x = st.exit_status;
        char how[32];
        snprintf(how, sizeof how, x > 128 ? "signal %d" : "status %d", x > 128 ? x - 128 : x);
        return eb_fail(err, EB_EIO, "SSH host %s: its iperf2 (pid %ld) ended with %s before the test did: "
                       "see the host's log (out of memory? killed?)", dest, st.pid, how);
    }
    if (p->run.status == EB_IPERF_OK)
        return 0;
    const char *said = eb_ssh_said(p->proc);
    return eb_fail(err, EB_EIO, "PC iperf on SSH host %s measured nothing%s%s", dest, said[0] ? ": " : "", said);
}

/* A program run to its end on the host, its output kept (the probe, ping). */
typedef struct kept {
    char *raw;
    size_t n;
} kept;

static void keep(void *ctx, const char *buf, size_t n)
{
    kept *k = ctx;
    size_t m = n < SSH_RAW_MAX - k->n ? n : SSH_RAW_MAX - k->n;
    memcpy(k->raw + k->n, buf, m);
    k->n += m;
}

/* Runs s to its end — up to d, or with d 0 up to after_ms past its start
 * (a login can take long on a busy host) — and keeps its output in k (k->raw
 * freed by the caller); a connection that failed before the program ended
 * is ssh's one line. */
static int run_kept(ssh_pc *h, eb_ssh_spec *s, eb_deadline d, int after_ms, kept *k, eb_error *err)
{
    k->raw = malloc(SSH_RAW_MAX + 1);
    k->n = 0;
    if (!k->raw)
        abort();
    s->out = keep, s->ctx = k;
    eb_ssh_proc *p = NULL;
    int rc = eb_ssh_start(&h->host, s, &p, err);
    if (rc)
        return rc;
    eb_ssh_pump(p, d ? d : eb_deadline_in((uint64_t)after_ms));
    eb_ssh_stop(p);
    eb_ssh_state st;
    eb_ssh_state_of(p, &st);
    if (st.lost)
        rc = eb_ssh_fault(p, "", err);
    eb_ssh_free(p);
    k->raw[k->n] = 0;
    return rc;
}

/* `PROGRAM -v` on the host. */
static int ssh_probe(eb_pc *pc, const char *program, eb_iperf_version *v, eb_error *err)
{
    ssh_pc *h = pc->impl;
    program = h->iperf[0] ? h->iperf : program;
    const char *args[] = {program, "-v", NULL};
    eb_ssh_spec s = {.argv = args, .what = "iperf2", .missing_fix = IPERF_FIX};
    kept k;
    int rc = run_kept(h, &s, 0, 5000, &k, err);
    if (!rc && (rc = eb_iperf_version_parse(k.raw, k.n, v, err)) != 0)
        eb_error_prefix(err, "SSH host %s: iperf '%s': ", h->host.dest, program);
    free(k.raw);
    return rc;
}

/* A server's port on the host: bound as the host saw it in /proc/net. */
static int ssh_bound(eb_pc *pc, const char *ip, uint16_t port, bool udp)
{
    ssh_pc *h = pc->impl;
    int found = -1;
    pthread_mutex_lock(&h->lock);
    for (int i = 0; i < SSH_MAX_LIVE && found < 0; i++) {
        ssh_iperf *p = h->live[i];
        if (p && p->proc && p->server && p->port == port && p->udp == udp && !strcmp(p->bind_ip, ip)) {
            eb_ssh_state st;
            eb_ssh_state_of(p->proc, &st);
            found = st.bound ? 1 : 0;
        }
    }
    pthread_mutex_unlock(&h->lock);
    return found;
}

/* The host's ping (iputils) to the board. */
static int ssh_ping(eb_pc *pc, const char *host, int count, double interval_s, eb_deadline d, const char *log_path,
                    eb_ping_result *out, eb_error *err)
{
    ssh_pc *h = pc->impl;
    if (!host || !*host || host[0] == '-')
        return eb_fail(err, EB_ECONFIG, "latency: '%s' is not a host name or IP address", host ? host : "");
    char c[16], i[32], head[512];
    snprintf(c, sizeof c, "%d", count);
    snprintf(i, sizeof i, "%.3f", interval_s);
    snprintf(head, sizeof head, "# ping -n -c %s -i %s -W 1 %s (on SSH host %s)\n", c, i, host, h->host.dest);
    const char *args[] = {"ping", "-n", "-c", c, "-i", i, "-W", "1", host, NULL};
    eb_ssh_spec s = {.argv = args, .what = "ping", .missing_fix = "install it there (Debian/Ubuntu: apt install "
                     "iputils-ping)", .log_path = log_path, .log_head = head};
    kept k;
    int rc = run_kept(h, &s, d, 0, &k, err);
    if (!rc && (rc = eb_ping_parse(k.raw, k.n, out, err)) != 0)
        eb_error_prefix(err, "SSH host %s: ping: ", h->host.dest);
    free(k.raw);
    return rc;
}

static int ssh_echo(eb_pc *pc, const char *ip, uint16_t port, int count, double interval_s, eb_deadline d,
                    eb_ping_result *out, eb_error *err)
{
    (void)ip, (void)port, (void)count, (void)interval_s, (void)d, (void)out;
    return eb_fail(err, EB_ECONFIG, "SSH host %s: UDP echo probes run from this computer only; pass "
                   "--latency-method icmp (the host's ping)", ((ssh_pc *)pc->impl)->host.dest);
}

static void ssh_pc_free(eb_pc *pc)
{
    ssh_pc *h = pc->impl;
    pthread_mutex_destroy(&h->lock);
    free(h);
    free(pc);
}

static const eb_pc_ops ssh_ops = {
    .name = "ssh", .iperf_probe = ssh_probe, .iperf_spawn = ssh_spawn, .iperf_pump = ssh_pump,
    .iperf_wait = ssh_wait, .iperf_stop = ssh_stop, .iperf_running = ssh_running, .iperf_run = ssh_run,
    .iperf_check = ssh_check, .iperf_free = iperf_free, .port_bound = ssh_bound, .ping = ssh_ping,
    .udp_echo = ssh_echo, .free = ssh_pc_free,
};

static int ssh_pc_open(eb_pc **out, const ssh_url *u, eb_error *err)
{
    ssh_pc *h = calloc(1, sizeof *h);
    if (!h)
        abort();
    int rc = eb_ssh_host_init(&h->host, u->dest, u->config[0] ? u->config : NULL, u->connect_s, err);
    if (rc) {
        free(h);
        return rc;
    }
    eb_strlcpy(h->iperf, u->iperf, sizeof h->iperf);
    pthread_mutex_init(&h->lock, NULL);
    eb_pc *pc = calloc(1, sizeof *pc);
    if (!pc)
        abort();
    *pc = (eb_pc){.ops = &ssh_ops, .impl = h};
    *out = pc;
    return 0;
}

/* ------------------------------------------------------------ the driver */

/* The PC side of the URL's host, and its iperf2's version (probed as this
 * PC's is: the host reached, logged in, iperf2 there). */
static int open_probed(const char *url, eb_pc **pc, eb_iperf_version *v, eb_error *err)
{
    ssh_url u;
    int rc = parse_url(url, &u, err);
    if (!rc)
        rc = ssh_pc_open(pc, &u, err);
    if (!rc && (rc = (*pc)->ops->iperf_probe(*pc, u.iperf, v, err)) != 0) {
        eb_pc_free(*pc);
        *pc = NULL;
    }
    return rc;
}

/* Its own PC side, and the host's iperf2 (probed) before the board's
 * first test: its version is the board's run-level iperf_version
 * (run_ctx.c) and every entry's pc_iperf_version (ssh_stamp). */
static int ssh_open(board_ctx *end, eb_error *err)
{
    eb_iperf_version v;
    int rc = open_probed(end->b->far_end, &end->pc, &v, err);
    if (rc)
        return eb_error_kind(err, EB_KIND_FINAL), rc;
    snprintf(end->prov.seen.pc_iperf_version, sizeof end->prov.seen.pc_iperf_version, "%s", v.text);
    end->label = "SSH host";
    return 0;
}

static void ssh_close(board_ctx *end)
{
    eb_pc_free(end->pc);
    end->pc = NULL;
}

/* Every result of the board names the host and its iperf2. */
static void ssh_stamp(board_ctx *end, const eb_run_item *it, run_result *r)
{
    (void)it;
    if (!r->prov)
        return;
    snprintf(r->prov->pc_iperf_version, sizeof r->prov->pc_iperf_version, "%s", end->prov.seen.pc_iperf_version);
    snprintf(r->prov->far_end, sizeof r->prov->far_end, "%s", ((ssh_pc *)end->pc->impl)->host.dest);
}

/* iperf2 takes every iperf option a row names (iperf(1)), as the PC's. */
static const run_end_decl ssh_decl = {.sets = EB_DIM_IPERF};
static const run_end_tests ssh_tests = {.throughput = run_test, .round_trips = run_latency_test};

const run_end_ops run_end_ssh = {
    .name = "ssh",
    .decl = &ssh_decl,
    .open = ssh_open,
    .prepare = run_dims_apply,
    .config_set = run_iperf_set,
    .close = ssh_close,
    .stamp = ssh_stamp,
    .tests = &ssh_tests,
};
