/* The RFC 2217 / Telnet stream from ser2net or esp_rfc2217_server: the
 * decoder (data, IAC escapes, option verbs, subnegotiations) in uneven
 * chunks, with the client's negotiation answers and COM-PORT-OPTION ack
 * bookkeeping, exactly as port_rfc2217.c wires them. */
#include "adapters/port_internal.h"
#include "fuzz_common.h"

typedef struct {
    eb_rfc2217_negot neg;
    eb_buf reply;
} state;

static void on_negotiate(void *user, uint8_t verb, uint8_t opt)
{
    state *st = user;
    eb_rfc2217_negotiate(&st->neg, verb, opt, &st->reply);
}

static void on_subneg(void *user, const uint8_t *body, size_t len)
{
    state *st = user;
    eb_rfc2217_subneg(&st->neg, body, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static state st;
    memset(&st.neg, 0, sizeof st.neg);
    eb_buf_init(&st.reply);
    eb_telnet_rx rx;
    memset(&rx, 0, sizeof rx);
    eb_telnet_events ev = {on_negotiate, on_subneg, &st};
    uint8_t *out = malloc(size ? size : 1);
    if (!out)
        abort();
    size_t off = 0, step = 1, total = 0;
    while (off < size) {
        size_t n = size - off < step ? size - off : step;
        total += eb_telnet_decode(&rx, data + off, n, out + total, &ev);
        off += n;
        step = step * 5 % 67 + 1;
    }
    if (total > size)
        abort(); /* the decoder promised at most n data bytes per n in */
    /* what we would send back must itself decode cleanly */
    eb_buf esc;
    eb_buf_init(&esc);
    eb_telnet_escape(&esc, out, total);
    eb_buf_free(&esc);
    free(out);
    eb_buf_free(&st.reply);
    return 0;
}
