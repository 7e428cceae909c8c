/* Control-socket client (vboard_ctl.h): a Unix stream socket, line protocol
 * of src/vboard/vb_control.c. Every wait has the caller's deadline. */
#include "espbench/adapters/vboard_ctl.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "espbench/base/clock.h"

static int wait_fd(int fd, short ev, eb_deadline d)
{
    int ms = eb_deadline_left_ms(d);
    if (ms <= 0)
        return 0;
    struct pollfd p = {.fd = fd, .events = ev};
    int r;
    do
        r = poll(&p, 1, ms);
    while (r < 0 && errno == EINTR);
    return r;
}

int eb_vboard_ctl(const char *path, const char *command, char *reply, size_t cap, int timeout_ms, eb_error *err)
{
    if (cap)
        reply[0] = '\0';
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path)
        return eb_fail(err, EB_ECONFIG, "control socket path too long: %s", path);
    memcpy(a.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return eb_fail(err, EB_EIO, "control socket: %s", strerror(errno));
    eb_deadline d = eb_deadline_in(timeout_ms > 0 ? (uint64_t)timeout_ms : 1);
    int rc = 0;
    char line[512];
    size_t n = (size_t)snprintf(line, sizeof line, "%s\n", command), off = 0, got = 0;
    char in[512];
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        rc = eb_fail(err, EB_EIO, "virtual board control socket %s: %s; is the virtual board still running?", path,
                     strerror(errno));
        goto out;
    }
    while (off < n) {
        if (wait_fd(fd, POLLOUT, d) <= 0) {
            rc = eb_fail(err, EB_EIO, "virtual board control socket %s: no room to send within %d ms", path,
                         timeout_ms);
            goto out;
        }
        ssize_t w = send(fd, line + off, n - off, MSG_NOSIGNAL);
        if (w < 0 && errno != EINTR && errno != EAGAIN) {
            rc = eb_fail(err, EB_EIO, "virtual board control socket %s: %s", path, strerror(errno));
            goto out;
        }
        off += w > 0 ? (size_t)w : 0;
    }
    while (!memchr(in, '\n', got)) {
        if (got + 1 >= sizeof in || wait_fd(fd, POLLIN, d) <= 0) {
            rc = eb_fail(err, EB_EIO, "virtual board control socket %s: no reply to '%s' within %d ms", path,
                         command, timeout_ms);
            goto out;
        }
        ssize_t r = recv(fd, in + got, sizeof in - 1 - got, 0);
        if (r == 0) {
            rc = eb_fail(err, EB_EIO, "virtual board control socket %s: closed before replying to '%s'", path,
                         command);
            goto out;
        }
        if (r > 0)
            got += (size_t)r;
    }
    in[got] = '\0';
    in[strcspn(in, "\r\n")] = '\0';
    if (strncmp(in, "ok", 2) == 0) {
        const char *rest = in + 2;
        while (*rest == ' ')
            rest++;
        if (cap)
            snprintf(reply, cap, "%s", rest);
    } else {
        rc = eb_fail(err, EB_ECONFIG, "virtual board refused '%s': %s", command,
                     strncmp(in, "err ", 4) == 0 ? in + 4 : in);
    }
out:
    close(fd);
    return rc;
}
