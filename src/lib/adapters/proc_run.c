/* Programs run to their end with a deadline (proc_run.h): ESP-IDF builds. */
#include "espbench/adapters/proc_run.h"
#include "espbench/adapters/spawn.h"
#include "espbench/base/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The group's leader gone, what it started may live on: kill all, reap ours. */
static void kill_group(pid_t pid)
{
    kill(-pid, SIGTERM);
    eb_sleep_ms(200);
    kill(-pid, SIGKILL);
    eb_spawn_reap(pid, NULL);
}

int eb_proc_run(const eb_proc_spec *s, int *status, eb_error *err)
{
    int dummy;
    if (!status)
        status = &dummy;
    *status = -1;
    const char *prog = s->name ? s->name : s->argv[0];
    int log_fd = open(s->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0)
        return eb_fail(err, EB_EIO, "%s: cannot open the log: %s", s->log_path, strerror(errno));
    eb_spawn_spec sp = {.argv = s->argv, .env = s->env, .cwd = s->cwd, .out_fd = log_fd, .err_fd = log_fd};
    pid_t pid = -1;
    int e = eb_spawn(&sp, &pid);
    close(log_fd);
    if (e)
        return eb_fail(err, EB_EIO, "cannot run %s: %s", prog, strerror(e));
    eb_deadline end = s->timeout_s > 0 ? eb_deadline_in((uint64_t)s->timeout_s * 1000) : 0;
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) {
            *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            kill(-pid, SIGKILL); /* leftovers of the group */
            if (*status == 0)
                return 0;
            return eb_fail(err, EB_EIO, "%s exited with status %d", prog, *status);
        }
        if (r < 0 && errno != EINTR)
            return eb_fail(err, EB_EIO, "waiting for %s: %s", prog, strerror(errno));
        if (s->stop && *s->stop) {
            kill_group(pid);
            return eb_fail(err, EB_EINTR, "%s: interrupted", prog);
        }
        if (end && eb_deadline_passed(end)) {
            kill_group(pid);
            return eb_fail(err, EB_EIO, "%s: no end after %d s; killed", prog, s->timeout_s);
        }
        eb_sleep_ms(50);
    }
}

int eb_proc_output(const char *const *argv, const char *cwd, int timeout_s, char *out, size_t cap,
                   eb_error *err)
{
    /* Through a temporary file: eb_proc_run's log is the one child-output path. */
    char tmpl[] = "/tmp/espbench-out-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0)
        return eb_fail(err, EB_EIO, "cannot make a temporary file: %s", strerror(errno));
    close(fd);
    eb_proc_spec s = {.argv = argv, .cwd = cwd, .log_path = tmpl, .timeout_s = timeout_s};
    int rc = eb_proc_run(&s, NULL, err);
    out[0] = 0;
    FILE *f = fopen(tmpl, "r");
    if (f) {
        size_t n = fread(out, 1, cap - 1, f);
        out[n] = 0;
        while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r'))
            out[--n] = 0;
        fclose(f);
    }
    unlink(tmpl);
    return rc;
}
