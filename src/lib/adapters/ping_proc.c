/* System ping as a child process (ping_proc.h). */
#include "espbench/adapters/ping_proc.h"
#include "espbench/adapters/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PING_OUT_MAX (256 * 1024)

const char *eb_ping_program(void)
{
    const char *p = getenv("ESPBENCH_PING");
    return p && *p ? p : "ping";
}

static int host_ok(const char *h)
{
    if (!h || !*h || h[0] == '-' || strlen(h) > 253)
        return 0;
    for (const char *c = h; *c; c++)
        if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '.' ||
              *c == '-' || *c == ':'))
            return 0;
    return 1;
}

/* In espbench's process group, as a program started from the shell would be: a terminal's
 * Ctrl-C makes ping print the summary of what it sent; it dies with espbench (spawn.h). */
static int spawn_ping(pid_t *pid, int *rd, const char *const *args, eb_error *err)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return eb_fail(err, EB_EIO, "ping: pipe: %s", strerror(errno));
    eb_spawn_spec sp = {.argv = args, .out_fd = fds[1], .err_fd = fds[1], .same_group = true};
    int rc = eb_spawn(&sp, pid);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        return eb_fail(err, EB_EIO, "cannot run '%s': %s; install iputils-ping or set ESPBENCH_PING", args[0],
                       strerror(rc));
    }
    *rd = fds[0];
    return 0;
}

/* Reads until EOF or the deadline; returns the bytes read (the buffer is capped). */
static size_t pump(int fd, char *buf, size_t cap, eb_deadline d)
{
    size_t n = 0;
    for (;;) {
        int left = eb_deadline_left_ms(d);
        if (left <= 0)
            break;
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        char tmp[4096];
        ssize_t k = read(fd, tmp, sizeof tmp);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        size_t take = (size_t)k < cap - n ? (size_t)k : cap - n;
        memcpy(buf + n, tmp, take);
        n += take;
    }
    return n;
}

static void append_log(const char *path, const char *cmd, const char *buf, size_t n)
{
    FILE *f = path ? fopen(path, "a") : NULL;
    if (!f)
        return;
    fprintf(f, "# %s\n", cmd);
    fwrite(buf, 1, n, f);
    fclose(f);
}

int eb_ping_run(const char *host, int count, double interval_s, eb_deadline d, const char *log_path,
                eb_ping_result *out, eb_error *err)
{
    if (!host_ok(host))
        return eb_fail(err, EB_ECONFIG, "latency: '%s' is not a host name or IP address", host ? host : "");
    if (count < 1 || count > EB_PING_MAX_REPLIES || !(interval_s >= 0.2 && interval_s <= 60))
        return eb_fail(err, EB_ECONFIG, "latency: count %d / interval %g s out of range (1..%d, 0.2..60 s)",
                       count, interval_s, EB_PING_MAX_REPLIES);
    char c[16], i[32];
    snprintf(c, sizeof c, "%d", count);
    snprintf(i, sizeof i, "%.3f", interval_s);
    const char *args[] = {eb_ping_program(), "-n", "-c", c, "-i", i, "-W", "1", host, NULL};
    pid_t pid = 0;
    int fd = -1;
    int src = spawn_ping(&pid, &fd, args, err);
    if (src)
        return src;
    char *buf = malloc(PING_OUT_MAX);
    size_t n = buf ? pump(fd, buf, PING_OUT_MAX, d) : 0;
    /* Still running at the deadline: SIGINT makes iputils print the summary
     * of what it sent so far; a second's grace to read it, then SIGKILL. */
    if (waitpid(pid, NULL, WNOHANG) == 0) {
        kill(pid, SIGINT);
        if (buf)
            n += pump(fd, buf + n, PING_OUT_MAX - n, eb_deadline_in(1000));
        if (waitpid(pid, NULL, WNOHANG) == 0) {
            kill(pid, SIGKILL);
            eb_spawn_reap(pid, NULL);
        }
    }
    close(fd);
    if (!buf)
        return eb_fail(err, EB_EIO, "latency: out of memory");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s -n -c %s -i %s -W 1 %s", args[0], c, i, host);
    append_log(log_path, cmd, buf, n);
    int rc = eb_ping_parse(buf, n, out, err);
    free(buf);
    if (rc)
        eb_error_prefix(err, "%s: ", cmd);
    return rc;
}
