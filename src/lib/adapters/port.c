/* Port URL dispatch and the fd helpers the backends share. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "espbench/base/log.h"
#include "port_internal.h"

/* URL scheme -> backend. Anything without a scheme is a local device. */
static const struct {
    const char *prefix;
    const eb_port_ops *ops;
} schemes[] = {
    {"rfc2217://", &eb_port_rfc2217_ops},
    {"socket://", &eb_port_socket_ops},
    {"fake://", &eb_port_fake_ops}, /* a scripted board for tests (port_fake.c) */
};

int eb_port_open(eb_port **out, const char *url, uint32_t baud, eb_error *err)
{
    *out = NULL;
    if (!url || !*url)
        return eb_fail(err, EB_ECONFIG, "no port given; use --port /dev/ttyUSB0, rfc2217://HOST:PORT or socket://HOST:PORT");
    if (strlen(url) >= sizeof((eb_port *)0)->url)
        return eb_fail(err, EB_ECONFIG, "port URL too long: %.60s...", url);
    eb_port *p = calloc(1, sizeof *p);
    if (!p)
        return eb_fail(err, EB_EIO, "out of memory opening %s", url);
    snprintf(p->url, sizeof p->url, "%s", url);
    p->baud = baud;
    const char *target = url;
    for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++) {
        size_t n = strlen(schemes[i].prefix);
        if (strncmp(url, schemes[i].prefix, n) == 0) {
            p->ops = schemes[i].ops;
            target = url + n;
            break;
        }
    }
    if (!p->ops && strstr(url, "://")) {
        free(p);
        return eb_fail(err, EB_ECONFIG, "port %s: unknown URL scheme; use a device path, rfc2217://HOST:PORT or socket://HOST:PORT", url);
    }
    int rc;
    if (p->ops) {
        rc = p->ops->open(p, target, err);
    } else {
        /* libserialport first (it knows USB details); ptys and devices it
         * refuses go through plain termios. */
        p->ops = &eb_port_serial_ops;
        rc = p->ops->open(p, target, err);
        if (rc == 1) {
            eb_log_once("port-termios", EB_LOG_DEBUG,
                        "%s: libserialport does not handle this device; using termios directly", url);
            p->ops = &eb_port_termios_ops;
            rc = p->ops->open(p, target, err);
        }
    }
    if (rc != EB_OK) {
        free(p);
        return rc;
    }
    *out = p;
    return EB_OK;
}

void eb_port_close(eb_port *p)
{
    if (!p)
        return;
    p->ops->close(p);
    free(p);
}

int eb_port_set_baud(eb_port *p, uint32_t baud, eb_error *err)
{
    int rc = p->ops->set_baud(p, baud, err);
    if (rc == EB_OK)
        p->baud = baud;
    return rc;
}

int eb_port_set_lines(eb_port *p, bool dtr, bool rts, eb_error *err)
{
    if (!p->can_set_lines)
        return 1;
    int rc = p->ops->set_lines(p, dtr, rts, err);
    if (rc == 1)
        p->can_set_lines = false;
    return rc;
}

void eb_port_flush_input(eb_port *p) { p->ops->flush_input(p); }

/* --- fd helpers --- */

int eb_port_open_device_fd(const char *path, eb_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return eb_fail(err, EB_EIO, "port %s: no such device; check the cable, or list ports with 'espbench ports'", path), -1;
        if (errno == EACCES)
            goto denied;
        return eb_fail(err, EB_EIO, "port %s: %s", path, strerror(errno)), -1;
    }
    int fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == EACCES || errno == EPERM)
            goto denied;
        if (errno == EBUSY)
            return eb_fail(err, EB_EIO, "port %s is busy: another program has it open; close it and retry", path), -1;
        if (errno == ENOENT || errno == ENXIO || errno == ENODEV)
            return eb_fail(err, EB_EIO, "port %s: device not present (%s); check the cable, or list ports with 'espbench ports'", path, strerror(errno)), -1;
        return eb_fail(err, EB_EIO, "port %s: cannot open: %s", path, strerror(errno)), -1;
    }
    if (!isatty(fd)) {
        close(fd);
        return eb_fail(err, EB_EIO, "port %s: not a serial device (not a tty)", path), -1;
    }
    /* Exclusive lock, as pyserial/esptool take: two flashers on one port corrupt both. */
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(fd);
        if (e == EWOULDBLOCK)
            return eb_fail(err, EB_EIO, "port %s is busy: another program holds it (a monitor, esptool or another espbench); close it and retry", path), -1;
        return eb_fail(err, EB_EIO, "port %s: cannot lock: %s", path, strerror(e)), -1;
    }
    return fd;
denied:
    return eb_fail(err, EB_EIO, "port %s: permission denied; add yourself to the dialout group (sudo usermod -aG dialout $USER, then log in again)", path), -1;
}

