/* A program run on a remote Linux host with the OpenSSH client: what any
 * end needs that runs its programs on another machine (a lab server's
 * iperf2, a Linux station under test).
 *
 * - Logging in: keys or an agent only (BatchMode=yes: ssh never asks for a
 *   password or a host key), a ConnectTimeout and ServerAlive probes; the
 *   user's ssh config (or -F FILE) says which key, port, user, jump host.
 * - No shell string from the caller: the command ssh hands the host's login
 *   shell is a fixed wrapper followed by the program and its arguments, each
 *   single-quoted.
 * - The wrapper runs the program in the background and reports its pid, a
 *   server's port once bound (from /proc/net), and how it ended, on ssh's
 *   stderr; the program's own output (stdout and stderr) is ssh's stdout,
 *   handed to the caller's sink as it comes and copied to a log.
 * - Stopping: the wrapper watches its stdin, a pipe only espbench writes.
 *   Closing it (a stop), or the connection ending (espbench killed: ssh dies
 *   with it through PR_SET_PDEATHSIG), sends the program SIGINT (an iperf2
 *   server prints its last lines), then SIGKILL 2 s later.
 * - A deadline on every step: the start (connect, log in, started), each
 *   read (child_io.h), the stop. A failure is one line saying what to do. */
#ifndef ESPBENCH_SSH_PROC_H
#define ESPBENCH_SSH_PROC_H

#include <stdbool.h>
#include <stddef.h>

#include "espbench/base/clock.h"
#include "espbench/base/error.h"

/* Where programs run: checked once (eb_ssh_host_init), used by any thread. */
typedef struct eb_ssh_host {
    char dest[256];    /* [USER@]HOST, a Host of the ssh config, or ssh://[USER@]HOST[:PORT] */
    char config[1024]; /* ssh -F; "" = the user's */
    int connect_s;     /* ConnectTimeout, and as long again to log in and start */
} eb_ssh_host;

/* connect_timeout_s 0 = 10 s. EB_ECONFIG for a destination that is not one
 * (or would read as an ssh option) or an unreadable config. */
int eb_ssh_host_init(eb_ssh_host *h, const char *dest, const char *config, int connect_timeout_s, eb_error *err);

typedef struct eb_ssh_spec {
    const char *const *argv; /* the program on the host (looked up on its PATH) and its arguments */
    const char *what;        /* what messages call the program ("iperf2") */
    const char *missing_fix; /* what to do when the host has no such program */
    const char *watch;       /* "tcp" or "udp": the start waits until port is bound (a server); NULL = no */
    unsigned port;
    const char *log_path;    /* the output appended here (and ssh's own lines, as "# ssh: ..."); NULL = none */
    const char *log_head;    /* written to the log first */
    void (*out)(void *ctx, const char *buf, size_t n); /* the program's output as it comes; NULL = none */
    void *ctx;
} eb_ssh_spec;

typedef struct eb_ssh_proc eb_ssh_proc;

/* Starts the program and waits (connect_s twice at most) until the host
 * reports it started (and a watched port bound, or the program ended). */
int eb_ssh_start(const eb_ssh_host *h, const eb_ssh_spec *s, eb_ssh_proc **out, eb_error *err);
/* Reads its output until d: 1 once the output ended, else 0. */
int eb_ssh_pump(eb_ssh_proc *p, eb_deadline d);
/* Reads to its end (up to d), then stops it if it still runs. */
void eb_ssh_wait(eb_ssh_proc *p, eb_deadline d);
/* Stops it: the host's program SIGINT then SIGKILL, the local ssh reaped. */
void eb_ssh_stop(eb_ssh_proc *p);
void eb_ssh_free(eb_ssh_proc *p);

/* What is known of it now. */
typedef struct eb_ssh_state {
    bool running;    /* the local ssh not reaped yet */
    bool bound;      /* a watched port was seen bound */
    bool exited;     /* the host reported the program's end: exit_status */
    bool early;      /* ... before espbench stopped it */
    bool lost;       /* ssh itself failed (exit 255) before the host reported an end */
    int exit_status; /* the program's, as a shell gives it (128+N: signal N) */
    long pid;        /* the program's on the host */
} eb_ssh_state;
void eb_ssh_state_of(const eb_ssh_proc *p, eb_ssh_state *st);

/* ssh's own failure as one line: "SSH host DEST refused the login (...):
 * what to do" + when; EB_ECONFIG where the fix is the user's, else EB_EIO. */
int eb_ssh_fault(const eb_ssh_proc *p, const char *when, eb_error *err);
/* ssh's own lines so far ("" = none), "; "-separated. */
const char *eb_ssh_said(const eb_ssh_proc *p);

#endif
