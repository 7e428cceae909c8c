/* The model of an ESP-Hosted pair (docs/model.md, "ESP-Hosted pairs").
 *
 * Traffic crosses two links in series: the co-processor's Wi-Fi and the
 * host transport (SDIO/SPI/UART). The Wi-Fi side is the single-board tier
 * model of the co-processor chip run with the HOST's settings, because the
 * co-processor initialises Wi-Fi with the values the host sends
 * (esp-hosted-mcu slave/main/slave_wifi_std.c, get_merged_init_config) and
 * the TCP windows and mailboxes are the host's lwIP. The transport carries
 * at most its raw rate, which the pair profile gives (the published raw
 * test: the transport alone); an iperf frame adds its headers to the same
 * payload, so the payload through the transport is the raw rate scaled by
 * payload / (payload + headers). The figure is the smaller of the two.
 * Pure: no allocation, no I/O. */
#include <math.h>
#include <string.h>

#include "espbench/formats/hosted.h"

/* The raw test counts 1460-byte payloads (esp-hosted-mcu Kconfig
 * ESP_HOSTED_RAW_TP_HOST_TO_ESP_PKT_LEN default); an iperf frame on the
 * transport is the Ethernet frame: 14 B Ethernet, 20 B IP and 20 B TCP or
 * 8 B UDP around a 1460-byte (TCP MSS) or 1470-byte (iperf UDP) payload, so the
 * transport carries payload / (payload + headers) of its raw rate as payload. */
#define TCP_PAYLOAD 1460.0
#define TCP_HEADERS 54.0
#define UDP_PAYLOAD 1470.0
#define UDP_HEADERS 42.0

double eb_hosted_payload_cap(const eb_hosted_pair *pair, bool tx, bool udp)
{
    double raw = pair->raw_mbps[tx ? 0 : 1];
    if (isnan(raw) || raw <= 0)
        return NAN;
    return udp ? raw * UDP_PAYLOAD / (UDP_PAYLOAD + UDP_HEADERS) : raw * TCP_PAYLOAD / (TCP_PAYLOAD + TCP_HEADERS);
}

double eb_hosted_figure(const eb_model *m, const eb_profiles *p, const eb_hosted_pair *pair, const eb_tier *t,
                        const eb_model_link *l, int test)
{
    if (test == EB_TEST_RAW_TX || test == EB_TEST_RAW_RX)
        return pair->raw_mbps[test == EB_TEST_RAW_RX];
    const eb_chip *cp = eb_profiles_chip(p, pair->coprocessor), *host = eb_profiles_chip(p, pair->host);
    if (!m || !cp || !host || !t || test < 0 || test > EB_TEST_COUNT)
        return NAN;
    eb_prediction pr;
    if (test == EB_TEST_COUNT) {
        /* Free heap: the host runs lwIP and the application; its model's
         * heap constants only where published heaps fitted them (the
         * ESP32-P4 has none: its priors go below zero with large buffers). */
        const eb_model_chip *mh = eb_model_chip_get(m, host->name);
        if (!mh || mh->n_heap == 0)
            return NAN;
        eb_model_predict(mh, host, t, l, &pr);
        return pr.free_kb;
    }
    const eb_model_chip *mc = eb_model_chip_get(m, cp->name);
    if (!mc)
        return NAN;
    eb_model_predict(mc, cp, t, l, &pr);
    bool tx = test == EB_TEST_TCP_TX || test == EB_TEST_UDP_TX;
    bool udp = test == EB_TEST_UDP_TX || test == EB_TEST_UDP_RX;
    double cap = eb_hosted_payload_cap(pair, tx, udp);
    double v = pr.mbps[test];
    return isnan(cap) || v < cap ? v : cap;
}
