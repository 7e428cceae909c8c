/* A child's output read to a deadline (adapters/child_io.c): a child that
 * says nothing does not hold the reader past its deadline, its output reaches the sink
 * per stream, a passed deadline still drains what is ready, and a stop
 * reaps it on every path. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "espbench/adapters/child_io.h"
#include "espbench/adapters/spawn.h"

typedef struct seen {
    char text[2][256];
    size_t n[2];
} seen;

static void sink(void *ctx, int which, const char *buf, size_t n)
{
    seen *s = ctx;
    size_t k = n < sizeof s->text[which] - 1 - s->n[which] ? n : sizeof s->text[which] - 1 - s->n[which];
    memcpy(s->text[which] + s->n[which], buf, k);
    s->n[which] += k;
}

/* sh -c SCRIPT as an eb_child whose output goes to s. */
static void start(eb_child *c, const char *script, seen *s)
{
    memset(c, 0, sizeof *c);
    memset(s, 0, sizeof *s);
    int po[2], pe[2];
    assert_int_equal(pipe(po), 0);
    assert_int_equal(pipe(pe), 0);
    const char *argv[] = {"sh", "-c", script, NULL};
    eb_spawn_spec sp = {.argv = argv, .out_fd = po[1], .err_fd = pe[1]};
    assert_int_equal(eb_spawn(&sp, &c->pid), 0);
    close(po[1]);
    close(pe[1]);
    c->out = (eb_child_out){{po[0], pe[0]}, sink, s};
}

static const eb_child_step STOP[] = {{SIGINT, 300, 200}, {SIGKILL, 300, 200}};

static void test_silent_child_returns_at_the_deadline(void **state)
{
    (void)state;
    eb_child c;
    seen s;
    start(&c, "exec sleep 30", &s);
    assert_int_equal(eb_child_pump(&c.out, eb_deadline_in(200)), 0); /* returns: the deadline, not the child */
    assert_int_equal(s.n[0] + s.n[1], 0);
    eb_child_stop(&c, STOP, 2);
    assert_true(c.reaped);
    assert_true(WIFSIGNALED(c.status));
    eb_child_close(&c);
}

static void test_streams_reach_the_sink_and_end(void **state)
{
    (void)state;
    eb_child c;
    seen s;
    start(&c, "echo out; echo err >&2; exit 3", &s);
    assert_true(eb_child_wait(&c, eb_deadline_in(20000)));
    assert_string_equal(s.text[0], "out\n");
    assert_string_equal(s.text[1], "err\n");
    assert_true(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 3);
    assert_int_equal(c.out.fd[0], -1);
    assert_int_equal(eb_child_pump(&c.out, eb_deadline_in(0)), 1); /* ended stays ended */
    eb_child_close(&c);
}

static void test_passed_deadline_still_drains(void **state)
{
    (void)state;
    eb_child c;
    seen s;
    start(&c, "echo ready; exec sleep 30", &s);
    eb_deadline d = eb_deadline_in(20000);
    while (!s.n[0] && !eb_deadline_passed(d)) { /* each call reads what is there and waits for nothing */
        assert_int_equal(eb_child_pump(&c.out, eb_deadline_in(0)), 0);
        eb_sleep_ms(10);
    }
    assert_string_equal(s.text[0], "ready\n");
    eb_child_stop(&c, STOP, 2);
    assert_true(c.reaped);
    eb_child_close(&c);
}

static void test_never_started_is_reaped_without_a_signal(void **state)
{
    (void)state;
    eb_child c = {.pid = 0, .out = {{-1, -1}, sink, NULL}};
    eb_child_stop(&c, STOP, 2); /* kill(-0) would signal this test's own group */
    assert_true(c.reaped);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_silent_child_returns_at_the_deadline),
        cmocka_unit_test(test_streams_reach_the_sink_and_end),
        cmocka_unit_test(test_passed_deadline_still_drains),
        cmocka_unit_test(test_never_started_is_reaped_without_a_signal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
