/* The virtual board's iperf engine against real iperf2 (2.1.8) on loopback:
 * all four directions at 10, 50 and 100 Mbit/s, every byte and datagram one
 * side counted accounted for by the other, interval sums, faults, abort, two
 * boards at once; plus the wire formats and the rate model on their own.
 * Rates are printed, not asserted: how close the traffic comes to the shaped
 * rate on a busy machine is the bench's fidelity section (fidelity.shaping).
 * Real iperf runs are skipped (with a message) only when `iperf` is not in
 * PATH. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "espbench/base/clock.h"
#include "vb_traffic.h"
#include "vb_traffic_shape.h"
#include "vb_traffic_wire.h"

extern char **environ;

#define TEST_T_S 2.0      /* PC and board test length */

/* ------------------------------------------------------------ report collector */

#define MAX_REPORTS 64

typedef struct collector {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    vb_iperf_report reps[MAX_REPORTS];
    int n, dropped;
    uint64_t last_report_us;
} collector;

static void collector_init(collector *c)
{
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
}

static void collector_destroy(collector *c)
{
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
}

static void on_report(void *user, const vb_iperf_report *r)
{
    collector *c = user;
    pthread_mutex_lock(&c->mu);
    if (c->n < MAX_REPORTS)
        c->reps[c->n++] = *r;
    else
        c->dropped++;
    c->last_report_us = eb_now_us();
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

static const vb_iperf_report *find_event(collector *c, enum vb_iperf_event ev)
{
    for (int i = 0; i < c->n; i++)
        if (c->reps[i].event == ev)
            return &c->reps[i];
    return NULL;
}

static bool wait_event(collector *c, enum vb_iperf_event ev, int timeout_ms)
{
    eb_deadline d = eb_deadline_in((uint64_t)timeout_ms);
    pthread_mutex_lock(&c->mu);
    bool found;
    while (!(found = find_event(c, ev) != NULL) && !eb_deadline_passed(d)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 20 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&c->cv, &c->mu, &ts);
    }
    pthread_mutex_unlock(&c->mu);
    return found;
}

static int count_event(collector *c, enum vb_iperf_event ev)
{
    int k = 0;
    pthread_mutex_lock(&c->mu);
    for (int i = 0; i < c->n; i++)
        k += c->reps[i].event == ev;
    pthread_mutex_unlock(&c->mu);
    return k;
}

/* The engine's interval bytes must add up to its SUMMARY and its running total. */
static void assert_intervals_sum(collector *c, vb_iperf *eng)
{
    pthread_mutex_lock(&c->mu);
    uint64_t sum = 0;
    const vb_iperf_report *s = NULL;
    for (int i = 0; i < c->n; i++) {
        if (c->reps[i].event == VB_IPERF_INTERVAL)
            sum += c->reps[i].bytes;
        if (c->reps[i].event == VB_IPERF_SUMMARY)
            s = &c->reps[i];
    }
    pthread_mutex_unlock(&c->mu);
    assert_non_null(s);
    assert_int_equal(c->dropped, 0);
    assert_int_equal(sum, s->bytes);
    assert_int_equal(vb_iperf_total_bytes(eng), s->bytes);
}

/* ------------------------------------------------------------ the PC's iperf */

static bool have_iperf(void)
{
    const char *path = getenv("PATH");
    if (!path)
        return false;
    char *dup = strdup(path), *save = NULL;
    bool found = false;
    for (char *dir = strtok_r(dup, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char p[512];
        snprintf(p, sizeof p, "%s/iperf", dir);
        found = access(p, X_OK) == 0;
    }
    free(dup);
    return found;
}

#define SKIP_WITHOUT_IPERF()                                                                  \
    do {                                                                                      \
        if (!have_iperf()) {                                                                  \
            print_message("SKIP: `iperf` (iperf2) not found in PATH; real-iperf tests skipped\n"); \
            skip();                                                                           \
        }                                                                                     \
    } while (0)

typedef struct pc_iperf {
    pid_t pid;
    char out_path[64];
    char out[32768];
} pc_iperf;

/* Children and engines still running, so a failed assertion (which leaves
 * the test by longjmp) does not leave them behind: see teardown(). */
#define MAX_LIVE 16
static pc_iperf *live_pcs[MAX_LIVE];
static vb_iperf *live_engines[MAX_LIVE];

static void live_add(void **set, void *p)
{
    for (int i = 0; i < MAX_LIVE; i++)
        if (!set[i]) {
            set[i] = p;
            return;
        }
    fail_msg("more than %d live iperf processes or engines", MAX_LIVE);
}

static void live_remove(void **set, void *p)
{
    for (int i = 0; i < MAX_LIVE; i++)
        if (set[i] == p)
            set[i] = NULL;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < MAX_LIVE; i++) {
        if (live_engines[i])
            vb_iperf_abort(live_engines[i]);
        live_engines[i] = NULL;
        if (live_pcs[i]) {
            kill(live_pcs[i]->pid, SIGKILL);
            waitpid(live_pcs[i]->pid, NULL, 0);
            unlink(live_pcs[i]->out_path);
        }
        live_pcs[i] = NULL;
    }
    return 0;
}

/* Spawns iperf with stdout and stderr to a temp file. */
static void pc_start(pc_iperf *p, char *const argv[])
{
    memset(p, 0, sizeof *p);
    snprintf(p->out_path, sizeof p->out_path, "/tmp/test_vb_traffic.XXXXXX");
    int fd = mkstemp(p->out_path);
    assert_true(fd >= 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd, 1);
    posix_spawn_file_actions_adddup2(&fa, fd, 2);
    posix_spawn_file_actions_addclose(&fa, fd);
    int rc = posix_spawnp(&p->pid, "iperf", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd);
    if (rc != 0)
        unlink(p->out_path);
    assert_int_equal(rc, 0);
    live_add((void **)live_pcs, p);
}

