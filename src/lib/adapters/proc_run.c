/* Programs run to their end with a deadline (proc_run.h): ESP-IDF builds. */
#include "espbench/adapters/proc_run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Child side, between fork and exec: its own process group (killed as a whole),
 * dies with espbench, default signals, /dev/null in, the log out. */
static void child(const eb_proc_spec *s, char **envp, int log_fd, int ep, pid_t parent)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    int in = open("/dev/null", O_RDONLY);
    if (in < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(log_fd, STDOUT_FILENO) < 0 ||
        dup2(log_fd, STDERR_FILENO) < 0 || (s->cwd && chdir(s->cwd) != 0))
        goto fail;
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++)
        sigaction(sig, &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execvpe(s->argv[0], (char *const *)s->argv, envp);
fail:;
    int e = errno;
    (void)!write(ep, &e, sizeof e);
    _exit(127);
}

static int spawn(const eb_proc_spec *s, char **envp, int log_fd, pid_t *pid)
{
    int ep[2];
    if (pipe2(ep, O_CLOEXEC) != 0)
        return errno;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t parent = getpid();
    pid_t c = fork();
    if (c == 0)
        child(s, envp, log_fd, ep[1], parent);
    int fork_errno = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(ep[1]);
    if (c < 0) {
        close(ep[0]);
        return fork_errno;
    }
    setpgid(c, c);
    int e = 0;
    ssize_t n;
    do
        n = read(ep[0], &e, sizeof e);
    while (n < 0 && errno == EINTR);
    close(ep[0]);
    if (n == (ssize_t)sizeof e) {
        while (waitpid(c, NULL, 0) < 0 && errno == EINTR)
            ;
        return e ? e : EIO;
    }
    *pid = c;
    return 0;
}

extern char **environ;

/* Our environment with s->env on top, built before fork (no malloc in the child). */
static char **make_env(const char *const *extra)
{
    size_t n = 0, m = 0;
    while (environ[n])
        n++;
    while (extra && extra[m])
        m++;
    char **envp = calloc(n + m + 1, sizeof *envp);
    if (!envp)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(environ[i], '=');
        size_t nl = eq ? (size_t)(eq - environ[i]) + 1 : strlen(environ[i]);
        bool over = false;
        for (size_t j = 0; j < m && !over; j++)
            over = strncmp(extra[j], environ[i], nl) == 0;
        if (!over)
            envp[k++] = environ[i];
    }
    for (size_t j = 0; j < m; j++)
        envp[k++] = (char *)extra[j];
    return envp;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The group's leader gone, what it started may live on: kill all, reap ours. */
static void kill_group(pid_t pid)
{
    kill(-pid, SIGTERM);
    struct timespec ts = {0, 200 * 1000 * 1000};
    nanosleep(&ts, NULL);
    kill(-pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
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
    char **envp = make_env(s->env);
    if (!envp) {
        close(log_fd);
        return eb_fail(err, EB_EIO, "cannot run %s: out of memory", prog);
    }
    pid_t pid = -1;
    int e = spawn(s, envp, log_fd, &pid);
    free(envp);
    close(log_fd);
    if (e)
        return eb_fail(err, EB_EIO, "cannot run %s: %s", prog, strerror(e));
    double end = s->timeout_s > 0 ? now_s() + s->timeout_s : 0;
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
        if (end > 0 && now_s() > end) {
            kill_group(pid);
            return eb_fail(err, EB_EIO, "%s: no end after %d s; killed", prog, s->timeout_s);
        }
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
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
