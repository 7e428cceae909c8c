/* socket://host:port — raw TCP to a serial server. No baud, no modem lines. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "espbench/base/log.h"
#include "port_internal.h"

int eb_port_tcp_connect(const char *hostport, const char *url, eb_deadline d, eb_error *err)
{
    char host[128], port[16];
    const char *colon;
    if (hostport[0] == '[') {
        const char *rb = strchr(hostport, ']');
        if (!rb || rb[1] != ':')
            return eb_fail(err, EB_ECONFIG, "port %s: expected [IPv6]:PORT", url), -1;
        snprintf(host, sizeof host, "%.*s", (int)(rb - hostport - 1), hostport + 1);
        colon = rb + 1;
    } else {
        colon = strrchr(hostport, ':');
        if (!colon || colon == hostport)
            return eb_fail(err, EB_ECONFIG, "port %s: expected HOST:PORT", url), -1;
        snprintf(host, sizeof host, "%.*s", (int)(colon - hostport), hostport);
    }
    size_t plen = strcspn(colon + 1, "?/");
    if (plen == 0 || plen >= sizeof port)
        return eb_fail(err, EB_ECONFIG, "port %s: missing TCP port number", url), -1;
    snprintf(port, sizeof port, "%.*s", (int)plen, colon + 1);
    for (const char *c = port; *c; c++)
        if (*c < '0' || *c > '9')
            return eb_fail(err, EB_ECONFIG, "port %s: TCP port '%s' is not a number", url, port), -1;

    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    int g = getaddrinfo(host, port, &hints, &res);
    if (g != 0)
        return eb_fail(err, EB_EIO, "port %s: cannot resolve %s: %s", url, host, gai_strerror(g)), -1;
    int last = ECONNREFUSED;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            last = errno;
            continue;
        }
        int r = connect(fd, ai->ai_addr, ai->ai_addrlen);
        if (r != 0 && errno == EINPROGRESS) {
            struct pollfd pfd = {.fd = fd, .events = POLLOUT};
            int n;
            do
                n = poll(&pfd, 1, eb_deadline_left_ms(d));
            while (n < 0 && errno == EINTR);
            if (n == 1) {
                int soerr = 0;
                socklen_t sl = sizeof soerr;
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
                r = soerr ? -1 : 0;
                errno = soerr;
            } else {
                r = -1;
                errno = ETIMEDOUT;
            }
        }
        if (r == 0) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            freeaddrinfo(res);
            return fd;
        }
        last = errno;
        close(fd);
    }
    freeaddrinfo(res);
    return eb_fail(err, EB_EIO, "port %s: cannot connect to %s:%s: %s; is the serial server running?", url, host,
                   port, strerror(last)),
           -1;
}

typedef struct {
    int fd;
} socket_impl;

static int k_open(eb_port *p, const char *target, eb_error *err)
{
    int fd = eb_port_tcp_connect(target, p->url, eb_deadline_in(5000), err);
    if (fd < 0)
        return err ? err->code : EB_EIO;
    socket_impl *k = calloc(1, sizeof *k);
    if (!k) {
        close(fd);
        return eb_fail(err, EB_EIO, "out of memory");
    }
    k->fd = fd;
    p->impl = k;
    p->can_set_lines = false;
    return EB_OK;
}

static void k_close(eb_port *p)
{
    socket_impl *k = p->impl;
    if (k) {
        close(k->fd);
        free(k);
    }
    p->impl = NULL;
}

static int k_write(eb_port *p, const void *buf, size_t len, eb_deadline d, eb_error *err)
{
    socket_impl *k = p->impl;
    return eb_port_fd_write_all(k->fd, p->url, buf, len, d, err);
}

static long k_read(eb_port *p, void *buf, size_t cap, eb_deadline d, eb_error *err)
{
    socket_impl *k = p->impl;
    return eb_port_fd_read(k->fd, p->url, buf, cap, d, err);
}

static int k_set_baud(eb_port *p, uint32_t baud, eb_error *err)
{
    (void)err;
    /* The far end's rate is its own business over raw TCP. */
    eb_log_once("socket-baud", EB_LOG_DEBUG, "%s: raw TCP port: baud %u not sent to the server", p->url, baud);
    return EB_OK;
}

static int k_set_lines(eb_port *p, bool dtr, bool rts, eb_error *err)
{
    (void)p, (void)dtr, (void)rts, (void)err;
    return 1;
}

static void k_flush_input(eb_port *p)
{
    socket_impl *k = p->impl;
    uint8_t junk[512];
    while (read(k->fd, junk, sizeof junk) > 0) {
    }
}

static int k_fd(eb_port *p)
{
    socket_impl *k = p->impl;
    return k->fd;
}

const eb_port_ops eb_port_socket_ops = {
    .name = "socket",
    .open = k_open,
    .close = k_close,
    .write = k_write,
    .read = k_read,
    .set_baud = k_set_baud,
    .set_lines = k_set_lines,
    .flush_input = k_flush_input,
    .fd = k_fd,
};
