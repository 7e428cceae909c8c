/* Control socket (see vb_control.h). Commands:
 *   reset            hard reset into the application (EN pin)
 *   download         reset into download mode (EN with IO0 low)
 *   fault SPEC       arm a fault (KIND[:ARG][@WHEN])
 *   lines DTR RTS    the host's modem lines (0/1 = deasserted/asserted) into
 *                    the board's auto-reset circuit: what a pty cannot carry
 *   status           mode, baud, chip, app project
 *   quit             stop the board (clean exit)
 *   link SPEC        link conditions and model forcing for the next tests:
 *                    "rssi=-65 rtt=20 loss=1 phy=65 model=on|off" or
 *                    "published" (docs/model.md)
 *   atten DB         an attenuator between the APs and the board, as an
 *                    instrument double (tests/doubles/) reports it: scans
 *                    see every AP DB weaker (none below -98 dBm) and the
 *                    link model takes the AP's RSSI less DB ("none" = out) */
#include "vb_control.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_CLIENTS 8
#define LINE_MAX_LEN 512

typedef struct client {
    int fd;
    eb_buf in;
} client;

struct vb_control {
    int listen_fd;
    char *path;
    vb_control_target t;
    client clients[MAX_CLIENTS];
};

typedef struct control_cmd {
    const char *name;
    bool takes_arg;
    int (*run)(const vb_control_target *t, const char *arg, eb_buf *reply, eb_error *err);
} control_cmd;

static int c_reset(const vb_control_target *t, const char *arg, eb_buf *r, eb_error *e)
{
    (void)arg;
    return t->reset(t->ctx, false, r, e);
}
static int c_download(const vb_control_target *t, const char *arg, eb_buf *r, eb_error *e)
{
    (void)arg;
    return t->reset(t->ctx, true, r, e);
}
static int c_fault(const vb_control_target *t, const char *arg, eb_buf *r, eb_error *e)
{
    return t->fault(t->ctx, arg, r, e);
}
static int c_status(const vb_control_target *t, const char *arg, eb_buf *r, eb_error *e)
{
    (void)arg;
    return t->status(t->ctx, r, e);
}
static int c_lines(const vb_control_target *t, const char *arg, eb_buf *r, eb_error *e)
{
    int dtr, rts;
    char tail;
    if (sscanf(arg, "%d %d %c", &dtr, &rts, &tail) != 2 || (dtr & ~1) || (rts & ~1))
        return eb_fail(e, EB_ECONFIG, "lines: expected DTR RTS as 0 or 1 (e.g. \"lines 1 0\")");
    return t->lines(t->ctx, dtr, rts, r, e);
}
static int c_quit(const vb_control_target *t, const char *arg, eb_buf *r, eb_error *e)
{
    (void)arg;
    return t->quit(t->ctx, r, e);
}

static int c_link(const vb_control_target *t, const char *arg, eb_buf *r, eb_error *e)
{
    if (!t->link)
        return eb_fail(e, EB_ECONFIG, "this board has no link model");
    return t->link(t->ctx, arg, r, e);
}

/* The attenuator's input: the link's atten= setting (vb_board_link_cmd). */
static int c_atten(const vb_control_target *t, const char *arg, eb_buf *r, eb_error *e)
{
    if (!t->link)
        return eb_fail(e, EB_ECONFIG, "this board has no link model");
    char spec[64];
    if (strlen(arg) > 20 || strchr(arg, ' '))
        return eb_fail(e, EB_ECONFIG, "atten: expected one value in dB or none (e.g. \"atten 30\")");
    snprintf(spec, sizeof spec, "atten=%s", arg);
    return t->link(t->ctx, spec, r, e);
}

static const control_cmd cmds[] = {
    {"reset", false, c_reset},   {"download", false, c_download}, {"fault", true, c_fault},
    {"status", false, c_status}, {"quit", false, c_quit},     {"lines", true, c_lines},
    {"link", true, c_link},      {"atten", true, c_atten},
};

void vb_control_run_line(const vb_control_target *t, const char *line, eb_buf *reply)
{
    while (*line == ' ' || *line == '\t')
        line++;
    size_t n = strcspn(line, " \t");
    const char *arg = line + n;
    while (*arg == ' ' || *arg == '\t')
        arg++;
    const control_cmd *cmd = NULL;
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (strlen(cmds[i].name) == n && strncmp(cmds[i].name, line, n) == 0)
            cmd = &cmds[i];
    if (!cmd) {
        eb_buf_printf(reply, "err unknown command \"%.*s\" (commands: reset, download, fault SPEC, lines DTR RTS, status, quit, link SPEC, atten DB)",
                      (int)(n > 40 ? 40 : n), line);
        return;
    }
    if (cmd->takes_arg && !*arg) {
        eb_buf_printf(reply, "err %s needs an argument", cmd->name);
        return;
    }
    if (!cmd->takes_arg && *arg) {
        eb_buf_printf(reply, "err %s takes no argument", cmd->name);
        return;
    }
    eb_buf text;
    eb_buf_init(&text);
    eb_error err;
    eb_error_clear(&err);
    if (cmd->run(t, arg, &text, &err) == 0)
        eb_buf_printf(reply, "ok%s%s", text.len ? " " : "", eb_buf_cstr(&text));
    else
        eb_buf_printf(reply, "err %s", err.msg);
    eb_buf_free(&text);
}

