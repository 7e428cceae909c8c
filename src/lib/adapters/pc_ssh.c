/* The PC side on a remote Linux host over SSH (pc.h eb_pc_ssh_open): the
 * test's iperf2 runs on a lab server, reached with the OpenSSH client.
 *
 * - Logging in: keys or an agent only (BatchMode=yes: ssh never asks for a
 *   password or a host key), a ConnectTimeout and ServerAlive probes; the
 *   user's ssh config (or -F FILE) says which key, port, user, jump host.
 * - No shell string from the user: ssh takes an argument vector; the
 *   command it hands the host's login shell is a fixed wrapper followed by
 *   the iperf2 program and arguments, each single-quoted.
 * - The wrapper (WRAPPER below) starts iperf2 in the background, reports
 *   its pid, when a server's port is bound (from /proc/net) and how it
 *   ended, on stderr as "espbench-ssh: ..." lines; iperf2's own output goes
 *   to stdout, parsed by the same collector as a local iperf2.
 * - Stopping: the wrapper watches its stdin, a pipe only espbench writes.
 *   Closing it (a stop), or the connection ending (espbench killed: ssh dies
 *   with it through PR_SET_PDEATHSIG) sends iperf2 SIGINT — a server prints
 *   its last lines — then SIGKILL 2 s later. A server also ends by itself
 *   (its -t), should the host never see the connection close.
 * - Every step has a deadline: start (connect, log in, iperf2 started),
 *   each read (poll), the stop, the probe. */
#include "espbench/adapters/pc.h"
#include "espbench/adapters/spawn.h"

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

#include "espbench/base/buf.h"
#include "espbench/base/str.h"

#define SSH_CONNECT_S 10         /* ConnectTimeout, unless the options say otherwise */
#define SSH_LOGIN_MS 10000       /* past the connect: log in and start the wrapper */
#define SSH_STOP_MS 4000         /* a stopped iperf2: SIGINT, its last lines, SIGKILL at 2 s */
#define SSH_RAW_MAX (256 * 1024) /* stdout kept for the probe and ping */
#define SSH_MAX_LIVE 64

/* Runs on the host under sh: $1 "tcp"/"udp" (a server whose port to
 * watch) or "none", $2 the port, then the program and its arguments. One
 * line, no '!' (csh's history). */
static const char WRAPPER[] =
    "m=$1; p=$2; shift 2; "
    "command -v \"$1\" >/dev/null 2>&1 || { echo 'espbench-ssh: missing' >&2; exit 127; }; "
    "exec 3<&0; "
    "\"$@\" </dev/null 3<&- 2>&1 & k=$!; "
    "echo \"espbench-ssh: pid $k\" >&2; "
    "( while read -r l <&3; do :; done; kill -INT $k; sleep 2; kill -KILL $k ) >/dev/null 2>&1 & w=$!; "
    "[ \"$m\" = none ] || { h=$(printf %04X \"$p\"); while kill -0 $k 2>/dev/null; do "
    "if cat /proc/net/$m /proc/net/${m}6 2>/dev/null | awk -v h=\"$h\" -v m=\"$m\" "
    "'{ split($2, a, \":\"); if (a[2] == h && (m == \"udp\" || $4 == \"0A\")) f = 1 } END { exit f ? 0 : 1 }'; "
    "then echo 'espbench-ssh: bound' >&2; break; fi; sleep 0.05; done; }; "
    "wait $k; r=$?; kill $w 2>/dev/null; echo \"espbench-ssh: exit $r\" >&2; exit $r";

typedef struct ssh_proc ssh_proc;

typedef struct ssh_host {
    char dest[256];
    char config[1024]; /* ssh -F; "" = the user's */
    char iperf[256];   /* the host's iperf2; "" = the program the run names */
    int connect_s;
    pthread_mutex_t lock; /* live: boards' threads start and look up servers */
    ssh_proc *live[SSH_MAX_LIVE];
} ssh_host;

