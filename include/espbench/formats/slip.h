/* SLIP framing as used by the Espressif ROM serial loader: 0xC0 delimits,
 * 0xDB 0xDC escapes 0xC0 and 0xDB 0xDD escapes 0xDB. Pure functions. */
#ifndef ESPBENCH_SLIP_H
#define ESPBENCH_SLIP_H

#include <stddef.h>
#include <stdint.h>

#include "espbench/base/buf.h"

#define EB_SLIP_END 0xC0
#define EB_SLIP_ESC 0xDB
#define EB_SLIP_ESC_END 0xDC
#define EB_SLIP_ESC_ESC 0xDD

/* Appends one framed packet (C0 ... C0) to out. */
void eb_slip_encode(eb_buf *out, const uint8_t *data, size_t len);

/* Incremental decoder: feed bytes, get whole packets. Bytes outside a frame
 * are kept as "noise" so callers can show boot text or panic output. */
typedef struct eb_slip_decoder {
    eb_buf packet;     /* packet being decoded */
    int in_frame;
    int escape;
    int bad_escape;    /* set when 0xDB was followed by something else */
    size_t max_len;    /* drop and flag frames longer than this (0 = 64 KiB) */
    int overflow;
} eb_slip_decoder;

void eb_slip_decoder_init(eb_slip_decoder *d);
void eb_slip_decoder_free(eb_slip_decoder *d);
/* Consumes bytes from data until a packet completes. Returns the number of
 * bytes consumed; *done is set to 1 when d->packet holds a whole packet (the
 * caller uses it, then calls eb_slip_decoder_next). Bytes outside frames are
 * appended to noise if noise != NULL. */
size_t eb_slip_decode(eb_slip_decoder *d, const uint8_t *data, size_t len, int *done, eb_buf *noise);
void eb_slip_decoder_next(eb_slip_decoder *d);

#endif