/* Reaps the child within timeout_ms (SIGKILL after it), reads its output. */
static bool pc_finish(pc_iperf *p, int timeout_ms)
{
    eb_deadline d = eb_deadline_in((uint64_t)timeout_ms);
    bool exited = false;
    int st;
    while (!exited) {
        pid_t w = waitpid(p->pid, &st, WNOHANG);
        if (w == p->pid) {
            exited = true;
            break;
        }
        if (eb_deadline_passed(d))
            break;
        eb_sleep_ms(10);
    }
    if (!exited) {
        kill(p->pid, SIGKILL);
        waitpid(p->pid, &st, 0);
    }
    live_remove((void **)live_pcs, p);
    FILE *f = fopen(p->out_path, "r");
    size_t n = f ? fread(p->out, 1, sizeof p->out - 1, f) : 0;
    p->out[n] = 0;
    if (f)
        fclose(f);
    unlink(p->out_path);
    return exited;
}

/* A port nobody uses right now (the kernel's pick). */
static uint16_t free_port(int type)
{
    int s = socket(AF_INET, type, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t l = sizeof a;
    getsockname(s, (struct sockaddr *)&a, &l);
    close(s);
    return ntohs(a.sin_port);
}

/* True once /proc/net shows a listening TCP / bound UDP socket on 127.0.0.1:port. */
static bool pc_bound(uint16_t port, bool udp, int timeout_ms)
{
    char want[32];
    snprintf(want, sizeof want, "0100007F:%04X %s", port, "");
    const char *state = udp ? "07" : "0A";
    eb_deadline d = eb_deadline_in((uint64_t)timeout_ms);
    do {
        FILE *f = fopen(udp ? "/proc/net/udp" : "/proc/net/tcp", "r");
        char line[256];
        bool hit = false;
        while (f && fgets(line, sizeof line, f)) {
            char local[64], rem[64], st[8];
            if (sscanf(line, " %*d: %63s %63s %7s", local, rem, st) == 3) {
                char lp[32];
                snprintf(lp, sizeof lp, "0100007F:%04X", port);
                if (strcmp(local, lp) == 0 && strcmp(st, state) == 0)
                    hit = true;
            }
        }
        if (f)
            fclose(f);
        if (hit)
            return true;
        eb_sleep_ms(10);
    } while (!eb_deadline_passed(d));
    return false;
}

/* One `-f b` data line: "[  1] 0.0000-2.0016 sec  2500000 Bytes  9992000 bits/sec",
 * UDP receivers add "  0.001 ms 427/2129 (20%)". */
typedef struct pc_line {
    double start, end, bytes, bps;
    long lost, total; /* -1 when the line has no loss columns */
} pc_line;

static int pc_data_lines(const char *out, pc_line *lines, int max, bool after_server_report)
{
    regex_t re;
    assert_int_equal(regcomp(&re,
                             "^\\[ *[0-9]+\\] +([0-9.]+) *- *([0-9.]+) sec +([0-9.]+) Bytes +([0-9.]+) bits/sec"
                             "( +[0-9.]+ ms +([0-9]+)/ *([0-9]+))?",
                             REG_EXTENDED),
                     0);
    int n = 0;
    bool armed = !after_server_report;
    const char *p = out;
    while (*p && n < max) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line - 1 ? len : sizeof line - 1), p);
        regmatch_t m[8];
        if (strstr(line, "Server Report:"))
            armed = true;
        else if (armed && regexec(&re, line, 8, m, 0) == 0) {
            pc_line l = {strtod(line + m[1].rm_so, NULL), strtod(line + m[2].rm_so, NULL),
                         strtod(line + m[3].rm_so, NULL), strtod(line + m[4].rm_so, NULL), -1, -1};
            if (m[5].rm_so >= 0) {
                l.lost = strtol(line + m[6].rm_so, NULL, 10);
                l.total = strtol(line + m[7].rm_so, NULL, 10);
            }
            lines[n++] = l;
        }
        p = nl ? nl + 1 : p + len;
    }
    regfree(&re);
    return n;
}

/* The whole-test line: the last one starting at 0 (or the Server Report's). */
static bool pc_final(const char *out, bool server_report, pc_line *fin)
{
    pc_line l[64];
    int n = pc_data_lines(out, l, 64, server_report);
    for (int i = n - 1; i >= 0; i--)
        if (l[i].start == 0 && (server_report || l[i].end > 1.0)) {
            *fin = l[i];
            return true;
        }
    return false;
}

/* A server that ran on past the traffic (no end marker: the firmware's UDP
 * client): its interval lines summed over the test's time; the final line
 * would spread the bytes over the server's whole run. */
static bool pc_interval_sum(const char *out, double test_s, pc_line *sum)
{
    pc_line l[64];
    int n = pc_data_lines(out, l, 64, false);
    *sum = (pc_line){0, test_s, 0, 0, 0, 0};
    int used = 0;
    for (int i = 0; i < n; i++) {
        if (l[i].start == 0 && l[i].end > 1.0 + 1e-9) /* the final line */
            continue;
        sum->bytes += l[i].bytes;
        if (l[i].lost > 0)
            sum->lost += l[i].lost;
        if (l[i].total > 0)
            sum->total += l[i].total;
        used++;
    }
    sum->bps = sum->bytes * 8 / test_s;
    return used > 0;
}

/* The PC's own complaints (stderr shares the file): a failed ack, a missing
 * ack, a read or write error. */
