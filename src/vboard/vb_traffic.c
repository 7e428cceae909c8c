/* The virtual board's iperf engine: one thread per test moving real bytes over
 * loopback sockets bound to the board's 127.X.Y.Z address, paced by the
 * throughput model (vb_traffic_shape.c) and speaking iperf2 2.1.8's wire
 * formats (vb_traffic_wire.c). Wire behaviour and shaping: docs/vboard-traffic.md. */
#include "vb_traffic.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "espbench/base/clock.h"
#include "vb_traffic_shape.h"
#include "vb_traffic_wire.h"

enum {
    TCP_LEN_DEFAULT = 16384, /* the firmware's TCP TX/RX buffer */
    UDP_LEN_DEFAULT = 1470,  /* the firmware's UDP TX length (IPv4) */
    TCP_LEN_MAX = 1 << 20,
    UDP_LEN_MIN = VB_IPERF2_UDP_HDR_LEN + 4, /* id header + the first datagram's flags word */
    UDP_LEN_MAX = 65507,
    UDP_RX_BUF = 65536,
    BOARD_TCP_MSS = 1440,     /* lwIP's TCP_MSS: board-sized segments, not loopback's 64 KiB */
    TCP_MIN_QUANTUM = 1460,   /* smallest read/write the pacer bothers with */
    TCP_RCVBUF_MIN = 16384,
    TCP_RCVBUF_MAX = 262144,
    UDP_RCVBUF = 4 << 20,     /* the kernel caps it at rmem_max; arrival times do the shaping */
    UDP_ACK_SILENCE_MS = 250, /* iperf2's server: resend the report while FINs keep coming */
    UDP_ACK_RESENDS = 9,
};

#define PACE_QUANTUM_S 0.002  /* move about this much time's worth of bytes per wake-up */
/* How much capacity may be banked. A thread woken late on a busy machine
 * catches up this much; the total never exceeds the model's integral. */
#define SEND_BURST_S 0.3      /* a late sender */
#define TCP_RX_BURST_S 0.3    /* a late reader with data waiting (idle capacity is not banked) */
#define UDP_RX_BURST_S 0.2    /* a UDP receiver, by arrival time: absorbs the PC sender's own
                                 pauses, which iperf2 makes up with a burst */
#define TCP_RCVBUF_S 0.01     /* receive buffer ~ 10 ms at the model rate: TCP backpressure */
#define TCP_RX_IDLE_S 0.02    /* an empty receive buffer for this long is a pause in traffic */

struct vb_iperf {
    vb_iperf_cfg cfg;
    vb_iperf_report_fn fn;
    void *user;
    pthread_t thread;
    bool joined;
    int wake_fd;
    atomic_bool stop;
    atomic_bool running;
    _Atomic uint64_t total;
};

/* One test's accounting: intervals, totals, the shaper. */
typedef struct run {
    vb_iperf *ip;
    const vb_iperf_cfg *cfg;
    int len;
    double interval_s;
    uint64_t t0_us;          /* traffic start (monotonic) */
    long k;                  /* interval being accumulated */
    uint64_t bytes_k, bytes_total;
    double full_sum, part_sum; /* interval rates (Mbit/s), full and partial intervals */
    long full_n, part_n;
    /* UDP receiver */
    int64_t highest, highest_at_k;
    long recv_k, recv_total;
    vb_shaper sh;
    char end_text[160];      /* why traffic ended early, for the SUMMARY */
} run;

/* ------------------------------------------------------------------ reports */

static void emit(vb_iperf *ip, vb_iperf_report *r)
{
    /* After abort no report is delivered: the caller knows it stopped the test. */
    if (!atomic_load(&ip->stop))
        ip->fn(ip->user, r);
}

static void emit_peer(vb_iperf *ip, vb_iperf_report *r, const struct sockaddr_in *peer)
{
    if (peer) {
        inet_ntop(AF_INET, &peer->sin_addr, r->peer_ip, sizeof r->peer_ip);
        r->peer_port = ntohs(peer->sin_port);
    }
    emit(ip, r);
}

static void emit_simple(vb_iperf *ip, enum vb_iperf_event ev, const struct sockaddr_in *peer)
{
    vb_iperf_report r = {.event = ev};
    emit_peer(ip, &r, peer);
}
/* The run is connected: its time 0 goes with it, so the console's clock for an abort's last
 * interval is the engine's, not the moment this thread got to report (a busy machine). */
static void emit_connected(const run *r, const struct sockaddr_in *peer)
{
    vb_iperf_report rep = {.event = VB_IPERF_CONNECTED, .t0_us = r->t0_us};
    emit_peer(r->ip, &rep, peer);
}

static void emit_error(vb_iperf *ip, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit_error(vb_iperf *ip, const char *fmt, ...)
{
    vb_iperf_report r = {.event = VB_IPERF_ERROR};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r.text, sizeof r.text, fmt, ap);
    va_end(ap);
    emit(ip, &r);
}

