/* UDP echo with the modelled link (vb_echo.h). Replies wait in a small queue
 * until due, so probes sent faster than the RTT overlap as on a real link. */
#include "vb_echo.h"
#include "vb_dialect.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ECHO_QUEUE 64
#define ECHO_MAX 512

typedef struct pending {
    uint64_t due_us;
    struct sockaddr_in to;
    size_t len;
    uint8_t data[ECHO_MAX];
} pending;

struct vb_echo {
    vb_board *b;
    uint16_t port;
    int fd;
    atomic_bool stop;
    pthread_t thread;
    unsigned rng;
    pending q[ECHO_QUEUE];
    int n;
};

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void take_one(vb_echo *e)
{
    pending p;
    socklen_t sl = sizeof p.to;
    ssize_t k = recvfrom(e->fd, p.data, sizeof p.data, 0, (struct sockaddr *)&p.to, &sl);
    if (k <= 0)
        return;
    /* Only the espbench firmware serves echo, and only once it has an address
     * (a board without a console is the unit tests' bare link). */
    if (e->b->console && vb_console_echo_port(e->b->console) != e->port)
        return;
    pthread_mutex_lock(&e->b->lock);
    double rtt = e->b->link.rtt_ms, loss = e->b->link.loss_pct;
    pthread_mutex_unlock(&e->b->lock);
    if (e->b->console) {
        /* Under iperf's traffic the echo queues behind it, and the station
         * does not doze: ESP-IDF's modem sleep enters its sleep process
         * only after no data for its minimum active time
         * (CONFIG_ESP_WIFI_SLP_DEFAULT_MIN_ACTIVE_TIME, 50 ms; the iperf
         * stream never leaves such a gap). Idle, modem sleep holds the
         * request until the station's wake beacon (vb_radio.c). */
        double queue = vb_console_load_queue_ms(e->b->console);
        rtt += queue >= 0 ? queue : vb_radio_echo_wait_ms(e->b->console);
    }
    if (loss > 0 && (double)(rand_r(&e->rng) % 10000) < loss * 100)
        return;
    if (e->n == ECHO_QUEUE)
        return; /* a full queue drops, as a busy lwIP would */
    p.len = (size_t)k;
    p.due_us = now_us() + (uint64_t)(rtt * 1000);
    e->q[e->n++] = p;
}

/* Sends what is due; returns the poll timeout until the next one (ms, -1 none). */
static int send_due(vb_echo *e)
{
    uint64_t t = now_us(), next = UINT64_MAX;
    for (int i = 0; i < e->n;) {
        if (e->q[i].due_us <= t) {
            (void)sendto(e->fd, e->q[i].data, e->q[i].len, 0, (struct sockaddr *)&e->q[i].to, sizeof e->q[i].to);
            e->q[i] = e->q[--e->n];
            continue;
        }
        next = e->q[i].due_us < next ? e->q[i].due_us : next;
        i++;
    }
    return next == UINT64_MAX ? -1 : (int)((next - t + 999) / 1000);
}

static void *echo_main(void *arg)
{
    vb_echo *e = arg;
    while (!e->stop) {
        int to = send_due(e);
        if (to < 0 || to > 100)
            to = 100; /* wake to notice stop */
        struct pollfd p = {e->fd, POLLIN, 0};
        if (poll(&p, 1, to) > 0)
            take_one(e);
    }
    return NULL;
}

int vb_echo_start(vb_echo **out, vb_board *b, uint16_t port, eb_error *err)
{
    *out = NULL;
    vb_echo *e = calloc(1, sizeof *e);
    if (!e)
        return eb_fail(err, EB_EIO, "echo: out of memory");
    e->b = b;
    e->port = port;
    e->rng = b->seed;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
    const char *ip = b->ip[0] ? b->ip : "127.0.0.2";
    e->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (e->fd < 0 || inet_pton(AF_INET, ip, &sa.sin_addr) != 1 ||
        bind(e->fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        int en = errno;
        if (e->fd >= 0)
            close(e->fd);
        free(e);
        return eb_fail(err, EB_EIO, "echo: cannot bind UDP %s:%u: %s", ip, port, strerror(en));
    }
    if (pthread_create(&e->thread, NULL, echo_main, e) != 0) {
        close(e->fd);
        free(e);
        return eb_fail(err, EB_EIO, "echo: cannot start its thread");
    }
    *out = e;
    return 0;
}

void vb_echo_stop(vb_echo *e)
{
    if (!e)
        return;
    e->stop = true;
    pthread_join(e->thread, NULL);
    close(e->fd);
    free(e);
}
