/* A program on a remote host over OpenSSH (ssh_proc.h): the wrapper the
 * host's shell runs, ssh's argument vector, what ssh and the wrapper say on
 * stderr, the start, stop and reap with their deadlines. */
#include "espbench/adapters/ssh_proc.h"
#include "espbench/adapters/child_io.h"
#include "espbench/adapters/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "espbench/base/buf.h"
#include "espbench/base/str.h"

#define SSH_CONNECT_S 10  /* ConnectTimeout, unless the host says otherwise */
#define SSH_STOP_MS 4000  /* a stopped program: SIGINT, its last lines, SIGKILL at 2 s */

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

struct eb_ssh_proc {
    const eb_ssh_host *h;
    eb_ssh_spec spec;
    eb_child c; /* the local ssh; its stdout is the program's output */
    bool finished, stopping;
    int fd_in;
    char line[512]; /* the stderr line being read */
    size_t line_n;
    char ssh_msg[512]; /* ssh's own lines (not the wrapper's) */
    char prog[256];
    /* the wrapper's reports */
    long rpid;
    bool bound, missing, exited, exit_early;
    int rexit;
};

int eb_ssh_host_init(eb_ssh_host *h, const char *dest, const char *config, int connect_timeout_s, eb_error *err)
{
    memset(h, 0, sizeof *h);
    const char *d = dest ? dest : "";
    bool ok = *d && *d != '-' && strlen(d) < sizeof h->dest;
    for (const char *c = d; ok && *c; c++) /* no space, no control, no host that reads as an option */
        ok = (unsigned char)*c > ' ' && *c != 0x7f && !(*c == '-' && (c[-1] == '/' || c[-1] == '@'));
    if (!ok)
        return eb_fail(err, EB_ECONFIG, "SSH destination '%s': not [USER@]HOST, a Host of the ssh config, or "
                       "ssh://[USER@]HOST[:PORT]", d);
    if (config && (!*config || access(config, R_OK) != 0))
        return eb_fail(err, EB_ECONFIG, "ssh config '%s' of SSH host %s: cannot read it", config, d);
    if (config && eb_strlcpy(h->config, config, sizeof h->config) >= sizeof h->config)
        return eb_fail(err, EB_ECONFIG, "SSH host %s: ssh config path too long", d);
    eb_strlcpy(h->dest, d, sizeof h->dest);
    h->connect_s = connect_timeout_s > 0 ? connect_timeout_s : SSH_CONNECT_S;
    return 0;
}

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
static void remote_command(eb_buf *cmd, const eb_ssh_spec *s)
{
    eb_buf_printf(cmd, "exec sh -c ");
    quote(cmd, WRAPPER);
    eb_buf_printf(cmd, " espbench-ssh %s %u", s->watch ? s->watch : "none", s->port);
    for (int i = 0; s->argv[i]; i++) {
        eb_buf_append_byte(cmd, ' ');
        quote(cmd, s->argv[i]);
    }
}

/* ssh's argument vector (argv has room for 24). */
static void ssh_argv(const eb_ssh_host *h, const char **argv, char *timeout_opt, size_t cap, const char *cmd)
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

static void mark_pid(eb_ssh_proc *p, const char *rest) { p->rpid = strtol(rest, NULL, 10); }
static void mark_bound(eb_ssh_proc *p, const char *rest) { (void)rest, p->bound = true; }
static void mark_missing(eb_ssh_proc *p, const char *rest) { (void)rest, p->missing = true; }
static void mark_exit(eb_ssh_proc *p, const char *rest)
{
    p->exited = true;
    p->rexit = (int)strtol(rest, NULL, 10);
    p->exit_early = !p->stopping;
}

static const struct {
    const char *tag;
    void (*fn)(eb_ssh_proc *p, const char *rest);
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

static void stderr_line(eb_ssh_proc *p, const char *l)
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
    if (p->c.log)
        fprintf(p->c.log, "# ssh: %s\n", l);
    size_t have = strlen(p->ssh_msg);
    if (have < sizeof p->ssh_msg - 3)
        snprintf(p->ssh_msg + have, sizeof p->ssh_msg - have, "%s%s", have ? "; " : "", l);
}

static void take_err(eb_ssh_proc *p, const char *buf, size_t n)
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

static void take(void *ctx, int which, const char *buf, size_t n)
{
    eb_ssh_proc *p = ctx;
    if (which == 1) {
        take_err(p, buf, n);
        return;
    }
    if (p->spec.out)
        p->spec.out(p->spec.ctx, buf, n);
    if (p->c.log)
        fwrite(buf, 1, n, p->c.log);
}

int eb_ssh_fault(const eb_ssh_proc *p, const char *when, eb_error *err)
{
    const char *dest = p->h->dest;
    if (p->missing)
        return eb_fail(err, EB_ECONFIG, "SSH host %s has no %s '%s': %s", dest, p->spec.what, p->prog,
                       p->spec.missing_fix ? p->spec.missing_fix : "install it there");
    for (size_t i = 0; i < sizeof FAULTS / sizeof FAULTS[0]; i++)
        if (strstr(p->ssh_msg, FAULTS[i].needle)) {
            char what[1024];
            snprintf(what, sizeof what, FAULTS[i].what, p->ssh_msg);
            return eb_fail(err, FAULTS[i].code, "SSH host %s %s%s", dest, what, when);
        }
    return eb_fail(err, EB_EIO, "SSH host %s: ssh failed%s%s%s", dest, p->ssh_msg[0] ? " (" : "", p->ssh_msg,
                   p->ssh_msg[0] ? ")" : "");
}

const char *eb_ssh_said(const eb_ssh_proc *p) { return p->ssh_msg; }

