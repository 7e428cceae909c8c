/* The exchanges the instrument drivers share: TCP through the port layer,
 * telnet's commands taken out of what arrives, HTTP through libcurl. */
#include "instr_internal.h"

#include "espbench/adapters/fetch.h"

#include <stdio.h>
#include <string.h>

int instr_tcp_open(eb_instr *in, int default_port, eb_port **out, eb_error *err)
{
    const char *a = in->spec->address;
    char url[300];
    if (!strncmp(a, "telnet://", 9))
        a += 9;
    snprintf(url, sizeof url, strchr(a, ':') ? "socket://%s" : "socket://%s:%d", a, default_port);
    int rc = eb_port_open(out, url, 0, err);
    if (rc) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return eb_instr_fail(in, EB_EIO, err, "cannot connect: %s", msg);
    }
    return 0;
}

enum { IAC = 255, DONT = 254, DO = 253, WONT = 252, WILL = 251, SB = 250, SE = 240 };

/* Takes telnet commands out of raw; answers DO with WONT and WILL with DONT
 * (espbench asks for no option). st carries a command split across reads. */
static void tn_strip(eb_port *p, const unsigned char *raw, size_t n, eb_buf *acc, int *st, eb_deadline d)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = raw[i];
        if (*st == 0) {
            if (c == IAC)
                *st = IAC;
            else if (c)
                eb_buf_append_byte(acc, c);
        } else if (*st == IAC) {
            *st = c == DO || c == DONT || c == WILL || c == WONT ? c : c == SB ? SB : 0;
            if (c == IAC)
                eb_buf_append_byte(acc, c);
        } else if (*st == SB) {
            if (c == SE)
                *st = 0;
        } else {
            if (*st == DO || *st == WILL) {
                unsigned char no[3] = {IAC, *st == DO ? WONT : DONT, c};
                eb_error e;
                eb_port_write(p, no, 3, d, &e);
            }
            *st = 0;
        }
    }
}

int instr_tn_expect(eb_instr *in, eb_port *p, eb_buf *acc, const char *const *pats, int n_pats, eb_deadline d,
                    eb_error *err)
{
    int st = 0;
    for (;;) {
        const char *text = eb_buf_cstr(acc);
        for (int i = 0; i < n_pats; i++)
            if (strstr(text, pats[i]))
                return i;
        unsigned char raw[512];
        long n = eb_port_read(p, raw, sizeof raw, d, err);
        if (n < 0 || n == 0) {
            char q[120];
            size_t len = acc->len > 100 ? 100 : acc->len;
            eb_instr_quote(acc->data + acc->len - len, len, q, sizeof q);
            return eb_instr_fail(in, EB_EIO, err, "%s waiting for \"%s\"; it said \"%s\"",
                                 n == 0 ? "no answer" : "connection closed", pats[0], q);
        }
        tn_strip(p, raw, (size_t)n, acc, &st, d);
    }
}

int instr_tn_send(eb_instr *in, eb_port *p, const char *line, eb_error *err)
{
    char buf[300];
    int n = snprintf(buf, sizeof buf, "%s\r\n", line);
    if (eb_port_write(p, buf, (size_t)n, eb_deadline_in(EB_INSTR_TIMEOUT_MS), err)) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return eb_instr_fail(in, EB_EIO, err, "cannot send: %s", msg);
    }
    return 0;
}

void instr_url_escape(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; *s && n + 4 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-_.~", c))
            out[n++] = (char)c;
        else
            n += (size_t)snprintf(out + n, cap - n, "%%%02X", c);
    }
    out[n] = 0;
}

int instr_http(eb_instr *in, const char *path, const char *post, eb_buf *out, eb_error *err)
{
    char url[1024];
    const char *a = in->spec->address;
    size_t al = strlen(a);
    snprintf(url, sizeof url, "%s%s%s", a, al && a[al - 1] == '/' ? "" : "/", path[0] == '/' ? path + 1 : path);
    long status = 0;
    eb_buf_reset(out);
    int rc = eb_http_request(url, post, NULL, EB_INSTR_TIMEOUT_MS, out, &status, err);
    if (rc) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return eb_instr_fail(in, EB_EIO, err, "%s", msg);
    }
    eb_buf_cstr(out);
    if (status != 200) {
        char q[160];
        eb_instr_quote(out->data, out->len > 150 ? 150 : out->len, q, sizeof q);
        return eb_instr_fail(in, status == 401 || status == 403 ? EB_ECONFIG : EB_EIO, err,
                             "HTTP %ld to %.*s: \"%s\"", status, (int)strcspn(path, "?="), path, q);
    }
    return 0;
}
