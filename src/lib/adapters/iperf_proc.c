/* iperf2 child processes: spawn in a new process group, pump both pipes
 * into the output collector and a log, stop, reap. */
#include "espbench/adapters/iperf_proc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
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

/* fork + exec rather than posix_spawn, for one thing posix_spawn cannot do:
 * PR_SET_PDEATHSIG. If espbench is killed outright (SIGKILL, OOM killer, a
 * CI job's timeout), nothing of it runs to stop the iperf group, and a PC
 * iperf server or client would live on for its test time + 30 s holding the
 * port; the kernel now kills it the moment its parent dies. (The signal is
 * tied to the spawning thread: each run's iperf children are spawned and
 * reaped by the same thread.) The child also gets its own process group (the
 * terminal's Ctrl-C goes to espbench only, which then stops the group on its
 * way out), default signal dispositions, an empty mask and /dev/null as
 * stdin. Only async-signal-safe calls between fork and exec; an exec failure
 * comes back as errno through a close-on-exec pipe. 0 or an errno value. */
static int fork_exec(pid_t *pid, const char *program, const char *const *args, int out_fd, int err_fd)
{
    int ep[2];
    if (pipe2(ep, O_CLOEXEC) != 0)
        return errno;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* no espbench handler may run in the child */
    pid_t parent = getpid();
    pid_t c = fork();
    if (c == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) /* the parent died before prctl */
            _exit(127);
        int in = open("/dev/null", O_RDONLY);
        if (in < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
            dup2(err_fd, STDERR_FILENO) < 0) {
            int e = errno;
            (void)!write(ep[1], &e, sizeof e);
            _exit(127);
        }
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        for (int sig = 1; sig < NSIG; sig++)
            sigaction(sig, &dfl, NULL); /* SIGKILL, SIGSTOP and glibc's own fail harmlessly */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execvp(program, (char *const *)args);
        int e = errno;
        (void)!write(ep[1], &e, sizeof e);
        _exit(127);
    }
    int fork_errno = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(ep[1]);
    if (c < 0) {
        close(ep[0]);
        return fork_errno;
    }
    setpgid(c, c); /* also from this side, so a kill(-pid) right after cannot miss */
    int e = 0;
    ssize_t n;
    do
        n = read(ep[0], &e, sizeof e);
    while (n < 0 && errno == EINTR);
    close(ep[0]);
    if (n == (ssize_t)sizeof e) {
        while (waitpid(c, NULL, 0) < 0 && errno == EINTR)
            ;
        return e ? e : ECHILD;
    }
    *pid = c;
    return 0;
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
    int rc = fork_exec(pid, program, args, po[1], pe[1]);
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
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
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
