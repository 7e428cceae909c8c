/* The latency test's PC side: the system ping (iputils-ping) run as a child
 * process against a board's IP, its output parsed by ping_parse.h. ICMP echo
 * is answered by lwIP on any board with an IP, whatever firmware it runs. */
#ifndef ESPBENCH_PING_PROC_H
#define ESPBENCH_PING_PROC_H

#include "espbench/base/clock.h"
#include "espbench/base/error.h"
#include "espbench/formats/ping_parse.h"

/* The program to run: $ESPBENCH_PING if set, else "ping" (searched in PATH). */
const char *eb_ping_program(void);

/* Runs `ping -n -c COUNT -i INTERVAL -W 1 HOST` (interval >= 0.2 s, the
 * least iputils allows without privileges), reads its output until it exits
 * or the deadline passes (then it is killed and what it printed is parsed),
 * and fills out. Output is appended to log_path when not NULL. Returns 0,
 * EB_ECONFIG for a bad count/interval/host, EB_EIO when ping could not run or
 * printed no summary. */
int eb_ping_run(const char *host, int count, double interval_s, eb_deadline d, const char *log_path,
                eb_ping_result *out, eb_error *err);

#endif