struct ssh_proc {
    eb_pc_iperf base;
    ssh_host *h;
    pid_t pid; /* the local ssh, its own process group */
    bool reaped, finished, stopping;
    int status;
    int fd_in, fd_out, fd_err;
    FILE *log;
    eb_iperf_run run;
    char *raw; /* stdout kept (keep_raw) */
    size_t raw_n;
    bool keep_raw;
    char line[512]; /* the stderr line being read */
    size_t line_n;
    char ssh_msg[512]; /* ssh's own lines (not the wrapper's) */
    char prog[256];
    /* the wrapper's reports */
    long rpid;
    bool bound, missing, exited, exit_early;
    int rexit;
    /* a server: its address and port, for port_bound */
    bool server, udp;
    char bind_ip[64];
    unsigned port;
};

static const eb_pc_ops ssh_ops;

/* ------------------------------------------------------------ the command */

/* s single-quoted for a POSIX shell, appended to out. */
static void quote(eb_buf *out, const char *s)
{
    eb_buf_append_byte(out, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            eb_buf_append(out, "'\\''", 4);
        else
            eb_buf_append_byte(out, (uint8_t)*s);
    }
    eb_buf_append_byte(out, '\'');
}

/* What the host's login shell runs: the wrapper, then mode, port, program, args. */
static void remote_command(eb_buf *cmd, const char *mode, unsigned port, const char *program,
                           const char *const *args)
{
    eb_buf_printf(cmd, "exec sh -c ");
    quote(cmd, WRAPPER);
    eb_buf_printf(cmd, " espbench-ssh %s %u ", mode, port);
    quote(cmd, program);
    for (int i = 1; args[i]; i++) {
        eb_buf_append_byte(cmd, ' ');
        quote(cmd, args[i]);
    }
}

/* ssh's argument vector (argv has room for 24). */
static void ssh_argv(const ssh_host *h, const char **argv, char *timeout_opt, size_t cap, const char *cmd)
{
    int n = 0;
    argv[n++] = "ssh";
    if (h->config[0]) {
        argv[n++] = "-F";
        argv[n++] = h->config;
    }
    snprintf(timeout_opt, cap, "ConnectTimeout=%d", h->connect_s);
    const char *opts[] = {"BatchMode=yes", timeout_opt, "ServerAliveInterval=5", "ServerAliveCountMax=3",
                          "ClearAllForwardings=yes", "LogLevel=ERROR"};
    argv[n++] = "-T";
    argv[n++] = "-x";
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        argv[n++] = "-o";
        argv[n++] = opts[i];
    }
    argv[n++] = "--";
    argv[n++] = h->dest;
    argv[n++] = cmd;
    argv[n] = NULL;
}

/* ------------------------------------------------------------ what ssh and the wrapper say */

static void mark_pid(ssh_proc *p, const char *rest) { p->rpid = strtol(rest, NULL, 10); }
static void mark_bound(ssh_proc *p, const char *rest) { (void)rest, p->bound = true; }
static void mark_missing(ssh_proc *p, const char *rest) { (void)rest, p->missing = true; }
static void mark_exit(ssh_proc *p, const char *rest)
{
    p->exited = true;
    p->rexit = (int)strtol(rest, NULL, 10);
    p->exit_early = !p->stopping;
}

static const struct {
    const char *tag;
    void (*fn)(ssh_proc *p, const char *rest);
} MARKS[] = {
    {"espbench-ssh: pid ", mark_pid},
    {"espbench-ssh: bound", mark_bound},
    {"espbench-ssh: missing", mark_missing},
    {"espbench-ssh: exit ", mark_exit},
};

