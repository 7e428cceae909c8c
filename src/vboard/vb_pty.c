/* The board's serial line on a pty (see vb_pty.h).
 *
 * Output goes through a queue drained by a writer thread. With baud timing on,
 * the writer sends chunks of about 2 ms of line time and sleeps until an
 * absolute deadline that advances by 10 bits per byte at the current speed, so
 * the pacing stays exact over long transfers. The speed follows the termios
 * speed the host sets on the slave (seen on the master through TCGETS2) and
 * CHANGE_BAUDRATE (applied after the queued acknowledgement has gone out). */
#include "vb_pty.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "espbench/base/buf.h"

#define MAX_MARKERS 8
#define CHUNK_MAX 4096
#define QUEUE_MAX (8u * 1024u * 1024u) /* output nobody reads is dropped beyond this */

typedef struct baud_marker {
    uint64_t at; /* takes effect once this many bytes have been dequeued */
    uint32_t baud;
} baud_marker;

struct vb_pty {
    int master;
    char slave[128];
    char *link;
    bool baud_timing;
    pthread_t writer;
    bool writer_started;
    pthread_mutex_t mu;
    pthread_cond_t cv;       /* queue non-empty / stop */
    pthread_cond_t drained;  /* queue empty */
    bool stop;
    eb_buf q;
    size_t head;
    uint64_t enqueued, dequeued, sent;
    baud_marker markers[MAX_MARKERS];
    int n_markers;
    uint32_t baud;           /* the board's UART speed */
    uint32_t host_baud;      /* the speed the host set with termios */
    bool follow_host;        /* forgiving: the board takes every termios change */
    uint32_t garble_state;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until_ns(uint64_t t)
{
    struct timespec ts = {.tv_sec = (time_t)(t / 1000000000ull), .tv_nsec = (long)(t % 1000000000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

/* Called with mu held: adopt a speed change the host made with termios. */
static void check_termios_locked(vb_pty *p)
{
    unsigned s = vb_tty_ospeed(p->master);
    if (s && s != p->host_baud) {
        p->host_baud = s;
        if (p->follow_host)
            p->baud = s;
    }
}

static void apply_markers_locked(vb_pty *p);

static bool mismatch_locked(const vb_pty *p) { return p->host_baud && p->baud && p->host_baud != p->baud; }

/* What a UART at one speed makes of bytes sent at another: framing errors,
 * about n x to / from bytes of noise (never 0xC0, so no frame boundary
 * appears by chance). */
static size_t garble_locked(vb_pty *p, size_t n, uint32_t from, uint32_t to, uint8_t *out, size_t cap)
{
    size_t m = (size_t)((uint64_t)n * to / from);
    if (m == 0)
        m = 1;
    if (m > cap)
        m = cap;
    for (size_t i = 0; i < m; i++) {
        p->garble_state = p->garble_state * 1103515245u + 12345u;
        uint8_t b = (uint8_t)(p->garble_state >> 16);
        out[i] = b == 0xC0 ? 0x00 : b;
    }
    return m;
}

size_t vb_pty_rx_garble(vb_pty *p, const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    pthread_mutex_lock(&p->mu);
    check_termios_locked(p);
    apply_markers_locked(p);
    size_t m = 0;
    if (mismatch_locked(p))
        m = garble_locked(p, n, p->host_baud, p->baud, out, cap);
    pthread_mutex_unlock(&p->mu);
    (void)in;
    return m;
}

bool vb_pty_baud_mismatch(vb_pty *p)
{
    pthread_mutex_lock(&p->mu);
    check_termios_locked(p);
    apply_markers_locked(p);
    bool m = mismatch_locked(p);
    pthread_mutex_unlock(&p->mu);
    return m;
}

void vb_pty_follow_host(vb_pty *p, bool follow)
{
    pthread_mutex_lock(&p->mu);
    p->follow_host = follow;
    pthread_mutex_unlock(&p->mu);
}

static void apply_markers_locked(vb_pty *p)
{
    int k = 0;
    for (int i = 0; i < p->n_markers; i++) {
        if (p->markers[i].at <= p->dequeued)
            p->baud = p->markers[i].baud;
        else
            p->markers[k++] = p->markers[i];
    }
    p->n_markers = k;
}

bool vb_pty_host_present(vb_pty *p)
{
    struct pollfd pfd = {.fd = p->master, .events = POLLIN};
    if (poll(&pfd, 1, 0) < 0)
        return true;
    return !(pfd.revents & POLLHUP);
}

/* Writes a chunk to the master; drops it when no host has the slave open (a
 * real UART's bytes are lost when nobody listens). */
static void write_chunk(vb_pty *p, const uint8_t *d, size_t n)
{
    while (n) {
        bool stop;
        pthread_mutex_lock(&p->mu);
        stop = p->stop;
        pthread_mutex_unlock(&p->mu);
        if (stop || !vb_pty_host_present(p))
            return;
        ssize_t w = write(p->master, d, n);
        if (w > 0) {
            d += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno != EAGAIN && errno != EINTR)
            return;
        struct pollfd pfd = {.fd = p->master, .events = POLLOUT};
        poll(&pfd, 1, 50);
    }
}

static void *writer_main(void *arg)
{
    vb_pty *p = arg;
    uint8_t chunk[CHUNK_MAX];
    uint64_t vt = 0;
    bool was_idle = true;
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        check_termios_locked(p);
        apply_markers_locked(p);
        size_t avail = p->q.len - p->head;
        if (!avail) {
            was_idle = true;
            pthread_cond_broadcast(&p->drained);
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 20 * 1000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&p->cv, &p->mu, &ts);
            continue;
        }
        uint32_t baud = p->baud ? p->baud : 115200;
        size_t n = p->baud_timing ? baud / 10 / 500 : CHUNK_MAX; /* ~2 ms of line time */
        if (n < 1)
            n = 1;
        if (n > CHUNK_MAX)
            n = CHUNK_MAX;
        if (n > avail)
            n = avail;
        for (int i = 0; i < p->n_markers; i++) /* stop at a speed change */
            if (p->markers[i].at > p->dequeued && p->markers[i].at - p->dequeued < n)
                n = (size_t)(p->markers[i].at - p->dequeued);
        memcpy(chunk, p->q.data + p->head, n);
        size_t wire = n; /* bytes the line carries; the host may read them as noise */
        if (mismatch_locked(p))
            wire = garble_locked(p, n, baud, p->host_baud, chunk, sizeof chunk);
        p->head += n;
        p->dequeued += n;
        if (p->head == p->q.len) {
            p->head = 0;
            p->q.len = 0;
        } else if (p->head > 65536 && p->head > p->q.len / 2) {
            eb_buf_consume(&p->q, p->head);
            p->head = 0;
        }
        pthread_mutex_unlock(&p->mu);

        write_chunk(p, chunk, wire);
        if (p->baud_timing) {
            /* The schedule restarts after an idle line; while streaming it
             * only restarts when more than 100 ms behind (a stalled reader), so
             * short scheduling delays are caught up and long transfers keep
             * the exact rate. */
            uint64_t t = now_ns();
            if (vt < t && (was_idle || t - vt > 100000000ull))
                vt = t;
            vt += (uint64_t)n * 10u * 1000000000ull / baud;
            sleep_until_ns(vt);
        }
        was_idle = false;
        pthread_mutex_lock(&p->mu);
        p->sent += n;
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int vb_pty_open(vb_pty **out, const char *link, bool baud_timing, uint32_t baud, eb_error *err)
{
    *out = NULL;
    int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (m < 0)
        return eb_fail(err, EB_EIO, "pty: posix_openpt failed: %s", strerror(errno));
    vb_pty *p = calloc(1, sizeof *p);
    if (!p) {
        close(m);
        return eb_fail(err, EB_EIO, "pty: out of memory");
    }
    p->master = m;
    if (grantpt(m) != 0 || unlockpt(m) != 0 || ptsname_r(m, p->slave, sizeof p->slave) != 0) {
        int e = errno;
        close(m);
        free(p);
        return eb_fail(err, EB_EIO, "pty: cannot set up the slave: %s", strerror(e));
    }
    struct termios t;
    if (tcgetattr(m, &t) == 0) {
        cfmakeraw(&t);
        cfsetispeed(&t, B115200);
        cfsetospeed(&t, B115200);
        tcsetattr(m, TCSANOW, &t);
    }
    fcntl(m, F_SETFL, fcntl(m, F_GETFL) | O_NONBLOCK);
    /* Until the slave has been opened once, the master shows no hang-up; open
     * and close it so that "no host" reads as POLLHUP from the start. */
    int sfd = open(p->slave, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (sfd >= 0)
        close(sfd);
    p->baud_timing = baud_timing;
    p->baud = baud ? baud : 115200;
    p->host_baud = vb_tty_ospeed(m);
    p->garble_state = 0x2545F491u;
    eb_buf_init(&p->q);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    pthread_cond_init(&p->drained, NULL);
    if (link) {
        struct stat st;
        if (lstat(link, &st) == 0 && !S_ISLNK(st.st_mode)) {
            vb_pty_close(p);
            return eb_fail(err, EB_ECONFIG, "--link %s: exists and is not a symlink (choose another path)", link);
        }
        unlink(link);
        if (symlink(p->slave, link) != 0) {
            int e = errno;
            vb_pty_close(p);
            return eb_fail(err, EB_EIO, "--link %s: cannot create the symlink: %s", link, strerror(e));
        }
        p->link = strdup(link);
    }
    if (pthread_create(&p->writer, NULL, writer_main, p) != 0) {
        vb_pty_close(p);
        return eb_fail(err, EB_EIO, "pty: cannot start the writer thread");
    }
    p->writer_started = true;
    *out = p;
    return 0;
}

void vb_pty_close(vb_pty *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    if (p->writer_started)
        pthread_join(p->writer, NULL);
    if (p->link) {
        unlink(p->link);
        free(p->link);
    }
    close(p->master);
    eb_buf_free(&p->q);
    pthread_cond_destroy(&p->drained);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

const char *vb_pty_slave_path(const vb_pty *p) { return p->slave; }
int vb_pty_master_fd(const vb_pty *p) { return p->master; }

void vb_pty_write(vb_pty *p, const void *data, size_t len)
{
    if (!len)
        return;
    pthread_mutex_lock(&p->mu);
    if (p->q.len - p->head + len <= QUEUE_MAX) {
        eb_buf_append(&p->q, data, len);
        p->enqueued += len;
        pthread_cond_signal(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
}

void vb_pty_set_baud_after_queued(vb_pty *p, uint32_t baud)
{
    pthread_mutex_lock(&p->mu);
    if (p->enqueued == p->dequeued) {
        p->baud = baud;
    } else if (p->n_markers < MAX_MARKERS) {
        p->markers[p->n_markers].at = p->enqueued;
        p->markers[p->n_markers].baud = baud;
        p->n_markers++;
    }
    pthread_mutex_unlock(&p->mu);
}

void vb_pty_set_baud(vb_pty *p, uint32_t baud)
{
    pthread_mutex_lock(&p->mu);
    p->n_markers = 0;
    p->baud = baud;
    pthread_mutex_unlock(&p->mu);
}

uint32_t vb_pty_baud(vb_pty *p)
{
    pthread_mutex_lock(&p->mu);
    check_termios_locked(p);
    apply_markers_locked(p);
    uint32_t b = p->baud;
    pthread_mutex_unlock(&p->mu);
    return b;
}

uint32_t vb_pty_host_baud(vb_pty *p)
{
    pthread_mutex_lock(&p->mu);
    check_termios_locked(p);
    uint32_t b = p->host_baud;
    pthread_mutex_unlock(&p->mu);
    return b;
}

bool vb_pty_drain(vb_pty *p, int timeout_ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += timeout_ms / 1000;
    ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&p->mu);
    while (p->sent != p->enqueued && !p->stop)
        if (pthread_cond_timedwait(&p->drained, &p->mu, &ts) != 0)
            break;
    bool ok = p->sent == p->enqueued;
    pthread_mutex_unlock(&p->mu);
    return ok;
}

uint64_t vb_pty_bytes_sent(vb_pty *p)
{
    pthread_mutex_lock(&p->mu);
    uint64_t s = p->sent;
    pthread_mutex_unlock(&p->mu);
    return s;
}
