/* SLIP decoding of the ROM loader's serial stream, in uneven chunks, and
 * every decoded packet as a ROM response (each expected payload size the
 * flasher uses) and as a request (what the vboard parses). */
#include "espbench/formats/rom_proto.h"
#include "espbench/formats/slip.h"
#include "fuzz_common.h"

static void packet(const eb_buf *pkt)
{
    static const size_t payloads[] = {0, 16, 20, 32};
    for (size_t i = 0; i < sizeof payloads / sizeof payloads[0]; i++) {
        eb_rom_response r;
        if (eb_rom_parse_response(pkt->data, pkt->len, payloads[i], &r) == 0 && r.data_len)
            (void)r.data[r.data_len - 1];
    }
    eb_rom_request q;
    if (eb_rom_parse_request(pkt->data, pkt->len, &q) == 0 && q.size && q.data)
        (void)eb_rom_checksum(q.data, q.size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    eb_slip_decoder d;
    eb_slip_decoder_init(&d);
    d.max_len = size ? (size_t)data[0] * 8 + 16 : 0; /* small limits reach the overflow path */
    eb_buf noise;
    eb_buf_init(&noise);
    size_t off = 0, step = 1;
    while (off < size) {
        size_t n = size - off < step ? size - off : step;
        size_t used = 0;
        while (used < n) {
            int done = 0;
            size_t k = eb_slip_decode(&d, data + off + used, n - used, &done, &noise);
            used += k;
            if (done) {
                packet(&d.packet);
                eb_slip_decoder_next(&d);
            } else if (k == 0) {
                break;
            }
        }
        off += n;
        step = step * 3 % 61 + 1;
    }
    /* and the input itself as one unframed packet */
    eb_buf whole;
    eb_buf_init(&whole);
    eb_buf_append(&whole, data, size);
    packet(&whole);
    eb_buf_free(&whole);
    eb_buf_free(&noise);
    eb_slip_decoder_free(&d);
    return 0;
}