/* ssh's own complaints (exit 255), and what to do about each. */
static const struct {
    const char *needle;
    int code;
    const char *what;
} FAULTS[] = {
    {"Permission denied", EB_ECONFIG,
     "refused the login (%s): espbench logs in with a key or ssh-agent only, never a password; put your "
     "public key in the host's authorized_keys, or name the key in the ssh config (?config=FILE)"},
    {"Host key verification failed", EB_ECONFIG,
     "has a host key not known here (%s): log in once with ssh to check and accept it"},
    {"REMOTE HOST IDENTIFICATION HAS CHANGED", EB_ECONFIG,
     "has a host key other than the one known here (%s): check the host, then fix known_hosts"},
    {"Could not resolve hostname", EB_EIO, "cannot be found (%s): check the host name in the far end's URL"},
    {"Connection refused", EB_EIO, "cannot be reached (%s): check the address and port, and that sshd runs there"},
    {"timed out", EB_EIO, "cannot be reached (%s): check the address, the network and the host's firewall"},
    {"No route to host", EB_EIO, "cannot be reached (%s): check the address and the network"},
    {"Network is unreachable", EB_EIO, "cannot be reached (%s): check the address and the network"},
    {"Timeout, server", EB_EIO, "stopped answering (%s): the network to it went down"},
    {"Connection closed", EB_EIO, "closed the connection (%s): see the host's sshd log"},
    {"Connection reset", EB_EIO, "closed the connection (%s): see the host's sshd log"},
    {"Broken pipe", EB_EIO, "lost the connection (%s): the network to it went down"},
};

static void stderr_line(ssh_proc *p, const char *l)
{
    for (size_t i = 0; i < sizeof MARKS / sizeof MARKS[0]; i++) {
        size_t n = strlen(MARKS[i].tag);
        if (!strncmp(l, MARKS[i].tag, n)) {
            MARKS[i].fn(p, l + n);
            return;
        }
    }
    if (!*l)
        return;
    if (p->log)
        fprintf(p->log, "# ssh: %s\n", l);
    size_t have = strlen(p->ssh_msg);
    if (have < sizeof p->ssh_msg - 3)
        snprintf(p->ssh_msg + have, sizeof p->ssh_msg - have, "%s%s", have ? "; " : "", l);
}

static void take_err(ssh_proc *p, const char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = buf[i];
        if (c == '\r')
            continue;
        if (c == '\n' || p->line_n == sizeof p->line - 1) {
            p->line[p->line_n] = 0;
            p->line_n = 0;
            stderr_line(p, p->line);
            if (c == '\n')
                continue;
        }
        p->line[p->line_n++] = c;
    }
}

static void take_out(ssh_proc *p, const char *buf, size_t n)
{
    eb_iperf_feed(&p->run, buf, n);
    if (p->log)
        fwrite(buf, 1, n, p->log);
    if (p->keep_raw && p->raw) {
        size_t k = n < SSH_RAW_MAX - p->raw_n ? n : SSH_RAW_MAX - p->raw_n;
        memcpy(p->raw + p->raw_n, buf, k);
        p->raw_n += k;
    }
}

/* The one line of an ssh that failed before the wrapper started (or lost
 * its connection): what went wrong, with what to do. */
static int ssh_fault(const ssh_proc *p, const char *when, eb_error *err)
{
    const char *dest = p->h->dest;
    if (p->missing)
        return eb_fail(err, EB_ECONFIG,
                       "SSH host %s has no iperf2 '%s': install it there (Debian/Ubuntu: apt install iperf) or "
                       "name its path in the far end's URL (ssh://HOST/PATH/OF/IPERF)", dest, p->prog);
    for (size_t i = 0; i < sizeof FAULTS / sizeof FAULTS[0]; i++)
        if (strstr(p->ssh_msg, FAULTS[i].needle)) {
            char what[1024];
            snprintf(what, sizeof what, FAULTS[i].what, p->ssh_msg);
            return eb_fail(err, FAULTS[i].code, "SSH host %s %s%s", dest, what, when);
        }
    return eb_fail(err, EB_EIO, "SSH host %s: ssh failed%s%s%s", dest, p->ssh_msg[0] ? " (" : "", p->ssh_msg,
                   p->ssh_msg[0] ? ")" : "");
}

/* ------------------------------------------------------------ the process */

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

static void live_set(ssh_proc *p, bool on)
{
    ssh_host *h = p->h;
    pthread_mutex_lock(&h->lock);
    for (int i = 0; i < SSH_MAX_LIVE; i++)
        if (on ? !h->live[i] : h->live[i] == p) {
            h->live[i] = on ? p : NULL;
            break;
        }
    pthread_mutex_unlock(&h->lock);
}

