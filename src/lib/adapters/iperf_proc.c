/* iperf2 child processes: spawn in a new process group, pump both pipes
 * into the output collector and a log, stop, reap. */
#include "espbench/adapters/iperf_proc.h"
#include "espbench/adapters/spawn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
    pid_t pid;          /* also the process group id */
    bool reaped;
    int status;
    int fd_out, fd_err; /* -1 once closed */
    FILE *log;
    eb_iperf_run run;
    char errtext[512];  /* stderr lines kept for messages (the collector also sees them) */
    bool finished;
};

const char *eb_iperf_program(void)
{
    const char *e = getenv("ESPBENCH_IPERF");
    return e && *e ? e : "iperf";
}

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
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

int eb_iperf_probe(const char *program, eb_iperf_version *v, eb_error *err)
{
    const char *args[] = {program, "-v", NULL};
    pid_t pid;
    int fo, fe;
    int rc = spawn_piped(&pid, program, args, &fo, &fe, err);
    if (rc)
        return rc;
    char text[1024];
    size_t n = 0;
    eb_deadline d = eb_deadline_in(5000);
    struct pollfd pf[2] = {{fo, POLLIN, 0}, {fe, POLLIN, 0}};
    int open_fds = 2;
    while (open_fds > 0 && !eb_deadline_passed(d)) {
        if (poll(pf, 2, eb_deadline_left_ms(d)) <= 0)
            continue;
        for (int i = 0; i < 2; i++) {
            if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char buf[256];
            ssize_t r = read(pf[i].fd, buf, sizeof buf);
            if (r <= 0) {
                close(pf[i].fd);
                pf[i].fd = -1;
                open_fds--;
                continue;
            }
            size_t take = (size_t)r < sizeof text - 1 - n ? (size_t)r : sizeof text - 1 - n;
            memcpy(text + n, buf, take);
            n += take;
        }
    }
    for (int i = 0; i < 2; i++)
        if (pf[i].fd >= 0)
            close(pf[i].fd);
    kill(-pid, SIGKILL);
    eb_spawn_reap(pid, NULL);
    text[n] = 0;
    rc = eb_iperf_version_parse(text, n, v, err);
    if (rc)
        eb_error_prefix(err, "PC iperf '%s': ", program);
    return rc;
}

int eb_iperf_spawn(eb_iperf_proc **out, const char *program, const char *const *args,
                   const char *log_path, eb_error *err)
{
    eb_iperf_proc *p = calloc(1, sizeof *p);
    if (!p)
        abort();
    p->fd_out = p->fd_err = -1;
    eb_iperf_run_init(&p->run);
    if (log_path) {
        p->log = fopen(log_path, "ae");
        if (!p->log) {
            int e = errno;
            eb_iperf_run_free(&p->run);
            free(p);
            return eb_fail(err, EB_EIO, "PC iperf log %s: %s", log_path, strerror(e));
        }
        fprintf(p->log, "$");
        for (int i = 0; args[i]; i++)
            fprintf(p->log, " %s", args[i]);
        fprintf(p->log, "\n");
        fflush(p->log);
    }
    int rc = spawn_piped(&p->pid, program, args, &p->fd_out, &p->fd_err, err);
    if (rc) {
        if (p->log)
            fclose(p->log);
        eb_iperf_run_free(&p->run);
        free(p);
        return rc;
    }
    live_add(p->pid);
    *out = p;
    return 0;
}

static void take(eb_iperf_proc *p, const char *buf, size_t n, bool is_err)
{
    eb_iperf_feed(&p->run, buf, n);
    if (p->log)
        fwrite(buf, 1, n, p->log);
    if (is_err) {
        size_t have = strlen(p->errtext);
        size_t room = sizeof p->errtext - 1 - have;
        size_t k = n < room ? n : room;
        memcpy(p->errtext + have, buf, k);
        p->errtext[have + k] = 0;
    }
}

int eb_iperf_pump(eb_iperf_proc *p, eb_deadline d)
{
    for (;;) {
        struct pollfd pf[2] = {{p->fd_out, POLLIN, 0}, {p->fd_err, POLLIN, 0}};
        if (p->fd_out < 0 && p->fd_err < 0) {
            if (p->log)
                fflush(p->log);
            return 1;
        }
        int left = eb_deadline_left_ms(d);
        int r = poll(pf, 2, left);
        if (r < 0 && errno != EINTR)
            return 1;
        if (r <= 0) {
            if (eb_deadline_passed(d)) {
                if (p->log)
                    fflush(p->log);
                return 0;
            }
            continue;
        }
        for (int i = 0; i < 2; i++) {
            int *fd = i == 0 ? &p->fd_out : &p->fd_err;
            if (*fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char buf[4096];
            ssize_t n = read(*fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                close_fd(fd);
            else
                take(p, buf, (size_t)n, i == 1);
        }
        /* Give the caller a chance to look at progress at least every 100 ms. */
        if (eb_deadline_passed(d))
            return 0;
    }
}

static void reap(eb_iperf_proc *p, int wait_ms)
{
    if (p->reaped)
        return;
    eb_deadline d = eb_deadline_in((uint64_t)wait_ms);
    for (;;) {
        pid_t r = waitpid(p->pid, &p->status, WNOHANG);
        if (r == p->pid || (r < 0 && errno == ECHILD)) {
            p->reaped = true;
            live_remove(p->pid);
            kill(-p->pid, SIGKILL); /* anything it left in its group */
            return;
        }
        if (eb_deadline_passed(d))
            return;
        eb_sleep_ms(10);
    }
}

static void finish(eb_iperf_proc *p)
{
    if (p->finished)
        return;
    close_fd(&p->fd_out);
    close_fd(&p->fd_err);
    eb_iperf_finish(&p->run);
    if (p->log) {
        fclose(p->log);
        p->log = NULL;
    }
    p->finished = true;
}

void eb_iperf_stop(eb_iperf_proc *p)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGKILL};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0] && !p->reaped; i++) {
        kill(-p->pid, sigs[i]);
        /* An iperf server prints its last lines on SIGINT. */
        eb_iperf_pump(p, eb_deadline_in(300));
        reap(p, 200);
    }
    if (!p->reaped) {
        while (waitpid(p->pid, &p->status, 0) < 0 && errno == EINTR)
            ;
        p->reaped = true;
        live_remove(p->pid);
    }
    eb_iperf_pump(p, eb_deadline_in(50));
    finish(p);
}

void eb_iperf_wait(eb_iperf_proc *p, eb_deadline d)
{
    if (eb_iperf_pump(p, d) == 1) {
        reap(p, 2000);
        if (p->reaped) {
            finish(p);
            return;
        }
    }
    eb_iperf_stop(p);
}

eb_iperf_run *eb_iperf_proc_run(eb_iperf_proc *p) { return &p->run; }
pid_t eb_iperf_proc_pid(const eb_iperf_proc *p) { return p->pid; }
bool eb_iperf_proc_running(const eb_iperf_proc *p) { return !p->reaped; }

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
    if (!p->reaped)
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
