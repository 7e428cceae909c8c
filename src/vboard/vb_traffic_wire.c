/* iperf2 2.1.8 wire formats (include/payloads.h of iperf2, facts in
 * /work/shared/reference/iperf2.md section 2). Big-endian throughout. */
#include "vb_traffic_wire.h"

#include <string.h>

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* client_hdr_v1 is 24 bytes, client_hdrext 36 more. */
enum { HDR_V1_LEN = 24, HDR_EXT_LEN = 36, HDR_AMOUNT_OFF = 20 };

int vb_iperf2_tcp_hdr_parse(const uint8_t *p, size_t n, vb_iperf2_tcp_hdr *out)
{
    if (n < 4)
        return 0;
    vb_iperf2_tcp_hdr h = {.flags = rd32(p)};
    const uint32_t has_hdr =
        VB_IPERF2_HEADER_VERSION1 | VB_IPERF2_HEADER_VERSION2 | VB_IPERF2_HEADER_EXTEND;
    if (h.flags & has_hdr) {
        if (h.flags & VB_IPERF2_HEADER_LEN_BIT)
            h.hdr_len = (h.flags & VB_IPERF2_HEADER_LEN_MASK) >> 1;
        else
            h.hdr_len = HDR_V1_LEN +
                        ((h.flags & (VB_IPERF2_HEADER_EXTEND | VB_IPERF2_HEADER_VERSION2)) ? HDR_EXT_LEN : 0);
        if (h.hdr_len < 4)
            h.hdr_len = 4;
        if (n < h.hdr_len)
            return 0;
        if (h.hdr_len >= HDR_AMOUNT_OFF + 4)
            h.amount = (int32_t)rd32(p + HDR_AMOUNT_OFF);
        h.wants_ack = (h.flags & VB_IPERF2_HEADER_V2PEERDETECT) != 0;
    }
    *out = h;
    return 1;
}

void vb_iperf2_client_ack(uint8_t out[VB_IPERF2_CLIENT_ACK_LEN])
{
    /* type, length, flags, version_u, version_l, reserved1, reserved2 */
    memset(out, 0, VB_IPERF2_CLIENT_ACK_LEN);
    wr32(out + 0, 2);
    wr32(out + 4, VB_IPERF2_CLIENT_ACK_LEN);
    wr32(out + 12, 0x00020001u);
    wr32(out + 16, 0x00080003u);
}

void vb_iperf2_udp_hdr_write(uint8_t *p, int64_t id, int64_t tv_sec, int32_t tv_usec)
{
    uint64_t u = (uint64_t)id;
    wr32(p + 0, (uint32_t)u);
    wr32(p + 4, (uint32_t)tv_sec);
    wr32(p + 8, (uint32_t)tv_usec);
    wr32(p + 12, (uint32_t)(u >> 32));
}

bool vb_iperf2_udp_parse(const uint8_t *p, size_t n, bool seq64, vb_iperf2_udp_dgram *out)
{
    if (n < VB_IPERF2_UDP_HDR_LEN)
        return false;
    uint32_t lo = rd32(p), hi = rd32(p + 12);
    out->id = seq64 ? (int64_t)((uint64_t)hi << 32 | lo) : (int64_t)(int32_t)lo;
    out->tv_sec = (int64_t)rd32(p + 4);
    out->tv_usec = (int32_t)rd32(p + 8);
    return true;
}

bool vb_iperf2_udp_first_is_seq64(const uint8_t *p, size_t n)
{
    if (n < VB_IPERF2_UDP_HDR_LEN + 4)
        return false;
    return (rd32(p + VB_IPERF2_UDP_HDR_LEN) & VB_IPERF2_HEADER_SEQNO64B) != 0;
}

/* server_hdr_v1 at 16, server_hdr_extension (15 words) at 56, extension2 at 116. */
enum {
    SR_FLAGS = 16, SR_LEN1 = 20, SR_LEN2 = 24, SR_STOP_S = 28, SR_STOP_US = 32, SR_ERR = 36,
    SR_OOO = 40, SR_DGRAMS = 44, SR_JIT_S = 48, SR_JIT_US = 52, SR_V1_END = 56,
    SR_ERR2 = 116, SR_OOO2 = 120, SR_DGRAMS2 = 124,
};

void vb_iperf2_server_report(uint8_t out[VB_IPERF2_SERVER_REPORT_LEN], const vb_iperf2_udp_stats *s)
{
    memset(out, 0, VB_IPERF2_SERVER_REPORT_LEN);
    uint64_t err = (uint64_t)(s->lost > 0 ? s->lost : 0);
    uint64_t ooo = (uint64_t)(s->out_of_order > 0 ? s->out_of_order : 0);
    uint64_t dg = (uint64_t)(s->datagrams > 0 ? s->datagrams : 0);
    int64_t stop = s->stop_us > 0 ? s->stop_us : 0;
    int64_t jit = s->jitter_us > 0 ? s->jitter_us : 0;
    wr32(out + SR_FLAGS, VB_IPERF2_HEADER_VERSION1 | VB_IPERF2_HEADER_SEQNO64B);
    wr32(out + SR_LEN1, (uint32_t)(s->bytes >> 32));
    wr32(out + SR_LEN2, (uint32_t)s->bytes);
    wr32(out + SR_STOP_S, (uint32_t)(stop / 1000000));
    wr32(out + SR_STOP_US, (uint32_t)(stop % 1000000));
    wr32(out + SR_ERR, (uint32_t)err);
    wr32(out + SR_OOO, (uint32_t)ooo);
    wr32(out + SR_DGRAMS, (uint32_t)dg);
    wr32(out + SR_JIT_S, (uint32_t)(jit / 1000000));
    wr32(out + SR_JIT_US, (uint32_t)(jit % 1000000));
    wr32(out + SR_ERR2, (uint32_t)(err >> 32));
    wr32(out + SR_OOO2, (uint32_t)(ooo >> 32));
    wr32(out + SR_DGRAMS2, (uint32_t)(dg >> 32));
}

bool vb_iperf2_server_report_parse(const uint8_t *p, size_t n, vb_iperf2_udp_stats *out)
{
    if (n < SR_V1_END)
        return false;
    bool ext2 = n >= VB_IPERF2_SERVER_REPORT_LEN && (rd32(p + SR_FLAGS) & VB_IPERF2_HEADER_SEQNO64B);
    out->bytes = (uint64_t)rd32(p + SR_LEN1) << 32 | rd32(p + SR_LEN2);
    out->stop_us = (int64_t)rd32(p + SR_STOP_S) * 1000000 + rd32(p + SR_STOP_US);
    out->lost = (int64_t)((uint64_t)(ext2 ? rd32(p + SR_ERR2) : 0) << 32 | rd32(p + SR_ERR));
    out->out_of_order = (int64_t)((uint64_t)(ext2 ? rd32(p + SR_OOO2) : 0) << 32 | rd32(p + SR_OOO));
    out->datagrams = (int64_t)((uint64_t)(ext2 ? rd32(p + SR_DGRAMS2) : 0) << 32 | rd32(p + SR_DGRAMS));
    out->jitter_us = (int64_t)rd32(p + SR_JIT_S) * 1000000 + rd32(p + SR_JIT_US);
    return true;
}
