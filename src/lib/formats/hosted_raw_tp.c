/* ESP-Hosted raw transport throughput report, host side.
 *
 * Source: espressif/esp-hosted-mcu. With CONFIG_ESP_HOSTED_RAW_THROUGHPUT_TRANSPORT
 * the host logs one line per CONFIG_ESP_HOSTED_RAW_TP_REPORT_INTERVAL seconds:
 *   host/utils/stats.c (log tag "stats"), bits / 1024:
 *     "I (t) stats: %lu-%lu sec Tx:%.2f Rx:%.2f kbps\n\r"   (USE_FLOATING_POINT)
 *     "I (t) stats: %lu-%lu sec Tx:%lu Rx:%lu Kbps"          (integer build)
 *   the newer host port (log tag "eh_raw_tp"), bits / 1000:
 *     "I (t) eh_raw_tp: %lu-%lu sec Tx:%lu Rx:%lu Kbps"
 * Tx is host -> co-processor (the guide's "raw P4->CP"), Rx the reverse. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/hosted.h"

static const char *find_in(const char *s, const char *end, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = s; p + n <= end; p++)
        if (memcmp(p, needle, n) == 0)
            return p;
    return NULL;
}

/* Reads a non-negative decimal number at *p (bounded by end). */
static int read_num(const char **p, const char *end, double *out)
{
    char buf[48];
    size_t n = 0;
    while (*p + n < end && n < sizeof buf - 1 &&
           (((*p)[n] >= '0' && (*p)[n] <= '9') || (*p)[n] == '.'))
        n++;
    if (n == 0)
        return -1;
    memcpy(buf, *p, n);
    buf[n] = '\0';
    *out = strtod(buf, NULL);
    *p += n;
    return 0;
}

static int expect(const char **p, const char *end, const char *lit)
{
    size_t n = strlen(lit);
    if ((size_t)(end - *p) < n || memcmp(*p, lit, n) != 0)
        return -1;
    *p += n;
    return 0;
}

/* One report line -> interval; returns 0 if the line is one. */
static int parse_line(const char *s, const char *end, eb_raw_tp_interval *iv, int *base)
{
    const char *sec = find_in(s, end, " sec Tx:");
    if (!sec)
        return -1;
    /* "A-B" just before " sec" */
    const char *q = sec;
    while (q > s && ((q[-1] >= '0' && q[-1] <= '9') || q[-1] == '-'))
        q--;
    double a, b, tx, rx;
    if (read_num(&q, sec, &a) || expect(&q, sec, "-") || read_num(&q, sec, &b) || q != sec)
        return -1;
    const char *p = sec + strlen(" sec Tx:");
    if (read_num(&p, end, &tx) || expect(&p, end, " Rx:") || read_num(&p, end, &rx))
        return -1;
    if (expect(&p, end, " kbps") && expect(&p, end, " Kbps"))
        return -1;
    *base = find_in(s, sec, " eh_raw_tp: ") ? 1000 : 1024;
    iv->start_s = a;
    iv->end_s = b;
    iv->tx_mbps = tx * *base / 1e6;
    iv->rx_mbps = rx * *base / 1e6;
    return 0;
}

int eb_raw_tp_parse(const char *text, size_t len, eb_raw_tp_result *out, eb_error *err)
{
    memset(out, 0, sizeof *out);
    const char *p = text, *end = text + len;
    double tx_sum = 0, rx_sum = 0;
    int tx_n = 0, rx_n = 0;
    while (p < end && out->n < EB_RAW_TP_MAX_INTERVALS) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        eb_raw_tp_interval iv;
        int base;
        if (parse_line(p, le, &iv, &base) == 0) {
            out->iv[out->n++] = iv;
            out->kbit_base = base;
            if (iv.tx_mbps > 0)
                tx_sum += iv.tx_mbps, tx_n++;
            if (iv.rx_mbps > 0)
                rx_sum += iv.rx_mbps, rx_n++;
        }
        p = nl ? nl + 1 : end;
    }
    if (out->n == 0)
        return eb_fail(err, EB_ECONFIG,
                       "no ESP-Hosted raw throughput line (\"N-M sec Tx:X Rx:Y kbps\") in the log; "
                       "build the host with CONFIG_ESP_HOSTED_RAW_THROUGHPUT_TRANSPORT=y");
    out->tx_mean_mbps = tx_n ? tx_sum / tx_n : 0;
    out->rx_mean_mbps = rx_n ? rx_sum / rx_n : 0;
    return 0;
}