void eb_ssh_state_of(const eb_ssh_proc *p, eb_ssh_state *st)
{
    *st = (eb_ssh_state){
        .running = !p->c.reaped,
        .bound = p->bound,
        .exited = p->exited,
        .early = p->exit_early,
        .lost = !p->exited && p->c.reaped && WIFEXITED(p->c.status) && WEXITSTATUS(p->c.status) == 255,
        .exit_status = p->rexit,
        .pid = p->rpid,
    };
}

/* ------------------------------------------------------------ the process */

int eb_ssh_pump(eb_ssh_proc *p, eb_deadline d) { return eb_child_read(&p->c, d); }

static void finish(eb_ssh_proc *p)
{
    if (p->finished)
        return;
    if (p->line_n) { /* a last line without its newline */
        p->line[p->line_n] = 0;
        p->line_n = 0;
        stderr_line(p, p->line);
    }
    if (p->fd_in >= 0)
        close(p->fd_in);
    p->fd_in = -1;
    eb_child_close(&p->c);
    p->finished = true;
}

/* Its stdin closed (the wrapper stops the program and prints how it
 * ended), then the local ssh's group signalled if it lingers. */
void eb_ssh_stop(eb_ssh_proc *p)
{
    p->stopping = true;
    if (p->fd_in >= 0)
        close(p->fd_in);
    p->fd_in = -1;
    static const eb_child_step steps[] = {{0, SSH_STOP_MS, 500}, {SIGTERM, 300, 300}, {SIGKILL, 300, 300}};
    eb_child_stop(&p->c, steps, sizeof steps / sizeof steps[0]);
    finish(p);
}

void eb_ssh_wait(eb_ssh_proc *p, eb_deadline d) { eb_child_wait(&p->c, d) ? finish(p) : eb_ssh_stop(p); }

void eb_ssh_free(eb_ssh_proc *p)
{
    if (p)
        p->c.reaped ? finish(p) : eb_ssh_stop(p);
    free(p);
}

static int spawn_ssh(eb_ssh_proc *p)
{
    eb_buf cmd = {0};
    remote_command(&cmd, &p->spec);
    const char *argv[24];
    char timeout_opt[48];
    ssh_argv(p->h, argv, timeout_opt, sizeof timeout_opt, eb_buf_cstr(&cmd));
    int pi[2] = {-1, -1}, po[2] = {-1, -1}, pe[2] = {-1, -1};
    int rc = 0;
    if (pipe2(pi, O_CLOEXEC) || pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC)) {
        rc = errno;
    } else {
        eb_spawn_spec sp = {.argv = argv, .in_fd = pi[0], .out_fd = po[1], .err_fd = pe[1]};
        rc = eb_spawn(&sp, &p->c.pid);
    }
    eb_buf_free(&cmd);
    int closing[] = {pi[0], po[1], pe[1]};
    for (size_t i = 0; i < 3; i++)
        if (closing[i] >= 0)
            close(closing[i]);
    p->fd_in = pi[1], p->c.out.fd[0] = po[0], p->c.out.fd[1] = pe[0];
    return rc;
}

int eb_ssh_start(const eb_ssh_host *h, const eb_ssh_spec *s, eb_ssh_proc **out, eb_error *err)
{
    const char *program = s->argv[0];
    if (!program || !*program || program[0] == '-')
        return eb_fail(err, EB_ECONFIG, "SSH host %s: %s program '%s' is not a path or name", h->dest, s->what,
                       program ? program : "");
    eb_ssh_proc *p = calloc(1, sizeof *p);
    if (!p)
        abort();
    p->h = h;
    p->spec = *s;
    p->fd_in = -1;
    p->c.out = (eb_child_out){{-1, -1}, take, p};
    eb_strlcpy(p->prog, program, sizeof p->prog);
    if (s->log_path) {
        p->c.log = fopen(s->log_path, "ae");
        if (!p->c.log) {
            int e = errno;
            eb_ssh_free(p);
            return eb_fail(err, EB_EIO, "%s log %s: %s", s->what, s->log_path, strerror(e));
        }
        fputs(s->log_head ? s->log_head : "", p->c.log);
        fflush(p->c.log);
    }
    int rc = spawn_ssh(p);
    if (rc) {
        p->c.pid = 0;
        eb_ssh_free(p);
        if (rc == ENOENT)
            return eb_fail(err, EB_ECONFIG, "SSH host %s: the OpenSSH client 'ssh' is not installed here "
                           "(Debian/Ubuntu: apt install openssh-client)", h->dest);
        return eb_fail(err, EB_EIO, "SSH host %s: cannot run ssh: %s", h->dest, strerror(rc));
    }
    int limit_ms = h->connect_s * 2000;
    eb_deadline d = eb_deadline_in((uint64_t)limit_ms);
    /* A server: until its port is bound too (or it ended), so that the
     * caller's wait for the port measures the program, not the login. */
    while (!(p->rpid && (!s->watch || p->bound || p->exited)) && !p->missing && !eb_deadline_passed(d))
        if (eb_ssh_pump(p, eb_deadline_in(50)) == 1)
            break;
    if (p->rpid) {
        *out = p;
        return 0;
    }
    bool late = !p->missing && eb_deadline_passed(d);
    eb_ssh_stop(p);
    if (late && !p->ssh_msg[0])
        rc = eb_fail(err, EB_EIO, "SSH host %s: no %s started within %d s (connect, log in, start): check "
                     "the host and the network", h->dest, s->what, limit_ms / 1000);
    else
        rc = eb_ssh_fault(p, "", err);
    eb_ssh_free(p);
    return rc;
}
