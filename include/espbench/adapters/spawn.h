/* Child processes: the one fork + exec of espbench, used by the PC's iperf2,
 * the system ping, programs run to their end (ESP-IDF builds, git) and the
 * virtual board of `run --sim`.
 *
 * fork + exec rather than posix_spawn, for one thing posix_spawn cannot do:
 * PR_SET_PDEATHSIG. If espbench is killed outright (SIGKILL, the OOM killer, a
 * CI job's timeout), nothing of it runs to stop its children, and an iperf2
 * server or a virtual board would live on holding its port; the kernel now
 * signals the child the moment its parent dies. (The signal is tied to the
 * spawning thread: a child is spawned and reaped by the same thread.) The
 * child gets default signal dispositions, an empty signal mask and /dev/null
 * as stdin (unless in_fd), and by default its own process group (a terminal's Ctrl-C goes to
 * espbench only, which then stops the group on its way out). Only
 * async-signal-safe calls run between fork and exec; an exec failure comes
 * back as its errno through a close-on-exec pipe. */
#ifndef ESPBENCH_SPAWN_H
#define ESPBENCH_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

typedef struct eb_spawn_spec {
    const char *file;         /* the program, looked up on PATH; NULL = argv[0] */
    const char *const *argv;  /* NULL-terminated; argv[0] is the name the program sees */
    const char *const *env;   /* "NAME=VALUE" set in the child on top of ours; NULL = none */
    const char *cwd;          /* NULL = ours */
    int in_fd;                /* the child's stdin when > 0 (a pipe whose end tells it to stop); else /dev/null */
    int out_fd, err_fd;       /* the child's stdout and stderr */
    int death_signal;         /* sent to the child when espbench dies; 0 = SIGKILL */
    bool same_group;          /* stay in espbench's process group: a terminal's Ctrl-C reaches it */
} eb_spawn_spec;

/* Starts the child: 0 and *pid, or an errno value (ENOENT: not found on PATH;
 * ENOMEM; the exec's or the fork's own). The caller reaps it. */
int eb_spawn(const eb_spawn_spec *s, pid_t *pid);

/* waitpid(pid) through EINTR; *status (may be NULL) as waitpid gives it. */
void eb_spawn_reap(pid_t pid, int *status);

#endif
