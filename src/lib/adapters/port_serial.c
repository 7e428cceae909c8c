/* libserialport backend for local USB/UART devices: it knows the USB VID:PID
 * (used to pick the reset sequence). Devices it refuses fall back to termios
 * (open returns 1 to ask for that). */
#include <errno.h>
#include <fcntl.h>
#include <libserialport.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "port_internal.h"

typedef struct {
    struct sp_port *sp;
    int fd;
} serial_impl;

static int s_open(eb_port *p, const char *target, eb_error *err)
{
    /* Classify absent/permission/busy the same way for every local backend. */
    int probe = eb_port_open_device_fd(target, err);
    if (probe < 0)
        return err ? err->code : EB_EIO;
    close(probe); /* releases the probe's lock too */

    struct sp_port *sp = NULL;
    if (sp_get_port_by_name(target, &sp) != SP_OK)
        return 1;
    if (sp_open(sp, SP_MODE_READ_WRITE) != SP_OK) {
        sp_free_port(sp);
        return 1;
    }
    int fd = -1;
    if (sp_get_port_handle(sp, &fd) != SP_OK || fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        sp_close(sp);
        sp_free_port(sp);
        if (e == EWOULDBLOCK)
            return eb_fail(err, EB_EIO, "port %s is busy: another program holds it; close it and retry", target);
        return 1;
    }
    struct sp_port_config *cfg = NULL;
    int ok = sp_new_config(&cfg) == SP_OK && sp_set_config_baudrate(cfg, (int)p->baud) == SP_OK &&
             sp_set_config_bits(cfg, 8) == SP_OK && sp_set_config_parity(cfg, SP_PARITY_NONE) == SP_OK &&
             sp_set_config_stopbits(cfg, 1) == SP_OK &&
             sp_set_config_flowcontrol(cfg, SP_FLOWCONTROL_NONE) == SP_OK && sp_set_config(sp, cfg) == SP_OK;
    if (cfg)
        sp_free_config(cfg);
    if (!ok) {
        sp_close(sp);
        sp_free_port(sp);
        return 1;
    }
    /* The shared fd helpers poll with deadlines: keep the fd non-blocking. */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
    serial_impl *s = calloc(1, sizeof *s);
    if (!s) {
        sp_close(sp);
        sp_free_port(sp);
        return eb_fail(err, EB_EIO, "out of memory");
    }
    s->sp = sp;
    s->fd = fd;
    p->impl = s;
    p->can_set_lines = true;
    if (sp_get_port_transport(sp) == SP_TRANSPORT_USB) {
        int vid = 0, pid = 0;
        if (sp_get_port_usb_vid_pid(sp, &vid, &pid) == SP_OK) {
            p->usb_vid = (uint16_t)vid;
            p->usb_pid = (uint16_t)pid;
        }
    }
    return EB_OK;
}

static void s_close(eb_port *p)
{
    serial_impl *s = p->impl;
    if (s) {
        sp_close(s->sp);
        sp_free_port(s->sp);
        free(s);
    }
    p->impl = NULL;
}

/* libserialport opens the device non-blocking; the shared fd helpers give
 * deadline-bounded I/O and tell a vanished device from a quiet one. */
static int s_write(eb_port *p, const void *buf, size_t len, eb_deadline d, eb_error *err)
{
    serial_impl *s = p->impl;
    return eb_port_fd_write_all(s->fd, p->url, buf, len, d, err);
}

static long s_read(eb_port *p, void *buf, size_t cap, eb_deadline d, eb_error *err)
{
    serial_impl *s = p->impl;
    return eb_port_fd_read(s->fd, p->url, buf, cap, d, err);
}

static int s_set_baud(eb_port *p, uint32_t baud, eb_error *err)
{
    serial_impl *s = p->impl;
    sp_drain(s->sp);
    if (sp_set_baudrate(s->sp, (int)baud) != SP_OK)
        return eb_fail(err, EB_EIO, "port %s: cannot set %u baud", p->url, baud);
    return EB_OK;
}

static int s_set_lines(eb_port *p, bool dtr, bool rts, eb_error *err)
{
    serial_impl *s = p->impl;
    /* TIOCMSET changes both lines in one call (the "tight" reset needs that). */
    return eb_port_fd_set_lines(s->fd, p->url, dtr, rts, err);
}

static void s_flush_input(eb_port *p)
{
    serial_impl *s = p->impl;
    sp_flush(s->sp, SP_BUF_INPUT);
}

static int s_fd(eb_port *p)
{
    serial_impl *s = p->impl;
    return s->fd;
}

const eb_port_ops eb_port_serial_ops = {
    .name = "serial",
    .open = s_open,
    .close = s_close,
    .write = s_write,
    .read = s_read,
    .set_baud = s_set_baud,
    .set_lines = s_set_lines,
    .flush_input = s_flush_input,
    .fd = s_fd,
};
