/* A scripted eb_port for console and driver tests: reads return the script's
 * chunks in order (an empty script waits until the deadline, like a quiet
 * board); writes are recorded, and a write that matches a rule queues that
 * rule's reply, as a board would answer a command. */
#ifndef TEST_FAKE_PORT_H
#define TEST_FAKE_PORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/base/buf.h"
#include "espbench/base/clock.h"
#include "espbench/adapters/port.h"

#define FAKE_MAX_CHUNKS 256
#define FAKE_MAX_RULES 32

typedef struct fake_rule {
    const char *when;   /* written bytes start with this (e.g. "heap\r\n") */
    const char *reply;  /* queued on a match; NULL = nothing */
    int uses;           /* matches left; 0 = unlimited */
    int ignore;         /* first matches dropped unanswered (a board still booting) */
} fake_rule;

typedef struct fake_port {
    eb_port port;
    const char *chunks[FAKE_MAX_CHUNKS];
    size_t lens[FAKE_MAX_CHUNKS];
    int n, next;
    size_t offset;      /* within chunks[next] */
    bool fail_at_end;   /* after the script: the port is gone */
    fake_rule rules[FAKE_MAX_RULES];
    int n_rules;
    eb_buf written;
} fake_port;

static inline void fake_push_n(fake_port *f, const char *data, size_t len)
{
    if (f->n < FAKE_MAX_CHUNKS) {
        f->chunks[f->n] = data;
        f->lens[f->n] = len;
        f->n++;
    }
}
static inline void fake_push(fake_port *f, const char *data) { fake_push_n(f, data, strlen(data)); }

static inline void fake_rule_add(fake_port *f, const char *when, const char *reply)
{
    if (f->n_rules < FAKE_MAX_RULES)
        f->rules[f->n_rules++] = (fake_rule){when, reply, 0, 0};
}

static inline fake_port *fake_of(eb_port *p) { return (fake_port *)p->impl; }

static inline long fake_read(eb_port *p, void *buf, size_t cap, eb_deadline d, eb_error *err)
{
    fake_port *f = fake_of(p);
    if (f->next >= f->n) {
        if (f->fail_at_end)
            return -eb_fail(err, EB_EIO, "%s: port gone (device removed)", p->url);
        int left = eb_deadline_left_ms(d);
        if (left > 0)
            eb_sleep_ms((unsigned)(left < 20 ? left : 20));
        return 0;
    }
    size_t avail = f->lens[f->next] - f->offset;
    size_t n = avail < cap ? avail : cap;
    memcpy(buf, f->chunks[f->next] + f->offset, n);
    f->offset += n;
    if (f->offset == f->lens[f->next]) {
        f->next++;
        f->offset = 0;
    }
    return (long)n;
}

static inline int fake_write(eb_port *p, const void *buf, size_t len, eb_deadline d, eb_error *err)
{
    (void)d;
    (void)err;
    fake_port *f = fake_of(p);
    eb_buf_append(&f->written, buf, len);
    for (int i = 0; i < f->n_rules; i++) {
        fake_rule *r = &f->rules[i];
        size_t wl = strlen(r->when);
        if (r->uses >= 0 && len >= wl && memcmp(buf, r->when, wl) == 0) {
            if (r->ignore > 0) {
                r->ignore--;
                break;
            }
            if (r->reply)
                fake_push(f, r->reply);
            break;
        }
    }
    return 0;
}

static inline void fake_close(eb_port *p) { (void)p; }
static inline int fake_set_baud(eb_port *p, uint32_t b, eb_error *e) { (void)p; (void)b; (void)e; return 0; }
static inline int fake_set_lines(eb_port *p, bool a, bool b, eb_error *e) { (void)p; (void)a; (void)b; (void)e; return 1; }
static inline void fake_flush(eb_port *p) { (void)p; }
static inline int fake_fd(eb_port *p) { (void)p; return -1; }

static const eb_port_ops fake_ops = {
    "fake", NULL, fake_close, fake_write, fake_read, fake_set_baud, fake_set_lines, fake_flush, fake_fd,
};

static inline void fake_init(fake_port *f)
{
    memset(f, 0, sizeof *f);
    f->port.ops = &fake_ops;
    snprintf(f->port.url, sizeof f->port.url, "fake://board");
    f->port.impl = f;
    eb_buf_init(&f->written);
}

static inline void fake_free(fake_port *f) { eb_buf_free(&f->written); }

static inline const char *fake_written(fake_port *f) { return eb_buf_cstr(&f->written); }

#endif
