/* The PC's iperf2 as a child process, with the real iperf 2.1.8: version
 * check, a run that exits 0 without connecting judged a failure from its
 * output, a server and client pair measured, a server stopped and reaped,
 * and the /proc/net listening check. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "espbench/adapters/iperf_proc.h"

/* A port on 127.0.0.1 nothing listens on: bind one, read it, close it. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
static uint16_t unused_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    bind(s, (struct sockaddr *)&a, sizeof a);
    socklen_t l = sizeof a;
    getsockname(s, (struct sockaddr *)&a, &l);
    close(s);
    return ntohs(a.sin_port);
}

static void test_probe_finds_iperf2(void **state)
{
    (void)state;
    eb_iperf_version v;
    eb_error err = {0};
    assert_int_equal(eb_iperf_probe("iperf", &v, &err), 0);
    assert_int_equal(v.major, 2);
    assert_non_null(strstr(v.text, "iperf version 2."));
}

static void test_probe_missing_program(void **state)
{
    (void)state;
    eb_iperf_version v;
    eb_error err = {0};
    assert_int_equal(eb_iperf_probe("/nonexistent/iperf", &v, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "PC iperf: '/nonexistent/iperf' not found: install iperf2 (Debian/Ubuntu: "
                                 "apt install iperf; not iperf3) or set ESPBENCH_IPERF to its path");
}

static void test_refused_connect_is_a_failure_despite_exit_0(void **state)
{
    (void)state;
    char port[8];
    snprintf(port, sizeof port, "%u", unused_port());
    const char *args[] = {"iperf", "-c", "127.0.0.1", "-p", port, "-t", "1", "-i", "1", "-f", "b", NULL};
    eb_iperf_proc *p;
    eb_error err = {0};
    assert_int_equal(eb_iperf_spawn(&p, "iperf", args, NULL, &err), 0);
    eb_iperf_wait(p, eb_deadline_in(10000));
    assert_false(eb_iperf_proc_running(p));
    assert_int_equal(eb_iperf_proc_check(p, &err), EB_EIO);
    assert_non_null(strstr(err.msg, "PC iperf: "));
    assert_non_null(strstr(err.msg, "Connection refused"));
    eb_iperf_free(p);
}

static void test_server_and_client_measure_and_stop(void **state)
{
    (void)state;
    uint16_t port = unused_port();
    char ps[8];
    snprintf(ps, sizeof ps, "%u", port);
    char logp[] = "/tmp/eb-iperf-logXXXXXX";
    int fd = mkstemp(logp);
    close(fd);
    const char *srv[] = {"iperf", "-s", "-B", "127.0.0.1", "-p", ps, "-i", "0.5", "-y", "C", "-t", "20", NULL};
    eb_iperf_proc *s, *c;
    eb_error err = {0};
    assert_int_equal(eb_iperf_spawn(&s, "iperf", srv, logp, &err), 0);
    pid_t spid = eb_iperf_proc_pid(s);
    eb_deadline d = eb_deadline_in(3000);
    while (eb_net_port_bound("127.0.0.1", port, false) == 0 && !eb_deadline_passed(d))
        eb_iperf_pump(s, eb_deadline_in(20));
    assert_int_equal(eb_net_port_bound("127.0.0.1", port, false), 1);
    const char *cli[] = {"iperf", "-c", "127.0.0.1", "-p", ps, "-t", "1", "-i", "0.5", "-b", "20m", "-f", "b", NULL};
    assert_int_equal(eb_iperf_spawn(&c, "iperf", cli, NULL, &err), 0);
    eb_iperf_wait(c, eb_deadline_in(10000));
    assert_int_equal(eb_iperf_proc_check(c, &err), 0);
    assert_true(eb_iperf_proc_run(c)->n_intervals >= 2);
    eb_iperf_pump(s, eb_deadline_in(700));
    eb_iperf_stop(s);
    assert_false(eb_iperf_proc_running(s));
    assert_int_equal(eb_iperf_proc_check(s, &err), 0);
    eb_iperf_run *r = eb_iperf_proc_run(s);
    assert_true(r->csv);
    assert_true(r->n_intervals >= 2);
    assert_true(r->intervals[0].mbps > 0); /* what loopback carried is a measurement, not asserted */
    /* Reaped: the pid is gone. */
    assert_int_equal(kill(spid, 0), -1);
    eb_iperf_free(c);
    eb_iperf_free(s);
    /* The log starts with the command line. */
    FILE *f = fopen(logp, "r");
    char first[256] = "";
    assert_non_null(fgets(first, sizeof first, f));
    fclose(f);
    unlink(logp);
    char want[128];
    snprintf(want, sizeof want, "$ iperf -s -B 127.0.0.1 -p %s -i 0.5 -y C -t 20\n", ps);
    assert_string_equal(first, want);
}

static void test_kill_all_reaches_every_group(void **state)
{
    (void)state;
    uint16_t port = unused_port();
    char ps[8];
    snprintf(ps, sizeof ps, "%u", port);
    const char *srv[] = {"iperf", "-s", "-B", "127.0.0.1", "-p", ps, NULL};
    eb_iperf_proc *s;
    eb_error err = {0};
    assert_int_equal(eb_iperf_spawn(&s, "iperf", srv, NULL, &err), 0);
    pid_t pid = eb_iperf_proc_pid(s);
    assert_int_equal(getpgid(pid), pid); /* its own process group */
    eb_iperf_kill_all();
    eb_iperf_wait(s, eb_deadline_in(3000));
    assert_false(eb_iperf_proc_running(s));
    eb_iperf_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_probe_finds_iperf2),
        cmocka_unit_test(test_probe_missing_program),
        cmocka_unit_test(test_refused_connect_is_a_failure_despite_exit_0),
        cmocka_unit_test(test_server_and_client_measure_and_stop),
        cmocka_unit_test(test_kill_all_reaches_every_group),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
