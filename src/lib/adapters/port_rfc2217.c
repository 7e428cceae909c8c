/* rfc2217://host:port[?ign_set_control] — a serial port behind ser2net,
 * esp_rfc2217_server or a labgrid export.
 *
 * Why a small client here instead of libgensio: libgensio (ser2net's own
 * library) is maintained and has an RFC 2217 client, but its API is built on
 * its own event loop (gensio_os_funcs, callbacks, waiters) and would need a
 * second I/O model next to the deadline-driven eb_port one, plus a new build
 * dependency (libgensio-dev) for a client subset of a few hundred lines. What
 * espbench needs is small and fixed: Telnet option negotiation for BINARY, SGA
 * and COM-PORT-OPTION, SET-BAUDRATE/DATASIZE/PARITY/STOPSIZE with their acks,
 * SET-CONTROL for DTR/RTS and PURGE-DATA. The decoder below is a pure
 * function with unit tests, and the whole backend is tested against a real
 * ser2net 4.3 (tests/e2e/rfc2217_*.sh). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "espbench/base/log.h"
#include "port_internal.h"

/* RFC 2217 client commands; the server answers with cmd + 100. */
enum {
    CPO_SET_BAUDRATE = 1,
    CPO_SET_DATASIZE = 2,
    CPO_SET_PARITY = 3,
    CPO_SET_STOPSIZE = 4,
    CPO_SET_CONTROL = 5,
    CPO_PURGE_DATA = 12,
    CPO_SERVER_OFFSET = 100,
    CTL_NO_FLOW = 1,
    CTL_DTR_ON = 8,
    CTL_DTR_OFF = 9,
    CTL_RTS_ON = 11,
    CTL_RTS_OFF = 12,
    PURGE_RX = 1,
    PURGE_BOTH = 3,
};

enum { TS_DATA, TS_IAC, TS_VERB, TS_SB, TS_SB_IAC };

size_t eb_telnet_decode(eb_telnet_rx *t, const uint8_t *in, size_t n, uint8_t *out, const eb_telnet_events *ev)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = in[i];
        switch (t->state) {
        case TS_DATA:
            if (c == EB_TN_IAC)
                t->state = TS_IAC;
            else
                out[o++] = c;
            break;
        case TS_IAC:
            if (c == EB_TN_IAC) {
                out[o++] = c;
                t->state = TS_DATA;
            } else if (c >= EB_TN_WILL && c <= EB_TN_DONT) {
                t->verb = c;
                t->state = TS_VERB;
            } else if (c == EB_TN_SB) {
                t->sb_len = 0;
                t->state = TS_SB;
            } else {
                t->state = TS_DATA; /* NOP, GA, ...: nothing to do */
            }
            break;
        case TS_VERB:
            if (ev && ev->negotiate)
                ev->negotiate(ev->user, t->verb, c);
            t->state = TS_DATA;
            break;
        case TS_SB:
            if (c == EB_TN_IAC)
                t->state = TS_SB_IAC;
            else if (t->sb_len < sizeof t->sb)
                t->sb[t->sb_len++] = c;
            break;
        case TS_SB_IAC:
            if (c == EB_TN_IAC) {
                if (t->sb_len < sizeof t->sb)
                    t->sb[t->sb_len++] = c;
                t->state = TS_SB;
            } else {
                /* IAC SE (or a malformed end): the subnegotiation is complete. */
                if (ev && ev->subneg && t->sb_len > 0)
                    ev->subneg(ev->user, t->sb, t->sb_len);
                t->state = TS_DATA;
            }
            break;
        }
    }
    return o;
}

void eb_telnet_escape(eb_buf *out, const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        eb_buf_append_byte(out, data[i]);
        if (data[i] == EB_TN_IAC)
            eb_buf_append_byte(out, EB_TN_IAC);
    }
}

typedef struct {
    int fd;
    bool ign_set_control;
    bool control_acked;       /* false once the server ignored a DTR/RTS change */
    eb_telnet_rx rx;
    eb_buf pending;           /* decoded data not yet returned */
    eb_buf out;               /* negotiation replies to send */
    eb_rfc2217_negot neg;     /* option state and server acks (pure, fuzzed) */
    eb_port *port;
} rfc_impl;

static const uint8_t we_will[] = {EB_TN_BINARY, EB_TN_SGA, EB_TN_COM_PORT};
static const uint8_t we_do[] = {EB_TN_BINARY, EB_TN_SGA, EB_TN_ECHO};

