/* A child process's two output pipes read to a deadline (child_io.h). */
#include "espbench/adapters/child_io.h"
#include "espbench/adapters/spawn.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static bool ended(const eb_child_out *c) { return c->fd[0] < 0 && c->fd[1] < 0; }

int eb_child_pump(eb_child_out *c, eb_deadline d)
{
    for (;;) {
        if (ended(c))
            return 1;
        struct pollfd pf[2] = {{c->fd[0], POLLIN, 0}, {c->fd[1], POLLIN, 0}};
        int r = poll(pf, 2, eb_deadline_left_ms(d));
        if (r < 0 && errno != EINTR)
            return 1;
        for (int i = 0; i < 2 && r > 0; i++) {
            if (c->fd[i] < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char buf[4096];
            ssize_t n = read(c->fd[i], buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                close(c->fd[i]);
                c->fd[i] = -1;
            } else {
                c->sink(c->ctx, i, buf, (size_t)n);
            }
        }
        /* The caller looks at progress between calls (short deadlines). */
        if (eb_deadline_passed(d))
            return ended(c);
    }
}

void eb_child_out_close(eb_child_out *c)
{
    for (int i = 0; i < 2; i++)
        if (c->fd[i] >= 0) {
            close(c->fd[i]);
            c->fd[i] = -1;
        }
}

int eb_child_read(eb_child *c, eb_deadline d)
{
    int r = eb_child_pump(&c->out, d);
    if (c->log)
        fflush(c->log);
    return r;
}

void eb_child_close(eb_child *c)
{
    eb_child_out_close(&c->out);
    if (c->log) {
        fclose(c->log);
        c->log = NULL;
    }
}

bool eb_child_reap(eb_child *c, int wait_ms)
{
    if (c->reaped || c->pid <= 0) /* never started: nothing to reap or signal */
        return c->reaped = true;
    eb_deadline d = eb_deadline_in((uint64_t)(wait_ms > 0 ? wait_ms : 0));
    for (;;) {
        pid_t r = waitpid(c->pid, &c->status, WNOHANG);
        if (r == c->pid || (r < 0 && errno == ECHILD)) {
            kill(-c->pid, SIGKILL); /* anything it left in its group */
            return c->reaped = true;
        }
        if (eb_deadline_passed(d))
            return false;
        eb_sleep_ms(10);
    }
}

bool eb_child_wait(eb_child *c, eb_deadline d)
{
    return eb_child_read(c, d) == 1 && eb_child_reap(c, 2000);
}

void eb_child_stop(eb_child *c, const eb_child_step *steps, size_t n)
{
    if (c->pid <= 0) /* never started: kill(-0) would be our own group */
        c->reaped = true;
    for (size_t i = 0; i < n && !c->reaped; i++) {
        if (steps[i].sig)
            kill(-c->pid, steps[i].sig);
        eb_child_read(c, eb_deadline_in((uint64_t)steps[i].read_ms));
        eb_child_reap(c, steps[i].reap_ms);
    }
    if (!c->reaped) {
        eb_spawn_reap(c->pid, &c->status);
        c->reaped = true;
    }
}
