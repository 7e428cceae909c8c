/* Parser of the system ping's output (iputils-ping, and BusyBox's summary
 * form) for the latency test: round-trip time from the PC to a board.
 * A pure function over bytes (ping_parse.c); running ping is the caller's. */
#ifndef ESPBENCH_PING_PARSE_H
#define ESPBENCH_PING_PARSE_H

#include <stddef.h>

#include "espbench/base/error.h"

#define EB_PING_MAX_REPLIES 4096

typedef struct eb_ping_result {
    int transmitted, received, duplicates;
    double loss_pct;                         /* from the counts: 100 * (tx - rx) / tx */
    double min_ms, avg_ms, max_ms, mdev_ms;  /* ping's own summary; NAN when absent */
    double p99_ms;                           /* nearest rank over the replies; NAN without */
    int n_rtt;                               /* replies kept (duplicates are not) */
    double rtt_ms[EB_PING_MAX_REPLIES];
} eb_ping_result;

/* Parses ping's whole output. Needs the "packets transmitted" line; the
 * rtt line is absent when nothing came back (min/avg/max stay NAN, loss is
 * 100 %). Returns 0, or EB_EIO with the line that was missing or malformed. */
int eb_ping_parse(const char *buf, size_t len, eb_ping_result *out, eb_error *err);

/* For probes timed by espbench itself (UDP echo): loss from transmitted and
 * received, min/avg/max/mdev (mdev as iputils: sqrt(E[x^2] - E[x]^2)) and
 * p99 from rtt_ms[0..n_rtt). */
void eb_ping_summarize(eb_ping_result *r);

#endif