static bool in_list(const uint8_t *list, size_t n, uint8_t v)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == v)
            return true;
    return false;
}

static void queue_cmd(eb_buf *reply, uint8_t verb, uint8_t opt)
{
    uint8_t b[3] = {EB_TN_IAC, verb, opt};
    eb_buf_append(reply, b, 3);
}

void eb_rfc2217_negotiate(eb_rfc2217_negot *n, uint8_t verb, uint8_t opt, eb_buf *reply)
{
    if (verb == EB_TN_DO) {
        if (opt == EB_TN_COM_PORT)
            n->server_do_com_port = true;
        bool ok = in_list(we_will, sizeof we_will, opt);
        if (ok && !n->sent_will[opt]) {
            n->sent_will[opt] = true;
            queue_cmd(reply, EB_TN_WILL, opt);
        } else if (!ok) {
            queue_cmd(reply, EB_TN_WONT, opt);
        }
    } else if (verb == EB_TN_WILL) {
        bool ok = in_list(we_do, sizeof we_do, opt);
        if (ok && !n->sent_do[opt]) {
            n->sent_do[opt] = true;
            queue_cmd(reply, EB_TN_DO, opt);
        } else if (!ok) {
            queue_cmd(reply, EB_TN_DONT, opt);
        }
    } else if (verb == EB_TN_DONT && opt == EB_TN_COM_PORT) {
        n->server_do_com_port = false;
    }
}

void eb_rfc2217_subneg(eb_rfc2217_negot *n, const uint8_t *body, size_t len)
{
    if (len < 2 || body[0] != EB_TN_COM_PORT || body[1] < CPO_SERVER_OFFSET)
        return;
    unsigned code = body[1] - CPO_SERVER_OFFSET;
    if (code >= EB_RFC2217_MAX_ACK)
        return;
    n->acks[code]++;
    memset(n->ack_value[code], 0, 4);
    memcpy(n->ack_value[code], body + 2, len - 2 > 4 ? 4 : len - 2);
}

static void on_negotiate(void *user, uint8_t verb, uint8_t opt)
{
    rfc_impl *r = user;
    eb_rfc2217_negotiate(&r->neg, verb, opt, &r->out);
}

static void on_subneg(void *user, const uint8_t *body, size_t len)
{
    rfc_impl *r = user;
    eb_rfc2217_subneg(&r->neg, body, len);
}

/* Reads from the socket once (until the deadline), decodes, and sends any
 * negotiation replies. 1 progress, 0 deadline, negative error. */
static int pump(rfc_impl *r, eb_deadline d, eb_error *err)
{
    uint8_t raw[4096], data[4096];
    long n = eb_port_fd_read(r->fd, r->port->url, raw, sizeof raw, d, err);
    if (n <= 0)
        return (int)n;
    eb_telnet_events ev = {on_negotiate, on_subneg, r};
    size_t k = eb_telnet_decode(&r->rx, raw, (size_t)n, data, &ev);
    eb_buf_append(&r->pending, data, k);
    if (r->out.len) {
        int rc = eb_port_fd_write_all(r->fd, r->port->url, r->out.data, r->out.len, eb_deadline_in(2000), err);
        eb_buf_reset(&r->out);
        if (rc != EB_OK)
            return -rc;
    }
    return 1;
}

static int send_cpo(rfc_impl *r, uint8_t cmd, const uint8_t *val, size_t len, eb_error *err)
{
    eb_buf b;
    eb_buf_init(&b);
    uint8_t head[4] = {EB_TN_IAC, EB_TN_SB, EB_TN_COM_PORT, cmd};
    eb_buf_append(&b, head, 4);
    eb_telnet_escape(&b, val, len);
    uint8_t tail[2] = {EB_TN_IAC, EB_TN_SE};
    eb_buf_append(&b, tail, 2);
    int rc = eb_port_fd_write_all(r->fd, r->port->url, b.data, b.len, eb_deadline_in(2000), err);
    eb_buf_free(&b);
    return rc;
}

/* Waits until the server has answered cmd more than `seen` times. */
static int wait_ack(rfc_impl *r, uint8_t cmd, unsigned seen, unsigned ms, eb_error *err)
{
    eb_deadline d = eb_deadline_in(ms);
    while (r->neg.acks[cmd] <= seen) {
        if (eb_deadline_passed(d))
            return 1;
        int p = pump(r, d, err);
        if (p < 0)
            return -p;
        if (p == 0)
            return 1;
    }
    return EB_OK;
}

