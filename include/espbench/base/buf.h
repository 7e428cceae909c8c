/* A growable byte buffer. */
#ifndef ESPBENCH_BUF_H
#define ESPBENCH_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct eb_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} eb_buf;

void eb_buf_init(eb_buf *b);
void eb_buf_free(eb_buf *b);
void eb_buf_reset(eb_buf *b);
/* Aborts the process only on allocation failure (as malloc failure is not recoverable here). */
void eb_buf_reserve(eb_buf *b, size_t extra);
/* Inline: the JSON and report writers append millions of short pieces. */
static inline void eb_buf_append(eb_buf *b, const void *data, size_t len)
{
    if (!len)
        return;
    if (b->len + len + 1 > b->cap)
        eb_buf_reserve(b, len);
    memcpy(b->data + b->len, data, len);
    b->len += len;
}
static inline void eb_buf_append_byte(eb_buf *b, uint8_t byte)
{
    if (b->len + 2 > b->cap)
        eb_buf_reserve(b, 1);
    b->data[b->len++] = byte;
}
void eb_buf_printf(eb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Removes the first n bytes. */
void eb_buf_consume(eb_buf *b, size_t n);
/* NUL-terminates (not counted in len) and returns data as a string. */
const char *eb_buf_cstr(eb_buf *b);

/* Little-endian helpers used by the binary formats. */
static inline uint32_t eb_rd32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint16_t eb_rd16le(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline void eb_wr32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void eb_wr16le(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }

#endif
