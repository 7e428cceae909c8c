/* The compact interval store (intervals.h). */
#include "espbench/formats/intervals.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A narrow row: the four figures every interval has. */
typedef struct narrow_row {
    double start_s, end_s, bytes, mbps;
} narrow_row;

_Static_assert(sizeof(narrow_row) == EB_IVS_NARROW, "a narrow row is four doubles");
_Static_assert(offsetof(eb_interval, mbps) + sizeof(double) == EB_IVS_NARROW,
               "a wide row starts with a narrow row's fields");

bool eb_interval_is_udp(const eb_interval *iv)
{
    return !isnan(iv->jitter_ms) || iv->lost != -1 || iv->total != -1;
}

eb_interval eb_ivs_at(const eb_ivs *s, int i)
{
    if (s->row_bytes == EB_IVS_WIDE)
        return ((const eb_interval *)s->rows)[i];
    const narrow_row *r = &((const narrow_row *)s->rows)[i];
    return (eb_interval){r->start_s, r->end_s, r->bytes, r->mbps, NAN, -1, -1};
}

static void resize(eb_ivs *s, int cap, int row_bytes)
{
    void *p = realloc(s->rows, (size_t)cap * (size_t)row_bytes);
    if (!p)
        abort();
    s->rows = p;
    s->cap = cap;
}

/* Narrow rows to wide, in place from the last row down (a wide row is
 * larger, so row i's new place never overlaps rows below i not moved yet). */
static void widen(eb_ivs *s)
{
    resize(s, s->cap, EB_IVS_WIDE);
    for (int i = s->n - 1; i >= 0; i--) {
        narrow_row r;
        memcpy(&r, (char *)s->rows + (size_t)i * EB_IVS_NARROW, sizeof r);
        ((eb_interval *)s->rows)[i] = (eb_interval){r.start_s, r.end_s, r.bytes, r.mbps, NAN, -1, -1};
    }
    s->row_bytes = EB_IVS_WIDE;
}

void eb_ivs_push(eb_ivs *s, const eb_interval *iv)
{
    if (!s->row_bytes)
        s->row_bytes = EB_IVS_NARROW;
    if (s->row_bytes == EB_IVS_NARROW && eb_interval_is_udp(iv))
        widen(s);
    if (s->n == s->cap) {
        int grow = s->cap / 8 > EB_IVS_MIN_GROW ? s->cap / 8 : EB_IVS_MIN_GROW;
        resize(s, s->cap + grow, s->row_bytes);
    }
    if (s->row_bytes == EB_IVS_WIDE)
        ((eb_interval *)s->rows)[s->n++] = *iv;
    else
        ((narrow_row *)s->rows)[s->n++] = (narrow_row){iv->start_s, iv->end_s, iv->bytes, iv->mbps};
}

eb_ivs eb_ivs_adopt(eb_interval *iv, int n)
{
    if (!iv || n <= 0) {
        free(iv);
        return EB_IVS_EMPTY;
    }
    return (eb_ivs){iv, n, n, EB_IVS_WIDE};
}

eb_ivs eb_ivs_view(const eb_interval *iv, int n)
{
    if (!iv || n <= 0)
        return EB_IVS_EMPTY;
    return (eb_ivs){(void *)(uintptr_t)iv, n, n, EB_IVS_WIDE};
}

eb_ivs eb_ivs_dup(const eb_ivs *src)
{
    if (!src->rows || src->n <= 0)
        return EB_IVS_EMPTY;
    eb_ivs d = {NULL, src->n, 0, src->row_bytes};
    resize(&d, src->n, src->row_bytes);
    memcpy(d.rows, src->rows, (size_t)src->n * (size_t)src->row_bytes);
    return d;
}

void eb_ivs_free(eb_ivs *s)
{
    free(s->rows);
    *s = EB_IVS_EMPTY;
}

void eb_ivs_trim(eb_ivs *s)
{
    if (s->n == 0)
        eb_ivs_free(s);
    else if (s->cap > s->n)
        resize(s, s->n, s->row_bytes);
}

size_t eb_ivs_bytes(const eb_ivs *s) { return (size_t)s->cap * (size_t)s->row_bytes; }
