#include "espbench/base/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void eb_buf_init(eb_buf *b) { memset(b, 0, sizeof *b); }

void eb_buf_free(eb_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void eb_buf_reset(eb_buf *b) { b->len = 0; }

void eb_buf_reserve(eb_buf *b, size_t extra)
{
    size_t need = b->len + extra + 1; /* room for a terminating NUL */
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    uint8_t *p = realloc(b->data, cap);
    if (!p)
        abort();
    b->data = p;
    b->cap = cap;
}

void eb_buf_printf(eb_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    eb_buf_reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void eb_buf_consume(eb_buf *b, size_t n)
{
    if (n >= b->len) {
        b->len = 0;
        return;
    }
    memmove(b->data, b->data + n, b->len - n);
    b->len -= n;
}

const char *eb_buf_cstr(eb_buf *b)
{
    eb_buf_reserve(b, 0);
    b->data[b->len] = '\0';
    return (const char *)b->data;
}