static void run_init(run *r, vb_iperf *ip, int len)
{
    *r = (run){.ip = ip, .cfg = &ip->cfg, .len = len, .interval_s = vb_shape_interval_s(&ip->cfg)};
}

static double rel_s(const run *r, uint64_t mono_us)
{
    return mono_us > r->t0_us ? (double)(mono_us - r->t0_us) / 1e6 : 0.0;
}

static double now_rel(const run *r) { return rel_s(r, eb_now_us()); }

static void count(run *r, size_t n)
{
    r->bytes_k += n;
    r->bytes_total += n;
    atomic_fetch_add(&r->ip->total, (uint64_t)n);
}

static void emit_interval(run *r, double start, double end)
{
    vb_iperf_report rep = {.event = VB_IPERF_INTERVAL, .start_s = start, .end_s = end, .bytes = r->bytes_k};
    if (r->cfg->server && r->cfg->udp) {
        rep.udp_total = (long)(r->highest - r->highest_at_k);
        rep.udp_lost = rep.udp_total > r->recv_k ? rep.udp_total - r->recv_k : 0;
        r->highest_at_k = r->highest;
        r->recv_k = 0;
    }
    double dur = end - start;
    double mbps = dur > 0 ? (double)r->bytes_k * 8.0 / dur / 1e6 : 0;
    if (dur >= r->interval_s * (1 - 1e-9)) {
        r->full_sum += mbps;
        r->full_n++;
    } else {
        r->part_sum += mbps;
        r->part_n++;
    }
    r->bytes_k = 0;
    emit(r->ip, &rep);
}

/* Emits every interval that ended at or before t; under the stall fault none
 * past its start, however late this thread got to run (a busy machine). */
static void reports_until(run *r, double t)
{
    if (r->cfg->stall && t > r->cfg->zero_from_s)
        t = r->cfg->zero_from_s;
    while (t >= (double)(r->k + 1) * r->interval_s) {
        emit_interval(r, (double)r->k * r->interval_s, (double)(r->k + 1) * r->interval_s);
        r->k++;
    }
}

/* Remaining full intervals, the last partial one (so intervals sum to the
 * total), then the whole-test line. */
static void finish_reports(run *r, double t_end)
{
    reports_until(r, t_end);
    double start = (double)r->k * r->interval_s;
    bool udp_rx = r->cfg->server && r->cfg->udp;
    if (t_end - start > 1e-3 || r->bytes_k > 0 || (udp_rx && r->highest != r->highest_at_k))
        emit_interval(r, start, t_end > start ? t_end : start);
    vb_iperf_report s = {.event = VB_IPERF_SUMMARY, .start_s = 0, .end_s = t_end, .bytes = r->bytes_total};
    s.mean_of_intervals_mbps = r->full_n ? r->full_sum / (double)r->full_n
                               : r->part_n ? r->part_sum / (double)r->part_n : 0;
    if (udp_rx) {
        s.udp_total = (long)r->highest;
        s.udp_lost = s.udp_total > r->recv_total ? s.udp_total - r->recv_total : 0;
    }
    snprintf(s.text, sizeof s.text, "%s", r->end_text);
    emit(r->ip, &s);
}

/* ------------------------------------------------------------------ waiting */

/* Waits for fd (if >= 0) or the abort eventfd. 1 = fd ready, 0 = timeout, -1 = aborted. */
static int wait_io(vb_iperf *ip, int fd, short events, double timeout_s)
{
    if (atomic_load(&ip->stop))
        return -1;
    if (!(timeout_s > 0))
        timeout_s = 0;
    if (timeout_s > 3600)
        timeout_s = 3600;
    struct pollfd p[2] = {{.fd = ip->wake_fd, .events = POLLIN}, {.fd = fd, .events = events}};
    double whole = floor(timeout_s);
    struct timespec ts = {.tv_sec = (time_t)whole, .tv_nsec = (long)((timeout_s - whole) * 1e9)};
    int rc = ppoll(p, fd >= 0 ? 2 : 1, &ts, NULL);
    if (atomic_load(&ip->stop) || (rc > 0 && p[0].revents))
        return -1;
    if (rc > 0 && fd >= 0 && p[1].revents)
        return 1;
    return 0;
}

/* The stall fault: nothing moves and nothing is reported until abort. */
static void stall_until_abort(vb_iperf *ip)
{
    while (wait_io(ip, -1, 0, 1.0) >= 0) {
    }
}

static bool stalled(const run *r, double t) { return r->cfg->stall && t >= r->cfg->zero_from_s; }

static double min2(double a, double b) { return a < b ? a : b; }

/* Seconds the loop may sleep: up to the next interval boundary and the end of the test. */
static double sleep_limit(const run *r, double t)
{
    double lim = (double)(r->k + 1) * r->interval_s - t;
    if (r->cfg->time_s > 0)
        lim = min2(lim, r->cfg->time_s - t);
    return lim > 0 ? lim : 0;
}

static double timeout_s(const vb_iperf_cfg *cfg)
{
    return (cfg->accept_timeout_ms > 0 ? cfg->accept_timeout_ms : VB_IPERF_ACCEPT_TIMEOUT_MS) / 1000.0;
}