/* Reads ssh's stdout and stderr until both end (1) or the deadline (0). */
static int proc_pump(ssh_proc *p, eb_deadline d)
{
    for (;;) {
        if (p->fd_out < 0 && p->fd_err < 0) {
            if (p->log)
                fflush(p->log);
            return 1;
        }
        struct pollfd pf[2] = {{p->fd_out, POLLIN, 0}, {p->fd_err, POLLIN, 0}};
        int r = poll(pf, 2, eb_deadline_left_ms(d));
        if (r < 0 && errno != EINTR)
            return 1;
        for (int i = 0; i < 2 && r > 0; i++) {
            int *fd = i == 0 ? &p->fd_out : &p->fd_err;
            if (*fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char buf[4096];
            ssize_t n = read(*fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                close_fd(fd);
            else if (i == 0)
                take_out(p, buf, (size_t)n);
            else
                take_err(p, buf, (size_t)n);
        }
        if (eb_deadline_passed(d)) {
            if (p->log)
                fflush(p->log);
            return p->fd_out < 0 && p->fd_err < 0;
        }
    }
}

static void proc_reap(ssh_proc *p, int wait_ms)
{
    eb_deadline d = eb_deadline_in((uint64_t)wait_ms);
    while (!p->reaped) {
        pid_t r = waitpid(p->pid, &p->status, WNOHANG);
        if (r == p->pid || (r < 0 && errno == ECHILD)) {
            p->reaped = true;
            kill(-p->pid, SIGKILL); /* anything it left in its group */
        } else if (eb_deadline_passed(d)) {
            return;
        } else {
            eb_sleep_ms(10);
        }
    }
}

static void proc_finish(ssh_proc *p)
{
    if (p->finished)
        return;
    if (p->line_n) { /* a last line without its newline */
        p->line[p->line_n] = 0;
        p->line_n = 0;
        stderr_line(p, p->line);
    }
    close_fd(&p->fd_in);
    close_fd(&p->fd_out);
    close_fd(&p->fd_err);
    eb_iperf_finish(&p->run);
    if (p->log) {
        fclose(p->log);
        p->log = NULL;
    }
    live_set(p, false);
    p->finished = true;
}

/* Stops it: its stdin closed (the wrapper stops iperf2 and prints how it
 * ended), then the local ssh's group signalled if it lingers. */
static void proc_stop(ssh_proc *p)
{
    p->stopping = true;
    if (p->pid <= 0) /* never started: kill(-0) would be our own group */
        p->reaped = true;
    close_fd(&p->fd_in);
    if (proc_pump(p, eb_deadline_in(SSH_STOP_MS)) == 1)
        proc_reap(p, 500);
    static const int sigs[] = {SIGTERM, SIGKILL};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0] && !p->reaped; i++) {
        kill(-p->pid, sigs[i]);
        proc_pump(p, eb_deadline_in(300));
        proc_reap(p, 300);
    }
    if (!p->reaped) {
        while (waitpid(p->pid, &p->status, 0) < 0 && errno == EINTR)
            ;
        p->reaped = true;
    }
    proc_finish(p);
}

static void proc_free(ssh_proc *p)
{
    if (!p)
        return;
    if (!p->reaped)
        proc_stop(p);
    proc_finish(p);
    eb_iperf_run_free(&p->run);
    free(p->raw);
    free(p);
}

/* What a server's arguments say: -s, -u, -B ADDRESS, -p PORT. */
static void read_args(ssh_proc *p, const char *const *args)
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

/* Starts program with args on the host and waits (a deadline: connect, log
 * in, start) until the wrapper reports iperf2's pid (and a server's port
 * bound); every failure on the way is one line (ssh_fault). */
