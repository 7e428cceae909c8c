/* fake://SCRIPT — a scripted board, like flashrom's dummy programmer: unit
 * tests (and anyone reproducing a report) drive the run job's retry and
 * failure paths through the ordinary port URL, with no hardware and no pty.
 *
 * SCRIPT is a text file, one directive a line (# starts a comment):
 *   print TEXT              bytes the board prints as soon as the port opens
 *   on PREFIX -> REPLY      each written line starting with PREFIX queues REPLY
 *   once PREFIX -> REPLY    the same, the first time only
 * The first rule whose PREFIX matches wins (an empty PREFIX matches every
 * line: put it last). TEXT and REPLY take \r \n \t \\ escapes; a REPLY of
 * <gone> makes the port fail like a removed USB device (reads and writes
 * then return EB_EIO). Baud changes succeed; modem lines are absent, unless
 *   lines                   the port has DTR/RTS: releasing RTS (EN) after
 *                           asserting it answers as a written line "<en>"
 *                           would (a rule "on <en> -> BOOT LOG"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/base/buf.h"
#include "espbench/base/str.h"
#include "port_internal.h"

#define FAKE_MAX_RULES 64

typedef struct fake_rule {
    char *prefix, *reply;
    bool once, used;
} fake_rule;

typedef struct fake_state {
    fake_rule rules[FAKE_MAX_RULES];
    int n_rules;
    eb_buf out;     /* bytes the board has printed, not read yet */
    eb_buf line;    /* the line being written */
    bool gone;
    bool lines, rts; /* the lines directive; RTS as last set */
} fake_state;

static int parse_rule(fake_state *f, const char *path, int ln, const char *rest, bool once, eb_error *err)
{
    const char *arrow = strstr(rest, " -> ");
    if (!arrow && !strncmp(rest, "-> ", 3))
        arrow = rest - 1; /* empty prefix */
    if (!arrow)
        return eb_fail(err, EB_ECONFIG, "%s:%d: expected 'on PREFIX -> REPLY'", path, ln);
    if (f->n_rules == FAKE_MAX_RULES)
        return eb_fail(err, EB_ECONFIG, "%s:%d: more than %d rules", path, ln, FAKE_MAX_RULES);
    fake_rule *r = &f->rules[f->n_rules++];
    r->prefix = eb_unescape(rest, arrow > rest ? (size_t)(arrow - rest) : 0);
    r->reply = eb_unescape(arrow + 4, strlen(arrow + 4));
    r->once = once;
    return 0;
}

static int parse_line(fake_state *f, const char *path, int ln, char *s, eb_error *err)
{
    s[strcspn(s, "\r\n")] = 0;
    if (!s[0] || s[0] == '#')
        return 0;
    if (!strncmp(s, "print ", 6)) {
        char *t = eb_unescape(s + 6, strlen(s + 6));
        eb_buf_append(&f->out, t, strlen(t));
        free(t);
        return 0;
    }
    if (!strcmp(s, "lines")) {
        f->lines = true;
        return 0;
    }
    if (!strncmp(s, "on ", 3))
        return parse_rule(f, path, ln, s + 3, false, err);
    if (!strncmp(s, "once ", 5))
        return parse_rule(f, path, ln, s + 5, true, err);
    return eb_fail(err, EB_ECONFIG, "%s:%d: unknown directive (print, on, once, lines)", path, ln);
}

static void fake_free(fake_state *f)
{
    for (int i = 0; i < f->n_rules; i++) {
        free(f->rules[i].prefix);
        free(f->rules[i].reply);
    }
    eb_buf_free(&f->out);
    eb_buf_free(&f->line);
    free(f);
}

static int fake_open(eb_port *p, const char *target, eb_error *err)
{
    FILE *fp = fopen(target, "re");
    if (!fp)
        return eb_fail(err, EB_EIO, "port %s: cannot read the script %s: %s", p->url, target, strerror(errno));
    fake_state *f = calloc(1, sizeof *f);
    if (!f)
        abort();
    eb_buf_init(&f->out);
    eb_buf_init(&f->line);
    char buf[4096];
    int rc = 0;
    for (int ln = 1; !rc && fgets(buf, sizeof buf, fp); ln++)
        rc = parse_line(f, target, ln, buf, err);
    fclose(fp);
    if (rc) {
        fake_free(f);
        return rc;
    }
    p->impl = f;
    p->can_set_lines = f->lines;
    return 0;
}

static void fake_close(eb_port *p)
{
    if (p->impl)
        fake_free(p->impl);
    p->impl = NULL;
}

static int gone(eb_port *p, eb_error *err)
{
    return eb_fail(err, EB_EIO, "%s: port gone (device removed)", p->url);
}

/* A complete written line: the first matching rule answers. */
static void answer_line(fake_state *f, const char *line)
{
    for (int i = 0; i < f->n_rules; i++) {
        fake_rule *r = &f->rules[i];
        if ((r->once && r->used) || strncmp(line, r->prefix, strlen(r->prefix)) != 0)
            continue;
        r->used = true;
        if (!strcmp(r->reply, "<gone>"))
            f->gone = true;
        else
            eb_buf_append(&f->out, r->reply, strlen(r->reply));
        break;
    }
}

static void answer(fake_state *f)
{
    answer_line(f, eb_buf_cstr(&f->line));
    eb_buf_reset(&f->line);
}

static int fake_write(eb_port *p, const void *buf, size_t len, eb_deadline d, eb_error *err)
{
    (void)d;
    fake_state *f = p->impl;
    if (f->gone)
        return gone(p, err);
    const char *s = buf;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\r' || s[i] == '\n') {
            if (s[i] == '\n' && i > 0 && s[i - 1] == '\r')
                continue; /* CR LF ends one line */
            answer(f);
        } else {
            eb_buf_append_byte(&f->line, (uint8_t)s[i]);
        }
    }
    return 0;
}

static long fake_read(eb_port *p, void *buf, size_t cap, eb_deadline d, eb_error *err)
{
    fake_state *f = p->impl;
    if (f->gone)
        return -gone(p, err);
    if (f->out.len == 0) {
        /* A quiet board: wait a little (never past the deadline). */
        int left = eb_deadline_left_ms(d);
        if (left > 0)
            eb_sleep_ms((unsigned)(left < 10 ? left : 10));
        return 0;
    }
    size_t n = f->out.len < cap ? f->out.len : cap;
    memcpy(buf, f->out.data, n);
    eb_buf_consume(&f->out, n);
    return (long)n;
}

static int fake_set_baud(eb_port *p, uint32_t baud, eb_error *err)
{
    (void)p, (void)baud, (void)err;
    return 0;
}

static int fake_set_lines(eb_port *p, bool dtr, bool rts, eb_error *err)
{
    (void)dtr, (void)err;
    fake_state *f = p->impl;
    if (!f->lines)
        return 1;
    if (f->rts && !rts)
        answer_line(f, "<en>");
    f->rts = rts;
    return 0;
}

static void fake_flush(eb_port *p) { (void)p; }
static int fake_fd(eb_port *p) { (void)p; return -1; }

const eb_port_ops eb_port_fake_ops = {
    "fake", fake_open, fake_close, fake_write, fake_read, fake_set_baud, fake_set_lines, fake_flush, fake_fd,
};
