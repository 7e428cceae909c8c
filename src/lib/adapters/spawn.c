/* The one fork + exec of espbench (spawn.h). */
#include "espbench/adapters/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Our environment with extra on top, built before fork (no malloc in the child). */
static char **make_env(const char *const *extra)
{
    size_t n = 0, m = 0;
    while (environ[n])
        n++;
    while (extra[m])
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

/* Between fork and exec: async-signal-safe calls only. */
static void child(const eb_spawn_spec *s, char **envp, int ep, pid_t parent)
{
    if (!s->same_group)
        setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, s->death_signal ? s->death_signal : SIGKILL);
    if (getppid() != parent) /* the parent died before prctl */
        _exit(127);
    int in = s->in_fd > 0 ? s->in_fd : open("/dev/null", O_RDONLY);
    if (in < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(s->out_fd, STDOUT_FILENO) < 0 ||
        dup2(s->err_fd, STDERR_FILENO) < 0 || (s->cwd && chdir(s->cwd) != 0))
        goto fail;
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++)
        sigaction(sig, &dfl, NULL); /* SIGKILL, SIGSTOP and glibc's own fail harmlessly */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execvpe(s->file ? s->file : s->argv[0], (char *const *)s->argv, envp);
fail:;
    int e = errno;
    (void)!write(ep, &e, sizeof e);
    _exit(127);
}

int eb_spawn(const eb_spawn_spec *s, pid_t *pid)
{
    char **envp = s->env ? make_env(s->env) : environ;
    if (!envp)
        return ENOMEM;
    int ep[2];
    if (pipe2(ep, O_CLOEXEC) != 0) {
        int e = errno;
        if (envp != environ)
            free(envp);
        return e;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* no espbench handler may run in the child */
    pid_t parent = getpid();
    pid_t c = fork();
    if (c == 0)
        child(s, envp, ep[1], parent);
    int fork_errno = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(ep[1]);
    if (envp != environ)
        free(envp);
    if (c < 0) {
        close(ep[0]);
        return fork_errno;
    }
    if (!s->same_group)
        setpgid(c, c); /* also from this side, so a kill(-pid) right after cannot miss */
    int e = 0;
    ssize_t n;
    do
        n = read(ep[0], &e, sizeof e);
    while (n < 0 && errno == EINTR);
    close(ep[0]);
    if (n == (ssize_t)sizeof e) {
        eb_spawn_reap(c, NULL);
        return e ? e : ECHILD;
    }
    *pid = c;
    return 0;
}

void eb_spawn_reap(pid_t pid, int *status)
{
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (status)
        *status = st;
}