/* Bytes per read/write at this rate: ~2 ms worth, at least a segment, at most -l. */
static double quantum(const run *r, double rate_bps)
{
    double q = rate_bps / 8.0 * PACE_QUANTUM_S;
    if (q < TCP_MIN_QUANTUM)
        q = TCP_MIN_QUANTUM;
    if (q > r->len)
        q = r->len;
    return q;
}

/* ------------------------------------------------------------------ sockets */

static void loopback_addr(const char *ip, uint16_t port, struct sockaddr_in *out)
{
    memset(out, 0, sizeof *out);
    out->sin_family = AF_INET;
    out->sin_port = htons(port);
    if (!ip[0] || inet_pton(AF_INET, ip, &out->sin_addr) != 1)
        out->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

static bool is_loopback(const struct sockaddr_in *a) { return (ntohl(a->sin_addr.s_addr) >> 24) == 127; }

static void set_int_opt(int fd, int level, int name, int v) { (void)setsockopt(fd, level, name, &v, sizeof v); }

/* A socket bound to the board's address (port 0 for clients). -1 after reporting the error. */
static int board_socket(vb_iperf *ip, int type, uint16_t port, int rcvbuf)
{
    int s = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s < 0) {
        emit_error(ip, "Unable to create socket: errno %d", errno);
        return -1;
    }
    if (type == SOCK_STREAM) /* restarts despite TIME_WAIT; never for UDP, where it would let two boards share a port */
        set_int_opt(s, SOL_SOCKET, SO_REUSEADDR, 1);
    if (rcvbuf > 0)
        set_int_opt(s, SOL_SOCKET, SO_RCVBUF, rcvbuf); /* before listen: accepted sockets inherit it */
    if (type == SOCK_STREAM)
        set_int_opt(s, IPPROTO_TCP, TCP_MAXSEG, BOARD_TCP_MSS);
    struct sockaddr_in a;
    loopback_addr(ip->cfg.local_ip, port, &a);
    if (bind(s, (struct sockaddr *)&a, sizeof a) < 0) {
        emit_error(ip, "Socket unable to bind: errno %d", errno);
        close(s);
        return -1;
    }
    return s;
}

