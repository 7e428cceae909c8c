/* UDP echo: the vboard's side (vb_echo.c) answers after the link's modelled
 * RTT and drops with its loss; the PC side (udp_echo.c) times the probes. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "espbench/adapters/udp_echo.h"
#include "vb_echo.h"

#define IP "127.0.0.23"

static vb_board board;
static uint16_t port_;
#define PORT echo_port()

/* A UDP port the kernel picks on IP (bound to 0, then released): parallel runs of the
 * suite never share one. */
static uint16_t kernel_port(void)
{
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(s >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    inet_pton(AF_INET, IP, &a.sin_addr);
    assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t n = sizeof a;
    assert_int_equal(getsockname(s, (struct sockaddr *)&a, &n), 0);
    close(s);
    return ntohs(a.sin_port);
}

static uint16_t echo_port(void)
{
    if (!port_)
        port_ = kernel_port();
    return port_;
}

static void set_link(double rtt_ms, double loss_pct)
{
    pthread_mutex_lock(&board.lock);
    board.link.rtt_ms = rtt_ms;
    board.link.loss_pct = loss_pct;
    pthread_mutex_unlock(&board.lock);
}

static void test_modelled_rtt_and_loss(void **state)
{
    (void)state;
    memset(&board, 0, sizeof board);
    snprintf(board.ip, sizeof board.ip, "%s", IP);
    board.seed = 1;
    pthread_mutex_init(&board.lock, NULL);
    vb_echo *e;
    eb_error err = {0};
    assert_int_equal(vb_echo_start(&e, &board, PORT, &err), 0);

    static eb_ping_result r;
    set_link(30, 0);
    assert_int_equal(eb_udp_echo_run(IP, PORT, 4, 0.01, eb_deadline_in(5000), &r, &err), 0);
    assert_int_equal(r.transmitted, 4);
    assert_int_equal(r.received, 4);
    assert_true(r.loss_pct == 0);
    /* probes 10 ms apart each come back 30 ms later (they overlap in flight): the modelled
     * RTT is the least a reply takes; what a busy machine adds is not asserted */
    assert_true(r.min_ms >= 30 && r.max_ms >= r.min_ms);
    assert_true(r.p99_ms == r.max_ms);

    set_link(0, 100);
    assert_int_equal(eb_udp_echo_run(IP, PORT, 3, 0.01, eb_deadline_in(5000), &r, &err), 0);
    assert_int_equal(r.received, 0);
    assert_true(r.loss_pct == 100 && isnan(r.avg_ms));
    vb_echo_stop(e);

    /* nobody listens: every probe is lost, no error */
    assert_int_equal(eb_udp_echo_run(IP, PORT, 2, 0.01, eb_deadline_in(5000), &r, &err), 0);
    assert_true(r.loss_pct == 100);
    pthread_mutex_destroy(&board.lock);
}

static void test_bad_input(void **state)
{
    (void)state;
    static eb_ping_result r;
    eb_error err = {0};
    assert_int_equal(eb_udp_echo_run("board.local", PORT, 2, 0.1, 0, &r, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "latency: 'board.local' is not an IPv4 address");
    assert_int_equal(eb_udp_echo_run(IP, PORT, 0, 0.1, 0, &r, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "latency: count 0 / interval 0.1 s out of range (1..4096, 0.001..60 s)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_modelled_rtt_and_loss),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