static int cpo_acked(rfc_impl *r, uint8_t cmd, const uint8_t *val, size_t len, const char *what, eb_error *err)
{
    unsigned seen = r->neg.acks[cmd];
    int rc = send_cpo(r, cmd, val, len, err);
    if (rc == EB_OK)
        rc = wait_ack(r, cmd, seen, 3000, err);
    if (rc == 1)
        return eb_fail(err, EB_EIO, "port %s: the RFC 2217 server did not confirm %s", r->port->url, what);
    return rc;
}

static int r_set_baud(eb_port *p, uint32_t baud, eb_error *err)
{
    rfc_impl *r = p->impl;
    uint8_t v[4] = {(uint8_t)(baud >> 24), (uint8_t)(baud >> 16), (uint8_t)(baud >> 8), (uint8_t)baud};
    return cpo_acked(r, CPO_SET_BAUDRATE, v, 4, "the baud rate", err);
}

static void r_close(eb_port *p)
{
    rfc_impl *r = p->impl;
    if (r) {
        close(r->fd);
        eb_buf_free(&r->pending);
        eb_buf_free(&r->out);
        free(r);
    }
    p->impl = NULL;
}

static int r_open(eb_port *p, const char *target, eb_error *err)
{
    const char *q = strchr(target, '?');
    bool ign = false;
    if (q) {
        /* Options as pyserial spells them; only ign_set_control changes anything here. */
        char opts[128];
        snprintf(opts, sizeof opts, "%s", q + 1);
        for (char *save = NULL, *o = strtok_r(opts, "&", &save); o; o = strtok_r(NULL, "&", &save)) {
            if (!strcmp(o, "ign_set_control"))
                ign = true;
            else if (strncmp(o, "logging=", 8) && strcmp(o, "poll_modem") && strncmp(o, "timeout=", 8))
                return eb_fail(err, EB_ECONFIG, "port %s: unknown option '%s' (known: ign_set_control)", p->url, o);
        }
    }
    int fd = eb_port_tcp_connect(target, p->url, eb_deadline_in(5000), err);
    if (fd < 0)
        return err ? err->code : EB_EIO;
    rfc_impl *r = calloc(1, sizeof *r);
    if (!r) {
        close(fd);
        return eb_fail(err, EB_EIO, "out of memory");
    }
    r->fd = fd;
    r->port = p;
    r->ign_set_control = ign;
    r->control_acked = true;
    eb_buf_init(&r->pending);
    eb_buf_init(&r->out);
    p->impl = r;
    for (size_t i = 0; i < sizeof we_will; i++) {
        r->neg.sent_will[we_will[i]] = true;
        queue_cmd(&r->out, EB_TN_WILL, we_will[i]);
    }
    for (size_t i = 0; i < sizeof we_do; i++) {
        r->neg.sent_do[we_do[i]] = true;
        queue_cmd(&r->out, EB_TN_DO, we_do[i]);
    }
    int rc = eb_port_fd_write_all(fd, p->url, r->out.data, r->out.len, eb_deadline_in(2000), err);
    eb_buf_reset(&r->out);
    eb_deadline d = eb_deadline_in(3000);
    while (rc == EB_OK && !r->neg.server_do_com_port) {
        int pr = eb_deadline_passed(d) ? 0 : pump(r, d, err);
        if (pr < 0)
            rc = -pr;
        else if (pr == 0)
            rc = eb_fail(err, EB_EIO,
                         "port %s: the server does not speak RFC 2217 (no COM-PORT-OPTION); for ser2net use 'accepter: telnet(rfc2217),tcp,...', or use socket:// for raw TCP",
                         p->url);
    }
    uint8_t v8 = 8, none = 1, one = 1;
    if (rc == EB_OK)
        rc = r_set_baud(p, p->baud, err);
    if (rc == EB_OK)
        rc = cpo_acked(r, CPO_SET_DATASIZE, &v8, 1, "the data size", err);
    if (rc == EB_OK)
        rc = cpo_acked(r, CPO_SET_PARITY, &none, 1, "the parity", err);
    if (rc == EB_OK)
        rc = cpo_acked(r, CPO_SET_STOPSIZE, &one, 1, "the stop bits", err);
    if (rc == EB_OK) {
        uint8_t flow = CTL_NO_FLOW;
        unsigned seen = r->neg.acks[CPO_SET_CONTROL];
        rc = send_cpo(r, CPO_SET_CONTROL, &flow, 1, err);
        if (rc == EB_OK && !ign && wait_ack(r, CPO_SET_CONTROL, seen, 3000, err) == 1)
            rc = eb_fail(err, EB_EIO, "port %s: the RFC 2217 server did not confirm flow control; add ?ign_set_control to the URL",
                         p->url);
    }
    if (rc == EB_OK) {
        uint8_t purge = PURGE_BOTH;
        unsigned seen = r->neg.acks[CPO_PURGE_DATA];
        rc = send_cpo(r, CPO_PURGE_DATA, &purge, 1, err);
        if (rc == EB_OK && wait_ack(r, CPO_PURGE_DATA, seen, 1000, err) > 1)
            rc = err->code;
        eb_buf_reset(&r->pending); /* the server's banner or stale board output */
    }
    if (rc != EB_OK) {
        r_close(p);
        return rc;
    }
    p->can_set_lines = true;
    p->lines_unconfirmed = r->ign_set_control;
    return EB_OK;
}

