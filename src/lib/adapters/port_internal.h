/* Private to the port backends: their ops tables and shared fd helpers. */
#ifndef ESPBENCH_PORT_INTERNAL_H
#define ESPBENCH_PORT_INTERNAL_H

#include <stddef.h>

#include "espbench/base/buf.h"
#include "espbench/adapters/port.h"

extern const eb_port_ops eb_port_serial_ops;
extern const eb_port_ops eb_port_termios_ops;
extern const eb_port_ops eb_port_socket_ops;
extern const eb_port_ops eb_port_rfc2217_ops;
extern const eb_port_ops eb_port_fake_ops;

/* Opens a local device path and classifies the failure: absent, permission
 * (dialout hint), busy (another process holds the lock). Returns the fd (with
 * an exclusive flock held) or -1 with err set. */
int eb_port_open_device_fd(const char *path, eb_error *err);
/* Applies raw 8N1 termios at a baud; EB_ECONFIG for unsupported rates. */
int eb_port_termios_setup(int fd, const char *path, uint32_t baud, eb_error *err);
/* Waits until fd is readable (1), the deadline passes (0) or it hangs up (-1). */
int eb_port_wait_readable(int fd, eb_deadline d);
/* Writes all of buf to a non-blocking fd before the deadline. */
int eb_port_fd_write_all(int fd, const char *url, const void *buf, size_t len, eb_deadline d, eb_error *err);
/* Reads what is available from a non-blocking fd (see eb_port_ops.read). */
long eb_port_fd_read(int fd, const char *url, void *buf, size_t cap, eb_deadline d, eb_error *err);
/* Sets DTR/RTS at once with TIOCMSET; 1 when the device has no modem lines. */
int eb_port_fd_set_lines(int fd, const char *url, bool dtr, bool rts, eb_error *err);

/* Parses "host:port" (IPv6 in brackets) and connects with a deadline.
 * Returns a non-blocking TCP socket with TCP_NODELAY, or -1 with err set. */
int eb_port_tcp_connect(const char *hostport, const char *url, eb_deadline d, eb_error *err);

/* --- Telnet / RFC 2217 receive decoder (pure; port_rfc2217.c) --- */
enum { EB_TN_IAC = 255, EB_TN_DONT = 254, EB_TN_DO = 253, EB_TN_WONT = 252, EB_TN_WILL = 251,
       EB_TN_SB = 250, EB_TN_SE = 240, EB_TN_BINARY = 0, EB_TN_ECHO = 1, EB_TN_SGA = 3,
       EB_TN_COM_PORT = 44 };

typedef struct eb_telnet_rx {
    int state;           /* data, IAC seen, option verb, SB body, SB IAC */
    uint8_t verb;
    uint8_t sb[64];      /* subnegotiation body (option byte first) */
    size_t sb_len;
} eb_telnet_rx;

typedef struct eb_telnet_events {
    void (*negotiate)(void *user, uint8_t verb, uint8_t option);      /* WILL/WONT/DO/DONT */
    void (*subneg)(void *user, const uint8_t *body, size_t len);      /* body[0] = option */
    void *user;
} eb_telnet_events;

/* Decodes n received bytes: user data (IAC IAC -> 0xFF) goes to out (room for
 * n bytes), Telnet commands to the callbacks. Returns the data byte count. */
size_t eb_telnet_decode(eb_telnet_rx *t, const uint8_t *in, size_t n, uint8_t *out, const eb_telnet_events *ev);
/* The client's side of Telnet option negotiation and the server's RFC 2217
 * replies, as pure state: what we offered, whether the server does
 * COM-PORT-OPTION, and how many acks (with their value) came per command. */
#define EB_RFC2217_MAX_ACK 16
typedef struct eb_rfc2217_negot {
    bool sent_will[256], sent_do[256];
    bool server_do_com_port;
    unsigned acks[EB_RFC2217_MAX_ACK];  /* count of server replies per command (cmd+100) */
    uint8_t ack_value[EB_RFC2217_MAX_ACK][4];
} eb_rfc2217_negot;
/* WILL/WONT/DO/DONT from the server: appends our answer (if any) to reply. */
void eb_rfc2217_negotiate(eb_rfc2217_negot *n, uint8_t verb, uint8_t opt, eb_buf *reply);
/* A subnegotiation body (option byte first): counts COM-PORT-OPTION acks. */
void eb_rfc2217_subneg(eb_rfc2217_negot *n, const uint8_t *body, size_t len);

/* Appends data to out with 0xFF doubled. */
void eb_telnet_escape(eb_buf *out, const uint8_t *data, size_t len);

#endif