static int proc_start(ssh_host *h, ssh_proc **out, const char *program, const char *const *args,
                      const char *log_path, bool keep_raw, eb_error *err)
{
    if (!program || !*program || program[0] == '-')
        return eb_fail(err, EB_ECONFIG, "SSH host %s: iperf program '%s' is not a path or name", h->dest,
                       program ? program : "");
    ssh_proc *p = calloc(1, sizeof *p);
    if (!p)
        abort();
    p->base = (eb_pc_iperf){.ops = &ssh_ops, .impl = p};
    p->h = h;
    p->fd_in = p->fd_out = p->fd_err = -1;
    p->keep_raw = keep_raw;
    p->raw = keep_raw ? malloc(SSH_RAW_MAX) : NULL;
    eb_strlcpy(p->prog, program, sizeof p->prog);
    eb_iperf_run_init(&p->run);
    read_args(p, args);
    if (log_path) {
        p->log = fopen(log_path, "ae");
        if (!p->log) {
            int e = errno;
            proc_free(p);
            return eb_fail(err, EB_EIO, "PC iperf log %s: %s", log_path, strerror(e));
        }
        fprintf(p->log, "$ %s", program); /* the log reads as a local iperf2's */
        for (int i = 1; args[i]; i++)
            fprintf(p->log, " %s", args[i]);
        fprintf(p->log, "\n# on SSH host %s\n", h->dest);
        fflush(p->log);
    }
    eb_buf cmd = {0};
    remote_command(&cmd, p->server ? (p->udp ? "udp" : "tcp") : "none", p->port, program, args);
    const char *argv[24];
    char timeout_opt[48];
    ssh_argv(h, argv, timeout_opt, sizeof timeout_opt, eb_buf_cstr(&cmd));
    int pi[2] = {-1, -1}, po[2] = {-1, -1}, pe[2] = {-1, -1};
    int rc = 0;
    if (pipe2(pi, O_CLOEXEC) || pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC)) {
        rc = errno;
    } else {
        eb_spawn_spec sp = {.argv = argv, .in_fd = pi[0], .out_fd = po[1], .err_fd = pe[1]};
        rc = eb_spawn(&sp, &p->pid);
    }
    eb_buf_free(&cmd);
    int closing[] = {pi[0], po[1], pe[1]};
    for (size_t i = 0; i < 3; i++)
        if (closing[i] >= 0)
            close(closing[i]);
    p->fd_in = pi[1], p->fd_out = po[0], p->fd_err = pe[0];
    if (rc) {
        p->reaped = true;
        proc_free(p);
        if (rc == ENOENT)
            return eb_fail(err, EB_ECONFIG, "SSH host %s: the OpenSSH client 'ssh' is not installed here "
                           "(Debian/Ubuntu: apt install openssh-client)", h->dest);
        return eb_fail(err, EB_EIO, "SSH host %s: cannot run ssh: %s", h->dest, strerror(rc));
    }
    live_set(p, true);
    int limit_ms = h->connect_s * 1000 + SSH_LOGIN_MS;
    eb_deadline d = eb_deadline_in((uint64_t)limit_ms);
    /* A server: until its port is bound too (or it ended), so that the
     * caller's wait for the port measures iperf2, not the login. */
    while (!(p->rpid && (!p->server || p->bound || p->exited)) && !p->missing && !eb_deadline_passed(d))
        if (proc_pump(p, eb_deadline_in(50)) == 1)
            break;
    if (p->rpid) {
        *out = p;
        return 0;
    }
    bool late = !p->missing && eb_deadline_passed(d);
    proc_stop(p);
    if (late && !p->ssh_msg[0])
        rc = eb_fail(err, EB_EIO, "SSH host %s: no iperf2 started within %d s (connect, log in, start): check "
                     "the host and the network", h->dest, limit_ms / 1000);
    else
        rc = ssh_fault(p, "", err);
    proc_free(p);
    return rc;
}

/* ------------------------------------------------------------ eb_pc_ops */

static ssh_proc *proc_of(const eb_pc_iperf *pi) { return pi->impl; }

static int ssh_spawn(eb_pc *pc, eb_pc_iperf **out, const char *program, const char *const *args,
                     const char *log_path, eb_error *err)
{
    ssh_host *h = pc->impl;
    ssh_proc *p = NULL;
    int rc = proc_start(h, &p, h->iperf[0] ? h->iperf : program, args, log_path, false, err);
    if (!rc)
        *out = &p->base;
    return rc;
}

static int ssh_pump(eb_pc_iperf *pi, eb_deadline d) { return proc_pump(proc_of(pi), d); }

static void ssh_wait(eb_pc_iperf *pi, eb_deadline d)
{
    ssh_proc *p = proc_of(pi);
    if (proc_pump(p, d) == 1) {
        proc_reap(p, 2000);
        if (p->reaped) {
            proc_finish(p);
            return;
        }
    }
    proc_stop(p);
}

