/* iperf2 (2.1.x) wire formats the virtual board's iperf engine speaks: the TCP
 * client test header a PC client sends first, the 16-byte UDP datagram header,
 * and the 128-byte UDP "server report" (FIN ack). Pure functions over bytes;
 * all fields are big-endian. Layouts: docs/vboard-traffic.md. */
#ifndef VB_TRAFFIC_WIRE_H
#define VB_TRAFFIC_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* client_hdr_v1.flags bits */
#define VB_IPERF2_HEADER_VERSION1     0x80000000u
#define VB_IPERF2_HEADER_EXTEND       0x40000000u
#define VB_IPERF2_HEADER_UDPTESTS     0x20000000u
#define VB_IPERF2_HEADER_KEYCHECK     0x10000000u
#define VB_IPERF2_HEADER_SEQNO64B     0x08000000u
#define VB_IPERF2_HEADER_VERSION2     0x04000000u
#define VB_IPERF2_HEADER_V2PEERDETECT 0x02000000u
#define VB_IPERF2_HEADER_BOUNCEBACK   0x00800000u
#define VB_IPERF2_HEADER_LEN_BIT      0x00010000u
#define VB_IPERF2_HEADER_LEN_MASK     0x000001FEu

#define VB_IPERF2_UDP_HDR_LEN 16        /* id, tv_sec, tv_usec, id2 */
#define VB_IPERF2_SERVER_REPORT_LEN 128 /* UDP_datagram + server_hdr_v1 + ext + ext2 */
#define VB_IPERF2_CLIENT_ACK_LEN 28     /* client_hdr_ack, answer to -X */

/* What a TCP receiver learns from the first bytes of a connection. */
typedef struct vb_iperf2_tcp_hdr {
    uint32_t flags;  /* 0: no header (ESP-style or -C client), a plain receive test */
    size_t hdr_len;  /* bytes of test header at the start of the stream (0 if none) */
    bool wants_ack;  /* -X (V2PEERDETECT): the client blocks until the 28-byte ack */
    int32_t amount;  /* mAmount: -(t*100) in time mode, bytes in byte mode; 0 if absent */
} vb_iperf2_tcp_hdr;

/* Parses the start of a TCP stream as a 2.1.8 server does. Returns 1 when the
 * header is complete (out filled), 0 when more bytes are needed. */
int vb_iperf2_tcp_hdr_parse(const uint8_t *p, size_t n, vb_iperf2_tcp_hdr *out);

/* The 28-byte client_hdr_ack (type 2, version 2.1.8) a server sends for -X. */
void vb_iperf2_client_ack(uint8_t out[VB_IPERF2_CLIENT_ACK_LEN]);

/* Writes the 16-byte UDP_datagram header: id (low 32 bits), send time, id2
 * (high 32 bits). */
void vb_iperf2_udp_hdr_write(uint8_t *p, int64_t id, int64_t tv_sec, int32_t tv_usec);

/* A received UDP datagram's header. */
typedef struct vb_iperf2_udp_dgram {
    int64_t id;      /* negative: the client's end-of-test (FIN) datagram */
    int64_t tv_sec;  /* sender's wall clock */
    int32_t tv_usec;
} vb_iperf2_udp_dgram;

/* Decodes a datagram; seq64 selects id2:id (the client's first datagram had
 * HEADER_SEQNO64B) over the plain signed 32-bit id. Returns false if shorter
 * than the 16-byte header. */
bool vb_iperf2_udp_parse(const uint8_t *p, size_t n, bool seq64, vb_iperf2_udp_dgram *out);

/* True when the first datagram's test-header flags ask for 64-bit sequence ids. */
bool vb_iperf2_udp_first_is_seq64(const uint8_t *p, size_t n);

/* The receiver's final figures, as iperf2's server accounts them. */
typedef struct vb_iperf2_udp_stats {
    uint64_t bytes;        /* received datagram bytes, the FIN included */
    int64_t stop_us;       /* last datagram's arrival minus the first's */
    int64_t lost;          /* datagrams - received, floored at 0 */
    int64_t out_of_order;
    int64_t datagrams;     /* highest sequence id seen (the FIN's) */
    int64_t jitter_us;     /* RFC 1889 jitter */
} vb_iperf2_udp_stats;

/* Builds the 128-byte server report (flags VERSION1|SEQNO64B, no
 * SERVER_HEADER_EXTEND) the PC client prints as "Server Report". */
void vb_iperf2_server_report(uint8_t out[VB_IPERF2_SERVER_REPORT_LEN], const vb_iperf2_udp_stats *s);

/* Decodes a server report (at least 56 bytes) as the PC client does. */
bool vb_iperf2_server_report_parse(const uint8_t *p, size_t n, vb_iperf2_udp_stats *out);

#endif
