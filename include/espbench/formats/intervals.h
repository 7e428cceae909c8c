/* One side's report intervals, stored compactly: a test of a day at
 * `-i 0.1` is 864 000 of them, and `parse` holds a whole log's.
 *
 * Rows are kept exactly (every value reads back bit for bit) in one of two
 * layouts for the whole series:
 *  - narrow, 32 bytes: start, end, bytes, rate — while no row carries a UDP
 *    figure (jitter, lost, total all unknown): every TCP test;
 *  - wide, sizeof(eb_interval) (56 bytes): every field; a series widens,
 *    once, on its first row with a UDP figure.
 * Growth: by an eighth of what is held (at least EB_IVS_MIN_GROW rows), so
 * the room held beyond the rows stays under 12.5 % (or 64 rows); the first
 * push makes room for 64 rows, and eb_ivs_trim gives the room back when a
 * test is over. A series owns its rows (free with eb_ivs_free);
 * eb_ivs_view lends an array without copying it (its owner frees it). */
#ifndef ESPBENCH_INTERVALS_H
#define ESPBENCH_INTERVALS_H

#include <stdbool.h>
#include <stddef.h>

/* One report interval from either side. Rates are decimal Mbit/s (1e6 bit/s),
 * whatever unit the source printed. */
typedef struct eb_interval {
    double start_s, end_s;
    double bytes;        /* may be derived from the rate when the source gives no byte count */
    double mbps;
    double jitter_ms;    /* UDP receiver; NAN when absent */
    long lost, total;    /* UDP receiver datagrams; -1 when absent */
} eb_interval;

typedef struct eb_ivs {
    void *rows;          /* n rows of row_bytes each; NULL when none */
    int n, cap;
    int row_bytes;       /* EB_IVS_NARROW or EB_IVS_WIDE (0 = empty: narrow on first push) */
} eb_ivs;

#define EB_IVS_NARROW ((int)(4 * sizeof(double)))
#define EB_IVS_WIDE ((int)sizeof(eb_interval))
#define EB_IVS_MIN_GROW 64

/* An empty series (all zero). */
#define EB_IVS_EMPTY ((eb_ivs){0})

/* Row i (0 <= i < n) as a whole interval (narrow rows: jitter NAN, counts -1). */
eb_interval eb_ivs_at(const eb_ivs *s, int i);
/* Appends a copy of iv. */
void eb_ivs_push(eb_ivs *s, const eb_interval *iv);
/* A series of the n intervals of iv (malloc'd, or NULL when n is 0), which it
 * takes over without copying: freed with the series. */
eb_ivs eb_ivs_adopt(eb_interval *iv, int n);
/* The same over an array that stays its owner's: never free the series. */
eb_ivs eb_ivs_view(const eb_interval *iv, int n);
/* A copy of src in its own rows, no room beyond them. */
eb_ivs eb_ivs_dup(const eb_ivs *src);
void eb_ivs_free(eb_ivs *s);
/* Drops the room beyond the rows (a series that will not grow). */
void eb_ivs_trim(eb_ivs *s);
/* The bytes the series holds (rows and room). */
size_t eb_ivs_bytes(const eb_ivs *s);
/* Whether a row with iv's values needs the wide layout. */
bool eb_interval_is_udp(const eb_interval *iv);

#endif
