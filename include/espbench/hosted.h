/* ESP-Hosted (esp-hosted-mcu): parsing the raw transport throughput test's
 * console output. Pure functions over bytes; no I/O. */
#ifndef ESPBENCH_HOSTED_H
#define ESPBENCH_HOSTED_H

#include <stddef.h>

#include "espbench/error.h"

#define EB_RAW_TP_MAX_INTERVALS 512

typedef struct eb_raw_tp_interval {
    double start_s, end_s;
    double tx_mbps, rx_mbps;  /* host TX (host->co-processor), host RX */
} eb_raw_tp_interval;

typedef struct eb_raw_tp_result {
    eb_raw_tp_interval iv[EB_RAW_TP_MAX_INTERVALS];
    int n;
    int kbit_base;            /* 1024 ("stats" tag) or 1000 ("eh_raw_tp" tag) */
    double tx_mean_mbps, rx_mean_mbps; /* mean over intervals with traffic; 0 if none */
} eb_raw_tp_result;

/* Parses the host's raw-throughput report lines out of a console log. Returns
 * 0, or EB_EPARSE when no report line is found. */
int eb_raw_tp_parse(const char *text, size_t len, eb_raw_tp_result *out, eb_error *err);

#endif