static void ssh_stop(eb_pc_iperf *pi) { proc_stop(proc_of(pi)); }
static bool ssh_running(const eb_pc_iperf *pi) { return !proc_of(pi)->reaped; }
static eb_iperf_run *ssh_run(eb_pc_iperf *pi) { return &proc_of(pi)->run; }
static void ssh_free(eb_pc_iperf *pi) { proc_free(proc_of(pi)); }

/* How it ended, in order: the connection, iperf2's own failure, an iperf2
 * that ended before it was stopped (a server) or with an error (a client),
 * data, nothing measured. */
static int ssh_check(eb_pc_iperf *pi, eb_error *err)
{
    ssh_proc *p = proc_of(pi);
    eb_iperf_finish(&p->run);
    bool ssh_died = p->reaped && WIFEXITED(p->status) && WEXITSTATUS(p->status) == 255;
    if (!p->exited && ssh_died)
        return ssh_fault(p, " during the test", err);
    if (p->run.status == EB_IPERF_FAILED && p->run.message[0])
        return eb_fail(err, EB_EIO, "PC iperf on SSH host %s: %s", p->h->dest, p->run.message);
    if (p->exit_early && (p->server || p->rexit != 0)) {
        char how[32];
        snprintf(how, sizeof how, p->rexit > 128 ? "signal %d" : "status %d",
                 p->rexit > 128 ? p->rexit - 128 : p->rexit);
        return eb_fail(err, EB_EIO, "SSH host %s: its iperf2 (pid %ld) ended with %s before the test did: "
                       "see the host's log (out of memory? killed?)", p->h->dest, p->rpid, how);
    }
    if (p->run.status == EB_IPERF_OK)
        return 0;
    return eb_fail(err, EB_EIO, "PC iperf on SSH host %s measured nothing%s%s", p->h->dest,
                   p->ssh_msg[0] ? ": " : "", p->ssh_msg);
}

/* `PROGRAM -v` on the host. */
static int ssh_probe(eb_pc *pc, const char *program, eb_iperf_version *v, eb_error *err)
{
    ssh_host *h = pc->impl;
    program = h->iperf[0] ? h->iperf : program;
    const char *args[] = {program, "-v", NULL};
    ssh_proc *p = NULL;
    int rc = proc_start(h, &p, program, args, NULL, true, err);
    if (rc)
        return rc;
    proc_pump(p, eb_deadline_in(5000));
    p->stopping = true;
    proc_stop(p);
    if (!p->exited && p->reaped && WIFEXITED(p->status) && WEXITSTATUS(p->status) == 255) {
        rc = ssh_fault(p, "", err);
    } else {
        rc = eb_iperf_version_parse(p->raw ? p->raw : "", p->raw_n, v, err);
        if (rc)
            eb_error_prefix(err, "SSH host %s: iperf '%s': ", h->dest, program);
    }
    proc_free(p);
    return rc;
}

/* A server's port on the host: bound as the wrapper saw it in /proc/net. */
static int ssh_bound(eb_pc *pc, const char *ip, uint16_t port, bool udp)
{
    ssh_host *h = pc->impl;
    int found = -1;
    pthread_mutex_lock(&h->lock);
    for (int i = 0; i < SSH_MAX_LIVE && found < 0; i++) {
        ssh_proc *p = h->live[i];
        if (p && p->server && p->port == port && p->udp == udp && !strcmp(p->bind_ip, ip))
            found = p->bound ? 1 : 0;
    }
    pthread_mutex_unlock(&h->lock);
    return found;
}

