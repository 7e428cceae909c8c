/* iperf2 child processes: spawn in a new process group, pump both pipes
 * into the output collector and a log, stop, reap. */
#include "espbench/adapters/iperf_proc.h"
#include "espbench/adapters/child_io.h"
#include "espbench/adapters/spawn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>


#define MAX_LIVE 64

/* Process groups alive now, for eb_iperf_kill_all() from a signal handler. */
static volatile sig_atomic_t live_pgids[MAX_LIVE];
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static void live_add(pid_t pg)
{
    pthread_mutex_lock(&live_lock);
    for (int i = 0; i < MAX_LIVE; i++)
        if (!live_pgids[i]) {
            live_pgids[i] = pg;
            break;
        }
    pthread_mutex_unlock(&live_lock);
}

static void live_remove(pid_t pg)
{
    pthread_mutex_lock(&live_lock);
    for (int i = 0; i < MAX_LIVE; i++)
        if (live_pgids[i] == pg)
            live_pgids[i] = 0;
    pthread_mutex_unlock(&live_lock);
}

void eb_iperf_kill_all(void)
{
    for (int i = 0; i < MAX_LIVE; i++) {
        pid_t pg = live_pgids[i];
        if (pg > 0)
            kill(-pg, SIGKILL);
    }
}

struct eb_iperf_proc {
    eb_child c;         /* its output: stdout, stderr into take() */
    eb_iperf_run run;
    char errtext[512];  /* stderr lines kept for messages (the collector also sees them) */
    bool finished;
};

const char *eb_iperf_program(void)
{
    const char *e = getenv("ESPBENCH_IPERF");
    return e && *e ? e : "iperf";
}

static int spawn_piped(pid_t *pid, const char *program, const char *const *args, int *fd_out,
                       int *fd_err, eb_error *err)
{
    int po[2], pe[2];
    if (pipe2(po, O_CLOEXEC) != 0)
        return eb_fail(err, EB_EIO, "PC iperf: pipe: %s", strerror(errno));
    if (pipe2(pe, O_CLOEXEC) != 0) {
        close(po[0]);
        close(po[1]);
        return eb_fail(err, EB_EIO, "PC iperf: pipe: %s", strerror(errno));
    }
    /* Its own process group, dying with espbench (spawn.h): a killed run leaves no iperf2
     * holding the port for its test time + 30 s. */
    eb_spawn_spec sp = {.file = program, .argv = args, .out_fd = po[1], .err_fd = pe[1]};
    int rc = eb_spawn(&sp, pid);
    close(po[1]);
    close(pe[1]);
    if (rc != 0) {
        close(po[0]);
        close(pe[0]);
        if (rc == ENOENT)
            return eb_fail(err, EB_ECONFIG,
                           "PC iperf: '%s' not found: install iperf2 (Debian/Ubuntu: apt install iperf; "
                           "not iperf3) or set ESPBENCH_IPERF to its path", program);
        return eb_fail(err, EB_EIO, "PC iperf: cannot run '%s': %s", program, strerror(rc));
    }
    *fd_out = po[0];
    *fd_err = pe[0];
    return 0;
}

/* What `iperf -v` says, on either stream. */
typedef struct probe_text {
    char text[1024];
    size_t n;
} probe_text;

static void probe_take(void *ctx, int which, const char *buf, size_t n)
{
    (void)which;
    probe_text *t = ctx;
    size_t k = n < sizeof t->text - 1 - t->n ? n : sizeof t->text - 1 - t->n;
    memcpy(t->text + t->n, buf, k);
    t->n += k;
}

int eb_iperf_probe(const char *program, eb_iperf_version *v, eb_error *err)
{
    const char *args[] = {program, "-v", NULL};
    pid_t pid;
    int fo, fe;
    int rc = spawn_piped(&pid, program, args, &fo, &fe, err);
    if (rc)
        return rc;
    probe_text t = {.n = 0};
    eb_child_out out = {{fo, fe}, probe_take, &t};
    eb_child_pump(&out, eb_deadline_in(5000));
    eb_child_out_close(&out);
    kill(-pid, SIGKILL);
    eb_spawn_reap(pid, NULL);
    t.text[t.n] = 0;
    rc = eb_iperf_version_parse(t.text, t.n, v, err);
    if (rc)
        eb_error_prefix(err, "PC iperf '%s': ", program);
    return rc;
}

static void take(void *ctx, int which, const char *buf, size_t n)
{
    eb_iperf_proc *p = ctx;
    eb_iperf_feed(&p->run, buf, n);
    if (p->c.log)
        fwrite(buf, 1, n, p->c.log);
    if (which == 1) {
        size_t have = strlen(p->errtext);
        size_t room = sizeof p->errtext - 1 - have;
        size_t k = n < room ? n : room;
        memcpy(p->errtext + have, buf, k);
        p->errtext[have + k] = 0;
    }
}