/* Connects a client socket to -c host:port within the timeout. */
static bool board_connect(vb_iperf *ip, int s, struct sockaddr_in *peer)
{
    loopback_addr(ip->cfg.remote_ip, ip->cfg.port, peer);
    inet_pton(AF_INET, ip->cfg.remote_ip, &peer->sin_addr);
    if (!is_loopback(peer)) {
        /* The board's network is loopback only: other hosts are unreachable. */
        emit_error(ip, "Socket unable to connect: errno %d", EHOSTUNREACH);
        return false;
    }
    if (connect(s, (struct sockaddr *)peer, sizeof *peer) == 0)
        return true;
    if (errno != EINPROGRESS) {
        emit_error(ip, "Socket unable to connect: errno %d", errno);
        return false;
    }
    int w = wait_io(ip, s, POLLOUT, timeout_s(&ip->cfg));
    if (w < 0)
        return false;
    int soerr = ETIMEDOUT;
    socklen_t sl = sizeof soerr;
    if (w == 1)
        getsockopt(s, SOL_SOCKET, SO_ERROR, &soerr, &sl);
    if (soerr != 0) {
        emit_error(ip, "Socket unable to connect: errno %d", soerr);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------ TCP */

static void tcp_client(vb_iperf *ip)
{
    run r;
    run_init(&r, ip, ip->cfg.len > 0 ? (ip->cfg.len < TCP_LEN_MAX ? ip->cfg.len : TCP_LEN_MAX) : TCP_LEN_DEFAULT);
    int s = board_socket(ip, SOCK_STREAM, 0, 0);
    if (s < 0)
        return;
    struct sockaddr_in peer;
    emit_simple(ip, VB_IPERF_SOCKET_CREATED, NULL);
    if (!board_connect(ip, s, &peer)) {
        close(s);
        return;
    }
    /* Zero-filled like the firmware's buffers: flags word 0 = a plain test to iperf2. */
    uint8_t *buf = calloc(1, (size_t)r.len);
    if (!buf) {
        emit_error(ip, "iperf: out of memory");
        close(s);
        return;
    }
    r.t0_us = eb_now_us();
    emit_connected(&r, &peer);
    vb_shaper_init(&r.sh, &ip->cfg, SEND_BURST_S, r.len, quantum(&r, vb_shape_rate_bps(&ip->cfg, 0)));
    const double T = ip->cfg.time_s;
    double end = 0;
    for (;;) {
        double t = now_rel(&r);
        if (T > 0 && t >= T) {
            /* Top up to exactly T and send what the model still allows. */
            vb_shaper_advance(&r.sh, T);
            while (r.sh.tokens >= 1) {
                size_t want = (size_t)min2(r.sh.tokens, r.len);
                ssize_t n = send(s, buf, want, MSG_NOSIGNAL | MSG_DONTWAIT);
                if (n <= 0)
                    break;
                count(&r, (size_t)n);
                vb_shaper_take(&r.sh, (double)n);
            }
            end = T;
            break;
        }
        reports_until(&r, t);
        if (stalled(&r, t)) {
            stall_until_abort(ip);
            goto out;
        }
        vb_shaper_advance(&r.sh, t);
        double q = quantum(&r, vb_shaper_rate_bps(&r.sh, r.sh.k));
        if (r.sh.tokens >= q) {
            size_t want = (size_t)min2(r.sh.tokens, r.len);
            ssize_t n = send(s, buf, want, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n > 0) {
                count(&r, (size_t)n);
                vb_shaper_take(&r.sh, (double)n);
                continue;
            }
            if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
                if (wait_io(ip, s, POLLOUT, sleep_limit(&r, t)) < 0)
                    goto out;
                continue;
            }
            snprintf(r.end_text, sizeof r.end_text, "tcp client send error: errno %d", n < 0 ? errno : EPIPE);
            end = t;
            break;
        }
        double w = min2(vb_shaper_wait_s(&r.sh, q), sleep_limit(&r, t));
        if (wait_io(ip, -1, 0, w) < 0)
            goto out;
    }
    /* iperf2 sends nothing back for a headerless test; drain anyway so close() sends FIN, not RST. */
    while (recv(s, buf, (size_t)r.len, MSG_DONTWAIT) > 0) {
    }
    shutdown(s, SHUT_WR);
    close(s);
    s = -1;
    finish_reports(&r, end);
out:
    if (s >= 0)
        close(s);
    free(buf);
}

/* How long ago the connection was established (the handshake's last ACK),
 * so traffic time starts then even if this thread woke up late. */
static uint64_t established_ago_us(int s)
{
    struct tcp_info ti;
    socklen_t l = sizeof ti;
    if (getsockopt(s, IPPROTO_TCP, TCP_INFO, &ti, &l) < 0 || ti.tcpi_last_ack_recv > 1000)
        return 0;
    return (uint64_t)ti.tcpi_last_ack_recv * 1000;
}

/* The board's listening socket, with a small receive buffer (~10 ms at the
 * model's peak rate) so the PC's sender feels the board's pace, and its one
 * client (one per test, as the firmware); -1 when none came (reported, or
 * aborted). */
static int tcp_accept_one(vb_iperf *ip, struct sockaddr_in *peer)
{
    double peak_Bps = vb_shape_rate_bps(&ip->cfg, 0) / 8.0 * (1 + (ip->cfg.noise_pct > 0 ? ip->cfg.noise_pct / 100 : 0));
    double rb = peak_Bps * TCP_RCVBUF_S;
    int rcvbuf = rb < TCP_RCVBUF_MIN ? TCP_RCVBUF_MIN : rb > TCP_RCVBUF_MAX ? TCP_RCVBUF_MAX : (int)rb;
    int ls = board_socket(ip, SOCK_STREAM, ip->cfg.port, rcvbuf);
    if (ls < 0)
        return -1;
    if (listen(ls, 1) < 0) {
        emit_error(ip, "Error occurred during listen: errno %d", errno);
        close(ls);
        return -1;
    }
    emit_simple(ip, VB_IPERF_SOCKET_CREATED, NULL);
    int w = wait_io(ip, ls, POLLIN, timeout_s(&ip->cfg));
    socklen_t pl = sizeof *peer;
    int s = w == 1 ? accept4(ls, (struct sockaddr *)peer, &pl, SOCK_NONBLOCK | SOCK_CLOEXEC) : -1;
    int accept_errno = w == 1 ? errno : EAGAIN;
    close(ls);
    if (s < 0 && w >= 0)
        emit_error(ip, "Error occurred during accept: errno %d", accept_errno);
    return s;
}

/* The client's test header, gathered from its first bytes (they count as
 * data, as iperf2 counts them); -X: the client blocks until it gets the
 * 28-byte ack. */
typedef struct tcp_client_hdr {
    uint8_t b[256];
    size_t n;
    bool done;
} tcp_client_hdr;

static void tcp_take_header(tcp_client_hdr *h, int s, const uint8_t *buf, size_t n)
{
    size_t c = n < sizeof h->b - h->n ? n : sizeof h->b - h->n;
    memcpy(h->b + h->n, buf, c);
    h->n += c;
    vb_iperf2_tcp_hdr th;
    int ok = vb_iperf2_tcp_hdr_parse(h->b, h->n, &th);
    if (!ok && h->n < sizeof h->b)
        return;
    h->done = true;
    if (ok && th.wants_ack) {
        uint8_t ack[VB_IPERF2_CLIENT_ACK_LEN];
        vb_iperf2_client_ack(ack);
        (void)send(s, ack, sizeof ack, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
}

static void tcp_server(vb_iperf *ip)
{
    run r;
    run_init(&r, ip, ip->cfg.len > 0 ? (ip->cfg.len < TCP_LEN_MAX ? ip->cfg.len : TCP_LEN_MAX) : TCP_LEN_DEFAULT);
    struct sockaddr_in peer;
    int s = tcp_accept_one(ip, &peer);
    if (s < 0)
        return;
    uint8_t *buf = malloc((size_t)r.len);
    if (!buf) {
        emit_error(ip, "iperf: out of memory");
        close(s);
        return;
    }
    r.t0_us = eb_now_us() - established_ago_us(s);
    emit_connected(&r, &peer);
    vb_shaper_init(&r.sh, &ip->cfg, TCP_RX_BURST_S, r.len, quantum(&r, vb_shape_rate_bps(&ip->cfg, 0)));
    tcp_client_hdr hdr = {.n = 0};
    const double T = ip->cfg.time_s, idle_max = timeout_s(&ip->cfg);
    double waiting_since = -1, empty_since = -1, end = 0;
    for (;;) {
        double t = now_rel(&r);
        if (T > 0 && t >= T) {
            end = T;
            break;
        }
        reports_until(&r, t);
        if (stalled(&r, t)) {
            stall_until_abort(ip);
            goto out;
        }
        vb_shaper_advance(&r.sh, t);
        double q = quantum(&r, vb_shaper_rate_bps(&r.sh, r.sh.k));
        /* Capacity the link leaves idle is lost, as on a real link: always
         * before the first byte, later once the buffer stayed empty for a real
         * pause (not the microseconds a refill from the PC's send buffer takes
         * while a reader that fell behind catches up). */
        if (empty_since >= 0 && (r.bytes_total == 0 || t - empty_since >= TCP_RX_IDLE_S) && r.sh.tokens > q)
            r.sh.tokens = q;
        if (r.sh.tokens < q) {
            waiting_since = -1;
            double ws = min2(vb_shaper_wait_s(&r.sh, q), sleep_limit(&r, t));
            if (wait_io(ip, -1, 0, ws) < 0)
                goto out;
            continue;
        }
        ssize_t n = recv(s, buf, (size_t)min2(r.sh.tokens, r.len), 0);
        if (n > 0) {
            waiting_since = empty_since = -1;
            if (!hdr.done)
                tcp_take_header(&hdr, s, buf, (size_t)n);
            count(&r, (size_t)n);
            vb_shaper_take(&r.sh, (double)n);
            continue;
        }
        if (n == 0) { /* the client shut down: close at once, it waits for that */
            end = t;
            break;
        }
        if (errno == EAGAIN || errno == EINTR) {
            if (waiting_since < 0)
                waiting_since = t;
            if (empty_since < 0)
                empty_since = t;
            double idle_left = idle_max - (t - waiting_since);
            if (idle_left <= 0) {
                snprintf(r.end_text, sizeof r.end_text, "tcp server recv timeout");
                end = t;
                break;
            }
            if (wait_io(ip, s, POLLIN, min2(sleep_limit(&r, t), idle_left)) < 0)
                goto out;
            continue;
        }
        snprintf(r.end_text, sizeof r.end_text, "tcp server recv error: errno %d", errno);
        end = t;
        break;
    }
    close(s);
    s = -1;
    finish_reports(&r, end);
out:
    if (s >= 0)
        close(s);
    free(buf);
}

/* ------------------------------------------------------------------ UDP */

static void udp_client(vb_iperf *ip)
{
    run r;
    int len = ip->cfg.len > 0 ? ip->cfg.len : UDP_LEN_DEFAULT;
    len = len < UDP_LEN_MIN ? UDP_LEN_MIN : len > UDP_LEN_MAX ? UDP_LEN_MAX : len;
    run_init(&r, ip, len);
    int s = board_socket(ip, SOCK_DGRAM, 0, 0);
    if (s < 0)
        return;
    emit_simple(ip, VB_IPERF_SOCKET_CREATED, NULL);
    struct sockaddr_in peer;
    if (!board_connect(ip, s, &peer)) {
        close(s);
        return;
    }
    uint8_t *buf = calloc(1, (size_t)len); /* zero padding: the first datagram's flags word stays 0 */
    if (!buf) {
        emit_error(ip, "iperf: out of memory");
        close(s);
        return;
    }
    r.t0_us = eb_now_us();
    emit_connected(&r, &peer);
    vb_shaper_init(&r.sh, &ip->cfg, SEND_BURST_S, len, len);
    const double T = ip->cfg.time_s;
    /* As espressif/iperf's client (iperf.c): each datagram carries its
     * 32-bit number from 0, nothing else; no send time, no end marker. */
    int64_t id = 0;
    double end = 0;
    for (;;) {
        double t = now_rel(&r);
        if (T > 0 && t >= T) {
            /* Woken late: send what the model allowed up to T. */
            vb_shaper_advance(&r.sh, T);
            while (r.sh.tokens >= len) {
                vb_iperf2_udp_hdr_write(buf, id, 0, 0);
                if (send(s, buf, (size_t)len, MSG_DONTWAIT) <= 0)
                    break;
                id++;
                count(&r, (size_t)len);
                vb_shaper_take(&r.sh, len);
            }
            end = T;
            break;
        }
        reports_until(&r, t);
        if (stalled(&r, t)) {
            stall_until_abort(ip);
            goto out;
        }
        vb_shaper_advance(&r.sh, t);
        if (r.sh.tokens >= len) {
            vb_iperf2_udp_hdr_write(buf, id, 0, 0);
            ssize_t n = send(s, buf, (size_t)len, MSG_DONTWAIT);
            if (n > 0) {
                id++;
                count(&r, (size_t)n);
                vb_shaper_take(&r.sh, (double)n);
                continue;
            }
            if (errno == ECONNREFUSED || errno == EINTR)
                continue; /* an earlier datagram's ICMP error; this one was not sent */
            if (errno == EAGAIN || errno == ENOBUFS) {
                if (wait_io(ip, s, POLLOUT, min2(0.001, sleep_limit(&r, t))) < 0)
                    goto out;
                continue;
            }
            snprintf(r.end_text, sizeof r.end_text, "udp client send error: errno %d", errno);
            end = t;
            break;
        }
        double w = min2(vb_shaper_wait_s(&r.sh, len), sleep_limit(&r, t));
        if (wait_io(ip, -1, 0, w) < 0)
            goto out;
    }
    finish_reports(&r, end);
out:
    close(s);
    free(buf);
}

/* One received datagram with its kernel arrival time. */
typedef struct rx_dgram {
    ssize_t n;
    uint64_t arrival_us; /* monotonic */
    int64_t arrival_real_us;
    struct sockaddr_in from;
} rx_dgram;

static bool udp_recv(int s, uint8_t *buf, size_t cap, rx_dgram *d)
{
    struct iovec iov = {.iov_base = buf, .iov_len = cap};
    union {
        char raw[CMSG_SPACE(sizeof(struct timespec))];
        struct cmsghdr align;
    } ctl;
    struct msghdr m = {.msg_name = &d->from, .msg_namelen = sizeof d->from, .msg_iov = &iov, .msg_iovlen = 1,
                       .msg_control = ctl.raw, .msg_controllen = sizeof ctl.raw};
    d->n = recvmsg(s, &m, MSG_DONTWAIT);
    if (d->n < 0)
        return false;
    struct timespec mono, real;
    clock_gettime(CLOCK_MONOTONIC, &mono);
    clock_gettime(CLOCK_REALTIME, &real);
    int64_t now_mono = (int64_t)mono.tv_sec * 1000000 + mono.tv_nsec / 1000;
    int64_t now_real = (int64_t)real.tv_sec * 1000000 + real.tv_nsec / 1000;
    int64_t arr_real = now_real;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec ts;
            memcpy(&ts, CMSG_DATA(c), sizeof ts);
            arr_real = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
        }
    }
    int64_t ago = now_real - arr_real;
    if (ago < 0 || ago > 10000000)
        ago = 0;
    d->arrival_us = (uint64_t)(now_mono - ago);
    d->arrival_real_us = arr_real;
    return true;
}

/* The UDP receiver's iperf2-style accounting beyond the run's counters. */
typedef struct udp_rx {
    bool seq64;
    int64_t out_of_order;
    double jitter_us, prev_transit_us;
    bool have_transit;
    uint64_t first_arrival_us;
} udp_rx;

static void udp_take(run *r, udp_rx *u, const uint8_t *buf, const rx_dgram *d)
{
    vb_iperf2_udp_dgram g;
    if (!vb_iperf2_udp_parse(buf, (size_t)d->n, u->seq64, &g))
        return;
    double ta = rel_s(r, d->arrival_us);
    vb_shaper_advance(&r->sh, ta);
    if (r->sh.tokens < (double)d->n)
        return; /* over the board's rate: dropped, shows up as a sequence gap */
    vb_shaper_take(&r->sh, (double)d->n);
    count(r, (size_t)d->n);
    r->recv_k++;
    r->recv_total++;
    if (g.id < r->highest + 1)
        u->out_of_order++;
    if (g.id > r->highest)
        r->highest = g.id;
    double transit = (double)(d->arrival_real_us - (g.tv_sec * 1000000 + g.tv_usec));
    if (u->have_transit) {
        double dj = fabs(transit - u->prev_transit_us);
        u->jitter_us += (dj - u->jitter_us) / 16.0;
    }
    u->prev_transit_us = transit;
    u->have_transit = true;
}

/* Answers the client's FIN with the server report; resends while FINs keep arriving. */
static void udp_send_report(vb_iperf *ip, int s, const uint8_t report[VB_IPERF2_SERVER_REPORT_LEN], bool seq64)
{
    (void)send(s, report, VB_IPERF2_SERVER_REPORT_LEN, MSG_DONTWAIT);
    uint8_t buf[UDP_RX_BUF];
    int resends = 0;
    for (;;) {
        int w = wait_io(ip, s, POLLIN, UDP_ACK_SILENCE_MS / 1000.0);
        if (w <= 0)
            return;
        bool fin_again = false;
        ssize_t n;
        while ((n = recv(s, buf, sizeof buf, MSG_DONTWAIT)) > 0) {
            vb_iperf2_udp_dgram g;
            if (vb_iperf2_udp_parse(buf, (size_t)n, seq64, &g) && g.id < 0)
                fin_again = true;
        }
        if (fin_again) {
            if (resends++ >= UDP_ACK_RESENDS)
                return;
            (void)send(s, report, VB_IPERF2_SERVER_REPORT_LEN, MSG_DONTWAIT);
        }
    }
}

static void udp_server(vb_iperf *ip)
{
    run r;
    run_init(&r, ip, UDP_RX_BUF);
    int s = board_socket(ip, SOCK_DGRAM, ip->cfg.port, UDP_RCVBUF);
    if (s < 0)
        return;
    set_int_opt(s, SOL_SOCKET, SO_TIMESTAMPNS, 1); /* shape by arrival time, not by when we got to read */
    emit_simple(ip, VB_IPERF_SOCKET_CREATED, NULL);
    uint8_t *buf = malloc(UDP_RX_BUF);
    if (!buf) {
        emit_error(ip, "iperf: out of memory");
        close(s);
        return;
    }
    udp_rx u = {0};
    rx_dgram d;
    /* Wait for the first datagram of a flow; stale FINs (negative ids) are not one. */
    eb_deadline until = eb_deadline_in((uint64_t)(timeout_s(&ip->cfg) * 1000));
    for (;;) {
        if (udp_recv(s, buf, UDP_RX_BUF, &d)) {
            vb_iperf2_udp_dgram g;
            bool seq64 = vb_iperf2_udp_first_is_seq64(buf, (size_t)d.n);
            if (vb_iperf2_udp_parse(buf, (size_t)d.n, seq64, &g) && g.id >= 0) {
                u.seq64 = seq64;
                break;
            }
            continue;
        }
        if (errno == EINTR)
            continue;
        int left = eb_deadline_left_ms(until);
        int w = left > 0 ? wait_io(ip, s, POLLIN, left / 1000.0) : 0;
        if (w < 0)
            goto out;
        if (w == 0 && eb_deadline_passed(until)) {
            emit_error(ip, "Error occurred during receiving: errno %d", EAGAIN);
            goto out;
        }
    }
    connect(s, (struct sockaddr *)&d.from, sizeof d.from); /* this flow only; the report goes back to it */
    r.t0_us = d.arrival_us;
    u.first_arrival_us = d.arrival_us;
    emit_connected(&r, &d.from);
    vb_shaper_init(&r.sh, &ip->cfg, UDP_RX_BURST_S, 2.0 * (double)d.n, (double)d.n);
    udp_take(&r, &u, buf, &d);
    const double T = ip->cfg.time_s, idle_max = timeout_s(&ip->cfg);
    double last_arrival = 0, end = 0;
    bool fin = false;
    int64_t fin_id = 0;
    ssize_t fin_len = 0;
    uint64_t fin_arrival_us = 0;
    for (;;) {
        if (!stalled(&r, now_rel(&r))) {
            while (udp_recv(s, buf, UDP_RX_BUF, &d)) {
                double ta = rel_s(&r, d.arrival_us);
                if (T > 0 && ta >= T)
                    break;
                reports_until(&r, ta);
                vb_iperf2_udp_dgram g;
                if (!vb_iperf2_udp_parse(buf, (size_t)d.n, u.seq64, &g))
                    continue;
                if (g.id < 0) {
                    if (!ip->cfg.send_udp_server_report)
                        continue; /* the firmware ignores the end marker and runs to -t */
                    fin = true;
                    fin_id = -g.id;
                    if (fin_id - 1 > r.highest) /* the FIN reveals datagrams dropped at the very end */
                        r.highest = fin_id - 1;
                    fin_len = d.n;
                    fin_arrival_us = d.arrival_us;
                    end = ta;
                    break;
                }
                udp_take(&r, &u, buf, &d);
                last_arrival = ta;
            }
            if (fin)
                break;
        }
        double t = now_rel(&r);
        if (T > 0 && t >= T) {
            end = T;
            break;
        }
        reports_until(&r, t);
        if (stalled(&r, t)) {
            stall_until_abort(ip);
            goto out;
        }
        double idle_left = idle_max - (t - last_arrival);
        if (idle_left <= 0) {
            snprintf(r.end_text, sizeof r.end_text, "udp server recv timeout");
            end = t;
            break;
        }
        if (wait_io(ip, s, POLLIN, min2(sleep_limit(&r, t), idle_left)) < 0)
            goto out;
    }
    finish_reports(&r, end);
    if (fin) {
        vb_iperf2_udp_stats st = {
            .bytes = r.bytes_total + (uint64_t)fin_len,
            .stop_us = (int64_t)(fin_arrival_us - u.first_arrival_us),
            .out_of_order = u.out_of_order,
            .datagrams = fin_id > r.highest ? fin_id : r.highest,
            .jitter_us = (int64_t)llround(u.jitter_us),
        };
        st.lost = st.datagrams - (r.recv_total + 1);
        if (st.lost < 0)
            st.lost = 0;
        uint8_t report[VB_IPERF2_SERVER_REPORT_LEN];
        vb_iperf2_server_report(report, &st);
        udp_send_report(ip, s, report, u.seq64);
    }
out:
    close(s);
    free(buf);
}

/* ------------------------------------------------------------------ engine */

static void *engine_main(void *arg)
{
    vb_iperf *ip = arg;
    if (ip->cfg.server)
        ip->cfg.udp ? udp_server(ip) : tcp_server(ip);
    else
        ip->cfg.udp ? udp_client(ip) : tcp_client(ip);
    emit_simple(ip, VB_IPERF_DONE, NULL);
    atomic_store(&ip->running, false);
    return NULL;
}

static bool valid_ipv4(const char *s, struct in_addr *a) { return inet_pton(AF_INET, s, a) == 1; }

int vb_iperf_start(vb_iperf **out, const vb_iperf_cfg *cfg, vb_iperf_report_fn fn, void *user, eb_error *err)
{
    *out = NULL;
    struct in_addr a;
    if (!fn)
        return eb_fail(err, EB_ECONFIG, "iperf: no report callback given");
    if (memchr(cfg->local_ip, 0, sizeof cfg->local_ip) == NULL ||
        memchr(cfg->remote_ip, 0, sizeof cfg->remote_ip) == NULL)
        return eb_fail(err, EB_ECONFIG, "iperf: address field not NUL-terminated");
    if (cfg->local_ip[0] && (!valid_ipv4(cfg->local_ip, &a) || (ntohl(a.s_addr) >> 24) != 127))
        return eb_fail(err, EB_ECONFIG,
                       "iperf: board address '%s' is not in 127.0.0.0/8; give the board a loopback address (--ip 127.X.Y.Z)",
                       cfg->local_ip);
    if (!cfg->server && !valid_ipv4(cfg->remote_ip, &a))
        return eb_fail(err, EB_ECONFIG, "iperf: -c host '%s' is not an IPv4 address; use a dotted address such as 127.0.0.1",
                       cfg->remote_ip);
    if (!(cfg->time_s >= 0 || cfg->time_s < 0) || !(cfg->interval_s >= 0 || cfg->interval_s < 0) ||
        !(cfg->model_mbps >= 0) || !(cfg->noise_pct >= 0) || !(cfg->bw_limit_mbps >= 0) || !(cfg->zero_from_s >= 0))
        return eb_fail(err, EB_ECONFIG, "iperf: invalid time, interval, rate or fault value (negative or not a number)");
    if (cfg->server && cfg->port == 0)
        return eb_fail(err, EB_ECONFIG, "iperf: server port 0; give -p PORT (default 5001)");
    vb_iperf *ip = calloc(1, sizeof *ip);
    if (!ip)
        return eb_fail(err, EB_EIO, "iperf: out of memory");
    ip->cfg = *cfg;
    ip->fn = fn;
    ip->user = user;
    ip->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (ip->wake_fd < 0) {
        int e = errno;
        free(ip);
        return eb_fail(err, EB_EIO, "iperf: eventfd failed: %s", strerror(e));
    }
    atomic_store(&ip->running, true);
    int rc = pthread_create(&ip->thread, NULL, engine_main, ip);
    if (rc != 0) {
        close(ip->wake_fd);
        free(ip);
        return eb_fail(err, EB_EIO, "iperf: cannot start the engine thread: %s", strerror(rc));
    }
    /* One line per test on the vboard's stderr (`run --sim` keeps it as NAME-vboard.log): the
     * rate the test is shaped to, so that a test checks the figure the board chose without
     * timing the traffic (how close the traffic comes to it is the bench's fidelity section). */
    fprintf(stderr, "vboard: iperf %s_%s shaped to %.6g Mbit/s\n", cfg->udp ? "udp" : "tcp",
            cfg->server ? "rx" : "tx", cfg->model_mbps);
    *out = ip;
    return 0;
}

bool vb_iperf_running(vb_iperf *ip) { return ip && atomic_load(&ip->running); }

void vb_iperf_abort(vb_iperf *ip)
{
    if (!ip || ip->joined)
        return;
    atomic_store(&ip->stop, true);
    uint64_t one = 1;
    (void)!write(ip->wake_fd, &one, sizeof one);
    if (pthread_equal(pthread_self(), ip->thread))
        return; /* from the report callback: the thread ends on its own; join later */
    pthread_join(ip->thread, NULL);
    ip->joined = true;
    atomic_store(&ip->running, false);
}

void vb_iperf_free(vb_iperf *ip)
{
    if (!ip)
        return;
    vb_iperf_abort(ip);
    close(ip->wake_fd);
    free(ip);
}

uint64_t vb_iperf_total_bytes(vb_iperf *ip) { return ip ? atomic_load(&ip->total) : 0; }