static void assert_pc_clean(const char *out, bool no_end_marker)
{
    static const char *const bad[] = {"ack of last datagram failed", "did not receive ack", "read failed",
                                      "write failed", "connect failed", "recvack failed"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (strstr(out, bad[i])) {
            /* a UDP server whose client (the firmware) sent no end marker says so, as with a real board */
            if (no_end_marker && i == 0)
                continue;
            print_message("PC iperf output:\n%s\n", out);
            fail_msg("PC iperf complained: %s", bad[i]);
        }
}

/* ------------------------------------------------------------ one test in one direction */

typedef struct direction {
    const char *name;
    bool board_server, udp;
} direction;

static const direction DIRS[] = {
    {"tcp board->pc", false, false},
    {"udp board->pc", false, true},
    {"tcp pc->board", true, false},
    {"udp pc->board", true, true},
};

#define UDP_LEN 1470 /* both sides' default datagram */

typedef struct tcase {
    const direction *dir;
    double mbps;
    char board_ip[16];
    uint16_t port;
    const char *pc_extra; /* one more PC argument, e.g. "-X" */
    double pc_time_s, pc_interval_s;
    vb_iperf_cfg cfg;
    collector col;
    vb_iperf *eng;
    pc_iperf pc;
    pc_line measured;
    bool have_measured;
} tcase;

static void case_setup(tcase *c, const direction *d, double mbps, const char *board_ip)
{
    memset(c, 0, sizeof *c);
    c->dir = d;
    c->mbps = mbps;
    snprintf(c->board_ip, sizeof c->board_ip, "%s", board_ip);
    c->port = free_port(d->udp ? SOCK_DGRAM : SOCK_STREAM);
    c->pc_time_s = TEST_T_S;
    c->pc_interval_s = 1;
    collector_init(&c->col);
    c->cfg = (vb_iperf_cfg){
        .server = d->board_server,
        .udp = d->udp,
        .port = c->port,
        .interval_s = 1,
        .time_s = d->board_server ? 0 : TEST_T_S, /* a server ends when the PC's test does */
        .model_mbps = mbps,
        .seed = 7,
        .send_udp_server_report = true,
    };
    snprintf(c->cfg.local_ip, sizeof c->cfg.local_ip, "%s", board_ip);
    snprintf(c->cfg.remote_ip, sizeof c->cfg.remote_ip, "127.0.0.1");
}

static void start_engine(tcase *c)
{
    eb_error err = {0};
    assert_int_equal(vb_iperf_start(&c->eng, &c->cfg, on_report, &c->col, &err), 0);
    live_add((void **)live_engines, c->eng);
}

static void case_start(tcase *c)
{
    char port[16], rate[32], t[16], i[16], srv_t[16];
    snprintf(port, sizeof port, "%u", c->port);
    snprintf(t, sizeof t, "%g", c->pc_time_s);
    snprintf(i, sizeof i, "%g", c->pc_interval_s);
    snprintf(srv_t, sizeof srv_t, "%g", c->pc_time_s + 2);
    /* The PC sends UDP faster than the board takes it: the board drops the excess. */
    snprintf(rate, sizeof rate, "%gm", c->mbps * 1.25);
    char *argv[32];
    int n = 0;
    argv[n++] = "iperf";
    if (!c->dir->board_server) {
        char *srv[] = {"-s", "-B", "127.0.0.1", "-p", port, "-P", "1", "-i", i, "-f", "b", NULL};
        for (char **a = srv; *a; a++)
            argv[n++] = *a;
        if (c->dir->udp) {
            argv[n++] = "-u";
            argv[n++] = "-w"; /* a roomy buffer: a busy 2-core machine must not make the PC drop */
            argv[n++] = "2M";
            /* The firmware's UDP client sends no end marker (espressif/iperf): the
             * server ends on its own time, as espbench runs it. */
            argv[n++] = "-t";
            argv[n++] = srv_t;
        }
    } else {
        char *cli[] = {"-c", c->board_ip, "-p", port, "-t", t, "-i", i, "-f", "b", NULL};
        for (char **a = cli; *a; a++)
            argv[n++] = *a;
        if (c->dir->udp) {
            argv[n++] = "-u";
            argv[n++] = "-b";
            argv[n++] = rate;
        }
    }
    if (c->pc_extra)
        argv[n++] = (char *)c->pc_extra;
    argv[n] = NULL;
    if (!c->dir->board_server) {
        pc_start(&c->pc, argv);
        assert_true(pc_bound(c->port, c->dir->udp, 3000));
        start_engine(c);
    } else {
        start_engine(c);
        assert_true(wait_event(&c->col, VB_IPERF_SOCKET_CREATED, 3000));
        pc_start(&c->pc, argv);
    }
}

static void case_finish(tcase *c)
{
    int budget_ms = (int)(c->pc_time_s * 1000) + 8000;
    if (!c->dir->board_server) {
        assert_true(wait_event(&c->col, VB_IPERF_DONE, budget_ms));
        assert_true(pc_finish(&c->pc, 5000));
    } else {
        assert_true(pc_finish(&c->pc, budget_ms));
        assert_true(wait_event(&c->col, VB_IPERF_DONE, 5000));
    }
    /* The PC side's view: a UDP client only learns the board's figures from the Server Report. */
    bool via_report = c->dir->board_server && c->dir->udp;
    if (c->dir->udp && !c->dir->board_server)
        c->have_measured = pc_interval_sum(c->pc.out, c->pc_time_s, &c->measured);
    else
        c->have_measured = pc_final(c->pc.out, via_report, &c->measured);
}

static void case_check(tcase *c)
{
    const vb_iperf_report *s = find_event(&c->col, VB_IPERF_SUMMARY);
    double engine_mbps = s && s->end_s > 0 ? (double)s->bytes * 8 / s->end_s / 1e6 : 0;
    double got = c->have_measured ? c->measured.bps / 1e6 : 0;
    print_message("  %-14s %5.0f Mbit/s on %s: PC iperf measured %.3f Mbit/s (%+.2f %%), engine %.3f Mbit/s\n",
                  c->dir->name, c->mbps, c->board_ip, got, (got / c->mbps - 1) * 100, engine_mbps);
    if (!c->have_measured || getenv("VB_TRAFFIC_VERBOSE"))
        print_message("PC iperf output:\n%s\n", c->pc.out);
    assert_true(c->have_measured);
    assert_null(find_event(&c->col, VB_IPERF_ERROR));
    assert_pc_clean(c->pc.out, c->dir->udp && !c->dir->board_server);
    assert_true(got > 0);
    assert_intervals_sum(&c->col, c->eng);
    if (!c->dir->udp) {
        /* every byte one side wrote, the other read; a 2.1.8 server does not
         * count the 4-byte flags word it reads first (0: no test header) */
        double pc_uncounted = c->dir->board_server ? 0 : 4;
        if (c->measured.bytes + pc_uncounted != (double)s->bytes)
            fail_msg("PC counted %.0f bytes, the engine %llu", c->measured.bytes, (unsigned long long)s->bytes);
    } else if (!c->dir->board_server) {
        /* every datagram the engine sent, the PC counted or numbered as lost, but the first:
         * iperf2 2.1.8 takes datagram 0 (the firmware numbers from 0) as its flow's start and
         * counts from the next (checked with iperf 2.1.8 and a sender numbering from 0). On an
         * idle machine loopback loses none; on a busy one the PC's socket buffer overflows, and
         * the losses must show as sequence gaps (the last datagrams' loss shows as none) */
        long sent = (long)(s->bytes / UDP_LEN);
        if (c->measured.bytes != (double)(c->measured.total - c->measured.lost) * UDP_LEN ||
            c->measured.total > sent - 1 || (c->measured.lost == 0 && c->measured.total == sent - 1 &&
                                             c->measured.bytes != (double)s->bytes - UDP_LEN))
            fail_msg("PC counted %.0f bytes, %ld of %ld datagrams lost; the engine sent %llu bytes",
                     c->measured.bytes, c->measured.lost, c->measured.total, (unsigned long long)s->bytes);
        if (c->measured.lost > 0)
            print_message("  (the PC lost %ld datagrams: a busy machine)\n", c->measured.lost);
    } else {
        /* the Server Report is the engine's accounting, FIN included as iperf2 does */
        assert_true(c->measured.bytes == (double)s->bytes + UDP_LEN);
        assert_int_equal(c->measured.lost, s->udp_lost);
        assert_int_equal(c->measured.total, s->udp_total + 1);
        /* (the PC offers 25 % more than the board takes; the drop itself is the shaper's,
         * test_shape_caps_and_zero_intervals: a busy PC may not manage to offer it) */
    }
}

static void case_cleanup(tcase *c)
{
    live_remove((void **)live_engines, c->eng);
    vb_iperf_free(c->eng);
    collector_destroy(&c->col);
}

static void run_cases(tcase *cs, int n)
{
    for (int i = 0; i < n; i++)
        case_start(&cs[i]);
    for (int i = 0; i < n; i++)
        case_finish(&cs[i]);
    for (int i = 0; i < n; i++)
        case_check(&cs[i]);
    for (int i = 0; i < n; i++)
        case_cleanup(&cs[i]);
}

/* The three rates of one direction run at once: three boards on three ports. */
static void run_direction(const direction *d)
{
    SKIP_WITHOUT_IPERF();
    static const double rates[] = {10, 50, 100};
    tcase *cs = calloc(3, sizeof *cs);
    for (int i = 0; i < 3; i++)
        case_setup(&cs[i], d, rates[i], "127.0.0.1");
    run_cases(cs, 3);
    free(cs);
}

static void test_tcp_board_client(void **state) { (void)state; run_direction(&DIRS[0]); }
static void test_udp_board_client(void **state) { (void)state; run_direction(&DIRS[1]); }
static void test_tcp_board_server(void **state) { (void)state; run_direction(&DIRS[2]); }
static void test_udp_board_server(void **state) { (void)state; run_direction(&DIRS[3]); }

/* Two boards on their own 127.x addresses, servers on the same port, and a
 * third sending from its address, all at once. One PC client uses -X, which
 * blocks unless the board answers the peer-detect header. */
static void test_boards_on_own_addresses(void **state)
{
    (void)state;
    SKIP_WITHOUT_IPERF();
    tcase *cs = calloc(3, sizeof *cs);
    case_setup(&cs[0], &DIRS[2], 20, "127.0.3.1");
    case_setup(&cs[1], &DIRS[2], 40, "127.0.3.2");
    cs[1].port = cs[1].cfg.port = cs[0].port;
    cs[1].pc_extra = "-X";
    case_setup(&cs[2], &DIRS[0], 30, "127.0.3.3");
    run_cases(cs, 3);
    char want[96];
    snprintf(want, sizeof want, "connected with 127.0.3.1 port %u", cs[0].port);
    assert_non_null(strstr(cs[0].pc.out, want));
    snprintf(want, sizeof want, "connected with 127.0.3.2 port %u", cs[0].port);
    assert_non_null(strstr(cs[1].pc.out, want));
    assert_non_null(strstr(cs[2].pc.out, "connected with 127.0.3.3 port"));
    free(cs);
}

/* Seeded noise per interval and a zero-throughput fault, as both sides see
 * it: the model's intervals differ, the engine moves exactly nothing in the
 * zero one and something in every other, the PC counts every byte the engine
 * wrote and sees the zero interval as the least. (How closely each interval
 * follows the model is the bench's to measure.) */
static void test_noise_and_zero_fault(void **state)
{
    (void)state;
    SKIP_WITHOUT_IPERF();
    tcase *c = calloc(1, sizeof *c);
    case_setup(c, &DIRS[0], 40, "127.0.0.1");
    c->cfg.noise_pct = 20;
    c->cfg.seed = 11;
    c->cfg.interval_s = 1;
    c->cfg.zero_intervals = 1;
    c->cfg.zero_from_s = 3; /* intervals: noisy, noisy, noisy, zero, noisy */
    c->cfg.time_s = 5;
    c->pc_interval_s = 1;
    case_start(c);
    case_finish(c);
    double model[5];
    for (long k = 0; k < 5; k++)
        model[k] = vb_shape_rate_bps(&c->cfg, k);
    assert_true(model[3] == 0 && model[1] != model[0] && model[2] != model[1]);
    /* the engine: every interval at its model rate, exactly nothing in the zero one */
    pthread_mutex_lock(&c->col.mu);
    int k = 0;
    for (int i = 0; i < c->col.n; i++) {
        const vb_iperf_report *r = &c->col.reps[i];
        if (r->event != VB_IPERF_INTERVAL)
            continue;
        double bps = (double)r->bytes * 8 / (r->end_s - r->start_s);
        print_message("  interval %d: model %.3f Mbit/s, engine moved %.3f Mbit/s\n", k, model[k] / 1e6, bps / 1e6);
        if (k == 3)
            assert_int_equal(r->bytes, 0);
        else
            assert_true(r->bytes > 0);
        k++;
    }
    pthread_mutex_unlock(&c->col.mu);
    assert_int_equal(k, 5);
    assert_intervals_sum(&c->col, c->eng);
    /* the PC */
    if (getenv("VB_TRAFFIC_VERBOSE"))
        print_message("PC iperf output:\n%s\n", c->pc.out);
    pc_line l[16], *pc1 = NULL, *pc3 = NULL, fin = {0};
    int n = pc_data_lines(c->pc.out, l, 16, false);
    for (int i = 0; i < n; i++) {
        if (fabs(l[i].start - 1) < 1e-3 && fabs(l[i].end - 2) < 1e-3)
            pc1 = &l[i];
        if (fabs(l[i].start - 3) < 1e-3 && fabs(l[i].end - 4) < 1e-3)
            pc3 = &l[i];
    }
    assert_non_null(pc1);
    assert_non_null(pc3);
    print_message("  PC: interval 1 %.3f Mbit/s, zero interval %.0f bytes\n", pc1->bps / 1e6, pc3->bytes);
    for (int i = 0; i < n; i++) /* ~0: only what the clocks' offset moves across its edges */
        if (l[i].end - l[i].start > 0.999 && &l[i] != pc3)
            assert_true(pc3->bytes < l[i].bytes);
    assert_true(pc_final(c->pc.out, false, &fin));
    const vb_iperf_report *sum = find_event(&c->col, VB_IPERF_SUMMARY);
    assert_non_null(sum);
    assert_true(fin.bytes + 4 == (double)sum->bytes); /* the flags word: see case_check */
    assert_pc_clean(c->pc.out, c->dir->udp && !c->dir->board_server);
    case_cleanup(c);
    free(c);
}

/* Abort: prompt while waiting for a client, prompt mid-traffic, no report after it returns. */
static void assert_abort_prompt(tcase *c)
{
    uint64_t t0 = eb_now_us();
    vb_iperf_abort(c->eng);
    uint64_t took_ms = (eb_now_us() - t0) / 1000;
    print_message("  abort took %llu ms\n", (unsigned long long)took_ms);
    /* returns on the eventfd, not at the test's end (30 s): a hang guard, not a timing */
    assert_true(took_ms < 10000);
    assert_false(vb_iperf_running(c->eng));
    pthread_mutex_lock(&c->col.mu);
    int n = c->col.n;
    pthread_mutex_unlock(&c->col.mu);
    eb_sleep_ms(50);
    assert_int_equal(c->col.n, n);
    assert_null(find_event(&c->col, VB_IPERF_DONE));
}

static void test_abort_waiting_server(void **state)
{
    (void)state;
    tcase *c = calloc(1, sizeof *c);
    case_setup(c, &DIRS[2], 10, "127.0.0.1");
    start_engine(c);
    assert_true(wait_event(&c->col, VB_IPERF_SOCKET_CREATED, 3000));
    assert_true(vb_iperf_running(c->eng));
    assert_abort_prompt(c);
    case_cleanup(c);
    free(c);
}

static void test_abort_mid_traffic(void **state)
{
    (void)state;
    SKIP_WITHOUT_IPERF();
    tcase *c = calloc(1, sizeof *c);
    case_setup(c, &DIRS[1], 50, "127.0.0.1");
    c->cfg.time_s = 30;
    c->cfg.interval_s = 0.25;
    case_start(c);
    assert_true(wait_event(&c->col, VB_IPERF_INTERVAL, 3000));
    assert_abort_prompt(c);
    assert_null(find_event(&c->col, VB_IPERF_SUMMARY));
    assert_true(vb_iperf_total_bytes(c->eng) > 0);
    pc_finish(&c->pc, 100); /* no FIN after an abort: the PC server is killed */
    case_cleanup(c);
    free(c);
}

/* Stall: nothing moves and nothing is reported from zero_from_s until abort. */
static void test_stall_fault(void **state)
{
    (void)state;
    SKIP_WITHOUT_IPERF();
    tcase *c = calloc(1, sizeof *c);
    case_setup(c, &DIRS[2], 20, "127.0.0.1");
    c->cfg.interval_s = 0.25;
    c->cfg.stall = true;
    c->cfg.zero_from_s = 0.5;
    c->pc_time_s = 1.0;
    case_start(c);
    /* the two intervals before the stall, however late a busy machine reports them; then
     * four more interval lengths with none */
    for (int waited = 0; count_event(&c->col, VB_IPERF_INTERVAL) < 2 && waited < 10000; waited += 20)
        eb_sleep_ms(20);
    eb_sleep_ms(1000);
    assert_true(vb_iperf_running(c->eng));
    assert_int_equal(count_event(&c->col, VB_IPERF_INTERVAL), 2);
    assert_null(find_event(&c->col, VB_IPERF_SUMMARY));
    uint64_t moved = vb_iperf_total_bytes(c->eng);
    eb_sleep_ms(100);
    assert_int_equal(vb_iperf_total_bytes(c->eng), moved);
    assert_abort_prompt(c);
    pc_finish(&c->pc, 3000);
    case_cleanup(c);
    free(c);
}

/* Without send_udp_server_report the board, like the firmware, ignores the
 * client's FIN and runs to -t: the PC gets no Server Report. */
static void test_udp_server_without_report(void **state)
{
    (void)state;
    SKIP_WITHOUT_IPERF();
    tcase *c = calloc(1, sizeof *c);
    case_setup(c, &DIRS[3], 10, "127.0.0.1");
    c->cfg.send_udp_server_report = false;
    c->cfg.time_s = 1.0;
    c->cfg.interval_s = 0.5;
    c->pc_time_s = 0.5;
    c->pc_interval_s = 0.5;
    case_start(c);
    assert_true(wait_event(&c->col, VB_IPERF_DONE, 5000));
    pc_finish(&c->pc, 300); /* it would wait 2 s for an ack that never comes */
    assert_null(strstr(c->pc.out, "Server Report:"));
    const vb_iperf_report *s = find_event(&c->col, VB_IPERF_SUMMARY);
    assert_non_null(s);
    assert_true(s->end_s == 1.0);
    assert_int_equal(count_event(&c->col, VB_IPERF_INTERVAL), 2);
    assert_intervals_sum(&c->col, c->eng);
    /* ~0.5 s at the PC's 12.5 Mbit/s, shaped to 10: about 625 kB */
    assert_true(s->bytes > 500000 && s->bytes < 700000);
    case_cleanup(c);
    free(c);
}

/* ------------------------------------------------------------ errors (no iperf needed) */

static const vb_iperf_report *run_until_done(tcase *c)
{
    start_engine(c);
    assert_true(wait_event(&c->col, VB_IPERF_DONE, 5000));
    return find_event(&c->col, VB_IPERF_ERROR);
}

static void test_errors_as_the_firmware_words_them(void **state)
{
    (void)state;
    static const struct {
        int dir;
        const char *board_ip, *remote_ip;
        int closed_port; /* 1: connect to a port nobody listens on */
        const char *want;
    } cases[] = {
        {2, "127.0.0.1", "", 0, "Error occurred during accept: errno 11"},
        {3, "127.0.0.1", "", 0, "Error occurred during receiving: errno 11"},
        {0, "127.0.0.1", "127.0.0.1", 1, "Socket unable to connect: errno 111"},
        {0, "127.0.0.1", "192.168.1.2", 0, "Socket unable to connect: errno 113"},
        {1, "127.0.0.1", "10.1.2.3", 0, "Socket unable to connect: errno 113"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tcase *c = calloc(1, sizeof *c);
        case_setup(c, &DIRS[cases[i].dir], 10, cases[i].board_ip);
        c->cfg.accept_timeout_ms = 200;
        snprintf(c->cfg.remote_ip, sizeof c->cfg.remote_ip, "%s", cases[i].remote_ip);
        const vb_iperf_report *e = run_until_done(c);
        assert_non_null(e);
        assert_string_equal(e->text, cases[i].want);
        assert_null(find_event(&c->col, VB_IPERF_SUMMARY));
        case_cleanup(c);
        free(c);
    }
}

static void test_port_taken_on_same_address(void **state)
{
    (void)state;
    for (int d = 2; d <= 3; d++) {
        tcase *a = calloc(2, sizeof *a);
        case_setup(&a[0], &DIRS[d], 10, "127.0.4.1");
        case_setup(&a[1], &DIRS[d], 10, "127.0.4.1");
        a[1].port = a[1].cfg.port = a[0].port;
        start_engine(&a[0]);
        assert_true(wait_event(&a[0].col, VB_IPERF_SOCKET_CREATED, 3000));
        const vb_iperf_report *e = run_until_done(&a[1]);
        assert_non_null(e);
        assert_string_equal(e->text, "Socket unable to bind: errno 98");
        vb_iperf_abort(a[0].eng);
        case_cleanup(&a[0]);
        case_cleanup(&a[1]);
        free(a);
    }
}

static void test_start_rejects_bad_config(void **state)
{
    (void)state;
    static const struct {
        const char *local, *remote;
        bool server;
        double time_s;
        const char *want;
    } cases[] = {
        {"10.0.0.1", "127.0.0.1", false, 2,
         "iperf: board address '10.0.0.1' is not in 127.0.0.0/8; give the board a loopback address (--ip 127.X.Y.Z)"},
        {"127.0.0.1", "pc.local", false, 2,
         "iperf: -c host 'pc.local' is not an IPv4 address; use a dotted address such as 127.0.0.1"},
        {"127.0.0.1", "", false, NAN, "iperf: invalid time, interval, rate or fault value (negative or not a number)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vb_iperf_cfg cfg = {.server = cases[i].server, .port = 5001, .time_s = cases[i].time_s, .model_mbps = 10};
        snprintf(cfg.local_ip, sizeof cfg.local_ip, "%s", cases[i].local);
        snprintf(cfg.remote_ip, sizeof cfg.remote_ip, "%s", cases[i].remote);
        if (i == 2)
            snprintf(cfg.remote_ip, sizeof cfg.remote_ip, "127.0.0.1");
        vb_iperf *ip = (vb_iperf *)&cfg; /* must be reset to NULL */
        eb_error err = {0};
        collector col;
        collector_init(&col);
        assert_int_equal(vb_iperf_start(&ip, &cfg, on_report, &col, &err), EB_ECONFIG);
        assert_null(ip);
        assert_string_equal(err.msg, cases[i].want);
        collector_destroy(&col);
    }
}

/* ------------------------------------------------------------ wire formats */

/* First 60 bytes of `iperf -c 127.0.0.1 -p 15420 -t 2 -i 1 -b 10m` (2.1.8, captured). */
static const uint8_t CAPTURED_TCP_HDR[60] = {
    0x40, 0x01, 0x00, 0x78, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x3c, 0x3c, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0x38, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01, 0x00, 0x08, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x98, 0x96, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static void test_wire_tcp_header(void **state)
{
    (void)state;
    vb_iperf2_tcp_hdr h;
    for (size_t n = 0; n < sizeof CAPTURED_TCP_HDR; n++) /* incomplete: wait for more */
        assert_int_equal(vb_iperf2_tcp_hdr_parse(CAPTURED_TCP_HDR, n, &h), 0);
    assert_int_equal(vb_iperf2_tcp_hdr_parse(CAPTURED_TCP_HDR, sizeof CAPTURED_TCP_HDR, &h), 1);
    assert_int_equal(h.flags, 0x40010078u);
    assert_int_equal(h.hdr_len, 60);
    assert_int_equal(h.amount, -200); /* -t 2 */
    assert_false(h.wants_ack);
    /* -X sets V2PEERDETECT (observed flags 0x46010078) */
    uint8_t x[60];
    memcpy(x, CAPTURED_TCP_HDR, sizeof x);
    x[0] = 0x46;
    assert_int_equal(vb_iperf2_tcp_hdr_parse(x, sizeof x, &h), 1);
    assert_true(h.wants_ack);
    /* zero flags (the firmware's zero-filled buffers, or -C): no header at all */
    static const uint8_t zeros[4] = {0};
    assert_int_equal(vb_iperf2_tcp_hdr_parse(zeros, 4, &h), 1);
    assert_int_equal(h.hdr_len, 0);
    assert_int_equal(h.flags, 0);
    uint8_t ack[VB_IPERF2_CLIENT_ACK_LEN];
    vb_iperf2_client_ack(ack);
    static const uint8_t want_ack[28] = {0, 0, 0, 2, 0, 0, 0, 28, 0, 0, 0, 0, 0, 2, 0, 1, 0, 8, 0, 3};
    assert_memory_equal(ack, want_ack, sizeof want_ack);
}

/* First datagram of `iperf -c … -u -t 2 -b 1m` (captured): id 1, timestamp, 64-bit seq header. */
static const uint8_t CAPTURED_UDP_FIRST[20] = {
    0x00, 0x00, 0x00, 0x01, 0x6b, 0x10, 0x06, 0x00, 0x00, 0x0e, 0xd8, 0x84, 0x00, 0x00, 0x00, 0x00,
    0x48, 0x01, 0x00, 0x98,
};

static void test_wire_udp_datagram(void **state)
{
    (void)state;
    assert_true(vb_iperf2_udp_first_is_seq64(CAPTURED_UDP_FIRST, sizeof CAPTURED_UDP_FIRST));
    vb_iperf2_udp_dgram g;
    assert_true(vb_iperf2_udp_parse(CAPTURED_UDP_FIRST, sizeof CAPTURED_UDP_FIRST, true, &g));
    assert_int_equal(g.id, 1);
    assert_int_equal(g.tv_sec, 0x6b100600);
    assert_int_equal(g.tv_usec, 972932);
    assert_false(vb_iperf2_udp_parse(CAPTURED_UDP_FIRST, 15, true, &g));
    /* the FIN -174 in 64-bit mode is id=0xffffff52 id2=0xffffffff */
    uint8_t d[16];
    vb_iperf2_udp_hdr_write(d, -174, 5, 6);
    static const uint8_t want[16] = {0xff, 0xff, 0xff, 0x52, 0, 0, 0, 5, 0, 0, 0, 6, 0xff, 0xff, 0xff, 0xff};
    assert_memory_equal(d, want, 16);
    assert_true(vb_iperf2_udp_parse(d, 16, true, &g));
    assert_int_equal(g.id, -174);
    assert_true(vb_iperf2_udp_parse(d, 16, false, &g)); /* a 32-bit reader agrees */
    assert_int_equal(g.id, -174);
    /* the engine's own datagrams: flags word 0, a plain 32-bit test */
    uint8_t first[UDP_LEN] = {0};
    vb_iperf2_udp_hdr_write(first, 1, 0, 0);
    assert_false(vb_iperf2_udp_first_is_seq64(first, sizeof first));
}

static void test_wire_server_report(void **state)
{
    (void)state;
    /* The values the PC printed as "0.0000-1.5000 sec … 1.500 ms 3/89 (3.4%)" and 2 out-of-order. */
    vb_iperf2_udp_stats st = {.bytes = 131072, .stop_us = 1500000, .lost = 3, .out_of_order = 2,
                              .datagrams = 89, .jitter_us = 1500};
    uint8_t r[VB_IPERF2_SERVER_REPORT_LEN];
    vb_iperf2_server_report(r, &st);
    static const uint8_t want_head[56] = {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,                    /* UDP_datagram, zero */
        0x88, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 1,              /* flags, bytes hi/lo, stop s */
        0x00, 0x07, 0xa1, 0x20, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 89,       /* stop µs, lost, ooo, datagrams */
        0, 0, 0, 0, 0, 0, 0x05, 0xdc,                                      /* jitter s, µs */
    };
    assert_memory_equal(r, want_head, sizeof want_head);
    for (size_t i = 56; i < sizeof r; i++) /* no SERVER_HEADER_EXTEND data; 64-bit upper words 0 */
        assert_int_equal(r[i], 0);
    vb_iperf2_udp_stats back;
    assert_true(vb_iperf2_server_report_parse(r, sizeof r, &back));
    assert_memory_equal(&back, &st, sizeof st);
    assert_false(vb_iperf2_server_report_parse(r, 55, &back));
    /* upper 32 bits go to extension2 */
    st.datagrams = 0x100000005LL;
    vb_iperf2_server_report(r, &st);
    assert_int_equal(r[127], 1);
    assert_int_equal(r[47], 5);
}

/* ------------------------------------------------------------ rate model */

static void test_shape_noise_is_seeded_and_bounded(void **state)
{
    (void)state;
    vb_iperf_cfg cfg = {.model_mbps = 50, .noise_pct = 10, .seed = 3, .interval_s = 1};
    double first[32];
    bool varied = false;
    for (long k = 0; k < 32; k++) {
        first[k] = vb_shape_rate_bps(&cfg, k);
        assert_true(first[k] >= 45e6 && first[k] <= 55e6);
        varied |= k > 0 && first[k] != first[k - 1];
    }
    assert_true(varied);
    for (long k = 0; k < 32; k++) /* the same seed, the same rates, in any order */
        assert_true(vb_shape_rate_bps(&cfg, 31 - k) == first[31 - k]);
    cfg.seed = 4;
    int same = 0;
    for (long k = 0; k < 32; k++)
        same += vb_shape_rate_bps(&cfg, k) == first[k];
    assert_true(same < 4);
    cfg.noise_pct = 0;
    assert_true(vb_shape_rate_bps(&cfg, 5) == 50e6);
}

static void test_shape_caps_and_zero_intervals(void **state)
{
    (void)state;
    vb_iperf_cfg cfg = {.model_mbps = 50, .bw_limit_mbps = 20, .interval_s = 2, .zero_intervals = 2,
                        .zero_from_s = 3};
    /* zero from 3 s with 2-s intervals: intervals 2 and 3 (4-8 s) carry nothing */
    static const double want_client[] = {20e6, 20e6, 0, 0, 20e6};
    for (long k = 0; k < 5; k++)
        assert_true(vb_shape_rate_bps(&cfg, k) == want_client[k]);
    cfg.server = true; /* -b limits a client only */
    assert_true(vb_shape_rate_bps(&cfg, 0) == 50e6);
    cfg.interval_s = 0; /* the firmware's default 3 s */
    assert_true(vb_shape_interval_s(&cfg) == 3.0);
}

static void test_shaper_integrates_interval_by_interval(void **state)
{
    (void)state;
    vb_iperf_cfg cfg = {.model_mbps = 8, .interval_s = 1, .zero_intervals = 1, .zero_from_s = 1};
    vb_shaper s;
    vb_shaper_init(&s, &cfg, 10.0, 1000, 0); /* a roomy bank: pure integration */
    vb_shaper_advance(&s, 0.5);
    assert_true(fabs(s.tokens - 500000) < 1e-6); /* 8 Mbit/s = 1 MB/s */
    vb_shaper_advance(&s, 0.25);                /* time never runs backwards */
    assert_true(fabs(s.tokens - 500000) < 1e-6);
    vb_shaper_advance(&s, 1.5);                 /* into the zero interval: the bank empties */
    assert_true(s.tokens == 0);
    assert_true(fabs(vb_shaper_wait_s(&s, 100) - 0.5) < 1e-9); /* nothing until 2 s */
    vb_shaper_advance(&s, 2.25);
    assert_true(fabs(s.tokens - 250000) < 1e-6);
    vb_shaper_take(&s, 250000);
    assert_true(fabs(vb_shaper_wait_s(&s, 1000) - 0.001) < 1e-9);
    /* the bank holds at most burst_s of capacity */
    vb_shaper_init(&s, &cfg, 0.01, 1000, 0);
    vb_shaper_advance(&s, 0.9);
    assert_true(fabs(s.tokens - 10000) < 1e-6);
}

/* ------------------------------------------------------------ main */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_wire_tcp_header, teardown),
        cmocka_unit_test_teardown(test_wire_udp_datagram, teardown),
        cmocka_unit_test_teardown(test_wire_server_report, teardown),
        cmocka_unit_test_teardown(test_shape_noise_is_seeded_and_bounded, teardown),
        cmocka_unit_test_teardown(test_shape_caps_and_zero_intervals, teardown),
        cmocka_unit_test_teardown(test_shaper_integrates_interval_by_interval, teardown),
        cmocka_unit_test_teardown(test_start_rejects_bad_config, teardown),
        cmocka_unit_test_teardown(test_errors_as_the_firmware_words_them, teardown),
        cmocka_unit_test_teardown(test_port_taken_on_same_address, teardown),
        cmocka_unit_test_teardown(test_abort_waiting_server, teardown),
        cmocka_unit_test_teardown(test_tcp_board_client, teardown),
        cmocka_unit_test_teardown(test_udp_board_client, teardown),
        cmocka_unit_test_teardown(test_tcp_board_server, teardown),
        cmocka_unit_test_teardown(test_udp_board_server, teardown),
        cmocka_unit_test_teardown(test_boards_on_own_addresses, teardown),
        cmocka_unit_test_teardown(test_noise_and_zero_fault, teardown),
        cmocka_unit_test_teardown(test_abort_mid_traffic, teardown),
        cmocka_unit_test_teardown(test_stall_fault, teardown),
        cmocka_unit_test_teardown(test_udp_server_without_report, teardown),
    };
    if (getenv("VB_TRAFFIC_FILTER")) /* e.g. VB_TRAFFIC_FILTER='*udp*' while debugging */
        cmocka_set_test_filter(getenv("VB_TRAFFIC_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