int vb_control_open(vb_control **out, const char *path, const vb_control_target *t, eb_error *err)
{
    *out = NULL;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path)
        return eb_fail(err, EB_ECONFIG, "--control %s: path too long for a unix socket (at most %zu bytes)", path,
                       sizeof sa.sun_path - 1);
    strcpy(sa.sun_path, path);
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode))
            return eb_fail(err, EB_ECONFIG, "--control %s: exists and is not a socket (choose another path)", path);
        unlink(path); /* left over from a board that was killed */
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return eb_fail(err, EB_EIO, "--control %s: socket: %s", path, strerror(errno));
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, 4) != 0) {
        int e = errno;
        close(fd);
        return eb_fail(err, EB_EIO, "--control %s: cannot listen: %s", path, strerror(e));
    }
    vb_control *c = calloc(1, sizeof *c);
    if (!c) {
        close(fd);
        unlink(path);
        return eb_fail(err, EB_EIO, "--control: out of memory");
    }
    c->listen_fd = fd;
    c->path = strdup(path);
    c->t = *t;
    for (int i = 0; i < MAX_CLIENTS; i++) {
        c->clients[i].fd = -1;
        eb_buf_init(&c->clients[i].in);
    }
    *out = c;
    return 0;
}

static void drop_client(client *cl)
{
    if (cl->fd >= 0)
        close(cl->fd);
    cl->fd = -1;
    eb_buf_reset(&cl->in);
}

void vb_control_close(vb_control *c)
{
    if (!c)
        return;
    for (int i = 0; i < MAX_CLIENTS; i++) {
        drop_client(&c->clients[i]);
        eb_buf_free(&c->clients[i].in);
    }
    close(c->listen_fd);
    unlink(c->path);
    free(c->path);
    free(c);
}

int vb_control_pollfds(vb_control *c, struct pollfd *fds, int max)
{
    int n = 0;
    if (n < max)
        fds[n++] = (struct pollfd){.fd = c->listen_fd, .events = POLLIN};
    for (int i = 0; i < MAX_CLIENTS && n < max; i++)
        if (c->clients[i].fd >= 0)
            fds[n++] = (struct pollfd){.fd = c->clients[i].fd, .events = POLLIN};
    return n;
}

static void send_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
        if (w <= 0) {
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0 && errno == EAGAIN) {
                struct pollfd p = {.fd = fd, .events = POLLOUT};
                if (poll(&p, 1, 1000) > 0)
                    continue;
            }
            return;
        }
        s += w;
        n -= (size_t)w;
    }
}

static void serve_client(vb_control *c, client *cl)
{
    char buf[512];
    ssize_t r = recv(cl->fd, buf, sizeof buf, 0);
    if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
        drop_client(cl);
        return;
    }
    if (r < 0)
        return;
    eb_buf_append(&cl->in, buf, (size_t)r);
    for (;;) {
        uint8_t *nl = memchr(cl->in.data, '\n', cl->in.len);
        if (!nl) {
            if (cl->in.len > LINE_MAX_LEN) {
                send_all(cl->fd, "err line too long\n", 18);
                drop_client(cl);
            }
            return;
        }
        size_t len = (size_t)(nl - cl->in.data);
        char line[LINE_MAX_LEN + 1];
        size_t copy = len > LINE_MAX_LEN ? LINE_MAX_LEN : len;
        memcpy(line, cl->in.data, copy);
        line[copy] = '\0';
        if (copy && line[copy - 1] == '\r')
            line[copy - 1] = '\0';
        eb_buf_consume(&cl->in, len + 1);
        if (!line[0])
            continue;
        eb_buf reply;
        eb_buf_init(&reply);
        vb_control_run_line(&c->t, line, &reply);
        eb_buf_append_byte(&reply, '\n');
        send_all(cl->fd, (const char *)reply.data, reply.len);
        eb_buf_free(&reply);
        if (cl->fd < 0)
            return;
    }
}

void vb_control_service(vb_control *c, const struct pollfd *fds, int n)
{
    for (int i = 0; i < n; i++) {
        if (!fds[i].revents)
            continue;
        if (fds[i].fd == c->listen_fd) {
            int fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
            if (fd < 0)
                continue;
            int slot = -1;
            for (int k = 0; k < MAX_CLIENTS && slot < 0; k++)
                if (c->clients[k].fd < 0)
                    slot = k;
            if (slot < 0) {
                send_all(fd, "err too many control connections\n", 33);
                close(fd);
                continue;
            }
            c->clients[slot].fd = fd;
            continue;
        }
        for (int k = 0; k < MAX_CLIENTS; k++)
            if (c->clients[k].fd == fds[i].fd) {
                serve_client(c, &c->clients[k]);
                break;
            }
    }
}
