/* The virtual board's iperf engine: real TCP/UDP sockets bound to the board's
 * 127.X.Y.Z address, interoperable with iperf2 2.1.x on the PC, shaped to a
 * model rate. The console module turns its reports into each dialect's lines;
 * every figure printed comes from bytes actually moved. */
#ifndef VB_TRAFFIC_H
#define VB_TRAFFIC_H

#include <stdbool.h>
#include <stdint.h>

#include "espbench/base/error.h"

typedef struct vb_iperf vb_iperf;

typedef struct vb_iperf_cfg {
    bool server;            /* -s (board receives) or -c (board sends) */
    bool udp;               /* -u */
    char local_ip[16];      /* the board's address */
    char remote_ip[64];     /* -c host */
    uint16_t port;          /* -p, default 5001 */
    double interval_s;      /* -i */
    double time_s;          /* -t */
    double bw_limit_mbps;   /* -b for a client (decimal Mbit/s), 0 = none */
    int len;                /* -l, 0 = dialect default (TCP 16384, UDP 1470) */
    double model_mbps;      /* the shaped rate for this test (profile reference) */
    double noise_pct;       /* seeded noise on the shaped rate per interval */
    uint32_t seed;
    /* Answer the client's final datagram with an iperf2 server report. No
     * firmware does (espressif/iperf's UDP server counts bytes only): the
     * console never sets it; test_vb_traffic does, to read the PC's view of
     * what the engine accepted. */
    bool send_udp_server_report;
    int zero_intervals;     /* fault: this many intervals with no traffic, from zero_from_s */
    double zero_from_s;
    bool stall;             /* fault: stop moving data and reporting until aborted */
    /* Added by the traffic engine (0 = VB_IPERF_ACCEPT_TIMEOUT_MS): how long a
     * server waits for its client and any test waits for data or a connect,
     * like the firmware's IPERF_SOCKET_RX_TIMEOUT. The stall fault starts at
     * zero_from_s (0 = at once). */
    int accept_timeout_ms;
} vb_iperf_cfg;

/* The firmware's socket timeout (IPERF_SOCKET_RX_TIMEOUT, 10 s in v4.4-v6.0). */
#define VB_IPERF_ACCEPT_TIMEOUT_MS 10000

enum vb_iperf_event {
    VB_IPERF_SOCKET_CREATED, /* server listening / client socket ready */
    VB_IPERF_CONNECTED,      /* accepted (server) or connected (client); peer_ip/peer_port set */
    VB_IPERF_INTERVAL,       /* one report interval */
    VB_IPERF_SUMMARY,        /* whole-test line, at the end */
    VB_IPERF_ERROR,          /* text set, e.g. "Socket unable to connect: errno 111" */
    VB_IPERF_DONE,           /* engine finished (after SUMMARY or ERROR) */
};

typedef struct vb_iperf_report {
    enum vb_iperf_event event;
    double start_s, end_s;   /* since traffic started */
    uint64_t bytes;          /* bytes moved in [start_s, end_s) (payload, as iperf counts) */
    double mean_of_intervals_mbps; /* SUMMARY only: mean of interval rates (decimal) */
    char peer_ip[64];
    uint16_t peer_port;
    uint64_t t0_us;          /* CONNECTED: the engine's time 0 (monotonic), which every start_s/end_s counts from */
    long udp_lost, udp_total; /* server UDP: datagrams lost/total in this interval */
    char text[160];
} vb_iperf_report;

typedef void (*vb_iperf_report_fn)(void *user, const vb_iperf_report *r);

/* Starts the engine in its own thread. Reports are delivered from that thread. */
int vb_iperf_start(vb_iperf **out, const vb_iperf_cfg *cfg, vb_iperf_report_fn fn, void *user,
                   eb_error *err);
bool vb_iperf_running(vb_iperf *ip);
/* Stops traffic, closes sockets, joins the thread (no report after it returns). */
void vb_iperf_abort(vb_iperf *ip);
void vb_iperf_free(vb_iperf *ip);
/* Total payload bytes moved so far (for benchmarks' "true rate"). */
uint64_t vb_iperf_total_bytes(vb_iperf *ip);

#endif
