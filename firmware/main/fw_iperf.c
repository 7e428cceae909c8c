/* iperf glue: starts Espressif's iperf engine (espressif/iperf 1.x) and turns
 * its reports into the core's iperf events. */
#include <stdio.h>
#include <string.h>

#include "iperf.h"
#include "lwip/inet.h"
#include "lwip/sockets.h"

#include "fw.h"

static ebc_core *s_core;
static volatile bool s_running;
static bool s_udp_server;

void fw_iperf_setup(ebc_core *core) { s_core = core; }

static void on_state(iperf_id_t id, iperf_state_data_t *d, void *priv)
{
    (void)id;
    (void)priv;
    if (d->state == IPERF_CLOSED) {
        s_running = false;
        ebc_event_iperf_done(s_core);
    }
}

/* The engine calls this (a weak symbol in the component) for every report;
 * ours replaces its printf output with machine-readable events. */
void iperf_report_output(const iperf_report_t *r)
{
    switch (r->report_type) {
    case IPERF_REPORT_CONNECT_INFO: {
        char ip[48] = "";
        unsigned port = 0;
        const struct sockaddr_storage *ss = &r->connect_info.target_addr;
        if (ss->ss_family == AF_INET) {
            const struct sockaddr_in *in = (const struct sockaddr_in *)ss;
            inet_ntoa_r(in->sin_addr, ip, sizeof ip);
            port = ntohs(in->sin_port);
        }
        /* The engine's report task also prints its connect info when a server that never had
         * a client ends (accept() timed out after an abort): no peer, no event. */
        if (!ip[0] || !port)
            break;
        ebc_event_iperf_connected(s_core, ip, port);
        break;
    }
    case IPERF_REPORT_PERIOD:
        ebc_event_iperf_interval(s_core, r->traffic.period_start_sec, r->traffic.end_sec,
                                 (unsigned long long)r->traffic.period_bytes, false, 0, 0, -1.0);
        break;
    case IPERF_REPORT_SUMMARY:
        ebc_event_iperf_summary(s_core, 0, r->traffic.end_sec,
                                (unsigned long long)r->traffic.total_transfer_bytes, false, 0, 0);
        break;
    }
}

int fw_iperf_start(void *ctx, const ebc_iperf_args *a, char *msg, size_t msg_len)
{
    (void)ctx;
    if (s_running) {
        snprintf(msg, msg_len, "iperf is already running");
        return -1;
    }
    unsigned long self = fw_net_ip4();
    if (!self) {
        snprintf(msg, msg_len, "no IP address");
        return -1;
    }
    iperf_cfg_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.flag = (a->server ? IPERF_FLAG_SERVER : IPERF_FLAG_CLIENT) | (a->udp ? IPERF_FLAG_UDP : IPERF_FLAG_TCP);
    cfg.source.type = ESP_IPADDR_TYPE_V4;
    cfg.source.u_addr.ip4.addr = self;
    if (!a->server) {
        cfg.destination.type = ESP_IPADDR_TYPE_V4;
        cfg.destination.u_addr.ip4.addr = inet_addr(a->host);
    }
    uint16_t port = a->port ? a->port : IPERF_DEFAULT_PORT;
    cfg.sport = a->server ? port : IPERF_DEFAULT_PORT;
    cfg.dport = a->server ? IPERF_DEFAULT_PORT : port;
    /* The engine counts whole seconds (a 1 s tick, iperf.c tick_timer_cb): the
     * nearest, at least 1 (below 1 s its own default would be 30 s). */
    cfg.interval = a->interval_s >= 1.0 ? (uint32_t)(a->interval_s + 0.5) : 1;
    cfg.time = a->time_s >= 1.0 ? (uint32_t)(a->time_s + 0.5) : 1;
    /* the engine's options of the core's table (0: the engine's Kconfig default) */
#define FW_IPERF_SET(name, opt, lo, hi, field) cfg.field = (__typeof__(cfg.field))a->name;
    EBC_IPERF_ENGINE_OPTS(FW_IPERF_SET)
#undef FW_IPERF_SET
    cfg.bw_lim = a->bw_mbps > 0 ? (int32_t)(a->bw_mbps * 1e6) : IPERF_DEFAULT_NO_BW_LIMIT;
    cfg.format = MBITS_PER_SEC;
    cfg.state_handler = on_state;
    s_udp_server = a->server && a->udp;
    s_running = true;
    if (iperf_start_instance(&cfg) < 0) {
        s_running = false;
        snprintf(msg, msg_len, "iperf engine refused to start");
        return -1;
    }
    return 0;
}

void fw_iperf_abort(void *ctx)
{
    (void)ctx;
    iperf_stop_instance(IPERF_ALL_INSTANCES_ID);
}

bool fw_iperf_running(void *ctx)
{
    (void)ctx;
    return s_running;
}