static int r_write(eb_port *p, const void *buf, size_t len, eb_deadline d, eb_error *err)
{
    rfc_impl *r = p->impl;
    eb_buf b;
    eb_buf_init(&b);
    eb_telnet_escape(&b, buf, len);
    int rc = eb_port_fd_write_all(r->fd, p->url, b.data, b.len, d, err);
    eb_buf_free(&b);
    return rc;
}

static long r_read(eb_port *p, void *buf, size_t cap, eb_deadline d, eb_error *err)
{
    rfc_impl *r = p->impl;
    for (bool first = true; r->pending.len == 0; first = false) {
        int pr = !first && eb_deadline_passed(d) ? 0 : pump(r, d, err);
        if (pr < 0)
            return pr;
        if (pr == 0)
            return 0;
    }
    size_t n = r->pending.len < cap ? r->pending.len : cap;
    memcpy(buf, r->pending.data, n);
    eb_buf_consume(&r->pending, n);
    return (long)n;
}

static int r_set_lines(eb_port *p, bool dtr, bool rts, eb_error *err)
{
    rfc_impl *r = p->impl;
    if (!r->control_acked)
        return 1;
    /* Both commands in one TCP write keeps them close together (esptool #396). */
    eb_buf b;
    eb_buf_init(&b);
    uint8_t cmds[2] = {dtr ? CTL_DTR_ON : CTL_DTR_OFF, rts ? CTL_RTS_ON : CTL_RTS_OFF};
    for (int i = 0; i < 2; i++) {
        uint8_t f[6] = {EB_TN_IAC, EB_TN_SB, EB_TN_COM_PORT, CPO_SET_CONTROL, cmds[i], 0};
        eb_buf_append(&b, f, 5);
        uint8_t t[2] = {EB_TN_IAC, EB_TN_SE};
        eb_buf_append(&b, t, 2);
    }
    unsigned seen = r->neg.acks[CPO_SET_CONTROL];
    int rc = eb_port_fd_write_all(r->fd, p->url, b.data, b.len, eb_deadline_in(2000), err);
    eb_buf_free(&b);
    if (rc != EB_OK || r->ign_set_control)
        return rc;
    rc = wait_ack(r, CPO_SET_CONTROL, seen + 1, 1000, err);
    if (rc == 1) {
        /* ser2net on a pty never answers DTR/RTS changes. */
        r->control_acked = false;
        eb_log_once("rfc2217-control", EB_LOG_WARN,
                    "%s: the RFC 2217 server does not acknowledge DTR/RTS changes; add ?ign_set_control to the URL",
                    p->url);
    }
    return rc;
}

static void r_flush_input(eb_port *p)
{
    rfc_impl *r = p->impl;
    uint8_t purge = PURGE_RX;
    eb_error e;
    send_cpo(r, CPO_PURGE_DATA, &purge, 1, &e);
    /* Take what has already arrived, then drop it; a board that keeps
     * printing must not hold this loop (or grow the buffer) for long. */
    eb_deadline stop = eb_deadline_in(200);
    while (!eb_deadline_passed(stop) && pump(r, eb_now_ms(), &e) > 0)
        eb_buf_reset(&r->pending);
    eb_buf_reset(&r->pending);
}

static int r_fd(eb_port *p)
{
    rfc_impl *r = p->impl;
    return r->fd;
}

const eb_port_ops eb_port_rfc2217_ops = {
    .name = "rfc2217",
    .open = r_open,
    .close = r_close,
    .write = r_write,
    .read = r_read,
    .set_baud = r_set_baud,
    .set_lines = r_set_lines,
    .flush_input = r_flush_input,
    .fd = r_fd,
};