/* The host's ping (iputils) to the board. */
static int ssh_ping(eb_pc *pc, const char *host, int count, double interval_s, eb_deadline d, const char *log_path,
                    eb_ping_result *out, eb_error *err)
{
    ssh_host *h = pc->impl;
    if (!host || !*host || host[0] == '-')
        return eb_fail(err, EB_ECONFIG, "latency: '%s' is not a host name or IP address", host ? host : "");
    char c[16], i[32];
    snprintf(c, sizeof c, "%d", count);
    snprintf(i, sizeof i, "%.3f", interval_s);
    const char *args[] = {"ping", "-n", "-c", c, "-i", i, "-W", "1", host, NULL};
    ssh_proc *p = NULL;
    int rc = proc_start(h, &p, "ping", args, NULL, true, err);
    if (rc)
        return rc;
    proc_pump(p, d);
    p->stopping = true;
    proc_stop(p);
    if (log_path) {
        FILE *f = fopen(log_path, "ae");
        if (f) {
            fprintf(f, "# ping -n -c %s -i %s -W 1 %s (on SSH host %s)\n", c, i, host, h->dest);
            fwrite(p->raw, 1, p->raw_n, f);
            fclose(f);
        }
    }
    rc = eb_ping_parse(p->raw, p->raw_n, out, err);
    if (rc)
        eb_error_prefix(err, "SSH host %s: ping: ", h->dest);
    proc_free(p);
    return rc;
}

static int ssh_echo(eb_pc *pc, const char *ip, uint16_t port, int count, double interval_s, eb_deadline d,
                    eb_ping_result *out, eb_error *err)
{
    (void)ip, (void)port, (void)count, (void)interval_s, (void)d, (void)out;
    return eb_fail(err, EB_ECONFIG, "SSH host %s: UDP echo probes run from this computer only; pass "
                   "--latency-method icmp (the host's ping)", ((ssh_host *)pc->impl)->dest);
}

static void ssh_pc_free(eb_pc *pc)
{
    ssh_host *h = pc->impl;
    pthread_mutex_destroy(&h->lock);
    free(h);
    free(pc);
}

static const eb_pc_ops ssh_ops = {
    .name = "ssh", .iperf_probe = ssh_probe, .iperf_spawn = ssh_spawn, .iperf_pump = ssh_pump,
    .iperf_wait = ssh_wait, .iperf_stop = ssh_stop, .iperf_running = ssh_running, .iperf_run = ssh_run,
    .iperf_check = ssh_check, .iperf_free = ssh_free, .port_bound = ssh_bound, .ping = ssh_ping,
    .udp_echo = ssh_echo, .free = ssh_pc_free,
};

int eb_pc_ssh_open(eb_pc **out, const eb_pc_ssh_opts *o, eb_error *err)
{
    const char *d = o->dest ? o->dest : "";
    bool ok = *d && *d != '-' && strlen(d) < sizeof ((ssh_host *)0)->dest;
    for (const char *c = d; ok && *c; c++) /* no space, no control, no host that reads as an option */
        ok = (unsigned char)*c > ' ' && *c != 0x7f && !(*c == '-' && (c[-1] == '/' || c[-1] == '@'));
    if (!ok)
        return eb_fail(err, EB_ECONFIG, "SSH destination '%s': not [USER@]HOST, a Host of the ssh config, or "
                       "ssh://[USER@]HOST[:PORT]", d);
    if (o->config && (!*o->config || access(o->config, R_OK) != 0))
        return eb_fail(err, EB_ECONFIG, "ssh config '%s' of SSH host %s: cannot read it", o->config, d);
    if ((o->config && strlen(o->config) >= sizeof ((ssh_host *)0)->config) ||
        (o->iperf && strlen(o->iperf) >= sizeof ((ssh_host *)0)->iperf))
        return eb_fail(err, EB_ECONFIG, "SSH host %s: ssh config or iperf path too long", d);
    ssh_host *h = calloc(1, sizeof *h);
    eb_pc *pc = calloc(1, sizeof *pc);
    if (!h || !pc)
        abort();
    eb_strlcpy(h->dest, d, sizeof h->dest);
    if (o->config)
        eb_strlcpy(h->config, o->config, sizeof h->config);
    if (o->iperf)
        eb_strlcpy(h->iperf, o->iperf, sizeof h->iperf);
    h->connect_s = o->connect_timeout_s > 0 ? o->connect_timeout_s : SSH_CONNECT_S;
    pthread_mutex_init(&h->lock, NULL);
    *pc = (eb_pc){.ops = &ssh_ops, .impl = h};
    *out = pc;
    return 0;
}
