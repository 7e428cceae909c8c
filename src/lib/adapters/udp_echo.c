/* UDP echo client for the latency test (udp_echo.h). */
#include "espbench/adapters/udp_echo.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROBE_MAGIC 0x45424543u /* "EBEC": replies without it are someone else's */

typedef struct probe {
    uint32_t magic, seq;
} probe;

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Takes the replies waiting on s until t_end_us; sent_us[seq] is the send
 * time, 0 once answered (a second answer is a duplicate). */
static void collect(int s, uint64_t t_end_us, uint64_t *sent_us, int count, eb_ping_result *out)
{
    for (;;) {
        uint64_t t = now_us();
        if (t >= t_end_us)
            return;
        struct pollfd p = {s, POLLIN, 0};
        int ms = (int)((t_end_us - t + 999) / 1000);
        int r = poll(&p, 1, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return;
        probe pr;
        ssize_t k = recv(s, &pr, sizeof pr, 0);
        if (k != (ssize_t)sizeof pr || pr.magic != PROBE_MAGIC || pr.seq >= (uint32_t)count)
            continue;
        if (sent_us[pr.seq] == 0) {
            out->duplicates++;
            continue;
        }
        out->rtt_ms[out->n_rtt++] = (double)(now_us() - sent_us[pr.seq]) / 1000.0;
        out->received++;
        sent_us[pr.seq] = 0;
    }
}

int eb_udp_echo_run(const char *ip, uint16_t port, int count, double interval_s, eb_deadline d,
                    eb_ping_result *out, eb_error *err)
{
    memset(out, 0, sizeof *out);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
    if (!ip || inet_pton(AF_INET, ip, &sa.sin_addr) != 1)
        return eb_fail(err, EB_ECONFIG, "latency: '%s' is not an IPv4 address", ip ? ip : "");
    if (count < 1 || count > EB_PING_MAX_REPLIES || !(interval_s >= 0.001 && interval_s <= 60))
        return eb_fail(err, EB_ECONFIG, "latency: count %d / interval %g s out of range (1..%d, 0.001..60 s)",
                       count, interval_s, EB_PING_MAX_REPLIES);
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof sa) != 0) {
        int e = errno;
        if (s >= 0)
            close(s);
        return eb_fail(err, EB_EIO, "latency: UDP echo to %s:%u: %s", ip, port, strerror(e));
    }
    uint64_t *sent_us = calloc((size_t)count, sizeof *sent_us);
    if (!sent_us) {
        close(s);
        return eb_fail(err, EB_EIO, "latency: out of memory");
    }
    uint64_t step = (uint64_t)(interval_s * 1e6), t0 = now_us();
    uint64_t cut = d ? t0 + (uint64_t)(eb_deadline_left_ms(d) > 0 ? eb_deadline_left_ms(d) : 0) * 1000u : UINT64_MAX;
    for (int i = 0; i < count && now_us() < cut; i++) {
        probe pr = {PROBE_MAGIC, (uint32_t)i};
        sent_us[i] = now_us();
        out->transmitted++;
        /* ECONNREFUSED (nobody listens) is a lost probe, as for ping. */
        (void)send(s, &pr, sizeof pr, 0);
        uint64_t next = i + 1 < count ? t0 + (uint64_t)(i + 1) * step : now_us() + EB_UDP_ECHO_WAIT_MS * 1000u;
        collect(s, next < cut ? next : cut, sent_us, count, out);
    }
    close(s);
    free(sent_us);
    eb_ping_summarize(out);
    return 0;
}