int eb_iperf_spawn(eb_iperf_proc **out, const char *program, const char *const *args,
                   const char *log_path, eb_error *err)
{
    eb_iperf_proc *p = calloc(1, sizeof *p);
    if (!p)
        abort();
    p->c.out = (eb_child_out){{-1, -1}, take, p};
    eb_iperf_run_init(&p->run);
    if (log_path) {
        p->c.log = fopen(log_path, "ae");
        if (!p->c.log) {
            int e = errno;
            eb_iperf_run_free(&p->run);
            free(p);
            return eb_fail(err, EB_EIO, "PC iperf log %s: %s", log_path, strerror(e));
        }
        fprintf(p->c.log, "$");
        for (int i = 0; args[i]; i++)
            fprintf(p->c.log, " %s", args[i]);
        fprintf(p->c.log, "\n");
        fflush(p->c.log);
    }
    int rc = spawn_piped(&p->c.pid, program, args, &p->c.out.fd[0], &p->c.out.fd[1], err);
    if (rc) {
        if (p->c.log)
            fclose(p->c.log);
        eb_iperf_run_free(&p->run);
        free(p);
        return rc;
    }
    live_add(p->c.pid);
    *out = p;
    return 0;
}

int eb_iperf_pump(eb_iperf_proc *p, eb_deadline d) { return eb_child_read(&p->c, d); }

static void finish(eb_iperf_proc *p)
{
    if (p->finished)
        return;
    eb_child_close(&p->c);
    eb_iperf_finish(&p->run);
    live_remove(p->c.pid);
    p->finished = true;
}

void eb_iperf_stop(eb_iperf_proc *p)
{
    /* An iperf server prints its last lines on SIGINT. */
    static const eb_child_step steps[] = {{SIGINT, 300, 200}, {SIGTERM, 300, 200}, {SIGKILL, 300, 200}};
    eb_child_stop(&p->c, steps, sizeof steps / sizeof steps[0]);
    eb_iperf_pump(p, eb_deadline_in(50));
    finish(p);
}

void eb_iperf_wait(eb_iperf_proc *p, eb_deadline d)
{
    if (eb_child_wait(&p->c, d))
        finish(p);
    else
        eb_iperf_stop(p);
}

eb_iperf_run *eb_iperf_proc_run(eb_iperf_proc *p) { return &p->run; }
pid_t eb_iperf_proc_pid(const eb_iperf_proc *p) { return p->c.pid; }
bool eb_iperf_proc_running(const eb_iperf_proc *p) { return !p->c.reaped; }

int eb_iperf_proc_check(eb_iperf_proc *p, eb_error *err)
{
    eb_iperf_finish(&p->run);
    if (p->run.status == EB_IPERF_OK)
        return 0;
    if (p->run.status == EB_IPERF_FAILED && p->run.message[0])
        return eb_fail(err, EB_EIO, "PC iperf: %s", p->run.message);
    /* No data and nothing explains it: quote the first stderr line. */
    char first[160] = "";
    size_t n = strcspn(p->errtext, "\n");
    if (n >= sizeof first)
        n = sizeof first - 1;
    memcpy(first, p->errtext, n);
    first[n] = 0;
    return eb_fail(err, EB_EIO, "PC iperf measured nothing%s%s", first[0] ? ": " : "", first);
}

void eb_iperf_free(eb_iperf_proc *p)
{
    if (!p)
        return;
    if (!p->c.reaped)
        eb_iperf_stop(p);
    finish(p);
    eb_iperf_run_free(&p->run);
    free(p);
}

/* /proc/net/{tcp,udp}: "sl local_address rem_address st ...", addresses as
 * hex in host byte order of the 32-bit value: 0100007F:1389. */
int eb_net_port_bound(const char *ip, uint16_t port, bool udp)
{
    struct in_addr a;
    if (inet_pton(AF_INET, ip, &a) != 1)
        return -1;
    FILE *f = fopen(udp ? "/proc/net/udp" : "/proc/net/tcp", "re");
    if (!f)
        return -1;
    char line[512];
    int found = 0;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return -1;
    }
    while (!found && fgets(line, sizeof line, f)) {
        unsigned la, lp, st;
        if (sscanf(line, " %*d: %x:%x %*x:%*x %x", &la, &lp, &st) != 3)
            continue;
        if (lp != port)
            continue;
        if ((la == a.s_addr || la == 0) && (udp || st == 0x0A))
            found = 1;
    }
    fclose(f);
    return found;
}