static const struct {
    uint32_t baud;
    speed_t code;
} speeds[] = {
    {9600, B9600},       {19200, B19200},     {38400, B38400},     {57600, B57600},
    {115200, B115200},   {230400, B230400},   {460800, B460800},   {500000, B500000},
    {576000, B576000},   {921600, B921600},   {1000000, B1000000}, {1152000, B1152000},
    {1500000, B1500000}, {2000000, B2000000}, {3000000, B3000000}, {4000000, B4000000},
};

int eb_port_termios_setup(int fd, const char *path, uint32_t baud, eb_error *err)
{
    speed_t code = 0;
    for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++)
        if (speeds[i].baud == baud)
            code = speeds[i].code;
    if (!code)
        return eb_fail(err, EB_ECONFIG, "port %s: baud %u not supported by termios; use 115200, 230400, 460800, 921600, 1500000 or 2000000", path, baud);
    struct termios t;
    if (tcgetattr(fd, &t) != 0)
        return eb_fail(err, EB_EIO, "port %s: tcgetattr: %s", path, strerror(errno));
    cfmakeraw(&t);
    t.c_cflag |= CLOCAL | CREAD;
    t.c_cflag &= ~(CSTOPB | PARENB | CRTSCTS);
    t.c_iflag &= ~(IXON | IXOFF | IXANY);
    t.c_cc[VMIN] = 0;
    t.c_cc[VTIME] = 0;
    cfsetispeed(&t, code);
    cfsetospeed(&t, code);
    if (tcsetattr(fd, TCSANOW, &t) != 0)
        return eb_fail(err, EB_EIO, "port %s: cannot set %u baud: %s", path, baud, strerror(errno));
    return EB_OK;
}

int eb_port_wait_readable(int fd, eb_deadline d)
{
    for (;;) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int left = eb_deadline_left_ms(d);
        int n = poll(&pfd, 1, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            return 0;
        if (pfd.revents & POLLIN)
            return 1;
        if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))
            return -1;
    }
}

int eb_port_fd_write_all(int fd, const char *url, const void *buf, size_t len, eb_deadline d, eb_error *err)
{
    const uint8_t *b = buf;
    while (len > 0) {
        ssize_t n = write(fd, b, len);
        if (n > 0) {
            b += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pfd = {.fd = fd, .events = POLLOUT};
            int left = eb_deadline_left_ms(d);
            if (left <= 0)
                return eb_fail(err, EB_EIO, "port %s: write timed out (device not draining)", url);
            int r = poll(&pfd, 1, left);
            if (r > 0 && (pfd.revents & (POLLERR | POLLHUP | POLLNVAL)) && !(pfd.revents & POLLOUT))
                return eb_fail(err, EB_EIO, "port %s: device gone during write; check the cable and retry", url);
            continue;
        }
        return eb_fail(err, EB_EIO, "port %s: device gone during write (%s); check the cable and retry", url,
                       n < 0 ? strerror(errno) : "wrote nothing");
    }
    return EB_OK;
}

long eb_port_fd_read(int fd, const char *url, void *buf, size_t cap, eb_deadline d, eb_error *err)
{
    for (;;) {
        ssize_t n = read(fd, buf, cap);
        if (n > 0)
            return n;
        if (n == 0) {
            /* End of file: a closed TCP connection, or a tty that hung up. */
            struct stat st;
            if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode))
                return -eb_fail(err, EB_EIO, "port %s: connection closed by the server", url);
            if (!isatty(fd))
                return -eb_fail(err, EB_EIO, "port %s: device gone (hang-up); check the cable and retry", url);
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return -eb_fail(err, EB_EIO, "port %s: device gone (%s); check the cable and retry", url, strerror(errno));
        int w = eb_port_wait_readable(fd, d);
        if (w == 0)
            return 0;
        if (w < 0) {
            /* A hang-up may still leave bytes to read; one more try tells. */
            n = read(fd, buf, cap);
            if (n > 0)
                return n;
            return -eb_fail(err, EB_EIO, "port %s: device gone (hang-up); check the cable and retry", url);
        }
    }
}

int eb_port_fd_set_lines(int fd, const char *url, bool dtr, bool rts, eb_error *err)
{
    int bits;
    if (ioctl(fd, TIOCMGET, &bits) != 0) {
        if (errno == ENOTTY || errno == EINVAL)
            return 1;
        return eb_fail(err, EB_EIO, "port %s: cannot read modem lines: %s", url, strerror(errno));
    }
    bits = dtr ? bits | TIOCM_DTR : bits & ~TIOCM_DTR;
    bits = rts ? bits | TIOCM_RTS : bits & ~TIOCM_RTS;
    if (ioctl(fd, TIOCMSET, &bits) != 0) {
        if (errno == ENOTTY || errno == EINVAL)
            return 1;
        return eb_fail(err, EB_EIO, "port %s: cannot set DTR/RTS: %s", url, strerror(errno));
    }
    return EB_OK;
}
