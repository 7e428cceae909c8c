/* termios backend: ptys and local devices libserialport cannot enumerate
 * (libserialport 0.1.1 refuses /dev/pts/N). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "port_internal.h"

typedef struct {
    int fd;
} termios_impl;

static int t_open(eb_port *p, const char *target, eb_error *err)
{
    int fd = eb_port_open_device_fd(target, err);
    if (fd < 0)
        return err ? err->code : EB_EIO;
    int rc = eb_port_termios_setup(fd, target, p->baud, err);
    if (rc != EB_OK) {
        close(fd);
        return rc;
    }
    termios_impl *t = calloc(1, sizeof *t);
    if (!t) {
        close(fd);
        return eb_fail(err, EB_EIO, "out of memory");
    }
    t->fd = fd;
    p->impl = t;
    /* Whether lines can be set is learnt on first use (ptys answer ENOTTY). */
    p->can_set_lines = true;
    return EB_OK;
}

static void t_close(eb_port *p)
{
    termios_impl *t = p->impl;
    if (t) {
        close(t->fd);
        free(t);
    }
    p->impl = NULL;
}

static int t_write(eb_port *p, const void *buf, size_t len, eb_deadline d, eb_error *err)
{
    termios_impl *t = p->impl;
    return eb_port_fd_write_all(t->fd, p->url, buf, len, d, err);
}

static long t_read(eb_port *p, void *buf, size_t cap, eb_deadline d, eb_error *err)
{
    termios_impl *t = p->impl;
    return eb_port_fd_read(t->fd, p->url, buf, cap, d, err);
}

static int t_set_baud(eb_port *p, uint32_t baud, eb_error *err)
{
    termios_impl *t = p->impl;
    /* Let queued bytes leave at the old rate first. */
    tcdrain(t->fd);
    return eb_port_termios_setup(t->fd, p->url, baud, err);
}

static int t_set_lines(eb_port *p, bool dtr, bool rts, eb_error *err)
{
    termios_impl *t = p->impl;
    return eb_port_fd_set_lines(t->fd, p->url, dtr, rts, err);
}

static void t_flush_input(eb_port *p)
{
    termios_impl *t = p->impl;
    tcflush(t->fd, TCIFLUSH);
}

static int t_fd(eb_port *p)
{
    termios_impl *t = p->impl;
    return t->fd;
}

const eb_port_ops eb_port_termios_ops = {
    .name = "termios",
    .open = t_open,
    .close = t_close,
    .write = t_write,
    .read = t_read,
    .set_baud = t_set_baud,
    .set_lines = t_set_lines,
    .flush_input = t_flush_input,
    .fd = t_fd,
};
