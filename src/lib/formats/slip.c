/* SLIP framing for the ROM serial loader (see include/espbench/slip.h). */
#include "espbench/formats/slip.h"

#include <string.h>

#define SLIP_DEFAULT_MAX (64u * 1024u)

void eb_slip_encode(eb_buf *out, const uint8_t *data, size_t len)
{
    eb_buf_reserve(out, len + len / 8 + 2);
    eb_buf_append_byte(out, EB_SLIP_END);
    size_t run = 0; /* start of the current run of bytes that need no escaping */
    for (size_t i = 0; i < len; i++) {
        uint8_t c = data[i];
        if (c != EB_SLIP_END && c != EB_SLIP_ESC)
            continue;
        eb_buf_append(out, data + run, i - run);
        eb_buf_append_byte(out, EB_SLIP_ESC);
        eb_buf_append_byte(out, c == EB_SLIP_END ? EB_SLIP_ESC_END : EB_SLIP_ESC_ESC);
        run = i + 1;
    }
    eb_buf_append(out, data + run, len - run);
    eb_buf_append_byte(out, EB_SLIP_END);
}

void eb_slip_decoder_init(eb_slip_decoder *d)
{
    memset(d, 0, sizeof *d);
    eb_buf_init(&d->packet);
}

void eb_slip_decoder_free(eb_slip_decoder *d)
{
    eb_buf_free(&d->packet);
    memset(d, 0, sizeof *d);
}

void eb_slip_decoder_next(eb_slip_decoder *d)
{
    eb_buf_reset(&d->packet);
    d->in_frame = 0;
    d->escape = 0;
    d->bad_escape = 0;
    d->overflow = 0;
}

size_t eb_slip_decode(eb_slip_decoder *d, const uint8_t *data, size_t len, int *done, eb_buf *noise)
{
    size_t max = d->max_len ? d->max_len : SLIP_DEFAULT_MAX;
    *done = 0;
    size_t i = 0;
    while (i < len) {
        uint8_t c = data[i++];
        if (!d->in_frame) {
            if (c == EB_SLIP_END)
                d->in_frame = 1;
            else if (noise)
                eb_buf_append_byte(noise, c);
            continue;
        }
        if (c == EB_SLIP_END) {
            /* Repeated delimiters (an empty frame) just restart the frame. */
            if (d->packet.len == 0 && !d->escape && !d->overflow && !d->bad_escape)
                continue;
            d->escape = 0;
            *done = 1;
            return i;
        }
        if (d->escape) {
            d->escape = 0;
            if (c == EB_SLIP_ESC_END)
                c = EB_SLIP_END;
            else if (c == EB_SLIP_ESC_ESC)
                c = EB_SLIP_ESC;
            else
                d->bad_escape = 1; /* keep the byte as-is, flag the packet */
        } else if (c == EB_SLIP_ESC) {
            d->escape = 1;
            continue;
        }
        if (d->packet.len >= max) {
            d->overflow = 1;
            continue;
        }
        eb_buf_append_byte(&d->packet, c);
    }
    return i;
}
