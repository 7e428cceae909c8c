/* Serial ports behind one ops struct: local (libserialport), termios (ptys and
 * other devices), RFC 2217 and raw TCP. The port URL grammar follows pyserial /
 * esptool / labgrid: "/dev/ttyUSB0", "COM3", "/dev/pts/5",
 * "rfc2217://host:port[?ign_set_control]", "socket://host:port"; and
 * "fake://SCRIPT", a scripted board for tests (port_fake.c). */
#ifndef ESPBENCH_PORT_H
#define ESPBENCH_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "espbench/base/clock.h"
#include "espbench/base/error.h"

typedef struct eb_port eb_port;

typedef struct eb_port_ops {
    const char *name; /* "serial", "termios", "rfc2217", "socket" */
    int (*open)(eb_port *p, const char *target, eb_error *err);
    void (*close)(eb_port *p);
    /* Writes all of buf before the deadline or fails (EB_EIO). */
    int (*write)(eb_port *p, const void *buf, size_t len, eb_deadline d, eb_error *err);
    /* Reads what is available, waiting until at least 1 byte or the deadline.
     * Returns bytes read (>0), 0 on deadline, or -EB_EIO with err set
     * (port gone, connection closed). */
    long (*read)(eb_port *p, void *buf, size_t cap, eb_deadline d, eb_error *err);
    int (*set_baud)(eb_port *p, uint32_t baud, eb_error *err);
    /* Modem lines. Return EB_OK, or 1 when the port cannot set lines (pty,
     * socket, RFC 2217 server that does not acknowledge), or an error. */
    int (*set_lines)(eb_port *p, bool dtr, bool rts, eb_error *err);
    /* Drops pending input. */
    void (*flush_input)(eb_port *p);
    /* A pollable fd for the receive side, or -1. */
    int (*fd)(eb_port *p);
} eb_port_ops;

struct eb_port {
    const eb_port_ops *ops;
    char url[256];
    uint32_t baud;
    bool can_set_lines;
    bool lines_unconfirmed;    /* DTR/RTS changes are sent but never confirmed
                                  (rfc2217 ?ign_set_control): they may reach no board */
    uint16_t usb_vid, usb_pid; /* 0 when unknown */
    bool lines_absent_known;   /* the owner knows there are no DTR/RTS (a virtual board's pty):
                                  resets say nothing about their absence */
    void *impl;                /* backend state */
};

/* Opens a port by URL at a baud rate. */
int eb_port_open(eb_port **out, const char *url, uint32_t baud, eb_error *err);
void eb_port_close(eb_port *p);

static inline int eb_port_write(eb_port *p, const void *b, size_t n, eb_deadline d, eb_error *e)
{
    return p->ops->write(p, b, n, d, e);
}
static inline long eb_port_read(eb_port *p, void *b, size_t n, eb_deadline d, eb_error *e)
{
    return p->ops->read(p, b, n, d, e);
}
int eb_port_set_baud(eb_port *p, uint32_t baud, eb_error *err);
int eb_port_set_lines(eb_port *p, bool dtr, bool rts, eb_error *err);
void eb_port_flush_input(eb_port *p);

/* Local port listing for `espbench ports`. */
typedef struct eb_port_info {
    char path[128];
    char description[128];
    char serial[64];
    uint16_t vid, pid;
    const char *kind; /* "Espressif USB-Serial/JTAG", "CP210x", "CH340", "FTDI", or NULL */
} eb_port_info;

int eb_port_list(eb_port_info **out, int *count, eb_error *err);
/* The kind of USB-UART a VID:PID is ("CP210x", "Espressif USB-Serial/JTAG"), or NULL. */
const char *eb_port_usb_kind(uint16_t vid, uint16_t pid);

#endif
